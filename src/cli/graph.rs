//! `agg graph`: the workspace graph ([`crate::graph`]) — each workspace with its packages and
//! what each depends on, then the packages outside any workspace — or, with `--json`, the
//! whole graph with each package's dependencies and dependents.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use agg_runners::graph::Graph;
use serde_json::{Value, json};

use crate::error::Error;
use crate::terminal_text;

/// Options of `agg graph`.
#[derive(Debug, clap::Args)]
pub struct GraphArgs {
    /// The repository root (default: the repository around the current directory).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// Print JSON: `workspaces`, `packages` (each with `dependencies` and `dependents`) and
    /// `diagnostics`.
    #[arg(long)]
    pub json: bool,
}

const TITLE: anstyle::Style = anstyle::Style::new().bold();
const DIM: anstyle::Style = anstyle::Style::new().dimmed();

pub(super) fn run(args: &GraphArgs) -> Result<ExitCode, Error> {
    let root = super::Root::choose(args.root.as_deref())?;
    let table = super::load_table(&root.path)?;
    let graph = crate::graph::read(&table);
    if args.json {
        return super::print_json(&document(&graph, &table.root));
    }
    let mut out = anstream::stdout().lock();
    root.announce(&mut out).map_err(Error::Output)?;
    write(&mut out, &graph).map_err(Error::Output)?;
    out.flush().map_err(Error::Output)?;
    let mut err = anstream::stderr().lock();
    for d in &graph.diagnostics {
        let at = d.line.map_or_else(String::new, |l| format!(":{l}"));
        let _ = writeln!(
            err,
            "warning: {}{at}: {}",
            terminal_text::line(&d.file_path),
            terminal_text::line(&d.message)
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The graph as `agg graph --json` prints it.
fn document(graph: &Graph, root: &std::path::Path) -> Value {
    let dependents = graph.dependents();
    let workspaces: Vec<Value> = graph
        .workspaces
        .iter()
        .map(|w| {
            json!({
                "tool": w.tool,
                "ecosystem": w.ecosystem,
                "dir": w.dir,
                "manifest": w.manifest,
                "members": w.members.iter().map(|&m| graph.name(m)).collect::<Vec<_>>(),
                "shared": w.shared,
            })
        })
        .collect();
    let packages: Vec<Value> = graph
        .packages
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let deps: Vec<Value> = p
                .deps
                .iter()
                .map(|d| {
                    json!({
                        "name": graph.name(d.to),
                        "dir": graph.packages[d.to].dir,
                        "kind": d.kind,
                        "line": d.line,
                    })
                })
                .collect();
            let used_by: Vec<Value> = dependents[i]
                .iter()
                .map(|&d| json!({"name": graph.name(d), "dir": graph.packages[d].dir}))
                .collect();
            json!({
                "name": p.name,
                "ecosystem": p.ecosystem,
                "dir": p.dir,
                "manifest": p.manifest,
                "version": p.version,
                "workspace": p.workspace.map(|w| &graph.workspaces[w].dir),
                "aliases": p.aliases,
                "dependencies": deps,
                "dependents": used_by,
            })
        })
        .collect();
    json!({
        "root": root.display().to_string(),
        "workspaces": workspaces,
        "packages": packages,
        "diagnostics": graph.diagnostics,
    })
}

/// The graph for people: one block per workspace, then the packages of none.
fn write(out: &mut impl Write, graph: &Graph) -> io::Result<()> {
    if graph.packages.is_empty() {
        return writeln!(out, "no packages found (no workspace or package manifest)");
    }
    let width = graph
        .packages
        .iter()
        .map(|p| terminal_text::line(&p.name).chars().count())
        .max()
        .unwrap_or(0)
        .min(40);
    let row = |out: &mut dyn Write, i: usize| -> io::Result<()> {
        let p = &graph.packages[i];
        let name = terminal_text::line(&p.name);
        let pad = " ".repeat(width.saturating_sub(name.chars().count()));
        let deps: Vec<String> = p
            .deps
            .iter()
            .map(|d| terminal_text::line(graph.name(d.to)).into_owned())
            .collect();
        let arrow = if deps.is_empty() {
            String::new()
        } else {
            format!("  → {}", deps.join(", "))
        };
        writeln!(
            out,
            "  {name}{pad}  {DIM}{}{DIM:#}{arrow}",
            terminal_text::line(&p.dir)
        )
    };
    for w in &graph.workspaces {
        writeln!(
            out,
            "{TITLE}{} workspace{TITLE:#} {DIM}{} ({} packages){DIM:#}",
            w.tool,
            terminal_text::line(&w.manifest),
            w.members.len()
        )?;
        for &m in &w.members {
            row(out, m)?;
        }
        writeln!(out)?;
    }
    let alone: Vec<usize> = (0..graph.packages.len())
        .filter(|&i| graph.packages[i].workspace.is_none())
        .collect();
    if !alone.is_empty() {
        writeln!(out, "{TITLE}outside any workspace{TITLE:#}")?;
        for i in alone {
            row(out, i)?;
        }
    }
    Ok(())
}
