//! Console scripts: `[project.scripts]` and Poetry's `[tool.poetry.scripts]`, each run
//! through the project's manager so it runs inside the project's environment.
//!
//! `[project.scripts]` run with `uv run NAME` when the project uses uv (`uv.lock` here or in
//! a parent directory, or `[tool.uv]`), with `poetry run NAME` when it is a Poetry project
//! (`poetry.lock` or `[tool.poetry]`) and uses no uv, with `pdm run NAME` when it is a PDM
//! project (`pdm.lock`) and uses neither, and otherwise with `uv run NAME`, which runs any
//! standard `[project]`. `[tool.poetry.scripts]` always run with `poetry run`.

use super::Project;
use crate::doc::{Node, Report, Terms};
use crate::files::{child, parent};
use crate::model::{Parsed, Runner, Task};

pub(super) fn from_pyproject(project: &Project<'_>, root: &Node, out: &mut Parsed) {
    let poetry = root.path(&["tool", "poetry"]).is_some() || project.has("poetry.lock");
    let uv = root.path(&["tool", "uv"]).is_some() || uv_lock_above(project);
    let runner = if uv {
        Runner::Uv
    } else if poetry {
        Runner::Poetry
    } else if project.has("pdm.lock") {
        Runner::Pdm
    } else {
        Runner::Uv
    };
    let mut seen: Vec<String> = Vec::new();
    if let Some(scripts) = root.path(&["project", "scripts"]) {
        read(
            project,
            root,
            scripts,
            "project.scripts",
            runner,
            &mut seen,
            out,
        );
    }
    if let Some(scripts) = root.path(&["tool", "poetry", "scripts"]) {
        read(
            project,
            root,
            scripts,
            "tool.poetry.scripts",
            Runner::Poetry,
            &mut seen,
            out,
        );
    }
}

/// Whether `uv.lock` is in the project's directory or above it (a uv workspace keeps one
/// lockfile at its root).
fn uv_lock_above(project: &Project<'_>) -> bool {
    let mut dir = project.dir;
    loop {
        if project.files.exists(&child(dir, "uv.lock")) {
            return true;
        }
        if dir == "." {
            return false;
        }
        dir = parent(dir);
    }
}

fn read(
    project: &Project<'_>,
    root: &Node,
    scripts: &Node,
    table: &str,
    runner: Runner,
    seen: &mut Vec<String>,
    out: &mut Parsed,
) {
    let Some(entries) = scripts
        .table_or(&format!("`{table}` must be a table"), Terms::Toml)
        .or_report(project.path, out)
    else {
        return;
    };
    for entry in entries {
        let name = entry.key.as_str();
        // Poetry 1: `{ callable = "m:f" }`; Poetry 2: `{ reference = "m:f", type = "console" }`.
        let target = entry.node.str().or_else(|| {
            let kind = entry.node.get("type").and_then(Node::str);
            if kind.is_some_and(|k| k != "console") {
                return None;
            }
            entry
                .node
                .get("reference")
                .or_else(|| entry.node.get("callable"))
                .and_then(Node::str)
        });
        let Some(target) = target else {
            let is_file = entry
                .node
                .get("type")
                .and_then(Node::str)
                .is_some_and(|k| k != "console");
            if !is_file {
                out.diag(
                    project.path,
                    Some(entry.node.line),
                    format!("console script `{name}` must name an entry point such as \"package.module:function\""),
                );
            }
            continue;
        };
        if seen.iter().any(|s| s == name) {
            continue;
        }
        // `pdm run NAME` runs the PDM script of that name, listed already.
        if runner == Runner::Pdm && root.path(&["tool", "pdm", "scripts", name]).is_some() {
            continue;
        }
        seen.push(name.to_owned());
        let mut task = Task::new(
            runner,
            name,
            project.dir,
            project.path,
            vec![runner.name().to_owned(), "run".to_owned(), name.to_owned()],
        );
        task.line = Some(entry.node.line);
        task.description = Some(target.to_owned());
        task.script = Some(target.to_owned());
        out.tasks.push(task);
    }
}

#[cfg(test)]
mod tests {
    use crate::files::MemFiles;
    use crate::model::Runner;
    use crate::testing::{messages, names, parse_with, task};
    use indoc::indoc;

    const SCRIPTS: &str = indoc! {"
        [project]
        name = \"demo\"
        [project.scripts]
        demo = \"demo.cli:main\"
        bad = 3
    "};

    fn run(files: &MemFiles, path: &str) -> crate::model::Parsed {
        parse_with(super::super::PYPROJECT.parse, files, path)
    }

    #[test]
    fn the_project_manager_runs_console_scripts() {
        let plain = run(
            &MemFiles::new().with("pyproject.toml", SCRIPTS),
            "pyproject.toml",
        );
        assert_eq!(names(&plain), ["demo"]);
        let demo = task(&plain, "demo");
        assert_eq!(demo.runner, Runner::Uv);
        assert_eq!(demo.argv, ["uv", "run", "demo"]);
        assert_eq!(demo.description.as_deref(), Some("demo.cli:main"));
        assert_eq!(demo.line, Some(4));
        assert_eq!(
            messages(&plain),
            [(
                "pyproject.toml",
                Some(5),
                "console script `bad` must name an entry point such as \"package.module:function\""
            )]
        );
        let poetry = run(
            &MemFiles::new()
                .with("a/pyproject.toml", SCRIPTS)
                .with("a/poetry.lock", ""),
            "a/pyproject.toml",
        );
        assert_eq!(task(&poetry, "demo").argv, ["poetry", "run", "demo"]);
        let workspace = run(
            &MemFiles::new()
                .with("a/pyproject.toml", SCRIPTS)
                .with("a/poetry.lock", "")
                .with("uv.lock", ""),
            "a/pyproject.toml",
        );
        assert_eq!(task(&workspace, "demo").runner, Runner::Uv);
    }

    #[test]
    fn a_pdm_project_runs_console_scripts_with_pdm() {
        let text = indoc! {"
            [project]
            name = \"demo\"
            [project.scripts]
            demo = \"demo.cli:main\"
            both = \"demo.cli:both\"
            [tool.pdm.scripts]
            both = \"echo script\"
        "};
        let pdm = run(
            &MemFiles::new()
                .with("a/pyproject.toml", text)
                .with("a/pdm.lock", ""),
            "a/pyproject.toml",
        );
        let demo = task(&pdm, "demo");
        assert_eq!(demo.runner, Runner::Pdm);
        assert_eq!(demo.argv, ["pdm", "run", "demo"]);
        // `pdm run both` runs the PDM script, listed once.
        let both: Vec<_> = pdm
            .tasks
            .iter()
            .filter(|t| t.source_name == "both")
            .collect();
        assert_eq!(both.len(), 1);
        assert_eq!(both[0].script.as_deref(), Some("echo script"));
        let uv = run(
            &MemFiles::new()
                .with("a/pyproject.toml", text)
                .with("a/pdm.lock", "")
                .with("uv.lock", ""),
            "a/pyproject.toml",
        );
        assert_eq!(task(&uv, "demo").runner, Runner::Uv);
    }

    #[test]
    fn poetry_scripts_in_both_spellings() {
        let text = r#"[tool.poetry]
name = "demo"
[tool.poetry.scripts]
serve = "demo.app:serve"
old = { callable = "demo.old:main" }
new = { reference = "demo.new:main", type = "console" }
file = { reference = "bin/run.sh", type = "file" }
"#;
        let parsed = run(
            &MemFiles::new().with("pyproject.toml", text),
            "pyproject.toml",
        );
        assert_eq!(names(&parsed), ["serve", "old", "new"]);
        assert!(parsed.diagnostics.is_empty());
        assert_eq!(task(&parsed, "old").argv, ["poetry", "run", "old"]);
        assert_eq!(
            task(&parsed, "new").description.as_deref(),
            Some("demo.new:main")
        );
    }
}
