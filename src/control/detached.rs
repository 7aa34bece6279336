//! Services `agg run --until-ready` left running, kept where `agg ps`, `agg logs` and
//! `agg stop` look: one small JSON record each in `services/` under [`super::socket_dir`]
//! (the user's alone, mode 0700; each record 0600), named after the repository and the
//! service's process group. No agg process stays behind to serve them: the record names the
//! group, when its leader started (so a pid the system gave to another process since is never
//! taken for the service), the log file the task writes to, and the URLs and ports found at
//! readiness. A record of a service that ended is kept [`KEEP_ENDED`], so its output can
//! still be read; at most [`MAX_RECORDS`] records are read, each at most [`MAX_RECORD_BYTES`].

use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::engine::process::group_alive;
use crate::own_dirs::OwnDir;

/// How long the record of a service that ended is kept.
pub const KEEP_ENDED: Duration = Duration::from_secs(24 * 3600);
/// Records read at most.
pub const MAX_RECORDS: usize = 256;
/// The largest record read.
const MAX_RECORD_BYTES: u64 = 64 * 1024;

/// One service left running by `agg run --until-ready`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Service {
    /// Its run id (`dev-3f9c`), as `agg logs` and `agg stop` take it.
    pub run_id: String,
    /// The task's unique name.
    pub unique_name: String,
    /// The task file, relative to the root.
    pub file: String,
    /// The task's name in its file.
    pub source: String,
    /// The repository root (canonical).
    pub root: String,
    /// The task's pid, which is also its process group's id.
    pub pid: u32,
    /// When the leader started, in clock ticks after boot (`/proc/PID/stat`), where known.
    pub pid_started: Option<u64>,
    /// When it started, in milliseconds since the Unix epoch.
    pub started_ms: u64,
    /// The file its output goes to.
    pub log: PathBuf,
    /// The URLs found when it became ready.
    pub urls: Vec<String>,
    /// The TCP ports its processes listened on when it became ready.
    pub ports: Vec<u16>,
    /// Set once `agg stop` stopped it.
    #[serde(default)]
    pub stopped: bool,
}

impl Service {
    /// Whether its process group still runs: some member is alive, and the leader, when
    /// alive, is the process that started the service.
    pub fn running(&self) -> bool {
        if self.stopped || !group_alive(self.pid) {
            return false;
        }
        match (self.pid_started, leader_started(self.pid)) {
            (Some(recorded), Some(now)) => recorded == now,
            _ => true,
        }
    }

    /// When it started.
    pub fn started(&self) -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(self.started_ms)
    }
}

/// The directory of the records.
pub fn dir() -> OwnDir {
    super::socket_dir().join("services")
}

/// The name of the record file of the service with process group `pid` on `root`.
fn file_name(root: &Path, pid: u32) -> String {
    format!("{}{pid}.json", super::root_prefix(root))
}

/// When the process `pid` started, in clock ticks after boot (`None` without `/proc`).
pub fn leader_started(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Field 22; the fields after the command name (which may hold spaces) start at 3.
    stat[stat.rfind(')')? + 1..]
        .split_whitespace()
        .nth(19)?
        .parse()
        .ok()
}

/// Writes the record (replacing the file at once, so a reader never sees half of it).
pub fn save(service: &Service) -> std::io::Result<PathBuf> {
    let dir = dir().create()?;
    let root = Path::new(&service.root);
    let path = dir.join(file_name(root, service.pid));
    let tmp = path.with_extension("json.tmp");
    let text = serde_json::to_vec_pretty(service).map_err(std::io::Error::other)?;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)?;
    file.write_all(&text)?;
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    std::fs::rename(&tmp, &path)?;
    Ok(path)
}

/// The records of services on `root` (every root when `None`), oldest first. Records of
/// services that ended more than [`KEEP_ENDED`] ago, and files that are no record, are
/// removed on the way.
pub fn list(root: Option<&Path>) -> Vec<(PathBuf, Service)> {
    // A directory another user planted is not read: its records name processes to stop.
    let dir = match dir().existing() {
        Ok(Some(dir)) => dir,
        Ok(None) => return Vec::new(),
        Err(err) => {
            tracing::warn!("records of services not read: {err}");
            return Vec::new();
        }
    };
    let mut found: Vec<(PathBuf, Service)> =
        super::records_of(&dir, root, MAX_RECORDS, read, |s: &Service| &s.root)
            .into_iter()
            .filter(|(p, service)| {
                let stale = !service.running()
                    && std::fs::metadata(p)
                        .and_then(|m| m.modified())
                        .is_ok_and(|t| t.elapsed().unwrap_or_default() > KEEP_ENDED);
                if stale {
                    let _ = std::fs::remove_file(p);
                }
                !stale
            })
            .collect();
    found.sort_by_key(|(_, s)| s.started_ms);
    found
}

/// The record of the service with this run id, or else of the one running service of this
/// task name: on `root` first, then anywhere. A name two running services share finds none.
pub fn find(id: &str, root: Option<&Path>) -> Option<(PathBuf, Service)> {
    let mut all = root.map(|r| list(Some(r))).unwrap_or_default();
    for found in list(None) {
        if !all.iter().any(|(p, _)| *p == found.0) {
            all.push(found);
        }
    }
    if let Some(by_id) = all.iter().find(|(_, s)| s.run_id == id) {
        return Some(by_id.clone());
    }
    let mut named = all
        .into_iter()
        .filter(|(_, s)| s.unique_name == id && s.running());
    let first = named.next()?;
    named.next().is_none().then_some(first)
}

/// One record, or `None` (with a debug log) for a file that is not one: not a regular file,
/// too large, unreadable or not valid.
fn read(path: &Path) -> Option<Service> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_RECORD_BYTES {
        tracing::debug!("{}: not a service record", path.display());
        return None;
    }
    let text = std::fs::read(path).ok()?;
    serde_json::from_slice(&text)
        .inspect_err(|err| tracing::debug!("{}: {err}", path.display()))
        .ok()
}
