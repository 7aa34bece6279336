//! Zed tasks: `.zed/tasks.json` (JSON with comments), an array of task templates, run by agg
//! itself the way Zed's terminal runs them: the `command` line with its `args` (each quoted)
//! through a POSIX shell, in `cwd`, with `env` exported. The worktree is the directory holding
//! `.zed`. Zed's variables are substituted as Zed substitutes them when no file is open:
//! `$ZED_WORKTREE_ROOT` is the worktree (also exported, as Zed sets it for the task), a
//! variable with a default (`${ZED_FILE:README.md}`) takes the default, and a task that needs
//! the open file, the selection or the cursor without one is listed as not runnable (Zed
//! itself hides such a task until there is a file to fill it in).

use std::fmt::Write as _;

use crate::doc::{self, Dialect, Node, Report};
use crate::files::{join, parent};
use crate::model::{Adapter, Parsed, Runner, Source, Task};
use crate::text::quote_command;

/// The `.zed/tasks.json` adapter.
pub const ADAPTER: Adapter = Adapter {
    name: "zed tasks.json",
    candidate: |path| {
        (path == ".zed/tasks.json" || path.ends_with("/.zed/tasks.json")).then_some(0)
    },
    one_per_dir: true,
    admit: None,
    neighbours: None,
    parse,
};

/// The variable naming the worktree, which agg knows.
const ROOT: &str = "ZED_WORKTREE_ROOT";

/// The shells whose `-c` agg can hand a task's line to, as Zed's `shell.program` names them.
const POSIX_SHELLS: [&str; 5] = ["sh", "bash", "zsh", "dash", "ksh"];

/// A piece of a string once Zed's variables are found in it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    /// `$ZED_WORKTREE_ROOT`.
    Root,
}

/// A string with its variables resolved, or the variable only Zed can fill in.
type Resolved = Result<Vec<Piece>, Unfilled>;

/// A variable only Zed fills in (from the open file, the selection or the cursor): its name.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Unfilled(String);

/// Why only Zed can run a task: the reason it shows as not runnable.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ZedOnly {
    /// A shell that is not a POSIX shell (its program, when it names one).
    Shell(Option<String>),
    /// A variable only Zed fills in, and the setting (`` `cwd` ``, `` `env` ``…) using it.
    Variable(Unfilled, &'static str),
}

impl std::fmt::Display for ZedOnly {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ZedOnly::Shell(program) => write!(
                f,
                "it asks for the shell `{}`; agg runs Zed tasks with a POSIX shell",
                program.as_deref().unwrap_or("?")
            ),
            ZedOnly::Variable(Unfilled(var), place) => write!(
                f,
                "its {place} uses `${var}`, which only Zed fills in (from the open file, the selection or the cursor); run it from Zed"
            ),
        }
    }
}

impl std::error::Error for ZedOnly {}

/// What is wrong with a task, so that Zed would not load it either: it is not listed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Broken {
    /// `cwd` leaves the repository (as written).
    CwdOutside(String),
    /// An `env` key that is not a variable name.
    EnvKey(String),
}

impl std::fmt::Display for Broken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Broken::CwdOutside(cwd) => write!(f, "`cwd` `{cwd}` is outside the repository"),
            Broken::EnvKey(key) => write!(f, "`env` key `{key}` is not a variable name"),
        }
    }
}

impl std::error::Error for Broken {}

fn parse(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    let Some(root) = doc::read_jsonc(src.text, Dialect::Loose).or_report(src.path, &mut out) else {
        return out;
    };
    let Some(items) = root.items() else {
        out.diag(
            src.path,
            Some(root.line),
            format!("expected an array of tasks, found {}", root.kind()),
        );
        return out;
    };
    let worktree = parent(parent(src.path));
    let mut seen = std::collections::HashSet::new();
    for item in items {
        let Some(task) = task(src.path, worktree, item, &mut out) else {
            continue;
        };
        if !seen.insert(task.source_name.clone()) {
            out.diag(
                src.path,
                task.line,
                format!(
                    "task `{}` is defined twice; Zed lists the first",
                    task.source_name
                ),
            );
            continue;
        }
        out.tasks.push(task);
    }
    out
}

/// The row for one task template, or `None` (with a diagnostic) when it is written wrong.
fn task(path: &str, worktree: &str, item: &Node, out: &mut Parsed) -> Option<Task> {
    if item.entries().is_none() {
        out.diag(
            path,
            Some(item.line),
            format!("a task must be an object, found {}", item.kind()),
        );
        return None;
    }
    let line = item.get("label").map_or(item.line, |n| n.line);
    let Some(label) = item.get("label").and_then(Node::str) else {
        out.diag(
            path,
            Some(line),
            "a task without a string `label` is skipped",
        );
        return None;
    };
    let Some(command) = item.get("command").and_then(Node::str) else {
        out.diag(
            path,
            Some(line),
            format!("task `{label}` has no string `command`; Zed does not load it"),
        );
        return None;
    };
    let args: Vec<&str> = match item.get("args") {
        None => Vec::new(),
        Some(args) => {
            let Some(strs) = args.strs() else {
                out.diag(
                    path,
                    Some(args.line),
                    format!("task `{label}`: `args` must be an array of strings"),
                );
                return None;
            };
            strs
        }
    };
    let written = std::iter::once(command)
        .chain(args.iter().copied())
        .collect::<Vec<_>>()
        .join(" ");
    let mut row = Task::new(Runner::Zed, label, worktree, path, Vec::new());
    row.line = Some(line);
    row.env = doc::env_of(item.get("env"));
    row.script = Some(written);
    row.group = item
        .get("tags")
        .and_then(Node::strs)
        .and_then(|tags| tags.first().map(|t| (*t).to_owned()));
    match line_of(item, command, &args, worktree) {
        Ok(Ok((shell, line))) => {
            row.argv = vec![shell.clone(), "-c".to_owned(), line, shell];
        }
        Ok(Err(needs_zed)) => row.behaviour.not_runnable = Some(needs_zed.to_string()),
        Err(broken) => {
            out.diag(
                path,
                Some(line),
                format!("task `{label}` is not listed: {broken}"),
            );
            return None;
        }
    }
    Some(row)
}

/// The shell and the line agg runs for a task; the inner error says why only Zed can run it,
/// the outer one what is wrong with it.
fn line_of(
    item: &Node,
    command: &str,
    args: &[&str],
    worktree: &str,
) -> Result<Result<(String, String), ZedOnly>, Broken> {
    let shell = match shell(item.get("shell")) {
        Ok(shell) => shell,
        Err(reason) => return Ok(Err(reason)),
    };
    let mut line = format!("export {ROOT}=\"$PWD\"; ");
    if let Some(cwd) = item.get("cwd").and_then(Node::str) {
        let pieces = match resolve(cwd) {
            Ok(pieces) => pieces,
            Err(var) => return Ok(Err(ZedOnly::Variable(var, "`cwd`"))),
        };
        let dir =
            cwd_in_repo(&pieces, worktree).ok_or_else(|| Broken::CwdOutside(cwd.to_owned()))?;
        if dir != worktree {
            let rel = crate::files::relative(worktree, &dir);
            let _ = write!(line, "cd {} || exit; ", quote_command(&[rel]));
        }
    }
    for entry in item.get("env").and_then(Node::entries).unwrap_or_default() {
        let Some(value) = entry.node.scalar() else {
            continue;
        };
        if !is_name(&entry.key) {
            return Err(Broken::EnvKey(entry.key.clone()));
        }
        match resolve(value) {
            Ok(pieces) => {
                let _ = write!(line, "export {}={}; ", entry.key, word(&pieces));
            }
            Err(var) => return Ok(Err(ZedOnly::Variable(var, "`env`"))),
        }
    }
    match resolve(command) {
        Ok(pieces) => line.push_str(&shell_text(&pieces)),
        Err(var) => return Ok(Err(ZedOnly::Variable(var, "`command`"))),
    }
    for arg in args {
        match resolve(arg) {
            Ok(pieces) => {
                line.push(' ');
                line.push_str(&word(&pieces));
            }
            Err(var) => return Ok(Err(ZedOnly::Variable(var, "`args`"))),
        }
    }
    line.push_str(" \"$@\"");
    Ok(Ok((shell, line)))
}

/// The shell a task asks for: `"system"` (the default) and POSIX shells run under agg.
fn shell(node: Option<&Node>) -> Result<String, ZedOnly> {
    let program = match node {
        None => return Ok("sh".to_owned()),
        Some(n) if n.str() == Some("system") => return Ok("sh".to_owned()),
        Some(n) => n
            .path(&["program"])
            .or_else(|| n.path(&["with_arguments", "program"]))
            .and_then(Node::str),
    };
    let name = program.map(|p| p.rsplit('/').next().unwrap_or(p));
    match name {
        Some(name) if POSIX_SHELLS.contains(&name) => Ok(name.to_owned()),
        _ => Err(ZedOnly::Shell(program.map(str::to_owned))),
    }
}

fn is_name(key: &str) -> bool {
    !key.is_empty()
        && !key.starts_with(|c: char| c.is_ascii_digit())
        && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Finds Zed's variables in `text`: `$ZED_X`, `${ZED_X}`, `${ZED_X:default}`. Other `$`
/// words are the shell's and stay. `Err` names a variable only Zed can fill in.
fn resolve(text: &str) -> Resolved {
    let mut pieces = Vec::new();
    let mut literal = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        literal.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, default, len) = if let Some(braced) = after.strip_prefix('{') {
            match braced.find('}') {
                Some(close) => {
                    let inner = &braced[..close];
                    let (name, default) = match inner.split_once(':') {
                        Some((name, default)) => (name, Some(default)),
                        None => (inner, None),
                    };
                    (name, default, close + 2)
                }
                None => ("", None, 0),
            }
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            (&after[..end], None, end)
        };
        if !name.starts_with("ZED_") {
            literal.push('$');
            rest = after;
            continue;
        }
        rest = &after[len..];
        if name == ROOT {
            pieces.push(Piece::Text(std::mem::take(&mut literal)));
            pieces.push(Piece::Root);
        } else if let Some(default) = default {
            literal.push_str(default);
        } else {
            return Err(Unfilled(name.to_owned()));
        }
    }
    literal.push_str(rest);
    pieces.push(Piece::Text(literal));
    pieces.retain(|p| *p != Piece::Text(String::new()));
    Ok(pieces)
}

/// A resolved string placed in a shell line as Zed places it: text as written, the worktree
/// through the variable agg exports (expanded where Zed would have written it in).
fn shell_text(pieces: &[Piece]) -> String {
    pieces
        .iter()
        .map(|p| match p {
            Piece::Text(text) => text.clone(),
            Piece::Root => format!("${{{ROOT}}}"),
        })
        .collect()
}

/// A resolved string as one shell word: text single-quoted, the worktree double-quoted.
fn word(pieces: &[Piece]) -> String {
    if pieces.is_empty() {
        return "''".to_owned();
    }
    pieces
        .iter()
        .map(|p| match p {
            Piece::Text(text) => quote_command(&[text]),
            Piece::Root => format!("\"${ROOT}\""),
        })
        .collect()
}

/// The root-relative directory a resolved `cwd` names: under the worktree variable, or
/// relative to the worktree; `None` when it leaves the repository or is absolute.
fn cwd_in_repo(pieces: &[Piece], worktree: &str) -> Option<String> {
    let (rest, from_root) = match pieces {
        [Piece::Root, rest @ ..] => (rest, true),
        rest => (rest, false),
    };
    let mut text = String::new();
    for p in rest {
        match p {
            Piece::Text(t) => text.push_str(t),
            Piece::Root => return None,
        }
    }
    let rel = if from_root {
        text.trim_start_matches('/')
    } else {
        text.as_str()
    };
    if rel.is_empty() {
        return Some(worktree.to_owned());
    }
    join(worktree, rel)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{lines, names, parse_one, task};
    use indoc::indoc;

    const PATH: &str = "app/.zed/tasks.json";

    fn parse(text: &str) -> Parsed {
        parse_one(ADAPTER.parse, PATH, text)
    }

    #[test]
    fn tasks_run_their_command_and_quoted_args_from_the_worktree() {
        let parsed = parse(
            r#"[
              // a comment, as Zed allows
              { "label": "test", "command": "cargo test", "args": ["--", "it's"], "env": { "RUST_LOG": "debug" } },
              { "label": "web", "command": "npm run dev", "cwd": "$ZED_WORKTREE_ROOT/web", "tags": ["serve"] },
              { "label": "root", "command": "ls \"$ZED_WORKTREE_ROOT\" $HOME", "cwd": "${ZED_WORKTREE_ROOT}" },
            ]"#,
        );
        assert_eq!(names(&parsed), ["test", "web", "root"]);
        let test = task(&parsed, "test");
        assert_eq!(test.dir, "app");
        assert_eq!(
            test.argv,
            [
                "sh",
                "-c",
                r#"export ZED_WORKTREE_ROOT="$PWD"; export RUST_LOG=debug; cargo test -- "it's" "$@""#,
                "sh"
            ]
        );
        assert_eq!(test.env, [("RUST_LOG".to_owned(), "debug".to_owned())]);
        let web = task(&parsed, "web");
        assert!(
            web.argv[2].contains("cd web || exit; npm run dev"),
            "{:?}",
            web.argv
        );
        assert_eq!(web.group.as_deref(), Some("serve"));
        assert!(task(&parsed, "root").argv[2].ends_with(r#"ls "${ZED_WORKTREE_ROOT}" $HOME "$@""#));
        assert!(lines(&parsed).is_empty(), "{:?}", lines(&parsed));
    }

    #[test]
    fn editor_variables_take_their_default_or_make_the_task_zeds_alone() {
        let parsed = parse(
            r#"[
              { "label": "stat", "command": "stat", "args": ["$ZED_FILE"] },
              { "label": "sel", "command": "echo \"${ZED_SELECTED_TEXT:nothing}\"" },
              { "label": "fish", "command": "ls", "shell": { "program": "fish" } },
              { "label": "bash", "command": "ls", "shell": { "with_arguments": { "program": "/bin/bash", "args": ["-l"] } } }
            ]"#,
        );
        let stat = task(&parsed, "stat");
        assert!(stat.argv.is_empty());
        assert!(
            stat.behaviour
                .not_runnable
                .as_deref()
                .is_some_and(|r| r.contains("$ZED_FILE")),
            "{:?}",
            stat.behaviour
        );
        assert_eq!(stat.script.as_deref(), Some("stat $ZED_FILE"));
        assert!(task(&parsed, "sel").argv[2].contains("echo \"nothing\""));
        assert!(task(&parsed, "fish").behaviour.not_runnable.is_some());
        assert_eq!(task(&parsed, "bash").argv[0], "bash");
    }

    #[test]
    fn what_is_written_wrong_is_said_at_its_line() {
        let parsed = parse(indoc! {"
            [
            { \"label\": \"a\" },
            { \"command\": \"x\" },
            { \"label\": \"b\", \"command\": \"x\", \"cwd\": \"/etc\" },
            { \"label\": \"c\", \"command\": \"x\", \"args\": [1] },
            { \"label\": \"d\", \"command\": \"x\" },
            { \"label\": \"d\", \"command\": \"y\" },
             3
            ]"});
        assert_eq!(names(&parsed), ["d"]);
        let lines: Vec<Option<u32>> = lines(&parsed).into_iter().map(|(l, _)| l).collect();
        assert_eq!(
            lines,
            [Some(2), Some(3), Some(4), Some(5), Some(7), Some(8)]
        );
        assert!(parse("{}").diagnostics[0].message.contains("array"));
        assert!(parse("[").diagnostics.len() == 1);
    }
}
