//! Long calls as MCP tasks (the `io.modelcontextprotocol/tasks` extension, SEP-2663).
//!
//! A client that declares the extension gets, for a `task_start` whose job outlives
//! `wait_ms`, a task handle instead of a `run_id` answer: the task id is the run id, so
//! `task_status`/`task_output`/`task_stop` still work on it. `tasks/get` reports the job
//! working (with its last line) and, once it ended, the `task_start` result it would have
//! returned; `tasks/cancel` stops the job's process group. Clients without the extension
//! keep the `run_id` answer. A task lives as long as the engine keeps its job (running, or
//! among the newest finished ones): the handle never keeps a job's output alive by itself.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, SystemTime};

use rmcp::model::{
    CreateTaskResult, DetailedTask, GetTaskResult, JsonObject, Task, TaskPayload, TaskStatus,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};

use super::envelope::success;
use super::render::{self, RESULT_CAP};
use super::types::OutputMode;
use crate::engine::{Engine, Job, ReadRequest};
use crate::lock::MutexExt;

/// How often clients are asked to poll a task.
const POLL_INTERVAL_MS: u64 = 1000;
/// Tasks kept; the oldest finished ones go first.
const MAX_TASKS: usize = 256;

#[derive(Debug)]
struct Entry {
    job: Weak<Job>,
    mode: OutputMode,
    tail_lines: usize,
    created_at: String,
    cancelled: bool,
}

/// The tasks handed out by this server, by task id (= run id).
#[derive(Debug, Default)]
pub struct McpTasks {
    entries: Mutex<HashMap<String, Entry>>,
}

/// Whether the request's client declared the tasks extension.
pub fn declared(ctx: &RequestContext<RoleServer>) -> bool {
    ctx.client_capabilities()
        .is_some_and(|c| c.supports_tasks())
}

fn now() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}

impl McpTasks {
    fn entries(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        // A panicked holder left the map consistent: every critical section is a plain
        // lookup, insert or flag change.
        self.entries.locked()
    }

    /// A task for `job`, whose result will be rendered in `mode`.
    pub fn create(&self, job: &Arc<Job>, mode: OutputMode, tail_lines: usize) -> CreateTaskResult {
        let created_at = now();
        let mut entries = self.entries();
        // Tasks whose job the engine let go of are gone too.
        entries.retain(|_, e| e.job.strong_count() > 0);
        if entries.len() >= MAX_TASKS {
            entries.retain(|_, e| e.job.upgrade().is_some_and(|j| j.is_running()));
        }
        entries.insert(
            job.run_id.clone(),
            Entry {
                job: Arc::downgrade(job),
                mode,
                tail_lines,
                created_at: created_at.clone(),
                cancelled: false,
            },
        );
        let task = Task::new(
            job.run_id.clone(),
            TaskStatus::Working,
            created_at.clone(),
            created_at,
        )
        .with_poll_interval_ms(POLL_INTERVAL_MS)
        .with_status_message(format!(
            "running in the background (run_id {}); tasks/get reports its end",
            job.run_id
        ));
        CreateTaskResult::new(task)
    }

    /// `tasks/get`.
    pub fn get(&self, task_id: &str) -> Result<GetTaskResult, ErrorData> {
        let entries = self.entries();
        let entry = entries.get(task_id).ok_or_else(|| unknown(task_id))?;
        let job = &entry.job.upgrade().ok_or_else(|| unknown(task_id))?;
        let task = Task::new(
            task_id,
            TaskStatus::Working,
            entry.created_at.clone(),
            now(),
        )
        .with_poll_interval_ms(POLL_INTERVAL_MS);
        let payload = if entry.cancelled && !job.is_running() {
            TaskPayload::Cancelled
        } else if job.is_running() {
            let last = job.read(&ReadRequest {
                max_lines: Some(1),
                ..ReadRequest::default()
            });
            let task = match last.lines.last() {
                Some(l) => task
                    .clone()
                    .with_status_message(crate::readiness::probe::clean(&l.text)),
                None => task.clone(),
            };
            return Ok(GetTaskResult::new(DetailedTask::new(
                task,
                TaskPayload::Working,
            )));
        } else {
            let block = render::output(job, entry.mode, entry.tail_lines, RESULT_CAP);
            let result = render::job_result(job, entry.mode, block, false);
            let call = success(&result, render::job_text(&result));
            let result: JsonObject = match serde_json::to_value(call) {
                Ok(serde_json::Value::Object(o)) => o,
                _ => JsonObject::new(),
            };
            TaskPayload::Completed { result }
        };
        Ok(GetTaskResult::new(DetailedTask::new(task, payload)))
    }

    /// `tasks/cancel`: stops the job's process group (in the background; the next
    /// `tasks/get` shows it cancelled once it ended).
    pub fn cancel(&self, task_id: &str, engine: &Engine) -> Result<(), ErrorData> {
        let mut entries = self.entries();
        let entry = entries.get_mut(task_id).ok_or_else(|| unknown(task_id))?;
        let job = entry.job.upgrade().ok_or_else(|| unknown(task_id))?;
        if !job.is_running() {
            return Ok(());
        }
        entry.cancelled = true;
        let engine = engine.clone();
        tokio::spawn(async move { engine.stop(&job, Duration::from_secs(5)).await });
        Ok(())
    }
}

fn unknown(task_id: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!("no task `{task_id}` (a finished task goes once its job is no longer kept)"),
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Duplicates, EngineConfig, Invocation};

    fn echo(dir: &std::path::Path) -> Invocation {
        Invocation {
            unique_name: "echo".to_owned(),
            program: "sh".into(),
            args: vec!["-c".into(), "echo done".into()],
            cwd: dir.to_path_buf(),
            env: Vec::new(),
            user_args: Vec::new(),
            user_env: Vec::new(),
            temp: None,
            sandbox: None,
            results: None,
        }
    }

    #[tokio::test]
    async fn a_task_goes_with_its_job_once_the_engine_lets_the_job_go() {
        let dir = tempfile::tempdir().expect("tmp");
        let engine = Engine::new(EngineConfig {
            retain_finished: 1,
            ..EngineConfig::default()
        });
        let tasks = McpTasks::default();
        let wait = Duration::from_secs(10);
        let (first, _) = engine
            .start_and_wait(echo(dir.path()), wait, Duplicates::Allow)
            .await
            .expect("start");
        let run_id = first.job.run_id.clone();
        tasks.create(&first.job, OutputMode::default(), 10);
        assert!(tasks.get(&run_id).is_ok());
        drop(first);
        // A newer finished job evicts the first one from the engine, and so from the tasks.
        let _second = engine
            .start_and_wait(echo(dir.path()), wait, Duplicates::Allow)
            .await
            .expect("start");
        // The engine prunes right after the job reports its end: wait for that, bounded.
        let deadline = std::time::Instant::now() + wait;
        while engine.get(&run_id).is_some() && std::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(engine.get(&run_id).is_none());
        assert!(tasks.get(&run_id).is_err());
    }
}
