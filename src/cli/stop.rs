//! `agg stop RUN_ID`: stops a job an `agg mcp` runs, a service `agg run --until-ready`
//! left running ([`crate::control::detached`]), or a run a person started with `agg run`
//! ([`crate::runs`]): TERM to its process group (or, for a run at a terminal, which shares
//! its `agg run`'s group, to its process tree), then KILL.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use std::time::{Duration, Instant};

use nix::sys::signal::Signal;

use crate::control::{Request, client, detached};
use crate::engine::process;
use crate::error::Error;
use crate::history::{History, Run, StartedBy};

/// Options of `agg stop`.
#[derive(Debug, clap::Args)]
pub struct StopArgs {
    /// The job's run id (`agg ps` lists them); for a service `agg run --until-ready` left
    /// running, its task's name works too.
    pub run_id: String,
    /// Milliseconds between SIGTERM and SIGKILL.
    #[arg(long, default_value_t = 5000)]
    pub grace_ms: u64,
    /// The repository root (default: the repository around the current directory).
    #[arg(long)]
    pub root: Option<PathBuf>,
}

/// The repository root, canonical, when there is one.
pub(super) fn here(root: Option<&Path>) -> Option<PathBuf> {
    super::Root::choose(root)
        .ok()
        .and_then(|r| std::fs::canonicalize(r.path).ok())
}

/// The servers to ask about a run id: this repository's first, then every other one.
pub(super) fn sockets(root: Option<&Path>) -> Vec<PathBuf> {
    let here = here(root);
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
        return stop_service(args);
    }
    let job = result.unwrap_or_default();
    let how = job["signal"]
        .as_str()
        .map(|s| format!("by {s}"))
        .or_else(|| job["exit_code"].as_i64().map(|c| format!("with exit {c}")))
        .unwrap_or_else(|| "already".to_owned());
    println!(
        "{} ({}) {}: {}",
        crate::terminal_text::line(&args.run_id),
        crate::terminal_text::line(job["unique_name"].as_str().unwrap_or("")),
        if job["state"] == "running" {
            "still running"
        } else {
            "stopped"
        },
        crate::terminal_text::line(&how)
    );
    Ok(ExitCode::SUCCESS)
}

/// How often a stopped service's group is checked for being gone.
const POLL: Duration = Duration::from_millis(50);
/// How long a group gets to vanish after SIGKILL.
const KILL_WAIT: Duration = Duration::from_secs(2);

/// Stops the service `agg run --until-ready` left with this run id: SIGTERM to its group,
/// `--grace-ms`, SIGKILL; records the run as stopped in the history.
fn stop_service(args: &StopArgs) -> Result<ExitCode, Error> {
    let root = here(args.root.as_deref());
    let Some((path, mut service)) = detached::find(&args.run_id, root.as_deref()) else {
        return stop_person_run(args, root.as_deref());
    };
    let shown = format!(
        "{} ({})",
        crate::terminal_text::line(&service.run_id),
        crate::terminal_text::line(&service.unique_name)
    );
    if !service.running() {
        println!("{shown} stopped: already");
        return Ok(ExitCode::SUCCESS);
    }
    let gone = |limit: Duration| {
        let deadline = Instant::now() + limit;
        while process::group_alive(service.pid) {
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(POLL);
        }
        true
    };
    process::signal_group(service.pid, Signal::SIGTERM);
    let how = if gone(Duration::from_millis(args.grace_ms.min(60_000))) {
        "SIGTERM"
    } else {
        process::signal_group(service.pid, Signal::SIGKILL);
        if !gone(KILL_WAIT) {
            return Err(Error::Control {
                action: format!("stop {}", args.run_id),
                reason: format!("process group {} is still there after SIGKILL", service.pid),
            });
        }
        "SIGKILL"
    };
    let took = service.started().elapsed().unwrap_or_default();
    service.stopped = true;
    if let Err(err) = detached::save(&service) {
        tracing::debug!("{}: {err}", path.display());
    }
    if let Some(history) = History::open(Path::new(&service.root)) {
        history.record(&Run {
            unique_name: service.unique_name.clone(),
            file: service.file.clone(),
            source: service.source.clone(),
            started: service.started(),
            duration_ms: u64::try_from(took.as_millis()).unwrap_or(u64::MAX),
            exit_code: None,
            signal: Some(if how == "SIGTERM" {
                Signal::SIGTERM as i32
            } else {
                Signal::SIGKILL as i32
            }),
            stopped: true,
            via: StartedBy::Run,
        });
    }
    println!("{shown} stopped: by {how}");
    Ok(ExitCode::SUCCESS)
}

/// Stops a run a person started with `agg run` (found by run id, or by its task's name when
/// one run of that task is running): TERM to the task's group or tree, `--grace-ms`, KILL;
/// its `agg run` then records how it ended.
fn stop_person_run(args: &StopArgs, root: Option<&Path>) -> Result<ExitCode, Error> {
    use crate::runs::record::State;
    // By its task's name only when one run of that task is running.
    let found = crate::runs::store::find(&args.run_id, root).or_else(|| {
        let mut running = crate::runs::store::list(root)
            .into_iter()
            .filter(|r| r.unique_name == args.run_id && r.state() == State::Running);
        let first = running.next()?;
        running.next().is_none().then_some(first)
    });
    let Some(record) = found else {
        return Err(Error::NoSuchRun {
            run_id: args.run_id.clone(),
        });
    };
    let shown = format!(
        "{} ({})",
        crate::terminal_text::line(&record.run_id),
        crate::terminal_text::line(&record.unique_name)
    );
    if record.state() != State::Running || !record.task_alive() {
        println!("{shown} stopped: already");
        return Ok(ExitCode::SUCCESS);
    }
    let send = |signal: Signal| match record.group {
        Some(group) => {
            process::signal_group(group, signal);
        }
        None => process::signal_tree(record.pid, signal),
    };
    let gone = |limit: Duration| {
        let deadline = Instant::now() + limit;
        while record.task_alive() {
            if Instant::now() >= deadline {
                return false;
            }
            std::thread::sleep(POLL);
        }
        true
    };
    send(Signal::SIGTERM);
    let how = if gone(Duration::from_millis(args.grace_ms.min(60_000))) {
        "SIGTERM"
    } else {
        send(Signal::SIGKILL);
        if !gone(KILL_WAIT) {
            return Err(Error::Control {
                action: format!("stop {}", args.run_id),
                reason: format!("process {} is still there after SIGKILL", record.pid),
            });
        }
        "SIGKILL"
    };
    println!("{shown} stopped: by {how}");
    Ok(ExitCode::SUCCESS)
}
