//! Turning jobs into token-frugal results: the output modes, the size cap with a marker
//! that says how to page the rest, the stderr tail on failure, and the compact text copy
//! for clients that read only `content`.

use std::fmt::Write as _;

use crate::engine::{Job, JobState, Line, Page, ReadRequest, Stream};

use super::types::{JobResult, OutputBlock, OutputMode};

/// Bytes of output text one result carries at most.
pub const RESULT_CAP: usize = 16 * 1024;
/// Bytes of the stderr tail added to a failed result.
const STDERR_TAIL_CAP: usize = 4 * 1024;
/// Lines of the stderr tail added to a failed result.
const STDERR_TAIL_LINES: usize = 20;

/// A line as an agent should read it: no ANSI colours, and for a progress bar redrawn with
/// `\r`, only what a terminal would finally show.
fn clean(line: &Line) -> String {
    let last = line.text.rsplit('\r').find(|s| !s.is_empty()).unwrap_or("");
    let mut text = anstream::adapter::strip_str(last).to_string();
    if line.cut > 0 {
        let _ = write!(text, " [… {} more bytes of this line cut]", line.cut);
    }
    text
}

fn block(page: &Page, run_id: &str) -> OutputBlock {
    let text = page.lines.iter().map(clean).collect::<Vec<_>>().join("\n");
    let first_line = page.lines.first().map(|l| l.no);
    let mut notes = Vec::new();
    if page.dropped > 0 {
        notes.push(format!(
            "{} earlier lines are no longer kept (the buffer keeps about the last 5 MiB)",
            page.dropped
        ));
    }
    if page.skipped_before > 0 {
        let from = first_line
            .map_or(1, |n| n.saturating_sub(page.skipped_before))
            .max(1);
        notes.push(format!(
            "{} earlier lines not shown: task_output {{\"run_id\": \"{run_id}\", \"offset\": {from}}} reads them",
            page.skipped_before
        ));
    }
    if page.remaining_after > 0 {
        notes.push(format!(
            "{} more lines: task_output {{\"run_id\": \"{run_id}\", \"offset\": {}}} reads on",
            page.remaining_after, page.next_offset
        ));
    }
    OutputBlock {
        text,
        first_line,
        next_offset: page.next_offset,
        total_lines: page.total_lines,
        omitted_before: page.skipped_before,
        omitted_after: page.remaining_after,
        dropped: page.dropped,
        marker: (!notes.is_empty()).then(|| format!("[{}]", notes.join("; "))),
    }
}

/// Reads the output block of `mode` from `job`.
pub fn output(
    job: &Job,
    mode: OutputMode,
    tail_lines: usize,
    max_bytes: usize,
) -> Option<OutputBlock> {
    let req = match mode {
        OutputMode::Silent => return None,
        OutputMode::Tail => ReadRequest {
            max_lines: Some(tail_lines),
            max_bytes: Some(max_bytes),
            ..ReadRequest::default()
        },
        OutputMode::Full => ReadRequest {
            from: Some(1),
            max_bytes: Some(max_bytes),
            ..ReadRequest::default()
        },
        OutputMode::Stderr => ReadRequest {
            stream: Some(Stream::Stderr),
            max_lines: Some(tail_lines),
            max_bytes: Some(max_bytes),
            ..ReadRequest::default()
        },
    };
    Some(block(&job.read(&req), &job.run_id))
}

/// Reads forward from `offset`.
pub fn page(job: &Job, offset: u64, max_bytes: usize) -> OutputBlock {
    let req = ReadRequest {
        from: Some(offset),
        max_bytes: Some(max_bytes),
        ..ReadRequest::default()
    };
    block(&job.read(&req), &job.run_id)
}

/// The full result for a job: state, output in `mode`, and the stderr tail on failure.
pub fn job_result(
    job: &Job,
    mode: OutputMode,
    block: Option<OutputBlock>,
    reused: bool,
) -> JobResult {
    let snapshot = job.snapshot();
    let failed = matches!(snapshot.state, JobState::Signaled | JobState::FailedToStart)
        || snapshot.exit_code.is_some_and(|c| c != 0);
    let passed = match snapshot.state {
        JobState::Running => None,
        _ => Some(!failed),
    };
    let stderr_tail = (failed && !matches!(mode, OutputMode::Stderr))
        .then(|| {
            let page = job.read(&ReadRequest {
                stream: Some(Stream::Stderr),
                max_lines: Some(STDERR_TAIL_LINES),
                max_bytes: Some(STDERR_TAIL_CAP),
                ..ReadRequest::default()
            });
            // In tail/full mode the same lines may already be in the output; repeat only
            // what the output block does not show.
            let shown = block.as_ref().map_or(0, |b| b.next_offset);
            let first_shown = block
                .as_ref()
                .and_then(|b| b.first_line)
                .unwrap_or(u64::MAX);
            let missing = page
                .lines
                .iter()
                .any(|l| l.no < first_shown || l.no >= shown);
            (missing && !page.lines.is_empty()).then(|| self::block(&page, &job.run_id))
        })
        .flatten();
    let hint = match snapshot.state {
        JobState::Running => Some(format!(
            "still running in the background: task_status or task_output with run_id \"{}\" to follow it, task_stop to end it",
            snapshot.run_id
        )),
        _ => None,
    };
    JobResult {
        job: snapshot,
        reused,
        passed,
        output: block,
        stderr_tail,
        hint,
        ready: None,
        readiness: None,
    }
}

/// The compact text copy of a job result.
pub fn job_text(r: &JobResult) -> String {
    let j = &r.job;
    let secs = Duration(j.elapsed_ms);
    let mut s = match j.state {
        JobState::Running => format!(
            "{}: running for {secs} (pid {}) · run_id {}",
            j.unique_name,
            j.pid.unwrap_or(0),
            j.run_id
        ),
        JobState::Exited => format!(
            "{}: exited {} ({}) in {secs} · run_id {}",
            j.unique_name,
            j.exit_code.unwrap_or(-1),
            if r.passed == Some(true) {
                "passed"
            } else {
                "failed"
            },
            j.run_id
        ),
        JobState::Signaled => format!(
            "{}: killed by {} after {secs} · run_id {}",
            j.unique_name,
            j.signal.as_deref().unwrap_or("a signal"),
            j.run_id
        ),
        JobState::FailedToStart => format!(
            "{}: failed to start: {} · run_id {}",
            j.unique_name,
            j.error.as_deref().unwrap_or("unknown reason"),
            j.run_id
        ),
    };
    if r.reused {
        s.push_str(" (already running; this is that job)");
    }
    if let Some(ready) = super::readiness::text(r) {
        let _ = write!(s, "\n{ready}");
    }
    if let Some(error) = j
        .error
        .as_deref()
        .filter(|_| j.state != JobState::FailedToStart)
    {
        let _ = write!(s, " ({error})");
    }
    for (title, b) in [("output", &r.output), ("stderr tail", &r.stderr_tail)] {
        if let Some(b) = b {
            if !b.text.is_empty() {
                let _ = write!(s, "\n--- {title} ---\n{}", b.text);
            }
            if let Some(marker) = &b.marker {
                let _ = write!(s, "\n{marker}");
            }
        }
    }
    if let Some(hint) = &r.hint {
        let _ = write!(s, "\n{hint}");
    }
    s
}

/// Milliseconds shown as `850ms`, `1.2s` or `3m04s`.
struct Duration(u64);

impl std::fmt::Display for Duration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ms = self.0;
        if ms < 1000 {
            write!(f, "{ms}ms")
        } else if ms < 60_000 {
            write!(f, "{}.{}s", ms / 1000, (ms % 1000) / 100)
        } else {
            write!(f, "{}m{:02}s", ms / 60_000, (ms % 60_000) / 1000)
        }
    }
}
