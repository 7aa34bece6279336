//! The task handlers of `agg mcp`: `list_tasks`, `describe_task`, `task_start` and the
//! per-task `run_*` tools — finding the task, deciding (and asking) whether it may run,
//! recording the user's answer, starting it and waiting for its first window.

//! The MCP request handler: the tool list, and one function per tool.
//!
//! Read-only tools always work; execution tools consult the user's allowlist first. Every
//! result carries `structuredContent` (matching the tool's published `outputSchema`) and a
//! compact text copy. Failures the model should read are `isError` results with a machine
//! code and a hint; malformed requests and unknown tools stay JSON-RPC errors.
#![allow(deprecated)] // rmcp marks the MCP logging API deprecated (SEP-2577); we still serve it.

use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use agg_runners::Runner;
use rmcp::RoleServer;
use rmcp::model::{CallToolResponse, LoggingLevel};
use rmcp::service::RequestContext;

use super::ask::{self, Choice, Outcome, Retry};
use super::catalog::{self};
use super::envelope::{ToolError, ToolResult, code, invalid, parse, success, tool_error};
use super::render::{self, RESULT_CAP};
use super::stream;
use super::types::{
    AffectedArg, DescribeResult, DescribeTaskArgs, ListTasksArgs, ListTasksResult, MAX_WAIT_MS,
    TaskStartArgs,
};
use crate::allowlist::{Decision, Now, StoreError};
use crate::engine::{Duplicates, Invocation, StartError};
use crate::invocation::policy::{self, Unvetted};
use crate::invocation::{InvocationError, RunOptions, invocation};
use crate::table::{Filter, Table, Task};

use super::task_tools::{self};

use super::mcp_tasks;
use super::readiness;
use super::server::{Server, is_modern};
use super::state::lock;

impl Server {
    pub(super) async fn list_tasks(&self, args: ListTasksArgs) -> ToolResult {
        let runners = match args.runner.as_deref() {
            None | Some("") => Vec::new(),
            Some(name) => vec![Runner::from_name(name).ok_or_else(|| {
                tool_error(
                    code::INVALID_ARGS,
                    format!("unknown runner `{name}`"),
                    Some(format!("one of: {}", Runner::names())),
                )
            })?],
        };
        let dir = match args.dir.as_deref() {
            None => None,
            Some(d) => Some(inside_root(&self.0.root, d)?),
        };
        let filter = Filter {
            runners,
            dir,
            query: args.query.clone(),
        };
        let table = self.fresh().await;
        if let Some(affected) = args.affected.clone().filter(|a| *a != AffectedArg::Off) {
            if args.path.is_some() {
                return Err(invalid("affected and path cannot be combined"));
            }
            let offset = args.offset.unwrap_or(0);
            let limit = args.limit.unwrap_or(catalog::LIST_LIMIT).max(1);
            return self
                .list_affected(table, affected, &filter, offset, limit)
                .await;
        }
        let (order, suggestions) = if let Some(path) = args.path.as_deref() {
            {
                let outside = || {
                    tool_error(
                        code::INVALID_ARGS,
                        format!("path `{path}` is outside the repository"),
                        Some(
                            "path is a file or directory in the repository, relative to its root"
                                .to_owned(),
                        ),
                    )
                };
                let rel = crate::search::relative(&table.root, std::path::Path::new(path))
                    .ok_or_else(outside)?;
                let found = crate::search::for_path(&table, std::path::Path::new(&rel), &filter)
                    .ok_or_else(outside)?;
                (found, Vec::new())
            }
        } else {
            let found = crate::search::find(&table, &filter);
            (found.indices, found.suggestions)
        };
        let matching: Vec<&Task> = order.iter().filter_map(|&i| table.tasks.get(i)).collect();
        let offset = args.offset.unwrap_or(0);
        let limit = args.limit.unwrap_or(catalog::LIST_LIMIT).max(1);
        let mut result = self.listing(&table, &matching, offset, limit);
        result.suggestions = suggestions;
        let mut text = list_text(&result);
        if limit > catalog::LIST_MAX {
            let _ = writeln!(
                text,
                "[limit is at most {}: page on with offset]",
                catalog::LIST_MAX
            );
        }
        Ok(success(&result, text))
    }

    pub(super) async fn describe_task(&self, args: DescribeTaskArgs) -> ToolResult {
        let (table, i, _) = self.find(&args.unique_name).await?;
        let task = &table.tasks[i];
        let decision = self.decide(task, &mut Now::new());
        let mut detail = crate::detail::of(
            task,
            crate::availability::runner_path(&table.root, &task.dir, task.runner)
                .map(|p| p.to_string_lossy().into_owned()),
        );
        detail.history = crate::history::History::open_existing(&table.root)
            .and_then(|h| h.summary_of(&task.unique_name, &task.file_path, &task.source_name));
        detail.packages = crate::graph::package_of(&crate::graph::read(&table), task);
        // A result stays within a model's budget whatever the file holds: a recipe or a
        // description past the cap is cut where a line ends, saying how much was left out.
        for text in [&mut detail.script, &mut detail.task.description]
            .into_iter()
            .flatten()
        {
            cut(text, DESCRIBE_CAP);
        }
        let result = DescribeResult {
            detail,
            allowlisted: decision.allowed(),
            allowlist_rule: match decision {
                Decision::Allowed(r) | Decision::Denied(r) => Some(r),
                Decision::NotListed | Decision::Lapsed { .. } => None,
            },
        };
        let mut text = Vec::new();
        let _ = crate::detail::write(&mut text, &result.detail);
        // The text copy is for a model, not a terminal: no styling.
        let mut text = anstream::adapter::strip_str(&String::from_utf8_lossy(&text)).to_string();
        text.push_str(if result.allowlisted {
            "  agents may run it (allowlisted)\n"
        } else {
            "  agents may not run it yet (not allowlisted)\n"
        });
        Ok(success(&result, text))
    }

    /// A per-task tool call: its parameters become the task's arguments and environment,
    /// then it goes through exactly the checks of `task_start`.
    pub(super) async fn run_task_tool(
        &self,
        unique_name: String,
        args: rmcp::model::JsonObject,
        ctx: RequestContext<RoleServer>,
        retry: Retry,
    ) -> Result<CallToolResponse, ToolError> {
        let table = self.built().await;
        let Some(task) = table.get(&unique_name) else {
            return Err(tool_error(
                code::NOT_FOUND,
                format!("the task `{unique_name}` is gone from the repository"),
                Some("list_tasks shows the current tasks".to_owned()),
            ));
        };
        let start = task_tools::start_arguments(task, &args).map_err(invalid)?;
        let start: TaskStartArgs = parse(Some(start))?;
        self.task_start(start, ctx, retry).await
    }

    /// Writes the user's answer as `agg allow` / `agg deny` would, pinning what the user
    /// was shown (`now`); `Err` for a deny.
    pub(super) async fn record(
        &self,
        choice: Choice,
        table: &Table,
        task: &Task,
        now: &Now,
    ) -> Result<(), ToolError> {
        if choice == Choice::Once {
            return Ok(());
        }
        let Some(store) = lock(&self.0.allowlist).store() else {
            tracing::warn!("the user's answer cannot be written: no allowlist file");
            return if choice == Choice::Deny {
                Err(tool_error(
                    code::NOT_ALLOWLISTED,
                    format!("`{}` was denied by the user", task.unique_name),
                    None,
                ))
            } else {
                Ok(())
            };
        };
        let root = table.root.clone();
        let owned = task.clone();
        let pin = now.shown(task).and_then(|c| c.task_pin.clone().ok());
        let written = tokio::task::spawn_blocking(move || match (choice, pin) {
            (Choice::AlwaysTask | Choice::AlwaysAnyArgs, Some(pin)) => {
                store.allow_task(&root, &owned, pin, choice == Choice::AlwaysAnyArgs)
            }
            (Choice::AlwaysTask | Choice::AlwaysAnyArgs, None) => Err(StoreError::Unpinnable {
                task: owned.unique_name.clone(),
                reason: "its files could not be read".to_owned(),
            }),
            (Choice::AlwaysFile, _) => store.allow_task_file(&root, &owned),
            (Choice::Deny | Choice::Once, _) => store.deny_task(&root, &owned),
        })
        .await;
        match written {
            Ok(Ok(_)) => {}
            Ok(Err(err)) => tracing::warn!("the user's answer could not be written: {err}"),
            Err(err) => tracing::warn!("the user's answer could not be written: {err}"),
        }
        if choice == Choice::Deny {
            return Err(tool_error(
                code::NOT_ALLOWLISTED,
                format!(
                    "`{}` was denied by the user (and is now denied in the allowlist)",
                    task.unique_name
                ),
                None,
            ));
        }
        Ok(())
    }

    pub(super) async fn task_start(
        &self,
        args: TaskStartArgs,
        ctx: RequestContext<RoleServer>,
        retry: Retry,
    ) -> Result<CallToolResponse, ToolError> {
        let mut wait_ms = args.wait_ms.unwrap_or(self.0.settings.wait_ms);
        if wait_ms > MAX_WAIT_MS {
            return Err(invalid(format!(
                "wait_ms is at most {MAX_WAIT_MS} (10 minutes)"
            )));
        }
        let mode = args.output.unwrap_or_default();
        let tail_lines = args.tail_lines.unwrap_or(self.0.settings.tail_lines);
        let (table, i, implied) = self.find(&args.unique_name).await?;
        let task = &table.tasks[i];
        // Before the user is asked anything: a permission for what cannot run is no use.
        if let Some(reason) = task.behaviour.not_runnable.as_deref() {
            return Err(not_runnable(task, reason));
        }
        if args.wait_ms.is_none() {
            wait_ms = typical_wait(&table, task).map_or(wait_ms, |typical| typical.max(wait_ms));
        }
        let declared_service = task.behaviour.service;
        let probe = readiness::plan(task, declared_service, args.ready.as_ref(), args.wait_ms)?;
        let env: Vec<(String, String)> = args.env.0.into_iter().collect();
        if let Some((name, why)) = env
            .iter()
            .find_map(|(name, _)| policy::refused_env(name).map(|why| (name, why)))
        {
            return Err(tool_error(
                code::ENV_REFUSED,
                format!("agg never takes `{name}` from an agent: {why}"),
                Some(format!(
                    "leave `{name}` out; a person can set it with `agg run {}` in a terminal",
                    task.unique_name
                )),
            ));
        }
        let opts = RunOptions {
            args: implied.into_iter().chain(args.args).collect(),
            confirmed: false,
            env,
            skip_deps: args.skip_deps,
        };
        // The invocation is built before asking too: a missing runner or a bad argument is
        // said at once, and the question shows exactly what will run.
        let mut inv = invocation(&table, task, &opts).map_err(|e| invocation_error(task, e))?;
        let shown = Shown::of(task, &inv, &opts);
        // What the task's files say now, read from disk: never the watcher's table.
        let mut now = Now::new();
        let shown_fingerprint = fingerprint(&table, task, &mut now)?;
        let decision = self.decide(task, &mut now);
        let is_task = |name: &str| {
            table.tasks.iter().any(|t| {
                t.source_name == name && t.runner == task.runner && t.file_path == task.file_path
            })
        };
        let mut unvetted = policy::unvetted(task, &opts.args, &is_task);
        if !unvetted.is_empty()
            && decision.allowed()
            && lock(&self.0.allowlist).any_args(task).is_some()
        {
            unvetted.clear();
        }
        // A variable the task declares as a parameter (an xc input) is data; any other
        // changes what runs as the person did not see it.
        let added_env: Vec<(String, String)> = opts
            .env
            .iter()
            .filter(|(name, _)| !task.params.iter().any(|p| p.name == *name))
            .cloned()
            .collect();
        let refusal = match decision {
            Decision::Allowed(_) if unvetted.is_empty() && added_env.is_empty() => None,
            Decision::Allowed(_) => Some(Refusal::approval(task, &unvetted, &added_env)),
            Decision::Denied(rule) => {
                // A deny is never asked about.
                return Err(tool_error(
                    code::NOT_ALLOWLISTED,
                    format!("`{}` is denied by the user's allowlist ({rule})", task.unique_name),
                    Some("only the user can change this, with `agg allow` / `agg deny` outside the agent".to_owned()),
                ));
            }
            Decision::Lapsed { summary, .. } => Some(Refusal {
                reason: format!("changed since you allowed it: {summary}"),
                error: tool_error(
                    code::NOT_ALLOWLISTED,
                    format!(
                        "`{}` changed since you allowed it: {summary}",
                        task.unique_name
                    ),
                    Some(format!(
                        "ask the user to review the change and run `agg allow {}` again in {}",
                        task.unique_name,
                        table.root.display()
                    )),
                ),
                task_allowed: false,
            }),
            Decision::NotListed => Some(Refusal {
                reason: "is not in your allowlist".to_owned(),
                error: tool_error(
                    code::NOT_ALLOWLISTED,
                    format!(
                        "`{}` is not allowlisted, so agents may not run it",
                        task.unique_name
                    ),
                    Some(format!(
                        "ask the user to run `agg allow {}` (or `agg allow --file {}` for every task in that file) in {}",
                        task.unique_name,
                        task.file_path,
                        table.root.display()
                    )),
                ),
                task_allowed: false,
            }),
        };
        let confirm_texts = task.behaviour.confirm.clone();
        let request = ask::Request {
            task,
            argv: shown.argv,
            dir: shown.dir,
            env: &opts.env,
            unvetted: &unvetted,
            also: shown.also,
            fingerprint: shown_fingerprint.clone(),
        };
        let mut questions = Vec::new();
        if let Some(refusal) = &refusal {
            questions.extend(ask::permission(
                &request,
                &refusal.reason,
                refusal.task_allowed,
            ));
        }
        if !confirm_texts.is_empty() {
            questions.extend(ask::confirmation(&request, &confirm_texts));
        }
        // A start that would return a job already running (same task, argv and environment)
        // runs nothing new: it was asked about when it started.
        let reuses = !args.allow_parallel && self.0.engine.running_like(&inv).is_some();
        let unasked = reuses && !questions.is_empty();
        if !questions.is_empty() && !reuses {
            let outcome = if is_modern(&ctx) {
                let supports = ctx
                    .meta
                    .client_capabilities()
                    .is_some_and(|c| c.elicitation.is_some());
                self.0.asker.modern(supports, &request, questions, &retry)
            } else {
                self.0.asker.classic(&ctx.peer, &request, questions).await
            };
            let answers = match outcome {
                Outcome::NeedInput(question) => return Ok(question.into()),
                Outcome::Answers(answers) => answers,
                Outcome::Unsupported => {
                    return Err(match refusal {
                        Some(refusal) => refusal.error,
                        None => needs_confirmation(task, &confirm_texts),
                    });
                }
            };
            // The answer covers what the person saw: the files must still say it.
            if fingerprint(&table, task, &mut Now::new())? != shown_fingerprint {
                return Err(tool_error(
                    code::NOT_ALLOWLISTED,
                    format!(
                        "`{}` changed on disk while the user was being asked; nothing ran",
                        task.unique_name
                    ),
                    Some(
                        "call task_start again: the user is asked about what it says now"
                            .to_owned(),
                    ),
                ));
            }
            if let Some(refusal) = &refusal {
                match ask::chosen(&answers) {
                    Some(choice) => self.record(choice, &table, task, &now).await?,
                    None => {
                        return Err(tool_error(
                            refusal.error.code,
                            format!(
                                "`{}` was declined by the user (or by the client on its own: some hosts decline every question when no person is there to ask)",
                                task.unique_name
                            ),
                            refusal.error.hint.clone(),
                        ));
                    }
                }
            }
            if !confirm_texts.is_empty() {
                if !ask::confirmed(&answers) {
                    return Err(tool_error(
                        code::NEEDS_CONFIRMATION,
                        format!(
                            "the user did not confirm `{}`: {}",
                            task.unique_name,
                            confirm_texts.join(" ")
                        ),
                        None,
                    ));
                }
                let confirmed = RunOptions {
                    confirmed: true,
                    ..opts.clone()
                };
                inv =
                    invocation(&table, task, &confirmed).map_err(|e| invocation_error(task, e))?;
            }
        }
        let started = self
            .0
            .engine
            .start(
                inv,
                crate::engine::StdioMode::Capture,
                if args.allow_parallel {
                    Duplicates::Allow
                } else if unasked {
                    // Not asked because it reuses a job: never start one without asking.
                    Duplicates::ReuseOnly
                } else {
                    Duplicates::Reuse
                },
            )
            .map_err(|e| match e {
                StartError::TooManyJobs { .. } => tool_error(
                    code::TOO_MANY_JOBS,
                    e.to_string(),
                    Some("status lists the running jobs; task_stop ends one".to_owned()),
                ),
                StartError::NotRunning => tool_error(
                    code::NOT_FOUND,
                    format!("`{}`: {e}; nothing ran", task.unique_name),
                    Some("call task_start again (the user is asked first)".to_owned()),
                ),
            })?;
        let job = Arc::clone(&started.job);
        if !started.reused {
            self.follow_log_resource(Arc::clone(&job));
        }
        let levels = stream::Levels {
            request: ctx.meta.log_level(),
            opt_in_only: is_modern(&ctx),
        };
        let settled = Arc::new(AtomicBool::new(false));
        stream::follow(
            Arc::clone(&self.0),
            Arc::clone(&job),
            ctx.peer.clone(),
            levels,
            Arc::clone(&settled),
        );
        let progress = ctx.meta.get_progress_token();
        let mut ready = None;
        let waited = tokio::select! {
            finished = readiness::settle(&job, probe.as_ref(), Duration::from_millis(wait_ms), &mut ready) => Some(finished),
            () = stream::progress(ctx.peer.clone(), progress, Arc::clone(&job)) => None,
            () = ctx.ct.cancelled() => {
                // The client gave up on this call: the job goes with it.
                self.0.engine.stop(&job, Duration::from_secs(5)).await;
                if stream::wanted(&self.0, levels, LoggingLevel::Warning) {
                    stream::final_words(&job, &ctx.peer).await;
                }
                None
            }
        };
        if waited == Some(true) {
            settled.store(true, Ordering::Release);
        }
        if waited == Some(false) && probe.is_none() && mcp_tasks::declared(&ctx) && job.is_running()
        {
            return Ok(CallToolResponse::Task(
                self.0.mcp_tasks.create(&job, mode, tail_lines),
            ));
        }
        let block = render::output(&job, mode, tail_lines, RESULT_CAP);
        let mut result = render::job_result(&job, mode, block, started.reused);
        readiness::annotate(&mut result, ready);
        Ok(success(&result, render::job_text(&result)).into())
    }
}

/// Why a start needs the user's yes: the reason the question gives, and the error the agent
/// gets when the client cannot ask.
struct Refusal {
    reason: String,
    error: ToolError,
    /// Whether the task itself is allowed (only what the agent added is asked about).
    task_allowed: bool,
}

impl Refusal {
    /// An allowed task with arguments or environment the allow does not cover.
    fn approval(task: &Task, unvetted: &[Unvetted], env: &[(String, String)]) -> Refusal {
        let mut what = Vec::new();
        for u in unvetted {
            what.push(format!("argument `{}` ({})", u.arg, u.why));
        }
        for (name, _) in env {
            what.push(format!("environment variable `{name}`"));
        }
        let what = what.join(", ");
        let hint = if unvetted.is_empty() {
            format!(
                "run it without `env`, or ask the user to run `agg run {}` with that environment in a terminal",
                task.unique_name
            )
        } else {
            format!(
                "run it without those arguments, or ask the user to run `agg allow {} --any-args` (agents may then pass any arguments to it)",
                task.unique_name
            )
        };
        Refusal {
            reason: format!("is allowed, but not with what the agent added: {what}"),
            error: tool_error(
                code::NEEDS_APPROVAL,
                format!(
                    "`{}` is allowed, but not with {what}; the user must approve that",
                    task.unique_name
                ),
                Some(hint),
            ),
            task_allowed: true,
        }
    }
}

/// What the question shows besides the task itself.
struct Shown {
    argv: Vec<String>,
    dir: String,
    also: Vec<String>,
}

impl Shown {
    fn of(task: &Task, inv: &Invocation, opts: &RunOptions) -> Shown {
        let argv = std::iter::once(&inv.program)
            .chain(&inv.args)
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        let mut also = Vec::new();
        if !task.deps.is_empty() && !opts.skip_deps {
            also.push(format!("first its deps: {}", task.deps.join(", ")));
        }
        for hook in &task.behaviour.hooks {
            also.push(format!("hook `{}`: {}", hook.name, hook.command));
        }
        Shown {
            argv,
            dir: inv.cwd.display().to_string(),
            also,
        }
    }
}

/// The most bytes of a recipe or a description `describe_task` returns.
const DESCRIBE_CAP: usize = 16 * 1024;

/// Cuts `text` to at most `cap` bytes at a line end, and says how many lines were left out.
fn cut(text: &mut String, cap: usize) {
    if text.len() <= cap {
        return;
    }
    let mut end = cap;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let end = text[..end].rfind('\n').unwrap_or(end);
    let left = text[end..].lines().filter(|l| !l.is_empty()).count();
    text.truncate(end);
    let _ = write!(
        text,
        "\n… {left} more lines (the file holds the rest: {DESCRIBE_CAP} bytes are shown at most)"
    );
}

/// Longest wait a start without `wait_ms` takes from the run history.
const TYPICAL_WAIT_MAX_MS: u64 = 30_000;

/// How long a start without `wait_ms` waits for `task`: a little over its typical duration
/// when the run history knows one under [`TYPICAL_WAIT_MAX_MS`], so a task that usually
/// ends in 4 s returns its result instead of a `run_id`.
fn typical_wait(table: &Table, task: &Task) -> Option<u64> {
    let summary = crate::history::History::open_existing(&table.root)?.summary_of(
        &task.unique_name,
        &task.file_path,
        &task.source_name,
    )?;
    let wait = summary.typical_ms.saturating_mul(3) / 2 + 250;
    (wait <= TYPICAL_WAIT_MAX_MS).then_some(wait)
}

/// A failure to build the invocation, as the agent reads it.
fn invocation_error(task: &Task, e: InvocationError) -> ToolError {
    match e {
        InvocationError::RunnerMissing { runner, hint } => tool_error(
            code::RUNNER_UNAVAILABLE,
            format!(
                "`{}` needs {runner}, which is not installed",
                task.unique_name
            ),
            Some(format!("install it: {hint}")),
        ),
        InvocationError::NotRunnable { reason } => not_runnable(task, &reason),
        other => tool_error(code::INVALID_ARGS, other.to_string(), None),
    }
}

/// The fingerprint of `task` and every file it reads, as the files say it now; an error
/// when the files no longer say what the table lists (an edit the watcher has not taken
/// in yet, or a file gone).
fn fingerprint(table: &Table, task: &Task, now: &mut Now) -> Result<String, ToolError> {
    let current = now.current(&table.root, task);
    let stale = |reason: String| {
        tool_error(
            code::NOT_FOUND,
            format!(
                "`{}` is not what agg listed: {reason}; nothing ran",
                task.unique_name
            ),
            Some("call list_tasks or task_start again: agg reads the files anew".to_owned()),
        )
    };
    let raw = current
        .task
        .as_ref()
        .map_err(|reason| stale(reason.clone()))?;
    let tail = |argv: &[String]| -> Vec<String> {
        argv.iter()
            .skip(1)
            .filter(|a| *a != "compose")
            .cloned()
            .collect()
    };
    let behaviour = task.behaviour.clone();
    let same = raw.dir == task.dir
        && raw.script == task.script
        && raw.deps == task.deps
        && raw.params == task.params
        && raw.env == task.env
        && raw.xc == task.xc
        && raw.behaviour == behaviour
        && tail(&raw.argv) == tail(&task.argv);
    if !same {
        return Err(stale(format!(
            "{} changed since agg last read it",
            task.file_path
        )));
    }
    current
        .task_pin
        .as_ref()
        .map(|pin| pin.sha256.clone())
        .map_err(|reason| stale(reason.clone()))
}

/// The refusal for a task whose runner asks for confirmation, when the client cannot ask.
fn not_runnable(task: &Task, reason: &str) -> ToolError {
    tool_error(
        code::NOT_RUNNABLE,
        format!("agg cannot run `{}`: {reason}", task.unique_name),
        Some("the user can run it from the editor that defines it".to_owned()),
    )
}

fn needs_confirmation(task: &Task, texts: &[String]) -> ToolError {
    tool_error(
        code::NEEDS_CONFIRMATION,
        format!(
            "`{}` asks for confirmation before it runs ({}), and this client cannot ask the user (no elicitation)",
            task.unique_name,
            texts.join(" ")
        ),
        Some(format!(
            "ask the user to run `agg run {}` in a terminal, where {} asks them",
            task.unique_name, task.runner
        )),
    )
}

/// Normalizes a root-relative directory, refusing anything that resolves outside the
/// root (`..`, absolute paths, symlinks leading out).
fn inside_root(root: &std::path::Path, dir: &str) -> Result<String, ToolError> {
    let out = || {
        tool_error(
            code::INVALID_ARGS,
            format!("dir `{dir}` is outside the repository"),
            Some("dir is relative to the repository root".to_owned()),
        )
    };
    let joined = agg_runners::join(".", dir.trim_end_matches('/')).ok_or_else(out)?;
    if let Ok(real) = std::fs::canonicalize(root.join(&joined))
        && !real.starts_with(root)
    {
        return Err(out());
    }
    Ok(joined)
}

pub(super) fn list_text(r: &ListTasksResult) -> String {
    let mut s = format!(
        "{} of {} tasks in {} (✓ = agents may run it)\n",
        r.tasks.len(),
        r.total,
        r.root
    );
    for row in &r.tasks {
        let mut tags = String::new();
        for (on, tag) in [
            (row.not_runnable.is_some(), ", not runnable"),
            (row.missing_runner, ", not installed"),
            (row.service, ", service"),
            (!row.confirm.is_empty(), ", asks first"),
        ] {
            if on {
                tags.push_str(tag);
            }
        }
        let params = if row.params.is_empty() {
            String::new()
        } else {
            format!(" ({})", row.params.join(" "))
        };
        if let Some(last) = &row.last {
            let _ = write!(tags, ", last {last}");
        }
        let why = row
            .why
            .as_deref()
            .map_or_else(String::new, |w| format!(" ← {w}"));
        let _ = writeln!(
            s,
            "{} {}{params} [{}{tags}] {}{why}",
            if row.allowlisted { "✓" } else { "·" },
            row.unique_name,
            row.runner,
            row.description.as_deref().map_or_else(
                || format!("$ {}", row.command.as_deref().unwrap_or_default()),
                str::to_owned
            )
        );
    }
    if let Some(next) = r.next_offset {
        let _ = writeln!(
            s,
            "[{} more: list_tasks with offset {next}, or narrow with query/dir/runner/path]",
            r.total - next
        );
    }
    if !r.suggestions.is_empty() {
        let _ = writeln!(s, "did you mean: {}?", r.suggestions.join(", "));
    }
    if r.problems > 0 {
        let _ = writeln!(
            s,
            "{} problems reading task files (see diagnostics)",
            r.problems
        );
    }
    if let Some(problem) = &r.allowlist_problem {
        let _ = writeln!(s, "allowlist: {problem}");
    }
    s
}
