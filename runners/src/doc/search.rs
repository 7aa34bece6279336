//! A `serde_json` value into the document tree, each key's line found by searching the text:
//! `serde_json` and the loose YAML reading keep no positions.

use super::{Entry, MAX_DEPTH, Node, Value};
use crate::text::LineIndex;

/// Where the search for the next key starts. Once a key is not found as written (an escaped
/// key, a quoted YAML key), later keys keep the line of the last one found: searching the rest
/// of the text for every key would make a file of many such keys quadratic.
#[derive(Default)]
struct Cursor {
    at: usize,
    lost: bool,
}

/// Where `needle` next occurs in `rest` as a key: followed by a `:` (JSON's `"name"` also
/// occurs as a value, as in a list of dependencies naming a later task).
fn find_key(rest: &str, needle: &str) -> Option<usize> {
    let mut from = 0;
    loop {
        let at = from + rest.get(from..)?.find(needle)?;
        let after = rest.get(at + needle.len()..).unwrap_or_default();
        if needle.ends_with(':') || after.trim_start().starts_with(':') {
            return Some(at);
        }
        from = at + needle.len();
    }
}

/// The tree of `value`, read from `text`; `needle` writes a key as it stands in the text.
/// `null` is [`Value::Other`] and nesting beyond [`MAX_DEPTH`] is cut
/// ([`super::Dialect::Loose`]).
pub(super) fn from_serde(
    value: &serde_json::Value,
    text: &str,
    needle: impl Fn(&str) -> String,
) -> Node {
    let index = LineIndex::new(text);
    let mut cursor = Cursor::default();
    Node::new(1, serde_value(value, text, &index, &needle, &mut cursor, 0))
}

fn serde_value(
    value: &serde_json::Value,
    text: &str,
    index: &LineIndex,
    needle: &dyn Fn(&str) -> String,
    cursor: &mut Cursor,
    depth: usize,
) -> Value {
    use serde_json::Value as J;
    if depth > MAX_DEPTH {
        return Value::Other;
    }
    match value {
        J::String(s) => Value::Str(s.clone()),
        J::Bool(b) => Value::Bool(*b),
        J::Number(n) => Value::Num(n.to_string()),
        J::Null => Value::Other,
        J::Array(items) => Value::Arr(
            items
                .iter()
                .map(|item| Node {
                    line: index.line(cursor.at),
                    value: serde_value(item, text, index, needle, cursor, depth + 1),
                })
                .collect(),
        ),
        J::Object(map) => Value::Table(
            map.iter()
                .map(|(key, v)| {
                    let mut line = index.line(cursor.at);
                    if !cursor.lost {
                        let needle = needle(key);
                        match text
                            .get(cursor.at..)
                            .and_then(|rest| find_key(rest, &needle))
                        {
                            Some(at) => {
                                line = index.line(cursor.at + at);
                                // Past the key, so that the same key in the next object is
                                // not found here again.
                                cursor.at += at + needle.len();
                            }
                            None => cursor.lost = true,
                        }
                    }
                    Entry {
                        span: None,
                        key: key.clone(),
                        node: Node {
                            line,
                            value: serde_value(v, text, index, needle, cursor, depth + 1),
                        },
                    }
                })
                .collect(),
        ),
    }
}
