//! Line helpers every parser shares: a line as a terminal would show it (no colours, the
//! last redraw of a `\r` progress line), `path:line:col` locations, a runner's `N word`
//! counts, and messages cut to their first lines.

use std::borrow::Cow;

use super::model::{MESSAGE_BYTES, MESSAGE_LINES, Severity};

/// `line` without ANSI sequences, and of a line redrawn with `\r`, its last drawing.
pub fn clean(line: &str) -> Cow<'_, str> {
    let last = if line.contains('\r') {
        line.rsplit('\r').find(|s| !s.is_empty()).unwrap_or("")
    } else {
        line
    };
    if last.contains('\u{1b}') {
        Cow::Owned(anstream::adapter::strip_str(last).to_string())
    } else {
        Cow::Borrowed(last)
    }
}

/// A place in a file as tools print it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loc<'a> {
    pub path: &'a str,
    pub line: Option<u32>,
    pub column: Option<u32>,
}

/// Reads `path:line[:column]` at the start of `s` (the path has no spaces, or it is
/// Windows-free Unix text as the tools print it); returns the place and the rest after it.
pub fn loc_prefix(s: &str) -> Option<(Loc<'_>, &str)> {
    // The path ends at the first `:` followed by a digit.
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b':' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit) {
            break;
        }
        if bytes[i] == b' ' || bytes[i] == b'\t' {
            return None;
        }
        i += 1;
    }
    if i == 0 || i >= bytes.len() {
        return None;
    }
    let path = &s[..i];
    let (line, rest) = number(&s[i + 1..])?;
    let (column, rest) = match rest.strip_prefix(':').and_then(number) {
        Some((c, r)) => (Some(c), r),
        None => (None, rest),
    };
    Some((
        Loc {
            path,
            line: Some(line),
            column,
        },
        rest,
    ))
}

/// A place written `path:line:column` anywhere in `s`, for `at fn (path:line:col)` frames.
pub fn loc_in_parens(s: &str) -> Option<Loc<'_>> {
    let open = s.rfind('(')?;
    let inner = s[open + 1..].strip_suffix(')')?;
    let inner = inner.strip_prefix("file://").unwrap_or(inner);
    let (loc, rest) = loc_prefix(inner)?;
    rest.is_empty().then_some(loc)
}

/// Whether `path` ends in one of `exts` (without their dot), in any case.
pub fn has_ext(path: &str, exts: &[&str]) -> bool {
    std::path::Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| exts.iter().any(|x| e.eq_ignore_ascii_case(x)))
}

/// The leading decimal number of `s` and what follows it.
pub fn number(s: &str) -> Option<(u32, &str)> {
    let end = s.bytes().take_while(u8::is_ascii_digit).count();
    if end == 0 || end > 9 {
        return None;
    }
    Some((s[..end].parse().ok()?, &s[end..]))
}

/// A count written with thousands separators (`1,204`).
pub fn count(s: &str) -> Option<u64> {
    if !s.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    if !s.contains(',') {
        return (s.len() <= 15 && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten();
    }
    let digits: String = s.chars().filter(|c| *c != ',').collect();
    if digits.is_empty() || digits.len() > 15 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The `N word` pairs of a summary such as `3 failed, 1,204 passed, 2 skipped in 0.5s` or
/// `Tests: 1 failed | 2 passed (3)`, each word lowercased.
pub fn counts(s: &str) -> Vec<(u64, String)> {
    let words: Vec<&str> = s
        .split(|c: char| c.is_whitespace() || c == '|' || c == '(' || c == ')')
        .filter(|w| !w.is_empty())
        .collect();
    let mut out = Vec::new();
    for pair in words.windows(2) {
        if let Some(n) = count(pair[0].trim_end_matches(',')) {
            let word = pair[1]
                .trim_end_matches([',', '.', ';'])
                .to_ascii_lowercase();
            if word.chars().all(|c| c.is_ascii_alphabetic() || c == '_') && !word.is_empty() {
                out.push((n, word));
            }
        }
    }
    out
}

/// The count given for the first of `words` in `pairs`.
pub fn get(pairs: &[(u64, String)], words: &[&str]) -> u64 {
    pairs
        .iter()
        .filter(|(_, w)| words.contains(&w.as_str()))
        .map(|(n, _)| *n)
        .sum()
}

/// A message being gathered line by line: leading blank lines skipped, the first
/// [`MESSAGE_LINES`] kept, each trimmed, at most [`MESSAGE_BYTES`] in all.
#[derive(Debug, Default, Clone)]
pub struct Message {
    lines: Vec<String>,
    full: bool,
}

impl Message {
    /// A message that starts with `first`.
    pub fn of(first: &str) -> Message {
        let mut m = Message::default();
        m.push(first);
        m
    }

    /// Adds a line, unless the message is complete.
    pub fn push(&mut self, line: &str) {
        let line = line.trim();
        if self.full || (line.is_empty() && self.lines.is_empty()) {
            return;
        }
        if line.is_empty() {
            // A blank line inside a message: the lines after it are another part (a diff,
            // a stack); keep going only while there is room.
            return;
        }
        self.lines.push(line.to_owned());
        self.full = self.lines.len() >= MESSAGE_LINES
            || self.lines.iter().map(String::len).sum::<usize>() >= MESSAGE_BYTES;
    }

    /// Marks the message complete: later lines are ignored.
    pub fn close(&mut self) {
        self.full = true;
    }

    /// Whether no line was kept.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The message, cut to [`MESSAGE_BYTES`] at a character boundary.
    pub fn text(&self) -> Option<String> {
        if self.lines.is_empty() {
            return None;
        }
        Some(cut(&self.lines.join("\n"), MESSAGE_BYTES))
    }
}

/// `error: MESSAGE` or `warning: MESSAGE`, as compilers print them after a place: the
/// severity and the message. `errors` are the words that mark an error (gcc also prints
/// `fatal error: `).
pub fn severity_prefix<'a>(s: &'a str, errors: &[&str]) -> Option<(Severity, &'a str)> {
    if let Some(m) = errors.iter().find_map(|e| s.strip_prefix(e)) {
        return Some((Severity::Error, m));
    }
    s.strip_prefix("warning: ").map(|m| (Severity::Warning, m))
}

/// A failed test as a runner printed it: its name, its place as printed (said from the root
/// once it is kept, [`super::Out::tests_with`]) and the message gathered for it line by line.
#[derive(Debug, Default)]
pub struct Printed {
    pub name: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub message: Message,
}

impl Printed {
    /// A failure named `name` whose place and message are not read yet.
    pub fn named(name: impl Into<String>) -> Printed {
        Printed {
            name: name.into(),
            ..Printed::default()
        }
    }
}

/// `s` cut to at most `max` bytes at a character boundary, an ellipsis marking the cut.
pub fn cut(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    let mut end = max.saturating_sub('…'.len_utf8());
    while end > 0 && !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations_are_read_where_tools_print_them() {
        let (l, rest) = loc_prefix("src/a.rs:12:9: error").expect("loc");
        assert_eq!((l.path, l.line, l.column), ("src/a.rs", Some(12), Some(9)));
        assert_eq!(rest, ": error");
        let (l, _) = loc_prefix("a.py:7: AssertionError").expect("loc");
        assert_eq!(l.column, None);
        assert!(loc_prefix("no place here: 3").is_none());
        let l = loc_in_parens("at Object.toBe (src/sum.test.js:7:23)").expect("loc");
        assert_eq!((l.path, l.line), ("src/sum.test.js", Some(7)));
        let l = loc_in_parens("at t (file:///r/a.mjs:1:2)").expect("loc");
        assert_eq!(l.path, "/r/a.mjs");
    }

    #[test]
    fn counts_read_every_runner_s_summary_shape() {
        let c = counts("==== 5 failed, 1,203 passed, 2 skipped, 1 xfailed, 1 error in 0.13s ====");
        assert_eq!(get(&c, &["failed"]), 5);
        assert_eq!(get(&c, &["passed"]), 1203);
        assert_eq!(get(&c, &["error", "errors"]), 1);
        let c = counts("Tests  3 failed | 2 passed | 1 skipped (6)");
        assert_eq!(get(&c, &["skipped"]), 1);
    }

    #[test]
    fn messages_keep_their_first_lines_within_bounds() {
        let mut m = Message::default();
        for l in [
            "",
            "AssertionError: x",
            "  left: 1",
            " right: 2",
            "stack",
            "more",
        ] {
            m.push(l);
        }
        assert_eq!(
            m.text().as_deref(),
            Some("AssertionError: x\nleft: 1\nright: 2")
        );
        let long = Message::of(&"é".repeat(500));
        assert!(long.text().expect("text").len() <= MESSAGE_BYTES);
        assert_eq!(clean("\u{1b}[31mFAIL\u{1b}[0m x"), "FAIL x");
        assert_eq!(clean("50%\r100%"), "100%");
    }
}
