//! Lines that fit the terminal: how wide a stream's terminal is, and styled lines measured
//! in display columns (a CJK character or an emoji takes two, a combining mark none, by
//! `unicode-width`) and cut with `…` to a width, so a row of `agg list` never wraps.
//!
//! Only a terminal gets cut lines: a pipe, a file and `--json` get every character.

use std::io::{self, IsTerminal, Write};

use anstyle::Style;
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// What a terminal is taken to be when it does not say how wide it is.
const FALLBACK_COLUMNS: usize = 80;

/// The width lines written to `stream` must fit, or `None` when they are written whole:
/// `--wide`, or not a terminal. `COLUMNS` wins over what the terminal reports.
pub(crate) fn columns(stream: &impl IsTerminalFd, wide: bool) -> Option<usize> {
    if wide || !stream.is_terminal() {
        return None;
    }
    let from_env = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c > 0);
    Some(from_env.unwrap_or_else(|| stream.terminal_columns().unwrap_or(FALLBACK_COLUMNS)))
}

/// A standard stream whose terminal can be asked for its size.
pub(crate) trait IsTerminalFd: IsTerminal {
    /// The terminal's width in columns, when it tells.
    fn terminal_columns(&self) -> Option<usize>;
}

impl IsTerminalFd for io::Stdout {
    fn terminal_columns(&self) -> Option<usize> {
        terminal_size::terminal_size_of(self).map(|(w, _)| usize::from(w.0))
    }
}

impl IsTerminalFd for io::Stderr {
    fn terminal_columns(&self) -> Option<usize> {
        terminal_size::terminal_size_of(self).map(|(w, _)| usize::from(w.0))
    }
}

/// The display width of `s` in a terminal's columns.
pub(crate) fn width(s: &str) -> usize {
    s.width()
}

/// Spaces that take `s` to `to` columns.
pub(crate) fn pad(s: &str, to: usize) -> String {
    " ".repeat(to.saturating_sub(width(s)))
}

/// `s` cut to at most `max` columns, ending in `…` when anything was cut.
pub(crate) fn cut(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_owned();
    }
    let Some(room) = max.checked_sub(1) else {
        return String::new();
    };
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > room {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}

/// One line of styled pieces, measured before it is written.
#[derive(Default)]
pub(crate) struct Line {
    parts: Vec<(Style, String)>,
}

impl Line {
    /// An empty line.
    pub(crate) fn new() -> Line {
        Line::default()
    }

    /// Appends `text` in `style`.
    pub(crate) fn push(&mut self, style: Style, text: impl Into<String>) -> &mut Line {
        let text = text.into();
        if !text.is_empty() {
            self.parts.push((style, text));
        }
        self
    }

    /// Appends every piece of `other`.
    pub(crate) fn extend(&mut self, other: Line) -> &mut Line {
        self.parts.extend(other.parts);
        self
    }

    /// The columns the line takes.
    pub(crate) fn width(&self) -> usize {
        self.parts.iter().map(|(_, t)| width(t)).sum()
    }

    /// Writes the line and its newline, cut with `…` to `max` columns when given.
    pub(crate) fn write(&self, out: &mut impl Write, max: Option<usize>) -> io::Result<()> {
        let mut room = max.unwrap_or(usize::MAX);
        let cutting = max.is_some_and(|m| self.width() > m);
        if cutting {
            // Leave the last column for the `…`.
            room = room.saturating_sub(1);
        }
        for (style, text) in &self.parts {
            let w = width(text);
            if w <= room {
                write!(out, "{style}{text}{style:#}")?;
                room -= w;
                continue;
            }
            let mut kept = String::new();
            for c in text.chars() {
                let cw = c.width().unwrap_or(0);
                if cw > room {
                    break;
                }
                room -= cw;
                kept.push(c);
            }
            write!(out, "{style}{kept}{style:#}")?;
            break;
        }
        if cutting {
            write!(out, "…")?;
        }
        writeln!(out)
    }
}

/// Writes `label` (`note:`) and `text`, word-wrapped to `max` columns when given with the
/// lines after the first indented past the label: agg's own advice is never cut.
pub(crate) fn write_wrapped(
    out: &mut impl Write,
    label: (Style, &str),
    text: &str,
    max: Option<usize>,
) -> io::Result<()> {
    let (style, label) = label;
    let Some(max) = max else {
        return writeln!(out, "{style}{label}{style:#} {text}");
    };
    let indent = " ".repeat(width(label) + 1);
    let options = textwrap::Options::new(max)
        .initial_indent(&indent)
        .subsequent_indent(&indent)
        .break_words(true);
    for (i, line) in textwrap::wrap(text, options).iter().enumerate() {
        if i == 0 {
            let rest = line.strip_prefix(indent.as_str()).unwrap_or(line);
            writeln!(out, "{style}{label}{style:#} {rest}")?;
        } else {
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(line: &Line, max: Option<usize>) -> String {
        let mut out = Vec::new();
        line.write(&mut out, max).expect("write");
        String::from_utf8(out).expect("utf-8")
    }

    #[test]
    fn advice_wraps_under_its_label_instead_of_being_cut() {
        let mut out = Vec::new();
        let text = "just is not installed (3 tasks marked ✗): `cargo install just`, `brew install just` or `npm install -g rust-just`";
        write_wrapped(&mut out, (Style::new(), "note:"), text, Some(40)).expect("write");
        let out = String::from_utf8(out).expect("utf-8");
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines.len() > 2, "{out}");
        assert!(lines[0].starts_with("note: just is not installed"), "{out}");
        for line in &lines {
            assert!(width(line) <= 40, "{line:?} is wider than 40");
        }
        for line in &lines[1..] {
            assert!(
                line.starts_with("      ") && !line.starts_with("       "),
                "{line:?}"
            );
        }
        let words: Vec<&str> = out.split_whitespace().skip(1).collect();
        assert_eq!(words.join(" "), text);
    }

    #[test]
    fn wide_characters_count_two_columns() {
        assert_eq!(width("ビルド"), 6);
        assert_eq!(width("🚀 go"), 5);
        assert_eq!(cut("ビルドする", 6), "ビル…");
        assert_eq!(width(&cut("ビルドする", 6)), 5);
        assert_eq!(cut("build", 5), "build");
        assert_eq!(cut("builds", 5), "buil…");
        assert_eq!(cut("x", 0), "");
    }

    #[test]
    fn a_line_is_cut_to_the_width_with_an_ellipsis() {
        let mut line = Line::new();
        line.push(Style::new(), "  build  ")
            .push(Style::new(), "make  ")
            .push(Style::new(), "Compile 🚀 every service");
        assert_eq!(
            written(&line, None),
            "  build  make  Compile 🚀 every service\n"
        );
        let short = written(&line, Some(20));
        assert_eq!(short, "  build  make  Comp…\n");
        assert_eq!(width(short.trim_end_matches('\n')), 20);
        // An emoji that would straddle the edge is left out, not split.
        let at_emoji = written(&line, Some(24));
        assert_eq!(at_emoji, "  build  make  Compile …\n");
        assert!(width(at_emoji.trim_end_matches('\n')) <= 24);
        assert_eq!(
            written(&line, Some(line.width())).trim_end(),
            written(&line, None).trim_end()
        );
    }
}
