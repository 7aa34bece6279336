//! Jobs outliving a server that is killed: SIGKILL gives `agg mcp` no chance to stop its
//! jobs, so each job's process group carries a watchdog that ends the group when the
//! server is gone. Every process the job started, grandchildren included, must end.

use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use serde_json::json;

use crate::common::mcp::Mcp;
use crate::common::{alive, eventually, read_pid};
use indoc::indoc;

/// A task whose shell starts two background sleeps, one of them through another shell,
/// and records every pid.
const MAKEFILE: &str = indoc! {"
    tree:
    \t@sleep 300 & echo $$! > a.pid; sh -c 'sleep 300 & echo $$! > c.pid; wait' & echo $$! > b.pid; echo $$$$ > sh.pid; echo started; wait

    quick:
    \t@echo done
"};

#[tokio::test]
async fn killing_agg_mcp_ends_every_process_its_jobs_started() {
    require!("make");
    let mcp = Mcp::on_files(&[("Makefile", MAKEFILE)], true).await;
    let started = mcp
        .task_start(json!({"unique_name": "tree", "wait_ms": 0}))
        .await;
    let make = u32::try_from(started["pid"].as_u64().expect("pid")).expect("pid");
    let mut pids = vec![make];
    for file in ["a.pid", "b.pid", "c.pid", "sh.pid"] {
        pids.push(read_pid(&mcp.root.join(file)).await);
    }
    // A job that ended on its own released its watchdog without harm to anything.
    let quick = mcp
        .task_start(json!({"unique_name": "quick", "wait_ms": 10_000}))
        .await;
    assert_eq!(quick["exit_code"], 0, "{quick}");
    assert!(pids.iter().all(|p| alive(*p)), "{pids:?} run");

    let server = i32::try_from(mcp.server_pid).expect("pid");
    kill(Pid::from_raw(server), Signal::SIGKILL).expect("kill agg mcp");
    eventually(
        Duration::from_secs(5),
        "every process of the job ended",
        || pids.iter().all(|p| !alive(*p)),
    )
    .await;
    drop(mcp);
}
