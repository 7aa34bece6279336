//! Shell completions. `agg completions SHELL` prints the script that registers agg with the
//! shell (bash, zsh, fish, elvish, PowerShell); at each TAB that script calls agg back with
//! the words typed and [`VAR`] set, and clap_complete's engine answers from agg's own
//! command line: subcommands and options, and task names and runners read from the table
//! the way `agg list` reads it (files only, nothing executed, nothing printed but the answers).

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

/// The table of the repository around the current directory, or none.
fn table() -> Option<Table> {
    let cwd = std::env::current_dir().ok()?;
    Some(Table::load(&crate::scan::find_root(&cwd)))
}

/// Completes a task name: every unique name that starts with what is typed, with its
/// description (or command) as help.
pub fn task_names(current: &OsStr) -> Vec<CompletionCandidate> {
    let Some(typed) = current.to_str() else {
        return Vec::new();
    };
    let Some(table) = table() else {
        return Vec::new();
    };
    table
        .tasks
        .iter()
        // A name with a control character would break the shell's word list.
        .filter(|t| {
            t.unique_name.starts_with(typed)
                && crate::visible::line(&t.unique_name) == t.unique_name.as_str()
        })
        .map(|t| {
            let help = t
                .description
                .as_deref()
                .and_then(|d| d.lines().next())
                .unwrap_or(&t.command);
            CompletionCandidate::new(&t.unique_name)
                .help(Some(crate::visible::line(help).into_owned().into()))
        })
        .collect()
}

/// Completes a runner: those the table has tasks of.
pub fn runners(current: &OsStr) -> Vec<CompletionCandidate> {
    let typed = current.to_str().unwrap_or_default();
    let Some(table) = table() else {
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
