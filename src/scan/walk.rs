//! The directory walk: serial for small trees, ignore's parallel walker past a budget, with
//! the ignore rules of [`Ignores`]. Besides what it found, a walk reports what it looked at
//! (each directory's [`Stamp`], what the ignore rules read) so that a later scan can tell
//! whether it would find the same; and it can leave out directories a later scan already
//! knows ([`Prune`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use agg_runners::Diagnostic;
use ignore::{WalkBuilder, WalkState};

use super::ignores::{Ignores, Observed};
use super::stamp::Stamp;
use super::tracked::Tracked;
use super::{NEVER_ENTER, candidate_of};
use crate::lock::MutexExt;

pub(super) struct Walked {
    pub(super) candidates: Vec<(usize, u8, String)>,
    /// Every directory entered, with its stamp (`None` when it could not be taken).
    pub(super) dirs: BTreeMap<String, Option<Stamp>>,
    pub(super) diagnostics: Vec<Diagnostic>,
    /// What the ignore rules read, and what they made of git's index.
    pub(super) observed: Observed,
    /// Directories [`Prune`] left out: entered, and not walked again.
    pub(super) kept: BTreeSet<String>,
    /// The manifests the workspace graph reads ([`agg_runners::graph::is_manifest`]).
    pub(super) manifests: Vec<String>,
    /// The neighbour markers seen ([`super::is_neighbour_marker`]), and whether each is a
    /// regular file (not a symlink, a FIFO, …).
    pub(super) markers: Vec<(String, bool)>,
}

/// What a walk finds among the files: candidate task files (adapter, rank, path) and the
/// manifests of the workspace graph.
#[derive(Default)]
pub(super) struct WalkFinds {
    candidates: Mutex<Vec<(usize, u8, String)>>,
    manifests: Mutex<Vec<String>>,
    markers: Mutex<Vec<(String, bool)>>,
}

/// Directories a walk enters without walking them again: a later scan knows them already
/// (by root-relative path and inode) and checks them itself.
pub(super) struct Prune {
    root: PathBuf,
    known: HashMap<String, u64>,
    kept: Mutex<BTreeSet<String>>,
}

impl Prune {
    pub(super) fn new(root: &Path, known: HashMap<String, u64>) -> Prune {
        Prune {
            root: root.to_path_buf(),
            known,
            kept: Mutex::new(BTreeSet::new()),
        }
    }

    /// Whether the walk left out any directory.
    pub(super) fn kept_any(&self) -> bool {
        !self.kept.locked().is_empty()
    }

    /// Whether the directory `entry` (which the ignore rules admit) is a known one.
    fn keeps(&self, entry: &ignore::DirEntry) -> bool {
        if entry.depth() == 0 {
            return false;
        }
        let Some(rel) = relative(&self.root, entry.path()).and_then(Path::to_str) else {
            return false;
        };
        if entry.ino().is_none() || self.known.get(rel).copied() != entry.ino() {
            return false;
        }
        self.kept.locked().insert(rel.to_owned());
        true
    }
}

/// Entries one thread walks before the walk is handed to the parallel walker instead.
///
/// A thread pool costs about a millisecond to start and wind down (its idle workers poll
/// every millisecond), which is most of the time a small tree takes on its own; a large tree
/// is walked several times faster in parallel. Walking this many entries first wastes a few
/// milliseconds on a large tree and saves one on every small one.
pub(super) const SERIAL_WALK_BUDGET: usize = 1_000;

/// How a walk goes about it, beyond where it starts.
#[derive(Default)]
pub(super) struct Options {
    /// Directories left out: known to a later scan, which checks them itself.
    pub(super) prune: Option<Arc<Prune>>,
    /// What git's index tracks, when it is known already.
    pub(super) tracked: Option<Tracked>,
    /// Whether each directory's stamp is taken (a `stat` each), for a later scan to check.
    pub(super) stamps: bool,
}

/// Walks `start` (the root or a directory under it) and collects candidate task files.
pub(super) fn walk(root: &Path, start: &Path, stamps: bool) -> Walked {
    walk_with(
        root,
        start,
        Options {
            stamps,
            ..Options::default()
        },
    )
}

/// [`walk`], with [`Options`].
pub(super) fn walk_with(root: &Path, start: &Path, options: Options) -> Walked {
    let Options {
        prune,
        tracked,
        stamps,
    } = options;
    let ignores = Arc::new(Ignores::new(root, start, tracked));
    let look = Look {
        root,
        ignores: &ignores,
        stamps,
    };
    let mut walked = walk_serial(&look, start, SERIAL_WALK_BUDGET, prune.as_ref())
        .unwrap_or_else(|| walk_parallel(&look, start, prune.as_ref()));
    if let Some(prune) = prune {
        walked.kept = std::mem::take(&mut prune.kept.locked());
    }
    walked
}

/// The walk's settings: hidden files seen, links not followed, `.git` and `node_modules`
/// never entered, and ignore files respected (even outside a git repository) through
/// [`Ignores`], which reads them itself: the crate's own reading of ignore files is off,
/// because it would block on a FIFO and read a file of any size.
///
/// Only directories are filtered here, to decide what is entered; a file is checked only
/// when it is a candidate task file ([`visit`]). Most directories hold neither a candidate
/// nor a directory, and so their ignore files are never looked for.
pub(super) fn walk_builder(
    start: &Path,
    ignores: &Arc<Ignores>,
    prune: Option<&Arc<Prune>>,
) -> WalkBuilder {
    let mut builder = WalkBuilder::new(start);
    let ignores = Arc::clone(ignores);
    let prune = prune.map(Arc::clone);
    builder
        .hidden(false)
        .git_ignore(false)
        .git_exclude(false)
        .git_global(false)
        .ignore(false)
        .parents(false)
        .follow_links(false)
        .filter_entry(move |e| {
            !e.file_type().is_some_and(|t| t.is_dir())
                || (!NEVER_ENTER.iter().any(|n| e.file_name() == *n)
                    && ignores.admits(e)
                    && !prune.as_ref().is_some_and(|p| p.keeps(e)))
        });
    builder
}

/// The walk on this thread, or `None` once it has seen more than `budget` entries.
/// What one walk looks with: the root, the ignore rules, whether directories are stamped.
pub(super) struct Look<'a> {
    pub(super) root: &'a Path,
    pub(super) ignores: &'a Arc<Ignores>,
    pub(super) stamps: bool,
}

pub(super) fn walk_serial(
    look: &Look,
    start: &Path,
    budget: usize,
    prune: Option<&Arc<Prune>>,
) -> Option<Walked> {
    let found = WalkFinds::default();
    let dirs = Mutex::new(Vec::new());
    let diags = Mutex::new(Vec::new());
    for (seen, entry) in walk_builder(start, look.ignores, prune).build().enumerate() {
        if seen >= budget {
            if let Some(prune) = prune {
                prune.kept.locked().clear();
            }
            return None;
        }
        record(look, entry, &found, &dirs, &diags);
    }
    Some(finish(look.ignores, found, dirs, diags))
}

pub(super) fn walk_parallel(look: &Look, start: &Path, prune: Option<&Arc<Prune>>) -> Walked {
    let found = WalkFinds::default();
    let dirs = Mutex::new(Vec::new());
    let diags = Mutex::new(Vec::new());
    walk_builder(start, look.ignores, prune)
        .build_parallel()
        .run(|| {
            let (found, dirs, diags) = (&found, &dirs, &diags);
            Box::new(move |entry| {
                record(look, entry, found, dirs, diags);
                WalkState::Continue
            })
        });
    finish(look.ignores, found, dirs, diags)
}

fn finish(
    ignores: &Ignores,
    found: WalkFinds,
    dirs: Mutex<Vec<(String, Option<Stamp>)>>,
    diags: Mutex<Vec<Diagnostic>>,
) -> Walked {
    let mut diagnostics = diags.unlocked();
    diagnostics.extend(ignores.take_diagnostics());
    Walked {
        candidates: found.candidates.unlocked(),
        dirs: dirs.unlocked().into_iter().collect(),
        diagnostics,
        observed: ignores.take_observed(),
        kept: BTreeSet::new(),
        manifests: found.manifests.unlocked(),
        markers: found.markers.unlocked(),
    }
}

/// Takes one entry of the walk into account.
pub(super) fn record(
    look: &Look,
    entry: Result<ignore::DirEntry, ignore::Error>,
    found: &WalkFinds,
    dirs: &Mutex<Vec<(String, Option<Stamp>)>>,
    diags: &Mutex<Vec<Diagnostic>>,
) {
    let root = look.root;
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
                // Taken after the scan began, which is all a stamp needs (see `Clock`).
                let stamp = if look.stamps {
                    entry.metadata().ok().map(|m| Stamp::of(&m))
                } else {
                    None
                };
                push(dirs, (rel, stamp));
            } else {
                visit(rel, &entry, look.ignores, found, diags);
            }
        }
        Err(err) => push(diags, walk_error(root, &err)),
    }
}

/// `path` relative to `root`. Every path the walker yields was joined onto the root, so a
/// string prefix test does, much faster, what `Path::strip_prefix` does component-wise.
pub(super) fn relative<'p>(root: &Path, path: &'p Path) -> Option<&'p Path> {
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

/// Takes a file into account when it is a candidate task file that no ignore rule excludes.
pub(super) fn visit(
    rel: &Path,
    entry: &ignore::DirEntry,
    ignores: &Ignores,
    found: &WalkFinds,
    diags: &Mutex<Vec<Diagnostic>>,
) {
    if let Some(rel) = rel.to_str() {
        // Whatever the ignore rules say: a parse asks whether it exists, not whether it is
        // listed.
        if entry
            .file_name()
            .to_str()
            .is_some_and(super::is_neighbour_marker)
        {
            let regular = entry.file_type().is_some_and(|t| t.is_file());
            push(&found.markers, (rel.to_owned(), regular));
        }
        let candidate = candidate_of(rel);
        let manifest = agg_runners::graph::is_manifest(rel);
        if (candidate.is_some() || manifest) && ignores.admits(entry) {
            if let Some((adapter, rank)) = candidate {
                push(&found.candidates, (adapter, rank, rel.to_owned()));
            }
            if manifest {
                push(&found.manifests, rel.to_owned());
            }
        }
    } else {
        let lossy = rel.to_string_lossy();
        if candidate_of(&lossy).is_some() && ignores.admits(entry) {
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

pub(super) fn push<T>(list: &Mutex<Vec<T>>, item: T) {
    if let Ok(mut list) = list.lock() {
        list.push(item);
    }
}

pub(super) fn walk_error(root: &Path, err: &ignore::Error) -> Diagnostic {
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
