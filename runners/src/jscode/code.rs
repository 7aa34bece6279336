//! A token list with its brackets paired, and the few readings of it that finding
//! registrations needs: a call's arguments, an object literal's entries, a string array.
//!
//! The pairs are found in one pass with a stack, so every reading jumps over a nested
//! bracket in one step: each token is looked at a bounded number of times, whatever the
//! nesting (a minified file, a hostile one a million brackets deep).

use std::ops::Range;

use super::lexer::{Tok, Token};

/// Tokens and, for each opening bracket, the index of its closer.
pub(super) struct Code {
    pub toks: Vec<Token>,
    /// For an opening bracket at `i`, the index of its closer (`toks.len()` when it never
    /// closes); unused elsewhere.
    closer: Vec<u32>,
}

/// One entry of an object literal.
pub(super) struct Entry {
    /// The key as written (a name, a string, a number); `None` for a spread or a computed key.
    pub key: Option<String>,
    /// The key's token.
    pub at: usize,
    /// The value's tokens (empty for a shorthand `{ a }` entry).
    pub value: Range<usize>,
    /// A method (`name() {…}`), which is a function.
    pub method: bool,
}

impl Code {
    pub fn new(toks: Vec<Token>) -> Code {
        let len = u32::try_from(toks.len()).unwrap_or(u32::MAX);
        let mut closer = vec![len; toks.len()];
        let mut open: Vec<(usize, char)> = Vec::new();
        for (i, t) in toks.iter().enumerate() {
            let Tok::Punct(c) = t.tok else { continue };
            let want = match c {
                '(' | '[' | '{' => {
                    open.push((i, c));
                    continue;
                }
                ')' => '(',
                ']' => '[',
                '}' => '{',
                _ => continue,
            };
            // A stray closer closes nothing; one that skips openers closes them too.
            if let Some(depth) = open.iter().rposition(|(_, o)| *o == want) {
                for (j, _) in open.drain(depth..) {
                    closer[j] = u32::try_from(i).unwrap_or(u32::MAX);
                }
            }
        }
        Code { toks, closer }
    }

    pub fn len(&self) -> usize {
        self.toks.len()
    }

    pub fn get(&self, i: usize) -> Option<&Token> {
        self.toks.get(i)
    }

    pub fn is(&self, i: usize, c: char) -> bool {
        self.get(i).is_some_and(|t| t.is(c))
    }

    pub fn is_ident(&self, i: usize, name: &str) -> bool {
        self.get(i).is_some_and(|t| t.is_ident(name))
    }

    pub fn ident(&self, i: usize) -> Option<&str> {
        self.get(i).and_then(|t| t.ident())
    }

    pub fn plain_str(&self, i: usize) -> Option<&str> {
        self.get(i).and_then(|t| t.plain_str())
    }

    pub fn line(&self, i: usize) -> u32 {
        self.get(i).or(self.toks.last()).map_or(1, |t| t.line)
    }

    /// The closer of the opening bracket at `i`.
    pub fn close_of(&self, i: usize) -> usize {
        self.closer.get(i).map_or(self.len(), |&c| c as usize)
    }

    /// The index just past the token at `i`, jumping over a bracketed group it opens.
    pub fn step(&self, i: usize) -> usize {
        if self.is(i, '(') || self.is(i, '[') || self.is(i, '{') {
            self.close_of(i) + 1
        } else {
            i + 1
        }
    }

    /// The comma-separated parts of `range`, split at its top level.
    pub fn split(&self, range: Range<usize>) -> Vec<Range<usize>> {
        let mut parts = Vec::new();
        let mut start = range.start;
        let mut i = range.start;
        while i < range.end {
            if self.is(i, ',') {
                parts.push(start..i);
                start = i + 1;
            }
            i = self.step(i);
        }
        if start < range.end.min(self.len()) {
            parts.push(start..range.end.min(self.len()));
        }
        parts
    }

    /// The arguments of the call whose `(` is at `open`.
    pub fn args(&self, open: usize) -> Vec<Range<usize>> {
        self.split(open + 1..self.close_of(open))
    }

    /// The entries of the object literal whose `{` is at `open`.
    pub fn entries(&self, open: usize) -> Vec<Entry> {
        self.args(open)
            .into_iter()
            .filter(|part| !part.is_empty())
            .map(|part| {
                let at = part.start;
                let key = self.get(at).and_then(|t| match &t.tok {
                    Tok::Ident(name) => Some(name.clone()),
                    Tok::Str { value, plain: true } => Some(value.clone()),
                    _ => None,
                });
                if self.is(at + 1, ':') {
                    Entry {
                        key,
                        at,
                        value: at + 2..part.end,
                        method: false,
                    }
                } else {
                    // `name() {…}`, `async name() {…}`, or the shorthand `{ name }`.
                    let method = part.len() > 1;
                    let key = if method && self.is_ident(at, "async") {
                        self.ident(at + 1).map(str::to_owned)
                    } else {
                        key
                    };
                    Entry {
                        key,
                        at,
                        value: part.end..part.end,
                        method,
                    }
                }
            })
            .collect()
    }

    /// The plain strings of the array literal whose `[` is at `open`; `None` when an item is
    /// anything else.
    pub fn strings(&self, open: usize) -> Option<Vec<String>> {
        self.args(open)
            .into_iter()
            .filter(|part| !part.is_empty())
            .map(|part| {
                (part.len() == 1)
                    .then(|| self.plain_str(part.start).map(str::to_owned))
                    .flatten()
            })
            .collect()
    }

    /// The tokens of `range` as a person reads them, with strings quoted; cut at `max`
    /// characters.
    pub fn render(&self, range: Range<usize>, max: usize) -> String {
        let mut out = String::new();
        for t in self.toks.get(range).unwrap_or_default() {
            let word = match &t.tok {
                Tok::Ident(name) => name.clone(),
                Tok::Str { value, .. } => format!("'{value}'"),
                Tok::Num => "0".to_owned(),
                Tok::Punct(c) => c.to_string(),
            };
            let glue = out
                .chars()
                .last()
                .is_some_and(|c| c.is_alphanumeric() || c == '\'')
                && word.starts_with(|c: char| c.is_alphanumeric() || c == '\'');
            if glue || out.ends_with(',') {
                out.push(' ');
            }
            out.push_str(&word);
            if out.len() > max {
                out.push('…');
                break;
            }
        }
        out
    }
}
