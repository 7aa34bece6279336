//! The warm scan: what the last scan of a repository found, kept in agg's cache, checked
//! with `stat` calls instead of walking and parsing again, and brought up to date by reading
//! exactly what changed ([`Index::load`]).
//!
//! What is kept ([`Head`], the [`DirRecord`] of every directory entered, the [`ParsedFile`] of every
//! task file parsed) and how each part is checked:
//!
//! - every directory entered: its stamp. Same inode, same times, settled: its entries are
//!   the same, so no task file appeared or went there and its ignore files are still the ones
//!   it had. Different times: it is listed again ([`walk_with`] from it, leaving out the
//!   subdirectories still known by inode, which are checked on their own); new subdirectories
//!   are walked whole; gone ones are forgotten with everything below them. A directory whose
//!   inode changed (renamed away, replaced) is gone, and its parent is listed again.
//! - the ignore files in a directory: their stamps. One that changed, appeared or went
//!   decides again what it covers: the directory is walked again whole.
//! - what the rules read outside the tree (ignore files above the root, `.git`, the exclude
//!   files, git's global excludes and the configuration naming it): a change there walks the
//!   whole tree again.
//! - git's index, when the walk needed it: read again when its stamp changed, and the whole
//!   tree walked again only when the tracked task files differ.
//! - every task file parsed: its own stamp and every [`Fact`] its parse learnt. While they
//!   hold, the parse is reused; else the file is parsed again.
//!
//! Whatever the walk or the parses cannot vouch for is done as a cold scan does it, so the
//! result is the cold scan's, byte for byte (a test edits a generated repository hundreds of
//! times and compares). Stamps are trusted only once settled ([`Clock::settled`]); a cache
//! written after the clock was set back is not trusted at all.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use agg_runners::{Diagnostic, Files, child, parent};
use rayon::prelude::*;
use rustc_hash::FxHashSet;

use super::facts::{Fact, FactTable, ParsedFile};
use super::ignores::tracked_at;
use super::index::{DirRecord, Index, Outside};
use super::stamp::{Below, Clock, Stamp};
use super::tracked::{Tracked, worktree_top};
use super::walk::{Options, Prune, walk_with};
use crate::repo_files::RepoFiles;

/// The kind of [`crate::cache`] file the scan keeps (its directory's name).
const KIND: &str = "scan-cache";

/// The kind of [`crate::cache`] file the scan's [`Quick`] checks are kept in, beside it: a
/// listing of an unchanged repository reads them alone, not the scan's record (at 2,000,000
/// files, hundreds of megabytes).
const CHECKS_KIND: &str = "scan-checks";

/// Whether scans may use and write the cache (see [`set_cache`]).
static CACHE: AtomicBool = AtomicBool::new(true);

/// The environment variable that turns the cache off (`1`, or any value but `0` or empty).
const NO_CACHE_VAR: &str = "AGG_NO_CACHE";

/// Turns the cache on or off for this process (`agg list --no-cache`).
pub fn set_cache(on: bool) {
    CACHE.store(on, Ordering::Relaxed);
}

pub(super) fn cache_enabled() -> bool {
    CACHE.load(Ordering::Relaxed)
        && std::env::var_os(NO_CACHE_VAR).is_none_or(|v| v.is_empty() || v == "0")
}

/// Everything kept but the directories and the parses.
#[derive(bitcode::Encode, bitcode::Decode)]
struct Head {
    /// The canonical root.
    root: Vec<u8>,
    /// The root directory's device and inode: another repository at the same path is
    /// another directory.
    root_inode: (u64, u64),
    /// When the scan that wrote this began ([`Clock::started`]).
    started: i64,
    /// Which writing of the cache this is ([`Generation`]).
    generation: Generation,
    outside: Vec<(Vec<u8>, Option<Stamp>)>,
    global: Option<Vec<u8>>,
    tracked: Option<KeptTracked>,
    outside_diagnostics: Vec<Diagnostic>,
}

#[derive(bitcode::Encode, bitcode::Decode)]
struct KeptTracked {
    files: Vec<Vec<u8>>,
    dirs: Vec<Vec<u8>>,
    read_from: Vec<(Vec<u8>, Option<Stamp>)>,
    unreadable: Option<(Vec<u8>, String)>,
}

impl Head {
    /// The clock of the scan that kept this head, when it may be trusted for the tree at
    /// `root` now (`clock`): the same root path and directory (another repository at the same
    /// path is another directory), and a clock that has not been set back since.
    fn fits(&self, root: &Path, clock: Clock) -> Option<Clock> {
        let then = clock.earlier(self.started);
        let root_stamp = Stamp::at(root)?;
        (self.root == bytes(root)
            && self.root_inode == (root_stamp.dev, root_stamp.ino)
            && clock.started >= then.started)
            .then_some(then)
    }
}

/// One writing of the scan cache: the moment its scan began and the writer's pid, which no
/// two writings share. What is derived from an unchanged scan (the named table, see
/// [`crate::table`]) is kept under it, and trusted only while the scan cache is that writing
/// and checks as unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, bitcode::Encode, bitcode::Decode)]
pub struct Generation {
    started: i64,
    pid: u32,
}

/// What [`Index::load_unless_unchanged`] found.
pub enum Loaded {
    /// The repository is what the cache of this generation holds: nothing was parsed,
    /// nothing built, and the index was not put together.
    Unchanged(Generation),
    /// The index as a scan finds it now, and the generation of the cache that holds it
    /// (`None` when no cache holds it: turned off, or not storable).
    Index(Box<Index>, Option<Generation>),
}

/// How a kept parse is checked: the task file's stamp and its facts (the parse itself is a
/// part of its own, decoded only when the index is put together).
#[derive(bitcode::Encode, bitcode::Decode)]
struct KeptCheck {
    main: Option<Stamp>,
    facts: Vec<u32>,
}

/// One directory as kept: its record, its candidate task files (name, adapter, rank) and
/// the manifests of the workspace graph in it (names).
#[derive(bitcode::Encode, bitcode::Decode)]
struct KeptDir {
    record: DirRecord,
    candidates: Vec<(String, u16, u8)>,
    manifests: Vec<String>,
}

/// The checks of a repository that did not change, flat, as git keeps its index: the
/// stamps of every directory entered, of the ignore files in them, of every task file parsed
/// and of every file a parse read, and the few facts no stamp answers. When every one
/// holds, the repository is what the cache holds ([`Warm::Unchanged`]): the walk's records,
/// the candidates and the parses need not be decoded, let alone put together. Any that does
/// not sends the scan the long way ([`warm`]), which finds what changed.
#[derive(bitcode::Encode, bitcode::Decode)]
struct Quick {
    /// Every directory entered and its stamp: the same, settled, or it changed.
    dirs: Vec<(String, Stamp)>,
    /// The ignore files, the task files parsed and the files the parses read, with their
    /// stamps (`None`: there was none), as [`unchanged`] judges them.
    files: Vec<(String, Option<Stamp>)>,
    /// The facts the stamps do not answer: about paths below directories the walk did not
    /// enter.
    facts: Vec<Fact>,
}

impl Quick {
    /// The checks of `index` as it is being kept; `None` when some cannot be put as a stamp
    /// or a fact (a directory without a stamp, a parse that is never reused).
    fn of(index: &Index) -> Option<Quick> {
        let mut dirs = Vec::with_capacity(index.records.len());
        let mut files = Vec::new();
        for (rel, record) in &index.records {
            dirs.push((rel.clone(), record.stamp?));
            for (name, stamp) in &record.ignore_files {
                files.push((child(rel, name), Some(*stamp)));
            }
        }
        let entered = |dir: &str| index.records.contains_key(dir);
        let table = index.facts.facts();
        let mut asked = vec![false; table.len()];
        for (rel, found) in &index.parsed {
            files.push((rel.clone(), Some(found.main?)));
            for &id in &found.facts {
                *asked.get_mut(id as usize)? = true;
            }
        }
        let mut facts = Vec::new();
        for (fact, _) in table.iter().zip(asked).filter(|(_, asked)| *asked) {
            match fact {
                Fact::Read { path, stamp } => files.push((path.clone(), *stamp)),
                // The entries of an entered directory are vouched for by its stamp.
                Fact::Exists { path, .. } | Fact::Siblings { path, .. }
                    if entered(parent(path)) => {}
                Fact::Listing { dir, .. } if entered(dir) => {}
                Fact::Unsteady => return None,
                _ => facts.push(fact.clone()),
            }
        }
        files.sort_by(|(a, _), (b, _)| a.cmp(b));
        files.dedup();
        Some(Quick { dirs, files, facts })
    }

    /// Whether every check holds for the tree at `root`, scanned from `then` on.
    fn holds(&self, root: &Path, then: Clock) -> bool {
        let Some(below) = Below::open(root) else {
            return false;
        };
        let files = RepoFiles::new(root);
        self.dirs
            .par_iter()
            .all(|(rel, seen)| below.stamp(rel).as_ref() == Some(seen) && then.settled(seen))
            && self
                .files
                .par_iter()
                .all(|(rel, seen)| unchanged(then, seen.as_ref(), below.stamp(rel).as_ref()))
            && self
                .facts
                .par_iter()
                .all(|fact| holds(fact, &files, &|rel: &str| below.stamp(rel), then))
    }
}

impl Index {
    /// The index of the tree under `root` as a scan finds it now: from the cache, checked and
    /// brought up to date, when there is one; else walked and parsed. The cache is written
    /// again when anything changed.
    pub fn load(root: &Path) -> Index {
        Index::load_with_generation(root).0
    }

    /// Like [`Index::load`], with the generation of the cache that holds the index (`None`
    /// when none does: the cache turned off, or the index not storable).
    pub fn load_with_generation(root: &Path) -> (Index, Option<Generation>) {
        match Index::load_with(root, false) {
            Loaded::Index(index, generation) => (*index, generation),
            // Not asked for, so never answered: scanned as without a cache.
            Loaded::Unchanged(_) => (Index::build_once(root), None),
        }
    }

    /// Like [`Index::load`], but when the cache holds the repository as it is, says so
    /// instead of putting the index together (what is derived from it may be kept too).
    pub fn load_unless_unchanged(root: &Path) -> Loaded {
        Index::load_with(root, true)
    }

    fn load_with(root: &Path, unchanged_will_do: bool) -> Loaded {
        // Before anything is read: every stamp taken from now on can be checked against it.
        let clock = Clock::now();
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        if !cache_enabled() {
            return Loaded::Index(Box::new(Index::build_once(&root)), None);
        }
        let began = std::time::Instant::now();
        if unchanged_will_do
            && let Some(loaded) = crate::cache::load(CHECKS_KIND, &root)
            && let Some((generation, checks)) = quickly_unchanged(&root, loaded.payload(), clock)
        {
            tracing::debug!(
                "scan cache: every check held ({checks}) in {:?}; nothing changed",
                began.elapsed()
            );
            return Loaded::Unchanged(generation);
        }
        let warm = crate::cache::load(KIND, &root).and_then(|loaded| {
            let read = began.elapsed();
            let kept = split(loaded.payload())?;
            tracing::debug!(
                "scan cache: {} bytes read in {read:?}, decoded in {:?}",
                loaded.payload().len(),
                began.elapsed().saturating_sub(read)
            );
            warm(&root, kept, clock, unchanged_will_do)
        });
        tracing::debug!("scan cache: checked in {:?}", began.elapsed());
        let (mut index, changed, generation) = match warm {
            Some(Warm::Unchanged(generation)) => {
                tracing::debug!("scan cache: nothing changed");
                return Loaded::Unchanged(generation);
            }
            Some(Warm::Index(index, changed, generation)) => (*index, changed, generation),
            None => {
                tracing::debug!("scan cache: none usable; scanning {}", root.display());
                (Index::build(&root), true, None)
            }
        };
        if !changed {
            tracing::debug!("scan cache: nothing changed");
            return Loaded::Index(Box::new(index), generation);
        }
        let mut written = None;
        if index.storable {
            let generation = Generation {
                started: clock.started,
                pid: std::process::id(),
            };
            if let Some((payload, checks)) = payload(&mut index, clock, generation)
                && crate::cache::store(KIND, &index.root, &payload)
            {
                written = Some(generation);
                // Written after the record: checks of a generation whose record is gone
                // still describe the repository that generation saw (what is derived from
                // it is kept under that generation).
                if let Some(checks) = checks {
                    crate::cache::store(CHECKS_KIND, &index.root, &checks);
                }
            }
        }
        Loaded::Index(Box::new(index), written)
    }
}

impl Index {
    /// Whether what the walk's ignore rules read outside the tree's directories (ignore files
    /// above the root, `.git`, the exclude files, git's global excludes and the configuration
    /// naming it, git's index when the walk needed it) is as the scan found it, settled: what
    /// a file watch of the tree's directories does not see. `false` when the scan kept no
    /// stamps.
    pub fn outside_unchanged(&self) -> bool {
        if !self.keeps {
            return false;
        }
        let now = Clock::now();
        let same = |(path, seen): &(PathBuf, Option<Stamp>)| {
            unchanged(now, seen.as_ref(), Stamp::at(path).as_ref())
        };
        let global = ignore::gitignore::gitconfig_excludes_path();
        global == self.outside.global
            && self.outside.seen.iter().all(same)
            && self
                .outside
                .tracked
                .as_ref()
                .is_none_or(|t| t.read_from.iter().all(same))
    }
}

/// What a payload holds; the parses' results are left encoded ([`Kept::parses`]).
struct Kept<'p> {
    head: Head,
    dirs: BTreeMap<String, KeptDir>,
    facts: Vec<Fact>,
    checks: BTreeMap<String, KeptCheck>,
    parsed: &'p [u8],
}

impl Kept<'_> {
    /// The kept parses, whole: each check with its parse result.
    fn parses(
        checks: BTreeMap<String, KeptCheck>,
        parsed: &[u8],
    ) -> Option<BTreeMap<String, ParsedFile>> {
        let parsed: Vec<agg_runners::Parsed> = bitcode::decode(parsed).ok()?;
        if parsed.len() != checks.len() {
            return None;
        }
        Some(
            checks
                .into_iter()
                .zip(parsed)
                .map(|((rel, check), parsed)| {
                    let found = ParsedFile {
                        parsed,
                        main: check.main,
                        facts: check.facts,
                    };
                    (rel, found)
                })
                .collect(),
        )
    }
}

/// The generation of the scan whose checks `payload` holds (a [`CHECKS_KIND`] file: the
/// scan's [`Head`], then its [`Quick`] checks) when every check holds (the repository is what
/// that scan found), with how many there were; `None` when one does not.
fn quickly_unchanged(root: &Path, payload: &[u8], clock: Clock) -> Option<(Generation, String)> {
    let [head, quick] = crate::cache::split_parts::<2>(payload)?;
    let head: Head = bitcode::decode(&payload[head]).ok()?;
    let quick: Quick = bitcode::decode(&payload[quick]).ok()?;
    let generation = head.generation;
    let then = head.fits(root, clock)?;
    let (_, whole, changed) = outside_now(root, head, then);
    let checks = format!(
        "{} directories, {} files and {} other facts unchanged",
        quick.dirs.len(),
        quick.files.len(),
        quick.facts.len()
    );
    (!whole && !changed && quick.holds(root, then)).then_some((generation, checks))
}

/// The parts of a payload.
fn split(payload: &[u8]) -> Option<Kept<'_>> {
    let [head, dirs, facts, checks, parsed] = crate::cache::split_parts::<5>(payload)?;
    let head = bitcode::decode(&payload[head]).ok()?;
    let dirs = bitcode::decode(&payload[dirs]).ok()?;
    let facts: Vec<Fact> = bitcode::decode(&payload[facts]).ok()?;
    let checks: BTreeMap<String, KeptCheck> = bitcode::decode(&payload[checks]).ok()?;
    let parsed = &payload[parsed];
    // Every fact a parse refers to is there.
    let known = u32::try_from(facts.len()).ok()?;
    if checks
        .values()
        .flat_map(|f| &f.facts)
        .any(|&id| id >= known)
    {
        return None;
    }
    Some(Kept {
        head,
        dirs,
        facts,
        checks,
        parsed,
    })
}

/// What is kept of `index`, scanned from `clock` on, and its quick checks (`None` when some
/// cannot be put flat, see [`Quick::of`]); `None` when it cannot all be checked.
fn payload(
    index: &mut Index,
    clock: Clock,
    generation: Generation,
) -> Option<(Vec<u8>, Option<Vec<u8>>)> {
    index.facts.compact(index.parsed.values_mut());
    let quick = Quick::of(index);
    let root_stamp = Stamp::at(&index.root)?;
    let tracked = index.outside.tracked.as_ref().map(|t| KeptTracked {
        files: t.files.iter().map(|p| bytes(p)).collect(),
        dirs: t.dirs.iter().map(|p| bytes(p)).collect(),
        read_from: t.read_from.iter().map(|(p, s)| (bytes(p), *s)).collect(),
        unreadable: t.unreadable.as_ref().map(|(p, r)| (bytes(p), r.clone())),
    });
    let head = Head {
        root: bytes(&index.root),
        root_inode: (root_stamp.dev, root_stamp.ino),
        started: clock.started,
        generation,
        outside: index
            .outside
            .seen
            .iter()
            .map(|(p, s)| (bytes(p), *s))
            .collect(),
        global: index.outside.global.as_deref().map(bytes),
        tracked,
        outside_diagnostics: index.outside.diagnostics.clone(),
    };
    let mut dirs: BTreeMap<&str, KeptDir> = index
        .records
        .iter()
        .map(|(rel, record)| {
            let kept = KeptDir {
                record: record.clone(),
                candidates: Vec::new(),
                manifests: Vec::new(),
            };
            (rel.as_str(), kept)
        })
        .collect();
    for ((adapter, dir), group) in &index.candidates {
        // A candidate in a directory without a record cannot be checked: keep nothing.
        let kept = dirs.get_mut(dir.as_str())?;
        for (rel, rank) in group {
            let name = rel.rsplit_once('/').map_or(rel.as_str(), |(_, n)| n);
            let adapter = u16::try_from(*adapter).unwrap_or(u16::MAX);
            kept.candidates.push((name.to_owned(), adapter, *rank));
        }
    }
    for rel in &index.manifests {
        // A manifest in a directory without a record cannot be checked: keep nothing.
        let (dir, name) = rel.rsplit_once('/').unwrap_or((".", rel.as_str()));
        dirs.get_mut(dir)?.manifests.push(name.to_owned());
    }
    let checks: BTreeMap<String, KeptCheck> = index
        .parsed
        .iter()
        .map(|(rel, found)| {
            let check = KeptCheck {
                main: found.main,
                facts: found.facts.clone(),
            };
            (rel.clone(), check)
        })
        .collect();
    // The parse results, in the order of their checks: moved out for the encoding and put
    // back, not copied.
    let parsed: Vec<agg_runners::Parsed> = index
        .parsed
        .values_mut()
        .map(|f| std::mem::take(&mut f.parsed))
        .collect();
    let parsed_part = bitcode::encode(&parsed);
    for (found, parsed) in index.parsed.values_mut().zip(parsed) {
        found.parsed = parsed;
    }
    let head_part = bitcode::encode(&head);
    let quick =
        quick.map(|quick| crate::cache::join_parts(&[&head_part, &bitcode::encode(&quick)]));
    let payload = crate::cache::join_parts(&[
        &head_part,
        &bitcode::encode(&dirs),
        &bitcode::encode(index.facts.facts()),
        &bitcode::encode(&checks),
        &parsed_part,
    ]);
    Some((payload, quick))
}

fn bytes(path: &Path) -> Vec<u8> {
    path.as_os_str().as_bytes().to_vec()
}

fn path(bytes: &[u8]) -> PathBuf {
    PathBuf::from(OsString::from_vec(bytes.to_vec()))
}

/// Whether what is at a path now (`now`) is what a scan that began at `then` saw there
/// (`seen`): nothing then and now; or the same stamp, settled. For a directory outside the
/// tree (`.git`), only that it is one counts: its entries are not what was read.
pub(super) fn unchanged(then: Clock, seen: Option<&Stamp>, now: Option<&Stamp>) -> bool {
    match (seen, now) {
        (None, None) => true,
        (Some(seen), Some(now)) if seen.is_dir() => now.is_dir(),
        (Some(seen), Some(now)) => seen == now && then.settled(seen),
        _ => false,
    }
}

/// What the warm scan found.
enum Warm {
    /// Nothing changed since the cache of this generation was written (only when
    /// asked for: the index is then not put together).
    Unchanged(Generation),
    /// The index, whether anything changed, and the generation of the cache when nothing did.
    Index(Box<Index>, bool, Option<Generation>),
}

/// The warm scan; `None` when the cache cannot be used (another repository, a clock set
/// back, a tree the walk cannot update in part). With `unchanged_will_do`, an unchanged
/// repository is answered [`Warm::Unchanged`] before the kept parses are even decoded.
fn warm(root: &Path, kept: Kept<'_>, clock: Clock, unchanged_will_do: bool) -> Option<Warm> {
    let Kept {
        head,
        dirs,
        facts,
        checks,
        parsed,
    } = kept;
    let generation = head.generation;
    let then = head.fits(root, clock)?;
    let mut index = Index::empty(root);
    let (outside, whole, mut changed) = outside_now(root, head, then);
    index.outside = outside;
    for (rel, kept) in dirs {
        for (name, adapter, rank) in kept.candidates {
            index.add_candidate(usize::from(adapter), rank, child(&rel, &name));
        }
        for name in kept.manifests {
            index.manifests.insert(child(&rel, &name));
        }
        index.dirs.insert(rel.clone());
        index.records.insert(rel, kept.record);
    }
    let steady = if whole {
        let mut fresh = Index::empty(root);
        let walked = walk_with(
            root,
            root,
            Options {
                stamps: true,
                ..Options::default()
            },
        );
        fresh.take_walk(walked, None);
        index = fresh;
        changed = true;
        FxHashSet::default()
    } else {
        let (walk_changed, steady) = update_walk(&mut index, then)?;
        changed |= walk_changed;
        steady
    };
    if !index.storable {
        return None;
    }
    index.finish_walk();
    index.facts = FactTable::from_facts(facts);
    let holding = holding(&index, checks, then, &steady);
    if unchanged_will_do && !changed && holding.all_hold() {
        tracing::debug!(
            "scan cache: {} directories and {} task files unchanged",
            steady.len(),
            holding.candidates.len()
        );
        // Only memory: freed on another thread, so that the answer need not wait for it.
        let _ = std::thread::Builder::new()
            .name("agg-free".to_owned())
            .spawn(move || drop((index, holding)));
        return Some(Warm::Unchanged(generation));
    }
    let mut parses = Kept::parses(holding.checks, parsed)?;
    let candidates = holding
        .candidates
        .into_iter()
        .map(|(adapter, rel, holds)| {
            let found = parses.remove(&rel).filter(|_| holds);
            (adapter, rel, found)
        })
        .collect();
    let parsed_again = reuse_or_parse(&mut index, candidates, holding.dropped);
    tracing::debug!(
        "scan cache: {} of {} directories unchanged{}, {parsed_again} task files parsed again",
        steady.len(),
        index.records.len(),
        if whole {
            " (the whole tree walked again)"
        } else {
            ""
        },
    );
    changed |= parsed_again > 0;
    Some(Warm::Index(
        Box::new(index),
        changed,
        (!changed).then_some(generation),
    ))
}

/// What the rules read outside the tree, as the cache kept it, checked now: brought up to
/// date, with whether the whole tree must be walked again (a file outside changed, git's
/// global excludes moved, or git's index tracks other task files) and whether anything
/// changed.
fn outside_now(root: &Path, head: Head, then: Clock) -> (Outside, bool, bool) {
    let mut changed = false;
    let global = ignore::gitignore::gitconfig_excludes_path();
    let outside_seen: Vec<(PathBuf, Option<Stamp>)> =
        head.outside.iter().map(|(p, s)| (path(p), *s)).collect();
    let mut whole = global.as_deref().map(bytes) != head.global
        || outside_seen
            .par_iter()
            .any(|(p, s)| !unchanged(then, s.as_ref(), Stamp::at(p).as_ref()));
    let mut tracked = head.tracked.map(|t| Tracked {
        files: t.files.iter().map(|p| path(p)).collect(),
        dirs: t.dirs.iter().map(|p| path(p)).collect(),
        read_from: t.read_from.iter().map(|(p, s)| (path(p), *s)).collect(),
        unreadable: t.unreadable.map(|(p, r)| (path(&p), r)),
    });
    if let Some(known) = &tracked
        && known
            .read_from
            .iter()
            .any(|(p, s)| !unchanged(then, s.as_ref(), Stamp::at(p).as_ref()))
    {
        let fresh = tracked_at(worktree_top(root));
        if fresh.files != known.files || fresh.unreadable != known.unreadable {
            whole = true;
        }
        tracked = Some(fresh);
        changed = true;
    }
    let outside = Outside {
        seen: outside_seen,
        global,
        tracked,
        diagnostics: head.outside_diagnostics,
    };
    (outside, whole, changed)
}

/// How a directory of the cache stands now.
enum Now {
    /// Same entries (and settled).
    Steady,
    /// Same directory, other entries (or not settled): listed again.
    Listed,
    /// Gone, or another directory in its place: its parent is listed again.
    Gone,
}

/// Brings the walk's records up to date: the directories whose entries are the same, and
/// whether anything changed; `None` when a directory entered only for tracked files changed
/// (a walk of part of the tree cannot decide those as the whole walk does).
fn update_walk(index: &mut Index, then: Clock) -> Option<(bool, FxHashSet<String>)> {
    let root = index.root.clone();
    let Checked {
        mut steady,
        listed,
        rewalked,
        gone,
    } = check_dirs(index, &root, then)?;
    if listed.is_empty() && rewalked.is_empty() {
        return Some((false, steady));
    }
    // Directories entered only for tracked files are decided by the whole walk alone.
    let forced = |rel: &str| {
        std::iter::successors(Some(rel), |d| (*d != ".").then(|| parent(d)))
            .any(|d| index.records.get(d).is_some_and(|r| r.forced))
    };
    if listed.iter().chain(&rewalked).any(|d| forced(d)) {
        return None;
    }
    let had_tracked = index.outside.tracked.is_some();
    let mut fresh: BTreeSet<String> = BTreeSet::new();
    for dir in &rewalked {
        if within(&fresh, dir) || !index.records.contains_key(dir) {
            continue;
        }
        rewalk(index, &root, dir);
        fresh.insert(dir.clone());
    }
    for dir in &listed {
        if within(&fresh, dir) || !index.records.contains_key(dir) {
            continue;
        }
        relist(index, &root, dir, &gone, &mut steady, &mut fresh);
    }
    // A walk of part of the tree reports nothing about git's index: one that needed it
    // first, and found it unreadable, must be the whole walk's to report.
    if !had_tracked
        && index
            .outside
            .tracked
            .as_ref()
            .is_some_and(|t| t.unreadable.is_some())
    {
        return None;
    }
    steady.retain(|d| index.records.contains_key(d) && !within(&fresh, d) && !listed.contains(d));
    Some((true, steady))
}

/// Whether `rel` or a directory above it is in `set`.
fn within(set: &BTreeSet<String>, rel: &str) -> bool {
    std::iter::successors(Some(rel), |d| (*d != ".").then(|| parent(d))).any(|d| set.contains(d))
}

/// How the directories of the cache stand now (see [`Now`]).
struct Checked {
    /// Same entries, settled.
    steady: FxHashSet<String>,
    /// To list again: changed, or the parent of one gone.
    listed: BTreeSet<String>,
    /// To walk again whole: an ignore file in it changed.
    rewalked: BTreeSet<String>,
    /// Gone, or another directory in its place.
    gone: FxHashSet<String>,
}

/// Each directory of the cache checked against its stamp and its ignore files' stamps;
/// `None` when the root is gone or cannot be opened.
fn check_dirs(index: &Index, root: &Path, then: Clock) -> Option<Checked> {
    let below = Below::open(root)?;
    let checked: Vec<(String, Now, bool)> = index
        .records
        .par_iter()
        .map(|(rel, record)| {
            let now = match (record.stamp, below.stamp(rel)) {
                (_, None) => Now::Gone,
                (_, Some(now)) if !now.is_dir() => Now::Gone,
                (Some(seen), Some(now)) if !seen.same_inode(&now) => Now::Gone,
                (Some(seen), Some(now)) if seen == now && then.settled(&seen) => Now::Steady,
                _ => Now::Listed,
            };
            let rules_same = record.ignore_files.iter().all(|(name, seen)| {
                unchanged(then, Some(seen), below.stamp(&child(rel, name)).as_ref())
            });
            (rel.clone(), now, rules_same)
        })
        .collect();
    let mut steady = FxHashSet::default();
    let mut listed = BTreeSet::new();
    let mut rewalked = BTreeSet::new();
    let mut gone = FxHashSet::default();
    for (rel, now, rules_same) in checked {
        match now {
            Now::Steady => {
                steady.insert(rel.clone());
            }
            Now::Listed => {
                listed.insert(rel.clone());
            }
            Now::Gone => {
                if rel == "." {
                    return None;
                }
                listed.insert(parent(&rel).to_owned());
                gone.insert(rel.clone());
            }
        }
        if !rules_same && !gone.contains(&rel) {
            rewalked.insert(rel);
        }
    }
    Some(Checked {
        steady,
        listed,
        rewalked,
        gone,
    })
}

/// Lists the directory `dir` again, leaving out the subdirectories still known (they are
/// checked on their own), and walks what is new below it whole; when its ignore files
/// changed meanwhile, walks it again whole. What was walked now leaves `steady` and joins
/// `fresh` (except `dir` itself, listed but not new).
fn relist(
    index: &mut Index,
    root: &Path,
    dir: &str,
    gone: &FxHashSet<String>,
    steady: &mut FxHashSet<String>,
    fresh: &mut BTreeSet<String>,
) {
    let prefix = if dir == "." {
        String::new()
    } else {
        format!("{dir}/")
    };
    let below = |rel: &str| rel != dir && (dir == "." || rel.starts_with(&prefix));
    let known: HashMap<String, u64> = index
        .records
        .iter()
        .filter(|(rel, _)| below(rel) && !gone.contains(*rel))
        .filter_map(|(rel, record)| Some((rel.clone(), record.stamp?.ino)))
        .collect();
    let rules_before = index.records.get(dir).map(|r| r.ignore_files.clone());
    let prune = Arc::new(Prune::new(known));
    let walked = walk_with(
        root,
        &index.abs(dir),
        Options {
            prune: Some(Arc::clone(&prune)),
            tracked: index.outside.tracked.clone(),
            stamps: true,
        },
    );
    let kept = walked.kept.clone();
    let stale: Vec<String> = index
        .records
        .keys()
        .filter(|rel| rel.as_str() == dir || (below(rel) && !within(&kept, rel)))
        .cloned()
        .collect();
    for rel in &stale {
        index.forget_dir(rel);
        index.dirs.remove(rel);
    }
    let walked_dirs: Vec<String> = walked
        .dirs
        .keys()
        .filter(|d| !kept.contains(*d))
        .cloned()
        .collect();
    index.take_walk(walked, Some(dir));
    let rules_after = index.records.get(dir).map(|r| r.ignore_files.clone());
    if rules_after == rules_before {
        // What was walked now is new; the kept directories are checked on their own.
        for d in walked_dirs {
            steady.remove(&d);
            if d != dir {
                fresh.insert(d);
            }
        }
    } else {
        // An ignore file appeared or went: it decides again what it covers.
        rewalk(index, root, dir);
        fresh.insert(dir.to_owned());
    }
}

/// Walks the directory `dir` again whole, forgetting what was known below it.
fn rewalk(index: &mut Index, root: &Path, dir: &str) {
    index.forget_tree(dir);
    let options = Options {
        tracked: index.outside.tracked.clone(),
        stamps: true,
        ..Options::default()
    };
    let walked = walk_with(root, &index.abs(dir), options);
    index.take_walk(walked, Some(dir));
}

/// Which chosen task files' kept parses hold: every chosen candidate (adapter, path, whether
/// its kept check holds), the checks themselves, and whether a kept parse is no longer
/// wanted.
struct Holding {
    candidates: Vec<(usize, String, bool)>,
    checks: BTreeMap<String, KeptCheck>,
    dropped: bool,
}

impl Holding {
    fn all_hold(&self) -> bool {
        !self.dropped && self.candidates.iter().all(|(_, _, holds)| *holds)
    }
}

/// Checks the kept parse of each chosen task file: its stamp and its facts.
fn holding(
    index: &Index,
    checks: BTreeMap<String, KeptCheck>,
    then: Clock,
    steady: &FxHashSet<String>,
) -> Holding {
    let chosen: Vec<(usize, String)> = index.chosen().collect();
    let dropped = chosen
        .iter()
        .filter(|(_, rel)| checks.contains_key(rel))
        .count()
        < checks.len();
    let files = RepoFiles::new(&index.root).with_walk(index);
    let below = Below::open(&index.root);
    let stamp = |rel: &str| match &below {
        Some(below) => below.stamp(rel),
        None => Stamp::at(&files.abs(rel)),
    };
    let table = index.facts.facts();
    // Answers about the entries of a steady directory hold without asking; the others are
    // asked once each, however many parses share them (thousands of packages ask for the
    // same lockfiles and parent manifests).
    let mut asked = vec![false; table.len()];
    for (_, rel) in &chosen {
        for &id in checks
            .get(rel)
            .map(|c| c.facts.as_slice())
            .unwrap_or_default()
        {
            asked[id as usize] = true;
        }
    }
    let verdicts: Vec<bool> = table
        .par_iter()
        .zip(asked)
        .map(|(fact, asked)| asked && (answered(fact, steady) || holds(fact, &files, &stamp, then)))
        .collect();
    let candidates = chosen
        .into_par_iter()
        .map(|(adapter, rel)| {
            let holds = checks.get(&rel).is_some_and(|check| {
                check
                    .main
                    .is_some_and(|seen| unchanged(then, Some(&seen), stamp(&rel).as_ref()))
                    && check.facts.iter().all(|&id| verdicts[id as usize])
            });
            (adapter, rel, holds)
        })
        .collect();
    Holding {
        candidates,
        checks,
        dropped,
    }
}

/// Fills the index's parses: each chosen task file's kept parse when it holds (given), else a
/// new parse. Tells how many files were parsed again (plus one when a kept parse is no longer
/// wanted).
fn reuse_or_parse(
    index: &mut Index,
    candidates: Vec<(usize, String, Option<ParsedFile>)>,
    dropped: bool,
) -> usize {
    let mut jobs = Vec::new();
    for (adapter, rel, found) in candidates {
        if let Some(found) = found {
            index.parsed.insert(rel, found);
        } else {
            tracing::trace!("scan cache: {rel} parsed again");
            jobs.push((adapter, rel));
        }
    }
    let parsed_again = jobs.len() + usize::from(dropped);
    index.parse(&jobs);
    parsed_again
}

/// Whether `fact` holds without asking: an answer about the entries of a directory whose
/// entries are the same ([`Now::Steady`]) — the same inodes, whose kind does not change.
fn answered(fact: &Fact, steady: &FxHashSet<String>) -> bool {
    match fact {
        Fact::Exists { path, .. } => steady.contains(parent(path)),
        Fact::Listing { dir, .. } => steady.contains(dir.as_str()),
        _ => false,
    }
}

/// Whether `fact` still holds, asking the file system (`stamp` stamps a root-relative path).
fn holds(
    fact: &Fact,
    files: &RepoFiles,
    stamp: &(dyn Fn(&str) -> Option<Stamp> + Sync),
    then: Clock,
) -> bool {
    match fact {
        Fact::Read { path, stamp: seen } => unchanged(then, seen.as_ref(), stamp(path).as_ref()),
        Fact::Exists { path, answer } => files.exists_linked(path) == (*answer, false),
        Fact::Executable { path, answer } => files.executable(path) == *answer,
        Fact::Listing { dir, names } => files.read_dir(dir) == *names,
        Fact::Siblings { path, names } => files.siblings(path) == *names,
        Fact::Unsteady => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(tmp.path()).expect("root");
        std::fs::write(root.join("Makefile"), "build:\n\t@true\n").expect("write");
        std::fs::create_dir(root.join("sub")).expect("mkdir");
        std::fs::write(root.join("sub/justfile"), "test:\n    true\n").expect("write");
        (tmp, root)
    }

    const GENERATION: Generation = Generation { started: 1, pid: 1 };

    /// The payload kept of `index`, and a way to run the warm scan on it.
    fn kept(mut index: Index, clock: Clock) -> Vec<u8> {
        payload(&mut index, clock, GENERATION).expect("payload").0
    }

    fn run(root: &Path, payload: &[u8], clock: Clock) -> Option<(Index, bool)> {
        match warm(root, split(payload).expect("split"), clock, false)? {
            Warm::Index(index, changed, _) => Some((*index, changed)),
            Warm::Unchanged(_) => None,
        }
    }

    #[test]
    fn a_cache_written_before_the_clock_was_set_back_is_not_trusted() {
        let (_tmp, root) = repo();
        let clock = Clock::now();
        let kept = kept(Index::build(&root), clock);
        let hour = 3_600_000_000_000;
        assert!(run(&root, &kept, clock.earlier(clock.started - hour)).is_none());
        let (index, _) = run(&root, &kept, clock.earlier(clock.started + hour))
            .expect("a later clock uses the cache");
        assert_eq!(index.parsed.len(), 2);
    }

    #[test]
    fn an_unchanged_repository_is_answered_without_its_parses() {
        let (_tmp, root) = repo();
        let clock = Clock::now();
        let kept = kept(Index::build(&root), clock);
        let hour = 3_600_000_000_000;
        let later = clock.earlier(clock.started + hour);
        // As if the cache were written well after the files: their stamps are settled.
        let settled = || {
            let mut parts = split(&kept).expect("split");
            parts.head.started += hour / 2;
            parts
        };
        let unchanged = warm(&root, settled(), later, true);
        assert!(matches!(unchanged, Some(Warm::Unchanged(GENERATION))));
        // The parses' part is not even read for that answer: damaged, it still holds…
        let mut damaged = settled();
        damaged.parsed = &[];
        assert!(matches!(
            warm(&root, damaged, later, true),
            Some(Warm::Unchanged(GENERATION))
        ));
        // …and asked for the index, the same cache gives it, unchanged, with its generation.
        let Some(Warm::Index(index, changed, generation)) = warm(&root, settled(), later, false)
        else {
            panic!("an index");
        };
        assert!(!changed && generation == Some(GENERATION));
        assert_eq!(index.parsed.len(), 2);
        // A change needs the parses, and damaged ones are no cache at all.
        std::fs::write(root.join("Makefile"), "other:\n\t@true\n").expect("rewrite");
        let mut damaged = settled();
        damaged.parsed = &[];
        assert!(warm(&root, damaged, later, true).is_none());
        let Some(Warm::Index(index, changed, generation)) = warm(&root, settled(), later, true)
        else {
            panic!("a changed repository is an index");
        };
        assert!(changed && generation.is_none());
        assert_eq!(index.into_snapshot().tasks.len(), 2);
    }

    #[test]
    fn another_directory_at_the_same_path_is_another_repository() {
        let (_tmp, root) = repo();
        let clock = Clock::now();
        let kept = kept(Index::build(&root), clock);
        let moved = root.with_extension("moved");
        std::fs::rename(&root, &moved).expect("move away");
        std::fs::create_dir(&root).expect("a new directory at the same path");
        let later = clock.earlier(clock.started + 3_600_000_000_000);
        assert!(run(&root, &kept, later).is_none());
        std::fs::remove_dir(&root).expect("rm");
        std::fs::rename(&moved, &root).expect("move back");
        assert!(run(&root, &kept, later).is_some());
    }

    #[test]
    fn damaged_parts_do_not_decode() {
        let (_tmp, root) = repo();
        let payload = kept(Index::build(&root), Clock::now());
        for len in [0, 7, 8, 9, payload.len() / 2, payload.len() - 1] {
            assert!(split(&payload[..len]).is_none(), "{len} bytes");
        }
        assert!(split(&payload).is_some());
    }
}

#[cfg(test)]
mod racy {
    use super::*;

    /// A file rewritten at the same size within the clock tick of the scan that read it keeps
    /// its stamp: it is read again as long as that stamp is not settled, and trusted after.
    #[test]
    fn a_rewrite_within_the_tick_of_the_scan_is_read_again() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(tmp.path()).expect("root");
        std::fs::write(root.join("Makefile"), "aaaa:\n\t@true\n").expect("write");
        let clock = Clock::now();
        let mut index = Index::build(&root);
        std::fs::write(root.join("Makefile"), "bbbb:\n\t@true\n").expect("rewrite");
        // As if both writes fell in one tick: the rewritten file's stamp is the one kept.
        let now = Stamp::at(&root.join("Makefile"));
        let generation = Generation { started: 1, pid: 1 };
        let payload = payload(&mut index, clock, generation).expect("payload").0;
        let hour = 3_600_000_000_000;
        // The listing `cached_after` after the scan began, of a cache that scan wrote.
        let names = |cached_after: i64| {
            let mut kept = split(&payload).expect("split");
            for check in kept.checks.values_mut() {
                check.main = now;
            }
            kept.head.started += cached_after;
            let later = clock.earlier(clock.started + hour);
            let Some(Warm::Index(index, ..)) = warm(&root, kept, later, false) else {
                panic!("warm");
            };
            index
                .into_snapshot()
                .tasks
                .into_iter()
                .map(|t| t.source_name)
                .collect::<Vec<_>>()
        };
        // Read again: the kept stamp is not older than the scan that took it.
        assert_eq!(names(0), ["bbbb"]);
        // A stamp well older than the scan that took it is trusted (which is why it must
        // settle first: here it vouches for the text before the rewrite).
        assert_eq!(names(hour / 2), ["aaaa"]);
    }
}
