//! [`Index`]: what the scan knows about a repository, updated cheaply per batch of changed
//! paths.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use agg_runners::{ADAPTERS, Adapter, Diagnostic, Parsed, Task, parent};
use rayon::prelude::*;

use super::listing::{listed, parse_file};
use super::walk::{relative, walk};
use super::{Group, NEVER_ENTER, PACKAGE_MANAGER_MARKERS, Scan, candidate_of};
use crate::repo_files::{RepoFiles, Walked, abs_path};

impl Walked for Index {
    fn entered(&self, dir: &str) -> bool {
        self.dirs.contains(dir)
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
    root: PathBuf,
    /// Every candidate task file the walk saw, by (adapter, directory).
    candidates: BTreeMap<(usize, String), Group>,
    /// The parse result of every chosen candidate.
    parsed: BTreeMap<String, Parsed>,
    /// Directories the walk entered.
    dirs: BTreeSet<String>,
    /// Problems of the walk itself (unreadable directories, loops).
    walk_diagnostics: Vec<Diagnostic>,
    /// The manifests of the workspace graph the walk saw.
    manifests: BTreeSet<String>,
}

impl Index {
    /// An index of nothing yet, for a tree that is being scanned.
    pub fn empty(root: &Path) -> Index {
        Index {
            root: root.to_path_buf(),
            candidates: BTreeMap::new(),
            parsed: BTreeMap::new(),
            dirs: BTreeSet::new(),
            walk_diagnostics: Vec::new(),
            manifests: BTreeSet::new(),
        }
    }

    /// Walks and parses the whole tree.
    pub fn build(root: &Path) -> Index {
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let mut index = Index {
            root,
            candidates: BTreeMap::new(),
            parsed: BTreeMap::new(),
            dirs: BTreeSet::new(),
            walk_diagnostics: Vec::new(),
            manifests: BTreeSet::new(),
        };
        let walked = walk(&index.root, &index.root);
        index.walk_diagnostics = walked.diagnostics;
        index.dirs = walked.dirs;
        index.manifests = walked.manifests.into_iter().collect();
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
        let mut dirty_groups: BTreeSet<(usize, String)> = BTreeSet::new();
        let mut reparse: BTreeSet<String> = BTreeSet::new();
        let mut changed_rels: HashSet<String> = HashSet::new();
        let mut changed_dirs: HashSet<String> = HashSet::new();
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
                touched |= self.forget_dir(&rel, &mut dirty_groups);
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
            if agg_runners::python::MARKERS.contains(&name) {
                python_dirs.insert(dir.clone());
            }
            if PACKAGE_MANAGER_MARKERS.contains(&name) || agg_runners::js::MARKERS.contains(&name) {
                marker_dirs.insert(dir);
            }
            changed_rels.insert(rel);
        }
        // Files that pull in a changed file, and packages below a changed lockfile or
        // package.json: one pass over the parsed files, however many paths changed (a branch
        // switch changes thousands).
        for (file, parsed) in &self.parsed {
            let pulls_in_changed = parsed
                .consumed
                .iter()
                .any(|c| changed_rels.contains(c) || changed_dirs.contains(c));
            let below_marker = (file.ends_with("package.json")
                || agg_runners::js::reads_neighbours(file))
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
        let results: Vec<(String, Parsed)> = {
            let files = RepoFiles::new(&self.root).with_walk(&*self);
            let one = |(adapter, rel): &(usize, String)| {
                (rel.clone(), parse_file(&ADAPTERS[*adapter], rel, &files))
            };
            // A handful of files is parsed faster than a thread pool starts.
            if jobs.len() <= 8 {
                jobs.iter().map(one).collect()
            } else {
                jobs.par_iter().map(one).collect()
            }
        };
        self.parsed.extend(results);
    }

    fn walk_new_dir(&mut self, abs: &Path, dirty: &mut BTreeSet<(usize, String)>) -> bool {
        let walked = walk(&self.root, abs);
        self.dirs.extend(walked.dirs);
        self.walk_diagnostics.extend(walked.diagnostics);
        let any = !walked.candidates.is_empty() || !walked.manifests.is_empty();
        self.manifests.extend(walked.manifests);
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
