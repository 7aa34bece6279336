//! From a table row plus the caller's arguments to exactly what the engine executes.
//!
//! Arguments are always passed as argv, never spliced into a shell string; each runner
//! gets them the way it expects (`npm run x -- args`, `task x -- args`, `make x VAR=v`).
//! xc tasks run through `xc` when it is installed and otherwise through agg's built-in
//! executor ([`crate::xc_exec`]).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use agg_runners::Runner;

use crate::availability::install_hint;
use crate::engine::Invocation;
use crate::table::{Table, Task};

/// What the caller asks for beyond the task itself.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Arguments for the task.
    pub args: Vec<String>,
    /// Environment overrides (`KEY`, `value`).
    pub env: Vec<(String, String)>,
    /// xc: skip the `Requires` dependencies.
    pub skip_deps: bool,
}

/// Why a task cannot be turned into a process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InvocationError {
    /// The runner's program is not on `PATH`.
    RunnerMissing {
        /// The runner.
        runner: Runner,
        /// How to install it.
        hint: &'static str,
    },
    /// An environment variable name is not a valid shell name, or a value holds a NUL.
    InvalidEnv {
        /// The offending name.
        name: String,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// An argument holds a NUL byte, which no process can receive.
    InvalidArg {
        /// The argument's position.
        index: usize,
    },
    /// The built-in xc executor refused the task (missing input, cycle, missing dep).
    Xc(String),
}

impl std::fmt::Display for InvocationError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InvocationError::RunnerMissing { runner, hint } => {
                write!(f, "{runner} is not installed; install it: {hint}")
            }
            InvocationError::InvalidEnv { name, reason } => {
                write!(f, "invalid environment variable `{name}`: {reason}")
            }
            InvocationError::InvalidArg { index } => {
                write!(f, "argument {} contains a NUL byte", index + 1)
            }
            InvocationError::Xc(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for InvocationError {}

/// Builds the invocation of `task` from `table` (rooted at `table.root`).
pub fn invocation(
    table: &Table,
    task: &Task,
    opts: &RunOptions,
) -> Result<Invocation, InvocationError> {
    validate(opts)?;
    let cwd = table.root.join(&task.dir);
    let env: Vec<(OsString, OsString)> = opts
        .env
        .iter()
        .map(|(k, v)| (OsString::from(k), OsString::from(v)))
        .collect();
    let base = |program: OsString, args: Vec<OsString>, temp| Invocation {
        unique_name: task.unique_name.clone(),
        program,
        args,
        cwd: cwd.clone(),
        env: env.clone(),
        user_args: opts.args.clone(),
        user_env: opts.env.clone(),
        temp,
    };
    if task.runner == Runner::Xc && which::which("xc").is_err() {
        let plan = crate::xc_exec::compile(table, task, opts)?;
        return Ok(base(plan.program, plan.args, Some(plan.temp)));
    }
    let program = match crate::availability::project_program(&table.root, &task.dir, task.runner) {
        Some((_, local)) => local,
        None => resolve_program(task)?,
    };
    let mut args: Vec<OsString> = task.argv.iter().skip(1).map(OsString::from).collect();
    if needs_separator(task.runner) && !opts.args.is_empty() {
        args.push("--".into());
    }
    args.extend(opts.args.iter().map(OsString::from));
    Ok(base(program.into_os_string(), args, None))
}

/// npm, go-task, tox and nox take the task's own arguments after `--`; the others take
/// them as is.
pub fn needs_separator(runner: Runner) -> bool {
    matches!(
        runner,
        Runner::Npm | Runner::Task | Runner::Tox | Runner::Nox
    )
}

/// The full path of the task's program, looked up now (PATH may have changed since the
/// table was built).
pub fn resolve_program(task: &Task) -> Result<PathBuf, InvocationError> {
    let first = task.argv.first().map_or("", String::as_str);
    let candidates: Vec<&str> = std::iter::once(first)
        .chain(task.runner.binaries().iter().copied())
        .collect();
    candidates
        .iter()
        .find_map(|bin| which::which(bin).ok())
        .ok_or(InvocationError::RunnerMissing {
            runner: task.runner,
            hint: install_hint(task.runner),
        })
}

fn validate(opts: &RunOptions) -> Result<(), InvocationError> {
    for (name, value) in &opts.env {
        if !is_env_name(name) {
            return Err(InvocationError::InvalidEnv {
                name: name.clone(),
                reason: "names are letters, digits and `_`, not starting with a digit",
            });
        }
        if value.contains('\0') {
            return Err(InvocationError::InvalidEnv {
                name: name.clone(),
                reason: "the value contains a NUL byte",
            });
        }
    }
    if let Some(index) = opts.args.iter().position(|a| a.contains('\0')) {
        return Err(InvocationError::InvalidArg { index });
    }
    Ok(())
}

/// Whether `name` is a portable environment variable name.
pub fn is_env_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The directory a task runs in.
pub fn task_dir(root: &Path, task: &Task) -> PathBuf {
    root.join(&task.dir)
}
