//! Faults and abuse: a `SIGKILLed` server, a 1 GB output flood read slowly, a burst of 200
//! starts, malformed protocol input, hostile arguments and paths.
#![allow(deprecated)]

use std::process::Stdio;
use std::time::Duration;

use rmcp::ClientLifecycleMode;
use serde_json::json;

use crate::common::mcp::{
    Mcp, allow_all, assert_error_says, assert_field_says, call_tool, connect,
};
use crate::common::raw::{Raw, TASKS, setup};
use crate::common::read_pid;
use crate::common::repo;
use indoc::indoc;

#[tokio::test]
async fn a_restarted_server_after_sigkill_has_no_stale_state() {
    let (dir, _config, allowlist) = setup();
    let mut first = Raw::start(dir.path(), &allowlist);
    let started = first.call(
        1,
        "task_start",
        &json!({"unique_name": "forever", "wait_ms": 0}),
    );
    assert_eq!(started["result"]["structuredContent"]["state"], "running");
    let orphan = read_pid(&dir.path().join("orphan.pid")).await;
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(first.child.id().cast_signed()),
        nix::sys::signal::Signal::SIGKILL,
    )
    .expect("kill");
    let _ = first.child.wait();
    // A server killed with SIGKILL cannot stop its jobs (see the README); the new one
    // starts clean and works.
    let mut second = Raw::start(dir.path(), &allowlist);
    let status = second.call(1, "status", &json!({}));
    assert_eq!(status["result"]["structuredContent"]["jobs"], json!([]));
    let again = second.call(
        2,
        "task_start",
        &json!({"unique_name": "show-args", "args": ["ok"]}),
    );
    assert_eq!(
        again["result"]["structuredContent"]["exit_code"], 0,
        "{again}"
    );
    let _ = nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(orphan.cast_signed()),
        nix::sys::signal::Signal::SIGKILL,
    );
}

#[test]
fn a_gigabyte_of_output_read_slowly_stays_bounded_and_is_accounted_for() {
    let (dir, _config, allowlist) = setup();
    let mut raw = Raw::start(dir.path(), &allowlist);
    let started = raw.call(
        1,
        "task_start",
        &json!({"unique_name": "flood", "wait_ms": 0}),
    );
    let run_id = started["result"]["structuredContent"]["run_id"]
        .as_str()
        .expect("run_id")
        .to_owned();
    let mut id = 2;
    let final_status = loop {
        std::thread::sleep(Duration::from_millis(300));
        let page = raw.call(
            id,
            "task_output",
            &json!({"run_id": run_id, "max_bytes": 2048}),
        );
        let body = &page["result"]["structuredContent"];
        assert!(
            page["result"]["content"][0]["text"]
                .as_str()
                .is_some_and(|t| t.len() < 20_000),
            "results stay capped"
        );
        id += 1;
        if body["state"] != "running" {
            break body.clone();
        }
    };
    assert_eq!(final_status["exit_code"], 0, "{final_status}");
    let out = &final_status["output"];
    // 1e9 bytes of 100-byte lines, then `done`.
    assert_eq!(out["total_lines"], 10_000_001, "every line counted: {out}");
    assert!(
        out["dropped"].as_u64().is_some_and(|d| d > 9_000_000),
        "{out}"
    );
    assert!(
        out["text"].as_str().is_some_and(|t| t.ends_with("done")),
        "the last line is kept: {out}"
    );
    let peak = raw.peak_rss_kib();
    eprintln!("agg mcp peak RSS during a 1 GB flood: {} MiB", peak / 1024);
    assert!(
        peak < 128 * 1024,
        "agg's memory grew with the output: {peak} KiB"
    );
}

#[tokio::test]
async fn a_burst_of_200_starts_is_capped_and_the_rest_clearly_refused() {
    let (dir, _config, _allowlist) = setup();
    let mcp = Mcp::start(dir, true).await;
    let calls = (0..200).map(|_| {
        mcp.call(
            "task_start",
            json!({"unique_name": "nap", "wait_ms": 0, "allow_parallel": true}),
        )
    });
    let results = futures_join(calls).await;
    let running = results.iter().filter(|r| r.is_error != Some(true)).count();
    let refused: Vec<_> = results
        .iter()
        .filter(|r| r.is_error == Some(true))
        .collect();
    assert_eq!(running, 32, "the cap is 32 running jobs");
    assert_eq!(refused.len(), 168);
    for r in refused {
        assert!(r.structured_content.is_none(), "{r:?}");
        let body = &r.meta.as_ref().expect("meta").0["agg/error"];
        assert_eq!(body["code"], -32013, "{body}");
        assert!(
            body["error"]
                .as_str()
                .is_some_and(|e| e.contains("32 jobs are already running"))
        );
    }
    let status = mcp.ok("status", json!({})).await;
    assert_eq!(status["running"], 32);
    mcp.close().await;
}

async fn futures_join<F: std::future::Future>(futures: impl Iterator<Item = F>) -> Vec<F::Output> {
    let mut out = Vec::new();
    let mut pending: Vec<std::pin::Pin<Box<F>>> = futures.map(Box::pin).collect();
    let mut results: Vec<Option<F::Output>> = (0..pending.len()).map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut all = true;
        for (i, f) in pending.iter_mut().enumerate() {
            if results[i].is_none() {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => results[i] = Some(v),
                    std::task::Poll::Pending => all = false,
                }
            }
        }
        if all {
            std::task::Poll::Ready(())
        } else {
            std::task::Poll::Pending
        }
    })
    .await;
    out.extend(results.into_iter().flatten());
    out
}

#[tokio::test]
async fn hostile_arguments_and_environment_never_reach_a_shell() {
    let (dir, _config, _allowlist) = setup();
    let mcp = Mcp::start(dir, true).await;
    // The person allows any arguments: even then they reach the task as data.
    mcp.agg_allow(&["--dir", ".", "--any-args"]);
    let tricky = [
        "a b",
        "$(touch pwned)",
        "`touch pwned`",
        "semi;colon",
        "it's \"quoted\"",
        "-leading",
    ];
    let out = mcp
        .task_start(json!({"unique_name": "show-args", "args": tricky, "output": "full"}))
        .await;
    assert_eq!(out["exit_code"], 0, "{out}");
    assert_eq!(out["output"]["text"], tricky.join("\n"));
    assert!(!mcp.root.join("pwned").exists());
    // A control character is refused before anything runs, whatever the rule says: no runner
    // takes one as data, and it could forge the lines a person reads.
    let err = mcp
        .err(
            "task_start",
            json!({"unique_name": "show-args", "args": ["new\nline; touch pwned"]}),
            -32602,
        )
        .await;
    assert_error_says(&err, "control character");
    assert!(!mcp.root.join("pwned").exists());
    for bad in ["1ABC", "A-B", "A B", "", "X=Y"] {
        let err = mcp
            .err(
                "task_start",
                json!({"unique_name": "show-args", "env": {bad: "v"}}),
                -32602,
            )
            .await;
        assert_error_says(&err, "invalid environment variable");
    }
    mcp.close().await;
}

#[tokio::test]
async fn paths_cannot_leave_the_root() {
    let outside = tempfile::tempdir().expect("outside");
    let dir = repo(&[(
        "README.md",
        indoc! {"
            ## Tasks

            ### escape

            Dir: ../..

            ```sh
            pwd
            ```

            ### link

            Dir: out

            ```sh
            pwd
            ```
        "},
    )]);
    std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).expect("symlink");
    let mcp = Mcp::start(dir, true).await;
    for task in ["escape", "link"] {
        let err = mcp
            .err("task_start", json!({"unique_name": task}), -32602)
            .await;
        assert_error_says(&err, "outside the repository");
    }
    mcp.err("list_tasks", json!({"dir": "../.."}), -32602).await;
    mcp.err("list_tasks", json!({"dir": "out"}), -32602).await;
    mcp.close().await;
}

#[tokio::test]
async fn a_file_inside_the_repository_can_never_allow_a_task() {
    let dir = repo(&[("README.md", TASKS)]);
    let inside = dir.path().join(".agg/allowlist.toml");
    allow_all(dir.path(), &inside);
    assert!(inside.exists());
    let root = std::fs::canonicalize(dir.path()).expect("root");
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_agg"));
    cmd.args(["mcp", "--root"])
        .arg(&root)
        .env("AGG_ALLOWLIST", &inside);
    let (client, _events, _) = connect(cmd, Stdio::null(), ClientLifecycleMode::Initialize).await;
    let result = call_tool(&client, "task_start", json!({"unique_name": "show-args"})).await;
    assert_eq!(result.is_error, Some(true));
    assert_eq!(
        result
            .meta
            .as_ref()
            .map(|m| m.0["agg/error"]["code"].clone()),
        Some(json!(-32010))
    );
    let list = client
        .call_tool(rmcp::model::CallToolRequestParams::new("list_tasks"))
        .await
        .expect("list");
    let body = list.structured_content.expect("structured");
    assert_field_says(&body, "allowlist_problem", "inside the repository");
    client.cancel().await.expect("close");
}
