//! `agg mcp`: the repository's tasks served over MCP on stdio.
//!
//! stdout carries protocol messages only; logs go to stderr through tracing. The server
//! answers both lifecycles rmcp supports (classic `initialize` and 2026-07-28
//! per-request sessions). When the client closes stdin, or agg gets SIGTERM or SIGINT,
//! every job's process group is stopped before agg exits.

mod clients;
mod render;
mod server;
mod stream;
mod task_tools;
mod types;

use std::path::PathBuf;
use std::time::Duration;

use rmcp::ServiceExt;
use tokio::signal::unix::{SignalKind, signal};

pub use clients::{Client, config_snippet};
pub use server::{Server, Settings, code, tools};
pub use task_tools::{DEFAULT_CAP, TaskTools, annotations, tool_names};

use crate::engine::{Engine, EngineConfig};
use crate::live::LiveTable;

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
    let live = {
        let root = root.clone();
        tokio::task::spawn_blocking(move || {
            LiveTable::start(
                &root,
                Box::new(move |_, _| {
                    let _ = changed_tx.send(());
                }),
            )
        })
        .await
        .map_err(std::io::Error::other)?
    };
    let table = live.table();
    tracing::info!(root = %root.display(), tasks = table.tasks.len(), watching = live.watching(), "serving");
    if let Some(tt) = &opts.task_tools {
        tt.select(&table).map_err(std::io::Error::other)?;
    }
    let engine = Engine::new(EngineConfig {
        max_running: opts.max_runs,
        ..EngineConfig::default()
    });
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
    let serving = async {
        match server.clone().serve(rmcp::transport::stdio()).await {
            Ok(running) => {
                server.set_peer(running.peer().clone());
                let reason = running.waiting().await;
                tracing::info!(?reason, "client gone");
            }
            Err(err) => tracing::warn!("session ended before it began: {err}"),
        }
    };
    tokio::select! {
        () = serving => {}
        _ = sigterm.recv() => tracing::info!("SIGTERM"),
        _ = sigint.recv() => tracing::info!("SIGINT"),
    }
    engine.shutdown(Duration::from_secs(2)).await;
    Ok(())
}
