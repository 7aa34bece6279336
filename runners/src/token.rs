//! What the lexers of build files read as code (JavaScript and CoffeeScript for gulp and
//! Grunt, Groovy and Kotlin for Gradle) hand their readers: a token's kind with its text,
//! and the construct a lexer could not close. Each lexer keeps its own `Token`, with the
//! position facts its reader needs, around a [`Tok`].

/// What a token is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tok {
    /// A name; keywords are names too (a Kotlin backtick name without its backticks).
    Ident(String),
    /// A string literal's value, escapes resolved; `plain` when it holds no interpolation
    /// (`${…}`, CoffeeScript `#{…}`), so its value is known without running the file.
    Str { value: String, plain: bool },
    /// A number (JavaScript; Gradle's lexer gives digits as punctuation).
    Num,
    /// Any other single character outside whitespace.
    Punct(char),
}

impl Tok {
    /// The name, when it is one.
    pub(crate) fn ident(&self) -> Option<&str> {
        match self {
            Tok::Ident(name) => Some(name),
            _ => None,
        }
    }

    /// Whether it is the name `name`.
    pub(crate) fn is_ident(&self, name: &str) -> bool {
        self.ident() == Some(name)
    }

    /// Whether it is the punctuation `c`.
    pub(crate) fn is(&self, c: char) -> bool {
        *self == Tok::Punct(c)
    }

    /// The value of a string literal known without running the file.
    pub(crate) fn plain_str(&self) -> Option<&str> {
        match self {
            Tok::Str { value, plain: true } => Some(value),
            _ => None,
        }
    }
}

/// Something a lexer could not finish: its line and what it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unclosed {
    pub line: u32,
    pub what: &'static str,
}
