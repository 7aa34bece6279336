//! Just enough Ruby to read a Rakefile without running it: each line with its strings,
//! comments and heredocs told apart from code, how many blocks it opens and closes, and
//! the words of a `task`/`desc`/`namespace` call.
//!
//! It is a reader of the forms Rakefiles are written in, not a Ruby parser: what only Ruby
//! could evaluate (a task name built from a variable, tasks defined in a loop) is left out.

/// One token of a call's arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Token {
    /// `:name` or `:"name"`.
    Symbol(String),
    /// `"text"` or `'text'` (an interpolating string is still its text as written).
    Str(String),
    /// `name:` or `"name":`, a hash key.
    Label(String),
    /// `%w[a b]`, `%i[a b]`.
    Words(Vec<String>),
    /// `=>`.
    Arrow,
    /// `,`.
    Comma,
    /// `[`.
    Open,
    /// `]`.
    Close,
    /// Anything else (a variable, a method call, a number).
    Other,
}

/// A line with its comment and the insides of its strings removed, for counting blocks:
/// string contents become spaces so that a `do` or `end` inside one is not a keyword.
pub(super) fn code_of(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '#' => break,
            '"' | '\'' | '`' => blank_quoted(c, &mut chars, &mut out),
            // A regular expression where a value starts (`gsub(/['"]x/, …)`, `x =~ /#/`,
            // `split /,/`), not a division (`a / b`, `a/b`).
            '/' if regex_starts(&out, chars.peek().copied()) => {
                blank_quoted(c, &mut chars, &mut out);
            }
            '%' if matches!(chars.peek(), Some('w' | 'i' | 'q' | 'Q' | 'W' | 'I' | 'r')) => {
                out.push(c);
                if let Some(kind) = chars.next() {
                    out.push(kind);
                }
                let Some(open) = chars.next() else {
                    break;
                };
                let close = closing(open);
                out.push(open);
                for inner in chars.by_ref() {
                    if inner == close {
                        break;
                    }
                    out.push(' ');
                }
                out.push(close);
            }
            _ => out.push(c),
        }
    }
    out
}

/// A string or regular expression opened by `quote`: its delimiters kept and its inside
/// (backslash escapes included) turned into spaces, up to the closing `quote`.
fn blank_quoted(quote: char, chars: &mut impl Iterator<Item = char>, out: &mut String) {
    out.push(quote);
    let mut escaped = false;
    for inner in chars.by_ref() {
        if escaped {
            escaped = false;
        } else if inner == '\\' {
            escaped = true;
        } else if inner == quote {
            break;
        }
        out.push(' ');
    }
    out.push(quote);
}

/// Whether a `/` after `before` (followed by `next`) opens a regular expression: after an
/// operator, an opening bracket or a separator, or after a space when no space follows (a
/// method's argument, `split /,/`).
fn regex_starts(before: &str, next: Option<char>) -> bool {
    let Some(last) = before.trim_end().chars().next_back() else {
        return true;
    };
    if "(,=~|&!{[;:?".contains(last) {
        return true;
    }
    before.ends_with(' ') && next.is_some_and(|n| !n.is_whitespace() && n != '=')
}

/// The bracket that closes `open` in a `%w` literal (the same character for `|` and `!`).
fn closing(open: char) -> char {
    match open {
        '[' => ']',
        '(' => ')',
        '{' => '}',
        '<' => '>',
        other => other,
    }
}

/// Keywords that open a block closed by `end` when they start a statement (`if x` on its
/// own line, not the modifier `y if x`).
const OPENERS: [&str; 10] = [
    "if", "unless", "while", "until", "case", "def", "class", "module", "begin", "for",
];

/// How a line of code (from [`code_of`]) changes the block depth: the blocks it opens and
/// the blocks it closes, in order, as `+1`/`-1` steps.
pub(super) fn block_steps(code: &str) -> Vec<i8> {
    let mut steps = Vec::new();
    let mut statement_start = true;
    let mut word = String::new();
    let mut previous: Option<char> = None;
    let flush = |word: &mut String, steps: &mut Vec<i8>, statement_start: &mut bool| {
        if word.is_empty() {
            return;
        }
        match word.as_str() {
            "do" => steps.push(1),
            "end" => steps.push(-1),
            // `def x = expr` (an endless method) opens nothing, which is rare enough.
            w if *statement_start && OPENERS.contains(&w) => steps.push(1),
            _ => {}
        }
        *statement_start = matches!(word.as_str(), "then" | "else" | "do" | "begin");
        word.clear();
    };
    for c in code.chars() {
        if c.is_alphanumeric() || c == '_' || (c == '?' || c == '!') && !word.is_empty() {
            // `.end` or `:end` is a method or a symbol, not the keyword.
            if word.is_empty() && matches!(previous, Some('.' | ':')) {
                word.push('\u{0}');
            }
            word.push(c);
        } else {
            flush(&mut word, &mut steps, &mut statement_start);
            match c {
                '{' => steps.push(1),
                '}' => steps.push(-1),
                ';' | '(' | '=' | '|' | '&' => statement_start = true,
                c if c.is_whitespace() => {}
                _ => statement_start = false,
            }
        }
        previous = Some(c);
    }
    flush(&mut word, &mut steps, &mut statement_start);
    steps
}

/// The heredoc terminators a line opens (`<<~EOS`, `<<-EOS`, `<<EOS`, quoted or not), in
/// order: the lines after it up to each terminator are the heredoc's text.
pub(super) fn heredocs(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("<<") {
        let after = &rest[at + 2..];
        let after = after.strip_prefix(['~', '-']).unwrap_or(after);
        let quoted = after.strip_prefix(['"', '\'']);
        let body = quoted.unwrap_or(after);
        let name: String = body
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        // `x << y` appends; a heredoc's name is written in capitals (or quoted).
        let is_heredoc = !name.is_empty()
            && (quoted.is_some() || name.chars().all(|c| c.is_ascii_uppercase() || c == '_'));
        if is_heredoc {
            out.push(name);
        }
        rest = &rest[at + 2..];
    }
    out
}

/// The tokens of a call's arguments (the text after the method name), up to the block that
/// follows them (`do`, `{`) or the end.
pub(super) fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let word_char = |c: char| c.is_alphanumeric() || c == '_' || c == '?' || c == '!';
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '(' | ')' | '\\' | '\n' | '\r' => i += 1,
            '#' | '{' => break,
            ',' => {
                out.push(Token::Comma);
                i += 1;
            }
            '[' => {
                out.push(Token::Open);
                i += 1;
            }
            ']' => {
                out.push(Token::Close);
                i += 1;
            }
            '=' if chars.get(i + 1) == Some(&'>') => {
                out.push(Token::Arrow);
                i += 2;
            }
            '"' | '\'' => {
                let (text, end) = string_at(&chars, i);
                i = end;
                if chars.get(i) == Some(&':') && chars.get(i + 1) != Some(&':') {
                    i += 1;
                    out.push(Token::Label(text));
                } else {
                    out.push(Token::Str(text));
                }
            }
            ':' if chars.get(i + 1).is_some_and(|&n| n == '"' || n == '\'') => {
                let (text, end) = string_at(&chars, i + 1);
                i = end;
                out.push(Token::Symbol(text));
            }
            ':' if chars.get(i + 1).is_some_and(|&n| word_char(n)) => {
                let start = i + 1;
                i = start;
                while i < chars.len() && word_char(chars[i]) {
                    i += 1;
                }
                out.push(Token::Symbol(chars[start..i].iter().collect()));
            }
            '%' if chars
                .get(i + 1)
                .is_some_and(|k| matches!(k, 'w' | 'i' | 'W' | 'I')) =>
            {
                let open = chars.get(i + 2).copied().unwrap_or('[');
                let close = closing(open);
                let start = i + 3;
                let mut end = start;
                while end < chars.len() && chars[end] != close {
                    end += 1;
                }
                let inner: String = chars.get(start..end).unwrap_or_default().iter().collect();
                out.push(Token::Words(
                    inner.split_whitespace().map(str::to_owned).collect(),
                ));
                i = end + 1;
            }
            c if word_char(c) => {
                let start = i;
                while i < chars.len() && (word_char(chars[i]) || chars[i] == '.') {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                if word == "do" {
                    break;
                }
                if chars.get(i) == Some(&':') && chars.get(i + 1) != Some(&':') {
                    i += 1;
                    out.push(Token::Label(word));
                } else {
                    out.push(Token::Other);
                }
            }
            _ => {
                out.push(Token::Other);
                i += 1;
            }
        }
    }
    out
}

/// The string literal starting at `chars[start]` (its quote) and the index after it; escapes
/// in a double-quoted one are read as Ruby reads the common ones.
fn string_at(chars: &[char], start: usize) -> (String, usize) {
    let quote = chars[start];
    let mut text = String::new();
    let mut i = start + 1;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\'
            && let Some(&next) = chars.get(i + 1)
        {
            text.push(match (quote, next) {
                ('"', 'n') => '\n',
                ('"', 't') => '\t',
                _ => next,
            });
            i += 2;
            continue;
        }
        if c == quote {
            return (text, i + 1);
        }
        text.push(c);
        i += 1;
    }
    (text, i)
}

/// The first string literal of `text` (a `desc "…"` argument), when it starts with one.
pub(super) fn first_string(text: &str) -> Option<String> {
    let chars: Vec<char> = text.trim_start().trim_start_matches('(').chars().collect();
    match chars.first() {
        Some('"' | '\'') => Some(string_at(&chars, 0).0),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_open_at_do_braces_and_statement_keywords() {
        assert_eq!(block_steps("task :a do |t|"), [1]);
        assert_eq!(block_steps("  sh 'x' if ok"), Vec::<i8>::new());
        assert_eq!(block_steps("if ok"), [1]);
        assert_eq!(block_steps("x = if ok"), [1]);
        assert_eq!(block_steps("end"), [-1]);
        assert_eq!(block_steps("list.each { |x| puts x }"), [1, -1]);
        assert_eq!(block_steps("def x; end"), [1, -1]);
        assert_eq!(block_steps("range.end"), Vec::<i8>::new());
        assert_eq!(
            block_steps(&code_of("puts 'do it' # and end")),
            Vec::<i8>::new()
        );
        assert_eq!(
            code_of("x.gsub(/['\"]?<<\\s*next['\"]?/i, \"y\") do"),
            format!("x.gsub(/{}/i, \" \") do", " ".repeat(19))
        );
        assert!(block_steps(&code_of("R = /(?<=# SUMMARY\\n).*/m if x")).is_empty());
        assert_eq!(code_of("a / b # c"), "a / b ");
        assert_eq!(code_of("a/b"), "a/b");
    }

    #[test]
    fn heredocs_are_named_and_shifts_are_not() {
        assert_eq!(heredocs("desc <<~DESC"), ["DESC"]);
        assert_eq!(heredocs("sh <<-'SH', x"), ["SH"]);
        assert!(heredocs("list << item").is_empty());
    }

    #[test]
    fn task_arguments_tokenize() {
        assert_eq!(
            tokens(":deploy, [:env, :tag] => [:build, \"db:seed\"] do |t, args|"),
            [
                Token::Symbol("deploy".into()),
                Token::Comma,
                Token::Open,
                Token::Symbol("env".into()),
                Token::Comma,
                Token::Symbol("tag".into()),
                Token::Close,
                Token::Arrow,
                Token::Open,
                Token::Symbol("build".into()),
                Token::Comma,
                Token::Str("db:seed".into()),
                Token::Close,
            ]
        );
        assert_eq!(
            tokens("test: %w[lint unit]"),
            [
                Token::Label("test".into()),
                Token::Words(vec!["lint".into(), "unit".into()])
            ]
        );
        assert_eq!(
            tokens("\"ci:all\": :test {"),
            [Token::Label("ci:all".into()), Token::Symbol("test".into())]
        );
        assert_eq!(
            first_string("(\"Run the tests\")").as_deref(),
            Some("Run the tests")
        );
    }
}
