//! What a file or directory looked like when the scan read it ([`Stamp`]), and when a stamp
//! can be trusted to say that nothing changed since ([`Clock`]).
//!
//! A stamp is the inode's identity (device, inode number), its size, mode and its
//! modification and change times in nanoseconds: what git keeps in its index for the same
//! purpose. A change time cannot be set from user space, so a file rewritten and given back
//! its old modification time (`touch -r`, `cp -p`, a checkout) still shows as changed.
//!
//! Times have a granularity, and a file written twice within one tick keeps its times. So a
//! stamp vouches for what was read only when its times are older than the start of the scan
//! that took it by more than [`SETTLE`]: anything written after the scan began has a time at
//! most a tick (or a coarse clock's lag) before that start. A stamp that is not settled is read
//! again on the next scan ("racily clean" in git's words), whatever its times say then.

use std::fs::Metadata;
use std::os::unix::fs::MetadataExt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How much older than a scan's start a time must be before a stamp vouches for the
/// contents read with it: more than the coarsest file-system time granularity agg expects
/// (FAT's two seconds) and the lag of the kernel's coarse clock behind the precise one.
pub const SETTLE: Duration = Duration::from_secs(3);

/// Sets another settling margin, in milliseconds, for the tests of the warm scan: they edit
/// a repository hundreds of times and cannot wait three seconds for each edit to settle. On
/// Linux file times come from a clock a few milliseconds coarse, so a margin of a few hundred
/// milliseconds is still safe there; a smaller one is not.
pub const SETTLE_VAR: &str = "AGG_TEST_SETTLE_MS";

/// The identity, size, mode and times of a file or directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, bitcode::Encode, bitcode::Decode)]
pub struct Stamp {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mode: u32,
    /// Modification time, nanoseconds since the epoch.
    pub mtime: i64,
    /// Change time (of the inode), nanoseconds since the epoch.
    pub ctime: i64,
}

impl Stamp {
    /// The stamp of `meta` (from `lstat`, or `fstat` of an open file).
    pub fn of(meta: &Metadata) -> Stamp {
        Stamp {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mode: meta.mode(),
            mtime: nanos(meta.mtime(), meta.mtime_nsec()),
            ctime: nanos(meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// The stamp of whatever is at `path` now, symlinks not followed; `None` when nothing is.
    pub fn at(path: &std::path::Path) -> Option<Stamp> {
        std::fs::symlink_metadata(path).ok().map(|m| Stamp::of(&m))
    }

    /// Whether this is a directory.
    pub fn is_dir(&self) -> bool {
        self.mode & 0o170_000 == 0o040_000
    }

    /// Whether this is a symbolic link.
    pub fn is_symlink(&self) -> bool {
        self.mode & 0o170_000 == 0o120_000
    }

    /// Whether the stamp and `other` are the same inode.
    pub fn same_inode(&self, other: &Stamp) -> bool {
        self.dev == other.dev && self.ino == other.ino
    }
}

/// The root of a tree, open, to stamp paths below it without walking the root's own path
/// each time (`fstatat` on a root-relative path: thousands of stamps per scan).
pub struct Below {
    root: std::os::fd::OwnedFd,
}

impl Below {
    /// The directory `root`, open for `fstatat`.
    pub fn open(root: &std::path::Path) -> Option<Below> {
        use nix::fcntl::OFlag;
        let flags = OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
        nix::fcntl::open(root, flags, nix::sys::stat::Mode::empty())
            .ok()
            .map(|root| Below { root })
    }

    /// The stamp of whatever is at the root-relative `rel` now (`.`: the root), symlinks not
    /// followed; `None` when nothing is.
    pub fn stamp(&self, rel: &str) -> Option<Stamp> {
        let flags = nix::fcntl::AtFlags::AT_SYMLINK_NOFOLLOW;
        let st = nix::sys::stat::fstatat(&self.root, rel, flags).ok()?;
        Some(Stamp {
            dev: st.st_dev,
            ino: st.st_ino,
            size: u64::try_from(st.st_size).unwrap_or(0),
            mode: st.st_mode,
            mtime: nanos(st.st_mtime, st.st_mtime_nsec),
            ctime: nanos(st.st_ctime, st.st_ctime_nsec),
        })
    }
}

fn nanos(secs: i64, nsec: i64) -> i64 {
    secs.saturating_mul(1_000_000_000).saturating_add(nsec)
}

/// The moment a scan began, which decides which stamps it may trust.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clock {
    /// Nanoseconds since the epoch, taken before anything is read.
    pub started: i64,
    /// The settling margin in nanoseconds ([`SETTLE`]).
    pub settle: i64,
}

impl Clock {
    /// Now, before the scan reads anything.
    pub fn now() -> Clock {
        let mut clock = Clock::at(SystemTime::now());
        if let Some(ms) = std::env::var(SETTLE_VAR)
            .ok()
            .and_then(|v| v.parse::<i64>().ok())
        {
            clock.settle = ms.saturating_mul(1_000_000).max(0);
        }
        clock
    }

    /// The clock of a scan that began at `time`.
    pub fn at(time: SystemTime) -> Clock {
        let since = |d: Duration| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX);
        let started = match time.duration_since(UNIX_EPOCH) {
            Ok(after) => since(after),
            Err(before) => -since(before.duration()),
        };
        Clock {
            started,
            settle: since(SETTLE),
        }
    }

    /// The clock of an earlier scan that began at `started`, judged with this one's margin.
    pub fn earlier(&self, started: i64) -> Clock {
        Clock {
            started,
            settle: self.settle,
        }
    }

    /// Whether `stamp`, taken during the scan that began at this clock, vouches for what was
    /// read with it: both its times are older than the scan's start by more than the settling
    /// margin. A time in the future (a clock set back since) never settles.
    pub fn settled(&self, stamp: &Stamp) -> bool {
        let line = self.started.saturating_sub(self.settle);
        stamp.mtime < line && stamp.ctime < line
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(mtime: i64, ctime: i64) -> Stamp {
        Stamp {
            dev: 1,
            ino: 2,
            size: 3,
            mode: 0o100_644,
            mtime,
            ctime,
        }
    }

    #[test]
    fn only_times_well_before_the_scan_settle() {
        let second = 1_000_000_000;
        let clock = Clock {
            started: 100 * second,
            settle: 3 * second,
        };
        assert!(clock.settled(&stamp(90 * second, 90 * second)));
        // Written within the settling margin, or after the scan began, or in the future.
        assert!(!clock.settled(&stamp(98 * second, 90 * second)));
        assert!(!clock.settled(&stamp(90 * second, 99 * second)));
        assert!(!clock.settled(&stamp(100 * second, 100 * second)));
        assert!(!clock.settled(&stamp(500 * second, 500 * second)));
    }

    #[test]
    fn a_clock_before_the_epoch_counts_back() {
        let before = UNIX_EPOCH - Duration::from_secs(5);
        assert_eq!(Clock::at(before).started, -5_000_000_000);
    }
}
