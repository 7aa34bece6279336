//! The job engine with real processes and real signals: capture, first-window results,
//! stop and kill of whole process trees, limits, and the bad cases (missing programs,
//! vanished directories, escaped daemons, output floods).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::{alive, eventually, read_pid};
use agg::engine::{
    Duplicates, Engine, EngineConfig, Invocation, JobState, OutputLimits, ReadRequest, StdioMode,
    Stream,
};

/// A shell-script invocation named `name`, run in `dir`.
pub fn sh(name: &str, dir: &Path, script: &str) -> Invocation {
    Invocation {
        unique_name: name.to_owned(),
        program: "sh".into(),
        args: vec!["-c".into(), script.into()],
        cwd: dir.to_path_buf(),
        env: Vec::new(),
        user_args: Vec::new(),
        user_env: Vec::new(),
        temp: None,
    }
}

fn tmp() -> tempfile::TempDir {
    tempfile::tempdir().expect("tmp")
}

fn text(engine_page: &agg::engine::Page) -> Vec<String> {
    engine_page.lines.iter().map(|l| l.text.clone()).collect()
}

#[tokio::test]
async fn a_fast_task_returns_its_exit_code_and_output_within_the_window() {
    let dir = tmp();
    let engine = Engine::default();
    let (started, finished) = engine
        .start_and_wait(
            sh("t", dir.path(), "echo out; echo err >&2; exit 3"),
            Duration::from_secs(10),
            Duplicates::Reuse,
        )
        .await
        .expect("start");
    assert!(finished);
    let snap = started.job.snapshot();
    assert_eq!(snap.state, JobState::Exited);
    assert_eq!(snap.exit_code, Some(3));
    let page = started.job.read(&ReadRequest::default());
    let mut lines: Vec<(Stream, String)> = page
        .lines
        .iter()
        .map(|l| (l.stream, l.text.clone()))
        .collect();
    lines.sort_by_key(|(s, _)| *s == Stream::Stderr);
    assert_eq!(
        lines,
        [
            (Stream::Stdout, "out".to_owned()),
            (Stream::Stderr, "err".to_owned())
        ]
    );
    assert!(snap.run_id.starts_with("t-"), "{}", snap.run_id);
    assert!(snap.finished_at.is_some());
}

#[tokio::test]
async fn a_slow_task_keeps_running_and_its_output_arrives_later() {
    let dir = tmp();
    let engine = Engine::default();
    let (started, finished) = engine
        .start_and_wait(
            sh(
                "slow",
                dir.path(),
                "echo first; while [ ! -f go ]; do sleep 0.02; done; echo second",
            ),
            Duration::from_millis(300),
            Duplicates::Reuse,
        )
        .await
        .expect("start");
    assert!(!finished);
    let job = started.job;
    assert_eq!(job.state(), JobState::Running);
    eventually(Duration::from_secs(5), "first line", || {
        text(&job.read(&ReadRequest::default())) == ["first"]
    })
    .await;
    std::fs::write(dir.path().join("go"), "").expect("go");
    assert!(job.wait_for(Duration::from_secs(10)).await);
    assert_eq!(
        text(&job.read(&ReadRequest::default())),
        ["first", "second"]
    );
    assert_eq!(job.snapshot().exit_code, Some(0));
}

#[tokio::test]
async fn stop_kills_the_whole_tree_grandchildren_included() {
    let dir = tmp();
    let engine = Engine::default();
    let started = engine
        .start(
            sh(
                "tree",
                dir.path(),
                "sh -c 'echo $$ > grandchild.pid; exec sleep 300' & wait",
            ),
            StdioMode::Capture,
            Duplicates::Reuse,
        )
        .expect("start");
    let grandchild = read_pid(&dir.path().join("grandchild.pid")).await;
    assert!(alive(grandchild));
    engine.stop(&started.job, Duration::from_secs(5)).await;
    let snap = started.job.snapshot();
    assert_eq!(snap.state, JobState::Signaled);
    assert_eq!(snap.signal.as_deref(), Some("SIGTERM"));
    eventually(Duration::from_secs(5), "grandchild gone", || {
        !alive(grandchild)
    })
    .await;
}

#[tokio::test]
async fn a_task_that_ignores_sigterm_is_killed_after_the_grace_period() {
    let dir = tmp();
    let engine = Engine::default();
    let started = engine
        .start(
            sh(
                "stubborn",
                dir.path(),
                "trap '' TERM; echo ready; while :; do sleep 0.05; done",
            ),
            StdioMode::Capture,
            Duplicates::Reuse,
        )
        .expect("start");
    let job = started.job;
    eventually(Duration::from_secs(5), "ready", || {
        text(&job.read(&ReadRequest::default())) == ["ready"]
    })
    .await;
    let t = Instant::now();
    engine.stop(&job, Duration::from_millis(300)).await;
    assert!(t.elapsed() >= Duration::from_millis(300));
    let snap = job.snapshot();
    assert_eq!(snap.signal.as_deref(), Some("SIGKILL"));
    assert_eq!(snap.error.as_deref(), Some("stopped by agg (SIGKILL)"));
}

#[tokio::test]
async fn processes_left_in_the_group_end_with_the_task() {
    let dir = tmp();
    let engine = Engine::default();
    let (started, finished) = engine
        .start_and_wait(
            sh(
                "leaver",
                dir.path(),
                "sleep 300 & echo $! > bg.pid; echo done",
            ),
            Duration::from_secs(10),
            Duplicates::Reuse,
        )
        .await
        .expect("start");
    assert!(finished);
    let bg = read_pid(&dir.path().join("bg.pid")).await;
    eventually(Duration::from_secs(5), "background sleep gone", || {
        !alive(bg)
    })
    .await;
    assert_eq!(started.job.snapshot().exit_code, Some(0));
}

#[tokio::test]
async fn a_daemon_in_its_own_session_holding_the_pipes_does_not_keep_the_job_open() {
    let dir = tmp();
    let engine = Engine::default();
    let (started, finished) = engine
        .start_and_wait(
            sh("daemon", dir.path(), "setsid sh -c 'echo $$ > daemon.pid.tmp; mv daemon.pid.tmp daemon.pid; exec sleep 300' & while [ ! -f daemon.pid ]; do sleep 0.01; done; echo started"),
            Duration::from_secs(10),
            Duplicates::Reuse,
        )
        .await
        .expect("start");
    let daemon = read_pid(&dir.path().join("daemon.pid")).await;
    assert!(
        finished,
        "the job must finish although the daemon holds its stdout"
    );
    assert!(text(&started.job.read(&ReadRequest::default())).contains(&"started".to_owned()));
    // The daemon escaped the group by design (see the README); clean it up here.
    let _ = nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(daemon.cast_signed()),
        nix::sys::signal::Signal::SIGKILL,
    );
}

#[tokio::test]
async fn a_task_that_closes_stdout_keeps_running_until_it_exits() {
    let dir = tmp();
    let engine = Engine::default();
    let (started, finished) = engine
        .start_and_wait(
            sh(
                "closer",
                dir.path(),
                "echo before; exec 1>&-; while [ ! -f go ]; do sleep 0.02; done; echo after >&2",
            ),
            Duration::from_millis(300),
            Duplicates::Reuse,
        )
        .await
        .expect("start");
    assert!(!finished);
    std::fs::write(dir.path().join("go"), "").expect("go");
    assert!(started.job.wait_for(Duration::from_secs(10)).await);
    assert_eq!(
        text(&started.job.read(&ReadRequest::default())),
        ["before", "after"]
    );
}

#[tokio::test]
async fn invalid_utf8_output_is_kept_with_replacement_characters() {
    let dir = tmp();
    let engine = Engine::default();
    let (started, _) = engine
        .start_and_wait(
            sh("bytes", dir.path(), r"printf 'a\377b\n'"),
            Duration::from_secs(10),
            Duplicates::Reuse,
        )
        .await
        .expect("start");
    assert_eq!(
        text(&started.job.read(&ReadRequest::default())),
        ["a\u{fffd}b"]
    );
}

#[tokio::test]
async fn a_missing_program_and_a_vanished_directory_fail_to_start_clearly() {
    let dir = tmp();
    let engine = Engine::default();
    let mut inv = sh("missing", dir.path(), "true");
    inv.program = "agg-no-such-program".into();
    let job = engine
        .start(inv, StdioMode::Capture, Duplicates::Reuse)
        .expect("start")
        .job;
    let snap = job.snapshot();
    assert_eq!(snap.state, JobState::FailedToStart);
    assert_eq!(
        snap.error.as_deref(),
        Some("`agg-no-such-program` was not found")
    );
    let gone: PathBuf = dir.path().join("gone");
    let job = engine
        .start(
            sh("gone", &gone, "true"),
            StdioMode::Capture,
            Duplicates::Reuse,
        )
        .expect("start")
        .job;
    assert_eq!(job.state(), JobState::FailedToStart);
    assert!(
        job.snapshot()
            .error
            .unwrap_or_default()
            .contains("no longer exists")
    );
}

#[tokio::test]
async fn the_running_cap_refuses_clearly_and_duplicates_return_the_running_job() {
    let dir = tmp();
    let engine = Engine::new(EngineConfig {
        max_running: 2,
        ..EngineConfig::default()
    });
    let a = engine
        .start(
            sh("a", dir.path(), "sleep 300"),
            StdioMode::Capture,
            Duplicates::Reuse,
        )
        .expect("a");
    let again = engine
        .start(
            sh("a", dir.path(), "sleep 300"),
            StdioMode::Capture,
            Duplicates::Reuse,
        )
        .expect("a again");
    assert!(again.reused);
    assert_eq!(again.job.run_id, a.job.run_id);
    let b = engine
        .start(
            sh("a", dir.path(), "sleep 300"),
            StdioMode::Capture,
            Duplicates::Allow,
        )
        .expect("parallel copy");
    assert!(!b.reused);
    assert_ne!(b.job.run_id, a.job.run_id);
    let err = engine
        .start(
            sh("c", dir.path(), "sleep 300"),
            StdioMode::Capture,
            Duplicates::Reuse,
        )
        .expect_err("over the cap");
    assert!(
        err.to_string().contains("2 jobs are already running"),
        "{err}"
    );
    engine.shutdown(Duration::from_secs(2)).await;
    assert!(engine.list().iter().all(|j| !j.is_running()));
}

#[tokio::test]
async fn only_the_newest_finished_jobs_are_retained() {
    let dir = tmp();
    let engine = Engine::new(EngineConfig {
        retain_finished: 2,
        ..EngineConfig::default()
    });
    let running = engine
        .start(
            sh("long", dir.path(), "sleep 300"),
            StdioMode::Capture,
            Duplicates::Reuse,
        )
        .expect("long");
    let mut ids = Vec::new();
    for i in 0..4 {
        let (s, finished) = engine
            .start_and_wait(
                sh(&format!("quick{i}"), dir.path(), "true"),
                Duration::from_secs(10),
                Duplicates::Reuse,
            )
            .await
            .expect("quick");
        assert!(finished);
        ids.push(s.job.run_id.clone());
    }
    let kept: Vec<String> = engine.list().iter().map(|j| j.run_id.clone()).collect();
    assert!(kept.contains(&running.job.run_id));
    assert_eq!(kept.len(), 3, "{kept:?}");
    assert!(kept.contains(&ids[2]) && kept.contains(&ids[3]));
    engine.shutdown(Duration::from_secs(2)).await;
}

#[tokio::test]
async fn dropping_the_engine_kills_every_running_group() {
    let dir = tmp();
    let engine = Engine::default();
    engine
        .start(
            sh(
                "orphan",
                dir.path(),
                "sh -c 'echo $$ > gc.pid; exec sleep 300' & wait",
            ),
            StdioMode::Capture,
            Duplicates::Reuse,
        )
        .expect("start");
    let gc = read_pid(&dir.path().join("gc.pid")).await;
    drop(engine);
    eventually(Duration::from_secs(5), "grandchild killed on drop", || {
        !alive(gc)
    })
    .await;
}

#[tokio::test]
async fn a_huge_line_without_newline_costs_only_the_caps() {
    let dir = tmp();
    let engine = Engine::new(EngineConfig {
        output: OutputLimits {
            max_bytes: 1 << 20,
            max_lines: 1000,
            max_line_bytes: 4096,
        },
        ..EngineConfig::default()
    });
    let (started, finished) = engine
        .start_and_wait(
            sh(
                "wide",
                dir.path(),
                "head -c 10000000 /dev/zero | tr '\\0' x; echo; echo tail",
            ),
            Duration::from_secs(30),
            Duplicates::Reuse,
        )
        .await
        .expect("start");
    assert!(finished);
    let page = started.job.read(&ReadRequest::default());
    assert_eq!(page.lines.len(), 2);
    assert_eq!(page.lines[0].text.len(), 4096);
    assert_eq!(page.lines[0].cut, 10_000_000 - 4096);
    assert_eq!(page.lines[1].text, "tail");
}

#[tokio::test]
async fn run_ids_are_never_reused() {
    let dir = tmp();
    let engine = Engine::new(EngineConfig {
        retain_finished: 1,
        ..EngineConfig::default()
    });
    let mut seen = std::collections::HashSet::new();
    for _ in 0..200 {
        let (started, finished) = engine
            .start_and_wait(
                sh("x", dir.path(), "true"),
                Duration::from_secs(10),
                Duplicates::Allow,
            )
            .await
            .expect("start");
        assert!(finished);
        assert!(
            seen.insert(started.job.run_id.clone()),
            "reused {}",
            started.job.run_id
        );
    }
    engine.shutdown(Duration::from_secs(2)).await;
}

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").map_or(0, Iterator::count)
}

#[tokio::test]
async fn finished_jobs_leave_no_file_descriptor_behind() {
    let dir = tmp();
    let engine = Engine::new(EngineConfig {
        retain_finished: 0,
        ..EngineConfig::default()
    });
    // Warm up the runtime's own descriptors (signal pipe, epoll) first.
    let _ = engine
        .start_and_wait(
            sh("warm", dir.path(), "true"),
            Duration::from_secs(10),
            Duplicates::Allow,
        )
        .await;
    let before = open_fds();
    for i in 0..50 {
        let script = if i % 2 == 0 {
            "echo out; echo err >&2"
        } else {
            "exec 1>&-; sleep 0.01"
        };
        let (_, finished) = engine
            .start_and_wait(
                sh("fd", dir.path(), script),
                Duration::from_secs(10),
                Duplicates::Allow,
            )
            .await
            .expect("start");
        assert!(finished);
    }
    let mut inv = sh("missing", dir.path(), "true");
    inv.program = "agg-no-such-program".into();
    let _ = engine.start(inv, StdioMode::Capture, Duplicates::Allow);
    // Descriptors close when the supervisors finish; give them a moment.
    eventually(Duration::from_secs(5), "descriptors closed", || {
        open_fds() <= before + 2
    })
    .await;
}
