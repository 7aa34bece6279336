//! The files of a tree that a reader picks (the untracked files `--affected` reads), found by
//! the listing's own walk and remembered in agg's cache between runs, so that the next run
//! lists again only the directories that changed: git's untracked cache, kept by agg.
//!
//! What is kept ([`Record`]) and how each part is checked:
//!
//! - every directory entered: its stamp and the reader's mark for it (for the untracked
//!   files, what git's index tracks directly in it). Same inode, same times, settled, same
//!   mark: its files are the ones it had and the reader would pick the same, so its picks
//!   stand. Otherwise it is listed again (its known subdirectories left out, each checked on
//!   its own); new subdirectories are walked whole; a directory gone, or another one at its
//!   path, is forgotten with everything below it (its parent, changed too, is listed again).
//! - the ignore files the rules were read from, and the files looked for outside the tree
//!   (ignore files above the root, `.git`, the exclude files, git's global excludes): any
//!   change, or a directory listed again that reads rules not read before, walks the whole
//!   tree again.
//!
//! Stamps are trusted only once settled ([`Clock::settled`]); a record written after the
//! clock was set back, or for another directory at the root's path, is not used. The
//! reader's picks of kept files are asked again every run (a file the index now tracks is
//! no longer untracked), so a record can only leave out what a changed mark lists again.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use agg_runners::parent;
use rayon::prelude::*;

use super::ignores::Ignores;
use super::stamp::{Below, Clock, Stamp};
use super::walk::{FileSeen, Look, Prune, SERIAL_WALK_BUDGET, Visit, walk_tree};
use super::warm::unchanged;
use crate::lock::MutexExt;

/// The kind of [`crate::cache`] file kept (its directory's name).
const KIND: &str = "untracked-files";

/// What one walk of every file learnt, kept for the next.
#[derive(bitcode::Encode, bitcode::Decode)]
struct Record {
    /// The canonical root.
    root: Vec<u8>,
    /// The root directory's device and inode.
    root_inode: (u64, u64),
    /// When the walk that wrote this began ([`Clock::started`]).
    started: i64,
    /// The path of git's global excludes file, as git's configuration named it.
    global: Option<Vec<u8>>,
    /// Ignore files the rules were read from, and files looked for outside the tree (`None`:
    /// absent), absolute.
    rules: Vec<(Vec<u8>, Option<Stamp>)>,
    /// Every directory entered (root-relative, `.` for the root): its stamp and mark.
    dirs: BTreeMap<String, (Stamp, u64)>,
    /// The files picked, root-relative.
    files: Vec<String>,
}

/// The files under `root` that no ignore rule excludes and `pick` takes, root-relative and
/// sorted. `marks` holds, per root-relative directory (`.` for the root), a value that
/// changes whenever `pick` may answer differently for a file in it that did not change;
/// directories it does not name have the mark 0.
pub fn picked_files(
    root: &Path,
    marks: &HashMap<String, u64>,
    pick: &(dyn Fn(&str) -> bool + Sync),
) -> Vec<String> {
    let clock = Clock::now();
    let cache = super::warm::cache_enabled();
    let kept = cache
        .then(|| crate::cache::load(KIND, root))
        .flatten()
        .and_then(|loaded| bitcode::decode::<Record>(loaded.payload()).ok())
        .and_then(|record| update(root, record, clock, marks, pick));
    let (record, storable) = kept.unwrap_or_else(|| {
        tracing::debug!("untracked files: walking {} whole", root.display());
        whole(root, clock, marks, pick)
    });
    if cache && storable {
        crate::cache::store(KIND, root, &bitcode::encode(&record));
    }
    let mut files: Vec<String> = record.files.into_iter().filter(|f| pick(f)).collect();
    files.sort_unstable();
    files.dedup();
    files
}

/// What one walk from a directory found.
struct Walked {
    files: Vec<String>,
    /// Directories entered, with their stamps (`None`: could not be taken).
    dirs: Vec<(String, Option<Stamp>)>,
    rules: Vec<(PathBuf, Option<Stamp>)>,
    global: Option<PathBuf>,
    /// Whether every rule was read (none skipped for the byte budget).
    whole_rules: bool,
}

/// Walks `start` (the root or a directory under it), leaving out the directories `prune`
/// knows.
fn walk_from(
    root: &Path,
    start: &Path,
    prune: Option<&Arc<Prune>>,
    pick: &(dyn Fn(&str) -> bool + Sync),
) -> Walked {
    /// What this walk keeps: the directories with their stamps, the files picked.
    struct Picking<'p> {
        pick: &'p (dyn Fn(&str) -> bool + Sync),
        files: Mutex<Vec<String>>,
        dirs: Mutex<Vec<(String, Option<Stamp>)>>,
    }
    impl Visit for Picking<'_> {
        fn dir(&self, rel: &str, exact: bool, stamp: Option<Stamp>) {
            // A path that is not UTF-8 cannot be named in the record: left out, as its files.
            if exact {
                self.dirs.locked().push((rel.to_owned(), stamp));
            }
        }
        fn file(&self, file: &FileSeen<'_>) {
            if file.exact && !file.rel.is_empty() && (self.pick)(file.rel) && file.admitted() {
                self.files.locked().push(file.rel.to_owned());
            }
        }
        fn error(&self, _: &Path, _: &std::io::Error) {}
    }
    let ignores = Ignores::new(root, start, None);
    let look = Look {
        root,
        ignores: &ignores,
        stamps: true,
    };
    let picking = Picking {
        pick,
        files: Mutex::new(Vec::new()),
        dirs: Mutex::new(Vec::new()),
    };
    walk_tree(
        &look,
        start,
        prune.map(Arc::as_ref),
        SERIAL_WALK_BUDGET,
        &picking,
    );
    let (files, dirs) = (picking.files, picking.dirs);
    let observed = ignores.take_observed();
    let mut rules: Vec<(PathBuf, Option<Stamp>)> = observed
        .inside
        .into_iter()
        .map(|(p, s)| (p, Some(s)))
        .collect();
    rules.extend(observed.outside);
    Walked {
        files: files.unlocked(),
        dirs: dirs.unlocked(),
        rules,
        global: observed.global,
        whole_rules: !observed.over_budget,
    }
}

/// The record of a walk of the whole tree, and whether it may be kept.
fn whole(
    root: &Path,
    clock: Clock,
    marks: &HashMap<String, u64>,
    pick: &(dyn Fn(&str) -> bool + Sync),
) -> (Record, bool) {
    let walked = walk_from(root, root, None, pick);
    let root_stamp = Stamp::at(root);
    let mut storable = walked.whole_rules && root_stamp.is_some();
    let mut dirs = BTreeMap::new();
    for (rel, stamp) in walked.dirs {
        match stamp {
            Some(stamp) => {
                let mark = marks.get(&rel).copied().unwrap_or(0);
                dirs.insert(rel, (stamp, mark));
            }
            None => storable = false,
        }
    }
    let record = Record {
        root: root.as_os_str().as_bytes().to_vec(),
        root_inode: root_stamp.map_or((0, 0), |s| (s.dev, s.ino)),
        started: clock.started,
        global: walked.global.map(|g| g.into_os_string().into_vec()),
        rules: walked
            .rules
            .into_iter()
            .map(|(p, s)| (p.into_os_string().into_vec(), s))
            .collect(),
        dirs,
        files: walked.files,
    };
    (record, storable)
}

/// The directories of `record` that are gone (or another is at their path), and those that
/// changed (times, or mark); `None` when the root cannot be opened.
fn gone_and_changed(
    root: &Path,
    record: &Record,
    then: Clock,
    marks: &HashMap<String, u64>,
) -> Option<(Vec<String>, Vec<String>)> {
    let below = Below::open(root)?;
    let states: Vec<(&String, Option<Stamp>, bool)> = record
        .dirs
        .par_iter()
        .map(|(rel, (seen, mark))| {
            let now = below.stamp(rel);
            let same = now == Some(*seen)
                && then.settled(seen)
                && marks.get(rel).copied().unwrap_or(0) == *mark;
            (rel, now, same)
        })
        .collect();
    let mut gone = Vec::new();
    let mut changed = Vec::new();
    for (rel, now, same) in states {
        match now {
            Some(now) if now.is_dir() && now.same_inode(&record.dirs[rel].0) => {
                if !same {
                    changed.push(rel.clone());
                }
            }
            _ => gone.push(rel.clone()),
        }
    }
    Some((gone, changed))
}

/// `record` brought up to date by listing again what changed, with whether it may be kept;
/// `None` when only a walk of the whole tree will do.
fn update(
    root: &Path,
    mut record: Record,
    clock: Clock,
    marks: &HashMap<String, u64>,
    pick: &(dyn Fn(&str) -> bool + Sync),
) -> Option<(Record, bool)> {
    let then = clock.earlier(record.started);
    let root_stamp = Stamp::at(root)?;
    if record.root != root.as_os_str().as_bytes()
        || record.root_inode != (root_stamp.dev, root_stamp.ino)
        || clock.started < then.started
    {
        return None;
    }
    let global = ignore::gitignore::gitconfig_excludes_path();
    if global.as_deref().map(|g| g.as_os_str().as_bytes().to_vec()) != record.global {
        return None;
    }
    let rules_hold = record.rules.par_iter().all(|(p, seen)| {
        let p = PathBuf::from(OsString::from_vec(p.clone()));
        unchanged(then, seen.as_ref(), Stamp::at(&p).as_ref())
    });
    if !rules_hold {
        return None;
    }
    let (gone, changed) = gone_and_changed(root, &record, then, marks)?;
    if gone.is_empty() && changed.is_empty() {
        return Some((record, false));
    }
    if gone.iter().any(|rel| rel == ".") {
        return None;
    }
    for rel in &gone {
        let below_it = format!("{rel}/");
        record
            .dirs
            .retain(|d, _| d != rel && !d.starts_with(&below_it));
        record.files.retain(|f| !f.starts_with(&below_it));
    }
    let changed: HashSet<String> = changed
        .into_iter()
        .filter(|rel| record.dirs.contains_key(rel))
        .collect();
    record.files.retain(|f| !changed.contains(parent(f)));
    let seen_rules: HashSet<&[u8]> = record.rules.iter().map(|(p, _)| p.as_slice()).collect();
    let mut new_rules = Vec::new();
    let mut storable = true;
    let mut found_dirs = Vec::new();
    let mut found_files = Vec::new();
    for rel in &changed {
        let start = if rel == "." {
            root.to_path_buf()
        } else {
            root.join(rel)
        };
        // The known directories below this one, by inode: the walk leaves them out.
        let below = format!("{rel}/");
        let known: HashMap<String, u64> = record
            .dirs
            .iter()
            .filter(|(d, _)| d.as_str() != "." && (rel == "." || d.starts_with(&below)))
            .map(|(d, (stamp, _))| (d.clone(), stamp.ino))
            .collect();
        let prune = Arc::new(Prune::new(known));
        let walked = walk_from(root, &start, Some(&prune), pick);
        storable &= walked.whole_rules;
        for (path, stamp) in walked.rules {
            if seen_rules.contains(path.as_os_str().as_bytes()) {
                continue;
            }
            // Rules not read before: fine where everything they cover was walked now (in a
            // new directory, or in this one when it has no known subdirectory); anywhere
            // else they may cover what was not, and the whole tree is walked again.
            let dir = path.parent().unwrap_or(root);
            let covered =
                (dir == start && !prune.kept_any()) || (dir != start && dir.starts_with(&start));
            if stamp.is_some() && !covered {
                return None;
            }
            new_rules.push((path.into_os_string().into_vec(), stamp));
        }
        found_dirs.extend(walked.dirs);
        found_files.extend(walked.files);
    }
    record.rules.extend(new_rules);
    for (rel, stamp) in found_dirs {
        match stamp {
            Some(stamp) => {
                let mark = marks.get(&rel).copied().unwrap_or(0);
                record.dirs.insert(rel, (stamp, mark));
            }
            None => storable = false,
        }
    }
    record.files.extend(found_files);
    record.started = clock.started;
    Some((record, storable))
}

#[cfg(test)]
mod tests {
    use std::os::unix::ffi::OsStrExt;

    use super::*;

    #[test]
    fn a_directory_whose_path_is_not_utf8_is_left_out_with_its_files() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let odd = root.join(std::ffi::OsStr::from_bytes(b"x\xff"));
        std::fs::create_dir_all(odd.join("inner")).unwrap();
        std::fs::write(odd.join("inner/notes.txt"), "").unwrap();
        std::fs::create_dir(root.join("plain")).unwrap();
        std::fs::write(root.join("plain/notes.txt"), "").unwrap();
        let walked = walk_from(root, root, None, &|_| true);
        let dirs: Vec<&str> = walked.dirs.iter().map(|(d, _)| d.as_str()).collect();
        let mut dirs = dirs;
        dirs.sort_unstable();
        assert_eq!(dirs, [".", "plain"]);
        assert_eq!(walked.files, ["plain/notes.txt"]);
    }
}
