//! PDM scripts: `[tool.pdm.scripts]` of `pyproject.toml`, each run as `pdm run NAME args`.
//!
//! As `pdm run --list` does, names starting with `_` are hidden (`_` holds options shared by
//! every script, `_name` is private), and hooks (`pre_X`/`post_X`, which pdm runs around
//! script `X` or its own commands) are listed: pdm runs them by name like any other.

use std::collections::HashSet;

use super::{Project, first_word};
use crate::doc::{self, Node, Report, Terms};
use crate::model::{Parsed, Runner, Task};
use crate::reads::{Purpose, Reads};

/// The keys that make a table a script, one of which it must have.
const SCRIPT_TYPES: &[&str] = &["cmd", "shell", "call", "composite"];

pub(super) fn from_pyproject(project: &Project<'_>, root: &Node, out: &mut Parsed) {
    let Some(scripts) = root.path(&["tool", "pdm", "scripts"]) else {
        return;
    };
    let Some(entries) = scripts
        .table_or("`tool.pdm.scripts` must be a table", Terms::Toml)
        .or_report(project.path, out)
    else {
        return;
    };
    let names: HashSet<&str> = entries.iter().map(|e| e.key.as_str()).collect();
    let start = out.tasks.len();
    for entry in entries {
        let name = entry.key.as_str();
        if name.starts_with('_') {
            continue;
        }
        let node = &entry.node;
        let mut task = Task::new(
            Runner::Pdm,
            name,
            project.dir,
            project.path,
            vec!["pdm".to_owned(), "run".to_owned(), name.to_owned()],
        );
        task.line = Some(node.line);
        if let Some(cmd) = node.str() {
            task.script = Some(cmd.to_owned());
            out.tasks.push(task);
            continue;
        }
        if node.entries().is_none() {
            node.mismatch(
                &format!("pdm script `{name}` must be a string or a table"),
                Terms::Toml,
            )
            .report(project.path, out);
            continue;
        }
        let Some((kind, body)) = SCRIPT_TYPES
            .iter()
            .find_map(|k| node.get(k).map(|body| (*k, body)))
        else {
            out.diag(
                project.path,
                Some(node.line),
                format!(
                    "pdm script `{name}` has none of {}",
                    SCRIPT_TYPES.join(", ")
                ),
            );
            continue;
        };
        task.script = Some(match kind {
            "composite" => {
                let items: Vec<&str> = body
                    .items()
                    .unwrap_or_default()
                    .iter()
                    .filter_map(Node::str)
                    .collect();
                // pdm runs an item whose first word names a script as that script, and
                // any other item as a command.
                task.deps = items
                    .iter()
                    .filter_map(|i| first_word(i))
                    .filter(|w| names.contains(w.as_str()))
                    .collect();
                items.join("\n")
            }
            "call" => format!("call: {}", body.text_of().unwrap_or_default()),
            _ => body.text_of().unwrap_or_default(),
        });
        task.description = node.get("help").and_then(Node::str).map(str::to_owned);
        task.env = doc::env_of(node.get("env"));
        out.tasks.push(task);
    }
    if project.purpose == Purpose::Decide {
        for task in &mut out.tasks[start..] {
            task.reads = Some(Box::new(reads(
                project,
                scripts,
                &task.source_name,
                &task.deps,
            )));
        }
    }
}

/// What the script `name` of `scripts` reads, for a pin: its entry (without `help`), the
/// options every script shares (`_`, and the `env_file` they load), the script's own
/// `env_file`, its `pre_`/`post_` hooks, and the scripts a composite runs (`deps`).
fn reads(project: &Project<'_>, scripts: &Node, name: &str, deps: &[String]) -> Reads {
    let mut reads = Reads::default();
    let entry = scripts.get(name);
    let shown = entry.map(|node| match node.entries() {
        Some(entries) => Node::new(
            node.line,
            doc::Value::Table(
                entries
                    .iter()
                    .filter(|e| e.key != "help")
                    .cloned()
                    .collect(),
            ),
        ),
        None => node.clone(),
    });
    reads.part(
        "script entry",
        shown.map(|n| n.canonical()).unwrap_or_default(),
    );
    let shared = scripts.get("_");
    reads.part(
        "shared options `_`",
        shared.map(Node::canonical).unwrap_or_default(),
    );
    for options in [shared, entry] {
        let file = options.and_then(|o| o.get("env_file"));
        for path in file.and_then(Node::strs).unwrap_or_default() {
            let text = project
                .files
                .read(&project.sibling(path))
                .unwrap_or_default();
            reads.part(format!("env_file `{path}`"), text);
        }
    }
    for hook in [format!("pre_{name}"), format!("post_{name}")] {
        if let Some(node) = scripts.get(&hook) {
            reads.part(format!("hook `{hook}`"), node.canonical());
        }
    }
    for dep in deps {
        reads.runs(dep.clone());
    }
    reads
}

#[cfg(test)]
mod tests {
    use crate::files::MemFiles;
    use crate::testing::{messages, name_list, names, parse_with, task};
    use indoc::indoc;

    #[test]
    fn scripts_hooks_and_bad_entries_as_pdm_lists_them() {
        let text = r#"[tool.pdm.scripts]
_.env_file = ".env"
start = "flask run -p 54321"
pre_start = "echo before"
post_install = "echo installed"
pre_flight = "echo no such script, so listed"
lint = { shell = "ruff check . && mypy", help = "Lint everything" }
test = { cmd = ["pytest", "-x"], env = { CI = "1" } }
hello = { call = "demo.cli:main('x')" }
all = { composite = ["lint", "test -k fast"], help = "Both" }
bad = 3
empty = { help = "nothing" }
"#;
        let files = MemFiles::new().with("svc/pyproject.toml", text);
        let parsed = parse_with(super::super::PYPROJECT.parse, &files, "svc/pyproject.toml");
        assert_eq!(
            name_list(&parsed),
            "start, pre_start, post_install, pre_flight, lint, test, hello, all"
        );
        let start = task(&parsed, "start");
        assert_eq!(start.argv, ["pdm", "run", "start"]);
        assert_eq!(start.dir, "svc");
        assert_eq!(start.line, Some(3));
        assert_eq!(
            task(&parsed, "lint").description.as_deref(),
            Some("Lint everything")
        );
        assert_eq!(task(&parsed, "test").script.as_deref(), Some("pytest -x"));
        assert_eq!(task(&parsed, "test").env.len(), 1);
        assert_eq!(
            task(&parsed, "hello").script.as_deref(),
            Some("call: demo.cli:main('x')")
        );
        assert_eq!(task(&parsed, "all").deps, ["lint", "test"]);
        assert_eq!(
            messages(&parsed),
            [
                (
                    "svc/pyproject.toml",
                    Some(11),
                    "pdm script `bad` must be a string or a table, not a number"
                ),
                (
                    "svc/pyproject.toml",
                    Some(12),
                    "pdm script `empty` has none of cmd, shell, call, composite"
                ),
            ]
        );
    }

    #[test]
    fn private_scripts_are_hidden_and_hooks_are_listed_as_pdm_does() {
        let text = r#"[tool.pdm.scripts]
_private = "echo hidden"
pre_build = "echo before build"
pre_doc = "echo before doc"
pre_release = "echo before release"
build = "python -m build"
doc-build = { composite = ["pre_doc", "mkdocs build"] }
"#;
        let files = MemFiles::new().with("pyproject.toml", text);
        let parsed = parse_with(super::super::PYPROJECT.parse, &files, "pyproject.toml");
        assert_eq!(
            names(&parsed),
            ["pre_build", "pre_doc", "pre_release", "build", "doc-build"]
        );
        assert_eq!(task(&parsed, "pre_doc").argv, ["pdm", "run", "pre_doc"]);
        assert_eq!(task(&parsed, "doc-build").deps, ["pre_doc"]);
    }

    #[test]
    fn composite_items_that_name_no_script_are_commands() {
        let text = r#"[tool.pdm.scripts]
_private = "echo private"
build = "python -m build"
all = { composite = ["build", "echo plain command", "_private --flag"] }
"#;
        let files = MemFiles::new().with("pyproject.toml", text);
        let parsed = parse_with(super::super::PYPROJECT.parse, &files, "pyproject.toml");
        let all = task(&parsed, "all");
        assert_eq!(all.deps, ["build", "_private"]);
        assert_eq!(
            all.script.as_deref(),
            Some(indoc! {"
                build
                echo plain command
                _private --flag"})
        );
    }
}
