//! The ignore rules of a walk, read by agg itself rather than by the `ignore` crate's walker,
//! so that every ignore file is read the bounded way: without blocking on a FIFO, regular
//! files only, at most [`MAX_IGNORE_BYTES`] for all of a walk's ignore files together. One
//! that is not (a FIFO, a device, a 50 MB `.gitignore`, the file that takes the total over
//! the limit) is reported as a diagnostic and its patterns do not apply; the rest of the
//! tree is walked as usual.
//!
//! The rules and their precedence are those of the crate's walker as agg configured it
//! (ignore files respected even outside a git repository): the `.ignore` and `.gitignore` of
//! each directory from the entry's up to `/`, deepest first, then the `.git/info/exclude` of
//! the repository holding the walk's start, then git's global excludes file; any `.ignore`
//! match decides before any `.gitignore` match, which decides before an exclude match. The
//! walk asks [`DirRules::admits`] about each directory and each candidate task file; a
//! directory's rules are read when the first entry in it is asked about, once per walk, and
//! only from the ignore files its listing holds (no probe for a file that is not there).
//!
//! As in git, a task file git tracks is read even where a rule matches it ([`Tracked`]): the
//! first time a rule excludes something, the index of the worktree whose top is the root is
//! read, and an excluded directory with a tracked task file below it is still entered, for
//! that file alone. A root below the top of its repository (a folder given as the root) goes
//! by the ignore rules alone, so a folder lists the same wherever it is checked out.
//!
//! Every file the rules were read from, or looked for outside the tree, is reported with its
//! [`Stamp`] ([`Observed`]): a later scan that finds them unchanged knows the rules are too.

use std::cell::OnceCell;
use std::collections::HashMap;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use agg_runners::Diagnostic;
use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::stamp::Stamp;
use super::tracked::{self, Tracked};
use crate::lock::{MutexExt, RwLockExt};
use crate::repo_files::{read_regular_if_present, read_regular_with_meta};

/// The most bytes of ignore files one walk takes in, one file or all together; a file over
/// it, or one that would take the total over it, is reported and its patterns not applied.
/// Real trees hold a few hundred kilobytes at most (GitHub's largest template is under
/// 10 KB). Patterns chosen to be costly take some 400 bytes of memory and half a
/// microsecond to compile per byte (1 MiB: about 400 MB and half a second), and the cost
/// adds up over files: hence one budget for the whole walk, not only one per file.
pub const MAX_IGNORE_BYTES: u64 = 1024 * 1024;

/// A `.git` file (of a worktree or submodule) or a `commondir` file is one short line.
const MAX_GIT_POINTER_BYTES: u64 = 4096;

/// The rules of one directory that has some, and those of the directories above it.
struct Level {
    /// `.ignore`.
    ignore: Gitignore,
    /// `.gitignore`.
    gitignore: Gitignore,
    /// `.git/info/exclude`, for a directory with a `.git`.
    exclude: Gitignore,
    parent: Option<Arc<Level>>,
}

/// The tracked task files of the worktree whose top is `top` (the root, when it is the top
/// of one; else nothing is tracked), with why they could not be read if they could not.
pub(super) fn tracked_at(top: Option<&Path>) -> Tracked {
    let Some(top) = top else {
        return Tracked::default();
    };
    // The top is the root: an index path is a root-relative path.
    let keep = |rel: &str| super::candidate_of(rel).is_some();
    Tracked::read(top, &keep).unwrap_or_else(|unreadable| Tracked {
        unreadable: Some((unreadable.file, unreadable.reason)),
        ..Tracked::default()
    })
}

/// Which ignore files a directory holds, as its listing tells.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) enum Present {
    /// Not known: each is looked for.
    #[default]
    Unknown,
    /// Whether the listing holds an entry named `.ignore`, and one named `.gitignore` (of any
    /// kind, and in any case of letters: a file system that folds case finds either).
    Listed { ignore: bool, gitignore: bool },
}

impl Present {
    /// Takes one entry of the listing into account.
    pub(super) fn note(&mut self, name: &[u8]) {
        let (ignore, gitignore) = match *self {
            Present::Unknown => (false, false),
            Present::Listed { ignore, gitignore } => (ignore, gitignore),
        };
        *self = Present::Listed {
            ignore: ignore || name.eq_ignore_ascii_case(b".ignore"),
            gitignore: gitignore || name.eq_ignore_ascii_case(b".gitignore"),
        };
    }
}

/// The rules that decide about the entries of one directory.
pub(super) struct DirRules<'i> {
    ignores: &'i Ignores,
    dir: &'i Path,
    listed: Present,
    rules: OnceCell<Option<Arc<Level>>>,
}

impl DirRules<'_> {
    /// Whether the walk takes `path`, an entry of this directory: false when an ignore rule
    /// excludes it and it is neither a tracked task file nor a directory holding one.
    pub(super) fn admits(&self, path: &Path, is_dir: bool) -> bool {
        let ignores = self.ignores;
        let rules = self
            .rules
            .get_or_init(|| ignores.rules_in_listed(self.dir, self.listed));
        let forced_parent = ignores.any_forced.load(Ordering::Relaxed)
            && ignores.forced.read_locked().contains(self.dir);
        !(forced_parent || ignores.ignored(rules.as_deref(), path, is_dir))
            || ignores.tracked_below(path, is_dir)
    }
}

/// What a walk's ignore rules were read from.
#[derive(Debug, Default)]
pub(super) struct Observed {
    /// Ignore files present in a directory of the tree (an absent one is told by the
    /// directory's own stamp), absolute.
    pub(super) inside: Vec<(PathBuf, Stamp)>,
    /// Files read or looked for outside the tree's directories (ignore files above the root,
    /// `.git`, the exclude files), absolute, with their stamp or `None` when absent.
    pub(super) outside: Vec<(PathBuf, Option<Stamp>)>,
    /// The path of git's global excludes file, as git's configuration names it.
    pub(super) global: Option<PathBuf>,
    /// The tracked task files, when the walk needed them.
    pub(super) tracked: Option<Tracked>,
    /// Directories entered only for the tracked task files below them, absolute.
    pub(super) forced: Vec<PathBuf>,
    /// Whether an ignore file was skipped for the walk's byte budget.
    pub(super) over_budget: bool,
}

/// The rules in force during one walk, and what was wrong with the files they come from.
pub(super) struct Ignores {
    root: PathBuf,
    global: Gitignore,
    /// The rules in force inside each directory the walk looked into (`None`: none).
    levels: RwLock<HashMap<PathBuf, Option<Arc<Level>>>>,
    diagnostics: Mutex<Vec<Diagnostic>>,
    /// Whether problems of ignore files above `start` are reported: only when the walk starts
    /// at the root, so that walking a new directory later does not report them again.
    report_above_start: bool,
    start: PathBuf,
    /// Bytes of ignore files this walk may still take in.
    budget: AtomicU64,
    /// The root, when it is the top of a git worktree: its index says what git tracks.
    top: Option<PathBuf>,
    /// The tracked task files, read the first time a rule excludes something.
    tracked: OnceLock<Tracked>,
    /// Excluded directories entered only for the tracked task files below them: everything
    /// else inside them stays excluded.
    forced: RwLock<HashSet<PathBuf>>,
    /// Whether `forced` holds anything, so a walk that needs none never takes its lock.
    any_forced: AtomicBool,
    observed: Mutex<Observed>,
}

impl Ignores {
    /// The rules for a walk of `start` (the root, or a directory under it), with those of
    /// every directory above it already read; `tracked`, when given, is what git's index
    /// says (known already), so that it is not read again.
    pub(super) fn new(root: &Path, start: &Path, tracked: Option<Tracked>) -> Ignores {
        let mut ignores = Ignores {
            root: root.to_path_buf(),
            global: Gitignore::empty(),
            levels: RwLock::new(HashMap::new()),
            diagnostics: Mutex::new(Vec::new()),
            report_above_start: start == root,
            start: start.to_path_buf(),
            budget: AtomicU64::new(MAX_IGNORE_BYTES),
            top: tracked::worktree_top(root).map(Path::to_path_buf),
            tracked: OnceLock::new(),
            forced: RwLock::new(HashSet::new()),
            any_forced: AtomicBool::new(false),
            observed: Mutex::new(Observed::default()),
        };
        if let Some(tracked) = tracked {
            let _ = ignores.tracked.set(tracked);
        }
        let global = ignore::gitignore::gitconfig_excludes_path();
        ignores.global = global
            .as_deref()
            .map_or_else(Gitignore::empty, |path| ignores.rules(root, path));
        ignores.observe().global = global;
        ignores.rules_in(start);
        ignores
    }

    fn observe(&self) -> std::sync::MutexGuard<'_, Observed> {
        self.observed.locked()
    }

    /// What the rules were read from so far (the tracked files among it when they were read,
    /// and the directories entered for them).
    pub(super) fn take_observed(&self) -> Observed {
        let mut observed = std::mem::take(&mut *self.observe());
        observed.tracked = self.tracked.get().cloned();
        observed.forced = self.forced.read_locked().iter().cloned().collect();
        observed
    }

    /// Notes a file read or looked for outside the tree's directories.
    fn outside(&self, path: &Path) {
        let stamp = Stamp::at(path);
        self.observe().outside.push((path.to_path_buf(), stamp));
    }

    /// The rules for the entries of `dir`, whose listing says which ignore files it holds:
    /// read when the first entry is asked about.
    pub(super) fn in_dir<'i>(&'i self, dir: &'i Path, listed: Present) -> DirRules<'i> {
        DirRules {
            ignores: self,
            dir,
            listed,
            rules: OnceCell::new(),
        }
    }

    /// Whether `path`, which a rule excludes, is a tracked task file or a directory with one
    /// below it (then entered, and remembered as entered only for that).
    fn tracked_below(&self, path: &Path, is_dir: bool) -> bool {
        let tracked = self.tracked.get_or_init(|| self.read_tracked());
        if !is_dir {
            return tracked.files.contains(path);
        }
        if !tracked.dirs.contains(path) {
            return false;
        }
        self.forced.write_locked().insert(path.to_path_buf());
        self.any_forced.store(true, Ordering::Relaxed);
        true
    }

    /// The tracked task files under the root; none outside a git worktree, and none (with a
    /// diagnostic) when its index cannot be read.
    fn read_tracked(&self) -> Tracked {
        let tracked = tracked_at(self.top.as_deref());
        if let Some((file, reason)) = &tracked.unreadable {
            self.report(file, None, reason.clone());
        }
        tracked
    }

    /// What was wrong with the ignore files read so far.
    pub(super) fn take_diagnostics(&self) -> Vec<Diagnostic> {
        std::mem::take(&mut self.diagnostics.locked())
    }

    fn ignored(&self, mut level: Option<&Level>, path: &Path, is_dir: bool) -> bool {
        let (mut ignore, mut gitignore, mut exclude) = (Match::None, Match::None, Match::None);
        while let Some(l) = level {
            if ignore.is_none() {
                ignore = l.ignore.matched(path, is_dir).map(|_| ());
            }
            if gitignore.is_none() {
                gitignore = l.gitignore.matched(path, is_dir).map(|_| ());
            }
            if exclude.is_none() {
                exclude = l.exclude.matched(path, is_dir).map(|_| ());
            }
            level = l.parent.as_deref();
        }
        match ignore.or(gitignore).or(exclude) {
            Match::None => self.global.matched(path, is_dir).is_ignore(),
            decided => decided.is_ignore(),
        }
    }

    /// The rules in force inside `dir`, read on first use.
    fn rules_in(&self, dir: &Path) -> Option<Arc<Level>> {
        self.rules_in_listed(dir, Present::Unknown)
    }

    /// [`Ignores::rules_in`], reading only the ignore files `listed` says `dir` holds.
    fn rules_in_listed(&self, dir: &Path, listed: Present) -> Option<Arc<Level>> {
        if let Some(known) = self.levels.read_locked().get(dir) {
            return known.clone();
        }
        let parent = dir.parent().and_then(|p| self.rules_in(p));
        let read = |name: &str, held: bool| {
            if held {
                self.rules(dir, &dir.join(name))
            } else {
                Gitignore::empty()
            }
        };
        let (has_ignore, has_gitignore) = match listed {
            Present::Unknown => (true, true),
            Present::Listed { ignore, gitignore } => (ignore, gitignore),
        };
        let ignore = read(".ignore", has_ignore);
        let gitignore = read(".gitignore", has_gitignore);
        // The repository's own exclude file is found at the root or above it. A repository
        // nested in the tree is not git's business when it lists this one, and looking for
        // a `.git` in every directory would cost a third more system calls. (The root, not
        // the start: a walk of one directory must decide as the walk of the whole tree.)
        let exclude = if self.root.starts_with(dir) {
            self.git_common_dir(dir)
                .map_or_else(Gitignore::empty, |git| {
                    self.rules(dir, &git.join("info").join("exclude"))
                })
        } else {
            Gitignore::empty()
        };
        let level = if ignore.is_empty() && gitignore.is_empty() && exclude.is_empty() {
            parent
        } else {
            Some(Arc::new(Level {
                ignore,
                gitignore,
                exclude,
                parent,
            }))
        };
        self.levels
            .write_locked()
            .insert(dir.to_path_buf(), level.clone());
        level
    }

    /// The patterns of the ignore file `file`, matched relative to `dir`; none when it is
    /// absent or cannot be read (reported).
    fn rules(&self, dir: &Path, file: &Path) -> Gitignore {
        // An ignore file of a directory of the tree: its directory's stamp tells whether it
        // is there; anything else is looked at again by a later scan.
        let inside = file.parent() == Some(dir)
            && dir.starts_with(&self.root)
            && file
                .file_name()
                .is_some_and(|n| n == ".ignore" || n == ".gitignore");
        let read = read_regular_with_meta(file, MAX_IGNORE_BYTES);
        match (&read, inside) {
            (Ok(Some((_, meta))), true) => {
                self.observe()
                    .inside
                    .push((file.to_path_buf(), Stamp::of(meta)));
            }
            (Ok(None), true) => {}
            (Err(_), true) => {
                if let Some(stamp) = Stamp::at(file) {
                    self.observe().inside.push((file.to_path_buf(), stamp));
                }
            }
            (Ok(Some((_, meta))), false) => {
                self.observe()
                    .outside
                    .push((file.to_path_buf(), Some(Stamp::of(meta))));
            }
            (_, false) => self.outside(file),
        }
        let bytes = match read {
            Ok(Some((bytes, _))) => bytes,
            Ok(None) => return Gitignore::empty(),
            Err(reason) => {
                self.report(
                    file,
                    None,
                    format!("{reason}; ignore file skipped: its patterns do not apply"),
                );
                return Gitignore::empty();
            }
        };
        let len = bytes.len() as u64;
        let within = self
            .budget
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |left| {
                left.checked_sub(len)
            })
            .is_ok();
        if !within {
            self.observe().over_budget = true;
            self.report(
                file,
                None,
                format!(
                    "with this file the ignore files of the tree are over {} MiB together, the limit; ignore file skipped: its patterns do not apply",
                    MAX_IGNORE_BYTES >> 20
                ),
            );
            return Gitignore::empty();
        }
        let text = String::from_utf8_lossy(&bytes);
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let mut builder = GitignoreBuilder::new(dir);
        let mut bad = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if let Err(err) = builder.add_line(Some(file.to_path_buf()), line) {
                bad.push((i + 1, err));
            }
        }
        // One report per file: a file of bad patterns must not become a flood of diagnostics.
        if let Some((line, err)) = bad.first() {
            let more = match bad.len() {
                1 => String::new(),
                n => format!(" (and {} more bad patterns)", n - 1),
            };
            self.report(
                file,
                u32::try_from(*line).ok(),
                format!("{err}; pattern skipped{more}"),
            );
        }
        builder.build().unwrap_or_else(|err| {
            self.report(file, None, format!("{err}; ignore file skipped"));
            Gitignore::empty()
        })
    }

    /// The git directory whose `info/exclude` applies to `dir`: `dir/.git`, or for a worktree
    /// or submodule (`.git` is a file saying `gitdir: PATH`) the common directory it names.
    fn git_common_dir(&self, dir: &Path) -> Option<PathBuf> {
        let dot_git = dir.join(".git");
        self.outside(&dot_git);
        let meta = std::fs::metadata(&dot_git).ok()?;
        if meta.is_dir() {
            return Some(dot_git);
        }
        let read = |path: &Path| {
            self.outside(path);
            read_regular_if_present(path, MAX_GIT_POINTER_BYTES)
        };
        let first_line = |path: &Path| match read(path) {
            Ok(bytes) => bytes.and_then(|b| {
                let text = String::from_utf8(b).ok()?;
                text.lines().next().map(|l| l.trim_end().to_owned())
            }),
            Err(reason) => {
                self.report(path, None, format!("{reason}; not read"));
                None
            }
        };
        let git_dir = dir.join(first_line(&dot_git)?.strip_prefix("gitdir: ")?);
        match first_line(&git_dir.join("commondir")) {
            Some(common) => Some(git_dir.join(common)),
            None => Some(git_dir),
        }
    }

    fn report(&self, file: &Path, line: Option<u32>, message: String) {
        let inside = file.starts_with(&self.start) || self.report_above_start;
        if !inside {
            return;
        }
        let shown = file.strip_prefix(&self.root).unwrap_or(file);
        let diagnostic = Diagnostic::new(shown.to_string_lossy().into_owned(), line, message);
        self.diagnostics.locked().push(diagnostic);
    }
}
