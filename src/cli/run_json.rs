//! `agg run --json[=FILE]`: each task runs with its output captured and passed on as it
//! comes (to stderr, or with FILE to where the task wrote it), and when it ends agg writes
//! one JSON object for it (one line per task, on stdout or to FILE): how it ended, and the
//! `tests` and `problems` read from its output and reports, the same fields the MCP results
//! carry. Several tasks run in order and stop at the first failure. With FILE at a terminal
//! (an editor's), the task runs as a plain `agg run` does there, through the pseudo-terminal
//! agg reads ([`StdioMode::Terminal`]), so it keeps its colours and its stdin.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use serde::Serialize;
use tokio::signal::unix::{SignalKind, signal};

use super::status::Ended;
use crate::engine::{
    Duplicates, Engine, EngineConfig, Invocation, Job, JobSnapshot, JobState, OnFinish, StdioMode,
};
use crate::error::Error;
use crate::results::{Problem, Tests};

/// What `agg run --json` prints for one task.
#[derive(Debug, Serialize)]
struct RunResult {
    #[serde(flatten)]
    job: JobSnapshot,
    passed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    tests: Option<Tests>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    problems: Vec<Problem>,
    #[serde(skip_serializing_if = "is_zero")]
    problems_more: u64,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Opens FILE for the results: created or truncated, never through a symlink (a planted
/// link in a shared directory would otherwise make agg overwrite what it points to), and
/// only a regular file (a FIFO would block the run before it starts).
fn create_results_file(path: &std::path::Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    file.set_len(0)?;
    Ok(file)
}

/// Runs `invs` in order, each captured; see the module documentation.
pub(super) async fn run(
    invs: Vec<Invocation>,
    on_finish: OnFinish,
    to: Option<std::path::PathBuf>,
) -> Result<ExitCode, Error> {
    let mut file = match &to {
        Some(path) => Some(
            create_results_file(path).map_err(|source| Error::WriteResults {
                path: path.clone(),
                source,
            })?,
        ),
        None => None,
    };
    let mut sigint = signal(SignalKind::interrupt()).map_err(Error::Signals)?;
    let mut sigterm = signal(SignalKind::terminate()).map_err(Error::Signals)?;
    let engine = Engine::new(EngineConfig {
        on_finish: Some(on_finish),
        ..EngineConfig::default()
    });
    let terminal =
        file.is_some() && std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    let mode = if terminal {
        StdioMode::Terminal { tee: None }
    } else {
        StdioMode::Capture
    };
    for inv in invs {
        let name = inv.unique_name.clone();
        let job = engine
            .start(inv, mode.clone(), Duplicates::Allow)
            .map_err(Error::Refused)?
            .job;
        let mut received = None;
        tokio::select! {
            () = follow(&job, file.is_some(), terminal) => {}
            _ = sigint.recv() => received = Some(nix::sys::signal::Signal::SIGINT),
            _ = sigterm.recv() => received = Some(nix::sys::signal::Signal::SIGTERM),
        }
        if received.is_some() {
            engine.shutdown(std::time::Duration::from_secs(5)).await;
        }
        job.wait().await;
        print(&job, file.as_mut());
        let ended = Ended::of(&job);
        super::status::print(&name, &ended);
        if let Some(sig) = received {
            return Ok(ExitCode::from(u8::try_from(128 + sig as i32).unwrap_or(1)));
        }
        if ended.code != 0 {
            return Ok(ExitCode::from(ended.code));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Copies the job's output as it comes: to stderr, or with `keep_streams` each line to the
/// stream the task wrote it on; through a `terminal`, agg's copier already shows it.
async fn follow(job: &Job, keep_streams: bool, terminal: bool) {
    if terminal {
        return job.wait().await;
    }
    crate::engine::until::follow(job, |_, lines| {
        for line in lines {
            write_line(line, keep_streams);
        }
    })
    .await;
}

fn write_line(line: &crate::engine::Line, keep_streams: bool) {
    if keep_streams && line.stream == crate::engine::Stream::Stdout {
        let _ = writeln!(std::io::stdout().lock(), "{}", line.text);
    } else {
        let _ = writeln!(std::io::stderr().lock(), "{}", line.text);
    }
}

fn print(job: &Job, file: Option<&mut std::fs::File>) {
    let snapshot = job.snapshot();
    let passed = snapshot.state == JobState::Exited && snapshot.exit_code == Some(0);
    let results = job.results();
    let result = RunResult {
        job: snapshot,
        passed,
        tests: results.and_then(|r| r.tests.clone()),
        problems: results.map(|r| r.problems.clone()).unwrap_or_default(),
        problems_more: results.map_or(0, |r| r.problems_more),
    };
    if let Ok(line) = serde_json::to_string(&result) {
        match file {
            Some(f) => {
                let _ = writeln!(f, "{line}");
            }
            None => {
                let _ = writeln!(std::io::stdout().lock(), "{line}");
            }
        }
    }
}
