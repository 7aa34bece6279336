//! A person's `agg run`, shared: it behaves at their terminal as it always did (a terminal
//! for the task, colours, its size, job control), its output goes to a bounded log, `agg ps`
//! lists it, an agent's `list_runs` sees it and `task_output` reads it, `task_stop` is refused
//! however the agent names it, and the person's `agg stop` ends it.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::mcp::Mcp;
use crate::common::tmux::Tmux;

/// A dev server that says it compiled, then ticks; a task that reports its terminal.
const MAKEFILE: &str = "\
dev:
\t@echo 'starting'; echo 'Error: config missing, using defaults' >&2; echo 'compiled successfully'; \\
\ti=0; while true; do echo \"tick $$i\"; i=$$((i+1)); sleep 0.2; done
tty:
\t@if [ -t 1 ]; then echo 'out: terminal'; else echo 'out: not a terminal'; fi
\t@if [ -t 2 ]; then echo 'err: terminal' >&2; else echo 'err: not a terminal' >&2; fi
\t@if [ -t 0 ]; then echo 'in: terminal'; else echo 'in: not a terminal'; fi
\t@printf '\\033[31mred\\033[0m\\n'
\t@echo \"size: $$(stty size)\"
resize:
\t@trap 'echo \"resized: $$(stty size)\"' WINCH; echo 'waiting'; i=0; while [ $$i -lt 100 ]; do sleep 0.1; i=$$((i+1)); done
flood:
\t@while true; do echo flood; done
";

/// `agg ARGS` in `dir` with the cache and runtime directories of the test.
fn agg(dir: &Path, cache: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_agg"))
        .args(args)
        .current_dir(dir)
        .env("XDG_CACHE_HOME", cache)
        .env("XDG_RUNTIME_DIR", cache.join("runtime"))
        .env("NO_COLOR", "1")
        .output()
        .expect("run agg")
}

/// Polls `task_output` until its text holds `text`, for a few seconds.
async fn output_saying(mcp: &Mcp, args: Value, text: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let out = mcp.ok("task_output", args.clone()).await;
        if out.to_string().contains(text) {
            return out;
        }
        assert!(Instant::now() < deadline, "no `{text}` in {out}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_s_run_is_listed_read_and_never_stopped_by_an_agent() {
    require!("tmux", "make");
    let repo = crate::common::repo(&[("Makefile", MAKEFILE)]);
    let cache = tempfile::tempdir().expect("cache");
    std::fs::create_dir_all(cache.path().join("runtime")).expect("runtime");
    let pane = Tmux::start(
        repo.path(),
        "run dev",
        &[
            ("XDG_CACHE_HOME", cache.path()),
            ("XDG_RUNTIME_DIR", &cache.path().join("runtime")),
        ],
        100,
        30,
    );
    pane.wait_for("tick 2");
    // The agent's server on the person's repository.
    let root = std::fs::canonicalize(repo.path()).expect("root");
    let mcp = Mcp::start_env(
        repo,
        true,
        &[("XDG_CACHE_HOME", &cache.path().to_string_lossy())],
    )
    .await;
    let runs = mcp.ok("list_runs", json!({})).await;
    let run = runs["runs"]
        .as_array()
        .and_then(|r| r.iter().find(|r| r["unique_name"] == "dev"))
        .cloned()
        .unwrap_or_else(|| panic!("the person's run is listed: {runs}"));
    assert_eq!(run["by"], "person", "{run}");
    assert_eq!(run["state"], "running", "{run}");
    let run_id = run["run_id"].as_str().expect("run_id").to_owned();
    // Its output, read like an agent's own job: a page, a grep, by name too.
    output_saying(
        &mcp,
        json!({"run_id": run_id, "grep": "compiled"}),
        "compiled successfully",
    )
    .await;
    let found = output_saying(
        &mcp,
        json!({"run_id": run_id, "grep": "^Error:"}),
        "config missing",
    )
    .await;
    assert!(
        found["matches"]["text"]
            .as_str()
            .unwrap_or("")
            .contains(':'),
        "{found}"
    );
    output_saying(&mcp, json!({"unique_name": "dev"}), "tick").await;
    let status = mcp.ok("task_status", json!({"run_id": run_id})).await;
    assert_eq!(status["state"], "running", "{status}");
    assert!(
        status.get("pid").is_none(),
        "an observed run exposes no pid to signal: {status}"
    );
    // Stopping it is refused, however the agent names it; it keeps running.
    for by in [json!({"run_id": run_id}), json!({"unique_name": "dev"})] {
        mcp.err_saying("task_stop", by, -32019, "agents may read it, never stop it")
            .await;
    }
    let pid = run["pid"].as_u64().expect("pid");
    let refused = mcp.err("task_stop", json!({"pid": pid}), -32019).await;
    assert!(
        refused["hint"].as_str().unwrap_or("").contains("agg stop"),
        "{refused}"
    );
    let ticks = pane.screen().matches("tick").count();
    pane.wait("more ticks", |s| {
        s.matches("tick").count() > ticks || s.contains("tick 2")
    });
    assert!(!pane.screen().contains("agg exited"), "{}", pane.screen());
    // The person sees it in agg ps, and stops it.
    let ps = agg(&root, cache.path(), &["ps"]);
    let ps_text = String::from_utf8_lossy(&ps.stdout);
    assert!(
        ps_text.contains(&run_id) && ps_text.contains("agg run"),
        "{ps_text}"
    );
    let stop = agg(
        &root,
        cache.path(),
        &["stop", &run_id, "--grace-ms", "2000"],
    );
    let said = String::from_utf8_lossy(&stop.stdout);
    assert!(
        stop.status.success() && said.contains("stopped: by SIGTERM"),
        "{said}{}",
        String::from_utf8_lossy(&stop.stderr)
    );
    pane.exit_line();
    // The agent sees how it ended, and can still read it.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let status = mcp.ok("task_status", json!({"run_id": run_id})).await;
        if status["state"] != "running" {
            // SIGTERM reaches make and its recipe's shell at once, as Ctrl-C would: make
            // either dies of it or, when its child is gone before it waits for it, exits 2
            // saying so. Either way the run ended because of the stop.
            let by_signal = status["state"] == "signaled";
            let make_gave_up = status["state"] == "exited" && status["exit_code"] == 2;
            assert!(by_signal || make_gave_up, "{status}");
            break;
        }
        assert!(Instant::now() < deadline, "{status}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    output_saying(
        &mcp,
        json!({"run_id": run_id, "output": "full"}),
        "starting",
    )
    .await;
    mcp.close().await;
}

#[test]
fn a_run_at_a_terminal_still_writes_to_a_terminal_and_follows_its_size() {
    require!("tmux", "make");
    let repo = crate::common::repo(&[("Makefile", MAKEFILE)]);
    let cache = tempfile::tempdir().expect("cache");
    let env = [("XDG_CACHE_HOME", cache.path())];
    let pane = Tmux::start(repo.path(), "run tty", &env, 90, 25);
    pane.assert_exited(0);
    let screen = pane.screen();
    for line in [
        "out: terminal",
        "err: terminal",
        "in: terminal",
        "size: 25 90",
    ] {
        assert!(screen.contains(line), "{line}: {screen}");
    }
    assert!(
        pane.screen_styled().contains("\u{1b}[31mred"),
        "{}",
        pane.screen_styled()
    );
    // The copy in the log is what the task printed, colours and all.
    let logs = agg(repo.path(), cache.path(), &["logs", "tty", "--raw"]);
    let log = String::from_utf8_lossy(&logs.stdout);
    assert!(
        log.contains("out: terminal") && log.contains("\u{1b}[31mred"),
        "{log}"
    );
    // A resized window reaches the task with its new size.
    let pane = Tmux::start(repo.path(), "run resize", &env, 90, 25);
    pane.wait_for("waiting");
    pane.resize(70, 20);
    pane.wait_for("resized: 20 70");
}

#[test]
fn off_a_terminal_a_run_keeps_its_streams_apart_and_its_broken_pipe() {
    require!("make");
    let repo = crate::common::repo(&[("Makefile", MAKEFILE)]);
    let cache = tempfile::tempdir().expect("cache");
    let out = agg(repo.path(), cache.path(), &["run", "tty"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stdout.contains("out: not a terminal") && !stdout.contains("err:"),
        "{stdout}"
    );
    assert!(stderr.contains("err: not a terminal"), "{stderr}");
    // `agg run flood | head -1` ends: the task gets its broken pipe as it did before.
    let started = Instant::now();
    let piped = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "'{}' run flood | head -1",
            env!("CARGO_BIN_EXE_agg")
        ))
        .current_dir(repo.path())
        .env("XDG_CACHE_HOME", cache.path())
        .output()
        .expect("sh");
    assert_eq!(String::from_utf8_lossy(&piped.stdout), "flood\n");
    assert!(started.elapsed() < Duration::from_secs(20));
    let ps = agg(repo.path(), cache.path(), &["ps", "--json"]);
    let listed: Value = serde_json::from_slice(&ps.stdout).expect("json");
    let names: Vec<&str> = listed
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|s| s["jobs"].as_array().into_iter().flatten())
        .filter_map(|j| j["unique_name"].as_str())
        .collect();
    assert!(
        names.contains(&"tty") && names.contains(&"flood"),
        "{listed}"
    );
}
