//! The CMake language (cmake-language(7)) as listing needs it: command invocations with their
//! bracket, quoted and unquoted arguments, and comments, each command with its line. Both the
//! reader of `CMakeLists.txt` files ([`super::lists`]) and the conditions it decides
//! ([`super::condition`]) stand on it.

use crate::text::LineIndex;

/// One command invocation.
#[derive(Debug)]
pub(super) struct Command {
    /// The name, lowercased (command names are case-insensitive).
    pub name: String,
    pub line: u32,
    pub args: Vec<Arg>,
}

/// One argument.
#[derive(Debug)]
pub(super) struct Arg {
    pub text: String,
    /// Quoted or bracket: never a keyword.
    pub quoted: bool,
}

/// Why a file stops being readable, and where.
#[derive(Debug)]
pub(super) struct SyntaxError {
    pub line: u32,
    pub message: String,
}

/// The commands of one file, up to the first syntax error (CMake stops there too).
pub(super) fn commands(text: &str) -> (Vec<Command>, Option<SyntaxError>) {
    let mut reader = Reader {
        bytes: text.as_bytes(),
        text,
        at: 0,
        lines: LineIndex::new(text),
    };
    let mut commands = Vec::new();
    loop {
        match reader.next_command() {
            Ok(Some(command)) => commands.push(command),
            Ok(None) => return (commands, None),
            Err(err) => return (commands, Some(err)),
        }
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    text: &'a str,
    at: usize,
    lines: LineIndex,
}

impl Reader<'_> {
    fn line(&self) -> u32 {
        self.lines.line(self.at)
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn error<T>(line: u32, message: impl Into<String>) -> Result<T, SyntaxError> {
        Err(SyntaxError {
            line,
            message: message.into(),
        })
    }

    /// Skips blanks, line ends and comments.
    fn skip_space(&mut self) -> Result<(), SyntaxError> {
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' | b'\r' | b'\n' => self.at += 1,
                b'#' => {
                    self.at += 1;
                    if let Some(level) = self.bracket_open() {
                        let line = self.line();
                        if self.bracket_body(level).is_none() {
                            return Self::error(line, "a bracket comment `#[[` is never closed");
                        }
                    } else {
                        while self.peek().is_some_and(|b| b != b'\n') {
                            self.at += 1;
                        }
                    }
                }
                _ => break,
            }
        }
        Ok(())
    }

    /// At `[` followed by `=`s and `[`: consumes the opening and returns the count of `=`.
    fn bracket_open(&mut self) -> Option<usize> {
        let rest = self.bytes.get(self.at..)?;
        if rest.first() != Some(&b'[') {
            return None;
        }
        let level = rest[1..].iter().take_while(|b| **b == b'=').count();
        if rest.get(1 + level) != Some(&b'[') {
            return None;
        }
        self.at += level + 2;
        Some(level)
    }

    /// The body of a bracket argument or comment, up to its `]=…]` (consumed).
    fn bracket_body(&mut self, level: usize) -> Option<String> {
        let close = format!("]{}]", "=".repeat(level));
        let rest = self.text.get(self.at..)?;
        let end = rest.find(&close)?;
        let mut body = &rest[..end];
        // A line end right after the opening bracket is not part of the content.
        body = body
            .strip_prefix("\r\n")
            .or_else(|| body.strip_prefix('\n'))
            .unwrap_or(body);
        self.at += end + close.len();
        Some(body.to_owned())
    }

    fn next_command(&mut self) -> Result<Option<Command>, SyntaxError> {
        self.skip_space()?;
        let Some(first) = self.peek() else {
            return Ok(None);
        };
        let line = self.line();
        if !(first.is_ascii_alphabetic() || first == b'_') {
            return Self::error(
                line,
                format!(
                    "expected a command name, found `{}`",
                    char_at(self.text, self.at)
                ),
            );
        }
        let start = self.at;
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            self.at += 1;
        }
        let name = self.text[start..self.at].to_ascii_lowercase();
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
        if self.peek() != Some(b'(') {
            return Self::error(
                line,
                format!("expected `(` after the command name `{name}`"),
            );
        }
        self.at += 1;
        let args = self.arguments(&name, line)?;
        Ok(Some(Command { name, line, args }))
    }

    /// The arguments up to the `)` that closes the invocation; nested parentheses are
    /// arguments themselves (as `if((a) AND b)` has them).
    fn arguments(&mut self, name: &str, line: u32) -> Result<Vec<Arg>, SyntaxError> {
        let mut args = Vec::new();
        let mut depth = 1usize;
        loop {
            self.skip_space()?;
            let Some(b) = self.peek() else {
                return Self::error(line, format!("`{name}(` is never closed"));
            };
            match b {
                b')' => {
                    self.at += 1;
                    depth -= 1;
                    if depth == 0 {
                        return Ok(args);
                    }
                    args.push(Arg {
                        text: ")".to_owned(),
                        quoted: false,
                    });
                }
                b'(' => {
                    self.at += 1;
                    depth += 1;
                    args.push(Arg {
                        text: "(".to_owned(),
                        quoted: false,
                    });
                }
                b'"' => {
                    let start = self.line();
                    self.at += 1;
                    let Some(text) = self.quoted() else {
                        return Self::error(start, "a quoted argument is never closed");
                    };
                    args.push(Arg { text, quoted: true });
                }
                b'[' if self.bracket_open_ahead() => {
                    let start = self.line();
                    let level = self.bracket_open().unwrap_or(0);
                    let Some(text) = self.bracket_body(level) else {
                        return Self::error(start, "a bracket argument `[[` is never closed");
                    };
                    args.push(Arg { text, quoted: true });
                }
                _ => args.push(Arg {
                    text: self.unquoted(),
                    quoted: false,
                }),
            }
        }
    }

    fn bracket_open_ahead(&self) -> bool {
        let rest = &self.bytes[self.at..];
        let level = rest[1..].iter().take_while(|b| **b == b'=').count();
        rest.get(1 + level) == Some(&b'[')
    }

    /// A quoted argument's content, after its opening `"`; `None` when it never closes.
    fn quoted(&mut self) -> Option<String> {
        let mut out = String::new();
        let mut chars = self.text.get(self.at..)?.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.at += i + 1;
                    return Some(out);
                }
                '\\' => match chars.next() {
                    // A line continuation.
                    Some((_, '\n')) => {}
                    Some((_, 'n')) => out.push('\n'),
                    Some((_, 't')) => out.push('\t'),
                    Some((_, 'r')) => out.push('\r'),
                    Some((_, ';')) => out.push_str("\\;"),
                    Some((_, other)) => out.push(other),
                    None => return None,
                },
                c => out.push(c),
            }
        }
        None
    }

    /// An unquoted argument: up to a blank, a parenthesis or a comment. A quoted part inside
    /// (`-DX="a b"`, CMake's legacy form) is kept with its quotes.
    fn unquoted(&mut self) -> String {
        let mut out = String::new();
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' | b'\r' | b'\n' | b'(' | b')' | b'#' => break,
                b'\\' => {
                    self.at += 1;
                    let c = char_at(self.text, self.at);
                    match c {
                        'n' => out.push('\n'),
                        't' => out.push('\t'),
                        ';' => out.push_str("\\;"),
                        '\0' => break,
                        c => out.push(c),
                    }
                    self.at += c.len_utf8();
                }
                b'"' => {
                    self.at += 1;
                    out.push('"');
                    if let Some(inner) = self.quoted() {
                        out.push_str(&inner);
                        out.push('"');
                    } else {
                        self.at = self.bytes.len();
                    }
                }
                _ => {
                    let c = char_at(self.text, self.at);
                    out.push(c);
                    self.at += c.len_utf8();
                }
            }
        }
        out
    }
}

/// The character at byte `at` (`'\0'` past the end or inside a character).
fn char_at(text: &str, at: usize) -> char {
    text.get(at..)
        .and_then(|s| s.chars().next())
        .unwrap_or('\0')
}
