//! `agg list`: the table for people (grouped, aligned, coloured on a terminal) or as JSON,
//! narrowed by runner, directory, a search ([`crate::search::find`]) or a path
//! ([`crate::search::for_path`]).
//!
//! A search's JSON lists tasks best first. The human table keeps its directory blocks, so
//! each row still sits under the directory and files it comes from, and orders them by
//! their best match: the first block holds the best task, and a name that several packages
//! share is read once per package rather than scattered through one long list.
//!
//! Below the root, the tasks of the current directory and below come first and the rest of
//! the repository follows under one heading (`--here`: only the first part); the warnings
//! of files elsewhere are one line. Rows are cut to the terminal's width ([`fit`]) and drawn
//! by [`rows`].

mod affected;
mod fit;
mod rows;

use std::collections::{BTreeMap, HashMap};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agg_runners::{Diagnostic, Runner};
use anstyle::{AnsiColor, Style};

use super::ListArgs;
use crate::availability::install_hint;
use crate::error::Error;
use crate::history::{History, Summaries};
use crate::search;
use crate::table::{Filter, Table, Task};
use crate::terminal_text;

const DIR: Style = Style::new().bold();
const WARN: Style = AnsiColor::Yellow.on_default().bold();

pub(super) fn run(args: &ListArgs) -> Result<ExitCode, Error> {
    if args.no_cache {
        crate::scan::set_cache(false);
    }
    let chosen = super::Root::choose(args.path.as_deref().or(args.root.as_deref()))?;
    let root = &chosen.path;
    let filter = Filter {
        runners: args.runner.clone(),
        dir: args.dir.clone(),
        query: args.query.clone(),
    };
    let select = Select {
        filter,
        for_path: args.for_path.clone(),
    };
    let shape = Shape {
        here: chosen.below.clone(),
        only_here: args.here,
        focus: args
            .dir
            .as_deref()
            .map(|d| d.trim_start_matches("./").trim_end_matches('/').to_owned())
            .filter(|d| !d.is_empty() && d != ".")
            .or_else(|| chosen.below.clone()),
        wide: args.wide,
    };
    if args.watch {
        // Said once, before the first table, rather than on every change.
        if let Some(given) = &select.for_path {
            let absolute = std::path::absolute(root).unwrap_or_else(|_| root.clone());
            if in_repository(&absolute, given).is_none() {
                return Err(Error::OutsideRoot {
                    path: given.clone(),
                    root: absolute,
                });
            }
        }
        return watch(root, select, &shape, args.json);
    }
    crate::scan::set_ends_after_listing();
    let table = Table::load(root);
    if args.diagnostics {
        return write_every_diagnostic(&table.diagnostics);
    }
    if let Some(since) = &args.affected {
        let how = affected::How {
            since: since.as_deref(),
            filter: &select.filter,
            json: args.json,
            wide: args.wide,
        };
        return affected::run(&table, &how);
    }
    let (mut table, suggestions) = select.apply(table, args.json)?;
    let elsewhere = print_diagnostics(&table.diagnostics, &shape).map_err(Error::Output)?;
    let (here, left_out) = shape.arrange(&mut table, args.json || select.for_path.is_some());
    if args.json {
        let began = std::time::Instant::now();
        // Indented for a person at a terminal, compact for a program reading a pipe.
        let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
        if io::IsTerminal::is_terminal(&io::stdout()) {
            serde_json::to_writer_pretty(&mut out, &table)
                .map_err(io::Error::from)
                .map_err(Error::Output)?;
        } else {
            table.write_json(&mut out).map_err(Error::Output)?;
        }
        writeln!(out).map_err(Error::Output)?;
        out.flush().map_err(Error::Output)?;
        tracing::debug!("list: JSON written in {:?}", began.elapsed());
        if table.tasks.is_empty() {
            let mut err = anstream::stderr().lock();
            write_no_match(&mut err, &select.filter, &suggestions).map_err(Error::Output)?;
        }
        print_elsewhere(elsewhere, &shape).map_err(Error::Output)?;
    } else {
        let mut out = anstream::stdout().lock();
        let told = table.tasks.is_empty()
            && write_no_match(&mut out, &select.filter, &suggestions).map_err(Error::Output)?;
        let mut marks = rows::Marks::default();
        if !told {
            let view = rows::View {
                columns: fit::columns(&io::stdout(), args.wide),
                history: &past_runs(root),
            };
            marks = write_scoped(&mut out, &table, here, &shape, &view).map_err(Error::Output)?;
        }
        out.flush().map_err(Error::Output)?;
        print_hints(&table, marks, &shape).map_err(Error::Output)?;
        if left_out > 0 {
            fit::write_wrapped(
                &mut anstream::stderr().lock(),
                (rows::DIM, "note:"),
                &format!(
                    "{left_out} more {} elsewhere in the repository (without --here)",
                    if left_out == 1 { "task" } else { "tasks" }
                ),
                fit::columns(&io::stderr(), args.wide),
            )
            .map_err(Error::Output)?;
        }
        print_elsewhere(elsewhere, &shape).map_err(Error::Output)?;
    }
    // The process ends next: freeing a monorepo's rows one by one would only delay it.
    std::mem::forget(table);
    Ok(ExitCode::SUCCESS)
}

/// Where the person stands and how much of the repository they asked to see.
#[derive(Clone)]
struct Shape {
    /// The current directory relative to the root, when it is below it.
    here: Option<String>,
    /// `--here`: only the tasks of the current directory and below.
    only_here: bool,
    /// The directory whose files' warnings are printed in full (`--dir`, else the current
    /// one); the others are counted in one line. `None`: all of them.
    focus: Option<String>,
    /// `--wide`: lines are never cut.
    wide: bool,
}

impl Shape {
    /// Puts the tasks of the current directory and below first, keeping each part's order
    /// (unless `keep_order`: JSON and `--for` have an order of their own), drops the rest
    /// with `--here`, and returns how many rows are the current directory's and how many
    /// `--here` left out.
    fn arrange(&self, table: &mut Table, keep_order: bool) -> (usize, usize) {
        let Some(here) = &self.here else {
            return (table.tasks.len(), 0);
        };
        let is_here = |t: &Task| is_within(&t.dir, here) || is_within(&t.file_path, here);
        if self.only_here {
            let before = table.tasks.len();
            table.tasks.retain(is_here);
            return (table.tasks.len(), before - table.tasks.len());
        }
        if keep_order {
            return (table.tasks.len(), 0);
        }
        let (mine, rest): (Vec<Task>, Vec<Task>) = std::mem::take(&mut table.tasks)
            .into_iter()
            .partition(is_here);
        let count = mine.len();
        table.tasks = mine;
        table.tasks.extend(rest);
        (count, 0)
    }
}

/// Whether root-relative `path` is `dir` or inside it.
fn is_within(path: &str, dir: &str) -> bool {
    path == dir
        || path
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// The table in two parts below the root: the current directory's tasks, then the rest of
/// the repository under one heading.
fn write_scoped(
    out: &mut impl Write,
    table: &Table,
    here: usize,
    shape: &Shape,
    view: &rows::View,
) -> io::Result<rows::Marks> {
    if table.tasks.is_empty() {
        match (&shape.here, shape.only_here) {
            (Some(dir), true) => {
                writeln!(out, "no tasks in {} or below", terminal_text::line(dir))?;
            }
            _ => writeln!(out, "no tasks found")?,
        }
        return Ok(rows::Marks::default());
    }
    let (mine, rest) = table.tasks.split_at(here.min(table.tasks.len()));
    let mut marks = rows::write(out, mine, view)?;
    if let (Some(dir), false) = (&shape.here, rest.is_empty()) {
        if mine.is_empty() {
            let mut line = fit::Line::new();
            line.push(
                rows::DIM,
                format!("no tasks in {} or below", terminal_text::line(dir)),
            );
            line.write(out, view.columns)?;
        }
        writeln!(out)?;
        let mut heading = fit::Line::new();
        heading
            .push(rows::DIM, "── ")
            .push(DIR, "the rest of the repository")
            .push(
                rows::DIM,
                format!(
                    " ({}) ──",
                    terminal_text::line(&table.root.to_string_lossy())
                ),
            );
        heading.write(out, view.columns)?;
        let more = rows::write(out, rest, view)?;
        marks.asks |= more.asks;
        marks.service |= more.service;
    }
    Ok(marks)
}

/// What `agg list` shows of the table: its filters, and the path of `--for`.
struct Select {
    filter: Filter,
    /// As given on the command line.
    for_path: Option<PathBuf>,
}

impl Select {
    /// The table with only the selected tasks, in the order they are shown (ranked for
    /// JSON, ranked blocks for people), and the suggestions of a search that found nothing.
    fn apply(&self, mut table: Table, json: bool) -> Result<(Table, Vec<String>), Error> {
        let (mut order, suggestions) = if let Some(given) = &self.for_path {
            let found = in_repository(&table.root, given)
                .and_then(|rel| search::for_path(&table, &rel, &self.filter))
                .ok_or_else(|| Error::OutsideRoot {
                    path: given.clone(),
                    root: table.root.clone(),
                })?;
            (found, Vec::new())
        } else {
            let found = search::find(&table, &self.filter);
            (found.indices, found.suggestions)
        };
        if !json {
            in_blocks(&table.tasks, &mut order);
        }
        if order.windows(2).all(|w| w[0] < w[1]) {
            // Table order (no search): keep the rows in place rather than copy a monorepo.
            let mut keep = vec![false; table.tasks.len()];
            for &i in &order {
                if let Some(k) = keep.get_mut(i) {
                    *k = true;
                }
            }
            let mut keep = keep.into_iter();
            table.tasks.retain(|_| keep.next().unwrap_or(false));
        } else {
            let mut rows: Vec<Option<Task>> = std::mem::take(&mut table.tasks)
                .into_iter()
                .map(Some)
                .collect();
            table.tasks = order
                .into_iter()
                .filter_map(|i| rows.get_mut(i).and_then(Option::take))
                .collect();
        }
        Ok((table, suggestions))
    }
}

/// The `--for` path relative to `root`: a relative one from the current directory when
/// that is inside the repository, else from the root; `None` when it is outside.
fn in_repository(root: &Path, given: &Path) -> Option<PathBuf> {
    let within = |path: &Path| {
        search::relative(root, path)
            .map(PathBuf::from)
            .or_else(|| canonical(root, path))
    };
    if given.is_absolute() {
        return within(given);
    }
    match std::env::current_dir()
        .ok()
        .filter(|cwd| within(cwd).is_some())
    {
        Some(cwd) => within(&cwd.join(given)),
        None => search::relative(root, given).map(PathBuf::from),
    }
}

/// `path` with the root's symbolic links resolved, when the two spellings differ only by
/// them (the current directory is always resolved; a root given on the command line may
/// not be).
fn canonical(root: &Path, path: &Path) -> Option<PathBuf> {
    let root = root.canonicalize().ok()?;
    // The path need not exist: resolve its longest existing ancestor.
    let mut existing = path;
    let mut rest = Vec::new();
    loop {
        if let Ok(resolved) = existing.canonicalize() {
            let resolved = rest
                .iter()
                .rev()
                .fold(resolved, |p: PathBuf, part| p.join(part));
            return resolved.strip_prefix(&root).ok().map(Path::to_path_buf);
        }
        rest.push(existing.file_name()?.to_owned());
        existing = existing.parent()?;
    }
}

/// Orders ranked rows in directory blocks, each block where its best row ranked, rows in
/// rank order within it.
fn in_blocks(tasks: &[Task], order: &mut [usize]) {
    let mut first: HashMap<&str, usize> = HashMap::new();
    for (rank, &i) in order.iter().enumerate() {
        if let Some(t) = tasks.get(i) {
            first.entry(t.dir.as_str()).or_insert(rank);
        }
    }
    order.sort_by_key(|&i| {
        tasks
            .get(i)
            .and_then(|t| first.get(t.dir.as_str()))
            .copied()
    });
}

/// Says that a search found nothing and what would find something; false when there was
/// no search to speak of.
fn write_no_match(
    out: &mut impl Write,
    filter: &Filter,
    suggestions: &[String],
) -> io::Result<bool> {
    let Some(query) = filter.query.as_deref().filter(|q| !q.trim().is_empty()) else {
        return Ok(false);
    };
    writeln!(out, "no tasks match `{}`", terminal_text::line(query))?;
    if !suggestions.is_empty() {
        let shown: Vec<String> = suggestions
            .iter()
            .map(|s| format!("`{}`", terminal_text::line(s)))
            .collect();
        writeln!(out, "did you mean {}?", shown.join(", "))?;
    }
    Ok(true)
}

/// `agg list --watch`: the table, then again after every change, until interrupted.
fn watch(
    root: &std::path::Path,
    select: Select,
    shape: &Shape,
    json: bool,
) -> Result<ExitCode, Error> {
    let for_path = select.for_path.is_some();
    let print_shape = shape.clone();
    let print = move |table: &Table| {
        // The path was checked before the first table; the root does not move.
        let Ok((mut shown, _)) = select.apply(table.clone(), json) else {
            return;
        };
        let (here, _) = print_shape.arrange(&mut shown, json || for_path);
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
                let view = rows::View {
                    columns: fit::columns(&io::stdout(), print_shape.wide),
                    history: &past_runs(&shown.root),
                };
                write_scoped(&mut out, &shown, here, &print_shape, &view)?;
                let mut status = fit::Line::new();
                status.push(
                    rows::DIM,
                    format!(
                        "watching {} · {} tasks · {}",
                        terminal_text::line(&shown.root.to_string_lossy()),
                        shown.tasks.len(),
                        humantime::format_rfc3339_seconds(std::time::SystemTime::now())
                    ),
                );
                status.write(&mut out, view.columns)?;
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
    let live =
        crate::watched_table::WatchedTable::start(root, Box::new(move |_, new| on_change(new)));
    if let Some(problem) = live.problem() {
        return Err(Error::Watch(problem));
    }
    let elsewhere = print_diagnostics(&live.table().diagnostics, shape).map_err(Error::Output)?;
    print_elsewhere(elsewhere, shape).map_err(Error::Output)?;
    print(&live.table());
    // The watch may stop later (the kernel's watch limit, as the tree grows): say so rather
    // than go on showing a table that no longer follows the files.
    while live.watching() {
        std::thread::park_timeout(std::time::Duration::from_secs(1));
    }
    Err(Error::Watch(live.problem().unwrap_or_default()))
}

/// The run history of the repository at `root` (empty when it has none, or, with a
/// warning, when its directory is not agg's own).
fn past_runs(root: &std::path::Path) -> Summaries {
    match History::read(root) {
        Ok(history) => history.map_or_else(Summaries::default, |h| h.summaries()),
        Err(err) => {
            eprintln!("warning: run history not read: {err}");
            Summaries::default()
        }
    }
}

/// One diagnostic as a line: `warning: FILE:LINE: MESSAGE`.
fn diagnostic_line(d: &Diagnostic) -> fit::Line {
    let (file, message) = (
        terminal_text::line(&d.file_path),
        terminal_text::line(&d.message),
    );
    let mut line = fit::Line::new();
    line.push(WARN, "warning:");
    match d.line {
        Some(n) => line.push(Style::new(), format!(" {file}:{n}: {message}")),
        None => line.push(Style::new(), format!(" {file}: {message}")),
    };
    line
}

/// The warnings that were not printed: how many, in how many files.
#[derive(Debug, Default, Clone, Copy)]
struct Elsewhere {
    warnings: usize,
    files: usize,
}

/// Prints the diagnostics of the files in focus (all of them at the root) to stderr, and
/// counts the others.
fn print_diagnostics(diagnostics: &[Diagnostic], shape: &Shape) -> io::Result<Elsewhere> {
    let columns = fit::columns(&io::stderr(), shape.wide);
    let mut err = anstream::stderr().lock();
    let mut elsewhere = Elsewhere::default();
    let mut files: Vec<&str> = Vec::new();
    for d in diagnostics {
        if shape
            .focus
            .as_deref()
            .is_none_or(|focus| is_within(&d.file_path, focus))
        {
            diagnostic_line(d).write(&mut err, columns)?;
        } else {
            elsewhere.warnings += 1;
            if !files.contains(&d.file_path.as_str()) {
                files.push(&d.file_path);
            }
        }
    }
    elsewhere.files = files.len();
    Ok(elsewhere)
}

/// One line for the warnings about files outside the focus.
fn print_elsewhere(elsewhere: Elsewhere, shape: &Shape) -> io::Result<()> {
    if elsewhere.warnings == 0 {
        return Ok(());
    }
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut line = fit::Line::new();
    line.push(WARN, plural(elsewhere.warnings, "warning", "warnings"))
        .push(
            Style::new(),
            format!(
                " in {} elsewhere: agg list --diagnostics",
                plural(elsewhere.files, "file", "files"),
            ),
        );
    line.write(
        &mut anstream::stderr().lock(),
        fit::columns(&io::stderr(), shape.wide),
    )
}

/// `agg list --diagnostics`: every warning of the repository on stdout, whole.
fn write_every_diagnostic(diagnostics: &[Diagnostic]) -> Result<ExitCode, Error> {
    let mut out = anstream::stdout().lock();
    for d in diagnostics {
        diagnostic_line(d)
            .write(&mut out, None)
            .map_err(Error::Output)?;
    }
    out.flush().map_err(Error::Output)?;
    Ok(ExitCode::SUCCESS)
}

/// What the marks in the table mean, one line for the tasks that cannot run (their editor
/// defines them, or their runner refuses them), and the missing runners: the install hint
/// when one is missing, one summary line when several are (`agg doctor` has the details).
fn print_hints(table: &Table, marks: rows::Marks, shape: &Shape) -> io::Result<()> {
    let mut missing: BTreeMap<Runner, usize> = BTreeMap::new();
    for t in table.tasks.iter().filter(|t| !t.runner_available) {
        *missing.entry(t.runner).or_default() += 1;
    }
    let columns = fit::columns(&io::stderr(), shape.wide);
    let mut err = anstream::stderr().lock();
    let mut note =
        |text: String| fit::write_wrapped(&mut err, (rows::DIM, "note:"), &text, columns);
    let mut meaning = Vec::new();
    if marks.asks {
        meaning.push(format!("{} asks before it runs", rows::ASKS));
    }
    if marks.service {
        meaning.push(format!("{} runs until stopped (a service)", rows::SERVICE));
    }
    if !meaning.is_empty() {
        note(format!(
            "{}; `agg describe NAME` says more",
            meaning.join(", ")
        ))?;
    }
    let editor_only = table
        .tasks
        .iter()
        .filter(|t| t.behaviour.not_runnable.is_some())
        .count();
    if editor_only > 0 {
        let tasks = if editor_only == 1 { "task" } else { "tasks" };
        note(format!(
            "{editor_only} {tasks} marked [not runnable here] cannot run as written (an editor's task, or one its runner refuses); `agg describe NAME` says why"
        ))?;
    }
    match missing.len() {
        0 => {}
        // One runner missing: how to install it, right here.
        1 => {
            for (runner, count) in missing {
                let tasks = if count == 1 { "task" } else { "tasks" };
                note(format!(
                    "{runner} is not installed ({count} {tasks} marked ✗): {}",
                    install_hint(runner)
                ))?;
            }
        }
        // Several: one line, the runners with most tasks first; the details are in
        // `agg doctor`.
        n => {
            let mut by_count: Vec<(Runner, usize)> = missing.into_iter().collect();
            by_count.sort_by_key(|&(runner, count)| (std::cmp::Reverse(count), runner));
            let each: Vec<String> = by_count
                .iter()
                .map(|(runner, count)| {
                    let tasks = if *count == 1 { "task" } else { "tasks" };
                    format!("{runner} ({count} {tasks})")
                })
                .collect();
            note(format!(
                "{n} runners not installed: {}; `agg describe NAME` or `agg doctor` says how to install",
                each.join(", ")
            ))?;
        }
    }
    Ok(())
}
