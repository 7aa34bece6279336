//! [`Index`]: what the scan knows about a repository, updated cheaply per batch of changed
//! paths, with what it looked at to know it (each directory's stamp and ignore files, what
//! each parse read: [`DirRecord`], [`ParsedFile`]) for a later scan to check instead of reading.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use agg_runners::{ADAPTERS, Adapter, Diagnostic, Task, parent};
use rayon::prelude::*;

use super::facts::{Fact, FactTable, ParsedFile};
use super::listing::{listed, listed_order, parse_file};
use super::stamp::Stamp;
use super::tracked::Tracked;
use super::walk::{Walked as WalkedTree, relative, walk};
use super::{Group, NEVER_ENTER, Scan, candidate_of};
use crate::repo_files::{RepoFiles, Walked, abs_path};

impl Walked for Index {
    fn entered(&self, dir: &str) -> bool {
        self.dirs.contains(dir)
    }

    fn marker_exists(&self, path: &str) -> Option<bool> {
        let markers = self.markers.as_ref()?;
        let (dir, name) = path.rsplit_once('/').unwrap_or((".", path));
        if !super::is_neighbour_marker(name) || !markers.entered.contains(dir) {
            return None;
        }
        match markers.found.get(path) {
            None => Some(false),
            Some(true) => Some(true),
            // A symlink or another kind of file: the file system says where it leads.
            Some(false) => None,
        }
    }

    fn candidates_beside(&self, path: &str) -> Option<Vec<String>> {
        let dir = parent(path);
        if !self.dirs.contains(dir) {
            return None;
        }
        let (adapter, _) = candidate_of(path)?;
        let group = self.candidates.get(&(adapter, dir.to_owned()));
        Some(
            group
                .into_iter()
                .flat_map(BTreeMap::keys)
                .filter(|rel| rel.as_str() != path)
                .map(|rel| {
                    rel.rsplit_once('/')
                        .map_or(rel.as_str(), |(_, name)| name)
                        .to_owned()
                })
                .collect(),
        )
    }
}

/// What the scan knows about a repository, kept up to date by [`Index::apply`].
#[derive(Debug)]
pub struct Index {
    pub(super) root: PathBuf,
    /// Every candidate task file the walk saw, by (adapter, directory).
    pub(super) candidates: BTreeMap<(usize, String), Group>,
    /// The parse result of every chosen candidate, with what the parse read.
    pub(super) parsed: BTreeMap<String, ParsedFile>,
    /// What the parses read, each fact once.
    pub(super) facts: FactTable,
    /// Directories the walk entered.
    pub(super) dirs: BTreeSet<String>,
    /// Problems of the walk itself (unreadable directories, loops).
    pub(super) walk_diagnostics: Vec<Diagnostic>,
    /// The manifests of the workspace graph the walk saw, root-relative.
    pub(super) manifests: BTreeSet<String>,
    /// What the walk saw of each directory it entered.
    pub(super) records: BTreeMap<String, DirRecord>,
    /// What the walk's ignore rules came from outside the tree's directories.
    pub(super) outside: Outside,
    /// Whether the records describe the tree as a scan found it, so that a later scan may
    /// check them instead of scanning: not after [`Index::apply`] (a file watch keeps no
    /// stamps), nor when the ignore files went over their budget (which a walk of one
    /// directory could not tell), nor for a one-off scan ([`Index::build_once`]).
    pub(super) storable: bool,
    /// Whether stamps and facts are taken at all.
    pub(super) keeps: bool,
    /// The neighbour markers in the directories entered ([`super::is_neighbour_marker`]),
    /// as the last whole walk found them, with whether each is a regular file; `None` once
    /// the index was brought up to date any other way (a walk of part of the tree, a file
    /// watch), when the file system is asked.
    pub(super) markers: Option<Markers>,
}

/// Where the last whole walk saw neighbour markers (see [`Index::markers`]).
#[derive(Debug, Clone, Default)]
pub(super) struct Markers {
    /// Every directory the walk entered, hashed: thousands of packages ask about each of
    /// their parents' lockfiles.
    entered: rustc_hash::FxHashSet<String>,
    /// The markers, by path, with whether each is a regular file.
    found: rustc_hash::FxHashMap<String, bool>,
}

/// What the walk saw of one directory it entered.
#[derive(Debug, Clone, Default, bitcode::Encode, bitcode::Decode)]
pub(super) struct DirRecord {
    /// The directory's own stamp, taken after the scan began; `None` when it could not be
    /// taken (then the directory is listed again every time).
    pub(super) stamp: Option<Stamp>,
    /// The ignore files in it (`.ignore`, `.gitignore`), by name, with their stamps.
    pub(super) ignore_files: Vec<(String, Stamp)>,
    /// Whether it was entered only for tracked task files below it (an ignore rule excludes
    /// it): what else is in it is excluded.
    pub(super) forced: bool,
    /// Problems the walk found with it, its entries or its ignore files.
    pub(super) diagnostics: Vec<Diagnostic>,
}

/// What the walk's ignore rules came from outside the tree's directories, and the problems
/// found there.
#[derive(Debug, Clone, Default)]
pub(super) struct Outside {
    /// Files read or looked for (absent: `None`), absolute.
    pub(super) seen: Vec<(PathBuf, Option<Stamp>)>,
    /// git's global excludes file, as git's configuration named it.
    pub(super) global: Option<PathBuf>,
    /// The tracked task files, when the walk needed them.
    pub(super) tracked: Option<Tracked>,
    /// Problems with those files (an ignore file above the root, git's index).
    pub(super) diagnostics: Vec<Diagnostic>,
}

/// What a batch of changed paths may change beyond the walk's records ([`Index::apply`]).
struct ChangedPaths {
    /// Candidate groups (adapter, directory) that gained or lost a file.
    dirty_groups: BTreeSet<(usize, String)>,
    /// The changed paths, root-relative.
    changed_rels: HashSet<String>,
    /// Their directories, and the paths themselves (a directory that appeared or went).
    changed_dirs: HashSet<String>,
    /// Directories where a file changed that some format reads as a neighbour, by adapter.
    neighbour_dirs: BTreeMap<usize, BTreeSet<String>>,
    /// Whether a record changed already.
    touched: bool,
}

impl Index {
    /// An index of nothing yet, for a tree that is being scanned.
    pub fn empty(root: &Path) -> Index {
        Index {
            root: root.to_path_buf(),
            candidates: BTreeMap::new(),
            parsed: BTreeMap::new(),
            facts: FactTable::default(),
            dirs: BTreeSet::new(),
            walk_diagnostics: Vec::new(),
            manifests: BTreeSet::new(),
            records: BTreeMap::new(),
            outside: Outside::default(),
            storable: true,
            keeps: true,
            markers: None,
        }
    }

    /// Walks and parses the whole tree, keeping what a later scan needs to check it.
    pub fn build(root: &Path) -> Index {
        Index::build_keeping(root, true)
    }

    /// Walks and parses the whole tree once: no stamp taken, no fact written down (what
    /// `agg list --no-cache` does).
    pub(super) fn build_once(root: &Path) -> Index {
        Index::build_keeping(root, false)
    }

    fn build_keeping(root: &Path, keeps: bool) -> Index {
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let mut index = Index::empty(&root);
        index.keeps = keeps;
        index.storable = keeps;
        let began = std::time::Instant::now();
        let walked = walk(&index.root, &index.root, keeps);
        let walk_took = began.elapsed();
        index.take_walk(walked, None);
        index.finish_walk();
        let chosen: Vec<(usize, String)> = index.chosen().collect();
        let taken = began.elapsed();
        index.parse(&chosen);
        tracing::debug!(
            "scan: walked in {walk_took:?}, taken in by {taken:?}, {} files parsed by {:?}",
            chosen.len(),
            began.elapsed()
        );
        index
    }

    /// Takes in what a walk found: of the whole tree (`start` `None`), or of the directory
    /// `start` and what was new below it (the directories it kept are known already).
    pub(super) fn take_walk(&mut self, walked: WalkedTree, start: Option<&str>) {
        let observed = walked.observed;
        if observed.over_budget {
            self.storable = false;
        }
        let forced: HashSet<String> = observed
            .forced
            .iter()
            .filter_map(|p| self.relative(p))
            .collect();
        let mut new: BTreeMap<String, DirRecord> = walked
            .dirs
            .into_iter()
            .filter(|(rel, _)| !walked.kept.contains(rel))
            .map(|(rel, stamp)| {
                let record = DirRecord {
                    stamp,
                    forced: forced.contains(&rel),
                    ..DirRecord::default()
                };
                (rel, record)
            })
            .collect();
        for (path, stamp) in observed.inside {
            let (Some(dir), Some(name)) = (
                path.parent().and_then(|d| self.relative(d)),
                path.file_name().and_then(|n| n.to_str()),
            ) else {
                continue;
            };
            if let Some(record) = new.get_mut(&dir) {
                record.ignore_files.push((name.to_owned(), stamp));
            }
        }
        for record in new.values_mut() {
            record.ignore_files.sort_by(|a, b| a.0.cmp(&b.0));
            record.ignore_files.dedup_by(|a, b| a.0 == b.0);
        }
        for diagnostic in walked.diagnostics {
            let path = diagnostic.file_path.as_str();
            let owner = if new.contains_key(path) {
                Some(path.to_owned())
            } else {
                Some(parent(path).to_owned()).filter(|p| new.contains_key(p))
            };
            match owner.and_then(|o| new.get_mut(&o)) {
                Some(record) => record.diagnostics.push(diagnostic),
                None => self.outside.diagnostics.push(diagnostic),
            }
        }
        if start.is_none() {
            self.outside.seen = observed.outside;
            self.outside.global = observed.global;
        }
        if observed.tracked.is_some() {
            self.outside.tracked = observed.tracked;
        }
        for (adapter, rank, rel) in walked.candidates {
            self.add_candidate(adapter, rank, rel);
        }
        self.manifests.extend(walked.manifests);
        let markers = walked.markers;
        extend_or_build(&mut self.dirs, new.keys().cloned().chain(walked.kept));
        extend_or_build(&mut self.records, new);
        self.markers = start.is_none().then(|| Markers {
            entered: self.dirs.iter().cloned().collect(),
            found: markers.into_iter().collect(),
        });
    }

    /// The walk's problems, in one order whatever order the walk found them in.
    pub(super) fn finish_walk(&mut self) {
        let mut all: Vec<Diagnostic> = self.outside.diagnostics.clone();
        for record in self.records.values() {
            all.extend(record.diagnostics.iter().cloned());
        }
        all.sort_by(|a, b| {
            (&a.file_path, a.line, &a.message).cmp(&(&b.file_path, b.line, &b.message))
        });
        self.walk_diagnostics = all;
    }

    /// Forgets the directory `rel` and everything the walk found below it.
    pub(super) fn forget_tree(&mut self, rel: &str) {
        let prefix = if rel == "." {
            String::new()
        } else {
            format!("{rel}/")
        };
        let under = |p: &str| rel == "." || p == rel || p.starts_with(&prefix);
        self.dirs.retain(|d| !under(d));
        self.records.retain(|d, _| !under(d));
        self.candidates.retain(|(_, d), _| !under(d));
        self.manifests.retain(|m| !under(m));
    }

    /// Forgets what the walk found in the directory `rel` itself (not below it).
    pub(super) fn forget_dir(&mut self, rel: &str) {
        self.records.remove(rel);
        self.candidates.retain(|(_, d), _| d != rel);
        self.manifests.retain(|m| parent(m) != rel);
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
        self.parsed.iter().flat_map(|(rel, found)| {
            std::iter::once(rel.as_str()).chain(found.parsed.consumed.iter().map(String::as_str))
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
            if let Some(found) = self.parsed.get(rel) {
                tasks.extend(found.parsed.tasks.iter().cloned());
                diagnostics.extend(found.parsed.diagnostics.iter().cloned());
            }
        }
        self.finish(tasks, diagnostics, task_files)
    }

    /// The tasks and diagnostics, without copying them (for a one-off scan).
    pub fn into_snapshot(mut self) -> Scan {
        let began = std::time::Instant::now();
        let parsed = std::mem::take(&mut self.parsed);
        let (order, task_files) = {
            let entries: Vec<(&str, &agg_runners::Parsed)> = parsed
                .iter()
                .map(|(k, v)| (k.as_str(), &v.parsed))
                .collect();
            listed_order(&entries)
        };
        let mut found: Vec<Option<ParsedFile>> = parsed.into_values().map(Some).collect();
        let count = order
            .iter()
            .filter_map(|&i| found[i].as_ref())
            .map(|f| f.parsed.tasks.len())
            .sum();
        let mut tasks = Vec::with_capacity(count);
        let mut diagnostics = std::mem::take(&mut self.walk_diagnostics);
        for i in order {
            if let Some(found) = found[i].take() {
                tasks.extend(found.parsed.tasks);
                diagnostics.extend(found.parsed.diagnostics);
            }
        }
        let scan = self.finish(tasks, diagnostics, task_files);
        tracing::debug!(
            "scan: {} rows gathered in {:?}",
            scan.tasks.len(),
            began.elapsed()
        );
        // What is left (the records, the facts, unlisted parses) is only memory: left for the
        // exit when the process ends after this listing, else freed on another thread, so
        // that the answer need not wait for it.
        if super::ends_after_listing() {
            std::mem::forget((self, found));
        } else {
            let _ = std::thread::Builder::new()
                .name("agg-free".to_owned())
                .spawn(move || drop((self, found)));
        }
        scan
    }

    fn finish(
        &self,
        tasks: Vec<Task>,
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
            manifests: self.manifests.iter().cloned().collect(),
        }
    }

    /// Takes changed paths (absolute, as a file watcher reports them) into account.
    /// Returns whether any task file was parsed again, appeared or disappeared.
    pub fn apply(&mut self, changed: &[PathBuf]) -> bool {
        // What a file watch learns keeps no stamps, nor which markers are where.
        self.storable = false;
        self.markers = None;
        let Some(seen) = self.take_paths(changed) else {
            return true;
        };
        let mut reparse = self.pulling_in(&seen);
        let mut touched = seen.touched;
        touched |= self.regroup(&seen.dirty_groups, &mut reparse);
        let jobs: Vec<(usize, String)> = reparse
            .into_iter()
            .filter_map(|rel| candidate_of(&rel).map(|(a, _)| (a, rel)))
            .collect();
        touched |= !jobs.is_empty();
        self.parse(&jobs);
        touched
    }

    /// Takes the changed paths into the walk's records (directories new or gone, candidates
    /// and manifests added or removed) and notes what else they may change; `None` when an
    /// ignore file changed, and the index was built again whole.
    fn take_paths(&mut self, changed: &[PathBuf]) -> Option<ChangedPaths> {
        let mut dirty_groups: BTreeSet<(usize, String)> = BTreeSet::new();
        let mut changed_rels: HashSet<String> = HashSet::new();
        let mut changed_dirs: HashSet<String> = HashSet::new();
        // Directories where a file changed that some format reads as a neighbour, by adapter.
        let mut neighbour_dirs: BTreeMap<usize, BTreeSet<String>> = BTreeMap::new();
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
                return None;
            }
            let meta = std::fs::symlink_metadata(path).ok();
            let dir = parent(&rel).to_owned();
            // A file that read a directory's listing lists it as consumed: the directory
            // appearing or going, or an entry appearing or going in it (mise's task
            // directories), means reading that file again.
            changed_dirs.insert(dir.clone());
            changed_dirs.insert(rel.clone());
            if meta.as_ref().is_some_and(std::fs::Metadata::is_dir) {
                if !self.dirs.contains(&rel) && self.dirs.contains(&dir) {
                    touched |= self.walk_new_dir(path, &mut dirty_groups);
                }
                continue;
            }
            if meta.is_none() && self.dirs.contains(&rel) {
                touched |= self.forget_gone_dir(&rel, &mut dirty_groups);
                continue;
            }
            if agg_runners::graph::is_manifest(&rel) && self.dirs.contains(&dir) {
                // The set of manifests is part of the table, as the graph reads it.
                touched |= if meta.is_some() {
                    self.manifests.insert(rel.clone())
                } else {
                    self.manifests.remove(&rel)
                };
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
            for (i, adapter) in ADAPTERS.iter().enumerate() {
                if adapter.reads_neighbour(name) {
                    neighbour_dirs.entry(i).or_default().insert(dir.clone());
                }
            }
            changed_rels.insert(rel);
        }
        Some(ChangedPaths {
            dirty_groups,
            changed_rels,
            changed_dirs,
            neighbour_dirs,
            touched,
        })
    }

    /// The parsed files that pull in a changed path (read it, asked about it, listed its
    /// directory) or read a changed neighbour: to parse again.
    fn pulling_in(&self, seen: &ChangedPaths) -> BTreeSet<String> {
        let ChangedPaths {
            changed_rels,
            changed_dirs,
            neighbour_dirs,
            ..
        } = seen;
        let mut reparse: BTreeSet<String> = BTreeSet::new();
        // What each parse learnt that a changed path may answer differently now (a file it
        // read, one whose existence or execute bit it asked about, a directory it listed).
        let stale_facts: Vec<bool> = self
            .facts
            .facts()
            .iter()
            .map(|fact| match fact {
                Fact::Read { path, .. }
                | Fact::Exists { path, .. }
                | Fact::Executable { path, .. } => changed_rels.contains(path),
                Fact::Listing { dir, .. } => changed_dirs.contains(dir),
                Fact::Siblings { path, .. } => changed_dirs.contains(parent(path)),
                // Through a symlink: the watch sees the link's own directory, as before.
                Fact::Unsteady => false,
            })
            .collect();
        // Files that pull in a changed file, and packages below a changed lockfile or
        // package.json: one pass over the parsed files, however many paths changed (a branch
        // switch changes thousands).
        for (file, found) in &self.parsed {
            let pulls_in_changed = found
                .parsed
                .consumed
                .iter()
                .any(|c| changed_rels.contains(c) || changed_dirs.contains(c))
                || found
                    .facts
                    .iter()
                    .any(|&id| stale_facts.get(id as usize).copied().unwrap_or(false));
            let below_marker = !neighbour_dirs.is_empty()
                && candidate_of(file).is_some_and(|(adapter, _)| {
                    neighbour_dirs.get(&adapter).is_some_and(|dirs| {
                        ADAPTERS[adapter].reads_neighbours(file)
                            && std::iter::successors(Some(parent(file)), |d| {
                                (*d != ".").then(|| parent(d))
                            })
                            .any(|d| dirs.contains(d))
                    })
                });
            if pulls_in_changed || below_marker {
                reparse.insert(file.clone());
            }
        }
        reparse
    }

    /// Drops every parse of the candidate groups a change touched and adds to `reparse`
    /// whichever of each group is to be parsed now; whether a parse was dropped.
    fn regroup(
        &mut self,
        dirty_groups: &BTreeSet<(usize, String)>,
        reparse: &mut BTreeSet<String>,
    ) -> bool {
        let mut touched = false;
        for group in dirty_groups {
            let members: Vec<String> = self
                .candidates
                .get(group)
                .map(|g| g.keys().cloned().collect())
                .unwrap_or_default();
            // Every candidate of the group was possibly the chosen one; drop them all and
            // parse whichever is best now (every one, for formats that read each file).
            for m in &members {
                touched |= self.parsed.remove(m).is_some();
            }
            if ADAPTERS[group.0].one_per_dir {
                if let Some(rel) = self.best(group) {
                    reparse.insert(rel);
                }
            } else {
                // Every file of a format read several to a directory (workflows, scripts);
                // a script's name depends on its neighbours.
                reparse.extend(members.iter().cloned());
            }
            if members.is_empty() {
                self.candidates.remove(group);
            }
        }
        touched
    }

    pub(super) fn relative(&self, path: &Path) -> Option<String> {
        let rel = relative(&self.root, path)?.to_str()?;
        Some(if rel.is_empty() {
            ".".to_owned()
        } else {
            rel.to_owned()
        })
    }

    pub(super) fn add_candidate(&mut self, adapter: usize, rank: u8, rel: String) {
        let dir = parent(&rel).to_owned();
        self.candidates
            .entry((adapter, dir))
            .or_default()
            .insert(rel, rank);
    }

    fn best(&self, group: &(usize, String)) -> Option<String> {
        best_of(self.candidates.get(group)?)
    }

    /// The file each group parses: the best-ranked one for adapters that read one file per
    /// directory, every one for the others.
    pub(super) fn chosen(&self) -> impl Iterator<Item = (usize, String)> + '_ {
        self.candidates.iter().flat_map(move |(group, members)| {
            let adapter: &Adapter = &ADAPTERS[group.0];
            let picked: Vec<String> = if adapter.one_per_dir {
                best_of(members).into_iter().collect()
            } else {
                members.keys().cloned().collect()
            };
            picked.into_iter().map(move |rel| (group.0, rel))
        })
    }

    pub(super) fn parse(&mut self, jobs: &[(usize, String)]) {
        let results: Vec<(String, (ParsedFile, Vec<super::facts::Fact>))> = {
            let files = RepoFiles::new(&self.root).with_walk(&*self);
            let keeps = self.keeps;
            let one = |(adapter, rel): &(usize, String)| {
                (
                    rel.clone(),
                    parse_file(&ADAPTERS[*adapter], rel, &files, keeps),
                )
            };
            // A handful of files is parsed faster than a thread pool starts.
            if jobs.len() <= 8 {
                jobs.iter().map(one).collect()
            } else {
                jobs.par_iter().map(one).collect()
            }
        };
        let facts = &mut self.facts;
        let results = results.into_iter().map(|(rel, (mut found, found_facts))| {
            found.facts = facts.intern(found_facts);
            (rel, found)
        });
        extend_or_build(&mut self.parsed, results);
    }

    fn walk_new_dir(&mut self, abs: &Path, dirty: &mut BTreeSet<(usize, String)>) -> bool {
        let walked = walk(&self.root, abs, false);
        self.dirs.extend(walked.dirs.into_keys());
        self.walk_diagnostics.extend(walked.diagnostics);
        let any = !walked.candidates.is_empty() || !walked.manifests.is_empty();
        self.manifests.extend(walked.manifests);
        for (adapter, rank, rel) in walked.candidates {
            dirty.insert((adapter, parent(&rel).to_owned()));
            self.add_candidate(adapter, rank, rel);
        }
        any
    }

    fn forget_gone_dir(&mut self, rel: &str, dirty: &mut BTreeSet<(usize, String)>) -> bool {
        let prefix = format!("{rel}/");
        let under = |p: &str| p == rel || p.starts_with(&prefix);
        self.dirs.retain(|d| !under(d));
        let manifests = self.manifests.len();
        self.manifests.retain(|m| !under(m));
        let before = self.parsed.len() + manifests;
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
        before != self.parsed.len() + self.manifests.len()
    }
}

/// Adds `items` to `into`; an empty `into` (a whole walk's, a whole scan's) is built from
/// them at once, sorted in bulk, rather than by thousands of insertions one by one.
fn extend_or_build<C, T>(into: &mut C, items: impl IntoIterator<Item = T>)
where
    C: Extend<T> + FromIterator<T>,
    for<'c> &'c C: IntoIterator,
{
    if (&*into).into_iter().next().is_none() {
        *into = items.into_iter().collect();
    } else {
        into.extend(items);
    }
}

/// The candidate a one-per-directory adapter reads among `members`: the best ranked, then
/// the first by path.
fn best_of(members: &super::Group) -> Option<String> {
    members
        .iter()
        .min_by(|a, b| (a.1, a.0).cmp(&(b.1, b.0)))
        .map(|(rel, _)| rel.clone())
}
