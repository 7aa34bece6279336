//! Asking the human through the client (MCP elicitation) before a task runs that their
//! allowlist does not allow, with arguments or environment the allow does not cover, or that
//! its runner would confirm first (just `[confirm]`, go-task `prompt`).
//!
//! The form shows exactly what would run ([`Shown`], as admission decided it): the exact
//! argv, the directory,
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
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{
    ElicitRequest, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema,
    InputRequest, InputRequests, InputRequiredResult, InputResponses,
};
use rmcp::{Peer, RoleServer};
use serde_json::json;

use crate::admission::{self, Permission, Shown};
use crate::lock::MutexExt;

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

/// What identifies a question: the task, its fingerprint, the exact argv and environment,
/// and what is asked, so an edit or another argument asks again.
fn key(shown: &Shown, questions: &[Question]) -> String {
    let keys: Vec<&str> = questions.iter().map(|q| q.key).collect();
    let env: Vec<String> = shown.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
    [
        shown.file.as_str(),
        &shown.unique_name,
        &shown.fingerprint,
        &shown.runs.dir,
        &shown.runs.argv.join("\u{0}"),
        &env.join("\u{0}"),
        &keys.join(","),
        &shown.sandbox,
    ]
    .join("\u{1}")
}

/// A name, a path or an argument as the form shows it: control characters, bidi overrides
/// and other invisible characters as escapes (so a recipe cannot hide what follows a CR),
/// cut to a bound.
fn shown_word(text: &str) -> String {
    admission::quoted(text)
}

/// What the form says about the start.
fn describe(shown: &Shown) -> String {
    let mut text = format!(
        "  runs:      {}\n  directory: {}\n  defined:   {}",
        crate::terminal_text::cut_line(
            &agg_runners::quote_command(&shown.runs.argv),
            admission::ARGV_CAP
        ),
        shown_word(&shown.runs.dir),
        shown_word(&shown.defined)
    );
    for u in &shown.unvetted {
        let _ = write!(
            text,
            "\n  argument added by the agent: {} ({})",
            crate::terminal_text::cut_line(
                &agg_runners::quote_command(std::slice::from_ref(&u.arg)),
                admission::ARGV_CAP
            ),
            u.why
        );
    }
    for (k, v) in &shown.env {
        let _ = write!(
            text,
            "\n  environment added by the agent: {}={}",
            shown_word(k),
            crate::terminal_text::cut_line(
                &agg_runners::quote_command(std::slice::from_ref(v)),
                admission::ARGV_CAP
            )
        );
    }
    for also in &shown.also {
        let _ = write!(text, "\n  also runs: {}", admission::shown_line(also));
    }
    let _ = write!(
        text,
        "\n  sandbox:   {}",
        admission::shown_line(&shown.sandbox)
    );
    if let Some(script) = shown.recipe.as_deref() {
        let lines: Vec<&str> = script.lines().take(admission::RECIPE_LINES).collect();
        text.push_str("\n  recipe:\n");
        for line in &lines {
            text.push_str("    ");
            text.push_str(&admission::shown_line(line));
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

/// May the agent run what `shown` describes, for the reason `permission` gives?
pub fn permission(shown: &Shown, permission: &Permission) -> Option<Question> {
    let name = shown_word(&shown.unique_name);
    let message = format!(
        "An agent wants to run `{name}` ({}), which {}.\n\n{}",
        shown.runner,
        permission.reason,
        describe(shown)
    );
    let mut options = vec![json!({"const": "once", "title": "Run it once, exactly as shown"})];
    if !permission.task_allowed {
        options.push(json!({"const": "always-task", "title": format!("Always allow `{name}` (what the agent adds is still asked about)")}));
        options.push(json!({"const": "always-file", "title": format!("Always allow every task in {}", shown_word(&shown.file))}));
    }
    if permission.offer_any_args {
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
pub fn confirmation(shown: &Shown, texts: &[String]) -> Option<Question> {
    let message = format!(
        "{}\n\n(`{}` asks this before it runs; {})\n{}",
        admission::shown_text(&texts.join("\n")),
        shown_word(&shown.unique_name),
        shown.runner,
        describe(shown)
    );
    let schema = json!({
        "type": "object",
        "properties": {
            "confirm": {"type": "boolean", "title": admission::shown_line(&texts.first().cloned().unwrap_or_default()), "default": false},
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
        shown: &Shown,
        questions: Vec<Question>,
    ) -> Outcome {
        if peer.supported_elicitation_modes().is_empty() {
            return Outcome::Unsupported;
        }
        let key = key(shown, &questions);
        let cell = Arc::clone(self.in_flight.locked().entry(key.clone()).or_default());
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
        let mut in_flight = self.in_flight.locked();
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
        shown: &Shown,
        questions: Vec<Question>,
        retry: &Retry,
    ) -> Outcome {
        let key = key(shown, &questions);
        if let (Some(state), Some(responses)) = (&retry.state, &retry.responses) {
            let pending = self.states.locked().remove(state);
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
            let mut states = self.states.locked();
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
