//! `agg mcp`: the repository's tasks served over MCP on stdio.
//!
//! stdout carries protocol messages only; logs go to stderr through tracing. The server
//! answers both lifecycles rmcp supports (classic `initialize` and 2026-07-28
//! per-request sessions). When the client closes stdin, or agg gets SIGTERM or SIGINT,
//! every job's process group is stopped before agg exits.

mod affected;
mod ask;
mod catalog;
mod envelope;
mod hosts;
mod jobs;
mod mirrors;
mod outbox;
mod per_task_tools;
mod person_runs;
mod readiness;
mod regions;
mod render;
mod resources;
mod results_text;
mod sandbox;
mod sandboxed;
mod schema;
mod server;
mod start;
mod state;
mod stream;
mod table_tools;
mod tasks_extension;
mod transport;
mod types;

use std::path::PathBuf;
use std::time::Duration;

use rmcp::ServiceExt;
use tokio::signal::unix::{SignalKind, signal};

pub use catalog::TAIL_LINES;
pub use hosts::{Host, NoSuchScope, Scope, Via, default_scope, host_config};
pub use per_task_tools::{BadGlob, DEFAULT_CAP, TaskTools};
pub use server::Server;
pub use state::Settings;

use crate::engine::{Engine, EngineConfig};
use crate::watched_table::WatchedTable;

/// Options of `agg mcp`.
#[derive(Debug, Clone)]
pub struct Options {
    /// The repository root.
    pub root: PathBuf,
    /// Default first-window wait of `task_start`.
    pub wait_ms: u64,
    /// Default lines of output in results.
    pub tail_lines: usize,
    /// Running jobs allowed at once.
    pub max_runs: usize,
    /// Per-task tools, when asked for.
    pub task_tools: Option<TaskTools>,
}

/// Serves MCP on stdin/stdout until the client goes away or agg is told to stop.
pub async fn serve(opts: Options) -> std::io::Result<()> {
    let root = std::fs::canonicalize(&opts.root)?;
    let (changed_tx, mut changed_rx) = tokio::sync::mpsc::unbounded_channel::<()>();
    // `initialize` and `tools/list` are answered at once; the scan runs meanwhile, and every
    // call that needs the table waits for it.
    let live = WatchedTable::start_in_background(
        &root,
        Box::new(move |_, _| {
            let _ = changed_tx.send(());
        }),
    );
    if opts.task_tools.is_some() {
        // Per-task tools are the table: their list (and the instructions that say what the
        // cap left out) waits for the first scan.
        live.built().await;
    }
    tracing::info!(root = %root.display(), "serving while the first scan runs");
    let support = crate::sandbox::support();
    if support.available() {
        tracing::info!(target: "agg::sandbox", "{}", support.line());
    } else {
        tracing::warn!(target: "agg::sandbox", "{}", support.line());
    }
    // Every finished job goes into the repository's run history, under its task's file and
    // source name as the table says them when it ends.
    let locate = {
        let live = live.clone();
        move |name: &str| {
            live.table()
                .get(name)
                .map(|t| (t.file_path.clone(), t.source_name.clone()))
        }
    };
    let engine = Engine::new(EngineConfig {
        max_running: opts.max_runs,
        on_finish: Some(crate::history::recorder(
            root.clone(),
            crate::history::StartedBy::Mcp,
            locate,
        )),
        ..EngineConfig::default()
    });
    // The user's view of these jobs (`agg ps`/`logs`/`stop`); agg serves MCP without it.
    let control = crate::control::server::start(engine.clone(), live.clone(), &root)
        .inspect_err(|err| tracing::warn!("no control socket for agg ps: {err}"))
        .ok();
    let server = Server::new(
        root,
        live,
        engine.clone(),
        Settings {
            wait_ms: opts.wait_ms,
            tail_lines: opts.tail_lines,
            allowlist: crate::allowlist::default_path(),
            task_tools: opts.task_tools.clone(),
        },
    );
    {
        let server = server.clone();
        tokio::spawn(async move {
            while changed_rx.recv().await.is_some() {
                server.table_changed();
            }
        });
    }
    let mut sigterm = signal(SignalKind::terminate())?;
    let mut sigint = signal(SignalKind::interrupt())?;
    let front = transport::stdio();
    let mut closed = front.closed;
    let serving = {
        let server = server.clone();
        async move {
            match server.clone().serve((front.read, front.write)).await {
                Ok(running) => {
                    server.set_peer(running.peer().clone());
                    let reason = running.waiting().await;
                    tracing::info!(?reason, "session over");
                }
                Err(err) => tracing::warn!("session ended before it began: {err}"),
            }
        }
    };
    let mut serving = std::pin::pin!(serving);
    let mut served = false;
    let grace = tokio::select! {
        () = &mut serving => { served = true; SIGNAL_GRACE }
        _ = &mut closed => { tracing::info!("client closed stdin"); CLOSE_GRACE }
        _ = sigterm.recv() => { tracing::info!("SIGTERM"); SIGNAL_GRACE }
        _ = sigint.recv() => { tracing::info!("SIGINT"); SIGNAL_GRACE }
    };
    // Jobs first: a waited `task_start` then answers with its stopped job.
    engine.shutdown(grace).await;
    if !served {
        // rmcp waits up to 5 s for in-flight requests (an open `subscriptions/listen`
        // never ends by itself); give them a moment, not that long.
        let _ = tokio::time::timeout(IN_FLIGHT, &mut serving).await;
    }
    let _ = tokio::time::timeout(IN_FLIGHT, front.writer).await;
    drop(control);
    Ok(())
}

/// SIGTERM-to-SIGKILL grace for jobs when agg itself is told to stop.
const SIGNAL_GRACE: Duration = Duration::from_secs(2);
/// The same when the client closed stdin: agg exits within a second of that.
const CLOSE_GRACE: Duration = Duration::from_millis(400);
/// How long requests still in flight get to answer once agg stops.
const IN_FLIGHT: Duration = Duration::from_millis(200);
