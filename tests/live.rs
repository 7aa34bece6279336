//! The live table over MCP: edits to task files of several runners reach the agent as
//! `notifications/resources/updated` for `agg://tasks` and fresh `list_tasks` results;
//! bursts coalesce; edits that change no task stay quiet; the eight fixed tools never
//! announce a tool-list change. Also the per-task tools (`--task-tools`), whose list does.
#![allow(deprecated)]

use std::time::{Duration, Instant};

use std::fmt::Write as _;

use rmcp::ClientLifecycleMode;
use rmcp::model::{ServerNotification, SubscriptionFilter, Tool};
use serde_json::json;

use crate::common::mcp::{Event, Mcp, assert_error_says};
use crate::common::repo;
use indoc::indoc;

/// Subscribes to `agg://tasks`, as a client that wants to follow the table does.
async fn follow_table(mcp: &Mcp) {
    mcp.client
        .subscribe(rmcp::model::SubscribeRequestParams::new("agg://tasks"))
        .await
        .expect("subscribe");
}

/// Waits up to `limit` for table-changed notifications; returns how many arrived by then
/// (draining the rest of the quiet period too). A tool-list change fails the test: without
/// `--task-tools` the tools never change.
async fn list_changes(mcp: &mut Mcp, limit: Duration) -> usize {
    let deadline = Instant::now() + limit;
    let mut count = 0;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, mcp.events.recv()).await {
            Ok(Some(Event::ResourceUpdated(uri))) if uri == "agg://tasks" => count += 1,
            Ok(Some(Event::ToolsChanged)) => panic!("tools/list_changed without --task-tools"),
            Ok(Some(_)) => {}
            _ => return count,
        }
    }
}

/// `agg mcp --task-tools` on a repository with `files` (with `allow`, every task
/// allowlisted), and the tools it lists.
async fn task_tools(files: &[(&str, &str)], allow: bool) -> (Mcp, Vec<Tool>) {
    let mcp = Mcp::start_args(repo(files), allow, &["--task-tools"]).await;
    let tools = mcp.client.list_all_tools().await.expect("tools");
    (mcp, tools)
}

/// The tool named `name`.
fn tool<'t>(tools: &'t [Tool], name: &str) -> &'t Tool {
    tools
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

async fn names(mcp: &Mcp) -> Vec<String> {
    let list = mcp.list_tasks(json!({})).await;
    list["tasks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["unique_name"].as_str().map(str::to_owned))
        .collect()
}

/// Waits for the first table change, at most 2 s after `since`.
async fn changed_within_2s(mcp: &mut Mcp, what: &str) {
    let t = Instant::now();
    loop {
        let left = Duration::from_secs(2).saturating_sub(t.elapsed());
        match tokio::time::timeout(left, mcp.events.recv()).await {
            Ok(Some(Event::ResourceUpdated(uri))) if uri == "agg://tasks" => return,
            Ok(Some(Event::ToolsChanged)) => panic!("tools/list_changed without --task-tools"),
            Ok(Some(_)) => {}
            _ => panic!("no agg://tasks update within 2 s after {what}"),
        }
    }
}

#[tokio::test]
async fn task_file_edits_reach_the_agent_within_two_seconds() {
    let dir = repo(&[
        ("Makefile", "build:\n\t@echo build\n"),
        (
            "README.md",
            indoc! {"
                # Demo

                Some prose.

                ## Tasks

                ### greet

                ```sh
                echo hi
                ```
            "},
        ),
    ]);
    let mut mcp = Mcp::start(dir, false).await;
    follow_table(&mcp).await;
    let root = mcp.root.clone();
    assert!(names(&mcp).await.contains(&"greet".to_owned()));

    // Task files of three runners added one at a time, the last two in a new directory;
    // then a Makefile target removed.
    for (file, text, task) in [
        (
            "justfile",
            indoc! {"
                # Lint everything
                lint:
                    @echo lint
            "},
            "lint",
        ),
        (
            "svc/Taskfile.yml",
            indoc! {"
                version: '3'
                tasks:
                  up:
                    cmds: [echo up]
            "},
            "svc/up",
        ),
        (
            "svc/package.json",
            "{\"scripts\": {\"dev\": \"vite\"}}\n",
            "svc/dev",
        ),
    ] {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, text).expect("write");
        changed_within_2s(&mut mcp, &format!("adding {file}")).await;
        let now = names(&mcp).await;
        assert!(
            now.contains(&task.to_owned()),
            "{task} after adding {file}: {now:?}"
        );
    }
    std::fs::remove_file(root.join("Makefile")).expect("rm");
    changed_within_2s(&mut mcp, "removing the Makefile").await;
    let now = names(&mcp).await;
    assert!(!now.contains(&"build".to_owned()), "{now:?}");

    // Prose: no task changes, no notification.
    let readme = std::fs::read_to_string(root.join("README.md")).expect("read");
    std::fs::write(
        root.join("README.md"),
        readme.replace("Some prose.", "Some better prose."),
    )
    .expect("write");
    std::fs::write(root.join("notes.txt"), "unrelated").expect("write");
    assert_eq!(
        list_changes(&mut mcp, Duration::from_millis(1500)).await,
        0,
        "a prose edit must not notify"
    );
    mcp.close().await;
}

#[tokio::test]
async fn a_burst_of_edits_gives_few_notifications() {
    let dir = repo(&[("justfile", "a:\n    @echo a\n")]);
    let mut mcp = Mcp::start(dir, false).await;
    follow_table(&mcp).await;
    let root = mcp.root.clone();
    for i in 0..50 {
        std::fs::write(
            root.join("justfile"),
            format!("a:\n    @echo a\n\nb{i}:\n    @echo {i}\n"),
        )
        .expect("write");
    }
    let count = list_changes(&mut mcp, Duration::from_secs(2)).await;
    assert!(
        (1..=3).contains(&count),
        "50 rapid edits gave {count} notifications"
    );
    let now = names(&mcp).await;
    assert!(now.contains(&"b49".to_owned()), "{now:?}");
    mcp.close().await;
}

#[tokio::test]
async fn table_changes_arrive_through_subscriptions_in_2026_sessions() {
    let dir = repo(&[("justfile", "a:\n    @echo a\n")]);
    let mcp = Mcp::start_with(
        dir,
        false,
        None,
        ClientLifecycleMode::Discover {
            preferred_versions: vec![rmcp::model::ProtocolVersion::V_2026_07_28],
        },
    )
    .await;
    let mut sub = mcp
        .client
        .listen(
            SubscriptionFilter::builder()
                .tools_list_changed()
                .resource_subscription("agg://tasks")
                .build(),
        )
        .await
        .expect("listen");
    std::fs::write(
        mcp.root.join("justfile"),
        indoc! {"
            a:
                @echo a
            b:
                @echo b
        "},
    )
    .expect("write");
    let note = tokio::time::timeout(Duration::from_secs(2), sub.next())
        .await
        .expect("within 2 s")
        .expect("open");
    assert!(
        matches!(
            &note,
            Some(ServerNotification::ResourceUpdatedNotification(n)) if n.params.uri == "agg://tasks"
        ),
        "{note:?}"
    );
    // The eight tools never change without --task-tools: nothing else arrives.
    let more = tokio::time::timeout(Duration::from_millis(800), sub.next()).await;
    assert!(
        !matches!(
            more,
            Ok(Ok(Some(ServerNotification::ToolListChangedNotification(_))))
        ),
        "{more:?}"
    );
    let _ = sub.cancel().await;
    mcp.close().await;
}

#[tokio::test]
async fn more_tasks_than_the_cap_serve_the_first_ones_and_say_how_many_were_left_out() {
    let mut just = String::new();
    for i in 0..45 {
        let _ = writeln!(just, "task{i}:\n    @true");
    }
    let (mcp, tools) = task_tools(&[("justfile", &just)], false).await;
    let per_task: Vec<&str> = tools
        .iter()
        .map(|t| t.name.as_ref())
        .filter(|n| n.starts_with("run_"))
        .collect();
    assert_eq!(per_task.len(), 40, "{per_task:?}");
    assert_eq!(per_task[0], "run_task0");
    let info = mcp.client.peer_info().expect("info");
    let instructions = info.instructions.clone().unwrap_or_default();
    assert!(
        instructions.contains("matches 45 tasks") && instructions.contains("leaves out 5"),
        "{instructions}"
    );
    assert!(instructions.contains("narrow the glob"), "{instructions}");
    // Every task is still reachable through the generic tools.
    let list = mcp.list_tasks(json!({"query": "task44"})).await;
    assert_eq!(list["total"], 1);
    mcp.close().await;
}

#[tokio::test]
async fn per_task_tools_run_tasks_with_their_parameters() {
    let (mcp, tools) = task_tools(
        &[(
            "README.md",
            indoc! {"
            ## Tasks

            ### greet

            Say hello to someone.

            Inputs: NAME

            ```sh
            echo \"hello $NAME\"
            ```

            ### all

            Requires: greet

            ### deploy

            ```sh
            echo deploying
            ```
        "},
        )],
        true,
    )
    .await;
    let greet = tool(&tools, "run_greet");
    assert!(
        greet
            .description
            .as_deref()
            .is_some_and(|d| d.contains("Say hello") && d.contains("xc greet"))
    );
    let schema = serde_json::Value::Object((*greet.input_schema).clone());
    assert_eq!(schema["required"], json!(["NAME"]));
    assert!(schema["properties"]["wait_ms"].is_object());
    // A task that only runs its dependencies takes the most dangerous hints of what it runs:
    // `greet` runs a shell command, so `all` is not read-only either.
    let all = tool(&tools, "run_all");
    assert_eq!(
        all.annotations.as_ref().and_then(|a| a.read_only_hint),
        Some(false)
    );
    assert!(
        all.input_schema
            .get("properties")
            .and_then(|p| p.get("skip_deps"))
            .is_some()
    );
    let deploy = tool(&tools, "run_deploy");
    let hints = deploy.annotations.as_ref().expect("annotations");
    assert_eq!(
        (hints.destructive_hint, hints.open_world_hint),
        (Some(true), Some(true))
    );
    let result = mcp.call("run_greet", json!({"NAME": "agents"})).await;
    let body = result.structured_content.expect("structured");
    assert_eq!(body["exit_code"], 0, "{body}");
    assert_eq!(body["output"]["text"], "hello agents");
    mcp.close().await;
}

#[tokio::test]
async fn per_task_tools_keep_parameters_named_like_controls_and_validate_like_task_start() {
    require!("just");
    let (mcp, tools) = task_tools(
        &[(
            "justfile",
            "show output wait_ms=\"5\":\n    @echo {{output}} {{wait_ms}}\n",
        )],
        true,
    )
    .await;
    let show = tool(&tools, "run_show");
    let props = show.input_schema.get("properties").expect("properties");
    for key in [
        "output",
        "wait_ms",
        "_output",
        "_wait_ms",
        "async",
        "tail_lines",
    ] {
        assert!(props.get(key).is_some(), "{key} missing: {props:?}");
    }
    assert_eq!(
        props["output"]["description"], "Task parameter `output`",
        "{props:?}"
    );
    let ran = mcp
        .ok(
            "run_show",
            json!({"output": "x", "wait_ms": "7", "_output": "full"}),
        )
        .await;
    assert_eq!(ran["output"]["text"], "x 7", "{ran}");
    let bad = mcp
        .err(
            "run_show",
            json!({"output": "x", "_wait_ms": "soon"}),
            -32602,
        )
        .await;
    assert_error_says(&bad, "wait_ms");
    let too_long = mcp
        .err(
            "run_show",
            json!({"output": "x", "_wait_ms": 700_000}),
            -32602,
        )
        .await;
    assert_error_says(&too_long, "600000");
    let unknown = mcp
        .err("run_show", json!({"output": "x", "colour": "red"}), -32602)
        .await;
    assert!(
        unknown["error"]
            .as_str()
            .is_some_and(|e| e.contains("colour")
                && e.contains("_wait_ms")
                && e.contains("output")),
        "{unknown}"
    );
    mcp.close().await;
}

#[tokio::test]
async fn per_task_tools_announce_a_tool_list_change_when_their_tasks_change() {
    let dir = repo(&[("justfile", "a:\n    @echo a\n")]);
    let mut mcp = Mcp::start_args(dir, false, &["--task-tools"]).await;
    let caps = mcp
        .client
        .peer_info()
        .and_then(|p| p.capabilities.tools.clone())
        .expect("tools capability");
    assert_eq!(caps.list_changed, Some(true));
    std::fs::write(
        mcp.root.join("justfile"),
        indoc! {"
            a:
                @echo a
            b:
                @echo b
        "},
    )
    .expect("write");
    let t = Instant::now();
    loop {
        let left = Duration::from_secs(3).saturating_sub(t.elapsed());
        match tokio::time::timeout(left, mcp.events.recv()).await {
            Ok(Some(Event::ToolsChanged)) => break,
            Ok(Some(_)) => {}
            _ => panic!("no tools/list_changed after a new task with --task-tools"),
        }
    }
    let tools = mcp.client.list_all_tools().await.expect("tools");
    assert!(tools.iter().any(|t| t.name == "run_b"));
    mcp.close().await;
}

#[tokio::test]
async fn without_per_task_tools_the_tool_list_never_changes() {
    let mcp = Mcp::on_files(&[("justfile", "a:\n    @echo a\n")], false).await;
    let caps = mcp
        .client
        .peer_info()
        .and_then(|p| p.capabilities.tools.clone())
        .expect("tools capability");
    assert_eq!(caps.list_changed, None, "the eight tools never change");
    mcp.close().await;
}

#[tokio::test]
async fn per_task_tools_take_more_arguments_under_the_permission_rules() {
    let (mcp, tools) = task_tools(
        &[(
            "Makefile",
            indoc! {"
                test:
                \t@echo testing $(FILTER)

                deploy:
                \t@echo deployed
            "},
        )],
        true,
    )
    .await;
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    // The common verb comes first among the per-task tools.
    let first = names.iter().find(|n| n.starts_with("run_"));
    assert_eq!(first, Some(&"run_test"), "{names:?}");
    let test = tool(&tools, "run_test");
    assert!(
        test.input_schema
            .get("properties")
            .and_then(|p| p.get("args"))
            .is_some(),
        "{test:?}"
    );
    // make reads `deploy` as another target: the allow of the directory does not cover it.
    mcp.err("run_test", json!({"args": ["deploy"]}), -32016)
        .await;
    // The person allows agents to pass anything to it: the arguments arrive.
    mcp.agg_allow(&["--dir", ".", "--any-args"]);
    let run = mcp
        .ok(
            "run_test",
            json!({"args": ["FILTER=unit"], "wait_ms": 20_000}),
        )
        .await;
    assert_eq!(run["exit_code"], 0, "{run}");
    assert!(
        run["output"]["text"]
            .as_str()
            .unwrap_or_default()
            .contains("testing unit"),
        "{run}"
    );
    mcp.close().await;
}
