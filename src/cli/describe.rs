//! `agg describe`: everything known about one task.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anstyle::Style;

use crate::error::Error;
use crate::table::TaskDetail;

/// Options of `agg describe`.
#[derive(Debug, clap::Args)]
pub struct DescribeArgs {
    /// The task: a unique name from `agg list` (or any name `agg run` takes).
    pub name: String,
    /// The repository root (default: the repository around the current directory).
    #[arg(long, short = 'C')]
    pub root: Option<PathBuf>,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

const KEY: Style = Style::new().bold();
const DIM: Style = Style::new().dimmed();

pub(super) fn run(args: &DescribeArgs) -> Result<ExitCode, Error> {
    let root = super::Root::choose(args.root.as_deref())?;
    let table = crate::table::Table::load(&root.path);
    let task = super::resolve_task(&table, &root, &args.name)?.task;
    let detail = table.detail(task);
    if args.json {
        let mut out = io::BufWriter::new(io::stdout().lock());
        serde_json::to_writer_pretty(&mut out, &detail).map_err(io::Error::from)?;
        writeln!(out)?;
        out.flush()?;
    } else {
        let mut out = anstream::stdout().lock();
        root.announce(&mut out)?;
        write_detail(&mut out, &detail)?;
        out.flush()?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes the human description of a task.
pub fn write_detail(out: &mut impl Write, d: &TaskDetail) -> io::Result<()> {
    let t = &d.task;
    writeln!(
        out,
        "{KEY}{}{KEY:#}  {DIM}{}: {}{DIM:#}",
        t.unique_name, t.runner, t.source_name
    )?;
    let field = |out: &mut dyn Write, key: &str, value: &str| {
        writeln!(out, "  {KEY}{key:<12}{KEY:#} {value}")
    };
    if let Some(desc) = &t.description {
        field(out, "description", desc)?;
    }
    field(out, "command", &t.command)?;
    field(out, "dir", &t.dir)?;
    let at = match t.line {
        Some(line) => format!("{}:{line}", t.file_path),
        None => t.file_path.clone(),
    };
    field(out, "defined at", &at)?;
    let runner = match &d.runner_path {
        Some(path) => format!("{} ({path})", t.runner),
        None if t.runner_available => format!("{} (built in)", t.runner),
        None => format!(
            "{} — not installed: {}",
            t.runner,
            crate::availability::install_hint(t.runner)
        ),
    };
    field(out, "runner", &runner)?;
    if let Some(group) = &t.group {
        field(out, "group", group)?;
    }
    if !t.params.is_empty() {
        let params: Vec<String> = t
            .params
            .iter()
            .map(|p| {
                let mut s = String::new();
                match p.variadic {
                    Some(agg_runners::Variadic::OneOrMore) => s.push('+'),
                    Some(agg_runners::Variadic::ZeroOrMore) => s.push('*'),
                    None => {}
                }
                if p.exported {
                    s.push('$');
                }
                s.push_str(&p.name);
                if let Some(default) = &p.default {
                    s.push('=');
                    s.push_str(default);
                }
                if p.required {
                    s.push_str(" (required)");
                }
                s
            })
            .collect();
        field(out, "params", &params.join(", "))?;
    }
    if !t.deps.is_empty() {
        field(out, "deps", &t.deps.join(", "))?;
    }
    if !t.aliases.is_empty() {
        field(out, "aliases", &t.aliases.join(", "))?;
    }
    for var in &d.env {
        field(out, "env", &format!("{}={}", var.name, var.value))?;
    }
    if let Some(xc) = &d.xc {
        if let Some(dir) = &xc.dir {
            field(out, "runs in", dir)?;
        }
        if xc.run_once {
            field(out, "run", "once")?;
        }
        if xc.run_deps_async {
            field(out, "deps run", "concurrently")?;
        }
        if let Some(interp) = &xc.interpreter {
            field(out, "interpreter", interp)?;
        }
    }
    let b = &d.behaviour;
    for question in &b.confirm {
        field(
            out,
            "asks first",
            &format!("{question} (runs only if answered yes)"),
        )?;
    }
    if b.interactive {
        field(out, "interactive", "yes: expects a terminal")?;
    }
    for hook in &b.hooks {
        let when = match hook.when {
            agg_runners::HookWhen::Before => "before",
            agg_runners::HookWhen::After => "after",
        };
        field(
            out,
            "also runs",
            &format!("{} ({when}): {}", hook.name, hook.command),
        )?;
    }
    if let Some(script) = &d.script {
        writeln!(out, "  {KEY}script{KEY:#}")?;
        for line in script.lines() {
            writeln!(out, "    {line}")?;
        }
    }
    Ok(())
}
