//! JSON as the JavaScript tools read their configuration: comments and trailing commas
//! allowed (`turbo.json`, `turbo.jsonc`, `nx.json`, `project.json` are all read that way by
//! their tools), every value with the line it starts on, and a duplicate key's last value
//! winning, as in `JSON.parse`.
//!
//! jsonc-parser builds the syntax tree and refuses nesting deeper than 512 levels, so the
//! conversion here recurses at most that deep.

use jsonc_parser::ast::{self, ObjectPropName};
use jsonc_parser::common::Ranged;
use jsonc_parser::{CollectOptions, ParseOptions};

use crate::LineIndex;

/// One JSON value and the line it starts on (a property's value carries its key's line).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    /// The 1-based line.
    pub line: u32,
    /// The value.
    pub value: Value,
}

/// A JSON value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as written.
    Num(String),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<Node>),
    /// An object's properties in file order, duplicates included.
    Obj(Vec<Entry>),
}

/// One property of an object.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    /// The key.
    pub key: String,
    /// The value; its line is the key's.
    pub node: Node,
}

/// Why a file could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParseError {
    /// What is wrong, without a position.
    pub message: String,
    /// The 1-based line, where known.
    pub line: Option<u32>,
}

/// Parses JSON with comments. Empty text (nothing but whitespace and comments) is an error:
/// none of the tools accept an empty configuration file.
pub(crate) fn parse(text: &str) -> Result<Node, ParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // Comments and trailing commas, as the tools allow; none of JSON5's other freedoms.
    let options = ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    let parsed =
        jsonc_parser::parse_to_ast(text, &CollectOptions::default(), &options).map_err(|err| {
            ParseError {
                message: format!("invalid JSON: {}", err.kind()),
                line: u32::try_from(err.line_display()).ok().filter(|&l| l > 0),
            }
        })?;
    let Some(value) = parsed.value else {
        return Err(ParseError {
            message: "the file is empty".to_owned(),
            line: Some(1),
        });
    };
    let index = LineIndex::new(text);
    Ok(node(&value, &index, None))
}

fn node(value: &ast::Value<'_>, index: &LineIndex, key_start: Option<usize>) -> Node {
    let line = index.line(key_start.unwrap_or_else(|| value.start()));
    let value = match value {
        ast::Value::NullKeyword(_) => Value::Null,
        ast::Value::BooleanLit(b) => Value::Bool(b.value),
        ast::Value::NumberLit(n) => Value::Num(n.value.to_owned()),
        ast::Value::StringLit(s) => Value::Str(s.value.clone().into_owned()),
        ast::Value::Array(items) => Value::Arr(
            items
                .elements
                .iter()
                .map(|item| node(item, index, None))
                .collect(),
        ),
        ast::Value::Object(object) => Value::Obj(
            object
                .properties
                .iter()
                .map(|prop| Entry {
                    key: match &prop.name {
                        ObjectPropName::String(s) => s.value.clone().into_owned(),
                        ObjectPropName::Word(w) => w.value.to_owned(),
                    },
                    node: node(&prop.value, index, Some(prop.name.start())),
                })
                .collect(),
        ),
    };
    Node { line, value }
}

impl Node {
    /// The value of property `key` (its last occurrence), when this is an object.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Obj(entries) => entries.iter().rev().find(|e| e.key == key).map(|e| &e.node),
            _ => None,
        }
    }

    /// The value at a path of keys.
    pub fn path(&self, keys: &[&str]) -> Option<&Node> {
        keys.iter().try_fold(self, |node, key| node.get(key))
    }

    /// The properties as `JSON.parse` keeps them: each key once, in the order it first
    /// appears, with its last value. Linear in the number of properties.
    pub fn entries(&self) -> Option<Vec<&Entry>> {
        let Value::Obj(entries) = &self.value else {
            return None;
        };
        let mut at: std::collections::HashMap<&str, usize> =
            std::collections::HashMap::with_capacity(entries.len());
        let mut out: Vec<&Entry> = Vec::with_capacity(entries.len());
        for entry in entries {
            if let Some(&i) = at.get(entry.key.as_str()) {
                out[i] = entry;
            } else {
                at.insert(&entry.key, out.len());
                out.push(entry);
            }
        }
        Some(out)
    }

    /// The string, when this is one.
    pub fn str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
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

    /// Whether this is an object.
    pub fn is_object(&self) -> bool {
        matches!(self.value, Value::Obj(_))
    }

    /// Whether this is `true`.
    pub fn is_true(&self) -> bool {
        matches!(self.value, Value::Bool(true))
    }

    /// A short name of the value's kind, for diagnostics.
    pub fn kind(&self) -> &'static str {
        match self.value {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Num(_) => "a number",
            Value::Str(_) => "a string",
            Value::Arr(_) => "an array",
            Value::Obj(_) => "an object",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_trailing_commas_and_lines() {
        let root = parse("\u{feff}{\n  // the tasks\n  \"tasks\": {\n    \"a\": 1, /* x */\n    \"b\": [true,],\n  },\n}\n")
            .expect("valid");
        assert_eq!(root.path(&["tasks", "b"]).map(|n| n.line), Some(5));
        assert_eq!(root.get("tasks").map(|n| n.line), Some(3));
        let b = root
            .path(&["tasks", "b"])
            .and_then(Node::items)
            .expect("array");
        assert!(b[0].is_true());
    }

    #[test]
    fn duplicate_keys_keep_first_place_and_last_value() {
        let root = parse(r#"{"a": 1, "b": 2, "a": "x"}"#).expect("valid");
        let entries = root.entries().expect("object");
        let keys: Vec<&str> = entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["a", "b"]);
        assert_eq!(entries[0].node.str(), Some("x"));
        assert_eq!(root.get("a").and_then(Node::str), Some("x"));
    }

    #[test]
    fn errors_carry_their_line_and_deep_nesting_is_refused() {
        let err = parse("{\n  \"a\": [1,\n  \"b\" }\n").expect_err("invalid");
        assert_eq!(err.line, Some(3));
        assert!(err.message.starts_with("invalid JSON: "), "{}", err.message);
        assert_eq!(
            parse("  // nothing\n").expect_err("empty").message,
            "the file is empty"
        );
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(parse(&deep).is_err());
        for json5 in [
            "{a: 1}",
            "{\"a\": 1 \"b\": 2}",
            "['x']",
            "[0x1]",
            "[+1]",
            "[.5]",
            "[NaN]",
        ] {
            assert!(parse(json5).is_err(), "{json5}");
        }
    }
}
