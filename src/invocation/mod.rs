//! From a table row plus the caller's arguments to exactly what the engine executes.
//!
//! Arguments are always passed as argv, never spliced into a shell string; each runner
//! gets them the way it expects (`npm run x -- args`, `task x -- args`, `make x VAR=v`).
//! xc tasks run through `xc` when it is installed and otherwise through agg's built-in
//! executor ([`xc`]).

use std::ffi::OsString;
use std::path::PathBuf;

use agg_runners::Runner;

use crate::availability::install_hint;
use crate::engine::Invocation;
use crate::table::{Table, Task};

pub mod policy;
mod xc;

/// What the caller asks for beyond the task itself.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Arguments for the task.
    pub args: Vec<String>,
    /// Environment overrides (`KEY`, `value`).
    pub env: Vec<(String, String)>,
    /// xc: skip the `Requires` dependencies.
    pub skip_deps: bool,
    /// The user already answered the runner's own confirmation (just `[confirm]`, go-task
    /// `prompt`) yes: the runner is told so (`--yes`) instead of asking on a terminal.
    pub confirmed: bool,
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
    /// agg lists the task but cannot run it (a VS Code task an extension provides).
    NotRunnable {
        /// Why, as the table says it.
        reason: String,
    },
    /// A wildcard task (go-task `greet:*`) was given no value for one of its `*`s.
    MissingMatch {
        /// The parameter standing for that `*` (`MATCH`).
        param: String,
        /// The task's name with its wildcard.
        pattern: String,
    },
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
            InvocationError::NotRunnable { reason } => f.write_str(reason),
            InvocationError::Xc(message) => f.write_str(message),
            InvocationError::MissingMatch { param, pattern } => write!(
                f,
                "`{pattern}` needs a value for `{param}`: pass it as the first argument, or run the name it matches (`{}`)",
                pattern.replacen('*', "VALUE", 1)
            ),
        }
    }
}

impl std::error::Error for InvocationError {}

/// Where a run of `task` reads its results: its directory, and the texts that may name a
/// `JUnit` report (the command, the script, the arguments).
fn results_scope(
    table: &Table,
    task: &Task,
    opts: &RunOptions,
    cwd: &std::path::Path,
) -> crate::results::Scope {
    let mut command = task.command.clone();
    for text in task.script.iter().chain(&opts.args) {
        command.push('\n');
        command.push_str(text);
    }
    crate::results::Scope {
        root: table.root.clone(),
        cwd: cwd.to_path_buf(),
        command,
        env: opts.env.clone(),
        started: std::time::SystemTime::now(),
    }
}

/// Builds the invocation of `task` from `table` (rooted at `table.root`).
pub fn invocation(
    table: &Table,
    task: &Task,
    opts: &RunOptions,
) -> Result<Invocation, InvocationError> {
    if let Some(reason) = task.behaviour.not_runnable.as_deref() {
        return Err(InvocationError::NotRunnable {
            reason: reason.to_owned(),
        });
    }
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
        sandbox: None,
        results: Some(results_scope(table, task, opts, &cwd)),
    };
    if task.runner == Runner::Xc && which::which("xc").is_err() {
        let plan = xc::compile(table, task, opts)?;
        return Ok(base(plan.program, plan.args, Some(plan.temp)));
    }
    let mut args: Vec<OsString> = runner_args(task, &opts.args)?
        .into_iter()
        .map(OsString::from)
        .collect();
    let program = if let Some(path) = path_program(&cwd, task) {
        path
    } else if task.runner == Runner::Compose {
        compose_program(task, &mut args)?
    } else {
        match crate::availability::program_override(&table.root, &task.dir, task.runner, &task.argv)
        {
            Some((_, local)) => local,
            None => resolve_program(task)?,
        }
    };
    if opts.confirmed
        && let Some(yes) = task.runner.descriptor().assume_yes
    {
        args.insert(0, OsString::from(yes));
    }
    Ok(base(program.into_os_string(), args, None))
}

/// A program written as a path (`./scripts/deploy.sh`) is that file, from the task's
/// directory, as a shell would run it: never looked up on `PATH`.
fn path_program(cwd: &std::path::Path, task: &Task) -> Option<PathBuf> {
    let first = task.argv.first()?;
    (first.starts_with("./") || first.starts_with("../")).then(|| cwd.join(first))
}

/// `docker compose` when the Compose plugin is installed, else the standalone
/// `docker-compose` (without the `compose` argument), whichever the table was built with.
fn compose_program(task: &Task, args: &mut Vec<OsString>) -> Result<PathBuf, InvocationError> {
    use crate::availability::ComposeProgram;
    match crate::availability::compose_program() {
        Some(ComposeProgram::Plugin(docker)) => {
            if args.first().is_none_or(|a| a != "compose") {
                args.insert(0, OsString::from("compose"));
            }
            Ok(docker)
        }
        Some(ComposeProgram::Standalone(path)) => {
            if args.first().is_some_and(|a| a == "compose") {
                args.remove(0);
            }
            Ok(path)
        }
        None => Err(InvocationError::RunnerMissing {
            runner: task.runner,
            hint: install_hint(task.runner),
        }),
    }
}

/// The arguments after the program for `task` run with the caller's `args`, the way its
/// runner takes them:
///
/// - npm: `run x -- args`;
/// - go-task: a wildcard task's `*`s are filled from the first arguments (`greet:*` with
///   `bob` runs `task greet:bob`), leading `NAME=value` arguments stay variables
///   (`task greet NAME=Bob`), and the rest follow `--` (they arrive as `CLI_ARGS`);
/// - every other runner: the arguments as they are.
pub fn runner_args(task: &Task, args: &[String]) -> Result<Vec<String>, InvocationError> {
    let mut out: Vec<String> = task.argv.iter().skip(1).cloned().collect();
    let mut rest = args;
    if task.runner == Runner::GoTask {
        let stars = task.source_name.matches('*').count();
        if stars > 0 {
            let matches = rest
                .get(..stars)
                .ok_or_else(|| InvocationError::MissingMatch {
                    param: task
                        .params
                        .get(rest.len())
                        .map_or_else(|| "MATCH".to_owned(), |p| p.name.clone()),
                    pattern: task.source_name.clone(),
                })?;
            let mut filled = String::new();
            let mut parts = task.source_name.split('*');
            filled.push_str(parts.next().unwrap_or_default());
            for (part, value) in parts.zip(matches) {
                filled.push_str(value);
                filled.push_str(part);
            }
            if let Some(name) = out.iter_mut().find(|a| **a == task.source_name) {
                *name = filled;
            }
            rest = &rest[stars..];
        }
        let vars = rest.iter().take_while(|a| is_assignment(a)).count();
        out.extend(rest[..vars].iter().cloned());
        rest = &rest[vars..];
    }
    // rake: `deploy[prod]` from [`param_arguments`] replaces the task's bare name.
    if task.runner == Runner::Rake
        && let Some(first) = rest.first()
        && first
            .strip_prefix(task.source_name.as_str())
            .is_some_and(|r| r.starts_with('[') && r.ends_with(']'))
        && let Some(name) = out.iter_mut().rev().find(|a| **a == task.source_name)
    {
        name.clone_from(first);
        rest = &rest[1..];
    }
    if needs_separator(task.runner) && !rest.is_empty() {
        out.push("--".to_owned());
    }
    out.extend(rest.iter().cloned());
    Ok(out)
}

/// `NAME=value` with a variable name go-task and make accept.
fn is_assignment(arg: &str) -> bool {
    arg.split_once('=')
        .is_some_and(|(name, _)| is_env_name(name))
}

/// How a run's parameter values reach the task, given as (`name`, `value`) for the task's
/// [`Task::params`], each the way its adapter said its runner takes it
/// ([`agg_runners::Passing`]). Returns the arguments (to pass as [`RunOptions::args`], before
/// any others) and the environment (for [`RunOptions::env`]).
pub fn param_arguments(
    task: &Task,
    values: &[(String, String)],
) -> (Vec<String>, Vec<(String, String)>) {
    agg_runners::param_arguments(task, values)
}

/// Whether the runner takes the task's own arguments after `--` (npm, go-task).
pub fn needs_separator(runner: Runner) -> bool {
    runner.descriptor().separator
}

/// The full path of the task's program, looked up now (PATH may have changed since the
/// table was built). The runner's other binaries stand in for it (`go-task` for `task`) only
/// when the program is one of them: `pnpm` of `pnpm exec turbo` has no stand-in, and when it
/// is missing, the runner reported missing is the one that owns it.
pub fn resolve_program(task: &Task) -> Result<PathBuf, InvocationError> {
    let first = task.argv.first().map_or("", String::as_str);
    let own = task.runner.binaries().contains(&first);
    let candidates: Vec<&str> = std::iter::once(first)
        .chain(task.runner.binaries().iter().copied().filter(|_| own))
        .collect();
    let missing = if own {
        task.runner
    } else {
        Runner::ALL
            .into_iter()
            .find(|r| r.binaries().contains(&first))
            .unwrap_or(task.runner)
    };
    candidates
        .iter()
        .find_map(|bin| which::which(bin).ok())
        .ok_or(InvocationError::RunnerMissing {
            runner: missing,
            hint: install_hint(missing),
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

#[cfg(test)]
mod tests {
    use agg_runners::{Param, Passing, Runner};

    use super::{param_arguments, runner_args};
    use crate::table::Task;

    /// A task of `runner` named `name` with required `params`, as the table lists it.
    pub(super) fn task(runner: Runner, name: &str, params: &[&str]) -> Task {
        let argv = vec![runner.name().to_owned(), name.to_owned()];
        let mut t = Task::new(runner, name, ".", "", argv);
        t.unique_name = name.to_owned();
        t.runner_available = true;
        t.params = params.iter().map(|p| Param::required(*p)).collect();
        t
    }

    /// `task` with every parameter passed as `passing` says.
    fn passed(mut task: Task, passing: &Passing) -> Task {
        for p in &mut task.params {
            p.passing = passing.clone();
        }
        task
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn go_task_arguments_fill_wildcards_then_variables_then_cli_args() {
        let greet = task(Runner::GoTask, "greet:*", &["MATCH"]);
        assert_eq!(
            runner_args(&greet, &strings(&["bob", "LOUD=1", "x"])).ok(),
            Some(strings(&["greet:bob", "LOUD=1", "--", "x"]))
        );
        assert!(runner_args(&greet, &[]).is_err());
        let deploy = task(Runner::GoTask, "deploy:*:*", &["MATCH1", "MATCH2"]);
        assert_eq!(
            runner_args(&deploy, &strings(&["web", "prod"])).ok(),
            Some(strings(&["deploy:web:prod"]))
        );
        let plain = task(Runner::GoTask, "greet", &["NAME"]);
        assert_eq!(
            runner_args(&plain, &strings(&["NAME=Bob", "--flag", "A=1"])).ok(),
            Some(strings(&["greet", "NAME=Bob", "--", "--flag", "A=1"]))
        );
        let npm = task(Runner::Npm, "test", &[]);
        assert_eq!(
            runner_args(&npm, &strings(&["A=1"])).ok(),
            Some(strings(&["test", "--", "A=1"]))
        );
    }

    #[test]
    fn a_program_that_starts_the_runner_is_never_replaced_by_the_runner() {
        let mut turbo = task(Runner::Turbo, "build", &[]);
        turbo.argv = strings(&["agg-test-no-such-launcher", "exec", "turbo", "run", "build"]);
        // Even with turbo on PATH, running `turbo exec turbo run build` would be wrong.
        assert_eq!(
            super::resolve_program(&turbo),
            Err(super::InvocationError::RunnerMissing {
                runner: Runner::Turbo,
                hint: Runner::Turbo.descriptor().install_hint,
            })
        );
    }

    #[test]
    fn parameter_values_reach_each_runner_its_own_way() {
        let values = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        };
        let greet = passed(
            task(Runner::GoTask, "greet:*", &["MATCH"]),
            &Passing::Wildcard,
        );
        assert_eq!(
            param_arguments(&greet, &values(&[("MATCH", "bob")])),
            (strings(&["bob"]), Vec::new())
        );
        let vars = passed(
            task(Runner::GoTask, "greet", &["NAME"]),
            &Passing::Assignment,
        );
        assert_eq!(
            param_arguments(&vars, &values(&[("NAME", "Bob")])),
            (strings(&["NAME=Bob"]), Vec::new())
        );
        let just = passed(
            task(Runner::Just, "deploy", &["env", "tag"]),
            &Passing::Positional,
        );
        assert_eq!(
            param_arguments(&just, &values(&[("tag", "v1"), ("env", "prod")])),
            (strings(&["prod", "v1"]), Vec::new())
        );
        let xc = task(Runner::Xc, "greet", &["NAME"]);
        assert_eq!(
            param_arguments(&xc, &values(&[("NAME", "Bob")])),
            (Vec::new(), values(&[("NAME", "Bob")]))
        );
        let mut poe = task(Runner::Poe, "serve", &["port", "host"]);
        for p in &mut poe.params {
            p.flags = vec![format!("--{}", p.name)];
            p.passing = Passing::declared(p);
        }
        assert_eq!(
            param_arguments(&poe, &values(&[("host", "0.0.0.0"), ("port", "8000")])),
            (
                strings(&["--port", "8000", "--host", "0.0.0.0"]),
                Vec::new()
            )
        );
    }

    /// rake takes a task's arguments in brackets after its name: `deploy[prod,v2]`, a
    /// missing one left empty, a comma escaped; the bare name is replaced, not repeated.
    #[test]
    fn rake_arguments_fill_the_brackets_of_the_task_name() {
        let values = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        };
        let deploy = passed(
            task(Runner::Rake, "db:deploy", &["env", "tag", "note"]),
            &Passing::Bracket,
        );
        let (args, env) = param_arguments(&deploy, &values(&[("tag", "v2"), ("env", "a,b")]));
        assert!(env.is_empty());
        assert_eq!(args, strings(&["db:deploy[a\\,b,v2]"]));
        assert_eq!(
            runner_args(&deploy, &args).unwrap(),
            strings(&["db:deploy[a\\,b,v2]"])
        );
        let (args, _) = param_arguments(&deploy, &values(&[("note", "x")]));
        assert_eq!(args, strings(&["db:deploy[,,x]"]));
        assert!(param_arguments(&deploy, &[]).0.is_empty());
        assert_eq!(
            runner_args(&deploy, &strings(&["VERBOSE=1"])).unwrap(),
            strings(&["db:deploy", "VERBOSE=1"])
        );
    }

    #[test]
    fn poe_args_are_passed_with_the_options_they_declare() {
        let mut greet = task(
            Runner::Poe,
            "greet",
            &["who", "loud", "quiet", "first", "rest"],
        );
        greet.params[0].flags = strings(&["-w", "--person"]);
        greet.params[1].flags = strings(&["--shout"]);
        greet.params[1].kind = Some("boolean".to_owned());
        greet.params[2].flags = strings(&["--no-quiet"]);
        greet.params[2].kind = Some("boolean".to_owned());
        greet.params[2].default = Some("true".to_owned());
        greet.params[4].variadic = Some(agg_runners::Variadic::ZeroOrMore);
        for p in &mut greet.params {
            p.passing = Passing::declared(p);
        }
        let values = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        };
        assert_eq!(
            param_arguments(
                &greet,
                &values(&[
                    ("who", "bob"),
                    ("loud", "true"),
                    ("quiet", "false"),
                    ("first", "a"),
                    ("rest", "b c")
                ])
            )
            .0,
            strings(&["a", "b", "c", "--person", "bob", "--shout", "--no-quiet"])
        );
        assert_eq!(
            param_arguments(&greet, &values(&[("loud", "false"), ("quiet", "true")])).0,
            Vec::<String>::new()
        );
    }
}
