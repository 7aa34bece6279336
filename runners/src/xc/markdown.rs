//! The README as xc reads it: headings, code blocks and plain lines, with their source
//! lines, from pulldown-cmark's events.
use std::borrow::Cow;

use pulldown_cmark::{CodeBlockKind, Event, OffsetIter, Options, Parser, Tag};

/// Whether the source of a fenced block ends with a closing fence (Markdown lets an
/// unclosed fence swallow the rest of the file, which xc rejects).
pub(super) fn fence_closed(raw: &str) -> bool {
    let raw = raw.trim_end();
    let Some((first, rest)) = raw.split_once('\n') else {
        return false;
    };
    let open = first.trim_start();
    let Some(fence) = open.chars().next() else {
        return false;
    };
    let width = open.len() - open.trim_start_matches(fence).len();
    let last = rest.rsplit('\n').next().unwrap_or(rest).trim();
    last.len() >= width && last.chars().all(|c| c == fence)
}

/// A cheap, linear pre-check: a tasks section needs the `xc-heading` marker, or the word
/// `tasks` on an ATX heading line (`## Tasks`) or on a line above a setext underline.
/// Prose that merely mentions tasks is rejected without running the Markdown parser.
pub(super) fn may_hold_tasks(text: &str) -> bool {
    if find_ignore_case(text, "xc-heading").is_some() {
        return true;
    }
    let is_break = |c: char| c == '\n' || c == '\r';
    let mut rest = text;
    while let Some(at) = find_ignore_case(rest, "tasks") {
        let start = rest[..at].rfind(is_break).map_or(0, |i| i + 1);
        let end = rest[at..].find(is_break).map_or(rest.len(), |i| at + i);
        let after = &rest[end..];
        let after = after
            .strip_prefix("\r\n")
            .or_else(|| after.strip_prefix(is_break))
            .unwrap_or(after);
        let next = &after[..after.find(is_break).unwrap_or(after.len())];
        if rest[start..end].trim_start().starts_with('#') || is_setext_underline(next) {
            return true;
        }
        rest = &rest[end..];
    }
    false
}

pub(super) fn is_setext_underline(line: &str) -> bool {
    let line = line.trim();
    !line.is_empty() && (line.bytes().all(|b| b == b'=') || line.bytes().all(|b| b == b'-'))
}

/// ASCII case-insensitive substring search, linear in `hay`.
pub(super) fn find_ignore_case(hay: &str, needle: &str) -> Option<usize> {
    let (hay, needle) = (hay.as_bytes(), needle.as_bytes());
    let (&first, rest) = needle.split_first()?;
    hay.iter().enumerate().position(|(i, b)| {
        b.eq_ignore_ascii_case(&first)
            && hay
                .get(i + 1..i + needle.len())
                .is_some_and(|w| w.eq_ignore_ascii_case(rest))
    })
}

/// CRLF and lone CR become LF, and a BOM goes, so scripts carry no `\r` and [`LineIndex`]
/// counts the same lines the Markdown parser does.
pub(super) fn normalize_newlines(text: &str) -> Cow<'_, str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.contains('\r') {
        Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        Cow::Borrowed(text)
    }
}

/// One line of a paragraph, rendered as plain text with code spans kept in backticks.
pub(super) struct Line {
    pub(super) text: String,
    pub(super) offset: usize,
    /// The line ended in a hard break (two spaces or `\`) rather than a soft wrap.
    pub(super) hard_break: bool,
}

pub(super) struct Code {
    pub(super) text: String,
    pub(super) range: std::ops::Range<usize>,
    pub(super) fenced: bool,
}

/// A top-level Markdown block; only these are xc syntax (a heading inside a list or block
/// quote is not a task, and xc reads neither).
pub(super) enum Block {
    Heading {
        level: u8,
        text: String,
        offset: usize,
    },
    Paragraph(Vec<Line>),
    Code(Code),
    /// An HTML block holding just `<!-- xc-heading -->`: the next heading is the tasks heading.
    Marker,
    Other,
}

pub(super) struct Blocks<'a> {
    pub(super) events: OffsetIter<'a>,
}

impl<'a> Blocks<'a> {
    pub(super) fn new(text: &'a str) -> Blocks<'a> {
        let options =
            Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
        Blocks {
            events: Parser::new_ext(text, options).into_offset_iter(),
        }
    }

    /// The next top-level block; paragraphs are only rendered when `want_text` is set, so
    /// the prose before the tasks section costs no allocations.
    pub(super) fn next_block(&mut self, want_text: bool) -> Option<Block> {
        let (event, range) = self.events.next()?;
        let Event::Start(tag) = event else {
            return Some(Block::Other);
        };
        Some(match tag {
            Tag::Heading { level, .. } => {
                let lines = self.inline(range.start);
                let text = lines
                    .iter()
                    .map(|l| l.text.trim())
                    .collect::<Vec<_>>()
                    .join(" ");
                Block::Heading {
                    level: level as u8,
                    text,
                    offset: range.start,
                }
            }
            Tag::Paragraph if want_text => Block::Paragraph(self.inline(range.start)),
            Tag::CodeBlock(kind) => Block::Code(Code {
                text: self.leaf_text(),
                range,
                fenced: matches!(kind, CodeBlockKind::Fenced(_)),
            }),
            Tag::HtmlBlock => {
                let html = self.leaf_text();
                let inner = html
                    .trim()
                    .strip_prefix("<!--")
                    .and_then(|s| s.strip_suffix("-->"));
                if inner.is_some_and(|s| s.trim().eq_ignore_ascii_case("xc-heading")) {
                    Block::Marker
                } else {
                    Block::Other
                }
            }
            _ => {
                self.skip();
                Block::Other
            }
        })
    }

    /// Renders inline content up to the end of the current block, split at line breaks.
    pub(super) fn inline(&mut self, start: usize) -> Vec<Line> {
        let mut lines = vec![Line {
            text: String::new(),
            offset: start,
            hard_break: false,
        }];
        let mut depth = 0usize;
        for (event, range) in self.events.by_ref() {
            let Some(line) = lines.last_mut() else { break };
            match event {
                Event::Start(_) => depth += 1,
                Event::End(_) if depth == 0 => break,
                Event::End(_) => depth -= 1,
                Event::Text(t) => line.text.push_str(&t),
                Event::Code(c) => {
                    line.text.push('`');
                    line.text.push_str(&c);
                    line.text.push('`');
                }
                Event::SoftBreak | Event::HardBreak => {
                    line.hard_break = matches!(event, Event::HardBreak);
                    lines.push(Line {
                        text: String::new(),
                        offset: range.end,
                        hard_break: false,
                    });
                }
                _ => {}
            }
        }
        lines
    }

    /// The text of a leaf block (code or HTML) up to its end.
    pub(super) fn leaf_text(&mut self) -> String {
        let mut text = String::new();
        for (event, _) in self.events.by_ref() {
            match event {
                Event::Text(t) | Event::Html(t) => text.push_str(&t),
                Event::End(_) => break,
                _ => {}
            }
        }
        text
    }

    /// Skips to the end of the current block, whatever it nests.
    pub(super) fn skip(&mut self) {
        let mut depth = 0usize;
        for (event, _) in self.events.by_ref() {
            match event {
                Event::Start(_) => depth += 1,
                Event::End(_) if depth == 0 => return,
                Event::End(_) => depth -= 1,
                _ => {}
            }
        }
    }
}
