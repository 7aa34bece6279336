//! Live output as MCP notifications: batched `notifications/message` lines (stdout at
//! level info, stderr at warning, logger = the task's unique name) for the job's whole
//! life, and `notifications/progress` while a `task_start` call is waiting.
//!
//! A chatty task cannot flood the client: lines are sent at most every 250 ms, at most 40
//! lines a batch; anything beyond is summarised as a count (the full output stays
//! readable through `task_output`).
#![allow(deprecated)] // rmcp marks the MCP logging API deprecated (SEP-2577); we still serve it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::model::{
    LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken,
};
use rmcp::{Peer, RoleServer};

use super::state::State;
use crate::engine::{Job, ReadRequest, Stream};

const BATCH_EVERY: Duration = Duration::from_millis(250);
const BATCH_LINES: usize = 40;

/// The log levels that apply to one request's notifications.
#[derive(Debug, Clone, Copy)]
pub struct Levels {
    /// The request's own `_meta` log level, if it gave one.
    pub request: Option<LoggingLevel>,
    /// A 2026-07-28 request: log messages only when it opted in with
    /// `io.modelcontextprotocol/logLevel` (the specification says MUST NOT otherwise).
    pub opt_in_only: bool,
}

fn rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

/// Whether a message at `level` may be sent for a request with `levels`.
pub fn wanted(state: &State, levels: Levels, level: LoggingLevel) -> bool {
    if levels.opt_in_only {
        return levels.request.is_some_and(|min| rank(level) >= rank(min));
    }
    let session = *state.level();
    levels
        .request
        .or(session)
        .is_none_or(|min| rank(level) >= rank(min))
}

/// Streams the job's output lines to the client until the job ends. Stops early once
/// `settled` is set: the caller's result already holds the finished job's output.
pub fn follow(
    state: Arc<State>,
    job: Arc<Job>,
    peer: Peer<RoleServer>,
    levels: Levels,
    settled: Arc<AtomicBool>,
) {
    let mut changes = job.subscribe();
    tokio::spawn(async move {
        let mut cursor = 1u64;
        // A task that ends within the first window is answered in full by the result.
        tokio::time::sleep(BATCH_EVERY).await;
        loop {
            if settled.load(Ordering::Acquire) {
                return;
            }
            let running = job.is_running();
            if wanted(&state, levels, LoggingLevel::Warning) {
                // Only the newest lines are ever sent: read a bounded tail, never everything
                // since the cursor (a chatty job can have 100,000 lines waiting).
                let page = job.read(&ReadRequest {
                    max_lines: Some(BATCH_LINES + 2),
                    ..ReadRequest::default()
                });
                let complete: Vec<_> = page
                    .lines
                    .iter()
                    .filter(|l| !l.partial && l.no >= cursor)
                    .collect();
                if !complete.is_empty() {
                    let first_new = complete.first().map_or(cursor, |l| l.no);
                    let unseen = usize::try_from(first_new - cursor).unwrap_or(usize::MAX);
                    let extra = complete.len().saturating_sub(BATCH_LINES);
                    let skipped = unseen.saturating_add(extra);
                    let shown = &complete[extra..];
                    let mut batches: Vec<(Stream, Vec<String>)> = Vec::new();
                    for line in shown {
                        match batches.last_mut() {
                            Some((s, lines)) if *s == line.stream => lines.push(line.text.clone()),
                            _ => batches.push((line.stream, vec![line.text.clone()])),
                        }
                    }
                    if skipped > 0 {
                        let note = format!(
                            "[{} lines not streamed; task_output {{\"run_id\": \"{}\", \"offset\": {}}} has them]",
                            skipped, job.run_id, cursor
                        );
                        batches.insert(0, (Stream::Stdout, vec![note]));
                    }
                    for (stream, lines) in batches {
                        let level = match stream {
                            Stream::Stdout => LoggingLevel::Info,
                            Stream::Stderr => LoggingLevel::Warning,
                        };
                        if !wanted(&state, levels, level) {
                            continue;
                        }
                        let text: Vec<String> = lines
                            .iter()
                            .map(|l| anstream::adapter::strip_str(l).to_string())
                            .collect();
                        let param = LoggingMessageNotificationParam::new(
                            level,
                            serde_json::Value::String(text.join("\n")),
                        )
                        .with_logger(job.unique_name.clone());
                        if peer.notify_logging_message(param).await.is_err() {
                            return;
                        }
                    }
                    cursor = complete.last().map_or(cursor, |l| l.no + 1);
                }
            } else {
                // Nobody wants output at these levels now; check again later.
            }
            if !running {
                return;
            }
            if changes.changed().await.is_err() {
                return;
            }
            tokio::time::sleep(BATCH_EVERY).await;
        }
    });
}

/// Sends progress notifications (a growing line count, the latest line as message) until
/// the job ends. Never returns while the job runs; with no token, waits for the job.
pub async fn progress(peer: Peer<RoleServer>, token: Option<ProgressToken>, job: Arc<Job>) {
    let Some(token) = token else {
        job.wait().await;
        std::future::pending::<()>().await;
        return;
    };
    let mut changes = job.subscribe();
    let mut sent = 0u64;
    loop {
        let page = job.read(&ReadRequest {
            max_lines: Some(1),
            ..ReadRequest::default()
        });
        if page.total_lines > sent {
            sent = page.total_lines;
            let message = page
                .lines
                .last()
                .map(|l| anstream::adapter::strip_str(&l.text).to_string());
            #[allow(clippy::cast_precision_loss)]
            let mut param = ProgressNotificationParam::new(token.clone(), sent as f64);
            if let Some(message) = message {
                param = param.with_message(message);
            }
            if peer.notify_progress(param).await.is_err() {
                break;
            }
        }
        if !job.is_running() || changes.changed().await.is_err() {
            break;
        }
        tokio::time::sleep(BATCH_EVERY).await;
    }
    std::future::pending::<()>().await;
}

/// After a cancelled `task_start`, the client gets no response; tell it how the job ended
/// and what it printed last, as a log message.
pub async fn final_words(job: &Job, peer: &Peer<RoleServer>) {
    let snap = job.snapshot();
    let tail = job.read(&ReadRequest {
        max_lines: Some(20),
        max_bytes: Some(4096),
        ..ReadRequest::default()
    });
    let lines: Vec<String> = tail
        .lines
        .iter()
        .map(|l| anstream::adapter::strip_str(&l.text).to_string())
        .collect();
    let data = serde_json::json!({
        "cancelled": true,
        "run_id": snap.run_id,
        "state": snap.state.as_str(),
        "signal": snap.signal,
        "output_tail": lines.join("\n"),
    });
    let param = LoggingMessageNotificationParam::new(LoggingLevel::Warning, data)
        .with_logger(job.unique_name.clone());
    let _ = peer.notify_logging_message(param).await;
}
