//! The server side of the control socket, run by `agg mcp` beside the MCP session.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use nix::sys::socket::{getsockopt, sockopt::PeerCredentials};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};

use super::{MAX_REQUEST_BYTES, Request};
use crate::engine::{Engine, Job, ReadRequest};

/// A listening control socket; the socket file is removed when this is dropped.
#[derive(Debug)]
pub struct ControlServer {
    path: PathBuf,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for ControlServer {
    fn drop(&mut self) {
        self.task.abort();
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Listens for the user's `agg ps`/`logs`/`stop` on a socket for `root`.
pub fn start(engine: Engine, root: &Path) -> std::io::Result<ControlServer> {
    let dir = super::socket_dir();
    crate::places::private_dir(&dir)?;
    let path = dir.join(format!(
        "{}{}.sock",
        super::root_prefix(root),
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    let listener = UnixListener::bind(&path)?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
    let info = Arc::new(json!({
        "root": root.display().to_string(),
        "pid": std::process::id(),
        "started_at": humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
    }));
    let task = tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let engine = engine.clone();
            let info = Arc::clone(&info);
            tokio::spawn(async move {
                if let Err(err) = answer(stream, &engine, &info).await {
                    tracing::debug!("control connection: {err}");
                }
            });
        }
    });
    Ok(ControlServer { path, task })
}

async fn answer(stream: UnixStream, engine: &Engine, info: &Value) -> std::io::Result<()> {
    let peer = getsockopt(&stream, PeerCredentials).map_err(std::io::Error::from)?;
    let (read, mut write) = stream.into_split();
    if peer.uid() != nix::unistd::getuid().as_raw() {
        tracing::warn!(
            uid = peer.uid(),
            "control socket: refused a peer of another user"
        );
        return send(
            &mut write,
            &json!({"error": "refused: this agg belongs to another user"}),
        )
        .await;
    }
    let mut line = String::new();
    BufReader::new(read.take(MAX_REQUEST_BYTES as u64))
        .read_line(&mut line)
        .await?;
    let request: Request = match serde_json::from_str(&line) {
        Ok(r) => r,
        Err(err) => {
            return send(&mut write, &json!({"error": format!("bad request: {err}")})).await;
        }
    };
    match request {
        Request::Ps => {
            let jobs: Vec<_> = engine.list().iter().map(|j| j.snapshot()).collect();
            let mut reply = info.clone();
            reply["jobs"] = json!(jobs);
            send(&mut write, &reply).await
        }
        Request::Stop { run_id, grace_ms } => {
            let Some(job) = engine.get(&run_id) else {
                return send(&mut write, &json!({"not_found": run_id})).await;
            };
            let grace = Duration::from_millis(grace_ms.unwrap_or(5000).min(60_000));
            engine.stop(&job, grace).await;
            send(&mut write, &json!({"stopped": job.snapshot()})).await
        }
        Request::Logs {
            run_id,
            from,
            tail,
            follow,
        } => {
            let Some(job) = engine.get(&run_id) else {
                return send(&mut write, &json!({"not_found": run_id})).await;
            };
            logs(&job, from, tail, follow, &mut write).await
        }
    }
}

async fn logs(
    job: &Arc<Job>,
    from: Option<u64>,
    tail: Option<usize>,
    follow: bool,
    write: &mut tokio::net::unix::OwnedWriteHalf,
) -> std::io::Result<()> {
    let mut progress = job.subscribe();
    let first = job.read(&match from {
        Some(from) => ReadRequest {
            from: Some(from),
            ..ReadRequest::default()
        },
        None => ReadRequest {
            max_lines: Some(tail.unwrap_or(100)),
            ..ReadRequest::default()
        },
    });
    let mut cursor = first.next_offset;
    send_lines(write, &first.lines).await?;
    if follow {
        loop {
            progress.borrow_and_update();
            let page = job.read(&ReadRequest {
                from: Some(cursor),
                ..ReadRequest::default()
            });
            let complete: Vec<_> = page.lines.into_iter().filter(|l| !l.partial).collect();
            if let Some(last) = complete.last() {
                cursor = last.no + 1;
            }
            send_lines(write, &complete).await?;
            if !job.is_running() {
                // The end record comes after the last line the job wrote.
                job.wait().await;
                let page = job.read(&ReadRequest {
                    from: Some(cursor),
                    ..ReadRequest::default()
                });
                send_lines(write, &page.lines).await?;
                break;
            }
            if progress.changed().await.is_err() {
                break;
            }
        }
    }
    send(write, &json!({"end": job.snapshot()})).await
}

async fn send_lines(
    write: &mut tokio::net::unix::OwnedWriteHalf,
    lines: &[crate::engine::Line],
) -> std::io::Result<()> {
    for line in lines {
        send(write, &json!({"line": line})).await?;
    }
    Ok(())
}

async fn send(write: &mut tokio::net::unix::OwnedWriteHalf, value: &Value) -> std::io::Result<()> {
    let mut text = value.to_string();
    text.push('\n');
    write.write_all(text.as_bytes()).await
}
