//! One mise task from its definition: a `[tasks.NAME]` entry of a config or an included
//! TOML file (a string, an array or a table), or the `#MISE` header of a file task.
//! Both spell their settings the same way, so one reader fills a [`Def`] from either.

use super::usage;
use crate::doc::{self, Node, Terms};
use crate::model::{Parsed, Runner, Task};

/// Where a definition came from, which decides who wins when two share a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Origin {
    /// A `[tasks]` entry of one of the project's config files.
    Config,
    /// A task of a TOML file named by `[task_config] includes` or found in a task directory.
    IncludedToml,
    /// An executable file in a task directory.
    Script,
}

/// A task as one file defines it, before the project's definitions are merged.
#[derive(Debug, Clone)]
pub(super) struct Def {
    pub task: Task,
    pub origin: Origin,
    /// Whether it says what to run (`run`, `run_windows`, `file`, or it is a script); one
    /// that does not only adds settings to a same-named task that does.
    pub command: bool,
    /// `hide`, when the definition sets it.
    pub hide: Option<bool>,
}

impl Def {
    /// A task named `name` of the project in `dir`, defined in `file`.
    pub fn new(name: &str, dir: &str, file: &str, origin: Origin) -> Def {
        let argv = vec!["mise".to_owned(), "run".to_owned(), name.to_owned()];
        Def {
            task: Task::new(Runner::Mise, name, dir, file, argv),
            origin,
            command: origin == Origin::Script,
            hide: None,
        }
    }

    /// Takes the settings `over` sets on top of this definition's (mise's overlay of a
    /// command-less `[tasks.NAME]` onto the task that runs something).
    pub fn overlay(&mut self, over: Def) {
        let (base, over_task) = (&mut self.task, over.task);
        if over_task.description.is_some() {
            base.description = over_task.description;
        }
        for alias in over_task.aliases {
            if !base.aliases.contains(&alias) {
                base.aliases.push(alias);
            }
        }
        for dep in over_task.deps {
            if !base.deps.contains(&dep) {
                base.deps.push(dep);
            }
        }
        if !over_task.behaviour.confirm.is_empty() {
            base.behaviour.confirm = over_task.behaviour.confirm;
        }
        base.behaviour.interactive |= over_task.behaviour.interactive;
        if !over_task.params.is_empty() {
            base.params = over_task.params;
        }
        base.env.extend(over_task.env);
        if over.hide.is_some() {
            self.hide = over.hide;
        }
    }
}

/// A `[tasks]` entry (or a top-level entry of an included TOML task file).
pub(super) fn from_toml(
    name: &str,
    node: &Node,
    dir: &str,
    file: &str,
    origin: Origin,
    out: &mut Parsed,
) -> Option<Def> {
    let mut def = Def::new(name, dir, file, origin);
    def.task.line = Some(node.line);
    if node.str().is_some() || node.items().is_some() {
        read_run(&mut def, node, file, name, out);
        return Some(def);
    }
    if node.entries().is_none() {
        node.mismatch(
            &format!("mise task `{name}` must be a string, an array or a table"),
            Terms::Toml,
        )
        .report(file, out);
        return None;
    }
    if let Some(run) = node.get("run") {
        read_run(&mut def, run, file, name, out);
    }
    if let Some(path) = node.get("file") {
        match path.str() {
            Some(path) => {
                def.command = true;
                def.task
                    .script
                    .get_or_insert_with(|| format!("file: {path}"));
            }
            None => wrong_type(out, file, name, "file", "a string", path),
        }
    }
    def.command |= node.get("run_windows").is_some();
    read_settings(&mut def, node, file, out);
    if def.task.params.is_empty()
        && let Some(script) = &def.task.script
    {
        def.task.params = usage::tera_params(script);
    }
    Some(def)
}

/// `run`: a command, or an array of commands and `{ task = … }`/`{ tasks = […] }` steps.
fn read_run(def: &mut Def, run: &Node, file: &str, name: &str, out: &mut Parsed) {
    if let Some(command) = run.str() {
        def.command = true;
        def.task.script = Some(command.to_owned());
        return;
    }
    let Some(items) = run.items() else {
        wrong_type(out, file, name, "run", "a string or an array", run);
        return;
    };
    def.command = true;
    let mut lines = Vec::new();
    for item in items {
        if let Some(command) = item.str() {
            lines.push(command.to_owned());
        } else if let Some(task) = item.get("task").and_then(Node::str) {
            lines.push(format!("task: {task}"));
        } else if let Some(tasks) = item.get("tasks").and_then(Node::text_of) {
            lines.push(format!("tasks: {tasks}"));
        } else {
            out.diag(
                file,
                Some(item.line),
                format!(
                    "mise task `{name}`: a `run` step must be a command, `{{ task = … }}` or `{{ tasks = […] }}`"
                ),
            );
        }
    }
    def.task.script = Some(lines.join("\n"));
}

/// The settings a `[tasks.NAME]` table and a file task's `#MISE` header share.
pub(super) fn read_settings(def: &mut Def, node: &Node, file: &str, out: &mut Parsed) {
    let name = def.task.source_name.clone();
    let task = &mut def.task;
    if let Some(d) = node.get("description") {
        match d.str() {
            Some(d) if !d.trim().is_empty() => task.description = Some(d.trim().to_owned()),
            Some(_) => {}
            None => wrong_type(out, file, &name, "description", "a string", d),
        }
    }
    for key in ["alias", "aliases"] {
        if let Some(alias) = node.get(key) {
            match strings(alias) {
                Some(aliases) => task.aliases.extend(aliases),
                None => wrong_type(
                    out,
                    file,
                    &name,
                    key,
                    "a string or an array of strings",
                    alias,
                ),
            }
        }
    }
    if let Some(depends) = node.get("depends") {
        match dependencies(depends) {
            Some(deps) => task.deps = deps,
            None => wrong_type(out, file, &name, "depends", "a string or an array", depends),
        }
    }
    let mut notes = Vec::new();
    for key in ["depends_post", "wait_for"] {
        if let Some(list) = node.get(key) {
            match dependencies(list) {
                Some(deps) if !deps.is_empty() => notes.push(format!("{key}: {}", deps.join(", "))),
                Some(_) => {}
                None => wrong_type(out, file, &name, key, "a string or an array", list),
            }
        }
    }
    if let Some(dir) = node.get("dir") {
        match dir.str() {
            Some(dir) => notes.insert(0, format!("dir: {dir}")),
            None => wrong_type(out, file, &name, "dir", "a string", dir),
        }
    }
    if !notes.is_empty() {
        let mut script = notes.iter().map(|n| format!("# {n}")).collect::<Vec<_>>();
        script.extend(task.script.take());
        task.script = Some(script.join("\n"));
    }
    if let Some(hide) = node.get("hide") {
        match hide.value {
            crate::doc::Value::Bool(b) => def.hide = Some(b),
            _ => wrong_type(out, file, &name, "hide", "a boolean", hide),
        }
    }
    let task = &mut def.task;
    if let Some(confirm) = node.get("confirm") {
        match confirm
            .str()
            .or_else(|| confirm.get("message").and_then(Node::str))
        {
            Some(message) => task.behaviour.confirm = vec![message.to_owned()],
            None => wrong_type(
                out,
                file,
                &name,
                "confirm",
                "a string or { message = … }",
                confirm,
            ),
        }
    }
    task.behaviour.interactive |= node.get("interactive").is_some_and(Node::is_true)
        || node.get("raw").is_some_and(Node::is_true);
    task.env.extend(doc::env_of(node.get("env")));
    if let Some(spec) = node.get("usage") {
        match spec.str() {
            Some(spec) => task.params = usage::params(spec),
            None => wrong_type(out, file, &name, "usage", "a string", spec),
        }
    }
}

fn wrong_type(out: &mut Parsed, file: &str, task: &str, key: &str, expected: &str, node: &Node) {
    node.mismatch(
        &format!("mise task `{task}`: `{key}` must be {expected}"),
        Terms::Toml,
    )
    .report(file, out);
}

/// A string or an array of strings.
fn strings(node: &Node) -> Option<Vec<String>> {
    Some(node.strs()?.into_iter().map(str::to_owned).collect())
}

/// The task names of `depends`: `"build"`, `"build --release"`, `"NODE_ENV=test setup"`,
/// `["build", "--release"]` and `{ task = "build" }`.
fn dependencies(node: &Node) -> Option<Vec<String>> {
    let one = |item: &Node| -> Option<String> {
        if let Some(s) = item.str() {
            return task_word(s);
        }
        if let Some(words) = item.items() {
            return words.first().and_then(Node::str).and_then(task_word);
        }
        item.get("task").and_then(Node::str).and_then(task_word)
    };
    if let Some(s) = node.str() {
        return Some(task_word(s).into_iter().collect());
    }
    Some(node.items()?.iter().filter_map(one).collect())
}

/// The first word that is not a `NAME=value` assignment.
fn task_word(command: &str) -> Option<String> {
    command
        .split_whitespace()
        .find(|word| {
            !word.split_once('=').is_some_and(|(name, _)| {
                !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            })
        })
        .map(str::to_owned)
}
