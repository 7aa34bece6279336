//! Asking the human through the client (MCP elicitation) before a task runs that their
//! allowlist does not allow, with arguments or environment the allow does not cover, or that
//! its runner would confirm first (just `[confirm]`, go-task `prompt`).
//!
//! The form shows exactly what would run ([`Request`]): the exact argv, the directory,
//! `file:line`, each argument and variable the agent added and why it needs approval, the
//! deps and hooks that run with it, and the recipe, with control characters made visible.
//! It offers: run it once (nothing is written), always allow this task, always allow every
//! task of its file, always allow it with any arguments, or deny it; "always" and "deny" are
//! written exactly as `agg allow` / `agg deny` would write them. A deny rule is never asked
//! about.
//!
//! An answer is keyed by the task, the fingerprint of its files, the exact argv and the
//! environment, so it never covers anything the person did not see. Classic sessions get an
//! `elicitation/create` request while the call waits; concurrent calls asking exactly the
//! same wait for one question and share a lasting answer, while "run once" covers one start.
//! 2026-07-28 sessions get the protocol's multi-round-trip answer instead: the call returns
//! `input_required` with the form, and the client calls again with the user's answer and
//! the opaque `requestState`, which agg keeps server side (the client's copy is only a
//! handle, never trusted) and spends on first use.

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

use crate::invocation::policy::Unvetted;
use crate::table::Task;

/// The key of the permission question in `inputRequests` / `inputResponses`.
pub const PERMISSION_KEY: &str = "agg/permission";
/// The key of the runner's own confirmation question.
pub const CONFIRM_KEY: &str = "agg/confirm";
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
    /// Allow this task with any arguments from now on (`agg allow NAME --any-args`).
    AlwaysAnyArgs,
    /// Deny this task from now on.
    Deny,
}

impl Choice {
    const ALL: [(Choice, &'static str); 5] = [
        (Choice::Once, "once"),
        (Choice::AlwaysTask, "always-task"),
        (Choice::AlwaysFile, "always-file"),
        (Choice::AlwaysAnyArgs, "always-any-args"),
        (Choice::Deny, "deny"),
    ];

    fn from_value(v: &str) -> Option<Choice> {
        Choice::ALL.iter().find(|(_, s)| *s == v).map(|(c, _)| *c)
    }
}

/// One question for the user.
#[derive(Debug, Clone)]
pub struct Question {
    /// Its key in `inputRequests`.
    pub key: &'static str,
    params: ElicitRequestParams,
}

/// How asking went.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// The user's answers, by question key (a classic session stops at the first answer
    /// that is not an acceptance).
    Answers(HashMap<String, ElicitResult>),
    /// A 2026-07-28 session: return this, the client asks and calls again.
    NeedInput(InputRequiredResult),
    /// The client cannot ask.
    Unsupported,
}

/// The questions of one server: classic asks in flight and 2026-07-28 states.
#[derive(Debug, Default)]
pub struct Asker {
    in_flight: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Option<Outcome>>>>>,
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

/// Exactly what would run if the person says yes: what they are shown, and what their
/// answer is keyed by, so an answer never covers anything they did not see.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The task.
    pub task: &'a Task,
    /// The program and every argument, as executed.
    pub argv: Vec<String>,
    /// The absolute directory it runs in.
    pub dir: String,
    /// Environment variables the agent added.
    pub env: &'a [(String, String)],
    /// Arguments the agent added that the allow does not cover, each with the reason.
    pub unvetted: &'a [Unvetted],
    /// What else runs with it: deps and hooks, in words.
    pub also: Vec<String>,
    /// The fingerprint of the task and every file it reads, as read for this question.
    pub fingerprint: String,
    /// The sandbox it would run in, in words.
    pub sandbox: String,
}

impl Request<'_> {
    /// What identifies the question: the task, its fingerprint, the exact argv and
    /// environment, and what is asked, so an edit or another argument asks again.
    fn key(&self, questions: &[Question]) -> String {
        let keys: Vec<&str> = questions.iter().map(|q| q.key).collect();
        let env: Vec<String> = self.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        [
            self.task.file_path.as_str(),
            &self.task.source_name,
            &self.fingerprint,
            &self.dir,
            &self.argv.join("\u{0}"),
            &env.join("\u{0}"),
            &keys.join(","),
            &self.sandbox,
        ]
        .join("\u{1}")
    }
}

/// A line safe to show in a client's form: control characters, bidi overrides and other
/// invisible characters shown as escapes, so a recipe cannot hide what follows a CR.
fn shown(text: &str) -> String {
    crate::visible::line(text).into_owned()
}

/// What the form says about the request.
fn describe(request: &Request) -> String {
    let task = request.task;
    let at = task.line.map_or_else(
        || task.file_path.clone(),
        |l| format!("{}:{l}", task.file_path),
    );
    let mut text = format!(
        "  runs:      {}\n  directory: {}\n  defined:   {}",
        shown(&agg_runners::quote_command(&request.argv)),
        shown(&request.dir),
        shown(&at)
    );
    for u in request.unvetted {
        let _ = write!(
            text,
            "\n  argument added by the agent: {} ({})",
            shown(&agg_runners::quote_command(std::slice::from_ref(&u.arg))),
            u.why
        );
    }
    for (k, v) in request.env {
        let _ = write!(
            text,
            "\n  environment added by the agent: {}={}",
            shown(k),
            shown(&agg_runners::quote_command(std::slice::from_ref(v)))
        );
    }
    for also in &request.also {
        let _ = write!(text, "\n  also runs: {}", shown(also));
    }
    let _ = write!(text, "\n  sandbox:   {}", shown(&request.sandbox));
    if let Some(script) = task.script.as_deref().filter(|s| !s.trim().is_empty()) {
        let lines: Vec<&str> = script.lines().take(12).collect();
        text.push_str("\n  recipe:\n");
        for line in &lines {
            text.push_str("    ");
            text.push_str(&shown(line));
            text.push('\n');
        }
        let more = script.lines().count().saturating_sub(lines.len());
        if more > 0 {
            let _ = writeln!(text, "    … {more} more lines");
        }
    }
    text
}

fn question(key: &'static str, message: String, schema: &serde_json::Value) -> Option<Question> {
    let schema = ElicitationSchema::from_json_schema(schema.as_object()?.clone()).ok()?;
    Some(Question {
        key,
        params: ElicitRequestParams::FormElicitationParams {
            meta: None,
            message,
            requested_schema: schema,
        },
    })
}

/// May the agent run what `request` describes, which `reason` (e.g. "is not in your
/// allowlist")? `allowed` says whether the task itself is already allowed (only what the
/// agent added is asked about).
pub fn permission(request: &Request, reason: &str, allowed: bool) -> Option<Question> {
    let task = request.task;
    let message = format!(
        "An agent wants to run `{}` ({}), which {reason}.\n\n{}",
        shown(&task.unique_name),
        task.runner,
        describe(request)
    );
    let name = shown(&task.unique_name);
    let mut options = vec![json!({"const": "once", "title": "Run it once, exactly as shown"})];
    if !allowed {
        options.push(json!({"const": "always-task", "title": format!("Always allow `{name}` (what the agent adds is still asked about)")}));
        options.push(json!({"const": "always-file", "title": format!("Always allow every task in {}", shown(&task.file_path))}));
    }
    if !request.unvetted.is_empty() {
        options.push(json!({"const": "always-any-args", "title": format!("Always allow `{name}` with any arguments")}));
    }
    options.push(json!({"const": "deny", "title": format!("Deny `{name}`")}));
    let schema = json!({
        "type": "object",
        "properties": {
            "decision": {
                "type": "string",
                "title": "Allow this?",
                "oneOf": options,
            },
        },
        "required": ["decision"],
    });
    question(PERMISSION_KEY, message, &schema)
}

/// The runner's own confirmation (just `[confirm]`, go-task `prompt`), in its own words.
pub fn confirmation(request: &Request, texts: &[String]) -> Option<Question> {
    let task = request.task;
    let message = format!(
        "{}\n\n(`{}` asks this before it runs; {})\n{}",
        shown(&texts.join("\n")),
        shown(&task.unique_name),
        task.runner,
        describe(request)
    );
    let schema = json!({
        "type": "object",
        "properties": {
            "confirm": {"type": "boolean", "title": shown(&texts.first().cloned().unwrap_or_default()), "default": false},
        },
        "required": ["confirm"],
    });
    question(CONFIRM_KEY, message, &schema)
}

/// The permission answer: the choice, or `None` when the user declined or cancelled.
pub fn chosen(answers: &HashMap<String, ElicitResult>) -> Option<Choice> {
    let result = answers.get(PERMISSION_KEY)?;
    if result.action != ElicitationAction::Accept {
        return None;
    }
    result
        .content
        .as_ref()
        .and_then(|c| c.get("decision"))
        .and_then(serde_json::Value::as_str)
        .and_then(Choice::from_value)
}

/// Whether the user said yes to the runner's confirmation.
pub fn confirmed(answers: &HashMap<String, ElicitResult>) -> bool {
    answers.get(CONFIRM_KEY).is_some_and(|r| {
        r.action == ElicitationAction::Accept
            && r.content
                .as_ref()
                .and_then(|c| c.get("confirm"))
                .and_then(serde_json::Value::as_bool)
                == Some(true)
    })
}

impl Asker {
    /// Asks a classic session's user each question in turn (once for concurrent calls
    /// about the same task), stopping at the first answer that is not an acceptance.
    pub async fn classic(
        &self,
        peer: &Peer<RoleServer>,
        request: &Request<'_>,
        questions: Vec<Question>,
    ) -> Outcome {
        if peer.supported_elicitation_modes().is_empty() {
            return Outcome::Unsupported;
        }
        let key = request.key(&questions);
        let cell = Arc::clone(lock(&self.in_flight).entry(key.clone()).or_default());
        let mut answer = cell.lock().await;
        // A lasting answer (always, deny, declined) serves every call that waited for it;
        // "run once" and a runner's confirmation cover the one start they were given for.
        if let Some(known) = answer.clone().filter(lasting) {
            return known;
        }
        let mut answers = HashMap::new();
        for q in questions {
            let result =
                match tokio::time::timeout(ANSWER_TIMEOUT, peer.create_elicitation(q.params)).await
                {
                    Ok(Ok(result)) => result,
                    Ok(Err(err)) => {
                        tracing::warn!("asking the user failed: {err}");
                        ElicitResult::new(ElicitationAction::Cancel)
                    }
                    Err(_) => ElicitResult::new(ElicitationAction::Cancel),
                };
            let accepted = result.action == ElicitationAction::Accept;
            answers.insert(q.key.to_owned(), result);
            if !accepted {
                break;
            }
        }
        let outcome = Outcome::Answers(answers);
        *answer = Some(outcome.clone());
        drop(answer);
        let mut in_flight = lock(&self.in_flight);
        if in_flight.get(&key).is_some_and(|c| Arc::ptr_eq(c, &cell)) {
            in_flight.remove(&key);
        }
        outcome
    }

    /// A 2026-07-28 session: reads the answers of a retry, or hands out the questions (all
    /// in one round).
    pub fn modern(
        &self,
        supports: bool,
        request: &Request<'_>,
        questions: Vec<Question>,
        retry: &Retry,
    ) -> Outcome {
        let key = request.key(&questions);
        if let (Some(state), Some(responses)) = (&retry.state, &retry.responses) {
            let pending = lock(&self.states).remove(state);
            if pending.is_some_and(|p| p.key == key && p.issued.elapsed() < STATE_TTL) {
                let answers = questions
                    .iter()
                    .filter_map(|q| {
                        let v = responses.get(q.key)?;
                        let r = serde_json::from_value::<ElicitResult>(v.clone()).ok()?;
                        Some((q.key.to_owned(), r))
                    })
                    .collect();
                return Outcome::Answers(answers);
            }
            // A stale or foreign state: ask again below, about what runs now.
        }
        if !supports {
            return Outcome::Unsupported;
        }
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
        for q in questions {
            requests.insert(
                q.key.to_owned(),
                InputRequest::Elicitation(ElicitRequest::new(q.params)),
            );
        }
        Outcome::NeedInput(InputRequiredResult::new(Some(requests), Some(state)))
    }
}

/// Whether an answer may serve another call that asked the same: everything but "run
/// once" and a runner's confirmation, which cover one start each.
fn lasting(outcome: &Outcome) -> bool {
    let Outcome::Answers(answers) = outcome else {
        return false;
    };
    !answers.contains_key(CONFIRM_KEY) && chosen(answers) != Some(Choice::Once)
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
