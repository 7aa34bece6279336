//! The raw JSON-RPC harness: `agg mcp` driven by lines on its stdin, every stdout line
//! checked to be protocol.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::mcp::allowlist_allowing_all;
use super::repo;
use indoc::indoc;

/// A raw JSON-RPC session with `agg mcp`.
pub struct Raw {
    pub child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Raw {
    pub fn start(root: &std::path::Path, allowlist: &std::path::Path) -> Raw {
        Raw::start_with(root, allowlist, &[])
    }

    /// `agg mcp` with `extra` options (`--task-tools`), initialized.
    pub fn start_with(root: &std::path::Path, allowlist: &std::path::Path, extra: &[&str]) -> Raw {
        Raw::start_env(root, allowlist, extra, &[])
    }

    /// `agg mcp` with `extra` options and `env` in its environment, initialized.
    pub fn start_env(
        root: &std::path::Path,
        allowlist: &std::path::Path,
        extra: &[&str],
        env: &[(&str, &std::ffi::OsStr)],
    ) -> Raw {
        let env: Vec<(&str, Option<&std::ffi::OsStr>)> = env
            .iter()
            .map(|(name, value)| (*name, Some(*value)))
            .collect();
        let mut raw = Raw::spawn(root, allowlist, extra, &env);
        raw.initialize();
        raw
    }

    /// A server started with `env` changed: each name set to its value, or unset (`None`).
    pub fn start_with_env(
        root: &std::path::Path,
        allowlist: &std::path::Path,
        env: &[(&str, Option<&std::ffi::OsStr>)],
    ) -> Raw {
        let mut raw = Raw::spawn(root, allowlist, &[], env);
        raw.initialize();
        raw
    }

    fn initialize(&mut self) {
        self.send_value(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}));
        self.response(0);
        self.send_value(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    }

    fn spawn(
        root: &std::path::Path,
        allowlist: &std::path::Path,
        extra: &[&str],
        env: &[(&str, Option<&std::ffi::OsStr>)],
    ) -> Raw {
        let mut command = command(root, allowlist);
        command.args(extra);
        for (name, value) in env {
            match value {
                Some(value) => command.env(name, value),
                None => command.env_remove(name),
            };
        }
        let mut child = command.spawn().expect("spawn");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Raw {
            child,
            stdin,
            lines: lines(stdout),
        }
    }

    /// A server in a 2026-07-28 session: no `initialize`, each request carries its `_meta`.
    pub fn start_modern(root: &std::path::Path, allowlist: &std::path::Path) -> Raw {
        Raw::spawn(root, allowlist, &[], &[])
    }

    pub fn send_bytes(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).expect("write");
        self.stdin.write_all(b"\n").expect("write");
        self.stdin.flush().expect("flush");
    }

    pub fn send_value(&mut self, v: &Value) {
        self.send_bytes(v.to_string().as_bytes());
    }

    /// The response with this id (notifications and other lines are checked and skipped).
    pub fn response(&mut self, id: u64) -> Value {
        self.response_within(id, Duration::from_secs(30))
    }

    /// The response with this id, waited for at most `wait`.
    pub fn response_within(&mut self, id: u64, wait: Duration) -> Value {
        let deadline = Instant::now() + wait;
        loop {
            let line = self
                .lines
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .unwrap_or_else(|_| panic!("no response {id}"));
            let msg: Value =
                serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"));
            if msg["id"].as_u64() == Some(id) {
                return msg;
            }
        }
    }

    /// The next message the server writes, whatever it is.
    pub fn next(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(30))
            .expect("a message within 30 s");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Closes the server's stdin, as a client that goes away does.
    pub fn close_stdin(&mut self) {
        let (_, dead) = std::os::unix::net::UnixStream::pair().expect("pair");
        drop(std::mem::replace(
            &mut self.stdin,
            std::process::ChildStdin::from(std::os::fd::OwnedFd::from(dead)),
        ));
    }

    pub fn call(&mut self, id: u64, name: &str, args: &Value) -> Value {
        self.call_within(id, name, args, Duration::from_secs(30))
    }

    /// Calls a tool whose answer may take up to `wait` (a task run to its end).
    pub fn call_within(&mut self, id: u64, name: &str, args: &Value, wait: Duration) -> Value {
        self.send_value(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": args}}));
        self.response_within(id, wait)
    }

    /// Peak resident memory of the server so far, in KiB.
    pub fn peak_rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    }
}

/// The server's stdout lines, read from a thread from now on.
fn lines(stdout: BufReader<std::process::ChildStdout>) -> std::sync::mpsc::Receiver<String> {
    let (tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in stdout.lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

fn command(root: &std::path::Path, allowlist: &std::path::Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_agg"));
    command
        .args(["mcp", "--root"])
        .arg(root)
        .env("AGG_ALLOWLIST", allowlist)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    command
}

/// A field of `/proc/PID/status` in KiB (`VmRSS`, `VmHWM`), 0 when unreadable.
pub fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// `agg mcp` driven by a client that writes requests and does not read what comes back,
/// until [`Unread::read`] turns it into an ordinary [`Raw`] session.
pub struct Unread {
    child: Option<std::process::Child>,
    stdin: Option<std::process::ChildStdin>,
    stdout: Option<BufReader<std::process::ChildStdout>>,
    writer: Option<std::thread::JoinHandle<std::process::ChildStdin>>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Unread {
    /// Starts the server and initializes the session (reading only that answer).
    pub fn start(root: &std::path::Path, allowlist: &std::path::Path) -> Unread {
        let mut child = command(root, allowlist).spawn().expect("spawn");
        let mut stdin = child.stdin.take().expect("stdin");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "unread", "version": "0"}}});
        writeln!(stdin, "{init}").expect("write");
        let mut line = String::new();
        stdout.read_line(&mut line).expect("initialize answer");
        let answer: Value = serde_json::from_str(&line).expect("JSON");
        assert_eq!(answer["id"], 0, "{line}");
        writeln!(
            stdin,
            "{}",
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        )
        .expect("write");
        Unread {
            child: Some(child),
            stdin: Some(stdin),
            stdout: Some(stdout),
            writer: None,
            stop: std::sync::Arc::default(),
        }
    }

    /// The server's pid.
    pub fn pid(&self) -> u32 {
        self.child.as_ref().map_or(0, std::process::Child::id)
    }

    /// Writes `request(n)` for n = 1, 2, … from a thread, as fast as the pipe takes them,
    /// for `time`; returns how many were written by then. The thread keeps going (or stays
    /// blocked on the full pipe) until [`Unread::read`].
    pub fn flood(&mut self, time: Duration, request: fn(u64) -> Value) -> u64 {
        use std::sync::atomic::{AtomicU64, Ordering};
        let mut stdin = self.stdin.take().expect("not flooding yet");
        let sent = std::sync::Arc::new(AtomicU64::new(0));
        let stop = std::sync::Arc::clone(&self.stop);
        let counter = std::sync::Arc::clone(&sent);
        self.writer = Some(std::thread::spawn(move || {
            let mut n = 1;
            while !stop.load(Ordering::Relaxed) {
                let mut line = request(n).to_string();
                line.push('\n');
                if stdin.write_all(line.as_bytes()).is_err() {
                    break;
                }
                counter.store(n, Ordering::Relaxed);
                n += 1;
            }
            stdin
        }));
        std::thread::sleep(time);
        sent.load(Ordering::Relaxed)
    }

    /// Starts reading the server's stdout, stops the flood, and hands the session over.
    pub fn read(mut self) -> Raw {
        let child = self.child.take().expect("child");
        let lines = lines(self.stdout.take().expect("stdout"));
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        let stdin = match self.writer.take() {
            Some(writer) => writer.join().expect("writer"),
            None => self.stdin.take().expect("stdin"),
        };
        Raw {
            child,
            stdin,
            lines,
        }
    }
}

impl Drop for Unread {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub const TASKS: &str = indoc! {"
    ## Tasks

    ### forever

    ```sh
    sh -c 'echo $$ > orphan.pid; exec sleep 300' &
    wait
    ```

    ### nap

    ```sh
    sleep 30
    ```

    ### flood

    ```sh
    yes 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx' | head -c 1000000000
    echo done
    ```

    ### show-args

    ```sh
    printf '%s\\n' \"$@\"
    ```

    ### chatty

    ```sh
    for i in 1 2 3 4 5 6 7 8; do echo line $i; sleep 0.1; done
    ```
"};

pub fn setup() -> (tempfile::TempDir, tempfile::TempDir, std::path::PathBuf) {
    let dir = repo(&[("README.md", TASKS)]);
    let (config, allowlist) = allowlist_allowing_all(dir.path());
    (dir, config, allowlist)
}
