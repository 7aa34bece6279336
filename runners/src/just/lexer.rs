//! The justfile lexer: tokens of one logical line outside recipe bodies, and the raw lines
//! of a recipe body.
//!
//! Like just's own lexer, a newline inside `(`, `[`, `{` or an interpolation is plain
//! whitespace, `\` before a newline continues the line, and strings may span lines. The
//! parser drives it one item at a time and may move it to any line start to recover.

/// The kinds of token the parser needs to tell apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// `[A-Za-z_][A-Za-z0-9_-]*`.
    Ident,
    /// A whole string or backtick, possibly with an `x` prefix.
    Str,
    /// A format string up to its first `{{`.
    FmtOpen,
    /// The part of a format string between `}}` and the next `{{`.
    FmtMid,
    /// The part of a format string from the last `}}` to its closing quote.
    FmtClose,
    ColonEq,
    ColonColon,
    Colon,
    Eq,
    EqEq,
    EqTilde,
    BangEq,
    BangTilde,
    Bang,
    Plus,
    Star,
    Dollar,
    At,
    AndAnd,
    OrOr,
    Question,
    Slash,
    Comma,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    /// The `}}` closing an interpolation in a recipe body.
    InterpClose,
    /// `#` to the end of the line.
    Comment,
    /// The end of a logical line.
    Eol,
    /// The end of the text.
    Eof,
}

/// One token: its kind and byte range in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Token {
    pub kind: Kind,
    pub start: usize,
    pub end: usize,
}

/// A problem at a byte offset; the parser turns it into a diagnostic with a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Error {
    pub offset: usize,
    pub message: String,
}

impl Error {
    pub(super) fn new(offset: usize, message: impl Into<String>) -> Error {
        Error {
            offset,
            message: message.into(),
        }
    }
}

/// The quote of a string literal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quote {
    Single,
    Double,
    Backtick,
}

/// A string's delimiters: which quote, and whether it is tripled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct StrKind {
    quote: Quote,
    triple: bool,
}

impl StrKind {
    fn delimiter(self) -> &'static [u8] {
        match (self.quote, self.triple) {
            (Quote::Single, false) => b"'",
            (Quote::Single, true) => b"'''",
            (Quote::Double, false) => b"\"",
            (Quote::Double, true) => b"\"\"\"",
            (Quote::Backtick, false) => b"`",
            (Quote::Backtick, true) => b"```",
        }
    }

    fn index(self) -> usize {
        let q = match self.quote {
            Quote::Single => 0,
            Quote::Double => 2,
            Quote::Backtick => 4,
        };
        q + usize::from(self.triple)
    }
}

/// What an open `{{` belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Interp {
    Body,
    Format(StrKind),
}

/// An open delimiter, inside which newlines do not end the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Delim {
    Paren,
    Bracket,
    Brace,
    Interp(Interp),
}

/// The body of a recipe: its lines without the recipe's indentation, and what went wrong.
#[derive(Debug, Default)]
pub(super) struct Body<'a> {
    /// Dedented lines; blank lines inside the body are empty strings, trailing ones dropped.
    pub lines: Vec<&'a str>,
    pub errors: Vec<Error>,
}

/// The lexer over one file's text.
pub(super) struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    delims: Vec<(Delim, usize)>,
    /// Per string kind, an offset from which a string of that kind is known to run to the
    /// end of the text, so a file of stray quotes costs linear time, not quadratic.
    dead: [Option<usize>; 6],
    /// Bytes the lexer may scan again when it recovers from an error by going back to the
    /// line after the error's start; once spent it recovers forward instead.
    budget: usize,
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_ident_continue(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'-'
}

fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

impl<'a> Lexer<'a> {
    pub(super) fn new(src: &'a str) -> Lexer<'a> {
        Lexer {
            src,
            pos: 0,
            delims: Vec::new(),
            dead: [None; 6],
            budget: src.len().saturating_mul(2).saturating_add(1 << 16),
        }
    }

    fn bytes(&self) -> &'a [u8] {
        self.src.as_bytes()
    }

    fn rest(&self) -> &'a [u8] {
        self.bytes().get(self.pos..).unwrap_or_default()
    }

    /// The current offset.
    pub(super) fn pos(&self) -> usize {
        self.pos
    }

    /// Whether the whole text has been read.
    pub(super) fn at_eof(&self) -> bool {
        self.pos >= self.src.len()
    }

    /// The offset just past the newline ending the line that holds `offset` (or the end).
    pub(super) fn line_end(&self, offset: usize) -> usize {
        let bytes = self.bytes();
        match bytes
            .get(offset..)
            .and_then(|r| r.iter().position(|&b| b == b'\n'))
        {
            Some(i) => offset + i + 1,
            None => bytes.len(),
        }
    }

    /// The offset of the newline ending the line that holds `offset` (or the end).
    fn line_stop(&self, offset: usize) -> usize {
        let end = self.line_end(offset);
        if self.bytes().get(end.wrapping_sub(1)) == Some(&b'\n') {
            end - 1
        } else {
            end
        }
    }

    /// The first byte after the spaces and tabs starting at `offset`.
    fn skip_blanks(&self, offset: usize) -> usize {
        let bytes = self.bytes();
        let mut i = offset;
        while bytes.get(i).is_some_and(|&b| is_blank(b)) {
            i += 1;
        }
        i
    }

    /// Whether the line starting at `offset` holds only spaces and tabs.
    fn line_is_blank(&self, offset: usize) -> bool {
        let i = self.skip_blanks(offset);
        matches!(self.bytes().get(i), None | Some(b'\n'))
            || (self.bytes().get(i) == Some(&b'\r') && self.bytes().get(i + 1) == Some(&b'\n'))
    }

    /// Whether the current line starts with whitespace and has something else on it.
    pub(super) fn at_indented_line(&self) -> bool {
        self.rest().first().is_some_and(|&b| is_blank(b)) && !self.line_is_blank(self.pos)
    }

    /// Whether the current line holds only whitespace.
    pub(super) fn at_blank_line(&self) -> bool {
        self.line_is_blank(self.pos)
    }

    /// Moves to the start of the next line.
    pub(super) fn skip_line(&mut self) {
        self.pos = self.line_end(self.pos);
    }

    /// Moves to `line_start`, the start of a line, forgetting any open delimiters.
    fn reset(&mut self, line_start: usize) {
        self.pos = line_start.min(self.src.len());
        self.delims.clear();
    }

    /// Moves to the first line at or after `from` (a line start) that is neither blank nor
    /// indented: where the next item can start.
    fn seek_item_start(&mut self, from: usize) {
        self.reset(from);
        while !self.at_eof()
            && (self.at_blank_line() || self.rest().first().is_some_and(|&b| is_blank(b)))
        {
            self.skip_line();
        }
    }

    /// Recovers from an error in the item that started at `item_start`: resumes at the next
    /// unindented line after the item's first line, so a stray quote that swallowed later
    /// lines hides only its own item. When the rescanning budget is spent, resumes after the
    /// furthest point read instead, which keeps the total work linear.
    pub(super) fn recover(&mut self, item_start: usize) {
        let first_line_end = self.line_end(item_start);
        let furthest = self.pos.max(first_line_end);
        let cost = furthest - first_line_end;
        if cost <= self.budget {
            self.budget -= cost;
            self.seek_item_start(first_line_end);
        } else {
            self.budget = 0;
            let resume = if furthest > first_line_end && !self.line_starts_at(furthest) {
                self.line_end(furthest)
            } else {
                furthest
            };
            self.seek_item_start(resume);
        }
    }

    fn line_starts_at(&self, offset: usize) -> bool {
        offset == 0 || self.bytes().get(offset - 1) == Some(&b'\n')
    }

    /// Skips the current line and any following indented or blank lines.
    pub(super) fn skip_indented(&mut self) {
        self.skip_line();
        self.seek_item_start(self.pos);
    }

    /// The tokens of the logical line starting here, without its end-of-line token.
    pub(super) fn logical_line(&mut self) -> Result<Vec<Token>, Error> {
        let mut tokens = Vec::new();
        loop {
            let token = self.next_token()?;
            match token.kind {
                Kind::Eol | Kind::Eof => return Ok(tokens),
                _ => tokens.push(token),
            }
        }
    }

    fn token(&self, kind: Kind, start: usize) -> Token {
        Token {
            kind,
            start,
            end: self.pos,
        }
    }

    fn open(&mut self, delim: Delim, kind: Kind, start: usize) -> Token {
        self.delims.push((delim, start));
        self.pos = start + 1;
        self.token(kind, start)
    }

    fn close(&mut self, delim: Delim, kind: Kind, start: usize) -> Result<Token, Error> {
        match self.delims.last() {
            Some(&(open, _)) if open == delim => {
                self.delims.pop();
                self.pos = start + 1;
                Ok(self.token(kind, start))
            }
            _ => {
                self.pos = start + 1;
                let ch = char::from(self.bytes().get(start).copied().unwrap_or(b'?'));
                Err(Error::new(start, format!("unmatched `{ch}`")))
            }
        }
    }

    /// The next token outside recipe bodies (or inside an interpolation).
    pub(super) fn next_token(&mut self) -> Result<Token, Error> {
        loop {
            let start = self.pos;
            let rest = self.rest();
            if let Some(&(Delim::Interp(interp), _)) = self.delims.last()
                && rest.starts_with(b"}}")
            {
                self.delims.pop();
                self.pos = start + 2;
                return match interp {
                    Interp::Body => Ok(self.token(Kind::InterpClose, start)),
                    Interp::Format(kind) => self.string_text(kind, start, false, true),
                };
            }
            let Some(&first) = rest.first() else {
                return match self.delims.last() {
                    Some(&(Delim::Interp(Interp::Body), at)) => {
                        Err(Error::new(at, "unterminated interpolation"))
                    }
                    Some(&(Delim::Interp(Interp::Format(_)), at)) => {
                        Err(Error::new(at, "unterminated format string interpolation"))
                    }
                    Some(&(delim, at)) => {
                        let ch = match delim {
                            Delim::Paren => '(',
                            Delim::Bracket => '[',
                            _ => '{',
                        };
                        Err(Error::new(at, format!("unclosed `{ch}`")))
                    }
                    None => Ok(self.token(Kind::Eof, start)),
                };
            };
            let second = rest.get(1).copied();
            match first {
                b' ' | b'\t' => self.pos += 1,
                b'\r' if second != Some(b'\n') => self.pos += 1,
                b'\n' | b'\r' => {
                    self.pos += if first == b'\r' { 2 } else { 1 };
                    if self.delims.is_empty() {
                        return Ok(self.token(Kind::Eol, start));
                    }
                }
                b'\\' => match (second, rest.get(2)) {
                    (Some(b'\n'), _) => self.pos += 2,
                    (Some(b'\r'), Some(b'\n')) => self.pos += 3,
                    _ => {
                        self.pos += 1;
                        return Err(Error::new(start, "unexpected `\\`"));
                    }
                },
                b'#' => {
                    let end = self.line_end(start);
                    let text = self.src.get(start..end).unwrap_or_default();
                    self.pos = start + text.trim_end_matches(['\n', '\r']).len();
                    return Ok(self.token(Kind::Comment, start));
                }
                b'\'' | b'"' | b'`' => return self.string(start, start, false),
                b'x' | b'f' if matches!(second, Some(b'\'' | b'"')) => {
                    return self.string(start, start + 1, first == b'f');
                }
                _ if is_ident_start(first) => {
                    let len = rest.iter().take_while(|&&b| is_ident_continue(b)).count();
                    self.pos = start + len;
                    return Ok(self.token(Kind::Ident, start));
                }
                b'(' => return Ok(self.open(Delim::Paren, Kind::LParen, start)),
                b'[' => return Ok(self.open(Delim::Bracket, Kind::LBracket, start)),
                b'{' => return Ok(self.open(Delim::Brace, Kind::LBrace, start)),
                b')' => return self.close(Delim::Paren, Kind::RParen, start),
                b']' => return self.close(Delim::Bracket, Kind::RBracket, start),
                b'}' => return self.close(Delim::Brace, Kind::RBrace, start),
                _ => {
                    let (kind, len) = match (first, second) {
                        (b':', Some(b'=')) => (Kind::ColonEq, 2),
                        (b':', Some(b':')) => (Kind::ColonColon, 2),
                        (b':', _) => (Kind::Colon, 1),
                        (b'=', Some(b'=')) => (Kind::EqEq, 2),
                        (b'=', Some(b'~')) => (Kind::EqTilde, 2),
                        (b'=', _) => (Kind::Eq, 1),
                        (b'!', Some(b'=')) => (Kind::BangEq, 2),
                        (b'!', Some(b'~')) => (Kind::BangTilde, 2),
                        (b'!', _) => (Kind::Bang, 1),
                        (b'&', Some(b'&')) => (Kind::AndAnd, 2),
                        (b'|', Some(b'|')) => (Kind::OrOr, 2),
                        (b'+', _) => (Kind::Plus, 1),
                        (b'*', _) => (Kind::Star, 1),
                        (b'$', _) => (Kind::Dollar, 1),
                        (b'@', _) => (Kind::At, 1),
                        (b'?', _) => (Kind::Question, 1),
                        (b'/', _) => (Kind::Slash, 1),
                        (b',', _) => (Kind::Comma, 1),
                        _ => {
                            let ch = self.src.get(start..).and_then(|s| s.chars().next());
                            self.pos = start + ch.map_or(1, char::len_utf8);
                            return Err(Error::new(
                                start,
                                format!("unexpected character `{}`", ch.unwrap_or('?')),
                            ));
                        }
                    };
                    self.pos = start + len;
                    return Ok(self.token(kind, start));
                }
            }
        }
    }

    /// Lexes a string whose opening quote is at `quote_at` (after any `x`/`f` prefix at
    /// `start`).
    fn string(&mut self, start: usize, quote_at: usize, format: bool) -> Result<Token, Error> {
        let rest = self.bytes().get(quote_at..).unwrap_or_default();
        let quote = match rest.first() {
            Some(b'\'') => Quote::Single,
            Some(b'"') => Quote::Double,
            _ => Quote::Backtick,
        };
        let kind = StrKind {
            quote,
            triple: rest.len() >= 3 && rest.get(1) == rest.first() && rest.get(2) == rest.first(),
        };
        self.pos = quote_at + kind.delimiter().len();
        self.string_text(kind, start, true, format)
    }

    /// Scans string text of `kind` from the current position to its closing quote, or (in a
    /// format string) to the next `{{`, which opens an interpolation. `opened` tells a
    /// string's first part from one resumed after `}}`.
    fn string_text(
        &mut self,
        kind: StrKind,
        start: usize,
        opened: bool,
        format: bool,
    ) -> Result<Token, Error> {
        let idx = kind.index();
        if self.dead[idx].is_some_and(|d| self.pos >= d) {
            self.pos = self.src.len();
            return Err(Error::new(start, "unterminated string"));
        }
        let bytes = self.bytes();
        let delimiter = kind.delimiter();
        let from = self.pos;
        let mut i = from;
        while let Some(&b) = bytes.get(i) {
            if b == b'\\' && kind.quote == Quote::Double {
                i += 2;
                continue;
            }
            if format && b == b'{' && bytes.get(i + 1) == Some(&b'{') {
                if bytes.get(i + 2) == Some(&b'{') && bytes.get(i + 3) == Some(&b'{') {
                    i += 4;
                    continue;
                }
                self.pos = i + 2;
                self.delims.push((Delim::Interp(Interp::Format(kind)), i));
                let k = if opened { Kind::FmtOpen } else { Kind::FmtMid };
                return Ok(self.token(k, start));
            }
            if bytes.get(i..).is_some_and(|r| r.starts_with(delimiter)) {
                self.pos = i + delimiter.len();
                let k = if opened { Kind::Str } else { Kind::FmtClose };
                return Ok(self.token(k, start));
            }
            i += 1;
        }
        self.dead[idx] = Some(self.dead[idx].map_or(from, |d| d.min(from)));
        self.pos = self.src.len();
        Err(Error::new(start, "unterminated string"))
    }

    /// Reads a recipe body starting at the current line: the run of indented and blank lines
    /// that follows a recipe header. Interpolations `{{ … }}` may span lines.
    pub(super) fn body(&mut self) -> Body<'a> {
        let mut body = Body::default();
        if !self.at_indented_line() {
            return body;
        }
        let src = self.src;
        let bytes = self.bytes();
        let indent_end = self.skip_blanks(self.pos);
        let indent = src.get(self.pos..indent_end).unwrap_or_default();
        let mut blank_run = 0usize;
        let mut warned = false;
        while !self.at_eof() {
            let line_start = self.pos;
            if self.at_blank_line() {
                blank_run += 1;
                self.skip_line();
                continue;
            }
            let text_start = self.skip_blanks(line_start);
            if text_start == line_start {
                break;
            }
            let whitespace = src.get(line_start..text_start).unwrap_or_default();
            let content_start = if whitespace.starts_with(indent) {
                line_start + indent.len()
            } else {
                if !warned {
                    warned = true;
                    body.errors.push(Error::new(
                        line_start,
                        "recipe line has inconsistent leading whitespace",
                    ));
                }
                text_start
            };
            let mut i = text_start;
            let content_end = loop {
                match bytes.get(i) {
                    None => break i,
                    Some(b'\n') => {
                        let end = if i > 0 && bytes.get(i - 1) == Some(&b'\r') {
                            i - 1
                        } else {
                            i
                        };
                        break end.max(content_start);
                    }
                    Some(b'{') if bytes.get(i + 1) == Some(&b'{') => {
                        if bytes.get(i + 2) == Some(&b'{') && bytes.get(i + 3) == Some(&b'{') {
                            i += 4;
                            continue;
                        }
                        i = self.interpolation(i, &mut body.errors);
                    }
                    Some(_) => i += 1,
                }
            };
            for _ in 0..blank_run {
                body.lines.push("");
            }
            blank_run = 0;
            body.lines
                .push(src.get(content_start..content_end).unwrap_or_default());
            self.pos = self.line_end(content_end);
        }
        body
    }

    /// Lexes the interpolation whose `{{` is at `open`; returns where the body text resumes.
    fn interpolation(&mut self, open: usize, errors: &mut Vec<Error>) -> usize {
        self.delims.clear();
        self.delims.push((Delim::Interp(Interp::Body), open));
        self.pos = open + 2;
        loop {
            match self.next_token() {
                Ok(Token {
                    kind: Kind::InterpClose,
                    ..
                }) if self.delims.is_empty() => return self.pos,
                Ok(_) => {}
                Err(error) => {
                    errors.push(error);
                    // Treat the rest of the line as text; rescanning what the failed
                    // interpolation read is paid from the same budget as item recovery.
                    let line_end = self.line_end(open);
                    let cost = self.pos.saturating_sub(line_end);
                    self.delims.clear();
                    if cost <= self.budget {
                        self.budget -= cost;
                        return self.line_stop(open);
                    }
                    self.budget = 0;
                    return self.pos;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use indoc::indoc;

    fn kinds(src: &str) -> Vec<Kind> {
        let mut lexer = Lexer::new(src);
        lexer
            .logical_line()
            .expect("line lexes")
            .into_iter()
            .map(|t| t.kind)
            .collect()
    }

    #[test]
    fn header_line_tokens() {
        use Kind::*;
        assert_eq!(
            kinds("@build $mode='x' +rest: (dep \"a\") && post # note\n"),
            vec![
                At, Ident, Dollar, Ident, Eq, Str, Plus, Ident, Colon, LParen, Ident, Str, RParen,
                AndAnd, Ident, Comment
            ]
        );
        assert_eq!(
            kinds("x := a::b"),
            vec![Ident, ColonEq, Ident, ColonColon, Ident]
        );
    }

    #[test]
    fn newlines_inside_delimiters_and_after_backslash_do_not_end_the_line() {
        let src = "set shell := [\n  \"bash\",\n  \"-c\",\n]\nx := 'a' + \\\n  'b'\nnext:\n";
        let mut lexer = Lexer::new(src);
        assert_eq!(lexer.logical_line().expect("set").len(), 9);
        assert_eq!(lexer.logical_line().expect("x").len(), 5);
        let next = lexer.logical_line().expect("next");
        assert_eq!(next.first().map(|t| &src[t.start..t.end]), Some("next"));
    }

    #[test]
    fn strings_span_lines_and_keep_their_text() {
        let src = indoc! {"
            x := '''
              a
              b
            ''' \"q\\\"uote\" `cmd` ```
            multi
            ```
        "};
        let mut lexer = Lexer::new(src);
        let tokens = lexer.logical_line().expect("lexes");
        let texts: Vec<&str> = tokens.iter().map(|t| &src[t.start..t.end]).collect();
        assert_eq!(
            texts,
            vec![
                "x",
                ":=",
                indoc! {"
                    '''
                      a
                      b
                    '''"},
                "\"q\\\"uote\"",
                "`cmd`",
                indoc! {"
                    ```
                    multi
                    ```"}
            ]
        );
        assert!(lexer.at_eof());
    }

    #[test]
    fn format_strings_nest_through_interpolations() {
        use Kind::*;
        assert_eq!(
            kinds("x := f\"a{{ f'b{{ \"}}\" }}c' }}d\""),
            vec![Ident, ColonEq, FmtOpen, FmtOpen, Str, FmtClose, FmtClose]
        );
        assert_eq!(kinds("x := f'{{{{literal}}'"), vec![Ident, ColonEq, Str]);
        assert_eq!(kinds("x := x'~/path'"), vec![Ident, ColonEq, Str]);
    }

    #[test]
    fn unterminated_strings_are_errors_at_their_start() {
        let src = "a := 'open\nb := c\n";
        let mut lexer = Lexer::new(src);
        let error = lexer.logical_line().expect_err("unterminated");
        assert_eq!(error.offset, 5);
        assert_eq!(error.message, "unterminated string");
        // Any later single-quoted string fails at once instead of rescanning the text.
        let single = StrKind {
            quote: Quote::Single,
            triple: false,
        };
        assert_eq!(lexer.dead[single.index()], Some(6));
        lexer.reset(0);
        assert_eq!(lexer.logical_line().expect_err("again").offset, 5);
        assert!(lexer.at_eof());
    }

    #[test]
    fn delimiter_mistakes_are_errors() {
        let mut lexer = Lexer::new("x := (a\n");
        assert_eq!(
            lexer.logical_line().expect_err("unclosed").message,
            "unclosed `(`"
        );
        let mut lexer = Lexer::new("x := a)\n");
        assert_eq!(
            lexer.logical_line().expect_err("unmatched").message,
            "unmatched `)`"
        );
        let mut lexer = Lexer::new("x := a ~ b\n");
        assert_eq!(
            lexer.logical_line().expect_err("bad char").message,
            "unexpected character `~`"
        );
    }

    #[test]
    fn bodies_are_dedented_and_interpolations_may_span_lines() {
        let src = indoc! {"
            \techo {{ if a == \"b\" {
              \"x\" } else { \"}}\" } }} done

            \t{{{{not}}


            next:
        "};
        let mut lexer = Lexer::new(src);
        let body = lexer.body();
        assert!(body.errors.is_empty(), "{:?}", body.errors);
        assert_eq!(
            body.lines,
            vec![
                indoc! {"
                    echo {{ if a == \"b\" {
                      \"x\" } else { \"}}\" } }} done"},
                "",
                "{{{{not}}"
            ]
        );
        assert_eq!(&src[lexer.pos()..], "next:\n");
    }

    #[test]
    fn a_body_needs_an_indented_first_line() {
        let mut lexer = Lexer::new("\n  echo\n");
        assert!(lexer.body().lines.is_empty());
        assert_eq!(lexer.pos(), 0);
    }

    #[test]
    fn a_broken_interpolation_keeps_the_rest_of_the_body() {
        let src = indoc! {"
              echo {{ oops(
              echo two
            next:
        "};
        let mut lexer = Lexer::new(src);
        let body = lexer.body();
        assert_eq!(body.errors.len(), 1);
        assert_eq!(body.lines, vec!["echo {{ oops(", "echo two"]);
        assert_eq!(&src[lexer.pos()..], "next:\n");
    }
}
