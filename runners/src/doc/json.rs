//! JSON into the document tree: strict JSON through `serde_json` (`composer.json`,
//! `poe_tasks.json`), and JSON with comments and trailing commas through jsonc-parser's syntax
//! tree, which knows where every value starts and refuses nesting deeper than 512 levels.

use std::collections::HashMap;
use std::collections::hash_map;

use jsonc_parser::ast;
use jsonc_parser::common::Ranged as _;
use jsonc_parser::{CollectOptions, ParseOptions};

use super::search::from_serde;
use super::strict_json::{Rest, json_error};
use super::{Dialect, Entry, MAX_DEPTH, Node, ParseError, Value};
use crate::text::LineIndex;

/// Reads strict JSON. [`Dialect::Loose`] (`composer.json`, `poe_tasks.json`): `serde_json`
/// keeps no positions, so a key's line is where `"key"` next occurs in the text after its
/// parent's. [`Dialect::Strict`] (`package.json`): see [`super::strict_json`], exact lines.
pub(crate) fn read_json(text: &str, dialect: Dialect) -> Result<Node, ParseError> {
    if dialect == Dialect::Strict {
        return super::strict_json::read(text, None, Rest::Checked);
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(value) => Ok(from_serde(&value, text, json_key)),
        Err(err) => Err(json_error(&err)),
    }
}

/// Reads strict JSON in the [`Dialect::Strict`] way, building only the root object's entries
/// named in `keys`: the rest of the file is checked as `rest` says, and skipped. A root that
/// is not an object is built whole.
pub(crate) fn read_json_keys(text: &str, keys: &[&str], rest: Rest) -> Result<Node, ParseError> {
    super::strict_json::read(text, Some(keys), rest)
}

/// A key as JSON writes it, quotes and escapes included (`"Acme\\Shop\\"` for the key
/// `Acme\Shop\`), to find it in the text.
fn json_key(key: &str) -> String {
    serde_json::to_string(key).unwrap_or_else(|_| format!("\"{key}\""))
}

/// Reads JSON with comments and trailing commas (`deno.json`, `tasks.json`, CMake presets in
/// the [`Dialect::Loose`] reading; `turbo.json`, `nx.json`, `project.json` in the
/// [`Dialect::Strict`] one). A key's line is exact, whatever comments or repeated keys come
/// before it; a repeated key keeps its first place and its last value, as `JSON.parse` does.
/// The root's line is 1 in the loose reading, where its value starts in the strict one.
pub(crate) fn read_jsonc(text: &str, dialect: Dialect) -> Result<Node, ParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let options = match dialect {
        Dialect::Loose => ParseOptions::default(),
        // Comments and trailing commas, as the JavaScript tools allow; none of JSON5's other
        // freedoms.
        Dialect::Strict => ParseOptions {
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
        },
    };
    let parsed =
        jsonc_parser::parse_to_ast(text, &CollectOptions::default(), &options).map_err(|err| {
            ParseError {
                message: format!("invalid JSON: {}", err.kind()),
                line: u32::try_from(err.line_display()).ok().filter(|&l| l > 0),
            }
        })?;
    let index = LineIndex::new(text);
    let reader = Reader {
        index: &index,
        dialect,
    };
    match (parsed.value, dialect) {
        (Some(value), Dialect::Loose) => Ok(Node::new(1, reader.value(&value, 0))),
        (Some(value), Dialect::Strict) => Ok(Node::new(
            index.line(value.start()),
            reader.value(&value, 0),
        )),
        (None, Dialect::Loose) => Ok(Node::new(1, Value::Other)),
        // None of the tools accept an empty configuration file.
        (None, Dialect::Strict) => Err(ParseError {
            message: "the file is empty".to_owned(),
            line: Some(1),
        }),
    }
}

struct Reader<'a> {
    index: &'a LineIndex,
    dialect: Dialect,
}

impl Reader<'_> {
    fn value(&self, value: &ast::Value<'_>, depth: usize) -> Value {
        use jsonc_parser::ast::Value as J;
        if self.dialect == Dialect::Loose && depth > MAX_DEPTH {
            return Value::Other;
        }
        match value {
            J::StringLit(s) => Value::Str(s.value.clone().into_owned()),
            J::NumberLit(n) => Value::Num(n.value.to_owned()),
            J::BooleanLit(b) => Value::Bool(b.value),
            J::NullKeyword(_) => match self.dialect {
                Dialect::Loose => Value::Other,
                Dialect::Strict => Value::Null,
            },
            J::Array(array) => Value::Arr(
                array
                    .elements
                    .iter()
                    .map(|item| {
                        Node::new(
                            self.index.line(item.range().start),
                            self.value(item, depth + 1),
                        )
                    })
                    .collect(),
            ),
            J::Object(object) => {
                let mut entries: Vec<Entry> = Vec::with_capacity(object.properties.len());
                let mut seen = HashMap::new();
                for prop in &object.properties {
                    let entry = Entry {
                        span: None,
                        key: prop.name.as_str().to_owned(),
                        node: Node::new(
                            self.index.line(prop.range.start),
                            self.value(&prop.value, depth + 1),
                        ),
                    };
                    match seen.entry(prop.name.as_str()) {
                        hash_map::Entry::Occupied(at) => entries[*at.get()] = entry,
                        hash_map::Entry::Vacant(slot) => {
                            slot.insert(entries.len());
                            entries.push(entry);
                        }
                    }
                }
                Value::Table(entries)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use indoc::indoc;

    fn loose(text: &str) -> Result<Node, ParseError> {
        read_jsonc(text, Dialect::Loose)
    }

    fn strict(text: &str) -> Result<Node, ParseError> {
        read_jsonc(text, Dialect::Strict)
    }

    #[test]
    fn jsonc_takes_comments_and_trailing_commas_and_refuses_deep_nesting() {
        let root = loose(indoc! {"
            {
              // a comment
              \"tasks\": { \"a\": \"x\", }, /* b */
            }
        "})
        .unwrap();
        assert_eq!(root.path(&["tasks", "a"]).and_then(Node::str), Some("x"));
        assert_eq!(loose("  \n").unwrap().value, Value::Other);
        // The loose root is on line 1 wherever its value starts; the strict one where it starts.
        assert_eq!(loose("// c\n{}").unwrap().line, 1);
        assert_eq!(strict("// c\n{}").unwrap().line, 2);
        let err = loose(indoc! {"
            {
              \"a\": [1,
              \"b\" }
        "})
        .unwrap_err();
        assert!(!err.message.contains("line"), "{}", err.message);
        assert_eq!(err.line, Some(3));
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(loose(&deep).is_err());
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
        let root = loose(text).unwrap();
        let items = root.get("tasks").and_then(Node::items).unwrap();
        assert_eq!(items[0].line, 3);
        // A repeated key keeps its last value.
        assert_eq!(items[0].get("label").and_then(Node::str), Some("b"));
        assert_eq!(items[0].entries().map(<[Entry]>::len), Some(1));
        assert_eq!(items[1].line, 4);
        assert_eq!(items[1].get("type").map(|n| n.line), Some(5));
    }

    #[test]
    fn loose_nesting_beyond_the_cap_reads_as_other() {
        let deep = format!("{}1{}", "[".repeat(60), "]".repeat(60));
        let mut node = &loose(&deep).expect("valid");
        let mut depth = 0;
        while let Some(items) = node.items() {
            node = &items[0];
            depth += 1;
        }
        assert_eq!(depth, MAX_DEPTH + 1);
        assert_eq!(node.value, Value::Other);
        assert_eq!(
            loose("{\"a\": null}").unwrap().get("a").map(Node::kind),
            Some("another kind of value")
        );
    }

    #[test]
    fn the_same_key_in_consecutive_objects_gets_each_its_own_line() {
        let root = read_json(
            indoc! {"
                [
                  {\"name\": \"a\"},
                  {\"name\": \"a\"},
                  {\"name\": \"b\"}
                ]"},
            Dialect::Loose,
        )
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
    fn json_keys_get_their_lines() {
        let root = read_json(
            indoc! {"
                {
                 \"tasks\": {
                  \"a\": \"x\",
                  \"b\": \"y\"
                 }
                }"},
            Dialect::Loose,
        )
        .expect("ok");
        assert_eq!(root.path(&["tasks", "b"]).map(|n| n.line), Some(4));
        let root = read_json("{\"a\": [\"b\"],\n\"b\": 1}", Dialect::Loose).expect("ok");
        assert_eq!(root.get("b").map(|n| n.line), Some(2));
        let root = read_json("{\"Acme\\\\\": 1,\n\"b\": 1}", Dialect::Loose).expect("ok");
        assert_eq!(root.get("b").map(|n| n.line), Some(2));
        assert!(read_json("{", Dialect::Loose).is_err());
    }

    #[test]
    fn strict_comments_trailing_commas_and_lines() {
        let root = strict(indoc! {"
            \u{feff}{
              // the tasks
              \"tasks\": {
                \"a\": 1, /* x */
                \"b\": [true,],
              },
            }
        "})
        .expect("valid");
        assert_eq!(root.path(&["tasks", "b"]).map(|n| n.line), Some(5));
        assert_eq!(root.get("tasks").map(|n| n.line), Some(3));
        let b = root
            .path(&["tasks", "b"])
            .and_then(Node::items)
            .expect("array");
        assert!(b[0].is_true());
        let root = strict(indoc! {"
            // a comment

            null
        "})
        .expect("valid");
        assert_eq!(
            (root.line, root.kind_in(super::super::Terms::Json)),
            (3, "null")
        );
    }

    #[test]
    fn strict_duplicate_keys_keep_first_place_and_last_value() {
        let root = strict(r#"{"a": 1, "b": 2, "a": "x"}"#).expect("valid");
        let entries = root.entries().expect("object");
        let keys: Vec<&str> = entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["a", "b"]);
        assert_eq!(entries[0].node.str(), Some("x"));
        assert_eq!(root.get("a").and_then(Node::str), Some("x"));
    }

    #[test]
    fn strict_errors_carry_their_line_and_deep_nesting_is_refused() {
        let err = strict(indoc! {"
            {
              \"a\": [1,
              \"b\" }
        "})
        .expect_err("invalid");
        assert_eq!(err.line, Some(3));
        assert!(err.message.starts_with("invalid JSON: "), "{}", err.message);
        assert_eq!(
            strict("  // nothing\n").expect_err("empty").message,
            "the file is empty"
        );
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(strict(&deep).is_err());
        for json5 in [
            "{a: 1}",
            "{\"a\": 1 \"b\": 2}",
            "['x']",
            "[0x1]",
            "[+1]",
            "[.5]",
            "[NaN]",
        ] {
            assert!(strict(json5).is_err(), "{json5}");
            assert!(loose(json5).is_ok() || json5 == "[NaN]", "{json5}");
        }
    }
}
