//! A tokenizer for Go source, good enough to read a magefile's declarations: names, string
//! literals, comments (kept: they are the targets' documentation) and single punctuation
//! characters. One loop over the bytes, linear in the text.

/// What a token is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Tok {
    /// A name or keyword.
    Ident(String),
    /// A string literal's value (`"…"` with escapes resolved, or a raw `` `…` ``).
    Str(String),
    /// A `//` comment's text after the slashes, or a `/* */` comment's inside.
    Comment(String),
    /// A number or a rune literal.
    Lit,
    /// Any other single character outside whitespace.
    Punct(char),
}

/// A token and its 1-based line (for a comment, the line it ends on).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Token {
    pub tok: Tok,
    pub line: u32,
}

impl Token {
    pub fn ident(&self) -> Option<&str> {
        match &self.tok {
            Tok::Ident(name) => Some(name),
            _ => None,
        }
    }

    pub fn is(&self, c: char) -> bool {
        self.tok == Tok::Punct(c)
    }
}

/// The value of the interpreted string (`"…"`) whose text starts at `at`, its escapes
/// (`\n`, `\t`, `\"`) resolved; where the lexer goes on; and whether it closed on its line.
fn interpreted_string(b: &[u8], mut at: usize) -> (String, usize, bool) {
    let mut value = Vec::new();
    let closed = loop {
        match b.get(at) {
            None | Some(b'\n') => break false,
            Some(b'"') => {
                at += 1;
                break true;
            }
            Some(b'\\') => {
                if let Some(&e) = b.get(at + 1).filter(|&&e| e != b'\n') {
                    value.push(match e {
                        b'n' => b'\n',
                        b't' => b'\t',
                        other => other,
                    });
                    at += 2;
                } else {
                    at += 1;
                }
            }
            Some(&other) => {
                value.push(other);
                at += 1;
            }
        }
    };
    (String::from_utf8_lossy(&value).into_owned(), at, closed)
}

/// The tokens of `text`, and the line of a string or comment left open at its end.
pub(super) fn tokenize(text: &str) -> (Vec<Token>, Option<u32>) {
    let b = text.as_bytes();
    let mut tokens = Vec::new();
    let mut unclosed = None;
    let mut at = 0;
    let mut line: u32 = 1;
    let text_of = |from: usize, to: usize| String::from_utf8_lossy(&b[from..to]).into_owned();
    while let Some(&c) = b.get(at) {
        let start_line = line;
        match c {
            b'\n' => {
                line = line.saturating_add(1);
                at += 1;
            }
            b' ' | b'\t' | b'\r' => at += 1,
            b'/' if b.get(at + 1) == Some(&b'/') => {
                let end = memchr_newline(b, at);
                tokens.push(Token {
                    tok: Tok::Comment(text_of(at + 2, end)),
                    line,
                });
                at = end;
            }
            b'/' if b.get(at + 1) == Some(&b'*') => {
                let body = at + 2;
                let end = find(b, body, b"*/");
                line = line.saturating_add(count_newlines(&b[at..end.min(b.len())]));
                tokens.push(Token {
                    tok: Tok::Comment(text_of(body, end.min(b.len()))),
                    line,
                });
                if end >= b.len() {
                    unclosed.get_or_insert(start_line);
                }
                at = end + 2;
            }
            b'"' => {
                let (value, end, closed) = interpreted_string(b, at + 1);
                if !closed {
                    unclosed.get_or_insert(start_line);
                }
                at = end;
                tokens.push(Token {
                    tok: Tok::Str(value),
                    line: start_line,
                });
            }
            b'`' => {
                let end = find(b, at + 1, b"`");
                line = line.saturating_add(count_newlines(&b[at..end.min(b.len())]));
                if end >= b.len() {
                    unclosed.get_or_insert(start_line);
                }
                tokens.push(Token {
                    tok: Tok::Str(text_of(at + 1, end.min(b.len()))),
                    line: start_line,
                });
                at = end + 1;
            }
            b'\'' => {
                at += 1;
                while let Some(&r) = b.get(at) {
                    at += 1;
                    if r == b'\\' {
                        at += 1;
                    } else if r == b'\'' || r == b'\n' {
                        break;
                    }
                }
                tokens.push(Token {
                    tok: Tok::Lit,
                    line: start_line,
                });
            }
            b'0'..=b'9' => {
                while b
                    .get(at)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'.' || *c == b'_')
                {
                    at += 1;
                }
                tokens.push(Token {
                    tok: Tok::Lit,
                    line,
                });
            }
            c if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 => {
                let from = at;
                while b
                    .get(at)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c >= 0x80)
                {
                    at += 1;
                }
                tokens.push(Token {
                    tok: Tok::Ident(text_of(from, at)),
                    line,
                });
            }
            c => {
                at += 1;
                tokens.push(Token {
                    tok: Tok::Punct(char::from(c)),
                    line,
                });
            }
        }
    }
    (tokens, unclosed)
}

fn memchr_newline(b: &[u8], from: usize) -> usize {
    b[from..]
        .iter()
        .position(|&c| c == b'\n')
        .map_or(b.len(), |i| from + i)
}

/// The index of the next `needle` at or after `from`, or the text's length.
fn find(b: &[u8], from: usize, needle: &[u8]) -> usize {
    b.get(from..)
        .and_then(|rest| rest.windows(needle.len()).position(|w| w == needle))
        .map_or(b.len(), |i| from + i)
}

fn count_newlines(b: &[u8]) -> u32 {
    u32::try_from(b.split(|&c| c == b'\n').count() - 1).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use indoc::indoc;

    #[test]
    fn comments_are_kept_and_strings_hide_their_insides() {
        let (tokens, unclosed) = tokenize(indoc! {"
            // Build it.
            func Build() { s := `func X()
            ` }
            /* a
            b */"});
        assert_eq!(unclosed, None);
        let got: Vec<(Tok, u32)> = tokens.into_iter().map(|t| (t.tok, t.line)).collect();
        assert_eq!(got[0], (Tok::Comment(" Build it.".to_owned()), 1));
        assert!(got.contains(&(Tok::Str("func X()\n".to_owned()), 2)));
        assert_eq!(got.last(), Some(&(Tok::Comment(" a\nb ".to_owned()), 5)));
        assert!(!got.iter().any(|(t, _)| *t == Tok::Ident("X".to_owned())));
    }

    #[test]
    fn what_is_left_open_is_reported() {
        assert_eq!(
            tokenize(indoc! {"
                a
                \"x
                b"})
            .1,
            Some(2)
        );
        assert_eq!(tokenize("a\n/* x").1, Some(2));
        assert_eq!(tokenize("`x").1, Some(1));
    }
}
