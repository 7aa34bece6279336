//! The fixed tools as one catalog: each tool's name, description, annotations, argument and
//! result types, and the defaults its schema states — rendered from the constants and the
//! server's settings, so `--wait-ms 3000` makes the schema say "default 3000". The handler
//! dispatches on [`Name`], never on a string written twice.

use rmcp::handler::server::tool::{schema_for_input, schema_for_output};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde_json::Value;

use agg_runners::Runner;

use super::mirrors::{ListRunsArgs, ListRunsResult};
use super::render::RESULT_CAP;
use super::schema;
use super::state::Settings;
use super::types::{
    DescribeResult, DescribeTaskArgs, JobResult, ListTasksArgs, ListTasksResult, MAX_WAIT_MS,
    StatusArgs, StatusResult, TaskOutputArgs, TaskStartArgs, TaskStatusArgs, TaskStopArgs,
};

/// Rows `list_tasks` returns unless asked for another `limit`.
pub const LIST_LIMIT: usize = 50;
/// The most rows one `list_tasks` call returns, whatever `limit` says (a larger page would
/// be more than a model's tool-result budget; `offset` pages on).
pub const LIST_MAX: usize = 500;
/// Diagnostics `list_tasks` carries (the rest are counted in `problems`).
pub const LIST_DIAGNOSTICS: usize = 5;
/// Lines of output a result's tail holds unless asked otherwise (`task_start`,
/// `task_status`, `task_output`, `task_stop`): the default of `agg mcp --tail-lines`.
pub const TAIL_LINES: usize = 20;
/// Bounds of `task_output`'s `max_bytes`.
pub const OUTPUT_BYTES: (usize, usize) = (256, 64 * 1024);
/// `task_output`'s `context` unless asked otherwise, and its maximum.
pub const GREP_CONTEXT: (usize, usize) = (2, 20);
/// Longest `grep` pattern `task_output` accepts.
pub const GREP_MAX_BYTES: usize = 1024;
/// `task_stop`'s SIGTERM-to-SIGKILL grace unless asked otherwise, and its maximum.
pub const STOP_GRACE_MS: (u64, u64) = (5_000, 60_000);

/// The fixed tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Name {
    /// `list_tasks`.
    ListTasks,
    /// `describe_task`.
    DescribeTask,
    /// `task_start`.
    TaskStart,
    /// `status`.
    Status,
    /// `task_status`.
    TaskStatus,
    /// `task_output`.
    TaskOutput,
    /// `task_stop`.
    TaskStop,
    /// `list_runs`.
    ListRuns,
}

/// A default a schema states, and where its value comes from.
enum Default {
    /// The server's `--wait-ms`.
    WaitMs,
    /// The server's `--tail-lines`.
    TailLines,
    /// A constant.
    Fixed(u64),
    /// A constant, and the most a caller may ask for.
    Bounded(u64, u64),
}

struct Entry {
    name: Name,
    id: &'static str,
    description: &'static str,
    annotations: fn() -> ToolAnnotations,
    /// The schemas of its arguments and of its result.
    schemas: fn() -> (JsonObject, JsonObject),
    defaults: &'static [(&'static str, Default)],
}

/// The schemas of a tool taking `Args` and answering `Result`.
fn schemas<Args: JsonSchema + 'static, Result: JsonSchema + 'static>() -> (JsonObject, JsonObject) {
    (
        (*schema_for_input::<Args>().unwrap_or_default()).clone(),
        (*schema_for_output::<Result>()).clone(),
    )
}

fn read_only() -> ToolAnnotations {
    ToolAnnotations::new()
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false)
}

fn runs_anything() -> ToolAnnotations {
    ToolAnnotations::new()
        .read_only(false)
        .destructive(true)
        .idempotent(false)
        .open_world(true)
}

fn stops() -> ToolAnnotations {
    ToolAnnotations::new()
        .read_only(false)
        .destructive(true)
        .idempotent(true)
        .open_world(false)
}

static CATALOG: [Entry; 8] = [
    Entry {
        name: Name::ListTasks,
        id: "list_tasks",
        description: "List the repository's tasks: unique name, runner, description (or command), whether agents may run them, how each last ended. Narrow it: query (several words, all must match, best first: e.g. 'account-adapter test'), path (the tasks for a file or directory), dir, runner; affected.",
        annotations: read_only,
        schemas: schemas::<ListTasksArgs, ListTasksResult>,
        defaults: &[("limit", Default::Fixed(LIST_LIMIT as u64))],
    },
    Entry {
        name: Name::DescribeTask,
        id: "describe_task",
        description: "Everything known about one task: command, dir, file:line, description, params, deps, env, the script it runs and what its runner asks first.",
        annotations: read_only,
        schemas: schemas::<DescribeTaskArgs, DescribeResult>,
        defaults: &[],
    },
    Entry {
        name: Name::TaskStart,
        id: "task_start",
        description: "Run a task. Returns its exit code and output if it ends within wait_ms (and a failed run's first failure lines); otherwise returns state running with a run_id while it continues in the background. With ready (an output line regex, a port, or a URL) it returns as soon as the task is ready, with the URLs it printed; services (dev, serve, start, watch, …) wait for readiness by themselves. Only tasks the user allowed run (agg may ask the user first).",
        annotations: runs_anything,
        schemas: schemas::<TaskStartArgs, JobResult>,
        defaults: &[
            ("wait_ms", Default::WaitMs),
            ("tail_lines", Default::TailLines),
        ],
    },
    Entry {
        name: Name::Status,
        id: "status",
        description: "Every running and recently finished job: run_id, pid, task, args, state and elapsed time.",
        annotations: read_only,
        schemas: schemas::<StatusArgs, StatusResult>,
        defaults: &[],
    },
    Entry {
        name: Name::TaskStatus,
        id: "task_status",
        description: "State, exit code or signal, times and recent output of one job, by run_id, pid or unique_name.",
        annotations: read_only,
        schemas: schemas::<TaskStatusArgs, JobResult>,
        defaults: &[("tail_lines", Default::TailLines)],
    },
    Entry {
        name: Name::TaskOutput,
        id: "task_output",
        description: "A job's output: a tail, stderr, a page from a line number (offset), or grep: only the lines matching a regex, with context and line numbers.",
        annotations: read_only,
        schemas: schemas::<TaskOutputArgs, JobResult>,
        defaults: &[
            ("tail_lines", Default::TailLines),
            (
                "context",
                Default::Bounded(GREP_CONTEXT.0 as u64, GREP_CONTEXT.1 as u64),
            ),
            (
                "max_bytes",
                Default::Bounded(RESULT_CAP as u64, OUTPUT_BYTES.1 as u64),
            ),
        ],
    },
    Entry {
        name: Name::TaskStop,
        id: "task_stop",
        description: "Stop a job: SIGTERM to its whole process group, then SIGKILL after grace_ms. Returns its final state and last output.",
        annotations: stops,
        schemas: schemas::<TaskStopArgs, JobResult>,
        defaults: &[
            ("tail_lines", Default::TailLines),
            (
                "grace_ms",
                Default::Bounded(STOP_GRACE_MS.0, STOP_GRACE_MS.1),
            ),
        ],
    },
    Entry {
        name: Name::ListRuns,
        id: "list_runs",
        description: "Your jobs and the user's own `agg run`s (a dev server…); read either with task_output. Only yours can be stopped.",
        annotations: read_only,
        schemas: schemas::<ListRunsArgs, ListRunsResult>,
        defaults: &[],
    },
];

impl Name {
    /// The tool a name means, if it is one of the fixed tools.
    pub fn from_name(name: &str) -> Option<Name> {
        CATALOG.iter().find(|e| e.id == name).map(|e| e.name)
    }
}

/// A default and the most a caller may ask for, as a schema states them.
fn bounded(value: u64, max: u64) -> String {
    format!("{value}, at most {max}")
}

/// Appends ` (default X)` to a property's description.
fn state_default(schema: &mut JsonObject, property: &str, value: &str) {
    if let Some(Value::Object(prop)) = schema
        .get_mut("properties")
        .and_then(|p| p.get_mut(property))
    {
        let text = prop
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or("")
            .trim_end_matches('.')
            .to_owned();
        prop.insert(
            "description".into(),
            Value::String(format!("{text} (default {value}).")),
        );
    }
}

/// The fixed tools, their schemas portable and stating this server's defaults.
pub fn tools(settings: &Settings) -> Vec<Tool> {
    CATALOG
        .iter()
        .map(|e| {
            let (input, output) = (e.schemas)();
            let mut input = (*schema::portable(&input)).clone();
            for (property, default) in e.defaults {
                let value = match default {
                    Default::WaitMs => bounded(settings.wait_ms, MAX_WAIT_MS),
                    Default::TailLines => settings.tail_lines.to_string(),
                    Default::Fixed(value) => value.to_string(),
                    Default::Bounded(value, max) => bounded(*value, *max),
                };
                state_default(&mut input, property, &value);
            }
            if let Some(Value::Object(runner)) = input
                .get_mut("properties")
                .and_then(|p| p.get_mut("runner"))
            {
                runner.insert(
                    "description".into(),
                    Value::String(format!("Only this runner: one of {}.", Runner::names())),
                );
            }
            Tool::new(e.id, e.description, std::sync::Arc::new(input))
                .with_raw_output_schema(schema::output(&output))
                .with_annotations((e.annotations)())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(wait_ms: u64, tail_lines: usize) -> Settings {
        Settings {
            wait_ms,
            tail_lines,
            allowlist: None,
            task_tools: None,
        }
    }

    #[test]
    fn schemas_state_the_server_s_own_defaults() {
        let tools = tools(&settings(3000, 7));
        let start = tools
            .iter()
            .find(|t| t.name == "task_start")
            .expect("task_start");
        let desc = |p: &str| {
            start.input_schema["properties"][p]["description"]
                .as_str()
                .unwrap_or("")
                .to_owned()
        };
        assert!(
            desc("wait_ms").ends_with("(default 3000, at most 600000)."),
            "{}",
            desc("wait_ms")
        );
        assert!(
            desc("tail_lines").ends_with("(default 7)."),
            "{}",
            desc("tail_lines")
        );
        let list = tools
            .iter()
            .find(|t| t.name == "list_tasks")
            .expect("list_tasks");
        let runner = list.input_schema["properties"]["runner"]["description"]
            .as_str()
            .unwrap_or("");
        for r in Runner::ALL {
            assert!(runner.contains(r.name()), "{runner}");
        }
    }

    #[test]
    fn every_name_dispatches_to_its_entry() {
        for e in &CATALOG {
            assert_eq!(Name::from_name(e.id), Some(e.name));
        }
        assert_eq!(Name::from_name("run_build"), None);
    }
}
