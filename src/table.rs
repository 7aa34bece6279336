//! The unified task table: one row per task, with its unique name, the exact command, its
//! directory and whether its runner is installed.
//!
//! The JSON field names of [`Task`] and [`Table`] are a contract shared by `agg list
//! --json`, the MCP `list_tasks` tool and editor integrations; `schema/table.schema.json`
//! is generated from these types.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use agg_runners::{Behaviour, Diagnostic, Param, RawTask, Runner, XcSpec, quote_command};
use rayon::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;
use serde::ser::SerializeStruct;

use crate::availability::{Availability, launcher, program_override};
use crate::naming::{canonical_order, unique_names};
use crate::scan::{Scan, scan};

/// Rows are built on the thread pool from this many tasks on (a monorepo has tens of
/// thousands; a small repo is done before the pool would have started).
const PARALLEL_ROWS: usize = 4096;

/// One task in the table.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Task {
    /// Short unique name: what `agg run` and the MCP tools take.
    pub unique_name: String,
    /// The runner's own name for the task.
    pub source_name: String,
    /// Which runner runs it.
    pub runner: Runner,
    /// What agg executes, as a copy-pasteable shell command.
    pub command: String,
    /// The directory the task runs in, relative to the root (`"."` for the root).
    pub dir: String,
    /// The package the task belongs to: the name its manifest gives (package.json,
    /// pyproject, Cargo.toml, pom.xml, Gradle, composer.json, deno.json), else that of the
    /// nearest enclosing directory whose manifest names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    /// The task file, relative to the root.
    pub file_path: String,
    /// The line of the definition, when known.
    pub line: Option<u32>,
    /// The description the file gives, or `null`.
    pub description: Option<String>,
    /// Whether the runner is installed (always true for xc: agg runs those itself).
    pub runner_available: bool,
    /// Parameters (just parameters, xc inputs, Taskfile required vars).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<Param>,
    /// Tasks this one depends on, by source name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub deps: Vec<String>,
    /// Other names the runner accepts.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// just `[group]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The plugin that brings the task when no script of the build declares it (Gradle).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
    /// The build disables the task (Gradle `enabled = false`): the runner skips it when run.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disabled: bool,
    /// The argv agg executes, program first.
    #[serde(skip)]
    pub argv: Vec<String>,
    /// What the task does, as written in its file.
    #[serde(skip)]
    pub script: Option<String>,
    /// Environment the task sets.
    #[serde(skip)]
    pub env: Vec<(String, String)>,
    /// xc execution details.
    #[serde(skip)]
    pub xc: Option<XcSpec>,
    /// The listed task file whose parse produced this task: the defining file, or the one
    /// that pulled it in (see `RawTask::origin`).
    #[serde(skip)]
    pub origin: String,
}

impl Task {
    /// Whether the unique name differs from the source name for a reason other than the
    /// directory prefix (a runner suffix or a counter).
    pub fn is_suffixed(&self) -> bool {
        self.local_name() != self.source_name
    }

    /// The unique name without its directory prefix (`build-m` for `apps/api/build-m`).
    pub fn local_name(&self) -> &str {
        if self.dir == "." {
            return &self.unique_name;
        }
        self.unique_name
            .strip_prefix(&self.dir)
            .and_then(|s| s.strip_prefix('/'))
            .unwrap_or(&self.unique_name)
    }

    /// Every text a query looks in, with the part of the task it is: what `Filter::query`
    /// matches and what [`crate::search`] ranks.
    pub fn searchable(&self) -> impl Iterator<Item = (Field, &str)> {
        let names = [self.source_name.as_str(), self.local_name()]
            .into_iter()
            .chain(self.aliases.iter().map(String::as_str))
            .map(|n| (Field::Name, n));
        let places = [
            Some(self.unique_name.as_str()),
            Some(self.dir.as_str()),
            self.package.as_deref(),
            Some(self.runner.name()),
        ]
        .into_iter()
        .flatten()
        .map(|p| (Field::Place, p));
        let description = self
            .description
            .iter()
            .map(|d| (Field::Description, d.as_str()));
        names.chain(places).chain(description)
    }
}

/// The part of a task a query word is found in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// Its own name, its local unique name or an alias.
    Name,
    /// Its full unique name, directory, package or runner.
    Place,
    /// Its description.
    Description,
}

/// The whole table, as `agg list --json` prints it (each row with its [`Behaviour`]
/// fields, see [`Table::behaviour`]).
#[derive(Debug, Clone)]
pub struct Table {
    /// The absolute root that was scanned.
    pub root: PathBuf,
    /// Every task, grouped by directory (root first), then runner.
    pub tasks: Vec<Task>,
    /// Files that could not be read or understood; every other file's tasks are listed.
    pub diagnostics: Vec<Diagnostic>,
    /// What running a task involves beyond its command, by unique name; only tasks that
    /// involve something are present.
    pub behaviours: HashMap<String, Behaviour>,
}

/// The whole table, as `agg list --json` prints it.
// The shape of a serialized [`Table`], for its schema (`schema/table.schema.json`).
#[derive(JsonSchema)]
#[schemars(rename = "Table")]
#[allow(dead_code)] // only its schema is used; the table serializes itself.
struct TableDocument {
    /// The absolute root that was scanned.
    root: String,
    /// Every task, grouped by directory (root first), then runner.
    tasks: Vec<RowDocument>,
    /// Files that could not be read or understood; every other file's tasks are listed.
    diagnostics: Vec<Diagnostic>,
}

/// One task in the table.
// A [`Task`] with its [`Behaviour`], as one row of the JSON document.
#[derive(Serialize, JsonSchema)]
#[schemars(rename = "Task")]
struct RowDocument<T = Task, B = Behaviour> {
    #[serde(flatten)]
    task: T,
    #[serde(flatten)]
    behaviour: B,
}

impl Serialize for Table {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Rows<'t>(&'t Table);
        impl Serialize for Rows<'_> {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let none = Behaviour::default();
                serializer.collect_seq(self.0.tasks.iter().map(|task| RowDocument {
                    task,
                    behaviour: self.0.behaviour(task).unwrap_or(&none),
                }))
            }
        }
        let mut doc = serializer.serialize_struct("Table", 3)?;
        doc.serialize_field("root", &self.root)?;
        doc.serialize_field("tasks", &Rows(self))?;
        doc.serialize_field("diagnostics", &self.diagnostics)?;
        doc.end()
    }
}

impl Table {
    /// Scans `root` and builds its table.
    pub fn load(root: &Path) -> Table {
        Table::from_scan(scan(root))
    }

    /// Builds the table from a finished scan.
    pub fn from_scan(scan: Scan) -> Table {
        let mut raw = scan.tasks;
        raw.sort_by(canonical_order);
        inherit_packages(&mut raw);
        let names = unique_names(&raw);
        let behaviours = raw
            .iter_mut()
            .zip(&names)
            .filter(|(t, _)| !t.behaviour.is_empty())
            .map(|(t, name)| (name.clone(), std::mem::take(&mut t.behaviour)))
            .collect();
        let availability = Availability::detect(raw.iter().map(|t| t.runner))
            .with_launchers(raw.iter().filter_map(|t| launcher(t.runner, &t.argv)));
        let tasks = if raw.len() >= PARALLEL_ROWS {
            raw.into_par_iter()
                .zip(names)
                .map(|(t, unique_name)| row(t, unique_name, &availability, &scan.root))
                .collect()
        } else {
            raw.into_iter()
                .zip(names)
                .map(|(t, unique_name)| row(t, unique_name, &availability, &scan.root))
                .collect()
        };
        Table {
            root: scan.root,
            tasks,
            diagnostics: scan.diagnostics,
            behaviours,
        }
    }

    /// What running `task` involves beyond its command (questions, a terminal, hooks), when
    /// it involves anything.
    pub fn behaviour(&self, task: &Task) -> Option<&Behaviour> {
        self.behaviours.get(&task.unique_name)
    }

    /// Why agg cannot run `task`, when it lists a task it cannot run (a VS Code task that
    /// needs the editor).
    pub fn not_runnable(&self, task: &Task) -> Option<&str> {
        self.behaviour(task).and_then(|b| b.not_runnable.as_deref())
    }

    /// Whether the two tables hold the same tasks as agents see them: every field but line
    /// numbers, so an edit that only moves a task within its file is not a change of the
    /// task list.
    pub fn same_tasks(&self, other: &Table) -> bool {
        fn seen(t: &Task) -> impl PartialEq + '_ {
            (
                (&t.unique_name, &t.source_name, t.runner, &t.command, &t.dir),
                (&t.file_path, &t.description, t.runner_available, &t.params),
                &t.package,
                (&t.deps, &t.aliases, &t.group, &t.script, &t.env),
            )
        }
        self.tasks.len() == other.tasks.len()
            && self.behaviours == other.behaviours
            && self
                .tasks
                .iter()
                .zip(&other.tasks)
                .all(|(a, b)| seen(a) == seen(b))
    }

    /// The task with this unique name.
    pub fn get(&self, unique_name: &str) -> Option<&Task> {
        self.tasks.iter().find(|t| t.unique_name == unique_name)
    }

    /// The JSON Schema of [`Table`], as published in `schema/table.schema.json`.
    pub fn json_schema() -> serde_json::Value {
        serde_json::to_value(schemars::schema_for!(TableDocument)).unwrap_or_default()
    }
}

/// Gives each task its adapter did not place in a package the package of the nearest
/// directory at or above its own where another adapter did (a Makefile beside a
/// `package.json`). Only what the adapters already read is used: no file is opened here.
fn inherit_packages(raw: &mut [RawTask]) {
    let mut named: HashMap<&str, &str> = HashMap::new();
    for t in raw.iter() {
        if let Some(package) = &t.package {
            named.entry(&t.dir).or_insert(package);
        }
    }
    if named.is_empty() {
        return;
    }
    let nearest = |dir: &str| -> Option<String> {
        let mut dir = dir;
        loop {
            if let Some(package) = named.get(dir) {
                return Some((*package).to_owned());
            }
            if dir == "." || dir.is_empty() {
                return None;
            }
            dir = dir.rsplit_once('/').map_or(".", |(up, _)| up);
        }
    };
    // Rows come grouped by directory: one look-up per directory.
    let mut found: Vec<(usize, Option<String>)> = Vec::new();
    let mut last: Option<(&str, Option<String>)> = None;
    for (i, t) in raw.iter().enumerate() {
        if t.package.is_some() {
            continue;
        }
        let package = match &last {
            Some((dir, package)) if *dir == t.dir => package.clone(),
            _ => {
                let package = nearest(&t.dir);
                last = Some((&t.dir, package.clone()));
                package
            }
        };
        if package.is_some() {
            found.push((i, package));
        }
    }
    for (i, package) in found {
        if let Some(t) = raw.get_mut(i) {
            t.package = package;
        }
    }
}

fn row(t: RawTask, unique_name: String, availability: &Availability, root: &Path) -> Task {
    let runner_available = availability.available_for(root, &t);
    let mut argv = t.argv;
    // The project's own runner (`.venv/bin/poe`) is what runs, so the command shows it.
    if let Some((rel, _)) = program_override(root, &t.dir, t.runner, &argv)
        && let Some(first) = argv.first_mut()
    {
        *first = rel;
    }
    // A runner with several binaries runs as the one installed (some distributions install
    // go-task as `go-task`, some systems have only `gmake`).
    if let (Some(first), Some((bin, _))) = (argv.first_mut(), availability.binary(t.runner))
        && t.runner.binaries().len() > 1
        && t.runner.binaries().contains(&first.as_str())
    {
        bin.clone_into(first);
        // Without Docker's Compose plugin, `docker compose` runs as `docker-compose`.
        if bin == "docker-compose" && argv.get(1).is_some_and(|a| a == "compose") {
            argv.remove(1);
        }
    }
    Task {
        unique_name,
        command: quote_command(&argv),
        source_name: t.source_name,
        runner: t.runner,
        dir: t.dir,
        package: t.package,
        file_path: t.file_path,
        line: t.line,
        description: t.description,
        runner_available,
        params: t.params,
        deps: t.deps,
        aliases: t.aliases,
        group: t.group,
        plugin: t.plugin,
        disabled: t.disabled,
        argv,
        script: t.script,
        env: t.env,
        xc: t.xc,
        origin: t.origin,
    }
}

/// Narrows a table the way `agg list` options and the MCP `list_tasks` arguments do.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only these runners (empty: all).
    pub runners: Vec<Runner>,
    /// Only tasks whose directory is this one or below it.
    pub dir: Option<String>,
    /// Only tasks that match every word of this, case-insensitively, each in a name, the
    /// directory, the package, the runner or the description ([`Task::searchable`]).
    pub query: Option<String>,
}

impl Filter {
    /// Whether `task` passes.
    pub fn matches(&self, task: &Task) -> bool {
        self.in_scope(task) && self.words().iter().all(|w| contains_word(task, w))
    }

    /// Whether `task` passes the runner and directory filters (the query aside).
    pub fn in_scope(&self, task: &Task) -> bool {
        if !self.runners.is_empty() && !self.runners.contains(&task.runner) {
            return false;
        }
        if let Some(dir) = self.dir.as_deref() {
            let dir = dir.trim_start_matches("./").trim_end_matches('/');
            if !(dir.is_empty()
                || dir == "."
                || task.dir == dir
                || task
                    .dir
                    .strip_prefix(dir)
                    .is_some_and(|rest| rest.starts_with('/')))
            {
                return false;
            }
        }
        true
    }

    /// The words of the query, lowercased, in order and without repeats.
    pub fn words(&self) -> Vec<String> {
        let mut words: Vec<String> = Vec::new();
        for word in self.query.as_deref().unwrap_or_default().split_whitespace() {
            let word = word.to_lowercase();
            if !words.contains(&word) {
                words.push(word);
            }
        }
        words
    }
}

/// Whether lowercase `word` occurs in any searchable text of `task`.
fn contains_word(task: &Task, word: &str) -> bool {
    task.searchable()
        .any(|(_, text)| text.to_lowercase().contains(word))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(tasks: Vec<RawTask>) -> Table {
        Table::from_scan(Scan {
            root: PathBuf::from("/repo"),
            tasks,
            diagnostics: Vec::new(),
            task_files: Vec::new(),
        })
    }

    fn make(name: &str, line: u32, script: &str) -> RawTask {
        let mut t = RawTask::new(
            Runner::Make,
            name,
            ".",
            "Makefile",
            vec!["make".to_owned(), name.to_owned()],
        );
        t.line = Some(line);
        t.script = Some(script.to_owned());
        t
    }

    #[test]
    fn moving_a_task_within_its_file_is_no_change_but_editing_it_is() {
        let before = table(vec![make("build", 3, "cc"), make("test", 7, "ctest")]);
        assert!(before.same_tasks(&table(vec![
            make("build", 4, "cc"),
            make("test", 9, "ctest")
        ])));
        assert!(!before.same_tasks(&table(vec![
            make("build", 3, "cc -O2"),
            make("test", 7, "ctest")
        ])));
        assert!(!before.same_tasks(&table(vec![make("build", 3, "cc")])));
        let mut described = make("build", 3, "cc");
        described.description = Some("Build it".to_owned());
        assert!(!before.same_tasks(&table(vec![described, make("test", 7, "ctest")])));
    }
}
