//! One loose document tree for TOML, JSON, JSON with comments and YAML, every value with the
//! line it starts on (a table entry's value with its key's line).
//!
//! Adapters read a configuration file into this tree first and interpret it by hand
//! afterwards, so a badly typed entry costs one diagnostic and never the rest of the file.
//! Where the formats' own tools disagree (nulls, booleans, repeated keys, an empty file), the
//! reader's [`Dialect`] says which way a file is read; the tree and its accessors are the same.

mod expect;
mod json;
mod search;
mod strict_json;
mod toml;
mod xml;
mod yaml;

pub(crate) use self::expect::Report;
pub(crate) use self::json::{read_json, read_json_keys, read_jsonc};
pub(crate) use self::strict_json::Rest;
pub(crate) use self::toml::{Comments, read_toml};
pub(crate) use self::xml::read_xml;
pub(crate) use self::yaml::read_yaml;

/// Nesting deeper than this is cut off by the [`Dialect::Loose`] readers (read as
/// [`Value::Other`]): no configuration comes near it, and it keeps the conversion's recursion
/// bounded whatever the parser allows. The [`Dialect::Strict`] readers are bounded by their
/// parsers: jsonc-parser refuses nesting deeper than 512 levels, and YAML by [`yaml_budget`].
const MAX_DEPTH: usize = 48;

/// How many events the YAML readers replay for aliases before refusing the file: no task file
/// comes near it, and an alias bomb fails fast instead of eating memory.
const YAML_MAX_REPLAYED_EVENTS: usize = 100_000;

/// serde-saphyr's budget: its defaults (nesting depth 64, 250k nodes, anchors and aliases
/// capped), with or without its aliases-per-anchor heuristic.
fn yaml_budget(alias_anchor_ratio: bool) -> serde_saphyr::Budget {
    let mut budget = serde_saphyr::Budget::default();
    budget.enforce_alias_anchor_ratio = alias_anchor_ratio;
    budget
}

/// Which way a reader settles what the formats leave open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    /// The configuration reading (Python runners, mise, deno, Composer, CMake presets,
    /// VS Code): `null` and dates read as [`Value::Other`], nesting beyond [`MAX_DEPTH`] is
    /// cut, an empty file is [`Value::Other`]; a repeated key keeps its last value in JSON and
    /// makes a YAML file invalid; YAML reads `yes`/`on` as booleans; JSON with comments takes
    /// all of jsonc-parser's freedoms.
    Loose,
    /// As the tools themselves read (go-task, act, Compose, turbo, Nx, npm): `null` is
    /// [`Value::Null`]; YAML has only the core booleans, numbers such as `0755` stay as
    /// written and a repeated key is kept twice (see [`Node::get`]); JSON with comments allows
    /// comments and trailing commas and nothing else of JSON5, a repeated key keeps its last
    /// value, and an empty file is an error; strict JSON keeps every key's exact line and no
    /// nesting cut (`serde_json` refuses more than 128 levels).
    Strict,
}

/// The words a diagnostic uses for a value's kind: each format's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Terms {
    /// TOML's: a table, an array (the words of every [`Dialect::Loose`] file).
    Toml,
    /// YAML's: a mapping, a list.
    Yaml,
    /// JSON's: an object, an array.
    Json,
}

/// One value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    /// `null`, `~` or an empty YAML value ([`Dialect::Strict`] only).
    Null,
    /// A boolean.
    Bool(bool),
    /// A number, as text.
    Num(String),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<Node>),
    /// A table, entries in file order.
    Table(Vec<Entry>),
    /// Anything else (dates, and in [`Dialect::Loose`] nulls and nesting beyond the cap).
    Other,
}

/// A value and the line it starts on.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    /// The 1-based line (of the key, for a table entry's value; for YAML keys brought in by
    /// `<<: *anchor`, the merge site).
    pub line: u32,
    /// The value.
    pub value: Value,
}

/// One table entry.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    /// The key (YAML collection keys, which no task file uses, become empty).
    pub key: String,
    /// The value; its line is the key's.
    pub node: Node,
    /// Where the entry stands in the text, from readers that keep it (TOML).
    pub span: Option<Span>,
}

/// Where a table entry stands in its text, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    /// The first byte of the key (of the last part, for a dotted key).
    pub key: usize,
    /// Just past the value.
    pub value_end: usize,
}

/// Why a file could not be read: a message and the line it points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParseError {
    /// What is wrong, without a position.
    pub message: String,
    /// The 1-based line, where known.
    pub line: Option<u32>,
}

impl Node {
    /// A value at line `line`.
    pub fn new(line: u32, value: Value) -> Node {
        Node { line, value }
    }

    /// The value of the first entry named `key`, when this is a table. Only a
    /// [`Dialect::Strict`] YAML file keeps a repeated key twice.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|e| &e.node)
    }

    /// The first entry named `key`, when this is a table.
    pub fn entry(&self, key: &str) -> Option<&Entry> {
        self.entries()?.iter().find(|e| e.key == key)
    }

    /// The value at a path of keys.
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

    /// A scalar as text (`true`, `3`, `echo hi`); `None` for null, collections and others.
    pub fn scalar(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) | Value::Num(s) => Some(s),
            Value::Bool(true) => Some("true"),
            Value::Bool(false) => Some("false"),
            Value::Null | Value::Arr(_) | Value::Table(_) | Value::Other => None,
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

    /// Whether this is a table.
    pub fn is_table(&self) -> bool {
        matches!(self.value, Value::Table(_))
    }

    /// Whether this is null.
    pub fn is_null(&self) -> bool {
        self.value == Value::Null
    }

    /// Whether this is `true`.
    pub fn is_true(&self) -> bool {
        matches!(self.value, Value::Bool(true))
    }

    /// Whether this is `true` or the string `"true"`, as go-task reads a flag.
    pub fn is_true_or_text_true(&self) -> bool {
        self.is_true() || self.str() == Some("true")
    }

    /// A short name for the value's kind, for diagnostics, in TOML's words.
    pub fn kind(&self) -> &'static str {
        self.kind_in(Terms::Toml)
    }

    /// A short name for the value's kind, for diagnostics, in the words of `terms`.
    pub fn kind_in(&self, terms: Terms) -> &'static str {
        match (&self.value, terms) {
            (Value::Null, _) => "null",
            (Value::Bool(_), _) => "a boolean",
            (Value::Num(_), _) => "a number",
            (Value::Str(_), _) => "a string",
            (Value::Arr(_), Terms::Yaml) => "a list",
            (Value::Arr(_), Terms::Toml | Terms::Json) => "an array",
            (Value::Table(_), Terms::Toml) => "a table",
            (Value::Table(_), Terms::Yaml) => "a mapping",
            (Value::Table(_), Terms::Json) => "an object",
            (Value::Other, _) => "another kind of value",
        }
    }

    /// A string, or an array of strings (`None` when any item is not one).
    pub fn strs(&self) -> Option<Vec<&str>> {
        match self.str() {
            Some(s) => Some(vec![s]),
            None => self.items()?.iter().map(Node::str).collect(),
        }
    }

    /// A string, or an array of strings as one line of words quoted for a shell
    /// (`cmd = ["a", "b c"]` is `a 'b c'`).
    pub fn text_of(&self) -> Option<String> {
        if let Some(s) = self.str() {
            return Some(s.to_owned());
        }
        let words: Option<Vec<&str>> = self.items()?.iter().map(Node::str).collect();
        words.map(|w| crate::text::quote_command(&w))
    }
}

impl Node {
    /// The value as one line of JSON, whatever format it was read from and however it was
    /// laid out (lines, comments, quoting and spacing left out): what a pin compares, so that
    /// reformatting a file is no change. Entries keep their order.
    pub fn canonical(&self) -> String {
        let mut out = String::new();
        self.write_canonical(&mut out);
        out
    }

    fn write_canonical(&self, out: &mut String) {
        match &self.value {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Num(n) => out.push_str(n),
            Value::Str(s) => push_quoted(out, s),
            Value::Other => out.push('?'),
            Value::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write_canonical(out);
                }
                out.push(']');
            }
            Value::Table(entries) => {
                out.push('{');
                for (i, entry) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    push_quoted(out, &entry.key);
                    out.push(':');
                    entry.node.write_canonical(out);
                }
                out.push('}');
            }
        }
    }
}

/// `s` as a JSON string.
fn push_quoted(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => {
                let _ = std::fmt::Write::write_fmt(out, format_args!("\\u{:04x}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Environment variables from a `{ KEY = "value" }` table (entries whose value is not a
/// scalar are left out).
pub(crate) fn env_of(node: Option<&Node>) -> Vec<(String, String)> {
    node.and_then(Node::entries)
        .map(|entries| {
            entries
                .iter()
                .filter_map(|e| Some((e.key.clone(), e.node.scalar()?.to_owned())))
                .collect()
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use indoc::indoc;

    #[test]
    fn the_canonical_form_ignores_layout_and_format() {
        let toml = read_toml(indoc! {"
            [t]
            a = 1
            b = [\"x\", true]  # note
        "})
        .expect("valid");
        let json = read_json(
            indoc! {"
                {\"t\": {\"a\": 1,
                  \"b\": [\"x\",true]}}"},
            Dialect::Strict,
        )
        .expect("valid");
        assert_eq!(toml.canonical(), json.canonical());
        assert_eq!(json.canonical(), r#"{"t":{"a":1,"b":["x",true]}}"#);
        let quoted = read_json(r#"{"q": "a\"b\\c\n"}"#, Dialect::Strict).expect("valid");
        assert_eq!(quoted.canonical(), r#"{"q":"a\"b\\c\u000a"}"#);
    }

    #[test]
    fn a_repeated_yaml_key_is_kept_and_get_finds_the_first() {
        let root = read_yaml(
            indoc! {"
                a: 1
                b: x
                a: 2
            "},
            Dialect::Strict,
        )
        .expect("valid");
        assert_eq!(root.entries().map(<[Entry]>::len), Some(3));
        assert_eq!(
            root.get("a").map(|n| (n.line, n.scalar())),
            Some((1, Some("1")))
        );
    }

    #[test]
    fn kinds_are_named_in_each_formats_words() {
        let toml = read_toml(indoc! {"
            t = {}
            a = []
            d = 1979-05-27
        "})
        .expect("valid");
        let kinds: Vec<&str> = ["t", "a", "d"]
            .iter()
            .filter_map(|k| toml.get(k).map(Node::kind))
            .collect();
        assert_eq!(kinds, ["a table", "an array", "another kind of value"]);
        let yaml = read_yaml(
            indoc! {"
                t: {}
                a: []
                n: ~
            "},
            Dialect::Strict,
        )
        .expect("valid");
        let kinds: Vec<&str> = ["t", "a", "n"]
            .iter()
            .filter_map(|k| yaml.get(k).map(|n| n.kind_in(Terms::Yaml)))
            .collect();
        assert_eq!(kinds, ["a mapping", "a list", "null"]);
        let json =
            read_jsonc("{\"t\": {}, \"a\": [], \"n\": null}", Dialect::Strict).expect("valid");
        let kinds: Vec<&str> = ["t", "a", "n"]
            .iter()
            .filter_map(|k| json.get(k).map(|n| n.kind_in(Terms::Json)))
            .collect();
        assert_eq!(kinds, ["an object", "an array", "null"]);
    }

    #[test]
    fn strings_commands_and_environments() {
        let root = read_toml(indoc! {"
            one = \"a\"
            many = [\"a\", \"b c\"]
            mixed = [\"a\", 1]
            env = { A = \"x\", N = 2, T = true, L = [1] }
        "})
        .expect("valid");
        let get = |k: &str| root.get(k).expect(k);
        assert_eq!(get("one").strs(), Some(vec!["a"]));
        assert_eq!(get("many").strs(), Some(vec!["a", "b c"]));
        assert_eq!(get("mixed").strs(), None);
        assert_eq!(get("env").strs(), None);
        assert_eq!(get("one").text_of().as_deref(), Some("a"));
        assert_eq!(get("many").text_of().as_deref(), Some("a 'b c'"));
        assert_eq!(get("mixed").text_of(), None);
        let env: Vec<(String, String)> = env_of(root.get("env"));
        let want = [("A", "x"), ("N", "2"), ("T", "true")];
        assert_eq!(
            env,
            want.map(|(k, v)| (k.to_owned(), v.to_owned())).to_vec()
        );
        assert!(env_of(None).is_empty());
    }

    #[test]
    fn go_task_reads_the_text_true_as_true() {
        let root = read_yaml(
            indoc! {"
                a: true
                b: 'true'
                c: yes
            "},
            Dialect::Strict,
        )
        .expect("valid");
        let flags: Vec<(bool, bool)> = ["a", "b", "c"]
            .iter()
            .filter_map(|k| root.get(k))
            .map(|n| (n.is_true(), n.is_true_or_text_true()))
            .collect();
        assert_eq!(flags, [(true, true), (false, true), (false, false)]);
    }
}
