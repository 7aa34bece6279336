//! The control socket: how a person at a terminal sees and stops what agents run.
//!
//! Every `agg mcp` listens on a Unix socket of its own, found through a file in a per-user
//! directory ([`socket_dir`]: `$XDG_RUNTIME_DIR/agg`, else `run/` under the state dir, mode
//! 0700) named after its repository and pid; on Linux the socket is an abstract one, which
//! sandboxed runs cannot reach ([`endpoint`]), and the server answers only peers with its
//! own uid (`SO_PEERCRED`). `agg ps`, `agg logs` and `agg stop` ask every
//! socket of the repository, so several servers (several agents) are all visible. The
//! protocol is one JSON request line, then JSON reply lines. Nothing listens on a network.

pub mod client;
pub mod detached;
pub mod endpoint;
pub mod server;

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::places::OwnDir;

/// The longest request line a server reads.
const MAX_REQUEST_BYTES: usize = 64 * 1024;

/// One request.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase")]
pub enum Request {
    /// The server's repository, pid and jobs.
    Ps,
    /// A job's output: from line `from` (default: the last `tail` lines), then, with
    /// `follow`, every new line until the job ends.
    Logs {
        /// The job.
        run_id: String,
        /// First line number to send.
        from: Option<u64>,
        /// Lines of the tail to send when `from` is not given (default 100).
        tail: Option<usize>,
        /// Keep sending new lines until the job ends.
        follow: bool,
    },
    /// Stop a job (TERM to its group, `grace_ms`, then KILL).
    Stop {
        /// The job.
        run_id: String,
        /// Milliseconds between SIGTERM and SIGKILL (default 5000).
        grace_ms: Option<u64>,
    },
}

/// The directory of the sockets: `$XDG_RUNTIME_DIR/agg`, else `run/` in the state dir.
pub fn socket_dir() -> OwnDir {
    crate::places::socket_dir()
}

/// The prefix of the socket names of servers on `root`.
pub fn root_prefix(root: &Path) -> String {
    let mut h = DefaultHasher::new();
    root.hash(&mut h);
    format!("{:016x}-", h.finish())
}
