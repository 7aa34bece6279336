//! Admission: whether an agent's start of a task runs, is asked about, or is refused.
//!
//! One pure function, [`admit`], from the facts a handler gathered — the task as the table
//! lists it and as its files define it now, the allowlist rules that name it, the arguments
//! and environment the agent sends, what would run, and whether the client can ask its user
//! — to [`Admission`]: run it (with the rule that decided), ask (with exactly what the
//! question shows and what the agent gets when the person says no), or refuse (with the
//! error). It reads nothing and writes nothing, so it is tested as a table of cases; the MCP
//! handlers (`task_start`, the per-task tools, MCP tasks) gather the facts, call it and act
//! on the answer.
//!
//! Every exemption comes from the rule that decided, with its pin checked against the same
//! view of the disk as the rest: an `--any-args` rule whose pin lapsed waives nothing.
//! Everything a repository or an agent wrote is escaped and cut to a bound in the texts it
//! builds ([`crate::terminal_text::cut_line`]).

#[cfg(test)]
mod tests;

use std::path::Path;

use crate::allowlist::{Current, Matched, Rule, Verdict, pin_now};
use crate::invocation::policy::{self, Unvetted};
use crate::table::Task;
use crate::terminal_text::{cut_line, cut_text};

/// Most bytes of a name, an argument or a path quoted in a message.
pub const NAME_CAP: usize = 256;
/// Most bytes of the argv, or of one argument or value the agent added, a question shows.
pub const ARGV_CAP: usize = 4096;
/// Most bytes of a lapse summary quoted in a message.
pub const SUMMARY_CAP: usize = 2048;
/// Most lines of the recipe a question shows.
pub const RECIPE_LINES: usize = 12;
/// Most bytes of one line of the recipe, a hook or a runner's question a question shows.
pub const LINE_CAP: usize = 512;

/// What a handler gathered for one start.
#[derive(Clone, Copy)]
pub struct Facts<'a, 'r> {
    /// The task as the table lists it (the name the agent gave resolves to it).
    pub listed: &'a Task,
    /// The task as its files define it now, read from disk for this decision.
    pub now: &'a Current,
    /// The allowlist rules that name the task.
    pub rules: &'r Matched,
    /// The arguments the agent adds (values a wildcard name implies first).
    pub args: &'a [String],
    /// The environment the agent adds.
    pub env: &'a [(String, String)],
    /// What would run.
    pub runs: &'a Runs,
    /// Whether a name is another task of the same runner in the same file.
    pub is_task: &'a dyn Fn(&str) -> bool,
    /// The repository's root, for the commands a hint gives.
    pub root: &'a Path,
    /// Whether the client can ask its user (MCP elicitation).
    pub can_ask: bool,
}

/// What would run if the start goes ahead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Runs {
    /// The program and every argument, as executed.
    pub argv: Vec<String>,
    /// The absolute directory it runs in.
    pub dir: String,
    /// Whether the task's deps are skipped (xc `skip_deps`).
    pub skip_deps: bool,
}

/// The answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Admission<'a> {
    /// It runs: the rule that decided (whose policy a run may carry).
    Run(&'a Rule),
    /// The person must say yes first.
    Ask(Box<Ask<'a>>),
    /// It does not run.
    Refuse(Refusal),
}

/// A question for the person before a start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ask<'a> {
    /// The permission question, when the allow does not cover the start.
    pub permission: Option<Permission>,
    /// The runner's own questions (just `[confirm]`, go-task `prompt`), in its words.
    pub confirm: Vec<String>,
    /// What every question shows.
    pub shown: Shown,
    /// What the agent gets when the person declines, or the client cannot ask after all.
    pub refusal: Refusal,
    /// The rule that allows the task itself, when one does (then only what the agent added
    /// is asked about).
    pub grant: Option<&'a Rule>,
}

/// Why the person's yes is needed, and what the question offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Permission {
    /// Why, after the task's name: "is not in your allowlist", "changed since you allowed
    /// it: …", "is allowed, but not with what the agent added: …" (escaped and cut).
    pub reason: String,
    /// Whether the task itself is allowed: then "always allow this task / its file" are
    /// not offered.
    pub task_allowed: bool,
    /// Whether "always allow it with any arguments" is offered (the agent added arguments
    /// the allow does not cover).
    pub offer_any_args: bool,
}

/// Exactly what a question shows, and what the person's answer is keyed by. Strings are as
/// the repository and the agent wrote them; the question escapes each where it shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    /// The task's unique name.
    pub unique_name: String,
    /// Its runner.
    pub runner: &'static str,
    /// Its file, as the task's rules name it (root-relative).
    pub file: String,
    /// `file:line` of its definition.
    pub defined: String,
    /// What runs.
    pub runs: Runs,
    /// The arguments the agent added that the allow does not cover, each with why.
    pub unvetted: Vec<Unvetted>,
    /// The environment the agent added.
    pub env: Vec<(String, String)>,
    /// What else runs with it: its deps and hooks, in words.
    pub also: Vec<String>,
    /// The recipe, as its file says it now.
    pub recipe: Option<String>,
    /// The fingerprint of the task and what it reads, as read for this decision: an answer
    /// covers this and nothing else.
    pub fingerprint: String,
    /// The sandbox the run gets, in words: filled in by the caller, which knows the policy
    /// (empty until then).
    pub sandbox: String,
}

/// Why a start does not run, as the agent reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// Which refusal.
    pub code: Code,
    /// What happened, with everything quoted escaped and cut.
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
}

/// The kinds of refusal (the MCP layer gives each its error code).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    /// The allowlist does not allow the task (denied, not listed, lapsed, declined).
    NotAllowlisted,
    /// The files no longer say what the table lists.
    Stale,
    /// The runner asks for confirmation and the person did not give it.
    NeedsConfirmation,
    /// Arguments or environment the agent added need the person's approval.
    NeedsApproval,
    /// An environment variable that loads or redirects code.
    EnvRefused,
    /// The arguments are invalid (a control character).
    InvalidArgs,
}

/// A name, an argument or a path as a message quotes it.
pub fn quoted(s: &str) -> String {
    cut_line(s, NAME_CAP)
}

impl Refusal {
    fn new(code: Code, message: String, hint: Option<String>) -> Refusal {
        Refusal {
            code,
            message,
            hint,
        }
    }
}

/// Decides one start: see the module's documentation.
pub fn admit<'r>(facts: &Facts<'_, 'r>) -> Admission<'r> {
    let name = quoted(&facts.listed.unique_name);
    if let Some(refusal) = refused_input(facts, &name) {
        return Admission::Refuse(refusal);
    }
    let now = match current_task(facts, &name) {
        Ok(now) => now,
        Err(refusal) => return Admission::Refuse(refusal),
    };
    let verdict = facts
        .rules
        .verdict(&mut |task_pin| pin_now(facts.now, task_pin));
    let mut unvetted = policy::unvetted(now, facts.args, facts.is_task);
    // A variable the task declares as a parameter (an xc input) is data; any other changes
    // what runs as the person did not see it.
    let env: Vec<(String, String)> = facts
        .env
        .iter()
        .filter(|(n, _)| !now.params.iter().any(|p| p.name == *n))
        .cloned()
        .collect();
    let (permission, refusal, grant) = match verdict {
        Verdict::Denied(rule) => {
            // A deny is never asked about.
            return Admission::Refuse(Refusal::new(
                Code::NotAllowlisted,
                format!(
                    "`{name}` is denied by the user's allowlist ({})",
                    quoted(&rule)
                ),
                Some(
                    "only the user can change this, with `agg allow` / `agg deny` outside the agent"
                        .to_owned(),
                ),
            ));
        }
        Verdict::Allowed(holding) => {
            // The exemption comes from a rule that allows the task now: an `--any-args`
            // rule whose pin lapsed is not among them.
            let any_args = holding.iter().copied().find(|r| r.any_args);
            let rule = match any_args {
                Some(rule) if !unvetted.is_empty() => {
                    unvetted.clear();
                    rule
                }
                _ => holding[0],
            };
            if unvetted.is_empty() && env.is_empty() {
                (None, None, Some(rule))
            } else {
                let (permission, refusal) = approval(&name, &unvetted, &env);
                (Some(permission), Some(refusal), Some(rule))
            }
        }
        Verdict::Lapsed { summary, .. } => {
            let summary = cut_line(&summary, SUMMARY_CAP);
            let refusal = Refusal::new(
                Code::NotAllowlisted,
                format!("`{name}` changed since you allowed it: {summary}"),
                Some(format!(
                    "ask the user to review the change and run `agg allow {name}` again in {}",
                    quoted(&facts.root.to_string_lossy())
                )),
            );
            let permission = Permission {
                reason: format!("changed since you allowed it: {summary}"),
                task_allowed: false,
                offer_any_args: !unvetted.is_empty(),
            };
            (Some(permission), Some(refusal), None)
        }
        Verdict::NotListed => {
            let refusal = Refusal::new(
                Code::NotAllowlisted,
                format!("`{name}` is not allowlisted, so agents may not run it"),
                Some(format!(
                    "ask the user to run `agg allow {name}` (or `agg allow --file {}` for every task in that file) in {}",
                    quoted(&facts.listed.file_path),
                    quoted(&facts.root.to_string_lossy())
                )),
            );
            let permission = Permission {
                reason: "is not in your allowlist".to_owned(),
                task_allowed: false,
                offer_any_args: !unvetted.is_empty(),
            };
            (Some(permission), Some(refusal), None)
        }
    };
    let confirm = now.behaviour.confirm.clone();
    if permission.is_none()
        && confirm.is_empty()
        && let Some(rule) = grant
    {
        return Admission::Run(rule);
    }
    let refusal = refusal.unwrap_or_else(|| needs_confirmation(facts.listed, &name, &confirm));
    if !facts.can_ask {
        return Admission::Refuse(refusal);
    }
    let shown = shown(facts, now, unvetted, env);
    Admission::Ask(Box::new(Ask {
        permission,
        confirm,
        shown,
        refusal,
        grant,
    }))
}

/// What is refused whatever the rules say: an environment variable that loads code, an
/// argument with a control character.
fn refused_input(facts: &Facts<'_, '_>, name: &str) -> Option<Refusal> {
    refused_env(facts.env, name).or_else(|| {
        policy::control_character(facts.args).map(|i| {
            Refusal::new(
                Code::InvalidArgs,
                format!(
                    "argument {} holds a control character (`{}`): no runner takes one as data",
                    i + 1,
                    quoted(&facts.args[i])
                ),
                Some(
                    "pass arguments without newlines, tabs or other control characters".to_owned(),
                ),
            )
        })
    })
}

/// The refusal of an environment variable agg never takes from an agent, for the task
/// `unique_name`, when `env` sets one.
pub fn refused_env(env: &[(String, String)], unique_name: &str) -> Option<Refusal> {
    let (var, why) = env
        .iter()
        .find_map(|(var, _)| policy::refused_env(var).map(|why| (var, why)))?;
    let var = quoted(var);
    Some(Refusal::new(
        Code::EnvRefused,
        format!("agg never takes `{var}` from an agent: {why}"),
        Some(format!(
            "leave `{var}` out; a person can set it with `agg run {}` in a terminal",
            quoted(unique_name)
        )),
    ))
}

/// The task as its files define it now, when they still say what the table lists.
fn current_task<'a>(facts: &Facts<'a, '_>, name: &str) -> Result<&'a Task, Refusal> {
    let stale = |reason: &str| {
        Refusal::new(
            Code::Stale,
            format!(
                "`{name}` is not what agg listed: {}; nothing ran",
                cut_line(reason, SUMMARY_CAP)
            ),
            Some("call list_tasks or task_start again: agg reads the files anew".to_owned()),
        )
    };
    let now = (facts.now.task.as_ref()).map_err(|reason| stale(&reason.to_string()))?;
    if !same_definition(facts.listed, now) {
        return Err(stale(&format!(
            "{} changed since agg last read it",
            facts.listed.file_path
        )));
    }
    facts
        .now
        .task_pin
        .as_ref()
        .map_err(|reason| stale(&reason.to_string()))?;
    Ok(now)
}

/// Whether the table's row and the task as its files say it now define the same thing
/// (the table may have rewritten the program: `npx turbo`, `docker compose`).
fn same_definition(listed: &Task, now: &Task) -> bool {
    let tail = |argv: &[String]| -> Vec<String> {
        argv.iter()
            .skip(1)
            .filter(|a| *a != "compose")
            .cloned()
            .collect()
    };
    now.dir == listed.dir
        && now.script == listed.script
        && now.deps == listed.deps
        && now.params == listed.params
        && now.env == listed.env
        && now.xc == listed.xc
        && now.behaviour == listed.behaviour
        && tail(&now.argv) == tail(&listed.argv)
}

/// The question and the refusal for an allowed task with arguments or environment the allow
/// does not cover.
fn approval(name: &str, unvetted: &[Unvetted], env: &[(String, String)]) -> (Permission, Refusal) {
    let mut what = Vec::new();
    for u in unvetted {
        what.push(format!("argument `{}` ({})", quoted(&u.arg), u.why));
    }
    for (var, _) in env {
        what.push(format!("environment variable `{}`", quoted(var)));
    }
    let what = what.join(", ");
    let hint = if unvetted.is_empty() {
        format!(
            "run it without `env`, or ask the user to run `agg run {name}` with that environment in a terminal"
        )
    } else {
        format!(
            "run it without those arguments, or ask the user to run `agg allow {name} --any-args` (agents may then pass any arguments to it)"
        )
    };
    (
        Permission {
            reason: format!("is allowed, but not with what the agent added: {what}"),
            task_allowed: true,
            offer_any_args: !unvetted.is_empty(),
        },
        Refusal::new(
            Code::NeedsApproval,
            format!("`{name}` is allowed, but not with {what}; the user must approve that"),
            Some(hint),
        ),
    )
}

/// The refusal for a task whose runner asks for confirmation, when the client cannot ask.
fn needs_confirmation(task: &Task, name: &str, texts: &[String]) -> Refusal {
    Refusal::new(
        Code::NeedsConfirmation,
        format!(
            "`{name}` asks for confirmation before it runs ({}), and this client cannot ask the user (no elicitation)",
            cut_line(&texts.join(" "), LINE_CAP)
        ),
        Some(format!(
            "ask the user to run `agg run {name}` in a terminal, where {} asks them",
            task.runner
        )),
    )
}

/// What the question shows.
fn shown(
    facts: &Facts<'_, '_>,
    now: &Task,
    unvetted: Vec<Unvetted>,
    env: Vec<(String, String)>,
) -> Shown {
    let listed = facts.listed;
    let mut also = Vec::new();
    if !now.deps.is_empty() && !facts.runs.skip_deps {
        also.push(format!("first its deps: {}", now.deps.join(", ")));
    }
    for hook in &now.behaviour.hooks {
        also.push(format!("hook `{}`: {}", hook.name, hook.command));
    }
    Shown {
        unique_name: listed.unique_name.clone(),
        runner: listed.runner.name(),
        file: listed.file_path.clone(),
        defined: listed.line.map_or_else(
            || listed.file_path.clone(),
            |l| format!("{}:{l}", listed.file_path),
        ),
        runs: facts.runs.clone(),
        unvetted,
        env,
        also,
        recipe: now.script.clone().filter(|s| !s.trim().is_empty()),
        fingerprint: facts
            .now
            .task_pin
            .as_ref()
            .map(|p| p.sha256.clone())
            .unwrap_or_default(),
        sandbox: String::new(),
    }
}

/// Whether the files still say what the question showed, read again after the answer: the
/// answer covers what the person saw and nothing else.
pub fn still_as_shown(now: &Current, shown: &Shown) -> Result<(), Refusal> {
    let same = now
        .task_pin
        .as_ref()
        .is_ok_and(|p| p.sha256 == shown.fingerprint);
    if same {
        return Ok(());
    }
    Err(Refusal::new(
        Code::NotAllowlisted,
        format!(
            "`{}` changed on disk while the user was being asked; nothing ran",
            quoted(&shown.unique_name)
        ),
        Some("call task_start again: the user is asked about what it says now".to_owned()),
    ))
}

/// The refusal when the person declined the permission question (or the client declined on
/// its own).
pub fn declined(ask: &Ask<'_>) -> Refusal {
    Refusal::new(
        ask.refusal.code,
        format!(
            "`{}` was declined by the user (or by the client on its own: some hosts decline every question when no person is there to ask)",
            quoted(&ask.shown.unique_name)
        ),
        ask.refusal.hint.clone(),
    )
}

/// The refusal when the person did not confirm the runner's own question.
pub fn not_confirmed(ask: &Ask<'_>) -> Refusal {
    Refusal::new(
        Code::NeedsConfirmation,
        format!(
            "the user did not confirm `{}`: {}",
            quoted(&ask.shown.unique_name),
            cut_line(&ask.confirm.join(" "), LINE_CAP)
        ),
        None,
    )
}

/// A recipe line, hook or question as a question shows it: escaped and cut.
pub fn shown_line(s: &str) -> String {
    cut_line(s, LINE_CAP)
}

/// Prose from the repository (a runner's question) as a question shows it.
pub fn shown_text(s: &str) -> String {
    cut_text(s, LINE_CAP * 4)
}
