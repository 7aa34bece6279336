//! `agg run`: tasks in the foreground, for a person.
//!
//! Output streams live and stdin is inherited, so interactive tasks work. At a terminal the
//! task stays in agg's process group, so Ctrl-C and Ctrl-Z reach the whole tree just as if
//! the command had been typed; elsewhere it leads its own group and agg forwards SIGINT,
//! SIGTERM and SIGHUP to it. agg exits with the task's code, or 128+signal. Several names
//! run one after the other, stopping at the first failure, or at once with `--parallel`
//! ([`super::parallel`]); which words are names and which are arguments is [`plan`]'s rule.

use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use nix::sys::signal::Signal;
use tokio::signal::unix::{SignalKind, signal};

use super::picker::{Among, Choice};
use super::status::Ended;
use crate::engine::{Duplicates, Engine, EngineConfig, Invocation, JobState, OnFinish, StdioMode};
use crate::error::Error;
use crate::invocation::{RunOptions, invocation};
use crate::resolve::Resolved;
use crate::table::Table;

/// Options of `agg run`.
#[derive(Debug, Clone, Default, clap::Args)]
#[allow(clippy::struct_excessive_bools)]
pub struct RunArgs {
    /// The tasks: unique names from `agg list` (an alias or an unambiguous source name
    /// works too). Several run one after the other and stop at the first that fails.
    /// Without `--`, words after the first name that are not task names are its arguments.
    /// None, or one name several tasks share: a picker, at a terminal.
    #[arg(
        value_name = "NAME",
        add = clap_complete::ArgValueCompleter::new(super::completions::task_names)
    )]
    pub names: Vec<String>,
    /// Arguments passed to the task (to the last one when several are named).
    #[arg(last = true, value_name = "ARGS")]
    pub args: Vec<String>,
    /// Run the named tasks at once, each output line starting with its task's name; stop
    /// them all on Ctrl-C. The exit code is that of the first task that fails.
    #[arg(long, short = 'p')]
    pub parallel: bool,
    /// The repository root (default: the repository around the current directory).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// Set an environment variable for the task (repeatable).
    #[arg(long = "env", short = 'e', value_name = "KEY=VALUE", value_parser = super::parse_env)]
    pub env: Vec<(String, String)>,
    /// xc tasks: do not run the `Requires` dependencies.
    #[arg(long)]
    pub skip_deps: bool,
    /// Return once the task is ready and leave it running in the background, its output
    /// going to a log file (`agg ps`, `agg logs` and `agg stop` see it). Ready means: the
    /// --ready-* condition, or for any task the service rules (a framework's readiness
    /// message, a port its processes listen on).
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
    /// Run it exactly as an agent's run would be: in the sandbox the allowlist's rule for
    /// it gives (the default policy when none says otherwise), to try a policy.
    #[arg(long)]
    pub sandbox: bool,
    /// Read each task's results from its output and, when it ends, write one JSON object
    /// per task (its exit, `tests`, `problems`): on stdout, the task's own output then going
    /// to stderr; or with `--json=FILE` to FILE, the output staying where it was (for
    /// editors).
    #[arg(long, value_name = "FILE", num_args = 0..=1, require_equals = true, conflicts_with_all = ["parallel", "until_ready"])]
    #[allow(clippy::option_option)] // clap's shape for a flag whose value is optional
    pub json: Option<Option<PathBuf>>,
    /// How the words before `--` are read (set from the command line, not a flag).
    #[arg(skip)]
    pub words: Words,
}

/// How `agg run` reads the words before `--`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Words {
    /// No `--` was given: the words after the first are task names or its arguments
    /// ([`plan`]).
    #[default]
    Inferred,
    /// `--` was given: every word before it is a task name.
    AllNames,
}

pub(super) fn run(args: &RunArgs) -> Result<ExitCode, Error> {
    let root = super::Root::choose(args.root.as_deref())?;
    let table = super::status::scan(&root.path);
    let below = root.below.as_deref();
    let Some(first) = args.names.first() else {
        return pick(&table, below, &Among::All, args);
    };
    // One name several tasks share: the picker among them, at a terminal.
    if args.names.len() == 1
        && super::picker::at_terminal()
        && let Err(Error::Ambiguous { name, candidates }) =
            super::resolve_task(&table, &root, first)
    {
        let tasks = candidates.into_iter().map(|(unique, ..)| unique).collect();
        return pick(&table, below, &Among::Named { name: &name, tasks }, args);
    }
    let steps = plan(&table, &root, args)?;
    let ready = ready_spec(args)
        .map(|s| s.probe())
        .transpose()
        .map_err(|e| Error::BadReady {
            reason: e.to_string(),
        })?;
    if ready.is_some() && steps.len() > 1 {
        return Err(Error::BadReady {
            reason: "--until-ready starts one service: name one task".to_owned(),
        });
    }
    // Every task is checked, and turned into a process, before the first one starts.
    let mut invs = Vec::with_capacity(steps.len());
    for (found, task_args) in &steps {
        let mut all_args = found.implied_args.clone();
        all_args.extend(task_args.iter().cloned());
        let opts = RunOptions {
            args: all_args,
            env: args.env.clone(),
            skip_deps: args.skip_deps,
            // At a terminal the runner asks its own confirmation questions.
            confirmed: false,
        };
        let mut inv = invocation(&table, found.task, &opts).map_err(|e| Error::Invocation {
            task: found.task.unique_name.clone(),
            source: e,
        })?;
        if args.sandbox {
            let policy = super::sandbox::policy(&table, found.task)?;
            // Said before it runs, on stderr, so the task's own output stays as it is.
            let _ = writeln!(
                anstream::stderr().lock(),
                "agg: {}: {}",
                crate::terminal_text::line(&found.task.unique_name),
                policy.words()
            );
            // A person's run inherits agg's terminal unless it runs beside others.
            let alone = !(args.parallel && steps.len() > 1) && ready.is_none();
            inv.sandbox = Some(if alone {
                policy.inheriting_terminals()
            } else {
                policy
            });
        }
        invs.push(inv);
    }
    let parallel = args.parallel && invs.len() > 1 && ready.is_none();
    // Tasks at once: their output is read on one thread and written out on others, so a
    // task that floods its pipe does not starve the writing of what it said.
    let runtime = if parallel {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    }
    .map_err(Error::Runtime)?;
    // Every run that ends while agg waits goes into the run history.
    let located: HashMap<String, (String, String)> = steps
        .iter()
        .map(|(f, _)| {
            let t = f.task;
            (
                t.unique_name.clone(),
                (t.file_path.clone(), t.source_name.clone()),
            )
        })
        .collect();
    // Each run is shared: agg ps, and agents' list_runs, see it and read its output.
    let share = crate::runs::Share {
        root: root.path.clone(),
        located: located.clone(),
    };
    let on_finish = crate::history::recorder(
        root.path.clone(),
        crate::history::StartedBy::Run,
        move |name| located.get(name).cloned(),
    );
    if let Some(probe) = ready {
        let task = steps[0].0.task;
        let origin = super::until_ready::Origin {
            root: root.path.clone(),
            file: task.file_path.clone(),
            source: task.source_name.clone(),
        };
        let inv = invs.remove(0);
        return runtime.block_on(super::until_ready::run(inv, probe, on_finish, origin));
    }
    if parallel {
        return runtime.block_on(super::parallel::run(invs, on_finish, &share));
    }
    if let Some(to) = &args.json {
        return runtime.block_on(super::run_json::run(invs, on_finish, to.clone()));
    }
    runtime.block_on(sequence(invs, on_finish, &share))
}

/// Which words are task names and which are arguments, decided before anything runs:
///
/// - with `--`, every word before it names a task, and the words after it go to the last;
/// - without it, the first word names a task; the words after it are more tasks when every
///   one of them is a task name, and that task's arguments when none of them is.
///
/// Anything else is refused, saying both ways to write it: a mix of task names and other
/// words, or task names after a task that declares parameters (`just greet build` might
/// mean either).
fn plan<'a>(
    table: &'a Table,
    root: &super::Root,
    args: &RunArgs,
) -> Result<Vec<(Resolved<'a>, Vec<String>)>, Error> {
    let (names, mut extra) = if args.words == Words::AllNames || args.names.len() == 1 {
        (&args.names[..], Vec::new())
    } else {
        let first = super::resolve_task(table, root, &args.names[0])?;
        let rest = &args.names[1..];
        let (tasks, others): (Vec<&String>, Vec<&String>) =
            rest.iter().partition(|w| names_a_task(table, root, w));
        if tasks.is_empty() {
            (&args.names[..1], rest.to_vec())
        } else if others.is_empty() && first.task.params.is_empty() {
            (&args.names[..], Vec::new())
        } else {
            return Err(Error::UnclearWords {
                task: args.names[0].clone(),
                words: rest.to_vec(),
                tasks: tasks.into_iter().cloned().collect(),
            });
        }
    };
    extra.extend(args.args.iter().cloned());
    let mut steps = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        let found = super::resolve_task(table, root, name)?;
        let task_args = if i + 1 == names.len() {
            std::mem::take(&mut extra)
        } else {
            Vec::new()
        };
        steps.push((found, task_args));
    }
    Ok(steps)
}

/// Whether `word` is a task name as `agg run` reads one (a name several tasks share
/// counts: it names tasks, just not one).
fn names_a_task(table: &Table, root: &super::Root, word: &str) -> bool {
    matches!(
        super::resolve_task(table, root, word),
        Ok(_) | Err(Error::Ambiguous { .. })
    )
}

/// Runs `invs` one after the other, stopping at the first that fails (or that a signal
/// ended); the exit code is that task's.
async fn sequence(
    invs: Vec<Invocation>,
    on_finish: OnFinish,
    share: &crate::runs::Share,
) -> Result<ExitCode, Error> {
    if invs.len() > 1 {
        let names: Vec<String> = invs
            .iter()
            .map(|i| crate::terminal_text::line(&i.unique_name).into_owned())
            .collect();
        let _ = writeln!(
            std::io::stderr().lock(),
            "agg: running {} in order (arguments go after `--`, to the last task)",
            names.join(", then ")
        );
    }
    for inv in invs {
        let name = inv.unique_name.clone();
        let ended = foreground(inv, on_finish.clone(), share).await?;
        super::status::print(&name, &ended);
        if ended.code != 0 {
            return Ok(ExitCode::from(ended.code));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The picker (`agg run` without a name, or one several tasks share), then `agg run` of
/// the chosen task by its unique name from the root, the parameters asked for before
/// `args`' own arguments and environment.
fn pick(
    table: &crate::table::Table,
    below: Option<&str>,
    among: &Among<'_>,
    args: &RunArgs,
) -> Result<ExitCode, Error> {
    let mut args = args.clone();
    match super::picker::choose(table, below, among)? {
        Choice::Exit(code) => Ok(code),
        Choice::Run {
            name,
            args: first,
            env,
        } => {
            args.args.splice(0..0, first);
            args.env.splice(0..0, env);
            args.names = vec![name];
            args.words = Words::AllNames;
            args.root = Some(table.root.clone());
            run(&args)
        }
    }
}

async fn foreground(
    inv: Invocation,
    on_finish: OnFinish,
    share: &crate::runs::Share,
) -> Result<Ended, Error> {
    let at_terminal = std::io::stdin().is_terminal();
    let mut shared = share.begin(&inv.unique_name, &inv.user_args);
    // At a terminal the output goes through a pseudo-terminal agg reads, so the run's tests
    // and problems end it (`✗ test  3 failed, 1,204 passed`), and into the run's log, which
    // agents may read; elsewhere it is relayed into the log as it comes.
    let mode = if at_terminal && std::io::stdout().is_terminal() {
        StdioMode::Terminal {
            tee: shared.as_mut().map(crate::runs::Shared::tee),
        }
    } else {
        shared
            .as_mut()
            .and_then(|s| s.stdio(at_terminal))
            .unwrap_or(if at_terminal {
                StdioMode::Foreground
            } else {
                StdioMode::Inherit
            })
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
        .map_err(Error::Refused)?
        .job;
    if job.state() == JobState::FailedToStart {
        if let Some(shared) = shared {
            shared.finish(&job);
        }
        return Err(Error::FailedToStart {
            task: unique_name,
            reason: job.snapshot().error.unwrap_or_default(),
        });
    }
    if let Some(shared) = &mut shared {
        shared.started(&job);
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
    // Everything the task printed is out before agg says how it ended.
    if let Some(shared) = shared {
        shared.finish(&job);
    }
    let mut ended = Ended::of(&job);
    if let Some(sig) = received {
        ended.code = u8::try_from(128 + sig as i32).unwrap_or(1);
    }
    Ok(ended)
}

/// The `--ready-*` options as a condition, when `--until-ready` or one of them is given.
fn ready_spec(args: &RunArgs) -> Option<crate::readiness::service::ReadySpec> {
    let explicit =
        args.ready_line.is_some() || args.ready_port.is_some() || args.ready_url.is_some();
    (args.until_ready || explicit).then(|| crate::readiness::service::ReadySpec {
        line: args.ready_line.clone(),
        port: args.ready_port,
        url: args.ready_url.clone(),
        timeout_ms: args.ready_timeout,
    })
}
