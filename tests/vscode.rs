//! VS Code tasks for real: agg runs `.vscode/tasks.json` tasks itself (`shell` tasks through
//! `sh -c`, `process` tasks as argv), with `${workspaceFolder}`, `options.cwd`,
//! `options.env` and `dependsOn` applied, and the caller's arguments arriving verbatim.

use serde_json::json;

use crate::common::mcp::Mcp;
use crate::common::repo;
use crate::run::{TRICKY, argv_json};
use crate::test::Test;

/// Prints its arguments as a JSON array.
const PRINT_ARGS: &str = "import json, sys; print(json.dumps(sys.argv[1:]))";

fn tasks_json() -> String {
    json!({
        "version": "2.0.0",
        "options": { "env": { "STAGE": "dev stage" } },
        "tasks": [
            { "label": "where", "type": "shell",
              "command": "cat ${workspaceFolder}/marker.txt && echo \"$STAGE\"" },
            { "label": "in-src", "type": "shell", "command": "pwd && cat marker.txt",
              "options": { "cwd": "${workspaceFolder}/src", "env": { "STAGE": "src" } } },
            { "label": "process", "type": "process", "command": "python3",
              "args": ["-c", PRINT_ARGS, "two words", "it's \"quoted\"", "$HOME"] },
            { "label": "shell-args", "type": "shell", "command": "python3",
              "args": ["-c", PRINT_ARGS, {"value": "a b", "quoting": "escape"},
                       {"value": "it's", "quoting": "strong"}] },
            { "label": "fail", "type": "shell", "command": "exit 7" },
            { "label": "all", "dependsOn": ["where", "in-src"] }
        ]
    })
    .to_string()
}

fn project() -> Test {
    Test::new()
        .write(".vscode/tasks.json", tasks_json())
        .write("marker.txt", "root marker\n")
        .write("src/marker.txt", "src marker\n")
}

#[test]
fn shell_and_process_tasks_run_with_their_folder_cwd_and_env() {
    require!("python3");
    let test = project();
    let root = test.root().to_path_buf();
    let out = Test::at(&root).args(["run", "where"]).run().success();
    assert_eq!(out.stdout, "root marker\ndev stage\n", "{}", out.stderr);
    let out = Test::at(&root).args(["run", "in-src"]).run().success();
    let src = std::fs::canonicalize(root.join("src")).expect("src");
    assert_eq!(
        out.stdout,
        format!("{}\nsrc marker\n", src.display()),
        "{}",
        out.stderr
    );
    // A process task's arguments are argv words: spaces, quotes and `$` arrive untouched,
    // and the caller's follow them verbatim.
    let out = Test::at(&root)
        .args(["run", "process", "--"])
        .args(TRICKY)
        .run()
        .success();
    let mut expected = vec!["two words", "it's \"quoted\"", "$HOME"];
    expected.extend(TRICKY);
    assert_eq!(argv_json(&out.stdout), expected, "{}", out.stderr);
    // A shell task's arguments are quoted as VS Code quotes them.
    let out = Test::at(&root)
        .args(["run", "shell-args", "--"])
        .args(TRICKY)
        .run()
        .success();
    let mut expected = vec!["a b", "it's"];
    expected.extend(TRICKY);
    assert_eq!(argv_json(&out.stdout), expected, "{}", out.stderr);
    Test::at(&root).args(["run", "fail"]).run().code(7);
    // dependsOn runs the dependencies first, in order, each in its own directory.
    let out = Test::at(&root).args(["run", "all"]).run().success();
    assert_eq!(
        out.stdout,
        format!("root marker\ndev stage\n{}\nsrc marker\n", src.display()),
        "{}",
        out.stderr
    );
}

#[test]
fn the_table_shows_vscode_fields() {
    let test = project().write(
        ".vscode/tasks.json",
        r#"{ // comments and trailing commas, as VS Code allows
  "version": "2.0.0",
  "tasks": [
    { "label": "watch", "type": "shell", "command": "sleep 100", "isBackground": true,
      "detail": "Rebuild on change", "group": "build", },
    { "label": "pick", "type": "shell", "command": "echo ${input:name}" },
    { "label": "bad", "type": "shell", "command": { "make": 1 } },
  ],
}"#,
    );
    let json = Test::at(test.root()).list_json();
    let watch = &json["tasks"][0];
    assert_eq!(watch["unique_name"], "watch", "{json}");
    assert_eq!(watch["runner"], "vscode");
    assert_eq!(watch["service"], true);
    assert_eq!(watch["group"], "build");
    assert_eq!(watch["description"], "Rebuild on change");
    assert_eq!(watch["runner_available"], true);
    assert!(watch.get("not_runnable").is_none(), "{watch}");
    // A task that needs the editor is listed with the reason, at its line.
    let pick = &json["tasks"][1];
    assert_eq!(pick["unique_name"], "pick", "{json}");
    assert_eq!(pick["line"], 6);
    assert_eq!(pick["command"], "");
    assert!(
        pick["not_runnable"]
            .as_str()
            .is_some_and(|m| m.contains("${input:name}")),
        "{pick}"
    );
    assert_eq!(json["tasks"].as_array().map(Vec::len), Some(2), "{json}");
    // A task written wrong is a diagnostic at its line.
    let diagnostics = json["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(diagnostics.len(), 1, "{json}");
    assert_eq!(diagnostics[0]["file_path"], ".vscode/tasks.json");
    assert_eq!(diagnostics[0]["line"], 7);
    assert!(
        diagnostics[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("`command` must be a string")),
        "{json}"
    );
}

#[test]
fn a_task_that_needs_the_editor_is_shown_and_refused_with_its_reason() {
    let test = project().write(
        ".vscode/tasks.json",
        r#"{ "version": "2.0.0", "tasks": [
    { "label": "tsc: watch", "type": "typescript", "tsconfig": "tsconfig.json", "option": "watch" },
    { "label": "lint file", "type": "shell", "command": "eslint ${file}", "detail": "Lint the open file" },
    { "label": "all", "dependsOn": ["lint file"] },
    { "label": "ok", "type": "shell", "command": "touch ran" }
  ] }"#,
    );
    let root = test.root().to_path_buf();
    let out = Test::at(&root).args(["list"]).run().success();
    assert!(
        out.stdout
            .lines()
            .any(|l| l.contains("tsc: watch") && l.ends_with("[not runnable here]")),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .lines()
            .any(|l| l.contains("Lint the open file  [not runnable here]")),
        "{}",
        out.stdout
    );
    assert!(
        out.stderr.contains("3 tasks marked [not runnable here]"),
        "{}",
        out.stderr
    );
    let out = Test::at(&root).args(["describe", "all"]).run().success();
    assert!(
        out.stdout.contains("not runnable") && out.stdout.contains("depends on `lint file`"),
        "{}",
        out.stdout
    );
    for name in ["tsc: watch", "lint file", "all"] {
        let out = Test::at(&root).args(["run", name]).run().code(2);
        assert!(out.stderr.contains("run it from VS Code"), "{}", out.stderr);
    }
    assert!(!root.join("ran").exists());
    Test::at(&root).args(["run", "ok"]).run().success();
    assert!(root.join("ran").exists());
}

#[tokio::test]
async fn an_agent_is_told_why_a_task_cannot_run_before_any_permission_question() {
    let mcp = Mcp::start(
        repo(&[(
            ".vscode/tasks.json",
            r#"{ "version": "2.0.0", "tasks": [
    { "label": "tsc: build", "type": "typescript", "tsconfig": "tsconfig.json" } ] }"#,
        )]),
        false,
    )
    .await;
    let listed = mcp.ok("list_tasks", json!({})).await;
    assert!(
        listed["tasks"][0]["not_runnable"]
            .as_str()
            .is_some_and(|r| r.contains("`typescript`")),
        "{listed}"
    );
    let body = mcp
        .err("task_start", json!({ "unique_name": "tsc: build" }), -32015)
        .await;
    assert!(
        body["error"]
            .as_str()
            .is_some_and(|e| e.contains("agg cannot run `tsc: build`")),
        "{body}"
    );
    mcp.client.cancel().await.expect("close");
}

#[tokio::test]
async fn vscode_tasks_run_through_mcp_with_their_args() {
    if !crate::common::have("python3") {
        return;
    }
    let mcp = Mcp::start(
        repo(&[
            (".vscode/tasks.json", &tasks_json()),
            ("marker.txt", "root marker\n"),
            ("src/marker.txt", "src marker\n"),
        ]),
        true,
    )
    .await;
    // Arguments a shell could read need the person's approval; this one covers them.
    mcp.agg_allow(&["--dir", ".", "--any-args"]);
    let run = mcp
        .ok(
            "task_start",
            json!({ "unique_name": "process", "args": TRICKY, "output": "full", "wait_ms": 60_000 }),
        )
        .await;
    assert_eq!(run["exit_code"], 0, "{run}");
    let mut expected = vec!["two words", "it's \"quoted\"", "$HOME"];
    expected.extend(TRICKY);
    let text = run["output"]["text"].as_str().unwrap_or_default();
    assert_eq!(argv_json(text), expected, "{run}");
    let run = mcp
        .ok(
            "task_start",
            json!({ "unique_name": "in-src", "output": "full", "wait_ms": 60_000 }),
        )
        .await;
    assert!(
        run["output"]["text"]
            .as_str()
            .is_some_and(|t| t.contains("src marker")),
        "{run}"
    );
    mcp.client.cancel().await.expect("close");
}

#[test]
fn a_command_list_runs_wholly_in_its_cwd_and_not_at_all_without_it() {
    let test = Test::new()
        .write(
            ".vscode/tasks.json",
            r#"{ "version": "2.0.0", "tasks": [
    { "label": "both", "type": "shell", "command": "pwd; pwd",
      "options": { "cwd": "${workspaceFolder}/src", "env": { "X": "1" } } },
    { "label": "gone", "type": "shell", "command": "echo ran; echo again",
      "options": { "cwd": "${workspaceFolder}/missing" } }
  ] }"#,
        )
        .write("src/.keep", "");
    let root = test.root().to_path_buf();
    let src = std::fs::canonicalize(root.join("src")).expect("src");
    let out = Test::at(&root).args(["run", "both"]).run().success();
    assert_eq!(out.stdout, format!("{0}\n{0}\n", src.display()));
    let out = Test::at(&root).args(["run", "gone"]).run();
    assert_ne!(out.code, Some(0), "{}", out.stderr);
    assert!(!out.stdout.contains("ran"), "{}", out.stdout);
}

#[test]
fn a_background_dependency_starts_and_the_chain_goes_on() {
    let test = Test::new().write(
        ".vscode/tasks.json",
        r#"{ "version": "2.0.0", "tasks": [
    { "label": "watcher", "type": "shell", "command": "sleep 0.5; echo watcher-done",
      "isBackground": true },
    { "label": "after", "type": "shell", "command": "echo after", "dependsOn": "watcher" }
  ] }"#,
    );
    let root = test.root().to_path_buf();
    let json = Test::at(&root).list_json();
    let after = json["tasks"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["unique_name"] == "after"))
        .cloned()
        .expect("after");
    assert_eq!(after["service"], true, "{after}");
    // The dependent task does not wait for the watcher to end; the job lasts as long as it.
    let out = Test::at(&root).args(["run", "after"]).run().success();
    assert_eq!(out.stdout, "after\nwatcher-done\n");
}

#[test]
fn npm_tasks_pass_the_callers_flags_to_the_script() {
    require!("npm");
    let test = Test::new()
        .write(
            ".vscode/tasks.json",
            r#"{ "version": "2.0.0", "tasks": [
    { "label": "echo", "type": "npm", "script": "echo", "path": "${workspaceFolder}/web" },
    { "label": "both", "dependsOn": [{ "type": "npm", "script": "echo" }] }
  ] }"#,
        )
        .write(
            "web/package.json",
            r#"{ "name": "web", "scripts": { "echo": "node -e \"console.log(JSON.stringify(process.argv.slice(1)))\" --" } }"#,
        );
    let root = test.root().to_path_buf();
    let out = Test::at(&root)
        .args(["run", "echo", "--", "--flag", "pos"])
        .run()
        .success();
    assert!(
        out.stdout.contains(r#"["--flag","pos"]"#),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
    // `{type: npm, script}` in dependsOn is that task.
    let out = Test::at(&root).args(["run", "both"]).run().success();
    assert!(out.stdout.contains("[]"), "{}\n{}", out.stdout, out.stderr);
}
