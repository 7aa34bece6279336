//! `agg ps`: the jobs every running `agg mcp` of this user holds for the repository, the
//! services `agg run --until-ready` left running there ([`crate::control::detached`]), the
//! runs a person started with `agg run` there, running and recent ([`crate::runs`]), and
//! with `--history` the runs that finished there, from the run history ([`crate::history`]).
//! Every field a server sends or the history holds is printed in its [`crate::terminal_text`] form.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::{Value, json};

use crate::control::{Request, client};
use crate::error::Error;
use crate::history::{History, Run};

/// Options of `agg ps`.
#[derive(Debug, clap::Args)]
pub struct PsArgs {
    /// The repository root (default: the repository around the current directory).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// Jobs of servers on every repository, not only this one.
    #[arg(long, short)]
    pub all: bool,
    /// Also the runs that finished, by `agg run` or any `agg mcp`, newest first: the last N
    /// (default 20), from the run history.
    #[arg(long, short = 'H', value_name = "N", num_args = 0..=1, default_missing_value = "20")]
    pub history: Option<usize>,
    /// Print JSON: one object per server with its jobs, and one with `"by": "agg run"` for
    /// the services `agg run --until-ready` left (with --history: an object with `servers`
    /// and `history`).
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
    let services = crate::control::detached::list(root.as_deref());
    let runs = crate::runs::store::list(root.as_deref());
    if !services.is_empty() || !runs.is_empty() {
        let mut jobs: Vec<Value> = services.iter().map(|(_, s)| service_json(s)).collect();
        jobs.extend(runs.iter().map(run_json));
        servers.push(json!({
            "by": "agg run",
            "root": root.as_ref().map(|r| r.display().to_string()),
            "jobs": jobs,
        }));
    }
    let past = args.history.map(|n| past_runs(root.as_deref(), n));
    let mut out = std::io::stdout().lock();
    if args.json {
        return match past {
            Some(past) => {
                let history: Vec<Value> = past
                    .iter()
                    .map(|(root, run)| {
                        let mut v = json!(run);
                        if args.all {
                            v["root"] = json!(root);
                        }
                        v
                    })
                    .collect();
                super::print_json(&json!({ "servers": servers, "history": history }))
            }
            None => super::print_json(&json!(servers)),
        };
    }
    if servers.is_empty() {
        writeln!(
            out,
            "no agg mcp of yours is running here, and no agg run of yours, running or recent"
        )
        .map_err(Error::Output)?;
    } else {
        write_jobs(&mut out, &servers, args.all)?;
    }
    if let Some(past) = past {
        writeln!(out).map_err(Error::Output)?;
        write_history(&mut out, &past, args.all).map_err(Error::Output)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The newest `limit` runs of the repository at `root`, or of every repository with a
/// history (each with its root).
fn past_runs(root: Option<&std::path::Path>, limit: usize) -> Vec<(String, Run)> {
    let stores: Vec<History> = match root {
        Some(root) => History::open_existing(root).into_iter().collect(),
        None => crate::history::store_files()
            .iter()
            .filter_map(|f| History::open_file(f, false))
            .collect(),
    };
    let mut runs: Vec<(String, Run)> = stores
        .iter()
        .flat_map(|h| {
            let root = h.root().unwrap_or_default();
            h.recent(limit).into_iter().map(move |r| (root.clone(), r))
        })
        .collect();
    runs.sort_by_key(|(_, run)| std::cmp::Reverse(run.started));
    runs.truncate(limit);
    runs
}

fn write_history(out: &mut impl Write, runs: &[(String, Run)], all: bool) -> std::io::Result<()> {
    if runs.is_empty() {
        return writeln!(out, "no finished runs recorded here yet");
    }
    writeln!(
        out,
        "{:<20} {:<12} {:>7} {:>9}  BY",
        "TASK", "RESULT", "TOOK", "STARTED"
    )?;
    for (root, run) in runs {
        let result = if run.passed() {
            "✓ passed".to_owned()
        } else {
            run.badge()
        };
        writeln!(
            out,
            "{:<20} {} {:>7} {:>9}  {}{}",
            crate::terminal_text::line(&run.unique_name),
            pad(&result, 12),
            crate::human::duration(run.duration_ms),
            crate::human::ago(run.started),
            run.via.as_str(),
            if all {
                format!(" ({})", crate::terminal_text::line(root))
            } else {
                String::new()
            },
        )?;
    }
    Ok(())
}

/// `s` padded to `width` characters (`format!` pads by bytes' chars too, but `✓` is one).
fn pad(s: &str, width: usize) -> String {
    format!("{s}{}", " ".repeat(width.saturating_sub(s.chars().count())))
}

fn write_jobs(out: &mut impl Write, servers: &[Value], all: bool) -> Result<(), Error> {
    writeln!(
        out,
        "{:<24} {:<20} {:<16} {:>8} {:>9}  SERVER",
        "RUN_ID", "TASK", "STATE", "PID", "ELAPSED"
    )
    .map_err(Error::Output)?;
    for server in servers {
        let pid = &server["pid"];
        let by_run = server["by"] == "agg run";
        for job in server["jobs"].as_array().into_iter().flatten() {
            let by = if let Some(agg) = job["agg_pid"].as_u64() {
                format!("agg run {agg}")
            } else if by_run {
                service_column(job)
            } else {
                format!("agg mcp {pid}")
            };
            writeln!(
                out,
                "{:<24} {:<20} {:<16} {:>8} {:>9}  {by}{}",
                text(&job["run_id"]),
                text(&job["unique_name"]),
                state(job),
                job["pid"]
                    .as_u64()
                    .map_or_else(|| "-".to_owned(), |p| p.to_string()),
                job["elapsed_ms"]
                    .as_u64()
                    .map_or_else(|| "-".to_owned(), elapsed),
                if all {
                    let root = if job["root"].is_string() {
                        &job["root"]
                    } else {
                        &server["root"]
                    };
                    format!(" ({})", text(root))
                } else {
                    String::new()
                },
            )
            .map_err(Error::Output)?;
        }
    }
    Ok(())
}

/// A service as `agg ps --json` shows it: the fields of an `agg mcp` job that apply, with
/// its root, log, URLs and the ports its processes listen on now (Linux; else those found
/// when it became ready).
fn service_json(s: &crate::control::detached::Service) -> Value {
    let running = s.running();
    let state = if s.stopped {
        "stopped"
    } else if running {
        "running"
    } else {
        "ended"
    };
    let ports = if running {
        let now = crate::readiness::probe::listening_ports(s.pid);
        if now.is_empty() { s.ports.clone() } else { now }
    } else {
        Vec::new()
    };
    let elapsed = running.then(|| {
        s.started()
            .elapsed()
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
    });
    json!({
        "run_id": s.run_id,
        "unique_name": s.unique_name,
        "state": state,
        "pid": s.pid,
        "started_at": humantime::format_rfc3339_seconds(s.started()).to_string(),
        "elapsed_ms": elapsed,
        "root": s.root,
        "log": s.log,
        "urls": s.urls,
        "ports": ports,
    })
}

/// A run a person started with `agg run` ([`crate::runs`]), as `agg ps --json` shows it:
/// the fields of an `agg mcp` job, with its root, log and the `agg run` watching it.
fn run_json(r: &crate::runs::record::Record) -> Value {
    use crate::runs::record::State;
    let state = r.state();
    let (state_name, exit_code, signal) = match state {
        State::Running => ("running", None, None),
        State::Ended(end) => match (end.exit_code, end.signal) {
            (_, Some(sig)) => (
                "signaled",
                None,
                Some(
                    crate::engine::process::signal_name(sig)
                        .map_or_else(|| sig.to_string(), str::to_owned),
                ),
            ),
            (code, None) => ("exited", code, None),
        },
        State::Lost => ("lost", None, None),
    };
    let end = r.finished().unwrap_or_else(std::time::SystemTime::now);
    let elapsed = end
        .duration_since(r.started())
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
    json!({
        "run_id": r.run_id,
        "unique_name": r.unique_name,
        "args": r.args,
        "state": state_name,
        "exit_code": exit_code,
        "signal": signal,
        "pid": r.pid,
        "started_at": humantime::format_rfc3339_seconds(r.started()).to_string(),
        "elapsed_ms": elapsed,
        "root": r.root,
        "log": r.log,
        "agg_pid": r.agg_pid,
        "terminal": r.terminal,
    })
}

/// The last column of a service's row: who started it, and its ports.
fn service_column(job: &Value) -> String {
    let ports: Vec<String> = job["ports"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_u64)
        .map(|p| p.to_string())
        .collect();
    if ports.is_empty() {
        "agg run --until-ready".to_owned()
    } else {
        format!("agg run --until-ready, port {}", ports.join(", "))
    }
}

/// A string field as one visible line (a task name may hold anything its file wrote).
fn text(v: &Value) -> String {
    crate::terminal_text::line(v.as_str().unwrap_or("")).into_owned()
}

fn state(job: &Value) -> String {
    let s = text(&job["state"]);
    match (job["exit_code"].as_i64(), job["signal"].as_str()) {
        (Some(code), _) => format!("{s} {code}"),
        (None, Some(sig)) => format!("{s} {}", crate::terminal_text::line(sig)),
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
