//! Shell completions. `agg completions SHELL` prints the script that registers agg with the
//! shell (bash, zsh, fish, elvish, PowerShell); at each TAB that script calls agg back with
//! the words typed and [`VAR`] set, and `clap_complete`'s engine answers from agg's own
//! command line: subcommands and options, and task names and runners read from the table
//! the way `agg list` reads it (files only, nothing executed, nothing printed but the answers).

use std::collections::HashSet;
use std::ffi::OsStr;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::CommandFactory;
use clap_complete::engine::CompletionCandidate;
use clap_complete::env::Shells;

use crate::error::Error;
use crate::table::Table;

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

/// The table of the repository around the current directory, and where that directory is
/// in it (`apps/web`; `None` at the root).
fn table() -> Option<(Table, Option<String>)> {
    let cwd = std::env::current_dir().ok()?;
    let root = crate::scan::find_root(&cwd);
    let below = cwd
        .strip_prefix(&root)
        .ok()
        .filter(|rel| !rel.as_os_str().is_empty())
        .and_then(|rel| rel.to_str())
        .map(|rel| rel.replace(std::path::MAIN_SEPARATOR, "/"));
    Some((Table::load(&root), below))
}

/// Completes a task name: every unique name that starts with what is typed, with its
/// description (or command) as help; below the root, also the shorter names `agg run`
/// takes there (`build` in `apps/web` for `apps/web/build`, nearest directory first).
pub fn task_names(current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(typed) = current.to_str() else {
        return Vec::new();
    };
    let Some((table, below)) = table() else {
        return Vec::new();
    };
    let mut offered: HashSet<String> = HashSet::new();
    let mut out = Vec::new();
    let mut offer = |name: &str, task: &crate::table::Task| {
        // A name with a control character would break the shell's word list.
        if name.starts_with(typed)
            && crate::visible::line(name) == name
            && offered.insert(name.to_owned())
        {
            let help = task
                .description
                .as_deref()
                .and_then(|d| d.lines().next())
                .unwrap_or(&task.command);
            out.push(
                CompletionCandidate::new(name)
                    .help(Some(crate::visible::line(help).into_owned().into())),
            );
        }
    };
    if let Some(below) = &below {
        let dirs = std::iter::successors(Some(below.as_str()), |d| {
            d.rsplit_once('/').map(|(up, _)| up)
        });
        for dir in dirs {
            let prefix = format!("{dir}/");
            for task in &table.tasks {
                if let Some(short) = task.unique_name.strip_prefix(&prefix) {
                    offer(short, task);
                }
            }
        }
    }
    for task in &table.tasks {
        offer(&task.unique_name, task);
    }
    out
}

/// Completes a runner: those the table has tasks of.
pub fn runners(current: &OsStr) -> Vec<CompletionCandidate> {
    let typed = current.to_str().unwrap_or_default();
    let Some((table, _)) = table() else {
        return Vec::new();
    };
    let mut found: Vec<agg_runners::Runner> = Vec::new();
    for task in &table.tasks {
        if !found.contains(&task.runner) {
            found.push(task.runner);
        }
    }
    found
        .into_iter()
        .filter(|r| r.name().starts_with(typed))
        .map(|r| CompletionCandidate::new(r.name()))
        .collect()
}
