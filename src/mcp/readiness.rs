//! `task_start` and services: which wait a start gets (the task's end, or readiness), and
//! how a readiness outcome reads in a result.
//!
//! A call with `ready` waits for that condition; a call for a service (see
//! [`crate::readiness::service`]) without one waits for the service rules; any other call waits for
//! the task to finish within `wait_ms`, as before.

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use super::envelope::{ToolError, invalid};
use super::types::JobResult;
use crate::engine::Job;
use crate::readiness::probe::{self as ready, Probe, Readiness, ReadyBy};
use crate::readiness::service::{self, ReadySpec};
use crate::table::Task;

/// The probe a start waits on, or `None` to wait for the task to finish. `wait_ms` is what
/// the caller gave: a service without `ready` waits that long for readiness (30 s when not
/// given), and `wait_ms: 0` still means "return at once".
///
/// `declared_service` is the task file's own word (turbo `persistent`, nx `continuous`, VS
/// Code `isBackground`, a compose service): such a task is a service whatever its name.
pub fn plan(
    task: &Task,
    declared_service: bool,
    ready: Option<&ReadySpec>,
    wait_ms: Option<u64>,
) -> Result<Option<Probe>, ToolError> {
    if let Some(spec) = ready {
        return spec.probe().map(Some).map_err(|e| invalid(e.to_string()));
    }
    let declared = declared_service.then_some(true);
    if wait_ms == Some(0) || service::service_reason(task, declared).is_none() {
        return Ok(None);
    }
    let timeout = wait_ms.unwrap_or(service::DEFAULT_READY_TIMEOUT_MS);
    Ok(Some(service::service_probe(Duration::from_millis(timeout))))
}

/// Waits for `job` as planned; returns whether it finished, and the readiness outcome
/// when there was a probe.
pub async fn settle(
    job: &Arc<Job>,
    probe: Option<&Probe>,
    window: Duration,
    out: &mut Option<Readiness>,
) -> bool {
    match probe {
        Some(probe) => {
            let readiness = ready::wait(job, probe).await;
            let finished = !job.is_running();
            if finished {
                // Wait for the job's record to be complete (exit code, drained pipes).
                job.wait().await;
            }
            *out = Some(readiness);
            finished
        }
        None => job.wait_for(window).await,
    }
}

/// Adds the readiness outcome to a result: `ready`, the details, and a hint that says it.
pub fn annotate(result: &mut JobResult, readiness: Option<Readiness>) {
    let Some(r) = readiness else { return };
    result.ready = Some(r.ready);
    if r.ready {
        let at = r
            .urls
            .first()
            .map_or_else(String::new, |u| format!(" at {u}"));
        result.hint = Some(format!(
            "ready{at}; it keeps running in the background: task_output with run_id \"{}\" follows it, task_stop ends it",
            result.job.run_id
        ));
    } else if r.timed_out {
        result.hint = Some(format!(
            "not ready after {} ms but still running: task_output with run_id \"{}\" shows what it is doing, task_stop ends it",
            r.waited_ms, result.job.run_id
        ));
    }
    result.readiness = Some(r);
}

/// The readiness line of a result's text copy.
pub fn text(result: &JobResult) -> Option<String> {
    let r = result.readiness.as_ref()?;
    let mut s = if r.ready {
        let by = match r.by {
            Some(ReadyBy::Line) => "its output matched",
            Some(ReadyBy::Banner) => "it printed a readiness message",
            Some(ReadyBy::Port) => "its port accepts connections",
            Some(ReadyBy::Url) => "its URL answers",
            Some(ReadyBy::Listening) => "it listens on a port",
            None => "ready",
        };
        format!("ready after {} ms ({by})", r.waited_ms)
    } else if r.timed_out {
        format!("not ready after {} ms", r.waited_ms)
    } else {
        "ended before it was ready".to_owned()
    };
    if !r.urls.is_empty() {
        let _ = write!(s, " · {}", r.urls.join(" "));
    }
    if let Some(line) = &r.line {
        let _ = write!(s, "\n> {line}");
    }
    Some(s)
}
