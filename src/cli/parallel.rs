//! `agg run --parallel a b c`: several tasks at once, each output line prefixed with its
//! task's name (`build-m | …`), the name in a colour of its own on a terminal (none with
//! `NO_COLOR` or in a pipe), as mise and go-task do.
//!
//! Each task is a job of one engine, captured ([`StdioMode::Capture`]: stdin is
//! `/dev/null`, each its own process group), and a follower per job copies its complete lines
//! as they come, stdout to stdout and stderr to stderr. SIGINT, SIGTERM and SIGHUP stop every
//! job's whole tree (the engine's TERM, grace, KILL). All tasks run to their end; the exit
//! code is that of the first one to fail, or 128+signal.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use tokio::signal::unix::{SignalKind, signal};

use super::status::Ended;
use crate::engine::{
    Duplicates, Engine, EngineConfig, Invocation, Job, JobState, Line, OnFinish, OutputLimits,
    StdioMode, Stream,
};
use crate::error::Error;

/// The prefix colours, given out in turn.
const COLOURS: [anstyle::AnsiColor; 6] = [
    anstyle::AnsiColor::Cyan,
    anstyle::AnsiColor::Magenta,
    anstyle::AnsiColor::Yellow,
    anstyle::AnsiColor::Blue,
    anstyle::AnsiColor::Green,
    anstyle::AnsiColor::BrightRed,
];
/// What each job's buffer holds of output not yet passed on: a task that writes faster than
/// its lines can be written out loses its oldest beyond this, and agg says how many.
const BACKLOG: OutputLimits = OutputLimits {
    max_bytes: 32 * 1024 * 1024,
    max_lines: 500_000,
    max_line_bytes: 64 * 1024,
};
/// How long each job gets between SIGTERM and SIGKILL when agg is interrupted.
const GRACE: Duration = Duration::from_secs(5);

/// Runs every invocation at once; see the module documentation.
pub(super) async fn run(
    invs: Vec<Invocation>,
    on_finish: OnFinish,
    share: &crate::runs::Share,
) -> Result<ExitCode, Error> {
    let mut sigint = signal(SignalKind::interrupt()).map_err(Error::Signals)?;
    let mut sigterm = signal(SignalKind::terminate()).map_err(Error::Signals)?;
    let mut sighup = signal(SignalKind::hangup()).map_err(Error::Signals)?;
    let engine = Engine::new(EngineConfig {
        max_running: invs.len().max(1),
        retain_finished: invs.len().max(1),
        output: BACKLOG,
        on_finish: Some(on_finish),
        ..EngineConfig::default()
    });
    let width = invs
        .iter()
        .map(|i| crate::terminal_text::line(&i.unique_name).chars().count())
        .max()
        .unwrap_or(0);
    let coloured = std::io::stdout().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let (ended_tx, mut ended_rx) = tokio::sync::mpsc::unbounded_channel::<(String, Ended)>();
    let mut first_failure: Option<u8> = None;
    for (i, inv) in invs.into_iter().enumerate() {
        let name = inv.unique_name.clone();
        let prefix = prefix(&name, width, coloured.then_some(COLOURS[i % COLOURS.len()]));
        let shared = share.begin(&name, &inv.user_args);
        let started = engine
            .start(inv, StdioMode::Capture, Duplicates::Allow)
            .map_err(Error::Refused)?;
        let job = started.job;
        if job.state() == JobState::FailedToStart {
            let reason = job.snapshot().error.unwrap_or_default();
            let _ = writeln!(
                std::io::stderr().lock(),
                "{prefix}agg: cannot start it: {}",
                crate::terminal_text::line(&reason)
            );
            let ended = Ended::of(&job);
            super::status::print(&name, &ended);
            first_failure.get_or_insert(ended.code);
            continue;
        }
        // Each task's output is shared from what the engine captured.
        if let Some(mut shared) = shared {
            shared.started(&job);
            tokio::spawn(shared.copy_captured(Arc::clone(&job)));
        }
        let tx = ended_tx.clone();
        tokio::spawn(async move {
            follow(&job, &prefix).await;
            let _ = tx.send((name, Ended::of(&job)));
        });
    }
    drop(ended_tx);
    let mut received = None;
    loop {
        tokio::select! {
            ended = ended_rx.recv() => {
                let Some((name, ended)) = ended else { break };
                super::status::print(&name, &ended);
                if ended.code != 0 {
                    first_failure.get_or_insert(ended.code);
                }
            }
            _ = sigint.recv() => received = Some(nix::sys::signal::Signal::SIGINT),
            _ = sigterm.recv() => received = Some(nix::sys::signal::Signal::SIGTERM),
            _ = sighup.recv() => received = Some(nix::sys::signal::Signal::SIGHUP),
        }
        if received.is_some() {
            engine.shutdown(GRACE).await;
            // The followers print what the jobs wrote until they were stopped.
            while let Some((name, ended)) = ended_rx.recv().await {
                super::status::print(&name, &ended);
            }
            break;
        }
    }
    let code = match received {
        Some(sig) => u8::try_from(128 + sig as i32).unwrap_or(1),
        None => first_failure.unwrap_or(0),
    };
    Ok(ExitCode::from(code))
}

/// `name | `, padded to `width`, in `colour` when given.
fn prefix(name: &str, width: usize, colour: Option<anstyle::AnsiColor>) -> String {
    let shown = crate::terminal_text::line(name);
    let pad = " ".repeat(width.saturating_sub(shown.chars().count()));
    match colour {
        Some(c) => {
            let style = c.on_default();
            format!("{style}{shown}{pad} |{style:#} ")
        }
        None => format!("{shown}{pad} | "),
    }
}

/// Copies the job's output lines, each after `prefix`, until the job has ended and its last
/// line is out (a last line without a newline included). Lines the job's buffer let go
/// before they could be written (output faster than the terminal or pipe takes it, beyond
/// the engine's caps) are counted in a line of agg's own.
async fn follow(job: &Arc<Job>, prefix: &str) {
    crate::engine::until::follow(job, |dropped, lines| write_page(prefix, dropped, lines)).await;
}

/// Writes `lines` after `prefix`, stdout's to stdout and stderr's to stderr, each run of
/// one stream in one write; the task's own text as it wrote it, as a foreground run shows it.
fn write_page(prefix: &str, dropped: u64, lines: &[&Line]) {
    if dropped > 0 {
        let _ = writeln!(
            std::io::stderr().lock(),
            "{prefix}agg: {dropped} lines not shown (written faster than they could be passed on)"
        );
    }
    let mut run = String::new();
    let mut stream = Stream::Stdout;
    for line in lines {
        if line.stream != stream && !run.is_empty() {
            flush(stream, &mut run);
        }
        stream = line.stream;
        run.push_str(prefix);
        run.push_str(&line.text);
        run.push('\n');
    }
    flush(stream, &mut run);
}

fn flush(stream: Stream, text: &mut String) {
    if text.is_empty() {
        return;
    }
    let _ = match stream {
        Stream::Stderr => std::io::stderr().lock().write_all(text.as_bytes()),
        Stream::Stdout => {
            let mut out = std::io::stdout().lock();
            out.write_all(text.as_bytes()).and_then(|()| out.flush())
        }
    };
    text.clear();
}
