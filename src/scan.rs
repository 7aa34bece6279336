//! The repository scan: one walk that respects `.gitignore` (parallel once the tree is
//! large), then every candidate task file handed to its adapter from the `agg-runners`
//! registry.
//!
//! The walk includes hidden files (so `.cargo/` and `.justfile` are seen) but never enters
//! `.git` or `node_modules`. Files pulled in by another file (Make `include`, just `mod`,
//! Taskfile `includes`) are listed only through the file that pulls them in.
//!
//! [`Index`] keeps what the scan found so a file watcher can update it cheaply: a changed
//! task file is parsed again on its own, a directory is walked again only when something
//! appears in it, and a change to any other file costs nothing.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use agg_runners::{ADAPTERS, Adapter, Diagnostic, Parsed, RawTask, Runner, Source, parent};
use ignore::{WalkBuilder, WalkState};
use rayon::prelude::*;

use crate::naming::canonical_order;
use crate::repo_files::{RepoFiles, abs_path};

/// Directories never entered, whatever the ignore files say.
const NEVER_ENTER: &[&str] = &[".git", "node_modules"];

/// Files whose appearance changes which package manager runs the scripts below them.
const PACKAGE_MANAGER_MARKERS: &[&str] = &[
    "package.json",
    "bun.lock",
    "bun.lockb",
    "pnpm-lock.yaml",
    "pnpm-workspace.yaml",
    "yarn.lock",
    "package-lock.json",
    "npm-shrinkwrap.json",
];

/// What one scan of a repository found.
#[derive(Debug)]
pub struct Scan {
    /// The absolute, canonical root.
    pub root: PathBuf,
    /// Every task, before naming.
    pub tasks: Vec<RawTask>,
    /// Every problem found, sorted by file and line.
    pub diagnostics: Vec<Diagnostic>,
    /// The task files that were parsed (root-relative), including pulled-in ones.
    pub task_files: Vec<String>,
}

/// Scans the tree under `root`.
pub fn scan(root: &Path) -> Scan {
    Index::build(root).into_snapshot()
}

/// Tells whether `rel` (root-relative) is a file some adapter reads, and which.
pub fn candidate_of(rel: &str) -> Option<(usize, u8)> {
    ADAPTERS
        .iter()
        .enumerate()
        .find_map(|(i, a)| (a.candidate)(rel).map(|rank| (i, rank)))
}

/// Candidate files of one adapter in one directory, by path, with their rank.
type Group = BTreeMap<String, u8>;

/// What the scan knows about a repository, kept up to date by [`Index::apply`].
#[derive(Debug)]
pub struct Index {
    root: PathBuf,
    /// Every candidate task file the walk saw, by (adapter, directory).
    candidates: BTreeMap<(usize, String), Group>,
    /// The parse result of every chosen candidate.
    parsed: BTreeMap<String, Parsed>,
    /// Directories the walk entered.
    dirs: BTreeSet<String>,
    /// Problems of the walk itself (unreadable directories, loops).
    walk_diagnostics: Vec<Diagnostic>,
}

impl Index {
    /// Walks and parses the whole tree.
    pub fn build(root: &Path) -> Index {
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let mut index = Index {
            root,
            candidates: BTreeMap::new(),
            parsed: BTreeMap::new(),
            dirs: BTreeSet::new(),
            walk_diagnostics: Vec::new(),
        };
        let walked = walk(&index.root, &index.root);
        index.walk_diagnostics = walked.diagnostics;
        index.dirs = walked.dirs;
        for (adapter, rank, rel) in walked.candidates {
            index.add_candidate(adapter, rank, rel);
        }
        let chosen: Vec<(usize, String)> = index.chosen().collect();
        index.parse(&chosen);
        index
    }

    /// The absolute root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The directories the walk entered, root-relative (`.` for the root).
    pub fn dirs(&self) -> &BTreeSet<String> {
        &self.dirs
    }

    /// Every task file read, root-relative, including those pulled in by another.
    pub fn files(&self) -> impl Iterator<Item = &str> {
        self.parsed.iter().flat_map(|(rel, parsed)| {
            std::iter::once(rel.as_str()).chain(parsed.consumed.iter().map(String::as_str))
        })
    }

    /// The absolute path of a root-relative one.
    pub fn abs(&self, rel: &str) -> PathBuf {
        abs_path(&self.root, rel)
    }

    /// The tasks and diagnostics as they stand.
    pub fn snapshot(&self) -> Scan {
        let (listed, task_files) = listed(&self.parsed);
        let mut tasks = Vec::new();
        let mut diagnostics = self.walk_diagnostics.clone();
        for rel in listed {
            if let Some(parsed) = self.parsed.get(rel) {
                tasks.extend(parsed.tasks.iter().cloned());
                diagnostics.extend(parsed.diagnostics.iter().cloned());
            }
        }
        self.finish(tasks, diagnostics, task_files)
    }

    /// The tasks and diagnostics, without copying them (for a one-off scan).
    pub fn into_snapshot(mut self) -> Scan {
        let (listed, task_files) = listed(&self.parsed);
        let listed: Vec<String> = listed.into_iter().map(str::to_owned).collect();
        let count = listed
            .iter()
            .filter_map(|rel| self.parsed.get(rel))
            .map(|p| p.tasks.len())
            .sum();
        let mut tasks = Vec::with_capacity(count);
        let mut diagnostics = std::mem::take(&mut self.walk_diagnostics);
        for rel in listed {
            if let Some(parsed) = self.parsed.remove(&rel) {
                tasks.extend(parsed.tasks);
                diagnostics.extend(parsed.diagnostics);
            }
        }
        self.finish(tasks, diagnostics, task_files)
    }

    fn finish(
        &self,
        tasks: Vec<RawTask>,
        mut diagnostics: Vec<Diagnostic>,
        task_files: Vec<String>,
    ) -> Scan {
        diagnostics.sort_by(|a, b| (&a.file_path, a.line).cmp(&(&b.file_path, b.line)));
        diagnostics.dedup();
        Scan {
            root: self.root.clone(),
            tasks,
            diagnostics,
            task_files,
        }
    }

    /// Takes changed paths (absolute, as a file watcher reports them) into account.
    /// Returns whether any task file was parsed again, appeared or disappeared.
    pub fn apply(&mut self, changed: &[PathBuf]) -> bool {
        let mut dirty_groups: BTreeSet<(usize, String)> = BTreeSet::new();
        let mut reparse: BTreeSet<String> = BTreeSet::new();
        let mut changed_rels: HashSet<String> = HashSet::new();
        let mut marker_dirs: BTreeSet<String> = BTreeSet::new();
        let mut python_dirs: BTreeSet<String> = BTreeSet::new();
        let mut touched = false;
        for path in changed {
            let Some(rel) = self.relative(path) else {
                continue;
            };
            if rel.split('/').any(|part| NEVER_ENTER.contains(&part)) {
                continue;
            }
            let name = rel.rsplit('/').next().unwrap_or(&rel);
            if name == ".gitignore" || name == ".ignore" {
                // What the walk may enter changed: start over (rare).
                *self = Index::build(&self.root.clone());
                return true;
            }
            let meta = std::fs::symlink_metadata(path).ok();
            let dir = parent(&rel).to_owned();
            if meta.as_ref().is_some_and(std::fs::Metadata::is_dir) {
                if !self.dirs.contains(&rel) && self.dirs.contains(&dir) {
                    touched |= self.walk_new_dir(path, &mut dirty_groups);
                }
                continue;
            }
            if meta.is_none() && self.dirs.contains(&rel) {
                touched |= self.forget_dir(&rel, &mut dirty_groups);
                continue;
            }
            if let Some((adapter, rank)) = candidate_of(&rel)
                && self.dirs.contains(&dir)
            {
                let group = (adapter, dir.clone());
                if meta.is_some() {
                    self.add_candidate(adapter, rank, rel.clone());
                } else {
                    if let Some(g) = self.candidates.get_mut(&group) {
                        g.remove(&rel);
                    }
                    touched |= self.parsed.remove(&rel).is_some();
                }
                dirty_groups.insert(group);
            }
            if agg_runners::python::MARKERS.contains(&name) {
                python_dirs.insert(dir.clone());
            }
            if PACKAGE_MANAGER_MARKERS.contains(&name) {
                marker_dirs.insert(dir);
            }
            changed_rels.insert(rel);
        }
        // Files that pull in a changed file, and packages below a changed lockfile or
        // package.json: one pass over the parsed files, however many paths changed (a branch
        // switch changes thousands).
        for (file, parsed) in &self.parsed {
            let pulls_in_changed = parsed.consumed.iter().any(|c| changed_rels.contains(c));
            let below_marker = file.ends_with("package.json")
                && !marker_dirs.is_empty()
                && std::iter::successors(Some(parent(file)), |d| (*d != ".").then(|| parent(d)))
                    .any(|d| marker_dirs.contains(d));
            let below_python_marker = !python_dirs.is_empty()
                && agg_runners::python::reads_neighbours(file)
                && std::iter::successors(Some(parent(file)), |d| (*d != ".").then(|| parent(d)))
                    .any(|d| python_dirs.contains(d));
            if pulls_in_changed || below_marker || below_python_marker {
                reparse.insert(file.clone());
            }
        }
        for group in &dirty_groups {
            let members: Vec<String> = self
                .candidates
                .get(group)
                .map(|g| g.keys().cloned().collect())
                .unwrap_or_default();
            // Every candidate of the group was possibly the chosen one; drop them all and
            // parse whichever is best now.
            for m in &members {
                touched |= self.parsed.remove(m).is_some();
            }
            if let Some(rel) = self.best(group) {
                reparse.insert(rel);
            }
            if members.is_empty() {
                self.candidates.remove(group);
            }
        }
        let jobs: Vec<(usize, String)> = reparse
            .into_iter()
            .filter_map(|rel| candidate_of(&rel).map(|(a, _)| (a, rel)))
            .collect();
        touched |= !jobs.is_empty();
        self.parse(&jobs);
        touched
    }

    fn relative(&self, path: &Path) -> Option<String> {
        let rel = relative(&self.root, path)?.to_str()?;
        Some(if rel.is_empty() {
            ".".to_owned()
        } else {
            rel.to_owned()
        })
    }

    fn add_candidate(&mut self, adapter: usize, rank: u8, rel: String) {
        let dir = parent(&rel).to_owned();
        self.candidates
            .entry((adapter, dir))
            .or_default()
            .insert(rel, rank);
    }

    fn best(&self, group: &(usize, String)) -> Option<String> {
        let members = self.candidates.get(group)?;
        members
            .iter()
            .min_by(|a, b| (a.1, a.0).cmp(&(b.1, b.0)))
            .map(|(rel, _)| rel.clone())
    }

    /// The file each group parses: the best-ranked one for adapters that read one file per
    /// directory, every one for the others.
    fn chosen(&self) -> impl Iterator<Item = (usize, String)> + '_ {
        self.candidates.iter().flat_map(move |(group, members)| {
            let adapter: &Adapter = &ADAPTERS[group.0];
            let picked: Vec<String> = if adapter.one_per_dir {
                self.best(group).into_iter().collect()
            } else {
                members.keys().cloned().collect()
            };
            picked.into_iter().map(move |rel| (group.0, rel))
        })
    }

    fn parse(&mut self, jobs: &[(usize, String)]) {
        let files = RepoFiles::new(&self.root);
        let one = |(adapter, rel): &(usize, String)| {
            (rel.clone(), parse_file(&ADAPTERS[*adapter], rel, &files))
        };
        // A handful of files is parsed faster than a thread pool starts.
        let results: Vec<(String, Parsed)> = if jobs.len() <= 8 {
            jobs.iter().map(one).collect()
        } else {
            jobs.par_iter().map(one).collect()
        };
        self.parsed.extend(results);
    }

    fn walk_new_dir(&mut self, abs: &Path, dirty: &mut BTreeSet<(usize, String)>) -> bool {
        let walked = walk(&self.root, abs);
        self.dirs.extend(walked.dirs);
        self.walk_diagnostics.extend(walked.diagnostics);
        let any = !walked.candidates.is_empty();
        for (adapter, rank, rel) in walked.candidates {
            dirty.insert((adapter, parent(&rel).to_owned()));
            self.add_candidate(adapter, rank, rel);
        }
        any
    }

    fn forget_dir(&mut self, rel: &str, dirty: &mut BTreeSet<(usize, String)>) -> bool {
        let prefix = format!("{rel}/");
        let under = |p: &str| p == rel || p.starts_with(&prefix);
        self.dirs.retain(|d| !under(d));
        let before = self.parsed.len();
        self.parsed.retain(|p, _| !under(p));
        let gone: Vec<(usize, String)> = self
            .candidates
            .keys()
            .filter(|(_, d)| under(d))
            .cloned()
            .collect();
        for g in gone {
            self.candidates.remove(&g);
            dirty.remove(&g);
        }
        self.walk_diagnostics.retain(|d| !under(&d.file_path));
        before != self.parsed.len()
    }
}

struct Walked {
    candidates: Vec<(usize, u8, String)>,
    dirs: BTreeSet<String>,
    diagnostics: Vec<Diagnostic>,
}

/// Entries one thread walks before the walk is handed to the parallel walker instead.
///
/// A thread pool costs about a millisecond to start and wind down (its idle workers poll
/// every millisecond), which is most of the time a small tree takes on its own; a large tree
/// is walked several times faster in parallel. Walking this many entries first wastes a few
/// milliseconds on a large tree and saves one on every small one.
const SERIAL_WALK_BUDGET: usize = 1_000;

/// Walks `start` (the root or a directory under it) and collects candidate task files.
fn walk(root: &Path, start: &Path) -> Walked {
    walk_serial(root, start, SERIAL_WALK_BUDGET).unwrap_or_else(|| walk_parallel(root, start))
}

/// The walk's settings: ignore files respected (even outside a git repository), hidden
/// files seen, links not followed, `.git` and `node_modules` never entered.
fn walk_builder(start: &Path) -> WalkBuilder {
    let mut builder = WalkBuilder::new(start);
    builder
        .hidden(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(true)
        .ignore(true)
        .parents(true)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|e| {
            !(e.file_type().is_some_and(|t| t.is_dir())
                && NEVER_ENTER.iter().any(|n| e.file_name() == *n))
        });
    builder
}

/// The walk on this thread, or `None` once it has seen more than `budget` entries.
fn walk_serial(root: &Path, start: &Path, budget: usize) -> Option<Walked> {
    let found = Mutex::new(Vec::new());
    let dirs = Mutex::new(BTreeSet::new());
    let diags = Mutex::new(Vec::new());
    for (seen, entry) in walk_builder(start).build().enumerate() {
        if seen >= budget {
            return None;
        }
        record(root, entry, &found, &dirs, &diags);
    }
    Some(Walked {
        candidates: found.into_inner().unwrap_or_default(),
        dirs: dirs.into_inner().unwrap_or_default(),
        diagnostics: diags.into_inner().unwrap_or_default(),
    })
}

fn walk_parallel(root: &Path, start: &Path) -> Walked {
    let found = Mutex::new(Vec::new());
    let dirs = Mutex::new(BTreeSet::new());
    let diags = Mutex::new(Vec::new());
    walk_builder(start).build_parallel().run(|| {
        let (found, dirs, diags) = (&found, &dirs, &diags);
        Box::new(move |entry| {
            record(root, entry, found, dirs, diags);
            WalkState::Continue
        })
    });
    Walked {
        candidates: found.into_inner().unwrap_or_default(),
        dirs: dirs.into_inner().unwrap_or_default(),
        diagnostics: diags.into_inner().unwrap_or_default(),
    }
}

/// Takes one entry of the walk into account.
fn record(
    root: &Path,
    entry: Result<ignore::DirEntry, ignore::Error>,
    found: &Mutex<Vec<(usize, u8, String)>>,
    dirs: &Mutex<BTreeSet<String>>,
    diags: &Mutex<Vec<Diagnostic>>,
) {
    match entry {
        Ok(entry) => {
            let Some(rel) = relative(root, entry.path()) else {
                return;
            };
            if entry.file_type().is_some_and(|t| t.is_dir()) {
                let rel = rel.to_string_lossy();
                let rel = if rel.is_empty() {
                    ".".to_owned()
                } else {
                    rel.into_owned()
                };
                push_set(dirs, rel);
            } else {
                visit(rel, found, diags);
            }
        }
        Err(err) => push(diags, walk_error(root, &err)),
    }
}

/// `path` relative to `root`. Every path the walker yields was joined onto the root, so a
/// string prefix test does, much faster, what `Path::strip_prefix` does component-wise.
fn relative<'p>(root: &Path, path: &'p Path) -> Option<&'p Path> {
    if let (Some(root), Some(path)) = (root.to_str(), path.to_str())
        && let Some(rest) = path.strip_prefix(root)
    {
        let rest = if root.ends_with('/') {
            Some(rest)
        } else if rest.is_empty() {
            Some("")
        } else {
            rest.strip_prefix('/')
        };
        if let Some(rest) = rest {
            return Some(Path::new(rest));
        }
    }
    path.strip_prefix(root).ok()
}

fn visit(rel: &Path, found: &Mutex<Vec<(usize, u8, String)>>, diags: &Mutex<Vec<Diagnostic>>) {
    if let Some(rel) = rel.to_str() {
        if let Some((adapter, rank)) = candidate_of(rel) {
            push(found, (adapter, rank, rel.to_owned()));
        }
    } else {
        let lossy = rel.to_string_lossy();
        if candidate_of(&lossy).is_some() {
            push(
                diags,
                Diagnostic::new(
                    lossy.into_owned(),
                    None,
                    "path is not valid UTF-8; its tasks are skipped",
                ),
            );
        }
    }
}

fn push<T>(list: &Mutex<Vec<T>>, item: T) {
    if let Ok(mut list) = list.lock() {
        list.push(item);
    }
}

fn push_set(set: &Mutex<BTreeSet<String>>, item: String) {
    if let Ok(mut set) = set.lock() {
        set.insert(item);
    }
}

fn walk_error(root: &Path, err: &ignore::Error) -> Diagnostic {
    let mut path = None;
    let mut cur = err;
    let message;
    loop {
        match cur {
            ignore::Error::WithPath { path: p, err } => {
                path.get_or_insert_with(|| p.clone());
                cur = err;
            }
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
                cur = err;
            }
            ignore::Error::Loop { child, .. } => {
                path.get_or_insert_with(|| child.clone());
                message = "symlink loop; not followed".to_owned();
                break;
            }
            ignore::Error::Io(io) => {
                message = crate::repo_files::io_reason(io);
                break;
            }
            other => {
                message = other.to_string();
                break;
            }
        }
    }
    let file = path.map_or_else(
        || ".".to_owned(),
        |p| {
            p.strip_prefix(root)
                .unwrap_or(&p)
                .to_string_lossy()
                .into_owned()
        },
    );
    Diagnostic::new(file, None, format!("skipped: {message}"))
}

fn parse_file(adapter: &Adapter, rel: &str, files: &RepoFiles) -> Parsed {
    let mut parsed = Parsed::default();
    let text = match files.read_task_file(rel) {
        Ok(text) => text,
        Err(reason) => {
            parsed.diag(rel, None, reason);
            return parsed;
        }
    };
    if let Some(line) = text.invalid_utf8_line {
        parsed.diag(
            rel,
            Some(line),
            "invalid UTF-8; undecodable bytes were replaced",
        );
    }
    let source = Source {
        path: rel,
        text: &text.text,
        files,
    };
    // Adapters are fuzzed not to panic; should one still do so, one file's diagnostic is
    // better than losing every other file's tasks.
    if let Ok(mut found) = catch_unwind(AssertUnwindSafe(|| (adapter.parse)(&source))) {
        found.diagnostics.splice(0..0, parsed.diagnostics);
        // In table order already, here on the pool, so that sorting the whole table later
        // finds it (nearly) sorted and moves nothing.
        found.tasks.sort_by(canonical_order);
        found
    } else {
        parsed.diag(
            rel,
            None,
            format!("internal error while reading this {} file", adapter.name),
        );
        parsed
    }
}

/// The parsed files whose tasks are listed, in listing order, and every task file read
/// (root-relative, sorted).
///
/// Drops the results of files that another file pulled in. Files nobody pulls in are kept,
/// and so everything they pull in is dropped; files caught only in an include cycle keep the
/// shallowest side.
fn listed(parsed: &BTreeMap<String, Parsed>) -> (Vec<&str>, Vec<String>) {
    let mut results: Vec<(&str, &Parsed)> = parsed.iter().map(|(k, v)| (k.as_str(), v)).collect();
    results.sort_by(|(a, _), (b, _)| (a.matches('/').count(), a).cmp(&(b.matches('/').count(), b)));
    let pulled_in: HashSet<&str> = results
        .iter()
        .flat_map(|(_, p)| p.consumed.iter().map(String::as_str))
        .collect();
    let mut dropped: HashSet<&str> = results
        .iter()
        .filter(|(rel, _)| !pulled_in.contains(rel))
        .flat_map(|(_, p)| p.consumed.iter().map(String::as_str))
        .collect();
    let mut listed = Vec::new();
    let mut task_files = Vec::new();
    for (rel, parsed) in results {
        if dropped.contains(rel) {
            continue;
        }
        listed.push((rel, parsed));
        task_files.push(rel.to_owned());
        for c in &parsed.consumed {
            task_files.push(c.clone());
            dropped.insert(c);
        }
    }
    task_files.sort();
    task_files.dedup();
    // The table's own order at file granularity (see `naming::canonical_order`), so that
    // the tasks are usually in order already when the table sorts them.
    listed.sort_by(|a, b| file_order(a).cmp(&file_order(b)));
    (listed.into_iter().map(|(rel, _)| rel).collect(), task_files)
}

/// Where a file's tasks go in the table: by their directory, then runner, then file.
fn file_order<'a>(
    (rel, parsed): &(&'a str, &'a Parsed),
) -> (bool, &'a str, Option<Runner>, &'a str) {
    let first = parsed.tasks.first();
    let dir = first.map_or_else(|| parent(rel), |t| t.dir.as_str());
    (dir != ".", dir, first.map(|t| t.runner), rel)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a walk found, in a comparable order.
    fn found(walked: Walked) -> (Vec<(usize, u8, String)>, BTreeSet<String>, usize) {
        let mut candidates = walked.candidates;
        candidates.sort();
        (candidates, walked.dirs, walked.diagnostics.len())
    }

    #[test]
    fn a_large_tree_is_walked_in_parallel_with_the_same_result() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let write = |rel: &str, text: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(".gitignore", "dist/\n");
        write("Makefile", "all:\n");
        for pkg in 0..60 {
            write(&format!("pkgs/p{pkg}/package.json"), "{}");
            write(&format!("pkgs/p{pkg}/dist/Makefile"), "ignored:\n");
            write(
                &format!("pkgs/p{pkg}/node_modules/x/justfile"),
                "ignored:\n",
            );
            for file in 0..20 {
                write(&format!("pkgs/p{pkg}/src/f{file}.rs"), "");
            }
        }
        let serial = walk_serial(root, root, usize::MAX).expect("no budget");
        assert!(
            walk_serial(root, root, SERIAL_WALK_BUDGET).is_none(),
            "over budget"
        );
        let serial = found(serial);
        assert_eq!(serial, found(walk_parallel(root, root)));
        assert_eq!(serial, found(walk(root, root)));
        let (candidates, dirs, diagnostics) = serial;
        assert_eq!(candidates.len(), 61, "{candidates:?}");
        assert!(candidates.iter().all(|(_, _, p)| !p.contains("dist/")));
        assert!(dirs.contains("pkgs/p7/src") && !dirs.iter().any(|d| d.contains("node_modules")));
        assert_eq!(diagnostics, 0);
    }

    /// What the index lists, sorted, to compare with a fresh scan.
    fn listed_tasks(index: &Index) -> Vec<(String, String, Runner)> {
        let mut tasks: Vec<_> = index
            .snapshot()
            .tasks
            .into_iter()
            .map(|t| (t.dir, t.source_name, t.runner))
            .collect();
        tasks.sort();
        tasks
    }

    /// Incremental updates give what a fresh scan gives: an edited include reaches its
    /// includer, a new lockfile changes the package manager of the packages below it (and the
    /// runner of a Python project's console scripts), and a
    /// large batch of paths (a branch switch) is taken in at once.
    #[test]
    fn applied_changes_match_a_fresh_scan() {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let write = |rel: &str, text: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            path
        };
        write("Makefile", "include build/common.mk\nall:\n\t@true\n");
        write("build/common.mk", "lint:\n\t@true\n");
        write("packages/a/package.json", r#"{"scripts": {"dev": "vite"}}"#);
        let mut index = Index::build(&root);
        assert!(listed_tasks(&index).contains(&(
            "packages/a".to_owned(),
            "dev".to_owned(),
            Runner::Npm
        )));

        let common = write("build/common.mk", "lint:\n\t@true\nfmt:\n\t@true\n");
        let lock = write("pnpm-lock.yaml", "lockfileVersion: '9.0'\n");
        assert!(index.apply(&[common, lock]));
        assert_eq!(listed_tasks(&index), listed_tasks(&Index::build(&root)));
        let tasks = listed_tasks(&index);
        assert!(tasks.contains(&(".".to_owned(), "fmt".to_owned(), Runner::Make)));
        assert!(tasks.contains(&("packages/a".to_owned(), "dev".to_owned(), Runner::Pnpm)));

        // Console scripts move from uv to poetry when poetry.lock appears; a hatch.toml with
        // `envs` takes over from the pyproject's.
        write(
            "py/pyproject.toml",
            "[project.scripts]\ncli = \"m:main\"\n[tool.hatch.envs.default.scripts]\nold = \"x\"\n",
        );
        let mut index = Index::build(&root);
        assert!(listed_tasks(&index).contains(&("py".to_owned(), "cli".to_owned(), Runner::Uv)));
        let poetry = write("py/poetry.lock", "");
        let hatch = write("py/hatch.toml", "[envs.default.scripts]\nnew = \"y\"\n");
        assert!(index.apply(&[poetry, hatch]));
        assert_eq!(listed_tasks(&index), listed_tasks(&Index::build(&root)));
        let tasks = listed_tasks(&index);
        assert!(tasks.contains(&("py".to_owned(), "cli".to_owned(), Runner::Poetry)));
        assert!(!tasks.contains(&("py".to_owned(), "old".to_owned(), Runner::Hatch)));

        let mut batch: Vec<PathBuf> = (0..3000)
            .map(|i| write(&format!("src/m{}/f{i}.rs", i % 30), ""))
            .collect();
        batch.push(write("src/m7/justfile", "check:\n    true\n"));
        batch.push(root.join("src"));
        assert!(index.apply(&batch));
        assert_eq!(listed_tasks(&index), listed_tasks(&Index::build(&root)));
        assert!(listed_tasks(&index).contains(&(
            "src/m7".to_owned(),
            "check".to_owned(),
            Runner::Just
        )));
    }

    #[test]
    fn relative_paths_match_strip_prefix() {
        for (root, path) in [
            ("/repo", "/repo"),
            ("/repo", "/repo/a/b"),
            ("/repo", "/repository/a"),
            ("/repo/", "/repo/a"),
            ("/", "/a/b"),
            ("/repo", "/other"),
        ] {
            let (root, path) = (Path::new(root), Path::new(path));
            assert_eq!(
                relative(root, path),
                path.strip_prefix(root).ok(),
                "{root:?} {path:?}"
            );
        }
    }
}
