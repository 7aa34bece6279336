//! `agg ps`: the jobs every running `agg mcp` of this user holds for the repository.
//! Every field a server sends is printed in its [`crate::visible`] form.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::{Value, json};

use crate::control::{Request, client};
use crate::error::Error;

/// Options of `agg ps`.
#[derive(Debug, clap::Args)]
pub struct PsArgs {
    /// The repository root (default: the repository around the current directory).
    #[arg(long, short = 'C')]
    pub root: Option<PathBuf>,
    /// Jobs of servers on every repository, not only this one.
    #[arg(long, short)]
    pub all: bool,
    /// Print JSON: one object per server with its jobs.
    #[arg(long)]
    pub json: bool,
}

pub(super) fn run(args: &PsArgs) -> Result<ExitCode, Error> {
    let root = if args.all {
        None
    } else {
        Some(
            std::fs::canonicalize(super::Root::choose(args.root.as_deref())?.path).map_err(
                |e| Error::Control {
                    action: "find the repository".to_owned(),
                    reason: e.to_string(),
                },
            )?,
        )
    };
    let mut servers = Vec::new();
    for socket in client::servers(root.as_deref()) {
        let asked = client::ask(&socket, &Request::Ps, |v| {
            servers.push(v);
            false
        });
        if let Err(err) = asked {
            tracing::debug!("{}: {err}", socket.display());
        }
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        super::print_json(&json!(servers))?;
        return Ok(ExitCode::SUCCESS);
    }
    if servers.is_empty() {
        writeln!(out, "no agg mcp of yours is running here").map_err(Error::Output)?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "{:<24} {:<20} {:<16} {:>8} {:>9}  SERVER",
        "RUN_ID", "TASK", "STATE", "PID", "ELAPSED"
    )
    .map_err(Error::Output)?;
    for server in &servers {
        let pid = &server["pid"];
        for job in server["jobs"].as_array().into_iter().flatten() {
            writeln!(
                out,
                "{:<24} {:<20} {:<16} {:>8} {:>9}  agg mcp {pid}{}",
                text(&job["run_id"]),
                text(&job["unique_name"]),
                state(job),
                job["pid"]
                    .as_u64()
                    .map_or_else(|| "-".to_owned(), |p| p.to_string()),
                elapsed(job["elapsed_ms"].as_u64().unwrap_or(0)),
                if args.all {
                    format!(" ({})", text(&server["root"]))
                } else {
                    String::new()
                },
            )
            .map_err(Error::Output)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A string field as one visible line (a task name may hold anything its file wrote).
fn text(v: &Value) -> String {
    crate::visible::line(v.as_str().unwrap_or("")).into_owned()
}

fn state(job: &Value) -> String {
    let s = text(&job["state"]);
    match (job["exit_code"].as_i64(), job["signal"].as_str()) {
        (Some(code), _) => format!("{s} {code}"),
        (None, Some(sig)) => format!("{s} {}", crate::visible::line(sig)),
        _ => s,
    }
}

fn elapsed(ms: u64) -> String {
    if ms < 60_000 {
        format!("{}.{}s", ms / 1000, (ms % 1000) / 100)
    } else {
        format!("{}m{:02}s", ms / 60_000, (ms % 60_000) / 1000)
    }
}
