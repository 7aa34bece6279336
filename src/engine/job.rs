//! One job: a running or finished task process, its state and its captured output.

use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant, SystemTime};

use schemars::JsonSchema;
use serde::Serialize;
use tokio::sync::watch;

use super::output::{OutputBuffer, Page, ReadRequest};
use super::watchdog::Watchdog;
use crate::lock::MutexExt;

/// Where a job is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum JobState {
    /// The task's process is running.
    Running,
    /// It exited on its own with an exit code.
    Exited,
    /// A signal ended it.
    Signaled,
    /// Its process could not be started.
    FailedToStart,
}

impl JobState {
    /// The state's name as used in JSON (`failed-to-start`).
    pub fn as_str(self) -> &'static str {
        match self {
            JobState::Running => "running",
            JobState::Exited => "exited",
            JobState::Signaled => "signaled",
            JobState::FailedToStart => "failed-to-start",
        }
    }
}

/// Everything about a job at one moment, ready to serialize.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct JobSnapshot {
    /// The run id (`build-m-3f9c`): unique for the server's lifetime.
    pub run_id: String,
    /// The task's unique name.
    pub unique_name: String,
    /// The arguments it was started with.
    pub args: Vec<String>,
    /// The process id of the task (also its process group id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// Its state.
    pub state: JobState,
    /// The exit code, once it exited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that ended it, by name (`SIGTERM`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
    /// When it started (RFC 3339).
    pub started_at: String,
    /// When it finished (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<String>,
    /// Milliseconds from start to finish, or to now while running.
    pub elapsed_ms: u64,
    /// Why it failed to start, or how agg stopped it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Where a job is, with exactly the facts that state has: a running job has no end time,
/// an exited one has its code, a signaled one its signal.
#[derive(Debug)]
pub(super) enum Status {
    /// The process runs.
    Running,
    /// It ended (or never started), at the wall-clock and monotonic times given.
    Ended {
        /// How.
        how: Ended,
        /// When.
        at: (SystemTime, Instant),
    },
}

/// How a job ended.
#[derive(Debug)]
pub(super) enum Ended {
    /// It exited with `code`; `note` says agg had asked it to stop.
    Exited { code: i32, note: Option<String> },
    /// agg lost track of the process (its wait failed, or an observed run went silent):
    /// reported as exited, without a code.
    Lost { reason: String },
    /// A signal ended it; `note` says how agg stopped it, or why it lost track.
    Signaled { signal: i32, note: Option<String> },
    /// Its process could not be started.
    FailedToStart { reason: String },
}

impl Ended {
    /// The end of a job agg stopped with signal `sent`: whatever the runner did while dying
    /// (make says `wait: No child processes` and exits 2), it ended because agg stopped it,
    /// so it is reported as signaled, with the signal agg sent unless another one ended it.
    pub(super) fn stopped_with(self, sent: i32, name: &str) -> Ended {
        match self {
            Ended::Exited { code, note } => Ended::Signaled {
                signal: sent,
                note: note.or_else(|| {
                    Some(format!(
                        "stopped by agg ({name}); it exited {code} while stopping"
                    ))
                }),
            },
            Ended::Signaled { signal, note } => Ended::Signaled {
                signal,
                note: note.or_else(|| Some(format!("stopped by agg ({name})"))),
            },
            Ended::Lost { reason } | Ended::FailedToStart { reason } => Ended::Signaled {
                signal: sent,
                note: Some(reason),
            },
        }
    }

    /// The end of a job agg asked to stop without sending a signal.
    pub(super) fn stop_requested(self) -> Ended {
        let note = |note: Option<String>| note.or_else(|| Some("stopped by agg".to_owned()));
        match self {
            Ended::Exited { code, note: n } => Ended::Exited {
                code,
                note: note(n),
            },
            Ended::Signaled { signal, note: n } => Ended::Signaled {
                signal,
                note: note(n),
            },
            other @ (Ended::Lost { .. } | Ended::FailedToStart { .. }) => other,
        }
    }
}

impl Status {
    /// An end at `at`.
    pub(super) fn ended(how: Ended, at: (SystemTime, Instant)) -> Status {
        Status::Ended { how, at }
    }

    /// How it ended, once it has.
    fn how(&self) -> Option<&Ended> {
        match self {
            Status::Running => None,
            Status::Ended { how, .. } => Some(how),
        }
    }

    fn state(&self) -> JobState {
        match self.how() {
            None => JobState::Running,
            Some(Ended::Exited { .. } | Ended::Lost { .. }) => JobState::Exited,
            Some(Ended::Signaled { .. }) => JobState::Signaled,
            Some(Ended::FailedToStart { .. }) => JobState::FailedToStart,
        }
    }

    fn exit_code(&self) -> Option<i32> {
        match self.how()? {
            Ended::Exited { code, .. } => Some(*code),
            _ => None,
        }
    }

    fn signal(&self) -> Option<i32> {
        match self.how()? {
            Ended::Signaled { signal, .. } => Some(*signal),
            _ => None,
        }
    }

    fn error(&self) -> Option<&str> {
        match self.how()? {
            Ended::Exited { note, .. } | Ended::Signaled { note, .. } => note.as_deref(),
            Ended::Lost { reason } | Ended::FailedToStart { reason } => Some(reason),
        }
    }

    fn finished(&self) -> Option<(SystemTime, Instant)> {
        match self {
            Status::Running => None,
            Status::Ended { at, .. } => Some(*at),
        }
    }
}

/// A job the engine started.
#[derive(Debug)]
pub struct Job {
    /// Unique for the engine's lifetime.
    pub run_id: String,
    /// The task's unique name.
    pub unique_name: String,
    /// The arguments given.
    pub args: Vec<String>,
    /// The environment overrides given (part of the identity for duplicate detection).
    pub(super) env: Vec<(String, String)>,
    /// The task's pid.
    pub pid: Option<u32>,
    /// Its process group id (the pid), unless it shares agg's group (foreground runs).
    pub pgid: Option<u32>,
    started: (SystemTime, Instant),
    pub(super) status: Mutex<Status>,
    pub(super) output: Mutex<OutputBuffer>,
    /// Bumped on every output chunk and at the end, for live readers.
    pub(super) progress: watch::Sender<u64>,
    pub(super) done: watch::Sender<bool>,
    pub(super) stop_requested: AtomicBool,
    /// The last signal agg sent to stop it (0: none), so a stopped job always ends
    /// `signaled` with that signal, whatever its runner does while dying.
    pub(super) stop_signal: AtomicI32,
    pub(super) temp: Mutex<Option<tempfile::TempDir>>,
    /// The member of its group that ends the group should agg die, until released.
    watchdog: Mutex<Option<Watchdog>>,
    /// The sandbox it ran in, if it had one.
    pub sandbox: Option<crate::sandbox::Applied>,
    /// What its output and reports said (tests, problems), read once when it ended.
    results: OnceLock<crate::results::Results>,
}

/// What a new [`Job`] is made of.
pub(super) struct JobParts {
    pub run_id: String,
    pub unique_name: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub pid: Option<u32>,
    pub pgid: Option<u32>,
    pub output: OutputBuffer,
    pub status: Status,
    pub temp: Option<tempfile::TempDir>,
    pub watchdog: Option<Watchdog>,
    pub sandbox: Option<crate::sandbox::Applied>,
}

impl Job {
    pub(super) fn new(parts: JobParts) -> Job {
        let finished = parts.status.state() != JobState::Running;
        Job {
            run_id: parts.run_id,
            unique_name: parts.unique_name,
            args: parts.args,
            env: parts.env,
            pid: parts.pid,
            pgid: parts.pgid,
            started: (SystemTime::now(), Instant::now()),
            status: Mutex::new(parts.status),
            output: Mutex::new(parts.output),
            progress: watch::channel(0).0,
            done: watch::channel(finished).0,
            stop_requested: AtomicBool::new(false),
            stop_signal: AtomicI32::new(0),
            temp: Mutex::new(parts.temp),
            watchdog: Mutex::new(parts.watchdog),
            sandbox: parts.sandbox,
            results: OnceLock::new(),
        }
    }

    /// Moves the job's start back to `at`: a job agg observes began before agg saw it.
    pub(super) fn backdate(&mut self, at: SystemTime) {
        let ago = at.elapsed().unwrap_or_default();
        self.started = (
            at,
            Instant::now().checked_sub(ago).unwrap_or_else(Instant::now),
        );
    }

    /// The job's watchdog, taken to be released.
    pub(super) fn take_watchdog(&self) -> Option<Watchdog> {
        self.watchdog.locked().take()
    }

    pub(super) fn status(&self) -> MutexGuard<'_, Status> {
        self.status.locked()
    }

    pub(super) fn output(&self) -> MutexGuard<'_, OutputBuffer> {
        self.output.locked()
    }

    /// Sends `signal` to the job's process group, or, for a job sharing agg's group, to
    /// its process and every descendant.
    pub fn signal(&self, signal: nix::sys::signal::Signal) {
        if let Some(pgid) = self.pgid {
            super::process::signal_group(pgid, signal);
        } else if let Some(pid) = self.pid {
            super::process::signal_tree(pid, signal);
        }
    }

    /// The current state.
    pub fn state(&self) -> JobState {
        self.status().state()
    }

    /// The number of the signal that ended the job, if one did.
    pub fn signal_number(&self) -> Option<i32> {
        self.status().signal()
    }

    /// Whether the job is still running.
    pub fn is_running(&self) -> bool {
        self.state() == JobState::Running
    }

    /// Whether the job is running the same task with the same arguments and environment
    /// as `inv`: the copy a start returns instead of starting a second one.
    pub(super) fn runs_like(&self, inv: &super::Invocation) -> bool {
        self.is_running()
            && self.unique_name == inv.unique_name
            && self.args == inv.user_args
            && self.env == inv.user_env
    }

    /// Whether agg was asked to stop it.
    pub fn stop_requested(&self) -> bool {
        self.stop_requested.load(Ordering::Relaxed)
    }

    /// When the job finished, for retention order.
    pub(super) fn finished_at(&self) -> Option<Instant> {
        self.status().finished().map(|(_, i)| i)
    }

    /// When the job started.
    pub fn started_at(&self) -> SystemTime {
        self.started.0
    }

    /// Time since start, or the run time once finished.
    pub fn elapsed(&self) -> Duration {
        match self.status().finished() {
            Some((_, end)) => end.duration_since(self.started.1),
            None => self.started.1.elapsed(),
        }
    }

    /// A snapshot of the job's state.
    pub fn snapshot(&self) -> JobSnapshot {
        let status = self.status();
        let elapsed = match status.finished() {
            Some((_, end)) => end.duration_since(self.started.1),
            None => self.started.1.elapsed(),
        };
        JobSnapshot {
            run_id: self.run_id.clone(),
            unique_name: self.unique_name.clone(),
            args: self.args.clone(),
            pid: self.pid,
            state: status.state(),
            exit_code: status.exit_code(),
            signal: status.signal().map(|s| {
                super::process::signal_name(s).map_or_else(|| format!("signal {s}"), str::to_owned)
            }),
            started_at: rfc3339(self.started.0),
            finished_at: status.finished().map(|(t, _)| rfc3339(t)),
            elapsed_ms: u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX),
            error: status.error().map(str::to_owned),
        }
    }

    /// The tests and problems its run reported, once it has ended and they were read.
    pub fn results(&self) -> Option<&crate::results::Results> {
        self.results.get()
    }

    /// Reads the run's results from its retained output and the reports it wrote.
    pub(super) fn read_results(&self, scope: &crate::results::Scope) {
        let page = self.read(&ReadRequest {
            from: Some(1),
            ..ReadRequest::default()
        });
        let lines: Vec<&str> = page.lines.iter().map(|l| l.text.as_str()).collect();
        let _ = self.results.set(crate::results::extract(&lines, scope));
    }

    /// Reads captured output.
    pub fn read(&self, req: &ReadRequest) -> Page {
        self.output().read(req)
    }

    /// Searches captured output (see [`OutputBuffer::search`]).
    pub fn search(
        &self,
        req: &super::output::SearchRequest,
        is_match: impl FnMut(&[u8]) -> bool,
    ) -> super::output::Found {
        self.output().search(req, is_match)
    }

    /// Adds output the job wrote somewhere agg does not read itself (a log file the task
    /// writes to directly), so readers and readiness see it as if it had been captured.
    pub fn feed(&self, stream: super::output::Stream, chunk: &[u8]) {
        self.output().push(stream, chunk);
        self.progress.send_modify(|n| *n += 1);
    }

    /// A receiver that changes whenever output arrives or the job ends.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.progress.subscribe()
    }

    /// Waits until the job has finished (its process exited and its output was drained).
    pub async fn wait(&self) {
        let mut done = self.done.subscribe();
        // An error means the sender is gone, which only happens once the job is finished.
        let _ = done.wait_for(|d| *d).await;
    }

    /// Waits at most `window`; returns whether the job finished.
    pub async fn wait_for(&self, window: Duration) -> bool {
        tokio::time::timeout(window, self.wait()).await.is_ok()
    }
}

fn rfc3339(t: SystemTime) -> String {
    humantime::format_rfc3339_millis(t).to_string()
}
