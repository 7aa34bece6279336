//! The command line: `agg list`, `run`, `describe`, `allow`/`deny`/`allowlist`, `schema`, `mcp`
//! and `completions`, the picker `agg` alone opens at a terminal, and how the repository root
//! is found when none is given.
//!
//! Parsing is clap derive; every error is printed here and nowhere else, and a closed
//! pipe (`agg list | head`) counts as success. Everything a repository, a task or a server
//! wrote reaches the terminal through [`crate::terminal_text`]; JSON output is left exact.

mod allow;
mod completions;
mod describe;
mod doctor;
mod graph;
mod list;
mod logs;
mod mcp;
mod parallel;
mod picker;
mod ps;
mod run;
mod run_json;
mod sandbox;
mod status;
mod stop;
mod until_ready;

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use agg_runners::Runner;
use clap::{Parser, Subcommand};

use crate::error::Error;

/// Find and run every task in a polyglot repo.
///
/// Every command works on the repository around the current directory: the nearest
/// directory, the current one included, holding `.git`, else the nearest holding a task file.
/// `agg` alone opens a picker at a terminal, and prints the list elsewhere.
#[derive(Debug, Parser)]
#[command(name = "agg", version, about, long_about)]
pub struct Cli {
    /// Run as if agg was started in DIR (like `git -C`, `make -C`): the repository and the
    /// current directory are found from there.
    #[arg(short = 'C', long = "directory", value_name = "DIR", global = true)]
    pub directory: Option<PathBuf>,
    /// What to do (none: the picker at a terminal, else `agg list`).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the tasks of the repository: those of the current directory and below first,
    /// then the rest.
    #[command(visible_alias = "ls")]
    List(ListArgs),
    /// Run tasks in the foreground, as their runners would: `agg run NAME… [-- ARGS…]`.
    Run(run::RunArgs),
    /// Show everything known about one task: command, file and line, parameters, deps.
    Describe(describe::DescribeArgs),
    /// Show the workspace graph: which directories are packages and which packages of the
    /// repository each depends on, read from the manifests of every ecosystem.
    Graph(graph::GraphArgs),
    /// Which runners the repository's tasks need, which are installed (and where), and how
    /// to install the missing ones.
    Doctor(doctor::DoctorArgs),
    /// Serve the repository's tasks to an agent over MCP on stdio.
    Mcp(mcp::McpArgs),
    /// The jobs running `agg mcp` servers hold for this repository, and the services
    /// `agg run --until-ready` left running.
    Ps(ps::PsArgs),
    /// Show (or follow, with -f) the output of a job an `agg mcp` runs, or of a service.
    Logs(logs::LogsArgs),
    /// Stop a job an `agg mcp` runs, or a service: SIGTERM to its process group, then SIGKILL.
    Stop(stop::StopArgs),
    /// Let agents run a task, every task of a file, or every task under a directory.
    Allow(allow::RuleArgs),
    /// Never let agents run a task, file or directory (deny wins over allow).
    Deny(allow::RuleArgs),
    /// Show the allowlist: what agents may and may not run.
    Allowlist(allow::ShowArgs),
    /// Print the shell script that completes agg's commands, task names and runners.
    Completions(completions::CompletionsArgs),
    /// Print the JSON Schema of `agg list --json`.
    #[command(hide = true)]
    Schema,
}

/// Options of `agg list`.
#[derive(Debug, Default, clap::Args)]
// Each is a flag of its own on the command line.
#[allow(clippy::struct_excessive_bools)]
pub struct ListArgs {
    /// Scan this directory as the repository root, all of it, instead of the repository
    /// around the current directory.
    #[arg(value_name = "ROOT")]
    pub path: Option<PathBuf>,
    /// The same as the ROOT argument.
    #[arg(long = "root", value_name = "ROOT", conflicts_with = "path")]
    pub root: Option<PathBuf>,
    /// Only the tasks of the current directory and below (below the root, the rest of the
    /// repository is otherwise listed after them).
    #[arg(long)]
    pub here: bool,
    /// Only tasks of these runners (repeat or comma-separate).
    #[arg(long, short, value_delimiter = ',', value_parser = parse_runner,
          add = clap_complete::ArgValueCompleter::new(completions::runners))]
    pub runner: Vec<Runner>,
    /// Only tasks in this directory (relative to the root) or below it.
    #[arg(long, short)]
    pub dir: Option<String>,
    /// Only tasks matching every word of this (in a name, the directory, the package, the
    /// runner or the description), best match first.
    #[arg(long, short)]
    pub query: Option<String>,
    /// Only the tasks that apply to this file or directory: those of the directories
    /// around it, the nearest first, the root's last. Relative paths start from the current
    /// directory when it is inside the repository, else from its root.
    #[arg(long = "for", value_name = "PATH")]
    pub for_path: Option<PathBuf>,
    /// Only the tasks a change affects: those of each package holding a file that differs
    /// from HEAD (in the working tree or the index; untracked files too), then of the
    /// packages that depend on them, nearest first, each saying why; root tasks last. With
    /// REF (`--affected main`), also every file changed since the merge base of HEAD and REF.
    /// Read with gitoxide: git is never run.
    #[arg(long, value_name = "REF", num_args = 0..=1,
          conflicts_with_all = ["for_path", "watch", "diagnostics"])]
    pub affected: Option<Option<String>>,
    /// Print whole lines: no description or command is cut to the terminal's width.
    #[arg(long)]
    pub wide: bool,
    /// Print every warning about the repository's task files, one per line, instead of the
    /// tasks (by default only those of the files under the current directory are printed).
    #[arg(long, conflicts_with_all = ["json", "watch"])]
    pub diagnostics: bool,
    /// Print the table as JSON (whole lines, the full repository unless narrowed).
    #[arg(long)]
    pub json: bool,
    /// Keep running and print the table again whenever the tasks change.
    #[arg(long, short)]
    pub watch: bool,
    /// Scan the whole repository afresh instead of checking what the last scan found
    /// (the same as setting `AGG_NO_CACHE=1`).
    #[arg(long)]
    pub no_cache: bool,
}

fn parse_runner(s: &str) -> Result<Runner, BadValue> {
    Runner::from_name(s).ok_or_else(|| BadValue::UnknownRunner(s.to_owned()))
}

/// Runs the command line and returns the process exit code.
pub fn main() -> ExitCode {
    // `AGG_LOG=debug` tells on stderr what a command did besides its output (how much of
    // the last scan it could reuse, say); `agg mcp` sets up its own logging.
    if std::env::var_os("AGG_LOG").is_some() {
        let _ = tracing_subscriber::fmt()
            .with_writer(io::stderr)
            .with_ansi(false)
            .with_env_filter(
                tracing_subscriber::EnvFilter::try_from_env("AGG_LOG")
                    .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
            )
            .try_init();
    }
    completions::answer_if_asked();
    let cli = Cli::parse();
    if let Some(Err(err)) = cli.directory.as_deref().map(enter) {
        return finish(Err(err));
    }
    let result = match cli.command {
        Some(command) => dispatch(command),
        None if picker::at_terminal() => run::run(&run::RunArgs::default()),
        None => list::run(&ListArgs::default()),
    };
    finish(result)
}

/// The exit code of a command's result, its error printed.
fn finish(result: Result<ExitCode, Error>) -> ExitCode {
    match result {
        Ok(code) => code,
        Err(Error::Output(err)) if err.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(err) => {
            let mut stderr = anstream::stderr();
            // The error quotes names in their visible form already; this catches whatever an
            // operating system or a server put in its reason.
            let _ = writeln!(
                stderr,
                "{}error:{} {}",
                ERROR.render(),
                ERROR.render_reset(),
                crate::terminal_text::text(&err.to_string())
            );
            ExitCode::from(err.exit_code())
        }
    }
}

/// `-C DIR`: makes DIR the current directory, as `git -C` and `make -C` do.
fn enter(dir: &std::path::Path) -> Result<(), Error> {
    std::env::set_current_dir(dir).map_err(|err| Error::BadDirectory {
        path: dir.to_path_buf(),
        reason: crate::repo_files::io_reason(&err),
    })
}

/// Runs one subcommand.
fn dispatch(command: Command) -> Result<ExitCode, Error> {
    match command {
        Command::List(args) => list::run(&args),
        Command::Run(mut args) => {
            // clap drops the `--`; whether it was there decides which words are task names.
            if std::env::args_os().skip(2).any(|a| a == "--") {
                args.words = run::Words::AllNames;
            }
            run::run(&args)
        }
        Command::Describe(args) => describe::run(&args),
        Command::Graph(args) => graph::run(&args),
        Command::Doctor(args) => doctor::run(&args),
        Command::Mcp(args) => mcp::run(&args),
        Command::Ps(args) => ps::run(&args),
        Command::Logs(args) => logs::run(&args),
        Command::Stop(args) => stop::run(&args),
        Command::Allow(args) => allow::change(&args, true),
        Command::Deny(args) => allow::change(&args, false),
        Command::Allowlist(args) => allow::show(&args),
        Command::Completions(args) => completions::run(&args),
        Command::Schema => print_json(&crate::table::Table::json_schema()),
    }
}

/// Parses `KEY=VALUE`.
fn parse_env(s: &str) -> Result<(String, String), BadValue> {
    match s.split_once('=') {
        Some((k, v)) if crate::invocation::is_env_name(k) => Ok((k.to_owned(), v.to_owned())),
        Some((k, _)) => Err(BadValue::EnvName(k.to_owned())),
        None => Err(BadValue::NotAssignment),
    }
}

/// A command-line value clap cannot take; clap prints it after the option it was given to.
#[derive(Debug)]
enum BadValue {
    /// `--runner` names no runner agg knows.
    UnknownRunner(String),
    /// `--env KEY=VALUE` with a key that is not an environment variable name.
    EnvName(String),
    /// `--env` without `=`.
    NotAssignment,
}

impl std::fmt::Display for BadValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BadValue::UnknownRunner(name) => {
                let names: Vec<&str> = Runner::ALL.iter().map(|r| r.name()).collect();
                write!(
                    f,
                    "unknown runner `{name}`; expected one of: {}",
                    names.join(", ")
                )
            }
            BadValue::EnvName(key) => {
                write!(f, "`{key}` is not a valid environment variable name")
            }
            BadValue::NotAssignment => f.write_str("expected KEY=VALUE"),
        }
    }
}

impl std::error::Error for BadValue {}

/// Scans `root` after checking it is a directory.
fn load_table(root: &std::path::Path) -> Result<crate::table::Table, Error> {
    load_root(root)?;
    Ok(crate::table::Table::load(root))
}

/// The root a command works on.
#[derive(Debug)]
struct Root {
    /// The directory to scan.
    path: PathBuf,
    /// Set when agg looked upward from the current directory and found the root above it:
    /// the current directory relative to the root (`apps/web`), `/`-separated.
    below: Option<String>,
}

impl Root {
    /// `explicit` (`--root`, a path argument) when given, else the repository around the
    /// current directory ([`crate::scan::find_root`]).
    fn choose(explicit: Option<&std::path::Path>) -> Result<Root, Error> {
        if let Some(path) = explicit {
            load_root(path)?;
            return Ok(Root {
                path: path.to_path_buf(),
                below: None,
            });
        }
        let cwd = std::env::current_dir().map_err(|err| Error::BadRoot {
            path: PathBuf::from("."),
            reason: crate::repo_files::io_reason(&err),
        })?;
        let root = crate::scan::find_root(&cwd);
        let below = cwd
            .strip_prefix(&root)
            .ok()
            .filter(|rel| !rel.as_os_str().is_empty())
            .map(|rel| {
                rel.components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/")
            });
        Ok(Root { path: root, below })
    }

    /// The line human output starts with when the root is not the current directory.
    fn announce(&self, out: &mut impl Write) -> io::Result<()> {
        if self.below.is_some() {
            let dim = anstyle::Style::new().dimmed();
            let path = crate::terminal_text::line(&self.path.to_string_lossy()).into_owned();
            writeln!(out, "{dim}repository root: {path}{dim:#}")?;
        }
        Ok(())
    }
}

/// Checks that `root` is a directory.
fn load_root(root: &std::path::Path) -> Result<(), Error> {
    match std::fs::metadata(root) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(Error::BadRoot {
            path: root.to_path_buf(),
            reason: "not a directory".to_owned(),
        }),
        Err(err) => Err(Error::BadRoot {
            path: root.to_path_buf(),
            reason: crate::repo_files::io_reason(&err),
        }),
    }
}

/// Finds a task for a person (see [`resolve_task`]), from the root.
fn find_task<'a>(
    table: &'a crate::table::Table,
    name: &str,
) -> Result<&'a crate::table::Task, Error> {
    let root = Root {
        path: table.root.clone(),
        below: None,
    };
    resolve_task(table, &root, name).map(|found| found.task)
}

/// Finds a task for a person: exact, `RUNNER NAME`, alias, unambiguous source name or a
/// wildcard task's match. Run from below the root, a name is first tried in the current
/// directory (`build` in `apps/web` is `apps/web/build` when that exists).
fn resolve_task<'a>(
    table: &'a crate::table::Table,
    root: &Root,
    name: &str,
) -> Result<crate::resolve::Resolved<'a>, Error> {
    if let Some(below) = &root.below {
        let mut dir = below.as_str();
        loop {
            if let Ok(found) = crate::resolve::for_person(table, &format!("{dir}/{name}")) {
                return Ok(found);
            }
            match dir.rsplit_once('/') {
                Some((up, _)) => dir = up,
                None => break,
            }
        }
    }
    match crate::resolve::for_person(table, name) {
        Ok(found) => Ok(found),
        Err(crate::resolve::Unresolved::Ambiguous(tasks)) => Err(Error::Ambiguous {
            name: name.to_owned(),
            candidates: tasks
                .iter()
                .map(|t| {
                    (
                        t.unique_name.clone(),
                        t.runner.to_string(),
                        t.file_path.clone(),
                    )
                })
                .collect(),
        }),
        Err(crate::resolve::Unresolved::NotFound(suggestions)) => Err(Error::UnknownTask {
            name: name.to_owned(),
            suggestions,
        }),
    }
}

/// Writes `value` to stdout as pretty JSON with a final newline.
fn print_json(value: &impl serde::Serialize) -> Result<ExitCode, Error> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, value)
        .map_err(io::Error::from)
        .map_err(Error::Output)?;
    writeln!(out).map_err(Error::Output)?;
    out.flush().map_err(Error::Output)?;
    Ok(ExitCode::SUCCESS)
}

const ERROR: anstyle::Style = anstyle::AnsiColor::Red.on_default().bold();
