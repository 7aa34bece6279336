//! A tokenizer for Gradle build scripts in either DSL, Groovy or Kotlin, good enough to find
//! declarations: identifiers, string literals (with whether they interpolate), and single
//! punctuation characters. Comments and the insides of strings never become tokens, so a
//! `task x` in a comment or a string is not a task.
//!
//! Everything is one loop with an explicit stack for `${…}` templates inside strings, so
//! nesting depth costs heap, not call stack, and the time is linear in the text.

pub(super) use crate::token::{Tok, Unclosed};

/// A token and where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Token {
    pub tok: Tok,
    /// 1-based line.
    pub line: u32,
    /// Whether a line break separates it from the previous token.
    pub nl_before: bool,
}

/// A token reads as what it is (`t.ident()`, `t.is('(')`).
impl std::ops::Deref for Token {
    type Target = Tok;

    fn deref(&self) -> &Tok {
        &self.tok
    }
}

/// The tokens of `text`, and the first construct left open at its end, if any.
/// `kotlin` selects Kotlin's rules (nested block comments, no slashy strings, `'` for
/// characters).
pub(super) fn tokenize(text: &str, kotlin: bool) -> (Vec<Token>, Option<Unclosed>) {
    let mut lx = Lexer {
        chars: text.chars().collect(),
        at: 0,
        line: 1,
        kotlin,
        tokens: Vec::new(),
        nl_before: true,
        no_slashy_before: 0,
    };
    let unclosed = lx.run();
    (lx.tokens, unclosed)
}

struct Lexer {
    chars: Vec<char>,
    at: usize,
    line: u32,
    kotlin: bool,
    tokens: Vec<Token>,
    nl_before: bool,
    /// A `/` before this index cannot open a slashy string: a scan from an earlier `/`
    /// found no closing one on its line (so a long line of `/` is scanned once).
    no_slashy_before: usize,
}

/// The kinds of string literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quote {
    /// `'…'`: Groovy's plain string, Kotlin's character.
    Single,
    /// `"…"`.
    Double,
    /// `'''…'''` (Groovy).
    TripleSingle,
    /// `"""…"""`.
    TripleDouble,
    /// `/…/` (Groovy, one line here).
    Slashy,
    /// `$/…/$` (Groovy).
    DollarSlashy,
}

impl Quote {
    fn closer(self) -> &'static str {
        match self {
            Quote::Single => "'",
            Quote::Double => "\"",
            Quote::TripleSingle => "'''",
            Quote::TripleDouble => "\"\"\"",
            Quote::Slashy => "/",
            Quote::DollarSlashy => "/$",
        }
    }

    fn interpolates(self) -> bool {
        !matches!(self, Quote::Single | Quote::TripleSingle)
    }
}

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    fn starts_with(&self, s: &str) -> bool {
        s.chars().enumerate().all(|(i, c)| self.peek(i) == Some(c))
    }

    /// Moves past one character, counting lines.
    fn bump(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.at += 1;
        if c == '\n' {
            self.line = self.line.saturating_add(1);
        }
        Some(c)
    }

    fn push(&mut self, tok: Tok, line: u32) {
        self.tokens.push(Token {
            tok,
            line,
            nl_before: self.nl_before,
        });
        self.nl_before = false;
    }

    /// Tokenizes everything; a string left open at its line's end is reported and the rest
    /// still read.
    fn run(&mut self) -> Option<Unclosed> {
        let mut problem = None;
        if self.starts_with("#!") {
            while self.peek(0).is_some_and(|c| c != '\n') {
                self.bump();
            }
        }
        while let Some(c) = self.peek(0) {
            let line = self.line;
            if c == '\n' {
                self.nl_before = true;
                self.bump();
            } else if c.is_whitespace() {
                self.bump();
            } else if self.starts_with("//") {
                while self.peek(0).is_some_and(|c| c != '\n') {
                    self.bump();
                }
            } else if self.starts_with("/*") {
                if !self.block_comment() {
                    problem.get_or_insert(Unclosed {
                        line,
                        what: "comment",
                    });
                }
            } else if let Some(quote) = self.string_start() {
                let (value, plain, closed) = self.string(quote);
                if closed {
                    self.push(Tok::Str { value, plain }, line);
                } else {
                    problem.get_or_insert(Unclosed {
                        line,
                        what: "string",
                    });
                }
            } else if c == '`' {
                self.bump();
                let mut name = String::new();
                while let Some(c) = self.peek(0).filter(|c| *c != '`' && *c != '\n') {
                    name.push(c);
                    self.bump();
                }
                if self.peek(0) == Some('`') {
                    self.bump();
                }
                self.push(Tok::Ident(name), line);
            } else if c.is_alphabetic() || c == '_' || c == '$' {
                let mut name = String::new();
                while let Some(c) = self
                    .peek(0)
                    .filter(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
                {
                    name.push(c);
                    self.bump();
                }
                self.push(Tok::Ident(name), line);
            } else {
                self.bump();
                self.push(Tok::Punct(c), line);
            }
        }
        problem
    }

    /// Skips a block comment (nested in Kotlin); false when it never ends.
    fn block_comment(&mut self) -> bool {
        self.at += 2;
        let mut depth = 1usize;
        while depth > 0 {
            if self.starts_with("*/") {
                self.at += 2;
                depth -= 1;
            } else if self.kotlin && self.starts_with("/*") {
                self.at += 2;
                depth += 1;
            } else if self.bump().is_none() {
                return false;
            }
        }
        true
    }

    /// The string literal starting here, if one does.
    fn string_start(&mut self) -> Option<Quote> {
        if self.starts_with("\"\"\"") {
            Some(Quote::TripleDouble)
        } else if self.starts_with("\"") {
            Some(Quote::Double)
        } else if !self.kotlin && self.starts_with("'''") {
            Some(Quote::TripleSingle)
        } else if self.starts_with("'") {
            Some(Quote::Single)
        } else if !self.kotlin && self.starts_with("$/") {
            Some(Quote::DollarSlashy)
        } else if !self.kotlin && self.starts_with("/") && self.slashy_here() {
            Some(Quote::Slashy)
        } else {
            None
        }
    }

    /// Whether a `/` here opens a Groovy slashy string rather than dividing: it follows
    /// something after which a value, not an operator, comes, and closes on its line.
    fn slashy_here(&mut self) -> bool {
        let after_operator = self.tokens.last().is_none_or(|t| {
            self.nl_before
                || matches!(
                    t.tok,
                    Tok::Punct(
                        '(' | ',' | '=' | '[' | ':' | '!' | '&' | '|' | '?' | '{' | ';' | '~'
                    )
                )
        });
        if !after_operator
            || self.at < self.no_slashy_before
            || self
                .peek(1)
                .is_none_or(|c| c == '/' || c == '*' || c.is_whitespace())
        {
            return false;
        }
        let mut i = 1;
        while let Some(c) = self.peek(i) {
            match c {
                '\n' => break,
                '\\' => i += 2,
                '/' => return true,
                _ => i += 1,
            }
        }
        self.no_slashy_before = self.at + i;
        false
    }

    /// Reads a string literal: its text, whether it is free of templates, whether it closed.
    fn string(&mut self, quote: Quote) -> (String, bool, bool) {
        let opener = match quote {
            Quote::DollarSlashy => 2,
            q => q.closer().len(),
        };
        self.at += opener;
        let mut value = String::new();
        let mut plain = true;
        let escapes =
            !(matches!(quote, Quote::DollarSlashy) || self.kotlin && quote == Quote::TripleDouble);
        loop {
            if self.starts_with(quote.closer()) {
                self.at += quote.closer().len();
                return (value, plain, true);
            }
            let Some(c) = self.peek(0) else {
                return (value, plain, false);
            };
            if c == '\n' && matches!(quote, Quote::Single | Quote::Double | Quote::Slashy) {
                // One-line strings end at the line in both DSLs, so a stray quote costs
                // one line, not the rest of the file.
                return (value, plain, false);
            }
            if c == '\\' && escapes {
                self.bump();
                if let Some(e) = self.bump() {
                    value.push(match e {
                        'n' => '\n',
                        't' => '\t',
                        'r' => '\r',
                        other => other,
                    });
                }
                continue;
            }
            if c == '$' && quote.interpolates() {
                if self.peek(1) == Some('{') {
                    plain = false;
                    self.bump();
                    if !self.template() {
                        return (value, plain, false);
                    }
                    continue;
                }
                if self.peek(1).is_some_and(|c| c.is_alphabetic() || c == '_') {
                    plain = false;
                }
            }
            value.push(c);
            self.bump();
        }
    }

    /// Skips a `{…}` template body (at its `{`), with the strings and templates nested in
    /// it, on an explicit stack; false when the text ends first.
    fn template(&mut self) -> bool {
        /// Where the scan is: code with its open braces, or inside a string.
        enum Frame {
            Code(usize),
            Str(Quote),
        }
        let mut stack = vec![Frame::Code(0)];
        while let Some(frame) = stack.last_mut() {
            let Some(c) = self.peek(0) else {
                return false;
            };
            match frame {
                Frame::Code(depth) => {
                    if c == '{' {
                        *depth += 1;
                        self.bump();
                    } else if c == '}' {
                        *depth -= 1;
                        self.bump();
                        if *depth == 0 {
                            stack.pop();
                        }
                    } else if let Some(q) = self
                        .string_start()
                        .filter(|q| !matches!(q, Quote::Slashy | Quote::DollarSlashy))
                    {
                        self.at += q.closer().len();
                        stack.push(Frame::Str(q));
                    } else {
                        self.bump();
                    }
                }
                Frame::Str(q) => {
                    let q = *q;
                    if self.starts_with(q.closer()) {
                        self.at += q.closer().len();
                        stack.pop();
                    } else if c == '\\' {
                        self.bump();
                        self.bump();
                    } else if c == '$' && q.interpolates() && self.peek(1) == Some('{') {
                        self.bump();
                        stack.push(Frame::Code(0));
                    } else {
                        self.bump();
                    }
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::{Tok, tokenize};
    use indoc::indoc;

    fn toks(text: &str, kotlin: bool) -> Vec<Tok> {
        tokenize(text, kotlin)
            .0
            .into_iter()
            .map(|t| t.tok)
            .collect()
    }

    fn s(value: &str, plain: bool) -> Tok {
        Tok::Str {
            value: value.to_owned(),
            plain,
        }
    }

    #[test]
    fn comments_and_strings_hide_their_contents() {
        let text = indoc! {"
            // task a
            /* task b /* nested */ still */ task c
            'task d'
        "};
        assert_eq!(
            toks(text, true),
            [
                Tok::Ident("task".into()),
                Tok::Ident("c".into()),
                s("task d", true)
            ]
        );
        // Groovy block comments do not nest: `still */` is code.
        assert!(toks(text, false).contains(&Tok::Ident("still".into())));
    }

    #[test]
    fn templates_are_skipped_and_mark_the_string() {
        assert_eq!(
            toks(r#"x("a${ "}" + "${y}" }b", "p$q", 'n$m', "\$esc")"#, false),
            [
                Tok::Ident("x".into()),
                Tok::Punct('('),
                s("ab", false),
                Tok::Punct(','),
                s("p$q", false),
                Tok::Punct(','),
                s("n$m", true),
                Tok::Punct(','),
                s("$esc", true),
                Tok::Punct(')'),
            ]
        );
    }

    #[test]
    fn slashy_strings_only_where_a_value_goes() {
        assert_eq!(
            toks("a = /x\\/y/\nb = 4 / 2", false),
            [
                Tok::Ident("a".into()),
                Tok::Punct('='),
                s("x/y", true),
                Tok::Ident("b".into()),
                Tok::Punct('='),
                Tok::Punct('4'),
                Tok::Punct('/'),
                Tok::Punct('2'),
            ]
        );
    }

    #[test]
    fn lines_and_line_breaks_are_kept() {
        let (tokens, unclosed) = tokenize(
            indoc! {"
                a
                \"\"\"x
                y\"\"\" b
                `java-library`"},
            true,
        );
        assert!(unclosed.is_none());
        let lines: Vec<(u32, bool)> = tokens.iter().map(|t| (t.line, t.nl_before)).collect();
        assert_eq!(lines, [(1, true), (2, true), (3, false), (4, true)]);
        assert_eq!(tokens[3].tok, Tok::Ident("java-library".into()));
    }

    #[test]
    fn unclosed_constructs_are_reported_where_they_start() {
        assert_eq!(tokenize("a\n/* b", false).1.map(|u| u.line), Some(2));
        assert_eq!(
            tokenize(
                indoc! {"
                    a

                    '''b"},
                false
            )
            .1
            .map(|u| u.line),
            Some(3)
        );
        assert_eq!(tokenize("\"a\nb\"", true).1.map(|u| u.what), Some("string"));
        let deep = format!("\"{}\"", "${\"".repeat(50_000));
        assert!(tokenize(&deep, false).1.is_some());
    }
}
