//! Run history: every finished run of a repository's tasks (how it ended, how long it took,
//! when, and whether `agg run` or `agg mcp` ran it), kept in one `SQLite` file per repository
//! under the cache directory, so `agg list`, `describe` and `ps --history` (and agents) can
//! tell how long a task usually takes and how it last ended.
//!
//! Several processes write one store at once (many `agg mcp` and `agg run` on a repository):
//! `SQLite` in WAL mode serialises their short write transactions, readers never wait, and a
//! store still busy after [`BUSY_TIMEOUT`] is skipped. History is a convenience: nothing
//! here ever fails a run. A corrupt store is set aside and started afresh, an unreadable one
//! is ignored, both with a warning. Bounded on every write: [`MAX_RUNS_PER_TASK`] runs per
//! task, [`MAX_TASKS`] tasks per repository, [`MAX_STORES`] repositories per user.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, ErrorCode, OpenFlags, OptionalExtension, TransactionBehavior};
use schemars::JsonSchema;
use serde::{Serialize, Serializer};

use crate::engine::{Job, JobState, OnFinish};
use crate::human::duration;
use crate::lock::MutexExt;

/// Runs kept per task; older ones are dropped as new ones are recorded.
pub const MAX_RUNS_PER_TASK: usize = 50;
/// Tasks kept per repository; the tasks run least recently are dropped first.
pub const MAX_TASKS: usize = 5_000;
/// Repositories with a store per user; the stores written least recently are removed first.
pub const MAX_STORES: usize = 256;
/// How long a write waits for another process's write before the run is skipped.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(3);
/// The newest runs a typical duration is the median of.
pub const TYPICAL_OF: usize = 20;
/// The most runs [`History::recent`] returns.
pub const MAX_RECENT: usize = 1_000;
/// A name, file or source longer than this is not recorded (a store of bounded size).
const MAX_FIELD_BYTES: usize = 4_096;
/// The store's format, in `SQLite`'s `user_version`.
const FORMAT: i64 = 1;

/// Who ran a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
pub enum StartedBy {
    /// `agg run` in a terminal.
    #[serde(rename = "agg run")]
    Run,
    /// An agent through `agg mcp`.
    #[serde(rename = "agg mcp")]
    Mcp,
}

impl StartedBy {
    /// `agg run` or `agg mcp`.
    pub fn as_str(self) -> &'static str {
        match self {
            StartedBy::Run => "agg run",
            StartedBy::Mcp => "agg mcp",
        }
    }

    fn from_str(s: &str) -> StartedBy {
        if s == "agg mcp" {
            StartedBy::Mcp
        } else {
            StartedBy::Run
        }
    }
}

/// One finished run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Run {
    /// The task's unique name when it ran.
    pub unique_name: String,
    /// The task file, relative to the root.
    pub file: String,
    /// The task's name in its file.
    pub source: String,
    /// When it started (RFC 3339 in JSON).
    #[serde(serialize_with = "rfc3339")]
    #[schemars(with = "String")]
    pub started: SystemTime,
    /// Milliseconds from start to end.
    pub duration_ms: u64,
    /// The exit code, when it exited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that ended it (its name in JSON).
    #[serde(
        serialize_with = "signal_name",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Option<String>")]
    pub signal: Option<i32>,
    /// Whether agg stopped it (a service stopped by a person or an agent).
    pub stopped: bool,
    /// Who ran it.
    pub via: StartedBy,
}

impl Run {
    /// Whether it exited 0.
    pub fn passed(&self) -> bool {
        self.exit_code == Some(0) && !self.stopped
    }

    /// The finished run of `job`, the task being `file` and `source`; `None` while it runs
    /// and for a job that never started (nothing ran, nothing to time).
    pub fn of_job(job: &Job, via: StartedBy, file: &str, source: &str) -> Option<Run> {
        let snap = job.snapshot();
        if matches!(snap.state, JobState::Running | JobState::FailedToStart) {
            return None;
        }
        Some(Run {
            unique_name: job.unique_name.clone(),
            file: file.to_owned(),
            source: source.to_owned(),
            started: job.started_at(),
            duration_ms: millis(job.elapsed()),
            exit_code: snap.exit_code,
            signal: job.signal_number(),
            stopped: job.stop_requested(),
            via,
        })
    }

    /// How it ended, in a few characters: `✓ 2.3s`, `✗ exit 2`, `✗ SIGKILL`, `■ stopped`.
    pub fn badge(&self) -> String {
        if self.stopped {
            "■ stopped".to_owned()
        } else if self.passed() {
            format!("✓ {}", duration(self.duration_ms))
        } else if let Some(code) = self.exit_code {
            format!("✗ exit {code}")
        } else {
            format!("✗ {}", signal_text(self.signal))
        }
    }
}

/// What the history says about one task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Summary {
    /// The newest run.
    pub last: Run,
    /// The median duration of the newest runs that passed (of the newest runs, when none
    /// did), over at most [`TYPICAL_OF`] runs.
    pub typical_ms: u64,
    /// Runs kept (at most [`MAX_RUNS_PER_TASK`]).
    pub runs: usize,
    /// Of those, how many passed.
    pub passed: usize,
}

impl Summary {
    /// From runs of one task, newest first (`None` when there are none).
    fn of(runs: &[Run]) -> Option<Summary> {
        let last = runs.first()?.clone();
        let passed: Vec<u64> = runs
            .iter()
            .filter(|r| r.passed())
            .take(TYPICAL_OF)
            .map(|r| r.duration_ms)
            .collect();
        let typical = if passed.is_empty() {
            runs.iter()
                .take(TYPICAL_OF)
                .map(|r| r.duration_ms)
                .collect()
        } else {
            passed
        };
        Some(Summary {
            last,
            typical_ms: median(typical),
            runs: runs.len(),
            passed: runs.iter().filter(|r| r.passed()).count(),
        })
    }

    /// Last status and typical duration in a few characters, for a table column: `✓ 2.3s`
    /// when the last run passed, else how it ended (`✗ exit 2`, `■ stopped`).
    pub fn badge(&self) -> String {
        if self.last.passed() {
            format!("✓ {}", duration(self.typical_ms))
        } else {
            self.last.badge()
        }
    }
}

/// The summaries of every task with a history, found by unique name or, for a task whose
/// unique name changed since it ran, by its file and source name.
#[derive(Debug, Clone, Default)]
pub struct Summaries {
    /// By the unique name the runs were recorded under.
    pub by_name: HashMap<String, Summary>,
    by_source: HashMap<(String, String), Summary>,
}

impl Summaries {
    /// The summary of a task: by its unique name, else by its file and source name.
    pub fn get(&self, unique_name: &str, file: &str, source: &str) -> Option<&Summary> {
        self.by_name
            .get(unique_name)
            .filter(|s| s.last.file == file && s.last.source == source)
            .or_else(|| {
                self.by_source
                    .get(&(file.to_owned(), source.to_owned()))
                    .or_else(|| self.by_name.get(unique_name))
            })
    }
}

/// A repository's run history.
#[derive(Debug)]
pub struct History {
    conn: Mutex<Connection>,
    path: PathBuf,
}

/// How a store is opened.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    /// Create it when missing (to record).
    Create,
    /// Only when it exists (to read).
    Existing,
}

impl History {
    /// The store of the repository at `root`, created when missing; `None` (with a
    /// warning in agg's log) when it cannot be opened.
    pub fn open(root: &Path) -> Option<History> {
        let name = store_name(root)?;
        let dir = stores_dir()
            .create()
            .inspect_err(|err| tracing::warn!("run history not kept: {err}"))
            .ok()?;
        History::open_at(&dir.join(name), Some(root), Open::Create)
    }

    /// The store of the repository at `root` when one exists, to read: nothing is created.
    pub fn open_existing(root: &Path) -> Option<History> {
        History::read(root)
            .inspect_err(|err| tracing::warn!("run history not read: {err}"))
            .ok()?
    }

    /// The store of the repository at `root` when one exists, to read; an error when the
    /// directory of the stores is not agg's own (another user's, a link), which is not read.
    pub fn read(root: &Path) -> Result<Option<History>, crate::own_dirs::PlaceError> {
        let Some(name) = store_name(root) else {
            return Ok(None);
        };
        let Some(dir) = stores_dir().existing()? else {
            return Ok(None);
        };
        Ok(History::open_at(&dir.join(name), None, Open::Existing))
    }

    /// The store in the file `path` (tests and `agg ps --all --history`, which finds them
    /// with [`store_files`]).
    pub fn open_file(path: &Path, create: bool) -> Option<History> {
        let how = if create { Open::Create } else { Open::Existing };
        if how == Open::Create
            && let Some(dir) = path.parent()
            && let Err(err) = crate::own_dirs::OwnDir::named(dir).create()
        {
            tracing::warn!("run history not kept: {err}");
            return None;
        }
        History::open_at(path, None, how)
    }

    fn open_at(path: &Path, root: Option<&Path>, how: Open) -> Option<History> {
        let existed = path.is_file();
        if how == Open::Existing && !existed {
            return None;
        }
        // The directory was made (or found sound) by the caller, through `places`.
        if how == Open::Create
            && !existed
            && let Some(dir) = path.parent()
        {
            prune_stores(dir, path);
        }
        match connect(path, root, how) {
            Ok(conn) => Some(History {
                conn: Mutex::new(conn),
                path: path.to_path_buf(),
            }),
            Err(err) if how == Open::Create && is_corrupt(&err) => {
                set_aside(path, &err);
                connect(path, root, how)
                    .inspect_err(|err| warn_unusable(path, err))
                    .ok()
                    .map(|conn| History {
                        conn: Mutex::new(conn),
                        path: path.to_path_buf(),
                    })
            }
            Err(err) if is_busy(&err) => {
                tracing::debug!("run history {} busy: {err}", path.display());
                None
            }
            Err(err) => {
                warn_unusable(path, &err);
                None
            }
        }
    }

    /// The repository root the store belongs to, as recorded when it was created.
    pub fn root(&self) -> Option<String> {
        self.conn()
            .query_row("SELECT value FROM meta WHERE key = 'root'", [], |r| {
                r.get(0)
            })
            .optional()
            .ok()
            .flatten()
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.conn.locked()
    }

    /// Records a finished run and prunes to the bounds. Never fails: a busy store skips the
    /// run (debug log), a corrupt one is started afresh, any other failure is a warning.
    pub fn record(&self, run: &Run) {
        if [&run.unique_name, &run.file, &run.source]
            .iter()
            .any(|s| s.len() > MAX_FIELD_BYTES)
        {
            tracing::debug!("run history: a name over {MAX_FIELD_BYTES} bytes is not recorded");
            return;
        }
        let mut conn = self.conn();
        let result = insert(&mut conn, run);
        match result {
            Ok(()) => {}
            Err(err) if is_busy(&err) => {
                tracing::debug!("run history busy, {} not recorded: {err}", run.unique_name);
            }
            Err(err) if is_corrupt(&err) => {
                set_aside(&self.path, &err);
                match connect(&self.path, None, Open::Create) {
                    Ok(fresh) => {
                        *conn = fresh;
                        if let Err(err) = insert(&mut conn, run) {
                            tracing::warn!("run history: {} not recorded: {err}", run.unique_name);
                        }
                    }
                    Err(err) => warn_unusable(&self.path, &err),
                }
            }
            Err(err) => {
                tracing::warn!(
                    "run history {}: {} not recorded: {err}",
                    self.path.display(),
                    run.unique_name
                );
            }
        }
    }

    /// What the history says about the task with this unique name.
    pub fn summary(&self, unique_name: &str) -> Option<Summary> {
        let runs = self.select(
            "WHERE task = ?1 ORDER BY id DESC LIMIT ?2",
            (unique_name, int(MAX_RUNS_PER_TASK)),
        );
        Summary::of(&runs)
    }

    /// What the history says about a task: by its unique name, else (the name changed
    /// since) by its file and source name.
    pub fn summary_of(&self, unique_name: &str, file: &str, source: &str) -> Option<Summary> {
        let by_name = self.summary(unique_name);
        if by_name
            .as_ref()
            .is_some_and(|s| s.last.file == file && s.last.source == source)
        {
            return by_name;
        }
        let runs = self.select(
            "WHERE file = ?1 AND source = ?2 ORDER BY id DESC LIMIT ?3",
            (file, source, int(MAX_RUNS_PER_TASK)),
        );
        Summary::of(&runs).or(by_name)
    }

    /// The summaries of every task with a history, in one read.
    pub fn summaries(&self) -> Summaries {
        let runs = self.select("ORDER BY id DESC", ());
        let mut by_name: HashMap<String, Vec<Run>> = HashMap::new();
        let mut by_source: HashMap<(String, String), Vec<Run>> = HashMap::new();
        for run in runs {
            by_source
                .entry((run.file.clone(), run.source.clone()))
                .or_default()
                .push(run.clone());
            by_name
                .entry(run.unique_name.clone())
                .or_default()
                .push(run);
        }
        Summaries {
            by_name: by_name
                .into_iter()
                .filter_map(|(k, runs)| Some((k, Summary::of(&runs)?)))
                .collect(),
            by_source: by_source
                .into_iter()
                .filter_map(|(k, runs)| Some((k, Summary::of(&runs)?)))
                .collect(),
        }
    }

    /// The newest `limit` runs of any task (at most [`MAX_RECENT`]), newest first.
    pub fn recent(&self, limit: usize) -> Vec<Run> {
        let limit = i64::try_from(limit.min(MAX_RECENT)).unwrap_or(0);
        self.select("ORDER BY id DESC LIMIT ?1", [limit])
    }

    /// Runs matching `tail` (a `WHERE`/`ORDER BY` clause); empty when the store cannot be
    /// read (logged).
    fn select(&self, tail: &str, params: impl rusqlite::Params) -> Vec<Run> {
        let conn = self.conn();
        let sql = format!(
            "SELECT task, file, source, started_ms, duration_ms, exit_code, signal, stopped, via FROM runs {tail}"
        );
        let read = || -> rusqlite::Result<Vec<Run>> {
            let mut stmt = conn.prepare(&sql)?;
            let rows = stmt.query_map(params, |r| {
                Ok(Run {
                    unique_name: r.get(0)?,
                    file: r.get(1)?,
                    source: r.get(2)?,
                    started: UNIX_EPOCH
                        + Duration::from_millis(u64::try_from(r.get::<_, i64>(3)?).unwrap_or(0)),
                    duration_ms: u64::try_from(r.get::<_, i64>(4)?).unwrap_or(0),
                    exit_code: r.get(5)?,
                    signal: r.get(6)?,
                    stopped: r.get(7)?,
                    via: StartedBy::from_str(&r.get::<_, String>(8)?),
                })
            })?;
            rows.collect()
        };
        read().unwrap_or_else(|err| {
            tracing::debug!("run history {} not read: {err}", self.path.display());
            Vec::new()
        })
    }
}

/// A finish hook for an engine: each finished job of the repository at `root` is recorded
/// as run `via` whom. `locate` gives a unique name's task file and source name (`None`:
/// the job's name for both). The store is opened at the first finished job, on the
/// engine's blocking thread, so starting a task never waits for it.
pub fn recorder(
    root: PathBuf,
    via: StartedBy,
    locate: impl Fn(&str) -> Option<(String, String)> + Send + Sync + 'static,
) -> OnFinish {
    let store: OnceLock<Option<History>> = OnceLock::new();
    OnFinish(Arc::new(move |job: &Job| {
        let Some(history) = store.get_or_init(|| History::open(&root)) else {
            return;
        };
        let (file, source) =
            locate(&job.unique_name).unwrap_or_else(|| (String::new(), job.unique_name.clone()));
        if let Some(run) = Run::of_job(job, via, &file, &source) {
            history.record(&run);
        }
    }))
}

/// The file name of the store of the repository at `root` in [`stores_dir`]: the hash of
/// its path, `<hash>.db`.
pub fn store_name(root: &Path) -> Option<String> {
    use sha2::Digest;
    let root = std::fs::canonicalize(root).ok()?;
    let digest = sha2::Sha256::digest(root.as_os_str().as_encoded_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&digest[..8]);
    let name = u64::from_be_bytes(first);
    Some(format!("{name:016x}.db"))
}

/// The directory holding every repository's store: `history` in agg's state directory.
pub fn stores_dir() -> crate::own_dirs::OwnDir {
    crate::own_dirs::OwnDir::state().join("history")
}

/// Every store file in [`stores_dir`] (none when it is missing or not agg's own).
pub fn store_files() -> Vec<PathBuf> {
    let dir = match stores_dir().existing() {
        Ok(Some(dir)) => dir,
        Ok(None) => return Vec::new(),
        Err(err) => {
            tracing::warn!("run history not read: {err}");
            return Vec::new();
        }
    };
    let Ok(dir) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "db"))
        .take(MAX_STORES * 2)
        .collect()
}

fn signal_text(signal: Option<i32>) -> String {
    match signal {
        Some(s) => nix::sys::signal::Signal::try_from(s)
            .map_or_else(|_| format!("signal {s}"), |s| s.as_str().to_owned()),
        None => "failed".to_owned(),
    }
}

fn median(mut values: Vec<u64>) -> u64 {
    if values.is_empty() {
        return 0;
    }
    values.sort_unstable();
    let mid = values.len() / 2;
    if values.len().is_multiple_of(2) {
        u64::midpoint(values[mid - 1], values[mid])
    } else {
        values[mid]
    }
}

/// A count as SQL takes it.
fn int(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

#[allow(clippy::ref_option, clippy::trivially_copy_pass_by_ref)]
fn signal_name<S: Serializer>(signal: &Option<i32>, s: S) -> Result<S::Ok, S::Error> {
    match signal {
        Some(n) => s.serialize_str(&signal_text(Some(*n))),
        None => s.serialize_none(),
    }
}

fn rfc3339<S: Serializer>(t: &SystemTime, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&humantime::format_rfc3339_millis(*t).to_string())
}

/// Opens the file and makes sure it holds the store's tables.
fn connect(path: &Path, root: Option<&Path>, how: Open) -> rusqlite::Result<Connection> {
    let flags = match how {
        Open::Create => OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE,
        Open::Existing => OpenFlags::SQLITE_OPEN_READ_WRITE,
    } | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = match Connection::open_with_flags(path, flags) {
        Ok(conn) => conn,
        // A store agg may read but not write still shows its history.
        Err(_) if how == Open::Existing => Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?,
        Err(err) => return Err(err),
    };
    conn.busy_timeout(BUSY_TIMEOUT)?;
    let format: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if how == Open::Existing || format == FORMAT {
        return Ok(conn);
    }
    // New (or emptied) file: WAL lets readers go on while one process writes, and survives
    // in the file, so every later open is in WAL mode too.
    let _: String = conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))?;
    let mut conn = conn;
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute_batch(
        "CREATE TABLE IF NOT EXISTS runs (
            id INTEGER PRIMARY KEY,
            task TEXT NOT NULL,
            file TEXT NOT NULL,
            source TEXT NOT NULL,
            started_ms INTEGER NOT NULL,
            duration_ms INTEGER NOT NULL,
            exit_code INTEGER,
            signal INTEGER,
            stopped INTEGER NOT NULL,
            via TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS runs_by_task ON runs (task, id);
        CREATE INDEX IF NOT EXISTS runs_by_source ON runs (file, source, id);
        CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);",
    )?;
    if let Some(root) = root.and_then(|r| std::fs::canonicalize(r).ok()) {
        tx.execute(
            "INSERT OR IGNORE INTO meta (key, value) VALUES ('root', ?1)",
            [root.to_string_lossy()],
        )?;
    }
    tx.pragma_update(None, "user_version", FORMAT)?;
    tx.commit()?;
    // Commits need not reach the disk before agg goes on: a crash may lose the newest run,
    // never the store (WAL keeps it consistent).
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    Ok(conn)
}

/// One run in, and the bounds kept, in one write transaction.
fn insert(conn: &mut Connection, run: &Run) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let known: bool = tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM runs WHERE task = ?1)",
        [&run.unique_name],
        |r| r.get(0),
    )?;
    let started_ms = run
        .started
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    tx.execute(
        "INSERT INTO runs (task, file, source, started_ms, duration_ms, exit_code, signal, stopped, via)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        rusqlite::params![
            run.unique_name,
            run.file,
            run.source,
            started_ms,
            i64::try_from(run.duration_ms).unwrap_or(i64::MAX),
            run.exit_code,
            run.signal,
            run.stopped,
            run.via.as_str(),
        ],
    )?;
    tx.execute(
        "DELETE FROM runs WHERE task = ?1 AND id <=
            (SELECT id FROM runs WHERE task = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)",
        rusqlite::params![run.unique_name, int(MAX_RUNS_PER_TASK)],
    )?;
    // Only a task's first run can take the store past the task bound.
    if !known {
        let tasks: i64 = tx.query_row("SELECT COUNT(DISTINCT task) FROM runs", [], |r| r.get(0))?;
        let over = tasks - int(MAX_TASKS);
        if over > 0 {
            tx.execute(
                "DELETE FROM runs WHERE task IN
                    (SELECT task FROM runs GROUP BY task ORDER BY MAX(id) LIMIT ?1)",
                [over],
            )?;
        }
    }
    tx.commit()
}

fn is_busy(err: &rusqlite::Error) -> bool {
    matches!(
        err.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked)
    )
}

fn is_corrupt(err: &rusqlite::Error) -> bool {
    matches!(
        err.sqlite_error_code(),
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase)
    )
}

fn warn_unusable(path: &Path, err: &rusqlite::Error) {
    tracing::warn!("run history not kept: {}: {err}", path.display());
}

/// Moves a corrupt store out of the way (`NAME.db.corrupt`, replacing an older one) so a
/// fresh one can start in its place.
fn set_aside(path: &Path, err: &rusqlite::Error) {
    tracing::warn!(
        "run history {} is damaged ({err}); starting a new one",
        path.display()
    );
    let mut aside = path.as_os_str().to_owned();
    aside.push(".corrupt");
    let _ = std::fs::rename(path, &aside);
    for suffix in ["-wal", "-shm"] {
        let mut side = path.as_os_str().to_owned();
        side.push(suffix);
        let _ = std::fs::remove_file(side);
    }
}

/// When a store was last written: its WAL file takes the writes between checkpoints.
fn last_write(store: &Path) -> Option<SystemTime> {
    let mut wal = store.as_os_str().to_owned();
    wal.push("-wal");
    let wal = std::fs::metadata(wal).and_then(|m| m.modified()).ok();
    let db = std::fs::metadata(store).and_then(|m| m.modified()).ok()?;
    Some(wal.map_or(db, |w| w.max(db)))
}

/// Keeps at most [`MAX_STORES`] stores in `dir` (the one about to be created included),
/// removing those written least recently.
fn prune_stores(dir: &Path, keep: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut stores: Vec<(SystemTime, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "db") && e.path() != keep)
        .filter_map(|e| Some((last_write(&e.path())?, e.path())))
        .collect();
    if stores.len() < MAX_STORES {
        return;
    }
    stores.sort();
    for (_, old) in &stores[..=stores.len() - MAX_STORES] {
        for suffix in ["", "-wal", "-shm", ".corrupt"] {
            let mut file = old.as_os_str().to_owned();
            file.push(suffix);
            let _ = std::fs::remove_file(file);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(name: &str, exit_code: i32, duration_ms: u64) -> Run {
        Run {
            unique_name: name.to_owned(),
            file: "Makefile".to_owned(),
            source: name.to_owned(),
            started: SystemTime::now(),
            duration_ms,
            exit_code: Some(exit_code),
            signal: None,
            stopped: false,
            via: StartedBy::Run,
        }
    }

    fn store() -> (tempfile::TempDir, History) {
        let dir = tempfile::tempdir().expect("tmp");
        let history = History::open_file(&dir.path().join("h.db"), true).expect("store");
        (dir, history)
    }

    #[test]
    fn a_summary_says_how_the_last_run_ended_and_the_median_of_passed_runs() {
        let (_dir, h) = store();
        for ms in [100, 300, 200, 5_000] {
            h.record(&run("build", 0, ms));
        }
        h.record(&run("build", 2, 7));
        let s = h.summary("build").expect("summary");
        assert_eq!(s.last.exit_code, Some(2));
        assert!(!s.last.passed());
        assert_eq!((s.runs, s.passed), (5, 4));
        assert_eq!(s.typical_ms, 250, "median of 100, 200, 300, 5000");
        assert_eq!(s.badge(), "✗ exit 2");
        assert!(h.summary("test").is_none());
    }

    #[test]
    fn with_no_passed_run_the_typical_duration_is_of_all_runs() {
        let (_dir, h) = store();
        for ms in [10, 30, 20] {
            h.record(&run("lint", 1, ms));
        }
        let s = h.summary("lint").expect("summary");
        assert_eq!(s.typical_ms, 20);
        assert_eq!(s.passed, 0);
    }

    #[test]
    fn badges_are_compact() {
        let mut r = run("t", 0, 2_345);
        assert_eq!(r.badge(), "✓ 2.3s");
        r.exit_code = None;
        r.signal = Some(9);
        assert_eq!(r.badge(), "✗ SIGKILL");
        r.stopped = true;
        assert_eq!(r.badge(), "■ stopped");
    }

    #[test]
    fn a_task_keeps_only_its_newest_runs() {
        let (_dir, h) = store();
        for ms in 0..(MAX_RUNS_PER_TASK as u64 + 10) {
            h.record(&run("build", 0, ms));
        }
        h.record(&run("other", 0, 1));
        let s = h.summary("build").expect("summary");
        assert_eq!(s.runs, MAX_RUNS_PER_TASK);
        let kept: Vec<u64> = h.recent(MAX_RECENT).iter().map(|r| r.duration_ms).collect();
        assert_eq!(kept.len(), MAX_RUNS_PER_TASK + 1);
        assert!(!kept.contains(&9), "the oldest runs are dropped: {kept:?}");
        assert!(kept.contains(&10));
    }

    #[test]
    fn the_store_keeps_only_the_tasks_run_most_recently() {
        let (_dir, h) = store();
        for i in 0..=MAX_TASKS {
            h.record(&run(&format!("task-{i}"), 0, 1));
        }
        let all = h.summaries();
        assert_eq!(all.by_name.len(), MAX_TASKS);
        assert!(
            h.summary("task-0").is_none(),
            "the task run longest ago goes"
        );
        assert!(h.summary(&format!("task-{MAX_TASKS}")).is_some());
    }

    #[test]
    fn recent_is_newest_first_and_bounded() {
        let (_dir, h) = store();
        for name in ["a", "b", "c"] {
            h.record(&run(name, 0, 1));
        }
        let names: Vec<String> = h.recent(2).into_iter().map(|r| r.unique_name).collect();
        assert_eq!(names, ["c", "b"]);
        assert_eq!(h.recent(usize::MAX).len(), 3);
    }

    #[test]
    fn a_renamed_task_is_found_by_its_file_and_source_name() {
        let (_dir, h) = store();
        h.record(&run("build", 0, 40));
        let s = h
            .summary_of("build (make)", "Makefile", "build")
            .expect("found by file and source");
        assert_eq!(s.last.unique_name, "build");
        let all = h.summaries();
        assert!(all.get("build (make)", "Makefile", "build").is_some());
        assert!(all.get("test", "Makefile", "test").is_none());
    }

    #[test]
    fn the_store_survives_reopening() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("h.db");
        History::open_file(&path, true)
            .expect("store")
            .record(&run("build", 0, 5));
        let again = History::open_file(&path, false).expect("existing store");
        assert_eq!(again.summary("build").expect("kept").runs, 1);
    }

    #[test]
    fn a_corrupt_store_is_set_aside_and_started_afresh() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("h.db");
        std::fs::write(&path, vec![0x5a; 8192]).expect("write garbage");
        assert!(
            History::open_file(&path, false).is_none_or(|h| h.summaries().by_name.is_empty()),
            "reading a corrupt store shows nothing and fails nothing"
        );
        let h = History::open_file(&path, true).expect("a fresh store");
        h.record(&run("build", 0, 5));
        assert_eq!(h.summary("build").expect("recorded").runs, 1);
        assert!(dir.path().join("h.db.corrupt").is_file());
    }

    #[test]
    fn a_store_damaged_while_open_is_replaced_on_the_next_write() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("h.db");
        let h = History::open_file(&path, true).expect("store");
        h.record(&run("build", 0, 5));
        drop(h);
        for suffix in ["-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
        std::fs::write(
            &path,
            b"not a database at all, but long enough to look like one",
        )
        .ok();
        let h = History::open_file(&path, true).expect("store");
        h.record(&run("build", 1, 5));
        assert_eq!(
            h.summary("build").expect("recorded").last.exit_code,
            Some(1)
        );
    }

    #[test]
    fn a_read_only_store_is_read_and_never_fails_a_write() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("h.db");
        History::open_file(&path, true)
            .expect("store")
            .record(&run("build", 0, 5));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).expect("chmod");
        if let Some(h) = History::open_file(&path, true) {
            h.record(&run("build", 3, 5));
        }
        let h = History::open_file(&path, false).expect("readable");
        assert!(h.summary("build").is_some());
    }

    #[test]
    fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        assert_eq!(median(vec![]), 0);
        assert_eq!(median(vec![7]), 7);
        assert_eq!(median(vec![3, 1, 2]), 2);
        assert_eq!(median(vec![1, 2]), 1);
        assert_eq!(median(vec![u64::MAX, u64::MAX]), u64::MAX);
    }
}
