//! The server side of the control socket, run by `agg mcp` beside the MCP session.
//!
//! Bounded against a flood: at most [`MAX_CONNECTIONS`] connections at once (an idle one
//! gives its slot to a newcomer), [`REQUEST_TIMEOUT`] to send the request line,
//! [`WRITE_TIMEOUT`] per reply line, and an accept loop that backs off when accepting fails
//! instead of spinning, so the MCP session beside it keeps its descriptors and its CPU.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::socket::{getsockopt, sockopt::PeerCredentials};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::task::AbortHandle;

use super::{MAX_COOKIE_WAIT, MAX_REQUEST_BYTES, Request};
use crate::engine::{Engine, Job, ReadRequest};
use crate::lock::MutexExt;
use crate::watched_table::WatchedTable;

/// A listening control socket; its discovery file is removed when this is dropped.
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

/// Listens for the user's `agg ps`/`logs`/`stop` on a socket for `root`, and for the
/// completions of a shell there, answered from `live`.
pub fn start(engine: Engine, live: WatchedTable, root: &Path) -> std::io::Result<ControlServer> {
    let dir = super::socket_dir().create()?;
    let path = dir.join(format!(
        "{}{}.sock",
        super::root_prefix(root),
        std::process::id()
    ));
    let listener = super::endpoint::listen(&path)?;
    let info = Arc::new(json!({
        "root": root.display().to_string(),
        "pid": std::process::id(),
        "started_at": humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
    }));
    let task = tokio::spawn(serve(listener, Served { engine, live }, info));
    Ok(ControlServer { path, task })
}

/// Connections served at once. A client sends one line and reads a few; only `agg logs
/// --follow` and `agg stop` hold theirs for long, and a person runs a handful of those.
const MAX_CONNECTIONS: usize = 64;
/// How long a connection may take to send its request line.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// How long one reply line may wait for a client that does not read.
const WRITE_TIMEOUT: Duration = Duration::from_secs(10);
/// The first pause after a failed accept (out of descriptors, say); it doubles up to
/// [`ACCEPT_BACKOFF_MAX`] while accepts keep failing.
const ACCEPT_BACKOFF_MIN: Duration = Duration::from_millis(10);
const ACCEPT_BACKOFF_MAX: Duration = Duration::from_secs(1);
/// How long a new connection waits for the slot of the idle one it displaced.
const EVICTION_WAIT: Duration = Duration::from_millis(100);

/// The connections that have not sent their request yet, oldest (smallest id) first.
type Waiting = Arc<Mutex<BTreeMap<u64, AbortHandle>>>;

/// The accept loop. At most [`MAX_CONNECTIONS`] connections are open at once; when all
/// slots are taken, a new connection takes the slot of the oldest one that has not sent
/// its request yet (so idle connections cannot lock the user's `agg ps` out), and is
/// refused at once if every slot is serving a request.
async fn serve(listener: UnixListener, served: Served, info: Arc<Value>) {
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let waiting: Waiting = Arc::default();
    let mut backoff = ACCEPT_BACKOFF_MIN;
    for id in 0u64.. {
        let stream = match listener.accept().await {
            Ok((stream, _)) => {
                backoff = ACCEPT_BACKOFF_MIN;
                stream
            }
            Err(err) => {
                tracing::debug!("control socket: accept failed: {err}");
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(ACCEPT_BACKOFF_MAX);
                continue;
            }
        };
        let Some(slot) = admit(&slots, &waiting).await else {
            // Best effort, never waiting: the client learns why instead of seeing EOF.
            let _ = stream.try_write(b"{\"error\":\"busy: too many control connections\"}\n");
            continue;
        };
        let served = served.clone();
        let info = Arc::clone(&info);
        let mut list = waiting.locked();
        let mut pending = Pending {
            id,
            waiting: Some(Arc::clone(&waiting)),
        };
        let handle = tokio::spawn(async move {
            let _slot = slot;
            if let Err(err) = answer(stream, &served, &info, &mut pending).await {
                tracing::debug!("control connection: {err}");
            }
        });
        list.insert(id, handle.abort_handle());
    }
}

/// A slot for a new connection: a free one, or that of the oldest connection still silent.
async fn admit(slots: &Arc<Semaphore>, waiting: &Waiting) -> Option<OwnedSemaphorePermit> {
    if let Ok(slot) = Arc::clone(slots).try_acquire_owned() {
        return Some(slot);
    }
    let (_, oldest) = waiting.locked().pop_first()?;
    oldest.abort();
    tokio::time::timeout(EVICTION_WAIT, Arc::clone(slots).acquire_owned())
        .await
        .ok()?
        .ok()
}

/// A connection's place among those that have not sent their request; leaving it (the
/// request read, or the connection gone) makes the connection no longer displaceable.
struct Pending {
    id: u64,
    waiting: Option<Waiting>,
}

impl Pending {
    fn leave(&mut self) {
        if let Some(waiting) = self.waiting.take() {
            waiting.locked().remove(&self.id);
        }
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        self.leave();
    }
}

/// What a server answers about: the jobs, and the table.
#[derive(Clone)]
struct Served {
    engine: Engine,
    live: WatchedTable,
}

async fn answer(
    stream: UnixStream,
    served: &Served,
    info: &Value,
    pending: &mut Pending,
) -> std::io::Result<()> {
    let engine = &served.engine;
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
    let mut reader = BufReader::new(read.take(MAX_REQUEST_BYTES as u64));
    tokio::time::timeout(REQUEST_TIMEOUT, reader.read_line(&mut line))
        .await
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::TimedOut, "no request in time"))??;
    pending.leave();
    let request: Request = match serde_json::from_str(&line) {
        Ok(r) => r,
        Err(err) => {
            return send(&mut write, &json!({"error": format!("bad request: {err}")})).await;
        }
    };
    match request {
        Request::Complete {
            typed,
            below,
            within_ms,
        } => {
            // A fifth of the asker's patience is left for the answer to reach it.
            let within =
                Duration::from_millis(within_ms.saturating_mul(4) / 5).min(MAX_COOKIE_WAIT);
            let Some(named) = served.live.current(within).await else {
                return send(&mut write, &json!({"not_current": true})).await;
            };
            let offers: Vec<Value> = named
                .offers(&typed, below.as_deref())
                .into_iter()
                .map(|offer| match crate::named::first_line(offer.task) {
                    Some(help) => json!({"name": offer.name, "help": help}),
                    None => json!({
                        "name": offer.name,
                        "runner": offer.task.runner.name(),
                        "dir": offer.task.dir,
                        "argv": offer.task.argv,
                    }),
                })
                .collect();
            send(&mut write, &json!({ "offers": offers })).await
        }
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
    tokio::time::timeout(WRITE_TIMEOUT, write.write_all(text.as_bytes()))
        .await
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::TimedOut, "client does not read"))?
}
