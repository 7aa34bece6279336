//! Run history: runs of `agg run` are remembered across processes, shown by `agg list`,
//! `agg describe` and `agg ps --history`, kept under many concurrent writers, and a store
//! that cannot be used never fails a run.

use std::path::{Path, PathBuf};

use crate::test::Test;
use indoc::indoc;

const MAKEFILE: &str = indoc! {"
    ok:
    \t@echo fine

    fail:
    \t@exit 2
"};

/// A repository with a Makefile and a cache directory of its own.
struct Repo {
    root: tempfile::TempDir,
    cache: tempfile::TempDir,
}

impl Repo {
    fn new() -> Repo {
        let root = tempfile::tempdir().expect("tmp");
        std::fs::write(root.path().join("Makefile"), MAKEFILE).expect("write");
        Repo {
            root,
            cache: tempfile::tempdir().expect("tmp"),
        }
    }

    fn agg<const N: usize>(&self, args: [&str; N]) -> Test {
        Test::at(self.root.path())
            .env("XDG_STATE_HOME", self.cache.path())
            .args(args)
    }

    fn stores(&self) -> Vec<PathBuf> {
        let dir = self.cache.path().join("agg").join("history");
        std::fs::read_dir(dir)
            .map(|d| {
                d.filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "db"))
                    .collect()
            })
            .unwrap_or_default()
    }
}

fn history_json(repo: &Repo) -> Vec<serde_json::Value> {
    let out = repo
        .agg(["ps", "--history", "100", "--json"])
        .run()
        .success();
    out.json()["history"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// Asserts that the line of `text` that holds `key` says `part`.
#[track_caller]
fn line_says(text: &str, key: &str, part: &str) {
    assert!(
        line_of(text, key).contains(part),
        "{key}: {part:?} in\n{text}"
    );
}

fn line_of<'a>(text: &'a str, task: &str) -> &'a str {
    text.lines()
        .find(|l| l.trim_start().starts_with(&format!("{task} ")))
        .unwrap_or_else(|| panic!("no line for {task} in:\n{text}"))
}

#[test]
fn runs_are_remembered_across_processes_and_shown_by_list_describe_and_ps() {
    require!("make");
    let repo = Repo::new();
    let before = repo.agg(["list"]).run().success();
    assert!(
        !before.stdout.contains('✓') && !before.stdout.contains('✗'),
        "no history, no column:\n{}",
        before.stdout
    );
    assert!(repo.stores().is_empty(), "listing creates no store");
    repo.agg(["run", "ok"]).run().success();
    repo.agg(["run", "ok"]).run().success();
    repo.agg(["run", "fail"]).run().code(2);

    let list = repo.agg(["list"]).run().success();
    line_says(&list.stdout, "ok", "✓ ");
    line_says(&list.stdout, "fail", "✗ exit 2");

    let describe = repo.agg(["describe", "ok"]).run().success();
    let last = line_of(&describe.stdout, "last run");
    assert!(
        last.contains("passed in") && last.contains("(agg run)"),
        "{}",
        describe.stdout
    );
    line_says(&describe.stdout, "typical", "of 2 passed runs");
    let json = repo
        .agg(["describe", "fail", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(json["history"]["last"]["exit_code"], 2, "{json}");
    assert_eq!(json["history"]["runs"], 1, "{json}");

    let runs = history_json(&repo);
    let names: Vec<&str> = runs
        .iter()
        .filter_map(|r| r["unique_name"].as_str())
        .collect();
    assert_eq!(names, ["fail", "ok", "ok"], "newest first: {runs:?}");
    assert!(
        runs.iter()
            .all(|r| r["via"] == "agg run" && r["file"] == "Makefile")
    );
    let ps = repo.agg(["ps", "--history"]).run().success();
    ps.stdout_has("✗ exit 2");
    ps.stdout_has("✓ passed");
}

#[test]
fn concurrent_runs_in_one_repository_are_all_recorded() {
    require!("make");
    let repo = Repo::new();
    let runs: Vec<_> = (0..20)
        .map(|_| {
            std::process::Command::new(env!("CARGO_BIN_EXE_agg"))
                .args(["run", "ok"])
                .current_dir(repo.root.path())
                .env("XDG_STATE_HOME", repo.cache.path())
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn agg")
        })
        .collect();
    for child in runs {
        let out = child.wait_with_output().expect("wait");
        assert!(
            out.status.success(),
            "a run failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(repo.stores().len(), 1, "one store per repository");
    assert_eq!(history_json(&repo).len(), 20, "every run is recorded");
}

#[test]
fn a_corrupt_store_never_fails_a_run_and_is_started_afresh() {
    require!("make");
    let repo = Repo::new();
    repo.agg(["run", "ok"]).run().success();
    let stores = repo.stores();
    assert_eq!(stores.len(), 1);
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", stores[0].display()));
    }
    std::fs::write(&stores[0], vec![0x5au8; 16 * 1024]).expect("corrupt the store");
    repo.agg(["list"]).run().success();
    repo.agg(["describe", "ok"]).run().success();
    repo.agg(["ps", "--history"]).run().success();
    repo.agg(["run", "fail"]).run().code(2);
    let runs = history_json(&repo);
    assert_eq!(runs.len(), 1, "a fresh store with the new run: {runs:?}");
    assert_eq!(runs[0]["exit_code"], 2);
}

#[test]
fn an_unwritable_history_never_fails_a_run() {
    require!("make");
    let repo = Repo::new();
    // The store's directory cannot be created: a file stands in its place.
    let agg_cache = repo.cache.path().join("agg");
    std::fs::create_dir_all(&agg_cache).expect("mkdir");
    std::fs::write(agg_cache.join("history"), "not a directory").expect("write");
    let out = repo.agg(["run", "ok"]).run().success();
    out.stdout_has("fine");
    repo.agg(["run", "fail"]).run().code(2);
    repo.agg(["list"]).run().success();
    let ps = repo.agg(["ps", "--history"]).run().success();
    ps.stdout_has("no finished runs");
    assert!(!Path::new(&agg_cache.join("history")).is_dir());
}
