//! TOML into the document tree, through toml's spanned `DeTable`: every key keeps its line and
//! tables keep file order.

use std::borrow::Cow;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::{Entry, MAX_DEPTH, Node, ParseError, Value};
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_keys_keep_lines_and_file_order() {
        let root = read_toml("[a]\nz = 1\nb = \"x\"\n\n[a.c]\nd = [true]\n").expect("valid");
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
}
