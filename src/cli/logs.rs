//! `agg logs RUN_ID [-f]`: a job's output from the `agg mcp` that runs it, a service's
//! from the log file `agg run --until-ready` gave it ([`crate::control::detached`]), or a
//! person's `agg run` from its log ([`crate::runs`]).
//!
//! The output is shown with its control characters and escape sequences made visible
//! ([`crate::terminal_text::text`]), to a terminal and to a pipe alike: an agent started the job,
//! and what it prints must not drive the terminal of the person reading it (set the
//! clipboard, retitle the window, redraw lines). `--raw` writes the text as the task wrote it.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use std::io::{Read, Seek, SeekFrom};
use std::time::Duration;

use crate::control::{Request, client, detached};
use crate::error::Error;

/// Options of `agg logs`.
#[derive(Debug, clap::Args)]
pub struct LogsArgs {
    /// The job's run id (`agg ps` lists them); for a service `agg run --until-ready` left
    /// running, its task's name works too.
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
                crate::terminal_text::text(raw)
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
        return service_logs(args);
    }
    Ok(ExitCode::SUCCESS)
}

/// The most of a service's log read to find its last lines.
const MAX_TAIL_BYTES: u64 = 4 * 1024 * 1024;
/// The most read from the log at once while following it.
const CHUNK_BYTES: usize = 64 * 1024;
/// How often a followed log is read again.
const FOLLOW_EVERY: Duration = Duration::from_millis(100);

/// The output of the service with this run id, from its log file: the last `--tail`
/// lines, then with `--follow` every new line until the service has ended.
fn service_logs(args: &LogsArgs) -> Result<ExitCode, Error> {
    let root = super::stop::here(args.root.as_deref());
    let Some((_, service)) = detached::find(&args.run_id, root.as_deref()) else {
        return person_run_logs(args, root.as_deref());
    };
    let cannot = |e: std::io::Error| Error::Control {
        action: format!("read the output of {}", args.run_id),
        reason: format!("{}: {e}", service.log.display()),
    };
    let mut file = std::fs::File::open(&service.log).map_err(cannot)?;
    if !file.metadata().map_err(cannot)?.is_file() {
        return Err(cannot(std::io::Error::other("not a regular file")));
    }
    let len = file.seek(SeekFrom::End(0)).map_err(cannot)?;
    let start = len.saturating_sub(MAX_TAIL_BYTES);
    file.seek(SeekFrom::Start(start)).map_err(cannot)?;
    let mut tail = Vec::new();
    (&mut file)
        .take(len - start)
        .read_to_end(&mut tail)
        .map_err(cannot)?;
    // A line cut by the start of the read is not shown; a last line without its newline
    // yet waits for it when following.
    let mut body: &[u8] = &tail;
    if start > 0 {
        body = body
            .iter()
            .position(|&b| b == b'\n')
            .map_or(&[], |i| &body[i + 1..]);
    }
    let mut out = std::io::stdout().lock();
    let pending = write_tail(&mut out, body, args)?;
    if !args.follow {
        return Ok(ExitCode::SUCCESS);
    }
    let mut buf = vec![0u8; CHUNK_BYTES];
    follow(&mut out, pending, args.raw, |sink| {
        let running = service.running();
        loop {
            let n = file.read(&mut buf).map_err(cannot)?;
            if n == 0 {
                break;
            }
            sink(&buf[..n])?;
        }
        Ok(running)
    })
}

/// Writes the last `--tail` complete lines of `body`. With `--follow`, a last line without
/// its newline yet waits for it: it is returned, to be completed by what comes next.
fn write_tail(out: &mut impl Write, body: &[u8], args: &LogsArgs) -> Result<Vec<u8>, Error> {
    let (complete, pending) = match body.iter().rposition(|&b| b == b'\n') {
        Some(i) if args.follow => (&body[..=i], body[i + 1..].to_vec()),
        _ if args.follow => (&[][..], body.to_vec()),
        _ => (body, Vec::new()),
    };
    let lines: Vec<&[u8]> = complete.split(|&b| b == b'\n').collect();
    let lines = match lines.split_last() {
        Some(([], rest)) => rest,
        _ => &lines[..],
    };
    for line in &lines[lines.len().saturating_sub(args.tail)..] {
        write_line(out, line, args.raw)?;
    }
    Ok(pending)
}

/// What a read of a followed log hands each new chunk to.
type Sink<'a> = dyn FnMut(&[u8]) -> Result<(), Error> + 'a;

/// Follows a log until the job has ended: `read_new` says whether the job is still running
/// (asked before it reads, so nothing written before the end is missed) and gives what was
/// appended since its last call to the sink, which writes each line as it completes; after
/// the end, a last line without its newline is written too.
fn follow(
    out: &mut impl Write,
    mut pending: Vec<u8>,
    raw: bool,
    mut read_new: impl FnMut(&mut Sink) -> Result<bool, Error>,
) -> Result<ExitCode, Error> {
    loop {
        let mut sink = |chunk: &[u8]| -> Result<(), Error> {
            pending.extend_from_slice(chunk);
            while let Some(i) = pending.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = pending.drain(..=i).collect();
                write_line(out, &line[..i], raw)?;
            }
            Ok(())
        };
        let running = read_new(&mut sink)?;
        if !running {
            if !pending.is_empty() {
                write_line(out, &pending, raw)?;
            }
            return Ok(ExitCode::SUCCESS);
        }
        std::thread::sleep(FOLLOW_EVERY);
    }
}

/// One line of a service's log, visible unless `raw` (a closed pipe is success, in
/// [`super::main`]).
fn write_line(out: &mut impl Write, line: &[u8], raw: bool) -> Result<(), Error> {
    let text = String::from_utf8_lossy(line);
    let text = if raw {
        text
    } else {
        crate::terminal_text::text(&text)
    };
    writeln!(out, "{text}").map_err(Error::Output)
}

/// The output of a run a person started with `agg run`, from its log: the last `--tail`
/// lines, then with `--follow` every new line until the run has ended.
fn person_run_logs(args: &LogsArgs, root: Option<&std::path::Path>) -> Result<ExitCode, Error> {
    use crate::runs::record::State;
    let Some(record) = crate::runs::store::find_named(&args.run_id, root) else {
        return Err(Error::NoSuchRun {
            run_id: args.run_id.clone(),
        });
    };
    let mut follower = crate::runs::log::Follower::new(&record.log);
    let mut all = Vec::new();
    follower.read_new(usize::MAX, &mut |b| all.extend_from_slice(b));
    let mut out = std::io::stdout().lock();
    let pending = write_tail(&mut out, &all, args)?;
    if !args.follow {
        return Ok(ExitCode::SUCCESS);
    }
    follow(&mut out, pending, args.raw, |sink| {
        let running = crate::runs::store::find(&record.run_id, root)
            .is_some_and(|r| r.state() == State::Running);
        let mut new = Vec::new();
        follower.read_new(usize::MAX, &mut |b| new.extend_from_slice(b));
        sink(&new)?;
        Ok(running)
    })
}
