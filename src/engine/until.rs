//! Waiting without polling: [`until_line`] returns as soon as a line the job writes after
//! the call began matches a pattern, or the job ends, or the timeout passes, saying which;
//! [`follow`] hands on the job's lines as they come until it has ended. Output is looked at
//! when it arrives (the job's progress channel wakes the waiter), so a wait costs nothing
//! while the job is quiet.

use std::time::{Duration, Instant};

use regex::Regex;
use schemars::JsonSchema;
use serde::Serialize;

use super::job::Job;
use super::output::{Line, ReadRequest};

/// How a wait ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// A new line matched the pattern.
    Matched,
    /// The job ended first.
    Ended,
    /// Neither happened within the timeout.
    Timeout,
}

/// What a wait saw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Waited {
    /// `matched`, `ended` or `timeout`.
    pub outcome: Outcome,
    /// The number of the line that matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line_no: Option<u64>,
    /// The line that matched (colours removed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    /// How long the call waited, in ms.
    pub waited_ms: u64,
}

/// Bytes of a matching line a result shows.
const LINE_BYTES: usize = 500;

/// Waits until a line written from now on matches `pattern` (any line, without one), the
/// job ends, or `timeout` passes.
pub async fn until_line(job: &Job, pattern: Option<&Regex>, timeout: Duration) -> Waited {
    let start = Instant::now();
    let deadline = tokio::time::Instant::now() + timeout;
    let mut progress = job.subscribe();
    let mut cursor = job
        .read(&ReadRequest {
            max_lines: Some(0),
            ..ReadRequest::default()
        })
        .next_offset;
    let done = |outcome, line: Option<(u64, String)>| Waited {
        outcome,
        line_no: line.as_ref().map(|l| l.0),
        line: line.map(|l| crate::results::text::cut(&l.1, LINE_BYTES)),
        waited_ms: u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX),
    };
    loop {
        progress.borrow_and_update();
        if let Some(re) = pattern {
            let page = job.read(&ReadRequest {
                from: Some(cursor),
                ..ReadRequest::default()
            });
            for line in page.lines.iter().filter(|l| !l.partial) {
                let text = crate::results::text::clean(&line.text);
                if re.is_match(&text) {
                    return done(Outcome::Matched, Some((line.no, text.trim().to_owned())));
                }
            }
            cursor = page.next_offset.max(cursor);
        }
        if !job.is_running() {
            return done(Outcome::Ended, None);
        }
        tokio::select! {
            changed = progress.changed() => {
                if changed.is_err() {
                    return done(Outcome::Ended, None);
                }
            }
            () = tokio::time::sleep_until(deadline) => return done(Outcome::Timeout, None),
        }
    }
}

/// Hands `show` the job's output as it comes, from its first line: while the job runs, the
/// complete lines of each page (a last line waits for its newline); once it has ended, the
/// rest, a last line without a newline included. `show` also gets how many lines the job's
/// buffer let go before they could be read.
pub async fn follow(job: &Job, mut show: impl FnMut(u64, &[&Line])) {
    let mut progress = job.subscribe();
    let mut cursor = 1u64;
    loop {
        progress.borrow_and_update();
        let running = job.is_running();
        let page = job.read(&ReadRequest {
            from: Some(cursor),
            ..ReadRequest::default()
        });
        let shown: Vec<&Line> = page
            .lines
            .iter()
            .filter(|l| !l.partial || !running)
            .collect();
        show(page.dropped, &shown);
        if let Some(last) = shown.last() {
            cursor = last.no + 1;
        } else if page.lines.is_empty() && page.next_offset > cursor {
            cursor = page.next_offset;
        }
        if !running || progress.changed().await.is_err() {
            job.wait().await;
            let rest = job.read(&ReadRequest {
                from: Some(cursor),
                ..ReadRequest::default()
            });
            show(rest.dropped, &rest.lines.iter().collect::<Vec<_>>());
            return;
        }
    }
}
