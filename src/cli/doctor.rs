//! `agg doctor`: what this repository needs to run its tasks, and what is missing. For
//! each runner the repository's tasks use: whether it is installed and where (the project's
//! own copy first, as `agg run` finds it), how many tasks it runs, and, when it is missing,
//! how to install it; then the tasks that cannot run as written and the warnings. `agg list`
//! sums the missing runners up in one line and points here.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use agg_runners::Runner;
use anstyle::{AnsiColor, Style};
use serde::Serialize;

use crate::error::Error;
use crate::table::Table;

const OK: Style = AnsiColor::Green.on_default();
const MISSING: Style = AnsiColor::Red.on_default();
const DIM: Style = Style::new().dimmed();

/// Options of `agg doctor`.
#[derive(Debug, clap::Args)]
pub struct DoctorArgs {
    /// The repository root (default: the repository around the current directory).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// One runner the repository uses.
#[derive(Debug, Serialize)]
pub(crate) struct RunnerNeed {
    /// The runner's name (`make`, `pnpm`, …).
    pub runner: Runner,
    /// How many of the repository's tasks it runs.
    pub tasks: usize,
    /// Whether every one of them can be started (the runner, or its project copy, is there).
    pub installed: bool,
    /// Where the runner is, when installed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// How to install it, when some task lacks it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub install: Option<&'static str>,
}

/// What `agg doctor --json` prints.
#[derive(Debug, Serialize)]
struct Report {
    root: String,
    runners: Vec<RunnerNeed>,
    /// Tasks listed but not runnable as written (an editor's task, one its runner refuses).
    not_runnable: usize,
    /// Warnings about task files (`agg list --diagnostics` prints them).
    warnings: usize,
}

/// The runners `table`'s tasks use, in the table's runner order, each with what it needs.
pub(crate) fn needs(table: &Table) -> Vec<RunnerNeed> {
    let mut by_runner: BTreeMap<Runner, (usize, usize, &str)> = BTreeMap::new();
    for t in &table.tasks {
        let entry = by_runner.entry(t.runner).or_insert((0, 0, t.dir.as_str()));
        entry.0 += 1;
        if t.runner_available {
            entry.2 = t.dir.as_str();
        } else {
            entry.1 += 1;
        }
    }
    by_runner
        .into_iter()
        .map(|(runner, (tasks, missing, dir))| {
            let installed = missing == 0;
            let path = (missing < tasks)
                .then(|| crate::availability::runner_path(&table.root, dir, runner))
                .flatten()
                .map(|p| p.to_string_lossy().into_owned());
            RunnerNeed {
                runner,
                tasks,
                installed,
                path,
                install: (!installed).then(|| crate::availability::install_hint(runner)),
            }
        })
        .collect()
}

pub(super) fn run(args: &DoctorArgs) -> Result<ExitCode, Error> {
    let root = super::Root::choose(args.root.as_deref())?;
    let table = Table::load(&root.path);
    let report = Report {
        root: table.root.to_string_lossy().into_owned(),
        runners: needs(&table),
        not_runnable: table
            .tasks
            .iter()
            .filter(|t| t.behaviour.not_runnable.is_some())
            .count(),
        warnings: table.diagnostics.len(),
    };
    if args.json {
        return super::print_json(&report);
    }
    let mut out = anstream::stdout().lock();
    write(&mut out, &report).map_err(Error::Output)?;
    out.flush().map_err(Error::Output)?;
    Ok(ExitCode::SUCCESS)
}

fn write(out: &mut impl Write, report: &Report) -> io::Result<()> {
    let root = crate::terminal_text::line(&report.root).into_owned();
    writeln!(out, "{DIM}repository:{DIM:#} {root}")?;
    if report.runners.is_empty() {
        writeln!(out, "no tasks found")?;
        return Ok(());
    }
    let installed = report.runners.iter().filter(|r| r.installed).count();
    writeln!(
        out,
        "{installed} of the {} runners its tasks use are installed",
        report.runners.len()
    )?;
    let name_w = report
        .runners
        .iter()
        .map(|r| r.runner.name().len())
        .max()
        .unwrap_or(0);
    for need in &report.runners {
        let tasks = if need.tasks == 1 { "task" } else { "tasks" };
        let count = format!("{} {tasks}", need.tasks);
        let name = need.runner.name();
        let pad = " ".repeat(name_w - name.len());
        if need.installed {
            let path = match &need.path {
                Some(path) => crate::terminal_text::line(path).into_owned(),
                None if need.runner.descriptor().runs_without_binary => {
                    "run by agg itself".to_owned()
                }
                None => String::new(),
            };
            writeln!(
                out,
                "  {OK}✓{OK:#} {name}{pad}  {count:<11} {DIM}{path}{DIM:#}"
            )?;
        } else {
            let some = need.path.is_some();
            let state = if some {
                "not installed for some"
            } else {
                "not installed"
            };
            writeln!(
                out,
                "  {MISSING}✗{MISSING:#} {name}{pad}  {count:<11} {state}"
            )?;
            writeln!(
                out,
                "    {DIM}install:{DIM:#} {}",
                need.install.unwrap_or_default()
            )?;
        }
    }
    if report.not_runnable > 0 {
        let tasks = if report.not_runnable == 1 {
            "task"
        } else {
            "tasks"
        };
        writeln!(
            out,
            "{} {tasks} cannot run as written (an editor's task, or one its runner refuses): `agg describe NAME` says why",
            report.not_runnable
        )?;
    }
    if report.warnings > 0 {
        let warnings = if report.warnings == 1 {
            "warning"
        } else {
            "warnings"
        };
        writeln!(
            out,
            "{} {warnings} about task files: `agg list --diagnostics`",
            report.warnings
        )?;
    }
    Ok(())
}
