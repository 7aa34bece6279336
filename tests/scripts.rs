//! Executable scripts for real: each runs as itself from the directory above its `scripts/`
//! or `bin/`, its arguments verbatim, its exit code passed on; through `agg run` and MCP.

use std::path::Path;

use serde_json::json;

use crate::common::mcp::Mcp;
use crate::run::{TRICKY, argv_json};
use crate::test::Test;

/// Prints its arguments as a JSON array.
const PRINT_ARGS: &str = "#!/usr/bin/env python3\n# Print the arguments.\nimport json, sys\nprint(json.dumps(sys.argv[1:]))\n";

/// A script that prints its arguments as a JSON array and needs nothing on `PATH`: its `#!`
/// line names the Python interpreter itself (not a shim, not `env`).
pub(crate) fn print_args_program() -> String {
    let out = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3");
    let python = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    format!("#!{python}\nimport json, sys\nprint(json.dumps(sys.argv[1:]))\n")
}

/// Writes an executable file under `root`.
pub(crate) fn executable(root: &Path, rel: &str, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(&path, text).expect("write");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

fn names(root: &Path) -> Vec<String> {
    let json = Test::at(root)
        .args(["list", "--json"])
        .run()
        .success()
        .json();
    crate::test::names(&json)
}

#[test]
fn scripts_get_their_args_verbatim_and_pass_on_exit_codes() {
    let test = Test::new().write(".git/HEAD", "ref: refs/heads/main\n");
    let root = test.root().to_path_buf();
    executable(&root, "scripts/args.py", PRINT_ARGS);
    executable(
        &root,
        "scripts/fail",
        "#!/bin/sh\n# Fail on purpose.\nexit 7\n",
    );
    executable(&root, "bin/where", "#!/bin/sh\npwd\n");
    executable(&root, "apps/web/bin/where", "#!/bin/sh\npwd\n");
    executable(&root, "check", "#!/bin/sh\necho \"root script: $1\"\n");
    let json = Test::at(&root)
        .args(["list", "--json"])
        .run()
        .success()
        .json();
    let args = json["tasks"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["unique_name"] == "scripts/args"))
        .unwrap_or_else(|| panic!("no scripts/args in {json}"));
    assert_eq!(args["command"], "./scripts/args.py");
    assert_eq!(args["description"], "Print the arguments.");
    assert_eq!(args["runner_available"], true);

    let out = Test::at(&root)
        .args(["run", "scripts/args", "--"])
        .args(TRICKY)
        .run()
        .success();
    assert_eq!(argv_json(&out.stdout), TRICKY, "{}", out.stderr);
    Test::at(&root).args(["run", "scripts/fail"]).run().code(7);
    let canonical = std::fs::canonicalize(&root).expect("root");
    let out = Test::at(&root).args(["run", "bin/where"]).run().success();
    assert_eq!(out.stdout.trim(), canonical.display().to_string());
    // Run from a subdirectory, the script still runs from the directory above its `bin/`.
    let out = Test::at(&root)
        .current_dir("apps")
        .args(["run", "apps/web/bin/where"])
        .run()
        .success();
    assert_eq!(
        out.stdout.trim(),
        canonical.join("apps/web").display().to_string()
    );
    let out = Test::at(&root)
        .args(["run", "check", "--", "a b"])
        .run()
        .success();
    assert_eq!(out.stdout.trim(), "root script: a b");
}

#[tokio::test]
async fn scripts_run_through_mcp_with_their_args() {
    let test = Test::new();
    executable(test.root(), "scripts/args.py", PRINT_ARGS);
    executable(
        test.root(),
        "scripts/fail",
        "#!/bin/sh\necho failing >&2\nexit 3\n",
    );
    let mcp = Mcp::start(test.into_tempdir(), true).await;
    // Arguments the runner or a shell could read need the person's approval; this one covers them.
    mcp.agg_allow(&["--dir", ".", "--any-args"]);
    let ok = mcp
        .ok(
            "task_start",
            json!({"unique_name": "scripts/args", "args": TRICKY, "wait_ms": 30000}),
        )
        .await;
    assert_eq!(ok["exit_code"], 0, "{ok}");
    let text = ok["output"]["text"].as_str().unwrap_or_default();
    assert_eq!(argv_json(text), TRICKY, "{ok}");
    let failed = mcp
        .ok(
            "task_start",
            json!({"unique_name": "scripts/fail", "wait_ms": 30000}),
        )
        .await;
    assert_eq!(failed["exit_code"], 3, "{failed}");
    assert_eq!(failed["passed"], false);
    mcp.client.cancel().await.expect("close");
}

#[test]
fn only_the_projects_own_scripts_are_listed() {
    let test = Test::new()
        .write(".gitignore", "build/\n")
        .write("README", "#!/bin/sh\nnot executable\n")
        .write("scripts/lib.sh", "#!/bin/sh\n# sourced, not run\n");
    let root = test.root().to_path_buf();
    executable(&root, "scripts/deploy.sh", "#!/bin/sh\n# Deploy.\n");
    executable(&root, "scripts/test", "#!/bin/sh\n");
    executable(&root, "scripts/test.sh", "#!/bin/sh\n");
    executable(&root, "scripts/nested/deeper.sh", "#!/bin/sh\n");
    executable(&root, "bin/tool", "\u{7f}ELF\u{2}\u{1}\u{1}\0\0\0");
    executable(&root, "bin/no-shebang", "echo hi\n");
    executable(&root, "build/bin/generated", "#!/bin/sh\n");
    executable(&root, "vendor/lib/bin/theirs", "#!/bin/sh\n");
    executable(&root, "third_party/x/scripts/theirs", "#!/bin/sh\n");
    executable(&root, ".venv/bin/pip", "#!/usr/bin/python3\n");
    executable(&root, "env/bin/pip", "#!/usr/bin/python3\n");
    std::fs::write(root.join("env/pyvenv.cfg"), "home = /usr\n").expect("write");
    executable(&root, "src/not-a-script-dir.sh", "#!/bin/sh\n");
    assert_eq!(
        names(&root),
        ["scripts/deploy", "scripts/test", "scripts/test.sh"]
    );
}

#[test]
fn an_extension_stays_only_beside_another_program_of_the_same_stem() {
    let test = Test::new().write(".gitignore", "bin/release\n");
    let root = test.root().to_path_buf();
    executable(&root, "bin/build.sh", "#!/bin/sh\n");
    executable(&root, "bin/build.py", "#!/usr/bin/env python3\n");
    // A binary of the same stem is a program too.
    executable(&root, "bin/fmt.sh", "#!/bin/sh\n");
    executable(&root, "bin/fmt", "\u{7f}ELF\u{2}\u{1}\u{1}\0\0\0");
    // An ignored build output, a document and a non-executable file do not count.
    executable(&root, "bin/release.sh", "#!/bin/sh\n");
    executable(&root, "bin/release", "#!/bin/sh\n");
    executable(&root, "bin/lint.sh", "#!/bin/sh\n");
    executable(&root, "bin/lint.md", "notes\n");
    executable(&root, "bin/serve.sh", "#!/bin/sh\n");
    std::fs::write(root.join("bin/serve.js"), "#!/usr/bin/env node\n").expect("write");
    assert_eq!(
        names(&root),
        [
            "bin/build.py",
            "bin/build.sh",
            "bin/fmt.sh",
            "bin/lint",
            "bin/release",
            "bin/serve"
        ]
    );
}

#[test]
fn a_directory_with_only_scripts_is_not_taken_for_a_repository_root() {
    // Without `.git`, agg looks up for the nearest directory with a task file; a file that
    // might be a script says nothing by its name alone.
    let test = Test::new().write("Makefile", "all:\n\t@echo all\n");
    executable(test.root(), "pkg/configure", "#!/bin/sh\necho configured\n");
    let out = Test::at(test.root())
        .current_dir("pkg")
        .args(["list", "--json"])
        .run()
        .success();
    let names = crate::test::names(&out.json());
    assert!(names.contains(&"all".to_owned()), "{names:?}");
}
