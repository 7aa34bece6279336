//! agg's errors, each carrying the context a person needs and the exit code it maps to.
//! They are printed in one place only: [`crate::cli::main`]. A name or path they quote is
//! shown in its [`visible`] form, so a suggestion never looks like what was typed unless it
//! is what was typed.

use std::path::{Path, PathBuf};

use crate::terminal_text;

/// A path as a person's terminal shows it.
fn shown(path: &Path) -> String {
    terminal_text::line(&path.to_string_lossy()).into_owned()
}

/// Everything that can stop an agg command.
#[derive(Debug)]
pub enum Error {
    /// The root to scan is missing or not a directory.
    BadRoot {
        /// The path given.
        path: PathBuf,
        /// Why it cannot be used.
        reason: String,
    },
    /// `-C DIR` names a directory agg cannot start in.
    BadDirectory {
        /// The directory given.
        path: PathBuf,
        /// Why agg cannot change to it.
        reason: String,
    },
    /// `agg list --for` was given a path outside the repository.
    OutsideRoot {
        /// The path given.
        path: PathBuf,
        /// The repository root.
        root: PathBuf,
    },
    /// Writing the output failed for a reason other than a closed pipe.
    Output(std::io::Error),
    /// No task has this name.
    UnknownTask {
        /// The name given.
        name: String,
        /// The closest names.
        suggestions: Vec<String>,
    },
    /// A source name that several tasks share.
    Ambiguous {
        /// The name given.
        name: String,
        /// `(unique name, runner, file)` of each candidate.
        candidates: Vec<(String, String, String)>,
    },
    /// The task cannot be turned into a process (missing runner, bad input).
    Invocation {
        /// The task.
        task: String,
        /// Why.
        source: crate::invocation::InvocationError,
    },
    /// The allowlist cannot be read or written.
    Allowlist(String),
    /// The engine refused to start another job.
    Refused(crate::engine::StartError),
    /// `agg run --until-ready` could not create its log file (or its directory).
    RunLog {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The async runtime could not be built.
    Runtime(std::io::Error),
    /// Signal handlers could not be installed.
    Signals(std::io::Error),
    /// `agg run --json=FILE` could not create FILE.
    WriteResults {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// `--task-tools` was given a glob that does not parse.
    BadGlob(crate::mcp::BadGlob),
    /// The MCP server could not start or serve.
    Serve(std::io::Error),
    /// `agg list --watch` cannot follow the repository (any more).
    Watch(String),
    /// A readiness condition (`--ready-line`, `--ready-url`, …) cannot be used.
    BadReady {
        /// Why.
        reason: String,
    },
    /// A running `agg mcp` could not be reached or refused the request.
    Control {
        /// What was asked.
        action: String,
        /// Why it failed.
        reason: String,
    },
    /// No running `agg mcp` of this user holds a job with this run id.
    NoSuchRun {
        /// The run id given.
        run_id: String,
    },
    /// `agg mcp --print-config` was asked for a scope the host has no file for.
    HostScope(crate::mcp::NoSuchScope),
    /// `agg run A B…` without `--`, where the words after `A` could be task names or its
    /// arguments.
    UnclearWords {
        /// The first word, a task.
        task: String,
        /// Every word after it.
        words: Vec<String>,
        /// Those of them that name tasks.
        tasks: Vec<String>,
    },
    /// `agg run` without a task name where no picker can open (not at a terminal).
    MissingName,
    /// The terminal the picker draws on failed (it is restored before this is reported).
    Terminal(std::io::Error),
    /// `agg run --sandbox`: the task cannot be run in its sandbox here.
    Sandbox {
        /// The task.
        task: String,
        /// Why.
        reason: String,
    },
    /// The task's process could not be started.
    FailedToStart {
        /// The task.
        task: String,
        /// Why.
        reason: String,
    },
    /// `--affected` cannot tell what changed (no repository, a bad ref, a repository too
    /// large to read).
    Changes(crate::changes::ChangeError),
}

impl Error {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::BadRoot { .. }
            | Error::BadDirectory { .. }
            | Error::OutsideRoot { .. }
            | Error::UnknownTask { .. }
            | Error::Ambiguous { .. }
            | Error::BadGlob(_)
            | Error::BadReady { .. }
            | Error::UnclearWords { .. }
            | Error::NoSuchRun { .. }
            | Error::HostScope(_)
            | Error::Changes(_)
            | Error::MissingName => 2,
            Error::Output(_)
            | Error::Refused(_)
            | Error::Runtime(_)
            | Error::Signals(_)
            | Error::WriteResults { .. }
            | Error::Serve(_)
            | Error::Watch(_)
            | Error::Allowlist(_)
            | Error::RunLog { .. }
            | Error::Control { .. }
            | Error::Sandbox { .. }
            | Error::Terminal(_) => 1,
            Error::Invocation { source, .. } => match source {
                crate::invocation::InvocationError::RunnerMissing { .. } => 127,
                _ => 2,
            },
            Error::FailedToStart { .. } => 126,
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::BadRoot { path, reason } => {
                write!(f, "cannot scan `{}`: {reason}", shown(path))
            }
            Error::BadDirectory { path, reason } => {
                write!(f, "cannot run in `{}` (-C): {reason}", shown(path))
            }
            Error::OutsideRoot { path, root } => write!(
                f,
                "`{}` is not inside the repository `{}`",
                shown(path),
                shown(root)
            ),
            Error::Output(err) => write!(f, "cannot write output: {err}"),
            Error::Changes(err) => write!(f, "{err}"),
            Error::UnknownTask { name, suggestions } => {
                write!(f, "no task named `{}`", terminal_text::line(name))?;
                if !suggestions.is_empty() {
                    let shown: Vec<_> = suggestions.iter().map(|s| terminal_text::line(s)).collect();
                    write!(f, "\n  did you mean: {}?", shown.join(", "))?;
                }
                write!(f, "\n  `agg list` shows every task")
            }
            Error::Ambiguous { name, candidates } => {
                write!(
                    f,
                    "`{}` names {} tasks; use one of:",
                    terminal_text::line(name),
                    candidates.len()
                )?;
                for (unique, runner, file) in candidates {
                    let (unique, file) = (terminal_text::line(unique), terminal_text::line(file));
                    write!(f, "\n  {unique:<24} {runner:<6} {file}")?;
                }
                Ok(())
            }
            Error::Invocation { task, source } => {
                let task = terminal_text::line(task);
                match source {
                    crate::invocation::InvocationError::RunnerMissing { runner, hint } => write!(
                        f,
                        "`{task}` needs {runner}, which is not installed\n  install it: {hint}"
                    ),
                    other => write!(f, "cannot run `{task}`: {other}"),
                }
            }
            Error::Refused(err) => write!(f, "{err}"),
            Error::BadGlob(err) => write!(f, "{err}"),
            Error::Watch(reason)
            | Error::BadReady { reason } => f.write_str(reason),
            Error::Runtime(err) => write!(f, "cannot start agg's async runtime: {err}"),
            Error::RunLog { path, source } => {
                write!(f, "cannot write the run log {}: {source}", shown(path))
            }
            Error::Signals(err) => write!(f, "cannot set up signal handling: {err}"),
            Error::WriteResults { path, source } => {
                write!(f, "cannot write the results to {}: {source}", path.display())
            }
            Error::Serve(err) => write!(f, "agg mcp: {err}"),
            Error::Allowlist(reason) => write!(f, "allowlist: {reason}"),
            Error::HostScope(err) => write!(f, "{err}"),
            Error::FailedToStart { task, reason } => {
                write!(f, "cannot start `{}`: {reason}", terminal_text::line(task))
            }
            Error::Sandbox { task, reason } => {
                write!(f, "cannot sandbox `{}`: {reason}", terminal_text::line(task))
            }
            Error::Control { action, reason } => write!(
                f,
                "cannot {}: {}",
                terminal_text::line(action),
                terminal_text::line(reason)
            ),
            Error::MissingName => f.write_str(
                "`agg run` needs a task name when it is not at a terminal (at one, it opens a picker)\n  `agg list` shows every task",
            ),
            Error::Terminal(err) => write!(f, "the terminal failed: {err}"),
            Error::NoSuchRun { run_id } => write!(
                f,
                "no running `agg mcp` of yours has a job `{}`, and no `agg run --until-ready` service has that id\n  `agg ps` lists them",
                terminal_text::line(run_id)
            ),
            Error::UnclearWords { task, words, tasks } => {
                let shown = |list: &[String]| {
                    list.iter()
                        .map(|w| terminal_text::line(w).into_owned())
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                let (task, all) = (terminal_text::line(task), shown(words));
                let others: Vec<String> = words
                    .iter()
                    .filter(|w| !tasks.contains(w))
                    .cloned()
                    .collect();
                if others.is_empty() {
                    write!(
                        f,
                        "`{task}` takes arguments, and {} also {}: say which you mean",
                        quoted(tasks).1,
                        if tasks.len() == 1 {
                            "a task name"
                        } else {
                            "task names"
                        }
                    )?;
                } else {
                    write!(
                        f,
                        "after `{task}`, {} {} but {} not: say which words are arguments",
                        quoted(tasks).0,
                        if tasks.len() == 1 {
                            "is a task name"
                        } else {
                            "are task names"
                        },
                        quoted(&others).1
                    )?;
                }
                let rest = if others.is_empty() {
                    String::new()
                } else {
                    format!(" {}", shown(&others))
                };
                write!(
                    f,
                    "\n  to run them all as tasks:  agg run {task} {} --{rest}\n  to pass them to `{task}`:  agg run {task} -- {all}",
                    shown(tasks),
                )
            }
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Output(err)
            | Error::Runtime(err)
            | Error::Signals(err)
            | Error::Serve(err)
            | Error::Terminal(err)
            | Error::RunLog { source: err, .. }
            | Error::WriteResults { source: err, .. } => Some(err),
            Error::Invocation { source, .. } => Some(source),
            Error::Refused(err) => Some(err),
            Error::Changes(err) => Some(err),
            Error::BadGlob(err) => Some(err),
            _ => None,
        }
    }
}

/// Words as a message quotes them (`` `a`, `b` ``), alone and with their verb (`is`, `are`).
fn quoted(words: &[String]) -> (String, String) {
    let quoted: Vec<String> = words
        .iter()
        .map(|w| format!("`{}`", terminal_text::line(w)))
        .collect();
    let list = quoted.join(", ");
    let verb = if words.len() == 1 { "is" } else { "are" };
    let with_verb = format!("{list} {verb}");
    (list, with_verb)
}
