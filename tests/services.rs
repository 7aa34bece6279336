//! Services through `agg mcp`: real servers started through real runners, ready by a port
//! they listen on, a framework message, a URL or a pattern; a crash during start; a
//! service that never becomes ready; two at once.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::alive;
use crate::common::mcp::Mcp;
use crate::common::repo;
use indoc::indoc;

const MAKEFILE: &str = indoc! {"
    serve: ## A static file server on a port of its own
    \tpython3 -m http.server 0 --bind 127.0.0.1

    serve-docs:
    \tpython3 -m http.server 0 --bind 127.0.0.1

    serve-quiet:
    \tpython3 -c \"import http.server as h; h.HTTPServer(('127.0.0.1', 0), h.SimpleHTTPRequestHandler).serve_forever()\"

    http:
    \tpython3 -m http.server $(PORT) --bind 127.0.0.1

    watch:
    \t@echo compiling; sleep 300
"};

const VITE_LIKE: &str = indoc! {"
    setTimeout(() => {
      console.log('');
      console.log('  \\x1b[32mVITE v5.4.2\\x1b[39m  ready in 612 ms');
      console.log('');
      console.log('  ➜  Local:   http://localhost:5173/');
      console.log('  ➜  Network: use --host to expose');
    }, 600);
    setInterval(() => {}, 1000);
"};

const CRASH: &str = indoc! {"
    setTimeout(() => {
      console.log('starting dev server');
      console.error(\"Error: Cannot find module 'vite'\");
      process.exit(1);
    }, 300);
"};

fn service_repo() -> tempfile::TempDir {
    repo(&[
        ("Makefile", MAKEFILE),
        ("web/vite.js", VITE_LIKE),
        ("web/crash.js", CRASH),
        (
            "web/package.json",
            "{\"scripts\": {\"dev\": \"node vite.js\", \"start\": \"node crash.js\", \"preview\": \"node vite.js\"}}\n",
        ),
    ])
}

/// `agg mcp` on [`service_repo`], every task allowed, once the programs the test's tasks
/// need are there (the test returns when one is missing, as with `require!`).
macro_rules! server {
    ($($program:literal),+) => {{
        require!($($program),+);
        Mcp::start(service_repo(), true).await
    }};
}

/// Starts a service through `tool` with `args` and asserts it came ready; the structured
/// result.
async fn start_ready(mcp: &Mcp, tool: &str, args: Value) -> Value {
    let started = mcp.ok(tool, args).await;
    assert_eq!(started["ready"], true, "{started}");
    started
}

/// Asserts what made a started service ready (`listening`, `banner`, `line`, `port`, `url`).
fn assert_ready_by(started: &Value, by: &str) {
    assert_eq!(started["readiness"]["by"], by, "{started}");
}

/// `GET /` on `url`; the status code.
fn get(url: &str) -> u16 {
    let authority = url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .expect("authority");
    let authority = authority.replace("localhost", "127.0.0.1");
    let mut s = TcpStream::connect(&authority).expect("connect");
    s.write_all(b"GET / HTTP/1.0\r\nHost: x\r\n\r\n")
        .expect("write");
    let mut head = [0u8; 12];
    s.read_exact(&mut head).expect("read");
    String::from_utf8_lossy(&head[9..12])
        .parse()
        .expect("status")
}

fn port_of(url: &str) -> u16 {
    url.rsplit(':')
        .next()
        .and_then(|p| p.trim_end_matches('/').parse().ok())
        .expect("port")
}

fn urls(v: &Value) -> Vec<String> {
    v["readiness"]["urls"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|u| u.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn a_silent_server_named_serve_is_ready_when_its_group_listens() {
    let mcp = server!("make", "python3");
    let t = Instant::now();
    let started = start_ready(&mcp, "task_start", json!({"unique_name": "serve-quiet"})).await;
    assert_eq!(started["state"], "running", "{started}");
    assert_ready_by(&started, "listening");
    assert!(t.elapsed() < Duration::from_secs(15));
    let url = urls(&started)
        .into_iter()
        .find(|u| u.starts_with("http://localhost:"))
        .expect("a URL for the port");
    assert!(
        started["output"]["text"]
            .as_str()
            .is_some_and(|t| !t.contains("Serving")),
        "it said nothing: {started}"
    );
    assert_eq!(get(&url), 200, "the URL agg names answers");
    let ports = started["readiness"]["ports"].as_array().expect("ports");
    assert_eq!(ports.len(), 1, "{started}");
    let stopped = mcp.stop(&started).await;
    assert_eq!(stopped["state"], "signaled");
    mcp.close().await;
}

#[tokio::test]
async fn python_http_server_is_ready_at_its_own_url() {
    let mcp = server!("make", "python3");
    let started = start_ready(&mcp, "task_start", json!({"unique_name": "serve"})).await;
    let url = &urls(&started)[0];
    assert_eq!(get(url), 200, "{started}");
    mcp.stop(&started).await;
    mcp.close().await;
}

#[tokio::test]
async fn a_vite_like_banner_makes_a_dev_script_ready_with_its_url() {
    let mcp = server!("npm", "node");
    let started = start_ready(&mcp, "task_start", json!({"unique_name": "web/dev"})).await;
    assert_eq!(started["state"], "running", "{started}");
    assert_ready_by(&started, "banner");
    assert!(
        started["readiness"]["line"]
            .as_str()
            .is_some_and(|l| l.starts_with("VITE v5.4.2")),
        "the matching line, colours removed: {started}"
    );
    assert!(
        urls(&started).contains(&"http://localhost:5173/".to_owned()),
        "{started}"
    );
    let waited = started["readiness"]["waited_ms"].as_u64().expect("waited");
    assert!(waited >= 500, "ready only once the banner came: {started}");
    let result = mcp
        .call("task_start", json!({"unique_name": "web/dev"}))
        .await;
    assert!(crate::common::mcp::text(&result).contains("http://localhost:5173/"));
    mcp.stop(&started).await;
    mcp.close().await;
}

#[tokio::test]
async fn an_explicit_line_pattern_waits_for_that_line() {
    let mcp = server!("npm", "node");
    let started = start_ready(
        &mcp,
        "task_start",
        json!({"unique_name": "web/preview", "ready": {"line": "Network: use", "timeout_ms": 10000}}),
    )
    .await;
    assert_ready_by(&started, "line");
    assert_eq!(
        started["readiness"]["line"], "➜  Network: use --host to expose",
        "{started}"
    );
    mcp.stop(&started).await;
    mcp.close().await;
}

#[tokio::test]
async fn a_crash_during_start_returns_the_failure_not_a_timeout() {
    let mcp = server!("npm", "node");
    let t = Instant::now();
    let failed = mcp
        .task_start(json!({"unique_name": "web/start", "ready": {"timeout_ms": 20000}}))
        .await;
    assert!(
        t.elapsed() < Duration::from_secs(10),
        "returned at the exit"
    );
    assert_eq!(failed["state"], "exited", "{failed}");
    assert_eq!(failed["passed"], false, "{failed}");
    assert_eq!(failed["ready"], false, "{failed}");
    assert!(failed["readiness"].get("timed_out").is_none(), "{failed}");
    let all = failed.to_string();
    assert!(
        all.contains("Cannot find module"),
        "stderr is shown: {failed}"
    );
    mcp.close().await;
}

#[tokio::test]
async fn a_service_that_never_becomes_ready_times_out_and_can_be_stopped() {
    let mcp = server!("make");
    let t = Instant::now();
    let started = mcp
        .task_start(
            json!({"unique_name": "watch", "ready": {"line": "^done$", "timeout_ms": 1500}}),
        )
        .await;
    assert!(t.elapsed() >= Duration::from_millis(1400));
    assert!(t.elapsed() < Duration::from_secs(10));
    assert_eq!(started["state"], "running", "{started}");
    assert_eq!(started["ready"], false, "{started}");
    assert_eq!(started["readiness"]["timed_out"], true, "{started}");
    assert_eq!(
        started["output"]["text"], "compiling",
        "output so far: {started}"
    );
    let pid = u32::try_from(started["pid"].as_u64().expect("pid")).expect("pid");
    let stopped = mcp
        .ok(
            "task_stop",
            json!({"run_id": started["run_id"], "grace_ms": 1000}),
        )
        .await;
    assert_eq!(stopped["state"], "signaled", "{stopped}");
    assert!(!alive(pid));
    mcp.close().await;
}

#[tokio::test]
async fn port_and_url_conditions_wait_for_the_server() {
    let mcp = server!("make", "python3");
    // `PORT=…` is a make variable: the person allows agents to set it.
    mcp.agg_allow(&["--dir", ".", "--any-args"]);
    for (i, condition) in ["port", "url"].into_iter().enumerate() {
        let port = free_port();
        let ready = if condition == "port" {
            json!({"port": port})
        } else {
            json!({"url": format!("http://127.0.0.1:{port}/")})
        };
        let started = start_ready(
            &mcp,
            "task_start",
            json!({"unique_name": "http", "args": [format!("PORT={port}")], "ready": ready, "allow_parallel": i > 0}),
        )
        .await;
        assert_ready_by(&started, condition);
        assert_eq!(get(&format!("http://127.0.0.1:{port}/")), 200);
        mcp.stop(&started).await;
    }
    mcp.close().await;
}

#[tokio::test]
async fn two_services_started_at_once_are_both_ready_on_their_own_ports() {
    let mcp = server!("make", "python3");
    let (a, b) = tokio::join!(
        start_ready(&mcp, "task_start", json!({"unique_name": "serve"})),
        start_ready(&mcp, "task_start", json!({"unique_name": "serve-docs"})),
    );
    let (pa, pb) = (port_of(&urls(&a)[0]), port_of(&urls(&b)[0]));
    assert_ne!(pa, pb, "each names its own port");
    for p in [pa, pb] {
        assert_eq!(get(&format!("http://127.0.0.1:{p}/")), 200);
    }
    let all = mcp.ok("status", json!({})).await;
    assert_eq!(all["running"], 2);
    for r in [&a, &b] {
        mcp.stop(r).await;
    }
    mcp.close().await;
}

#[tokio::test]
async fn wait_ms_zero_still_returns_a_service_at_once() {
    let mcp = server!("npm", "node");
    let started = mcp
        .task_start(json!({"unique_name": "web/dev", "wait_ms": 0}))
        .await;
    assert_eq!(started["state"], "running");
    assert!(started.get("ready").is_none(), "{started}");
    mcp.stop(&started).await;
    mcp.close().await;
}

#[tokio::test]
async fn a_bad_condition_is_refused_before_anything_runs() {
    let mcp = Mcp::start(service_repo(), true).await;
    mcp.err_saying(
        "task_start",
        json!({"unique_name": "watch", "ready": {"line": "("}}),
        -32602,
        "ready.line",
    )
    .await;
    let all = mcp.ok("status", json!({})).await;
    assert_eq!(all["jobs"].as_array().map(Vec::len), Some(0));
    mcp.close().await;
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

#[test]
fn agg_run_until_ready_returns_once_listening_and_leaves_the_server_running() {
    require!("make", "python3");
    let dir = service_repo();
    let cache = tempfile::tempdir().expect("cache");
    let out = crate::test::Test::at(dir.path())
        .args(["run", "serve", "--until-ready"])
        .env("XDG_STATE_HOME", cache.path())
        .run()
        .success();
    let pid = i32::try_from(crate::common::until_ready_pid(&out.stderr)).expect("a pid");
    let _group = StopGroup(pid);
    let url = out
        .stderr
        .split(" at ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .unwrap_or_else(|| panic!("url in: {}", out.stderr))
        .to_owned();
    assert!(
        out.stdout.contains("Serving HTTP"),
        "output is shown: {}",
        out.stdout
    );
    assert_eq!(get(&url), 200, "still serving after agg exited");
}

/// Ends a process group left running on purpose, whether the test passes or not.
struct StopGroup(i32);

impl Drop for StopGroup {
    fn drop(&mut self) {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(self.0),
            nix::sys::signal::Signal::SIGTERM,
        );
    }
}

#[test]
fn agg_run_until_ready_stops_a_task_that_is_not_ready_in_time() {
    require!("make");
    let dir = service_repo();
    let cache = tempfile::tempdir().expect("cache");
    let out = crate::test::Test::at(dir.path())
        .args([
            "run",
            "watch",
            "--ready-line",
            "^done$",
            "--ready-timeout",
            "800",
        ])
        .env("XDG_STATE_HOME", cache.path())
        .run()
        .code(124);
    out.stderr_has("not ready after");
    out.stdout_has("compiling");
}

#[tokio::test]
async fn a_per_task_tool_takes_the_ready_control() {
    require!("npm", "node");
    let mcp = Mcp::start_args(service_repo(), true, &["--task-tools"]).await;
    let tools = mcp.client.list_all_tools().await.expect("tools");
    let tool = tools
        .iter()
        .find(|t| {
            t.input_schema
                .get("properties")
                .is_some_and(|p| p.get("ready").is_some() && t.name.contains("preview"))
        })
        .unwrap_or_else(|| panic!("a run_ tool for web/preview with ready: {tools:?}"));
    let ready_schema = &tool.input_schema["properties"]["ready"];
    assert_eq!(ready_schema["type"], "object", "{ready_schema}");
    let started = start_ready(
        &mcp,
        tool.name.as_ref(),
        json!({"ready": {"line": "Local:", "timeout_ms": 10000}}),
    )
    .await;
    assert_ready_by(&started, "line");
    mcp.stop(&started).await;
    mcp.close().await;
}
