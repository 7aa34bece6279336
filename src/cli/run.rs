//! `agg run`: a task in the foreground, for a person.
//!
//! Output streams live and stdin is inherited, so interactive tasks work. At a terminal the
//! task stays in agg's process group, so Ctrl-C and Ctrl-Z reach the whole tree just as if
//! the command had been typed; elsewhere it leads its own group and agg forwards SIGINT,
//! SIGTERM and SIGHUP to it. agg exits with the task's code, or 128+signal.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use nix::sys::signal::Signal;
use tokio::signal::unix::{SignalKind, signal};

use super::picker::{Among, Choice};
use crate::engine::{Duplicates, Engine, EngineConfig, JobState, OnFinish, StdioMode};
use crate::error::Error;
use crate::invocation::{RunOptions, invocation};

/// Options of `agg run`.
#[derive(Debug, Default, clap::Args)]
pub struct RunArgs {
    /// The task: a unique name from `agg list` (an alias or an unambiguous source name
    /// works too). None, or one several tasks share: a picker, at a terminal.
    #[arg(add = clap_complete::ArgValueCompleter::new(super::completions::task_names))]
    pub name: Option<String>,
    /// Arguments passed to the task (put them after `--` when they start with `-`).
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<String>,
    /// The repository root (default: the repository around the current directory).
    #[arg(long, short = 'C')]
    pub root: Option<PathBuf>,
    /// Set an environment variable for the task (repeatable).
    #[arg(long = "env", short = 'e', value_name = "KEY=VALUE", value_parser = super::parse_env)]
    pub env: Vec<(String, String)>,
    /// xc tasks: do not run the `Requires` dependencies.
    #[arg(long)]
    pub skip_deps: bool,
    /// Return once the task is ready and leave it running in the background, its output
    /// going to a log file. Ready means: the --ready-* condition, or for any task the
    /// service rules (a framework's readiness message, a port its processes listen on).
    #[arg(long)]
    pub until_ready: bool,
    /// Ready when an output line matches this regular expression (implies --until-ready).
    #[arg(long, value_name = "REGEX")]
    pub ready_line: Option<String>,
    /// Ready when this TCP port accepts connections (implies --until-ready).
    #[arg(long, value_name = "PORT")]
    pub ready_port: Option<u16>,
    /// Ready when this http:// URL answers below 500 (implies --until-ready).
    #[arg(long, value_name = "URL")]
    pub ready_url: Option<String>,
    /// Milliseconds to wait for readiness (default 30000); the task is stopped after.
    #[arg(long, value_name = "MS")]
    pub ready_timeout: Option<u64>,
}

pub(super) fn run(args: RunArgs) -> Result<ExitCode, Error> {
    let root = super::Root::choose(args.root.as_deref())?;
    let table = crate::table::Table::load(&root.path);
    let below = root.below.as_deref();
    let Some(name) = args.name.as_deref() else {
        return pick(&table, below, &Among::All, args);
    };
    let found = match super::resolve_task(&table, &root, name) {
        Err(Error::Ambiguous { name, candidates }) if super::picker::at_terminal() => {
            let tasks = candidates.into_iter().map(|(unique, ..)| unique).collect();
            return pick(&table, below, &Among::Named { name: &name, tasks }, args);
        }
        found => found?,
    };
    let task = found.task;
    let ready = ready_spec(&args)
        .map(|s| s.probe())
        .transpose()
        .map_err(|reason| Error::BadReady { reason })?;
    let mut task_args = found.implied_args;
    task_args.extend(args.args);
    let opts = RunOptions {
        args: task_args,
        env: args.env,
        skip_deps: args.skip_deps,
        // At a terminal the runner asks its own confirmation questions.
        confirmed: false,
    };
    let inv = invocation(&table, task, &opts).map_err(|e| Error::Invocation {
        task: task.unique_name.clone(),
        source: e,
    })?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(Error::Runtime)?;
    // Every run that ends while agg waits goes into the run history.
    let (file, source) = (task.file_path.clone(), task.source_name.clone());
    let on_finish = crate::history::recorder(root.path, crate::history::Via::Run, move |_| {
        Some((file.clone(), source.clone()))
    });
    match ready {
        Some(probe) => runtime.block_on(super::until_ready::run(inv, probe, on_finish)),
        None => runtime.block_on(foreground(inv, on_finish)),
    }
}

/// The picker (`agg run` without a name, or one several tasks share), then `agg run` of
/// the chosen task by its unique name from the root, the parameters asked for before
/// `args`' own arguments and environment.
fn pick(
    table: &crate::table::Table,
    below: Option<&str>,
    among: &Among<'_>,
    mut args: RunArgs,
) -> Result<ExitCode, Error> {
    match super::picker::choose(table, below, among)? {
        Choice::Exit(code) => Ok(code),
        Choice::Run {
            name,
            args: first,
            env,
        } => {
            args.args.splice(0..0, first);
            args.env.splice(0..0, env);
            args.name = Some(name);
            args.root = Some(table.root.clone());
            run(args)
        }
    }
}

async fn foreground(
    inv: crate::engine::Invocation,
    on_finish: OnFinish,
) -> Result<ExitCode, Error> {
    let at_terminal = std::io::stdin().is_terminal();
    let mode = if at_terminal {
        StdioMode::Foreground
    } else {
        StdioMode::Inherit
    };
    let mut sigint = signal(SignalKind::interrupt()).map_err(Error::Signals)?;
    let mut sigterm = signal(SignalKind::terminate()).map_err(Error::Signals)?;
    let mut sighup = signal(SignalKind::hangup()).map_err(Error::Signals)?;
    let engine = Engine::new(EngineConfig {
        on_finish: Some(on_finish),
        ..EngineConfig::default()
    });
    let unique_name = inv.unique_name.clone();
    let job = engine
        .start(inv, mode, Duplicates::Allow)
        .map_err(|e| Error::Refused(e.to_string()))?
        .job;
    if job.state() == JobState::FailedToStart {
        return Err(Error::FailedToStart {
            task: unique_name,
            reason: job.snapshot().error.unwrap_or_default(),
        });
    }
    let mut received: Option<Signal> = None;
    loop {
        tokio::select! {
            () = job.wait() => break,
            _ = sigint.recv() => {
                // At a terminal the task got Ctrl-C itself; a second one, or one sent to agg
                // alone, is passed on.
                if !at_terminal || received == Some(Signal::SIGINT) {
                    job.signal(Signal::SIGINT);
                }
                received = Some(Signal::SIGINT);
            }
            _ = sighup.recv() => {
                received = Some(Signal::SIGHUP);
                job.signal(Signal::SIGHUP);
            }
            _ = sigterm.recv() => {
                received = Some(Signal::SIGTERM);
                engine.stop(&job, Duration::from_secs(5)).await;
                break;
            }
        }
    }
    let snapshot = job.snapshot();
    let code = match (received, snapshot.state, snapshot.exit_code) {
        (Some(sig), _, _) => 128 + sig as i32,
        (None, JobState::Exited, Some(code)) => code,
        (None, JobState::Signaled, _) => 128 + job.signal_number().unwrap_or(0),
        _ => 1,
    };
    Ok(ExitCode::from(u8::try_from(code & 0xff).unwrap_or(1)))
}

/// The `--ready-*` options as a condition, when `--until-ready` or one of them is given.
fn ready_spec(args: &RunArgs) -> Option<crate::service::ReadySpec> {
    let explicit =
        args.ready_line.is_some() || args.ready_port.is_some() || args.ready_url.is_some();
    (args.until_ready || explicit).then(|| crate::service::ReadySpec {
        line: args.ready_line.clone(),
        port: args.ready_port,
        url: args.ready_url.clone(),
        timeout_ms: args.ready_timeout,
    })
}
