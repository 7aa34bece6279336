//! One run a person started: what it runs, which processes are it (each pid with the time
//! it started, so a pid the system gave to another process since is never taken for it),
//! where its output goes, and how it ended.

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

/// A run registered by `agg run`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// Its run id (`dev-3f9c2a`): six hex digits, so it never equals an agent's job id.
    pub run_id: String,
    /// The task's unique name.
    pub unique_name: String,
    /// The arguments it was given.
    #[serde(default)]
    pub args: Vec<String>,
    /// The repository root (canonical).
    pub root: String,
    /// The task file, relative to the root.
    pub file: String,
    /// The task's name in its file.
    pub source: String,
    /// The task's process.
    pub pid: u32,
    /// When that process started, in clock ticks after boot (`/proc/PID/stat`), where known.
    pub pid_started: Option<u64>,
    /// Its process group, when it leads one (a run not at a terminal); at a terminal it
    /// shares the group of the `agg run` that started it, as a command typed at the shell.
    pub group: Option<u32>,
    /// The `agg run` process that watches it and copies its output.
    pub agg_pid: u32,
    /// When that process started (clock ticks after boot), where known.
    pub agg_started: Option<u64>,
    /// Whether its output went to a terminal (stdout and stderr then share the log, in the
    /// order the terminal showed them).
    pub terminal: bool,
    /// The log its output is copied to (and, once that grew past half the cap, `.1` beside
    /// it holds the part before).
    pub log: PathBuf,
    /// When it started, in milliseconds since the Unix epoch.
    pub started_ms: u64,
    /// How it ended, once it did.
    #[serde(default)]
    pub end: Option<End>,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct End {
    /// When, in milliseconds since the Unix epoch.
    pub finished_ms: u64,
    /// Its exit code, when it exited.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
}

/// Where a run is now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Its process, or the `agg run` watching it, is alive.
    Running,
    /// It ended as recorded.
    Ended(End),
    /// Both are gone and no end was recorded (the `agg run` was killed).
    Lost,
}

/// When the process `pid` started, in clock ticks after boot (`None` without `/proc`).
pub fn started_ticks(pid: u32) -> Option<u64> {
    crate::control::detached::leader_started(pid)
}

/// Whether `pid` is alive and is the process that started at `ticks`.
fn alive(pid: u32, ticks: Option<u64>) -> bool {
    let Ok(raw) = i32::try_from(pid) else {
        return false;
    };
    if raw <= 1 || nix::sys::signal::kill(nix::unistd::Pid::from_raw(raw), None).is_err() {
        return false;
    }
    match (ticks, started_ticks(pid)) {
        (Some(recorded), Some(now)) => recorded == now,
        _ => true,
    }
}

impl Record {
    /// Where the run is now, from the record and the processes.
    pub fn state(&self) -> State {
        if let Some(end) = self.end {
            return State::Ended(end);
        }
        if alive(self.agg_pid, self.agg_started) || self.task_alive() {
            State::Running
        } else {
            State::Lost
        }
    }

    /// Whether the task's own process is still the one that started.
    pub fn task_alive(&self) -> bool {
        alive(self.pid, self.pid_started)
    }

    /// When it started.
    pub fn started(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(self.started_ms)
    }

    /// When it ended, if it did.
    pub fn finished(&self) -> Option<SystemTime> {
        self.end
            .map(|e| UNIX_EPOCH + Duration::from_millis(e.finished_ms))
    }
}

/// Milliseconds since the Unix epoch of `t`.
pub fn epoch_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// A run id for `unique_name`: its name made safe, then six hex digits of the pid and the
/// moment.
pub fn run_id(unique_name: &str, pid: u32) -> String {
    use std::hash::{BuildHasher, Hasher};
    let base = crate::engine::run_id_base(unique_name, 64);
    let mut h = std::hash::RandomState::new().build_hasher();
    h.write_u32(pid);
    h.write_u128(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    format!("{base}-{:06x}", h.finish() & 0xff_ffff)
}
