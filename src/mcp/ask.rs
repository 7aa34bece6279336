//! Asking the human through the client (MCP elicitation) before a task runs that their
//! allowlist does not allow.
//!
//! The form shows the task's unique name, runner, exact command, directory and `file:line`,
//! and offers: run it once (nothing is written), always allow this task, always allow every
//! task of its file, or deny this task; "always" and "deny" are written exactly as
//! `agg allow` / `agg deny` would write them. A deny rule is never asked about.
//!
//! Classic sessions get an `elicitation/create` request while the call waits. 2026-07-28
//! sessions get the protocol's multi-round-trip answer instead: the call returns
//! `input_required` with the form, and the client calls again with the user's answer and
//! the opaque `requestState`, which agg keeps server side (the client's copy is only a
//! handle, never trusted). Concurrent asks for the same task are asked once: the others
//! wait for that answer.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use rmcp::model::{
    ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema,
    InputRequest, InputRequests, InputRequiredResult, InputResponses,
};
use rmcp::{Peer, RoleServer};
use serde_json::json;

use crate::table::Task;

/// The key of agg's question in `inputRequests` / `inputResponses`.
pub const PERMISSION_KEY: &str = "agg/permission";
/// How long a 2026-07-28 question stays answerable.
const STATE_TTL: Duration = Duration::from_secs(15 * 60);
/// How long a classic client may take to answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// What the user chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    /// Run it this once; write nothing.
    Once,
    /// Allow this task from now on (a pinned task rule).
    AlwaysTask,
    /// Allow every task of its file from now on.
    AlwaysFile,
    /// Deny this task from now on.
    Deny,
}

impl Choice {
    const ALL: [(Choice, &'static str); 4] = [
        (Choice::Once, "once"),
        (Choice::AlwaysTask, "always-task"),
        (Choice::AlwaysFile, "always-file"),
        (Choice::Deny, "deny"),
    ];

    fn from_value(v: &str) -> Option<Choice> {
        Choice::ALL.iter().find(|(_, s)| *s == v).map(|(c, _)| *c)
    }
}

/// How asking went.
#[derive(Debug, Clone)]
pub enum Asked {
    /// The user chose.
    Answer(Choice),
    /// The user declined or cancelled (or the client failed to ask).
    Declined,
    /// A 2026-07-28 session: return this, the client asks and calls again.
    NeedInput(InputRequiredResult),
    /// The client cannot ask.
    Unsupported,
}

/// The questions of one server: classic asks in flight and 2026-07-28 states.
#[derive(Debug, Default)]
pub struct Asker {
    in_flight: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Option<Asked>>>>>,
    states: Mutex<HashMap<String, Pending>>,
}

#[derive(Debug, Clone)]
struct Pending {
    key: String,
    issued: Instant,
}

/// What a call carried for a 2026-07-28 retry.
#[derive(Debug, Clone, Default)]
pub struct Retry {
    /// The client's answers.
    pub responses: Option<InputResponses>,
    /// The state agg handed out.
    pub state: Option<String>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What identifies a question: the task and what exactly would run, so an edit between
/// the question and the answer asks again.
fn key(task: &Task) -> String {
    format!(
        "{}\u{0}{}\u{0}{}\u{0}{}",
        task.file_path, task.source_name, task.command, task.dir
    )
}

/// The form's message.
pub fn message(task: &Task, reason: &str) -> String {
    let at = task.line.map_or_else(
        || task.file_path.clone(),
        |l| format!("{}:{l}", task.file_path),
    );
    let mut text = format!(
        "An agent wants to run `{}` ({}), which {reason}.\n\n  command:   {}\n  directory: {}\n  defined:   {at}",
        task.unique_name, task.runner, task.command, task.dir
    );
    if let Some(script) = task.script.as_deref().filter(|s| !s.trim().is_empty()) {
        let lines: Vec<&str> = script.lines().take(12).collect();
        text.push_str("\n  runs:\n");
        for line in &lines {
            text.push_str("    ");
            text.push_str(line);
            text.push('\n');
        }
        let more = script.lines().count().saturating_sub(lines.len());
        if more > 0 {
            let _ = writeln!(text, "    … {more} more lines");
        }
    }
    text
}

fn form(task: &Task, reason: &str) -> Option<ElicitRequestParams> {
    let schema = json!({
        "type": "object",
        "properties": {
            "decision": {
                "type": "string",
                "title": "Allow this task?",
                "oneOf": [
                    {"const": "once", "title": "Run it once"},
                    {"const": "always-task", "title": format!("Always allow `{}`", task.unique_name)},
                    {"const": "always-file", "title": format!("Always allow every task in {}", task.file_path)},
                    {"const": "deny", "title": format!("Deny `{}`", task.unique_name)},
                ],
            },
        },
        "required": ["decision"],
    });
    let schema = ElicitationSchema::from_json_schema(schema.as_object()?.clone()).ok()?;
    Some(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: message(task, reason),
        requested_schema: schema,
    })
}

fn read(result: &ElicitResult) -> Asked {
    match result.action {
        ElicitationAction::Accept => result
            .content
            .as_ref()
            .and_then(|c| c.get("decision"))
            .and_then(serde_json::Value::as_str)
            .and_then(Choice::from_value)
            .map_or(Asked::Declined, Asked::Answer),
        _ => Asked::Declined,
    }
}

impl Asker {
    /// Asks a classic session's user about `task` (once for concurrent calls).
    pub async fn classic(&self, peer: &Peer<RoleServer>, task: &Task, reason: &str) -> Asked {
        if peer.supported_elicitation_modes().is_empty() {
            return Asked::Unsupported;
        }
        let Some(params) = form(task, reason) else {
            return Asked::Unsupported;
        };
        let key = key(task);
        let cell = Arc::clone(lock(&self.in_flight).entry(key.clone()).or_default());
        let mut answer = cell.lock().await;
        if let Some(known) = answer.clone() {
            return known;
        }
        let asked =
            match tokio::time::timeout(ANSWER_TIMEOUT, peer.create_elicitation(params)).await {
                Ok(Ok(result)) => read(&result),
                Ok(Err(err)) => {
                    tracing::warn!("asking the user failed: {err}");
                    Asked::Declined
                }
                Err(_) => Asked::Declined,
            };
        *answer = Some(asked.clone());
        drop(answer);
        let mut in_flight = lock(&self.in_flight);
        if in_flight.get(&key).is_some_and(|c| Arc::ptr_eq(c, &cell)) {
            in_flight.remove(&key);
        }
        asked
    }

    /// A 2026-07-28 session: reads the answer of a retry, or hands out the question.
    pub fn modern(&self, supports: bool, task: &Task, reason: &str, retry: &Retry) -> Asked {
        let key = key(task);
        if let (Some(state), Some(responses)) = (&retry.state, &retry.responses) {
            let pending = lock(&self.states).remove(state);
            let valid = pending.is_some_and(|p| p.key == key && p.issued.elapsed() < STATE_TTL);
            if valid {
                return responses
                    .get(PERMISSION_KEY)
                    .and_then(|v| serde_json::from_value::<ElicitResult>(v.clone()).ok())
                    .map_or(Asked::Declined, |r| read(&r));
            }
            // A stale or foreign state: ask again below, about what runs now.
        }
        if !supports {
            return Asked::Unsupported;
        }
        let Some(params) = form(task, reason) else {
            return Asked::Unsupported;
        };
        let state = new_state();
        {
            let mut states = lock(&self.states);
            states.retain(|_, p| p.issued.elapsed() < STATE_TTL);
            states.insert(
                state.clone(),
                Pending {
                    key,
                    issued: Instant::now(),
                },
            );
        }
        let mut requests = InputRequests::new();
        requests.insert(
            PERMISSION_KEY.to_owned(),
            InputRequest::Elicitation(ElicitRequest::new(params)),
        );
        Asked::NeedInput(InputRequiredResult::new(Some(requests), Some(state)))
    }
}

/// An unguessable handle for a pending question.
fn new_state() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut out = String::new();
    for i in 0..2u64 {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(i);
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        let _ = write!(out, "{:016x}", h.finish());
    }
    out
}
