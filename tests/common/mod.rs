//! What the integration tests share: whether a runner is installed (`require!`), waiting
//! on processes, temporary repositories; the MCP harnesses live in [`mcp`] (rmcp's client)
//! and [`raw`] (raw JSON-RPC lines), the comparisons with a runner's own listing in
//! [`listing`], a real terminal in [`tmux`], arguments that must arrive verbatim in
//! [`verbatim`], and what the setup scripts install (host CLIs, MCP SDKs) in [`installed`].

pub mod installed;
pub mod listing;
pub mod mcp;
pub mod raw;
pub mod tmux;
pub mod verbatim;

use std::path::Path;
use std::time::{Duration, Instant};

use crate::test::Test;

/// Returns from the test when a runner is missing (and fails it under
/// `AGG_REQUIRE_RUNNERS`): `require!("make", "just");`.
#[macro_export]
macro_rules! require {
    ($($program:literal),+ $(,)?) => {
        $(
            if !$crate::common::have($program) {
                return;
            }
        )+
    };
}

/// Whether `program` is installed. In CI (`AGG_REQUIRE_RUNNERS=1`) a missing runner fails
/// the test; locally the test says so loudly and skips.
pub fn have(program: &str) -> bool {
    if which::which(program).is_ok() {
        return true;
    }
    assert!(
        std::env::var_os("AGG_REQUIRE_RUNNERS").is_none(),
        "{program} is required (AGG_REQUIRE_RUNNERS is set) but not on PATH"
    );
    skipped(&format!("{program} not installed"));
    false
}

/// Says on stderr that the running test skips, and why: `SKIPPED run::parallel: tmux not
/// installed`. The test's name is its thread's, as the test harness names it. Written to the
/// process's stderr itself, not through `eprintln!`, which the harness captures and shows
/// only for a test that fails: a skip must be seen in a run that passes.
pub fn skipped(reason: &str) {
    use std::io::Write;
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    let _ = writeln!(std::io::stderr().lock(), "SKIPPED {test}: {reason}");
}

/// Whether a process exists and is not a zombie.
pub fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        let state = stat
            .rfind(')')
            .and_then(|i| stat[i + 1..].split_whitespace().next().map(str::to_owned));
        !matches!(state.as_deref(), Some("Z" | "X"))
    })
}

/// Polls until `cond` holds, failing the test after `limit`.
pub async fn eventually(limit: Duration, what: &str, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for: {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Reads a pid a task wrote to `file`, waiting for it to appear.
pub async fn read_pid(file: &Path) -> u32 {
    let mut pid = None;
    eventually(Duration::from_secs(10), "pid file", || {
        pid = std::fs::read_to_string(file)
            .ok()
            .and_then(|s| s.trim().parse().ok());
        pid.is_some()
    })
    .await;
    pid.unwrap_or_default()
}

/// A temporary repository with the given files.
pub fn repo(files: &[(&str, &str)]) -> tempfile::TempDir {
    files
        .iter()
        .fold(Test::new(), |t, (path, text)| t.write(path, text))
        .into_tempdir()
}

/// The pid `agg run --until-ready` printed for the service it left running (`(pid N, …`).
pub fn until_ready_pid(stderr: &str) -> u32 {
    stderr
        .split("(pid ")
        .nth(1)
        .and_then(|s| s.split(',').next())
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("pid in: {stderr}"))
}

/// Runs `cmd`, which must exit 0 (`what` names it in the failure, with its stderr); what
/// it printed.
pub fn succeeds(cmd: &mut std::process::Command, what: &str) -> std::process::Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}
