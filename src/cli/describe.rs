//! `agg describe`: everything known about one task.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::error::Error;

/// Options of `agg describe`.
#[derive(Debug, clap::Args)]
pub struct DescribeArgs {
    /// The task: a unique name from `agg list` (or any name `agg run` takes).
    #[arg(add = clap_complete::ArgValueCompleter::new(super::completions::task_names))]
    pub name: String,
    /// The repository root (default: the repository around the current directory).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub(super) fn run(args: &DescribeArgs) -> Result<ExitCode, Error> {
    let root = super::Root::choose(args.root.as_deref())?;
    let table = crate::table::Table::load(&root.path);
    let task = super::resolve_task(&table, &root, &args.name)?.task;
    let runner_path = crate::availability::runner_path(&table.root, &task.dir, task.runner)
        .map(|p| p.to_string_lossy().into_owned());
    let mut detail = crate::describe::of(task, runner_path);
    detail.history = crate::history::History::open_existing(&table.root)
        .and_then(|h| h.summary_of(&task.unique_name, &task.file_path, &task.source_name));
    detail.packages = crate::graph::package_of(&crate::graph::read(&table), task);
    detail.sandbox = Some(super::sandbox::described(&table, task));
    if args.json {
        return super::print_json(&detail);
    }
    let mut out = anstream::stdout().lock();
    root.announce(&mut out).map_err(Error::Output)?;
    crate::describe::write(&mut out, &detail).map_err(Error::Output)?;
    out.flush().map_err(Error::Output)?;
    Ok(ExitCode::SUCCESS)
}
