//! Where the records and logs of a person's runs live: `person-runs/` in agg's state
//! directory (the user's alone, mode 0700, through [`crate::own_dirs::OwnDir`]; every file
//! 0600; never writable by a sandboxed run, so a task cannot forge a run agents then read), one `RUN_ID.json` and its
//! `RUN_ID.log` per run, named after the repository. A record is replaced whole (written
//! beside, then renamed), so a reader never sees half of one. At most [`MAX_RECORDS`] records
//! are read, each at most [`MAX_RECORD_BYTES`]; a finished run is kept [`KEEP_FINISHED`] and
//! only the newest [`KEEP_FINISHED_RUNS`] of a repository, its log going with its record.

use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::record::{Record, State};

/// How long a finished run stays readable.
pub const KEEP_FINISHED: Duration = Duration::from_secs(24 * 3600);
/// How many finished runs of one repository stay readable.
pub const KEEP_FINISHED_RUNS: usize = 20;
/// Records read at most.
pub const MAX_RECORDS: usize = 256;
/// The largest record read.
const MAX_RECORD_BYTES: u64 = 64 * 1024;

/// The directory of the records and logs, as agg's own.
fn place() -> crate::own_dirs::OwnDir {
    crate::own_dirs::OwnDir::state().join("person-runs")
}

/// The directory of the records and logs.
pub fn dir() -> PathBuf {
    place().path()
}

/// The record file of run `run_id` on `root`.
fn record_path(root: &Path, run_id: &str) -> PathBuf {
    dir().join(format!(
        "{}{run_id}.json",
        crate::control::root_prefix(root)
    ))
}

/// The log file of run `run_id` on `root`.
pub fn log_path(root: &Path, run_id: &str) -> PathBuf {
    dir().join(format!("{}{run_id}.log", crate::control::root_prefix(root)))
}

/// Creates the directory (private to the user).
pub fn ensure_dir() -> std::io::Result<PathBuf> {
    Ok(place().create()?)
}

/// Writes the record, replacing the file at once.
pub fn save(record: &Record) -> std::io::Result<()> {
    ensure_dir()?;
    let path = record_path(Path::new(&record.root), &record.run_id);
    let tmp = path.with_extension("json.tmp");
    let text = serde_json::to_vec_pretty(record).map_err(std::io::Error::other)?;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
        .open(&tmp)?;
    file.write_all(&text)?;
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    std::fs::rename(&tmp, &path)
}

/// The record of run `run_id` on `root` as it is on disk now.
pub fn reread(root: &Path, run_id: &str) -> Option<Record> {
    read(&record_path(root, run_id))
}

/// One record, or `None` for a file that is not one: not a regular file, too large,
/// unreadable or not valid.
fn read(path: &Path) -> Option<Record> {
    let bytes = crate::repo_files::read_regular(path, MAX_RECORD_BYTES)
        .inspect_err(|e| tracing::debug!("{}: {e}", path.display()))
        .ok()?;
    serde_json::from_slice(&bytes)
        .inspect_err(|err| tracing::debug!("{}: {err}", path.display()))
        .ok()
}

/// Removes a run's record and its log.
fn forget(path: &Path, record: &Record) {
    let _ = std::fs::remove_file(path);
    let _ = std::fs::remove_file(&record.log);
    let _ = std::fs::remove_file(super::log::older(&record.log));
}

/// The runs on `root` (every root when `None`), oldest first. Finished runs past
/// [`KEEP_FINISHED`], or beyond the newest [`KEEP_FINISHED_RUNS`] of their repository, are
/// removed on the way, with their logs.
pub fn list(root: Option<&Path>) -> Vec<Record> {
    // Read only when it is agg's own: a directory another user planted is never read.
    let Ok(Some(dir)) = place().existing() else {
        return Vec::new();
    };
    let mut found: Vec<(PathBuf, Record)> =
        crate::control::records_of(&dir, root, MAX_RECORDS, read, |r: &Record| &r.root);
    found.sort_by_key(|(_, r)| std::cmp::Reverse(r.started_ms));
    let mut finished_per_root: std::collections::HashMap<String, usize> =
        std::collections::HashMap::new();
    found.retain(|(path, record)| {
        let state = record.state();
        if state == State::Running {
            return true;
        }
        let old = record
            .finished()
            .or_else(|| std::fs::metadata(path).and_then(|m| m.modified()).ok())
            .is_some_and(|t| t.elapsed().unwrap_or_default() > KEEP_FINISHED);
        let count = finished_per_root.entry(record.root.clone()).or_default();
        *count += 1;
        if old || *count > KEEP_FINISHED_RUNS {
            forget(path, record);
            return false;
        }
        true
    });
    found.reverse();
    found.into_iter().map(|(_, r)| r).collect()
}

/// The run with this run id: on `root` first, then anywhere.
pub fn find(run_id: &str, root: Option<&Path>) -> Option<Record> {
    if let Some(root) = root
        && let Some(r) = list(Some(root)).into_iter().find(|r| r.run_id == run_id)
    {
        return Some(r);
    }
    list(None).into_iter().find(|r| r.run_id == run_id)
}

/// The run with this run id, or else the newest run of the task with this name (a running
/// one first): on `root` first, then anywhere.
pub fn find_named(id: &str, root: Option<&Path>) -> Option<Record> {
    if let Some(found) = find(id, root) {
        return Some(found);
    }
    let mut named: Vec<Record> = list(root)
        .into_iter()
        .filter(|r| r.unique_name == id)
        .collect();
    named.sort_by_key(|r| (r.state() == State::Running, r.started_ms));
    named.pop()
}
