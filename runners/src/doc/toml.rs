//! TOML into the document tree, through toml's spanned `DeTable`: every key keeps its line and
//! its [`Span`], tables keep file order, and [`Comments`] reads the comment that describes an
//! entry.

use std::borrow::Cow;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::{Entry, MAX_DEPTH, Node, ParseError, Span, Value};
use crate::text::LineIndex;

/// Reads TOML (always [`super::Dialect::Loose`]: dates are [`Value::Other`]).
pub(crate) fn read_toml(text: &str) -> Result<Node, ParseError> {
    let index = LineIndex::new(text);
    match DeTable::parse(text) {
        Ok(root) => Ok(Node::new(1, table(root.get_ref(), &index, 0))),
        Err(error) => Err(ParseError {
            message: format!("invalid TOML: {}", error.message().trim()),
            line: error.span().map(|span| index.line(span.start)),
        }),
    }
}

fn table(table: &DeTable<'_>, index: &LineIndex, depth: usize) -> Value {
    let mut entries: Vec<(&Spanned<Cow<'_, str>>, &Spanned<DeValue<'_>>)> = table.iter().collect();
    // The map is sorted by key; keep file order instead.
    entries.sort_by_key(|(key, _)| key.span().start);
    Value::Table(
        entries
            .into_iter()
            .map(|(key, value)| Entry {
                span: Some(Span {
                    key: key.span().start,
                    value_end: value.span().end,
                }),
                key: key.get_ref().to_string(),
                node: Node::new(
                    index.line(key.span().start),
                    self::value(value.get_ref(), index, depth + 1),
                ),
            })
            .collect(),
    )
}

fn value(value: &DeValue<'_>, index: &LineIndex, depth: usize) -> Value {
    if depth > MAX_DEPTH {
        return Value::Other;
    }
    match value {
        DeValue::String(s) => Value::Str(s.to_string()),
        DeValue::Boolean(b) => Value::Bool(*b),
        DeValue::Integer(i) => Value::Num(i.to_string()),
        DeValue::Float(f) => Value::Num(f.to_string()),
        DeValue::Array(items) => Value::Arr(
            items
                .iter()
                .map(|item| {
                    Node::new(
                        index.line(item.span().start),
                        self::value(item.get_ref(), index, depth + 1),
                    )
                })
                .collect(),
        ),
        DeValue::Table(t) => table(t, index, depth),
        DeValue::Datetime(_) => Value::Other,
    }
}

/// The `#` comments of a TOML text, read to describe its entries.
pub(crate) struct Comments<'t> {
    text: &'t str,
    lines: Vec<&'t str>,
}

impl<'t> Comments<'t> {
    /// Splits `text` into lines once, for any number of entries.
    pub fn new(text: &'t str) -> Comments<'t> {
        let lines = text
            .split('\n')
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .collect();
        Comments { text, lines }
    }

    /// The comment that describes `entry`, an entry of the top-level table `parent` read from
    /// this text: the block of `#` lines right above it, joined with spaces, when its key
    /// starts its line (only indentation, or `parent.` for a dotted key, comes before it);
    /// else a `# comment` after its value, on the line where the value ends. Empty comment
    /// lines and rulers such as `# -----` are left out. `None` for an entry without a span.
    pub fn of(&self, entry: &Entry, parent: &str) -> Option<String> {
        let span = entry.span?;
        // Only a key that starts its line can have the comment block above it; this also
        // keeps a one-line inline table of many entries from rescanning that block.
        starts_its_line(self.text, span.key, parent)
            .then(|| doc_above(&self.lines, entry.node.line))
            .flatten()
            .or_else(|| trailing_comment(self.text, span.value_end))
    }
}

/// The `#` comment lines directly above 1-based line `line`, joined with spaces.
fn doc_above(lines: &[&str], line: u32) -> Option<String> {
    let mut i = usize::try_from(line).ok()?.checked_sub(1)?;
    let mut block = Vec::new();
    while let Some(prev) = i.checked_sub(1) {
        i = prev;
        match lines.get(i).map(|l| l.trim_start()) {
            Some(text) if text.starts_with('#') => block.push(text),
            _ => break,
        }
    }
    let words: Vec<&str> = block.iter().rev().filter_map(|l| comment_text(l)).collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// Whether the key at `pos` starts its line: only indentation comes before it, or the
/// `parent.` of a dotted key (`alias.`, `"alias".`, `'alias'.`). The look-back is short, so
/// many keys on one line stay cheap.
fn starts_its_line(text: &str, pos: usize, parent: &str) -> bool {
    let mut from = pos.saturating_sub(64);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    let Some(window) = text.get(from..pos) else {
        return false;
    };
    let before = match window.rfind('\n') {
        Some(i) => window.get(i + 1..).unwrap_or_default(),
        None if from == 0 => window,
        None => return false,
    };
    let before: String = before.chars().filter(|c| !c.is_whitespace()).collect();
    let quoted = |q: char| {
        before
            .strip_prefix(q)
            .and_then(|b| b.strip_suffix('.'))
            .and_then(|b| b.strip_suffix(q))
            == Some(parent)
    };
    before.is_empty() || before.strip_suffix('.') == Some(parent) || quoted('"') || quoted('\'')
}

/// A `# comment` after the value, on the line where the value ends.
fn trailing_comment(text: &str, value_end: usize) -> Option<String> {
    // Look a short way only: a comment sits right after the value (and a `,` or `}`).
    let mut end = (value_end + 256).min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let rest = text.get(value_end..end)?;
    let rest = rest.split('\n').next().unwrap_or(rest).trim();
    let rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
    rest.strip_prefix('#')
        .and_then(|_| comment_text(rest))
        .map(str::to_owned)
}

/// One comment line without its `#`s and the space after them; `None` for empty lines,
/// rulers such as `# -----` and banners such as `# === Tasks ===`.
fn comment_text(line: &str) -> Option<&str> {
    let text = line.trim_start_matches('#');
    let text = text.strip_prefix(' ').unwrap_or(text).trim_end();
    (!crate::text::is_divider(text)).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use indoc::indoc;

    #[test]
    fn toml_keys_keep_lines_and_file_order() {
        let root = read_toml(indoc! {"
            [a]
            z = 1
            b = \"x\"

            [a.c]
            d = [true]
        "})
        .expect("valid");
        let a = root.get("a").expect("a");
        let keys: Vec<&str> = a
            .entries()
            .expect("table")
            .iter()
            .map(|e| e.key.as_str())
            .collect();
        assert_eq!(keys, ["z", "b", "c"]);
        assert_eq!(a.get("b").map(|n| n.line), Some(3));
        assert_eq!(root.path(&["a", "c", "d"]).map(|n| n.line), Some(6));
        let err = read_toml("[a]\nb = \n").expect_err("invalid");
        assert_eq!(err.line, Some(2));
    }

    #[test]
    fn entries_keep_their_span_and_comments_describe_them() {
        let text = indoc! {"
            # -----
            # About a
            #
            # and more
            a = 1
            # Above b
            t.b = [
              2,
            ] # About b
            # Above c
            't' . c = 3
            e = { f = 5 } # About e
            g = \"h\""};
        let root = read_toml(text).expect("valid");
        let comments = Comments::new(text);
        let of = |path: &[&str], parent: &str| {
            let (last, parents) = path.split_last().expect("a path");
            let table = root.path(parents).expect("table");
            comments.of(table.entry(last).expect("entry"), parent)
        };
        let a = root.entry("a").and_then(|e| e.span).expect("span");
        assert_eq!(&text[a.key..a.value_end], "a = 1");
        assert_eq!(of(&["a"], "").as_deref(), Some("About a and more"));
        // A dotted key of its parent starts its line; of another table, it does not, and
        // only a comment after its value describes it.
        assert_eq!(of(&["t", "b"], "t").as_deref(), Some("Above b"));
        assert_eq!(of(&["t", "b"], "x").as_deref(), Some("About b"));
        assert_eq!(of(&["t", "c"], "t").as_deref(), Some("Above c"));
        assert_eq!(of(&["e"], "").as_deref(), Some("About e"));
        assert_eq!(of(&["e", "f"], ""), None);
        assert_eq!(of(&["g"], ""), None);
        let json = super::super::read_json("{\"a\": 1}", super::super::Dialect::Loose);
        assert_eq!(json.expect("valid").entry("a").and_then(|e| e.span), None);
    }
}
