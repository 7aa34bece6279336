//! The MCP tools' arguments and results. Tool names and these field names are a contract;
//! input and output schemas are generated from these types with schemars.

use std::collections::BTreeMap;

use agg_runners::Diagnostic;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::envelope::{
    Bounded, MAX_ARG_BYTES, MAX_ARGS, MAX_NAME_BYTES, ToolError, bound, invalid,
};
use crate::describe::TaskDetail;
use crate::engine::JobSnapshot;
use crate::engine::until::Waited;
use crate::readiness::probe::Readiness;
use crate::readiness::service::ReadySpec;
use crate::results::{Problem, Tests};
use crate::table::Task;

/// Longest `wait_ms` a call may ask for (10 minutes).
pub const MAX_WAIT_MS: u64 = 600_000;

/// How much output a result carries (the xc model).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum OutputMode {
    /// The last `tail_lines` lines.
    #[default]
    Tail,
    /// All retained output, from the start, up to the size cap.
    Full,
    /// stderr only (its last `tail_lines` lines).
    Stderr,
    /// Exit code and pass/fail only.
    Silent,
}

impl OutputMode {
    /// The modes' names, as the schemas list them.
    pub const NAMES: [&str; 4] = ["tail", "full", "stderr", "silent"];
}

/// Arguments of `list_tasks`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListTasksArgs {
    /// Only this runner.
    pub runner: Option<String>,
    /// Only tasks in this directory (relative to the root) or below it.
    pub dir: Option<String>,
    /// Words that must all match (case-insensitive) a task's name, directory, package,
    /// runner or description; the best matches come first (name, then directory and
    /// package, then description).
    pub query: Option<String>,
    /// A file or directory (relative to the root): the tasks that apply to it, those of its
    /// nearest enclosing task directories first, the root's last.
    pub path: Option<String>,
    /// Only tasks your changes affect, with `why`: true, or a ref (since its merge base).
    pub affected: Option<AffectedArg>,
    /// At most this many tasks.
    pub limit: Option<usize>,
    /// Skip this many tasks first (paging).
    pub offset: Option<usize>,
}

/// `list_tasks`'s `affected`: `true`, `"HEAD"` or a ref.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AffectedArg {
    /// The working tree and the index against HEAD (`false` reads as not asked).
    Head,
    /// Also everything since the merge base of HEAD and this ref.
    Since(String),
    /// `false`: every task, as without the argument.
    Off,
}

impl<'de> Deserialize<'de> for AffectedArg {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Form {
            Flag(bool),
            Ref(String),
        }
        match Form::deserialize(deserializer)
            .map_err(|_| serde::de::Error::custom("affected is true or a ref name"))?
        {
            Form::Flag(true) => Ok(AffectedArg::Head),
            Form::Flag(false) => Ok(AffectedArg::Off),
            Form::Ref(r) if matches!(r.trim(), "" | "true" | "HEAD") => Ok(AffectedArg::Head),
            Form::Ref(r) => Ok(AffectedArg::Since(r)),
        }
    }
}

impl JsonSchema for AffectedArg {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "AffectedArg".into()
    }

    fn inline_schema() -> bool {
        true
    }

    // One type, as every host's dialect takes it; `true` is accepted as well.
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "string"})
    }
}

/// Arguments of `describe_task`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DescribeTaskArgs {
    /// The task's unique name, as `list_tasks` gives it.
    pub unique_name: String,
}

/// Arguments of `task_start`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskStartArgs {
    /// The task's unique name, as `list_tasks` gives it.
    pub unique_name: String,
    /// Arguments for the task (passed as argv, never through a shell).
    #[serde(default)]
    pub args: Vec<String>,
    /// Environment for this run, as `NAME=value` strings. Variables that load or redirect
    /// code (`PATH`, `LD_*`, `NODE_OPTIONS`, …) are refused; any other is shown to the user,
    /// who approves it.
    #[serde(default)]
    pub env: EnvArg,
    /// How long to wait for the task to finish before returning a `run_id` (0 starts it in
    /// the background and returns at once). Without it: the server's default, or a little
    /// over the task's typical duration (at most 30 s) when its run history knows one.
    pub wait_ms: Option<u64>,
    /// Output mode of the result.
    pub output: Option<OutputMode>,
    /// Lines of output for the `tail` and `stderr` modes.
    pub tail_lines: Option<usize>,
    /// xc tasks: skip the `Requires` dependencies.
    #[serde(default)]
    pub skip_deps: bool,
    /// Start a second copy even when the same task with the same args is running.
    #[serde(default)]
    pub allow_parallel: bool,
    /// Return as soon as the task is ready (an output line, a port, a URL) instead of
    /// waiting for it to finish; `{}` uses the service rules. Services (`dev`, `serve`,
    /// `start`, `watch`, …) wait for readiness even without it.
    pub ready: Option<ReadySpec>,
}

/// Environment variables for one run: `["NAME=value", …]`, the form every model API's
/// function calling accepts (an object `{"NAME": "value"}` is read too).
#[derive(Debug, Default, Clone)]
pub struct EnvArg(pub BTreeMap<String, String>);

impl<'de> Deserialize<'de> for EnvArg {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Form {
            List(Vec<String>),
            Map(BTreeMap<String, String>),
        }
        match Form::deserialize(deserializer)
            .map_err(|_| serde::de::Error::custom("env is a list of \"NAME=value\" strings"))?
        {
            Form::Map(map) => Ok(EnvArg(map)),
            Form::List(items) => items
                .into_iter()
                .map(|item| match item.split_once('=') {
                    Some((name, value)) => Ok((name.to_owned(), value.to_owned())),
                    None => Err(serde::de::Error::custom(format!(
                        "env entry `{item}` is not NAME=value"
                    ))),
                })
                .collect::<Result<_, _>>()
                .map(EnvArg),
        }
    }
}

impl JsonSchema for EnvArg {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "EnvArg".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "array", "items": {"type": "string"}})
    }
}

/// Arguments of `status` (none).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StatusArgs {}

/// Which job a tool is about: exactly one of `run_id`, `pid` or `unique_name`.
#[derive(Debug, Default, Clone)]
pub struct JobRef {
    /// The run id `task_start` returned.
    pub run_id: Option<String>,
    /// The task's pid.
    pub pid: Option<u32>,
    /// A task's unique name: its newest job (a running one first).
    pub unique_name: Option<String>,
}

/// Declares the arguments of a tool about one job: the three ways to name the job (exactly one
/// of `run_id`, `pid` or `unique_name`, described once here for every schema that shows them),
/// then the tool's own fields; and the [`JobRef`] they name and their bounds.
macro_rules! job_args {
    ($(#[$meta:meta])* $name:ident { $($own:tt)* }) => {
        $(#[$meta])*
        #[derive(Debug, Deserialize, JsonSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// The run id `task_start` returned.
            pub run_id: Option<String>,
            /// The task's pid.
            pub pid: Option<u32>,
            /// A task's unique name: its newest job (a running one first).
            pub unique_name: Option<String>,
            $($own)*
        }

        impl $name {
            /// The job these arguments name.
            pub fn job_ref(&self) -> JobRef {
                JobRef {
                    run_id: self.run_id.clone(),
                    pid: self.pid,
                    unique_name: self.unique_name.clone(),
                }
            }
        }

        impl Bounded for $name {
            fn check(&self) -> Result<(), ToolError> {
                bound("run_id", self.run_id.as_deref(), MAX_NAME_BYTES)?;
                bound("unique_name", self.unique_name.as_deref(), MAX_NAME_BYTES)
            }
        }
    };
}

/// `wait_for` of `task_status` and `task_output`: return once a new output line matches
/// (or the run ends), instead of polling.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitFor {
    /// Regex (none: the run's end).
    pub pattern: Option<String>,
    /// Default and most 60000.
    pub timeout_ms: Option<u64>,
}

/// Longest `wait_for` (60 s: hosts cut tool calls at 60 to 120 s).
pub const MAX_WAIT_FOR_MS: u64 = 60_000;

job_args! {
    /// Arguments of `task_status`.
    TaskStatusArgs {
        /// Lines of recent output to include.
        pub tail_lines: Option<usize>,
        /// Return when a new output line matches or the run ends.
        pub wait_for: Option<WaitFor>,
    }
}

job_args! {
    /// Arguments of `task_output`.
    TaskOutputArgs {
        /// Output mode; not with `offset` or `grep`.
        pub output: Option<OutputMode>,
        /// Lines for the `tail` and `stderr` modes.
        pub tail_lines: Option<usize>,
        /// Line number to read (or grep) from: 1 = the first line; `next_offset` continues.
        pub offset: Option<u64>,
        /// Regex: only matching lines, with `context`, numbered (`N:` match, `N-` context).
        pub grep: Option<String>,
        /// `grep` ignores case.
        #[serde(default)]
        pub ignore_case: bool,
        /// Lines around each `grep` match.
        pub context: Option<usize>,
        /// Most bytes of text (marker included) to return.
        pub max_bytes: Option<usize>,
        /// Return when a new output line matches or the run ends.
        pub wait_for: Option<WaitFor>,
    }
}

job_args! {
    /// Arguments of `task_stop`.
    TaskStopArgs {
        /// Milliseconds between SIGTERM and SIGKILL.
        pub grace_ms: Option<u64>,
        /// Output mode of the result.
        pub output: Option<OutputMode>,
        /// Lines for the `tail` and `stderr` modes.
        pub tail_lines: Option<usize>,
    }
}

impl Bounded for ListTasksArgs {
    fn check(&self) -> Result<(), ToolError> {
        bound("runner", self.runner.as_deref(), MAX_NAME_BYTES)?;
        bound("dir", self.dir.as_deref(), MAX_NAME_BYTES * 4)?;
        bound("query", self.query.as_deref(), MAX_NAME_BYTES)?;
        bound("path", self.path.as_deref(), MAX_NAME_BYTES * 4)?;
        if let Some(AffectedArg::Since(r)) = &self.affected {
            bound("affected", Some(r), MAX_NAME_BYTES)?;
        }
        Ok(())
    }
}

impl Bounded for DescribeTaskArgs {
    fn check(&self) -> Result<(), ToolError> {
        bound("unique_name", Some(&self.unique_name), MAX_NAME_BYTES)
    }
}

impl Bounded for StatusArgs {}

impl Bounded for TaskStartArgs {
    fn check(&self) -> Result<(), ToolError> {
        bound("unique_name", Some(&self.unique_name), MAX_NAME_BYTES)?;
        if self.args.len() > MAX_ARGS || self.env.0.len() > MAX_ARGS {
            return Err(invalid(format!(
                "at most {MAX_ARGS} args and {MAX_ARGS} env entries are accepted"
            )));
        }
        for a in &self.args {
            bound("an argument", Some(a), MAX_ARG_BYTES)?;
        }
        for (k, v) in &self.env.0 {
            bound("an env name", Some(k), MAX_NAME_BYTES)?;
            bound("an env value", Some(v), MAX_ARG_BYTES)?;
        }
        Ok(())
    }
}

/// A table row as `list_tasks` returns it: what a model needs to pick a task, and nothing
/// it can get from `describe_task` (file, line, directory, deps, the script). Fields at
/// their usual value are left out.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TaskRow {
    /// What `task_start` and `describe_task` take.
    pub unique_name: String,
    /// The runner.
    pub runner: agg_runners::Runner,
    /// The first line of the task's description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The command, when there is no description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Parameters, as `name`, `name=default` or `*name` (variadic).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<String>,
    /// Agents may run it (present only when true).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub allowlisted: bool,
    /// The runner is not installed (present only then).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub missing_runner: bool,
    /// Why agg cannot run it, when it cannot.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_runnable: Option<String>,
    /// A long-running service.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub service: bool,
    /// What its runner asks before it runs.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub confirm: Vec<String>,
    /// How its last run ended: `✓ 2.3s`, `✗ exit 2`, `■ stopped` (from the run history).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last: Option<String>,
    /// How long it usually takes, in ms: the median of its recent passing runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub typical_ms: Option<u64>,
    /// With `affected`: why the change affects it (`changed: src/a.ts`, `depends on core`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

impl TaskRow {
    /// The row of `task`, with what running it involves.
    pub fn of(task: &Task, allowlisted: bool) -> TaskRow {
        let description = task
            .description
            .as_deref()
            .and_then(|d| d.lines().next())
            .map(str::to_owned);
        TaskRow {
            unique_name: task.unique_name.clone(),
            runner: task.runner,
            command: description.is_none().then(|| task.command.clone()),
            description,
            params: task
                .params
                .iter()
                .map(|p| match (&p.variadic, &p.default) {
                    (Some(_), _) => format!("*{}", p.name),
                    (None, Some(d)) => format!("{}={d}", p.name),
                    (None, None) => p.name.clone(),
                })
                .collect(),
            allowlisted,
            missing_runner: !task.runner_available,
            not_runnable: task.behaviour.not_runnable.clone(),
            service: task.behaviour.service,
            confirm: task.behaviour.confirm.clone(),
            last: None,
            typical_ms: None,
            why: None,
        }
    }

    /// The row with what the run history says of the task.
    #[must_use]
    pub fn with_history(mut self, summary: Option<&crate::history::Summary>) -> TaskRow {
        if let Some(summary) = summary {
            self.last = Some(summary.last.badge());
            self.typical_ms = Some(summary.typical_ms);
        }
        self
    }
}

/// Result of `list_tasks`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ListTasksResult {
    /// The repository root.
    pub root: String,
    /// Tasks matching the filters, in all pages.
    pub total: usize,
    /// The tasks (one page).
    pub tasks: Vec<TaskRow>,
    /// Pass as `offset` for the next page, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<usize>,
    /// How many problems agg found reading task files (the first few are in `diagnostics`).
    #[serde(skip_serializing_if = "is_zero")]
    pub problems: usize,
    /// The first problems found reading task files.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<Diagnostic>,
    /// Why the allowlist cannot be used, when it cannot (every task is then refused).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowlist_problem: Option<String>,
    /// When nothing matched `query`: queries that would.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suggestions: Vec<String>,
    /// With `affected`: what changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed: Option<ChangedFiles>,
}

/// The changes `list_tasks {"affected": …}` read.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ChangedFiles {
    /// What they were compared with: `HEAD`, or `main (merge base 3f9c2a1d)`.
    pub against: String,
    /// How many files changed.
    pub count: usize,
    /// The first of them.
    pub files: Vec<String>,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_zero_u64(n: &u64) -> bool {
    *n == 0
}

/// Result of `describe_task`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DescribeResult {
    /// Everything known about the task.
    #[serde(flatten)]
    pub detail: TaskDetail,
    /// Whether agents may run it.
    pub allowlisted: bool,
    /// The allowlist rule that decided, if one did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowlist_rule: Option<String>,
}

/// A slice of a job's output.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct OutputBlock {
    /// The lines, joined with newlines (ANSI colours removed).
    pub text: String,
    /// Line number of the first line shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_line: Option<u64>,
    /// Pass as `offset` to `task_output` to read on from here.
    pub next_offset: u64,
    /// Lines written so far (both streams).
    pub total_lines: u64,
    /// Lines before the first shown one that this result leaves out (still readable).
    pub omitted_before: u64,
    /// Lines after the last shown one that this result leaves out (still readable).
    pub omitted_after: u64,
    /// Lines no longer held (the buffer keeps about the last 5 MiB).
    pub dropped: u64,
    /// How to read what was left out, when something was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marker: Option<String>,
}

/// The first lines of a failed run's output that read as a failure (see
/// [`crate::engine::failure`]).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FailureBlock {
    /// Its first line that reads as a failure.
    pub first_line: u64,
    /// Whose failure pattern it matched.
    pub pattern: String,
    /// Numbered lines (`N:` failure, `N-` context); absent when `output` shows them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// What a `grep` found.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct MatchBlock {
    /// Numbered lines (`N:` match, `N-` context), `--` between regions.
    pub text: String,
    /// Matching lines from `offset` on.
    pub total: u64,
    /// Matching lines shown.
    pub shown: u64,
    /// Pass as `offset`, same `grep`, for the rest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<u64>,
    /// What was left out, when something was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marker: Option<String>,
}

/// A job and its output, as `task_start`, `task_status`, `task_output` and `task_stop`
/// return it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct JobResult {
    /// The job.
    #[serde(flatten)]
    pub job: JobSnapshot,
    /// Set when `task_start` found the same task already running and returned that job.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub reused: bool,
    /// Once finished: whether it succeeded (exit code 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub passed: Option<bool>,
    /// Once finished: the test report its output (or a JUnit report it wrote) gave.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tests: Option<Tests>,
    /// Once finished: compiler and linter diagnostics, deduplicated, errors first, at most 50.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<Problem>,
    /// Problems not listed.
    #[serde(skip_serializing_if = "is_zero_u64")]
    pub problems_more: u64,
    /// What `wait_for` saw: `matched` (with the line), `ended` or `timeout`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wait: Option<Waited>,
    /// Output in the requested mode (absent in `silent` mode).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<OutputBlock>,
    /// What `grep` found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matches: Option<MatchBlock>,
    /// On failure, its first failure lines with context, whatever the mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<FailureBlock>,
    /// On failure, the end of stderr, whatever the mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr_tail: Option<OutputBlock>,
    /// What to do next.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// When the start waited for readiness: whether the task became ready.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ready: Option<bool>,
    /// When the start waited for readiness: what held, the matching line, the URLs seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub readiness: Option<Readiness>,
    /// The sandbox the run was in (`policy`, the rule's extra paths) and, when it failed,
    /// the paths it was denied that the policy keeps out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<crate::sandbox::Summary>,
}

/// Result of `status`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct StatusResult {
    /// Every running and retained job, oldest first.
    pub jobs: Vec<JobSnapshot>,
    /// How many are running.
    pub running: usize,
    /// How many may run at once.
    pub max_running: usize,
}
