//! agg's cache files: what one run leaves for the next (the scan's records, see
//! [`crate::scan`]), one file per key (a repository's root) in a private directory under
//! [`crate::own_dirs::state_dir`]. Not under the XDG cache directory: the tasks an agent runs
//! may write there (their runners' caches are), and a cache a task could forge would change
//! what `agg run NAME` runs; the sandbox keeps agg's state directory out of their reach.
//!
//! A file is a header, the payload and a CRC-32 of both: the header holds [`FORMAT`], the
//! identity of the agg build that wrote it (its version and its executable's inode, size and
//! modification time, so that a rebuilt or upgraded agg starts afresh) and the key itself.
//! Whatever does not match — another build, another key under a colliding name, a truncated
//! or corrupt file, one over [`MAX_BYTES`] — reads as no cache at all.
//!
//! A file is replaced whole: written to a temporary file beside it, then renamed over it, so
//! a reader sees the old file or the new one, and two agg processes writing at once never
//! wait for each other (the last rename wins; both files are whole). At most [`MAX_FILES`]
//! are kept per kind: the least recently written go first.

use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// The layout of the header; a file of another layout is ignored.
pub const FORMAT: u32 = 1;

/// The largest cache file written or read.
pub const MAX_BYTES: u64 = 1024 * 1024 * 1024;

/// Cache files kept per kind (the repositories listed most recently).
pub const MAX_FILES: usize = 64;

/// A temporary file older than this was left by a writer that died; it is removed.
const STALE_TEMPORARY: Duration = Duration::from_secs(3600);

const MAGIC: &[u8; 8] = b"AGGCACHE";

/// A cache file as read, and where its payload is in it.
pub struct Loaded {
    bytes: Vec<u8>,
    payload: std::ops::Range<usize>,
}

impl Loaded {
    /// What was stored.
    pub fn payload(&self) -> &[u8] {
        self.bytes.get(self.payload.clone()).unwrap_or_default()
    }
}

/// The cache of `kind` for `key`, when a file written by this very build for this key is
/// there, whole.
pub fn load(kind: &str, key: &Path) -> Option<Loaded> {
    let dir = dir(kind).existing().ok()??;
    let (bytes, meta) =
        crate::repo_files::read_regular_with_meta(&file(&dir, key), MAX_BYTES).ok()??;
    // Written by this user and by no one else: a file another user could have written (while
    // the directory was wider than agg left it) is not trusted.
    if meta.uid() != nix::unistd::geteuid().as_raw() || meta.mode() & 0o022 != 0 {
        return None;
    }
    let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(4)?)?;
    if crc32fast::hash(body).to_le_bytes() != sum {
        return None;
    }
    let mut reader = Reader(body);
    if reader.take(MAGIC.len())? != MAGIC
        || reader.u32()? != FORMAT
        || reader.chunk()? != build()?.as_slice()
        || reader.chunk()? != key.as_os_str().as_bytes()
    {
        return None;
    }
    let payload = reader.chunk()?;
    if !reader.0.is_empty() {
        return None;
    }
    let start = body.len() - payload.len();
    let payload = start..body.len();
    Some(Loaded { bytes, payload })
}

/// Writes `payload` as the cache of `kind` for `key`, replacing the file whole, and tells
/// whether it was written; a failure only means the next run does without.
pub fn store(kind: &str, key: &Path, payload: &[u8]) -> bool {
    match try_store(kind, key, payload) {
        Ok(()) => true,
        Err(err) => {
            tracing::debug!("cache {kind} for {}: not written: {err}", key.display());
            false
        }
    }
}

fn try_store(kind: &str, key: &Path, payload: &[u8]) -> std::io::Result<()> {
    let fail = |what: &str| std::io::Error::other(what.to_owned());
    let build = build().ok_or_else(|| fail("the running executable cannot be identified"))?;
    let key_bytes = key.as_os_str().as_bytes();
    let chunks = [build.as_slice(), key_bytes, payload];
    let total: usize = chunks.iter().map(|c| c.len() + 8).sum::<usize>() + MAGIC.len() + 8;
    if total as u64 > MAX_BYTES {
        return Err(fail("over the size limit"));
    }
    // Made when absent (mode 0700); one that is there is used only when it is agg's own (a
    // real directory of this user's that nobody else may write), never followed through a
    // link.
    let dir = dir(kind).create()?;
    let mut temporary = tempfile::Builder::new().prefix(".new-").tempfile_in(&dir)?;
    // Written in parts, the checksum taken on the way: the payload is not copied.
    let mut sum = crc32fast::Hasher::new();
    let mut out = std::io::BufWriter::new(temporary.as_file_mut());
    let mut put = |bytes: &[u8]| {
        sum.update(bytes);
        out.write_all(bytes)
    };
    put(MAGIC)?;
    put(&FORMAT.to_le_bytes())?;
    for chunk in chunks {
        put(&(chunk.len() as u64).to_le_bytes())?;
        put(chunk)?;
    }
    out.write_all(&sum.finalize().to_le_bytes())?;
    out.flush()?;
    drop(out);
    let path = file(&dir, key);
    temporary.persist(&path).map_err(|e| e.error)?;
    prune(&dir, &path);
    Ok(())
}

/// `parts` as one payload, each after its length (eight bytes, little-endian), so that a
/// reader can decode only the parts it needs ([`split_parts`]).
pub fn join_parts(parts: &[&[u8]]) -> Vec<u8> {
    let mut payload = Vec::with_capacity(parts.iter().map(|p| p.len() + 8).sum());
    for part in parts {
        payload.extend_from_slice(&(part.len() as u64).to_le_bytes());
        payload.extend_from_slice(part);
    }
    payload
}

/// Where each of the `N` parts of a payload [`join_parts`] wrote is; `None` unless the
/// payload is exactly `N` whole parts.
pub fn split_parts<const N: usize>(payload: &[u8]) -> Option<[std::ops::Range<usize>; N]> {
    let mut at: usize = 0;
    let mut parts = [0; N].map(|_| 0..0);
    for part in &mut parts {
        let len = u64::from_le_bytes(payload.get(at..at.checked_add(8)?)?.try_into().ok()?);
        let start = at + 8;
        let end = start.checked_add(usize::try_from(len).ok()?)?;
        payload.get(start..end)?;
        *part = start..end;
        at = end;
    }
    (at == payload.len()).then_some(parts)
}

/// The directory of one kind of cache file, in agg's state directory (which sandboxed runs
/// may not write).
fn dir(kind: &str) -> crate::own_dirs::OwnDir {
    crate::own_dirs::OwnDir::state().join(kind)
}

/// The file for `key`: named after a digest of it (the key itself is in the header).
fn file(dir: &Path, key: &Path) -> PathBuf {
    use sha2::Digest as _;
    let digest = sha2::Sha256::digest(key.as_os_str().as_bytes());
    let name = digest[..10].iter().fold(String::new(), |mut hex, b| {
        use std::fmt::Write as _;
        let _ = write!(hex, "{b:02x}");
        hex
    });
    dir.join(format!("{name}.bin"))
}

/// The identity of this build: its version and its executable's inode, size and times.
fn build() -> Option<Vec<u8>> {
    let exe = std::env::current_exe().ok()?;
    let meta = std::fs::metadata(exe).ok()?;
    let mut id = env!("CARGO_PKG_VERSION").as_bytes().to_vec();
    for n in [meta.dev(), meta.ino(), meta.size()] {
        id.extend_from_slice(&n.to_le_bytes());
    }
    for n in [
        meta.mtime(),
        meta.mtime_nsec(),
        meta.ctime(),
        meta.ctime_nsec(),
    ] {
        id.extend_from_slice(&n.to_le_bytes());
    }
    Some(id)
}

/// Keeps the [`MAX_FILES`] most recently written files of `dir` (and `kept` in any case),
/// and removes temporary files their writers left behind.
fn prune(dir: &Path, kept: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = SystemTime::now();
    let mut files: Vec<(SystemTime, PathBuf)> = Vec::new();
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(modified) = entry.metadata().and_then(|m| m.modified()) else {
            continue;
        };
        let temporary = entry.file_name().as_bytes().starts_with(b".new-");
        if temporary {
            if now.duration_since(modified).unwrap_or_default() > STALE_TEMPORARY {
                let _ = std::fs::remove_file(&path);
            }
        } else if path != kept {
            files.push((modified, path));
        }
    }
    if files.len() < MAX_FILES {
        return;
    }
    files.sort();
    let excess = files.len() + 1 - MAX_FILES;
    for (_, path) in files.into_iter().take(excess) {
        let _ = std::fs::remove_file(path);
    }
}

/// Reads a header's fields in order.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn chunk(&mut self) -> Option<&'a [u8]> {
        let len = u64::from_le_bytes(self.take(8)?.try_into().ok()?);
        self.take(usize::try_from(len).ok()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_read_back_whole_or_not_at_all() {
        let payload = join_parts(&[b"ab", b"", b"cde"]);
        let [a, b, c] = split_parts::<3>(&payload).expect("three parts");
        assert_eq!(
            (&payload[a], &payload[b], &payload[c]),
            (&b"ab"[..], &b""[..], &b"cde"[..])
        );
        assert!(split_parts::<2>(&payload).is_none(), "a part left over");
        assert!(split_parts::<4>(&payload).is_none(), "a part missing");
        assert!(
            split_parts::<3>(&payload[..payload.len() - 1]).is_none(),
            "truncated"
        );
        let mut huge = payload.clone();
        huge[..8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(split_parts::<3>(&huge).is_none(), "a length past the end");
    }

    #[test]
    fn a_header_reads_back_and_any_damage_is_refused() {
        let mut reader = Reader(&[3, 0, 0, 0, 0, 0, 0, 0, b'a', b'b', b'c', 7]);
        assert_eq!(reader.chunk(), Some(&b"abc"[..]));
        assert_eq!(reader.take(2), None);
        let mut short = Reader(&[9, 0, 0, 0, 0, 0, 0, 0, b'a']);
        assert_eq!(short.chunk(), None);
    }
}
