//! The parameters of the chosen task, asked for one by one on the normal screen after the
//! picker closes, when it has a required one: each in order, a required one until it gets
//! a value, one with a default showing it (Enter keeps it). A task with nothing required
//! runs at once. The answers become arguments and environment the way
//! [`crate::invocation::param_arguments`] passes them to the task's runner.

use std::fmt::Write as _;
use std::io::{self, BufRead, Write};

use crate::table::Task;
use crate::terminal_text;

/// What the answers add to the run.
pub(super) struct Answers {
    /// Arguments, before any given on the command line.
    pub args: Vec<String>,
    /// Environment variables.
    pub env: Vec<(String, String)>,
}

/// Asks for each parameter of `task` on stderr, reading stdin; `None` when stdin ends
/// (Ctrl-D): nothing runs.
pub(super) fn ask(task: &Task) -> io::Result<Option<Answers>> {
    if !task.params.iter().any(|p| p.required) {
        return Ok(Some(Answers {
            args: Vec::new(),
            env: Vec::new(),
        }));
    }
    let mut values: Vec<(String, String)> = Vec::new();
    // Values of a variadic positional parameter, each its own argument, after the rest.
    let mut spread: Vec<String> = Vec::new();
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut err = anstream::stderr();
    let bold = anstyle::Style::new().bold();
    let dim = anstyle::Style::new().dimmed();
    for p in &task.params {
        let value = loop {
            let mut prompt = format!("{bold}{}{bold:#}", terminal_text::line(&p.name));
            if let Some(help) = &p.help {
                let _ = write!(prompt, " {dim}({}){dim:#}", terminal_text::line(help));
            }
            if p.variadic.is_some() {
                let _ = write!(prompt, " {dim}[several: separate with spaces]{dim:#}");
            }
            match &p.default {
                Some(default) => {
                    let _ = write!(prompt, " [{}]", terminal_text::line(default));
                }
                None if p.required => {
                    let _ = write!(prompt, " {dim}(required){dim:#}");
                }
                None => {}
            }
            write!(err, "{prompt}: ")?;
            err.flush()?;
            let mut line = String::new();
            if input.read_line(&mut line)? == 0 {
                writeln!(err)?;
                return Ok(None);
            }
            let line = line.trim_end_matches(['\n', '\r']).to_owned();
            if !line.is_empty() {
                break Some(line);
            }
            if let Some(default) = &p.default {
                break Some(default.clone());
            }
            if !p.required {
                break None;
            }
            writeln!(err, "  a value is required (Ctrl-D: run nothing)")?;
        };
        let Some(value) = value else { continue };
        let positional = p.passing == agg_runners::Passing::Positional;
        if p.variadic.is_some() && positional {
            spread.extend(value.split_whitespace().map(str::to_owned));
        } else {
            values.push((p.name.clone(), value));
        }
    }
    let (mut args, env) = crate::invocation::param_arguments(task, &values);
    args.extend(spread);
    Ok(Some(Answers { args, env }))
}
