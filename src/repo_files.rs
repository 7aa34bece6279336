//! The real file system behind the adapters' read-only [`Files`] view.
//!
//! Every path is root-relative and confined to the root: a `..` that would leave it, or a
//! symlink that points outside it, reads as missing. Reads are size-capped and cached,
//! because many packages walk up to the same parent `package.json`.

use crate::lock::MutexExt;
use rustc_hash::FxHashMap as HashMap;
use std::borrow::Borrow;
use std::fs;
use std::hash::Hash;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use agg_runners::Files;

/// Task files larger than this are reported and skipped: no real task file comes close,
/// and it keeps a hostile 1 GB file from being read into memory.
pub const MAX_TASK_FILE_BYTES: u64 = 8 * 1024 * 1024;

/// What a walk of the tree already knows, so that [`RepoFiles`] need not ask the file
/// system again.
pub trait Walked: Sync {
    /// Whether the walk entered the root-relative directory `dir`. The walk follows no
    /// symlink, so neither `dir` nor a directory above it is one.
    fn entered(&self, dir: &str) -> bool;
    /// The names of the other files the walk found beside `path` that are candidates of the
    /// same format; `None` when the walk did not see `path`'s directory.
    fn candidates_beside(&self, path: &str) -> Option<Vec<String>>;
    /// Whether the neighbour marker `path` (a lockfile, a workspace marker) is a regular file,
    /// as the walk saw it; `None` when the walk cannot tell (not a marker's name, a directory
    /// it did not enter, or an index brought up to date without a whole walk).
    fn marker_exists(&self, path: &str) -> Option<bool>;
}

/// Root-confined, cached, size-capped file access.
pub struct RepoFiles<'w> {
    root: PathBuf,
    canonical_root: PathBuf,
    cache: Mutex<HashMap<String, ReadText>>,
    /// `exists` answers, and whether a symlink was followed for them: thousands of packages
    /// ask for the same lockfiles up the tree.
    exists_cache: Mutex<HashMap<String, (bool, bool)>>,
    /// Directories known to have (true) or not to have (false) a symlink between them and
    /// the root.
    linked_dirs: Mutex<HashMap<PathBuf, bool>>,
    walked: Option<&'w dyn Walked>,
    /// Parses of files many task files include, made once per view.
    shared: agg_runners::SharedParses,
}

impl std::fmt::Debug for RepoFiles<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RepoFiles")
            .field("root", &self.root)
            .field("walked", &self.walked.is_some())
            .finish_non_exhaustive()
    }
}

/// What [`RepoFiles::read_admitted`] found.
#[derive(Debug)]
pub enum Gated {
    /// The gate let the file in: its text.
    Admitted(Text),
    /// The gate turned the file away (with what was opened), or there was no regular file to
    /// show it (`None`).
    Refused(Option<Opened>),
    /// The gate let the file in, but it cannot be read whole: why.
    Unreadable(ReadError, Opened),
}

/// How many bytes [`RepoFiles::read_admitted`] shows an adapter's gate.
pub const PEEK_BYTES: usize = 512;

/// A file's text as read, with the file that was opened, or why it could not be read.
type ReadText = Result<(Arc<str>, Opened), ReadError>;

/// Why a file agg expected to be regular could not be read. Its `Display` is the one place
/// that words it (`no such file`, `permission denied`, `not a regular file`, …): diagnostics,
/// pins and logs quote it as is.
#[derive(Debug, Clone)]
pub enum ReadError {
    /// The file is not there.
    Missing,
    /// A symlink on the way leads out of the repository.
    OutsideRoot,
    /// A directory, a FIFO, a device: not a regular file.
    NotRegular,
    /// A task file over [`MAX_TASK_FILE_BYTES`].
    TooLargeTaskFile {
        /// Its size in bytes.
        len: u64,
    },
    /// A file over the cap its reader set.
    TooLarge {
        /// Its size in bytes.
        len: u64,
        /// The cap.
        cap: u64,
    },
    /// The system refused (shared: a read remembered per scan is handed out again).
    Io(Arc<std::io::Error>),
}

impl ReadError {
    /// Whether the file is simply not there (not refused, not unreadable).
    pub fn is_missing(&self) -> bool {
        match self {
            ReadError::Missing => true,
            ReadError::Io(err) => err.kind() == std::io::ErrorKind::NotFound,
            _ => false,
        }
    }
}

impl From<std::io::Error> for ReadError {
    fn from(err: std::io::Error) -> ReadError {
        ReadError::Io(Arc::new(err))
    }
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::Missing => f.write_str("no such file"),
            ReadError::OutsideRoot => {
                f.write_str("symlink points outside the repository; not followed")
            }
            ReadError::NotRegular => f.write_str("not a regular file"),
            ReadError::TooLargeTaskFile { len } => write!(
                f,
                "file is {:.1} MiB, over the {} MiB limit for task files; skipped",
                mib(*len),
                MAX_TASK_FILE_BYTES / 1024 / 1024
            ),
            ReadError::TooLarge { len, cap } => write!(
                f,
                "file is {:.1} MiB, over the {:.1} MiB limit",
                mib(*len),
                mib(*cap)
            ),
            ReadError::Io(err) => f.write_str(&io_reason(err)),
        }
    }
}

/// The runners' file view hears a missing file as [`agg_runners::Unreadable::Missing`] and
/// any other refusal as this error whole, its cause kept.
impl From<ReadError> for agg_runners::Unreadable {
    fn from(err: ReadError) -> agg_runners::Unreadable {
        match err {
            ReadError::Missing => agg_runners::Unreadable::Missing,
            err => agg_runners::Unreadable::other(err),
        }
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReadError::Io(err) => Some(&**err),
            _ => None,
        }
    }
}

/// What reading a task file gave.
#[derive(Debug)]
#[allow(clippy::struct_field_names)] // `text.text` reads as what it is.
pub struct Text {
    /// The decoded text; undecodable bytes are replaced with U+FFFD.
    pub text: String,
    /// The 1-based line of the first undecodable byte, when there was one.
    pub invalid_utf8_line: Option<u32>,
    /// The file that was read.
    pub opened: Opened,
}

/// The file a read opened: its metadata as `fstat` gave it before reading, and whether a
/// symlink was followed to reach it (then what the path names can change without the file
/// changing).
#[derive(Debug, Clone)]
pub struct Opened {
    /// From `fstat` of the open file.
    pub meta: fs::Metadata,
    /// Whether the path or a directory above it is a symlink.
    pub linked: bool,
}

impl<'w> RepoFiles<'w> {
    /// A view of the tree under `root`.
    pub fn new(root: &Path) -> RepoFiles<'w> {
        RepoFiles {
            root: root.to_path_buf(),
            canonical_root: fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf()),
            cache: Mutex::new(HashMap::default()),
            exists_cache: Mutex::new(HashMap::default()),
            linked_dirs: Mutex::new(HashMap::default()),
            walked: None,
            shared: agg_runners::SharedParses::default(),
        }
    }

    /// The same view, told what a walk of the tree found.
    #[must_use]
    pub fn with_walk(mut self, walked: &'w dyn Walked) -> RepoFiles<'w> {
        self.walked = Some(walked);
        self
    }

    /// The absolute path of a root-relative path.
    pub fn abs(&self, rel: &str) -> PathBuf {
        abs_path(&self.root, rel)
    }

    /// Reads a task file, size-capped, decoding lossily so one bad byte loses no task.
    pub fn read_task_file(&self, rel: &str) -> Result<Text, ReadError> {
        self.read_bytes(rel)
            .map(|(bytes, opened)| decode(bytes, opened))
    }

    /// Reads a file of a format known by content with one `open`: its first [`PEEK_BYTES`]
    /// and execute bit go to `admit`, and the rest is read only when it says yes.
    pub fn read_admitted(&self, rel: &str, admit: fn(&[u8], bool) -> bool) -> Gated {
        use std::os::unix::fs::PermissionsExt;
        let Ok((mut file, linked)) = self.open_confined(rel) else {
            return Gated::Refused(None);
        };
        let Ok(meta) = file.metadata() else {
            return Gated::Refused(None);
        };
        if !meta.is_file() {
            return Gated::Refused(None);
        }
        let mut bytes = Vec::with_capacity(PEEK_BYTES);
        let opened = |meta| Opened { meta, linked };
        if (&mut file)
            .take(read_limit(&meta).min(PEEK_BYTES as u64))
            .read_to_end(&mut bytes)
            .is_err()
            || !admit(&bytes, meta.permissions().mode() & 0o111 != 0)
        {
            return Gated::Refused(Some(opened(meta)));
        }
        if meta.len() > MAX_TASK_FILE_BYTES {
            return Gated::Unreadable(
                ReadError::TooLargeTaskFile { len: meta.len() },
                opened(meta),
            );
        }
        let rest = read_limit(&meta).saturating_sub(bytes.len() as u64);
        if let Err(err) = file.take(rest).read_to_end(&mut bytes) {
            return Gated::Unreadable(err.into(), opened(meta));
        }
        Gated::Admitted(decode(bytes, opened(meta)))
    }
}

/// How many bytes of a regular file to read: its size when it was opened, so that the read
/// that reaches it is the last (no extra read to see the end), or the cap when the size says
/// nothing (0, as files of virtual file systems report). A file that grows while it is read
/// is read as it was; the cap holds either way.
fn read_limit(meta: &fs::Metadata) -> u64 {
    match meta.len() {
        0 => MAX_TASK_FILE_BYTES,
        len => len.min(MAX_TASK_FILE_BYTES),
    }
}

/// Decodes a task file lossily, noting the line of the first undecodable byte.
fn decode(bytes: Vec<u8>, opened: Opened) -> Text {
    match String::from_utf8(bytes) {
        Ok(text) => Text {
            text,
            invalid_utf8_line: None,
            opened,
        },
        Err(err) => {
            let valid = err.utf8_error().valid_up_to();
            let bytes = err.into_bytes();
            let line = bytecount_newlines(&bytes[..valid]) + 1;
            Text {
                text: String::from_utf8_lossy(&bytes).into_owned(),
                invalid_utf8_line: Some(u32::try_from(line).unwrap_or(u32::MAX)),
                opened,
            }
        }
    }
}

/// Why a file over [`MAX_TASK_FILE_BYTES`] is skipped.
impl RepoFiles<'_> {
    /// Opens a root-relative file for reading, refusing a symlink that leads out of the root;
    /// tells whether a symlink was followed to reach it.
    fn open_confined(&self, rel: &str) -> Result<(fs::File, bool), ReadError> {
        let path = self.abs(rel);
        match open_no_follow(&path) {
            // Only symlinks can lead out of the root: a file opened without following one,
            // below no linked directory, is inside it.
            Ok(file) if path.parent().is_none_or(|p| !self.has_symlink_ancestor(p)) => {
                Ok((file, false))
            }
            Err(err) if err.raw_os_error() != Some(nix::libc::ELOOP) => Err(err.into()),
            _ => {
                if !self.inside_root(&path) {
                    return Err(ReadError::OutsideRoot);
                }
                Ok((open_nonblocking(&path)?, true))
            }
        }
    }

    fn read_bytes(&self, rel: &str) -> Result<(Vec<u8>, Opened), ReadError> {
        let (mut file, linked) = self.open_confined(rel)?;
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(ReadError::NotRegular);
        }
        if meta.len() > MAX_TASK_FILE_BYTES {
            return Err(ReadError::TooLargeTaskFile { len: meta.len() });
        }
        let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
        (&mut file)
            .take(read_limit(&meta))
            .read_to_end(&mut bytes)?;
        Ok((bytes, Opened { meta, linked }))
    }

    /// [`Files::read`], with the file it opened.
    pub fn read_opened(&self, path: &str) -> ReadText {
        remembered(&self.cache, path, || {
            self.read_task_file(path)
                .map(|t| (Arc::<str>::from(t.text.as_str()), t.opened))
        })
    }

    /// [`Files::exists`], and whether a symlink was followed to answer it.
    pub fn exists_linked(&self, path: &str) -> (bool, bool) {
        // A directory the walk entered is no symlink, nor is any above it.
        if let Some(exists) = self.walked.and_then(|w| w.marker_exists(path)) {
            return (exists, false);
        }
        remembered(&self.exists_cache, path, || {
            let abs = self.abs(path);
            match fs::symlink_metadata(&abs) {
                Ok(meta) if meta.is_file() => {
                    if abs.parent().is_none_or(|p| !self.has_symlink_ancestor(p)) {
                        (true, false)
                    } else {
                        (self.inside_root(&abs), true)
                    }
                }
                Ok(meta) if meta.file_type().is_symlink() => {
                    (abs.is_file() && self.inside_root(&abs), true)
                }
                _ => (
                    false,
                    abs.parent().is_some_and(|p| self.has_symlink_ancestor(p)),
                ),
            }
        })
    }

    fn inside_root(&self, path: &Path) -> bool {
        // Only symlinks can lead out; plain paths were built from root-relative parts.
        if !fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
            && path.parent().is_none_or(|p| !self.has_symlink_ancestor(p))
        {
            return true;
        }
        fs::canonicalize(path).is_ok_and(|p| p.starts_with(&self.canonical_root))
    }

    /// Whether `dir` or a directory between it and the root is a symlink, remembered per
    /// directory.
    fn has_symlink_ancestor(&self, dir: &Path) -> bool {
        if dir == self.root || !dir.starts_with(&self.root) {
            return false;
        }
        if let Some(walked) = self.walked
            && let Ok(rel) = dir.strip_prefix(&self.root)
            && rel.to_str().is_some_and(|rel| walked.entered(rel))
        {
            return false;
        }
        remembered(&self.linked_dirs, dir, || {
            fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink())
                || dir.parent().is_some_and(|p| self.has_symlink_ancestor(p))
        })
    }
}

impl Files for RepoFiles<'_> {
    fn read(&self, path: &str) -> Result<String, agg_runners::Unreadable> {
        // The error goes over whole: its `Display` is the reason adapters quote.
        self.read_opened(path)
            .map(|(t, _)| t.to_string())
            .map_err(agg_runners::Unreadable::from)
    }

    fn exists(&self, path: &str) -> bool {
        self.exists_linked(path).0
    }

    fn root_name(&self) -> Option<String> {
        self.canonical_root
            .file_name()
            .and_then(|n| n.to_str())
            .map(str::to_owned)
    }

    fn shared_parses(&self) -> Option<&agg_runners::SharedParses> {
        Some(&self.shared)
    }

    fn executable(&self, path: &str) -> bool {
        use std::os::unix::fs::PermissionsExt;
        self.open_confined(path)
            .and_then(|(f, _)| f.metadata().map_err(ReadError::from))
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    }

    fn siblings(&self, path: &str) -> Vec<String> {
        if let Some(found) = self.walked.and_then(|w| w.candidates_beside(path)) {
            return found;
        }
        let (dir, name) = path.rsplit_once('/').unwrap_or((".", path));
        let mut names = self.read_dir(dir);
        names.retain(|n| n != name);
        names
    }

    fn read_dir(&self, dir: &str) -> Vec<String> {
        let abs = self.abs(dir);
        // Like reads, listings stay inside the root: a directory symlinked out of it is empty.
        if !self.inside_root(&abs) {
            return Vec::new();
        }
        let Ok(entries) = fs::read_dir(abs) else {
            return Vec::new();
        };
        let mut names: Vec<String> = entries
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .collect();
        names.sort();
        names
    }
}

/// Opens `path` for reading unless it is a symlink (`ELOOP`). Non-blocking, so a FIFO named
/// like a task file cannot hang the scan; it is then refused as not a regular file.
fn open_no_follow(path: &Path) -> std::io::Result<fs::File> {
    use nix::fcntl::OFlag;
    fs::OpenOptions::new()
        .read(true)
        .custom_flags((OFlag::O_NOFOLLOW | OFlag::O_NONBLOCK).bits())
        .open(path)
}

/// Reads the file at the absolute `path` (symlinks followed) the way agg reads anything it
/// expects to be a regular file outside a scan (a pinned file, the allowlist, an ignore
/// file): opened without blocking, so a FIFO or a device answers at once; refused unless it
/// is a regular file; refused when over `cap` bytes, and never read past `cap` even when it
/// grows while read. The error says why in words.
pub fn read_regular(path: &Path, cap: u64) -> Result<Vec<u8>, ReadError> {
    read_regular_if_present(path, cap)?.ok_or(ReadError::Missing)
}

/// [`read_regular`], with a missing file (or a symlink to a missing file) as `Ok(None)`:
/// for files that are mostly absent, such as an ignore file in each directory, or the
/// allowlist before the first rule.
pub fn read_regular_if_present(path: &Path, cap: u64) -> Result<Option<Vec<u8>>, ReadError> {
    Ok(read_regular_with_meta(path, cap)?.map(|(bytes, _)| bytes))
}

/// [`read_regular_if_present`], with the file's metadata as `fstat` gave it before reading.
pub fn read_regular_with_meta(
    path: &Path,
    cap: u64,
) -> Result<Option<(Vec<u8>, fs::Metadata)>, ReadError> {
    let mut file = match open_nonblocking(path) {
        Ok(file) => file,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(err.into()),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular);
    }
    if meta.len() > cap {
        return Err(ReadError::TooLarge {
            len: meta.len(),
            cap,
        });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    (&mut file).take(cap).read_to_end(&mut bytes)?;
    Ok(Some((bytes, meta)))
}

/// Opens `path` for reading, following symlinks, without blocking on a FIFO.
fn open_nonblocking(path: &Path) -> std::io::Result<fs::File> {
    fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::fcntl::OFlag::O_NONBLOCK.bits())
        .open(path)
}

/// The absolute path of `rel` (root-relative, `.` for the root itself) under `root`.
pub fn abs_path(root: &Path, rel: &str) -> PathBuf {
    if rel == "." {
        root.to_path_buf()
    } else {
        root.join(rel)
    }
}

/// The value remembered under `key`, or `compute`'s, remembered from now on. The lock is not
/// held while computing, so `compute` may consult the same map (as the symlink check does for
/// parent directories).
fn remembered<K, Q, V>(map: &Mutex<HashMap<K, V>>, key: &Q, compute: impl FnOnce() -> V) -> V
where
    K: Borrow<Q> + Hash + Eq,
    Q: ToOwned<Owned = K> + Hash + Eq + ?Sized,
    V: Clone,
{
    let known = map.locked().get(key).cloned();
    known.unwrap_or_else(|| {
        let value = compute();
        map.locked().insert(key.to_owned(), value.clone());
        value
    })
}

/// The sha256 of `bytes`, in lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    use std::fmt::Write as _;
    let digest = sha2::Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for byte in &digest {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

/// A short reason for an I/O error, without the OS error number noise.
pub fn io_reason(err: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match err.kind() {
        ErrorKind::NotFound => "no such file".to_owned(),
        ErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => {
            let text = err.to_string();
            text.split(" (os error").next().unwrap_or(&text).to_owned()
        }
    }
}

#[allow(clippy::cast_precision_loss)]
fn mib(bytes: u64) -> f64 {
    bytes as f64 / 1024.0 / 1024.0
}

fn bytecount_newlines(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_give_whole_files_of_every_size_around_the_peek() {
        let tmp = tempfile::tempdir().unwrap();
        let files = RepoFiles::new(tmp.path());
        for len in [
            0,
            1,
            PEEK_BYTES - 1,
            PEEK_BYTES,
            PEEK_BYTES + 1,
            3 * PEEK_BYTES,
        ] {
            let text: String = "#!/bin/sh\n"
                .chars()
                .chain(std::iter::repeat('x'))
                .take(len)
                .collect();
            let name = format!("f{len}");
            std::fs::write(tmp.path().join(&name), &text).unwrap();
            assert_eq!(files.read_task_file(&name).unwrap().text, text, "{len}");
            let Gated::Admitted(admitted) = files.read_admitted(&name, |_, _| true) else {
                panic!("{len}: not admitted");
            };
            assert_eq!(admitted.text, text, "{len}");
        }
    }

    #[test]
    fn listings_stay_inside_the_root() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), "").unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir(root.join("inner")).unwrap();
        std::fs::write(root.join("inner/task"), "").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("out")).unwrap();
        std::os::unix::fs::symlink(root.join("inner"), root.join("linked")).unwrap();
        let files = RepoFiles::new(root);
        assert!(files.read_dir("out").is_empty());
        assert_eq!(files.read_dir("linked"), ["task"]);
        assert_eq!(files.read_dir("inner"), ["task"]);
    }
}
