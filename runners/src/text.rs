//! Small text helpers shared by the adapters: byte offsets to line numbers, argv to a
//! copy-pasteable shell command, the comment lines that are drawn rather than written, and
//! where a Python statement ends.

/// Maps byte offsets in a text to 1-based line numbers.
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// Indexes the line starts of `text`.
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    /// The 1-based line that holds byte `offset`.
    pub fn line(&self, offset: usize) -> u32 {
        let idx = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        u32::try_from(idx + 1).unwrap_or(u32::MAX)
    }
}

/// Renders an argv as one shell command a person can paste: words that need quoting get
/// POSIX single quotes.
pub fn quote_command<S: AsRef<str>>(argv: &[S]) -> String {
    argv.iter()
        .map(|w| {
            let w = w.as_ref();
            shlex::try_quote(w).map_or_else(
                // Only a NUL byte makes quoting fail; show it escaped rather than lose it.
                |_| format!("'{}'", w.replace('\0', "\\0").replace('\'', r"'\''")),
                std::borrow::Cow::into_owned,
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether a comment line (its text without the comment marker) is drawn to divide a file
/// rather than written to describe what follows: a ruler of punctuation (`-----`, `#####`,
/// `=====`) or a section banner, a title framed by a run of three or more ruler characters
/// (`===== Testing =====`, `--- Build`, `Lint ###`). Neither is a description.
pub fn is_divider(comment: &str) -> bool {
    let text = comment.trim();
    if text
        .chars()
        .all(|c| c.is_ascii_punctuation() || c.is_whitespace())
    {
        return true;
    }
    let framed = |run: &mut dyn Iterator<Item = char>| {
        let mut run = run.peekable();
        let Some(&first) = run.peek() else {
            return false;
        };
        "=-*#~_+".contains(first) && run.take_while(|&c| c == first).count() >= 3
    };
    framed(&mut text.chars()) || framed(&mut text.chars().rev())
}

/// How many brackets are still open in the Python source `text`, outside strings (with
/// their backslash escapes) and `#` comments: a statement or decorator that goes on to the
/// next line while it is above zero.
pub fn open_brackets(text: &str) -> i32 {
    let mut depth = 0;
    let mut quote: Option<char> = None;
    let mut comment = false;
    let mut escaped = false;
    for c in text.chars() {
        if comment {
            comment = c != '\n';
            continue;
        }
        if escaped {
            escaped = false;
            continue;
        }
        match (quote, c) {
            (Some(_), '\\') => escaped = true,
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            (None, '#') => comment = true,
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth -= 1,
            _ => {}
        }
    }
    depth
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rulers_and_banners_are_dividers_and_sentences_are_not() {
        for divider in [
            "-----",
            "#######",
            "",
            "=================== Testing ===================",
            "--- Build",
            "Lint ###",
            "*** Release ***",
        ] {
            assert!(is_divider(divider), "{divider}");
        }
        for text in [
            "unit tests (hermetic)",
            "Build --release",
            "a -- b",
            "== not a banner",
            "C++ build",
        ] {
            assert!(!is_divider(text), "{text}");
        }
    }

    #[test]
    fn lines_are_one_based() {
        let idx = LineIndex::new("a\nbb\n\nc");
        assert_eq!(idx.line(0), 1);
        assert_eq!(idx.line(2), 2);
        assert_eq!(idx.line(5), 3);
        assert_eq!(idx.line(6), 4);
        assert_eq!(idx.line(100), 4);
    }

    #[test]
    fn commands_quote_only_what_needs_it() {
        assert_eq!(quote_command(&["npm", "run", "build"]), "npm run build");
        assert_eq!(
            quote_command(&["npm", "run", "test:e2e watch"]),
            "npm run 'test:e2e watch'"
        );
        assert_eq!(quote_command(&["make", "it's"]), r#"make "it's""#);
    }
}
