//! The runs a person starts with `agg run`, made visible: each writes its output to a
//! bounded log in agg's cache ([`log`]) and registers itself ([`record`], [`store`]) — the
//! task, its process with the time it started, the `agg run` watching it, its log, how it
//! ended — so `agg ps` lists it beside agents' jobs, `agg logs` and `agg stop` reach it, and an
//! agent's `agg mcp` can list it and read its output (never stop it: see
//! [`crate::engine::observed`]).
//!
//! What the person sees does not change: the output is copied on its way to their terminal
//! ([`relay`]), through a terminal of agg's own when theirs is one. If the cache cannot be
//! written the run goes on unshared, and agg says so once.

pub mod log;
pub mod record;
pub mod relay;
pub mod store;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use crate::engine::{Job, JobState, ReadRequest, StdioMode};
use crate::lock::MutexExt;
use log::LogWriter;
use record::{End, Record};

/// How long the relay copies what is left once a run ended (a process it left behind may
/// hold its terminal).
const DRAIN: Duration = Duration::from_millis(300);

/// What `agg run` knows of the tasks it may share: the root, and each task's file and name.
#[derive(Debug, Clone)]
pub struct Share {
    /// The repository root.
    pub root: PathBuf,
    /// unique name → (file, source name).
    pub located: HashMap<String, (String, String)>,
}

/// One run being shared.
#[derive(Debug)]
pub struct Shared {
    record: Record,
    log: Arc<Mutex<LogWriter>>,
    relay: Option<relay::Relay>,
}

impl Share {
    /// Registers a run of `unique_name` with `args`; `None` (having said why, once) when the
    /// cache cannot hold it.
    pub fn begin(&self, unique_name: &str, args: &[String]) -> Option<Shared> {
        let root = std::fs::canonicalize(&self.root).unwrap_or_else(|_| self.root.clone());
        let attempt = || -> std::io::Result<Shared> {
            store::ensure_dir()?;
            // Pruning on the way keeps the directory to its bounds.
            let _ = store::list(Some(&root));
            let run_id = record::run_id(unique_name, std::process::id());
            let log_path = store::log_path(&root, &run_id);
            let log = LogWriter::create(&log_path)?;
            let (file, source) = self.located.get(unique_name).cloned().unwrap_or_default();
            let agg_pid = std::process::id();
            Ok(Shared {
                record: Record {
                    run_id,
                    unique_name: unique_name.to_owned(),
                    args: args.to_vec(),
                    root: root.to_string_lossy().into_owned(),
                    file,
                    source,
                    pid: 0,
                    pid_started: None,
                    group: None,
                    agg_pid,
                    agg_started: record::started_ticks(agg_pid),
                    terminal: false,
                    log: log_path,
                    started_ms: record::epoch_ms(SystemTime::now()),
                    end: None,
                },
                log: Arc::new(Mutex::new(log)),
                relay: None,
            })
        };
        match attempt() {
            Ok(shared) => Some(shared),
            Err(err) => {
                tracing::debug!("cannot share the run: {err}");
                let _ = writeln_once(&format!(
                    "agg: this run is not shared with agents or agg ps ({err})"
                ));
                None
            }
        }
    }
}

/// Prints a note on stderr once per process.
fn writeln_once(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    static SAID: std::sync::Once = std::sync::Once::new();
    let mut result = Ok(());
    SAID.call_once(|| result = writeln!(std::io::stderr().lock(), "{text}"));
    result
}

impl Shared {
    /// The streams to start the task with, copying its output into the log; `None` when the
    /// copy cannot be set up (the task then runs as it would unshared).
    pub fn stdio(&mut self, foreground: bool) -> Option<StdioMode> {
        match relay::start(&self.log, foreground) {
            Ok((mode, relay, terminal)) => {
                self.relay = Some(relay);
                self.record.terminal = terminal;
                Some(mode)
            }
            Err(err) => {
                tracing::debug!("cannot relay the output: {err}");
                None
            }
        }
    }

    /// A tee into the log, for a run whose output agg copies itself (through its own
    /// terminal, [`StdioMode::Terminal`]).
    pub fn tee(&mut self) -> crate::engine::Tee {
        self.record.terminal = true;
        let log = Arc::clone(&self.log);
        crate::engine::Tee::new(move |chunk| {
            log.locked().write(chunk);
        })
    }

    /// The task started as `job`: its process is recorded, and the run becomes visible.
    pub fn started(&mut self, job: &Job) {
        let Some(pid) = job.pid else {
            return;
        };
        self.record.pid = pid;
        self.record.pid_started = record::started_ticks(pid);
        self.record.group = job.pgid;
        self.record.started_ms = record::epoch_ms(job.started_at());
        if let Err(err) = store::save(&self.record) {
            tracing::debug!("cannot record the run: {err}");
        }
    }

    /// The run ended: what is still in flight is copied, and its end recorded.
    pub fn finish(mut self, job: &Job) {
        if let Some(relay) = self.relay.take() {
            relay.finish(DRAIN);
        }
        self.end(job);
    }

    fn end(&mut self, job: &Job) {
        if self.record.pid == 0 {
            // Never started: nothing was shown, nothing is kept.
            let _ = std::fs::remove_file(&self.record.log);
            return;
        }
        let snapshot = job.snapshot();
        self.record.end = Some(End {
            finished_ms: record::epoch_ms(SystemTime::now()),
            exit_code: snapshot.exit_code,
            signal: if snapshot.state == JobState::Signaled {
                job.signal_number()
            } else {
                None
            },
        });
        if let Err(err) = store::save(&self.record) {
            tracing::debug!("cannot record the run's end: {err}");
        }
    }

    /// Copies what `job` (captured, as `agg run --parallel` runs tasks) prints into the log
    /// until it ends, then records its end.
    pub async fn copy_captured(mut self, job: Arc<Job>) {
        let mut changes = job.subscribe();
        let mut next = 1;
        loop {
            let running = job.is_running();
            let page = job.read(&ReadRequest {
                from: Some(next),
                ..ReadRequest::default()
            });
            {
                let mut log = self.log.locked();
                for line in page.lines.iter().filter(|l| !l.partial || !running) {
                    log.write(line.text.as_bytes());
                    log.write(b"\n");
                    next = line.no + 1;
                }
            }
            if !running || changes.changed().await.is_err() {
                break;
            }
        }
        job.wait().await;
        self.end(&job);
    }
}
