//! Load: 50 jobs each writing about 10 MB/s while an agent keeps calling `list_tasks`.
//! Prints the `list_tasks` latency percentiles (target: p99 under 100 ms) and the output
//! rate the server absorbed. A report, not a gate: it exits 0 either way unless `--check`.
//!
//! `cargo bench --bench load` (builds and drives `target/release/agg`).

#[path = "common/mod.rs"]
mod common;

use common::{loadavg, ms, percentile};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

const JOBS: usize = 50;
const CALLS: usize = 300;

fn agg_binary() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let status = std::process::Command::new("cargo")
        .args(["build", "--release", "--quiet", "--bin", "agg"])
        .current_dir(root)
        .status()
        .expect("cargo build");
    assert!(status.success(), "cargo build --release failed");
    root.join("target/release/agg")
}

fn args(v: &Value) -> rmcp::model::JsonObject {
    v.as_object().cloned().unwrap_or_default()
}

#[tokio::main]
async fn main() {
    let Some(check) = common::args().map(|a| a.check()) else {
        return;
    };
    let agg = agg_binary();
    let repo = tempfile::tempdir().expect("tmp");
    // A realistic table to list (the polyglot fixture), plus the noisy task.
    copy(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/polyglot"),
        repo.path(),
    );
    std::fs::create_dir_all(repo.path().join("load")).expect("mkdir");
    std::fs::write(
        repo.path().join("load/README.md"),
        "## Tasks\n\n### spew\n\nAbout 10 MB/s of 100-byte lines, forever.\n\n```sh\nwhile :; do\n  yes 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' | head -c 1000000\n  sleep 0.1\ndone\n```\n",
    )
    .expect("write");
    let config = tempfile::tempdir().expect("tmp");
    let allowlist = config.path().join("allowlist.toml");
    let ok = std::process::Command::new(&agg)
        .args(["allow", "--dir"])
        .arg(repo.path())
        .env("AGG_ALLOWLIST", &allowlist)
        .output()
        .expect("agg allow");
    assert!(ok.status.success());
    let mut cmd = tokio::process::Command::new(&agg);
    cmd.args(["mcp", "--max-runs", "64", "--root"])
        .arg(repo.path())
        .env("AGG_ALLOWLIST", &allowlist);
    let (proc, _) = TokioChildProcess::builder(cmd)
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn agg mcp");
    let server_pid = proc.id();
    let client = ().serve(proc).await.expect("connect");
    let started = Instant::now();
    for _ in 0..JOBS {
        let r = client
            .call_tool(CallToolRequestParams::new("task_start").with_arguments(args(&json!({
                "unique_name": "load/spew", "wait_ms": 0, "allow_parallel": true, "output": "silent"
            }))))
            .await
            .expect("task_start");
        assert_ne!(r.is_error, Some(true), "{r:?}");
    }
    // Let the flood reach steady state.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let mut latencies = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        let t = Instant::now();
        let r = client
            .call_tool(CallToolRequestParams::new("list_tasks").with_arguments(args(&json!({}))))
            .await
            .expect("list_tasks");
        latencies.push(t.elapsed());
        assert_ne!(r.is_error, Some(true));
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let status = client
        .call_tool(CallToolRequestParams::new("status").with_arguments(args(&json!({}))))
        .await
        .expect("status");
    let status = status.structured_content.unwrap_or_default();
    let elapsed = started.elapsed();
    let mut total_lines = 0u64;
    for job in status["jobs"].as_array().into_iter().flatten() {
        let out = client
            .call_tool(
                CallToolRequestParams::new("task_output").with_arguments(args(&json!({
                    "run_id": job["run_id"], "max_bytes": 256
                }))),
            )
            .await
            .expect("task_output");
        total_lines += out
            .structured_content
            .as_ref()
            .and_then(|v| v["output"]["total_lines"].as_u64())
            .unwrap_or(0);
    }
    let rss = std::fs::read_to_string(format!("/proc/{}/status", server_pid.unwrap_or(0)))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:").map(|v| v.trim().to_owned()))
        .unwrap_or_else(|| "?".to_owned());
    client.cancel().await.expect("close");
    let latencies: Vec<f64> = latencies.into_iter().map(ms).collect();
    let (p50, p95, p99) = (
        percentile(&latencies, 50.0),
        percentile(&latencies, 95.0),
        percentile(&latencies, 99.0),
    );
    #[allow(clippy::cast_precision_loss)]
    let mb_per_s = (total_lines * 100) as f64 / 1e6 / elapsed.as_secs_f64();
    let pass = p99 < 100.0;
    println!("load: {JOBS} jobs writing ~10 MB/s each, {CALLS} list_tasks calls");
    println!("  running jobs           {}", status["running"]);
    println!(
        "  output absorbed        {mb_per_s:.0} MB/s in total ({total_lines} lines in {:.1}s)",
        elapsed.as_secs_f64()
    );
    println!("  agg peak RSS           {rss}");
    println!("  load average           {}", loadavg());
    println!("  list_tasks p50         {p50:.1} ms");
    println!("  list_tasks p95         {p95:.1} ms");
    println!(
        "  list_tasks p99         {p99:.1} ms   (target < 100 ms: {})",
        if pass { "PASS" } else { "FAIL" }
    );
    if check && !pass {
        std::process::exit(1);
    }
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read").flatten() {
        let dest = to.join(entry.file_name());
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            copy(&entry.path(), &dest);
        } else {
            let _ = std::fs::copy(entry.path(), dest);
        }
    }
}
