//! The table and the jobs' output as MCP resources: `agg://tasks` (what `list_tasks`
//! returns, every row) and `agg://runs/{run_id}/log` (a job's retained output, paged with
//! `?offset=N&max_bytes=M`, the words `task_output` uses). Which URIs a classic session
//! subscribed to is kept here; the server sends `notifications/resources/updated` for
//! them and `notifications/resources/list_changed` when jobs come and go.
//!
//! An unknown URI or job is "resource not found", with `data: {"uri": …}` in every
//! lifecycle. Its code follows the session's protocol version, as each revision of the
//! specification asks: -32002 up to 2025-11-25, -32602 from 2026-07-28 on (SEP-2164; rmcp
//! maps it at the boundary). A malformed parameter (`offset=x`, `offset=0`) is -32602 in
//! both.

use std::collections::HashSet;
use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{Resource, ResourceTemplate};

use crate::engine::Job;

/// The whole task table, as JSON.
pub const TASKS_URI: &str = "agg://tasks";
/// A job's output; `offset` (a line number) and `max_bytes` page it.
pub const RUN_LOG_TEMPLATE: &str = "agg://runs/{run_id}/log{?offset,max_bytes}";
/// Default and largest page of a run log read.
pub const LOG_PAGE_BYTES: usize = 64 * 1024;
/// Largest page a read may ask for.
pub const LOG_PAGE_MAX: usize = 256 * 1024;

/// What a resource URI names.
#[derive(Debug, PartialEq, Eq)]
pub enum Target {
    /// `agg://tasks`.
    Tasks,
    /// `agg://runs/{run_id}/log`, from line `offset`, at most `max_bytes`.
    RunLog {
        /// The job.
        run_id: String,
        /// The line number to start from (1 = the first line); `None` reads from the
        /// oldest retained line.
        offset: Option<u64>,
        /// Most bytes of text.
        max_bytes: usize,
    },
}

/// The URI of a job's log.
pub fn run_log_uri(run_id: &str) -> String {
    format!("agg://runs/{run_id}/log")
}

/// What is wrong with a resource URI.
#[derive(Debug, PartialEq, Eq)]
pub enum UriError {
    /// agg serves nothing at this URI.
    NotFound(String),
    /// The URI names a resource, but a parameter is malformed.
    Invalid(String),
}

impl UriError {
    /// The JSON-RPC error for `uri`.
    pub fn into_error(self, uri: &str) -> ErrorData {
        match self {
            UriError::NotFound(message) => not_found(uri, message),
            UriError::Invalid(message) => {
                ErrorData::invalid_params(message, Some(serde_json::json!({ "uri": uri })))
            }
        }
    }
}

/// "Resource not found" for `uri`, the same in every lifecycle but for the code (see the
/// module documentation).
pub fn not_found(uri: &str, message: String) -> ErrorData {
    ErrorData::resource_not_found(message, Some(serde_json::json!({ "uri": uri })))
}

/// Reads a resource URI; `Err` says what is wrong with it.
pub fn parse(uri: &str) -> Result<Target, UriError> {
    let (path, query) = uri.split_once('?').unwrap_or((uri, ""));
    if path == TASKS_URI && query.is_empty() {
        return Ok(Target::Tasks);
    }
    let run_id = path
        .strip_prefix("agg://runs/")
        .and_then(|rest| rest.strip_suffix("/log"))
        .filter(|id| !id.is_empty() && !id.contains('/'))
        .ok_or_else(|| {
            UriError::NotFound(format!(
                "unknown resource `{uri}`: agg serves {TASKS_URI} and agg://runs/{{run_id}}/log"
            ))
        })?;
    let mut offset = None;
    let mut max_bytes = LOG_PAGE_BYTES;
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let number = value
            .parse::<u64>()
            .map_err(|_| UriError::Invalid(format!("`{key}` in `{uri}` must be a number")))?;
        match key {
            "offset" if number == 0 => {
                return Err(UriError::Invalid(format!(
                    "offset in `{uri}` is a line number: 1 is the first line"
                )));
            }
            "offset" => offset = Some(number),
            "max_bytes" => {
                max_bytes = usize::try_from(number)
                    .unwrap_or(LOG_PAGE_MAX)
                    .clamp(256, LOG_PAGE_MAX);
            }
            other => {
                return Err(UriError::Invalid(format!(
                    "unknown parameter `{other}` in `{uri}`: offset and max_bytes page a log"
                )));
            }
        }
    }
    Ok(Target::RunLog {
        run_id: run_id.to_owned(),
        offset,
        max_bytes,
    })
}

/// `resources/list`: the table, then one log per retained job.
pub fn list(jobs: &[Arc<Job>]) -> Vec<Resource> {
    let mut out = vec![
        Resource::new(TASKS_URI, "tasks")
            .with_title("Every task of the repository")
            .with_description("The task table as list_tasks returns it (every row, JSON).")
            .with_mime_type("application/json"),
    ];
    out.extend(jobs.iter().map(|job| {
        Resource::new(run_log_uri(&job.run_id), format!("{} log", job.run_id))
            .with_title(format!("Output of {} ({})", job.unique_name, job.run_id))
            .with_description(format!(
                "Retained output of the job {} of `{}`, {}.",
                job.run_id,
                job.unique_name,
                job.state().as_str()
            ))
            .with_mime_type("text/plain")
    }));
    out
}

/// `resources/templates/list`.
pub fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new(RUN_LOG_TEMPLATE, "run log")
            .with_title("A job's output")
            .with_description(format!(
                "A job's retained output (ANSI removed), from line number `offset` (1 = the first line; default: the oldest kept), at most `max_bytes` (default {LOG_PAGE_BYTES}, at most {LOG_PAGE_MAX}); _meta[\"agg/page\"].next_offset continues it."
            ))
            .with_mime_type("text/plain"),
    ]
}

/// The URIs a classic session subscribed to (`resources/subscribe`).
#[derive(Debug, Default)]
pub struct Subscriptions(HashSet<String>);

impl Subscriptions {
    /// Adds `uri`.
    pub fn add(&mut self, uri: &str) {
        self.0.insert(uri.to_owned());
    }
    /// Removes `uri`.
    pub fn remove(&mut self, uri: &str) {
        self.0.remove(uri);
    }
    /// Whether `uri` is subscribed to.
    pub fn has(&self, uri: &str) -> bool {
        self.0.contains(uri)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_read_strictly() {
        assert_eq!(parse("agg://tasks"), Ok(Target::Tasks));
        assert_eq!(
            parse("agg://runs/build-1a2b/log?offset=40&max_bytes=1000"),
            Ok(Target::RunLog {
                run_id: "build-1a2b".into(),
                offset: Some(40),
                max_bytes: 1000
            })
        );
        // Each refused URI with the kind of refusal: nothing served there, or a resource
        // with a malformed parameter.
        let not_found = UriError::NotFound(String::new());
        let invalid = UriError::Invalid(String::new());
        let refused = [
            ("agg://runs//log", &not_found),
            ("agg://runs/x/log?offset=x", &invalid),
            ("agg://runs/x/log?offset=0", &invalid),
            ("agg://runs/x/log?colour=1", &invalid),
            ("file:///etc/passwd", &not_found),
        ];
        for (uri, kind) in refused {
            let got = parse(uri);
            assert!(
                got.as_ref()
                    .is_err_and(|e| std::mem::discriminant(e) == std::mem::discriminant(kind)),
                "{uri}: {got:?}"
            );
        }
    }
}
