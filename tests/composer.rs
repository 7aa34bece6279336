//! Composer for real: scripts of `composer.json` run through `agg run` and MCP as
//! `composer run-script NAME -- args`. Composer appends the arguments, each quoted, to every
//! shell command of the script (`@php` ones included, `@putenv` not) and hands them on to
//! `@other` scripts after that reference's own words. Every run here is offline and
//! non-interactive, with its own `COMPOSER_HOME`, and allowed to run as root (CI).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use serde_json::json;

use crate::common::mcp::Mcp;
use crate::common::repo;
use crate::run::{TRICKY, argv_json};
use crate::test::{Test, fixtures};

/// Prints its arguments as a JSON array.
const PRINT_ARGS_PHP: &str = "<?php\necho json_encode(array_slice($argv, 1)), PHP_EOL;\n";

const COMPOSER_JSON: &str = r#"{
    "name": "acme/args",
    "scripts": {
        "post-install-cmd": "echo never listed",
        "shell": "php bin/print-args.php",
        "print": "@php bin/print-args.php",
        "steps": ["@putenv GREETING=hello", "echo $GREETING", "@php bin/print-args.php"],
        "ref": "@first",
        "first": "@php bin/print-args.php first",
        "fail": "exit 7"
    },
    "scripts-descriptions": {
        "print": "Print the arguments with the PHP Composer runs on"
    }
}
"#;

/// The environment Composer needs to run quietly in a test: its own home, no network, no
/// questions, and no refusal as root.
const COMPOSER_ENV: [(&str, &str); 3] = [
    ("COMPOSER_ALLOW_SUPERUSER", "1"),
    ("COMPOSER_NO_INTERACTION", "1"),
    ("COMPOSER_DISABLE_NETWORK", "1"),
];

fn composer_env(test: Test, home: &Path) -> Test {
    COMPOSER_ENV
        .iter()
        .fold(test.env("COMPOSER_HOME", home), |t, (k, v)| t.env(k, v))
}

fn project() -> Test {
    Test::new()
        .write("composer.json", COMPOSER_JSON)
        .write("bin/print-args.php", PRINT_ARGS_PHP)
}

#[test]
fn composer_scripts_get_their_args_verbatim_after_a_separator() {
    require!("composer", "php");
    let home = tempfile::tempdir().expect("tmp");
    let test = project();
    let json = Test::at(test.root()).list_json();
    let listed: Vec<&str> = json["tasks"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["command"].as_str())
        .collect();
    assert_eq!(
        listed,
        [
            "composer run-script shell",
            "composer run-script print",
            "composer run-script steps",
            "composer run-script ref",
            "composer run-script first",
            "composer run-script fail",
        ],
        "{json}"
    );
    for task in ["shell", "print"] {
        let out = composer_env(Test::at(test.root()), home.path())
            .args(["run", task, "--"])
            .args(TRICKY)
            .run()
            .success();
        assert_eq!(argv_json(&out.stdout), TRICKY, "{task}: {}", out.stderr);
    }
    // Every command of an array gets the arguments; `@putenv` sets a variable for the rest.
    let out = composer_env(Test::at(test.root()), home.path())
        .args(["run", "steps", "--", "a b", "-x"])
        .run()
        .success();
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines, ["hello a b -x", r#"["a b","-x"]"#], "{}", out.stderr);
    // A reference passes them on after its own words.
    let out = composer_env(Test::at(test.root()), home.path())
        .args(["run", "ref", "--", "a b"])
        .run()
        .success();
    assert_eq!(argv_json(&out.stdout), ["first", "a b"], "{}", out.stderr);
    composer_env(Test::at(test.root()), home.path())
        .args(["run", "fail"])
        .run()
        .code(7);
}

#[tokio::test]
async fn composer_scripts_run_through_mcp_with_their_args() {
    require!("composer", "php");
    // An agent may not set `COMPOSER_*` (they change what composer loads): the server's own
    // environment carries them, as a person's shell would.
    let home = tempfile::tempdir().expect("tmp");
    let home_path = home.path().to_string_lossy().into_owned();
    let mut env: Vec<(&str, &str)> = COMPOSER_ENV.to_vec();
    env.push(("COMPOSER_HOME", &home_path));
    let mcp = Mcp::start_env(
        repo(&[
            ("composer.json", COMPOSER_JSON),
            ("bin/print-args.php", PRINT_ARGS_PHP),
        ]),
        true,
        &env,
    )
    .await;
    // The arguments are tricky on purpose: the person allows agents to pass any.
    mcp.agg_allow(&["--dir", ".", "--any-args"]);
    let run = mcp
        .ok(
            "task_start",
            json!({"unique_name": "print", "args": TRICKY, "output": "full", "wait_ms": 120_000}),
        )
        .await;
    assert_eq!(run["exit_code"], 0, "{run}");
    let text = run["output"]["text"].as_str().unwrap_or_default();
    assert_eq!(argv_json(text), TRICKY, "{run}");
    mcp.client.cancel().await.expect("close");
}

/// The scripts `composer run-script --list` lists in `dir`, without Composer's events.
fn composer_list(dir: &Path, home: &Path) -> BTreeSet<String> {
    let mut command = Command::new("composer");
    command
        .args(["run-script", "--list"])
        .current_dir(dir)
        .env("COMPOSER_HOME", home);
    for (k, v) in COMPOSER_ENV {
        command.env(k, v);
    }
    let out = command.output().expect("composer");
    assert!(
        out.status.success(),
        "{:?}: {}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // The list goes to stdout (a table) after a `scripts:` heading on stderr.
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| !agg_runners::composer::EVENTS.contains(name))
        .map(str::to_owned)
        .collect()
}

#[test]
fn agg_lists_what_composer_lists_on_the_fixture() {
    require!("composer", "php");
    let home = tempfile::tempdir().expect("tmp");
    let root = fixtures().join("composer-edge-cases");
    let json = Test::at(&root).list_here_json(&[]);
    for dir in [".", "packages/billing", "apps/admin"] {
        let ours: BTreeSet<String> = json["tasks"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|t| t["dir"] == dir)
            .filter_map(|t| t["source_name"].as_str().map(str::to_owned))
            .collect();
        assert!(!ours.is_empty(), "{dir}");
        assert_eq!(ours, composer_list(&root.join(dir), home.path()), "{dir}");
    }
}
