//! A tokenizer for JavaScript (and TypeScript) and CoffeeScript build files, good enough to
//! find registrations: names, string literals (with whether their value is known without
//! running the file), and single punctuation characters. Comments, regular expressions and
//! the insides of strings never become tokens, so a `task('x')` in a comment is not a task.
//!
//! One loop over the bytes, with an explicit stack for template literals (`${…}` holding
//! further templates), so nesting costs heap, not call stack, and time is linear in the text.

pub(super) use crate::token::{Tok, Unclosed};

/// A token and where it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Token {
    pub tok: Tok,
    /// 1-based line.
    pub line: u32,
    /// The column of the first token of its line (CoffeeScript's indentation).
    pub indent: u32,
    /// Whether it is the first token of its line.
    pub first_on_line: bool,
}

/// A token reads as what it is (`t.ident()`, `t.is('(')`).
impl std::ops::Deref for Token {
    type Target = Tok;

    fn deref(&self) -> &Tok {
        &self.tok
    }
}

/// Which language's rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lang {
    /// JavaScript and TypeScript: `//` and `/* */` comments, template literals, regexes.
    Js,
    /// CoffeeScript: `#` and `###` comments, `"""`/`'''` heredocs, `#{…}` interpolation.
    Coffee,
}

/// The tokens of `text`, and the first construct left open at its end, if any.
pub(super) fn tokenize(text: &str, lang: Lang) -> (Vec<Token>, Option<Unclosed>) {
    let mut lx = Lexer {
        b: text.as_bytes(),
        at: 0,
        line: 1,
        line_start: 0,
        lang,
        tokens: Vec::new(),
        problem: None,
    };
    lx.run();
    (lx.tokens, lx.problem)
}

struct Lexer<'a> {
    b: &'a [u8],
    at: usize,
    line: u32,
    line_start: usize,
    lang: Lang,
    tokens: Vec<Token>,
    problem: Option<Unclosed>,
}

/// The words after which a `/` starts a regular expression rather than dividing.
const BEFORE_REGEX: [&str; 14] = [
    "return",
    "typeof",
    "instanceof",
    "in",
    "of",
    "new",
    "delete",
    "void",
    "throw",
    "case",
    "do",
    "else",
    "yield",
    "await",
];

impl Lexer<'_> {
    fn peek(&self, ahead: usize) -> Option<u8> {
        self.b.get(self.at + ahead).copied()
    }

    fn starts_with(&self, s: &[u8]) -> bool {
        self.b[self.at..].starts_with(s)
    }

    /// Moves past one byte, counting lines.
    fn bump(&mut self) {
        if self.peek(0) == Some(b'\n') {
            self.line = self.line.saturating_add(1);
            self.line_start = self.at + 1;
        }
        self.at += 1;
    }

    fn skip_to_line_end(&mut self) {
        while self.peek(0).is_some_and(|c| c != b'\n') {
            self.at += 1;
        }
    }

    /// Records a token that started at byte `start` on line `line`, whose first byte is
    /// `line_start`.
    fn push(&mut self, tok: Tok, line: u32, start: usize, line_start: usize) {
        let first_on_line = self.tokens.last().is_none_or(|t| t.line != line);
        let indent = if first_on_line {
            u32::try_from(start.saturating_sub(line_start)).unwrap_or(u32::MAX)
        } else {
            self.tokens.last().map_or(0, |t| t.indent)
        };
        self.tokens.push(Token {
            tok,
            line,
            indent,
            first_on_line,
        });
    }

    fn unclosed(&mut self, line: u32, what: &'static str) {
        self.problem.get_or_insert(Unclosed { line, what });
    }

    fn run(&mut self) {
        if self.starts_with(b"#!") {
            self.skip_to_line_end();
        }
        while let Some(c) = self.peek(0) {
            let line = self.line;
            let start = self.at;
            let line_start = self.line_start;
            match c {
                b'\n' | b' ' | b'\t' | b'\r' | 0x0b | 0x0c => self.bump(),
                b'/' if self.lang == Lang::Js && self.peek(1) == Some(b'/') => {
                    self.skip_to_line_end();
                }
                b'/' if self.lang == Lang::Js && self.peek(1) == Some(b'*') => {
                    self.at += 2;
                    if !self.skip_past(b"*/") {
                        self.unclosed(line, "comment");
                    }
                }
                b'#' if self.lang == Lang::Coffee => {
                    if self.starts_with(b"###") && self.peek(3) != Some(b'#') {
                        self.at += 3;
                        if !self.skip_past(b"###") {
                            self.unclosed(line, "comment");
                        }
                    } else {
                        self.skip_to_line_end();
                    }
                }
                b'\'' | b'"' => {
                    let (value, plain) = self.string();
                    self.push(Tok::Str { value, plain }, line, start, line_start);
                }
                b'`' if self.lang == Lang::Js => {
                    let (value, plain) = self.template();
                    self.push(Tok::Str { value, plain }, line, start, line_start);
                }
                b'/' if self.lang == Lang::Js && self.regex_here() => self.regex(),
                b'0'..=b'9' => {
                    while self
                        .peek(0)
                        .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'.' || c == b'_')
                    {
                        self.at += 1;
                    }
                    self.push(Tok::Num, line, start, line_start);
                }
                c if c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c >= 0x80 => {
                    while self.peek(0).is_some_and(|c| {
                        c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
                    }) {
                        self.at += 1;
                    }
                    let name = String::from_utf8_lossy(&self.b[start..self.at]).into_owned();
                    self.push(Tok::Ident(name), line, start, line_start);
                }
                c => {
                    self.at += 1;
                    self.push(Tok::Punct(char::from(c)), line, start, line_start);
                }
            }
        }
    }

    /// Moves past the next `end`; false when the text ends first.
    fn skip_past(&mut self, end: &[u8]) -> bool {
        while self.at < self.b.len() {
            if self.starts_with(end) {
                self.at += end.len();
                return true;
            }
            self.bump();
        }
        false
    }

    /// Reads a quoted string at its quote (CoffeeScript heredocs too).
    fn string(&mut self) -> (String, bool) {
        let line = self.line;
        let q = self.b[self.at];
        let triple = self.lang == Lang::Coffee && self.b[self.at..].starts_with(&[q, q, q]);
        self.at += if triple { 3 } else { 1 };
        let interpolates = self.lang == Lang::Coffee && q == b'"';
        let mut value = Vec::new();
        let mut plain = true;
        loop {
            let Some(c) = self.peek(0) else {
                self.unclosed(line, "string");
                break;
            };
            if c == q && (!triple || self.b[self.at..].starts_with(&[q, q, q])) {
                self.at += if triple { 3 } else { 1 };
                break;
            }
            if c == b'\n' && !triple && self.lang == Lang::Js {
                // A one-line string ends at its line, so a stray quote costs one line.
                self.unclosed(line, "string");
                break;
            }
            if c == b'\\' {
                self.at += 1;
                if let Some(e) = self.peek(0) {
                    value.push(match e {
                        b'n' => b'\n',
                        b't' => b'\t',
                        b'r' => b'\r',
                        other => other,
                    });
                    self.bump();
                }
                continue;
            }
            if interpolates && c == b'#' && self.peek(1) == Some(b'{') {
                plain = false;
                self.at += 1;
                if !self.code_in_string() {
                    self.unclosed(line, "string");
                    break;
                }
                continue;
            }
            value.push(c);
            self.bump();
        }
        (String::from_utf8_lossy(&value).into_owned(), plain)
    }

    /// Reads a template literal at its backtick: its text (interpolations left out) and
    /// whether it had none.
    fn template(&mut self) -> (String, bool) {
        let line = self.line;
        self.at += 1;
        let mut value = Vec::new();
        let mut plain = true;
        loop {
            let Some(c) = self.peek(0) else {
                self.unclosed(line, "template literal");
                break;
            };
            match c {
                b'`' => {
                    self.at += 1;
                    break;
                }
                b'\\' => {
                    self.at += 1;
                    if let Some(e) = self.peek(0) {
                        value.push(e);
                        self.bump();
                    }
                }
                b'$' if self.peek(1) == Some(b'{') => {
                    plain = false;
                    self.at += 1;
                    if !self.code_in_string() {
                        self.unclosed(line, "template literal");
                        break;
                    }
                }
                _ => {
                    value.push(c);
                    self.bump();
                }
            }
        }
        (String::from_utf8_lossy(&value).into_owned(), plain)
    }

    /// Skips an interpolation's code (at its `{`), with the strings and templates nested in
    /// it, on an explicit stack; false when the text ends first.
    fn code_in_string(&mut self) -> bool {
        /// Where the scan is: code with its open braces, or inside a string.
        enum Frame {
            Code(usize),
            Str(u8),
        }
        let mut stack = vec![Frame::Code(0)];
        while let Some(frame) = stack.last_mut() {
            let Some(c) = self.peek(0) else {
                return false;
            };
            match frame {
                Frame::Code(depth) => {
                    match c {
                        b'{' => *depth += 1,
                        b'}' => {
                            *depth -= 1;
                            if *depth == 0 {
                                stack.pop();
                            }
                        }
                        b'\'' | b'"' | b'`' => stack.push(Frame::Str(c)),
                        _ => {}
                    }
                    self.bump();
                }
                Frame::Str(q) => {
                    let q = *q;
                    if c == q {
                        stack.pop();
                    } else if c == b'\\' {
                        self.at += 1;
                    } else if (q == b'`' && c == b'$'
                        || q == b'"' && self.lang == Lang::Coffee && c == b'#')
                        && self.peek(1) == Some(b'{')
                    {
                        self.at += 1;
                        stack.push(Frame::Code(0));
                        continue;
                    }
                    self.bump();
                }
            }
        }
        true
    }

    /// Whether a `/` here starts a regular expression: it follows an operator, an opening
    /// bracket, a keyword such as `return`, or nothing.
    fn regex_here(&self) -> bool {
        let Some(last) = self.tokens.last() else {
            return true;
        };
        match &last.tok {
            Tok::Punct(c) => !matches!(c, ')' | ']' | '}'),
            Tok::Ident(word) => BEFORE_REGEX.contains(&word.as_str()),
            Tok::Str { .. } | Tok::Num => false,
        }
    }

    /// Skips a regular expression literal (at its `/`): to the closing `/` outside a
    /// character class, and its flags. One that does not close on its line was a division
    /// after all: only the `/` is skipped.
    fn regex(&mut self) {
        let mut i = self.at + 1;
        let mut class = false;
        while let Some(&c) = self.b.get(i) {
            match c {
                b'\n' => break,
                b'\\' => i += 1,
                b'[' => class = true,
                b']' => class = false,
                b'/' if !class => {
                    self.at = i + 1;
                    while self.peek(0).is_some_and(|c| c.is_ascii_alphabetic()) {
                        self.at += 1;
                    }
                    return;
                }
                _ => {}
            }
            i += 1;
        }
        let (line, start, line_start) = (self.line, self.at, self.line_start);
        self.at += 1;
        self.push(Tok::Punct('/'), line, start, line_start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use indoc::indoc;

    fn toks(text: &str, lang: Lang) -> Vec<Tok> {
        tokenize(text, lang).0.into_iter().map(|t| t.tok).collect()
    }

    fn ident(s: &str) -> Tok {
        Tok::Ident(s.to_owned())
    }

    fn plain(s: &str) -> Tok {
        Tok::Str {
            value: s.to_owned(),
            plain: true,
        }
    }

    #[test]
    fn comments_regexes_and_strings_hide_their_insides() {
        let text = "// task('a')\n/* task('b') */ x = /task\\('c'\\)[/]/g; y = a / b / c; z = `t ${ `${n}` } e`; 'it\\'s'";
        assert_eq!(
            toks(text, Lang::Js),
            vec![
                ident("x"),
                Tok::Punct('='),
                Tok::Punct(';'),
                ident("y"),
                Tok::Punct('='),
                ident("a"),
                Tok::Punct('/'),
                ident("b"),
                Tok::Punct('/'),
                ident("c"),
                Tok::Punct(';'),
                ident("z"),
                Tok::Punct('='),
                Tok::Str {
                    value: "t  e".to_owned(),
                    plain: false
                },
                Tok::Punct(';'),
                plain("it's"),
            ]
        );
    }

    #[test]
    fn coffee_comments_heredocs_and_interpolation() {
        let text = indoc! {"
            # grunt.registerTask 'x'
            ###
            block
            ###
            a = \"\"\"
            hi
            \"\"\"
            b = \"n #{x + \"}\"} m\"
        "};
        let (tokens, problem) = tokenize(text, Lang::Coffee);
        assert_eq!(problem, None);
        let got: Vec<Tok> = tokens.into_iter().map(|t| t.tok).collect();
        assert_eq!(
            got,
            vec![
                ident("a"),
                Tok::Punct('='),
                plain("\nhi\n"),
                ident("b"),
                Tok::Punct('='),
                Tok::Str {
                    value: "n  m".to_owned(),
                    plain: false
                },
            ]
        );
    }

    #[test]
    fn lines_and_indentation_are_kept() {
        let (tokens, _) = tokenize(
            indoc! {"
                a
                  b: c
            "},
            Lang::Coffee,
        );
        let shape: Vec<(u32, u32, bool)> = tokens
            .iter()
            .map(|t| (t.line, t.indent, t.first_on_line))
            .collect();
        assert_eq!(
            shape,
            [(1, 0, true), (2, 2, true), (2, 2, false), (2, 2, false)]
        );
    }

    #[test]
    fn what_is_left_open_is_reported() {
        assert_eq!(
            tokenize("a = `x ${", Lang::Js).1,
            Some(Unclosed {
                line: 1,
                what: "template literal"
            })
        );
        assert_eq!(
            tokenize("a\n/* x", Lang::Js).1,
            Some(Unclosed {
                line: 2,
                what: "comment"
            })
        );
        // A one-line string costs its line only.
        let (tokens, problem) = tokenize("a = 'x\nb", Lang::Js);
        assert_eq!(problem.map(|p| p.line), Some(1));
        assert!(tokens.iter().any(|t| t.is_ident("b")));
    }
}
