//! The job handlers of `agg mcp`: `status`, `task_status`, `task_output` and `task_stop`,
//! and how a call names a job (run id, pid or task name). A job may be the agent's own, a
//! person's `agg run` or a service `agg run --until-ready` left ([`super::mirrors`]): all
//! are read alike, and only the agent's own can be stopped.
#![allow(deprecated)] // rmcp marks the MCP logging API deprecated (SEP-2577); we still serve it.

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::CallToolResult;

use super::catalog::{self};
use super::envelope::{ErrorCode, ToolError, ToolResult, invalid, success, tool_error};
use super::regions;
use super::render::{self, RESULT_CAP};
use super::types::{
    JobRef, JobResult, MAX_WAIT_FOR_MS, OutputMode, StatusResult, TaskOutputArgs, TaskStatusArgs,
    TaskStopArgs, WaitFor,
};
use crate::engine::Job;
use crate::engine::failure::plain;
use crate::engine::until::{self, Waited};

use super::server::Server;

impl Server {
    pub(super) fn status(&self) -> CallToolResult {
        let jobs: Vec<_> = self
            .0
            .engine()
            .list()
            .iter()
            .map(|j| j.snapshot())
            .collect();
        let running = jobs
            .iter()
            .filter(|j| j.state == crate::engine::JobState::Running)
            .count();
        let result = StatusResult {
            jobs,
            running,
            max_running: self.0.engine().config().max_running,
        };
        let mut text = format!(
            "{} jobs, {} running (at most {})",
            result.jobs.len(),
            running,
            result.max_running
        );
        for j in &result.jobs {
            let _ = write!(
                text,
                "\n{}  {}  {}  pid {}  {}ms{}",
                j.run_id,
                j.unique_name,
                j.state.as_str(),
                j.pid.map_or_else(|| "-".to_owned(), |p| p.to_string()),
                j.elapsed_ms,
                j.exit_code
                    .map_or_else(String::new, |c| format!("  exit {c}"))
            );
        }
        success(&result, text)
    }

    pub(super) fn job(&self, r: &JobRef) -> Result<Arc<Job>, ToolError> {
        let given = usize::from(r.run_id.is_some())
            + usize::from(r.pid.is_some())
            + usize::from(r.unique_name.is_some());
        if given != 1 {
            return Err(invalid("give exactly one of run_id, pid or unique_name"));
        }
        let found = if let Some(id) = &r.run_id {
            self.0.engine().get(id)
        } else if let Some(pid) = r.pid {
            self.0.engine().by_pid(pid)
        } else {
            r.unique_name
                .as_deref()
                .and_then(|n| self.0.engine().by_task(n))
        };
        // Not one of this agent's jobs: a run of the person's, read only.
        let found = found.or_else(|| {
            self.person_runs()
                .find(r.run_id.as_deref(), r.pid, r.unique_name.as_deref())
        });
        found.ok_or_else(|| {
            let wanted = r
                .run_id
                .clone()
                .or_else(|| r.pid.map(|p| format!("pid {p}")))
                .or_else(|| r.unique_name.clone())
                .unwrap_or_default();
            let mut err = tool_error(
                ErrorCode::NotFound,
                format!("no job {wanted}"),
                Some("list_runs lists your running and recently finished jobs (the 20 newest finished ones are kept) and the user's agg runs".to_owned()),
            );
            let ids = self.0.engine().run_ids();
            err.suggestions = crate::resolve::suggest(ids.iter().map(String::as_str), &wanted);
            err
        })
    }

    pub(super) async fn task_status(&self, args: &TaskStatusArgs) -> ToolResult {
        let job = self.job(&args.job_ref())?;
        let wait = wait_for(&job, args.wait_for.as_ref()).await?;
        let tail = args.tail_lines.unwrap_or(self.0.settings().tail_lines);
        let block = render::output(&job, OutputMode::Tail, tail, RESULT_CAP);
        let mut result = render::job_result(&job, OutputMode::Tail, block, false);
        result.wait = wait;
        Ok(success(&result, render::job_text(&result)))
    }

    /// `task_output`: exactly one way of choosing lines (an `output` mode, an `offset` to
    /// page from, or a `grep`, which may start at an `offset`), within `max_bytes`.
    pub(super) async fn task_output(&self, args: &TaskOutputArgs) -> ToolResult {
        let job = self.job(&args.job_ref())?;
        let wait = wait_for(&job, args.wait_for.as_ref()).await?;
        let mut result = self.output_result(&job, args)?;
        result.wait = wait;
        Ok(success(&result, render::job_text(&result)))
    }

    /// The result of `task_output` without its wait.
    fn output_result(&self, job: &Job, args: &TaskOutputArgs) -> Result<JobResult, ToolError> {
        let (least, most) = catalog::OUTPUT_BYTES;
        let max_bytes = args.max_bytes.unwrap_or(RESULT_CAP).clamp(least, most);
        if args.offset == Some(0) {
            return Err(tool_error(
                ErrorCode::InvalidArgs,
                "offset is a line number: 1 is the first line",
                Some("output: \"tail\" reads the last lines; a result's next_offset continues a page".to_owned()),
            ));
        }
        let matcher = args
            .grep
            .as_deref()
            .map(|g| grep_matcher(g, args.ignore_case))
            .transpose()?;
        if args.output.is_some() && (args.offset.is_some() || matcher.is_some()) {
            return Err(tool_error(
                ErrorCode::InvalidArgs,
                "output (a mode) cannot be combined with offset or grep",
                Some("give output: \"tail\"|\"full\"|\"stderr\", or offset to page from a line, or grep to search".to_owned()),
            ));
        }
        if let Some(re) = matcher {
            let (context, most_context) = catalog::GREP_CONTEXT;
            let context = args.context.unwrap_or(context);
            if context > most_context {
                return Err(invalid(format!("context is at most {most_context} lines")));
            }
            let found = regions::grep(job, args.offset.unwrap_or(1), context, max_bytes, |line| {
                re.is_match(&plain(line))
            });
            return Ok(render::bare_result(job, None, Some(found), false));
        }
        if args.context.is_some() || args.ignore_case {
            return Err(invalid("context and ignore_case go with grep"));
        }
        let block = if let Some(offset) = args.offset {
            Some(render::page(job, offset, max_bytes))
        } else {
            let tail = args.tail_lines.unwrap_or(self.0.settings().tail_lines);
            render::output(job, args.output.unwrap_or_default(), tail, max_bytes)
        };
        Ok(render::bare_result(job, block, None, false))
    }

    pub(super) async fn task_stop(&self, args: TaskStopArgs) -> ToolResult {
        let job = self.job(&args.job_ref())?;
        if let Some(by) = self.0.person_runs().holds(&job) {
            let whose = match by {
                super::mirrors::By::Service => {
                    "a service the user left running with agg run --until-ready"
                }
                _ => "the user's own agg run",
            };
            return Err(tool_error(
                ErrorCode::NotYours,
                format!(
                    "{} is {whose}: agents may read it, never stop it",
                    job.run_id
                ),
                Some(format!(
                    "ask the user to stop it (`agg stop {}` at their terminal, or Ctrl-C where it runs)",
                    job.run_id
                )),
            ));
        }
        let (grace, most) = catalog::STOP_GRACE_MS;
        let grace = Duration::from_millis(args.grace_ms.unwrap_or(grace).min(most));
        self.0.engine().stop(&job, grace).await;
        let mode = args.output.unwrap_or_default();
        let tail = args.tail_lines.unwrap_or(self.0.settings().tail_lines);
        let block = render::output(&job, mode, tail, RESULT_CAP);
        let result = render::job_result(&job, mode, block, false);
        Ok(success(&result, render::job_text(&result)))
    }
}

/// Waits as `wait_for` asks (nothing without it): until a new line matches its pattern, the
/// run ends, or its timeout (at most [`MAX_WAIT_FOR_MS`]) passes.
async fn wait_for(job: &Job, spec: Option<&WaitFor>) -> Result<Option<Waited>, ToolError> {
    let Some(spec) = spec else { return Ok(None) };
    let pattern = match spec.pattern.as_deref() {
        Some(p) if p.len() > catalog::GREP_MAX_BYTES => {
            return Err(invalid(format!(
                "wait_for.pattern is at most {} bytes",
                catalog::GREP_MAX_BYTES
            )));
        }
        Some(p) => Some(
            regex::RegexBuilder::new(p)
                .size_limit(GREP_COMPILED_BYTES)
                .dfa_size_limit(GREP_COMPILED_BYTES)
                .build()
                .map_err(|e| invalid(format!("wait_for.pattern is not a valid regex: {e}")))?,
        ),
        None => None,
    };
    let timeout = Duration::from_millis(
        spec.timeout_ms
            .unwrap_or(MAX_WAIT_FOR_MS)
            .min(MAX_WAIT_FOR_MS),
    );
    let waited = until::until_line(job, pattern.as_ref(), timeout).await;
    if waited.outcome == until::Outcome::Ended {
        // The results are read before the job counts as ended.
        job.wait().await;
    }
    Ok(Some(waited))
}

/// The regex of a `grep`, bounded in pattern length and compiled size.
fn grep_matcher(pattern: &str, ignore_case: bool) -> Result<regex::bytes::Regex, ToolError> {
    if pattern.len() > catalog::GREP_MAX_BYTES {
        return Err(invalid(format!(
            "grep is at most {} bytes",
            catalog::GREP_MAX_BYTES
        )));
    }
    if pattern.is_empty() {
        return Err(invalid("grep is empty: give a regex"));
    }
    regex::bytes::RegexBuilder::new(pattern)
        .case_insensitive(ignore_case)
        .size_limit(GREP_COMPILED_BYTES)
        .dfa_size_limit(GREP_COMPILED_BYTES)
        .build()
        .map_err(|e| invalid(format!("grep is not a valid regex: {e}")))
}

/// Memory a compiled `grep` may take.
const GREP_COMPILED_BYTES: usize = 1 << 20;
