//! The command line: `agg list`, and (in later modules) `run`, `describe` and `mcp`.
//!
//! Parsing is clap derive; every error is printed here and nowhere else, and a closed
//! pipe (`agg list | head`) counts as success.

mod list;

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use agg_runners::Runner;
use clap::{Parser, Subcommand};

use crate::error::Error;

/// Find and run every task in a polyglot repo.
#[derive(Debug, Parser)]
#[command(name = "agg", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List every task under PATH (default: the current directory).
    #[command(visible_alias = "ls")]
    List(ListArgs),
    /// Print the JSON Schema of `agg list --json`.
    #[command(hide = true)]
    Schema,
}

/// Options of `agg list`.
#[derive(Debug, clap::Args)]
pub struct ListArgs {
    /// The repository root to scan.
    #[arg(default_value = ".")]
    pub path: PathBuf,
    /// Only tasks of these runners (repeat or comma-separate).
    #[arg(long, short, value_delimiter = ',', value_parser = parse_runner)]
    pub runner: Vec<Runner>,
    /// Only tasks in this directory (relative to the root) or below it.
    #[arg(long, short)]
    pub dir: Option<String>,
    /// Only tasks whose name or description contains this text.
    #[arg(long, short)]
    pub query: Option<String>,
    /// Print the table as JSON.
    #[arg(long)]
    pub json: bool,
}

fn parse_runner(s: &str) -> Result<Runner, String> {
    Runner::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = Runner::ALL.iter().map(|r| r.name()).collect();
        format!("unknown runner `{s}`; expected one of: {}", names.join(", "))
    })
}

/// Runs the command line and returns the process exit code.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::List(args) => list::run(&args),
        Command::Schema => print_json(&crate::table::Table::json_schema()),
    };
    match result {
        Ok(code) => code,
        Err(Error::Output(err)) if err.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(err) => {
            let mut stderr = anstream::stderr();
            let _ = writeln!(stderr, "{}error:{} {err}", ERROR.render(), ERROR.render_reset());
            ExitCode::from(err.exit_code())
        }
    }
}

fn print_json(value: &serde_json::Value) -> Result<ExitCode, Error> {
    let mut out = io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, value).map_err(io::Error::from)?;
    writeln!(out)?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

const ERROR: anstyle::Style = anstyle::AnsiColor::Red.on_default().bold();
