//! YAML into the document tree, with serde-saphyr's budgets against alias bombs and deep
//! nesting. The [`Dialect::Strict`] reading keeps the line of every key as the parser saw it;
//! the [`Dialect::Loose`] one goes through `serde_json` and finds each key's line by searching.

use std::fmt;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use super::search::from_serde;
use super::{Dialect, Entry, Node, ParseError, Value, YAML_MAX_REPLAYED_EVENTS, yaml_budget};

/// Reads one YAML document.
///
/// [`Dialect::Loose`]: serde-saphyr's default options; an empty document is [`Value::Other`].
/// [`Dialect::Strict`]: as go-task's yaml.v3 reads (core booleans only, repeated keys kept,
/// `0755` and `1_000` as written); an empty document is [`Value::Null`]. Both cap alias replay
/// at [`YAML_MAX_REPLAYED_EVENTS`], so an alias bomb or a 100k-deep nesting fails fast.
pub(crate) fn read_yaml(text: &str, dialect: Dialect) -> Result<Node, ParseError> {
    match dialect {
        Dialect::Loose => loose(text),
        Dialect::Strict => strict(text),
    }
}

fn loose(text: &str) -> Result<Node, ParseError> {
    let options = serde_saphyr::options! {
        budget: Some(yaml_budget(true)),
        alias_limits: serde_saphyr::alias_limits! {
            max_total_replayed_events: YAML_MAX_REPLAYED_EVENTS,
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
            let (first, line) = problem(&err);
            Err(ParseError {
                message: format!("invalid YAML: {first}"),
                line,
            })
        }
    }
}

fn strict(text: &str) -> Result<Node, ParseError> {
    // Real Compose files merge one anchor into a hundred services (`<<: *defaults`): the
    // aliases-per-anchor heuristic refuses them, while the replay cap is what stops an
    // alias bomb.
    let options = serde_saphyr::options! {
        budget: Some(yaml_budget(false)),
        alias_limits: serde_saphyr::alias_limits! {
            max_total_replayed_events: YAML_MAX_REPLAYED_EVENTS,
        },
        // go-task (yaml.v3) lets the later duplicate win; the adapter sees both and decides.
        duplicate_keys: serde_saphyr::DuplicateKeyPolicy::PassThrough,
        // yaml.v3 reads `y`, `on`, `yes` as strings: a task may well be called `y`.
        strict_booleans: true,
        // Keep `0755` and `1_000` as written rather than as the number they denote.
        leading_zero_numbers_as_strings: true,
        underscored_numbers_as_strings: true,
        emit_comments: false,
        with_snippet: false,
    };
    match serde_saphyr::from_str_with_options::<Option<Exact>>(text, options) {
        Ok(value) => {
            let mut root = Node::new(1, value.map_or(Value::Null, |v| v.0));
            lines_of_items(&mut root);
            Ok(root)
        }
        Err(err) => {
            let (message, line) = problem(&err);
            Err(ParseError {
                message: if message.is_empty() {
                    "invalid YAML".to_owned()
                } else {
                    message
                },
                line,
            })
        }
    }
}

/// What a YAML parse error says, for a diagnostic: serde-saphyr's first line without its
/// position suffix (the line travels separately), and the 1-based line when known.
fn problem(err: &serde_saphyr::Error) -> (String, Option<u32>) {
    let line = err
        .location()
        .and_then(|l| u32::try_from(l.line()).ok())
        .filter(|&l| l > 0);
    let options = serde_saphyr::render_options! {
        snippets: serde_saphyr::SnippetMode::Off,
    };
    let rendered = err.render_with_options(options);
    let first = rendered.lines().next().unwrap_or_default();
    let message = first
        .find(" at line ")
        .map_or(first, |i| &first[..i])
        .trim();
    (message.to_owned(), line)
}

/// One value as the strict reading builds it; its line comes from the key around it.
struct Exact(Value);

/// Gives the items of a list (and of the lists in it) the line of the list's key: serde-saphyr
/// reports where a key is, and asking where every item is too would take the deserializer
/// around its nesting budget (a 100k-deep block list overflows the stack).
fn lines_of_items(node: &mut Node) {
    let line = node.line;
    if let Value::Arr(items) = &mut node.value {
        for item in items.iter_mut().filter(|item| item.line == 0) {
            item.line = line;
            lines_of_items(item);
        }
    }
}

fn line_of<T>(spanned: &Spanned<T>) -> u32 {
    u32::try_from(spanned.referenced.line()).unwrap_or(0)
}

impl<'de> Deserialize<'de> for Exact {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(ExactVisitor)
    }
}

struct ExactVisitor;

impl<'de> Visitor<'de> for ExactVisitor {
    type Value = Exact;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Exact, E> {
        Ok(Exact(Value::Bool(v)))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Exact, E> {
        Ok(Exact(Value::Num(v.to_string())))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Exact, E> {
        Ok(Exact(Value::Num(v.to_string())))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Exact, E> {
        Ok(Exact(Value::Num(v.to_string())))
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Exact, E> {
        Ok(Exact(Value::Num(v.to_string())))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Exact, E> {
        Ok(Exact(Value::Num(v.to_string())))
    }

    fn visit_char<E: de::Error>(self, v: char) -> Result<Exact, E> {
        Ok(Exact(Value::Str(v.to_string())))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Exact, E> {
        Ok(Exact(Value::Str(v.to_owned())))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Exact, E> {
        Ok(Exact(Value::Str(v)))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Exact, E> {
        Ok(Exact(Value::Str(String::from_utf8_lossy(v).into_owned())))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Exact, E> {
        Ok(Exact(Value::Null))
    }

    fn visit_none<E: de::Error>(self) -> Result<Exact, E> {
        Ok(Exact(Value::Null))
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Exact, D::Error> {
        Exact::deserialize(deserializer)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Exact, D::Error> {
        Exact::deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Exact, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Exact>()? {
            items.push(Node::new(0, item.0));
        }
        Ok(Exact(Value::Arr(items)))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Exact, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            let value = map.next_value::<Exact>()?;
            let line = line_of(&key);
            let mut node = Node::new(line, value.0);
            lines_of_items(&mut node);
            entries.push(Entry {
                span: None,
                key: Node::new(line, key.value.0)
                    .scalar()
                    .unwrap_or_default()
                    .to_owned(),
                node,
            });
        }
        Ok(Exact(Value::Table(entries)))
    }
}

/// Reads a mapping key together with its position.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Spanned<Exact>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        Spanned::<Exact>::deserialize(deserializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::Terms;
    use indoc::indoc;

    fn strict_map(text: &str) -> Vec<Entry> {
        match read_yaml(text, Dialect::Strict) {
            Ok(Node {
                value: Value::Table(entries),
                ..
            }) => entries,
            other => panic!("not a map: {other:?}"),
        }
    }

    fn str_value(s: &str) -> Value {
        Value::Str(s.to_owned())
    }

    #[test]
    fn keys_keep_their_lines() {
        let entries = strict_map(indoc! {"
            version: '3'

            tasks:
              build: go build
        "});
        assert_eq!(entries[0].key, "version");
        assert_eq!(entries[0].node.line, 1);
        assert_eq!(entries[0].node.value, str_value("3"));
        assert_eq!(entries[1].node.line, 3);
        let tasks = entries[1].node.entries().expect("a mapping");
        assert_eq!(tasks[0].key, "build");
        assert_eq!(tasks[0].node.line, 4);
    }

    #[test]
    fn list_items_have_the_line_of_their_key() {
        let root = read_yaml(
            indoc! {"
                x:
                  cmds:
                    - a
                    - [b, c]
            "},
            Dialect::Strict,
        )
        .expect("valid");
        let cmds = root
            .path(&["x", "cmds"])
            .and_then(Node::items)
            .expect("a list");
        assert_eq!(cmds.iter().map(|n| n.line).collect::<Vec<_>>(), [2, 2]);
        assert_eq!(cmds[1].items().map(|i| i[1].line), Some(2));
        let root = read_yaml("- a\n- k: v\n", Dialect::Strict).expect("valid");
        let items = root.items().expect("a list");
        assert_eq!((items[0].line, items[1].line), (1, 1));
        assert_eq!(items[1].get("k").map(|n| n.line), Some(2));
    }

    #[test]
    fn crlf_lines_count_once() {
        let entries = strict_map(indoc! {"
            version: 3\r
            tasks:\r
              a: x\r
              b: y\r
        "});
        let tasks = entries[1].node.entries().expect("a mapping");
        assert_eq!(tasks[1].node.line, 4);
        assert_eq!(entries[0].node.value, Value::Num("3".into()));
    }

    #[test]
    fn merge_keys_expand() {
        let text = indoc! {"
            x: &d
              desc: shared
              dir: a
            y:
              <<: *d
              dir: b
        "};
        let entries = strict_map(text);
        let y = &entries[1].node;
        assert_eq!(y.get("desc").map(|n| &n.value), Some(&str_value("shared")));
        assert_eq!(y.get("dir").map(|n| &n.value), Some(&str_value("b")));
    }

    #[test]
    fn duplicate_keys_are_all_kept() {
        let entries = strict_map("a: 1\na: 2\n");
        assert_eq!(entries.len(), 2);
        let err = read_yaml("a: 1\na: 2\n", Dialect::Loose).expect_err("refused");
        assert!(err.message.contains("duplicate mapping key"), "{err:?}");
        assert_eq!(err.line, Some(2));
    }

    #[test]
    fn only_core_booleans() {
        let text = indoc! {"
            y: yes
            on: off
            t: true
            mode: 0755
        "};
        let entries = strict_map(text);
        assert_eq!(entries[0].key, "y");
        assert_eq!(entries[0].node.value, str_value("yes"));
        assert_eq!(entries[1].key, "on");
        assert_eq!(entries[2].node.value, Value::Bool(true));
        assert_eq!(entries[3].node.scalar(), Some("0755"));
        assert_eq!(entries[1].node.kind_in(Terms::Yaml), "a string");
    }

    #[test]
    fn empty_document_is_null() {
        let null = Node::new(1, Value::Null);
        assert_eq!(read_yaml("", Dialect::Strict), Ok(null.clone()));
        assert_eq!(read_yaml("# only a comment\n", Dialect::Strict), Ok(null));
        let loose = read_yaml("", Dialect::Loose).expect("valid");
        assert_eq!(loose.value, Value::Other);
    }

    #[test]
    fn syntax_errors_have_a_line() {
        let text = indoc! {"
            version: '3'
            tasks:
              build:
                cmds: [a, b
              x: y
        "};
        let err = read_yaml(text, Dialect::Strict).unwrap_err();
        assert_eq!(err.message, "illegal placement of ':' indicator");
        assert!(err.line.is_some(), "{err:?}");
        let err = read_yaml(text, Dialect::Loose).unwrap_err();
        assert!(err.message.starts_with("invalid YAML: "), "{err:?}");
        assert_eq!(
            read_yaml("a: [", Dialect::Loose).expect_err("bad").line,
            Some(1)
        );
    }

    #[test]
    fn loose_keys_get_their_lines() {
        let root = read_yaml(
            indoc! {"
                tasks:
                  a: x
                  b:
                    cmd: y
            "},
            Dialect::Loose,
        )
        .expect("ok");
        assert_eq!(root.path(&["tasks", "b"]).map(|n| n.line), Some(3));
    }

    #[test]
    fn alias_bomb_fails_fast() {
        // Eleven levels of ten aliases each: 10^11 nodes once expanded.
        let mut lines = vec!["a0: &a0 [x, x, x, x, x, x, x, x, x, x]".to_owned()];
        for i in 1..12 {
            let p = i - 1;
            let refs = vec![format!("*a{p}"); 10].join(", ");
            lines.push(format!("a{i}: &a{i} [{refs}]"));
        }
        let text = lines.join("\n");
        for dialect in [Dialect::Strict, Dialect::Loose] {
            let err = read_yaml(&text, dialect).unwrap_err();
            assert!(err.message.contains("alias"), "{err:?}");
        }
    }

    #[test]
    fn deep_nesting_fails_fast() {
        let flow = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let block = format!("{}x\n", "- ".repeat(100_000));
        let mut nested_maps = String::new();
        for i in 0..2_000 {
            nested_maps.push_str(&" ".repeat(i));
            nested_maps.push_str("k:\n");
        }
        for dialect in [Dialect::Strict, Dialect::Loose] {
            assert!(read_yaml(&flow, dialect).is_err());
            assert!(read_yaml(&block, dialect).is_err());
            assert!(read_yaml(&nested_maps, dialect).is_err());
        }
    }
}
