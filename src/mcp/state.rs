//! The shared state of one `agg mcp` server: its settings, the live table, the engine,
//! the allowlist, the session's peer and subscriptions, and the questions in flight. The
//! handlers (`server.rs`) and the notification streams (`stream.rs`) both read it.
#![allow(deprecated)] // rmcp marks the MCP logging API deprecated (SEP-2577); agg still serves it.

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Mutex, RwLock};

use rmcp::model::LoggingLevel;
use rmcp::service::SubscriptionSink;
use rmcp::{Peer, RoleServer};

use super::ask::Asker;
use super::resources::Subscriptions;
use super::task_tools::{self, TaskTools};
use crate::allowlist::LiveAllowlist;
use crate::engine::Engine;
use crate::live::LiveTable;

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

/// Shared state of one server.
#[derive(Debug)]
pub struct State {
    pub root: PathBuf,
    pub live: LiveTable,
    pub task_tools: RwLock<task_tools::Selection>,
    pub engine: Engine,
    pub allowlist: Mutex<LiveAllowlist>,
    pub level: Mutex<Option<LoggingLevel>>,
    pub settings: Settings,
    pub peer: Mutex<Option<Peer<RoleServer>>>,
    pub sinks: Mutex<Vec<SubscriptionSink>>,
    pub modern: AtomicBool,
    pub subscriptions: Mutex<Subscriptions>,
    pub asker: Asker,
    pub mcp_tasks: super::mcp_tasks::McpTasks,
    /// The person's runs, mirrored for reading.
    pub person_runs: super::mirrors::Mirrors,
}
