//! deno for real: tasks of `deno.json`, `deno.jsonc` and a workspace member run through
//! `agg run` and MCP, their arguments arriving verbatim (deno appends them to the task's
//! command, quoted for its own shell), and agg lists what `deno task` lists.

use std::path::Path;

use crate::common::repo;
use crate::common::verbatim::{
    assert_tricky_args_arrive, mcp_allowing_any_args, passes_through_mcp,
};
use crate::listings::deno_tasks;
use crate::run::{TRICKY_FOR_AGENTS, argv_json};
use crate::test::{Test, assert_no_diagnostics, source_names_in};
use indoc::formatdoc;

/// A deno task command that prints its arguments as a JSON array.
const PRINT_ARGS: &str = r#"deno eval \"console.log(JSON.stringify(Deno.args))\""#;

/// deno's cache in the test's own directory, no update check, no colour.
fn deno_env(test: Test, cache: &Path) -> Test {
    test.env("DENO_DIR", cache)
        .env("DENO_NO_UPDATE_CHECK", "1")
        .env("NO_COLOR", "1")
}

fn deno_json() -> String {
    formatdoc!(
        "
            {{
              \"tasks\": {{
                \"args\": {{
                  \"description\": \"Print the arguments\",
                  \"command\": \"{PRINT_ARGS}\"
                }},
                \"echo\": \"echo\",
                \"fail\": \"exit 7\"
              }}
            }}
        "
    )
}

#[test]
fn deno_tasks_get_their_args_verbatim() {
    require!("deno");
    let cache = tempfile::tempdir().expect("tmp");
    let test = Test::new().write("deno.json", deno_json());
    let json = Test::at(test.root()).list_json();
    let args = &json["tasks"][0];
    assert_eq!(args["unique_name"], "args", "{json}");
    assert_eq!(args["command"], "deno task args");
    assert_eq!(args["description"], "Print the arguments");
    assert_eq!(args["runner_available"], true);
    let agg = || deno_env(Test::at(test.root()), cache.path());
    assert_tricky_args_arrive(agg(), "args", &[]);
    // A `--` among the arguments is one of them: deno passes it on.
    let out = agg()
        .args(["run", "echo", "--", "--", "-x"])
        .run()
        .success();
    assert_eq!(out.stdout, "-- -x\n", "{}", out.stderr);
    agg().args(["run", "fail"]).run().code(7);
}

/// A deno task command (JSON-escaped) that prints `label` and its working directory.
fn print_cwd(label: &str) -> String {
    format!(r#"deno eval \"console.log('{label} ' + Deno.cwd())\""#)
}

#[test]
fn a_jsonc_member_of_a_workspace_runs_in_its_directory_after_the_roots_task() {
    require!("deno");
    let cache = tempfile::tempdir().expect("tmp");
    let test = Test::new()
        .write(
            "deno.json",
            formatdoc!(
                "
                    {{
                      \"workspace\": [\"./apps/*\"],
                      \"tasks\": {{
                        \"prepare\": \"{}\"
                      }}
                    }}
                ",
                print_cwd("prepare")
            ),
        )
        .write(
            "apps/web/deno.jsonc",
            formatdoc!(
                "
                    // comments and trailing commas, as deno allows them
                    {{
                      \"tasks\": {{
                        \"where\": {{
                          \"command\": \"{}\",
                          \"dependencies\": [\"prepare\"],
                        }},
                        \"all\": {{ \"dependencies\": [\"where\"] }},
                      }},
                    }}
                ",
                print_cwd("where")
            ),
        );
    assert_no_diagnostics(&Test::at(test.root()).list_json());
    let out = deno_env(Test::at(test.root()), cache.path())
        .args(["run", "apps/web/all"])
        .run()
        .success();
    let root = std::fs::canonicalize(test.root()).expect("root");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(
        lines,
        [
            format!("prepare {}", root.display()),
            format!("where {}", root.join("apps/web").display())
        ],
        "{}",
        out.stderr
    );
}

#[tokio::test]
async fn deno_tasks_run_through_mcp_with_their_args() {
    require!("deno");
    let cache = tempfile::tempdir().expect("tmp");
    let cache = cache.path().to_string_lossy().into_owned();
    // An agent may not set `DENO_*` (a cache directory decides what code runs): the server's
    // own environment carries them, as a person's shell would.
    let env = [("DENO_DIR", cache.as_str()), ("DENO_NO_UPDATE_CHECK", "1")];
    let mcp = mcp_allowing_any_args(repo(&[("deno.json", &deno_json())]), &env).await;
    let text = passes_through_mcp(&mcp, "args", &TRICKY_FOR_AGENTS).await;
    assert_eq!(argv_json(&text), TRICKY_FOR_AGENTS, "{text}");
    mcp.client.cancel().await.expect("close");
}

#[test]
fn agg_lists_what_deno_task_lists_in_the_fixture_workspace() {
    require!("deno");
    let cache = tempfile::tempdir().expect("tmp");
    let copy = Test::fixture_copy("deno-edge-cases");
    let json = Test::at(copy.root()).list_json();
    for member in [
        "workspace",
        "workspace/apps/web",
        "workspace/packages/utils",
        "workspace/packages/http",
        "both-files",
    ] {
        let ours = source_names_in(&json, member);
        assert!(!ours.is_empty(), "{member}");
        let theirs = deno_tasks(&copy.root().join(member), cache.path());
        assert_eq!(Some(ours), theirs, "{member}");
    }
}
