//! Memory of `agg mcp`: `cargo bench --bench memory [-- --check] [--runs N] [--idle S]
//! [--flood S]`.
//!
//! Drives the real binary over stdio (`$AGG_BIN`, else `target/release/agg`, else
//! `target/debug/agg`; which one is printed) and reads its resident memory (`VmRSS`, and
//! the peak `VmHWM`) from `/proc`.
//!
//! a. **A server that runs all day.** A temporary repository whose Makefile target `lines`
//!    prints 200 short lines, allowlisted with `agg allow --dir` into a temporary
//!    `$AGG_ALLOWLIST`; an rmcp client calls `task_start` (waiting for the end) 3,000 times
//!    (`--runs`) in a row. Resident memory after 1, 300 and 3,000 runs and after `--idle`
//!    seconds (default 10), beside a fresh server started alongside that ran nothing.
//!    Target: within 64 MiB of the fresh server.
//! b. **A client that never reads.** Requests (`tools/list`, `list_tasks`, `task_status`)
//!    written as fast as the pipe takes them for `--flood` seconds (default 5) while nobody
//!    reads stdout; the server's peak beside its idle size, then whether it answers once
//!    read again. Target: peak within 64 MiB of idle.
//!
//! Prints PASS/FAIL per target; exits 0 unless `--check` is given and a target is missed.
// Figures: float conversions of KiB counts are exact enough here.
#![allow(clippy::cast_precision_loss)]

#[path = "common/mod.rs"]
mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use common::{loadavg, status_kib};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use serde_json::{Value, json};

/// How far above a fresh (or idle) server agg may be, in KiB.
const BOUND_KIB: u64 = 64 * 1024;
const MAKEFILE: &str =
    "lines:\n\t@for i in $$(seq 1 200); do echo \"line $$i of the output\"; done\n";

fn main() {
    let Some(args) = common::args() else { return };
    let check = args.check();
    let runs = args.value("--runs", 3000).max(1);
    let idle = Duration::from_secs(args.value("--idle", 10) as u64);
    let flood = Duration::from_secs(args.value("--flood", 5).max(1) as u64);

    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let agg = common::find_agg(manifest);
    println!("agg memory benchmarks (load average {})", loadavg());
    println!("binary: {}", agg.display());
    let repo = tempfile::tempdir().expect("tempdir");
    std::fs::write(repo.path().join("Makefile"), MAKEFILE).expect("Makefile");
    let config = tempfile::tempdir().expect("tempdir");
    let allowlist = config.path().join("allowlist.toml");
    let allow = Command::new(&agg)
        .args(["allow", "--dir"])
        .arg(repo.path())
        .env("AGG_ALLOWLIST", &allowlist)
        .output()
        .expect("agg allow");
    assert!(allow.status.success(), "agg allow --dir failed");

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let mut failed = Vec::new();
    runtime.block_on(all_day(
        &agg,
        repo.path(),
        &allowlist,
        runs,
        idle,
        &mut failed,
    ));
    never_reads(&agg, repo.path(), &allowlist, flood, &mut failed);
    println!();
    if failed.is_empty() {
        println!("SUMMARY memory: all targets met");
    } else {
        println!("SUMMARY memory: {}", failed.join("; "));
        if check {
            std::process::exit(1);
        }
    }
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn server(agg: &Path, root: &Path, allowlist: &Path) -> TokioChildProcess {
    let cmd = tokio::process::Command::new(agg).configure(|c| {
        c.args(["mcp", "--root"])
            .arg(root)
            .env("AGG_ALLOWLIST", allowlist)
            .env("AGG_LOG", "off");
    });
    let (proc, _stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn agg mcp");
    proc
}

// ------------------------------------------------------------------------------------------
// a. a server that runs all day
// ------------------------------------------------------------------------------------------

async fn all_day(
    agg: &Path,
    root: &Path,
    allowlist: &Path,
    runs: usize,
    idle: Duration,
    failed: &mut Vec<String>,
) {
    println!("\n== a. {runs} runs of `make lines` (200 lines each), task_start with wait ==");
    let fresh_proc = server(agg, root, allowlist);
    let fresh_pid = fresh_proc.id().unwrap_or(0);
    let fresh = ().serve(fresh_proc).await.expect("initialize");
    let proc = server(agg, root, allowlist);
    let pid = proc.id().unwrap_or(0);
    let client = ().serve(proc).await.expect("initialize");
    for c in [&fresh, &client] {
        c.call_tool(CallToolRequestParams::new("list_tasks"))
            .await
            .expect("list_tasks");
    }
    println!(
        "   {:<34} {:>12} {:>12} {:>16}",
        "", "VmRSS MiB", "VmHWM MiB", "fresh server MiB"
    );
    let row = |label: &str| {
        let fresh_rss = status_kib(fresh_pid, "VmRSS");
        let rss = status_kib(pid, "VmRSS");
        println!(
            "   {label:<34} {:>12.1} {:>12.1} {:>16.1}",
            mib(rss),
            mib(status_kib(pid, "VmHWM")),
            mib(fresh_rss)
        );
        (rss, fresh_rss)
    };
    row("before any run");
    let arguments = json!({"unique_name": "lines", "wait_ms": 30_000})
        .as_object()
        .cloned()
        .unwrap_or_default();
    let started = Instant::now();
    let mut not_exited = 0;
    for n in 1..=runs {
        let result = client
            .call_tool(CallToolRequestParams::new("task_start").with_arguments(arguments.clone()))
            .await
            .expect("task_start");
        let state = result
            .structured_content
            .as_ref()
            .and_then(|s| s.get("state"))
            .and_then(Value::as_str);
        if state != Some("exited") {
            not_exited += 1;
        }
        if [1, 300, 3000].contains(&n) || n == runs {
            row(&format!("after {n} runs"));
        }
    }
    let elapsed = started.elapsed();
    tokio::time::sleep(idle).await;
    let (rss, fresh_rss) = row(&format!("after {} s idle", idle.as_secs()));
    println!(
        "   ({runs} runs in {:.1} s, {:.1} ms each; {not_exited} did not exit 0)",
        elapsed.as_secs_f64(),
        elapsed.as_secs_f64() * 1000.0 / runs as f64
    );
    let ok = rss <= fresh_rss + BOUND_KIB && not_exited == 0;
    println!(
        "   [all day] resident after {runs} runs and the idle wait: {:+.1} MiB over a fresh server   target <= +64 MiB   {}",
        mib(rss) - mib(fresh_rss),
        if ok { "PASS" } else { "FAIL" }
    );
    if !ok {
        failed.push(format!(
            "all day: {:.1} MiB over a fresh server after {runs} runs",
            mib(rss) - mib(fresh_rss)
        ));
    }
    let _ = client.cancel().await;
    let _ = fresh.cancel().await;
}

// ------------------------------------------------------------------------------------------
// b. a client that never reads
// ------------------------------------------------------------------------------------------

fn never_reads(
    agg: &Path,
    root: &Path,
    allowlist: &Path,
    flood: Duration,
    failed: &mut Vec<String>,
) {
    println!(
        "\n== b. requests written for {} s while nobody reads stdout ==",
        flood.as_secs()
    );
    let mut child = Command::new(agg)
        .args(["mcp", "--root"])
        .arg(root)
        .env("AGG_ALLOWLIST", allowlist)
        .env("AGG_LOG", "off")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn agg mcp");
    let pid = child.id();
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}});
    writeln!(stdin, "{init}").expect("write");
    let mut line = String::new();
    stdout.read_line(&mut line).expect("initialize");
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )
    .expect("write");
    std::thread::sleep(Duration::from_millis(500));
    let idle = status_kib(pid, "VmRSS");
    let stop = Arc::new(AtomicBool::new(false));
    let sent = Arc::new(AtomicU64::new(0));
    let writer = {
        let (stop, sent) = (Arc::clone(&stop), Arc::clone(&sent));
        std::thread::spawn(move || {
            let mut n = 1u64;
            while !stop.load(Ordering::Relaxed) {
                let request = match n % 3 {
                    0 => json!({"jsonrpc": "2.0", "id": n, "method": "tools/list"}),
                    1 => json!({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                                "params": {"name": "list_tasks", "arguments": {}}}),
                    _ => json!({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                                "params": {"name": "task_status", "arguments": {"run_id": "nope"}}}),
                };
                if writeln!(stdin, "{request}").is_err() {
                    break;
                }
                sent.store(n, Ordering::Relaxed);
                n += 1;
            }
            stdin
        })
    };
    let started = Instant::now();
    let mut at_1s = 0;
    while started.elapsed() < flood {
        std::thread::sleep(Duration::from_millis(100));
        if at_1s == 0 && started.elapsed() >= Duration::from_secs(1) {
            at_1s = sent.load(Ordering::Relaxed);
        }
    }
    let written = sent.load(Ordering::Relaxed);
    let rss = status_kib(pid, "VmRSS");
    let peak = status_kib(pid, "VmHWM");
    // Read again: everything queued comes out, then a last request is answered.
    let (tx, lines) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in stdout.lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    stop.store(true, Ordering::Relaxed);
    let read_from = Instant::now();
    let mut stdin = writer.join().expect("writer");
    let last = u64::MAX >> 12;
    let _ = writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "id": last, "method": "ping"})
    );
    let mut answered = false;
    while let Ok(line) = lines.recv_timeout(Duration::from_secs(30)) {
        let msg: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
        if msg["id"].as_u64() == Some(last) {
            answered = msg.get("result").is_some();
            break;
        }
    }
    let drained = read_from.elapsed();
    let _ = child.kill();
    let _ = child.wait();
    println!(
        "   requests written: {at_1s} in the first second, {written} in {} s",
        flood.as_secs()
    );
    println!(
        "   VmRSS idle {:.1} MiB, after the flood {:.1} MiB, peak {:.1} MiB",
        mib(idle),
        mib(rss),
        mib(peak)
    );
    println!(
        "   reading again: {} after {:.0} ms",
        if answered {
            "answered the next request"
        } else {
            "NO ANSWER"
        },
        drained.as_secs_f64() * 1000.0
    );
    let ok = peak <= idle + BOUND_KIB && answered;
    println!(
        "   [never reads] peak over idle: {:+.1} MiB   target <= +64 MiB and still answering   {}",
        mib(peak) - mib(idle),
        if ok { "PASS" } else { "FAIL" }
    );
    if !ok {
        failed.push(format!(
            "never reads: peak {:+.1} MiB over idle",
            mib(peak) - mib(idle)
        ));
    }
}
