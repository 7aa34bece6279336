//! `agg mcp` end to end: the real binary driven by rmcp's client over a child process,
//! with real tasks and real signals, plus one test that speaks raw JSON-RPC lines.
#![allow(deprecated)] // rmcp marks the MCP logging API deprecated (SEP-2577).

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::time::{Duration, Instant};

use rmcp::ClientLifecycleMode;
use rmcp::model::{CallToolRequest, CallToolRequestParams, ClientRequest, ProtocolVersion};
use rmcp::service::PeerRequestOptions;
use serde_json::{Value, json};

use crate::common::mcp::{Event, Mcp, agg_on_allowlist, allowlist_allowing_all, assert_field_says};
use crate::common::{alive, eventually, read_pid, repo};
use indoc::indoc;

const MAKEFILE: &str = indoc! {"
    hello: ## Say hello
    \t@echo hello from make

    fail: ## Fail loudly
    \t@echo partial; echo broken >&2; exit 3

    slow: ## Take a while
    \t@echo started; sh -c 'echo $$$$ > grandchild.pid; exec sleep 300' & wait

    chatty:
    \t@i=0; while [ $$i -lt 30 ]; do echo line $$i; i=$$((i+1)); sleep 0.05; done
"};

fn make_repo() -> tempfile::TempDir {
    repo(&[
        ("Makefile", MAKEFILE),
        (
            "README.md",
            indoc! {"
                # Demo

                ## Tasks

                ### greet

                Say hi.

                ```sh
                echo hi from xc
                ```
            "},
        ),
        ("web/package.json", "{\"scripts\": {\"dev\": \"vite\"}}\n"),
    ])
}

#[tokio::test]
async fn discovery_lists_the_polyglot_table_with_schemas() {
    let dir = repo(&[]);
    crate::test::copy_dir(&crate::test::fixtures().join("polyglot"), dir.path());
    let mcp = Mcp::start(dir, false).await;
    let info = mcp.client.peer_info().expect("peer info");
    assert_eq!(
        info.server_info.as_ref().map(|s| s.name.as_str()),
        Some("agg")
    );
    let tools = mcp.client.list_all_tools().await.expect("tools");
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    assert_eq!(
        names,
        [
            "list_tasks",
            "describe_task",
            "task_start",
            "status",
            "task_status",
            "task_output",
            "task_stop",
            "list_runs"
        ]
    );
    assert!(
        tools.iter().all(|t| t.output_schema.is_some()),
        "every tool publishes an outputSchema"
    );
    let list = mcp.list_tasks(json!({"limit": 500})).await;
    let names: Vec<&str> = list["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .filter_map(|t| t["unique_name"].as_str())
        .collect();
    for want in ["build-j", "release", "apps/web/dev", "docs:serve"] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    assert!(
        list["tasks"]
            .as_array()
            .expect("tasks")
            .iter()
            .all(|t| t.get("allowlisted").is_none())
    );
    // `docs:serve` by its name, the two scripts of the `docs-site` package by their package.
    let query = mcp.list_tasks(json!({"query": "docs"})).await;
    assert_eq!(query["total"], 3);
    let paged = mcp.list_tasks(json!({"limit": 2})).await;
    assert_eq!(paged["tasks"].as_array().map(Vec::len), Some(2));
    assert_eq!(paged["next_offset"], 2);
    let desc = mcp
        .ok("describe_task", json!({"unique_name": "release"}))
        .await;
    assert_eq!(desc["runner"], "xc");
    assert!(
        desc["script"]
            .as_str()
            .is_some_and(|s| s.contains("releasing"))
    );
    mcp.err("list_tasks", json!({"dir": "../.."}), -32602).await;
    mcp.close().await;
}

#[tokio::test]
async fn the_2026_lifecycle_is_served_too() {
    let mcp = Mcp::start_with(
        make_repo(),
        true,
        None,
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    )
    .await;
    assert_eq!(
        mcp.client.peer_info().map(|p| p.protocol_version.clone()),
        Some(ProtocolVersion::V_2026_07_28)
    );
    let run = mcp.task_start(json!({"unique_name": "greet"})).await;
    assert_eq!(run["exit_code"], 0);
    assert_eq!(run["output"]["text"], "hi from xc");
    mcp.close().await;
}

#[tokio::test]
async fn a_fast_task_returns_its_exit_code_and_output() {
    require!("make");
    let mcp = Mcp::start(make_repo(), true).await;
    let ok = mcp.task_start(json!({"unique_name": "hello"})).await;
    assert_eq!(ok["state"], "exited");
    assert_eq!(ok["exit_code"], 0);
    assert_eq!(ok["passed"], true);
    assert_eq!(ok["output"]["text"], "hello from make");
    let failed = mcp
        .task_start(json!({"unique_name": "fail", "output": "silent"}))
        .await;
    assert_eq!(failed["exit_code"], 2, "make reports a failed recipe as 2");
    assert_eq!(failed["passed"], false);
    assert!(
        failed.get("output").is_none(),
        "silent mode carries no output"
    );
    assert!(
        failed["stderr_tail"]["text"]
            .as_str()
            .is_some_and(|t| t.contains("broken")),
        "a failure always carries the stderr tail: {failed}"
    );
    mcp.close().await;
}

#[tokio::test]
async fn a_slow_task_runs_in_the_background_and_can_be_followed_and_stopped() {
    require!("make");
    let mcp = Mcp::start(make_repo(), true).await;
    let t = Instant::now();
    let started = mcp.task_start(json!({"unique_name": "slow"})).await;
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "returned after about the 1 s window"
    );
    assert_eq!(started["state"], "running");
    let run_id = started["run_id"].as_str().expect("run_id").to_owned();
    let pid = started["pid"].as_u64().expect("pid");
    let grandchild = read_pid(&mcp.root.join("grandchild.pid")).await;
    let again = mcp.task_start(json!({"unique_name": "slow"})).await;
    assert_eq!(
        again["run_id"],
        run_id.as_str(),
        "a running duplicate is returned, not restarted"
    );
    assert_eq!(again["reused"], true);
    let status = mcp.ok("task_status", json!({"run_id": run_id})).await;
    assert_eq!(status["state"], "running");
    let by_name = mcp.ok("task_status", json!({"unique_name": "slow"})).await;
    assert_eq!(by_name["run_id"], run_id.as_str());
    let out = mcp
        .ok("task_output", json!({"run_id": run_id, "offset": 1}))
        .await;
    assert_eq!(out["output"]["text"], "started");
    assert_eq!(out["output"]["next_offset"], 2);
    let all = mcp.ok("status", json!({})).await;
    assert_eq!(all["running"], 1);
    let stopped = mcp
        .ok("task_stop", json!({"run_id": run_id, "grace_ms": 2000}))
        .await;
    // make may die of the SIGTERM or exit 2 after its recipe shell did ("wait: No child
    // processes"); either way the job ended because agg stopped it, and says so one way.
    assert_eq!(stopped["state"], "signaled", "{stopped}");
    assert_eq!(stopped["signal"], "SIGTERM", "{stopped}");
    assert!(stopped.get("exit_code").is_none(), "{stopped}");
    assert!(
        stopped["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("stopped by agg (SIGTERM)")),
        "{stopped}"
    );
    assert_eq!(stopped["passed"], false, "{stopped}");
    assert!(!alive(u32::try_from(pid).unwrap_or(0)));
    eventually(Duration::from_secs(5), "grandchild gone", || {
        !alive(grandchild)
    })
    .await;
    mcp.close().await;
}

#[tokio::test]
async fn cancelling_task_start_stops_the_process_tree() {
    require!("make");
    let mcp = Mcp::start(make_repo(), true).await;
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new("task_start").with_arguments(
            json!({"unique_name": "slow", "wait_ms": 60000})
                .as_object()
                .cloned()
                .unwrap_or_default(),
        ),
    ));
    let handle = mcp
        .client
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .expect("send");
    let grandchild = read_pid(&mcp.root.join("grandchild.pid")).await;
    handle.cancel(Some("test".into())).await.expect("cancel");
    eventually(
        Duration::from_secs(10),
        "grandchild gone after cancel",
        || !alive(grandchild),
    )
    .await;
    // The cancelled call gets no response; the job's end shows in `status`.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let status = mcp.ok("status", json!({})).await;
        if status["running"] == 0 {
            assert_eq!(status["jobs"][0]["state"], "signaled", "{status}");
            assert!(
                status["jobs"][0]["error"]
                    .as_str()
                    .is_some_and(|e| e.starts_with("stopped by agg")),
                "{status}"
            );
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the job still runs after the cancel: {status}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    mcp.close().await;
}

#[tokio::test]
async fn errors_carry_codes_hints_and_suggestions() {
    let mcp = Mcp::start(make_repo(), false).await;
    let denied = mcp
        .err("task_start", json!({"unique_name": "hello"}), -32010)
        .await;
    assert_field_says(&denied, "hint", "agg allow hello");
    let unknown = mcp
        .err("task_start", json!({"unique_name": "helo"}), -32012)
        .await;
    assert_eq!(unknown["suggestions"][0], "hello");
    mcp.err(
        "describe_task",
        json!({"unique_name": "nope-nope-nope"}),
        -32012,
    )
    .await;
    mcp.err("task_start", json!({"unique_name": 42}), -32602)
        .await;
    mcp.err(
        "task_start",
        json!({"unique_name": "hello", "wait_ms": 700_000}),
        -32602,
    )
    .await;
    mcp.err("task_status", json!({"run_id": "nope-1234"}), -32012)
        .await;
    mcp.err("task_status", json!({}), -32602).await;
    let unknown_tool = mcp
        .client
        .call_tool(CallToolRequestParams::new("no_such_tool"))
        .await;
    assert!(unknown_tool.is_err(), "an unknown tool is a protocol error");
    mcp.close().await;
}

#[tokio::test]
async fn a_missing_runner_is_reported_with_an_install_hint() {
    let dir = repo(&[("justfile", "build:\n    @echo built\n")]);
    let empty = tempfile::tempdir().expect("tmp");
    let path = format!("{}:/bin", empty.path().display());
    let mcp = Mcp::start_with(dir, true, Some(&path), ClientLifecycleMode::Initialize).await;
    if which::which_in("just", Some(&path), "/").is_ok() {
        crate::common::skipped("just is in /bin (the test needs a PATH without it)");
        return;
    }
    let err = mcp
        .err("task_start", json!({"unique_name": "build"}), -32011)
        .await;
    assert_field_says(&err, "hint", "cargo install just");
    mcp.close().await;
}

#[tokio::test]
async fn calls_run_concurrently() {
    require!("make");
    let mcp = Mcp::start(make_repo(), true).await;
    let slow = mcp.call(
        "task_start",
        json!({"unique_name": "slow", "wait_ms": 5000}),
    );
    let quick = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let t = Instant::now();
        mcp.list_tasks(json!({})).await;
        mcp.task_start(json!({"unique_name": "hello"})).await;
        t.elapsed()
    };
    let (slow_result, quick_elapsed) = tokio::join!(slow, quick);
    assert!(
        quick_elapsed < Duration::from_secs(4),
        "list_tasks waited for the slow task: {quick_elapsed:?}"
    );
    let run_id = slow_result
        .structured_content
        .as_ref()
        .and_then(|v| v["run_id"].as_str())
        .map(str::to_owned);
    mcp.ok("task_stop", json!({"run_id": run_id, "grace_ms": 500}))
        .await;
    mcp.close().await;
}

/// `task_start` of `chatty` (30 lines, 50 ms apart), waiting up to `wait_ms`.
fn chatty(wait_ms: u64) -> Value {
    json!({"unique_name": "chatty", "wait_ms": wait_ms})
}

#[tokio::test]
async fn background_output_streams_as_log_notifications() {
    require!("make");
    let mut mcp = Mcp::start(make_repo(), true).await;
    let started = mcp.task_start(chatty(0)).await;
    assert_eq!(started["state"], "running");
    let mut seen = String::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !seen.contains("line 29") {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, mcp.events.recv()).await {
            Ok(Some(Event::Log(p))) => {
                assert_eq!(p.logger.as_deref(), Some("chatty"));
                seen.push_str(p.data.as_str().unwrap_or_default());
                seen.push('\n');
            }
            Ok(Some(_)) => {}
            _ => panic!("log notifications stopped early; saw:\n{seen}"),
        }
    }
    assert!(seen.contains("line 0"), "{seen}");
    mcp.close().await;
}

/// Drives the server with raw JSON-RPC lines: every stdout line must be protocol, even
/// while a task prints to its own stdout and reads stdin; closing stdin ends the server and
/// every job it started.
#[test]
fn raw_json_rpc_stdout_hygiene_and_exit_on_stdin_eof() {
    let dir = repo(&[(
        "README.md",
        indoc! {"
            ## Tasks

            ### noisy

            ```sh
            echo to stdout; echo to stderr >&2; cat; echo read done
            ```

            ### forever

            ```sh
            sh -c 'echo $$ > gc.pid; exec sleep 300' &
            echo waiting
            wait
            ```
        "},
    )]);
    let (_config, allowlist) = allowlist_allowing_all(dir.path());
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_agg"))
        .args(["mcp", "--root"])
        .arg(dir.path())
        .env("AGG_ALLOWLIST", &allowlist)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in stdout.lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut send = |v: Value| writeln!(stdin, "{v}").expect("write");
    send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}),
    );
    send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    send(
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "task_start", "arguments": {"unique_name": "noisy"}}}),
    );
    send(
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "task_start", "arguments": {"unique_name": "forever", "wait_ms": 0}}}),
    );
    send(json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}));
    send(json!({"jsonrpc": "2.0", "id": 5, "method": "no/such/method"}));
    let mut responses = std::collections::BTreeMap::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    while responses.len() < 5 {
        let line = rx
            .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            .expect("a response");
        let msg: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
        assert_eq!(msg["jsonrpc"], "2.0", "{line}");
        if let Some(id) = msg["id"].as_u64() {
            responses.insert(id, msg);
        }
    }
    let noisy = &responses[&2]["result"]["structuredContent"];
    assert_eq!(noisy["exit_code"], 0, "{noisy}");
    assert!(
        noisy["output"]["text"]
            .as_str()
            .is_some_and(|t| t.contains("to stdout") && t.contains("read done"))
    );
    assert_eq!(
        responses[&3]["result"]["structuredContent"]["state"],
        "running"
    );
    assert_eq!(responses[&5]["error"]["code"], -32601);
    let gc = {
        let file = dir.path().join("gc.pid");
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(pid) = std::fs::read_to_string(&file)
                .ok()
                .and_then(|s| s.trim().parse::<u32>().ok())
            {
                break pid;
            }
            assert!(Instant::now() < deadline, "no pid file");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    drop(stdin);
    let deadline = Instant::now() + Duration::from_secs(15);
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        assert!(
            Instant::now() < deadline,
            "agg mcp did not exit on stdin EOF"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status:?}");
    let deadline = Instant::now() + Duration::from_secs(5);
    while alive(gc) {
        assert!(Instant::now() < deadline, "job survived the server");
        std::thread::sleep(Duration::from_millis(20));
    }
    for line in rx.try_iter() {
        assert!(
            serde_json::from_str::<Value>(&line).is_ok(),
            "stdout line is not JSON: {line}"
        );
    }
}

#[tokio::test]
async fn a_waiting_call_reports_progress_with_the_latest_line() {
    require!("make");
    let mut mcp = Mcp::start(make_repo(), true).await;
    // rmcp's client gives every request a progress token.
    let done = mcp.task_start(chatty(20000)).await;
    assert_eq!(done["exit_code"], 0);
    let mut messages = Vec::new();
    while let Ok(Some(event)) =
        tokio::time::timeout(Duration::from_millis(200), mcp.events.recv()).await
    {
        if let Event::Progress(p) = event {
            assert!(p.total.is_none(), "progress has no total");
            messages.push((p.progress, p.message.unwrap_or_default()));
        }
    }
    assert!(!messages.is_empty(), "no progress notifications");
    assert!(
        messages.windows(2).all(|w| w[0].0 < w[1].0),
        "progress increases: {messages:?}"
    );
    assert!(
        messages.iter().all(|(_, m)| m.starts_with("line ")),
        "{messages:?}"
    );
    mcp.close().await;
}

#[tokio::test]
async fn the_allowlist_is_reread_when_it_changes() {
    let dir = make_repo();
    let root = std::fs::canonicalize(dir.path()).expect("root");
    let mcp = Mcp::start(dir, false).await;
    mcp.err("task_start", json!({"unique_name": "greet"}), -32010)
        .await;
    let allowlist = mcp.allowlist.clone();
    // The human allows it in another terminal; the running server picks it up.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    agg_on_allowlist(
        std::path::Path::new("."),
        &allowlist,
        &["allow", "greet", "-C", &root.to_string_lossy()],
    );
    let ran = mcp.task_start(json!({"unique_name": "greet"})).await;
    assert_eq!(ran["exit_code"], 0, "{ran}");
    let listed = mcp.list_tasks(json!({"query": "greet"})).await;
    assert_eq!(listed["tasks"][0]["allowlisted"], true);
    mcp.close().await;
}

#[tokio::test]
async fn set_level_silences_output_notifications() {
    require!("make");
    let mut mcp = Mcp::start(make_repo(), true).await;
    mcp.client
        .set_level(rmcp::model::SetLevelRequestParams::new(
            rmcp::model::LoggingLevel::Error,
        ))
        .await
        .expect("setLevel");
    let started = mcp.task_start(chatty(0)).await;
    let run_id = started["run_id"].as_str().expect("run_id").to_owned();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let s = mcp.ok("task_status", json!({"run_id": run_id})).await;
        if s["state"] != "running" {
            break;
        }
        assert!(Instant::now() < deadline, "chatty never ended");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    while let Ok(Some(event)) =
        tokio::time::timeout(Duration::from_millis(400), mcp.events.recv()).await
    {
        assert!(
            !matches!(event, Event::Log(_)),
            "info/warning lines sent despite level error: {event:?}"
        );
    }
    mcp.close().await;
}

#[tokio::test]
async fn a_job_log_is_a_resource_that_announces_itself_and_its_growth() {
    let mut mcp = Mcp::start(
        repo(&[(
            "README.md",
            indoc! {"
                ## Tasks

                ### tick

                ```sh
                for i in 1 2 3 4 5 6; do echo tick $i; sleep 0.2; done
                ```
            "},
        )]),
        true,
    )
    .await;
    let started = mcp
        .task_start(json!({"unique_name": "tick", "wait_ms": 0}))
        .await;
    let run_id = started["run_id"].as_str().expect("run_id").to_owned();
    let uri = format!("agg://runs/{run_id}/log");
    mcp.client
        .subscribe(rmcp::model::SubscribeRequestParams::new(uri.clone()))
        .await
        .expect("subscribe");
    let mut list_changed = false;
    let mut updates = 0;
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline && updates < 2 {
        match tokio::time::timeout(Duration::from_secs(2), mcp.events.recv()).await {
            Ok(Some(Event::ResourcesChanged)) => list_changed = true,
            Ok(Some(Event::ResourceUpdated(u))) if u == uri => updates += 1,
            Ok(Some(_)) => {}
            _ => break,
        }
    }
    assert!(
        list_changed,
        "a new job's log is announced with resources/list_changed"
    );
    assert!(
        updates >= 2,
        "the subscribed log announced its growth ({updates} updates)"
    );
    let listed = mcp.client.list_all_resources().await.expect("resources");
    assert!(listed.iter().any(|r| r.uri == uri), "{listed:?}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while mcp.ok("task_status", json!({"run_id": run_id})).await["state"] == "running" {
        assert!(Instant::now() < deadline, "tick never finished");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let read = mcp
        .client
        .read_resource(rmcp::model::ReadResourceRequestParams::new(format!(
            "{uri}?offset=2&max_bytes=300"
        )))
        .await
        .expect("read");
    let rmcp::model::ResourceContents::TextResourceContents { text, meta, .. } = &read.contents[0]
    else {
        panic!("text contents: {read:?}");
    };
    assert!(text.starts_with("tick 2"), "{text}");
    let page = &meta.as_ref().expect("meta").0["agg/page"];
    assert_eq!(page["first_line"], 2, "{page}");
    assert_eq!(page["state"], "exited", "{page}");
    let missing = mcp
        .client
        .read_resource(rmcp::model::ReadResourceRequestParams::new(
            "agg://runs/nope/log",
        ))
        .await;
    assert!(missing.is_err(), "an unknown job is a JSON-RPC error");
    mcp.close().await;
}

#[tokio::test]
async fn a_runner_confirmation_without_elicitation_is_refused_never_answered() {
    require!("just");
    let justfile = indoc! {"
        [confirm(\"Really publish?\")]
        publish:
            @touch published
    "};
    let mcp = Mcp::on_files(&[("justfile", justfile)], true).await;
    let publish = json!({"unique_name": "publish"});
    let err = mcp
        .err_saying("task_start", publish, -32014, "Really publish?")
        .await;
    assert_field_says(&err, "hint", "agg run publish");
    assert!(!mcp.root.join("published").exists(), "never auto-confirmed");
    let described = mcp
        .ok("describe_task", json!({"unique_name": "publish"}))
        .await;
    assert_eq!(
        described["confirm"],
        json!(["Really publish?"]),
        "{described}"
    );
    let listed = mcp.list_tasks(json!({})).await;
    assert_eq!(
        listed["tasks"][0]["confirm"],
        json!(["Really publish?"]),
        "{listed}"
    );
    mcp.close().await;
}

/// Asserts that the first of `names` starts with `prefix`.
fn first_starts_with(names: &[String], prefix: &str) {
    assert!(
        names.first().is_some_and(|n| n.starts_with(prefix)),
        "{prefix}… first: {names:?}"
    );
}

#[tokio::test]
async fn list_tasks_finds_by_words_package_and_path_and_suggests() {
    let copy = tempfile::tempdir().expect("tmp");
    crate::test::copy_dir(&crate::test::fixtures().join("workspace"), copy.path());
    let mcp = Mcp::start(copy, false).await;
    let names = |v: &Value| -> Vec<String> {
        v["tasks"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["unique_name"].as_str().map(str::to_owned))
            .collect()
    };
    // Two words, all must match; the package's own `test` first.
    let found = names(
        &mcp.list_tasks(json!({"query": "account-adapter test"}))
            .await,
    );
    first_starts_with(&found, "packages/account-adapter/test");
    // The package.json name.
    let by_package = mcp
        .list_tasks(json!({"query": "@acme/account-adapter"}))
        .await;
    assert!(!names(&by_package).is_empty(), "{by_package}");
    // The tasks for a file: its package's first, the root's last.
    let for_file = json!({"path": "packages/account-adapter/src/index.ts"});
    let for_file = names(&mcp.list_tasks(for_file).await);
    first_starts_with(&for_file, "packages/account-adapter/");
    assert!(for_file.iter().any(|n| !n.contains('/')), "{for_file:?}");
    // A typo: nothing, and a suggestion that finds it.
    let typo = mcp.list_tasks(json!({"query": "acount-adaptr"})).await;
    assert_eq!(typo["total"], 0, "{typo}");
    assert!(
        typo["suggestions"].as_array().is_some_and(|s| s
            .iter()
            .any(|q| q.as_str().is_some_and(|q| q.contains("account-adapter")))),
        "{typo}"
    );
    mcp.err("list_tasks", json!({"path": "../elsewhere"}), -32602)
        .await;
    mcp.close().await;
}
