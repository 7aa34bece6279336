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
use crate::common::verbatim::assert_tricky_args_arrive;
use crate::test::{Test, assert_text_has, rows, task};
use indoc::{formatdoc, indoc};

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

/// The project of these tests, and a home of its own for mise.
struct Project {
    test: Test,
    home: tempfile::TempDir,
}

impl Project {
    fn new() -> Project {
        let test = Test::new()
            .write(
                "mise.toml",
                formatdoc!(
                    "
                        [env]
                        GREETING = \"hello\"

                        [tasks.args]
                        description = \"Print the arguments\"
                        run = \"python3 -c '{PRINT_ARGS}'\"

                        [tasks.fail]
                        run = \"exit 7\"

                        [tasks.greet]
                        usage = '''
                        arg \"<name>\"
                        flag \"-l --loud\"
                        '''
                        run = 'echo \"$GREETING ${{usage_name}} loud=${{usage_loud:-false}}\"'

                        [tasks.publish]
                        confirm = \"Publish to the registry?\"
                        run = \"touch published\"
                    "
                ),
            )
            .executable(
                "mise-tasks/db/args",
                indoc! {"
                    #!/usr/bin/env python3
                    #MISE description=\"Print from a file task\"
                    import json, sys
                    print(json.dumps(sys.argv[1:]))
                "},
            );
        let home = tempfile::tempdir().expect("home");
        Project { test, home }
    }

    fn root(&self) -> &Path {
        self.test.root()
    }

    /// agg on the project, running mise isolated.
    fn agg(&self) -> Test {
        isolated(self.root(), self.home.path())
    }

    /// `agg describe TASK --json`.
    fn describe(&self, task: &str) -> serde_json::Value {
        Test::at(self.root())
            .args(["describe", task, "--json"])
            .run_json()
    }
}

#[test]
fn mise_tasks_are_listed_and_get_their_args_verbatim() {
    require!("mise");
    let project = Project::new();
    let json = Test::at(project.root()).list_json();
    assert_eq!(task(&json, "args")["command"], "mise run args");
    assert_eq!(task(&json, "db:args")["command"], "mise run db:args");
    assert!(rows(&json).all(|t| t["runner_available"] == true), "{json}");
    for task in ["args", "db:args"] {
        assert_tricky_args_arrive(project.agg(), task, &[]);
    }
    project.agg().args(["run", "fail"]).run().code(7);
}

#[test]
fn mise_usage_args_and_flags_arrive_as_mise_parses_them() {
    require!("mise");
    let project = Project::new();
    let described = project.describe("greet");
    assert_eq!(described["params"][0]["name"], "name", "{described}");
    assert_eq!(described["params"][1]["name"], "--loud", "{described}");
    project
        .agg()
        .args(["run", "greet", "--", "Ada Lovelace", "--loud"])
        .run()
        .success()
        .stdout_has("hello Ada Lovelace loud=true");
}

#[test]
fn a_mise_confirm_is_left_to_mise_at_the_command_line() {
    require!("mise");
    let project = Project::new();
    let described = project.describe("publish");
    assert_eq!(described["confirm"], json!(["Publish to the registry?"]));
    // No terminal to answer on: mise refuses, and nothing runs.
    project.agg().args(["run", "publish"]).run().fails();
    assert!(
        !project.root().join("published").exists(),
        "never auto-confirmed"
    );
}

#[tokio::test]
async fn a_mise_confirm_without_elicitation_is_refused_never_answered() {
    require!("mise");
    // Only tasks, no templates: a config mise reads without trust.
    let publish = indoc! {"
            [tasks.publish]
            confirm = \"Publish to the registry?\"
            run = \"touch published\"
        "};
    let mcp = Mcp::start(repo(&[("mise.toml", publish)]), true).await;
    let err = mcp
        .err("task_start", json!({"unique_name": "publish"}), -32014)
        .await;
    assert_text_has(&err["error"], "Publish to the registry?");
    assert!(!mcp.root.join("published").exists(), "never auto-confirmed");
    let described = mcp
        .ok("describe_task", json!({"unique_name": "publish"}))
        .await;
    assert_eq!(described["confirm"], json!(["Publish to the registry?"]));
    mcp.client.cancel().await.expect("close");
}
