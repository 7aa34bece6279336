//! The job engine: starts tasks as process groups, captures their output in bounded
//! memory, and stops them, for both `agg run` and the MCP server.
//!
//! # Theory of operation
//!
//! [`Engine::start`] spawns an [`Invocation`] as the leader of a new process group, with
//! stdin on `/dev/null` and stdout/stderr piped ([`StdioMode::Capture`]) or, for a person
//! at a terminal, inherited ([`StdioMode::Inherit`]). A supervisor task per job reads both
//! pipes concurrently into the job's [`output::OutputBuffer`] (so the child never blocks
//! on a full pipe), waits for the leader, and then:
//!
//! 1. terminates whatever the task left behind in its group (TERM, a short grace, KILL):
//!    a job is its whole process tree, and nothing outlives it;
//! 2. drains the pipes for a moment and then lets go of them, so a process that escaped
//!    the group (a daemon in its own session) cannot keep the job open by holding them;
//! 3. records the exit code or signal, reads the run's results from its retained output
//!    ([`crate::results::extract`], once, off the runtime's threads), hands the job to the
//!    engine's [`OnFinish`] hook (the run history), and wakes every waiter.
//!
//! [`Engine::stop`] sends SIGTERM to the group, waits the grace period, then SIGKILL.
//! [`Engine::shutdown`] does that for every job; dropping the engine SIGKILLs any group
//! still running, so even an abrupt exit of agg's own runtime leaks no process. When agg
//! itself is killed (SIGKILL, no cleanup at all), each group's [`watchdog`] SIGKILLs it.
//!
//! The engine knows nothing about task files: callers resolve a table row into an
//! [`Invocation`] (see [`crate::invocation`]).

pub mod failure;
pub mod job;
pub mod observed;
pub mod output;
pub mod process;
mod terminal;
pub mod until;
pub mod watchdog;

use crate::lock::MutexExt;
use std::collections::HashSet;
use std::ffi::OsString;
use std::hash::{BuildHasher, Hasher};
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

use nix::sys::signal::Signal;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::{Child, Command};

use job::{Ended, JobParts, Status};
pub use job::{Job, JobSnapshot, JobState};
pub use output::{Found, Line, OutputLimits, Page, ReadRequest, Region, SearchRequest, Stream};

/// Limits and defaults of an engine.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Running jobs allowed at once (default 32).
    pub max_running: usize,
    /// Finished jobs kept for reading (default 20); older ones are evicted first.
    pub retain_finished: usize,
    /// Output caps per job.
    pub output: OutputLimits,
    /// How long a stopped job gets between SIGTERM and SIGKILL by default (5 s).
    pub default_grace: Duration,
    /// The grace for processes a task leaves behind in its group when it exits (1 s).
    pub leftover_grace: Duration,
    /// How long the pipes are drained after the task exits (300 ms).
    pub drain: Duration,
    /// Called for every job that ends after it ran (run history).
    pub on_finish: Option<OnFinish>,
}

/// A hook called once for each job whose process ran and ended, with the job in its final
/// state, on a blocking thread, before the job's waiters are woken: whoever sees a job
/// finished also sees what the hook did with it. A job that failed to start is not passed.
#[derive(Clone)]
pub struct OnFinish(pub Arc<dyn Fn(&Job) + Send + Sync>);

impl std::fmt::Debug for OnFinish {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OnFinish")
    }
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            max_running: 32,
            retain_finished: 20,
            output: OutputLimits::default(),
            default_grace: Duration::from_secs(5),
            leftover_grace: Duration::from_secs(1),
            drain: Duration::from_millis(300),
            on_finish: None,
        }
    }
}

/// What `start` does when the same task with the same arguments and environment is already
/// running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Duplicates {
    /// Return the running job (`reused: true`).
    Reuse,
    /// Start another copy.
    Allow,
    /// Return the running job, and start nothing when there is none
    /// ([`StartError::NotRunning`]): for a start allowed only because it reuses a job.
    ReuseOnly,
}

/// How a job's standard streams are wired.
#[derive(Debug, Clone)]
pub enum StdioMode {
    /// stdin is `/dev/null`; stdout and stderr are captured; the job leads its own group.
    Capture,
    /// All three are inherited from agg; the job leads its own group (agg not at a terminal).
    Inherit,
    /// All three are inherited and the job stays in agg's process group, so the terminal's
    /// job control (Ctrl-C, Ctrl-Z) reaches it exactly as if it had been typed at the shell.
    Foreground,
    /// As [`StdioMode::Foreground`], but stdout and stderr go to a pseudo-terminal agg copies
    /// to its own stdout and keeps in the job's output ([`terminal`]), so its results are
    /// read. Falls back to `Foreground` when no pseudo-terminal can be opened.
    ///
    /// `tee`, when given, gets every chunk too (the log of a person's run that agents may
    /// read, [`crate::runs`]).
    Terminal {
        /// Also given every chunk the task prints.
        tee: Option<Tee>,
    },
    /// stdin is inherited; stdout and stderr go where agg relays them from (a terminal of
    /// agg's own that stands for the person's, or a pipe), so agg can keep a copy of what the
    /// task prints. The job stays in agg's process group when `foreground` (at a terminal),
    /// as with [`StdioMode::Foreground`], and leads its own otherwise.
    Relay {
        /// The task's stdout.
        stdout: Arc<std::os::fd::OwnedFd>,
        /// The task's stderr.
        stderr: Arc<std::os::fd::OwnedFd>,
        /// Whether the job stays in agg's process group.
        foreground: bool,
    },
    /// stdin is `/dev/null`; stdout and stderr both go to `file` (a log opened to append);
    /// the job leads its own group and nothing passes through agg, so the job can outlive it
    /// ([`Engine::detach`]) with nowhere to write that closes.
    File {
        /// Where the task's output goes.
        file: Arc<std::os::fd::OwnedFd>,
    },
}

impl StdioMode {
    /// Whether the job stays in agg's process group (the terminal's job control reaches it).
    fn in_agg_group(&self) -> bool {
        matches!(
            self,
            StdioMode::Foreground
                | StdioMode::Terminal { .. }
                | StdioMode::Relay {
                    foreground: true,
                    ..
                }
        )
    }
}

/// Where else a run's output goes as it comes (see [`StdioMode::Terminal`]).
#[derive(Clone)]
pub struct Tee(Arc<TeeSink>);

/// What a [`Tee`] gives each chunk to.
type TeeSink = dyn Fn(&[u8]) + Send + Sync;

impl Tee {
    /// A tee that gives every chunk to `sink`.
    pub fn new(sink: impl Fn(&[u8]) + Send + Sync + 'static) -> Tee {
        Tee(Arc::new(sink))
    }

    fn write(&self, chunk: &[u8]) {
        (self.0)(chunk);
    }
}

impl std::fmt::Debug for Tee {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tee")
    }
}

/// Exactly what to execute: resolved program, arguments, directory and environment.
#[derive(Debug)]
pub struct Invocation {
    /// The task's unique name.
    pub unique_name: String,
    /// The program.
    pub program: OsString,
    /// Its arguments.
    pub args: Vec<OsString>,
    /// The working directory.
    pub cwd: PathBuf,
    /// Environment overrides.
    pub env: Vec<(OsString, OsString)>,
    /// The arguments as the caller gave them (identity and display).
    pub user_args: Vec<String>,
    /// The environment overrides as the caller gave them (identity).
    pub user_env: Vec<(String, String)>,
    /// Files the job needs while it runs (generated scripts); removed when it is dropped.
    pub temp: Option<tempfile::TempDir>,
    /// The sandbox it runs in (every run an agent starts has one; a person's `agg run` only
    /// with `--sandbox`). A policy whose rule says `--no-sandbox` runs unconfined, and the
    /// job says so.
    pub sandbox: Option<crate::sandbox::Policy>,
    /// Where the run's results are read from when it ends (`None`: not read).
    pub results: Option<crate::results::Scope>,
}

/// Why a job could not be started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StartError {
    /// The running-jobs cap is reached.
    TooManyJobs {
        /// The cap.
        max: usize,
    },
    /// [`Duplicates::ReuseOnly`] found no running job to return.
    NotRunning,
}

impl std::fmt::Display for StartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StartError::TooManyJobs { max } => write!(
                f,
                "{max} jobs are already running, the most agg runs at once; stop one or wait for one to finish"
            ),
            StartError::NotRunning => {
                f.write_str("the running job this start would have returned has just ended")
            }
        }
    }
}

impl std::error::Error for StartError {}

/// The result of a start.
#[derive(Debug, Clone)]
pub struct Started {
    /// The job.
    pub job: Arc<Job>,
    /// True when the same task with the same arguments was already running and that job
    /// is returned instead of a second copy.
    pub reused: bool,
}

/// Starts, tracks and stops jobs.
#[derive(Debug, Clone)]
pub struct Engine {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    config: EngineConfig,
    jobs: Mutex<Vec<Arc<Job>>>,
    issued: Mutex<HashSet<String>>,
    counter: AtomicU64,
    seed: std::hash::RandomState,
}

impl Drop for Inner {
    fn drop(&mut self) {
        let jobs = self.jobs.locked_mut();
        for job in jobs.iter().filter(|j| j.is_running()) {
            job.signal(Signal::SIGKILL);
        }
    }
}

impl Default for Engine {
    fn default() -> Self {
        Engine::new(EngineConfig::default())
    }
}

impl Engine {
    /// An engine with the given limits.
    pub fn new(config: EngineConfig) -> Engine {
        Engine {
            inner: Arc::new(Inner {
                config,
                jobs: Mutex::new(Vec::new()),
                issued: Mutex::new(HashSet::new()),
                counter: AtomicU64::new(0),
                seed: std::hash::RandomState::new(),
            }),
        }
    }

    /// The engine's limits.
    pub fn config(&self) -> &EngineConfig {
        &self.inner.config
    }

    fn jobs(&self) -> MutexGuard<'_, Vec<Arc<Job>>> {
        self.inner.jobs.locked()
    }

    /// The running job of the same task with the same arguments and environment as `inv`,
    /// which [`Engine::start`] returns instead of starting a second copy.
    pub fn running_like(&self, inv: &Invocation) -> Option<Arc<Job>> {
        self.jobs().iter().find(|j| j.runs_like(inv)).cloned()
    }

    /// Starts `inv`. Unless `allow_parallel`, a running job of the same task with the same
    /// arguments and environment is returned instead of starting a second copy. A program
    /// that cannot be spawned gives a job in state `failed-to-start`, not an error.
    pub fn start(
        &self,
        inv: Invocation,
        mode: StdioMode,
        duplicates: Duplicates,
    ) -> Result<Started, StartError> {
        let mut jobs = self.jobs();
        if let Some(job) = self.running_copy(&jobs, &inv, duplicates)? {
            return Ok(Started { job, reused: true });
        }
        let run_id = self.new_run_id(&inv.unique_name);
        let (mut cmd, applied, refused) = confined_command(&inv);
        cmd.current_dir(&inv.cwd)
            .envs(inv.env.iter().map(|(k, v)| (k, v)))
            .kill_on_drop(false);
        let in_agg_group = mode.in_agg_group();
        if !in_agg_group {
            cmd.process_group(0);
        }
        let pty = wire_stdio(&mut cmd, mode);
        let output = output::OutputBuffer::new(self.inner.config.output);
        let results = inv.results.clone().map(|mut scope| {
            scope.started = SystemTime::now();
            scope
        });
        let job = match spawn(&mut cmd, &inv, refused) {
            Ok(child) => {
                let pid = child.id();
                let pgid = pid.filter(|_| !in_agg_group);
                let job = Arc::new(Job::new(JobParts {
                    run_id,
                    unique_name: inv.unique_name,
                    args: inv.user_args,
                    env: inv.user_env,
                    pid,
                    pgid,
                    output,
                    status: Status::Running,
                    temp: inv.temp,
                    watchdog: pgid.and_then(watchdog::Watchdog::spawn),
                    sandbox: applied,
                }));
                self.follow(&job, child, cmd, pty, results);
                job
            }
            Err(why) => Arc::new(Job::new(JobParts {
                run_id,
                unique_name: inv.unique_name,
                args: inv.user_args,
                env: inv.user_env,
                pid: None,
                pgid: None,
                output,
                status: Status::ended(
                    Ended::FailedToStart {
                        reason: why.to_string(),
                    },
                    (SystemTime::now(), Instant::now()),
                ),
                temp: None,
                watchdog: None,
                sandbox: None,
            })),
        };
        jobs.push(Arc::clone(&job));
        prune(&mut jobs, self.inner.config.retain_finished);
        Ok(Started { job, reused: false })
    }

    /// The running copy of `inv` a start returns instead of starting another (as
    /// `duplicates` says), `None` when a new job may start, or why none may: nothing to reuse
    /// for [`Duplicates::ReuseOnly`], or the running-jobs cap reached.
    fn running_copy(
        &self,
        jobs: &[Arc<Job>],
        inv: &Invocation,
        duplicates: Duplicates,
    ) -> Result<Option<Arc<Job>>, StartError> {
        if duplicates != Duplicates::Allow
            && let Some(job) = jobs.iter().find(|j| j.runs_like(inv))
        {
            return Ok(Some(Arc::clone(job)));
        }
        if duplicates == Duplicates::ReuseOnly {
            return Err(StartError::NotRunning);
        }
        let running = jobs.iter().filter(|j| j.is_running()).count();
        if running >= self.inner.config.max_running {
            return Err(StartError::TooManyJobs {
                max: self.inner.config.max_running,
            });
        }
        Ok(None)
    }

    /// Hands a spawned job to its supervisor (and the terminal's copier, when its output
    /// goes through a pseudo-terminal). `cmd` is dropped here, once the child holds its own
    /// copies of the terminal's other end, so the copier sees the end of the output.
    fn follow(
        &self,
        job: &Arc<Job>,
        mut child: Child,
        cmd: Command,
        pty: Option<(std::os::fd::OwnedFd, Option<Tee>)>,
        results: Option<crate::results::Scope>,
    ) {
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        drop(cmd);
        let copier = pty.map(|(master, tee)| {
            if let Ok(handle) = master.try_clone() {
                tokio::spawn(terminal::follow_size(Arc::clone(job), handle));
            }
            let job = Arc::clone(job);
            tokio::task::spawn_blocking(move || {
                terminal::copy(&job, master, tee.as_ref());
            })
        });
        tokio::spawn(supervise(
            Arc::clone(job),
            child,
            (stdout, stderr, copier),
            (self.inner.config.clone(), results),
            Arc::downgrade(&self.inner),
        ));
    }

    /// Starts `inv` and waits up to `window` for it to finish. Returns the job either way:
    /// finished with its exit code and output, or still running with the output so far.
    pub async fn start_and_wait(
        &self,
        inv: Invocation,
        window: Duration,
        duplicates: Duplicates,
    ) -> Result<(Started, bool), StartError> {
        let started = self.start(inv, StdioMode::Capture, duplicates)?;
        let finished = started.job.wait_for(window).await;
        Ok((started, finished))
    }

    /// Every job the engine holds (running, and the retained finished ones), oldest first.
    pub fn list(&self) -> Vec<Arc<Job>> {
        self.jobs().clone()
    }

    /// The job with this run id.
    pub fn get(&self, run_id: &str) -> Option<Arc<Job>> {
        self.jobs().iter().find(|j| j.run_id == run_id).cloned()
    }

    /// The newest job with this pid.
    pub fn by_pid(&self, pid: u32) -> Option<Arc<Job>> {
        self.jobs()
            .iter()
            .rev()
            .find(|j| j.pid == Some(pid))
            .cloned()
    }

    /// The newest job of this task (a running one first).
    pub fn by_task(&self, unique_name: &str) -> Option<Arc<Job>> {
        let jobs = self.jobs();
        let mut of_task = jobs.iter().rev().filter(|j| j.unique_name == unique_name);
        let newest = of_task.clone().next().cloned();
        of_task.find(|j| j.is_running()).cloned().or(newest)
    }

    /// Run ids issued so far (for suggestions).
    pub fn run_ids(&self) -> Vec<String> {
        self.jobs().iter().map(|j| j.run_id.clone()).collect()
    }

    /// Stops a job: SIGTERM to its group, `grace`, then SIGKILL. Returns once it ended.
    pub async fn stop(&self, job: &Arc<Job>, grace: Duration) {
        stop_job(job, grace).await;
    }

    /// Lets `job` outlive agg: its watchdog is released, so that neither agg's exit nor its
    /// death ends the job, and the engine lets go of it, so that dropping the engine does
    /// not either (`agg run --until-ready` leaves a service running this way).
    pub fn detach(&self, job: &Job) {
        if let Some(watchdog) = job.take_watchdog() {
            watchdog.detach();
        }
        self.jobs().retain(|j| !std::ptr::eq(Arc::as_ptr(j), job));
    }

    /// Stops every running job (in parallel), each with `grace`.
    pub async fn shutdown(&self, grace: Duration) {
        let running: Vec<Arc<Job>> = self
            .jobs()
            .iter()
            .filter(|j| j.is_running())
            .cloned()
            .collect();
        let mut stops = tokio::task::JoinSet::new();
        for job in running {
            stops.spawn(async move { stop_job(&job, grace).await });
        }
        while stops.join_next().await.is_some() {}
    }

    fn new_run_id(&self, unique_name: &str) -> String {
        let base = run_id_base(unique_name, usize::MAX);
        let mut issued = self.inner.issued.locked();
        for attempt in 0u32.. {
            let n = self.inner.counter.fetch_add(1, Ordering::Relaxed);
            let mut h = self.inner.seed.build_hasher();
            h.write_u64(n);
            let hash = h.finish();
            let id = if attempt < 8 {
                format!("{base}-{:04x}", hash & 0xffff)
            } else {
                format!("{base}-{hash:016x}")
            };
            if issued.insert(id.clone()) {
                return id;
            }
        }
        unreachable!("the loop above only ends by returning")
    }
}

/// The part of a run id before its suffix: `unique_name` with every character but ASCII
/// letters, digits, `-`, `_` and `.` made `-`, cut to `max` characters, without a `-` at
/// either end (`task` when nothing is left).
pub fn run_id_base(unique_name: &str, max: usize) -> String {
    let base: String = unique_name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '-'
            }
        })
        .take(max)
        .collect();
    let base = base.trim_matches('-');
    if base.is_empty() {
        "task".to_owned()
    } else {
        base.to_owned()
    }
}

/// The command for `inv`, confined by its sandbox policy when it has one, with what the
/// sandbox applied, or why it could not be applied (then the job is not started).
fn confined_command(
    inv: &Invocation,
) -> (
    Command,
    Option<crate::sandbox::Applied>,
    Option<crate::sandbox::SandboxError>,
) {
    // Made before the fork: the child only enters it.
    match inv.sandbox.as_ref().map(crate::sandbox::confine) {
        Some(Ok((prepared, applied))) => (
            match prepared {
                Some(p) => crate::sandbox::command(p, &inv.program, &inv.args),
                None => plain(inv),
            },
            Some(applied),
            None,
        ),
        Some(Err(err)) => (plain(inv), None, Some(err)),
        None => (plain(inv), None, None),
    }
}

/// Wires the job's standard streams as `mode` says; for [`StdioMode::Terminal`], the
/// pseudo-terminal's end agg reads and where else its output goes.
fn wire_stdio(cmd: &mut Command, mode: StdioMode) -> Option<(std::os::fd::OwnedFd, Option<Tee>)> {
    match mode {
        StdioMode::Capture => {
            cmd.stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
        }
        StdioMode::Terminal { tee } => {
            cmd.stdin(Stdio::inherit());
            match terminal::Pty::open().and_then(terminal::Pty::split) {
                Ok((out, err, master)) => {
                    cmd.stdout(out).stderr(err);
                    return Some((master, tee));
                }
                Err(e) => {
                    tracing::debug!("no pseudo-terminal ({e}): the output is not read");
                    cmd.stdout(Stdio::inherit()).stderr(Stdio::inherit());
                }
            }
        }
        StdioMode::Inherit | StdioMode::Foreground => {
            cmd.stdin(Stdio::inherit())
                .stdout(Stdio::inherit())
                .stderr(Stdio::inherit());
        }
        StdioMode::File { file } => {
            let (out, err) = match (file.try_clone(), file.try_clone()) {
                (Ok(out), Ok(err)) => (Stdio::from(out), Stdio::from(err)),
                // Out of descriptors: nowhere to write rather than agg's own output.
                _ => (Stdio::null(), Stdio::null()),
            };
            cmd.stdin(Stdio::null()).stdout(out).stderr(err);
        }
        StdioMode::Relay { stdout, stderr, .. } => {
            let (out, err) = match (stdout.try_clone(), stderr.try_clone()) {
                (Ok(out), Ok(err)) => (Stdio::from(out), Stdio::from(err)),
                // Out of descriptors: the task still runs, printing where agg does.
                _ => (Stdio::inherit(), Stdio::inherit()),
            };
            cmd.stdin(Stdio::inherit()).stdout(out).stderr(err);
        }
    }
    None
}

/// Spawns `cmd`, or says why the job does not start.
fn spawn(
    cmd: &mut Command,
    inv: &Invocation,
    refused: Option<crate::sandbox::SandboxError>,
) -> Result<Child, NotStarted> {
    if let Some(err) = refused {
        Err(NotStarted::Unsandboxed(err))
    } else if inv.cwd.is_dir() {
        cmd.spawn().map_err(|source| NotStarted::Spawn {
            program: PathBuf::from(&inv.program),
            source,
        })
    } else {
        Err(NotStarted::DirectoryGone(inv.cwd.clone()))
    }
}

/// Why a job was not started (its `failed-to-start` reason).
#[derive(Debug)]
enum NotStarted {
    /// The sandbox its policy asks for could not be applied.
    Unsandboxed(crate::sandbox::SandboxError),
    /// The task's directory is gone.
    DirectoryGone(PathBuf),
    /// The program could not be spawned.
    Spawn {
        /// The program.
        program: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
}

impl std::fmt::Display for NotStarted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotStarted::Unsandboxed(err) => {
                write!(f, "not started, as it could not be sandboxed: {err}")
            }
            NotStarted::DirectoryGone(dir) => {
                write!(f, "the task's directory {} no longer exists", dir.display())
            }
            NotStarted::Spawn { program, source } => match source.kind() {
                std::io::ErrorKind::NotFound => {
                    write!(f, "`{}` was not found", program.display())
                }
                std::io::ErrorKind::PermissionDenied => write!(
                    f,
                    "`{}` is not executable (permission denied)",
                    program.display()
                ),
                _ => write!(f, "cannot start `{}`: {source}", program.display()),
            },
        }
    }
}

impl std::error::Error for NotStarted {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            NotStarted::Unsandboxed(err) => Some(err),
            NotStarted::DirectoryGone(_) => None,
            NotStarted::Spawn { source, .. } => Some(source),
        }
    }
}

/// The command for `inv` as given.
fn plain(inv: &Invocation) -> Command {
    let mut cmd = Command::new(&inv.program);
    cmd.args(&inv.args);
    cmd
}

/// Keeps every running job and the newest `retain` finished ones.
fn prune(jobs: &mut Vec<Arc<Job>>, retain: usize) {
    let mut finished: Vec<(Instant, usize)> = jobs
        .iter()
        .enumerate()
        .filter_map(|(i, j)| j.finished_at().map(|t| (t, i)))
        .collect();
    if finished.len() <= retain {
        return;
    }
    finished.sort();
    let evict: HashSet<usize> = finished[..finished.len() - retain]
        .iter()
        .map(|(_, i)| *i)
        .collect();
    let mut i = 0;
    jobs.retain(|_| {
        let keep = !evict.contains(&i);
        i += 1;
        keep
    });
}

async fn stop_job(job: &Arc<Job>, grace: Duration) {
    if !job.is_running() {
        return;
    }
    job.stop_requested.store(true, Ordering::Relaxed);
    job.stop_signal
        .store(Signal::SIGTERM as i32, Ordering::Relaxed);
    job.signal(Signal::SIGTERM);
    if !job.wait_for(grace).await {
        job.stop_signal
            .store(Signal::SIGKILL as i32, Ordering::Relaxed);
        job.signal(Signal::SIGKILL);
        // SIGKILL cannot be ignored; the supervisor records the end right after.
        job.wait_for(Duration::from_secs(5)).await;
    }
}

async fn read_pipe(job: Arc<Job>, stream: Stream, mut pipe: impl AsyncRead + Unpin) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match pipe.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                job.output().push(stream, &buf[..n]);
                job.progress.send_modify(|n| *n += 1);
            }
        }
    }
    job.output().finish(stream);
    job.progress.send_modify(|n| *n += 1);
}

/// What a job's output is read from: its pipes, or the copier of its terminal.
type Pipes = (
    Option<tokio::process::ChildStdout>,
    Option<tokio::process::ChildStderr>,
    Option<tokio::task::JoinHandle<()>>,
);

async fn supervise(
    job: Arc<Job>,
    mut child: Child,
    (stdout, stderr, copier): Pipes,
    (config, results): (EngineConfig, Option<crate::results::Scope>),
    engine: std::sync::Weak<Inner>,
) {
    let mut readers = tokio::task::JoinSet::new();
    if let Some(out) = stdout {
        readers.spawn(read_pipe(Arc::clone(&job), Stream::Stdout, out));
    }
    if let Some(err) = stderr {
        readers.spawn(read_pipe(Arc::clone(&job), Stream::Stderr, err));
    }
    if let Some(copier) = copier {
        readers.spawn(async move {
            let _ = copier.await;
        });
    }
    let status = child.wait().await;
    // The watchdog goes first, so that whatever is left in the group is the task's.
    if let Some(watchdog) = job.take_watchdog() {
        watchdog.release().await;
    }
    let pgid = job.pgid;
    // Whatever the task left in its group goes with it.
    if let Some(pgid) = pgid
        && process::group_alive(pgid)
    {
        process::signal_group(pgid, Signal::SIGTERM);
        let deadline = Instant::now() + config.leftover_grace;
        while process::group_alive(pgid) && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        process::signal_group(pgid, Signal::SIGKILL);
    }
    // Drain what is left in the pipes, but never wait on a process outside the group.
    let drained = tokio::time::timeout(config.drain, async {
        while readers.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        readers.abort_all();
        let mut out = job.output();
        out.finish(Stream::Stdout);
        out.finish(Stream::Stderr);
    }
    {
        use std::os::unix::process::ExitStatusExt;
        let mut how = match status {
            Ok(status) => match (status.code(), status.signal()) {
                (Some(code), _) => Ended::Exited { code, note: None },
                (None, Some(signal)) => Ended::Signaled { signal, note: None },
                // A waited-for process that neither exited nor was killed: not on Unix.
                (None, None) => Ended::Lost {
                    reason: "lost track of the process: it ended without a code or a signal"
                        .to_owned(),
                },
            },
            Err(err) => Ended::Lost {
                reason: format!("lost track of the process: {err}"),
            },
        };
        let sent = job.stop_signal.load(Ordering::Relaxed);
        if sent != 0 {
            how = how.stopped_with(sent, process::signal_name(sent).unwrap_or("a signal"));
        } else if job.stop_requested() {
            how = how.stop_requested();
        }
        *job.status() = Status::ended(how, (SystemTime::now(), Instant::now()));
    }
    job.temp.locked().take();
    if let Some(scope) = results {
        let finished = Arc::clone(&job);
        // Reading 5 MiB of output and a few report files: off the runtime's threads.
        let _ = tokio::task::spawn_blocking(move || finished.read_results(&scope)).await;
    }
    if let Some(on_finish) = config.on_finish {
        let finished = Arc::clone(&job);
        // A hook may touch the disk: off the runtime's threads, and a panic stays there.
        let _ = tokio::task::spawn_blocking(move || (on_finish.0)(&finished)).await;
    }
    job.progress.send_modify(|n| *n += 1);
    job.done.send_replace(true);
    if let Some(engine) = engine.upgrade() {
        let mut jobs = engine.jobs.locked();
        prune(&mut jobs, engine.config.retain_finished);
    }
}
