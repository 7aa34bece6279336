//! The directory walk: serial for small trees, ignore's parallel walker past a budget, with
//! the ignore rules of [`Ignores`].

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::{Arc, Mutex};

use agg_runners::Diagnostic;
use ignore::{WalkBuilder, WalkState};

use super::ignores::Ignores;
use super::{NEVER_ENTER, candidate_of};

pub(super) struct Walked {
    pub(super) candidates: Vec<(usize, u8, String)>,
    pub(super) dirs: BTreeSet<String>,
    pub(super) diagnostics: Vec<Diagnostic>,
    /// The manifests the workspace graph reads ([`agg_runners::graph::is_manifest`]).
    pub(super) manifests: Vec<String>,
}

/// Entries one thread walks before the walk is handed to the parallel walker instead.
///
/// A thread pool costs about a millisecond to start and wind down (its idle workers poll
/// every millisecond), which is most of the time a small tree takes on its own; a large tree
/// is walked several times faster in parallel. Walking this many entries first wastes a few
/// milliseconds on a large tree and saves one on every small one.
pub(super) const SERIAL_WALK_BUDGET: usize = 1_000;

/// Walks `start` (the root or a directory under it) and collects candidate task files.
pub(super) fn walk(root: &Path, start: &Path) -> Walked {
    let ignores = Arc::new(Ignores::new(root, start));
    walk_serial(root, start, SERIAL_WALK_BUDGET, &ignores)
        .unwrap_or_else(|| walk_parallel(root, start, &ignores))
}

/// The walk's settings: hidden files seen, links not followed, `.git` and `node_modules`
/// never entered, and ignore files respected (even outside a git repository) through
/// [`Ignores`], which reads them itself: the crate's own reading of ignore files is off,
/// because it would block on a FIFO and read a file of any size.
///
/// Only directories are filtered here, to decide what is entered; a file is checked only
/// when it is a candidate task file ([`visit`]). Most directories hold neither a candidate
/// nor a directory, and so their ignore files are never looked for.
pub(super) fn walk_builder(start: &Path, ignores: &Arc<Ignores>) -> WalkBuilder {
    let mut builder = WalkBuilder::new(start);
    let ignores = Arc::clone(ignores);
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
                || (!NEVER_ENTER.iter().any(|n| e.file_name() == *n) && ignores.admits(e))
        });
    builder
}

/// The walk on this thread, or `None` once it has seen more than `budget` entries.
pub(super) fn walk_serial(
    root: &Path,
    start: &Path,
    budget: usize,
    ignores: &Arc<Ignores>,
) -> Option<Walked> {
    let found = Mutex::new(Vec::new());
    let dirs = Mutex::new(BTreeSet::new());
    let diags = Mutex::new(Vec::new());
    let manifests = Mutex::new(Vec::new());
    for (seen, entry) in walk_builder(start, ignores).build().enumerate() {
        if seen >= budget {
            return None;
        }
        record(root, entry, ignores, (&found, &manifests), &dirs, &diags);
    }
    let mut diagnostics = diags.into_inner().unwrap_or_default();
    diagnostics.extend(ignores.take_diagnostics());
    Some(Walked {
        candidates: found.into_inner().unwrap_or_default(),
        dirs: dirs.into_inner().unwrap_or_default(),
        diagnostics,
        manifests: manifests.into_inner().unwrap_or_default(),
    })
}

pub(super) fn walk_parallel(root: &Path, start: &Path, ignores: &Arc<Ignores>) -> Walked {
    let found = Mutex::new(Vec::new());
    let dirs = Mutex::new(BTreeSet::new());
    let diags = Mutex::new(Vec::new());
    let manifests = Mutex::new(Vec::new());
    walk_builder(start, ignores).build_parallel().run(|| {
        let (found, dirs, diags, manifests) = (&found, &dirs, &diags, &manifests);
        Box::new(move |entry| {
            record(root, entry, ignores, (found, manifests), dirs, diags);
            WalkState::Continue
        })
    });
    let mut diagnostics = diags.into_inner().unwrap_or_default();
    diagnostics.extend(ignores.take_diagnostics());
    Walked {
        candidates: found.into_inner().unwrap_or_default(),
        dirs: dirs.into_inner().unwrap_or_default(),
        diagnostics,
        manifests: manifests.into_inner().unwrap_or_default(),
    }
}

/// Takes one entry of the walk into account.
pub(super) fn record(
    root: &Path,
    entry: Result<ignore::DirEntry, ignore::Error>,
    ignores: &Ignores,
    found: Found<'_>,
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
                visit(rel, &entry, ignores, found, diags);
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

/// Where a walk puts the candidate task files and the manifests it finds.
pub(super) type Found<'a> = (&'a Mutex<Vec<(usize, u8, String)>>, &'a Mutex<Vec<String>>);

/// Takes a file into account when it is a candidate task file, or a manifest of the
/// workspace graph, that no ignore rule excludes.
pub(super) fn visit(
    rel: &Path,
    entry: &ignore::DirEntry,
    ignores: &Ignores,
    (found, manifests): Found<'_>,
    diags: &Mutex<Vec<Diagnostic>>,
) {
    if let Some(rel) = rel.to_str() {
        let candidate = candidate_of(rel);
        let manifest = agg_runners::graph::is_manifest(rel);
        if (candidate.is_some() || manifest) && ignores.admits(entry) {
            if let Some((adapter, rank)) = candidate {
                push(found, (adapter, rank, rel.to_owned()));
            }
            if manifest {
                push(manifests, rel.to_owned());
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

pub(super) fn push_set(set: &Mutex<BTreeSet<String>>, item: String) {
    if let Ok(mut set) = set.lock() {
        set.insert(item);
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
