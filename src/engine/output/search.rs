//! Searching a job's retained output: the lines a matcher accepts, each with lines of
//! context around it, overlapping regions merged, bounded in regions and bytes. The scan
//! reads lines where the ring holds them (a copy only for the rare line that wraps), so
//! looking through 100,000 retained lines for the one that failed copies only what is
//! returned. Both `task_output`'s `grep` and the failure region of a failed run use it.

use super::{Entry, Line, OutputBuffer, Stream, copy_entry, ring_index};

/// What a search returns at most, and how much context it shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchRequest {
    /// The first line number looked at (1 = the first line).
    pub from: u64,
    /// Lines shown before each matching line.
    pub before: usize,
    /// Lines shown after each matching line.
    pub after: usize,
    /// Regions returned at most; later matches are only counted.
    pub max_regions: usize,
    /// Bytes of line text returned at most, each line counted with `line_overhead` more.
    pub max_bytes: usize,
    /// Bytes a reader adds to each returned line (a line-number prefix, a newline).
    pub line_overhead: usize,
}

/// A line of a region, and whether it matched or is context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegionLine {
    /// The line.
    pub line: Line,
    /// It matched (not context).
    pub matched: bool,
}

/// Consecutive lines around one or more matches.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Region {
    /// The lines, oldest first.
    pub lines: Vec<RegionLine>,
}

/// The answer to a [`SearchRequest`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    /// The regions, oldest first.
    pub regions: Vec<Region>,
    /// Matching lines from `from` on, shown or not.
    pub matches: u64,
    /// Matching lines in the regions.
    pub shown: u64,
    /// Where a search for the rest resumes, when matches were left out.
    pub next_offset: Option<u64>,
    /// Lines at or after `from` that the buffer no longer holds (evicted).
    pub dropped: u64,
    /// Lines the task has written so far (both streams).
    pub total_lines: u64,
}

/// One line of the searched sequence, where it lives.
struct Item<'a> {
    no: u64,
    stream: Stream,
    cut: u64,
    partial: bool,
    entry: Option<&'a Entry>,
    pending: &'a [u8],
}

impl OutputBuffer {
    /// The bytes of `e`, borrowed from the ring, or copied into `scratch` when the line
    /// wraps around the ring's end.
    fn entry_bytes<'a>(&'a self, e: &Entry, scratch: &'a mut Vec<u8>) -> &'a [u8] {
        let len = e.len as usize;
        let start = ring_index(e.start, self.limits.max_bytes);
        if start + len <= self.ring.len() {
            &self.ring[start..start + len]
        } else {
            scratch.clear();
            copy_entry(&self.ring, self.limits.max_bytes, e, scratch);
            scratch
        }
    }

    fn items(&self, from: u64) -> Vec<Item<'_>> {
        let skip = self.entries.partition_point(|e| e.no < from);
        let mut items: Vec<Item<'_>> = self
            .entries
            .range(skip..)
            .map(|e| Item {
                no: e.no,
                stream: e.stream,
                cut: e.cut,
                partial: false,
                entry: Some(e),
                pending: &[],
            })
            .collect();
        let mut no = self.next_no;
        for s in [Stream::Stdout, Stream::Stderr] {
            let p = &self.pending[s.index()];
            if p.bytes.is_empty() && p.cut == 0 {
                continue;
            }
            if no >= from {
                items.push(Item {
                    no,
                    stream: s,
                    cut: p.cut,
                    partial: true,
                    entry: None,
                    pending: &p.bytes,
                });
            }
            no += 1;
        }
        items
    }

    fn item_line(&self, item: &Item<'_>) -> Line {
        Line {
            no: item.no,
            stream: item.stream,
            text: match item.entry {
                Some(e) => self.text(e),
                None => String::from_utf8_lossy(item.pending).into_owned(),
            },
            cut: item.cut,
            partial: item.partial,
        }
    }

    /// Finds the lines from `req.from` on that `is_match` accepts (given each line's raw
    /// bytes), with their context, as [`Found`] describes.
    pub fn search(&self, req: &SearchRequest, mut is_match: impl FnMut(&[u8]) -> bool) -> Found {
        let from = req.from.max(1);
        let first_retained = self.entries.front().map_or(self.next_no, |e| e.no);
        let items = self.items(from);
        let mut found = Found {
            dropped: first_retained.saturating_sub(from),
            total_lines: self.total_lines(),
            ..Found::default()
        };
        // Regions as index ranges into `items`, with the matching indices they hold.
        let mut spans: Vec<(usize, usize, Vec<usize>)> = Vec::new();
        let mut collecting = req.max_regions > 0;
        let mut scratch = Vec::new();
        for (i, item) in items.iter().enumerate() {
            let bytes = match item.entry {
                Some(e) => self.entry_bytes(e, &mut scratch),
                None => item.pending,
            };
            if !is_match(bytes) {
                continue;
            }
            found.matches += 1;
            if !collecting {
                continue;
            }
            let end = (i + req.after).min(items.len() - 1);
            let last_end = spans.last().map(|(_, end, _)| *end);
            if let Some(last_end) = last_end.filter(|e| i.saturating_sub(req.before) <= e + 1) {
                if let Some((_, end_of_last, hits)) = spans.last_mut() {
                    *end_of_last = last_end.max(end);
                    hits.push(i);
                }
                continue;
            }
            if spans.len() == req.max_regions {
                collecting = false;
                found.next_offset = Some(item.no);
                continue;
            }
            let start = i
                .saturating_sub(req.before)
                .max(last_end.map_or(0, |e| e + 1));
            spans.push((start, end, vec![i]));
        }
        // Lines in order until the byte budget runs out; a cut region ends the answer.
        let mut used = 0usize;
        'spans: for (start, end, hits) in spans {
            let mut region = Region::default();
            for (i, item) in items.iter().enumerate().take(end + 1).skip(start) {
                let line = self.item_line(item);
                let cost = line.text.len() + req.line_overhead;
                if used + cost > req.max_bytes && (used > 0 || !region.lines.is_empty()) {
                    found.next_offset = Some(item.no);
                    if !region.lines.is_empty() {
                        found.regions.push(region);
                    }
                    break 'spans;
                }
                used += cost;
                let matched = hits.binary_search(&i).is_ok();
                found.shown += u64::from(matched);
                region.lines.push(RegionLine { line, matched });
            }
            found.regions.push(region);
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::super::{OutputLimits, Stream};
    use super::*;

    fn buffer(lines: impl IntoIterator<Item = String>) -> OutputBuffer {
        let mut b = OutputBuffer::new(OutputLimits::default());
        for l in lines {
            b.push(Stream::Stdout, format!("{l}\n").as_bytes());
        }
        b
    }

    fn req(before: usize, after: usize, max_regions: usize) -> SearchRequest {
        SearchRequest {
            from: 1,
            before,
            after,
            max_regions,
            max_bytes: usize::MAX,
            line_overhead: 0,
        }
    }

    fn numbers(found: &Found) -> Vec<Vec<(u64, bool)>> {
        found
            .regions
            .iter()
            .map(|r| r.lines.iter().map(|l| (l.line.no, l.matched)).collect())
            .collect()
    }

    fn has(word: &'static str) -> impl FnMut(&[u8]) -> bool {
        move |b: &[u8]| String::from_utf8_lossy(b).contains(word)
    }

    #[test]
    fn matches_come_with_context_and_overlapping_regions_merge() {
        let b = buffer((1..=30).map(|i| {
            if [5, 8, 20].contains(&i) {
                format!("{i} boom")
            } else {
                format!("{i} ok")
            }
        }));
        let found = b.search(&req(2, 2, 10), has("boom"));
        assert_eq!(found.matches, 3);
        assert_eq!(found.shown, 3);
        assert_eq!(
            numbers(&found),
            [
                vec![
                    (3, false),
                    (4, false),
                    (5, true),
                    (6, false),
                    (7, false),
                    (8, true),
                    (9, false),
                    (10, false)
                ],
                vec![
                    (18, false),
                    (19, false),
                    (20, true),
                    (21, false),
                    (22, false)
                ],
            ]
        );
        assert_eq!(found.next_offset, None);
    }

    #[test]
    fn regions_beyond_the_limit_are_counted_and_resumable() {
        let b =
            buffer((1..=100).map(|i| format!("{i} {}", if i % 10 == 0 { "boom" } else { "ok" })));
        let found = b.search(&req(1, 1, 2), has("boom"));
        assert_eq!(found.regions.len(), 2);
        assert_eq!((found.matches, found.shown), (10, 2));
        assert_eq!(found.next_offset, Some(30));
        let rest = b.search(
            &SearchRequest {
                from: 30,
                ..req(1, 1, 2)
            },
            has("boom"),
        );
        assert_eq!(rest.regions[0].lines[0].line.no, 30);
        assert_eq!(rest.matches, 8);
    }

    #[test]
    fn the_byte_budget_cuts_the_answer_and_says_where_to_resume() {
        let b = buffer((1..=50).map(|i| format!("{i:04} boom")));
        let found = b.search(
            &SearchRequest {
                max_bytes: 40,
                line_overhead: 1,
                ..req(0, 0, 100)
            },
            has("boom"),
        );
        let lines: usize = found.regions.iter().map(|r| r.lines.len()).sum();
        assert_eq!(lines, 4, "{found:?}");
        assert_eq!(found.matches, 50);
        assert_eq!(found.shown, 4);
        assert_eq!(found.next_offset, Some(5));
    }

    #[test]
    fn lines_that_wrap_around_the_ring_are_searched_whole() {
        let mut b = OutputBuffer::new(OutputLimits {
            max_bytes: 32,
            max_lines: 100,
            max_line_bytes: 32,
        });
        for word in [
            "aaaaaaa", "bbbbbbb", "ccccccc", "needle1", "ddddddd", "needle2",
        ] {
            b.push(Stream::Stdout, format!("{word}\n").as_bytes());
        }
        let found = b.search(&req(0, 0, 10), has("needle"));
        assert_eq!(found.matches, 2);
        let texts: Vec<_> = found
            .regions
            .iter()
            .flat_map(|r| r.lines.iter().map(|l| l.line.text.clone()))
            .collect();
        assert_eq!(texts, ["needle1", "needle2"]);
        assert!(found.dropped > 0);
    }

    #[test]
    fn a_line_still_being_written_is_searched_too() {
        let mut b = buffer(["one".to_owned()]);
        b.push(Stream::Stderr, b"boom in progress");
        let found = b.search(&req(1, 1, 10), has("boom"));
        assert_eq!(numbers(&found), [vec![(1, false), (2, true)]]);
        assert!(found.regions[0].lines[1].line.partial);
    }
}
