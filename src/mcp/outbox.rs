//! The bounded way out to the client: every line `agg mcp` writes to stdout waits here,
//! and the stdin reader of [`super::transport`] asks here before it hands rmcp a request.
//!
//! rmcp reads requests as fast as they come, spawns a handler for each and a send task for
//! each answer, so a client that writes and never reads would make it hold every answer.
//! The outbox puts the limits where the requests come in:
//!
//! - at most [`MAX_IN_FLIGHT`] requests are handled at once, counted from the moment the
//!   reader forwards one to the moment its answer is taken to be written to stdout (or
//!   the client cancels it); while that many are out, or [`MAX_QUEUED_BYTES`] wait to be
//!   written, the reader stops reading stdin, and the pipe pushes back on the client;
//! - the front's own error replies wait for one of [`MAX_OWN_REPLIES`] places the same way;
//! - notifications (progress, log lines, resource updates) never stop anything: a newer
//!   progress or `resources/updated` for the same token or URI replaces the queued one,
//!   and beyond [`MAX_NOTES`] or [`MAX_NOTE_BYTES`] queued they are dropped (a job's whole
//!   output stays readable through `task_output`).

use crate::lock::MutexExt;
use std::collections::{HashSet, VecDeque};
use std::sync::{Mutex, MutexGuard};

use serde::Deserialize;
use serde_json::Value;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::Notify;

/// Requests handled at once; the reader waits for one to be answered beyond that.
pub const MAX_IN_FLIGHT: usize = 64;
/// Bytes waiting for stdout beyond which no new request is read.
pub const MAX_QUEUED_BYTES: usize = 16 * 1024 * 1024;
/// The front's own replies (to malformed lines) waiting for stdout.
pub const MAX_OWN_REPLIES: usize = 64;
/// Notifications waiting for stdout; more are dropped.
pub const MAX_NOTES: usize = 256;
/// Bytes of notifications waiting for stdout; more are dropped.
pub const MAX_NOTE_BYTES: usize = 1024 * 1024;

/// What a line on its way out is, which decides what writing it releases.
#[derive(Debug)]
enum Kind {
    /// rmcp's answer to the client's request with this id: frees its place.
    Answer(String),
    /// A reply of the front itself.
    Own,
    /// A request of the server (a question for the user): always delivered.
    Request,
    /// A notification, with the key under which a newer one replaces it.
    Note(Option<String>),
}

#[derive(Debug)]
struct Out {
    line: Vec<u8>,
    kind: Kind,
}

#[derive(Debug, Default)]
struct Queue {
    lines: VecDeque<Out>,
    bytes: usize,
    notes: usize,
    note_bytes: usize,
    own: usize,
    /// Ids (as JSON text) of the requests handed to rmcp and not answered yet.
    in_flight: HashSet<String>,
    dropped: u64,
    reader_done: bool,
    rmcp_done: bool,
    writer_gone: bool,
}

impl Queue {
    fn push(&mut self, out: Out) {
        self.bytes += out.line.len();
        match out.kind {
            Kind::Own => self.own += 1,
            Kind::Note(_) => {
                self.notes += 1;
                self.note_bytes += out.line.len();
            }
            Kind::Answer(_) | Kind::Request => {}
        }
        self.lines.push_back(out);
    }

    /// Takes the next line to write. An answer's place is freed now, before the client can
    /// read it, so a client that reuses the id after reading the answer is never refused.
    fn pop(&mut self) -> Option<Out> {
        let out = self.lines.pop_front()?;
        self.bytes -= out.line.len();
        match &out.kind {
            Kind::Note(_) => {
                self.notes -= 1;
                self.note_bytes -= out.line.len();
            }
            Kind::Answer(id) => {
                self.in_flight.remove(id);
            }
            Kind::Own => self.own -= 1,
            Kind::Request => {}
        }
        Some(out)
    }

    fn has_room(&self) -> bool {
        self.bytes < MAX_QUEUED_BYTES
    }
}

/// Whether a request may go to rmcp.
#[derive(Debug, PartialEq, Eq)]
pub enum Admission {
    /// Yes: its place is taken until its answer is written.
    Admitted,
    /// A request with the same id is still in flight (ids must be unique).
    Duplicate,
    /// stdout is gone: stop reading.
    Closed,
}

/// The queue between rmcp (and the front's replies) and stdout.
#[derive(Debug, Default)]
pub struct Outbox {
    queue: Mutex<Queue>,
    /// Wakes the writer: a line was queued, or a producer ended.
    work: Notify,
    /// Wakes the reader: a place or room was freed, or the writer is gone.
    room: Notify,
}

impl Outbox {
    fn queue(&self) -> MutexGuard<'_, Queue> {
        // Every critical section is a plain queue operation: a panicked holder left it whole.
        self.queue.locked()
    }

    /// Waits for a place for the request `id` (its JSON text); only the stdin reader calls
    /// this, so while it waits nothing more is read.
    pub async fn admit(&self, id: &str) -> Admission {
        loop {
            {
                let mut q = self.queue();
                if q.writer_gone {
                    return Admission::Closed;
                }
                if q.in_flight.contains(id) {
                    return Admission::Duplicate;
                }
                if q.in_flight.len() < MAX_IN_FLIGHT && q.has_room() {
                    q.in_flight.insert(id.to_owned());
                    return Admission::Admitted;
                }
            }
            self.room.notified().await;
        }
    }

    /// The client cancelled the request `id`: rmcp sends no answer for it, so its place
    /// is free now.
    pub fn cancelled(&self, id: &str) {
        if self.queue().in_flight.remove(id) {
            self.room.notify_one();
        }
    }

    /// Queues a reply of the front itself, waiting for a place; `false` once stdout is gone.
    pub async fn reply(&self, line: Vec<u8>) -> bool {
        let mut line = Some(line);
        loop {
            {
                let mut q = self.queue();
                if q.writer_gone {
                    return false;
                }
                if q.own < MAX_OWN_REPLIES && q.has_room() {
                    q.push(Out {
                        line: line.take().unwrap_or_default(),
                        kind: Kind::Own,
                    });
                    drop(q);
                    self.work.notify_one();
                    return true;
                }
            }
            self.room.notified().await;
        }
    }

    /// Queues one line rmcp wrote. Never waits: answers and the server's requests are
    /// bounded by the places above; notifications are coalesced or dropped.
    pub fn rmcp_line(&self, line: Vec<u8>) {
        let kind = classify(&line);
        let mut q = self.queue();
        if q.writer_gone {
            return;
        }
        if let Kind::Note(key) = &kind {
            if let Some(key) = key {
                let queued = q
                    .lines
                    .iter()
                    .position(|o| matches!(&o.kind, Kind::Note(Some(k)) if k == key));
                if let Some(i) = queued {
                    let new = line.len();
                    let old = std::mem::replace(&mut q.lines[i].line, line).len();
                    q.bytes = q.bytes + new - old;
                    q.note_bytes = q.note_bytes + new - old;
                    return;
                }
            }
            if q.notes >= MAX_NOTES || q.note_bytes + line.len() > MAX_NOTE_BYTES {
                if q.dropped == 0 {
                    tracing::warn!("the client is not reading: notifications are being dropped");
                }
                q.dropped += 1;
                return;
            }
        }
        q.push(Out { line, kind });
        drop(q);
        self.work.notify_one();
    }

    /// The stdin reader ended.
    pub fn reader_done(&self) {
        self.queue().reader_done = true;
        self.work.notify_one();
    }

    /// rmcp closed its side.
    pub fn rmcp_done(&self) {
        self.queue().rmcp_done = true;
        self.work.notify_one();
    }

    /// Writes queued lines to `output` in order until both producers ended and the queue
    /// is empty, or `output` fails.
    pub async fn write_to<W: AsyncWrite + Unpin>(&self, mut output: W) {
        loop {
            let next = {
                let mut q = self.queue();
                let next = q.pop();
                if next.is_none() && q.reader_done && q.rmcp_done {
                    return;
                }
                if next.is_none() && q.dropped > 0 {
                    tracing::info!(
                        dropped = q.dropped,
                        "notifications dropped while the client was not reading"
                    );
                    q.dropped = 0;
                }
                next
            };
            let Some(out) = next else {
                self.work.notified().await;
                continue;
            };
            self.room.notify_one();
            if output.write_all(&out.line).await.is_err() || output.flush().await.is_err() {
                let mut q = self.queue();
                q.writer_gone = true;
                q.lines.clear();
                drop(q);
                self.room.notify_one();
                return;
            }
        }
    }
}

/// The parts of a line rmcp wrote that decide its [`Kind`].
#[derive(Deserialize)]
struct Head {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    params: Option<HeadParams>,
}

#[derive(Deserialize)]
struct HeadParams {
    #[serde(default, rename = "progressToken")]
    progress_token: Option<Value>,
    #[serde(default)]
    uri: Option<String>,
}

/// The JSON text of a request id, as the outbox keys it on both sides.
pub fn id_key(id: &Value) -> String {
    id.to_string()
}

fn classify(line: &[u8]) -> Kind {
    let Ok(head) = serde_json::from_slice::<Head>(line) else {
        // rmcp writes only JSON-RPC; if not, deliver rather than lose it.
        return Kind::Request;
    };
    match (head.id, head.method) {
        (Some(id), None) => Kind::Answer(id_key(&id)),
        // A request of the server; or something without id and method, delivered anyway.
        (Some(_), Some(_)) | (None, None) => Kind::Request,
        (None, Some(method)) => {
            let params = head.params;
            let key = match method.as_str() {
                "notifications/progress" => params
                    .and_then(|p| p.progress_token)
                    .map(|t| format!("progress {t}")),
                "notifications/resources/updated" => {
                    params.and_then(|p| p.uri).map(|u| format!("updated {u}"))
                }
                m if m.ends_with("/list_changed") => Some(method.clone()),
                _ => None,
            };
            Kind::Note(key)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(method: &str, params: &Value) -> Vec<u8> {
        let mut v = serde_json::to_vec(
            &serde_json::json!({"jsonrpc": "2.0", "method": method, "params": params}),
        )
        .expect("json");
        v.push(b'\n');
        v
    }

    #[test]
    fn a_newer_progress_replaces_the_queued_one_and_log_lines_stop_at_the_cap() {
        let outbox = Outbox::default();
        for n in 0..1000 {
            outbox.rmcp_line(note(
                "notifications/progress",
                &serde_json::json!({"progressToken": "t", "progress": n}),
            ));
        }
        assert_eq!(outbox.queue().lines.len(), 1);
        let queued = String::from_utf8(outbox.queue().lines[0].line.clone()).expect("utf8");
        assert!(queued.contains("999"), "{queued}");
        for _ in 0..10_000 {
            outbox.rmcp_line(note(
                "notifications/message",
                &serde_json::json!({"level": "info", "data": "x"}),
            ));
        }
        let q = outbox.queue();
        assert_eq!(q.notes, MAX_NOTES);
        assert_eq!(q.dropped, 10_000 + 1 - MAX_NOTES as u64);
    }

    #[tokio::test]
    async fn a_place_is_freed_when_the_answer_is_written_or_the_request_cancelled() {
        let outbox = std::sync::Arc::new(Outbox::default());
        for i in 0..MAX_IN_FLIGHT {
            assert_eq!(outbox.admit(&i.to_string()).await, Admission::Admitted);
        }
        assert_eq!(outbox.admit("0").await, Admission::Duplicate);
        let waiting = {
            let outbox = std::sync::Arc::clone(&outbox);
            tokio::spawn(async move { outbox.admit("next").await })
        };
        tokio::task::yield_now().await;
        assert!(!waiting.is_finished());
        outbox.cancelled("3");
        assert_eq!(waiting.await.expect("join"), Admission::Admitted);
        outbox.rmcp_line(b"{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}\n".to_vec());
        outbox.reader_done();
        outbox.rmcp_done();
        let mut out = Vec::new();
        outbox.write_to(&mut out).await;
        assert!(!outbox.queue().in_flight.contains("5"));
        assert_eq!(outbox.queue().in_flight.len(), MAX_IN_FLIGHT - 1);
    }
}
