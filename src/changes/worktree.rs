//! The working tree against the index: each tracked file's stat data compared with its
//! entry's, as git does, and where they differ (or the entry is racily clean) the file hashed
//! as it is on disk, as a blob, without any filter; and the untracked files, found by the
//! listing's own walk with its bounded ignore rules.

use std::collections::HashSet;
use std::ffi::OsStr;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use gix::bstr::ByteSlice;
use gix::index::entry::{Flags, Stat, stat};
use rayon::prelude::*;
use std::os::unix::fs::OpenOptionsExt;

use super::{ChangeError, MAX_INDEX_BYTES};
use crate::lock::MutexExt;

/// How git compares stat data by default (`core.trustctime`, `core.checkStat=default`).
const STAT: stat::Options = stat::Options {
    trust_ctime: true,
    check_stat: true,
    use_nsec: true,
    use_stdev: false,
};

/// The repository's index, read bounded (an empty one when there is none yet).
pub(super) fn index(repo: &gix::Repository) -> Result<gix::index::File, ChangeError> {
    let path = repo.index_path();
    let unreadable = |reason: String| ChangeError::Read {
        what: format!("the index {}", path.display()),
        reason,
    };
    match std::fs::symlink_metadata(&path) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Ok(gix::index::File::from_state(
                gix::index::State::new(repo.object_hash()),
                path,
            ));
        }
        Ok(meta) if meta.len() > MAX_INDEX_BYTES => {
            return Err(ChangeError::TooLarge {
                what: format!("the index {}", path.display()),
                size: meta.len(),
                limit: MAX_INDEX_BYTES,
            });
        }
        _ => {}
    }
    // Read without blocking and only as a regular file: an index that is a FIFO answers at
    // once.
    let data = crate::repo_files::read_regular(&path, MAX_INDEX_BYTES)
        .map_err(|e| unreadable(e.to_string()))?;
    let modified = std::fs::symlink_metadata(&path).map_or_else(
        |_| filetime::FileTime::zero(),
        |m| filetime::FileTime::from_last_modification_time(&m),
    );
    let options = gix::index::decode::Options {
        thread_limit: Some(1),
        min_extension_block_in_bytes_for_threading: 0,
        expected_checksum: None,
        alloc_limit_bytes: usize::try_from(MAX_INDEX_BYTES * 4).ok(),
    };
    let (state, _) = gix::index::State::from_bytes(&data, modified, repo.object_hash(), options)
        .map_err(|e| unreadable(e.to_string()))?;
    Ok(gix::index::File::from_state(state, path))
}

/// The tracked files whose content or kind on disk differs from their index entry, or that
/// are gone.
pub(super) fn modified(
    repo: &gix::Repository,
    index: &gix::index::File,
    worktree: &Path,
) -> Vec<Vec<u8>> {
    let timestamp = index.timestamp();
    let kind = repo.object_hash();
    index
        .entries()
        .par_iter()
        .filter_map(|entry| {
            // Conflicts were counted against HEAD; these have no file of their own to compare.
            if entry.stage_raw() != 0
                || entry.flags.contains(Flags::SKIP_WORKTREE)
                || entry.mode.is_sparse()
                || entry.mode.is_submodule()
            {
                return None;
            }
            let path = entry.path(index);
            let abs = worktree.join(OsStr::from_bytes(path.as_bytes()));
            let differs = match gix::index::fs::Metadata::from_path_no_follow(&abs) {
                Err(_) => true,
                Ok(meta) => {
                    if entry.mode.change_to_match_fs(&meta, true, true).is_some() {
                        true
                    } else {
                        let same_stat = Stat::from_fs(&meta)
                            .is_ok_and(|s| entry.stat.matches(&s, STAT))
                            && !entry.stat.is_racy(timestamp, STAT);
                        !same_stat && hash(&abs, &meta, kind).is_none_or(|id| id != entry.id)
                    }
                }
            };
            differs.then(|| path.as_bytes().to_vec())
        })
        .collect()
}

/// The id of the file at `abs` as a blob, hashed as it is (a link's target for a symbolic
/// link); `None` when it is neither or cannot be read.
fn hash(
    abs: &Path,
    meta: &gix::index::fs::Metadata,
    kind: gix::hash::Kind,
) -> Option<gix::ObjectId> {
    let mut hasher = gix::hash::hasher(kind);
    if meta.is_symlink() {
        let target = std::fs::read_link(abs).ok()?;
        let bytes = target.as_os_str().as_bytes();
        hasher.update(&gix::objs::encode::loose_header(
            gix::objs::Kind::Blob,
            bytes.len() as u64,
        ));
        hasher.update(bytes);
        return hasher.try_finalize().ok();
    }
    if !meta.is_file() {
        return None;
    }
    // Opened without following links and without blocking: the file was a regular one a
    // moment ago, and a FIFO put in its place must not hang the read.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags((nix::fcntl::OFlag::O_NOFOLLOW | nix::fcntl::OFlag::O_NONBLOCK).bits())
        .open(abs)
        .ok()?;
    let opened = file.metadata().ok()?;
    if !opened.is_file() {
        return None;
    }
    let len = opened.len();
    hasher.update(&gix::objs::encode::loose_header(gix::objs::Kind::Blob, len));
    let mut reader = file.take(len);
    let mut buf = vec![0u8; 64 * 1024];
    let mut read = 0u64;
    loop {
        let n = reader.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        read += n as u64;
        hasher.update(&buf[..n]);
    }
    // A file that shrank while read is not the blob of its length: changed.
    (read == len).then(|| hasher.try_finalize().ok()).flatten()
}

/// The files under `root` that no index entry names and no ignore rule excludes, as paths
/// relative to the working tree (`prefix` is the root's path in it).
pub(super) fn untracked(root: &Path, prefix: &str, tracked: &HashSet<&[u8]>) -> Vec<Vec<u8>> {
    let found = std::sync::Mutex::new(Vec::new());
    crate::scan::each_file(root, &|rel, admitted| {
        let path = if prefix.is_empty() {
            rel.as_bytes().to_vec()
        } else {
            format!("{prefix}/{rel}").into_bytes()
        };
        if !tracked.contains(path.as_slice()) && admitted() {
            found.locked().push(path);
        }
    });
    found.unlocked()
}
