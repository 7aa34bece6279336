//! The directory walk: on one thread for small trees, on rayon's threads past a budget, with
//! the ignore rules of [`Ignores`]; each directory read once ([`read_dir`]), its listing
//! telling which ignore files there are to read. Besides what it found, a walk reports what
//! it looked at (each directory's [`Stamp`], what the ignore rules read) so that a later scan
//! can tell whether it would find the same; and it can leave out directories a later scan
//! already knows ([`Prune`]).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ffi::OsStr;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use agg_runners::Diagnostic;

use super::ignores::{DirRules, Ignores, Observed, Present};
use super::readdir::{Kind, Listing, read_dir};
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
    known: HashMap<String, u64>,
    kept: Mutex<BTreeSet<String>>,
}

impl Prune {
    pub(super) fn new(known: HashMap<String, u64>) -> Prune {
        Prune {
            known,
            kept: Mutex::new(BTreeSet::new()),
        }
    }

    /// Whether the walk left out any directory.
    pub(super) fn kept_any(&self) -> bool {
        !self.kept.locked().is_empty()
    }

    /// Whether the directory at `rel` (root-relative; `None` when not UTF-8), with inode
    /// `ino`, which the ignore rules admit, is a known one.
    fn keeps(&self, rel: Option<&str>, ino: u64) -> bool {
        let Some(rel) = rel else {
            return false;
        };
        if self.known.get(rel) != Some(&ino) {
            return false;
        }
        self.kept.locked().insert(rel.to_owned());
        true
    }
}

/// Entries the calling thread walks before the rest of the walk is handed to rayon's threads.
///
/// Waking the pool and handing it work costs more than a small tree takes on one thread; a
/// large tree is walked about twice as fast on two cores. What was walked is kept: the walk
/// goes on in parallel from the directories not read yet.
pub(super) const SERIAL_WALK_BUDGET: usize = 1_000;

/// How a walk goes about it, beyond where it starts.
#[derive(Default)]
pub(super) struct Options {
    /// Directories left out: known to a later scan, which checks them itself.
    pub(super) prune: Option<Arc<Prune>>,
    /// What git's index tracks, when it is known already.
    pub(super) tracked: Option<Tracked>,
    /// Whether each directory's stamp is taken (an `fstat` each), for a later scan to check.
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
    let ignores = Ignores::new(root, start, tracked);
    let look = Look {
        root,
        ignores: &ignores,
        stamps,
    };
    let mut walked = walk_collecting(&look, start, prune.as_deref(), SERIAL_WALK_BUDGET);
    if let Some(prune) = prune {
        walked.kept = std::mem::take(&mut prune.kept.locked());
    }
    walked
}

/// What one walk looks with: the root, the ignore rules, whether directories are stamped.
pub(super) struct Look<'a> {
    pub(super) root: &'a Path,
    pub(super) ignores: &'a Ignores,
    pub(super) stamps: bool,
}

/// What a walk tells about what it finds, from any of its threads.
pub(super) trait Visit: Sync {
    /// A directory entered (`"."` for the root), with its stamp when the walk takes stamps;
    /// `exact` as [`FileSeen::exact`].
    fn dir(&self, rel: &str, exact: bool, stamp: Option<Stamp>);
    /// A file, a symlink or any other entry that is not a directory.
    fn file(&self, file: &FileSeen<'_>);
    /// A directory that could not be read, or an entry whose kind could not be told.
    fn error(&self, path: &Path, err: &io::Error);
}

/// A file the walk came across.
pub(super) struct FileSeen<'a> {
    /// Root-relative, `/`-separated; a name that is not UTF-8 is shown with replacement
    /// characters, and [`FileSeen::exact`] is false.
    pub(super) rel: &'a str,
    /// Whether [`FileSeen::rel`] is the path itself, every name along it being UTF-8.
    pub(super) exact: bool,
    pub(super) name: &'a OsStr,
    pub(super) kind: Kind,
    dir: &'a Path,
    rules: &'a DirRules<'a>,
}

impl FileSeen<'_> {
    /// The file's path (the walk's start joined with the relative path).
    pub(super) fn path(&self) -> PathBuf {
        self.dir.join(self.name)
    }

    /// Whether the ignore rules take the file (or git tracks it though they would not).
    pub(super) fn admitted(&self) -> bool {
        self.rules.admits(&self.path(), false)
    }
}

/// The walk: each directory is read once, its subdirectories that the rules admit handed on,
/// and everything else told to `visit`. `.git` and `node_modules` are never entered, links
/// never followed, hidden files seen, and the directories `prune` knows left out.
///
/// The first `budget` entries are walked on this thread; the rest, if there is more, on
/// rayon's threads, each directory a task of its own (a thread takes the newest directory it
/// found itself and steals the oldest of another's).
pub(super) fn walk_tree(
    look: &Look,
    start: &Path,
    prune: Option<&Prune>,
    budget: usize,
    visit: &dyn Visit,
) {
    let Some(rel) = relative(look.root, start) else {
        return;
    };
    let exact = rel.to_str().is_some();
    let rel = rel.to_string_lossy().into_owned();
    let walk = Walk { look, prune, visit };
    match std::fs::symlink_metadata(start) {
        Err(err) => visit.error(start, &err),
        Ok(meta) if !meta.is_dir() => {
            // Walked as a file, as a walker that does not follow links would.
            let (Some(dir), Some(name)) = (start.parent(), start.file_name()) else {
                return;
            };
            let listed = Present::default();
            let rules = look.ignores.in_dir(dir, listed);
            visit.file(&FileSeen {
                rel: &rel,
                exact,
                name,
                kind: Kind::of_metadata(&meta),
                dir,
                rules: &rules,
            });
        }
        Ok(_) => {
            let mut pending = vec![Job {
                path: start.to_path_buf(),
                rel,
                exact,
            }];
            let mut listing = Listing::default();
            let mut seen = 0;
            while seen < budget
                && let Some(job) = pending.pop()
            {
                seen += walk.read(&job, &mut listing, &mut |child| pending.push(child));
            }
            if !pending.is_empty() {
                let walk = &walk;
                rayon::scope(|scope| {
                    for job in pending {
                        scope.spawn(move |scope| walk.read_spawning(scope, &job));
                    }
                });
            }
        }
    }
}

/// A directory to read.
struct Job {
    path: PathBuf,
    /// Root-relative (`""` for the root), lossy as [`FileSeen::rel`].
    rel: String,
    exact: bool,
}

struct Walk<'a> {
    look: &'a Look<'a>,
    prune: Option<&'a Prune>,
    visit: &'a dyn Visit,
}

thread_local! {
    /// The listing buffer of this thread's walks.
    static LISTING: std::cell::RefCell<Listing> = std::cell::RefCell::new(Listing::default());
}

impl Walk<'_> {
    /// Reads `job` on a thread of rayon's, its subdirectories each a task of their own.
    fn read_spawning<'s>(&'s self, scope: &rayon::Scope<'s>, job: &Job) {
        let mut listing = LISTING.with_borrow_mut(std::mem::take);
        self.read(job, &mut listing, &mut |child| {
            scope.spawn(move |scope| self.read_spawning(scope, &child));
        });
        LISTING.set(listing.kept());
    }

    /// Reads one directory: tells `visit` about it and its files, hands its admitted
    /// subdirectories to `next`; returns how many entries it has.
    fn read(&self, job: &Job, listing: &mut Listing, next: &mut dyn FnMut(Job)) -> usize {
        let Look {
            ignores, stamps, ..
        } = *self.look;
        let shown = if job.rel.is_empty() { "." } else { &job.rel };
        let stamp = match read_dir(&job.path, stamps, listing) {
            Ok(stamp) => stamp,
            Err(err) => {
                // Entered, but not read: the walk says so and goes on.
                let stamp = if stamps { Stamp::at(&job.path) } else { None };
                self.visit.dir(shown, job.exact, stamp);
                self.visit.error(&job.path, &err);
                return 0;
            }
        };
        self.visit.dir(shown, job.exact, stamp);
        let rules = ignores.in_dir(&job.path, listing.present);
        let mut rel = String::with_capacity(job.rel.len() + 32);
        for entry in &listing.entries {
            let name = listing.name(entry);
            let utf8 = std::str::from_utf8(name).ok();
            rel.clear();
            if !job.rel.is_empty() {
                rel.push_str(&job.rel);
                rel.push('/');
            }
            match utf8 {
                Some(name) => rel.push_str(name),
                None => rel.push_str(&String::from_utf8_lossy(name)),
            }
            let exact = job.exact && utf8.is_some();
            let name = OsStr::from_bytes(name);
            if entry.kind == Kind::Dir {
                if NEVER_ENTER.iter().any(|n| name == *n) {
                    continue;
                }
                let path = job.path.join(name);
                if !rules.admits(&path, true)
                    || self
                        .prune
                        .is_some_and(|p| p.keeps(exact.then_some(rel.as_str()), entry.ino))
                {
                    continue;
                }
                next(Job {
                    path,
                    rel: rel.clone(),
                    exact,
                });
            } else {
                self.visit.file(&FileSeen {
                    rel: &rel,
                    exact,
                    name,
                    kind: entry.kind,
                    dir: &job.path,
                    rules: &rules,
                });
            }
        }
        for (name, err) in &listing.unreadable {
            let name = OsStr::from_bytes(listing.unreadable_name(name));
            self.visit.error(&job.path.join(name), err);
        }
        if let Some(err) = &listing.cut_short {
            self.visit.error(&job.path, err);
        }
        listing.entries.len() + listing.unreadable.len()
    }
}

/// What the scan's walk keeps of what it finds.
struct Collect<'a> {
    look: &'a Look<'a>,
    found: WalkFinds,
    dirs: Mutex<Vec<(String, Option<Stamp>)>>,
    diags: Mutex<Vec<Diagnostic>>,
}

impl Visit for Collect<'_> {
    fn dir(&self, rel: &str, _: bool, stamp: Option<Stamp>) {
        // A name that is not UTF-8 is kept as shown: the directory is still stamped.
        push(&self.dirs, (rel.to_owned(), stamp));
    }

    fn file(&self, file: &FileSeen<'_>) {
        collect_file(file, &self.found, &self.diags);
    }

    fn error(&self, path: &Path, err: &io::Error) {
        push(&self.diags, walk_error(self.look.root, path, err));
    }
}

/// Walks `start`, the first `budget` entries on this thread, and gathers what it found.
pub(super) fn walk_collecting(
    look: &Look,
    start: &Path,
    prune: Option<&Prune>,
    budget: usize,
) -> Walked {
    let collect = Collect {
        look,
        found: WalkFinds::default(),
        dirs: Mutex::new(Vec::new()),
        diags: Mutex::new(Vec::new()),
    };
    walk_tree(look, start, prune, budget, &collect);
    let Collect {
        found, dirs, diags, ..
    } = collect;
    let mut diagnostics = diags.unlocked();
    diagnostics.extend(look.ignores.take_diagnostics());
    Walked {
        candidates: found.candidates.unlocked(),
        dirs: dirs.unlocked().into_iter().collect(),
        diagnostics,
        observed: look.ignores.take_observed(),
        kept: BTreeSet::new(),
        manifests: found.manifests.unlocked(),
        markers: found.markers.unlocked(),
    }
}

/// `path` relative to `root`. Every path the walk yields was joined onto the root, so a
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
fn collect_file(file: &FileSeen<'_>, found: &WalkFinds, diags: &Mutex<Vec<Diagnostic>>) {
    let rel = file.rel;
    if file.exact {
        // Whatever the ignore rules say: a parse asks whether it exists, not whether it is
        // listed.
        if file.name.to_str().is_some_and(super::is_neighbour_marker) {
            push(&found.markers, (rel.to_owned(), file.kind == Kind::File));
        }
        let candidate = candidate_of(rel);
        let manifest = agg_runners::graph::is_manifest(rel);
        if (candidate.is_some() || manifest) && file.admitted() {
            if let Some((adapter, rank)) = candidate {
                push(&found.candidates, (adapter, rank, rel.to_owned()));
            }
            if manifest {
                push(&found.manifests, rel.to_owned());
            }
        }
    } else if candidate_of(rel).is_some() && file.admitted() {
        push(
            diags,
            Diagnostic::new(
                rel.to_owned(),
                None,
                "path is not valid UTF-8; its tasks are skipped",
            ),
        );
    }
}

pub(super) fn push<T>(list: &Mutex<Vec<T>>, item: T) {
    if let Ok(mut list) = list.lock() {
        list.push(item);
    }
}

/// The diagnostic for a directory the walk could not read, or an entry it could not tell
/// the kind of: its root-relative path (`"."` for the root) and why.
pub(super) fn walk_error(root: &Path, path: &Path, err: &io::Error) -> Diagnostic {
    let file = path
        .strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned();
    let file = if file.is_empty() {
        ".".to_owned()
    } else {
        file
    };
    let message = if err.raw_os_error() == Some(nix::libc::ELOOP) {
        "a symlink; not followed".to_owned()
    } else {
        crate::repo_files::io_reason(err)
    };
    Diagnostic::new(file, None, format!("skipped: {message}"))
}
