//! The picker: what `agg` alone, `agg run` without a name, and `agg run NAME` with a name
//! several tasks share open at a terminal. It filters the table as a person types, previews
//! the selected task, and hands the chosen one, with the parameters it asks for, back to
//! `agg run`, which runs it on the very path `agg run NAME` takes, so permissions, exit
//! codes and signals are the same.
//!
//! Theory of operation: the table is read once to draw; the picker runs on the alternate
//! screen in raw mode (ratatui over crossterm), restored by a guard on every way out (a
//! key, an error, a panic through ratatui's hook, SIGTERM or SIGHUP noticed between key
//! presses). Only then are parameters asked for, on the normal screen, and `agg run`
//! scans again, so the task runs as the files on disk say at that moment.

mod entries;
mod params;
mod screen;
mod session;

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use crate::error::Error;
use crate::history::{History, Summaries};
use crate::table::Table;

use entries::Entries;
use screen::Picker;
use session::Outcome;

/// The exit code when the picker is left without running anything (as fzf does).
const LEFT: u8 = 130;

/// Whether a picker can open: stdin and stdout are a terminal.
pub(super) fn at_terminal() -> bool {
    std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

/// Which tasks the picker offers.
pub(super) enum Among<'n> {
    /// Every task of the table.
    All,
    /// The tasks a name given to `agg run` names (by unique name).
    Named {
        /// The name as given.
        name: &'n str,
        /// The unique names of the tasks it names.
        tasks: Vec<String>,
    },
}

/// What the person chose.
pub(super) enum Choice {
    /// Run this task (its unique name) with these arguments and environment first.
    Run {
        /// The task's unique name.
        name: String,
        /// The arguments the parameters asked for became.
        args: Vec<String>,
        /// The environment they became.
        env: Vec<(String, String)>,
    },
    /// Run nothing; agg ends with this code (the picker was left, or a signal came).
    Exit(ExitCode),
}

/// Opens the picker over `among` and asks for the chosen task's parameters.
pub(super) fn choose(
    table: &Table,
    below: Option<&str>,
    among: &Among<'_>,
) -> Result<Choice, Error> {
    if !at_terminal() {
        return Err(Error::MissingName);
    }
    let (tasks, title): (Vec<usize>, Option<String>) = match among {
        Among::All => ((0..table.tasks.len()).collect(), None),
        Among::Named { name, tasks } => (
            table
                .tasks
                .iter()
                .enumerate()
                .filter(|(_, t)| tasks.contains(&t.unique_name))
                .map(|(i, _)| i)
                .collect(),
            Some(format!(
                "`{}` names {} tasks: pick one",
                crate::terminal_text::line(name),
                tasks.len()
            )),
        ),
    };
    let history =
        History::open_existing(&table.root).map_or_else(Summaries::default, |h| h.summaries());
    let mut picker = Picker::new(table, Entries::new(&table.tasks, &tasks, below), history);
    picker.title = title;
    let (outcome, signals) = session::pick(&mut picker)?;
    let index = match outcome {
        Outcome::Chosen(index) => index,
        Outcome::Left => return Ok(Choice::Exit(ExitCode::from(LEFT))),
        Outcome::Signal(number) => {
            return Ok(Choice::Exit(ExitCode::from(
                u8::try_from(128 + number).unwrap_or(LEFT),
            )));
        }
    };
    let task = &table.tasks[index];
    let mut err = anstream::stderr();
    let dim = anstyle::Style::new().dimmed();
    let _ = writeln!(
        err,
        "{dim}agg run {}{dim:#}",
        crate::terminal_text::line(&task.unique_name)
    );
    let Some(answers) = params::ask(task).map_err(Error::Terminal)? else {
        return Ok(Choice::Exit(ExitCode::from(LEFT)));
    };
    // From here on `agg run` handles the signals itself.
    drop(signals);
    Ok(Choice::Run {
        name: task.unique_name.clone(),
        args: answers.args,
        env: answers.env,
    })
}
