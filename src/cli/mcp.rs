//! `agg mcp`: starts the MCP server, or prints a host's configuration.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// What `agg mcp` logs without `AGG_LOG`: warnings, and at start whether agents' runs will
/// be sandboxed.
const DEFAULT_LOG: &str = "warn,agg::sandbox=info";

use crate::error::Error;
use crate::mcp::{Host, Options, Scope, TaskTools, Via, default_scope, host_config, serve};

/// Options of `agg mcp`.
#[derive(Debug, clap::Args)]
pub struct McpArgs {
    /// The repository root (default: the repository around the current directory: the
    /// nearest directory with `.git`, else with a task file).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// How long `task_start` waits for a task to finish before returning a run id.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(0..=600_000))]
    pub wait_ms: u64,
    /// Lines of output results carry by default.
    #[arg(long, default_value_t = crate::mcp::TAIL_LINES)]
    pub tail_lines: usize,
    /// Jobs that may run at once.
    #[arg(long, default_value_t = 32, value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub max_runs: u64,
    /// Also serve one tool per task (`run_<name>`), for the tasks matching GLOB (default:
    /// all), at most --task-tools-cap of them.
    #[arg(long, value_name = "GLOB", num_args = 0..=1, default_missing_value = "*", require_equals = true)]
    pub task_tools: Option<String>,
    /// Most per-task tools served.
    #[arg(long, default_value_t = crate::mcp::DEFAULT_CAP)]
    pub task_tools_cap: usize,
    /// Print the server entry for an MCP host's configuration file (stdout) and where it
    /// goes (stderr), then exit.
    #[arg(long, value_enum, value_name = "HOST")]
    pub print_config: Option<Host>,
    /// With --print-config: how the host starts agg (the installed binary, or the npm or
    /// Python package through npx or uvx).
    #[arg(long, value_enum, default_value = "agg", requires = "print_config")]
    pub via: Via,
    /// With --print-config: the repository's file or the user's (default: the repository's,
    /// where the host reads one).
    #[arg(long, value_enum, requires = "print_config")]
    pub scope: Option<Scope>,
}

/// The command that starts the installed agg: `agg` when that is what PATH finds, else the
/// absolute path of this binary, so the entry works as printed.
fn installed_agg() -> String {
    let me = std::env::current_exe().ok();
    let on_path = which::which("agg").ok();
    match (me, on_path) {
        (Some(me), Some(found))
            if std::fs::canonicalize(&found).ok() == std::fs::canonicalize(&me).ok() =>
        {
            "agg".to_owned()
        }
        (Some(me), _) => me.display().to_string(),
        (None, _) => "agg".to_owned(),
    }
}

fn print_config(host: Host, args: &McpArgs) -> Result<ExitCode, Error> {
    let scope = args.scope.unwrap_or_else(|| default_scope(host));
    let config =
        host_config(host, scope, &args.via.command(&installed_agg())).map_err(Error::HostScope)?;
    eprint!("{}", config.note);
    let mut out = std::io::stdout().lock();
    out.write_all(config.snippet.as_bytes())
        .map_err(Error::Output)?;
    Ok(ExitCode::SUCCESS)
}

pub(super) fn run(args: &McpArgs) -> Result<ExitCode, Error> {
    if let Some(host) = args.print_config {
        return print_config(host, args);
    }
    let root = super::Root::choose(args.root.as_deref())?.path;
    // stdout belongs to the protocol: every log line goes to stderr.
    let _ = tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("AGG_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_LOG)),
        )
        .try_init();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(Error::Runtime)?;
    let opts = Options {
        root,
        wait_ms: args.wait_ms,
        tail_lines: args.tail_lines,
        max_runs: usize::try_from(args.max_runs).unwrap_or(32),
        task_tools: match &args.task_tools {
            Some(glob) => Some(TaskTools::new(glob, args.task_tools_cap).map_err(Error::BadGlob)?),
            None => None,
        },
    };
    runtime.block_on(serve(opts)).map_err(Error::Serve)?;
    // Do not wait for stdin reader threads blocked on a read that will never return.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    Ok(ExitCode::SUCCESS)
}
