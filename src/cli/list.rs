//! `agg list`: the table for people (grouped, aligned, coloured on a terminal) or as JSON.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::process::ExitCode;

use agg_runners::{Diagnostic, Runner};
use anstyle::{AnsiColor, Style};

use super::ListArgs;
use crate::availability::install_hint;
use crate::error::Error;
use crate::history::{History, Summaries};
use crate::table::{Filter, Table, Task};
use crate::visible;

const DIR: Style = Style::new().bold();
const NAME: Style = AnsiColor::Cyan.on_default().bold();
const DIM: Style = Style::new().dimmed();
const MISSING: Style = AnsiColor::Red.on_default();
const WARN: Style = AnsiColor::Yellow.on_default().bold();

pub(super) fn run(args: &ListArgs) -> Result<ExitCode, Error> {
    let chosen = super::Root::choose(args.path.as_deref())?;
    let root = &chosen.path;
    let filter = Filter {
        runners: args.runner.clone(),
        dir: args.dir.clone(),
        query: args.query.clone(),
    };
    if args.watch {
        return watch(root, filter, args.json);
    }
    let mut table = Table::load(root);
    table.tasks.retain(|t| filter.matches(t));
    print_diagnostics(&table.diagnostics).map_err(Error::Output)?;
    if args.json {
        // Indented for a person at a terminal, compact for a program reading a pipe.
        let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
        if io::IsTerminal::is_terminal(&io::stdout()) {
            serde_json::to_writer_pretty(&mut out, &table)
                .map_err(io::Error::from)
                .map_err(Error::Output)?;
        } else {
            serde_json::to_writer(&mut out, &table)
                .map_err(io::Error::from)
                .map_err(Error::Output)?;
        }
        writeln!(out).map_err(Error::Output)?;
        out.flush().map_err(Error::Output)?;
    } else {
        let mut out = anstream::stdout().lock();
        chosen.announce(&mut out).map_err(Error::Output)?;
        write_table(&mut out, &table, &past_runs(root)).map_err(Error::Output)?;
        out.flush().map_err(Error::Output)?;
        print_hints(&table).map_err(Error::Output)?;
    }
    // The process ends next: freeing a monorepo's rows one by one would only delay it.
    std::mem::forget(table);
    Ok(ExitCode::SUCCESS)
}

/// `agg list --watch`: the table, then again after every change, until interrupted.
fn watch(root: &std::path::Path, filter: Filter, json: bool) -> Result<ExitCode, Error> {
    let print = move |table: &Table| {
        let mut shown = table.clone();
        shown.tasks.retain(|t| filter.matches(t));
        let result = (|| -> io::Result<()> {
            if json {
                let mut out = io::BufWriter::new(io::stdout().lock());
                serde_json::to_writer(&mut out, &shown).map_err(io::Error::from)?;
                writeln!(out)?;
                out.flush()
            } else {
                let mut out = anstream::stdout().lock();
                if io::IsTerminal::is_terminal(&io::stdout()) {
                    // Clear the screen and home the cursor: the table replaces itself.
                    write!(out, "\x1b[2J\x1b[H")?;
                }
                write_table(&mut out, &shown, &past_runs(&shown.root))?;
                writeln!(
                    out,
                    "{DIM}watching {} · {} tasks · {}{DIM:#}",
                    visible::line(&shown.root.to_string_lossy()),
                    shown.tasks.len(),
                    humantime::format_rfc3339_seconds(std::time::SystemTime::now())
                )?;
                out.flush()
            }
        })();
        if result.is_err() {
            // The reader went away (`agg list --watch | head`): that is the end.
            std::process::exit(0);
        }
    };
    let print = std::sync::Arc::new(print);
    let on_change = std::sync::Arc::clone(&print);
    let live = crate::live::LiveTable::start(root, Box::new(move |_, new| on_change(new)));
    if let Some(problem) = live.problem() {
        return Err(Error::Watch(problem));
    }
    print_diagnostics(&live.table().diagnostics).map_err(Error::Output)?;
    print(&live.table());
    // The watch may stop later (the kernel's watch limit, as the tree grows): say so rather
    // than go on showing a table that no longer follows the files.
    while live.watching() {
        std::thread::park_timeout(std::time::Duration::from_secs(1));
    }
    Err(Error::Watch(live.problem().unwrap_or_default()))
}

/// The run history of the repository at `root` (empty when it has none).
fn past_runs(root: &std::path::Path) -> Summaries {
    History::open_existing(root).map_or_else(Summaries::default, |h| h.summaries())
}

/// Writes the human table: one block per directory, tasks aligned within it, with how each
/// task last ended and its typical duration when any task has a run history. Everything
/// the repository wrote is printed through [`visible`]: a name, directory or description
/// can neither drive the terminal nor start a row of its own.
pub fn write_table(out: &mut impl Write, table: &Table, history: &Summaries) -> io::Result<()> {
    let tasks = &table.tasks;
    if tasks.is_empty() {
        writeln!(out, "no tasks found")?;
        return Ok(());
    }
    let mut by_dir: Vec<(&str, Vec<&Task>)> = Vec::new();
    for t in tasks {
        match by_dir.last_mut() {
            Some((dir, group)) if *dir == t.dir => group.push(t),
            _ => by_dir.push((&t.dir, vec![t])),
        }
    }
    for (i, (dir, group)) in by_dir.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        let files: Vec<&str> = dedup(group.iter().map(|t| file_name(&t.file_path)));
        let files: Vec<_> = files.iter().map(|f| visible::line(f)).collect();
        writeln!(
            out,
            "{DIR}{}{DIR:#} {DIM}({}){DIM:#}",
            if *dir == "." {
                "./".into()
            } else {
                visible::line(dir)
            },
            files.join(", ")
        )?;
        let names: Vec<_> = group
            .iter()
            .map(|t| visible::line(&t.unique_name))
            .collect();
        let name_w = names.iter().map(|n| n.chars().count()).max().unwrap_or(0);
        let runner_w = group
            .iter()
            .map(|t| runner_label(t).chars().count())
            .max()
            .unwrap_or(0);
        let badges: Vec<Option<(String, bool)>> = group
            .iter()
            .map(|t| {
                let s = history.get(&t.unique_name, &t.file_path, &t.source_name)?;
                Some((s.badge(), s.last.passed()))
            })
            .collect();
        let badge_w = badges
            .iter()
            .flatten()
            .map(|(b, _)| b.chars().count())
            .max();
        for ((t, name), badge) in group.iter().zip(&names).zip(&badges) {
            let label = runner_label(t);
            let not_runnable = table.not_runnable(t).is_some();
            let runner_style = if t.runner_available && !not_runnable {
                DIM
            } else {
                MISSING
            };
            write!(
                out,
                "  {NAME}{name}{NAME:#}{}  {runner_style}{label}{runner_style:#}{}  ",
                pad(name, name_w),
                pad(&label, runner_w),
            )?;
            if let Some(width) = badge_w {
                let (text, passed) = badge.clone().unwrap_or_default();
                let style = if passed { DIM } else { MISSING };
                write!(out, "{style}{text}{style:#}{}  ", pad(&text, width))?;
            }
            match t.description.as_deref().and_then(|d| d.lines().next()) {
                Some(desc) => write!(out, "{}", visible::text(desc))?,
                // Nothing runs, so no `$`: what the file wrote, if anything.
                None if not_runnable => {
                    let written = t.script.as_deref().and_then(|s| s.lines().next());
                    let written = visible::text(written.unwrap_or_default());
                    write!(out, "{DIM}{written}{DIM:#}")?;
                }
                None => write!(out, "{DIM}$ {}{DIM:#}", visible::line(&t.command))?,
            }
            if not_runnable {
                write!(out, "  {MISSING}[not runnable here]{MISSING:#}")?;
            }
            if t.is_suffixed() {
                // Another name agg takes for it: `agg run 'just format'`.
                let local = if t.dir == "." {
                    t.source_name.clone()
                } else {
                    format!("{}/{}", t.dir, t.source_name)
                };
                write!(
                    out,
                    "  {DIM}[{} {}]{DIM:#}",
                    t.runner,
                    visible::line(&local)
                )?;
            }
            writeln!(out)?;
        }
    }
    Ok(())
}

fn runner_label(t: &Task) -> String {
    if t.runner_available {
        t.runner.name().to_owned()
    } else {
        format!("{} ✗", t.runner)
    }
}

fn pad(s: &str, width: usize) -> String {
    " ".repeat(width.saturating_sub(s.chars().count()))
}

fn file_name(path: &str) -> &str {
    let mut parts = path.rsplitn(3, '/');
    let name = parts.next().unwrap_or(path);
    match parts.next() {
        // `.cargo/config.toml` says more than `config.toml`.
        Some(".cargo") => &path[path.len() - name.len() - ".cargo/".len()..],
        _ => name,
    }
}

fn dedup<'a>(items: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen = Vec::new();
    for item in items {
        if !seen.contains(&item) {
            seen.push(item);
        }
    }
    seen
}

fn print_diagnostics(diagnostics: &[Diagnostic]) -> io::Result<()> {
    let mut err = anstream::stderr().lock();
    for d in diagnostics {
        let (file, message) = (visible::line(&d.file_path), visible::line(&d.message));
        match d.line {
            Some(line) => writeln!(err, "{WARN}warning:{WARN:#} {file}:{line}: {message}")?,
            None => writeln!(err, "{WARN}warning:{WARN:#} {file}: {message}")?,
        }
    }
    Ok(())
}

/// One line per missing runner, however many tasks use it, and one for the tasks that
/// need their editor.
fn print_hints(table: &Table) -> io::Result<()> {
    let mut missing: BTreeMap<Runner, usize> = BTreeMap::new();
    for t in table.tasks.iter().filter(|t| !t.runner_available) {
        *missing.entry(t.runner).or_default() += 1;
    }
    let mut err = anstream::stderr().lock();
    let editor_only = table
        .tasks
        .iter()
        .filter(|t| table.not_runnable(t).is_some())
        .count();
    if editor_only > 0 {
        let tasks = if editor_only == 1 { "task" } else { "tasks" };
        writeln!(
            err,
            "{DIM}note:{DIM:#} {editor_only} {tasks} marked [not runnable here] need the editor that defines them; `agg describe NAME` says why"
        )?;
    }
    for (runner, count) in missing {
        let tasks = if count == 1 { "task" } else { "tasks" };
        writeln!(
            err,
            "{DIM}note:{DIM:#} {runner} is not installed ({count} {tasks} marked ✗): {}",
            install_hint(runner)
        )?;
    }
    Ok(())
}
