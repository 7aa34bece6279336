//! One loose tree for TOML, JSON and YAML configuration, keeping the line of every key.
//!
//! Poe reads its tasks from `pyproject.toml`, `poe_tasks.toml`, `.yaml` or `.json`, and the
//! other Python runners from TOML; deno reads JSON with comments and Composer JSON through it
//! too. Each adapter interprets this tree by hand, so a badly typed entry costs one
//! diagnostic and never the rest of the file.

use std::borrow::Cow;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::LineIndex;

/// Nesting deeper than this is cut off (read as [`Value::Other`]): no configuration comes
/// near it, and it keeps the conversion's recursion bounded whatever the parser allows.
const MAX_DEPTH: usize = 48;

/// One value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    /// A string.
    Str(String),
    /// A boolean.
    Bool(bool),
    /// A number, as text.
    Num(String),
    /// An array.
    Arr(Vec<Node>),
    /// A table, entries in file order.
    Table(Vec<Entry>),
    /// Anything else (dates, nulls, nesting beyond the cap).
    Other,
}

/// A value and the line it starts on.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    /// The 1-based line (of the key, for a table entry's value).
    pub line: u32,
    /// The value.
    pub value: Value,
}

/// One table entry.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    /// The key.
    pub key: String,
    /// The value; its line is the key's.
    pub node: Node,
}

/// Why a file could not be read: a message and the line it points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParseError {
    pub message: String,
    pub line: Option<u32>,
}

impl Node {
    /// The value of the entry named `key`, when this is a table.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Table(entries) => entries.iter().find(|e| e.key == key).map(|e| &e.node),
            _ => None,
        }
    }

    /// The value at a dotted path of keys.
    pub fn path(&self, keys: &[&str]) -> Option<&Node> {
        keys.iter().try_fold(self, |node, key| node.get(key))
    }

    /// The string, when this is one.
    pub fn str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A scalar as text (`true`, `3`, `x`).
    pub fn scalar(&self) -> Option<Cow<'_, str>> {
        match &self.value {
            Value::Str(s) | Value::Num(s) => Some(Cow::Borrowed(s)),
            Value::Bool(b) => Some(Cow::Owned(b.to_string())),
            _ => None,
        }
    }

    /// The entries, when this is a table.
    pub fn entries(&self) -> Option<&[Entry]> {
        match &self.value {
            Value::Table(entries) => Some(entries),
            _ => None,
        }
    }

    /// The items, when this is an array.
    pub fn items(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Arr(items) => Some(items),
            _ => None,
        }
    }

    /// Whether this is `true`.
    pub fn is_true(&self) -> bool {
        matches!(self.value, Value::Bool(true))
    }

    /// A short name for the value's kind, for diagnostics.
    pub fn kind(&self) -> &'static str {
        match self.value {
            Value::Str(_) => "a string",
            Value::Bool(_) => "a boolean",
            Value::Num(_) => "a number",
            Value::Arr(_) => "an array",
            Value::Table(_) => "a table",
            Value::Other => "another kind of value",
        }
    }
}

/// Reads TOML, keeping each key's line.
pub(crate) fn from_toml(text: &str) -> Result<Node, ParseError> {
    let index = LineIndex::new(text);
    match DeTable::parse(text) {
        Ok(root) => Ok(Node {
            line: 1,
            value: toml_table(root.get_ref(), &index, 0),
        }),
        Err(error) => Err(ParseError {
            message: format!("invalid TOML: {}", error.message().trim()),
            line: error.span().map(|span| index.line(span.start)),
        }),
    }
}

fn toml_table(table: &DeTable<'_>, index: &LineIndex, depth: usize) -> Value {
    let mut entries: Vec<(&Spanned<Cow<'_, str>>, &Spanned<DeValue<'_>>)> = table.iter().collect();
    // The map is sorted by key; keep file order instead.
    entries.sort_by_key(|(key, _)| key.span().start);
    Value::Table(
        entries
            .into_iter()
            .map(|(key, value)| Entry {
                key: key.get_ref().to_string(),
                node: Node {
                    line: index.line(key.span().start),
                    value: toml_value(value.get_ref(), index, depth + 1),
                },
            })
            .collect(),
    )
}

fn toml_value(value: &DeValue<'_>, index: &LineIndex, depth: usize) -> Value {
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
                .map(|item| Node {
                    line: index.line(item.span().start),
                    value: toml_value(item.get_ref(), index, depth + 1),
                })
                .collect(),
        ),
        DeValue::Table(table) => toml_table(table, index, depth),
        DeValue::Datetime(_) => Value::Other,
    }
}

/// Reads JSON. `serde_json` keeps no positions, so a key's line is where `"key"` next occurs
/// in the text after its parent's.
pub(crate) fn from_json(text: &str) -> Result<Node, ParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(value) => Ok(from_serde(&value, text, json_key)),
        Err(err) => {
            let message = err.to_string();
            let message = message
                .find(" at line ")
                .map_or(&*message, |i| &message[..i]);
            Err(ParseError {
                message: format!("invalid JSON: {message}"),
                line: u32::try_from(err.line()).ok().filter(|&l| l > 0),
            })
        }
    }
}

/// A key as JSON writes it, quotes and escapes included (`"Acme\\Shop\\"` for the key
/// `Acme\Shop\`), to find it in the text.
fn json_key(key: &str) -> String {
    serde_json::to_string(key).unwrap_or_else(|_| format!("\"{key}\""))
}

/// Reads JSON with comments and trailing commas (`deno.json`, `deno.jsonc`, `tasks.json`,
/// CMake presets) through jsonc-parser's syntax tree, which refuses nesting deeper than 512
/// levels and knows where every value starts: a key's line is exact, whatever comments or
/// repeated keys come before it. A repeated key keeps its last value, as `JSON.parse` does.
pub(crate) fn from_jsonc(text: &str) -> Result<Node, ParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let parsed = jsonc_parser::parse_to_ast(
        text,
        &jsonc_parser::CollectOptions::default(),
        &jsonc_parser::ParseOptions::default(),
    )
    .map_err(|err| ParseError {
        message: format!("invalid JSON: {}", err.kind()),
        line: u32::try_from(err.line_display()).ok().filter(|&l| l > 0),
    })?;
    let index = LineIndex::new(text);
    Ok(Node {
        line: 1,
        value: parsed
            .value
            .as_ref()
            .map_or(Value::Other, |v| ast_value(v, &index, 0)),
    })
}

fn ast_value(value: &jsonc_parser::ast::Value<'_>, index: &LineIndex, depth: usize) -> Value {
    use jsonc_parser::ast::Value as J;
    use jsonc_parser::common::Ranged as _;
    if depth > MAX_DEPTH {
        return Value::Other;
    }
    match value {
        J::StringLit(s) => Value::Str(s.value.clone().into_owned()),
        J::NumberLit(n) => Value::Num(n.value.to_owned()),
        J::BooleanLit(b) => Value::Bool(b.value),
        J::NullKeyword(_) => Value::Other,
        J::Array(array) => Value::Arr(
            array
                .elements
                .iter()
                .map(|item| Node {
                    line: index.line(item.range().start),
                    value: ast_value(item, index, depth + 1),
                })
                .collect(),
        ),
        J::Object(object) => {
            let mut entries: Vec<Entry> = Vec::with_capacity(object.properties.len());
            let mut seen = std::collections::HashMap::new();
            for prop in &object.properties {
                let entry = Entry {
                    key: prop.name.as_str().to_owned(),
                    node: Node {
                        line: index.line(prop.range.start),
                        value: ast_value(&prop.value, index, depth + 1),
                    },
                };
                match seen.entry(prop.name.as_str()) {
                    std::collections::hash_map::Entry::Occupied(at) => entries[*at.get()] = entry,
                    std::collections::hash_map::Entry::Vacant(slot) => {
                        slot.insert(entries.len());
                        entries.push(entry);
                    }
                }
            }
            Value::Table(entries)
        }
    }
}

/// Reads YAML (one document), with serde-saphyr's default budgets against alias bombs and
/// deep nesting. A key's line is found the way [`from_json`] does it.
pub(crate) fn from_yaml(text: &str) -> Result<Node, ParseError> {
    let options = serde_saphyr::options! {
        budget: Some(serde_saphyr::Budget::default()),
        alias_limits: serde_saphyr::alias_limits! {
            max_total_replayed_events: 100_000,
        },
        with_snippet: false,
    };
    match serde_saphyr::from_str_with_options::<Option<serde_json::Value>>(text, options) {
        Ok(value) => Ok(from_serde(
            &value.unwrap_or(serde_json::Value::Null),
            text,
            |key| format!("{key}:"),
        )),
        Err(err) => {
            let (first, line) = crate::text::yaml_problem(&err);
            Err(ParseError {
                message: format!("invalid YAML: {first}"),
                line,
            })
        }
    }
}

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

fn from_serde(value: &serde_json::Value, text: &str, needle: impl Fn(&str) -> String) -> Node {
    let index = LineIndex::new(text);
    let mut cursor = Cursor::default();
    Node {
        line: 1,
        value: serde_value(value, text, &index, &needle, &mut cursor, 0),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonc_takes_comments_and_trailing_commas_and_refuses_deep_nesting() {
        let root =
            from_jsonc("{\n  // a comment\n  \"tasks\": { \"a\": \"x\", }, /* b */\n}\n").unwrap();
        assert_eq!(root.path(&["tasks", "a"]).and_then(Node::str), Some("x"));
        assert_eq!(from_jsonc("  \n").unwrap().value, Value::Other);
        let err = from_jsonc("{\n  \"a\": [1,\n  \"b\" }\n").unwrap_err();
        assert!(!err.message.contains("line"), "{}", err.message);
        assert_eq!(err.line, Some(3));
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(from_jsonc(&deep).is_err());
    }

    #[test]
    fn jsonc_lines_are_where_values_start_whatever_comes_before() {
        let text = r#"{ "tasks": [
  // { "label": "old", "command": "x" },
  { "label": "a", "label": "b" },
  {
    "type": "npm"
  }
] }"#;
        let root = from_jsonc(text).unwrap();
        let items = root.get("tasks").and_then(Node::items).unwrap();
        assert_eq!(items[0].line, 3);
        // A repeated key keeps its last value.
        assert_eq!(items[0].get("label").and_then(Node::str), Some("b"));
        assert_eq!(items[0].entries().map(<[Entry]>::len), Some(1));
        assert_eq!(items[1].line, 4);
        assert_eq!(items[1].get("type").map(|n| n.line), Some(5));
    }

    #[test]
    fn toml_keys_keep_lines_and_file_order() {
        let root = from_toml("[a]\nz = 1\nb = \"x\"\n\n[a.c]\nd = [true]\n").expect("valid");
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
        let err = from_toml("[a]\nb = \n").expect_err("invalid");
        assert_eq!(err.line, Some(2));
    }

    #[test]
    fn the_same_key_in_consecutive_objects_gets_each_its_own_line() {
        let root =
            from_json("[\n  {\"name\": \"a\"},\n  {\"name\": \"a\"},\n  {\"name\": \"b\"}\n]")
                .expect("valid");
        let lines: Vec<u32> = root
            .items()
            .expect("array")
            .iter()
            .filter_map(|item| item.get("name").map(|n| n.line))
            .collect();
        assert_eq!(lines, [2, 3, 4]);
    }

    #[test]
    fn json_and_yaml_keys_get_their_lines() {
        let root =
            from_json("{\n \"tasks\": {\n  \"a\": \"x\",\n  \"b\": \"y\"\n }\n}").expect("ok");
        assert_eq!(root.path(&["tasks", "b"]).map(|n| n.line), Some(4));
        let root = from_json("{\"a\": [\"b\"],\n\"b\": 1}").expect("ok");
        assert_eq!(root.get("b").map(|n| n.line), Some(2));
        let root = from_json("{\"Acme\\\\\": 1,\n\"b\": 1}").expect("ok");
        assert_eq!(root.get("b").map(|n| n.line), Some(2));
        let root = from_yaml("tasks:\n  a: x\n  b:\n    cmd: y\n").expect("ok");
        assert_eq!(root.path(&["tasks", "b"]).map(|n| n.line), Some(3));
        assert_eq!(from_yaml("a: [").expect_err("bad").line, Some(1));
        assert!(from_json("{").is_err());
    }
}
