//! The control socket: how a person at a terminal sees and stops what agents run.
//!
//! Every `agg mcp` listens on a Unix socket of its own, found through a file in a per-user
//! directory ([`socket_dir`]: `$XDG_RUNTIME_DIR/agg`, else `run/` under the state dir, mode
//! 0700) named after its repository and pid; on Linux the socket is an abstract one, which
//! sandboxed runs cannot reach ([`endpoint`]), and the server answers only peers with its
//! own uid (`SO_PEERCRED`). `agg ps`, `agg logs` and `agg stop` ask every
//! socket of the repository, so several servers (several agents) are all visible. The
//! protocol is one JSON request line, then JSON reply lines. Nothing listens on a network.
//!
//! A shell completion asks the same socket for the task names it offers ([`Request::Complete`]):
//! the server answers from its live table once a cookie has ordered the question after every
//! change made before it (see [`crate::watched_table`]), or says it cannot vouch for it, and the
//! completion then scans on its own.

pub mod client;
pub mod detached;
pub mod endpoint;
pub mod server;

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::own_dirs::OwnDir;

/// The longest request line a server reads.
const MAX_REQUEST_BYTES: usize = 64 * 1024;

/// How long a completion waits for a server's answer, from connecting to the last byte,
/// before it scans on its own: a TAB should not wait for a server that is busy.
pub const ANSWER_WITHIN: std::time::Duration = std::time::Duration::from_millis(50);

/// Sets another [`ANSWER_WITHIN`], in milliseconds, for the tests: a debug build on a
/// loaded machine answers slower than a person's TAB should wait.
pub const ANSWER_WITHIN_VAR: &str = "AGG_TEST_ANSWER_MS";

/// The longest a server waits for its cookie, whatever the asker says it waits.
const MAX_COOKIE_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// The longest answer a completion reads (a table of 100,000 tasks fits).
const MAX_ANSWER_BYTES: u64 = 64 * 1024 * 1024;

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
    /// The task names a shell completion of `typed` offers in the directory `below`
    /// (root-relative; none: at the root), from the live table, current as of this question.
    /// Answered `{"offers": [...]}`, each `{"name", "help"}` or, for a task without a
    /// description, `{"name", "runner", "dir", "argv"}` (its command is the asker's to fill
    /// in, with its own `PATH`); or `{"not_current": true}`.
    Complete {
        /// What is typed so far.
        typed: String,
        /// Where the shell is, relative to the root.
        below: Option<String>,
        /// How long the asker waits, in milliseconds: the server waits for its cookie a
        /// little less (at most [`MAX_COOKIE_WAIT`]).
        within_ms: u64,
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
    crate::own_dirs::socket_dir()
}

/// The JSON records in `dir` of the repository `root` (of every repository when `None`),
/// at most `max` files read, each with its path: a file is read (with `read`) only when its
/// name has `root`'s prefix, and kept only when the root it records (`root_of`) is `root`.
/// The person's runs and the services `agg run --until-ready` left are kept this way.
pub fn records_of<T>(
    dir: &Path,
    root: Option<&Path>,
    max: usize,
    read: impl Fn(&Path) -> Option<T>,
    root_of: impl Fn(&T) -> &str,
) -> Vec<(std::path::PathBuf, T)> {
    let prefix = root.map(root_prefix);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            p.extension().is_some_and(|e| e == "json")
                && prefix.as_ref().is_none_or(|pre| name.starts_with(pre))
        })
        .take(max)
        .filter_map(|p| {
            let record = read(&p)?;
            let wanted = root.is_none_or(|r| Path::new(root_of(&record)) == r);
            wanted.then_some((p, record))
        })
        .collect()
}

/// The prefix of the socket names of servers on `root`.
pub fn root_prefix(root: &Path) -> String {
    let mut h = DefaultHasher::new();
    root.hash(&mut h);
    format!("{:016x}-", h.finish())
}
