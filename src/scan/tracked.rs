//! The task files git tracks, read from git's index file without running git, so that the
//! walk reads a tracked file even where an ignore rule matches it, as git does (a
//! `.gitignore` with `.vscode/` and a force-added `.vscode/tasks.json`).
//!
//! git is never run: a repository's `.git/config` can make it execute a command
//! (`core.fsmonitor`), and listing never executes repository code. The index format is
//! documented in git's `Documentation/gitformat-index.txt`; only entry paths are needed, so
//! this reads versions 2 to 4 in a few dozen lines rather than pulling in a full git library.
//! A split index adds the paths of its shared index; the directory entries of a sparse index
//! stand for files that are not checked out, so nothing under them is on disk to read. What
//! cannot be read is a diagnostic, and the walk then goes by the ignore rules alone.
//!
//! The index is the repository's file, so it is read as hostile: a version 4 index keeps
//! each path as the previous one with its tail replaced, so a few bytes per entry can name
//! ever longer paths. Each path is bounded ([`MAX_PATH_BYTES`]), and so is everything kept
//! ([`MAX_KEPT_BYTES`]): the work is linear in the file's size (at most a path's worth per
//! entry of at least 63 bytes), and a crafted index is refused with a diagnostic.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::stamp::Stamp;
use crate::repo_files::{read_regular_if_present, read_regular_with_meta};

/// The largest index file read: a repository of a million files has an index of about
/// 100 MB; past this the index is reported and ignore rules alone decide.
pub const MAX_INDEX_BYTES: u64 = 256 * 1024 * 1024;

/// The longest path an index entry may name: Linux's `PATH_MAX`, past which no file of the
/// worktree could be opened (git's own length field stops at 4,095). A longer one is a
/// crafted index, refused whole.
pub const MAX_PATH_BYTES: usize = 4096;

/// The most bytes of paths kept from one index (tracked task files and the directories
/// above them, absolute): 100,000 task files at 80 bytes each fit, many times over.
pub const MAX_KEPT_BYTES: usize = 16 * 1024 * 1024;

/// A `.git` file, `commondir` or the repository's `config` is read at most this far.
const MAX_SMALL_GIT_FILE_BYTES: u64 = 1024 * 1024;

/// The tracked paths of one index that some adapter reads, relative to the worktree's top.
#[derive(Debug, Default, Clone)]
pub(super) struct Tracked {
    /// Tracked task files, absolute.
    pub(super) files: HashSet<PathBuf>,
    /// Every directory between the worktree's top and a tracked task file, absolute.
    pub(super) dirs: HashSet<PathBuf>,
    /// The files this was read from (`.git`, the index, a shared index), with their stamps
    /// (`None`: absent), for a later scan to tell whether to read them again.
    pub(super) read_from: Vec<(PathBuf, Option<Stamp>)>,
    /// Why the index could not be read, when it could not (then nothing is tracked).
    pub(super) unreadable: Option<(PathBuf, String)>,
}

/// What went wrong reading an index: the file to name and why.
#[derive(Debug)]
pub(super) struct Unreadable {
    pub(super) file: PathBuf,
    pub(super) reason: String,
}

impl Tracked {
    /// The tracked task files of the worktree whose top is `top` (the directory holding
    /// `.git`), keeping those `keep` accepts (given the path relative to `top`).
    pub(super) fn read(top: &Path, keep: &dyn Fn(&str) -> bool) -> Result<Tracked, Unreadable> {
        let mut read_from = vec![(top.join(".git"), Stamp::at(&top.join(".git")))];
        let result = Tracked::read_index(top, keep, &mut read_from);
        result.map(|mut tracked| {
            tracked.read_from = read_from;
            tracked
        })
    }

    fn read_index(
        top: &Path,
        keep: &dyn Fn(&str) -> bool,
        read_from: &mut Vec<(PathBuf, Option<Stamp>)>,
    ) -> Result<Tracked, Unreadable> {
        let Some(git_dir) = git_dir(top) else {
            return Ok(Tracked::default());
        };
        let index = git_dir.join("index");
        let fail = |file: &Path, reason: String| Unreadable {
            file: file.to_path_buf(),
            reason,
        };
        let read = read_regular_with_meta(&index, MAX_INDEX_BYTES);
        read_from.push((
            index.clone(),
            match &read {
                Ok(Some((_, meta))) => Some(Stamp::of(meta)),
                _ => Stamp::at(&index),
            },
        ));
        let Some((bytes, _)) = read.map_err(|r| fail(&index, r.to_string()))? else {
            return Ok(Tracked::default());
        };
        let hash_len = hash_len(&git_dir);
        let mut tracked = Tracked::default();
        let mut kept = 0usize;
        let mut add = |path: &str| -> Result<(), IndexProblem> {
            if path.is_empty() || path.ends_with('/') || !keep(path) {
                return Ok(());
            }
            let abs = top.join(path);
            let mut dir = abs.parent();
            let mut cost = abs.as_os_str().len();
            while let Some(d) = dir.filter(|d| d.starts_with(top) && *d != top) {
                if tracked.dirs.contains(d) {
                    break;
                }
                // Counted before it is kept: one deep path adds every directory above it.
                cost += d.as_os_str().len();
                if kept + cost > MAX_KEPT_BYTES {
                    return Err(IndexProblem::TooManyTaskFiles);
                }
                tracked.dirs.insert(d.to_path_buf());
                dir = d.parent();
            }
            kept += cost;
            if kept > MAX_KEPT_BYTES {
                return Err(IndexProblem::TooManyTaskFiles);
            }
            tracked.files.insert(abs);
            Ok(())
        };
        let shared = parse(&bytes, hash_len, &mut add).map_err(|r| fail(&index, r.to_string()))?;
        if let Some(shared) = shared {
            let file = common_dir(&git_dir).join(format!("sharedindex.{shared}"));
            let file = if file.exists() {
                file
            } else {
                git_dir.join(format!("sharedindex.{shared}"))
            };
            read_from.push((file.clone(), Stamp::at(&file)));
            let bytes = read_regular_if_present(&file, MAX_INDEX_BYTES)
                .map_err(|r| fail(&file, r.to_string()))?
                .ok_or_else(|| fail(&file, "shared index of a split index is missing".into()))?;
            parse(&bytes, hash_len, &mut add).map_err(|r| fail(&file, r.to_string()))?;
        }
        Ok(tracked)
    }
}

/// Why the entries of an index were not taken.
#[derive(Debug, Clone, PartialEq, Eq)]
enum IndexProblem {
    /// No `DIRC` signature.
    NotAnIndex,
    /// It ends before what it says it holds.
    Truncated,
    /// A version other than 2 to 4.
    Version(usize),
    /// Entry number `0` names a path over [`MAX_PATH_BYTES`].
    PathTooLong(usize),
    /// An extension git marks required that agg does not know.
    RequiredExtension(String),
    /// More task files than [`MAX_KEPT_BYTES`] of paths.
    TooManyTaskFiles,
}

impl std::fmt::Display for IndexProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IndexProblem::NotAnIndex => write!(f, "not a git index (no DIRC signature)"),
            IndexProblem::Truncated => write!(f, "git index is truncated"),
            IndexProblem::Version(version) => write!(
                f,
                "git index version {version} is not one agg reads (2 to 4)"
            ),
            IndexProblem::PathTooLong(entry) => write!(
                f,
                "git index entry {entry} names a path longer than {MAX_PATH_BYTES} bytes"
            ),
            IndexProblem::RequiredExtension(name) => {
                write!(f, "git index extension `{name}` is not one agg reads")
            }
            IndexProblem::TooManyTaskFiles => write!(
                f,
                "git index names more task files than agg keeps ({} MiB of paths)",
                MAX_KEPT_BYTES / (1024 * 1024)
            ),
        }?;
        write!(f, "; tracked files under ignore rules are not read")
    }
}

impl std::error::Error for IndexProblem {}

/// `dir` when it is the top of a git worktree: it holds a `.git` directory or file.
pub(super) fn worktree_top(dir: &Path) -> Option<&Path> {
    std::fs::symlink_metadata(dir.join(".git"))
        .is_ok()
        .then_some(dir)
}

/// The git directory of the worktree at `top`: `.git` itself, or the directory a `.git` file
/// names (`gitdir: PATH`, a linked worktree or a submodule).
fn git_dir(top: &Path) -> Option<PathBuf> {
    let dot_git = top.join(".git");
    let meta = std::fs::metadata(&dot_git).ok()?;
    if meta.is_dir() {
        return Some(dot_git);
    }
    let text = first_line(&dot_git)?;
    Some(top.join(text.strip_prefix("gitdir:")?.trim()))
}

/// The common directory of a linked worktree's git directory (where `sharedindex.*` and the
/// `config` live), or the git directory itself.
fn common_dir(git_dir: &Path) -> PathBuf {
    first_line(&git_dir.join("commondir"))
        .map_or_else(|| git_dir.to_path_buf(), |c| git_dir.join(c))
}

fn first_line(path: &Path) -> Option<String> {
    let bytes = read_regular_if_present(path, MAX_SMALL_GIT_FILE_BYTES).ok()??;
    let text = String::from_utf8(bytes).ok()?;
    text.lines().next().map(|l| l.trim_end().to_owned())
}

/// Bytes of an object name: 32 in a repository whose config says
/// `objectformat = sha256`, else 20 (SHA-1).
fn hash_len(git_dir: &Path) -> usize {
    let config = read_regular_if_present(
        &common_dir(git_dir).join("config"),
        MAX_SMALL_GIT_FILE_BYTES,
    )
    .ok()
    .flatten()
    .unwrap_or_default();
    let sha256 = String::from_utf8_lossy(&config).lines().any(|l| {
        let l = l.trim().to_ascii_lowercase();
        l.starts_with("objectformat") && l.ends_with("sha256")
    });
    if sha256 { 32 } else { 20 }
}

/// Hands each entry path of the index `bytes` to `found` (which may refuse to go on);
/// gives the shared index's name when this is the split part of a split index.
fn parse(
    bytes: &[u8],
    hash_len: usize,
    found: &mut dyn FnMut(&str) -> Result<(), IndexProblem>,
) -> Result<Option<String>, IndexProblem> {
    let truncated = || IndexProblem::Truncated;
    if bytes.get(..4) != Some(b"DIRC") {
        return Err(IndexProblem::NotAnIndex);
    }
    let word = |at: usize| -> Option<usize> {
        let b = bytes.get(at..at + 4)?;
        Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    let version = word(4).ok_or_else(truncated)?;
    if !(2..=4).contains(&version) {
        return Err(IndexProblem::Version(version));
    }
    let count = word(8).ok_or_else(truncated)?;
    // ctime, mtime (8 each), dev, ino, mode, uid, gid, size (4 each), the object name, flags.
    let fixed = 40 + hash_len + 2;
    // Every entry takes its fixed part and at least a byte of path offset and a NUL: a
    // count the file cannot hold is found out before any work.
    if count.saturating_mul(fixed + 2) > bytes.len().saturating_sub(12) {
        return Err(truncated());
    }
    let too_long = IndexProblem::PathTooLong;
    let mut at = 12;
    let mut previous: Vec<u8> = Vec::new();
    for entry in 0..count {
        let start = at;
        let flags = bytes
            .get(at + fixed - 2..at + fixed)
            .ok_or_else(truncated)?;
        let flags = u16::from_be_bytes([flags[0], flags[1]]);
        at += fixed;
        if version >= 3 && flags & 0x4000 != 0 {
            at += 2;
        }
        if version == 4 {
            let (strip, used) =
                varint(bytes.get(at..).ok_or_else(truncated)?).ok_or_else(truncated)?;
            at += used;
            let rest = bytes.get(at..).ok_or_else(truncated)?;
            let end = memchr::memchr(0, rest).ok_or_else(truncated)?;
            let keep = previous.len().checked_sub(strip).ok_or_else(truncated)?;
            if keep + end > MAX_PATH_BYTES {
                return Err(too_long(entry));
            }
            previous.truncate(keep);
            previous.extend_from_slice(&rest[..end]);
            at += end + 1;
            if let Ok(path) = std::str::from_utf8(&previous) {
                found(path)?;
            }
        } else {
            let rest = bytes.get(at..).ok_or_else(truncated)?;
            let end = memchr::memchr(0, rest).ok_or_else(truncated)?;
            if end > MAX_PATH_BYTES {
                return Err(too_long(entry));
            }
            if let Ok(path) = std::str::from_utf8(&rest[..end]) {
                found(path)?;
            }
            // Padded with 1 to 8 NULs so the entry's length is a multiple of eight.
            at = start + ((at - start + end + 8) & !7);
        }
    }
    if at > bytes.len() {
        return Err(truncated());
    }
    // Extensions: a four-byte signature and length each, until the trailing checksum.
    let mut shared = None;
    while at + 8 + hash_len <= bytes.len() {
        let signature = &bytes[at..at + 4];
        let len = word(at + 4).ok_or_else(truncated)?;
        let body = bytes.get(at + 8..at + 8 + len).ok_or_else(truncated)?;
        if signature == b"link" {
            // Split index: the rest of the entries are in the shared index it names.
            let name = body.get(..hash_len).ok_or_else(truncated)?;
            if name.iter().any(|&b| b != 0) {
                shared = Some(name.iter().fold(String::new(), |mut hex, b| {
                    let _ = write!(hex, "{b:02x}");
                    hex
                }));
            }
        } else if signature[0].is_ascii_lowercase() && signature != b"sdir" {
            // `sdir` marks a sparse index: its directory entries (paths ending in `/`) stand
            // for files not checked out, skipped below.
            // An extension git marks required (lowercase) that agg does not know.
            return Err(IndexProblem::RequiredExtension(
                String::from_utf8_lossy(signature).into_owned(),
            ));
        }
        at += 8 + len;
    }
    Ok(shared)
}

/// git's variable-length offset of an index v4 path: seven bits a byte, most significant
/// first, each continuation adding one. Gives the value and the bytes it took.
fn varint(bytes: &[u8]) -> Option<(usize, usize)> {
    let mut used = 0;
    let mut c = *bytes.first()?;
    used += 1;
    let mut value = usize::from(c & 127);
    while c & 128 != 0 {
        c = *bytes.get(used)?;
        used += 1;
        value = value.checked_add(1)?.checked_mul(128)? + usize::from(c & 127);
    }
    Some((value, used))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An index of `version` with `paths`, as git writes it (metadata zeroed).
    fn index(version: u32, paths: &[&str]) -> Vec<u8> {
        let mut out = b"DIRC".to_vec();
        out.extend(version.to_be_bytes());
        out.extend(u32::try_from(paths.len()).unwrap().to_be_bytes());
        let mut previous = "";
        for path in paths {
            let start = out.len();
            out.extend([0u8; 40 + 20]);
            out.extend(u16::try_from(path.len().min(0xfff)).unwrap().to_be_bytes());
            if version == 4 {
                let common = previous
                    .bytes()
                    .zip(path.bytes())
                    .take_while(|(a, b)| a == b)
                    .count();
                let strip = previous.len() - common;
                assert!(strip < 128);
                out.push(u8::try_from(strip).unwrap());
                out.extend(&path.as_bytes()[common..]);
                out.push(0);
            } else {
                out.extend(path.as_bytes());
                let len = out.len() - start;
                out.extend(std::iter::repeat_n(0u8, 8 - len % 8));
            }
            previous = path;
        }
        out.extend([0u8; 20]);
        out
    }

    #[test]
    fn reads_the_paths_of_index_versions_two_to_four() {
        let paths = [".vscode/tasks.json", ".vscode/x/Makefile", "Makefile", "a"];
        for version in [2, 3, 4] {
            let mut got = Vec::new();
            let shared = parse(&index(version, &paths), 20, &mut |p| {
                got.push(p.to_owned());
                Ok(())
            })
            .unwrap();
            assert_eq!(got, paths, "version {version}");
            assert_eq!(shared, None);
        }
    }

    #[test]
    fn a_damaged_index_is_an_error_not_a_panic() {
        let whole = index(2, &["Makefile", "docs/Makefile"]);
        for len in 0..whole.len() - 20 {
            assert!(
                parse(&whole[..len], 20, &mut |_| Ok(())).is_err(),
                "{len} bytes"
            );
        }
        let err = parse(&index(5, &[]), 20, &mut |_| Ok(())).unwrap_err();
        assert_eq!(err, IndexProblem::Version(5));
        assert!(err.to_string().contains("version 5"), "{err}");
    }

    #[test]
    fn an_unknown_required_extension_is_refused_and_an_optional_one_skipped() {
        for (signature, ok) in [(*b"TREE", true), (*b"sdir", true), (*b"zzzz", false)] {
            let mut bytes = index(2, &["Makefile"]);
            let checksum = bytes.split_off(bytes.len() - 20);
            bytes.extend(signature);
            bytes.extend(4u32.to_be_bytes());
            bytes.extend([1, 2, 3, 4]);
            bytes.extend(checksum);
            assert_eq!(parse(&bytes, 20, &mut |_| Ok(())).is_ok(), ok);
        }
    }

    /// A version 4 index of `count` entries that each name the previous path with
    /// `a/` put before its file name: 74 bytes an entry, a path 2 bytes longer each time.
    fn growing(count: u32) -> Vec<u8> {
        let mut out = b"DIRC".to_vec();
        out.extend(4u32.to_be_bytes());
        out.extend(count.to_be_bytes());
        for i in 0..count {
            out.extend([0u8; 40 + 20]);
            out.extend(0xfffu16.to_be_bytes());
            out.push(if i == 0 { 0 } else { 8 });
            out.extend(b"a/Makefile\0");
        }
        out.extend([0u8; 20]);
        out
    }

    #[test]
    fn a_path_past_the_bound_refuses_the_index_before_it_costs_more() {
        let mut longest = 0;
        let mut calls = 0;
        let err = parse(&growing(20_000), 20, &mut |p| {
            longest = longest.max(p.len());
            calls += 1;
            Ok(())
        })
        .unwrap_err();
        assert!(matches!(err, IndexProblem::PathTooLong(_)), "{err}");
        assert!(err.to_string().contains("longer than 4096 bytes"), "{err}");
        assert!(longest <= MAX_PATH_BYTES);
        assert_eq!(calls, (MAX_PATH_BYTES - "a/Makefile".len()) / 2 + 1);
        // A count the file cannot hold is refused at once.
        let mut short = growing(2);
        short[8..12].copy_from_slice(&u32::MAX.to_be_bytes());
        assert_eq!(
            parse(&short, 20, &mut |_| Ok(())).unwrap_err(),
            IndexProblem::Truncated
        );
    }

    #[test]
    fn what_is_kept_from_an_index_is_bounded() {
        let top = tempfile::tempdir().unwrap();
        std::fs::create_dir(top.path().join(".git")).unwrap();
        // Deep paths under the bound: each keeps some 2,000 directories above it.
        let deep = "a/".repeat(2000);
        let paths: Vec<String> = (0..10).map(|i| format!("d{i}/{deep}Makefile")).collect();
        let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
        std::fs::write(top.path().join(".git/index"), index(2, &paths)).unwrap();
        let err = Tracked::read(top.path(), &|_| true).unwrap_err();
        assert!(
            err.reason.contains("more task files than agg keeps"),
            "{}",
            err.reason
        );
        assert_eq!(err.file, top.path().join(".git/index"));
        // An ordinary index is read whole.
        std::fs::write(
            top.path().join(".git/index"),
            index(2, &["a/Makefile", "b/justfile"]),
        )
        .unwrap();
        let tracked = Tracked::read(top.path(), &|_| true).unwrap();
        assert_eq!(tracked.files.len(), 2);
        assert_eq!(tracked.dirs.len(), 2);
    }

    #[test]
    fn varints_follow_gits_offset_encoding() {
        assert_eq!(varint(&[0x05]), Some((5, 1)));
        assert_eq!(varint(&[0x80, 0x00]), Some((128, 2)));
        assert_eq!(varint(&[0x81, 0x7f]), Some((383, 2)));
        assert_eq!(varint(&[0x80]), None);
    }
}
