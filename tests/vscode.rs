//! VS Code tasks for real: agg runs `.vscode/tasks.json` tasks itself (`shell` tasks through
//! `sh -c`, `process` tasks as argv), with `${workspaceFolder}`, `options.cwd`,
//! `options.env` and `dependsOn` applied, and the caller's arguments arriving verbatim.

use serde_json::json;

use crate::common::mcp::Mcp;
use crate::common::repo;
use crate::common::verbatim::{
    NO_ARGS, assert_tricky_args_arrive, mcp_allowing_any_args, passes_through_mcp, task_start_full,
};
use crate::run::{TRICKY_FOR_AGENTS, argv_json};
use crate::test::{Test, assert_text_has, task};

/// Prints its arguments as a JSON array.
const PRINT_ARGS: &str = "import json, sys; print(json.dumps(sys.argv[1:]))";

/// The arguments of the `process` task, which it prints before the caller's.
const PROCESS_ARGS: [&str; 3] = ["two words", "it's \"quoted\"", "$HOME"];

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
              "args": ["-c", PRINT_ARGS, PROCESS_ARGS[0], PROCESS_ARGS[1], PROCESS_ARGS[2]] },
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
    assert_tricky_args_arrive(Test::at(&root), "process", &PROCESS_ARGS);
    // A shell task's arguments are quoted as VS Code quotes them.
    assert_tricky_args_arrive(Test::at(&root), "shell-args", &["a b", "it's"]);
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
    assert_text_has(&pick["not_runnable"], "${input:name}");
    assert_eq!(json["tasks"].as_array().map(Vec::len), Some(2), "{json}");
    // A task written wrong is a diagnostic at its line.
    let diagnostics = json["diagnostics"].as_array().expect("diagnostics");
    assert_eq!(diagnostics.len(), 1, "{json}");
    assert_eq!(diagnostics[0]["file_path"], ".vscode/tasks.json");
    assert_eq!(diagnostics[0]["line"], 7);
    assert_text_has(&diagnostics[0]["message"], "`command` must be a string");
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
    Test::at(&root)
        .args(["list"])
        .run()
        .success()
        .stdout_has_line(|l| l.contains("tsc: watch") && l.ends_with("[not runnable here]"))
        .stdout_has("Lint the open file  [not runnable here]")
        .stderr_has("3 tasks marked [not runnable here]");
    Test::at(&root)
        .args(["describe", "all"])
        .run()
        .success()
        .stdout_has("not runnable")
        .stdout_has("depends on `lint file`");
    for name in ["tsc: watch", "lint file", "all"] {
        Test::at(&root)
            .args(["run", name])
            .run()
            .code(2)
            .stderr_has("run it from VS Code");
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
    assert_text_has(&listed["tasks"][0]["not_runnable"], "`typescript`");
    let body = mcp
        .err("task_start", json!({ "unique_name": "tsc: build" }), -32015)
        .await;
    assert_text_has(&body["error"], "agg cannot run `tsc: build`");
    mcp.client.cancel().await.expect("close");
}

#[tokio::test]
async fn vscode_tasks_run_through_mcp_with_their_args() {
    if !crate::common::have("python3") {
        return;
    }
    let mcp = mcp_allowing_any_args(project().into_tempdir(), &[]).await;
    let text = passes_through_mcp(&mcp, "process", &TRICKY_FOR_AGENTS).await;
    let expected: Vec<&str> = PROCESS_ARGS
        .iter()
        .chain(&TRICKY_FOR_AGENTS)
        .copied()
        .collect();
    assert_eq!(argv_json(&text), expected, "{text}");
    let run = task_start_full(&mcp, "in-src", &NO_ARGS).await;
    assert_text_has(&run["output"]["text"], "src marker");
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
    let after = task(&json, "after");
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
    Test::at(&root)
        .args(["run", "echo", "--", "--flag", "pos"])
        .run()
        .success()
        .stdout_has(r#"["--flag","pos"]"#);
    // `{type: npm, script}` in dependsOn is that task.
    Test::at(&root)
        .args(["run", "both"])
        .run()
        .success()
        .stdout_has("[]");
}
