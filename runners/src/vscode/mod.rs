//! VS Code tasks: `.vscode/tasks.json` (JSON with comments), run by agg itself the way VS
//! Code's terminal would run them. A `shell` task is its command line (with `args` quoted as
//! VS Code quotes them) through `sh -c`; a `process` task is the program and its arguments.
//! The workspace folder is the directory holding `.vscode`; `options.cwd`, `options.env`,
//! the file-wide `options` and the `linux`/`osx` overrides are applied, and the variables
//! that need no editor (`${workspaceFolder}`, `${env:X}`, …) are substituted. A task whose
//! `dependsOn` names other tasks runs them first, in order, as VS Code does.

mod resolve;
#[cfg(test)]
mod tests;

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use crate::doc::{self, Dialect, Node, Report};
use crate::files::parent;
use crate::model::{Adapter, Parsed, Runner, Source, Task};

pub(crate) use resolve::{Refusal, Spec};

/// The `.vscode/tasks.json` adapter.
pub const ADAPTER: Adapter = Adapter {
    name: "tasks.json",
    candidate: |path| {
        (path == ".vscode/tasks.json" || path.ends_with("/.vscode/tasks.json")).then_some(0)
    },
    one_per_dir: true,
    admit: None,
    neighbours: None,
    parse,
};

/// The platform key whose properties override a task's on this system.
const PLATFORM: &str = if cfg!(target_os = "macos") {
    "osx"
} else if cfg!(windows) {
    "windows"
} else {
    "linux"
};

/// Chains of `dependsOn` deeper than this are cut with a diagnostic.
const MAX_DEPTH: usize = 32;

/// A task that needs more tasks than this run before it is reported instead of listed: its
/// command would hold every one of them.
const MAX_STEPS: usize = 1_000;

fn parse(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    let Some(root) = doc::read_jsonc(src.text, Dialect::Loose).or_report(src.path, &mut out) else {
        return out;
    };
    if root.entries().is_none() {
        out.diag(
            src.path,
            Some(root.line),
            format!("expected an object, found {}", root.kind()),
        );
        return out;
    }
    let Some(tasks) = root.get("tasks") else {
        return out;
    };
    let Some(items) = tasks.items() else {
        out.diag(
            src.path,
            Some(tasks.line),
            format!("`tasks` must be an array, found {}", tasks.kind()),
        );
        return out;
    };
    if let Some(version) = root.get("version").and_then(Node::str)
        && version.starts_with("0.")
    {
        out.diag(
            src.path,
            root.get("version").map(|n| n.line),
            format!("the tasks.json format {version} is not read (VS Code's current one is 2.0.0)"),
        );
        return out;
    }
    // `.vscode` sits in the workspace folder.
    let folder = parent(parent(src.path)).to_owned();
    let context = resolve::Context::new(src, &root, &folder);
    let specs = Specs::new(
        items
            .iter()
            .filter_map(|item| context.spec(item, &mut out))
            .collect(),
        &folder,
    );
    let mut seen = HashSet::new();
    let mut memo = vec![Memo::Todo; specs.len()];
    for (i, spec) in specs.iter().enumerate() {
        if spec.hidden {
            continue;
        }
        if !seen.insert(spec.label.as_str()) {
            out.diag(
                src.path,
                Some(spec.line),
                format!(
                    "task `{}` is defined twice; VS Code runs the first",
                    spec.label
                ),
            );
            continue;
        }
        if let Some(task) = task(src.path, &folder, i, &specs, &mut memo, &mut out) {
            out.tasks.push(task);
        }
    }
    out
}

/// The row for `spec`: its own command, after the commands of what it depends on.
fn task(
    path: &str,
    folder: &str,
    i: usize,
    specs: &Specs,
    memo: &mut [Memo],
    out: &mut Parsed,
) -> Option<Task> {
    let spec = &specs[i];
    let refused = |refusal: &Refusal, out: &mut Parsed| {
        let reason = match refusal {
            Refusal::NeedsEditor(reason) => {
                return Some(unrunnable(path, folder, spec, reason.clone()));
            }
            Refusal::Broken(reason) => reason.clone(),
            Refusal::TooDeep => format!("`dependsOn` is nested more than {MAX_DEPTH} deep"),
        };
        out.diag(
            path,
            Some(spec.line),
            format!("task `{}` is not listed: {reason}", spec.label),
        );
        None
    };
    if let Some(refusal) = &spec.refusal {
        return refused(refusal, out);
    }
    let order = match specs.before(i, memo, 0) {
        Ok(order) => order,
        Err(refusal) => return refused(&refusal, out),
    };
    if spec.command.is_none() && order.is_empty() {
        out.diag(
            path,
            Some(spec.line),
            format!(
                "task `{}` has neither a command nor `dependsOn`; nothing to run",
                spec.label
            ),
        );
        return None;
    }
    let background_deps = order.iter().any(|&i| specs[i].background);
    let direct = order.is_empty() && spec.dir == folder;
    let (dir, argv, script) = if direct {
        let command = spec.command.as_ref()?;
        (spec.dir.clone(), command.argv(), command.display())
    } else {
        // Run from the workspace folder (the task's home, which names it), each step in its
        // own directory.
        // A background dependency (a watcher) never ends: VS Code starts it and goes on, so
        // agg starts it in the background too, and the task waits for it at the end.
        let mut steps: Vec<String> = order
            .iter()
            .filter_map(|&i| {
                let step = specs[i].step(folder, false)?;
                Some(if specs[i].background {
                    format!("{{ {step} & }}")
                } else {
                    step
                })
            })
            .collect();
        if let Some(own) = spec.step(folder, true) {
            steps.push(own);
        }
        if background_deps {
            steps.push("wait".to_owned());
        }
        let line = steps.join(" &&\n");
        let argv = vec![
            "sh".to_owned(),
            "-c".to_owned(),
            line.clone(),
            "sh".to_owned(),
        ];
        (folder.to_owned(), argv, line)
    };
    let mut task = row(path, spec, dir, argv);
    task.env.clone_from(&spec.env);
    task.script = Some(script);
    // Its background dependencies keep running, so it does too.
    task.behaviour.service |= background_deps;
    Some(task)
}

/// The row of a task agg cannot run: listed, as VS Code lists it, with the reason instead
/// of a command, so that it can be found and `agg run` can say why it will not run it.
fn unrunnable(path: &str, folder: &str, spec: &Spec, reason: String) -> Task {
    let mut task = row(path, spec, folder.to_owned(), Vec::new());
    task.script.clone_from(&spec.written);
    task.behaviour.not_runnable = Some(reason);
    task
}

/// What every row of `spec` holds, whether agg can run it or not.
fn row(path: &str, spec: &Spec, dir: String, argv: Vec<String>) -> Task {
    let mut task = Task::new(Runner::Vscode, &spec.label, dir, path, argv);
    task.line = Some(spec.line);
    task.description.clone_from(&spec.detail);
    task.group.clone_from(&spec.group);
    task.deps.clone_from(&spec.depends_on);
    task.behaviour.service = spec.background;
    task
}

/// The tasks a `dependsOn` names: a label, or a task identifier such as
/// `{ "type": "npm", "script": "compile" }` (named as VS Code names that task, `npm:
/// compile`); one or an array of them.
fn dependency_names(node: &Node) -> Vec<String> {
    let name = |n: &Node| {
        n.str().map(str::to_owned).or_else(|| {
            let get = |key: &str| n.get(key).and_then(Node::str);
            get("label")
                .map(str::to_owned)
                .or_else(|| resolve::default_label(n, get("type")))
        })
    };
    match node.items() {
        Some(items) => items.iter().filter_map(name).collect(),
        None => name(node).into_iter().collect(),
    }
}

/// The file's tasks, found by label (the first of a label, as VS Code runs the first) or,
/// for an `npm` task, by its script (`npm: build` is whatever task of the file runs the
/// `build` script).
struct Specs {
    all: Vec<Spec>,
    by_label: HashMap<String, usize>,
    by_script: HashMap<String, usize>,
}

impl Specs {
    /// `all`, and for each `npm: x` a `dependsOn` names that no task of the file defines, the
    /// task VS Code detects in the folder's `package.json`: `npm run x` (agg lists that
    /// script as an npm task of its own, so this one runs as a dependency only).
    fn new(all: Vec<Spec>, folder: &str) -> Specs {
        let mut specs = Specs {
            all: Vec::with_capacity(all.len()),
            by_label: HashMap::new(),
            by_script: HashMap::new(),
        };
        for spec in all {
            specs.push(spec);
        }
        let wanted: Vec<String> = specs
            .all
            .iter()
            .flat_map(|s| s.depends_on.iter())
            .filter(|name| name.starts_with("npm: "))
            .cloned()
            .collect();
        for name in wanted {
            if specs.find(&name).is_none()
                && let Some(script) = name.strip_prefix("npm: ")
            {
                let script = script.to_owned();
                specs.push(Spec::detected_npm(name, script, folder));
            }
        }
        specs
    }

    fn push(&mut self, spec: Spec) {
        let i = self.all.len();
        self.by_label.entry(spec.label.clone()).or_insert(i);
        if let Some(script) = &spec.npm_script {
            self.by_script.entry(script.clone()).or_insert(i);
        }
        self.all.push(spec);
    }

    /// Every task that runs before task `i`, deepest first, each once. Each task's list is
    /// worked out once (`memo`), so a file of many tasks sharing dependencies is read in
    /// linear time; `depth` bounds the recursion.
    fn before(&self, i: usize, memo: &mut [Memo], depth: usize) -> Result<Rc<[usize]>, Refusal> {
        if let Memo::Done(done) = &memo[i] {
            return done.clone();
        }
        if depth > MAX_DEPTH {
            return Err(Refusal::TooDeep);
        }
        memo[i] = Memo::Busy;
        let result = self.expand(i, memo, depth);
        memo[i] = match &result {
            // Not remembered: from a task nearer the top the same one may be within reach.
            Err(Refusal::TooDeep) => Memo::Todo,
            _ => Memo::Done(result.clone()),
        };
        result
    }

    fn expand(&self, i: usize, memo: &mut [Memo], depth: usize) -> Result<Rc<[usize]>, Refusal> {
        let spec = &self.all[i];
        let mut order = Vec::new();
        let mut placed = HashSet::new();
        for name in &spec.depends_on {
            let Some(j) = self.find(name) else {
                return Err(Refusal::Broken(format!(
                    "`{}` depends on `{name}`, which tasks.json does not define",
                    spec.label
                )));
            };
            if matches!(memo[j], Memo::Busy) {
                return Err(Refusal::Broken(format!(
                    "`dependsOn` cycle through `{}`",
                    self.all[j].label
                )));
            }
            match &self.all[j].refusal {
                None => {}
                Some(Refusal::NeedsEditor(reason)) => {
                    return Err(Refusal::NeedsEditor(format!(
                        "it depends on `{name}`, which agg cannot run: {reason}"
                    )));
                }
                Some(Refusal::Broken(_) | Refusal::TooDeep) => {
                    return Err(Refusal::Broken(format!(
                        "`{}` depends on `{name}`, which agg cannot run",
                        spec.label
                    )));
                }
            }
            let below = self.before(j, memo, depth + 1)?;
            for &k in below.iter().chain(std::iter::once(&j)) {
                if placed.insert(k) {
                    order.push(k);
                }
            }
            if order.len() > MAX_STEPS {
                return Err(Refusal::Broken(format!(
                    "`{}` needs more than {MAX_STEPS} tasks to run first",
                    spec.label
                )));
            }
        }
        Ok(order.into())
    }

    fn find(&self, name: &str) -> Option<usize> {
        self.by_label.get(name).copied().or_else(|| {
            let script = name.strip_prefix("npm: ")?;
            self.by_script.get(script).copied()
        })
    }
}

/// What is known of one task's dependencies while a file is read.
#[derive(Debug, Clone)]
enum Memo {
    Todo,
    /// Being worked out: meeting it again is a cycle.
    Busy,
    Done(Result<Rc<[usize]>, Refusal>),
}

impl std::ops::Deref for Specs {
    type Target = [Spec];

    fn deref(&self) -> &[Spec] {
        &self.all
    }
}
