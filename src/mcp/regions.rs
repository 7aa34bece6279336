//! Output regions in results: what `task_output`'s `grep` found, and the first failure
//! region a failed run's result carries. Both are searches of the job's retained lines
//! ([`crate::engine::Job::search`]) rendered the way `grep -n -C` prints them (`N:` a
//! matching line, `N-` context, `--` between regions), within a byte budget that counts
//! everything returned, marker included.

use std::fmt::Write as _;

use crate::engine::failure::FailureMatcher;
use crate::engine::{Found, Job, Line, SearchRequest};

use super::types::{FailureBlock, MatchBlock, OutputBlock};

/// Lines shown before a run's first failure line.
pub const FAILURE_BEFORE: usize = 2;
/// Lines shown after it (and after each failure line that follows closely).
pub const FAILURE_AFTER: usize = 6;
/// Bytes of the failure region a result carries at most.
pub const FAILURE_CAP: usize = 2 * 1024;
/// Regions one `grep` returns at most.
pub const GREP_REGIONS: usize = 10;

/// A numbered line as a region shows it.
fn numbered(no: u64, matched: bool, text: &str) -> String {
    format!("{no}{}{text}", if matched { ':' } else { '-' })
}

/// Cuts `s` to at most `max` bytes, at a character boundary, marking the cut.
pub fn truncate(s: &mut String, max: usize) {
    const MARK: &str = "…";
    if s.len() <= max {
        return;
    }
    let mut end = max.saturating_sub(MARK.len());
    while end > 0 && !s.is_char_boundary(end) {
        end -= 1;
    }
    s.truncate(end);
    if max >= MARK.len() {
        s.push_str(MARK);
    }
}

/// The regions as text within `budget` bytes: whole lines while they fit, then a cut first
/// line if nothing fitted. Returns the text, the matching lines shown, and the number of
/// the first line left out, if any.
fn render(found: &Found, budget: usize) -> (String, u64, Option<u64>) {
    let mut text = String::new();
    let mut shown = 0;
    for (r, region) in found.regions.iter().enumerate() {
        for (i, l) in region.lines.iter().enumerate() {
            let sep = match (r, i) {
                (0, 0) => "",
                (_, 0) => "\n--\n",
                _ => "\n",
            };
            let mut line = numbered(l.line.no, l.matched, &clean(&l.line));
            if text.len() + sep.len() + line.len() > budget {
                if text.is_empty() {
                    truncate(&mut line, budget);
                    shown += u64::from(l.matched);
                    text = line;
                    let next = region.lines.get(i + 1).map(|n| n.line.no);
                    return (text, shown, next.or(found.next_offset));
                }
                return (text, shown, Some(l.line.no));
            }
            text.push_str(sep);
            text.push_str(&line);
            shown += u64::from(l.matched);
        }
    }
    (text, shown, found.next_offset)
}

/// Searches `job` for `is_match` and renders what it found within `max_bytes` (text and
/// marker together).
pub fn grep(
    job: &Job,
    from: u64,
    context: usize,
    max_bytes: usize,
    is_match: impl FnMut(&[u8]) -> bool,
) -> MatchBlock {
    let req = SearchRequest {
        from,
        before: context,
        after: context,
        max_regions: GREP_REGIONS,
        max_bytes,
        line_overhead: 12,
    };
    let found = job.search(&req, is_match);
    // The longest marker this answer can have, so that the text leaves room for it.
    let reserve = marker(
        found.matches,
        found.matches,
        Some(found.total_lines + 1),
        &found,
    )
    .map_or(0, |m| m.len());
    let (text, shown, next_offset) = render(&found, max_bytes.saturating_sub(reserve));
    let marker = marker(found.matches, shown, next_offset, &found);
    MatchBlock {
        text,
        total: found.matches,
        shown,
        next_offset,
        marker,
    }
}

fn marker(total: u64, shown: u64, next_offset: Option<u64>, found: &Found) -> Option<String> {
    let mut notes = Vec::new();
    if total == 0 {
        notes.push(format!(
            "no line matches ({} lines written)",
            found.total_lines
        ));
    }
    if let Some(next) = next_offset {
        notes.push(format!(
            "{shown} of {total} matching lines shown: the same grep with offset {next} shows the rest"
        ));
    }
    if found.dropped > 0 {
        notes.push(format!(
            "{} earlier lines no longer kept, not searched",
            found.dropped
        ));
    }
    (!notes.is_empty()).then(|| format!("[{}]", notes.join("; ")))
}

/// The first failure region of `job`'s output, if a line reads as a failure. Its text is
/// left out when `shown` (the result's output block, in a mode showing both streams)
/// already holds every line of it.
pub fn failure(job: &Job, shown: Option<&OutputBlock>) -> Option<FailureBlock> {
    let matcher = FailureMatcher::get();
    let req = SearchRequest {
        from: 1,
        before: FAILURE_BEFORE,
        after: FAILURE_AFTER,
        max_regions: 1,
        max_bytes: FAILURE_CAP,
        line_overhead: 12,
    };
    let found = job.search(&req, |line| matcher.is_failure(line));
    let region = found.regions.first()?;
    let first = region.lines.iter().find(|l| l.matched)?;
    let pattern = matcher
        .pattern(first.line.text.as_bytes())
        .map_or("", |p| p.tool)
        .to_owned();
    let (start, end) = (
        region.lines.first().map_or(0, |l| l.line.no),
        region.lines.last().map_or(0, |l| l.line.no),
    );
    let in_output = shown.is_some_and(|b| {
        b.first_line.is_some_and(|f| f <= start) && end < b.next_offset && !b.text.is_empty()
    });
    let text = (!in_output).then(|| render(&found, FAILURE_CAP).0);
    Some(FailureBlock {
        first_line: first.line.no,
        pattern,
        text,
    })
}

/// A line as an agent should read it: no ANSI colours, and for a progress bar redrawn with
/// `\r`, only what a terminal would finally show.
pub(super) fn clean(line: &Line) -> String {
    let last = line.text.rsplit('\r').find(|s| !s.is_empty()).unwrap_or("");
    let mut text = anstream::adapter::strip_str(last).to_string();
    if line.cut > 0 {
        let _ = write!(text, " [… {} more bytes of this line cut]", line.cut);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_keeps_characters_whole_and_within_the_bound() {
        let mut s = "ééééé".to_owned();
        truncate(&mut s, 6);
        assert!(s.len() <= 6, "{s}");
        assert!(s.ends_with('…'));
        let mut short = "ok".to_owned();
        truncate(&mut short, 6);
        assert_eq!(short, "ok");
    }
}
