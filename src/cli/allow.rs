//! `agg allow`, `agg deny` and `agg allowlist`: the human side of the MCP permission model.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use crate::allowlist::{self, Allowlist, Rule};
use crate::error::Error;

/// What `agg allow` / `agg deny` applies to: one task, a task file or a directory.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("target").required(true).args(["name", "file", "dir"])))]
pub struct RuleArgs {
    /// A task's unique name (matched afterwards by its file and source name).
    pub name: Option<String>,
    /// Every task defined in this file.
    #[arg(long)]
    pub file: Option<PathBuf>,
    /// Every task defined in a file under this directory.
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// The repository root, for resolving NAME.
    #[arg(long, short = 'C', default_value = ".")]
    pub root: PathBuf,
}

/// Options of `agg allowlist`.
#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

fn path() -> Result<PathBuf, Error> {
    allowlist::default_path().ok_or_else(|| {
        Error::Allowlist("no config directory: set XDG_CONFIG_HOME or HOME".to_owned())
    })
}

fn canonical(path: &PathBuf) -> Result<PathBuf, Error> {
    std::fs::canonicalize(path).map_err(|e| {
        Error::Allowlist(format!(
            "{}: {}",
            path.display(),
            crate::repo_files::io_reason(&e)
        ))
    })
}

fn rule(args: &RuleArgs) -> Result<Rule, Error> {
    if let Some(name) = &args.name {
        let table = super::load_table(&args.root)?;
        let task = super::find_task(&table, name)?;
        return Ok(Rule {
            dir: None,
            file: Some(table.root.join(&task.file_path)),
            task: Some(task.source_name.clone()),
        });
    }
    if let Some(file) = &args.file {
        let file = canonical(file)?;
        if !file.is_file() {
            return Err(Error::Allowlist(format!(
                "{} is not a file",
                file.display()
            )));
        }
        return Ok(Rule {
            dir: None,
            file: Some(file),
            task: None,
        });
    }
    let dir = canonical(args.dir.as_ref().unwrap_or(&args.root))?;
    Ok(Rule {
        dir: Some(dir),
        file: None,
        task: None,
    })
}

pub(super) fn change(args: &RuleArgs, allow: bool) -> Result<ExitCode, Error> {
    let path = path()?;
    let rule = rule(args)?;
    let mut list: Allowlist = allowlist::load(&path).map_err(Error::Allowlist)?;
    let what = Allowlist {
        deny: vec![],
        allow: vec![rule.clone()],
    }
    .rules()
    .pop()
    .map(|(_, _, w)| w)
    .unwrap_or_default();
    let changed = if allow {
        list.allow(rule.clone())
    } else {
        list.deny(rule.clone())
    };
    allowlist::save(&path, &list).map_err(Error::Allowlist)?;
    let mut out = anstream::stdout().lock();
    let verb = if allow { "allowed" } else { "denied" };
    if changed {
        writeln!(out, "{verb}: {what}")?;
    } else {
        writeln!(out, "already {verb}: {what}")?;
    }
    if allow {
        // A broader deny still wins; say so rather than let the user wonder.
        if let (Some(file), task) = (&rule.file, rule.task.as_deref())
            && let allowlist::Decision::Denied(by) = list.decide(file, task.unwrap_or(""))
        {
            writeln!(out, "note: still denied by {by} (deny wins over allow)")?;
        }
    }
    writeln!(out, "allowlist: {}", path.display())?;
    Ok(ExitCode::SUCCESS)
}

pub(super) fn show(args: &ShowArgs) -> Result<ExitCode, Error> {
    let path = path()?;
    let list = allowlist::load(&path).map_err(Error::Allowlist)?;
    if args.json {
        let mut out = io::BufWriter::new(io::stdout().lock());
        let value = serde_json::json!({"path": path, "deny": list.deny, "allow": list.allow});
        serde_json::to_writer_pretty(&mut out, &value).map_err(io::Error::from)?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = anstream::stdout().lock();
    writeln!(out, "allowlist: {}", path.display())?;
    let rules = list.rules();
    if rules.is_empty() {
        writeln!(
            out,
            "  (empty: agents may list tasks but run none; `agg allow NAME` allows one)"
        )?;
    }
    for (verdict, kind, what) in rules {
        writeln!(out, "  {verdict:<5} {kind:<9} {what}")?;
    }
    Ok(ExitCode::SUCCESS)
}
