//! Bounded capture of a job's output.
//!
//! Lines from stdout and stderr share one ring of bytes capped in size and in line count;
//! each line keeps its stream and a global 1-based number, which doubles as the paging
//! cursor (`offset`). When the ring is full the oldest lines are evicted and counted, so a
//! reader always learns what it missed. A line longer than the per-line cap keeps its head
//! and counts the rest as cut: a 10 MB line without a newline costs the cap, not 10 MB.
//! Storage is one byte ring, grown as lines arrive and trimmed to its lines when the job
//! ends, and a queue of small entries: no allocation per line, so a flood costs little
//! more than the copy, and a job that printed 4 KB holds about 4 KB.

use std::collections::VecDeque;

mod search;

pub use search::{Found, Region, RegionLine, SearchRequest};

use schemars::JsonSchema;
use serde::Serialize;

/// Which pipe a line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

impl Stream {
    fn index(self) -> usize {
        match self {
            Stream::Stdout => 0,
            Stream::Stderr => 1,
        }
    }
}

/// Caps of one job's buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutputLimits {
    /// Bytes of line text kept (default 5 MiB).
    pub max_bytes: usize,
    /// Lines kept (default 100,000).
    pub max_lines: usize,
    /// Bytes kept of any one line; the rest is counted as cut (default 64 KiB).
    pub max_line_bytes: usize,
}

impl Default for OutputLimits {
    fn default() -> Self {
        OutputLimits {
            max_bytes: 5 * 1024 * 1024,
            max_lines: 100_000,
            max_line_bytes: 64 * 1024,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    no: u64,
    start: u64,
    len: u32,
    stream: Stream,
    cut: u64,
}

#[derive(Debug, Default)]
struct Pending {
    bytes: Vec<u8>,
    cut: u64,
}

/// One line as a reader sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Line {
    /// Global 1-based line number: pass it as `offset` to page from here.
    pub no: u64,
    /// Which stream wrote it.
    pub stream: Stream,
    /// The text, with undecodable bytes replaced.
    pub text: String,
    /// Bytes of this line beyond the per-line cap that were not kept.
    #[serde(skip_serializing_if = "is_zero")]
    pub cut: u64,
    /// The line has no newline yet (the task is still writing it).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// What to read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReadRequest {
    /// Only this stream (`None`: both).
    pub stream: Option<Stream>,
    /// Read forward from this line number; `None` reads the tail.
    pub from: Option<u64>,
    /// At most this many lines.
    pub max_lines: Option<usize>,
    /// At most this many bytes of text.
    pub max_bytes: Option<usize>,
}

/// The answer to a [`ReadRequest`], with everything a reader needs to know about what it
/// did not get.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Page {
    /// The lines, oldest first.
    pub lines: Vec<Line>,
    /// Lines in the requested range that the buffer no longer holds (evicted).
    pub dropped: u64,
    /// Retained lines before the first returned one that this read left out (tail or cap).
    pub skipped_before: u64,
    /// Retained lines after the last returned one that this read left out.
    pub remaining_after: u64,
    /// The cursor to continue from: the number after the last returned line.
    pub next_offset: u64,
    /// Lines the task has written so far (both streams).
    pub total_lines: u64,
}

/// A job's captured output.
#[derive(Debug)]
pub struct OutputBuffer {
    limits: OutputLimits,
    ring: Vec<u8>,
    write_pos: u64,
    entries: VecDeque<Entry>,
    bytes: usize,
    next_no: u64,
    dropped: [u64; 2],
    dropped_bytes: u64,
    pending: [Pending; 2],
    total_bytes: u64,
}

impl OutputBuffer {
    /// An empty buffer. Memory is taken as output arrives, up to the limits.
    pub fn new(limits: OutputLimits) -> OutputBuffer {
        let limits = OutputLimits {
            max_bytes: limits.max_bytes.max(1),
            max_lines: limits.max_lines.max(1),
            max_line_bytes: limits.max_line_bytes.clamp(1, limits.max_bytes.max(1)),
        };
        OutputBuffer {
            limits,
            ring: Vec::new(),
            write_pos: 0,
            entries: VecDeque::new(),
            bytes: 0,
            next_no: 1,
            dropped: [0; 2],
            dropped_bytes: 0,
            pending: [Pending::default(), Pending::default()],
            total_bytes: 0,
        }
    }

    /// Appends a chunk read from `stream`. Complete lines are stored; a trailing partial
    /// line waits for its newline (see [`OutputBuffer::finish`]).
    pub fn push(&mut self, stream: Stream, chunk: &[u8]) {
        self.total_bytes += chunk.len() as u64;
        let mut rest = chunk;
        while let Some(i) = memchr::memchr(b'\n', rest) {
            let piece = &rest[..i];
            let pending = &mut self.pending[stream.index()];
            if pending.bytes.is_empty() && pending.cut == 0 {
                self.commit(stream, piece, 0);
            } else {
                let mut pending = std::mem::take(pending);
                append_capped(&mut pending, piece, self.limits.max_line_bytes);
                self.commit(stream, &pending.bytes, pending.cut);
                pending.bytes.clear();
                pending.cut = 0;
                // Keep the allocation for the next partial line.
                self.pending[stream.index()] = pending;
            }
            rest = &rest[i + 1..];
        }
        if !rest.is_empty() {
            let cap = self.limits.max_line_bytes;
            append_capped(&mut self.pending[stream.index()], rest, cap);
        }
    }

    /// Stores a stream's unterminated last line, once the stream has ended, and gives back
    /// what the ring holds beyond its lines: a finished job keeps only what it printed.
    pub fn finish(&mut self, stream: Stream) {
        let pending = std::mem::take(&mut self.pending[stream.index()]);
        if !pending.bytes.is_empty() || pending.cut > 0 {
            self.commit(stream, &pending.bytes, pending.cut);
        }
        self.compact();
    }

    /// Lays the retained lines out again from the start of a ring just their size. The
    /// ring grows by doubling while a job runs; once it ended, the slack (up to half the
    /// ring) would stay allocated for as long as the job is retained.
    fn compact(&mut self) {
        if self.ring.capacity() <= self.bytes && self.entries.capacity() <= self.entries.len() {
            return;
        }
        let cap = self.limits.max_bytes;
        let mut ring = Vec::with_capacity(self.bytes);
        for e in &mut self.entries {
            let start = ring.len() as u64;
            copy_entry(&self.ring, cap, e, &mut ring);
            e.start = start;
        }
        self.write_pos = ring.len() as u64;
        self.ring = ring;
        self.entries.shrink_to_fit();
    }

    /// Lines written so far (both streams, evicted ones included).
    pub fn total_lines(&self) -> u64 {
        self.next_no - 1
    }

    /// Bytes written so far.
    pub fn total_bytes(&self) -> u64 {
        self.total_bytes
    }

    /// Lines evicted so far, and their bytes.
    pub fn dropped(&self) -> (u64, u64) {
        (self.dropped[0] + self.dropped[1], self.dropped_bytes)
    }

    /// Bytes of memory the ring holds now.
    pub fn capacity_bytes(&self) -> usize {
        self.ring.capacity()
    }

    fn commit(&mut self, stream: Stream, line: &[u8], mut cut: u64) {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let keep = line.len().min(self.limits.max_line_bytes);
        cut += (line.len() - keep) as u64;
        let line = &line[..keep];
        while !self.entries.is_empty()
            && (self.bytes + keep > self.limits.max_bytes
                || self.entries.len() >= self.limits.max_lines)
        {
            self.evict();
        }
        self.write_ring(line);
        self.entries.push_back(Entry {
            no: self.next_no,
            start: self.write_pos - keep as u64,
            len: u32::try_from(keep).unwrap_or(u32::MAX),
            stream,
            cut,
        });
        self.bytes += keep;
        self.next_no += 1;
    }

    fn evict(&mut self) {
        if let Some(e) = self.entries.pop_front() {
            self.bytes -= e.len as usize;
            self.dropped[e.stream.index()] += 1;
            self.dropped_bytes += u64::from(e.len) + e.cut;
        }
    }

    fn write_ring(&mut self, bytes: &[u8]) {
        let cap = self.limits.max_bytes;
        let len = self.ring.len();
        if len < cap {
            // Grow lazily, and only when the line does not fit: a quiet job never pays for
            // the full ring. Until the ring reaches its cap it has never wrapped, so its
            // bytes lie at 0..write_pos.
            let need = usize::try_from(self.write_pos)
                .unwrap_or(usize::MAX)
                .saturating_add(bytes.len());
            if need > len {
                let want = need.max(len * 2).min(cap);
                self.ring.reserve_exact(want - len);
                self.ring.resize(want, 0);
            }
        }
        let len = self.ring.len();
        let mut pos = ring_index(self.write_pos, cap);
        let mut rest = bytes;
        while !rest.is_empty() {
            if pos >= len {
                pos = 0;
            }
            let n = rest.len().min(len - pos);
            self.ring[pos..pos + n].copy_from_slice(&rest[..n]);
            rest = &rest[n..];
            pos += n;
        }
        self.write_pos += bytes.len() as u64;
    }

    fn text(&self, e: &Entry) -> String {
        let mut bytes = Vec::with_capacity(e.len as usize);
        copy_entry(&self.ring, self.limits.max_bytes, e, &mut bytes);
        String::from_utf8_lossy(&bytes).into_owned()
    }

    fn line(&self, e: &Entry) -> Line {
        Line {
            no: e.no,
            stream: e.stream,
            text: self.text(e),
            cut: e.cut,
            partial: false,
        }
    }

    /// Unterminated lines still being written, numbered after the stored ones.
    fn partial_lines(&self, stream: Option<Stream>) -> Vec<Line> {
        let mut no = self.next_no;
        let mut out = Vec::new();
        for s in [Stream::Stdout, Stream::Stderr] {
            let p = &self.pending[s.index()];
            if (p.bytes.is_empty() && p.cut == 0) || stream.is_some_and(|f| f != s) {
                continue;
            }
            out.push(Line {
                no,
                stream: s,
                text: String::from_utf8_lossy(&p.bytes).into_owned(),
                cut: p.cut,
                partial: true,
            });
            no += 1;
        }
        out
    }

    /// Reads lines as the request asks, with counts of everything left out.
    pub fn read(&self, req: &ReadRequest) -> Page {
        let matches = |e: &Entry| req.stream.is_none_or(|s| s == e.stream);
        let max_lines = req.max_lines.unwrap_or(usize::MAX);
        let max_bytes = req.max_bytes.unwrap_or(usize::MAX);
        let mut candidates: Vec<Line> = Vec::new();
        let first_retained = self.entries.front().map_or(self.next_no, |e| e.no);
        let (dropped, start_no) = match req.from {
            None => {
                let dropped = match req.stream {
                    None => self.dropped[0] + self.dropped[1],
                    Some(s) => self.dropped[s.index()],
                };
                (dropped, first_retained)
            }
            Some(from) => (first_retained.saturating_sub(from.max(1)), from.max(1)),
        };
        let skip_idx = self.entries.partition_point(|e| e.no < start_no);
        let partials = self.partial_lines(req.stream);
        // Counting is O(1) for both streams, the common case (tails read every 250 ms).
        let retained = match req.stream {
            None => self.entries.len() - skip_idx,
            Some(_) => self
                .entries
                .range(skip_idx..)
                .filter(|e| matches(e))
                .count(),
        };
        let total_matching = retained + partials.iter().filter(|l| l.no >= start_no).count();
        let mut page = Page {
            dropped,
            total_lines: self.total_lines(),
            ..Page::default()
        };
        if req.from.is_some() {
            // Forward: from the cursor until a cap is hit.
            let mut used = 0usize;
            let all = self
                .entries
                .range(skip_idx..)
                .filter(|e| matches(e))
                .map(|e| self.line(e))
                .chain(partials.into_iter().filter(|l| l.no >= start_no));
            for line in all {
                if candidates.len() >= max_lines
                    || (!candidates.is_empty() && used + line.text.len() > max_bytes)
                {
                    break;
                }
                used += line.text.len();
                candidates.push(line);
            }
            page.remaining_after = (total_matching - candidates.len()) as u64;
        } else {
            // Tail: walk back from the end until a cap is hit.
            let mut used = 0usize;
            let mut rev: Vec<Line> = Vec::new();
            let tail_partials: Vec<Line> = partials.into_iter().rev().collect();
            for line in tail_partials {
                if rev.len() >= max_lines || (!rev.is_empty() && used + line.text.len() > max_bytes)
                {
                    break;
                }
                used += line.text.len();
                rev.push(line);
            }
            for e in self.entries.iter().rev().filter(|e| matches(e)) {
                if rev.len() >= max_lines || (!rev.is_empty() && used + e.len as usize > max_bytes)
                {
                    break;
                }
                used += e.len as usize;
                rev.push(self.line(e));
            }
            rev.reverse();
            page.skipped_before = (total_matching - rev.len()) as u64;
            candidates = rev;
        }
        if let Some(last) = candidates.iter().rev().find(|l| !l.partial) {
            page.next_offset = last.no + 1;
        } else {
            page.next_offset = candidates
                .first()
                .map_or(start_no.max(first_retained).min(self.next_no), |l| l.no);
        }
        if req.from.is_none() && candidates.iter().all(|l| !l.partial) {
            page.next_offset = self.next_no;
        }
        page.lines = candidates;
        page
    }
}

/// Appends the bytes of `e` from `ring` (whose positions wrap at `cap`) to `out`.
fn copy_entry(ring: &[u8], cap: usize, e: &Entry, out: &mut Vec<u8>) {
    let len = e.len as usize;
    let start = ring_index(e.start, cap);
    let first = len.min(ring.len().saturating_sub(start));
    out.extend_from_slice(&ring[start..start + first]);
    out.extend_from_slice(&ring[..len - first]);
}

fn ring_index(pos: u64, cap: usize) -> usize {
    usize::try_from(pos % cap as u64).unwrap_or(0)
}

fn append_capped(p: &mut Pending, bytes: &[u8], cap: usize) {
    let room = cap.saturating_sub(p.bytes.len());
    let take = bytes.len().min(room);
    p.bytes.extend_from_slice(&bytes[..take]);
    p.cut += (bytes.len() - take) as u64;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(page: &Page) -> Vec<&str> {
        page.lines.iter().map(|l| l.text.as_str()).collect()
    }

    fn small(max_bytes: usize, max_lines: usize, max_line_bytes: usize) -> OutputBuffer {
        OutputBuffer::new(OutputLimits {
            max_bytes,
            max_lines,
            max_line_bytes,
        })
    }

    #[test]
    fn lines_are_split_across_chunks_and_streams_keep_their_tags() {
        let mut b = OutputBuffer::new(OutputLimits::default());
        b.push(Stream::Stdout, b"hel");
        b.push(Stream::Stderr, b"oops\n");
        b.push(Stream::Stdout, b"lo\r\nworld\n");
        let page = b.read(&ReadRequest::default());
        assert_eq!(texts(&page), ["oops", "hello", "world"]);
        assert_eq!(page.lines[0].stream, Stream::Stderr);
        assert_eq!(page.lines[1].no, 2);
        assert_eq!(page.next_offset, 4);
        let err = b.read(&ReadRequest {
            stream: Some(Stream::Stderr),
            ..ReadRequest::default()
        });
        assert_eq!(texts(&err), ["oops"]);
    }

    #[test]
    fn a_partial_line_is_visible_and_stored_at_finish() {
        let mut b = OutputBuffer::new(OutputLimits::default());
        b.push(Stream::Stdout, b"done\nprogress 50%");
        let page = b.read(&ReadRequest::default());
        assert_eq!(texts(&page), ["done", "progress 50%"]);
        assert!(page.lines[1].partial);
        b.finish(Stream::Stdout);
        let page = b.read(&ReadRequest::default());
        assert!(!page.lines[1].partial);
        assert_eq!(b.total_lines(), 2);
    }

    #[test]
    fn the_ring_evicts_oldest_lines_and_counts_them() {
        let mut b = small(20, 1000, 20);
        for i in 0..10 {
            b.push(Stream::Stdout, format!("line{i}\n").as_bytes());
        }
        let page = b.read(&ReadRequest::default());
        assert_eq!(texts(&page), ["line6", "line7", "line8", "line9"]);
        assert_eq!(page.dropped, 6);
        assert_eq!(b.dropped(), (6, 30));
        let from_start = b.read(&ReadRequest {
            from: Some(1),
            ..ReadRequest::default()
        });
        assert_eq!(from_start.dropped, 6);
        assert_eq!(from_start.lines[0].no, 7);
    }

    #[test]
    fn the_line_count_is_capped_too() {
        let mut b = small(1 << 20, 3, 100);
        for i in 0..5 {
            b.push(Stream::Stderr, format!("{i}\n").as_bytes());
        }
        assert_eq!(texts(&b.read(&ReadRequest::default())), ["2", "3", "4"]);
    }

    #[test]
    fn a_huge_line_without_newline_is_capped_and_marked() {
        let mut b = small(1024, 100, 16);
        let chunk = vec![b'x'; 64 * 1024];
        for _ in 0..160 {
            b.push(Stream::Stdout, &chunk);
        }
        b.push(Stream::Stdout, b"\nnext\n");
        let page = b.read(&ReadRequest::default());
        assert_eq!(page.lines[0].text.len(), 16);
        assert_eq!(page.lines[0].cut, 160 * 64 * 1024 - 16);
        assert_eq!(page.lines[1].text, "next");
        assert!(b.capacity_bytes() <= 1024);
    }

    #[test]
    fn tail_and_paging_report_what_they_left_out() {
        let mut b = OutputBuffer::new(OutputLimits::default());
        for i in 1..=10 {
            b.push(Stream::Stdout, format!("l{i}\n").as_bytes());
        }
        let tail = b.read(&ReadRequest {
            max_lines: Some(3),
            ..ReadRequest::default()
        });
        assert_eq!(texts(&tail), ["l8", "l9", "l10"]);
        assert_eq!(tail.skipped_before, 7);
        assert_eq!(tail.next_offset, 11);
        let page = b.read(&ReadRequest {
            from: Some(4),
            max_lines: Some(2),
            ..ReadRequest::default()
        });
        assert_eq!(texts(&page), ["l4", "l5"]);
        assert_eq!(page.remaining_after, 5);
        assert_eq!(page.next_offset, 6);
        let by_bytes = b.read(&ReadRequest {
            from: Some(1),
            max_bytes: Some(5),
            ..ReadRequest::default()
        });
        assert_eq!(texts(&by_bytes), ["l1", "l2"]);
        let end = b.read(&ReadRequest {
            from: Some(11),
            ..ReadRequest::default()
        });
        assert!(end.lines.is_empty());
        assert_eq!(end.next_offset, 11);
    }

    #[test]
    fn a_short_job_holds_what_it_printed_not_the_whole_ring() {
        let mut b = OutputBuffer::new(OutputLimits::default());
        for i in 0..200 {
            b.push(
                Stream::Stdout,
                format!("line {i:03} of the output\n").as_bytes(),
            );
        }
        let printed = 200 * "line 000 of the output".len();
        assert!(b.capacity_bytes() <= 2 * printed, "{}", b.capacity_bytes());
        let before = b.read(&ReadRequest::default());
        b.finish(Stream::Stdout);
        b.finish(Stream::Stderr);
        assert_eq!(b.capacity_bytes(), printed);
        assert_eq!(b.read(&ReadRequest::default()), before);
    }

    #[test]
    fn a_compacted_ring_still_takes_output_and_wraps() {
        let mut b = small(20, 1000, 20);
        for i in 0..7 {
            b.push(Stream::Stdout, format!("line{i}\n").as_bytes());
        }
        b.finish(Stream::Stdout);
        assert!(b.capacity_bytes() <= 20);
        for i in 7..10 {
            b.push(Stream::Stdout, format!("line{i}\n").as_bytes());
        }
        let page = b.read(&ReadRequest::default());
        assert_eq!(texts(&page), ["line6", "line7", "line8", "line9"]);
        assert_eq!(page.dropped, 6);
    }

    #[test]
    fn invalid_utf8_is_replaced_not_lost() {
        let mut b = OutputBuffer::new(OutputLimits::default());
        b.push(Stream::Stdout, b"ok \xff\xfe end\n");
        assert_eq!(
            b.read(&ReadRequest::default()).lines[0].text,
            "ok \u{fffd}\u{fffd} end"
        );
    }

    #[test]
    fn wrapping_lines_read_back_intact() {
        let mut b = small(10, 100, 10);
        for word in ["abcd", "efgh", "ijkl", "mnop"] {
            b.push(Stream::Stdout, format!("{word}\n").as_bytes());
        }
        assert_eq!(texts(&b.read(&ReadRequest::default())), ["ijkl", "mnop"]);
    }
}
