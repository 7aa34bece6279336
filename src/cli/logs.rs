//! `agg logs RUN_ID [-f]`: a job's output from the `agg mcp` that runs it.
//!
//! The output is shown with its control characters and escape sequences made visible
//! ([`crate::visible::text`]), to a terminal and to a pipe alike: an agent started the job,
//! and what it prints must not drive the terminal of the person reading it (set the
//! clipboard, retitle the window, redraw lines). `--raw` writes the text as the task wrote it.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use crate::control::{Request, client};
use crate::error::Error;

/// Options of `agg logs`.
#[derive(Debug, clap::Args)]
pub struct LogsArgs {
    /// The job's run id (`agg ps` lists them).
    pub run_id: String,
    /// Keep printing new output until the job ends.
    #[arg(long, short)]
    pub follow: bool,
    /// Lines of the end of the output to start with.
    #[arg(long, short = 'n', default_value_t = 100)]
    pub tail: usize,
    /// The repository root (default: the repository around the current directory).
    #[arg(long)]
    pub root: Option<PathBuf>,
    /// Write the output exactly as the task wrote it, escape sequences included (by
    /// default control characters are shown as `\e`, `\r`, `\x07`, `\u{202e}`).
    #[arg(long)]
    pub raw: bool,
}

pub(super) fn run(args: &LogsArgs) -> Result<ExitCode, Error> {
    let sockets = super::stop::sockets(args.root.as_deref());
    let request = Request::Logs {
        run_id: args.run_id.clone(),
        from: None,
        tail: Some(args.tail),
        follow: args.follow,
    };
    let mut failed = None;
    let found = client::ask_job(&sockets, &request, |v| {
        if let Some(line) = v.get("line") {
            let raw = line["text"].as_str().unwrap_or("");
            let text = if args.raw {
                raw.into()
            } else {
                crate::visible::text(raw)
            };
            let written = if line["stream"] == "stderr" {
                writeln!(std::io::stderr().lock(), "{text}")
            } else {
                writeln!(std::io::stdout().lock(), "{text}")
            };
            if let Err(err) = written {
                failed = Some(err);
                return false;
            }
        }
        true
    })
    .map_err(|e| Error::Control {
        action: format!("read the output of {}", args.run_id),
        reason: e.to_string(),
    })?;
    if let Some(err) = failed
        && err.kind() != std::io::ErrorKind::BrokenPipe
    {
        return Err(Error::Output(err));
    }
    if !found {
        return Err(Error::NoSuchRun {
            run_id: args.run_id.clone(),
        });
    }
    Ok(ExitCode::SUCCESS)
}
