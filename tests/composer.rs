//! Composer for real: scripts of `composer.json` run through `agg run` and MCP as
//! `composer run-script NAME -- args`. Composer appends the arguments, each quoted, to every
//! shell command of the script (`@php` ones included, `@putenv` not) and hands them on to
//! `@other` scripts after that reference's own words. Every run here is offline and
//! non-interactive, with its own `COMPOSER_HOME`, and allowed to run as root (CI).

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use crate::common::verbatim::{
    assert_tricky_args_arrive, mcp_allowing_any_args, passes_through_mcp,
};
use crate::run::{TRICKY_FOR_AGENTS, argv_json};
use crate::test::{Test, fixtures, rows, source_names_in};

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
    let listed: Vec<&str> = rows(&json).filter_map(|t| t["command"].as_str()).collect();
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
    let agg = || composer_env(Test::at(test.root()), home.path());
    for task in ["shell", "print"] {
        assert_tricky_args_arrive(agg(), task, &[]);
    }
    // Every command of an array gets the arguments; `@putenv` sets a variable for the rest.
    let out = agg()
        .args(["run", "steps", "--", "a b", "-x"])
        .run()
        .success();
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines, ["hello a b -x", r#"["a b","-x"]"#], "{}", out.stderr);
    // A reference passes them on after its own words.
    let out = agg().args(["run", "ref", "--", "a b"]).run().success();
    assert_eq!(argv_json(&out.stdout), ["first", "a b"], "{}", out.stderr);
    agg().args(["run", "fail"]).run().code(7);
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
    let mcp = mcp_allowing_any_args(project().into_tempdir(), &env).await;
    let text = passes_through_mcp(&mcp, "print", &TRICKY_FOR_AGENTS).await;
    assert_eq!(argv_json(&text), TRICKY_FOR_AGENTS, "{text}");
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
        let ours = source_names_in(&json, dir);
        assert!(!ours.is_empty(), "{dir}");
        assert_eq!(ours, composer_list(&root.join(dir), home.path()), "{dir}");
    }
}
