//! Text made safe for a person's terminal: what a repository or a task wrote (a task name,
//! a directory, a description, a line of output) is printed with its control characters,
//! bidi overrides and invisible format characters shown as escapes (`\e`, `\r`, `\n`,
//! `\x07`, `\u{202e}`), never obeyed and never silently dropped. Every human-facing
//! printer uses it; JSON output does not (JSON escapes for itself). It imports nothing.
//!
//! [`line`] is for one-line fields (names, paths, commands) and is injective: two different
//! inputs never print alike, because a backslash that could be read as the start of an
//! escape is doubled. [`text`] is for prose and output (descriptions, scripts, task
//! output): it keeps line breaks and tabs, and leaves backslashes as written.

use std::borrow::Cow;
use std::fmt::Write as _;

/// `s` as one visible line: every control character (newline and tab included), bidi
/// control and invisible character escaped, and a backslash doubled where it would
/// otherwise read as the start of an escape. Borrowed when nothing needs escaping.
pub(crate) fn line(s: &str) -> Cow<'_, str> {
    escape(s, Mode::Line)
}

/// `s` as visible text that may span lines: like [`line`], but `\n` and `\t` are kept
/// and backslashes are left as written (prose and output, not identities).
pub(crate) fn text(s: &str) -> Cow<'_, str> {
    escape(s, Mode::Text)
}

/// `s` as one visible line ([`line`]), cut to at most `max` bytes at a character boundary,
/// saying how much was left out: for what a repository or an agent wrote, quoted in a
/// question, an error or a tool's text, where a megabyte-long name must cost nothing.
pub(crate) fn cut_line(s: &str, max: usize) -> String {
    let shown = line(s);
    if shown.len() <= max {
        return shown.into_owned();
    }
    let mut end = max;
    while !shown.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} more bytes)", &shown[..end], shown.len() - end)
}

/// `s` as visible prose ([`text`]) cut to at most `max` bytes where a line ends (or at a
/// character boundary), saying how much was left out.
pub(crate) fn cut_text(s: &str, max: usize) -> String {
    let shown = text(s);
    if shown.len() <= max {
        return shown.into_owned();
    }
    let mut end = max;
    while !shown.is_char_boundary(end) {
        end -= 1;
    }
    let end = shown[..end].rfind('\n').unwrap_or(end);
    format!("{}… ({} more bytes)", &shown[..end], shown.len() - end)
}

/// Whether `s` holds a control character (newlines and tabs included): no argument an
/// agent passes may.
pub(crate) fn has_control(s: &str) -> bool {
    s.chars().any(char::is_control)
}

/// Whether `s` holds a character a terminal does not show as itself (bidi controls,
/// zero-width and other format characters), besides control characters.
pub(crate) fn has_invisible(s: &str) -> bool {
    s.chars().any(|c| !c.is_ascii() && within(INVISIBLE, c))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Line,
    Text,
}

/// The letters that follow a backslash in an escape [`push`] writes.
const ESCAPE_LETTERS: [char; 6] = ['e', 'n', 'r', 't', 'x', 'u'];

/// Characters a terminal does not show as themselves, beyond C0/C1 and DEL: format
/// characters (general category Cf: bidi embeddings, overrides and isolates, zero-width
/// characters, tag characters), line and paragraph separators, and the invisible marks
/// used to hide data in text (variation selectors of the supplement, the grapheme joiner).
const INVISIBLE: &[(u32, u32)] = &[
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x0600, 0x0605),
    (0x061C, 0x061C),
    (0x06DD, 0x06DD),
    (0x070F, 0x070F),
    (0x0890, 0x0891),
    (0x08E2, 0x08E2),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x2028, 0x202E),
    (0x2060, 0x206F),
    (0xFEFF, 0xFEFF),
    (0xFFF9, 0xFFFB),
    (0x110BD, 0x110BD),
    (0x110CD, 0x110CD),
    (0x13430, 0x1343F),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
];

/// In a one-line field, also the characters that pass for another one: spaces other than
/// U+0020, blank fillers and the emoji variation selectors (`deploy` and `deploy\u{fe0f}`
/// would otherwise print alike).
const LOOKALIKE: &[(u32, u32)] = &[
    (0x00A0, 0x00A0),
    (0x115F, 0x1160),
    (0x1680, 0x1680),
    (0x2000, 0x200A),
    (0x205F, 0x205F),
    (0x2800, 0x2800),
    (0x3000, 0x3000),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFFA0, 0xFFA0),
];

fn within(table: &[(u32, u32)], c: char) -> bool {
    let c = u32::from(c);
    table.iter().any(|&(lo, hi)| (lo..=hi).contains(&c))
}

/// Whether `c` is written as an escape in `mode` (backslashes aside).
fn hidden(c: char, mode: Mode) -> bool {
    match c {
        '\n' | '\t' => mode == Mode::Line,
        c if c.is_control() => true,
        c if c.is_ascii() => false,
        c => within(INVISIBLE, c) || (mode == Mode::Line && within(LOOKALIKE, c)),
    }
}

/// Whether a backslash followed by `next` must be doubled in a one-line field.
fn ambiguous(next: Option<char>) -> bool {
    next.is_some_and(|n| n == '\\' || ESCAPE_LETTERS.contains(&n) || hidden(n, Mode::Line))
}

/// The byte offset of the first character that [`escape`] changes.
fn first_change(s: &str, mode: Mode) -> Option<usize> {
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if (0x20..0x7f).contains(&b) && b != b'\\' {
            i += 1;
            continue;
        }
        // `i` is a character boundary: every step below moves by whole characters.
        let c = s[i..].chars().next()?;
        if c == '\\' {
            if mode == Mode::Line && ambiguous(s[i + 1..].chars().next()) {
                return Some(i);
            }
        } else if hidden(c, mode) {
            return Some(i);
        }
        i += c.len_utf8();
    }
    None
}

fn escape(s: &str, mode: Mode) -> Cow<'_, str> {
    let Some(at) = first_change(s, mode) else {
        return Cow::Borrowed(s);
    };
    let mut out = String::with_capacity(s.len() + 16);
    out.push_str(&s[..at]);
    let mut chars = s[at..].chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            out.push('\\');
            if mode == Mode::Line && ambiguous(chars.peek().copied()) {
                out.push('\\');
            }
        } else if hidden(c, mode) {
            push(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Writes the escape of a hidden character.
fn push(out: &mut String, c: char) {
    match c {
        '\t' => out.push_str("\\t"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\x1b' => out.push_str("\\e"),
        c if u32::from(c) < 0x80 => {
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        }
        c => {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The inverse of [`line`]: proves that no two inputs print alike.
    fn unescape(s: &str) -> String {
        let mut out = String::new();
        let mut chars = s.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.peek().copied() {
                Some('\\') => {
                    chars.next();
                    out.push('\\');
                }
                Some(letter @ ('e' | 'n' | 'r' | 't')) => {
                    chars.next();
                    out.push(match letter {
                        'e' => '\x1b',
                        'n' => '\n',
                        'r' => '\r',
                        _ => '\t',
                    });
                }
                Some('x') => {
                    chars.next();
                    let hex: String = chars.by_ref().take(2).collect();
                    let code = u32::from_str_radix(&hex, 16).expect("hex");
                    out.push(char::from_u32(code).expect("char"));
                }
                Some('u') => {
                    chars.next();
                    assert_eq!(chars.next(), Some('{'));
                    let hex: String = chars.by_ref().take_while(|c| *c != '}').collect();
                    let code = u32::from_str_radix(&hex, 16).expect("hex");
                    out.push(char::from_u32(code).expect("char"));
                }
                _ => out.push('\\'),
            }
        }
        out
    }

    #[test]
    fn plain_names_and_text_are_borrowed() {
        for s in [
            "build",
            "apps/web/test:unit",
            "npm run lint -- --fix",
            "",
            "héllo ✓",
        ] {
            assert!(matches!(line(s), Cow::Borrowed(_)), "{s}");
            assert!(matches!(text(s), Cow::Borrowed(_)), "{s}");
        }
        assert!(matches!(text("a\n\tb \\e"), Cow::Borrowed(_)));
        assert!(matches!(line(r"C:\Windows\system"), Cow::Borrowed(_)));
    }

    #[test]
    fn control_sequences_are_shown_not_obeyed() {
        assert_eq!(line("\x1b]52;c;aGk=\x07"), r"\e]52;c;aGk=\x07");
        assert_eq!(line("\x1b]0;pwned\x1b\\"), r"\e]0;pwned\e\");
        assert_eq!(line("ok\rEVIL"), r"ok\rEVIL");
        assert_eq!(line("a\nb\tc"), r"a\nb\tc");
        assert_eq!(line("nul\0del\x7f"), r"nul\x00del\x7f");
        assert_eq!(line("c1\u{9b}31m"), r"c1\u{9b}31m");
        assert_eq!(text("one\n\ttwo\r\x1b[2J"), "one\n\ttwo\\r\\e[2J");
    }

    #[test]
    fn bidi_and_invisible_characters_are_shown() {
        assert_eq!(line("txt.\u{202e}exe"), r"txt.\u{202e}exe");
        assert_eq!(text("\u{2066}x\u{2069}"), r"\u{2066}x\u{2069}");
        assert_eq!(line("dep\u{200b}loy"), r"dep\u{200b}loy");
        assert_eq!(text("a\u{2028}b"), r"a\u{2028}b");
        assert_eq!(line("tag\u{e0041}"), r"tag\u{e0041}");
        assert_eq!(line("deploy\u{a0}"), r"deploy\u{a0}");
        // Prose keeps what a person writes in prose.
        assert_eq!(
            text("prix\u{a0}: 5 € ⚠\u{fe0f}"),
            "prix\u{a0}: 5 € ⚠\u{fe0f}"
        );
    }

    #[test]
    fn cut_lines_and_text_say_how_much_was_left_out() {
        assert_eq!(cut_line("abc", 3), "abc");
        assert_eq!(cut_line("abcdef", 3), "abc… (3 more bytes)");
        assert_eq!(cut_line("a\nb", 8), r"a\nb");
        assert_eq!(cut_line("ééé", 3), "é… (4 more bytes)");
        assert_eq!(cut_text("one\ntwo\nthree", 9), "one\ntwo… (6 more bytes)");
        assert!(has_control("a\nb") && has_control("\x1b") && !has_control("a b ü"));
        assert!(has_invisible("a\u{202e}b") && !has_invisible("é ☃ a\u{a0}b"));
    }

    #[test]
    fn a_backslash_that_looks_like_an_escape_is_doubled_in_a_line() {
        assert_eq!(line(r"deploy\e"), r"deploy\\e");
        assert_eq!(line("deploy\x1b"), r"deploy\e");
        assert_eq!(line(r"a\\b"), r"a\\\b");
        assert_eq!(line("a\\\x07"), r"a\\\x07");
        assert_eq!(line(r"C:\path"), r"C:\path");
        assert_eq!(text(r"printf '\e[1m\n'"), r"printf '\e[1m\n'");
    }

    proptest! {
        #[test]
        fn a_line_shows_no_control_character_and_reads_back(s in any::<String>()) {
            let shown = line(&s);
            prop_assert!(shown.chars().all(|c| !hidden(c, Mode::Line)), "{shown:?}");
            prop_assert_eq!(unescape(&shown), s);
        }

        #[test]
        fn hostile_lines_read_back(s in "[a\\\\enrtxu{}\\x1b\\r\\n\\t\\x07\u{202e}\u{a0}]{0,12}") {
            prop_assert_eq!(unescape(&line(&s)), s);
        }

        #[test]
        fn text_keeps_only_newlines_and_tabs(s in any::<String>()) {
            let shown = text(&s);
            prop_assert!(shown.chars().all(|c| c == '\n' || c == '\t' || !hidden(c, Mode::Text)));
        }
    }
}
