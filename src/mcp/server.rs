//! The MCP request handler: the tool list, and one function per tool.
//!
//! Read-only tools always work; execution tools consult the user's allowlist first. Every
//! result carries `structuredContent` (matching the tool's published `outputSchema`) and a
//! compact text copy. Failures the model should read are `isError` results with a machine
//! code and a hint; malformed requests and unknown tools stay JSON-RPC errors.
#![allow(deprecated)] // rmcp marks the MCP logging API deprecated (SEP-2577); we still serve it.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, GetTaskParams, GetTaskResult,
    Implementation, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ProtocolVersion, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, ResourceContents, ServerCapabilities, ServerConfig, SetLevelRequestParams,
    SubscribeRequestParams, SubscriptionFilter, Tool, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext, SubscriptionSink};
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler};

use super::ask::Retry;
use super::catalog::{self, Name};
use super::envelope::{ErrorCode, ToolError, failure, parse, tool_error};
use super::render::{self};
use super::resources;
use super::types::{ListTasksResult, StatusArgs, TaskRow};
use crate::allowlist::{Decision, LiveAllowlist, OnDisk};
use crate::engine::{Engine, Job};
use crate::table::{Table, Task};
use crate::watched_table::WatchedTable;

use super::per_task_tools::TaskTool;

/// The `agg mcp` handler.
#[derive(Debug, Clone)]
pub struct Server(pub(super) Arc<State>);

use super::state::{Settings, State};

/// The fixed tools with the default settings (tests and the schema check).
#[cfg(test)]
pub fn tools() -> Vec<Tool> {
    catalog::tools(&Settings {
        wait_ms: 1000,
        tail_lines: catalog::TAIL_LINES,
        allowlist: None,
        task_tools: None,
    })
}

impl Server {
    /// A server for the repository at `root` (canonical), whose table `live` keeps current.
    pub fn new(root: PathBuf, live: WatchedTable, engine: Engine, settings: Settings) -> Server {
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
        Server(Arc::new(State::new(
            root, live, engine, allowlist, settings, per_task,
        )))
    }

    /// Remembers the session's peer for notifications sent outside a request.
    pub fn set_peer(&self, peer: Peer<RoleServer>) {
        *self.0.peer() = Some(peer);
    }

    pub(super) fn table(&self) -> Arc<Table> {
        self.0.live().table()
    }

    /// The table once the first scan is done.
    pub(super) async fn built(&self) -> Arc<Table> {
        self.0.live().built().await;
        self.table()
    }

    /// The current table: kept fresh by the file watch, or scanned again when no watch
    /// runs.
    pub(super) async fn fresh(&self) -> Arc<Table> {
        self.0.live().built().await;
        if self.0.live().watching() {
            return self.table();
        }
        self.rescan().await
    }

    /// Scans the whole repository again and returns the new table.
    pub(super) async fn rescan(&self) -> Arc<Table> {
        let state = Arc::clone(&self.0);
        tokio::task::spawn_blocking(move || state.live().refresh())
            .await
            .unwrap_or_else(|_| self.table())
    }

    /// Recomputes the per-task tools after the table changed; tells the client that the
    /// task table changed (resource `agg://tasks`) and, when the per-task tools did, that
    /// the tool list changed. The eight fixed tools never change.
    pub fn table_changed(&self) {
        if let Some(tt) = &self.0.settings().task_tools {
            let selection = tt.tools(&self.table());
            let mut current = self.0.task_tools_mut();
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
                self.notify_list_changed(Changed::Tools);
            }
        }
        self.notify_resource_updated(resources::TASKS_URI.to_owned());
    }

    pub(super) fn per_task_tools(&self) -> Vec<TaskTool> {
        self.0.task_tools().tools.clone()
    }

    /// The task named `name`; a task file may have changed since the last scan, so a miss
    /// scans again before answering with suggestions.
    ///
    /// Names resolve as agents give them (`resolve::for_agent`): the unique name, `RUNNER
    /// NAME`, or what a go-task wildcard task matches (`greet:bob` for `greet:*`, whose
    /// matched parts come back as the arguments to put first).
    pub(super) async fn find(
        &self,
        name: &str,
    ) -> Result<(Arc<Table>, usize, Vec<String>), ToolError> {
        let position = |t: &Table| {
            crate::resolve::for_agent(t, name).and_then(|r| {
                t.tasks
                    .iter()
                    .position(|task| std::ptr::eq(task, r.task))
                    .map(|i| (i, r.implied_args))
            })
        };
        let table = self.built().await;
        if let Some((i, implied)) = position(&table) {
            return Ok((table, i, implied));
        }
        let table = self.rescan().await;
        if let Some((i, implied)) = position(&table) {
            Ok((table, i, implied))
        } else {
            let mut err = tool_error(
                ErrorCode::NotFound,
                format!(
                    "no task named `{}`",
                    crate::terminal_text::cut_line(name, 256)
                ),
                Some("list_tasks shows every task; pass its unique_name".to_owned()),
            );
            err.suggestions =
                crate::resolve::suggest(table.tasks.iter().map(|t| t.unique_name.as_str()), name)
                    .iter()
                    .map(|s| crate::terminal_text::cut_line(s, 256))
                    .collect();
            Err(err)
        }
    }

    /// One page of `matching` tasks of `table` as `list_tasks` and `agg://tasks` give it:
    /// each row with whether agents may run it and what running it involves, the total,
    /// and where the next page starts.
    /// Rows of `list_tasks`, at the most ([`catalog::LIST_MAX`] whatever `limit` says).
    pub(super) fn listing(
        &self,
        table: &Table,
        matching: &[&Task],
        offset: usize,
        limit: usize,
    ) -> ListTasksResult {
        let mut now = OnDisk::new();
        let history = crate::history::History::open_existing(&table.root)
            .map(|h| h.summaries())
            .unwrap_or_default();
        let rows: Vec<TaskRow> = matching
            .iter()
            .skip(offset)
            .take(limit.min(catalog::LIST_MAX))
            .map(|t| {
                TaskRow::of(t, self.decide(t, &mut now).allowed()).with_history(history.get(
                    &t.unique_name,
                    &t.file_path,
                    &t.source_name,
                ))
            })
            .collect();
        let next = offset + rows.len();
        ListTasksResult {
            root: table.root.display().to_string(),
            total: matching.len(),
            next_offset: (next < matching.len()).then_some(next),
            tasks: rows,
            problems: table.diagnostics.len(),
            diagnostics: table
                .diagnostics
                .iter()
                .take(catalog::LIST_DIAGNOSTICS)
                .cloned()
                .collect(),
            allowlist_problem: self.0.allowlist().problem().map(str::to_owned),
            suggestions: Vec::new(),
            changed: None,
        }
    }

    /// Whether agents may run `task`, its pins compared with what `now` reads from disk.
    pub(super) fn decide(&self, task: &Task, now: &mut OnDisk) -> Decision {
        self.0.allowlist().decide(task, now)
    }

    /// Tells every session that a list changed: the tools (only per-task tools ever
    /// change) or the resources (a job's log appeared).
    fn notify_list_changed(&self, what: Changed) {
        let peer = self.0.peer().clone();
        let sinks: Vec<SubscriptionSink> = self.0.sinks().clone();
        let modern = self.0.modern();
        tokio::spawn(async move {
            if modern {
                for sink in sinks {
                    let _ = match what {
                        Changed::Tools => sink.notify_tool_list_changed().await,
                        Changed::Resources => sink.notify_resource_list_changed().await,
                    };
                }
            } else if let Some(peer) = peer {
                let _ = match what {
                    Changed::Tools => peer.notify_tool_list_changed().await,
                    Changed::Resources => peer.notify_resource_list_changed().await,
                };
            }
        });
    }

    /// `notifications/resources/updated` for `uri`, to sessions that subscribed to it.
    pub(super) fn notify_resource_updated(&self, uri: String) {
        let sinks: Vec<SubscriptionSink> = self.0.sinks().clone();
        let peer = self
            .0
            .subscriptions()
            .has(&uri)
            .then(|| self.0.peer().clone())
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

    /// While `job` runs, tells subscribers of its log that it grew (at most every 250 ms);
    /// its log resource appears when it starts.
    pub(super) fn follow_log_resource(&self, job: Arc<Job>) {
        self.notify_list_changed(Changed::Resources);
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

    pub(super) async fn read_resource_target(
        &self,
        uri: &str,
    ) -> Result<ReadResourceResult, ErrorData> {
        let target = resources::parse(uri).map_err(|e| e.into_error(uri))?;
        match target {
            resources::Target::Tasks => {
                let table = self.fresh().await;
                let all: Vec<&Task> = table.tasks.iter().collect();
                let result = self.listing(&table, &all, 0, usize::MAX);
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
                let job = self.0.engine().get(&run_id).ok_or_else(|| {
                    resources::not_found(
                        uri,
                        format!("no job {run_id}: resources/list shows the retained jobs"),
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

/// Which list changed.
#[derive(Debug, Clone, Copy)]
enum Changed {
    Tools,
    Resources,
}

pub(super) fn is_modern(ctx: &RequestContext<RoleServer>) -> bool {
    ctx.protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28)
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let per_task = self.0.settings().task_tools.is_some();
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
        let mut instructions = "agg lists and runs this repository's tasks. Call list_tasks (filter with query/dir/runner), then task_start with a unique_name. Tasks that outlast wait_ms keep running: follow them with task_status/task_output and end them with task_stop. list_runs also shows what the user runs with `agg run` (their dev server, say): read it with task_output by run_id; only the user stops it. Only tasks the user allowlisted (`agg allow`) can run. The table is also the resource agg://tasks, and each job's output agg://runs/{run_id}/log.".to_owned();
        instructions.push(' ');
        instructions.push_str(&super::sandboxed::instructions(crate::sandbox::support()));
        let selection = self.0.task_tools();
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
        *self.0.level() = Some(req.level);
        Ok(())
    }

    async fn list_tools(
        &self,
        _req: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.mark_session(&ctx);
        let mut all = catalog::tools(self.0.settings());
        all.extend(self.per_task_tools().into_iter().map(|t| t.tool));
        Ok(ListToolsResult::with_all_items(all))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        catalog::tools(self.0.settings())
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
        let Some(name) = Name::from_name(&req.name) else {
            let per_task = self
                .per_task_tools()
                .into_iter()
                .find(|t| t.tool.name == req.name);
            let Some(t) = per_task else {
                return Err(ErrorData::invalid_params(
                    format!(
                        "unknown tool `{}`",
                        crate::terminal_text::cut_line(&req.name, 256)
                    ),
                    None,
                ));
            };
            let response = self
                .run_task_tool(t.unique_name, args.unwrap_or_default(), ctx, retry)
                .await;
            return Ok(response.unwrap_or_else(|e| failure(&e).into()));
        };
        let result = match name {
            Name::TaskStart => {
                let response = match parse(args) {
                    Ok(a) => self.task_start(a, ctx, retry).await,
                    Err(e) => Err(e),
                };
                return Ok(response.unwrap_or_else(|e| failure(&e).into()));
            }
            Name::ListTasks => match parse(args) {
                Ok(a) => self.list_tasks(a).await,
                Err(e) => Err(e),
            },
            Name::DescribeTask => match parse(args) {
                Ok(a) => self.describe_task(a).await,
                Err(e) => Err(e),
            },
            Name::Status => parse::<StatusArgs>(args).map(|_| self.status()),
            Name::ListRuns => parse::<super::mirrors::ListRunsArgs>(args).map(|_| self.list_runs()),
            Name::TaskStatus => match parse(args) {
                Ok(a) => self.task_status(&a).await,
                Err(e) => Err(e),
            },
            Name::TaskOutput => match parse(args) {
                Ok(a) => self.task_output(&a).await,
                Err(e) => Err(e),
            },
            Name::TaskStop => match parse(args) {
                Ok(a) => self.task_stop(a).await,
                Err(e) => Err(e),
            },
        };
        Ok(result.unwrap_or_else(|e| failure(&e)).into())
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.0.mcp_tasks().get(&request.task_id)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.0.mcp_tasks().cancel(&request.task_id, self.0.engine())
    }

    async fn list_resources(
        &self,
        _req: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.mark_session(&ctx);
        Ok(ListResourcesResult::with_all_items(resources::list(
            &self.0.engine().list(),
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
        resources::parse(&req.uri).map_err(|e| e.into_error(&req.uri))?;
        self.0.subscriptions().add(&req.uri);
        Ok(())
    }

    async fn unsubscribe(
        &self,
        req: UnsubscribeRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.mark_session(&ctx);
        self.0.subscriptions().remove(&req.uri);
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(requested.supported_by(&self.get_info().capabilities))
    }

    async fn listen(&self, ctx: SubscriptionContext) -> Result<(), ErrorData> {
        self.0.set_modern();
        self.0.sinks().push(ctx.sink().clone());
        ctx.cancelled().await;
        let id = ctx.sink().id().clone();
        self.0.sinks().retain(|s| s.id() != &id);
        Ok(())
    }
}

impl Server {
    pub(super) fn mark_session(&self, ctx: &RequestContext<RoleServer>) {
        if is_modern(ctx) {
            self.0.set_modern();
        }
        let mut peer = self.0.peer();
        if peer.is_none() {
            *peer = Some(ctx.peer.clone());
        }
    }
}
