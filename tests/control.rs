//! `agg ps`, `agg logs` and `agg stop` in a terminal against running `agg mcp` servers:
//! what an agent started is listed, followed and stopped through the control socket.

use std::io::{BufRead, BufReader};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::json;

use crate::common::have;
use crate::common::mcp::Mcp;
use crate::common::{alive, eventually};

const MAKEFILE: &str = "ticker:\n\t@i=0; while true; do echo tick $$i; i=$$((i+1)); sleep 0.2; done\n\nidle:\n\t@echo idle; sleep 300\n";

fn agg(mcp: &Mcp, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_agg"));
    c.args(args)
        .arg("-C")
        .arg(&mcp.root)
        .env("XDG_RUNTIME_DIR", &mcp.runtime)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null());
    c
}

async fn output(mut c: Command) -> (i32, String, String) {
    let out = tokio::task::spawn_blocking(move || c.output().expect("agg"))
        .await
        .expect("join");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The address of the abstract socket a discovery file names.
pub fn address_of(file: &Path) -> std::os::unix::net::SocketAddr {
    use std::os::linux::net::SocketAddrExt;
    let name = std::fs::read(file).expect("discovery file");
    std::os::unix::net::SocketAddr::from_abstract_name(name).expect("an abstract name")
}

/// A connection to the control socket whose discovery file is `file`.
pub fn connect(file: &Path) -> std::os::unix::net::UnixStream {
    std::os::unix::net::UnixStream::connect_addr(&address_of(file)).expect("connect")
}

/// The discovery file of the control socket an `agg mcp` made under `runtime` (its
/// `XDG_RUNTIME_DIR`).
pub fn socket_of(runtime: &Path) -> PathBuf {
    std::fs::read_dir(runtime.join("agg"))
        .expect("socket dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "sock"))
        .expect("a socket")
}

#[tokio::test]
async fn a_job_started_over_mcp_is_listed_followed_and_stopped_from_a_terminal() {
    if !have("make") {
        return;
    }
    let mcp = Mcp::on_files(&[("Makefile", MAKEFILE)], true).await;
    let started = mcp
        .task_start(json!({"unique_name": "ticker", "wait_ms": 0}))
        .await;
    let run_id = started["run_id"].as_str().expect("run_id").to_owned();
    let pid = u32::try_from(started["pid"].as_u64().expect("pid")).expect("pid");

    let (code, ps, err) = output(agg(&mcp, &["ps"])).await;
    assert_eq!(code, 0, "{err}");
    assert!(ps.contains(&run_id) && ps.contains("running"), "{ps}");
    assert!(ps.contains(&format!("agg mcp {}", mcp.server_pid)), "{ps}");

    // Follow: lines keep coming while the job runs.
    let mut follow = agg(&mcp, &["logs", &run_id, "-f"]);
    follow.stdout(Stdio::piped()).stderr(Stdio::inherit());
    let mut child = follow.spawn().expect("agg logs -f");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let first = rx.recv().await.expect("a line");
    assert!(first.starts_with("tick "), "{first}");
    let mut later = String::new();
    while let Ok(Some(line)) = tokio::time::timeout(Duration::from_secs(5), rx.recv()).await {
        if line != first {
            later = line;
            break;
        }
    }
    assert!(later.starts_with("tick "), "new lines arrive live: {later}");

    let (code, stopped, err) = output(agg(&mcp, &["stop", &run_id, "--grace-ms", "2000"])).await;
    assert_eq!(code, 0, "{err}");
    assert!(stopped.contains("stopped"), "{stopped}");
    assert!(!alive(pid), "its group is gone");
    let status = mcp.ok("task_status", json!({"run_id": run_id})).await;
    assert_eq!(
        status["state"], "signaled",
        "the MCP side sees it stopped: {status}"
    );
    let ended = tokio::task::spawn_blocking(move || child.wait().expect("wait"))
        .await
        .expect("join");
    assert!(ended.success(), "agg logs -f ends with the job");

    let (code, _, err) = output(agg(&mcp, &["stop", "no-such-run"])).await;
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("agg ps"), "{err}");
    mcp.close().await;
}

#[tokio::test]
async fn several_servers_on_one_repository_are_all_listed() {
    if !have("make") {
        return;
    }
    let one = Mcp::on_files(&[("Makefile", MAKEFILE)], true).await;
    let two = one.second().await;
    let a = one
        .task_start(json!({"unique_name": "idle", "wait_ms": 0}))
        .await;
    let b = two
        .task_start(json!({"unique_name": "ticker", "wait_ms": 0}))
        .await;
    let (code, json_out, err) = output(agg(&one, &["ps", "--json"])).await;
    assert_eq!(code, 0, "{err}");
    let servers: serde_json::Value = serde_json::from_str(&json_out).expect("json");
    assert_eq!(servers.as_array().map(Vec::len), Some(2), "{servers}");
    for job in [&a, &b] {
        assert!(
            json_out.contains(job["run_id"].as_str().expect("id")),
            "{json_out}"
        );
    }
    let (_, logs, _) = output(agg(&one, &["logs", a["run_id"].as_str().expect("id")])).await;
    assert_eq!(logs.trim(), "idle");
    two.client.cancel().await.expect("close");
    one.client.cancel().await.expect("close");
}

#[tokio::test]
async fn the_socket_is_private_and_other_users_are_refused() {
    let mcp = Mcp::on_files(&[("Makefile", MAKEFILE)], true).await;
    let socket = socket_of(&mcp.runtime);
    let me = nix::unistd::getuid().as_raw();
    let dir = std::fs::metadata(mcp.runtime.join("agg")).expect("dir");
    assert_eq!(dir.permissions().mode() & 0o777, 0o700);
    assert_eq!(dir.uid(), me);
    // The discovery file is the user's alone; the socket it names is an abstract one, which
    // carries no permissions: the server's own check refuses other users.
    let meta = std::fs::metadata(&socket).expect("socket");
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert_eq!(meta.uid(), me);
    let name = std::fs::read_to_string(&socket).expect("discovery file");
    assert!(name.starts_with("agg-control-"), "{name}");
    if me != 0 || !have("python3") {
        if me != 0 {
            crate::common::skipped("not root (connecting as another user needs root)");
        }
        mcp.close().await;
        return;
    }
    // Open the way on purpose, so that only the server's own check stands.
    for (path, mode) in [
        (&mcp.runtime, 0o711),
        (&mcp.runtime.join("agg"), 0o711),
        (&socket, 0o666),
    ] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
    }
    let script = "import socket,sys\ns=socket.socket(socket.AF_UNIX)\ns.connect('\\0' + sys.argv[1])\nprint(s.makefile().readline())\ntry:\n    s.sendall(b'{\"op\":\"ps\"}\\n')\n    print(s.makefile().readline())\nexcept OSError:\n    pass";
    let mut c = Command::new("python3");
    std::os::unix::process::CommandExt::uid(&mut c, 65534);
    c.args(["-c", script]).arg(&name);
    let out = tokio::task::spawn_blocking(move || c.output().expect("python3"))
        .await
        .expect("join");
    let reply = String::from_utf8_lossy(&out.stdout);
    assert!(
        reply.contains("refused"),
        "{reply} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!reply.contains("jobs"), "{reply}");
    mcp.close().await;
}

#[tokio::test]
async fn the_socket_goes_away_with_the_server() {
    let mcp = Mcp::on_files(&[("Makefile", MAKEFILE)], true).await;
    let socket = socket_of(&mcp.runtime);
    mcp.close().await;
    eventually(Duration::from_secs(5), "socket removed", || {
        !socket.exists()
    })
    .await;
}

/// What bash is answered at a TAB after `agg run TYPED` in `dir`, through agg's completion
/// protocol, with `runtime` as `XDG_RUNTIME_DIR` (where running servers' sockets are): the
/// candidates, and agg's debug log.
fn complete(dir: &Path, runtime: &Path, state: &Path, typed: &str) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_agg"))
        .args(["--", "agg", "run", typed])
        .current_dir(dir)
        .env("AGG_COMPLETE", "fish")
        .env("XDG_RUNTIME_DIR", runtime)
        .env("XDG_STATE_HOME", state)
        .env("AGG_TEST_ANSWER_MS", "2000")
        .env("AGG_LOG", "agg=debug")
        .stdin(Stdio::null())
        .output()
        .expect("agg");
    assert!(out.status.success(), "{out:?}");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const SERVED: &str = "completion: answered by";

/// A completion asks the running `agg mcp` instead of scanning, and its answer is the one a
/// scan gives, byte for byte, even for an edit made just before the question: the server
/// orders the question after it with a cookie in its file watch.
#[tokio::test]
async fn a_completion_is_answered_by_the_running_server_and_sees_the_edit_just_made() {
    let mcp = Mcp::on_files(
        &[
            ("Makefile", "build: ## Build it all\n\t@true\n"),
            (
                "apps/web/package.json",
                r#"{"scripts": {"bundle": "esbuild", "bench": "node bench.js"}}"#,
            ),
        ],
        false,
    )
    .await;
    let state = tempfile::tempdir().expect("state");
    let nobody = tempfile::tempdir().expect("no server here");
    // Served once the watch is laid (before that, the completion scans on its own).
    let mut served = String::new();
    eventually(Duration::from_secs(20), "an answer from the server", || {
        let (out, log) = complete(&mcp.root, &mcp.runtime, state.path(), "b");
        served = out;
        log.contains(SERVED)
    })
    .await;
    let (scanned, log) = complete(&mcp.root, nobody.path(), state.path(), "b");
    assert!(!log.contains(SERVED), "{log}");
    assert_eq!(served, scanned);
    assert_eq!(served, "build\tBuild it all\n");
    // A task without a description shows its command, filled in by the asker.
    let (served, _) = complete(&mcp.root, &mcp.runtime, state.path(), "apps/web/be");
    assert_eq!(
        served,
        complete(&mcp.root, nobody.path(), state.path(), "apps/web/be").0
    );
    assert!(served.starts_with("apps/web/bench\t"), "{served}");
    assert!(served.contains("bench"), "{served}");
    let web = mcp.root.join("apps/web");
    let (below, _) = complete(&web, &mcp.runtime, state.path(), "b");
    assert_eq!(below, complete(&web, nobody.path(), state.path(), "b").0);
    assert!(below.starts_with("bench\t"), "{below}");

    let makefile = mcp.root.join("Makefile");
    let mut text = std::fs::read_to_string(&makefile).expect("Makefile");
    for i in 0..12 {
        // Each edit is asked about at once: no pause for the watch's quiet period.
        match i % 3 {
            0 => text = format!("{text}\nfresh{i}: ## Added just now {i}\n\t@true\n"),
            1 => text = text.replace("Build it all", &format!("Build it all, take {i}")),
            _ => std::fs::write(
                mcp.root.join(format!("apps/web/Taskfile{i}.mk")),
                "ignored:\n\t@true\n",
            )
            .expect("write"),
        }
        std::fs::write(&makefile, &text).expect("write");
        let (out, log) = complete(&mcp.root, &mcp.runtime, state.path(), "");
        assert!(log.contains(SERVED), "step {i}: not served: {log}");
        let (scanned, _) = complete(&mcp.root, nobody.path(), state.path(), "");
        assert_eq!(out, scanned, "step {i}");
        if i % 3 == 0 {
            assert!(
                out.contains(&format!("fresh{i}\tAdded just now {i}")),
                "step {i}: {out}"
            );
        }
    }
    // A new directory with a task file, and a script made executable, asked about at once.
    std::fs::create_dir_all(mcp.root.join("tools/gen")).expect("mkdir");
    std::fs::write(
        mcp.root.join("tools/gen/justfile"),
        "# Generate\ngen:\n    @true\n",
    )
    .expect("write");
    let (out, log) = complete(&mcp.root, &mcp.runtime, state.path(), "tools");
    assert!(log.contains(SERVED), "{log}");
    assert_eq!(
        out,
        complete(&mcp.root, nobody.path(), state.path(), "tools").0
    );
    assert!(out.contains("tools/gen/gen\tGenerate"), "{out}");
    let script = mcp.root.join("scripts/lint");
    std::fs::create_dir_all(mcp.root.join("scripts")).expect("mkdir");
    std::fs::write(&script, "#!/bin/sh\necho lint\n").expect("write");
    let (before, _) = complete(&mcp.root, &mcp.runtime, state.path(), "scripts");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let (after, log) = complete(&mcp.root, &mcp.runtime, state.path(), "scripts");
    assert!(log.contains(SERVED), "{log}");
    assert_eq!(
        after,
        complete(&mcp.root, nobody.path(), state.path(), "scripts").0
    );
    assert_ne!(before, after, "the execute bit shows at once");
    mcp.close().await;
}

/// What a client sends the control socket is hostile: a completion request over the size
/// limit, of the wrong shape, with absurd values, or never finished is answered with an
/// error or dropped, and the server keeps answering.
#[tokio::test]
async fn hostile_completion_requests_are_refused_and_the_server_keeps_answering() {
    use std::io::{Read, Write};
    let mcp = Mcp::on_files(&[("Makefile", "build:\n\t@true\n")], false).await;
    let socket = socket_of(&mcp.runtime);
    let ask = |request: &[u8]| -> String {
        let mut stream = connect(&socket);
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        // The server may close before reading all of an oversized request.
        let _ = stream.write_all(request);
        let _ = stream.shutdown(std::net::Shutdown::Write);
        let mut reply = String::new();
        let _ = stream.read_to_string(&mut reply);
        reply
    };
    let long = "b".repeat(60_000);
    let cases: Vec<Vec<u8>> = vec![
        format!("{{\"op\":\"complete\",\"typed\":\"{long}\",\"below\":null,\"within_ms\":5}}\n")
            .into_bytes(),
        b"{\"op\":\"complete\",\"typed\":\"b\",\"below\":\"../../../../etc\",\"within_ms\":18446744073709551615}\n".to_vec(),
        b"{\"op\":\"complete\",\"typed\":\"\",\"below\":\"a//b/\",\"within_ms\":0}\n".to_vec(),
        b"{\"op\":\"complete\",\"typed\":null}\n".to_vec(),
        b"{\"op\":\"complete\"}\n".to_vec(),
        vec![0xff, 0xfe, b'\n'],
        format!("{{\"op\":\"complete\",\"typed\":\"{}\"}}\n", "x".repeat(200_000)).into_bytes(),
        b"{\"op\":\"complete\",\"typed\":\"b\"".to_vec(),
    ];
    for request in &cases {
        let reply = ask(request);
        if !reply.is_empty() {
            let value: serde_json::Value =
                serde_json::from_str(reply.trim()).expect("a JSON reply");
            assert!(
                value.get("offers").is_some()
                    || value.get("error").is_some()
                    || value.get("not_current").is_some(),
                "{value}"
            );
        }
    }
    let ps = ask(b"{\"op\":\"ps\"}\n");
    assert!(ps.contains("\"pid\""), "the server still answers: {ps}");
    mcp.close().await;
}
