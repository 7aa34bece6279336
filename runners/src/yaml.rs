//! A YAML tree that keeps the line of every mapping key, read with serde-saphyr.
//!
//! The YAML adapters (Taskfiles, GitHub Actions workflows, Compose files) read each file
//! into this loose tree first and interpret it by hand afterwards, so one badly typed task
//! never makes the whole file unreadable.

use std::fmt;

use serde::de::{self, Deserialize, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

/// One YAML node. Scalars keep the text agg shows; numbers are kept as written by serde.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    /// `~`, `null` or an empty value.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// An integer or float, already rendered as text.
    Num(String),
    /// A string.
    Str(String),
    /// A sequence.
    Seq(Vec<Node>),
    /// A mapping, entries in file order (duplicate keys are kept; see [`Node::get`]).
    Map(Vec<Entry>),
}

/// One mapping entry.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    /// The key as text (collection keys, which no Taskfile uses, become empty).
    pub key: String,
    /// The 1-based line of the key; for keys brought in by `<<: *anchor`, the merge site.
    pub line: u32,
    /// The value.
    pub value: Node,
}

/// Why a file could not be read as YAML: a message and the line it points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct YamlError {
    pub message: String,
    pub line: Option<u32>,
}

/// Parses one YAML document. An empty document is [`Node::Null`].
///
/// The budgets are serde-saphyr's defaults (nesting depth 64, 250k nodes, anchors and aliases
/// capped), without its aliases-per-anchor heuristic, with alias replay tightened to 100k events: no task file comes near it, and an
/// alias bomb or a 100k-deep nesting fails fast instead of eating memory or stack.
pub(crate) fn parse(text: &str) -> Result<Node, YamlError> {
    // Real Compose files merge one anchor into a hundred services (`<<: *defaults`): the
    // aliases-per-anchor heuristic refuses them, while the replay cap below is what stops an
    // alias bomb.
    let mut budget = serde_saphyr::Budget::default();
    budget.enforce_alias_anchor_ratio = false;
    let options = serde_saphyr::options! {
        budget: Some(budget),
        alias_limits: serde_saphyr::alias_limits! {
            max_total_replayed_events: 100_000,
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
    match serde_saphyr::from_str_with_options::<Option<Node>>(text, options) {
        Ok(node) => Ok(node.unwrap_or(Node::Null)),
        Err(err) => Err(yaml_error(&err)),
    }
}

fn yaml_error(err: &serde_saphyr::Error) -> YamlError {
    let (message, line) = crate::text::yaml_problem(err);
    YamlError {
        message: if message.is_empty() {
            "invalid YAML".to_owned()
        } else {
            message
        },
        line,
    }
}

impl Node {
    /// The value of the first entry named `key`, when `self` is a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|e| &e.value)
    }

    /// The first entry named `key`, when `self` is a mapping.
    pub fn entry(&self, key: &str) -> Option<&Entry> {
        match self {
            Node::Map(entries) => entries.iter().find(|e| e.key == key),
            _ => None,
        }
    }

    /// The text of a scalar (`true`, `3`, `echo hi`); `None` for null and collections.
    pub fn scalar(&self) -> Option<&str> {
        match self {
            Node::Bool(true) => Some("true"),
            Node::Bool(false) => Some("false"),
            Node::Num(s) | Node::Str(s) => Some(s),
            Node::Null | Node::Seq(_) | Node::Map(_) => None,
        }
    }

    /// Whether this is YAML `true` (go-task also reads the string `"true"` as true).
    pub fn is_true(&self) -> bool {
        matches!(self, Node::Bool(true)) || matches!(self, Node::Str(s) if s == "true")
    }

    /// A short name for the node's kind, for diagnostics.
    pub fn kind(&self) -> &'static str {
        match self {
            Node::Null => "null",
            Node::Bool(_) => "a boolean",
            Node::Num(_) => "a number",
            Node::Str(_) => "a string",
            Node::Seq(_) => "a list",
            Node::Map(_) => "a mapping",
        }
    }
}

impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(NodeVisitor)
    }
}

struct NodeVisitor;

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Node, E> {
        Ok(Node::Bool(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Node, E> {
        Ok(Node::Num(v.to_string()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Node, E> {
        Ok(Node::Num(v.to_string()))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Node, E> {
        Ok(Node::Num(v.to_string()))
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Node, E> {
        Ok(Node::Num(v.to_string()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Node, E> {
        Ok(Node::Num(v.to_string()))
    }

    fn visit_char<E: de::Error>(self, v: char) -> Result<Node, E> {
        Ok(Node::Str(v.to_string()))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Node, E> {
        Ok(Node::Str(v.to_owned()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<Node, E> {
        Ok(Node::Str(v))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Node, E> {
        Ok(Node::Str(String::from_utf8_lossy(v).into_owned()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Node, E> {
        Ok(Node::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Node, D::Error> {
        Node::deserialize(deserializer)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, deserializer: D) -> Result<Node, D::Error> {
        Node::deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Node, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Node>()? {
            items.push(item);
        }
        Ok(Node::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Node, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            let value = map.next_value::<Node>()?;
            entries.push(Entry {
                key: key.value.scalar().unwrap_or_default().to_owned(),
                line: u32::try_from(key.referenced.line()).unwrap_or(0),
                value,
            });
        }
        Ok(Node::Map(entries))
    }
}

/// Reads a mapping key together with its position.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Spanned<Node>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        Spanned::<Node>::deserialize(deserializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(text: &str) -> Vec<Entry> {
        match parse(text) {
            Ok(Node::Map(entries)) => entries,
            other => panic!("not a map: {other:?}"),
        }
    }

    #[test]
    fn keys_keep_their_lines() {
        let entries = map("version: '3'\n\ntasks:\n  build: go build\n");
        assert_eq!(entries[0].key, "version");
        assert_eq!(entries[0].line, 1);
        assert_eq!(entries[0].value, Node::Str("3".into()));
        assert_eq!(entries[1].line, 3);
        let Node::Map(tasks) = &entries[1].value else {
            panic!()
        };
        assert_eq!(tasks[0].key, "build");
        assert_eq!(tasks[0].line, 4);
    }

    #[test]
    fn crlf_lines_count_once() {
        let entries = map("version: 3\r\ntasks:\r\n  a: x\r\n  b: y\r\n");
        let Node::Map(tasks) = &entries[1].value else {
            panic!()
        };
        assert_eq!(tasks[1].line, 4);
        assert_eq!(entries[0].value, Node::Num("3".into()));
    }

    #[test]
    fn merge_keys_expand() {
        let text = "x: &d\n  desc: shared\n  dir: a\ny:\n  <<: *d\n  dir: b\n";
        let entries = map(text);
        let y = &entries[1].value;
        assert_eq!(y.get("desc"), Some(&Node::Str("shared".into())));
        assert_eq!(y.get("dir"), Some(&Node::Str("b".into())));
    }

    #[test]
    fn duplicate_keys_are_all_kept() {
        let entries = map("a: 1\na: 2\n");
        assert_eq!(entries.len(), 2);
    }

    #[test]
    fn only_core_booleans() {
        let entries = map("y: yes
on: off
t: true
mode: 0755
");
        assert_eq!(entries[0].key, "y");
        assert_eq!(entries[0].value, Node::Str("yes".into()));
        assert_eq!(entries[1].key, "on");
        assert_eq!(entries[2].value, Node::Bool(true));
        assert_eq!(entries[3].value.scalar(), Some("0755"));
    }

    #[test]
    fn empty_document_is_null() {
        assert_eq!(parse(""), Ok(Node::Null));
        assert_eq!(parse("# only a comment\n"), Ok(Node::Null));
    }

    #[test]
    fn syntax_errors_have_a_line() {
        let err = parse("version: '3'\ntasks:\n  build:\n    cmds: [a, b\n  x: y\n").unwrap_err();
        assert_eq!(err.message, "illegal placement of ':' indicator");
        assert!(err.line.is_some(), "{err:?}");
        assert!(!err.message.is_empty());
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
        let err = parse(&text).unwrap_err();
        assert!(err.message.contains("alias"), "{err:?}");
    }

    #[test]
    fn deep_nesting_fails_fast() {
        let flow = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(parse(&flow).is_err());
        let block = format!("{}x\n", "- ".repeat(100_000));
        assert!(parse(&block).is_err());
        let mut nested_maps = String::new();
        for i in 0..2_000 {
            nested_maps.push_str(&" ".repeat(i));
            nested_maps.push_str("k:\n");
        }
        assert!(parse(&nested_maps).is_err());
    }
}
