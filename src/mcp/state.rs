//! The shared state of one `agg mcp` server: its settings, the live table, the engine,
//! the allowlist, the session's peer and subscriptions, and the questions in flight. The
//! handlers (`server.rs`) and the notification streams (`stream.rs`) both read it.
#![allow(deprecated)] // rmcp marks the MCP logging API deprecated (SEP-2577); agg still serves it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard, RwLockWriteGuard};

use rmcp::model::LoggingLevel;
use rmcp::service::SubscriptionSink;
use rmcp::{Peer, RoleServer};

use super::ask::Asker;
use super::per_task_tools::{self, TaskTools};
use super::resources::Subscriptions;
use crate::allowlist::LiveAllowlist;
use crate::engine::Engine;
use crate::lock::{MutexExt, RwLockExt};
use crate::watched_table::WatchedTable;

/// Server-wide settings from the command line.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Default `wait_ms` of `task_start`.
    pub wait_ms: u64,
    /// Default `tail_lines`.
    pub tail_lines: usize,
    /// The allowlist file.
    pub allowlist: Option<PathBuf>,
    /// Per-task tools, when asked for.
    pub task_tools: Option<TaskTools>,
}

/// Shared state of one server. Its fields are reached through methods: a lock is taken
/// where it is read, never held across a handler.
#[derive(Debug)]
pub struct State {
    root: PathBuf,
    live: WatchedTable,
    task_tools: RwLock<per_task_tools::Selection>,
    engine: Engine,
    allowlist: Mutex<LiveAllowlist>,
    level: Mutex<Option<LoggingLevel>>,
    settings: Settings,
    peer: Mutex<Option<Peer<RoleServer>>>,
    sinks: Mutex<Vec<SubscriptionSink>>,
    /// Whether a client of the 2026-07-28 protocol (subscriptions through a sink) came.
    modern: AtomicBool,
    subscriptions: Mutex<Subscriptions>,
    asker: Asker,
    mcp_tasks: super::tasks_extension::McpTasks,
    /// The person's runs, mirrored for reading.
    person_runs: super::mirrors::Mirrors,
}

impl State {
    /// The state of a server on `root`, before any session.
    pub fn new(
        root: PathBuf,
        live: WatchedTable,
        engine: Engine,
        allowlist: LiveAllowlist,
        settings: Settings,
        task_tools: per_task_tools::Selection,
    ) -> State {
        State {
            root,
            live,
            task_tools: RwLock::new(task_tools),
            engine,
            allowlist: Mutex::new(allowlist),
            level: Mutex::new(None),
            settings,
            peer: Mutex::new(None),
            sinks: Mutex::new(Vec::new()),
            modern: AtomicBool::new(false),
            subscriptions: Mutex::new(Subscriptions::default()),
            asker: Asker::default(),
            mcp_tasks: super::tasks_extension::McpTasks::default(),
            person_runs: super::mirrors::Mirrors::default(),
        }
    }

    /// The repository root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The table that follows the repository.
    pub fn live(&self) -> &WatchedTable {
        &self.live
    }

    /// The per-task tools served now.
    pub fn task_tools(&self) -> RwLockReadGuard<'_, per_task_tools::Selection> {
        self.task_tools.read_locked()
    }

    /// The per-task tools, to replace.
    pub fn task_tools_mut(&self) -> RwLockWriteGuard<'_, per_task_tools::Selection> {
        self.task_tools.write_locked()
    }

    /// The agents' jobs.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The person's allowlist.
    pub fn allowlist(&self) -> MutexGuard<'_, LiveAllowlist> {
        self.allowlist.locked()
    }

    /// The log level the session asked for.
    pub fn level(&self) -> MutexGuard<'_, Option<LoggingLevel>> {
        self.level.locked()
    }

    /// Server-wide settings.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The session's peer, for notifications sent outside a request.
    pub fn peer(&self) -> MutexGuard<'_, Option<Peer<RoleServer>>> {
        self.peer.locked()
    }

    /// The 2026-07-28 subscription sinks.
    pub fn sinks(&self) -> MutexGuard<'_, Vec<SubscriptionSink>> {
        self.sinks.locked()
    }

    /// Whether a client of the 2026-07-28 protocol came.
    pub fn modern(&self) -> bool {
        self.modern.load(Ordering::Relaxed)
    }

    /// Notes that a client of the 2026-07-28 protocol came.
    pub fn set_modern(&self) {
        self.modern.store(true, Ordering::Relaxed);
    }

    /// The resources the session subscribed to.
    pub fn subscriptions(&self) -> MutexGuard<'_, Subscriptions> {
        self.subscriptions.locked()
    }

    /// The questions in flight.
    pub fn asker(&self) -> &Asker {
        &self.asker
    }

    /// The MCP Tasks the session created.
    pub fn mcp_tasks(&self) -> &super::tasks_extension::McpTasks {
        &self.mcp_tasks
    }

    /// The person's runs, mirrored for reading.
    pub fn person_runs(&self) -> &super::mirrors::Mirrors {
        &self.person_runs
    }
}
