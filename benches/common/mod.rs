//! Statistics and machine facts shared by the benchmarks.
// Statistics on timings: float conversions of counts are exact enough here.
#![allow(
    dead_code,
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]

use std::path::{Path, PathBuf};
use std::time::Duration;

/// A benchmark's command line.
pub struct Args(Vec<String>);

/// The arguments, or `None` without `--bench`: `cargo test --all-targets` runs bench binaries
/// that way, to check that they build, and nothing should be timed then.
pub fn args() -> Option<Args> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    args.iter().any(|a| a == "--bench").then_some(Args(args))
}

impl Args {
    /// Whether a missed target should fail the run (`--check`).
    pub fn check(&self) -> bool {
        self.0.iter().any(|a| a == "--check")
    }

    /// The number after `name`, or `default`.
    pub fn value(&self, name: &str, default: usize) -> usize {
        self.0
            .iter()
            .position(|a| a == name)
            .and_then(|i| self.0.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    }
}

/// The 1, 5 and 15 minute load averages: figures from a busy machine are not comparable.
pub fn loadavg() -> String {
    let text = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    text.split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// A duration in milliseconds.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The median (of an even count, the mean of the middle two).
pub fn median(xs: &[f64]) -> f64 {
    percentile(xs, 50.0)
}

/// Nearest-rank percentile (the median of an even count is the mean of the middle two).
pub fn percentile(xs: &[f64], p: f64) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    if (p - 50.0).abs() < f64::EPSILON {
        let n = v.len();
        return if n % 2 == 1 {
            v[n / 2]
        } else {
            f64::midpoint(v[n / 2 - 1], v[n / 2])
        };
    }
    let rank = ((p / 100.0) * v.len() as f64).ceil() as usize;
    v[rank.clamp(1, v.len()) - 1]
}

/// The agg binary to measure: `$AGG_BIN`, else `target/release/agg`, else `target/debug/agg`
/// (with a warning); which one is printed.
pub fn find_agg(manifest: &Path) -> PathBuf {
    if let Some(p) = std::env::var_os("AGG_BIN") {
        println!("(AGG_BIN)");
        return PathBuf::from(p);
    }
    for profile in ["release", "debug"] {
        let p = manifest.join("target").join(profile).join("agg");
        if p.is_file() {
            if profile == "debug" {
                println!(
                    "WARNING: using a debug build; run `cargo build --release` for meaningful figures"
                );
            }
            return p;
        }
    }
    eprintln!("no agg binary: run `cargo build --release` (or set AGG_BIN)");
    std::process::exit(2);
}

/// A field of `/proc/PID/status` in KiB (`VmRSS`, `VmHWM`), 0 when unreadable.
pub fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}
