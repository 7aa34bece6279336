//! Poe the Poet: `[tool.poe.tasks]` (and `[tool.poe.groups.<g>.tasks]`) in
//! `pyproject.toml`, the files `[tool.poe] include` names, and `poe_tasks.toml`/`.yaml`/
//! `.json`. Each task runs as `poe NAME args` from the project directory; names starting
//! with `_` are private to poe and hidden.

use std::collections::HashSet;

use super::value::{self, Node, ParseError};
use super::{Project, env_of, first_word, text_of};
use crate::{Param, Parsed, RawTask, Runner, Source, Variadic, parent};

/// The keys that make a table a task, one of which it must have.
const TASK_TYPES: &[&str] = &[
    "cmd", "script", "shell", "sequence", "ref", "expr", "switch",
];

/// `[tool.poe]` of a `pyproject.toml`.
pub(super) fn from_pyproject(project: &Project<'_>, root: &Node, out: &mut Parsed) {
    if let Some(poe) = root.path(&["tool", "poe"]) {
        read_config(project, poe, project.path, out);
    }
}

/// A `poe_tasks.*` file, used by poe only when `pyproject.toml` has no `[tool.poe]`.
pub(super) fn parse_tasks_file(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    let project = Project {
        path: src.path,
        dir: parent(src.path),
        files: src.files,
    };
    if project
        .pyproject()
        .is_some_and(|p| p.path(&["tool", "poe"]).is_some())
    {
        out.diag(
            src.path,
            None,
            "poe ignores this file because pyproject.toml next to it has a [tool.poe] table",
        );
        return out;
    }
    let root = match read_any(src.path, src.text) {
        Ok(root) => root,
        Err(err) => {
            out.diag(src.path, err.line, err.message);
            return out;
        }
    };
    let config = root.path(&["tool", "poe"]).unwrap_or(&root);
    read_config(&project, config, src.path, &mut out);
    out
}

/// Reads TOML, YAML or JSON by the file's extension.
fn read_any(path: &str, text: &str) -> Result<Node, ParseError> {
    let extension = path.rsplit('.').next().unwrap_or_default();
    if extension == "json" {
        value::from_json(text)
    } else if extension == "yaml" || extension == "yml" {
        value::from_yaml(text)
    } else {
        value::from_toml(text)
    }
}

/// One poe configuration: its tasks, its groups' tasks, then its includes (whose tasks never
/// replace the project's own).
fn read_config(project: &Project<'_>, config: &Node, file: &str, out: &mut Parsed) {
    let start = out.tasks.len();
    if let Some(tasks) = config.get("tasks") {
        read_tasks(project, tasks, file, None, out);
    }
    if let Some(groups) = config.get("groups").and_then(Node::entries) {
        for group in groups {
            if let Some(tasks) = group.node.get("tasks") {
                read_tasks(project, tasks, file, Some(&group.key), out);
            }
        }
    }
    let Some(include) = config.get("include") else {
        return;
    };
    let paths: Vec<(&str, u32)> = match include.items() {
        Some(items) => items
            .iter()
            .filter_map(|item| {
                item.str()
                    .or_else(|| item.get("path").and_then(Node::str))
                    .map(|p| (p, item.line))
            })
            .collect(),
        None => include
            .str()
            .map(|p| vec![(p, include.line)])
            .unwrap_or_default(),
    };
    for (rel, line) in paths {
        let Some(path) = crate::join(parent(file), rel) else {
            out.diag(
                file,
                Some(line),
                format!("include `{rel}` is outside the repository"),
            );
            continue;
        };
        let text = match project.files.read(&path) {
            Ok(text) => text,
            Err(reason) => {
                out.diag(
                    file,
                    Some(line),
                    format!("cannot read included `{rel}`: {reason}"),
                );
                continue;
            }
        };
        out.consumed.push(path.clone());
        let root = match read_any(&path, &text) {
            Ok(root) => root,
            Err(err) => {
                out.diag(&path, err.line, err.message);
                continue;
            }
        };
        let config = root.path(&["tool", "poe"]).unwrap_or(&root);
        let Some(tasks) = config.get("tasks") else {
            continue;
        };
        let mut included = Parsed::default();
        read_tasks(project, tasks, &path, None, &mut included);
        let mut defined: HashSet<String> = out.tasks[start..]
            .iter()
            .map(|t| t.source_name.clone())
            .collect();
        for task in included.tasks {
            if defined.insert(task.source_name.clone()) {
                out.tasks.push(task);
            }
        }
        out.diagnostics.extend(included.diagnostics);
    }
}

fn read_tasks(
    project: &Project<'_>,
    tasks: &Node,
    file: &str,
    group: Option<&str>,
    out: &mut Parsed,
) {
    let Some(entries) = tasks.entries() else {
        out.diag(
            file,
            Some(tasks.line),
            format!("poe `tasks` must be a table, not {}", tasks.kind()),
        );
        return;
    };
    for entry in entries {
        let name = entry.key.as_str();
        if name.starts_with('_') {
            continue;
        }
        if let Some(task) = read_task(project, name, &entry.node, file, out) {
            let mut task = task;
            task.group = group.map(str::to_owned);
            out.tasks.push(task);
        }
    }
}

fn read_task(
    project: &Project<'_>,
    name: &str,
    node: &Node,
    file: &str,
    out: &mut Parsed,
) -> Option<RawTask> {
    let mut task = RawTask::new(
        Runner::Poe,
        name,
        project.dir,
        file,
        vec!["poe".to_owned(), name.to_owned()],
    );
    task.line = Some(node.line);
    if let Some(cmd) = node.str() {
        task.script = Some(cmd.to_owned());
        return Some(task);
    }
    if let Some(items) = node.items() {
        task.deps = sequence_deps(items);
        task.script = Some(format!("sequence: {}", task.deps.join(", ")));
        return Some(task);
    }
    if node.entries().is_none() {
        out.diag(
            file,
            Some(node.line),
            format!(
                "poe task `{name}` must be a string, an array or a table, not {}",
                node.kind()
            ),
        );
        return None;
    }
    let Some((kind, body)) = TASK_TYPES
        .iter()
        .find_map(|k| node.get(k).map(|body| (*k, body)))
    else {
        out.diag(
            file,
            Some(node.line),
            format!("poe task `{name}` has none of {}", TASK_TYPES.join(", ")),
        );
        return None;
    };
    task.script = Some(match kind {
        "sequence" => {
            let items = body.items().unwrap_or_default();
            task.deps = sequence_deps(items);
            format!("sequence: {}", task.deps.join(", "))
        }
        "switch" => "switch".to_owned(),
        "cmd" | "shell" => text_of(body).unwrap_or_default(),
        _ => format!("{kind}: {}", text_of(body).unwrap_or_default()),
    });
    task.description = node.get("help").and_then(Node::str).map(str::to_owned);
    task.params = params(node.get("args"));
    for key in ["deps", "uses"] {
        let refs: Vec<String> = match node.get(key) {
            Some(n) if n.items().is_some() => n
                .items()
                .unwrap_or_default()
                .iter()
                .filter_map(Node::str)
                .filter_map(first_word)
                .collect(),
            Some(n) => n
                .entries()
                .unwrap_or_default()
                .iter()
                .filter_map(|e| e.node.str().and_then(first_word))
                .collect(),
            None => Vec::new(),
        };
        for dep in refs {
            if !task.deps.contains(&dep) {
                task.deps.push(dep);
            }
        }
    }
    task.env = env_of(node.get("env"));
    Some(task)
}

/// The tasks a sequence runs: its string items are task references.
fn sequence_deps(items: &[Node]) -> Vec<String> {
    items
        .iter()
        .filter_map(|item| item.str().or_else(|| item.get("ref").and_then(Node::str)))
        .filter_map(first_word)
        .collect()
}

/// `args`: an array of names, an array of tables with `name`, or a table by name.
fn params(args: Option<&Node>) -> Vec<Param> {
    let Some(args) = args else {
        return Vec::new();
    };
    let one = |name: &str, spec: Option<&Node>| {
        let mut param = Param::required(name);
        param.required = spec
            .and_then(|s| s.get("required"))
            .is_some_and(Node::is_true);
        param.default = spec
            .and_then(|s| s.get("default"))
            .and_then(Node::scalar)
            .map(std::borrow::Cow::into_owned);
        if spec
            .and_then(|s| s.get("multiple"))
            .is_some_and(|m| m.is_true() || m.scalar().is_some_and(|s| s != "false"))
        {
            param.variadic = Some(if param.required {
                Variadic::OneOrMore
            } else {
                Variadic::ZeroOrMore
            });
        }
        param
    };
    if let Some(items) = args.items() {
        items
            .iter()
            .filter_map(|item| match item.str() {
                Some(name) => Some(one(name, None)),
                None => item
                    .get("name")
                    .and_then(Node::str)
                    .map(|name| one(name, Some(item))),
            })
            .collect()
    } else {
        args.entries()
            .unwrap_or_default()
            .iter()
            .map(|e| one(&e.key, Some(&e.node)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::{messages, names, parse_with, task};
    use crate::{MemFiles, Variadic};

    const PYPROJECT: &str = r#"[project]
name = "demo"

[tool.poe]
include = ["tasks/extra.toml", "tasks/missing.toml"]

[tool.poe.tasks]
# a string is a cmd
test = "pytest -q"
_private = "echo hidden"
check = ["lint", "test"]

[tool.poe.tasks.lint]
cmd = "ruff check ."
help = "Lint the code"
deps = ["fmt --check"]
env = { RUFF_CACHE = "off" }

[tool.poe.tasks.serve]
script = "demo.app:serve"
help = "Serve the app"
args = [{ name = "port", default = "8000" }, { name = "host", required = true }, { name = "paths", multiple = true }]

[tool.poe.tasks.fmt]
shell = "ruff format . && echo done"
args = ["check"]

[tool.poe.tasks.ci]
sequence = ["check", { cmd = "echo inline" }, { ref = "serve --port 1" }]
help = "What CI runs"

[tool.poe.tasks.bad]
help = "no type"

[tool.poe.tasks.num]
cmd = "x"
uses = { TOKEN = "fmt" }

[tool.poe.groups.docs.tasks]
build-docs = "mkdocs build"
"#;

    fn files() -> MemFiles {
        MemFiles::new().with("pyproject.toml", PYPROJECT).with(
            "tasks/extra.toml",
            "[tool.poe.tasks]\nextra = \"echo extra\"\ntest = \"never\"\n",
        )
    }

    #[test]
    fn every_poe_form_is_listed_with_help_args_and_deps() {
        let parsed = parse_with(super::super::PYPROJECT.parse, &files(), "pyproject.toml");
        assert_eq!(
            names(&parsed),
            [
                "test",
                "check",
                "lint",
                "serve",
                "fmt",
                "ci",
                "num",
                "build-docs",
                "extra"
            ]
        );
        let test = task(&parsed, "test");
        assert_eq!(test.argv, ["poe", "test"]);
        assert_eq!(test.line, Some(9));
        assert_eq!(test.script.as_deref(), Some("pytest -q"));
        assert_eq!(task(&parsed, "check").deps, ["lint", "test"]);
        let lint = task(&parsed, "lint");
        assert_eq!(lint.description.as_deref(), Some("Lint the code"));
        assert_eq!(lint.deps, ["fmt"]);
        assert_eq!(lint.env, [("RUFF_CACHE".to_owned(), "off".to_owned())]);
        let serve = task(&parsed, "serve");
        assert_eq!(serve.params.len(), 3);
        assert_eq!(serve.params[0].default.as_deref(), Some("8000"));
        assert!(!serve.params[0].required);
        assert!(serve.params[1].required);
        assert_eq!(serve.params[2].variadic, Some(Variadic::ZeroOrMore));
        assert_eq!(serve.script.as_deref(), Some("script: demo.app:serve"));
        assert_eq!(task(&parsed, "fmt").params[0].name, "check");
        assert_eq!(task(&parsed, "ci").deps, ["check", "serve"]);
        assert_eq!(task(&parsed, "num").deps, ["fmt"]);
        assert_eq!(task(&parsed, "build-docs").group.as_deref(), Some("docs"));
        let extra = task(&parsed, "extra");
        assert_eq!(extra.file_path, "tasks/extra.toml");
        assert_eq!(extra.dir, ".");
        assert_eq!(parsed.consumed, ["tasks/extra.toml"]);
        assert_eq!(
            messages(&parsed),
            [
                (
                    "pyproject.toml",
                    Some(32),
                    "poe task `bad` has none of cmd, script, shell, sequence, ref, expr, switch"
                ),
                (
                    "pyproject.toml",
                    Some(5),
                    "cannot read included `tasks/missing.toml`: no such file"
                ),
            ]
        );
    }

    #[test]
    fn poe_tasks_files_in_toml_yaml_and_json() {
        let yaml = "tasks:\n  hello:\n    cmd: echo hi\n    help: Say hi\n  _x: nope\n";
        let files = MemFiles::new().with("a/poe_tasks.yaml", yaml).with(
            "b/poe_tasks.json",
            "{\"tasks\": {\n\"one\": \"echo 1\",\n\"two\": {\"shell\": \"echo 2\"}}}",
        );
        let parsed = parse_with(super::parse_tasks_file, &files, "a/poe_tasks.yaml");
        assert_eq!(names(&parsed), ["hello"]);
        assert_eq!(parsed.tasks[0].dir, "a");
        assert_eq!(parsed.tasks[0].line, Some(2));
        assert_eq!(parsed.tasks[0].description.as_deref(), Some("Say hi"));
        let parsed = parse_with(super::parse_tasks_file, &files, "b/poe_tasks.json");
        assert_eq!(names(&parsed), ["one", "two"]);
        assert_eq!(parsed.tasks[1].line, Some(3));
        let files = MemFiles::new()
            .with("poe_tasks.toml", "[tasks]\nx = \"y\"\n")
            .with("pyproject.toml", "[tool.poe.tasks]\nz = \"w\"\n");
        let parsed = parse_with(super::parse_tasks_file, &files, "poe_tasks.toml");
        assert!(parsed.tasks.is_empty());
        assert_eq!(parsed.diagnostics.len(), 1);
    }

    #[test]
    fn bad_poe_input_is_reported_on_its_line() {
        let files = MemFiles::new()
            .with("poe_tasks.toml", "[tasks]\nok = \"y\"\nnum = 3\n")
            .with("x/poe_tasks.json", "{\"tasks\": [}")
            .with("y/poe_tasks.toml", "tasks = 3\n");
        let parsed = parse_with(super::parse_tasks_file, &files, "poe_tasks.toml");
        assert_eq!(names(&parsed), ["ok"]);
        assert_eq!(parsed.diagnostics[0].line, Some(3));
        let parsed = parse_with(super::parse_tasks_file, &files, "x/poe_tasks.json");
        assert!(parsed.diagnostics[0].message.starts_with("invalid JSON"));
        let parsed = parse_with(super::parse_tasks_file, &files, "y/poe_tasks.toml");
        assert_eq!(parsed.diagnostics[0].line, Some(1));
    }
}
