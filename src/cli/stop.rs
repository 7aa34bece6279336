//! `agg stop RUN_ID`: stops a job an `agg mcp` runs (TERM to its group, then KILL).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::control::{Request, client};
use crate::error::Error;

/// Options of `agg stop`.
#[derive(Debug, clap::Args)]
pub struct StopArgs {
    /// The job's run id (`agg ps` lists them).
    pub run_id: String,
    /// Milliseconds between SIGTERM and SIGKILL.
    #[arg(long, default_value_t = 5000)]
    pub grace_ms: u64,
    /// The repository root (default: the repository around the current directory).
    #[arg(long)]
    pub root: Option<PathBuf>,
}

/// The servers to ask about a run id: this repository's first, then every other one.
pub(super) fn sockets(root: Option<&Path>) -> Vec<PathBuf> {
    let here = super::Root::choose(root)
        .ok()
        .and_then(|r| std::fs::canonicalize(r.path).ok());
    let mut sockets = client::servers(here.as_deref());
    for other in client::servers(None) {
        if !sockets.contains(&other) {
            sockets.push(other);
        }
    }
    sockets
}

pub(super) fn run(args: &StopArgs) -> Result<ExitCode, Error> {
    let sockets = sockets(args.root.as_deref());
    let request = Request::Stop {
        run_id: args.run_id.clone(),
        grace_ms: Some(args.grace_ms),
    };
    let mut result = None;
    let found = client::ask_job(&sockets, &request, |v| {
        result = v.get("stopped").cloned();
        false
    })
    .map_err(|e| Error::Control {
        action: format!("stop {}", args.run_id),
        reason: e.to_string(),
    })?;
    if !found {
        return Err(Error::NoSuchRun {
            run_id: args.run_id.clone(),
        });
    }
    let job = result.unwrap_or_default();
    let how = job["signal"]
        .as_str()
        .map(|s| format!("by {s}"))
        .or_else(|| job["exit_code"].as_i64().map(|c| format!("with exit {c}")))
        .unwrap_or_else(|| "already".to_owned());
    println!(
        "{} ({}) {}: {}",
        crate::visible::line(&args.run_id),
        crate::visible::line(job["unique_name"].as_str().unwrap_or("")),
        if job["state"] == "running" {
            "still running"
        } else {
            "stopped"
        },
        crate::visible::line(&how)
    );
    Ok(ExitCode::SUCCESS)
}
