//! The unified task table: one row per task, with its unique name, the exact command, its
//! directory and whether its runner is installed.
//!
//! The JSON field names of [`Task`] and [`Table`] are a contract shared by `agg list
//! --json`, the MCP `list_tasks` tool and editor integrations; `schema/table.schema.json`
//! is generated from these types.

use rustc_hash::FxHashMap as HashMap;
use std::os::unix::ffi::OsStringExt;
use std::path::{Path, PathBuf};

use agg_runners::{Behaviour, Diagnostic, Runner, quote_command};
use rayon::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;
use serde::ser::SerializeStruct;

use crate::availability::{Availability, launcher, overrides, project_program};
use crate::named::Named;
use crate::naming::{canonical_order, unique_names};
use crate::scan::Scan;

/// Rows are built on the thread pool from this many tasks on (a monorepo has tens of
/// thousands; a small repo is done before the pool would have started).
const PARALLEL_ROWS: usize = 4096;

/// A table with this many rows is written as JSON on two threads ([`Table::write_json`]).
const PARALLEL_JSON_ROWS: usize = 8192;

/// Rows per block when a table is written as JSON on two threads: a few hundred kilobytes.
const JSON_BLOCK_ROWS: usize = 1024;

/// One task in the table: the runners' one task shape, named and with its command and
/// availability filled in by [`Table::from_scan`].
pub use agg_runners::Task;

/// Every text a query looks in, with the part of the task it is: what `Filter::query`
/// matches and what [`crate::search`] ranks.
pub fn searchable(task: &Task) -> impl Iterator<Item = (Field, &str)> {
    let names = [task.source_name.as_str(), task.local_name()]
        .into_iter()
        .chain(task.aliases.iter().map(String::as_str))
        .map(|n| (Field::Name, n));
    let places = [
        Some(task.unique_name.as_str()),
        Some(task.dir.as_str()),
        task.package.as_deref(),
        Some(task.runner.name()),
    ]
    .into_iter()
    .flatten()
    .map(|p| (Field::Place, p));
    let description = task
        .description
        .iter()
        .map(|d| (Field::Description, d.as_str()));
    names.chain(places).chain(description)
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

/// The whole table, as `agg list --json` prints it (each row followed by the fields of its
/// [`Behaviour`]).
#[derive(Debug, Clone)]
pub struct Table {
    /// The absolute root that was scanned.
    pub root: PathBuf,
    /// Every task, grouped by directory (root first), then runner.
    pub tasks: Vec<Task>,
    /// Files that could not be read or understood; every other file's tasks are listed.
    pub diagnostics: Vec<Diagnostic>,
    /// The manifests the workspace graph reads ([`crate::graph`]), root-relative: not part of
    /// the JSON table.
    pub manifests: Vec<String>,
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
// A [`Task`] with its [`Behaviour`], as one row of the JSON document. The behaviour is not
// serialized with the task because `describe` shows it after the script and environment.
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
                serializer.collect_seq(self.0.tasks.iter().map(|task| RowDocument {
                    task,
                    behaviour: &task.behaviour,
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
    /// Writes the table as compact JSON: byte for byte what `serde_json::to_writer` writes
    /// of it. The rows of a large table are serialized on two threads in blocks taken in
    /// turn: this thread writes the even blocks straight out, another serializes the odd ones
    /// into buffers meanwhile, each written out after the block before it. At most a few
    /// blocks are held at once, whatever the size of the table.
    pub fn write_json(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        // On a thread of the pool itself, this thread would wait for a block the pool might
        // never get to (a pool of one thread): written in one piece there.
        if self.tasks.len() < PARALLEL_JSON_ROWS || rayon::current_thread_index().is_some() {
            return serde_json::to_writer(out, self).map_err(std::io::Error::from);
        }
        let blocks: Vec<&[Task]> = self.tasks.chunks(JSON_BLOCK_ROWS).collect();
        let (filled, filled_rx) = std::sync::mpsc::sync_channel::<Vec<u8>>(1);
        let (emptied, emptied_rx) = std::sync::mpsc::channel::<Vec<u8>>();
        let mut odd_result = Ok(());
        // On the pool, whose threads have memory to reuse from the parse.
        let written = rayon::in_place_scope(|scope| {
            let odd = &mut odd_result;
            let odd_blocks = blocks.iter().skip(1).step_by(2);
            scope.spawn(move |_| {
                for block in odd_blocks {
                    let mut buffer = emptied_rx.try_recv().unwrap_or_default();
                    buffer.clear();
                    buffer.push(b',');
                    if let Err(err) = write_rows(&mut buffer, block) {
                        *odd = Err(err);
                        return;
                    }
                    // The receiver is gone when writing failed: nothing more is wanted.
                    if filled.send(buffer).is_err() {
                        return;
                    }
                }
            });
            // `filled_rx` is dropped when this returns, so an error here ends the other side.
            out.write_all(b"{\"root\":")?;
            serde_json::to_writer(&mut *out, &self.root)?;
            out.write_all(b",\"tasks\":[")?;
            for (i, block) in blocks.iter().enumerate().step_by(2) {
                if i > 0 {
                    out.write_all(b",")?;
                }
                write_rows(out, block)?;
                if i + 1 < blocks.len() {
                    let Ok(buffer) = filled_rx.recv() else {
                        return Err(std::io::Error::other("a block of rows was not written"));
                    };
                    out.write_all(&buffer)?;
                    let _ = emptied.send(buffer);
                }
            }
            Ok(())
        });
        // The other side's failure, if any, is why this side stopped.
        odd_result?;
        written?;
        out.write_all(b"],\"diagnostics\":")?;
        serde_json::to_writer(&mut *out, &self.diagnostics)?;
        out.write_all(b"}")
    }

    /// Scans `root` and builds its table: from the named table kept with the scan when the
    /// repository is unchanged (see [`crate::named`]).
    pub fn load(root: &Path) -> Table {
        let named = Named::load(root, Table::name);
        let began = std::time::Instant::now();
        let table = Table::from_named(named);
        tracing::debug!(
            "table: {} rows built in {:?}",
            table.tasks.len(),
            began.elapsed()
        );
        table
    }

    /// Builds the table from a finished scan: orders the adapters' tasks, names them and
    /// fills in what only the table knows (see [`fill`]).
    pub fn from_scan(scan: Scan) -> Table {
        Table::from_named(Table::name(scan))
    }

    /// What follows from the files alone: the scan's tasks ordered, placed in the packages
    /// of their directories and named.
    pub(crate) fn name(scan: Scan) -> Named {
        let began = std::time::Instant::now();
        let mut tasks = scan.tasks;
        // A scan gathers its rows in this order already; sorting anyway would copy every row
        // through a scratch buffer of half the table.
        if !tasks.is_sorted_by(|a, b| canonical_order(a, b).is_le()) {
            tasks.sort_by(canonical_order);
        }
        inherit_packages(&mut tasks);
        let names = unique_names(&tasks);
        for (t, unique_name) in tasks.iter_mut().zip(names) {
            t.unique_name = unique_name;
        }
        tracing::debug!("table: {} rows named in {:?}", tasks.len(), began.elapsed());
        Named {
            root: scan.root.into_os_string().into_encoded_bytes(),
            tasks,
            diagnostics: scan.diagnostics,
            manifests: scan.manifests,
        }
    }

    /// The table of named rows, with what depends on this environment filled in.
    pub(crate) fn from_named(named: Named) -> Table {
        // Written from a path, so it reads back as one.
        let root = PathBuf::from(std::ffi::OsString::from_vec(named.root));
        let mut tasks = named.tasks;
        fill(&root, &mut tasks);
        Table {
            root,
            tasks,
            diagnostics: named.diagnostics,
            manifests: named.manifests,
        }
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
                &t.behaviour,
            )
        }
        self.tasks.len() == other.tasks.len()
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

/// Writes `rows` as compact JSON array elements, comma-separated, as `serde_json` writes the
/// `tasks` of a [`Table`].
fn write_rows(out: &mut impl std::io::Write, rows: &[Task]) -> std::io::Result<()> {
    for (i, task) in rows.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        let row = RowDocument {
            task,
            behaviour: &task.behaviour,
        };
        serde_json::to_writer(&mut *out, &row)?;
    }
    Ok(())
}

/// Gives each task its adapter did not place in a package the package of the nearest
/// directory at or above its own where another adapter did (a Makefile beside a
/// `package.json`). Only what the adapters already read is used: no file is opened here.
fn inherit_packages(raw: &mut [Task]) {
    let mut named: HashMap<&str, &str> = HashMap::default();
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

/// Fills in what depends on the environment, for named rows of the repository at `root`:
/// whether each task's runner is installed, and the command that runs it (with the runner's
/// program inside the project, or the one of its binaries installed). Each row is filled the
/// same whatever other rows are filled with it.
pub fn fill(root: &Path, tasks: &mut [Task]) {
    let availability = Availability::detect(tasks.iter().map(|t| t.runner))
        .with_launchers(tasks.iter().filter_map(|t| launcher(t.runner, &t.argv)));
    // The runners' programs inside the project, looked up once per directory and runner
    // (a lookup walks up the tree; a directory has many tasks).
    let mut wanted: Vec<(String, Runner)> = tasks
        .iter()
        .filter(|t| !t.runner.project_binaries().is_empty())
        .map(|t| (t.dir.clone(), t.runner))
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    let found: Vec<(String, Runner, Option<String>)> = wanted
        .into_par_iter()
        .map(|(dir, runner)| {
            let program = project_program(root, &dir, runner).map(|(rel, _)| rel);
            (dir, runner, program)
        })
        .collect();
    let mut projects: HashMap<String, Vec<(Runner, Option<String>)>> = HashMap::default();
    for (dir, runner, program) in found {
        projects.entry(dir).or_default().push((runner, program));
    }
    let fill_one = |t: &mut Task| {
        let project = projects
            .get(t.dir.as_str())
            .and_then(|found| found.iter().find(|(r, _)| *r == t.runner))
            .and_then(|(_, program)| program.clone());
        fill_row(t, &availability, project);
    };
    if tasks.len() >= PARALLEL_ROWS {
        tasks.par_iter_mut().for_each(fill_one);
    } else {
        tasks.iter_mut().for_each(fill_one);
    }
}

/// Fills in one row: whether its runner is installed, and the command that runs it.
/// `project` is the runner's program inside the project, as seen from the task's directory
/// (`../../node_modules/.bin/turbo`).
fn fill_row(t: &mut Task, availability: &Availability, project: Option<String>) {
    t.runner_available = availability.available_with(t, project.is_some());
    // The project's own runner (`.venv/bin/poe`) is what runs, so the command shows it.
    if let Some(rel) = project.filter(|_| overrides(t.runner, &t.argv))
        && let Some(first) = t.argv.first_mut()
    {
        *first = rel;
    }
    // A runner with several binaries runs as the one installed (some distributions install
    // go-task as `go-task`, some systems have only `gmake`).
    if let (Some(first), Some((bin, _))) = (t.argv.first_mut(), availability.binary(t.runner))
        && t.runner.binaries().len() > 1
        && t.runner.binaries().contains(&first.as_str())
    {
        bin.clone_into(first);
        // Without Docker's Compose plugin, `docker compose` runs as `docker-compose`.
        if bin == "docker-compose" && t.argv.get(1).is_some_and(|a| a == "compose") {
            t.argv.remove(1);
        }
    }
    t.command = quote_command(&t.argv);
}

/// Narrows a table the way `agg list` options and the MCP `list_tasks` arguments do.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    /// Only these runners (empty: all).
    pub runners: Vec<Runner>,
    /// Only tasks whose directory is this one or below it.
    pub dir: Option<String>,
    /// Only tasks that match every word of this, case-insensitively, each in a name, the
    /// directory, the package, the runner or the description ([`searchable`]).
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
    searchable(task).any(|(_, text)| text.to_lowercase().contains(word))
}

/// The table of these rows, as if scanned at `/repo` (for tests of what reads a table).
#[cfg(test)]
pub(crate) fn table_of(tasks: Vec<Task>) -> Table {
    Table::from_scan(Scan {
        root: PathBuf::from("/repo"),
        tasks,
        diagnostics: Vec::new(),
        task_files: Vec::new(),
        manifests: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(tasks: Vec<Task>) -> Table {
        table_of(tasks)
    }

    fn make(name: &str, line: u32, script: &str) -> Task {
        let mut t = Task::new(
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

    /// A table large enough to be written on two threads reads the same as `serde_json`
    /// writes it in one piece: the blocks joined where they meet (an even and an odd number
    /// of blocks, the last one short), text that needs escaping, and the fields a row
    /// carries only sometimes. So does a small one, and one written from a thread of a pool of
    /// one thread, which must not wait for a block nobody will serialize.
    #[test]
    fn json_written_on_two_threads_is_serde_json_byte_for_byte() {
        for count in [
            3,
            PARALLEL_JSON_ROWS,
            PARALLEL_JSON_ROWS + JSON_BLOCK_ROWS + 7,
        ] {
            let tasks = (0..count)
                .map(|i| {
                    let mut t = make(&format!("t{i}"), u32::try_from(i).unwrap_or(0), "cc");
                    t.dir = format!("pkg/{}", i % 97);
                    if i % 3 == 0 {
                        t.description = Some(format!("quote \" back\\slash tab\t é {i} \u{1}"));
                    }
                    if i % 5 == 0 {
                        t.deps = vec![format!("t{}", i / 2)];
                        t.behaviour.interactive = true;
                    }
                    t
                })
                .collect();
            let mut table = table(tasks);
            table
                .diagnostics
                .push(Diagnostic::new("pkg/1/Makefile", Some(2), "bad \"line\""));
            let mut written = Vec::new();
            table.write_json(&mut written).expect("written");
            let expected = serde_json::to_vec(&table).expect("serialized");
            // From a thread of a pool of one, where waiting for another block would never end
            // (bounded here, so that a regression fails rather than hangs).
            let (done, finished) = std::sync::mpsc::channel();
            let writing = table.clone();
            std::thread::spawn(move || {
                let single = rayon::ThreadPoolBuilder::new()
                    .num_threads(1)
                    .build()
                    .expect("pool");
                let mut inside = Vec::new();
                let result = single.install(|| writing.write_json(&mut inside));
                let _ = done.send(result.map(|()| inside));
            });
            let inside = finished
                .recv_timeout(std::time::Duration::from_secs(30))
                .expect("written inside a pool of one thread, without waiting forever")
                .expect("written");
            assert!(inside == expected, "{count} rows differ inside the pool");
            assert_eq!(written.len(), expected.len(), "{count} rows");
            assert!(written == expected, "{count} rows differ");
            let parsed: serde_json::Value = serde_json::from_slice(&written).expect("valid JSON");
            assert_eq!(parsed["tasks"].as_array().map(Vec::len), Some(count));
        }
    }
}
