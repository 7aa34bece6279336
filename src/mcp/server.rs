//! The MCP request handler: the tool list, and one function per tool.
//!
//! Read-only tools always work; execution tools consult the user's allowlist first. Every
//! result carries `structuredContent` (matching the tool's published `outputSchema`) and a
//! compact text copy. Failures the model should read are `isError` results with a machine
//! code and a hint; malformed requests and unknown tools stay JSON-RPC errors.
#![allow(deprecated)] // rmcp marks the MCP logging API deprecated (SEP-2577); we still serve it.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use agg_runners::Runner;
use rmcp::handler::server::tool::{schema_for_input, schema_for_output};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, GetTaskParams,
    GetTaskResult, Implementation, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, LoggingLevel, PaginatedRequestParams, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourceContents,
    ServerCapabilities, ServerConfig, SetLevelRequestParams, SubscribeRequestParams,
    SubscriptionFilter, Tool, ToolAnnotations, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext, SubscriptionSink};
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler};
use schemars::JsonSchema;

use super::ask::{self, Asker, Choice, Outcome, Retry};
use super::envelope::{ToolError, ToolResult, code, failure, invalid, parse, success, tool_error};
use super::mcp_tasks::{self, McpTasks};
use super::readiness;
use super::render::{self, RESULT_CAP};
use super::resources::{self, Subscriptions};
use super::schema;
use super::stream;
use super::types::{
    AllowlistInfo, DescribeResult, DescribeTaskArgs, JobRef, JobResult, ListTasksArgs,
    ListTasksResult, MAX_WAIT_MS, OutputMode, StatusArgs, StatusResult, TaskOutputArgs, TaskRow,
    TaskStartArgs, TaskStatusArgs, TaskStopArgs,
};
use crate::allowlist::{Decision, LiveAllowlist};
use crate::engine::{Engine, Job};
use crate::invocation::{InvocationError, RunOptions, invocation};
use crate::live::LiveTable;
use crate::table::{Filter, Table, Task};

use super::task_tools::{self, TaskTool};

/// The `agg mcp` handler.
#[derive(Debug, Clone)]
pub struct Server(pub(super) Arc<State>);

use super::state::{Settings, State, lock};

fn tool<I: JsonSchema + 'static, O: JsonSchema + 'static>(
    name: &'static str,
    description: &'static str,
    annotations: ToolAnnotations,
) -> Tool {
    let input = schema_for_input::<I>().unwrap_or_default();
    let output = schema_for_output::<O>();
    Tool::new(name, description, schema::portable(&input))
        .with_raw_output_schema(schema::portable(&output))
        .with_annotations(annotations)
}

fn read_only() -> ToolAnnotations {
    ToolAnnotations::new()
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false)
}

/// The fixed tools.
pub fn tools() -> Vec<Tool> {
    vec![
        tool::<ListTasksArgs, ListTasksResult>(
            "list_tasks",
            "List the repository's tasks (Make, npm/pnpm/yarn/bun scripts, Cargo aliases, just, go-task, xc) with their unique names, commands, directories, descriptions and whether agents may run them. Filter with runner, dir and query to fetch little.",
            read_only(),
        ),
        tool::<DescribeTaskArgs, DescribeResult>(
            "describe_task",
            "Everything known about one task: command, dir, file:line, description, params, deps, env and the script it runs.",
            read_only(),
        ),
        tool::<TaskStartArgs, JobResult>(
            "task_start",
            "Run a task. Returns its exit code and output if it ends within wait_ms (default 1000); otherwise returns state running with a run_id while it continues in the background. With ready (an output line regex, a port, or a URL) it returns as soon as the task is ready, with the URLs it printed; services (dev, serve, start, watch, …) wait for readiness by themselves. Only tasks the user allowlisted run.",
            ToolAnnotations::new()
                .read_only(false)
                .destructive(true)
                .idempotent(false)
                .open_world(true),
        ),
        tool::<StatusArgs, StatusResult>(
            "status",
            "Every running and recently finished job: run_id, pid, task, args, state and elapsed time.",
            read_only(),
        ),
        tool::<TaskStatusArgs, JobResult>(
            "task_status",
            "State, exit code or signal, times and recent output of one job, by run_id, pid or unique_name.",
            read_only(),
        ),
        tool::<TaskOutputArgs, JobResult>(
            "task_output",
            "A job's output: a tail, stderr only, or a page from an offset (next_offset continues it).",
            read_only(),
        ),
        tool::<TaskStopArgs, JobResult>(
            "task_stop",
            "Stop a job: SIGTERM to its whole process group, then SIGKILL after grace_ms (default 5000). Returns its final state and last output.",
            ToolAnnotations::new()
                .read_only(false)
                .destructive(true)
                .idempotent(true)
                .open_world(false),
        ),
    ]
}

impl Server {
    /// A server for the repository at `root` (canonical), whose table `live` keeps current.
    pub fn new(root: PathBuf, live: LiveTable, engine: Engine, settings: Settings) -> Server {
        let allowlist = LiveAllowlist::new(settings.allowlist.clone(), &root);
        if let Some(problem) = allowlist.problem() {
            tracing::warn!("allowlist: {problem}");
        }
        if let Some(problem) = live.problem() {
            tracing::warn!("{problem}");
        }
        let per_task = settings
            .task_tools
            .as_ref()
            .map(|t| t.tools(&live.table()))
            .unwrap_or_default();
        if per_task.left_out > 0 {
            tracing::warn!("{}", per_task.left_out_text());
        }
        Server(Arc::new(State {
            root,
            live,
            task_tools: RwLock::new(per_task),
            engine,
            allowlist: Mutex::new(allowlist),
            level: Mutex::new(None),
            settings,
            peer: Mutex::new(None),
            sinks: Mutex::new(Vec::new()),
            modern: AtomicBool::new(false),
            subscriptions: Mutex::new(Subscriptions::default()),
            asker: Asker::default(),
            mcp_tasks: McpTasks::default(),
        }))
    }

    /// The engine, for shutdown.
    pub fn engine(&self) -> &Engine {
        &self.0.engine
    }

    /// Remembers the session's peer for notifications sent outside a request.
    pub fn set_peer(&self, peer: Peer<RoleServer>) {
        *lock(&self.0.peer) = Some(peer);
    }

    fn table(&self) -> Arc<Table> {
        self.0.live.table()
    }

    /// The current table: kept fresh by the file watch, or scanned again when no watch
    /// runs.
    async fn fresh(&self) -> Arc<Table> {
        if self.0.live.watching() {
            return self.table();
        }
        self.rescan().await
    }

    /// Scans the whole repository again and returns the new table.
    async fn rescan(&self) -> Arc<Table> {
        let state = Arc::clone(&self.0);
        tokio::task::spawn_blocking(move || state.live.refresh())
            .await
            .unwrap_or_else(|_| self.table())
    }

    /// Recomputes the per-task tools after the table changed; tells the client that the
    /// task table changed (resource `agg://tasks`) and, when the per-task tools did, that
    /// the tool list changed. The seven fixed tools never change.
    pub fn table_changed(&self) {
        if let Some(tt) = &self.0.settings.task_tools {
            let selection = tt.tools(&self.table());
            let mut current = self
                .0
                .task_tools
                .write()
                .unwrap_or_else(PoisonError::into_inner);
            let same = current.tools.len() == selection.tools.len()
                && current
                    .tools
                    .iter()
                    .zip(&selection.tools)
                    .all(|(a, b)| a.tool == b.tool && a.unique_name == b.unique_name);
            if selection.left_out > 0 && selection.left_out != current.left_out {
                tracing::warn!("{}", selection.left_out_text());
            }
            *current = selection;
            drop(current);
            if !same {
                self.notify_tools_changed();
            }
        }
        self.notify_resource_updated(resources::TASKS_URI.to_owned());
    }

    fn per_task_tools(&self) -> Vec<TaskTool> {
        self.0
            .task_tools
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .tools
            .clone()
    }

    /// The task named `name`; a task file may have changed since the last scan, so a miss
    /// scans again before answering with suggestions.
    ///
    /// Names resolve as agents give them (`resolve::for_agent`): the unique name, `RUNNER
    /// NAME`, or what a go-task wildcard task matches (`greet:bob` for `greet:*`, whose
    /// matched parts come back as the arguments to put first).
    async fn find(&self, name: &str) -> Result<(Arc<Table>, usize, Vec<String>), ToolError> {
        let position = |t: &Table| {
            crate::resolve::for_agent(t, name).and_then(|r| {
                t.tasks
                    .iter()
                    .position(|task| std::ptr::eq(task, r.task))
                    .map(|i| (i, r.implied_args))
            })
        };
        let table = self.table();
        if let Some((i, implied)) = position(&table) {
            return Ok((table, i, implied));
        }
        let table = self.rescan().await;
        if let Some((i, implied)) = position(&table) {
            Ok((table, i, implied))
        } else {
            let mut err = tool_error(
                code::NOT_FOUND,
                format!("no task named `{name}`"),
                Some("list_tasks shows every task; pass its unique_name".to_owned()),
            );
            err.suggestions =
                crate::resolve::suggest(table.tasks.iter().map(|t| t.unique_name.as_str()), name);
            Err(err)
        }
    }

    fn decide(&self, task: &Task) -> Decision {
        lock(&self.0.allowlist).decide(task)
    }

    fn allowlist_info(&self) -> AllowlistInfo {
        let list = lock(&self.0.allowlist);
        AllowlistInfo {
            path: list.path().map(|p| p.display().to_string()),
            problem: list.problem().map(str::to_owned),
        }
    }

    async fn list_tasks(&self, args: ListTasksArgs) -> ToolResult {
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
        let matching: Vec<&Task> = table.tasks.iter().filter(|t| filter.matches(t)).collect();
        let offset = args.offset.unwrap_or(0);
        let limit = args.limit.unwrap_or(200).max(1);
        let rows: Vec<TaskRow> = matching
            .iter()
            .skip(offset)
            .take(limit)
            .map(|t| TaskRow {
                allowlisted: self.decide(t).allowed(),
                behaviour: table.behaviour(t).cloned().unwrap_or_default(),
                task: (*t).clone(),
            })
            .collect();
        let next = offset + rows.len();
        let result = ListTasksResult {
            root: table.root.display().to_string(),
            total: matching.len(),
            next_offset: (next < matching.len()).then_some(next),
            tasks: rows,
            diagnostics: table.diagnostics.clone(),
            allowlist: self.allowlist_info(),
        };
        let text = list_text(&result);
        Ok(success(&result, text))
    }

    async fn describe_task(&self, args: DescribeTaskArgs) -> ToolResult {
        let (table, i, _) = self.find(&args.unique_name).await?;
        let task = &table.tasks[i];
        let decision = self.decide(task);
        let result = DescribeResult {
            detail: crate::detail::of(
                &table,
                task,
                crate::invocation::resolve_program(task)
                    .ok()
                    .map(|p| p.to_string_lossy().into_owned()),
            ),
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
    async fn run_task_tool(
        &self,
        unique_name: String,
        args: rmcp::model::JsonObject,
        ctx: RequestContext<RoleServer>,
        retry: Retry,
    ) -> Result<CallToolResponse, ToolError> {
        let table = self.table();
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

    /// Writes the user's answer as `agg allow` / `agg deny` would; `Err` for a deny.
    async fn record(&self, choice: Choice, table: &Table, task: &Task) -> Result<(), ToolError> {
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
        let written = tokio::task::spawn_blocking(move || match choice {
            Choice::AlwaysTask => store.allow_task(&root, &owned),
            Choice::AlwaysFile => store.allow_task_file(&root, &owned, false),
            Choice::Deny | Choice::Once => store.deny_task(&root, &owned),
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

    async fn task_start(
        &self,
        args: TaskStartArgs,
        ctx: RequestContext<RoleServer>,
        retry: Retry,
    ) -> Result<CallToolResponse, ToolError> {
        let wait_ms = args.wait_ms.unwrap_or(self.0.settings.wait_ms);
        if wait_ms > MAX_WAIT_MS {
            return Err(invalid(format!(
                "wait_ms is at most {MAX_WAIT_MS} (10 minutes)"
            )));
        }
        let mode = args.output.unwrap_or_default();
        let tail_lines = args.tail_lines.unwrap_or(self.0.settings.tail_lines);
        let (table, i, implied) = self.find(&args.unique_name).await?;
        let task = &table.tasks[i];
        let probe = readiness::plan(task, args.ready.as_ref(), args.wait_ms)?;
        let refusal = match self.decide(task) {
            Decision::Allowed(_) => None,
            Decision::Denied(rule) => {
                // A deny is never asked about.
                return Err(tool_error(
                    code::NOT_ALLOWLISTED,
                    format!("`{}` is denied by the user's allowlist ({rule})", task.unique_name),
                    Some("only the user can change this, with `agg allow` / `agg deny` outside the agent".to_owned()),
                ));
            }
            Decision::Lapsed { summary, .. } => Some((
                format!("changed since you allowed it: {summary}"),
                tool_error(
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
            )),
            Decision::NotListed => Some((
                "is not in your allowlist".to_owned(),
                tool_error(
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
            )),
        };
        let confirm_texts = table
            .behaviour(task)
            .map(|b| b.confirm.clone())
            .unwrap_or_default();
        let mut questions = Vec::new();
        if let Some((reason, _)) = &refusal {
            questions.extend(ask::permission(task, reason));
        }
        if !confirm_texts.is_empty() {
            questions.extend(ask::confirmation(task, &confirm_texts));
        }
        let mut confirmed = false;
        if !questions.is_empty() {
            let outcome = if is_modern(&ctx) {
                let supports = ctx
                    .meta
                    .client_capabilities()
                    .is_some_and(|c| c.elicitation.is_some());
                self.0.asker.modern(supports, task, questions, &retry)
            } else {
                self.0.asker.classic(&ctx.peer, task, questions).await
            };
            let answers = match outcome {
                Outcome::NeedInput(question) => return Ok(question.into()),
                Outcome::Answers(answers) => answers,
                Outcome::Unsupported => {
                    return Err(match refusal {
                        Some((_, refusal)) => refusal,
                        None => needs_confirmation(task, &confirm_texts),
                    });
                }
            };
            if refusal.is_some() {
                match ask::chosen(&answers) {
                    Some(choice) => self.record(choice, &table, task).await?,
                    None => {
                        return Err(tool_error(
                            code::NOT_ALLOWLISTED,
                            format!("`{}` was declined by the user", task.unique_name),
                            None,
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
                confirmed = true;
            }
        }
        let opts = RunOptions {
            args: implied.into_iter().chain(args.args).collect(),
            confirmed,
            env: args.env.into_iter().collect(),
            skip_deps: args.skip_deps,
        };
        let inv = invocation(&table, task, &opts).map_err(|e| match e {
            InvocationError::RunnerMissing { runner, hint } => tool_error(
                code::RUNNER_UNAVAILABLE,
                format!(
                    "`{}` needs {runner}, which is not installed",
                    task.unique_name
                ),
                Some(format!("install it: {hint}")),
            ),
            other => tool_error(code::INVALID_ARGS, other.to_string(), None),
        })?;
        let started = self
            .0
            .engine
            .start(inv, crate::engine::StdioMode::Capture, args.allow_parallel)
            .map_err(|e| {
                tool_error(
                    code::TOO_MANY_JOBS,
                    e.to_string(),
                    Some("status lists the running jobs; task_stop ends one".to_owned()),
                )
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

    fn status(&self) -> CallToolResult {
        let jobs: Vec<_> = self.0.engine.list().iter().map(|j| j.snapshot()).collect();
        let running = jobs
            .iter()
            .filter(|j| j.state == crate::engine::JobState::Running)
            .count();
        let result = StatusResult {
            jobs,
            running,
            max_running: self.0.engine.config().max_running,
        };
        let mut text = format!(
            "{} jobs, {} running (at most {})",
            result.jobs.len(),
            running,
            result.max_running
        );
        for j in &result.jobs {
            let _ = write!(
                text,
                "\n{}  {}  {}  pid {}  {}ms{}",
                j.run_id,
                j.unique_name,
                j.state.as_str(),
                j.pid.map_or_else(|| "-".to_owned(), |p| p.to_string()),
                j.elapsed_ms,
                j.exit_code
                    .map_or_else(String::new, |c| format!("  exit {c}"))
            );
        }
        success(&result, text)
    }

    fn job(&self, r: &JobRef) -> Result<Arc<Job>, ToolError> {
        let given = usize::from(r.run_id.is_some())
            + usize::from(r.pid.is_some())
            + usize::from(r.unique_name.is_some());
        if given != 1 {
            return Err(invalid("give exactly one of run_id, pid or unique_name"));
        }
        let found = if let Some(id) = &r.run_id {
            self.0.engine.get(id)
        } else if let Some(pid) = r.pid {
            self.0.engine.by_pid(pid)
        } else {
            r.unique_name
                .as_deref()
                .and_then(|n| self.0.engine.by_task(n))
        };
        found.ok_or_else(|| {
            let wanted = r
                .run_id
                .clone()
                .or_else(|| r.pid.map(|p| format!("pid {p}")))
                .or_else(|| r.unique_name.clone())
                .unwrap_or_default();
            let mut err = tool_error(
                code::NOT_FOUND,
                format!("no job {wanted}"),
                Some("status lists the running and recently finished jobs (the 20 newest finished ones are kept)".to_owned()),
            );
            let ids = self.0.engine.run_ids();
            err.suggestions = crate::resolve::suggest(ids.iter().map(String::as_str), &wanted);
            err
        })
    }

    fn task_status(&self, args: &TaskStatusArgs) -> ToolResult {
        let job = self.job(&args.job_ref())?;
        let tail = args.tail_lines.unwrap_or(20);
        let block = render::output(&job, OutputMode::Tail, tail, RESULT_CAP);
        let result = render::job_result(&job, OutputMode::Tail, block, false);
        Ok(success(&result, render::job_text(&result)))
    }

    fn task_output(&self, args: &TaskOutputArgs) -> ToolResult {
        let job = self.job(&args.job_ref())?;
        let max_bytes = args.max_bytes.unwrap_or(RESULT_CAP).clamp(256, 256 * 1024);
        let mode = args.output.unwrap_or_default();
        let tail = args.tail_lines.unwrap_or(self.0.settings.tail_lines);
        let block = match args.offset {
            Some(offset) => Some(render::page(&job, offset, max_bytes)),
            None => render::output(&job, mode, tail, max_bytes),
        };
        let result = render::job_result(&job, mode, block, false);
        Ok(success(&result, render::job_text(&result)))
    }

    async fn task_stop(&self, args: TaskStopArgs) -> ToolResult {
        let job = self.job(&args.job_ref())?;
        let grace = Duration::from_millis(args.grace_ms.unwrap_or(5000).min(60_000));
        self.0.engine.stop(&job, grace).await;
        let mode = args.output.unwrap_or_default();
        let tail = args.tail_lines.unwrap_or(self.0.settings.tail_lines);
        let block = render::output(&job, mode, tail, RESULT_CAP);
        let result = render::job_result(&job, mode, block, false);
        Ok(success(&result, render::job_text(&result)))
    }

    /// Tells every session that the tool list changed (only per-task tools ever change).
    pub fn notify_tools_changed(&self) {
        let peer = lock(&self.0.peer).clone();
        let sinks: Vec<SubscriptionSink> = lock(&self.0.sinks).clone();
        let modern = self.0.modern.load(Ordering::Relaxed);
        tokio::spawn(async move {
            if modern {
                for sink in sinks {
                    let _ = sink.notify_tool_list_changed().await;
                }
            } else if let Some(peer) = peer {
                let _ = peer.notify_tool_list_changed().await;
            }
        });
    }

    /// `notifications/resources/updated` for `uri`, to sessions that subscribed to it.
    fn notify_resource_updated(&self, uri: String) {
        let sinks: Vec<SubscriptionSink> = lock(&self.0.sinks).clone();
        let peer = lock(&self.0.subscriptions)
            .has(&uri)
            .then(|| lock(&self.0.peer).clone())
            .flatten();
        if sinks.is_empty() && peer.is_none() {
            return;
        }
        tokio::spawn(async move {
            for sink in sinks {
                // A sink refuses URIs its listener did not ask for; that is not an error.
                let _ = sink.notify_resource_updated(uri.clone()).await;
            }
            if let Some(peer) = peer {
                let _ = peer
                    .notify_resource_updated(rmcp::model::ResourceUpdatedNotificationParam::new(
                        uri,
                    ))
                    .await;
            }
        });
    }

    /// `notifications/resources/list_changed`: a job's log appeared or went away.
    fn notify_resource_list_changed(&self) {
        let peer = lock(&self.0.peer).clone();
        let sinks: Vec<SubscriptionSink> = lock(&self.0.sinks).clone();
        let modern = self.0.modern.load(Ordering::Relaxed);
        tokio::spawn(async move {
            if modern {
                for sink in sinks {
                    let _ = sink.notify_resource_list_changed().await;
                }
            } else if let Some(peer) = peer {
                let _ = peer.notify_resource_list_changed().await;
            }
        });
    }

    /// While `job` runs, tells subscribers of its log that it grew (at most every 250 ms);
    /// its log resource appears when it starts.
    fn follow_log_resource(&self, job: Arc<Job>) {
        self.notify_resource_list_changed();
        let server = self.clone();
        let uri = resources::run_log_uri(&job.run_id);
        let mut changes = job.subscribe();
        tokio::spawn(async move {
            loop {
                let running = job.is_running();
                server.notify_resource_updated(uri.clone());
                if !running || changes.changed().await.is_err() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
        });
    }

    async fn read_resource_target(&self, uri: &str) -> Result<ReadResourceResult, ErrorData> {
        let target = resources::parse(uri).map_err(|e| ErrorData::resource_not_found(e, None))?;
        match target {
            resources::Target::Tasks => {
                let table = self.fresh().await;
                let rows: Vec<TaskRow> = table
                    .tasks
                    .iter()
                    .map(|t| TaskRow {
                        allowlisted: self.decide(t).allowed(),
                        behaviour: table.behaviour(t).cloned().unwrap_or_default(),
                        task: t.clone(),
                    })
                    .collect();
                let result = ListTasksResult {
                    root: table.root.display().to_string(),
                    total: rows.len(),
                    next_offset: None,
                    tasks: rows,
                    diagnostics: table.diagnostics.clone(),
                    allowlist: self.allowlist_info(),
                };
                let text = super::envelope::without_nulls(&result).to_string();
                Ok(ReadResourceResult::new(vec![
                    ResourceContents::TextResourceContents {
                        uri: uri.to_owned(),
                        mime_type: Some("application/json".into()),
                        text,
                        meta: None,
                    },
                ]))
            }
            resources::Target::RunLog {
                run_id,
                offset,
                max_bytes,
            } => {
                let job = self.0.engine.get(&run_id).ok_or_else(|| {
                    ErrorData::resource_not_found(
                        format!("no job {run_id}: resources/list shows the retained jobs"),
                        None,
                    )
                })?;
                let from = offset.unwrap_or(1);
                let block = render::page(&job, from, max_bytes);
                let mut meta = rmcp::model::JsonObject::new();
                meta.insert(
                    "agg/page".into(),
                    serde_json::json!({
                        "first_line": block.first_line,
                        "next_offset": block.next_offset,
                        "total_lines": block.total_lines,
                        "dropped": block.dropped,
                        "state": job.state().as_str(),
                        "marker": block.marker,
                    }),
                );
                Ok(ReadResourceResult::new(vec![
                    ResourceContents::TextResourceContents {
                        uri: uri.to_owned(),
                        mime_type: Some("text/plain".into()),
                        text: block.text,
                        meta: Some(rmcp::model::MetaObject(meta)),
                    },
                ]))
            }
        }
    }
}

/// The refusal for a task whose runner asks for confirmation, when the client cannot ask.
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

fn is_modern(ctx: &RequestContext<RoleServer>) -> bool {
    ctx.protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28)
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

fn list_text(r: &ListTasksResult) -> String {
    let mut s = format!(
        "{} of {} tasks in {} (✓ = agents may run it)\n",
        r.tasks.len(),
        r.total,
        r.root
    );
    for row in &r.tasks {
        let t = &row.task;
        let _ = writeln!(
            s,
            "{} {} [{}{}] {}",
            if row.allowlisted { "✓" } else { "·" },
            t.unique_name,
            t.runner,
            if t.runner_available {
                ""
            } else {
                ", not installed"
            },
            t.description.as_deref().map_or_else(
                || format!("$ {}", t.command),
                |d| d.lines().next().unwrap_or("").to_owned()
            )
        );
    }
    if let Some(next) = r.next_offset {
        let _ = writeln!(
            s,
            "[{} more: list_tasks with offset {next}, or narrow with query/dir/runner]",
            r.total - next
        );
    }
    if !r.diagnostics.is_empty() {
        let _ = writeln!(
            s,
            "{} files had problems (see diagnostics)",
            r.diagnostics.len()
        );
    }
    if let Some(problem) = &r.allowlist.problem {
        let _ = writeln!(s, "allowlist: {problem}");
    }
    s
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let per_task = self.0.settings.task_tools.is_some();
        let capabilities = ServerCapabilities::builder()
            .enable_logging()
            .enable_tools()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_resources_subscribe()
            .build();
        let mut capabilities = capabilities;
        capabilities
            .extensions
            .get_or_insert_with(rmcp::model::ExtensionCapabilities::new)
            .insert(
                rmcp::model::TASKS_EXTENSION_ID.to_owned(),
                rmcp::model::JsonObject::new(),
            );
        if let Some(tools) = capabilities.tools.as_mut() {
            tools.list_changed = per_task.then_some(true);
        }
        let mut instructions = "agg lists and runs this repository's tasks. Call list_tasks (filter with query/dir/runner), then task_start with a unique_name. Tasks that outlast wait_ms keep running: follow them with task_status/task_output and end them with task_stop. Only tasks the user allowlisted (`agg allow`) can run. The table is also the resource agg://tasks, and each job's output agg://runs/{run_id}/log.".to_owned();
        let selection = self
            .0
            .task_tools
            .read()
            .unwrap_or_else(PoisonError::into_inner);
        if selection.left_out > 0 {
            let _ = write!(instructions, " Note: {}.", selection.left_out_text());
        }
        drop(selection);
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("agg", env!("CARGO_PKG_VERSION")))
            .with_instructions(instructions)
    }

    async fn set_level(
        &self,
        req: SetLevelRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        *lock(&self.0.level) = Some(req.level);
        Ok(())
    }

    async fn list_tools(
        &self,
        _req: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.mark_session(&ctx);
        let mut all = tools();
        all.extend(self.per_task_tools().into_iter().map(|t| t.tool));
        Ok(ListToolsResult::with_all_items(all))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        tools()
            .into_iter()
            .chain(self.per_task_tools().into_iter().map(|t| t.tool))
            .find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        req: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.mark_session(&ctx);
        let args = req.arguments.clone();
        let retry = Retry {
            responses: req.input_responses.clone(),
            state: req.request_state.clone(),
        };
        if req.name == "task_start" {
            let response = match parse(args) {
                Ok(a) => self.task_start(a, ctx, retry).await,
                Err(e) => Err(e),
            };
            return Ok(response.unwrap_or_else(|e| failure(&e).into()));
        }
        let result = match req.name.as_ref() {
            "list_tasks" => match parse(args) {
                Ok(a) => self.list_tasks(a).await,
                Err(e) => Err(e),
            },
            "describe_task" => match parse(args) {
                Ok(a) => self.describe_task(a).await,
                Err(e) => Err(e),
            },
            "status" => parse::<StatusArgs>(args).map(|_| self.status()),
            "task_status" => parse(args).and_then(|a| self.task_status(&a)),
            "task_output" => parse(args).and_then(|a| self.task_output(&a)),
            "task_stop" => match parse(args) {
                Ok(a) => self.task_stop(a).await,
                Err(e) => Err(e),
            },
            other => {
                let per_task = self
                    .per_task_tools()
                    .into_iter()
                    .find(|t| t.tool.name == other);
                match per_task {
                    Some(t) => {
                        let response = self
                            .run_task_tool(t.unique_name, args.unwrap_or_default(), ctx, retry)
                            .await;
                        return Ok(response.unwrap_or_else(|e| failure(&e).into()));
                    }
                    None => {
                        return Err(ErrorData::invalid_params(
                            format!("unknown tool `{other}`"),
                            None,
                        ));
                    }
                }
            }
        };
        Ok(result.unwrap_or_else(|e| failure(&e)).into())
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.0.mcp_tasks.get(&request.task_id)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.0.mcp_tasks.cancel(&request.task_id, &self.0.engine)
    }

    async fn list_resources(
        &self,
        _req: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.mark_session(&ctx);
        Ok(ListResourcesResult::with_all_items(resources::list(
            &self.0.engine.list(),
        )))
    }

    async fn list_resource_templates(
        &self,
        _req: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.mark_session(&ctx);
        Ok(ListResourceTemplatesResult::with_all_items(
            resources::templates(),
        ))
    }

    async fn read_resource(
        &self,
        req: ReadResourceRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.mark_session(&ctx);
        if req.uri.len() > super::envelope::MAX_NAME_BYTES {
            return Err(ErrorData::invalid_params("uri is too long", None));
        }
        Ok(self.read_resource_target(&req.uri).await?.into())
    }

    async fn subscribe(
        &self,
        req: SubscribeRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.mark_session(&ctx);
        resources::parse(&req.uri).map_err(|e| ErrorData::resource_not_found(e, None))?;
        lock(&self.0.subscriptions).add(&req.uri);
        Ok(())
    }

    async fn unsubscribe(
        &self,
        req: UnsubscribeRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.mark_session(&ctx);
        lock(&self.0.subscriptions).remove(&req.uri);
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(requested.supported_by(&self.get_info().capabilities))
    }

    async fn listen(&self, ctx: SubscriptionContext) -> Result<(), ErrorData> {
        self.0.modern.store(true, Ordering::Relaxed);
        lock(&self.0.sinks).push(ctx.sink().clone());
        ctx.cancelled().await;
        let id = ctx.sink().id().clone();
        lock(&self.0.sinks).retain(|s| s.id() != &id);
        Ok(())
    }
}

impl Server {
    fn mark_session(&self, ctx: &RequestContext<RoleServer>) {
        if is_modern(ctx) {
            self.0.modern.store(true, Ordering::Relaxed);
        }
        let mut peer = lock(&self.0.peer);
        if peer.is_none() {
            *peer = Some(ctx.peer.clone());
        }
    }
}
