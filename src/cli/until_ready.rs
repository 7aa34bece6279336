//! `agg run --until-ready`: start a service, return once it is ready, leave it running.
//!
//! The task writes its output to a log file of its own (under the cache directory), so it
//! keeps running, with nowhere to get a broken pipe, after agg exits. While agg waits, it
//! follows that file: lines are shown as they come and matched for readiness. agg exits
//! 0 once the task is ready (printing its URLs, pid and log), with the task's failure if it
//! ends first, and 124 at the timeout, after stopping it. The task's own output is copied
//! as it wrote it, as a foreground run shows it; agg's messages about the task quote its
//! name, URLs and log path in their [`crate::terminal_text`] form. A service left running gets a
//! record ([`crate::control::detached`]), so `agg ps`, `agg logs` and `agg stop` find it.

use std::io::{Read, Seek, SeekFrom, Write};
use std::process::ExitCode;
use std::time::Duration;

use crate::engine::{
    Duplicates, Engine, EngineConfig, Invocation, Job, JobState, OnFinish, StdioMode, Stream,
};
use crate::error::Error;
use crate::readiness::probe::{self as ready, Probe};

/// How often the log file is read while agg waits.
const FOLLOW_INTERVAL: Duration = Duration::from_millis(100);
/// The exit code of a task that was not ready in time (as `timeout(1)`).
const TIMED_OUT: u8 = 124;

/// Where the task of a service comes from, for its record.
#[derive(Debug)]
pub(super) struct Origin {
    /// The repository root.
    pub root: std::path::PathBuf,
    /// The task file, relative to the root.
    pub file: String,
    /// The task's name in its file.
    pub source: String,
}

/// Starts `inv` detached, writing to a log file, and waits for `probe`. A task that ends
/// while agg waits (before it is ready, or stopped at the timeout) is passed to
/// `on_finish`; one left running is not, as agg is gone when it ends.
pub(super) async fn run(
    inv: Invocation,
    probe: Probe,
    on_finish: OnFinish,
    origin: Origin,
) -> Result<ExitCode, Error> {
    let (log, file) = open_log(&inv.unique_name)?;
    let engine = Engine::new(EngineConfig {
        on_finish: Some(on_finish),
        ..EngineConfig::default()
    });
    let unique_name = inv.unique_name.clone();
    let shown = Shown {
        name: crate::terminal_text::line(&unique_name).into_owned(),
        log: crate::terminal_text::line(&log.to_string_lossy()).into_owned(),
    };
    let job = engine
        .start(
            inv,
            StdioMode::File {
                file: std::sync::Arc::new(file.into()),
            },
            Duplicates::Allow,
        )
        .map_err(Error::Refused)?
        .job;
    if job.state() == JobState::FailedToStart {
        return Err(Error::FailedToStart {
            task: unique_name,
            reason: job.snapshot().error.unwrap_or_default(),
        });
    }
    let follower = tokio::spawn(follow(std::sync::Arc::clone(&job), log.clone()));
    let readiness = ready::wait(&job, &probe).await;
    if !job.is_running() {
        job.wait().await;
    }
    // One last read so nothing the task wrote before the decision is left unshown.
    tokio::time::sleep(FOLLOW_INTERVAL).await;
    follower.abort();
    let snapshot = job.snapshot();
    let mut err = std::io::stderr().lock();
    if readiness.ready {
        let pid = snapshot.pid.unwrap_or(0);
        let record = record(&job, pid, &readiness, origin, log);
        announce_ready(&mut err, &record, &readiness, &shown);
        // The task outlives agg: the engine must not stop it on the way out.
        engine.detach(&job);
        return Ok(ExitCode::SUCCESS);
    }
    if job.is_running() {
        let _ = writeln!(
            err,
            "agg: {} was not ready after {} ms; stopping it (its output is in {})",
            shown.name, readiness.waited_ms, shown.log,
        );
        engine.stop(&job, Duration::from_secs(5)).await;
        return Ok(ExitCode::from(TIMED_OUT));
    }
    let code = match (snapshot.state, snapshot.exit_code) {
        (JobState::Exited, Some(code)) if code != 0 => code,
        (JobState::Signaled, _) => 128 + job.signal_number().unwrap_or(0),
        _ => 1,
    };
    let _ = writeln!(
        err,
        "agg: {} ended before it was ready ({}); its output is in {}",
        shown.name,
        snapshot
            .exit_code
            .map_or_else(|| "killed".to_owned(), |c| format!("exit {c}")),
        shown.log,
    );
    Ok(ExitCode::from(u8::try_from(code & 0xff).unwrap_or(1)))
}

/// The task's name and its log's path as agg's messages quote them.
struct Shown {
    name: String,
    log: String,
}

/// A new log file for a run of `unique_name` in agg's state directory, and its path.
fn open_log(unique_name: &str) -> Result<(std::path::PathBuf, std::fs::File), Error> {
    let runs = crate::own_dirs::OwnDir::state().join("runs");
    let dir = runs.create().map_err(|e| Error::RunLog {
        path: runs.path(),
        source: e.into(),
    })?;
    // The task's name, cut so the file name stays within the 255 bytes a name may have.
    let name: String = unique_name
        .replace(['/', ':', ' '], "-")
        .chars()
        .take(128)
        .collect();
    let log = dir.join(format!("{name}-{}.log", std::process::id()));
    let file = new_log(&log).map_err(|e| Error::RunLog {
        path: log.clone(),
        source: e,
    })?;
    Ok((log, file))
}

/// The record of a service left running, for `agg ps`, `agg logs` and `agg stop`.
fn record(
    job: &Job,
    pid: u32,
    readiness: &ready::Readiness,
    origin: Origin,
    log: std::path::PathBuf,
) -> crate::control::detached::Service {
    crate::control::detached::Service {
        run_id: job.run_id.clone(),
        unique_name: job.unique_name.clone(),
        file: origin.file,
        source: origin.source,
        root: std::fs::canonicalize(&origin.root)
            .unwrap_or(origin.root)
            .to_string_lossy()
            .into_owned(),
        pid,
        pid_started: crate::control::detached::leader_started(pid),
        started_ms: job
            .started_at()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(0)),
        log,
        urls: readiness.urls.clone(),
        ports: readiness.ports.clone(),
        stopped: false,
    }
}

/// Says the service is ready, where its output goes, and how to find it again; saves its
/// record, or says how to stop it without one.
fn announce_ready(
    err: &mut impl Write,
    record: &crate::control::detached::Service,
    readiness: &ready::Readiness,
    shown: &Shown,
) {
    let urls = if readiness.urls.is_empty() {
        String::new()
    } else {
        format!(
            " at {}",
            crate::terminal_text::line(&readiness.urls.join(" "))
        )
    };
    let pid = record.pid;
    let _ = writeln!(
        err,
        "agg: {} is ready{urls} (pid {pid}, after {} ms)\nagg: its output goes to {}",
        shown.name, readiness.waited_ms, shown.log,
    );
    let run_id = crate::terminal_text::line(&record.run_id).into_owned();
    let _ = match crate::control::detached::save(record) {
        Ok(_) => writeln!(
            err,
            "agg: `agg ps` lists it as {run_id}; `agg logs {run_id}` shows its output, `agg stop {run_id}` ends it"
        ),
        Err(e) => writeln!(
            err,
            "agg: cannot record it for agg ps ({e}); stop it with: kill -TERM -{pid}"
        ),
    };
}

/// Makes the log file `path` anew, 0600, never through a symbolic link: a file left there
/// (by an agg whose process id this one now has) is removed first, and a link is removed,
/// not followed.
fn new_log(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let create = || {
        std::fs::OpenOptions::new()
            .append(true)
            .create_new(true)
            .mode(0o600)
            .custom_flags(nix::libc::O_NOFOLLOW)
            .open(path)
    };
    match create() {
        Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => {
            std::fs::remove_file(path)?;
            create()
        }
        other => other,
    }
}

/// Copies what the task appends to `log` into the job (for readiness) and to stdout.
async fn follow(job: std::sync::Arc<Job>, log: std::path::PathBuf) {
    let Ok(mut file) = std::fs::File::open(&log) else {
        return;
    };
    let mut pos = 0u64;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let mut read_any = false;
        if file.seek(SeekFrom::Start(pos)).is_ok() {
            while let Ok(n) = file.read(&mut buf) {
                if n == 0 {
                    break;
                }
                pos += n as u64;
                read_any = true;
                job.feed(Stream::Stdout, &buf[..n]);
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(&buf[..n]);
                let _ = out.flush();
            }
        }
        if !read_any {
            tokio::time::sleep(FOLLOW_INTERVAL).await;
        }
    }
}
