//! One tasks.json entry made concrete: the platform override and the file-wide `options`
//! applied, variables substituted, and the command turned into what agg executes.

use std::fmt::Write as _;

use super::{PLATFORM, dependency_names};
use crate::doc::Node;
use crate::files::{join, relative};
use crate::model::{Parsed, Source};

/// A task as agg runs it.
#[derive(Debug)]
pub(crate) struct Spec {
    pub label: String,
    pub line: u32,
    pub detail: Option<String>,
    pub group: Option<String>,
    pub depends_on: Vec<String>,
    /// Environment from `options.env`, as substituted (the command exports it).
    pub env: Vec<(String, String)>,
    pub background: bool,
    /// The working directory, root-relative.
    pub dir: String,
    pub command: Option<Command>,
    /// Why agg cannot run it, when it cannot.
    pub refusal: Option<Refusal>,
    /// `command` and `args` as the file writes them, variables and all.
    pub written: Option<String>,
    /// The script of an `npm` task, which a `dependsOn` may name by `{type, script}`.
    pub npm_script: Option<String>,
    /// Not offered in the list (`"hide": true`, or a task VS Code detects by itself that a
    /// `dependsOn` names); it still runs as a dependency.
    pub hidden: bool,
}

/// Why agg does not run a task.
#[derive(Debug, Clone)]
pub(crate) enum Refusal {
    /// The task is written wrong (a `command` that is not a string, a `cwd` outside the
    /// repository, a `dependsOn` cycle): a diagnostic, and no row.
    Broken(String),
    /// The task is fine but needs VS Code (a task type an extension provides, a variable
    /// only the editor fills in): listed as not runnable, with this reason.
    NeedsEditor(String),
    /// A `dependsOn` chain deeper than agg follows: a diagnostic.
    TooDeep,
}

/// What a task executes.
#[derive(Debug)]
pub(crate) enum Command {
    /// A command line for `sh -c`.
    Shell(String),
    /// A program and its arguments, run directly.
    Process(Vec<String>),
}

impl Command {
    /// `npm run SCRIPT --`: with `--`, the caller's arguments are the script's, not npm's
    /// own options.
    pub fn npm_run(script: &str) -> Command {
        Command::Process(
            ["npm", "run", script, "--"]
                .into_iter()
                .map(str::to_owned)
                .collect(),
        )
    }

    /// The argv agg executes; the caller's arguments are appended (`"$@"` for a shell line).
    pub fn argv(&self) -> Vec<String> {
        match self {
            Command::Shell(line) => vec![
                "sh".to_owned(),
                "-c".to_owned(),
                format!("{line} \"$@\""),
                "sh".to_owned(),
            ],
            Command::Process(argv) => argv.clone(),
        }
    }

    /// The command as a person reads it.
    pub fn display(&self) -> String {
        match self {
            Command::Shell(line) => line.clone(),
            Command::Process(argv) => crate::text::quote_command(argv),
        }
    }
}

impl Spec {
    /// The task VS Code detects for the `script` of the folder's `package.json`, which a
    /// `dependsOn` names (`npm: build`) without the file defining it.
    pub fn detected_npm(label: String, script: String, folder: &str) -> Spec {
        Spec {
            label,
            line: 0,
            detail: None,
            group: None,
            depends_on: Vec::new(),
            env: Vec::new(),
            background: false,
            dir: folder.to_owned(),
            command: Some(Command::npm_run(&script)),
            refusal: None,
            written: None,
            npm_script: Some(script),
            hidden: true,
        }
    }

    /// This task as one step of a `dependsOn` chain run from the workspace folder: a
    /// subshell that enters its directory and runs its command (`own`: with the caller's
    /// arguments).
    pub fn step(&self, folder: &str, own: bool) -> Option<String> {
        let command = self.command.as_ref()?;
        let mut line = String::from("(");
        if self.dir != folder {
            // `||` and not `&&`: the command may be a list (`a; b`, `a & b`), all of which
            // must run in the directory, and none of it when the directory is missing.
            let _ = write!(line, "cd {} || exit; ", quote(&relative(folder, &self.dir)));
        }
        line.push_str(&command.display());
        if own {
            line.push_str(" \"$@\"");
        }
        line.push(')');
        Some(line)
    }
}

/// What every task of one file shares.
pub(crate) struct Context<'a> {
    path: &'a str,
    folder: &'a str,
    folder_name: Option<String>,
    /// File-wide `options`, then the file-wide platform `options`.
    options: Vec<&'a Node>,
    /// The file-wide `type`, when it sets one.
    kind: Option<&'a str>,
}

impl<'a> Context<'a> {
    pub fn new(src: &'a Source<'a>, root: &'a Node, folder: &'a str) -> Context<'a> {
        let folder_name = if folder == "." {
            src.files.root_name()
        } else {
            folder.rsplit('/').next().map(str::to_owned)
        };
        let options = [root.get("options"), root.path(&[PLATFORM, "options"])]
            .into_iter()
            .flatten()
            .collect();
        Context {
            path: src.path,
            folder,
            folder_name,
            options,
            kind: root.get("type").and_then(Node::str),
        }
    }

    /// The task `item` describes, or `None` (with a diagnostic) when it is not one.
    pub fn spec(&self, item: &Node, out: &mut Parsed) -> Option<Spec> {
        if item.entries().is_none() {
            out.diag(
                self.path,
                Some(item.line),
                format!("a task must be an object, found {}", item.kind()),
            );
            return None;
        }
        let platform = item.get(PLATFORM);
        // A property from the platform override wins over the task's own.
        let prop = |key: &str| platform.and_then(|p| p.get(key)).or_else(|| item.get(key));
        let label_node = item.get("label").or_else(|| item.get("taskName"));
        let line = label_node.map_or(item.line, |n| n.line);
        let kind = prop("type").and_then(Node::str).or(self.kind);
        let Some(label) = label_node
            .and_then(Node::str)
            .map(str::to_owned)
            .or_else(|| default_label(item, kind))
        else {
            let message = match kind {
                Some(kind) if !matches!(kind, "shell" | "process") => format!(
                    "a task of type `{kind}` without a `label` is skipped: its extension names it"
                ),
                _ => "a task without a `label` is skipped".to_owned(),
            };
            out.diag(self.path, Some(line), message);
            return None;
        };
        let mut spec = Spec {
            label,
            line,
            detail: prop("detail").and_then(Node::str).map(str::to_owned),
            group: prop("group").and_then(group),
            depends_on: prop("dependsOn").map(dependency_names).unwrap_or_default(),
            env: Vec::new(),
            background: prop("isBackground").is_some_and(Node::is_true),
            dir: self.folder.to_owned(),
            command: None,
            refusal: None,
            npm_script: (kind == Some("npm"))
                .then(|| item.get("script").and_then(Node::str).map(str::to_owned))
                .flatten(),
            hidden: prop("hide").is_some_and(Node::is_true),
            written: prop("command").and_then(|command| {
                let args = prop("args").and_then(Node::items).unwrap_or_default();
                std::iter::once(command_word(command, false))
                    .chain(args.iter().map(|n| word(n, false)))
                    .map(|w| w.map(|w| w.value))
                    .collect::<Option<Vec<_>>>()
                    .map(|words| words.join(" "))
            }),
        };
        let mut options: Vec<&Node> = self.options.clone();
        options.extend(item.get("options"));
        options.extend(platform.and_then(|p| p.get("options")));
        if let Err(refusal) = self.fill(&mut spec, kind, &prop, item, &options) {
            spec.refusal = Some(refusal);
        }
        Some(spec)
    }

    /// Working directory, environment and command of `spec`.
    fn fill<'n>(
        &self,
        spec: &mut Spec,
        kind: Option<&str>,
        prop: &dyn Fn(&str) -> Option<&'n Node>,
        item: &Node,
        options: &[&Node],
    ) -> Result<(), Refusal> {
        if let Some(cwd) = options
            .iter()
            .rev()
            .find_map(|o| o.get("cwd").and_then(Node::str))
        {
            let cwd = self.substitute(cwd, ".", Mode::Plain)?;
            spec.dir = join(self.folder, &cwd).ok_or_else(|| {
                Refusal::Broken(format!("`options.cwd` `{cwd}` is outside the repository"))
            })?;
        }
        let up = relative(&spec.dir, self.folder);
        let mut exports = Vec::new();
        for options in options {
            for entry in options
                .get("env")
                .and_then(Node::entries)
                .unwrap_or_default()
            {
                let Some(value) = entry.node.scalar() else {
                    continue;
                };
                spec.env.retain(|(k, _)| *k != entry.key);
                exports.retain(|(k, _): &(String, String)| *k != entry.key);
                // Shown as written by `describe`, exported by the command itself (agg runs
                // it directly, with no runner to set it).
                let expands = value.contains("${env:") || value.contains("${userHome}");
                let literal = self.substitute(value, &up, Mode::Shell)?;
                let rendered = if expands {
                    format!("\"{}\"", self.substitute(value, &up, Mode::Quoted)?)
                } else {
                    quote(&literal)
                };
                spec.env.push((entry.key.clone(), literal));
                exports.push((entry.key.clone(), rendered));
            }
        }
        let kind = kind.unwrap_or("process");
        match kind {
            "shell" | "process" => {}
            "npm" => return self.npm(spec, item),
            other => {
                return Err(Refusal::NeedsEditor(format!(
                    "a task of type `{other}` is run by a VS Code extension; run it from VS Code"
                )));
            }
        }
        // Without a command the task only runs what it depends on.
        let Some(command) = prop("command") else {
            return Ok(());
        };
        let shell = kind == "shell";
        let mut args: Vec<&Node> = prop("args")
            .and_then(Node::items)
            .map(|items| items.iter().collect())
            .unwrap_or_default();
        // A `command` array: a shell task's words joined with spaces (as VS Code joins
        // them), a process task's program and its first arguments.
        let command = match command.items() {
            Some([program, rest @ ..]) if !shell => {
                args.splice(0..0, rest);
                program
            }
            _ => command,
        };
        let needs_shell = shell || !exports.is_empty() || uses_env(command, &args);
        let mut words = Vec::new();
        // VS Code quotes a command holding whitespace only when arguments follow it.
        let program = command_word(command, shell && !args.is_empty())
            .ok_or_else(|| Refusal::Broken("`command` must be a string".to_owned()))?;
        words.push(self.render(&program, &up, needs_shell, shell)?);
        for arg in &args {
            let Some(arg) = word(arg, shell) else {
                return Err(Refusal::Broken(
                    "every `args` item must be a string or `{value, quoting}`".to_owned(),
                ));
            };
            words.push(self.render(&arg, &up, needs_shell, shell)?);
        }
        spec.command = Some(if needs_shell {
            let mut line = String::new();
            for (key, value) in &exports {
                let _ = write!(line, "export {key}={value}; ");
            }
            if !shell {
                line.push_str("exec ");
            }
            line.push_str(&words.join(" "));
            Command::Shell(line)
        } else {
            Command::Process(words)
        });
        Ok(())
    }

    /// An `npm`-type task: `npm run SCRIPT` in its `path`.
    fn npm(&self, spec: &mut Spec, item: &Node) -> Result<(), Refusal> {
        let script = item.get("script").and_then(Node::str).ok_or_else(|| {
            Refusal::Broken("an `npm` task without `script` runs nothing".to_owned())
        })?;
        if let Some(path) = item.get("path").and_then(Node::str) {
            let path = self.substitute(path, ".", Mode::Plain)?;
            spec.dir = join(self.folder, path.trim_end_matches('/')).ok_or_else(|| {
                Refusal::Broken(format!("`path` `{path}` is outside the repository"))
            })?;
        }
        spec.command = Some(Command::npm_run(script));
        Ok(())
    }

    /// `word` with its variables substituted, rendered for a shell line (quoted as asked)
    /// or as one argv word. `shell_task`: the task is of type `shell` (its words are shell
    /// syntax); a process task put on a shell line gets one double-quoted word per item.
    fn render(
        &self,
        word: &Word,
        up: &str,
        on_shell: bool,
        shell_task: bool,
    ) -> Result<String, Refusal> {
        if !on_shell {
            return self.substitute(&word.value, up, Mode::Plain);
        }
        if !shell_task {
            let inner = self.substitute(&word.value, up, Mode::Quoted)?;
            return Ok(format!("\"{inner}\""));
        }
        let value = self.substitute(&word.value, up, Mode::Shell)?;
        Ok(match word.quoting {
            Quoting::Verbatim => value,
            Quoting::Strong => quote(&value),
            Quoting::Weak => weak(&value),
            Quoting::Escape => escape(&value),
        })
    }

    /// Substitutes the variables VS Code resolves without an editor; `folder` is what
    /// `${workspaceFolder}` becomes.
    fn substitute(&self, text: &str, folder: &str, mode: Mode) -> Result<String, Refusal> {
        let mut out = String::with_capacity(text.len());
        let literal = |out: &mut String, part: &str| {
            if mode == Mode::Quoted {
                for c in part.chars() {
                    if matches!(c, '"' | '\\' | '$' | '`') {
                        out.push('\\');
                    }
                    out.push(c);
                }
            } else {
                out.push_str(part);
            }
        };
        let shell = mode != Mode::Plain;
        let mut rest = text;
        while let Some(start) = rest.find("${") {
            literal(&mut out, &rest[..start]);
            let after = &rest[start + 2..];
            let Some(end) = after.find('}') else {
                literal(&mut out, &rest[start..]);
                return Ok(out);
            };
            let name = &after[..end];
            match name {
                "workspaceFolder" | "workspaceRoot" => literal(&mut out, folder),
                "workspaceFolderBasename" => literal(
                    &mut out,
                    self.folder_name.as_deref().ok_or_else(|| {
                        Refusal::Broken("`${workspaceFolderBasename}` is not known here".to_owned())
                    })?,
                ),
                "pathSeparator" | "/" => out.push('/'),
                "userHome" if shell => out.push_str("${HOME}"),
                _ if shell && name.starts_with("env:") => {
                    let var = &name[4..];
                    if var.is_empty() || !var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    {
                        return Err(Refusal::Broken(format!(
                            "`${{{name}}}` names no environment variable"
                        )));
                    }
                    let _ = write!(out, "${{{var}}}");
                }
                _ => {
                    return Err(Refusal::NeedsEditor(format!(
                        "it uses `${{{name}}}`, which only the editor can fill in; run it from VS Code"
                    )));
                }
            }
            rest = &after[end + 1..];
        }
        literal(&mut out, rest);
        Ok(out)
    }
}

/// The label VS Code (or the extension that provides the type) gives a task without one:
/// `npm: build`, `tsc: watch - tsconfig.json`, `gulp: lint`.
pub(crate) fn default_label(item: &Node, kind: Option<&str>) -> Option<String> {
    let get = |key: &str| item.get(key).and_then(Node::str);
    match kind? {
        "npm" => get("script").map(|s| format!("npm: {s}")),
        "typescript" => {
            let option = get("option").unwrap_or("build");
            get("tsconfig").map(|c| format!("tsc: {option} - {c}"))
        }
        kind @ ("gulp" | "grunt" | "jake") => get("task").map(|t| format!("{kind}: {t}")),
        _ => None,
    }
}

/// `group`: `"build"` or `{ "kind": "build" }`.
fn group(node: &Node) -> Option<String> {
    node.str()
        .or_else(|| node.get("kind").and_then(Node::str))
        .filter(|g| *g != "none")
        .map(str::to_owned)
}

/// How variables are substituted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Into a value used as is: `${env:X}` cannot be expanded.
    Plain,
    /// Into shell syntax: `${env:X}` becomes `${X}`.
    Shell,
    /// Into the inside of double quotes: as `Shell`, with the rest escaped.
    Quoted,
}

/// How VS Code puts one word on a shell command line.
#[derive(Debug, Clone, Copy)]
enum Quoting {
    Verbatim,
    Strong,
    Weak,
    Escape,
}

struct Word {
    value: String,
    quoting: Quoting,
}

/// A `command` or `args` item: a string (quoted strongly when it holds whitespace, as VS
/// Code does for `sh`) or `{ "value": …, "quoting": "escape" | "strong" | "weak" }`.
/// A `command`: a word, or an array of strings VS Code joins with spaces.
fn command_word(node: &Node, shell: bool) -> Option<Word> {
    match node.items() {
        Some(parts) => Some(Word {
            value: parts
                .iter()
                .map(Node::str)
                .collect::<Option<Vec<_>>>()?
                .join(" "),
            quoting: Quoting::Verbatim,
        }),
        None => word(node, shell),
    }
}

fn word(node: &Node, shell: bool) -> Option<Word> {
    if let Some(value) = node.scalar() {
        let quoting = if shell && value.contains(char::is_whitespace) {
            Quoting::Strong
        } else {
            Quoting::Verbatim
        };
        return Some(Word {
            value: value.to_owned(),
            quoting,
        });
    }
    let value = node.get("value")?;
    let value = match value.items() {
        Some(parts) => parts
            .iter()
            .filter_map(Node::str)
            .collect::<Vec<_>>()
            .join(" "),
        None => value.scalar()?.to_owned(),
    };
    let quoting = match node.get("quoting").and_then(Node::str) {
        Some("strong") => Quoting::Strong,
        Some("weak") => Quoting::Weak,
        Some("escape") => Quoting::Escape,
        _ if shell && value.contains(char::is_whitespace) => Quoting::Strong,
        _ => Quoting::Verbatim,
    };
    Some(Word { value, quoting })
}

/// Whether a process task's words expand the environment (then a shell runs it).
fn uses_env(command: &Node, args: &[&Node]) -> bool {
    let text = |n: &Node| {
        n.scalar()
            .map(str::to_owned)
            .or_else(|| n.get("value").and_then(Node::scalar).map(str::to_owned))
            .unwrap_or_default()
    };
    std::iter::once(command)
        .chain(args.iter().copied())
        .map(text)
        .any(|t| t.contains("${env:") || t.contains("${userHome}"))
}

/// POSIX double quotes: the shell still expands `$` and backquotes inside, as VS Code's
/// weak quoting means.
fn weak(value: &str) -> String {
    let mut out = String::from("\"");
    for c in value.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// POSIX single quotes.
fn quote(value: &str) -> String {
    format!("'{}'", value.replace('\'', r"'\''"))
}

/// Backslash before every character `sh` would read specially.
fn escape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        if c.is_whitespace() || "'\"\\$`!*?&|;<>()[]{}#~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
