//! The rmcp-client harness: a running `agg mcp` on a temporary repository, with its
//! allowlist and the notifications it sent.
#![allow(deprecated)] // rmcp marks the MCP logging API deprecated (SEP-2577).

use std::path::{Path, PathBuf};
use std::process::Stdio;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
    LoggingMessageNotificationParam, ProgressNotificationParam, ProtocolVersion,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::{ConfigureCommandExt, TokioChildProcess};
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt, RoleClient};
use serde_json::Value;
use tokio::sync::mpsc;

/// A notification the client saw.
#[derive(Debug)]
pub enum Event {
    Log(LoggingMessageNotificationParam),
    Progress(#[allow(dead_code)] ProgressNotificationParam),
    ToolsChanged,
    /// `notifications/resources/updated` for this URI.
    ResourceUpdated(String),
    ResourcesChanged,
}

/// A client that records notifications.
#[derive(Clone)]
pub struct Recorder(pub mpsc::UnboundedSender<Event>);

impl ClientHandler for Recorder {
    async fn on_logging_message(
        &self,
        p: LoggingMessageNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        let _ = self.0.send(Event::Log(p));
    }
    async fn on_progress(&self, p: ProgressNotificationParam, _: NotificationContext<RoleClient>) {
        let _ = self.0.send(Event::Progress(p));
    }
    async fn on_tool_list_changed(&self, _: NotificationContext<RoleClient>) {
        let _ = self.0.send(Event::ToolsChanged);
    }
    async fn on_resource_updated(
        &self,
        p: rmcp::model::ResourceUpdatedNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        let _ = self.0.send(Event::ResourceUpdated(p.uri));
    }
    async fn on_resource_list_changed(&self, _: NotificationContext<RoleClient>) {
        let _ = self.0.send(Event::ResourcesChanged);
    }
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("agg-tests", "0.0.0"),
        )
        .with_protocol_version(ProtocolVersion::V_2025_11_25)
    }
}

/// A running `agg mcp` with its repository, allowlist and recorded notifications.
pub struct Mcp {
    pub client: RunningService<RoleClient, Recorder>,
    pub events: mpsc::UnboundedReceiver<Event>,
    pub root: PathBuf,
    #[allow(dead_code)]
    pub server_pid: u32,
    /// The server's `XDG_RUNTIME_DIR` (its control socket is in `agg/` there).
    pub runtime: PathBuf,
    /// The allowlist the server reads.
    pub allowlist: PathBuf,
    _dirs: Vec<tempfile::TempDir>,
}

pub fn agg_command(
    root: &Path,
    allowlist: &Path,
    path_env: Option<&str>,
    extra: &[&str],
    runtime: &Path,
) -> tokio::process::Command {
    tokio::process::Command::new(env!("CARGO_BIN_EXE_agg")).configure(|c| {
        c.arg("mcp")
            .args(extra)
            .arg("--root")
            .arg(root)
            .env("AGG_ALLOWLIST", allowlist)
            .env("XDG_RUNTIME_DIR", runtime)
            .env("NO_COLOR", "1");
        if let Some(path) = path_env {
            c.env("PATH", path);
        }
    })
}

/// Allows every task of every file under `root` (runs the real `agg allow --dir`).
pub fn allow_all(root: &Path, allowlist: &Path) {
    allow_dir(root, allowlist, &[]);
}

/// Allows every task under `root` with any arguments an agent adds (`agg allow --dir ROOT
/// --any-args`): for tests of how arguments reach a runner.
pub fn allow_all_any_args(root: &Path, allowlist: &Path) {
    allow_dir(root, allowlist, &["--any-args"]);
}

fn allow_dir(root: &Path, allowlist: &Path, extra: &[&str]) {
    let dir = root.to_string_lossy();
    let args: Vec<&str> = ["--dir", dir.as_ref()]
        .into_iter()
        .chain(extra.iter().copied())
        .collect();
    agg_allow(root, allowlist, &args);
}

/// Runs the real `agg allow ARGS…` in `root` against `allowlist`; fails the test when it
/// fails.
pub fn agg_allow(root: &Path, allowlist: &Path, args: &[&str]) {
    let args: Vec<&str> = std::iter::once("allow")
        .chain(args.iter().copied())
        .collect();
    agg_on_allowlist(root, allowlist, &args);
}

/// Runs the real `agg ARGS…` (`allow`, `deny`…) in `dir` against `allowlist`; fails the test
/// when it fails.
pub fn agg_on_allowlist(dir: &Path, allowlist: &Path, args: &[&str]) {
    super::succeeds(
        std::process::Command::new(env!("CARGO_BIN_EXE_agg"))
            .args(args)
            .env("AGG_ALLOWLIST", allowlist)
            .current_dir(dir),
        &format!("agg {args:?}"),
    );
}

/// A directory for agg's own files (its allowlist, its control sockets): outside the
/// system temp dir, as they are for a person, since a sandboxed run may write the temp dir
/// and agg's own directories are kept out of every tree a run may write.
pub fn config_dir() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("config dir")
}

/// A fresh allowlist in a config directory of its own (which lasts as long as the returned
/// directory), allowing every task under `root`.
pub fn allowlist_allowing_all(root: &Path) -> (tempfile::TempDir, PathBuf) {
    let config = config_dir();
    let allowlist = config.path().join("allowlist.toml");
    allow_all(root, &allowlist);
    (config, allowlist)
}

/// Spawns the `agg mcp` that `command` describes, its stderr going to `stderr`, and
/// connects a recording client to it: the client, what it records, the server's pid.
pub async fn connect(
    command: tokio::process::Command,
    stderr: Stdio,
    mode: ClientLifecycleMode,
) -> (
    RunningService<RoleClient, Recorder>,
    mpsc::UnboundedReceiver<Event>,
    u32,
) {
    let (proc, _) = TokioChildProcess::builder(command)
        .stderr(stderr)
        .spawn()
        .expect("spawn agg mcp");
    let server_pid = proc.id().unwrap_or(0);
    let (tx, events) = mpsc::unbounded_channel();
    let client = Recorder(tx)
        .serve_with_lifecycle(proc, mode)
        .await
        .expect("connect");
    (client, events, server_pid)
}

/// Calls a tool with `args` through `client`; its result.
pub async fn call_tool(
    client: &RunningService<RoleClient, Recorder>,
    name: &str,
    args: Value,
) -> CallToolResult {
    let args = args.as_object().cloned().unwrap_or_default();
    client
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(args))
        .await
        .unwrap_or_else(|e| panic!("{name} failed: {e}"))
}

impl Mcp {
    /// Starts `agg mcp` on `repo`; with `allow`, every task there is allowlisted.
    pub async fn start(repo: tempfile::TempDir, allow: bool) -> Mcp {
        Mcp::start_with(repo, allow, None, ClientLifecycleMode::Initialize).await
    }

    /// Starts `agg mcp` on a new repository holding `files`; with `allow`, every task there
    /// is allowlisted.
    pub async fn on_files(files: &[(&str, &str)], allow: bool) -> Mcp {
        Mcp::start(super::repo(files), allow).await
    }

    /// Starts `agg mcp EXTRA…` on `repo`.
    pub async fn start_args(repo: tempfile::TempDir, allow: bool, extra: &[&str]) -> Mcp {
        Mcp::spawn(
            repo,
            allow,
            None,
            ClientLifecycleMode::Initialize,
            extra,
            &[],
        )
        .await
    }

    pub async fn start_with(
        repo: tempfile::TempDir,
        allow: bool,
        path_env: Option<&str>,
        mode: ClientLifecycleMode,
    ) -> Mcp {
        Mcp::spawn(repo, allow, path_env, mode, &[], &[]).await
    }

    /// Starts `agg mcp` on `repo` with `env` in the server's own environment (which its jobs
    /// inherit): for settings an agent may not pass in `env`, such as `DENO_DIR`.
    pub async fn start_env(repo: tempfile::TempDir, allow: bool, env: &[(&str, &str)]) -> Mcp {
        Mcp::spawn(repo, allow, None, ClientLifecycleMode::Initialize, &[], env).await
    }

    async fn spawn(
        repo: tempfile::TempDir,
        allow: bool,
        path_env: Option<&str>,
        mode: ClientLifecycleMode,
        extra: &[&str],
        env: &[(&str, &str)],
    ) -> Mcp {
        let config = config_dir();
        let allowlist = config.path().join("allowlist.toml");
        let root = std::fs::canonicalize(repo.path()).expect("root");
        if allow {
            allow_all(&root, &allowlist);
        }
        let runtime = config.path().join("runtime");
        std::fs::create_dir_all(&runtime).expect("runtime dir");
        let mut command = agg_command(&root, &allowlist, path_env, extra, &runtime);
        command.envs(env.iter().copied());
        let (client, events, server_pid) = connect(command, Stdio::inherit(), mode).await;
        Mcp {
            client,
            events,
            root,
            server_pid,
            runtime,
            allowlist,
            _dirs: vec![repo, config],
        }
    }

    /// Connects to an `agg mcp` on `root` whose allowlist and runtime directory the caller
    /// laid out, with `env` in its environment; `keep` lasts as long as the server.
    pub async fn connect_to(
        root: PathBuf,
        allowlist: PathBuf,
        runtime: PathBuf,
        env: &[(&str, std::ffi::OsString)],
        keep: Vec<tempfile::TempDir>,
    ) -> Mcp {
        let mut command = agg_command(&root, &allowlist, None, &[], &runtime);
        command.envs(env.iter().map(|(k, v)| (*k, v)));
        let (client, events, server_pid) =
            connect(command, Stdio::inherit(), ClientLifecycleMode::Initialize).await;
        Mcp {
            client,
            events,
            root,
            server_pid,
            runtime,
            allowlist,
            _dirs: keep,
        }
    }

    /// Runs the real `agg allow ARGS…` against this server's allowlist (`agg allow --dir ROOT
    /// --any-args` lets agents add any arguments to every task).
    pub fn agg_allow(&self, args: &[&str]) {
        agg_allow(&self.root, &self.allowlist, args);
    }

    /// A second `agg mcp` on the same repository, with the same runtime directory.
    pub async fn second(&self) -> Mcp {
        let (config, allowlist) = allowlist_allowing_all(&self.root);
        let command = agg_command(&self.root, &allowlist, None, &[], &self.runtime);
        let (client, events, server_pid) =
            connect(command, Stdio::inherit(), ClientLifecycleMode::Initialize).await;
        Mcp {
            client,
            events,
            root: self.root.clone(),
            server_pid,
            runtime: self.runtime.clone(),
            allowlist,
            _dirs: vec![config],
        }
    }

    /// `list_tasks` with `args`, which must succeed; its structured result.
    pub async fn list_tasks(&self, args: Value) -> Value {
        self.ok("list_tasks", args).await
    }

    /// `task_start` with `args`, which must succeed; its structured result.
    pub async fn task_start(&self, args: Value) -> Value {
        self.ok("task_start", args).await
    }

    /// Stops the job a `task_start` result names (`task_stop` with its `run_id`); the
    /// structured result of the stop.
    pub async fn stop(&self, started: &Value) -> Value {
        self.ok(
            "task_stop",
            serde_json::json!({"run_id": started["run_id"]}),
        )
        .await
    }

    /// Closes the client's side of the connection, as a host does when it quits.
    pub async fn close(self) {
        self.client.cancel().await.expect("close");
    }

    /// Calls a tool that must fail with `code` and a message that says `part`; the error
    /// body.
    pub async fn err_saying(&self, name: &str, args: Value, code: i64, part: &str) -> Value {
        let body = self.err(name, args, code).await;
        assert_error_says(&body, part);
        body
    }

    /// Calls a tool and returns its result.
    pub async fn call(&self, name: &str, args: Value) -> CallToolResult {
        call_tool(&self.client, name, args).await
    }

    /// Calls a tool that must succeed and returns its structured content.
    pub async fn ok(&self, name: &str, args: Value) -> Value {
        let result = self.call(name, args).await;
        assert_ne!(
            result.is_error,
            Some(true),
            "{name} returned an error: {result:?}"
        );
        let text = text(&result);
        assert!(!text.is_empty(), "{name} has no text content");
        result
            .structured_content
            .unwrap_or_else(|| panic!("{name} has no structuredContent"))
    }

    /// Calls a tool that must fail with `code` and returns the error body from
    /// `_meta["agg/error"]` (an error result carries no `structuredContent`, which clients
    /// would validate against the success schema).
    pub async fn err(&self, name: &str, args: Value, code: i64) -> Value {
        let result = self.call(name, args).await;
        assert_eq!(
            result.is_error,
            Some(true),
            "{name} should fail: {result:?}"
        );
        assert!(
            result.structured_content.is_none(),
            "an error result has no structuredContent: {result:?}"
        );
        let body = result
            .meta
            .as_ref()
            .and_then(|m| m.0.get("agg/error"))
            .cloned()
            .expect("_meta agg/error");
        assert_eq!(body["code"], code, "{body}");
        assert!(
            text(&result).contains(&format!("error {code}")),
            "{}",
            text(&result)
        );
        body
    }
}

/// The text content of a result.
pub fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Asserts that the message of an error body (`_meta["agg/error"]`) says `part`.
pub fn assert_error_says(body: &Value, part: &str) {
    assert_field_says(body, "error", part);
}

/// Asserts that the string `field` of a structured body (an error's `hint`, a job's
/// `state`…) says `part`.
pub fn assert_field_says(body: &Value, field: &str, part: &str) {
    assert!(
        body[field].as_str().is_some_and(|e| e.contains(part)),
        "{field} should say {part:?}: {body}"
    );
}
