//! What the runner tests share to show that a task's arguments arrive verbatim: a run of
//! `agg run TASK -- ARGS` whose task prints its arguments back as JSON, and the same through
//! MCP's `task_start`, on a server whose person allowed agents any arguments.

use serde::Serialize;
use serde_json::{Value, json};

use crate::common::mcp::Mcp;
use crate::run::{TRICKY, argv_json};
use crate::test::{Output, Test};

/// No arguments, for a task started through MCP without any.
pub const NO_ARGS: [&str; 0] = [];

/// A script that prints its arguments as a JSON array and needs nothing on `PATH`: its `#!`
/// line names the Python interpreter itself (not a shim, not `env`). Stand-ins for runners
/// that are not installed are such scripts.
pub fn print_args_program() -> String {
    let out = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3");
    let python = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    format!("#!{python}\nimport json, sys\nprint(json.dumps(sys.argv[1:]))\n")
}

/// Runs `task` with the tricky arguments and checks that it printed, as a JSON array, the
/// words the task passes itself (`before`) and then the tricky arguments as they were sent.
#[track_caller]
pub fn assert_tricky_args_arrive(test: Test, task: &str, before: &[&str]) -> Output {
    let out = test.args(["run", task, "--"]).args(TRICKY).run().success();
    let expected: Vec<&str> = before.iter().chain(&TRICKY).copied().collect();
    assert_eq!(argv_json(&out.stdout), expected, "{task}: {}", out.stderr);
    out
}

/// `agg mcp` on `repo` with `env` in its environment, the person having allowed agents every
/// task with any arguments: the arguments the tests send are tricky on purpose.
pub async fn mcp_allowing_any_args(repo: tempfile::TempDir, env: &[(&str, &str)]) -> Mcp {
    let mcp = Mcp::start_env(repo, true, env).await;
    mcp.agg_allow(&["--dir", ".", "--any-args"]);
    mcp
}

/// Starts `task` with `args` through `task_start`, waiting up to two minutes for its end,
/// and returns the result, whose output holds all the task printed.
pub async fn task_start_full(mcp: &Mcp, task: &str, args: &[impl Serialize]) -> Value {
    mcp.ok(
        "task_start",
        json!({"unique_name": task, "args": args, "output": "full", "wait_ms": 120_000}),
    )
    .await
}

/// The text of a `task_start` result's output.
pub fn output_text(run: &Value) -> &str {
    run["output"]["text"].as_str().unwrap_or_default()
}

/// Runs `task` with `args` through `task_start`, checks that it passed, and returns all it
/// printed.
pub async fn passes_through_mcp(mcp: &Mcp, task: &str, args: &[impl Serialize]) -> String {
    let run = task_start_full(mcp, task, args).await;
    assert_eq!(run["exit_code"], 0, "{task}: {run}");
    output_text(&run).to_owned()
}
