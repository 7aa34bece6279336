//! Floods of the control socket: idle connections by the hundred, held open, against a
//! server whose descriptor limit they would exhaust. MCP keeps starting tasks, `agg ps`
//! keeps answering, and the server closes the idle connections by itself.

use std::io::Read;
use std::os::unix::net::UnixStream;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::json;

use crate::common::eventually;
use crate::common::mcp::Mcp;
use crate::common::repo;
use crate::control::{connect, socket_of};

/// More idle connections than the server's descriptor limit below allows.
const FLOOD: usize = 300;
/// The descriptor limit the server is given: without a connection cap, the flood alone
/// would use every descriptor and `task_start` would fail with "Too many open files".
const SERVER_NOFILE: usize = 256;

fn open_descriptors(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, Iterator::count)
}

/// Whether the server closed this connection (what it wrote before, if anything, is read).
fn closed_by_server(stream: &mut UnixStream) -> bool {
    let mut buf = [0u8; 256];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => {}
            Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => return false,
            Err(_) => return true,
        }
    }
}

#[tokio::test]
async fn a_flood_of_idle_control_connections_locks_out_neither_mcp_nor_agg_ps() {
    require!("make", "prlimit");
    let mcp = Mcp::start(
        repo(&[("Makefile", "idle:\n\t@echo idle; sleep 300\n")]),
        true,
    )
    .await;
    let limit = format!("--nofile={SERVER_NOFILE}:{SERVER_NOFILE}");
    let status = Command::new("prlimit")
        .args(["--pid", &mcp.server_pid.to_string(), &limit])
        .status()
        .expect("prlimit");
    assert!(status.success(), "prlimit");
    let socket = socket_of(&mcp.runtime);

    let mut flood = Vec::new();
    for _ in 0..FLOOD {
        let stream = connect(&socket);
        stream.set_nonblocking(true).expect("nonblocking");
        flood.push(stream);
    }

    // With every connection still open on our side, the server serves its agent…
    let listed = mcp.list_tasks(json!({})).await;
    assert_eq!(listed["total"], 1, "{listed}");
    let started = mcp
        .task_start(json!({"unique_name": "idle", "wait_ms": 0}))
        .await;
    assert_eq!(started["state"], "running", "{started}");
    let run_id = started["run_id"].as_str().expect("run_id").to_owned();
    // …and its user: a new connection takes the slot of an idle one.
    let mut ps = Command::new(env!("CARGO_BIN_EXE_agg"));
    ps.args(["ps", "-C"])
        .arg(&mcp.root)
        .env("XDG_RUNTIME_DIR", &mcp.runtime)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());
    let out = tokio::task::spawn_blocking(move || ps.output().expect("agg ps"))
        .await
        .expect("join");
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && shown.contains(&run_id),
        "{shown}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let held = open_descriptors(mcp.server_pid);
    assert!(
        held < 64 + 64,
        "the server holds {held} descriptors for {FLOOD} connections"
    );

    // Connections over the cap were closed at once; the others when they sent nothing in
    // time.
    let closed_at_once = flood
        .iter_mut()
        .map(closed_by_server)
        .filter(|c| *c)
        .count();
    assert!(closed_at_once >= FLOOD - 64, "{closed_at_once} closed");
    eventually(Duration::from_secs(20), "idle connections closed", || {
        flood.iter_mut().all(closed_by_server)
    })
    .await;
    let status = mcp.ok("task_status", json!({"run_id": run_id})).await;
    assert_eq!(status["state"], "running", "{status}");
    mcp.ok("task_stop", json!({"run_id": run_id, "grace_ms": 0}))
        .await;
    mcp.close().await;
}
