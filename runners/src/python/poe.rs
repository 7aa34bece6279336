//! Poe the Poet: `[tool.poe.tasks]` (and `[tool.poe.groups.<g>.tasks]`) in
//! `pyproject.toml`, the files `[tool.poe] include` names, and `poe_tasks.toml`/`.yaml`/
//! `.json`. Each task runs as `poe NAME args` from the project directory; names starting
//! with `_` are private to poe and hidden.

use std::collections::HashSet;

use super::{Project, first_word};
use crate::doc::{self, Dialect, Node, ParseError, Report, Terms};
use crate::files::parent;
use crate::model::Passing;
use crate::model::{Param, Parsed, Runner, Source, Task, Variadic};
use crate::reads::{Purpose, Reads};

/// The keys that make a table a task, one of which it must have.
const TASK_TYPES: &[&str] = &[
    "cmd", "script", "shell", "sequence", "parallel", "ref", "expr", "switch",
];

/// The longest chain of includes followed (poe itself stops only at a cycle).
const MAX_INCLUDE_DEPTH: usize = 16;

/// `[tool.poe]` of a `pyproject.toml`.
pub(super) fn from_pyproject(project: &Project<'_>, root: &Node, out: &mut Parsed) {
    if let Some(poe) = root.path(&["tool", "poe"]) {
        read_config(project, poe, project.path, out);
    }
}

/// A `poe_tasks.*` file, used by poe only when `pyproject.toml` has no `[tool.poe]`.
pub(super) fn parse_tasks_file(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    let project = Project::of(src);
    if project.yields_to_pyproject("poe", &mut out) {
        return out;
    }
    let Some(root) = read_any(src.path, src.text).or_report(src.path, &mut out) else {
        return out;
    };
    read_config(&project, config_of(&root), src.path, &mut out);
    out
}

/// What each of `tasks` (just read from the table `table` of `config`, in `group` when it
/// is one) reads, when the file is read for a decision: its entry (without `help`), the
/// settings of the configuration and of its group (`env`, `envfile` and the files it loads,
/// `executor`, `shell_interpreter`, …), its own `envfile`, and the tasks it refers to
/// (`ref`, `deps`, `uses`, the steps of a sequence).
fn add_reads(
    project: &Project<'_>,
    config: &Node,
    group: Option<&Node>,
    table: &Node,
    tasks: &mut [Task],
) {
    if project.purpose != Purpose::Decide {
        return;
    }
    let names: Vec<&str> = table
        .entries()
        .unwrap_or_default()
        .iter()
        .map(|e| e.key.as_str())
        .collect();
    for task in tasks {
        let Some(node) = table.get(&task.source_name) else {
            continue;
        };
        let mut reads = Reads::default();
        let entry = without(node, &["help"]);
        reads.part("task entry", entry.canonical());
        for (scope, settings) in [("", Some(config)), ("group ", group)] {
            for setting in settings.and_then(Node::entries).unwrap_or_default() {
                if matches!(setting.key.as_str(), "tasks" | "groups" | "include") {
                    continue;
                }
                reads.part(
                    format!("{scope}setting `{}`", setting.key),
                    setting.node.canonical(),
                );
                if setting.key == "envfile" {
                    envfiles(project, &setting.node, &mut reads);
                }
            }
        }
        if let Some(own) = node.get("envfile") {
            envfiles(project, own, &mut reads);
        }
        for name in referred(node) {
            if names.contains(&name) {
                reads.runs(name);
            }
        }
        // A `cmd` task's declared arguments are templated into its command, which poe splits
        // into words and globs; a `shell` or `script` task gets them as variables or values.
        if node.str().is_some() || node.get("cmd").is_some() {
            reads.spliced = task.params.iter().map(|p| p.name.clone()).collect();
        }
        task.reads = Some(Box::new(reads));
    }
}

/// The task names a poe task refers to: `ref`'s first word, `deps` and `uses`, and the steps
/// of a sequence that are refs.
fn referred(node: &Node) -> Vec<&str> {
    let mut out = Vec::new();
    out.extend(node.get("ref").and_then(first));
    for key in ["deps", "uses"] {
        let Some(value) = node.get(key) else {
            continue;
        };
        out.extend(value.items().unwrap_or_default().iter().filter_map(first));
        out.extend(
            value
                .entries()
                .unwrap_or_default()
                .iter()
                .filter_map(|e| first(&e.node)),
        );
    }
    let steps = node
        .items()
        .or_else(|| node.get("sequence").and_then(Node::items))
        .or_else(|| node.get("parallel").and_then(Node::items))
        .unwrap_or_default();
    for step in steps {
        out.extend(step.get("ref").and_then(first));
        out.extend(first(step));
    }
    out
}

/// The first word of a string value.
fn first(node: &Node) -> Option<&str> {
    node.str().and_then(|s| s.split_whitespace().next())
}

/// A table without `keys`.
fn without(node: &Node, keys: &[&str]) -> Node {
    match node.entries() {
        Some(entries) => Node::new(
            node.line,
            doc::Value::Table(
                entries
                    .iter()
                    .filter(|e| !keys.contains(&e.key.as_str()))
                    .cloned()
                    .collect(),
            ),
        ),
        None => node.clone(),
    }
}

/// Adds the files an `envfile` setting loads (a path or a list of paths, from the project's
/// directory).
fn envfiles(project: &Project<'_>, value: &Node, reads: &mut Reads) {
    for name in value.strs().unwrap_or_default() {
        let text = project
            .files
            .read(&project.sibling(name))
            .unwrap_or_default();
        reads.part(format!("envfile `{name}`"), text);
    }
}

/// Reads TOML, YAML or JSON by the file's extension.
fn read_any(path: &str, text: &str) -> Result<Node, ParseError> {
    let extension = path.rsplit('.').next().unwrap_or_default();
    if extension == "json" {
        doc::read_json(text, Dialect::Loose)
    } else if extension == "yaml" || extension == "yml" {
        doc::read_yaml(text, Dialect::Loose)
    } else {
        doc::read_toml(text)
    }
}

/// The poe configuration of a file other than `pyproject.toml`: its `tool.poe` table, a
/// literal `"tool.poe"` key (YAML, JSON), or else the whole file, in poe's order.
fn config_of(root: &Node) -> &Node {
    root.path(&["tool", "poe"])
        .or_else(|| root.get("tool.poe"))
        .unwrap_or(root)
}

/// One poe configuration and the files it includes, depth first, as poe loads them. The
/// project's own tasks come first and a name already defined is never replaced.
fn read_config(project: &Project<'_>, config: &Node, file: &str, out: &mut Parsed) {
    let start = out.tasks.len();
    if let Some(script) = config.get("include_script") {
        out.diag(
            file,
            Some(script.line),
            "poe `include_script` makes tasks by running Python: agg does not run it, so those tasks are not listed",
        );
    }
    let mut chain = vec![file.to_owned()];
    read_partition(project, config, file, true, &mut chain, out);
    let mut defined = HashSet::new();
    let mut i = start;
    while i < out.tasks.len() {
        if defined.insert(out.tasks[i].source_name.clone()) {
            i += 1;
        } else {
            out.tasks.remove(i);
        }
    }
}

/// The tasks and groups of one file, then (when `follow`) the files it includes. `chain`
/// holds the files that led here, so a cycle ends where poe ends it.
fn read_partition(
    project: &Project<'_>,
    config: &Node,
    file: &str,
    follow: bool,
    chain: &mut Vec<String>,
    out: &mut Parsed,
) {
    if let Some(tasks) = config.get("tasks") {
        let start = out.tasks.len();
        read_tasks(project, tasks, file, None, out);
        add_reads(project, config, None, tasks, &mut out.tasks[start..]);
    }
    if let Some(groups) = config.get("groups").and_then(Node::entries) {
        for group in groups {
            if let Some(tasks) = group.node.get("tasks") {
                let start = out.tasks.len();
                read_tasks(project, tasks, file, Some(&group.key), out);
                add_reads(
                    project,
                    config,
                    Some(&group.node),
                    tasks,
                    &mut out.tasks[start..],
                );
            }
        }
    }
    if !follow {
        return;
    }
    let Some(include) = config.get("include") else {
        return;
    };
    let items = include.items().unwrap_or(std::slice::from_ref(include));
    for item in items {
        let Some(rel) = item.str().or_else(|| item.get("path").and_then(Node::str)) else {
            continue;
        };
        let line = item.line;
        let path = match include_path(project, parent(file), rel) {
            Ok(path) => path,
            Err(reason) => {
                out.diag(file, Some(line), format!("include `{rel}` {reason}"));
                continue;
            }
        };
        if chain.contains(&path) {
            continue;
        }
        if chain.len() > MAX_INCLUDE_DEPTH {
            out.diag(
                file,
                Some(line),
                format!("include `{rel}` is more than {MAX_INCLUDE_DEPTH} includes deep: not read"),
            );
            continue;
        }
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
        if !out.consumed.contains(&path) {
            out.consumed.push(path.clone());
        }
        let Some(root) = read_any(&path, &text).or_report(&path, out) else {
            continue;
        };
        let recursive = item.get("recursive").is_none_or(Node::is_true);
        chain.push(path.clone());
        read_partition(project, config_of(&root), &path, recursive, chain, out);
        chain.pop();
    }
}

/// Why an include's path cannot be followed; its `Display` follows the include in a
/// diagnostic (``include `x` uses …``).
#[derive(Debug, Clone, PartialEq, Eq)]
enum BadInclude {
    /// `${NAME}` that poe does not expand.
    UnknownVariable(String),
    /// A variable past the start of the path.
    VariableInside,
    /// A path that leaves the repository.
    Outside,
}

impl std::fmt::Display for BadInclude {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BadInclude::UnknownVariable(var) => {
                write!(f, "uses `${{{var}}}`, which poe does not expand")
            }
            BadInclude::VariableInside => f.write_str("uses a variable agg cannot expand here"),
            BadInclude::Outside => f.write_str("is outside the repository"),
        }
    }
}

impl std::error::Error for BadInclude {}

/// The root-relative path an include names, relative to the including file's directory.
/// poe's `${POE_ROOT}` is the project's directory, `${POE_CONF_DIR}` the including file's,
/// and `${POE_GIT_DIR}`/`${POE_GIT_ROOT}` the Git work tree around the project.
fn include_path(project: &Project<'_>, source_dir: &str, rel: &str) -> Result<String, BadInclude> {
    let (base, rest) = match rel.strip_prefix("${").and_then(|r| r.split_once('}')) {
        Some((var, rest)) => {
            let base = match var {
                "POE_ROOT" => project.dir.to_owned(),
                "POE_CONF_DIR" => source_dir.to_owned(),
                "POE_GIT_DIR" | "POE_GIT_ROOT" => git_root(project),
                _ => return Err(BadInclude::UnknownVariable(var.to_owned())),
            };
            (base, rest.trim_start_matches('/'))
        }
        None if rel.contains("${") => {
            return Err(BadInclude::VariableInside);
        }
        None => (source_dir.to_owned(), rel),
    };
    crate::files::join(&base, rest).ok_or(BadInclude::Outside)
}

/// The nearest directory from the project's up to the root that holds `.git`, else the
/// root: the repository agg reads stands for the Git work tree it is part of.
fn git_root(project: &Project<'_>) -> String {
    let mut dir = project.dir;
    loop {
        if project.files.read_dir(dir).iter().any(|n| n == ".git") {
            return dir.to_owned();
        }
        if dir == "." || dir.is_empty() {
            return ".".to_owned();
        }
        dir = parent(dir);
    }
}

fn read_tasks(
    project: &Project<'_>,
    tasks: &Node,
    file: &str,
    group: Option<&str>,
    out: &mut Parsed,
) {
    let Some(entries) = tasks
        .table_or("poe `tasks` must be a table", Terms::Toml)
        .or_report(file, out)
    else {
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
) -> Option<Task> {
    let mut task = Task::new(
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
        let (deps, script) = steps("sequence", items);
        task.deps = deps;
        task.script = Some(script);
        return Some(task);
    }
    if node.entries().is_none() {
        node.mismatch(
            &format!("poe task `{name}` must be a string, an array or a table"),
            Terms::Toml,
        )
        .report(file, out);
        return None;
    }
    let Some((kind, body)) = task_type(node) else {
        out.diag(
            file,
            Some(node.line),
            format!("poe task `{name}` has none of {}", TASK_TYPES.join(", ")),
        );
        return None;
    };
    task.script = Some(match kind {
        "sequence" | "parallel" => {
            let (deps, script) = steps(kind, body.items().unwrap_or_default());
            task.deps = deps;
            script
        }
        "switch" => "switch".to_owned(),
        "cmd" | "shell" => body.text_of().unwrap_or_default(),
        _ => format!("{kind}: {}", body.text_of().unwrap_or_default()),
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
    task.env = doc::env_of(node.get("env"));
    Some(task)
}

/// The first key of a task table that gives its type, with its value.
fn task_type(node: &Node) -> Option<(&'static str, &Node)> {
    TASK_TYPES
        .iter()
        .find_map(|k| node.get(k).map(|body| (*k, body)))
}

/// The tasks a `sequence` or `parallel` runs (its string and `ref` steps name tasks) and
/// its text: `kind: a, b` when every step names a task, else one step a line, inline
/// steps as `cmd: …`, `script: …`.
fn steps(kind: &str, items: &[Node]) -> (Vec<String>, String) {
    let mut deps = Vec::new();
    let mut lines = Vec::new();
    let mut inline = false;
    for item in items {
        if let Some(step) = item.str() {
            deps.extend(first_word(step));
            lines.push(step.to_owned());
            continue;
        }
        match task_type(item) {
            Some(("ref", body)) => {
                let step = body.str().unwrap_or_default();
                deps.extend(first_word(step));
                lines.push(step.to_owned());
            }
            Some((inner @ ("sequence" | "parallel"), body)) => {
                let (inner_deps, text) = steps(inner, body.items().unwrap_or_default());
                deps.extend(inner_deps);
                inline = true;
                lines.push(text.replace('\n', "\n  "));
            }
            Some((inner, body)) => {
                inline = true;
                lines.push(format!("{inner}: {}", body.text_of().unwrap_or_default()));
            }
            None => {
                inline = true;
                lines.push(format!("({})", item.kind()));
            }
        }
    }
    let script = if inline {
        format!("{kind}:\n  {}", lines.join("\n  "))
    } else {
        format!("{kind}: {}", lines.join(", "))
    };
    (deps, script)
}

/// `args`: an array of names, an array of tables with `name`, or a table by name. Each
/// records the options poe takes it with (`options`, `--name` by default; none when
/// `positional`), its `type` and `help`.
fn params(args: Option<&Node>) -> Vec<Param> {
    let Some(args) = args else {
        return Vec::new();
    };
    let one = |name: &str, spec: Option<&Node>| {
        let get = |key: &str| spec.and_then(|s| s.get(key));
        let mut param = Param::required(name);
        param.required = get("required").is_some_and(Node::is_true);
        param.default = get("default").and_then(Node::scalar).map(str::to_owned);
        if get("multiple").is_some_and(|m| m.is_true() || m.scalar().is_some_and(|s| s != "false"))
        {
            param.variadic = Some(if param.required {
                Variadic::OneOrMore
            } else {
                Variadic::ZeroOrMore
            });
        }
        let positional = get("positional").is_some_and(|p| p.is_true() || p.str().is_some());
        if !positional {
            param.flags = get("options")
                .and_then(Node::items)
                .map(|items| {
                    items
                        .iter()
                        .filter_map(Node::str)
                        .map(str::to_owned)
                        .collect()
                })
                .filter(|flags: &Vec<String>| !flags.is_empty())
                .unwrap_or_else(|| vec![format!("--{}", name.trim_start_matches('_'))]);
        }
        param.kind = get("type")
            .and_then(Node::str)
            .filter(|t| *t != "string")
            .map(str::to_owned);
        param.help = get("help").and_then(Node::str).map(str::to_owned);
        param.passing = Passing::declared(&param);
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
    use crate::files::MemFiles;
    use crate::model::Variadic;
    use crate::testing::{messages, name_list, names, parse_with, task};
    use indoc::{formatdoc, indoc};

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
            indoc! {"
                [tool.poe.tasks]
                extra = \"echo extra\"
                test = \"never\"
            "},
        )
    }

    #[test]
    fn every_poe_form_is_listed_with_help_args_and_deps() {
        let parsed = parse_with(super::super::PYPROJECT.parse, &files(), "pyproject.toml");
        assert_eq!(
            name_list(&parsed),
            "test, check, lint, serve, fmt, ci, num, build-docs, extra"
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
        assert_eq!(
            task(&parsed, "ci").script.as_deref(),
            Some(indoc! {"
                sequence:
                  check
                  cmd: echo inline
                  serve --port 1"})
        );
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
                    "poe task `bad` has none of cmd, script, shell, sequence, parallel, ref, expr, switch"
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
        let yaml = indoc! {"
            tasks:
              hello:
                cmd: echo hi
                help: Say hi
              _x: nope
        "};
        let files = MemFiles::new().with("a/poe_tasks.yaml", yaml).with(
            "b/poe_tasks.json",
            indoc! {"
                {\"tasks\": {
                \"one\": \"echo 1\",
                \"two\": {\"shell\": \"echo 2\"}}}"},
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
            .with(
                "poe_tasks.toml",
                indoc! {"
                    [tasks]
                    ok = \"y\"
                    num = 3
                "},
            )
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

    fn pyproject(files: &MemFiles, path: &str) -> crate::model::Parsed {
        parse_with(super::super::PYPROJECT.parse, files, path)
    }

    #[test]
    fn parallel_tasks_are_listed_with_their_steps() {
        let text = indoc! {"
            [tool.poe.tasks]
            a = \"echo a\"
            b = \"echo b\"

            [tool.poe.tasks.both]
            parallel = [\"a\", \"b\"]
            help = \"Both at once\"
        "};
        let parsed = pyproject(
            &MemFiles::new().with("pyproject.toml", text),
            "pyproject.toml",
        );
        assert_eq!(names(&parsed), ["a", "b", "both"]);
        let both = task(&parsed, "both");
        assert_eq!(both.deps, ["a", "b"]);
        assert_eq!(both.script.as_deref(), Some("parallel: a, b"));
        assert_eq!(both.description.as_deref(), Some("Both at once"));
        assert!(parsed.diagnostics.is_empty(), "{:?}", messages(&parsed));
    }

    #[test]
    fn sequences_keep_their_inline_steps() {
        let text = indoc! {"
            [tool.poe.tasks]
            a = \"echo a\"

            [tool.poe.tasks.all]
            sequence = [{ cmd = \"echo inline\" }, \"a\", { script = \"os:getcwd()\" }, { parallel = [\"a\", { shell = \"true\" }] }]
        "};
        let parsed = pyproject(
            &MemFiles::new().with("pyproject.toml", text),
            "pyproject.toml",
        );
        let all = task(&parsed, "all");
        assert_eq!(all.deps, ["a", "a"]);
        assert_eq!(
            all.script.as_deref(),
            Some(indoc! {"
                sequence:
                  cmd: echo inline
                  a
                  script: os:getcwd()
                  parallel:
                    a
                    shell: true"})
        );
    }

    #[test]
    fn includes_are_followed_through_every_level_once() {
        let files = MemFiles::new()
            .with(
                "pyproject.toml",
                indoc! {"
                    [tool.poe]
                    include = \"tasks/a.toml\"
                    [tool.poe.tasks]
                    root = \"echo root\"
                "},
            )
            .with(
                "tasks/a.toml",
                indoc! {"
                    include = [\"more/b.toml\", { path = \"c.toml\", recursive = false }]
                    [tasks]
                    a = \"echo a\"
                    root = \"never\"
                "},
            )
            .with(
                "tasks/more/b.toml",
                indoc! {"
                    [tool.poe]
                    include = \"../a.toml\"
                    [tool.poe.tasks]
                    b = \"echo b\"
                    [tool.poe.groups.docker.tasks.logs]
                    cmd = \"docker compose logs\"
                "},
            )
            .with(
                "tasks/c.toml",
                indoc! {"
                    include = \"d.toml\"
                    [tasks]
                    c = \"echo c\"
                "},
            )
            .with("tasks/d.toml", "[tasks]\nd = \"not followed\"\n");
        let parsed = pyproject(&files, "pyproject.toml");
        assert_eq!(names(&parsed), ["root", "a", "b", "logs", "c"]);
        assert_eq!(task(&parsed, "root").script.as_deref(), Some("echo root"));
        let logs = task(&parsed, "logs");
        assert_eq!(logs.group.as_deref(), Some("docker"));
        assert_eq!(logs.file_path, "tasks/more/b.toml");
        assert_eq!(logs.argv, ["poe", "logs"]);
        assert_eq!(
            parsed.consumed,
            ["tasks/a.toml", "tasks/more/b.toml", "tasks/c.toml"]
        );
        assert!(parsed.diagnostics.is_empty(), "{:?}", messages(&parsed));
    }

    #[test]
    fn a_chain_of_includes_stops_at_a_bound() {
        let mut files =
            MemFiles::new().with("pyproject.toml", "[tool.poe]\ninclude = \"t0.toml\"\n");
        for i in 0..40 {
            files = files.with(
                &format!("t{i}.toml"),
                &formatdoc! {"
                    include = \"t{}.toml\"
                    [tasks]
                    t{i} = \"echo\"
                ", i + 1},
            );
        }
        let parsed = pyproject(&files, "pyproject.toml");
        assert_eq!(parsed.tasks.len(), super::MAX_INCLUDE_DEPTH);
        assert_eq!(parsed.diagnostics.len(), 1);
        assert!(parsed.diagnostics[0].message.contains("includes deep"));
    }

    #[test]
    fn include_paths_expand_poe_variables() {
        let files = MemFiles::new()
            .with(".git/HEAD", "ref: refs/heads/main\n")
            .with("shared.toml", "[tasks]\nshared = \"echo shared\"\n")
            .with("svc/own.toml", "[tasks]\nown = \"echo own\"\n")
            .with("svc/conf/next.toml", "[tasks]\nnext = \"echo next\"\n")
            .with(
                "svc/conf/here.toml",
                indoc! {"
                    include = \"${POE_CONF_DIR}/next.toml\"
                    [tasks]
                    here = \"echo here\"
                "},
            )
            .with(
                "svc/pyproject.toml",
                "[tool.poe]\ninclude = [\"${POE_GIT_ROOT}/shared.toml\", \"${POE_GIT_DIR}/shared.toml\", \"${POE_ROOT}/own.toml\", \"conf/here.toml\", \"${HOME}/x.toml\"]\n",
            );
        let parsed = pyproject(&files, "svc/pyproject.toml");
        assert_eq!(names(&parsed), ["shared", "own", "here", "next"]);
        assert_eq!(task(&parsed, "shared").dir, "svc");
        assert_eq!(
            messages(&parsed),
            [(
                "svc/pyproject.toml",
                Some(2),
                "include `${HOME}/x.toml` uses `${HOME}`, which poe does not expand"
            )]
        );
        // A project in its own Git work tree: the root of that tree.
        let nested = MemFiles::new()
            .with("shared.toml", "[tasks]\nouter = \"echo outer\"\n")
            .with("lib/.git/HEAD", "ref: refs/heads/main\n")
            .with("lib/shared.toml", "[tasks]\ninner = \"echo inner\"\n")
            .with(
                "lib/py/pyproject.toml",
                "[tool.poe]\ninclude = \"${POE_GIT_ROOT}/shared.toml\"\n",
            );
        let parsed = pyproject(&nested, "lib/py/pyproject.toml");
        assert_eq!(names(&parsed), ["inner"]);
        assert_eq!(parsed.consumed, ["lib/shared.toml"]);
    }

    #[test]
    fn included_yaml_and_json_may_hold_a_tool_poe_key() {
        let files = MemFiles::new()
            .with(
                "pyproject.toml",
                "[tool.poe]\ninclude = [\"a.json\", \"b.yaml\"]\n",
            )
            .with(
                "a.json",
                "{\"tool.poe\": {\"tasks\": {\"from-json\": \"echo j\"}}}",
            )
            .with(
                "b.yaml",
                indoc! {"
                    tool.poe:
                      tasks:
                        from-yaml: echo y
                "},
            );
        let parsed = pyproject(&files, "pyproject.toml");
        assert_eq!(names(&parsed), ["from-json", "from-yaml"]);
        let files = MemFiles::new().with(
            "poe_tasks.json",
            "{\"tool.poe\": {\"tasks\": {\"own\": \"echo o\"}}}",
        );
        let parsed = parse_with(super::parse_tasks_file, &files, "poe_tasks.json");
        assert_eq!(names(&parsed), ["own"]);
    }

    #[test]
    fn args_carry_the_options_type_and_help_poe_takes() {
        let text = r#"[tool.poe.tasks.greet]
cmd = "echo hello ${who}"
args = [
  { name = "who", options = ["-w", "--person"], default = "world", help = "Whom to greet" },
  { name = "loud", options = ["--shout"], type = "boolean" },
  { name = "target", positional = true, help = "Where" },
  { name = "files", positional = true, multiple = true },
  { name = "count", type = "integer" },
  "_plain",
]
"#;
        let parsed = pyproject(
            &MemFiles::new().with("pyproject.toml", text),
            "pyproject.toml",
        );
        let params = &task(&parsed, "greet").params;
        assert_eq!(params[0].flags, ["-w", "--person"]);
        assert_eq!(params[0].default.as_deref(), Some("world"));
        assert_eq!(params[0].help.as_deref(), Some("Whom to greet"));
        assert_eq!(params[0].kind, None);
        assert_eq!(params[1].flags, ["--shout"]);
        assert_eq!(params[1].kind.as_deref(), Some("boolean"));
        assert!(params[2].flags.is_empty());
        assert_eq!(params[2].help.as_deref(), Some("Where"));
        assert!(params[3].flags.is_empty());
        assert_eq!(params[3].variadic, Some(Variadic::ZeroOrMore));
        assert_eq!(params[4].flags, ["--count"]);
        assert_eq!(params[4].kind.as_deref(), Some("integer"));
        assert_eq!(params[5].flags, ["--plain"]);
    }

    #[test]
    fn include_script_is_reported_as_not_listable() {
        let text = indoc! {"
            [tool.poe]
            include_script = \"tasks:make_tasks()\"
            [tool.poe.tasks]
            x = \"echo x\"
        "};
        let parsed = pyproject(
            &MemFiles::new().with("pyproject.toml", text),
            "pyproject.toml",
        );
        assert_eq!(names(&parsed), ["x"]);
        assert_eq!(
            messages(&parsed),
            [(
                "pyproject.toml",
                Some(2),
                "poe `include_script` makes tasks by running Python: agg does not run it, so those tasks are not listed"
            )]
        );
    }
}
