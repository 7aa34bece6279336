//! `task_start` (and through it the per-task `run_*` tools and MCP tasks): one start, as
//! watchexec's `Job` runs one command, in five steps of one verb each:
//!
//! 1. [`Server::plan`]: find the task, read the call's options, build the invocation and the
//!    readiness probe; a missing runner or a bad argument is said before anyone is asked.
//! 2. [`admit`]: read the task's files from disk and the rules that name it, and
//!    hand them to [`crate::admission::admit`], which answers run, ask or refuse.
//! 3. [`Server::ask`]: put the questions to the person through the client, read the files
//!    again (the answer covers what they saw), record a lasting answer in the allowlist.
//! 4. [`Server::launch`]: start the job in the engine (or return the same one running).
//! 5. [`Server::settle`]: wait for its end or readiness within `wait_ms`, streaming logs and
//!    progress, and answer with its result (or an MCP task when it outlives the wait).
#![allow(deprecated)] // rmcp marks the MCP logging API deprecated (SEP-2577); we still serve it.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{CallToolResponse, LoggingLevel};
use rmcp::service::RequestContext;

use super::ask::{self, Choice, Outcome, Retry};
use super::envelope::{ErrorCode, ToolError, invalid, success, tool_error};
use super::readiness;
use super::render::{self, RESULT_CAP};
use super::server::{Server, is_modern};
use super::stream;
use super::tasks_extension;
use super::types::{MAX_WAIT_MS, OutputMode, TaskStartArgs};
use crate::admission::{self, Admission, Ask, Code, Facts, Refusal, Runs};
use crate::allowlist::{OnDisk, StoreError};
use crate::engine::{Duplicates, Invocation, StartError, Started};
use crate::invocation::{InvocationError, RunOptions, invocation};
use crate::readiness::probe::Probe;
use crate::table::{Table, Task};

/// Everything a start needs once the call is read: what runs and how long to wait for it.
pub(super) struct Plan {
    table: Arc<Table>,
    index: usize,
    opts: RunOptions,
    /// What runs; taken by [`Server::launch`].
    inv: Option<Invocation>,
    probe: Option<Probe>,
    wait_ms: u64,
    mode: OutputMode,
    tail_lines: usize,
    allow_parallel: bool,
}

impl Plan {
    fn task(&self) -> &Task {
        &self.table.tasks[self.index]
    }

    /// What runs, until it is launched.
    fn invocation(&self) -> Result<&Invocation, ToolError> {
        self.inv.as_ref().ok_or_else(launched)
    }
}

/// How a start that was asked about goes on.
enum Asked {
    /// The person said yes: start it (with the runner's own `--yes` when they confirmed).
    Yes,
    /// The same job is running already: return it, never start one unasked.
    ReuseOnly,
    /// A 2026-07-28 session: return the question; the client calls again with the answer.
    Question(rmcp::model::InputRequiredResult),
}

impl Server {
    pub(super) async fn task_start(
        &self,
        args: TaskStartArgs,
        ctx: RequestContext<RoleServer>,
        retry: Retry,
    ) -> Result<CallToolResponse, ToolError> {
        let mut plan = self.plan(args).await?;
        let mut now = OnDisk::new();
        let matched = self.0.allowlist().matched(plan.task());
        let can_ask = can_ask(&ctx, &retry);
        let admission = admit(&plan, &mut now, &matched, can_ask)?;
        if let Admission::Refuse(refusal) = admission {
            return Err(refused(refusal));
        }
        // Every run an agent starts is sandboxed, by the rule it falls under, read with the
        // same view of the disk as the decision.
        let policy = self.sandbox_policy(&plan.table, plan.task(), &mut now)?;
        let duplicates = match admission {
            Admission::Run(_) | Admission::Refuse(_) => Duplicates::Reuse,
            Admission::Ask(mut ask) => {
                ask.shown.sandbox = policy.words();
                match self.ask(&mut plan, &ask, &now, &ctx, &retry).await? {
                    Asked::Yes => Duplicates::Reuse,
                    Asked::ReuseOnly => Duplicates::ReuseOnly,
                    Asked::Question(question) => return Ok(question.into()),
                }
            }
        };
        if let Some(inv) = plan.inv.as_mut() {
            inv.sandbox = Some(policy);
        }
        let duplicates = if plan.allow_parallel {
            Duplicates::Allow
        } else {
            duplicates
        };
        let started = self.launch(&mut plan, duplicates)?;
        self.settle(&plan, started, ctx).await
    }

    /// Step 1: what the call asks to run, and how long to wait for it.
    async fn plan(&self, args: TaskStartArgs) -> Result<Plan, ToolError> {
        let mut wait_ms = args.wait_ms.unwrap_or(self.0.settings().wait_ms);
        if wait_ms > MAX_WAIT_MS {
            return Err(invalid(format!(
                "wait_ms is at most {MAX_WAIT_MS} (10 minutes)"
            )));
        }
        let (table, index, implied) = self.find(&args.unique_name).await?;
        let task = &table.tasks[index];
        // Before the user is asked anything: a permission for what cannot run is no use.
        if let Some(reason) = task.behaviour.not_runnable.as_deref() {
            return Err(not_runnable(task, reason));
        }
        if args.wait_ms.is_none() {
            wait_ms = typical_wait(&table, task).map_or(wait_ms, |typical| typical.max(wait_ms));
        }
        let probe = readiness::plan(
            task,
            task.behaviour.service,
            args.ready.as_ref(),
            args.wait_ms,
        )?;
        let opts = RunOptions {
            args: implied.into_iter().chain(args.args).collect(),
            confirmed: false,
            env: args.env.0.into_iter().collect(),
            skip_deps: args.skip_deps,
        };
        // A variable agg never takes from an agent is refused before anything else is said
        // about the start (admission says it again, for every path that reaches it).
        if let Some(refusal) = admission::refused_env(&opts.env, &task.unique_name) {
            return Err(refused(refusal));
        }
        // The invocation is built before asking too: a missing runner or a bad argument is
        // said at once, and the question shows exactly what will run.
        let inv = invocation(&table, task, &opts).map_err(|e| invocation_error(task, e))?;
        Ok(Plan {
            table: Arc::clone(&table),
            index,
            opts,
            inv: Some(inv),
            probe,
            wait_ms,
            mode: args.output.unwrap_or_default(),
            tail_lines: args.tail_lines.unwrap_or(self.0.settings().tail_lines),
            allow_parallel: args.allow_parallel,
        })
    }

    /// Step 3: the person's answers, checked against the files read again, and a lasting
    /// answer written to the allowlist.
    async fn ask(
        &self,
        plan: &mut Plan,
        ask: &Ask<'_>,
        now: &OnDisk,
        ctx: &RequestContext<RoleServer>,
        retry: &Retry,
    ) -> Result<Asked, ToolError> {
        // A start that would return a job already running (same task, argv and environment)
        // runs nothing new: it was asked about when it started.
        if !plan.allow_parallel && self.0.engine().running_like(plan.invocation()?).is_some() {
            return Ok(Asked::ReuseOnly);
        }
        let mut questions = Vec::new();
        if let Some(permission) = &ask.permission {
            questions.extend(ask::permission(&ask.shown, permission));
        }
        if !ask.confirm.is_empty() {
            questions.extend(ask::confirmation(&ask.shown, &ask.confirm));
        }
        let outcome = if is_modern(ctx) {
            let supports = ctx
                .meta
                .client_capabilities()
                .is_some_and(|c| c.elicitation.is_some());
            self.0
                .asker()
                .modern(supports, &ask.shown, questions, retry)
        } else {
            self.0
                .asker()
                .classic(&ctx.peer, &ask.shown, questions)
                .await
        };
        let answers = match outcome {
            Outcome::NeedInput(question) => return Ok(Asked::Question(question)),
            Outcome::Answers(answers) => answers,
            Outcome::Unsupported => return Err(refused(ask.refusal.clone())),
        };
        // The answer covers what the person saw: the files must still say it.
        let mut again = OnDisk::new();
        admission::still_as_shown(again.current(&plan.table.root, plan.task()), &ask.shown)
            .map_err(refused)?;
        if ask.permission.is_some() {
            match ask::chosen(&answers) {
                Some(choice) => self.record(choice, plan, now).await?,
                None => return Err(refused(admission::declined(ask))),
            }
        }
        if !ask.confirm.is_empty() {
            if !ask::confirmed(&answers) {
                return Err(refused(admission::not_confirmed(ask)));
            }
            plan.opts.confirmed = true;
            plan.inv = Some(
                invocation(&plan.table, plan.task(), &plan.opts)
                    .map_err(|e| invocation_error(plan.task(), e))?,
            );
        }
        Ok(Asked::Yes)
    }

    /// Writes the person's answer as `agg allow` / `agg deny` would, pinning what they were
    /// shown (`now`); `Err` for a deny.
    async fn record(&self, choice: Choice, plan: &Plan, now: &OnDisk) -> Result<(), ToolError> {
        if choice == Choice::Once {
            return Ok(());
        }
        let task = plan.task();
        let name = admission::quoted(&task.unique_name);
        let Some(store) = self.0.allowlist().store() else {
            tracing::warn!("the user's answer cannot be written: no allowlist file");
            return if choice == Choice::Deny {
                Err(tool_error(
                    ErrorCode::NotAllowlisted,
                    format!("`{name}` was denied by the user"),
                    None,
                ))
            } else {
                Ok(())
            };
        };
        let root = plan.table.root.clone();
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
                ErrorCode::NotAllowlisted,
                format!("`{name}` was denied by the user (and is now denied in the allowlist)"),
                None,
            ));
        }
        Ok(())
    }

    /// Step 4: the job, started (or the same one running, by `duplicates`).
    fn launch(&self, plan: &mut Plan, duplicates: Duplicates) -> Result<Started, ToolError> {
        let inv = plan.inv.take().ok_or_else(launched)?;
        let task = plan.task();
        let started = self
            .0
            .engine()
            .start(inv, crate::engine::StdioMode::Capture, duplicates)
            .map_err(|e| match e {
                StartError::TooManyJobs { .. } => tool_error(
                    ErrorCode::TooManyJobs,
                    e.to_string(),
                    Some("status lists the running jobs; task_stop ends one".to_owned()),
                ),
                StartError::NotRunning => tool_error(
                    ErrorCode::NotFound,
                    format!(
                        "`{}`: {e}; nothing ran",
                        admission::quoted(&task.unique_name)
                    ),
                    Some("call task_start again (the user is asked first)".to_owned()),
                ),
            })?;
        if !started.reused {
            self.follow_log_resource(Arc::clone(&started.job));
        }
        Ok(started)
    }

    /// Step 5: the job's first window — its end, or readiness — and the result.
    async fn settle(
        &self,
        plan: &Plan,
        started: Started,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ToolError> {
        let job = Arc::clone(&started.job);
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
        let wait = Duration::from_millis(plan.wait_ms);
        let waited = tokio::select! {
            finished = readiness::settle(&job, plan.probe.as_ref(), wait, &mut ready) => Some(finished),
            () = stream::progress(ctx.peer.clone(), progress, Arc::clone(&job)) => None,
            () = ctx.ct.cancelled() => {
                // The client gave up on this call: the job goes with it.
                self.0.engine().stop(&job, Duration::from_secs(5)).await;
                if stream::wanted(&self.0, levels, LoggingLevel::Warning) {
                    stream::final_words(&job, &ctx.peer).await;
                }
                None
            }
        };
        if waited == Some(true) {
            settled.store(true, Ordering::Release);
        }
        if waited == Some(false)
            && plan.probe.is_none()
            && tasks_extension::declared(&ctx)
            && job.is_running()
        {
            return Ok(CallToolResponse::Task(self.0.mcp_tasks().create(
                &job,
                plan.mode,
                plan.tail_lines,
            )));
        }
        let block = render::output(&job, plan.mode, plan.tail_lines, RESULT_CAP);
        let mut result = render::job_result(&job, plan.mode, block, started.reused);
        readiness::annotate(&mut result, ready);
        Ok(success(&result, render::job_text(&result)).into())
    }
}

/// Step 2: what the task's files say now and the rules that name it, decided by
/// admission. `now` keeps what was read, for the pin a lasting answer writes.
fn admit<'m>(
    plan: &Plan,
    now: &mut OnDisk,
    matched: &'m crate::allowlist::Matched,
    can_ask: bool,
) -> Result<Admission<'m>, ToolError> {
    let task = plan.task();
    let current = now.current(&plan.table.root, task);
    let runs = runs(plan.invocation()?, &plan.opts);
    let is_task = |name: &str| {
        plan.table.tasks.iter().any(|t| {
            t.source_name == name && t.runner == task.runner && t.file_path == task.file_path
        })
    };
    Ok(admission::admit(&Facts {
        listed: task,
        now: current,
        rules: matched,
        args: &plan.opts.args,
        env: &plan.opts.env,
        runs: &runs,
        is_task: &is_task,
        root: &plan.table.root,
        can_ask,
    }))
}

/// Whether the client can ask its user: a classic session whose client declared
/// elicitation, or a 2026-07-28 call whose client declares it or brings an answer.
fn can_ask(ctx: &RequestContext<RoleServer>, retry: &Retry) -> bool {
    if is_modern(ctx) {
        ctx.meta
            .client_capabilities()
            .is_some_and(|c| c.elicitation.is_some())
            || (retry.state.is_some() && retry.responses.is_some())
    } else {
        !ctx.peer.supported_elicitation_modes().is_empty()
    }
}

/// What runs, as a question shows it.
fn runs(inv: &Invocation, opts: &RunOptions) -> Runs {
    Runs {
        argv: std::iter::once(&inv.program)
            .chain(&inv.args)
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
        dir: inv.cwd.display().to_string(),
        skip_deps: opts.skip_deps,
    }
}

/// A start's invocation asked for after it was launched: a bug in the order of the steps,
/// said rather than panicked on.
fn launched() -> ToolError {
    tool_error(
        ErrorCode::NotFound,
        "internal error: the start was already launched; nothing more ran",
        None,
    )
}

/// A refusal as the agent reads it.
fn refused(refusal: Refusal) -> ToolError {
    let code = match refusal.code {
        Code::NotAllowlisted => ErrorCode::NotAllowlisted,
        Code::Stale => ErrorCode::NotFound,
        Code::NeedsConfirmation => ErrorCode::NeedsConfirmation,
        Code::NeedsApproval => ErrorCode::NeedsApproval,
        Code::EnvRefused => ErrorCode::EnvRefused,
        Code::InvalidArgs => ErrorCode::InvalidArgs,
    };
    tool_error(code, refusal.message, refusal.hint)
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
            ErrorCode::RunnerUnavailable,
            format!(
                "`{}` needs {runner}, which is not installed",
                admission::quoted(&task.unique_name)
            ),
            Some(format!("install it: {hint}")),
        ),
        InvocationError::NotRunnable { reason } => not_runnable(task, &reason),
        other => tool_error(
            ErrorCode::InvalidArgs,
            admission::quoted(&other.to_string()),
            None,
        ),
    }
}

/// The refusal for a task agg lists but cannot run.
fn not_runnable(task: &Task, reason: &str) -> ToolError {
    tool_error(
        ErrorCode::NotRunnable,
        format!(
            "agg cannot run `{}`: {}",
            admission::quoted(&task.unique_name),
            admission::shown_line(reason)
        ),
        Some("the user can run it from the editor that defines it".to_owned()),
    )
}
