//! Attacks on agg's memory: a client that sends requests and never reads the replies, and
//! an agent that starts short tasks all day. Either way the server's resident memory stays
//! within 64 MiB of what it was when idle.

use std::time::Duration;

use serde_json::{Value, json};

use crate::common::mcp::allowlist_allowing_all;
use crate::common::raw::{self, Raw, Unread, status_kib};
use crate::common::repo;

/// How far above its idle size the server may grow, in KiB.
const BOUND_KIB: u64 = 64 * 1024;

/// The requests of the flood: cheap to send, each with an answer of a few KB.
fn flood_request(n: u64) -> Value {
    match n % 3 {
        0 => json!({"jsonrpc": "2.0", "id": n, "method": "tools/list"}),
        1 => json!({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                    "params": {"name": "list_tasks", "arguments": {}}}),
        _ => json!({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                    "params": {"name": "task_status", "arguments": {"run_id": "nope-0000"}}}),
    }
}

#[test]
fn a_client_that_never_reads_its_replies_cannot_grow_the_server() {
    let (dir, _config, allowlist) = raw::setup();
    let mut client = Unread::start(dir.path(), &allowlist);
    let pid = client.pid();
    std::thread::sleep(Duration::from_millis(300));
    let idle = status_kib(pid, "VmRSS");
    let sent = client.flood(Duration::from_secs(4), |n| {
        if n == 1 {
            // A job whose progress and log lines nobody reads, besides the requests.
            return json!({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {
                "name": "task_start", "_meta": {"progressToken": "p"},
                "arguments": {"unique_name": "chatty", "wait_ms": 600_000}}});
        }
        flood_request(n)
    });
    let peak = status_kib(pid, "VmHWM");
    assert!(
        peak < idle + BOUND_KIB,
        "agg mcp grew from {idle} KiB to {peak} KiB against a client that does not read ({sent} requests written)"
    );
    // Reading again: the server is alive and answers what comes next.
    let mut raw = client.read();
    let last = raw.call(u64::MAX >> 12, "list_tasks", &json!({"query": "chatty"}));
    assert_eq!(
        last["result"]["structuredContent"]["tasks"][0]["unique_name"], "chatty",
        "{last}"
    );
    assert!(
        raw.child.try_wait().expect("wait").is_none(),
        "agg mcp died"
    );
}

#[test]
fn a_request_id_still_in_flight_is_refused_not_answered_twice() {
    let (dir, _config, allowlist) = raw::setup();
    let mut raw = Raw::start(dir.path(), &allowlist);
    let slow = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "task_start", "arguments": {"unique_name": "chatty", "wait_ms": 600_000}}});
    raw.send_value(&slow);
    raw.send_value(&slow);
    let refused = raw.response(7);
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    let finished = raw.response(7);
    assert_eq!(
        finished["result"]["structuredContent"]["state"], "exited",
        "{finished}"
    );
}

#[test]
fn hundreds_of_short_runs_leave_the_server_small() {
    const RUNS: u64 = 200;
    crate::require!("make");
    let dir = repo(&[(
        "Makefile",
        "lines:\n\t@for i in $$(seq 1 200); do echo \"line $$i of the output\"; done\n",
    )]);
    let (_config, allowlist) = allowlist_allowing_all(dir.path());
    let mut raw = Raw::start(dir.path(), &allowlist);
    let pid = raw.child.id();
    let fresh = status_kib(pid, "VmRSS");
    for id in 1..=RUNS {
        let r = raw.call(
            id,
            "task_start",
            &json!({"unique_name": "lines", "wait_ms": 30_000}),
        );
        let job = &r["result"]["structuredContent"];
        assert_eq!(job["state"], "exited", "{r}");
    }
    let after = status_kib(pid, "VmRSS");
    assert!(
        after < fresh + BOUND_KIB,
        "{RUNS} runs of 200 lines took agg mcp from {fresh} KiB to {after} KiB"
    );
}
