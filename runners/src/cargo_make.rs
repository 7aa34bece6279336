//! cargo-make: the tasks of a `Makefile.toml` (`[tasks.NAME]`), with the files its `extend`
//! names merged underneath (the file's own definitions win, field by field, as cargo-make
//! merges them), run as `cargo make NAME`.
//!
//! A task's `description` describes it, its `category` is its group, its `dependencies`
//! (names, or `{ name = … }` tables) are its deps, `disabled = true` marks it disabled
//! (cargo-make lists it and skips it), and an `alias = "other"` task is listed as one of
//! `other`'s aliases, as cargo-make lists it. `private = true` tasks are hidden, as
//! `cargo make --list-all-steps` hides them (cargo-make refuses to run them by name).
//! cargo-make's own predefined tasks (`build`, `test`, `ci-flow`, …, ~150 of them, unless
//! `[config] skip_core_tasks`) are not listed unless the file configures them. In a Cargo
//! workspace cargo-make runs a task in every member unless `workspace = false` or
//! `[config] default_to_workspace = false` says otherwise; `describe` says which.

use std::collections::HashSet;

use crate::doc::{self, Node, Report, Terms};
use crate::files::{Files, file_name, join, parent};
use crate::model::{Adapter, Parsed, Runner, Source, Task};

/// The cargo-make adapter.
pub const ADAPTER: Adapter = Adapter {
    name: "cargo-make",
    candidate,
    one_per_dir: true,
    admit: None,
    neighbours: None,
    parse,
};

/// Files one `extend` chain may pull in.
const MAX_EXTENDS: usize = 32;

fn candidate(path: &str) -> Option<u8> {
    (file_name(path) == "Makefile.toml").then_some(0)
}

/// One task's fields, from the file that defines it and those it extends.
#[derive(Debug, Default, Clone)]
struct Def {
    name: String,
    file: String,
    line: u32,
    description: Option<String>,
    category: Option<String>,
    dependencies: Option<Vec<String>>,
    disabled: Option<bool>,
    private: Option<bool>,
    workspace: Option<bool>,
    alias: Option<String>,
    runs: Option<String>,
}

fn parse(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    let dir = parent(src.path);
    let mut defs: Vec<Def> = Vec::new();
    let mut seen = HashSet::from([src.path.to_owned()]);
    let mut config = Config::default();
    read(
        src.files,
        src.path,
        src.text,
        &mut defs,
        &mut config,
        &mut seen,
        &mut out,
        0,
    );
    let workspace = config.default_to_workspace.unwrap_or(true)
        && join(dir, "Cargo.toml")
            .and_then(|p| src.files.read(&p).ok())
            .is_some_and(|t| t.lines().any(|l| l.trim() == "[workspace]"));
    for def in &defs {
        if def.private == Some(true) || def.alias.is_some() {
            continue;
        }
        // cargo-make would read such a name as its own option (`--help`, `-e`).
        if def.name.starts_with('-') {
            out.diag(
                &def.file,
                Some(def.line),
                format!(
                    "task `{}` starts with `-`: cargo-make reads it as an option, not a task",
                    def.name
                ),
            );
            continue;
        }
        let mut task = Task::new(
            Runner::CargoMake,
            &def.name,
            dir,
            &def.file,
            vec!["cargo".to_owned(), "make".to_owned(), def.name.clone()],
        );
        task.line = Some(def.line);
        task.description.clone_from(&def.description);
        task.group.clone_from(&def.category);
        task.deps = def.dependencies.clone().unwrap_or_default();
        task.disabled = def.disabled == Some(true);
        task.aliases = defs
            .iter()
            .filter(|a| a.alias.as_deref() == Some(def.name.as_str()))
            .map(|a| a.name.clone())
            .collect();
        let mut script = def.runs.clone().unwrap_or_default();
        if workspace && def.workspace != Some(false) {
            script.insert_str(
                0,
                "# in this Cargo workspace, cargo-make runs the task in every member\n",
            );
        }
        task.script = (!script.is_empty()).then_some(script);
        out.tasks.push(task);
    }
    out
}

/// `[config]` settings that change what is listed and how it runs.
#[derive(Debug, Default)]
struct Config {
    default_to_workspace: Option<bool>,
}

/// Reads `path` (holding `text`) into `defs`: the files it extends first, then its own
/// tasks over them.
#[allow(clippy::too_many_arguments)]
fn read(
    files: &dyn Files,
    path: &str,
    text: &str,
    defs: &mut Vec<Def>,
    config: &mut Config,
    seen: &mut HashSet<String>,
    out: &mut Parsed,
    depth: usize,
) {
    let Some(root) = doc::read_toml(text).or_report(path, out) else {
        return;
    };
    for extended in extends(&root) {
        let Some(other) = join(parent(path), &extended.path) else {
            out.diag(
                path,
                Some(extended.line),
                format!(
                    "`extend` names `{}`, outside the repository; not read",
                    extended.path
                ),
            );
            continue;
        };
        if depth >= MAX_EXTENDS || !seen.insert(other.clone()) {
            continue;
        }
        match files.read(&other) {
            Ok(text) => {
                out.consumed.push(other.clone());
                read(files, &other, &text, defs, config, seen, out, depth + 1);
            }
            Err(_) if extended.optional => {}
            Err(reason) => out.diag(
                path,
                Some(extended.line),
                format!("`extend` names `{other}`: {reason}"),
            ),
        }
    }
    if let Some(value) = root.path(&["config", "default_to_workspace"]) {
        config.default_to_workspace = Some(value.is_true());
    }
    let Some(tasks) = root.get("tasks") else {
        return;
    };
    let Some(entries) = tasks
        .table_or("`tasks` should be a table", Terms::Toml)
        .or_report(path, out)
    else {
        return;
    };
    for entry in entries {
        let node = &entry.node;
        if !node.is_table() {
            node.mismatch(
                &format!("task `{}` should be a table", entry.key),
                Terms::Toml,
            )
            .report(path, out);
            continue;
        }
        let at = if let Some(at) = defs.iter().position(|d| d.name == entry.key) {
            at
        } else {
            defs.push(Def {
                name: entry.key.clone(),
                ..Def::default()
            });
            defs.len() - 1
        };
        let def = &mut defs[at];
        // The definition that runs is reported where the last file wrote it.
        path.clone_into(&mut def.file);
        def.line = node.line;
        let text = |key: &str| node.get(key).and_then(Node::str).map(str::to_owned);
        let flag = |key: &str| node.get(key).map(Node::is_true);
        if let Some(d) = text("description") {
            def.description = Some(d);
        }
        if let Some(c) = text("category") {
            def.category = Some(c);
        }
        if let Some(deps) = node.get("dependencies") {
            match deps.items() {
                Some(items) => {
                    def.dependencies = Some(
                        items
                            .iter()
                            .filter_map(|d| d.str().or_else(|| d.get("name").and_then(Node::str)))
                            .map(str::to_owned)
                            .collect(),
                    );
                }
                None => out.diag(
                    path,
                    Some(deps.line),
                    format!("`dependencies` of `{}` should be an array", entry.key),
                ),
            }
        }
        def.disabled = flag("disabled").or(def.disabled);
        def.private = flag("private").or(def.private);
        def.workspace = flag("workspace").or(def.workspace);
        if let Some(alias) = text("alias").or_else(|| text("linux_alias")) {
            def.alias = Some(alias);
        }
        if let Some(runs) = runs(node) {
            def.runs = Some(runs);
        }
    }
}

/// What a task runs, for `describe`: its command with its arguments, its script, or the
/// task it runs.
fn runs(node: &Node) -> Option<String> {
    if let Some(command) = node.get("command").and_then(Node::str) {
        let args = node.get("args").and_then(Node::strs).unwrap_or_default();
        let mut line = vec![command];
        line.extend(args);
        return Some(line.join(" "));
    }
    if let Some(script) = node.get("script") {
        if let Some(text) = script.str() {
            return Some(text.to_owned());
        }
        if let Some(lines) = script.strs() {
            return Some(lines.join("\n"));
        }
        if let Some(file) = script.get("file").and_then(Node::str) {
            return Some(format!("script file: {file}"));
        }
    }
    let run_task = node.get("run_task")?;
    run_task
        .str()
        .map(|t| format!("run_task: {t}"))
        .or_else(|| {
            run_task.get("name").map(|n| {
                format!(
                    "run_task: {}",
                    n.str()
                        .map_or_else(|| n.strs().unwrap_or_default().join(", "), str::to_owned)
                )
            })
        })
}

/// One file `extend` names.
struct Extended {
    path: String,
    optional: bool,
    line: u32,
}

/// `extend = "x.toml"`, `extend = { path = "x.toml", optional = true }`, or a list of them.
fn extends(root: &Node) -> Vec<Extended> {
    let Some(extend) = root.get("extend") else {
        return Vec::new();
    };
    let one = |node: &Node| -> Option<Extended> {
        let path = node
            .str()
            .or_else(|| node.get("path").and_then(Node::str))?;
        Some(Extended {
            path: path.to_owned(),
            optional: node.get("optional").is_some_and(Node::is_true),
            line: node.line,
        })
    };
    match extend.items() {
        Some(items) => items.iter().filter_map(one).collect(),
        None => one(extend).into_iter().collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::MemFiles;
    use crate::testing::{messages, names, parse_with, task};
    use indoc::indoc;

    fn fixture() -> MemFiles {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/cargo-make-edge-cases/"
        );
        let read = |p: &str| std::fs::read_to_string(format!("{dir}{p}")).expect("fixture file");
        MemFiles::new()
            .with("Makefile.toml", &read("Makefile.toml"))
            .with("tasks/common.toml", &read("tasks/common.toml"))
            .with("Cargo.toml", &read("Cargo.toml"))
    }

    #[test]
    fn tasks_with_their_extends_aliases_and_private_ones_hidden() {
        let parsed = parse_with(parse, &fixture(), "Makefile.toml");
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        assert_eq!(
            names(&parsed),
            ["docs", "lint", "format", "build", "test", "old"]
        );
        assert_eq!(parsed.consumed, ["tasks/common.toml"]);
        let build = task(&parsed, "build");
        assert_eq!(build.argv, ["cargo", "make", "build"]);
        assert_eq!(build.deps, ["format", "lint"]);
        assert_eq!(build.aliases, ["b"]);
        assert_eq!(build.description.as_deref(), Some("Build every crate"));
        assert!(
            build
                .script
                .as_deref()
                .is_some_and(|s| s.contains("every member"))
        );
        assert!(
            task(&parsed, "test")
                .script
                .as_deref()
                .is_some_and(|s| !s.contains("every member"))
        );
        let lint = task(&parsed, "lint");
        // Defined in the extended file, its description overridden here.
        assert_eq!(
            lint.description.as_deref(),
            Some("Lint with clippy, warnings denied")
        );
        assert_eq!(lint.group.as_deref(), Some("Check"));
        assert!(task(&parsed, "old").disabled);
    }

    /// A task named like an option is reported, not listed; `extend` cycles are read once.
    #[test]
    fn hostile_names_and_extend_cycles() {
        let files = MemFiles::new()
            .with(
                "Makefile.toml",
                indoc! {"
                    extend = \"b.toml\"
                    [tasks.\"--help\"]
                    command = \"x\"
                    [tasks.a]
                "},
            )
            .with("b.toml", "extend = \"Makefile.toml\"\n[tasks.b]\n");
        let parsed = parse_with(parse, &files, "Makefile.toml");
        assert_eq!(names(&parsed), ["b", "a"]);
        assert_eq!(parsed.diagnostics.len(), 1, "{:?}", parsed.diagnostics);
    }

    #[test]
    fn broken_files_are_reported() {
        let files = MemFiles::new()
            .with(
                "Makefile.toml",
                indoc! {"
                    extend = \"missing.toml\"
                    [tasks.a]
                    command = \"x\"
                    [tasks.b]
                "},
            )
            .with("x/Makefile.toml", "tasks = 3\n")
            .with("y/Makefile.toml", "[tasks\n");
        let parsed = parse_with(parse, &files, "Makefile.toml");
        assert_eq!(names(&parsed), ["a", "b"]);
        assert_eq!(messages(&parsed).len(), 1);
        assert!(
            parse_with(parse, &files, "x/Makefile.toml")
                .diagnostics
                .len()
                == 1
        );
        assert!(
            parse_with(parse, &files, "y/Makefile.toml")
                .diagnostics
                .len()
                == 1
        );
    }
}
