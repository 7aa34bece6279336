//! mise for real: a `[tasks]` entry, a file task and a task with a usage spec each get their
//! arguments verbatim through `agg run`, a failing task's exit code comes back, and a task with
//! `confirm` is never answered on the user's behalf (the CLI leaves the question to mise, MCP
//! refuses without elicitation).
//!
//! mise must neither download a tool nor write to the developer's home: every run gets its own
//! data, state, cache and config directories, `MISE_OFFLINE`, no automatic tool installs, and
//! the test repository as a trusted config path.

use std::path::Path;

use serde_json::json;

use crate::common::mcp::Mcp;
use crate::common::repo;
use crate::run::{TRICKY, argv_json};
use crate::test::Test;

/// Prints its arguments as a JSON array.
const PRINT_ARGS: &str = "import json, sys; print(json.dumps(sys.argv[1:]))";

/// `agg` run in `root` with mise kept to temporary directories, offline, trusting `root`.
fn isolated(root: &Path, home: &Path) -> Test {
    let mut test = Test::at(root);
    for (key, sub) in [
        ("MISE_DATA_DIR", "data"),
        ("MISE_STATE_DIR", "state"),
        ("MISE_CACHE_DIR", "cache"),
        ("MISE_CONFIG_DIR", "config"),
    ] {
        test = test.env(key, home.join(sub));
    }
    // In CI mise answers its own `confirm` questions yes: these tests are about a terminal
    // session, so agg runs mise without the CI markers.
    for key in [
        "CI",
        "CONTINUOUS_INTEGRATION",
        "GITHUB_ACTIONS",
        "BUILD_NUMBER",
        "RUN_ID",
    ] {
        test = test.env_remove(key);
    }
    test.env("MISE_GLOBAL_CONFIG_FILE", home.join("config/config.toml"))
        .env("MISE_OFFLINE", "1")
        .env("MISE_TASK_RUN_AUTO_INSTALL", "false")
        .env("MISE_TRUSTED_CONFIG_PATHS", root)
}

fn mise_project() -> Test {
    Test::new()
        .write(
            "mise.toml",
            format!(
                "[env]\nGREETING = \"hello\"\n\n[tasks.args]\ndescription = \"Print the arguments\"\nrun = \"python3 -c '{PRINT_ARGS}'\"\n\n[tasks.fail]\nrun = \"exit 7\"\n\n[tasks.greet]\nusage = '''\narg \"<name>\"\nflag \"-l --loud\"\n'''\nrun = 'echo \"$GREETING ${{usage_name}} loud=${{usage_loud:-false}}\"'\n\n[tasks.publish]\nconfirm = \"Publish to the registry?\"\nrun = \"touch published\"\n"
            ),
        )
        .write(
            "mise-tasks/db/args",
            "#!/usr/bin/env python3\n#MISE description=\"Print from a file task\"\nimport json, sys\nprint(json.dumps(sys.argv[1:]))\n",
        )
}

fn make_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

#[test]
fn mise_tasks_are_listed_and_get_their_args_verbatim() {
    require!("mise");
    let home = tempfile::tempdir().expect("home");
    let test = mise_project();
    let root = test.root().to_path_buf();
    make_executable(&root.join("mise-tasks/db/args"));
    let json = Test::at(&root)
        .args(["list", "--json"])
        .run()
        .success()
        .json();
    let tasks = json["tasks"].as_array().expect("tasks");
    let command = |name: &str| {
        tasks
            .iter()
            .find(|t| t["unique_name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {json}"))["command"]
            .clone()
    };
    assert_eq!(command("args"), "mise run args");
    assert_eq!(command("db:args"), "mise run db:args");
    assert!(
        tasks.iter().all(|t| t["runner_available"] == true),
        "{json}"
    );
    for task in ["args", "db:args"] {
        let out = isolated(&root, home.path())
            .args(["run", task, "--"])
            .args(TRICKY)
            .run()
            .success();
        assert_eq!(argv_json(&out.stdout), TRICKY, "{task}: {}", out.stderr);
    }
    isolated(&root, home.path())
        .args(["run", "fail"])
        .run()
        .code(7);
    drop(test);
}

#[test]
fn mise_usage_args_and_flags_arrive_as_mise_parses_them() {
    require!("mise");
    let home = tempfile::tempdir().expect("home");
    let test = mise_project();
    let root = test.root().to_path_buf();
    let described = Test::at(&root)
        .args(["describe", "greet", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(described["params"][0]["name"], "name", "{described}");
    assert_eq!(described["params"][1]["name"], "--loud", "{described}");
    let out = isolated(&root, home.path())
        .args(["run", "greet", "--", "Ada Lovelace", "--loud"])
        .run()
        .success();
    assert!(
        out.stdout.contains("hello Ada Lovelace loud=true"),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
    drop(test);
}

#[test]
fn a_mise_confirm_is_left_to_mise_at_the_command_line() {
    require!("mise");
    let home = tempfile::tempdir().expect("home");
    let test = mise_project();
    let root = test.root().to_path_buf();
    let described = Test::at(&root)
        .args(["describe", "publish", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(described["confirm"], json!(["Publish to the registry?"]));
    // No terminal to answer on: mise refuses, and nothing runs.
    let out = isolated(&root, home.path()).args(["run", "publish"]).run();
    assert_ne!(out.code, Some(0), "{}", out.stderr);
    assert!(!root.join("published").exists(), "never auto-confirmed");
    drop(test);
}

#[tokio::test]
async fn a_mise_confirm_without_elicitation_is_refused_never_answered() {
    require!("mise");
    // Only tasks, no templates: a config mise reads without trust.
    let mcp = Mcp::start(
        repo(&[(
            "mise.toml",
            "[tasks.publish]\nconfirm = \"Publish to the registry?\"\nrun = \"touch published\"\n",
        )]),
        true,
    )
    .await;
    let err = mcp
        .err("task_start", json!({"unique_name": "publish"}), -32014)
        .await;
    assert!(
        err["error"]
            .as_str()
            .is_some_and(|e| e.contains("Publish to the registry?")),
        "{err}"
    );
    assert!(!mcp.root.join("published").exists(), "never auto-confirmed");
    let described = mcp
        .ok("describe_task", json!({"unique_name": "publish"}))
        .await;
    assert_eq!(described["confirm"], json!(["Publish to the registry?"]));
    mcp.client.cancel().await.expect("close");
}
