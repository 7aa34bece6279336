//! What an agent sees of the runs it did not start: the runs the person started with `agg
//! run` in this repository ([`crate::runs`]) and the services `agg run --until-ready` left
//! running ([`crate::control::detached`]). Each is mirrored as an observed job
//! ([`crate::engine::observed`]) fed from its log by a follower task while it runs, so
//! `task_status` and `task_output` (pages, `grep`, the failure region) read it like the
//! agent's own jobs; `task_stop` refuses it, and the mirror holds no process id that anything
//! could signal. `list_runs` lists them beside the agent's own jobs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::envelope::Bounded;
use crate::engine::observed::ObservedEnd;
use crate::engine::{Job, JobSnapshot, OutputLimits, Stream};
use crate::lock::MutexExt;
use crate::runs::log::Follower;
use crate::runs::record::State;

/// How often a mirror reads its log.
const FOLLOW_EVERY: Duration = Duration::from_millis(100);
/// How often a mirror reads its record (how the run ended).
const RECORD_EVERY: u32 = 5;
/// The most of a log one read takes in.
const READ_BUDGET: usize = 1024 * 1024;

/// Whose a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum By {
    /// This agent's own job (`task_start`): it may stop it.
    Agent,
    /// The person's `agg run`: read only.
    Person,
    /// A service the person's `agg run --until-ready` left running: read only.
    Service,
}

/// One mirrored run.
#[derive(Debug)]
struct Mirror {
    job: Arc<Job>,
    by: By,
    pid: u32,
    follower: tokio::task::AbortHandle,
}

impl Drop for Mirror {
    fn drop(&mut self) {
        self.follower.abort();
    }
}

/// The mirrors of one server.
#[derive(Debug, Default)]
pub struct Mirrors {
    runs: Mutex<HashMap<String, Mirror>>,
}

/// A run as its mirror needs it: where to read, and how to learn its end.
struct Source {
    run_id: String,
    unique_name: String,
    args: Vec<String>,
    by: By,
    pid: u32,
    started: SystemTime,
    log: PathBuf,
    root: PathBuf,
}

fn sources(root: &Path) -> Vec<Source> {
    let mut out: Vec<Source> = crate::runs::store::list(Some(root))
        .into_iter()
        .map(|r| Source {
            started: r.started(),
            run_id: r.run_id,
            unique_name: r.unique_name,
            args: r.args,
            by: By::Person,
            pid: r.pid,
            log: r.log,
            root: root.to_path_buf(),
        })
        .collect();
    out.extend(
        crate::control::detached::list(Some(root))
            .into_iter()
            .map(|(_, s)| Source {
                started: s.started(),
                run_id: s.run_id,
                unique_name: s.unique_name,
                args: Vec::new(),
                by: By::Service,
                pid: s.pid,
                log: s.log,
                root: root.to_path_buf(),
            }),
    );
    out
}

/// How the run of `source` ended, once it did.
fn ended(source: &Source) -> Option<(ObservedEnd, SystemTime)> {
    match source.by {
        By::Person => {
            let r = crate::runs::store::reread(&source.root, &source.run_id)?;
            match r.state() {
                State::Running => None,
                State::Ended(end) => Some((
                    match (end.exit_code, end.signal) {
                        (_, Some(sig)) => ObservedEnd::Signaled(sig),
                        (code, None) => ObservedEnd::Exited(code.unwrap_or(0)),
                    },
                    r.finished().unwrap_or_else(SystemTime::now),
                )),
                State::Lost => Some((
                    ObservedEnd::Lost(
                        "the agg run that watched it is gone without recording how it ended",
                    ),
                    SystemTime::now(),
                )),
            }
        }
        By::Service | By::Agent => {
            let running = crate::control::detached::list(Some(&source.root))
                .into_iter()
                .any(|(_, s)| s.run_id == source.run_id && s.running());
            (!running).then(|| {
                (
                    ObservedEnd::Lost(
                        "the service ended; agg does not record a service's exit code",
                    ),
                    SystemTime::now(),
                )
            })
        }
    }
}

/// Feeds `job` from its log until the run ends.
async fn follow(job: Arc<Job>, source: Source) {
    let mut follower = Follower::new(&source.log);
    let mut tick = 0u32;
    loop {
        let end = if tick.is_multiple_of(RECORD_EVERY) {
            ended(&source)
        } else {
            None
        };
        tick = tick.wrapping_add(1);
        let mut chunks = Vec::new();
        follower.read_new(READ_BUDGET, &mut |b| chunks.push(b.to_vec()));
        for c in chunks {
            job.feed(Stream::Stdout, &c);
        }
        if let Some((end, at)) = end {
            // What was written before the end is in; one last read for what came with it.
            let mut rest = Vec::new();
            follower.read_new(usize::MAX, &mut |b| rest.extend_from_slice(b));
            job.feed(Stream::Stdout, &rest);
            job.end_observed(end, at);
            return;
        }
        tokio::time::sleep(FOLLOW_EVERY).await;
    }
}

impl Mirrors {
    /// Takes in the runs of `root` as they are now: new ones get a mirror, pruned ones lose
    /// theirs.
    pub fn refresh(&self, root: &Path) {
        let found = sources(root);
        let mut runs = self.runs.locked();
        runs.retain(|id, _| found.iter().any(|s| &s.run_id == id));
        for source in found {
            if runs.contains_key(&source.run_id) {
                continue;
            }
            let job = Job::observed(
                source.run_id.clone(),
                source.unique_name.clone(),
                source.args.clone(),
                source.started,
                OutputLimits::default(),
            );
            let (id, by, pid) = (source.run_id.clone(), source.by, source.pid);
            let follower = tokio::spawn(follow(Arc::clone(&job), source)).abort_handle();
            runs.insert(
                id,
                Mirror {
                    job,
                    by,
                    pid,
                    follower,
                },
            );
        }
    }

    /// The mirrored run with this run id, this pid, or the newest of this task (a running one
    /// first).
    pub fn find(
        &self,
        run_id: Option<&str>,
        pid: Option<u32>,
        task: Option<&str>,
    ) -> Option<Arc<Job>> {
        let runs = self.runs.locked();
        if let Some(id) = run_id {
            return runs.get(id).map(|m| Arc::clone(&m.job));
        }
        let mut matching: Vec<&Mirror> = runs
            .values()
            .filter(|m| {
                pid.is_some_and(|p| m.pid == p) || task.is_some_and(|t| m.job.unique_name == t)
            })
            .collect();
        matching.sort_by_key(|m| (m.job.is_running(), m.job.started_at()));
        matching.last().map(|m| Arc::clone(&m.job))
    }

    /// Whether `job` is one of the mirrors (a run the agent may not stop).
    pub fn holds(&self, job: &Arc<Job>) -> Option<By> {
        self.runs
            .locked()
            .values()
            .find(|m| Arc::ptr_eq(&m.job, job))
            .map(|m| m.by)
    }

    /// The mirrored runs as `list_runs` rows.
    pub fn rows(&self) -> Vec<RunRow> {
        let runs = self.runs.locked();
        let mut rows: Vec<RunRow> = runs
            .values()
            .map(|m| RunRow {
                by: m.by,
                pid: Some(m.pid).filter(|&p| p != 0),
                job: m.job.snapshot(),
            })
            .collect();
        rows.sort_by(|a, b| a.job.started_at.cmp(&b.job.started_at));
        rows
    }
}

/// Arguments of `list_runs` (none).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListRunsArgs {}

impl Bounded for ListRunsArgs {}

/// One run as `list_runs` shows it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RunRow {
    /// The run: its id (pass it to `task_status`/`task_output`), task, state and times.
    #[serde(flatten)]
    pub job: JobSnapshot,
    /// Whose: `agent` (yours), `person` or `service` (the user's: read only).
    pub by: By,
    /// Its process id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
}

/// Result of `list_runs`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ListRunsResult {
    /// Every run, oldest first.
    pub runs: Vec<RunRow>,
    /// How many are running.
    pub running: usize,
}
