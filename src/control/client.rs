//! The client side of the control socket: finds the servers of a repository and asks
//! them, for `agg ps`, `agg logs` and `agg stop`.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::Request;

/// The sockets of running servers: of `root`'s repository, or of every repository when
/// `root` is `None`. Sockets nobody answers on any more are removed.
pub fn servers(root: Option<&Path>) -> Vec<PathBuf> {
    let prefix = root.map(super::root_prefix);
    // A directory another user planted is not read: its sockets could answer anything.
    let dir = match super::socket_dir().existing() {
        Ok(Some(dir)) => dir,
        Ok(None) => return Vec::new(),
        Err(err) => {
            tracing::warn!("control sockets not read: {err}");
            return Vec::new();
        }
    };
    let Ok(dir) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = dir
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            p.extension().is_some_and(|e| e == "sock")
                && prefix.as_ref().is_none_or(|pre| name.starts_with(pre))
        })
        .filter(|p| match super::endpoint::connect(p) {
            Ok(_) => true,
            Err(err) if err.kind() == std::io::ErrorKind::ConnectionRefused => {
                let _ = std::fs::remove_file(p);
                false
            }
            Err(_) => false,
        })
        .collect();
    found.sort();
    found
}

/// Sends `request` to the server at `socket`; calls `each` with every reply line until
/// the server closes the connection or `each` returns false.
pub fn ask(
    socket: &Path,
    request: &Request,
    mut each: impl FnMut(Value) -> bool,
) -> std::io::Result<()> {
    let mut stream = super::endpoint::connect(socket)?;
    let mut line = serde_json::to_string(request).map_err(std::io::Error::other)?;
    line.push('\n');
    stream.write_all(line.as_bytes())?;
    for reply in BufReader::new(stream).lines() {
        let reply = reply?;
        let value: Value = serde_json::from_str(&reply).map_err(std::io::Error::other)?;
        if let Some(err) = value.get("error").and_then(Value::as_str) {
            return Err(std::io::Error::other(err.to_owned()));
        }
        if !each(value) {
            break;
        }
    }
    Ok(())
}

/// Asks `request` of each server in turn until one knows the job (it answers something
/// other than `not_found`); returns whether one did.
pub fn ask_job(
    sockets: &[PathBuf],
    request: &Request,
    mut each: impl FnMut(Value) -> bool,
) -> std::io::Result<bool> {
    for socket in sockets {
        let mut known = true;
        ask(socket, request, |v| {
            if v.get("not_found").is_some() {
                known = false;
                return false;
            }
            each(v)
        })?;
        if known {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Asks the running servers of `root` (canonical) for the offers of a completion of `typed`
/// in the directory `below` ([`Request::Complete`]): the first that vouches for its table
/// answers. `None` when none does within [`super::ANSWER_WITHIN`], in all (or
/// [`super::ANSWER_WITHIN_VAR`]).
pub fn offers(root: &Path, typed: &str, below: Option<&str>) -> Option<Vec<Value>> {
    use std::io::Read as _;
    let within = std::env::var(super::ANSWER_WITHIN_VAR)
        .ok()
        .and_then(|ms| ms.parse().ok())
        .map_or(super::ANSWER_WITHIN, std::time::Duration::from_millis);
    let deadline = std::time::Instant::now() + within;
    let prefix = super::root_prefix(root);
    let dir = super::socket_dir().existing().ok()??;
    let mut sockets: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            name.starts_with(&prefix) && p.extension().is_some_and(|e| e == "sock")
        })
        .collect();
    sockets.sort();
    let request = Request::Complete {
        typed: typed.to_owned(),
        below: below.map(str::to_owned),
        within_ms: u64::try_from(within.as_millis()).unwrap_or(u64::MAX),
    };
    let mut line = serde_json::to_string(&request).ok()?;
    line.push('\n');
    for socket in sockets {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            break;
        }
        let Ok(mut stream) = super::endpoint::connect(&socket) else {
            continue;
        };
        let timed = stream.set_read_timeout(Some(left)).is_ok()
            && stream.set_write_timeout(Some(left)).is_ok();
        if !timed || stream.write_all(line.as_bytes()).is_err() {
            continue;
        }
        let mut reply = String::new();
        let mut reader = BufReader::new(stream.take(super::MAX_ANSWER_BYTES));
        // A read that times out ends this server's turn; the deadline is the same for all.
        if reader.read_line(&mut reply).is_err() || std::time::Instant::now() > deadline {
            continue;
        }
        let Ok(mut value) = serde_json::from_str::<Value>(&reply) else {
            continue;
        };
        if let Some(Value::Array(offers)) = value.get_mut("offers").map(Value::take) {
            tracing::debug!("completion: answered by {}", socket.display());
            return Some(offers);
        }
        tracing::debug!(
            "completion: {} did not vouch for its table: {reply}",
            socket.display()
        );
    }
    None
}
