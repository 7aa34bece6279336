//! Jobs agg observes but does not run: a person's `agg run`, seen by an agent's `agg mcp`
//! through the run's log ([`crate::runs`]). An observed job is a [`Job`] like any other to
//! its readers — output pages, `grep`, the failure region, waiting for a line — but it holds
//! no process id and no group, so nothing agg sends through it can reach the process: the
//! person's run can be read, never stopped, signalled or written to.

use std::sync::Arc;
use std::time::{Instant, SystemTime};

use super::job::{Ended, Job, JobParts, Status};
use super::output::{OutputBuffer, OutputLimits, Stream};

/// How an observed run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObservedEnd {
    /// It exited with this code.
    Exited(i32),
    /// This signal ended it.
    Signaled(i32),
    /// It is gone without a record of how it ended (the reason says why).
    Lost(&'static str),
}

impl Job {
    /// A running job observed from outside, started at `started` by someone else.
    pub fn observed(
        run_id: String,
        unique_name: String,
        args: Vec<String>,
        started: SystemTime,
        limits: OutputLimits,
    ) -> Arc<Job> {
        let mut job = Job::new(JobParts {
            run_id,
            unique_name,
            args,
            env: Vec::new(),
            pid: None,
            pgid: None,
            output: OutputBuffer::new(limits),
            status: Status::Running,
            temp: None,
            watchdog: None,
            sandbox: None,
        });
        job.backdate(started);
        Arc::new(job)
    }

    /// Ends an observed job at `finished`, waking its waiters; a second end is ignored.
    pub fn end_observed(&self, end: ObservedEnd, finished: SystemTime) {
        {
            let mut out = self.output();
            out.finish(Stream::Stdout);
            out.finish(Stream::Stderr);
        }
        {
            let mut st = self.status();
            if !matches!(*st, Status::Running) {
                return;
            }
            let how = match end {
                ObservedEnd::Exited(code) => Ended::Exited { code, note: None },
                ObservedEnd::Signaled(signal) => Ended::Signaled { signal, note: None },
                ObservedEnd::Lost(reason) => Ended::Lost {
                    reason: reason.to_owned(),
                },
            };
            let ago = finished.elapsed().unwrap_or_default();
            *st = Status::ended(
                how,
                (
                    finished,
                    Instant::now().checked_sub(ago).unwrap_or_else(Instant::now),
                ),
            );
        }
        self.progress.send_modify(|n| *n += 1);
        self.done.send_replace(true);
    }
}
