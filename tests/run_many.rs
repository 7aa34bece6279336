//! `agg run` with several names: in order, stopping at the first failure; at once with
//! `--parallel`; arguments after `--` for the last task; and the words agg refuses to guess
//! about. Off a terminal: no status line, no colour.

use std::process::{Command, Stdio};
use std::time::Duration;

use crate::common::{alive, have, read_pid};
use crate::test::{Output, Test};

/// Each target appends its name to `ran`, so the order is on disk.
const MAKEFILE: &str = "\
one:\n\t@echo one >> ran; echo one says hi\n\n\
two:\n\t@echo two >> ran; echo two says hi\n\n\
fail:\n\t@echo fail >> ran; echo failing >&2; exit 3\n\n\
ping:\n\t@touch ping; for i in $$(seq 100); do [ -f pong ] && echo ping saw pong && exit 0; sleep 0.05; done; exit 9\n\n\
pong:\n\t@for i in $$(seq 100); do [ -f ping ] && touch pong && echo pong saw ping && exit 0; sleep 0.05; done; exit 9\n\n\
slow:\n\t@for i in 1 2 3; do echo slow $$i; sleep 0.2; done\n\n\
quick-fail:\n\t@echo quick; exit 4\n\n\
flood-a:\n\t@seq 1 200000\n\n\
flood-b:\n\t@seq 1 200000\n\n\
sleeper-a:\n\t@echo $$$$ > a.pid; exec sleep 300\n\n\
sleeper-b:\n\t@echo $$$$ > b.pid; exec sleep 300\n";

const JUSTFILE: &str = "\
greet name=\"you\":\n    @echo hello {{name}}\n\n\
hi:\n    @echo hi there\n";

/// `agg ARGS…` on the repository `test` wrote.
fn agg(test: &Test, args: &[&str]) -> Output {
    Test::at(test.root()).args(args).run()
}

fn ran(test: &Test) -> String {
    std::fs::read_to_string(test.root().join("ran")).unwrap_or_default()
}

#[test]
fn several_names_run_in_order_and_stop_at_the_first_failure() {
    require!("make");
    let cache = tempfile::tempdir().expect("cache");
    let test = Test::new().write("Makefile", MAKEFILE);
    // Every run with one history store, to read the runs back.
    let remembered = |args: &[&str]| {
        Test::at(test.root())
            .args(args)
            .env("XDG_STATE_HOME", cache.path())
            .run()
    };
    let out = remembered(&["run", "one", "two"]).success();
    assert_eq!(ran(&test), "one\ntwo\n");
    assert!(
        out.stderr
            .contains("agg: running one, then two in order (arguments go after `--`"),
        "the person sees what agg took for task names: {}",
        out.stderr
    );
    assert!(
        !out.stderr.contains('✓'),
        "no status line off a terminal: {}",
        out.stderr
    );

    std::fs::remove_file(test.root().join("ran")).expect("rm");
    // make's own code for a failed recipe.
    remembered(&["run", "one", "fail", "two"]).code(2);
    assert_eq!(ran(&test), "one\nfail\n", "two never started");

    let history = remembered(&["ps", "--history", "10", "--json"])
        .success()
        .json();
    let runs: Vec<(String, String)> = history["history"]
        .as_array()
        .expect("history")
        .iter()
        .map(|r| {
            (
                r["unique_name"].as_str().unwrap_or("").to_owned(),
                r["via"].as_str().unwrap_or("").to_owned(),
            )
        })
        .collect();
    let names: Vec<&str> = runs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["fail", "one", "two", "one"], "{history}");
    assert!(runs.iter().all(|(_, via)| via == "agg run"), "{history}");
}

#[test]
fn arguments_after_the_separator_reach_the_last_task() {
    require!("just");
    let test = Test::new().write("justfile", JUSTFILE);
    let out = agg(&test, &["run", "hi", "greet", "--", "Ada"]).success();
    assert_eq!(out.stdout, "hi there\nhello Ada\n");
    // One name, and words that name no task: the task's arguments, as before.
    let out = agg(&test, &["run", "greet", "Grace"]).success();
    assert_eq!(out.stdout, "hello Grace\n");
    // A `--` with nothing after it says every word before it is a task.
    let out = agg(&test, &["run", "greet", "hi", "--"]).success();
    assert_eq!(out.stdout, "hello you\nhi there\n");
    // Before `--`, a word with a leading `-` is one of agg's options, wherever it is.
    let out = agg(&test, &["run", "greet", "-e", "A=1", "Grace"]).success();
    assert_eq!(out.stdout, "hello Grace\n");
    let out = agg(&test, &["run", "greet", "--loud"]).code(2);
    out.stderr_has("to pass '--loud' as a value, use '-- --loud'");
}

#[test]
fn a_word_that_could_be_a_task_or_an_argument_is_refused_before_anything_runs() {
    require!("just", "make");
    let test = Test::new()
        .write("justfile", JUSTFILE)
        .write("Makefile", MAKEFILE);
    // `greet` takes a parameter and `hi` is a task: `just greet hi` would greet "hi".
    let out = agg(&test, &["run", "greet", "hi"]).code(2);
    assert!(out.stdout.is_empty(), "nothing ran: {}", out.stdout);
    out.stderr_has("`greet` takes arguments, and `hi` is also a task name");
    out.stderr_has("agg run greet hi --\n");
    out.stderr_has("agg run greet -- hi");

    // A task name among words that are not: which are arguments cannot be guessed.
    let out = agg(&test, &["run", "one", "two", "extra"]).code(2);
    out.stderr_has("after `one`, `two` is a task name but `extra` is not");
    out.stderr_has("agg run one two -- extra");
    assert_eq!(ran(&test), "", "nothing ran");

    // With `--`, a name that is no task is an error, and nothing runs either.
    let out = agg(&test, &["run", "one", "tow", "--"]).code(2);
    out.stderr_has("no task named `tow`");
    out.stderr_has("did you mean: two");
    assert_eq!(ran(&test), "");
}

#[test]
fn a_task_that_cannot_run_stops_the_list_before_anything_runs() {
    require!("make");
    let path = "/usr/bin:/bin";
    if which::which_in("just", Some(path), "/").is_ok() {
        crate::common::skipped("just is in /usr/bin (the test needs a PATH without it)");
        return;
    }
    let test = Test::new()
        .write("Makefile", MAKEFILE)
        .write("justfile", JUSTFILE);
    let out = Test::at(test.root())
        .args(["run", "one", "hi", "--"])
        .env("PATH", path)
        .run()
        .code(127);
    assert!(
        out.stderr
            .contains("`hi` needs just, which is not installed"),
        "checked as `agg run hi` is: {}",
        out.stderr
    );
    assert_eq!(ran(&test), "", "`one` did not run either");
}

#[test]
fn until_ready_takes_a_single_task() {
    require!("make");
    let test = Test::new().write("Makefile", MAKEFILE);
    let out = agg(&test, &["run", "--until-ready", "one", "two", "--"]).code(2);
    out.stderr_has("--until-ready starts one service");
    assert_eq!(ran(&test), "");
}

#[test]
fn parallel_runs_every_task_at_once_with_each_line_prefixed() {
    require!("make");
    let test = Test::new().write("Makefile", MAKEFILE);
    // ping waits for pong's file and pong for ping's: in order, one would wait forever.
    let out = agg(&test, &["run", "--parallel", "ping", "pong"]).success();
    let mut lines: Vec<&str> = out.stdout.lines().collect();
    lines.sort_unstable();
    assert_eq!(lines, ["ping | ping saw pong", "pong | pong saw ping"]);
    assert!(!out.stdout.contains('\x1b'), "no colour in a pipe");

    // Every task runs to its end; the exit code is the failure's; stderr lines stay on
    // stderr, prefixed too; names are padded to one width.
    let out = agg(&test, &["run", "-p", "slow", "quick-fail"]).code(2);
    let slow: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.starts_with("slow       | "))
        .collect();
    assert_eq!(
        slow,
        [
            "slow       | slow 1",
            "slow       | slow 2",
            "slow       | slow 3"
        ],
        "{}",
        out.stdout
    );
    out.stdout_has("quick-fail | quick");
    out.stderr_has("quick-fail | make: *** [Makefile:");
}

#[test]
fn parallel_passes_on_every_line_of_tasks_that_flood_their_output() {
    require!("make");
    let test = Test::new().write("Makefile", MAKEFILE);
    let out = agg(&test, &["run", "-p", "flood-a", "flood-b"]).success();
    for name in ["flood-a", "flood-b"] {
        let prefix = format!("{name} | ");
        let numbers: Vec<u32> = out
            .stdout
            .lines()
            .filter_map(|l| l.strip_prefix(&prefix))
            .map(|n| n.parse().expect("a number"))
            .collect();
        assert_eq!(numbers.len(), 200_000, "{name}: {}", out.stderr);
        assert!(
            numbers.iter().zip(1..).all(|(n, i)| *n == i),
            "{name}: in order"
        );
    }
    out.stderr_lacks("not shown");
}

#[tokio::test]
async fn sigterm_to_a_parallel_run_stops_every_task_tree() {
    if !have("make") {
        return;
    }
    let test = Test::new().write("Makefile", MAKEFILE);
    let mut child = Command::new(env!("CARGO_BIN_EXE_agg"))
        .args(["run", "--parallel", "sleeper-a", "sleeper-b"])
        .current_dir(test.root())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("agg");
    let a = read_pid(&test.root().join("a.pid")).await;
    let b = read_pid(&test.root().join("b.pid")).await;
    assert!(alive(a) && alive(b));
    let agg = nix::unistd::Pid::from_raw(i32::try_from(child.id()).expect("pid"));
    nix::sys::signal::kill(agg, nix::sys::signal::Signal::SIGTERM).expect("kill");
    let status = tokio::task::spawn_blocking(move || child.wait())
        .await
        .expect("join")
        .expect("wait");
    assert_eq!(status.code(), Some(128 + 15));
    crate::common::eventually(Duration::from_secs(10), "both sleepers gone", || {
        !alive(a) && !alive(b)
    })
    .await;
}
