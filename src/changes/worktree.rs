//! The working tree against the index: each tracked file's stat data compared with its
//! entry's, as git does, and where they differ (or the entry is racily clean) the file hashed
//! as it is on disk, as a blob, without any filter; and the untracked files, found by the
//! listing's own walk with its bounded ignore rules.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::hash::Hasher;
use std::io::Read;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use gix::bstr::ByteSlice;
use gix::index::entry::{Flags, Stat, stat};
use rayon::prelude::*;
use rustc_hash::FxHasher;
use std::os::unix::fs::OpenOptionsExt;

use super::{ChangeError, MAX_INDEX_BYTES};

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
///
/// Entries are taken a directory at a time: the directory is opened once and each file in it
/// looked up relative to it, so the kernel resolves each path's directories once per
/// directory rather than once per file (most of what 50,000 `lstat`s of full paths cost).
pub(super) fn modified(
    repo: &gix::Repository,
    index: &gix::index::File,
    worktree: &Path,
) -> Vec<Vec<u8>> {
    let timestamp = index.timestamp();
    let kind = repo.object_hash();
    let entries = index.entries();
    same_directory_runs(index)
        .into_par_iter()
        .flat_map_iter(|(dir, run)| {
            let abs_dir = worktree.join(OsStr::from_bytes(dir));
            let opened = nix::fcntl::open(
                &abs_dir,
                nix::fcntl::OFlag::O_PATH
                    | nix::fcntl::OFlag::O_DIRECTORY
                    | nix::fcntl::OFlag::O_CLOEXEC,
                nix::sys::stat::Mode::empty(),
            )
            .ok();
            entries[run].iter().filter_map(move |entry| {
                // Conflicts were counted against HEAD; these have no file of their own to
                // compare.
                if entry.stage_raw() != 0
                    || entry.flags.contains(Flags::SKIP_WORKTREE)
                    || entry.mode.is_sparse()
                    || entry.mode.is_submodule()
                {
                    return None;
                }
                let path = entry.path(index);
                let name = path.get(dir.len() + usize::from(!dir.is_empty())..)?;
                let stat = opened.as_ref().and_then(|fd| {
                    nix::sys::stat::fstatat(
                        fd,
                        OsStr::from_bytes(name),
                        nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW,
                    )
                    .ok()
                });
                let differs = stat.is_none_or(|stat| {
                    let on_disk = OnDisk::of(&stat);
                    if on_disk.kind_differs(entry.mode) {
                        return true;
                    }
                    let same_stat = entry.stat.matches(&on_disk.stat, STAT)
                        && !entry.stat.is_racy(timestamp, STAT);
                    !same_stat
                        && hash(&abs_dir.join(OsStr::from_bytes(name)), &on_disk, kind)
                            .is_none_or(|id| id != entry.id)
                });
                differs.then(|| path.as_bytes().to_vec())
            })
        })
        .collect()
}

/// The index's entries in runs that share their directory (entries are sorted by path, so a
/// directory's files are together, broken only by its subdirectories' entries), each with
/// that directory's path (empty for the top).
fn same_directory_runs(index: &gix::index::State) -> Vec<(&[u8], std::ops::Range<usize>)> {
    let mut runs: Vec<(&[u8], std::ops::Range<usize>)> = Vec::new();
    for (at, entry) in index.entries().iter().enumerate() {
        let path: &[u8] = entry.path(index);
        let dir = path.rfind_byte(b'/').map_or(&path[..0], |end| &path[..end]);
        match runs.last_mut() {
            Some((run_dir, run)) if *run_dir == dir => run.end = at + 1,
            _ => runs.push((dir, at..at + 1)),
        }
    }
    runs
}

/// What one `lstat` says of a file, in the index's terms.
struct OnDisk {
    stat: Stat,
    /// `st_mode`: the kind of file and its permissions.
    mode: nix::libc::mode_t,
}

impl OnDisk {
    /// As gix reads it from a [`gix::index::fs::Metadata`]: times before 1970 as zero, times,
    /// device, inode and size cut to their low 32 bits, as git stores them.
    fn of(stat: &nix::sys::stat::FileStat) -> OnDisk {
        let time = |secs: i64, nsecs: i64| {
            u32::try_from(nsecs).ok().filter(|_| secs >= 0).map_or_else(
                stat::Time::default,
                |nsecs| stat::Time {
                    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                    secs: secs as u32,
                    nsecs,
                },
            )
        };
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        OnDisk {
            stat: Stat {
                mtime: time(stat.st_mtime, stat.st_mtime_nsec),
                ctime: time(stat.st_ctime, stat.st_ctime_nsec),
                dev: stat.st_dev as u32,
                ino: stat.st_ino as u32,
                uid: stat.st_uid,
                gid: stat.st_gid,
                size: stat.st_size as u32,
            },
            mode: stat.st_mode,
        }
    }

    fn is(&self, kind: nix::libc::mode_t) -> bool {
        self.mode & nix::libc::S_IFMT == kind
    }

    /// Whether the file is no longer of the entry's kind (a file, a link, a directory) or
    /// gained or lost its executable bit.
    fn kind_differs(&self, mode: gix::index::entry::Mode) -> bool {
        let is_file = self.is(nix::libc::S_IFREG);
        mode.change_to_match_fs_with_values(
            is_file,
            self.is(nix::libc::S_IFDIR),
            self.is(nix::libc::S_IFLNK),
            is_file && self.mode & nix::libc::S_IXUSR != 0,
            true,
            true,
        )
        .is_some()
    }
}

/// The id of the file at `abs` as a blob, hashed as it is (a link's target for a symbolic
/// link); `None` when it is neither or cannot be read.
fn hash(abs: &Path, meta: &OnDisk, kind: gix::hash::Kind) -> Option<gix::ObjectId> {
    let mut hasher = gix::hash::hasher(kind);
    if meta.is(nix::libc::S_IFLNK) {
        let target = std::fs::read_link(abs).ok()?;
        let bytes = target.as_os_str().as_bytes();
        hasher.update(&gix::objs::encode::loose_header(
            gix::objs::Kind::Blob,
            bytes.len() as u64,
        ));
        hasher.update(bytes);
        return hasher.try_finalize().ok();
    }
    if !meta.is(nix::libc::S_IFREG) {
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
/// relative to the working tree (`prefix` is the root's path in it). Found by the listing's
/// walk and remembered between runs ([`crate::scan::picked_files`]): a directory is listed
/// again when it changed or when what the index tracks directly in it did.
pub(super) fn untracked(root: &Path, prefix: &str, index: &gix::index::State) -> Vec<Vec<u8>> {
    let in_worktree = |rel: &str| -> Vec<u8> {
        if prefix.is_empty() {
            rel.as_bytes().to_vec()
        } else {
            format!("{prefix}/{rel}").into_bytes()
        }
    };
    let untracked = |rel: &str| {
        index
            .entry_index_by_path(in_worktree(rel).as_bstr())
            .is_err()
    };
    crate::scan::picked_files(root, &tracked_marks(prefix, index), &untracked)
        .iter()
        .map(|rel| in_worktree(rel))
        .collect()
}

/// For each directory under the root (root-relative, `.` for the root), a hash of the names
/// the index tracks directly in it: it changes when a file in it is added to the index or
/// taken out, which changes what is untracked there though the directory did not change.
fn tracked_marks(prefix: &str, index: &gix::index::State) -> HashMap<String, u64> {
    let mut marks: HashMap<String, FxHasher> = HashMap::new();
    let entries = match prefix {
        "" => index.entries(),
        _ => index
            .prefixed_entries(format!("{prefix}/").as_bytes().as_bstr())
            .unwrap_or_default(),
    };
    let skip = if prefix.is_empty() {
        0
    } else {
        prefix.len() + 1
    };
    for entry in entries {
        let path = entry.path(index);
        let Some(rel) = path.get(skip..).and_then(|rel| rel.to_str().ok()) else {
            continue;
        };
        let (dir, name) = rel.rsplit_once('/').unwrap_or((".", rel));
        let hasher = match marks.get_mut(dir) {
            Some(hasher) => hasher,
            None => marks.entry(dir.to_owned()).or_default(),
        };
        hasher.write(name.as_bytes());
        hasher.write_u8(0);
    }
    marks
        .into_iter()
        .map(|(dir, hasher)| (dir, hasher.finish() | 1))
        .collect()
}
