//! Where agg keeps files of its own (its config, logs of detached services and the run
//! history, the control sockets of running `agg mcp` servers), and the one way every such
//! directory is made or opened: [`OwnDir::create`] and [`OwnDir::existing`], both through
//! [`OwnDir::open`]. None is in the cache directory, which sandboxed runs may write; the
//! sandbox keeps them all out of a task's reach.
//!
//! A directory of agg's is a user's or the system's directory (the *base*: `~/.local/state`,
//! `$XDG_RUNTIME_DIR`, the temporary directory, the allowlist's directory) and agg's own
//! part below it (`agg`, `agg/history`, `agg-<uid>`). Another local user must not be able
//! to choose what agg reads there or where it writes, so (**Architecture Invariant**, kept
//! by the tests of this module and `tests/attacks/places.rs`):
//!
//! - agg's own part is made one directory at a time, mode 0700, and used only when each
//!   directory of it is a real directory (never a symbolic link) owned by the user agg runs
//!   as; a wider mode is narrowed to 0700;
//! - the base is used only when it (and the link to it, if it is one) belongs to that user
//!   or to root, and no one else may write to it unless its sticky bit is set (`/tmp`):
//!   otherwise another user could swap agg's directory for their own after the check.
//!
//! What fails these is a [`PlaceError`] that names the directory and why; agg then goes on
//! without what it would have kept there (history, a control socket) or stops with that
//! error (`agg run --until-ready`, `agg allow`).

use std::ffi::OsString;
use std::fmt;
use std::fs;
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// The mode of every directory agg makes for itself.
const PRIVATE: u32 = 0o700;

/// A directory agg keeps files in: a base directory and agg's own part below it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnDir {
    base: PathBuf,
    own: Vec<OsString>,
}

/// Whether [`OwnDir::open`] makes what is missing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    /// Make it (mode 0700).
    Create,
    /// Leave it missing: `Ok(None)`.
    Skip,
}

impl OwnDir {
    /// The directory `own` (one or more components) below the base directory `base`.
    pub fn new(base: impl Into<PathBuf>, own: &[&str]) -> OwnDir {
        OwnDir {
            base: base.into(),
            own: own.iter().map(OsString::from).collect(),
        }
    }

    /// A directory the user named (the allowlist's, whose path `AGG_ALLOWLIST` may give):
    /// all of it is the base, checked but never narrowed, and followed if it is a link of
    /// the user's own (a dotfiles checkout).
    pub fn named(dir: &Path) -> OwnDir {
        OwnDir {
            base: dir.to_path_buf(),
            own: Vec::new(),
        }
    }

    /// The per-user directory of agg's state (run history, logs of detached services):
    /// `$XDG_STATE_HOME/agg`, else `~/.local/state/agg`, else `agg-<uid>` under the
    /// system's temporary directory. Not in the cache directory: runs may write there, and
    /// never here.
    pub fn state() -> OwnDir {
        if let Some(dir) = std::env::var_os("XDG_STATE_HOME").filter(|d| !d.is_empty()) {
            return OwnDir::new(dir, &["agg"]);
        }
        if let Some(home) = std::env::var_os("HOME").filter(|d| !d.is_empty()) {
            return OwnDir::new(PathBuf::from(home).join(".local/state"), &["agg"]);
        }
        let own = format!("agg-{}", nix::unistd::geteuid());
        OwnDir::new(std::env::temp_dir(), &[own.as_str()])
    }

    /// The directory `part` inside this one, also agg's own.
    #[must_use]
    pub fn join(&self, part: &str) -> OwnDir {
        let mut own = self.own.clone();
        own.push(part.into());
        OwnDir {
            base: self.base.clone(),
            own,
        }
    }

    /// Its path, unchecked: for messages, and for names of files to be opened once
    /// [`OwnDir::open`] said the directory is sound.
    pub fn path(&self) -> PathBuf {
        let mut path = self.base.clone();
        path.extend(&self.own);
        path
    }

    /// The directory, made if missing (mode 0700), once it is sound (see the module doc).
    pub fn create(&self) -> Result<PathBuf, PlaceError> {
        self.open(Missing::Create)?.ok_or_else(|| PlaceError::Io {
            path: self.path(),
            source: io::ErrorKind::NotFound.into(),
        })
    }

    /// The directory when it exists and is sound, `None` when it does not exist: for
    /// reading what agg kept there, so a directory another user planted is never read.
    pub fn existing(&self) -> Result<Option<PathBuf>, PlaceError> {
        self.open(Missing::Skip)
    }

    /// Checks the base, then each directory of agg's own part in turn, making the missing
    /// ones when `missing` says so. This is the one place the rules of the module doc are
    /// applied.
    pub fn open(&self, missing: Missing) -> Result<Option<PathBuf>, PlaceError> {
        let me = nix::unistd::geteuid().as_raw();
        let io_at = |path: &Path| {
            let path = path.to_path_buf();
            move |source| PlaceError::Io { path, source }
        };
        match fs::symlink_metadata(&self.base) {
            Ok(_) => {}
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                if missing == Missing::Skip {
                    return Ok(None);
                }
                fs::DirBuilder::new()
                    .recursive(true)
                    .mode(PRIVATE)
                    .create(&self.base)
                    .map_err(io_at(&self.base))?;
            }
            Err(err) => return Err(io_at(&self.base)(err)),
        }
        check_base(&self.base, me)?;
        let mut path = self.base.clone();
        for part in &self.own {
            path.push(part);
            let meta = match fs::symlink_metadata(&path) {
                Ok(meta) => meta,
                Err(err) if err.kind() == io::ErrorKind::NotFound => {
                    if missing == Missing::Skip {
                        return Ok(None);
                    }
                    match fs::DirBuilder::new().mode(PRIVATE).create(&path) {
                        // Made by someone else in between: checked below like any other.
                        Err(err) if err.kind() != io::ErrorKind::AlreadyExists => {
                            return Err(io_at(&path)(err));
                        }
                        _ => {}
                    }
                    fs::symlink_metadata(&path).map_err(io_at(&path))?
                }
                Err(err) => return Err(io_at(&path)(err)),
            };
            if meta.file_type().is_symlink() {
                return Err(PlaceError::Symlink { path });
            }
            if !meta.is_dir() {
                return Err(PlaceError::NotADirectory { path });
            }
            if meta.uid() != me {
                return Err(PlaceError::OtherOwner {
                    path,
                    owner: meta.uid(),
                });
            }
            if meta.mode() & 0o077 != 0 {
                fs::set_permissions(&path, fs::Permissions::from_mode(PRIVATE))
                    .map_err(io_at(&path))?;
            }
        }
        Ok(Some(path))
    }
}

/// The per-user config directory: `$XDG_CONFIG_HOME/agg`, else `~/.config/agg`.
pub fn config_dir() -> Option<PathBuf> {
    std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
        .map(|config| config.join("agg"))
}

/// The directory of the control sockets of running `agg mcp` servers (and the records of
/// services): `$XDG_RUNTIME_DIR/agg`, else `run/` in the state directory.
pub fn socket_dir() -> OwnDir {
    match std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => OwnDir::new(dir, &["agg"]),
        None => OwnDir::state().join("run"),
    }
}

/// Whether a directory the user or root owns, that no one else may write to (unless its
/// sticky bit keeps them from replacing what is in it), holds agg's own part.
fn check_base(base: &Path, me: u32) -> Result<(), PlaceError> {
    let unsafe_base = |why: Why| PlaceError::UnsafeBase {
        path: base.to_path_buf(),
        why,
    };
    let trusted = |uid: u32| uid == me || uid == 0;
    let link = fs::symlink_metadata(base).map_err(|source| PlaceError::Io {
        path: base.to_path_buf(),
        source,
    })?;
    if link.file_type().is_symlink() && !trusted(link.uid()) {
        return Err(unsafe_base(Why::Owner(link.uid())));
    }
    let meta = fs::metadata(base).map_err(|source| PlaceError::Io {
        path: base.to_path_buf(),
        source,
    })?;
    if !meta.is_dir() {
        return Err(PlaceError::NotADirectory {
            path: base.to_path_buf(),
        });
    }
    if !trusted(meta.uid()) {
        return Err(unsafe_base(Why::Owner(meta.uid())));
    }
    if meta.mode() & 0o002 != 0 && meta.mode() & 0o1000 == 0 {
        return Err(unsafe_base(Why::WorldWritable));
    }
    Ok(())
}

/// Why a base directory cannot hold agg's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// It (or the link to it) belongs to this user, neither agg's user nor root.
    Owner(u32),
    /// Anyone may write to it, and it has no sticky bit.
    WorldWritable,
}

/// A directory agg would keep its files in that it refuses, or cannot make.
#[derive(Debug)]
pub enum PlaceError {
    /// One of agg's own directories is a symbolic link.
    Symlink {
        /// The link.
        path: PathBuf,
    },
    /// One of agg's own directories belongs to another user.
    OtherOwner {
        /// The directory.
        path: PathBuf,
        /// Its owner's user id.
        owner: u32,
    },
    /// Something that is not a directory stands where one should be.
    NotADirectory {
        /// The path.
        path: PathBuf,
    },
    /// The directory agg's own is made in would let another user replace it.
    UnsafeBase {
        /// The base directory.
        path: PathBuf,
        /// Why.
        why: Why,
    },
    /// A directory could not be made or read.
    Io {
        /// The directory.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

impl fmt::Display for PlaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown =
            |path: &Path| crate::terminal_text::line(&path.display().to_string()).into_owned();
        match self {
            PlaceError::Symlink { path } => write!(
                f,
                "{} is a symbolic link; agg keeps its files only in a real directory of its own, so that a link cannot send them elsewhere (remove the link: agg makes the directory)",
                shown(path)
            ),
            PlaceError::OtherOwner { path, owner } => write!(
                f,
                "{} belongs to another user (uid {owner}), who could choose what agg reads there and where it writes; agg uses only a directory of its own user (remove it, or set XDG_STATE_HOME to a directory of yours)",
                shown(path)
            ),
            PlaceError::NotADirectory { path } => {
                write!(f, "{} is not a directory", shown(path))
            }
            PlaceError::UnsafeBase {
                path,
                why: Why::Owner(owner),
            } => write!(
                f,
                "{} belongs to another user (uid {owner}), who could replace agg's directory in it; agg keeps its files only under a directory of yours or root's (set XDG_STATE_HOME to a directory of yours)",
                shown(path)
            ),
            PlaceError::UnsafeBase {
                path,
                why: Why::WorldWritable,
            } => write!(
                f,
                "anyone may write to {} and it has no sticky bit, so another user could replace agg's directory in it (set XDG_STATE_HOME to a directory of yours)",
                shown(path)
            ),
            PlaceError::Io { path, source } => write!(
                f,
                "cannot make or read {}: {}",
                shown(path),
                crate::repo_files::io_reason(source)
            ),
        }
    }
}

impl std::error::Error for PlaceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            PlaceError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl From<PlaceError> for io::Error {
    fn from(err: PlaceError) -> Self {
        io::Error::other(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nix::unistd::{Gid, Uid};
    use std::os::unix::fs::symlink;

    /// The user the tests plant directories as, when they run as root.
    const NOBODY: u32 = 65534;

    fn chown_to_nobody(path: &Path) {
        std::os::unix::fs::lchown(path, Some(NOBODY), Some(NOBODY)).expect("lchown");
    }

    fn is_root() -> bool {
        Uid::effective().is_root()
    }

    #[test]
    fn missing_directories_are_made_private_one_by_one() {
        let base = tempfile::tempdir().expect("tmp");
        let dir = OwnDir::new(base.path(), &["agg"]).join("runs");
        assert_eq!(dir.existing().expect("sound"), None);
        let made = dir.create().expect("made");
        assert_eq!(made, base.path().join("agg/runs"));
        for path in [base.path().join("agg"), made.clone()] {
            let mode = fs::metadata(&path).expect("made").mode() & 0o777;
            assert_eq!(mode, 0o700, "{}", path.display());
        }
        // A wider mode is narrowed.
        fs::set_permissions(&made, fs::Permissions::from_mode(0o777)).expect("chmod");
        assert_eq!(dir.existing().expect("sound"), Some(made.clone()));
        assert_eq!(fs::metadata(&made).expect("dir").mode() & 0o777, 0o700);
        // A missing base is made too (as `~/.cache` may be missing).
        let deeper = OwnDir::new(base.path().join("x/y"), &["agg"]);
        assert!(deeper.create().is_ok());
    }

    #[test]
    fn a_symlink_anywhere_in_agg_s_own_part_is_refused_and_not_followed() {
        let base = tempfile::tempdir().expect("tmp");
        let elsewhere = tempfile::tempdir().expect("tmp");
        symlink(elsewhere.path(), base.path().join("agg")).expect("symlink");
        let dir = OwnDir::new(base.path(), &["agg", "runs"]);
        for result in [dir.create().map(Some), dir.existing()] {
            let err = result.expect_err("a link");
            assert!(
                matches!(&err, PlaceError::Symlink { path } if path == &base.path().join("agg"))
            );
            assert!(err.to_string().contains("is a symbolic link"), "{err}");
        }
        assert!(
            !elsewhere.path().join("runs").exists(),
            "the link was followed"
        );
        // The last part too.
        fs::remove_file(base.path().join("agg")).expect("rm");
        fs::create_dir(base.path().join("agg")).expect("mkdir");
        symlink(elsewhere.path(), base.path().join("agg/runs")).expect("symlink");
        assert!(matches!(dir.create(), Err(PlaceError::Symlink { .. })));
    }

    #[test]
    fn a_directory_another_user_made_is_refused() {
        if !is_root() {
            eprintln!("SKIPPED own_dirs: chown needs root");
            return;
        }
        let base = tempfile::tempdir().expect("tmp");
        let planted = base.path().join("agg-0");
        fs::create_dir(&planted).expect("mkdir");
        fs::set_permissions(&planted, fs::Permissions::from_mode(0o777)).expect("chmod");
        chown_to_nobody(&planted);
        let dir = OwnDir::new(base.path(), &["agg-0"]).join("history");
        for result in [dir.create().map(Some), dir.existing()] {
            let err = result.expect_err("planted");
            assert!(
                matches!(&err, PlaceError::OtherOwner { path, owner: NOBODY } if path == &planted),
                "{err:?}"
            );
            assert!(
                err.to_string()
                    .contains("belongs to another user (uid 65534)"),
                "{err}"
            );
        }
        assert!(!planted.join("history").exists());
        // A symlink another user planted, to a directory of agg's user, is refused too.
        let mine = base.path().join("mine");
        fs::create_dir(&mine).expect("mkdir");
        let link = base.path().join("agg-1");
        symlink(&mine, &link).expect("symlink");
        chown_to_nobody(&link);
        assert!(matches!(
            OwnDir::new(base.path(), &["agg-1"]).create(),
            Err(PlaceError::Symlink { .. })
        ));
    }

    #[test]
    fn a_base_another_user_could_swap_the_directory_in_is_refused() {
        let base = tempfile::tempdir().expect("tmp");
        let open = base.path().join("open");
        fs::create_dir(&open).expect("mkdir");
        fs::set_permissions(&open, fs::Permissions::from_mode(0o777)).expect("chmod");
        let err = OwnDir::new(&open, &["agg"])
            .create()
            .expect_err("world-writable");
        assert!(
            matches!(
                err,
                PlaceError::UnsafeBase {
                    why: Why::WorldWritable,
                    ..
                }
            ),
            "{err:?}"
        );
        // With the sticky bit, as /tmp has it, no one else can replace agg's directory.
        fs::set_permissions(&open, fs::Permissions::from_mode(0o1777)).expect("chmod");
        assert!(OwnDir::new(&open, &["agg"]).create().is_ok());
        // A directory the user named may be a link of theirs (a dotfiles checkout).
        let link = base.path().join("config");
        symlink(&open, &link).expect("symlink");
        assert!(OwnDir::named(&link).create().is_ok());
        if is_root() {
            let theirs = base.path().join("theirs");
            fs::create_dir(&theirs).expect("mkdir");
            nix::unistd::chown(
                &theirs,
                Some(Uid::from_raw(NOBODY)),
                Some(Gid::from_raw(NOBODY)),
            )
            .expect("chown");
            let err = OwnDir::named(&theirs).create().expect_err("theirs");
            assert!(
                matches!(
                    err,
                    PlaceError::UnsafeBase {
                        why: Why::Owner(NOBODY),
                        ..
                    }
                ),
                "{err:?}"
            );
        }
    }
}
