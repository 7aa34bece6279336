//! The allowlist file on disk: reading it, and changing it without ever losing a rule.
//!
//! Every change is a read-modify-write under an advisory lock (`flock` on a `.lock` file
//! beside the allowlist, which is never deleted), written to a unique temporary file in the
//! same directory, fsynced, renamed over the old file, and the directory fsynced. Readers
//! take no lock: a rename shows them the old file or the new one, never half of either. A
//! file that does not parse is never written over; every change refuses with the parse
//! error instead.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};

use super::{Allowlist, Pin, Rule};
use crate::repo_files::read_regular_if_present;
use crate::table::Task;

/// The first lines of every file agg writes.
const HEADER: &str = "# agg allowlist: the tasks agents may run through `agg mcp`.\n\
# Precedence: deny > dir > file > task. A pinned allow lapses when what it pinned changes.\n\
# Edit with `agg allow` and `agg deny`; `agg allowlist` shows every rule and lapsed pins.\n\n";

/// The largest allowlist agg reads: some 15,000 rules, far beyond what a person writes.
pub const MAX_ALLOWLIST_BYTES: u64 = 4 * 1024 * 1024;

/// Test builds only: when set, a writer pauses this many seconds between writing the
/// temporary file and renaming it, after saying so on stderr, so a test can kill it there.
#[cfg(debug_assertions)]
const HOLD_BEFORE_RENAME: &str = "AGG_ALLOWLIST_HOLD_BEFORE_RENAME";

/// Why the allowlist could not be read or changed.
#[derive(Debug)]
pub enum StoreError {
    /// Neither `$AGG_ALLOWLIST`, `$XDG_CONFIG_HOME` nor `$HOME` says where it lives.
    NoConfigDir,
    /// The file does not parse, or holds a rule agg cannot use. It is left as it is.
    Corrupt {
        /// The allowlist file.
        path: PathBuf,
        /// The line of the problem, when known.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// A task cannot be pinned: its file no longer defines it, or cannot be read.
    Unpinnable {
        /// The task's unique name.
        task: String,
        /// Why, in words.
        reason: String,
    },
    /// A file operation failed.
    Io {
        /// What agg was doing: `read`, `lock`, `write`, …
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// Why it failed.
        reason: String,
    },
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::NoConfigDir => {
                f.write_str("no config directory: set XDG_CONFIG_HOME or HOME")
            }
            StoreError::Corrupt {
                path,
                line: Some(line),
                message,
            } => write!(f, "{}:{line}: {message}", path.display()),
            StoreError::Corrupt {
                path,
                line: None,
                message,
            } => write!(f, "{}: {message}", path.display()),
            StoreError::Unpinnable { task, reason } => {
                write!(f, "cannot allow `{task}` as its files say it now: {reason}")
            }
            StoreError::Io {
                action,
                path,
                reason,
            } => write!(f, "cannot {action} {}: {reason}", path.display()),
        }
    }
}

impl std::error::Error for StoreError {}

fn io_error(action: &'static str, path: &Path) -> impl FnOnce(io::Error) -> StoreError {
    let path = path.to_path_buf();
    move |e| StoreError::Io {
        action,
        path,
        reason: crate::repo_files::io_reason(&e),
    }
}

fn read_error(path: &Path, reason: String) -> StoreError {
    StoreError::Io {
        action: "read",
        path: path.to_path_buf(),
        reason,
    }
}

/// What a change did to the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// A new rule.
    Added,
    /// A rule with the same target was replaced: re-pinned, or turned from deny to
    /// allow or back.
    Updated,
    /// The rule was already there, exactly so; the file was not written.
    Unchanged,
}

/// The allowlist file: what `agg allow`/`agg deny` and the MCP server's questions to the
/// user write through.
#[derive(Debug, Clone)]
pub struct Store {
    path: PathBuf,
}

impl Store {
    /// The allowlist at `path`.
    pub fn new(path: PathBuf) -> Store {
        Store { path }
    }

    /// The allowlist at its default place ([`super::default_path`]).
    pub fn open_default() -> Result<Store, StoreError> {
        super::default_path()
            .map(Store::new)
            .ok_or(StoreError::NoConfigDir)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads the allowlist; a missing file is an empty list. Read the bounded way: a FIFO,
    /// a device or a file over [`MAX_ALLOWLIST_BYTES`] is an error at once.
    pub fn load(&self) -> Result<Allowlist, StoreError> {
        let bytes = match read_regular_if_present(&self.path, MAX_ALLOWLIST_BYTES) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return Ok(Allowlist::default()),
            Err(reason) => return Err(read_error(&self.path, reason.to_string())),
        };
        match String::from_utf8(bytes) {
            Ok(text) => parse(&self.path, &text),
            Err(_) => Err(read_error(
                &self.path,
                "stream did not contain valid UTF-8".to_owned(),
            )),
        }
    }

    /// Allows `task` of the table rooted at the absolute `root` while its files say what
    /// `pin` recorded (see [`super::Current::task_pin`]); allowing it again re-pins it. With
    /// `any_args`, agents may also add any arguments to it.
    pub fn allow_task(
        &self,
        root: &Path,
        task: &Task,
        pin: Pin,
        any_args: bool,
    ) -> Result<Change, StoreError> {
        let mut rule = Rule::for_task(
            root.join(&task.file_path),
            task.source_name.clone(),
            Some(pin),
        );
        rule.any_args = any_args;
        self.update(|list| list.allow(rule))
    }

    /// Allows every task of the absolute `file`; with a `pin`, only while the file and what
    /// it pulls in stay as they are now.
    pub fn allow_file(
        &self,
        file: &Path,
        pin: Option<Pin>,
        any_args: bool,
    ) -> Result<Change, StoreError> {
        let mut rule = Rule::for_file(file.to_path_buf(), pin);
        rule.any_args = any_args;
        self.update(|list| list.allow(rule))
    }

    /// Allows every task of the file that defines `task` (of the table rooted at the
    /// absolute `root`), unpinned.
    pub fn allow_task_file(&self, root: &Path, task: &Task) -> Result<Change, StoreError> {
        self.allow_file(&root.join(&task.file_path), None, false)
    }

    /// Allows every task defined in a file under the absolute `dir`; with `any_args`, with
    /// any arguments an agent adds.
    pub fn allow_dir(&self, dir: &Path, any_args: bool) -> Result<Change, StoreError> {
        let mut rule = Rule::for_dir(dir.to_path_buf());
        rule.any_args = any_args;
        self.update(|list| list.allow(rule))
    }

    /// Denies `task` of the table rooted at the absolute `root`.
    pub fn deny_task(&self, root: &Path, task: &Task) -> Result<Change, StoreError> {
        let rule = Rule::for_task(root.join(&task.file_path), task.source_name.clone(), None);
        self.update(|list| list.deny(rule))
    }

    /// Denies every task of the absolute `file`.
    pub fn deny_file(&self, file: &Path) -> Result<Change, StoreError> {
        let rule = Rule::for_file(file.to_path_buf(), None);
        self.update(|list| list.deny(rule))
    }

    /// Denies every task defined in a file under the absolute `dir`.
    pub fn deny_dir(&self, dir: &Path) -> Result<Change, StoreError> {
        let rule = Rule::for_dir(dir.to_path_buf());
        self.update(|list| list.deny(rule))
    }

    /// Applies `change` to the allowlist under the lock and writes the result if it
    /// differs. A file that does not parse is left untouched and reported.
    pub fn update<T>(&self, change: impl FnOnce(&mut Allowlist) -> T) -> Result<T, StoreError> {
        let target = self.target();
        let dir = parent(&target);
        crate::own_dirs::OwnDir::named(dir)
            .create()
            .map_err(|e| io_error("create", dir)(e.into()))?;
        let _lock = lock(&lock_path(&target))?;
        remove_stale_temps(&target);
        let before = Store::new(target.clone()).load()?;
        let mut list = before.clone();
        let out = change(&mut list);
        if list != before {
            write(&target, &list)?;
        }
        Ok(out)
    }

    /// The file a write replaces: the allowlist, or what it links to, so a symlinked
    /// allowlist (a dotfiles checkout) stays a symlink.
    fn target(&self) -> PathBuf {
        let is_link = fs::symlink_metadata(&self.path).is_ok_and(|m| m.file_type().is_symlink());
        if is_link && let Ok(real) = fs::canonicalize(&self.path) {
            return real;
        }
        self.path.clone()
    }
}

/// Parses the file's text, checking every rule.
pub(super) fn parse(path: &Path, text: &str) -> Result<Allowlist, StoreError> {
    let list: Allowlist = toml::from_str(text).map_err(|e| StoreError::Corrupt {
        path: path.to_path_buf(),
        line: e
            .span()
            .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1),
        message: e.message().trim_end().to_owned(),
    })?;
    for (allow, key, rules) in [(false, "deny", &list.deny), (true, "allow", &list.allow)] {
        for (i, rule) in rules.iter().enumerate() {
            if let Some(problem) = rule.problem(allow) {
                return Err(StoreError::Corrupt {
                    path: path.to_path_buf(),
                    line: header_line(text, key, i),
                    message: format!("{key} rule {}: {problem}", i + 1),
                });
            }
        }
    }
    Ok(list)
}

/// The line of the `i`th `[[key]]` header, for a rule written in the usual form.
fn header_line(text: &str, key: &str, i: usize) -> Option<usize> {
    let header = format!("[[{key}]]");
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.trim() == header)
        .nth(i)
        .map(|(n, _)| n + 1)
}

fn parent(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || "allowlist.toml".to_owned(),
        |n| n.to_string_lossy().into_owned(),
    )
}

fn lock_path(target: &Path) -> PathBuf {
    parent(target).join(format!("{}.lock", file_name(target)))
}

fn temp_prefix(target: &Path) -> String {
    format!(".{}.", file_name(target))
}

const TEMP_SUFFIX: &str = ".tmp";

/// Blocks until this process holds the allowlist's lock; dropping it unlocks.
fn lock(path: &Path) -> Result<Flock<File>, StoreError> {
    // Non-blocking open: a FIFO named like the lock file answers at once (ENXIO) instead
    // of waiting for a reader; flock's own wait is unaffected.
    let mut file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path)
        .map_err(io_error("open", path))?;
    loop {
        match Flock::lock(file, FlockArg::LockExclusive) {
            Ok(lock) => return Ok(lock),
            Err((again, Errno::EINTR)) => file = again,
            Err((_, errno)) => return Err(io_error("lock", path)(io::Error::from(errno))),
        }
    }
}

/// Removes temporary files a killed writer left behind. Called under the lock, when no
/// other writer can be between its write and its rename.
fn remove_stale_temps(target: &Path) {
    let prefix = temp_prefix(target);
    let Ok(entries) = fs::read_dir(parent(target)) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(&prefix) && name.ends_with(TEMP_SUFFIX) {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Replaces `target` with `list`: unique temporary file, fsync, rename, fsync directory.
fn write(target: &Path, list: &Allowlist) -> Result<(), StoreError> {
    let dir = parent(target);
    let body = toml::to_string_pretty(list).map_err(|e| StoreError::Io {
        action: "encode",
        path: target.to_path_buf(),
        reason: e.to_string(),
    })?;
    let mut tmp = tempfile::Builder::new()
        .prefix(&temp_prefix(target))
        .suffix(TEMP_SUFFIX)
        .tempfile_in(dir)
        .map_err(io_error("create a temporary file in", dir))?;
    // Keep the mode the user gave the file; a new file gets the temp file's 0600.
    if let Ok(meta) = fs::metadata(target) {
        let _ = fs::set_permissions(tmp.path(), meta.permissions());
    }
    let written = tmp
        .write_all(HEADER.as_bytes())
        .and_then(|()| tmp.write_all(body.as_bytes()))
        .and_then(|()| tmp.as_file().sync_all());
    written.map_err(io_error("write", tmp.path()))?;
    hold_before_rename(tmp.path());
    tmp.persist(target)
        .map_err(|e| io_error("replace", target)(e.error))?;
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(io_error("sync", dir))
}

#[cfg(debug_assertions)]
fn hold_before_rename(tmp: &Path) {
    if let Some(secs) = std::env::var(HOLD_BEFORE_RENAME)
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
    {
        eprintln!("agg: wrote {}; holding before rename", tmp.display());
        std::thread::sleep(std::time::Duration::from_secs(secs));
    }
}

#[cfg(not(debug_assertions))]
fn hold_before_rename(_tmp: &Path) {}
