//! Hostile inputs: a YAML alias bomb, 100k-deep nesting, invalid UTF-8, CRLF, symlink
//! loops, a 20 MB single line. `agg list` must answer with a diagnostic for each and still
//! list every other file's tasks. A run that takes more than a minute counts as a hang.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::test::{Test, diagnostics, rows, task};
use indoc::formatdoc;

/// Runs `agg list --json` on `root`, failing if it hangs; returns the JSON and the time.
fn list(root: &std::path::Path) -> (Value, Duration) {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_agg"))
        .args(["list", "--json"])
        .arg(root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    let stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut { stdout }, &mut s);
        s
    });
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            assert!(status.success(), "agg list failed: {status:?}");
            break;
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("agg list hung on hostile input");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = reader.join().expect("reader");
    (serde_json::from_str(&out).expect("JSON"), started.elapsed())
}

/// The diagnostics of an `agg list --json` document (or a `list_tasks` result) for `file`.
pub(crate) fn diag_for<'a>(json: &'a Value, file: &str) -> Vec<&'a str> {
    diagnostics(json)
        .filter(|d| d["file_path"] == file)
        .filter_map(|d| d["message"].as_str())
        .collect()
}

fn names(json: &Value) -> Vec<&str> {
    rows(json)
        .filter_map(|t| t["unique_name"].as_str())
        .collect()
}

#[test]
fn hostile_inputs_become_diagnostics_and_lose_nothing_else() {
    let dir = Test::fixture_copy("hostile")
        // 20 MB on one line: over the task-file cap.
        .write("wide/justfile", "a".repeat(20 << 20))
        // 7 MB single lines under the cap reach the parsers themselves.
        .write(
            "wide-under-cap/justfile",
            format!("x := '{}", "y".repeat(7 << 20)),
        )
        .write(
            "wide-under-cap/Makefile",
            format!("target: {}", "dep ".repeat(7 << 18)),
        )
        .write(
            "wide-under-cap/README.md",
            formatdoc!(
                "
                    # T

                    ## Tasks

                    ### t

                    ```sh
                    echo {}
                    ```
                ",
                "z".repeat(7 << 20)
            ),
        );
    let (json, took) = list(dir.root());
    eprintln!("agg list on the hostile tree took {took:?}");
    let all = names(&json);
    // Every good task survives.
    for want in [
        "good/still-listed",
        "utf8/brew",
        "crlf/build",
        "crlf/test",
        "crlf/deploy",
    ] {
        assert!(all.contains(&want), "{want} missing from {all:?}");
    }
    // Each hostile file is a diagnostic naming it (and saying why, where given).
    for (file, why, what) in [
        ("bomb/Taskfile.yml", "", "alias bomb"),
        ("deep-json/package.json", "", "deep JSON"),
        ("deep-yaml/Taskfile.yml", "", "deep YAML"),
        ("utf8/justfile", "UTF-8", "invalid UTF-8"),
        ("wide/justfile", "limit", "20 MB file"),
    ] {
        assert!(
            diag_for(&json, file).iter().any(|m| m.contains(why)),
            "{what}: {json}"
        );
    }
    let crlf = task(&json, "crlf/build");
    assert_eq!(crlf["description"], "Build on Windows line endings");
    assert_eq!(crlf["command"], "make build");
}

#[test]
fn symlink_loops_are_not_followed() {
    let dir = Test::fixture_copy("hostile");
    let (json, _) = list(dir.root());
    // The self-referential Makefile symlink cannot be read: a diagnostic, nothing else.
    let loop_diags = diag_for(&json, "loop/Makefile");
    assert!(!loop_diags.is_empty(), "{json}");
    assert!(!names(&json).iter().any(|n| n.starts_with("loop/")));
}

/// mise follows symlinks in its task directories; a loop there (`self -> .`, `up -> ..`) is
/// read once and reported, not listed as thousands of `self:self:…` tasks.
#[test]
fn a_mise_task_directory_loop_is_read_once() {
    let dir = Test::fixture_copy("hostile");
    let (json, _) = list(dir.root());
    let mut mise: Vec<&str> = names(&json)
        .into_iter()
        .filter(|n| n.starts_with("mise-loop/"))
        .collect();
    mise.sort_unstable();
    assert_eq!(mise, ["mise-loop/build", "mise-loop/lint"], "{json}");
    assert!(
        diag_for(&json, "mise-loop/mise-tasks/self")
            .iter()
            .any(|m| m.contains("symlink loop")),
        "{json}"
    );
}

/// A FIFO named like a task file would block a reader until something writes to it.
#[test]
fn a_fifo_named_like_a_task_file_does_not_block_the_scan() {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::write(dir.path().join("justfile"), "hello:\n    echo hi\n").expect("write");
    std::fs::create_dir(dir.path().join("pipe")).expect("mkdir");
    for name in ["pipe/Makefile", "pipe/package.json"] {
        nix::unistd::mkfifo(&dir.path().join(name), nix::sys::stat::Mode::S_IRWXU).expect("mkfifo");
    }
    let (json, took) = list(dir.path());
    assert!(took < Duration::from_secs(10), "{took:?}");
    assert_eq!(names(&json), ["hello"]);
    for name in ["pipe/Makefile", "pipe/package.json"] {
        let diags = diag_for(&json, name);
        assert!(
            diags.iter().any(|d| d.contains("not a regular file")),
            "{name}: {json}"
        );
    }
}
