//! Shell completions. `agg completions SHELL` prints the script that registers agg with the
//! shell (bash, zsh, fish, elvish, PowerShell); at each TAB that script calls agg back with
//! the words typed and [`VAR`] set, and `clap_complete`'s engine answers from agg's own
//! command line: subcommands and options, and task names and runners read from the table
//! the way `agg list` reads it (files only, nothing executed, nothing printed but the answers).

use std::ffi::OsStr;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::CommandFactory;
use clap_complete::engine::CompletionCandidate;
use clap_complete::env::Shells;

use crate::error::Error;
use crate::named::{Named, Offerables, offered};
use crate::table::{Table, Task};

/// The variable the registration script sets when it asks agg for completions.
pub const VAR: &str = "AGG_COMPLETE";

/// Options of `agg completions`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell to print the script for.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// The shells agg completes in.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum Shell {
    /// bash 4.4 or newer.
    Bash,
    /// zsh.
    Zsh,
    /// fish.
    Fish,
    /// elvish.
    Elvish,
    /// PowerShell.
    Powershell,
}

impl Shell {
    fn name(self) -> &'static str {
        match self {
            Shell::Bash => "bash",
            Shell::Zsh => "zsh",
            Shell::Fish => "fish",
            Shell::Elvish => "elvish",
            Shell::Powershell => "powershell",
        }
    }
}

/// Answers the shell and exits when the registration script is asking (when [`VAR`] is
/// set); does nothing otherwise.
pub fn answer_if_asked() {
    clap_complete::CompleteEnv::with_factory(super::Cli::command)
        .var(VAR)
        .complete();
}

/// `agg completions SHELL`: prints the registration script.
pub(super) fn run(args: &CompletionsArgs) -> Result<ExitCode, Error> {
    let shells = Shells::builtins();
    let Some(shell) = shells.completer(args.shell.name()) else {
        return Err(Error::Output(io::Error::other(format!(
            "no completion script for {}",
            args.shell.name()
        ))));
    };
    let mut script = Vec::new();
    shell
        .write_registration(VAR, "agg", "agg", &completer(), &mut script)
        .map_err(Error::Output)?;
    let mut out = io::stdout().lock();
    out.write_all(&script).map_err(Error::Output)?;
    out.flush().map_err(Error::Output)?;
    Ok(ExitCode::SUCCESS)
}

/// The program the script calls back: agg as it was invoked (`agg` through `PATH`), made
/// absolute when it was invoked by a relative path with a directory (`./target/debug/agg`).
fn completer() -> String {
    let invoked = PathBuf::from(std::env::args_os().next().unwrap_or_else(|| "agg".into()));
    let path = if invoked.components().count() > 1 && invoked.is_relative() {
        std::env::current_dir().map_or(invoked.clone(), |cwd| cwd.join(&invoked))
    } else {
        invoked
    };
    path.to_string_lossy().into_owned()
}

/// The rows a completion offers from, of the repository around the current directory (their
/// commands not filled in: see [`candidates`]), its root, and where that directory is in it
/// (`apps/web`; `None` at the root).
fn table() -> Option<(Offerables, PathBuf, Option<String>)> {
    let cwd = std::env::current_dir().ok()?;
    let root = crate::scan::find_root(&cwd);
    let below = below(&cwd, &root);
    let offerables = Named::load_offerable(&root, Table::name);
    let root = std::fs::canonicalize(&root).unwrap_or(root);
    Some((offerables, root, below))
}

/// Completes a task name: every unique name that starts with what is typed, with its
/// description (or command) as help; below the root, also the shorter names `agg run`
/// takes there (`build` in `apps/web` for `apps/web/build`, nearest directory first).
pub fn task_names(current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(typed) = current.to_str() else {
        return Vec::new();
    };
    if let Some(offered) = from_server(typed) {
        return offered;
    }
    let Some((table, root, below)) = table() else {
        return Vec::new();
    };
    let rows = table.rows();
    let offers = offered(&rows, |r| r.name, typed, below.as_deref())
        .into_iter()
        .map(|(name, row)| {
            let help = match row.help {
                Some(help) => Ok(help.to_owned()),
                None => Err(Task::new(
                    row.runner,
                    "",
                    row.dir,
                    "",
                    row.argv.iter().map(|a| (*a).to_owned()).collect(),
                )),
            };
            (name, help)
        })
        .collect();
    candidates(&root, offers)
}

/// The candidates of the names offered, each with its help: the first line of its
/// description when it has one (`Ok`), else its command (`Err`: the task to fill it in from,
/// filled in here for these rows alone, with this shell's `PATH`, as the table fills it for
/// all).
fn candidates(
    root: &Path,
    offers: Vec<(String, Result<String, Task>)>,
) -> Vec<CompletionCandidate> {
    let mut undescribed: Vec<Task> = Vec::new();
    let mut named = Vec::with_capacity(offers.len());
    for (name, help) in offers {
        match help {
            Ok(help) => named.push((name, Some(help))),
            Err(task) => {
                undescribed.push(task);
                named.push((name, None));
            }
        }
    }
    crate::table::fill(root, &mut undescribed);
    let mut commands = undescribed.into_iter().map(|t| t.command);
    named
        .into_iter()
        .map(|(name, help)| {
            let help = help.unwrap_or_else(|| commands.next().unwrap_or_default());
            CompletionCandidate::new(name)
                .help(Some(crate::terminal_text::line(&help).into_owned().into()))
        })
        .collect()
}

/// The repository around the current directory, canonical, and where that directory is in
/// it (`apps/web`; `None` at the root).
fn place() -> Option<(PathBuf, Option<String>)> {
    let cwd = std::env::current_dir().ok()?;
    let root = crate::scan::find_root(&cwd);
    let root = std::fs::canonicalize(&root).unwrap_or(root);
    let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
    let below = below(&cwd, &root);
    Some((root, below))
}

/// Where `cwd` is in the repository at `root`, with `/` between its parts (`apps/web`);
/// `None` at the root, outside it, or when it is not UTF-8.
fn below(cwd: &std::path::Path, root: &std::path::Path) -> Option<String> {
    cwd.strip_prefix(root)
        .ok()
        .filter(|rel| !rel.as_os_str().is_empty())
        .and_then(|rel| rel.to_str())
        .map(|rel| rel.replace(std::path::MAIN_SEPARATOR, "/"))
}

/// The task names offered, as a running `agg mcp` on the repository answers them (see
/// [`crate::control::client::offers`]): `None` when none answers in time, or an answer is
/// not what a server sends.
fn from_server(typed: &str) -> Option<Vec<CompletionCandidate>> {
    let (root, below) = place()?;
    let offers = crate::control::client::offers(&root, typed, below.as_deref())?;
    let mut named = Vec::with_capacity(offers.len());
    for offer in &offers {
        let text = |key: &str| offer.get(key).and_then(serde_json::Value::as_str);
        let name = text("name")?.to_owned();
        if let Some(help) = text("help") {
            named.push((name, Ok(help.to_owned())));
            continue;
        }
        let runner = agg_runners::Runner::from_name(text("runner")?)?;
        let argv: Vec<String> = serde_json::from_value(offer.get("argv")?.clone()).ok()?;
        named.push((name, Err(Task::new(runner, "", text("dir")?, "", argv))));
    }
    Some(candidates(&root, named))
}

/// Completes a runner: those the table has tasks of.
pub fn runners(current: &OsStr) -> Vec<CompletionCandidate> {
    let typed = current.to_str().unwrap_or_default();
    let Some((table, _, _)) = table() else {
        return Vec::new();
    };
    let mut found: Vec<agg_runners::Runner> = Vec::new();
    for row in table.rows() {
        if !found.contains(&row.runner) {
            found.push(row.runner);
        }
    }
    found
        .into_iter()
        .filter(|r| r.name().starts_with(typed))
        .map(|r| CompletionCandidate::new(r.name()))
        .collect()
}
