//! A run's log: what the task printed, copied as it printed it, bounded. The log is written
//! in two segments of [`MAX_LOG_BYTES`]/2: when the current one is full it becomes `.1`
//! (replacing the one before) and a new one starts, so a run that prints for days keeps its
//! last few megabytes and never more. A [`Follower`] reads both segments in order and then
//! whatever is appended, across rotations, the way `tail -F` does.

use std::fs::File;
use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The most a run's log holds, both segments together.
pub const MAX_LOG_BYTES: u64 = 8 * 1024 * 1024;
/// One segment.
const SEGMENT_BYTES: u64 = MAX_LOG_BYTES / 2;
/// The most one [`Follower::read_new`] call reads.
const READ_BYTES: usize = 64 * 1024;

/// The older segment of the log at `path`.
pub fn older(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(".1");
    PathBuf::from(p)
}

fn create(path: &Path) -> std::io::Result<File> {
    std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
        .open(path)
}

/// Appends to a run's log, rotating it at the cap. A write that fails is dropped (the log
/// is a copy: the person's terminal must never wait on it), and the log says so once.
#[derive(Debug)]
pub struct LogWriter {
    path: PathBuf,
    file: Option<File>,
    written: u64,
}

impl LogWriter {
    /// Starts the log at `path` (an empty file, the user's only).
    pub fn create(path: &Path) -> std::io::Result<LogWriter> {
        let file = create(path)?;
        Ok(LogWriter {
            path: path.to_path_buf(),
            file: Some(file),
            written: 0,
        })
    }

    /// Appends `bytes`.
    pub fn write(&mut self, bytes: &[u8]) {
        if self.written + bytes.len() as u64 > SEGMENT_BYTES && self.written > 0 {
            self.rotate();
        }
        if let Some(file) = &mut self.file {
            if file.write_all(bytes).is_err() {
                tracing::debug!("{}: cannot write the log", self.path.display());
                self.file = None;
            } else {
                self.written += bytes.len() as u64;
            }
        }
    }

    fn rotate(&mut self) {
        self.file = None;
        if std::fs::rename(&self.path, older(&self.path)).is_ok() {
            self.file = create(&self.path).ok();
            self.written = 0;
        }
    }
}

/// Reads a log as it grows, across rotations.
#[derive(Debug)]
pub struct Follower {
    path: PathBuf,
    /// The segment being read, and its inode.
    file: Option<(File, u64)>,
    /// Whether the older segment was read (on the first call).
    began: bool,
}

impl Follower {
    /// A follower of the log at `path`, which has read nothing yet.
    pub fn new(path: &Path) -> Follower {
        Follower {
            path: path.to_path_buf(),
            file: None,
            began: false,
        }
    }

    fn open(path: &Path) -> Option<(File, u64)> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags((nix::fcntl::OFlag::O_NOFOLLOW | nix::fcntl::OFlag::O_NONBLOCK).bits())
            .open(path)
            .ok()?;
        let meta = file.metadata().ok()?;
        meta.is_file().then(|| (file, meta.ino()))
    }

    /// Passes everything appended since the last call to `each`, in order: on the first
    /// call, the older segment and then the current one from their starts. At most
    /// `budget` bytes are read per call.
    pub fn read_new(&mut self, budget: usize, each: &mut dyn FnMut(&[u8])) {
        let mut buf = vec![0u8; READ_BYTES];
        let mut left = budget;
        if !self.began {
            self.began = true;
            if let Some((mut old, _)) = Follower::open(&older(&self.path)) {
                drain(&mut old, &mut buf, &mut left, each);
            }
            self.file = Follower::open(&self.path);
        }
        loop {
            let Some((file, ino)) = &mut self.file else {
                self.file = Follower::open(&self.path);
                if self.file.is_none() {
                    return;
                }
                continue;
            };
            drain(file, &mut buf, &mut left, each);
            if left == 0 {
                return;
            }
            // At the end of this segment: the log may have rotated (this file is `.1` now).
            let current = std::fs::symlink_metadata(&self.path).map(|m| m.ino()).ok();
            if current.is_some_and(|c| c != *ino) {
                drain(file, &mut buf, &mut left, each);
                self.file = Follower::open(&self.path);
                continue;
            }
            return;
        }
    }
}

/// Reads `file` to its end (or until `left` is spent), passing each chunk to `each`.
fn drain(file: &mut File, buf: &mut [u8], left: &mut usize, each: &mut dyn FnMut(&[u8])) {
    while *left > 0 {
        let want = buf.len().min(*left);
        match file.read(&mut buf[..want]) {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                *left -= n;
                each(&buf[..n]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_rotates_at_its_cap_and_a_follower_reads_across_the_rotation() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("run.log");
        let mut log = LogWriter::create(&path).expect("log");
        let mut follower = Follower::new(&path);
        let mut seen = Vec::new();
        let line = vec![b'x'; 1023];
        let mut chunk = line.clone();
        chunk.push(b'\n');
        log.write(b"first\n");
        follower.read_new(usize::MAX, &mut |b| seen.extend_from_slice(b));
        assert_eq!(seen, b"first\n");
        // Three segments' worth: the first is gone, the follower saw it all the same.
        for _ in 0..(3 * SEGMENT_BYTES / 1024) {
            log.write(&chunk);
            follower.read_new(usize::MAX, &mut |b| seen.extend_from_slice(b));
        }
        assert_eq!(seen.len() as u64, 6 + 3 * SEGMENT_BYTES);
        let on_disk = std::fs::metadata(&path).map_or(0, |m| m.len())
            + std::fs::metadata(older(&path)).map_or(0, |m| m.len());
        assert!(on_disk <= MAX_LOG_BYTES, "{on_disk}");
        // A new follower starts from what is kept: the older segment, then the current one.
        let mut late = Vec::new();
        Follower::new(&path).read_new(usize::MAX, &mut |b| late.extend_from_slice(b));
        assert_eq!(late.len() as u64, on_disk);
        assert!(late.ends_with(&chunk));
    }
}
