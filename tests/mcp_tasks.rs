//! Long calls as MCP tasks, through rmcp's own client (the official Rust SDK) declaring
//! the tasks extension: start, poll, result, cancel. Clients that do not declare it keep
//! the `run_id` answer (see `mcp::a_slow_task_runs_in_the_background_…`).

use std::process::Stdio;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    GetTaskParams, Implementation, ProtocolVersion, TaskPayload, TaskStatus,
};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::json;

use crate::common::mcp::{agg_command, allowlist_allowing_all};
use crate::common::repo;
use crate::common::{alive, eventually};
use indoc::indoc;

const MAKEFILE: &str = indoc! {"
        short:
        \t@echo begun; sleep 1; echo finished

        idle:
        \t@echo idle; sleep 300
    "};

#[derive(Clone)]
struct TasksClient;

impl ClientHandler for TasksClient {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_tasks().build(),
            Implementation::new("agg-tests-tasks", "0.0.0"),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }
}

type Client = RunningService<RoleClient, TasksClient>;

/// `agg mcp` on a repository with [`MAKEFILE`], every task allowed, and a client that
/// declares the tasks extension; the directories live as long as the returned ones.
async fn connect() -> (Client, [tempfile::TempDir; 2]) {
    let dir = repo(&[("Makefile", MAKEFILE)]);
    let root = std::fs::canonicalize(dir.path()).expect("root");
    let (config, allowlist) = allowlist_allowing_all(&root);
    let runtime = config.path().join("runtime");
    std::fs::create_dir_all(&runtime).expect("runtime");
    let (proc, _) = TokioChildProcess::builder(agg_command(&root, &allowlist, None, &[], &runtime))
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn agg mcp");
    let client = TasksClient.serve(proc).await.expect("connect");
    (client, [dir, config])
}

/// What `task_status` says of the run behind MCP task `task_id` (the same id).
async fn status(client: &Client, task_id: &str) -> serde_json::Value {
    client
        .call_tool(
            CallToolRequestParams::new("task_status").with_arguments(
                json!({"run_id": task_id})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            ),
        )
        .await
        .expect("task_status")
        .structured_content
        .expect("structured")
}

async fn start(client: &Client, name: &str) -> String {
    let args = json!({"unique_name": name, "wait_ms": 300});
    let response = client
        .call_tool_once(
            CallToolRequestParams::new("task_start")
                .with_arguments(args.as_object().cloned().unwrap_or_default()),
        )
        .await
        .expect("task_start");
    match response {
        CallToolResponse::Task(t) => {
            assert_eq!(t.task.status, TaskStatus::Working);
            assert_eq!(t.task.poll_interval_ms, Some(1000));
            t.task.task_id
        }
        other => panic!("expected a task: {other:?}"),
    }
}

#[tokio::test]
async fn a_long_task_start_becomes_an_mcp_task_that_completes_with_its_result() {
    require!("make");
    let (client, _dirs) = connect().await;
    let task_id = start(&client, "short").await;
    let working = client
        .get_task(GetTaskParams::new(task_id.clone()))
        .await
        .expect("tasks/get");
    assert_eq!(working.task.status(), TaskStatus::Working);
    assert_eq!(working.task.task.status_message.as_deref(), Some("begun"));
    assert_eq!(
        status(&client, &task_id).await["state"],
        "running",
        "the task id is the run id"
    );
    let mut done = None;
    for _ in 0..50 {
        let got = client
            .get_task(GetTaskParams::new(task_id.clone()))
            .await
            .expect("tasks/get");
        if got.task.status().is_terminal() {
            done = Some(got);
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let done = done.expect("the task completed");
    assert_eq!(done.task.status(), TaskStatus::Completed);
    let TaskPayload::Completed { result } = &done.task.payload else {
        panic!("a result: {done:?}");
    };
    let structured = &result["structuredContent"];
    assert_eq!(structured["state"], "exited", "{result:?}");
    assert_eq!(structured["exit_code"], 0);
    assert_eq!(structured["output"]["text"], "begun\nfinished");
    client.cancel().await.expect("close");
}

#[tokio::test]
async fn cancelling_an_mcp_task_stops_the_process_group() {
    require!("make");
    let (client, _dirs) = connect().await;
    let task_id = start(&client, "idle").await;
    let pid = status(&client, &task_id).await["pid"]
        .as_u64()
        .and_then(|p| u32::try_from(p).ok())
        .expect("pid");
    client
        .cancel_task(CancelTaskParams::new(task_id.clone()))
        .await
        .expect("tasks/cancel");
    eventually(Duration::from_secs(10), "group stopped", || !alive(pid)).await;
    let mut status = TaskStatus::Working;
    for _ in 0..50 {
        status = client
            .get_task(GetTaskParams::new(task_id.clone()))
            .await
            .expect("tasks/get")
            .task
            .status();
        if status.is_terminal() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(status, TaskStatus::Cancelled);
    client.cancel().await.expect("close");
}
