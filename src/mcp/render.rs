//! Turning jobs into token-frugal results: the output modes, the size cap (a hard bound on
//! the text and its marker) with a marker that says how to page the rest, the failure
//! region and the stderr tail on failure, and the compact text copy for clients that read
//! only `content`.

use std::fmt::Write as _;

use crate::engine::{Job, JobState, Page, ReadRequest, Stream};

use super::regions::clean;
use super::types::{JobResult, MatchBlock, OutputBlock, OutputMode};

/// Bytes of output text one result carries at most.
pub const RESULT_CAP: usize = 16 * 1024;
/// Bytes of the stderr tail added to a failed result.
const STDERR_TAIL_CAP: usize = 4 * 1024;
/// Lines of the stderr tail added to a failed result.
const STDERR_TAIL_LINES: usize = 20;
/// Lines of output a `tail` result carries when it has tests or problems.
pub const RESULTS_TAIL_LINES: usize = 5;

/// Which end of a page gives way when its text and marker exceed the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keep {
    /// A tail: the newest lines stay.
    End,
    /// A forward page: the oldest lines stay.
    Start,
}

/// The marker of a block showing `lines[lo..hi]` of `page`.
fn marker(page: &Page, lo: usize, hi: usize) -> (Option<String>, u64, u64, u64) {
    let lines = &page.lines;
    let skipped_before = page.skipped_before + lo as u64;
    let remaining_after = page.remaining_after + (lines.len() - hi) as u64;
    let next_offset = lines.get(hi).map_or(page.next_offset, |l| l.no);
    let mut notes = Vec::new();
    if page.dropped > 0 {
        notes.push(format!(
            "{} earlier lines no longer kept (the buffer keeps about the last 5 MiB)",
            page.dropped
        ));
    }
    if skipped_before > 0 {
        let first = lines.get(lo).map_or(next_offset, |l| l.no);
        let from = first.saturating_sub(skipped_before).max(1);
        notes.push(format!(
            "{skipped_before} earlier lines not shown: task_output offset {from} reads them"
        ));
    }
    if remaining_after > 0 {
        notes.push(format!(
            "{remaining_after} more lines: task_output offset {next_offset} reads on"
        ));
    }
    let marker = (!notes.is_empty()).then(|| format!("[{}]", notes.join("; ")));
    (marker, skipped_before, remaining_after, next_offset)
}

/// The block of `page` whose text and marker together hold at most `max_bytes`: lines
/// give way at the end `keep` does not name, and a lone line too long is cut.
fn block(page: &Page, max_bytes: usize, keep: Keep) -> OutputBlock {
    let texts: Vec<String> = page.lines.iter().map(clean).collect();
    let (mut lo, mut hi) = (0, texts.len());
    // Bytes of texts[lo..hi] joined with newlines.
    let mut size = texts.iter().map(String::len).sum::<usize>() + texts.len().saturating_sub(1);
    loop {
        let (marker, ..) = marker(page, lo, hi);
        let total = size + marker.as_ref().map_or(0, String::len);
        if total <= max_bytes || hi - lo <= 1 {
            break;
        }
        let gone = if keep == Keep::End { lo } else { hi - 1 };
        size -= texts[gone].len() + 1;
        if keep == Keep::End {
            lo += 1;
        } else {
            hi -= 1;
        }
    }
    let (marker, omitted_before, omitted_after, next_offset) = marker(page, lo, hi);
    let mut text = texts[lo..hi].join("\n");
    super::regions::truncate(
        &mut text,
        max_bytes.saturating_sub(marker.as_ref().map_or(0, String::len)),
    );
    OutputBlock {
        text,
        first_line: page.lines.get(lo).filter(|_| hi > lo).map(|l| l.no),
        next_offset,
        total_lines: page.total_lines,
        omitted_before,
        omitted_after,
        dropped: page.dropped,
        marker,
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
    let keep = if mode == OutputMode::Full {
        Keep::Start
    } else {
        Keep::End
    };
    Some(block(&job.read(&req), max_bytes, keep))
}

/// Reads forward from line `offset` (1 = the first line).
pub fn page(job: &Job, offset: u64, max_bytes: usize) -> OutputBlock {
    let req = ReadRequest {
        from: Some(offset),
        max_bytes: Some(max_bytes),
        ..ReadRequest::default()
    };
    block(&job.read(&req), max_bytes, Keep::Start)
}

/// Whether a run failed (a non-zero exit, a signal, or no start at all).
fn failed(snapshot: &crate::engine::JobSnapshot) -> bool {
    matches!(snapshot.state, JobState::Signaled | JobState::FailedToStart)
        || snapshot.exit_code.is_some_and(|c| c != 0)
}

/// The full result for a job: state, output in `mode`, and on failure the first failure
/// region and the stderr tail (each only where the output block does not show it).
pub fn job_result(
    job: &Job,
    mode: OutputMode,
    block: Option<OutputBlock>,
    reused: bool,
) -> JobResult {
    let mut result = bare_result(job, block, None, reused);
    let failed_run = failed(&result.job);
    // Results explain a run when they hold what made it fail (a failed test, an error), or
    // when it passed; warnings alone beside a failure leave the failure region its place.
    let explained = job.results().is_some_and(|r| {
        !r.is_empty()
            && (!failed_run || r.errors > 0 || r.tests.as_ref().is_some_and(|t| t.failed > 0))
    });
    if explained && mode == OutputMode::Tail {
        // The tests and problems say what the tail would: a few lines of it suffice, and
        // task_output reads the rest.
        result.output = output(job, mode, RESULTS_TAIL_LINES, RESULT_CAP);
    }
    if !failed_run || explained {
        return result;
    }
    let both_streams = matches!(mode, OutputMode::Tail | OutputMode::Full);
    result.failure = super::regions::failure(job, result.output.as_ref().filter(|_| both_streams));
    result.stderr_tail = (!matches!(mode, OutputMode::Stderr))
        .then(|| {
            let page = job.read(&ReadRequest {
                stream: Some(Stream::Stderr),
                max_lines: Some(STDERR_TAIL_LINES),
                max_bytes: Some(STDERR_TAIL_CAP),
                ..ReadRequest::default()
            });
            // In tail/full mode the same lines may already be in the output; repeat only
            // what the output block does not show.
            let block = result.output.as_ref();
            let shown = block.map_or(0, |b| b.next_offset);
            let first_shown = block.and_then(|b| b.first_line).unwrap_or(u64::MAX);
            let missing = page
                .lines
                .iter()
                .any(|l| l.no < first_shown || l.no >= shown);
            (missing && !page.lines.is_empty())
                .then(|| self::block(&page, STDERR_TAIL_CAP, Keep::End))
        })
        .flatten();
    result
}

/// A job's state with just the output asked for (`task_output`): no failure region, no
/// stderr tail, so `max_bytes` bounds everything the result shows of the output.
pub fn bare_result(
    job: &Job,
    block: Option<OutputBlock>,
    matches: Option<MatchBlock>,
    reused: bool,
) -> JobResult {
    let snapshot = job.snapshot();
    let passed = match snapshot.state {
        JobState::Running => None,
        _ => Some(!failed(&snapshot)),
    };
    let hint = match snapshot.state {
        JobState::Running => Some(format!(
            "still running in the background: task_status or task_output with run_id \"{}\" to follow it, task_stop to end it",
            snapshot.run_id
        )),
        _ => None,
    };
    let results = job.results();
    JobResult {
        job: snapshot,
        reused,
        passed,
        tests: results.and_then(|r| r.tests.clone()),
        problems: results.map(|r| r.problems.clone()).unwrap_or_default(),
        problems_more: results.map_or(0, |r| r.problems_more),
        wait: None,
        output: block,
        matches,
        failure: None,
        stderr_tail: None,
        hint,
        ready: None,
        readiness: None,
        sandbox: super::sandboxed::summary(job),
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
    if let Some(sandbox) = &r.sandbox {
        let _ = write!(s, "\n{}", super::sandboxed::text(sandbox));
    }
    if let Some(w) = &r.wait {
        let _ = write!(s, "\nwait_for: {}", super::results_text::waited(w));
    }
    super::results_text::append(&mut s, r);
    if let Some(f) = &r.failure {
        match &f.text {
            Some(text) => {
                let _ = write!(
                    s,
                    "\n--- first failure, line {} ({}) ---\n{text}",
                    f.first_line, f.pattern
                );
            }
            None => {
                let _ = write!(
                    s,
                    "\nfirst failure: line {} ({}), shown above",
                    f.first_line, f.pattern
                );
            }
        }
    }
    if let Some(m) = &r.matches {
        let _ = write!(s, "\n--- {} matching lines, {} shown ---", m.total, m.shown);
        if !m.text.is_empty() {
            let _ = write!(s, "\n{}", m.text);
        }
        if let Some(marker) = &m.marker {
            let _ = write!(s, "\n{marker}");
        }
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
