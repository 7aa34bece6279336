//! go-task Taskfiles (schema v3): the tasks of a root Taskfile and of every local Taskfile
//! it includes, named the way `task --list-all` names them (`docs:serve`, `lib:nested:x`).
//!
//! Each task runs as `task <name>` from the root Taskfile's directory. Included files are
//! reported as consumed; remote includes are not followed (one short diagnostic each).
//!
//! What go-task refuses is said at its line and makes tasks not runnable, with go-task's
//! own words as the reason: a command it cannot read or an include whose `checksum` does not
//! match stop it from loading the Taskfile at all (every task); a `method` other than
//! `checksum`, `timestamp` or `none` fails the tasks it applies to (the root Taskfile's
//! for every task without its own) and the tasks that depend on them.

mod include;
mod reads;
mod task;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use self::include::Include;
use self::task::{METHODS, TaskDef};
use crate::doc::{self, Dialect, Entry, Node, Terms, Value};
use crate::files::file_name;
use crate::files::{Files, join, parent, shared_parse};
use crate::model::Adapter;
use crate::model::Passing;
use crate::model::{Diagnostic, Param, Parsed, Runner, Source, Task};
use crate::reads::{Purpose, Reads};

/// The Taskfile adapter.
pub const ADAPTER: Adapter = Adapter {
    name: "taskfile",
    candidate,
    one_per_dir: true,
    admit: None,
    neighbours: None,
    parse,
};

/// The file names go-task looks for in a directory, in its order of precedence.
pub const FILE_NAMES: [&str; 8] = [
    "Taskfile.yml",
    "taskfile.yml",
    "Taskfile.yaml",
    "taskfile.yaml",
    "Taskfile.dist.yml",
    "taskfile.dist.yml",
    "Taskfile.dist.yaml",
    "taskfile.dist.yaml",
];

/// How deep includes may nest below the root Taskfile.
const MAX_DEPTH: usize = 16;
/// How many includes one root Taskfile may pull in, counting repeats: a diamond of includes
/// grows exponentially with depth, this keeps it linear.
const MAX_INCLUDES: usize = 256;
/// How many task entries the includes of one root Taskfile may add up to, counting repeats.
const MAX_TASKS: usize = 100_000;
/// How many alias names one included task may collect (namespace aliases times task aliases,
/// at every level).
const MAX_ALIASES: usize = 256;

fn candidate(path: &str) -> Option<u8> {
    let name = file_name(path);
    let rank = FILE_NAMES.iter().position(|n| *n == name)?;
    u8::try_from(rank).ok()
}

fn parse(src: &Source<'_>) -> Parsed {
    let root = match doc::read_yaml(src.text, Dialect::Strict) {
        Ok(node) => node,
        Err(err) => {
            let mut parsed = Parsed::default();
            err.prefixed("invalid YAML: ").report(src.path, &mut parsed);
            return parsed;
        }
    };
    let root_dir = parent(src.path).to_owned();
    let mut loader = Loader {
        files: src.files,
        root_dir: root_dir.clone(),
        cache: HashMap::new(),
        includes: 0,
        tasks_read: 0,
        capped: false,
        diagnostics: Vec::new(),
        consumed: Vec::new(),
        refusal: None,
        purpose: src.purpose,
    };
    let root_method = root.entry("method").and_then(|entry| {
        let method = entry.node.scalar().filter(|m| !m.is_empty())?;
        Some((method.to_owned(), src.path.to_owned(), entry.node.line))
    });
    if let Some((method, file, line)) = &root_method
        && !METHODS.contains(&method.as_str())
    {
        loader.diag(file, Some(*line), invalid_method(method));
    }
    let mut stack = vec![src.path.to_owned()];
    let found = loader.file_tasks(src.path, &root, &mut stack);

    let mut parsed = Parsed {
        consumed: std::mem::take(&mut loader.consumed),
        ..Parsed::default()
    };
    // Duplicates first: go-task refuses the Taskfile for one, so every task needs to know.
    let mut seen: HashMap<String, (String, u32)> = HashMap::new();
    let mut keep = Vec::with_capacity(found.len());
    for f in &found {
        if let Some((file, line)) = seen.get(&f.name) {
            let message = format!("task `{}` is also defined at {file}:{line}", f.name);
            loader.fatal(&f.file, Some(f.def.line), message);
            keep.push(false);
            continue;
        }
        seen.insert(f.name.clone(), (f.file.clone(), f.def.line));
        keep.push(true);
    }
    for (f, keep) in found.into_iter().zip(keep) {
        if !keep {
            continue;
        }
        let def = f.def;
        let mut raw = Task::new(
            Runner::GoTask,
            f.name.clone(),
            root_dir.clone(),
            f.file,
            vec!["task".to_owned(), f.name],
        );
        raw.line = Some(def.line);
        raw.description = def.description;
        raw.aliases = f.aliases;
        // A leading `:` names a root task from inside an included file.
        raw.deps = f
            .deps
            .into_iter()
            .map(|d| d.strip_prefix(':').map_or(d.clone(), str::to_owned))
            .collect();
        raw.script = def.script;
        raw.params = def.params;
        // `greet:*` runs as `task greet:bob`: each `*` is a parameter (go-task's `.MATCH`).
        let stars = raw.source_name.matches('*').count();
        for i in 1..=stars {
            let name = if stars == 1 {
                "MATCH".to_owned()
            } else {
                format!("MATCH{i}")
            };
            raw.params
                .insert(i - 1, Param::required(name).passed(Passing::Wildcard));
        }
        raw.env = def.env;
        raw.reads = f.reads.map(|(mut reads, _)| {
            for run in &mut reads.runs {
                if let Some(root) = run.strip_prefix(':') {
                    *run = root.to_owned();
                }
            }
            Box::new(reads)
        });
        raw.behaviour.confirm = def.prompt;
        raw.behaviour.interactive = def.interactive;
        raw.behaviour.not_runnable = loader.refusal.clone().or_else(|| {
            let (method, file, line) = match def.method {
                Some((method, line)) => (method, raw.file_path.clone(), line),
                None => root_method.clone()?,
            };
            (!METHODS.contains(&method.as_str()))
                .then(|| format!("go-task fails at {file}:{line}: invalid method \"{method}\""))
        });
        parsed.tasks.push(raw);
    }
    fail_dependents(&mut parsed.tasks);
    let mut reported = HashSet::new();
    parsed.diagnostics = loader
        .diagnostics
        .into_iter()
        .filter(|d| reported.insert((d.file_path.clone(), d.line, d.message.clone())))
        .collect();
    parsed
}

/// A task as seen from one Taskfile, its names relative to that file.
struct Found {
    /// The name relative to the Taskfile being assembled.
    name: String,
    /// Alias names, relative the same way.
    aliases: Vec<String>,
    /// `deps`, relative the same way (a leading `:` stays until the root).
    deps: Vec<String>,
    /// The file that defines it.
    file: String,
    /// Everything else, as the file wrote it.
    def: TaskDef,
    /// What it reads and the variable names its templates use, when read for a decision.
    reads: Option<(Reads, Vec<String>)>,
}

/// Reads the root Taskfile and follows its includes.
struct Loader<'a> {
    files: &'a dyn Files,
    root_dir: String,
    /// Included files already read, `None` when unreadable (reported once).
    cache: HashMap<String, Option<Arc<Node>>>,
    /// Includes followed so far, counting repeats.
    includes: usize,
    /// Task entries read so far, counting repeats.
    tasks_read: usize,
    /// Whether the include or task cap was hit (and reported).
    capped: bool,
    diagnostics: Vec<Diagnostic>,
    consumed: Vec<String>,
    /// Why go-task refuses to load the root Taskfile, when it does (the first reason found).
    refusal: Option<String>,
    /// Why the Taskfile is read: for a decision, each task says what it reads.
    purpose: Purpose,
}

/// A `method` go-task does not know, in its words, with the ones it does.
fn invalid_method(method: &str) -> String {
    format!(
        "invalid method \"{method}\": go-task accepts {}",
        METHODS.join(", ")
    )
}

/// Marks not runnable every task that depends, directly or not, on one go-task cannot run:
/// go-task runs the dependencies first and stops at the failure.
fn fail_dependents(tasks: &mut [Task]) {
    loop {
        let failing: HashMap<String, String> = tasks
            .iter()
            .filter_map(|t| Some((t.source_name.clone(), t.behaviour.not_runnable.clone()?)))
            .collect();
        let mut changed = false;
        for task in tasks
            .iter_mut()
            .filter(|t| t.behaviour.not_runnable.is_none())
        {
            if let Some((dep, why)) = task.deps.iter().find_map(|d| Some((d, failing.get(d)?))) {
                task.behaviour.not_runnable = Some(format!("its dependency `{dep}`: {why}"));
                changed = true;
            }
        }
        if !changed {
            return;
        }
    }
}

impl Loader<'_> {
    /// The listable tasks of the Taskfile at `path` (already parsed as `file`), its own
    /// first, then those of each include in order. `stack` holds the files being read.
    fn file_tasks(&mut self, path: &str, file: &Node, stack: &mut Vec<String>) -> Vec<Found> {
        if !file.is_table() {
            if !file.is_null() {
                let message = format!("a Taskfile is a mapping, not {}", file.kind_in(Terms::Yaml));
                self.diag(path, None, message);
            }
            return Vec::new();
        }
        self.check_version(path, file);
        if stack.len() > 1
            && let Some(entry) = file.entry("dotenv")
        {
            self.fatal(
                path,
                Some(entry.node.line),
                "included Taskfiles can't have `dotenv` (it belongs in the main Taskfile)",
            );
        }
        let mut found = Vec::new();

        if let Some(node) = file.get("tasks") {
            match &node.value {
                Value::Null => {}
                Value::Table(entries) => {
                    found = self.own_tasks(path, entries);
                    let root = stack.len() == 1;
                    for f in &mut found {
                        if let Some((reads, names)) = &mut f.reads {
                            reads::file_reads(reads, path, file, names, self.files, root);
                        }
                    }
                }
                _ => {
                    let message = format!(
                        "`tasks` should be a mapping, not {}",
                        node.kind_in(Terms::Yaml)
                    );
                    self.diag(path, Some(node.line), message);
                }
            }
        }

        if let Some(node) = file.get("includes") {
            match &node.value {
                Value::Null => {}
                Value::Table(entries) => {
                    let vars = include::static_vars(file);
                    let root = stack.len() == 1;
                    for entry in entries {
                        let mut inner = self.included_tasks(path, entry, &vars, stack);
                        for f in &mut inner {
                            if let Some((reads, names)) = &mut f.reads {
                                names.extend(reads::include_reads(reads, path, entry));
                                reads::file_reads(reads, path, file, names, self.files, root);
                            }
                        }
                        found.extend(inner);
                    }
                }
                _ => {
                    let message = format!(
                        "`includes` should be a mapping, not {}",
                        node.kind_in(Terms::Yaml)
                    );
                    self.diag(path, Some(node.line), message);
                }
            }
        }
        found
    }

    /// The tasks a file defines itself, minus the internal ones.
    fn own_tasks(&mut self, path: &str, entries: &[Entry]) -> Vec<Found> {
        let mut defs: Vec<Option<TaskDef>> = Vec::with_capacity(entries.len());
        let mut reads: Vec<Option<(Reads, Vec<String>)>> = Vec::with_capacity(entries.len());
        let mut index: HashMap<String, usize> = HashMap::with_capacity(entries.len());
        for entry in entries {
            let def = task::read(path, entry, &mut self.diagnostics);
            if let Some((line, why)) = &def.refusal {
                self.refuse(path, *line, why);
            }
            if let Some((method, line)) = &def.method
                && !METHODS.contains(&method.as_str())
            {
                self.diag(path, Some(*line), invalid_method(method));
            }
            // yaml.v3 lets the later of two equal keys win, and so does go-task.
            if let Some(i) = index.insert(def.name.clone(), defs.len())
                && let Some(earlier) = defs.get_mut(i).and_then(Option::take)
            {
                let message = format!(
                    "task `{}` is defined again (before on line {}); the later one wins",
                    def.name, earlier.line
                );
                self.diag(path, Some(def.line), message);
            }
            defs.push(Some(def));
            reads.push((self.purpose == Purpose::Decide).then(|| reads::task_reads(entry)));
        }
        self.tasks_read += defs.len();
        defs.into_iter()
            .zip(reads)
            .filter_map(|(def, reads)| Some((def?, reads)))
            .filter(|(d, _)| !d.internal)
            .map(|(def, reads)| Found {
                name: def.name.clone(),
                aliases: def.aliases.clone(),
                deps: def.deps.clone(),
                file: path.to_owned(),
                def,
                reads,
            })
            .collect()
    }

    /// The tasks one `includes:` entry brings in, named as the including file sees them.
    fn included_tasks(
        &mut self,
        path: &str,
        entry: &Entry,
        vars: &HashMap<String, String>,
        stack: &mut Vec<String>,
    ) -> Vec<Found> {
        let ns = &entry.key;
        let Some((target, inc)) = self.resolve(path, ns, entry.node.line, &entry.node, vars) else {
            return Vec::new();
        };
        if stack.contains(&target) {
            let message = format!("include cycle: {} -> {target}", stack.join(" -> "));
            self.fatal(path, Some(entry.node.line), message);
            return Vec::new();
        }
        if stack.len() > MAX_DEPTH {
            let message = format!("includes nest deeper than {MAX_DEPTH} levels; `{ns}` not read");
            self.diag(path, Some(entry.node.line), message);
            return Vec::new();
        }
        if self.includes >= MAX_INCLUDES || self.tasks_read >= MAX_TASKS {
            // Said once: every later include would only repeat it.
            if !self.capped {
                self.capped = true;
                let message = format!(
                    "more than {MAX_INCLUDES} includes or {MAX_TASKS} included tasks; `{ns}` and later includes not read"
                );
                self.diag(path, Some(entry.node.line), message);
            }
            return Vec::new();
        }
        self.includes += 1;
        let Some(node) = self.load(&target) else {
            return Vec::new();
        };
        if let Some((want, line)) = &inc.checksum {
            let got = self
                .files
                .read(&target)
                .map(|text| sha256_hex(text.as_bytes()))
                .unwrap_or_default();
            if got != *want {
                let why = format!(
                    "the checksum of the Taskfile at \"{target}\" does not match: got \"{got}\", want \"{want}\""
                );
                self.refuse(path, *line, &why);
            }
        }
        stack.push(target.clone());
        let inner = self.file_tasks(&target, &node, stack);
        stack.pop();
        if inc.internal {
            return Vec::new();
        }
        inner
            .into_iter()
            .filter(|f| {
                !inc.excludes
                    .iter()
                    .any(|pattern| glob_match(pattern, &f.name))
            })
            .map(|f| namespaced(f, ns, &inc))
            .collect()
    }

    /// Turns one `includes:` entry into the Taskfile it names, or reports why it can't.
    fn resolve(
        &mut self,
        path: &str,
        ns: &str,
        line: u32,
        value: &Node,
        vars: &HashMap<String, String>,
    ) -> Option<(String, Include)> {
        let inc = match include::read(value) {
            Ok(inc) => inc,
            Err(why) => {
                self.diag(path, Some(line), format!("include `{ns}` {why}"));
                return None;
            }
        };
        if include::is_remote(&inc.taskfile) {
            self.diag(
                path,
                Some(line),
                format!(
                    "remote include `{ns}` ({}) is not followed; its tasks are not listed",
                    inc.taskfile
                ),
            );
            return None;
        }
        let dir = parent(path);
        let rel = match include::expand(&inc.taskfile, vars, dir, &self.root_dir) {
            Ok(rel) => rel,
            Err(template) => {
                self.diag(
                    path,
                    Some(line),
                    format!("include `{ns}`: cannot resolve `{template}` in its path without running go-task"),
                );
                return None;
            }
        };
        let Some(joined) = join(dir, &rel) else {
            self.diag(
                path,
                Some(line),
                format!("include `{ns}` points outside the repository"),
            );
            return None;
        };
        match self.locate(&joined) {
            Some(target) => Some((target, inc)),
            None if inc.optional => None,
            None => {
                self.fatal(
                    path,
                    Some(line),
                    format!("include `{ns}`: no Taskfile at {joined}"),
                );
                None
            }
        }
    }

    /// The Taskfile a path names: the file itself, or the first Taskfile name in that
    /// directory, the way go-task resolves a directory include.
    fn locate(&self, path: &str) -> Option<String> {
        if path != "." && self.files.exists(path) {
            return Some(path.to_owned());
        }
        FILE_NAMES
            .iter()
            .map(|name| join(path, name).unwrap_or_default())
            .find(|p| self.files.exists(p))
    }

    /// Reads and parses an included file once, whatever the number of includes naming it.
    fn load(&mut self, path: &str) -> Option<Arc<Node>> {
        if let Some(cached) = self.cache.get(path) {
            return cached.clone();
        }
        self.consumed.push(path.to_owned());
        let node = match self.files.read(path) {
            // Many Taskfiles include the same file: parsed once for all of them.
            Ok(text) => match &*shared_parse(self.files, path, &text, || {
                doc::read_yaml(&text, Dialect::Strict).map(Arc::new)
            }) {
                Ok(node) => Some(Arc::clone(node)),
                Err(err) => {
                    self.fatal(path, err.line, format!("invalid YAML: {}", err.message));
                    None
                }
            },
            Err(why) => {
                self.diag(path, None, format!("cannot read included Taskfile: {why}"));
                None
            }
        };
        self.cache.insert(path.to_owned(), node.clone());
        node
    }

    /// go-task 3 refuses a Taskfile without `version` or with a version below 3; the
    /// tasks are still listed, not runnable, with a diagnostic saying why `task` fails.
    fn check_version(&mut self, path: &str, file: &Node) {
        match file.entry("version") {
            None => self.fatal(
                path,
                None,
                "no `version: '3'` (go-task needs a schema version)",
            ),
            Some(entry) => {
                let major = entry
                    .node
                    .scalar()
                    .and_then(|v| v.trim().split('.').next()?.parse::<u32>().ok());
                match major {
                    Some(major @ 0..=2) => self.fatal(
                        path,
                        Some(entry.node.line),
                        format!("schema version {major} is no longer supported by go-task 3"),
                    ),
                    Some(major @ 4..) => self.fatal(
                        path,
                        Some(entry.node.line),
                        format!("schema version {major} is newer than go-task 3 reads"),
                    ),
                    _ => {}
                }
            }
        }
    }

    /// Records what makes go-task refuse the whole Taskfile: a diagnostic at its line and,
    /// the first time, the reason no task runs.
    fn refuse(&mut self, path: &str, line: u32, why: &str) {
        self.diag(
            path,
            Some(line),
            format!("go-task refuses the Taskfile: {why}"),
        );
        if self.refusal.is_none() {
            self.refusal = Some(format!(
                "go-task refuses the Taskfile at {path}:{line}: {why}"
            ));
        }
    }

    /// A problem for which go-task refuses the whole Taskfile, said as it is: a diagnostic,
    /// and the first time, the reason no task runs.
    fn fatal(&mut self, path: &str, line: Option<u32>, message: impl Into<String>) {
        let message = message.into();
        if self.refusal.is_none() {
            let at = line.map_or_else(|| path.to_owned(), |l| format!("{path}:{l}"));
            self.refusal = Some(format!("go-task refuses the Taskfile at {at}: {message}"));
        }
        self.diag(path, line, message);
    }

    fn diag(&mut self, path: &str, line: Option<u32>, message: impl Into<String>) {
        self.diagnostics.push(Diagnostic::new(path, line, message));
    }
}

/// The SHA-256 of `bytes` as lowercase hex, the form go-task compares `checksum` with.
fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    use std::fmt::Write as _;
    let mut hex = String::with_capacity(64);
    for byte in &sha2::Sha256::digest(bytes) {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

/// Whether `name` matches an `excludes` entry: a name, or a pattern where `*` stands for
/// any run of characters (`docs:*`), as go-task matches them.
fn glob_match(pattern: &str, name: &str) -> bool {
    let Some((first, rest)) = pattern.split_once('*') else {
        return pattern == name;
    };
    let Some(mut tail) = name.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = rest.split('*').collect();
    let Some((last, middle)) = parts.split_last() else {
        return true;
    };
    for part in middle {
        match tail.find(part) {
            Some(i) => tail = &tail[i + part.len()..],
            None => return false,
        }
    }
    tail.len() >= last.len() && tail.ends_with(last)
}

/// Renames a task of an included file into the including file's names: `ns:name`, plus one
/// alias for every other combination of namespace alias and task alias, in go-task's order.
fn namespaced(f: Found, ns: &str, inc: &Include) -> Found {
    if inc.flatten {
        return f;
    }
    let prefixes: Vec<&str> = std::iter::once(ns)
        .chain(inc.aliases.iter().map(String::as_str))
        .collect();
    let names: Vec<&str> = std::iter::once(f.name.as_str())
        .chain(f.aliases.iter().map(String::as_str))
        .collect();
    let name = format!("{ns}:{}", f.name);
    let mut aliases: Vec<String> = prefixes
        .iter()
        .flat_map(|prefix| names.iter().map(move |alias| format!("{prefix}:{alias}")))
        .take(MAX_ALIASES)
        .collect();
    // `task docs` runs `docs:default`.
    if f.name == "default" {
        aliases.extend(prefixes.iter().map(|p| (*p).to_owned()));
        aliases.truncate(MAX_ALIASES);
    }
    let mut seen = HashSet::from([name.clone()]);
    aliases.retain(|n| seen.insert(n.clone()));
    let within = |d: String| {
        if d.starts_with(':') {
            d
        } else {
            format!("{ns}:{d}")
        }
    };
    let deps = f.deps.into_iter().map(within).collect();
    let reads = f.reads.map(|(mut reads, names)| {
        reads.runs = std::mem::take(&mut reads.runs)
            .into_iter()
            .map(within)
            .collect();
        (reads, names)
    });
    Found {
        name,
        aliases,
        deps,
        file: f.file,
        def: f.def,
        reads,
    }
}

#[cfg(test)]
mod tests;
