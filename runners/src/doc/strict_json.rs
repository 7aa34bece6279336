//! Strict JSON into the document tree, as npm reads `package.json` ([`super::Dialect::Strict`]):
//! `serde_json` checks the text and builds the tree directly, with no value of its own in
//! between, and one pass over the text then gives every key and item its exact line.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

use super::{Entry, Node, ParseError, Value};

/// Past this many entries, a table finds a repeated key through a hash map, not a scan.
const SCAN_UP_TO: usize = 16;

/// Reads strict JSON: `null` is [`Value::Null`], nesting is bounded by `serde_json`'s
/// 128 levels, a repeated key keeps its first place and its last value and line. With
/// `keep`, a root object keeps only the entries named there, and the rest of the file is
/// checked as [`Rest`] says but not built.
pub(super) fn read(text: &str, keep: Option<&[&str]>, rest: Rest) -> Result<Node, ParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Build { keep, rest }
        .deserialize(&mut de)
        .and_then(|value| de.end().map(|()| value))
        .map_err(|err| json_error(&err))?;
    let mut root = Node::new(1, value);
    let mut lines = Lines::new(text);
    lines.space();
    root.line = lines.line;
    lines.value(Some(&mut root));
    Ok(root)
}

/// A `serde_json` error as a message without its position, and the line apart.
pub(super) fn json_error(err: &serde_json::Error) -> ParseError {
    let message = err.to_string();
    let message = message
        .find(" at line ")
        .map_or(&*message, |i| &message[..i]);
    ParseError {
        message: format!("invalid JSON: {message}"),
        line: u32::try_from(err.line()).ok().filter(|&l| l > 0),
    }
}

/// How thoroughly the values that are not built are checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rest {
    /// As thoroughly as built ones: every string and number is read, so a file that would
    /// not build does not pass (a lone surrogate `\ud800`, a number out of range).
    Checked,
    /// Their syntax only, as `serde_json` skips a value: escapes are not decoded, numbers
    /// not converted.
    SyntaxOnly,
}

/// Builds a value; `keep` filters the entries of the object it is given, if any, and `rest`
/// says how the others are checked.
#[derive(Clone, Copy)]
struct Build<'k> {
    keep: Option<&'k [&'k str]>,
    rest: Rest,
}

impl Build<'_> {
    /// For the values inside: everything is built.
    fn inner(self) -> Self {
        Build {
            keep: None,
            rest: self.rest,
        }
    }
}

impl<'de> DeserializeSeed<'de> for Build<'_> {
    type Value = Value;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Build<'_> {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Num(n.to_string()))
    }

    fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Num(n.to_string()))
    }

    fn visit_f64<E: serde::de::Error>(self, n: f64) -> Result<Value, E> {
        // Written as `serde_json` writes it (`1e+20`, not `100000000000000000000`); the
        // parser refuses what is not finite, which `serde_json` would read as null.
        Ok(serde_json::Number::from_f64(n).map_or(Value::Null, |n| Value::Num(n.to_string())))
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Value, E> {
        Ok(Value::Str(s.to_owned()))
    }

    fn visit_string<E: serde::de::Error>(self, s: String) -> Result<Value, E> {
        Ok(Value::Str(s))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(value) = seq.next_element_seed(self.inner())? {
            items.push(Node::new(0, value));
        }
        Ok(Value::Arr(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut table = Table::default();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            if self.keep.is_some_and(|keep| !keep.contains(&&*key)) {
                match self.rest {
                    Rest::Checked => map.next_value_seed(Skip)?,
                    Rest::SyntaxOnly => map.next_value::<IgnoredAny>().map(drop)?,
                }
                continue;
            }
            let value = map.next_value_seed(self.inner())?;
            table.set(key, Node::new(0, value));
        }
        Ok(Value::Table(table.entries))
    }
}

/// A table being built: a repeated key replaces the value in its first place.
#[derive(Default)]
struct Table {
    entries: Vec<Entry>,
    index: Option<HashMap<String, usize>>,
}

impl Table {
    fn set(&mut self, key: Cow<'_, str>, node: Node) {
        let at = match &self.index {
            Some(index) => index.get(&*key).copied(),
            None => self.entries.iter().position(|e| e.key == key),
        };
        if let Some(entry) = at.and_then(|i| self.entries.get_mut(i)) {
            entry.node = node;
            return;
        }
        let key = key.into_owned();
        if let Some(index) = &mut self.index {
            index.insert(key.clone(), self.entries.len());
        }
        self.entries.push(Entry {
            key,
            node,
            span: None,
        });
        if self.index.is_none() && self.entries.len() > SCAN_UP_TO {
            self.index = Some(index_of(&self.entries));
        }
    }
}

fn index_of(entries: &[Entry]) -> HashMap<String, usize> {
    entries
        .iter()
        .enumerate()
        .map(|(i, e)| (e.key.clone(), i))
        .collect()
}

/// A key, borrowed from the text when it has no escapes.
struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for KeySeed {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_borrowed_str<E: serde::de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(s))
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(s.to_owned()))
    }

    fn visit_string<E: serde::de::Error>(self, s: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(s))
    }
}

/// A value checked as thoroughly as a built one (every string and number read), then
/// dropped: a file that would not build does not pass as skipped.
struct Skip;

impl<'de> DeserializeSeed<'de> for Skip {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Skip {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(Skip)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        while map.next_entry_seed(Skip, Skip)?.is_some() {}
        Ok(())
    }
}

/// One pass over text that `serde_json` has accepted, alongside the tree built from it:
/// each key and item gets the line it starts on. Keys the tree does not have (left out, or
/// an earlier place of a repeated key) are passed over, so the last place of a key sets its
/// line. Every step moves forward or returns, whatever the text.
struct Lines<'t> {
    text: &'t str,
    bytes: &'t [u8],
    at: usize,
    line: u32,
    /// How deep the value being read is nested: past [`MAX_DEPTH`] a value is passed over
    /// without recursion (the part of a file [`Rest`] leaves unbuilt may nest deeper than
    /// the tree), so no text can exhaust the stack.
    depth: u32,
}

/// The deepest nesting [`Lines`] follows, as deep as `serde_json` builds.
const MAX_DEPTH: u32 = 128;

impl<'t> Lines<'t> {
    /// A pass over `text` from its start.
    fn new(text: &'t str) -> Self {
        Lines {
            text,
            bytes: text.as_bytes(),
            at: 0,
            line: 1,
            depth: 0,
        }
    }

    fn space(&mut self) {
        while let Some(&b) = self.bytes.get(self.at) {
            match b {
                b'\n' => self.line += 1,
                b' ' | b'\t' | b'\r' => {}
                _ => return,
            }
            self.at += 1;
        }
    }

    /// Past the string whose opening quote is at `self.at`: what stands between the quotes.
    fn string(&mut self) -> &'t str {
        let start = self.at + 1;
        let mut end = start;
        while let Some(&b) = self.bytes.get(end) {
            match b {
                b'\\' => end += 2,
                b'"' => break,
                _ => end += 1,
            }
        }
        self.at = end + 1;
        self.text.get(start..end).unwrap_or_default()
    }

    fn value(&mut self, node: Option<&mut Node>) {
        if self.depth >= MAX_DEPTH {
            self.pass_over();
            return;
        }
        self.depth += 1;
        self.value_within(node);
        self.depth -= 1;
    }

    /// Past the value at `self.at`, counting its lines, without recursion.
    fn pass_over(&mut self) {
        let mut open = 0usize;
        while let Some(&b) = self.bytes.get(self.at) {
            match b {
                b'"' => {
                    self.string_counting_lines();
                    if open == 0 {
                        return;
                    }
                    continue;
                }
                b'{' | b'[' => open += 1,
                b'}' | b']' => {
                    if open == 0 {
                        return;
                    }
                    open -= 1;
                    if open == 0 {
                        self.at += 1;
                        return;
                    }
                }
                b',' if open == 0 => return,
                b'\n' => self.line += 1,
                _ => {}
            }
            self.at += 1;
        }
    }

    /// [`Lines::string`] for a string that may hold raw newlines (text no parser checked).
    #[allow(
        clippy::naive_bytecount,
        reason = "only strings nested past the depth bound, which are short and rare"
    )]
    fn string_counting_lines(&mut self) {
        let start = self.at;
        self.string();
        let end = self.at.min(self.bytes.len());
        let newlines = self.bytes[start..end]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        self.line = self
            .line
            .saturating_add(u32::try_from(newlines).unwrap_or(u32::MAX));
    }

    fn value_within(&mut self, node: Option<&mut Node>) {
        match self.bytes.get(self.at) {
            Some(b'{') => self.object(node.and_then(|n| match &mut n.value {
                Value::Table(entries) => Some(entries),
                _ => None,
            })),
            Some(b'[') => self.array(node.and_then(|n| match &mut n.value {
                Value::Arr(items) => Some(items),
                _ => None,
            })),
            Some(b'"') => {
                self.string();
            }
            _ => {
                while let Some(&b) = self.bytes.get(self.at) {
                    if matches!(b, b',' | b']' | b'}' | b' ' | b'\t' | b'\n' | b'\r') {
                        break;
                    }
                    self.at += 1;
                }
            }
        }
    }

    fn object(&mut self, mut entries: Option<&mut Vec<Entry>>) {
        self.at += 1;
        let mut finder = Finder::default();
        loop {
            self.space();
            match self.bytes.get(self.at) {
                Some(b'"') => {
                    let line = self.line;
                    let raw = self.string();
                    self.space();
                    if self.bytes.get(self.at) == Some(&b':') {
                        self.at += 1;
                    }
                    self.space();
                    let mut node = entries.as_deref_mut().and_then(|entries| {
                        let i = finder.find(entries, &decode(raw))?;
                        entries.get_mut(i).map(|e| &mut e.node)
                    });
                    if let Some(node) = node.as_deref_mut() {
                        node.line = line;
                    }
                    self.value(node);
                }
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return;
                }
                _ => return,
            }
        }
    }

    fn array(&mut self, mut items: Option<&mut Vec<Node>>) {
        self.at += 1;
        let mut i = 0;
        loop {
            self.space();
            match self.bytes.get(self.at) {
                Some(b']') => {
                    self.at += 1;
                    return;
                }
                Some(b',') => self.at += 1,
                Some(b'}') | None => return,
                Some(_) => {
                    let line = self.line;
                    let mut node = items.as_deref_mut().and_then(|items| items.get_mut(i));
                    if let Some(node) = node.as_deref_mut() {
                        node.line = line;
                    }
                    self.value(node);
                    i += 1;
                }
            }
        }
    }
}

/// A key as the text writes it between its quotes, decoded.
fn decode(raw: &str) -> Cow<'_, str> {
    if raw.contains('\\') {
        let decoded = serde_json::from_str::<String>(&format!("\"{raw}\"")).unwrap_or_default();
        Cow::Owned(decoded)
    } else {
        Cow::Borrowed(raw)
    }
}

/// Finds the entries of the text's keys in the tree's table, in one pass when they come in
/// the same order.
#[derive(Default)]
struct Finder {
    next: usize,
    index: Option<HashMap<String, usize>>,
}

impl Finder {
    fn find(&mut self, entries: &[Entry], key: &str) -> Option<usize> {
        if entries.get(self.next).is_some_and(|e| e.key == key) {
            self.next += 1;
            return Some(self.next - 1);
        }
        if entries.len() <= SCAN_UP_TO {
            return entries.iter().position(|e| e.key == key);
        }
        self.index
            .get_or_insert_with(|| index_of(entries))
            .get(key)
            .copied()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Dialect, Terms, read_json, read_json_keys};
    use super::Rest::{Checked, SyntaxOnly};
    use super::*;
    use indoc::{formatdoc, indoc};

    #[test]
    fn a_part_left_unbuilt_may_nest_deeper_than_the_stack_allows_and_is_passed_over() {
        let deep = "[".repeat(200_000) + &"]".repeat(200_000);
        let text = formatdoc! {"
            {{\"deep\": {deep},
            \"deeper\": {{\"x\": \"a\\\"]\"}},
            \"name\": \"x\"}}"};
        let root = read_json_keys(&text, &["name"], SyntaxOnly).expect("valid");
        let Value::Table(entries) = &root.value else {
            panic!("an object")
        };
        let name = entries.iter().find(|e| e.key == "name").expect("name");
        assert_eq!(name.node.line, 3, "lines are counted past the deep part");
        // In a thread with a small stack, as the listing's workers have.
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || read_json_keys(&text, &["name"], SyntaxOnly).is_ok())
            .expect("thread")
            .join()
            .expect("no overflow");
    }

    #[test]
    fn strict_json_keeps_nulls_and_gives_every_key_and_item_its_line() {
        let text = indoc! {"
            \u{feff}
            {
              \"a\": null,
              \"list\": [
                1,
                {\"x\": true}
              ],
              \"b\\u0075ild\": \"tsc\",
              \"big\": 1e20
            }
        "};
        let root = read_json(text, Dialect::Strict).expect("valid");
        assert_eq!(root.line, 2);
        assert_eq!(
            root.get("a").map(|n| (n.line, n.kind_in(Terms::Json))),
            Some((3, "null"))
        );
        let list = root.get("list").and_then(Node::items).expect("array");
        let lines: Vec<u32> = list.iter().map(|n| n.line).collect();
        assert_eq!(lines, [5, 6]);
        assert_eq!(
            list[1].get("x").map(|n| (n.line, n.is_true())),
            Some((6, true))
        );
        assert_eq!(root.get("build").map(|n| n.line), Some(8));
        assert_eq!(root.get("big").and_then(Node::scalar), Some("1e+20"));
    }

    #[test]
    fn a_repeated_key_keeps_its_first_place_and_its_last_value_and_line() {
        let mut text = String::from(indoc! {"
            {\"a\": {\"x\": 1},
            \"b\": 2,
            \"a\": {\"y\": [
            3]}"});
        // Enough keys for the tables to find repeats through a hash map.
        let tail: Vec<String> = (0..40).map(|i| format!("\"k{}\": {i}", i % 20)).collect();
        text.push_str(",\n");
        text.push_str(&tail.join(",\n"));
        text.push('}');
        let root = read_json(&text, Dialect::Strict).expect("valid");
        let keys: Vec<&str> = root.entries().expect("object")[..3]
            .iter()
            .map(|e| e.key.as_str())
            .collect();
        assert_eq!(keys, ["a", "b", "k0"]);
        assert_eq!(root.entries().map(<[Entry]>::len), Some(22));
        let a = root.get("a").expect("a");
        assert_eq!(a.line, 3);
        assert!(a.get("x").is_none());
        assert_eq!(a.get("y").map(|n| n.line), Some(3));
        assert_eq!(
            a.path(&["y"]).and_then(Node::items).map(|i| i[0].line),
            Some(4)
        );
        // `k0` stands on lines 5 and 25: the last one counts.
        assert_eq!(
            root.get("k0").map(|n| (n.line, n.scalar())),
            Some((25, Some("20")))
        );
    }

    #[test]
    fn only_the_kept_keys_are_built_but_the_whole_file_is_checked() {
        let text = indoc! {"
            {
              \"deps\": {\"a\": \"1\"},
              \"name\": \"web\",
              \"scripts\": {\"b\": \"c\"}
            }"};
        let root = read_json_keys(text, &["name", "scripts"], Checked).expect("valid");
        let keys: Vec<&str> = root
            .entries()
            .expect("object")
            .iter()
            .map(|e| e.key.as_str())
            .collect();
        assert_eq!(keys, ["name", "scripts"]);
        assert_eq!(root.path(&["scripts", "b"]).map(|n| n.line), Some(4));
        // What a built value would refuse is refused where it is skipped too.
        for bad in [
            r#"{"deps": "\ud800", "name": "x"}"#,
            r#"{"deps": 1e400}"#,
            "{\"a\": 1} x",
        ] {
            let full = read_json(bad, Dialect::Strict).expect_err(bad);
            let kept = read_json_keys(bad, &["name"], Checked).expect_err(bad);
            assert_eq!(full, kept);
        }
        // Unless only the syntax of the rest is checked.
        let lone = r#"{"deps": "\ud800", "name": "x"}"#;
        let root = read_json_keys(lone, &["name"], SyntaxOnly).expect("skipped unread");
        assert_eq!(root.get("name").and_then(Node::str), Some("x"));
        assert!(read_json_keys(r#"{"name": "\ud800"}"#, &["name"], SyntaxOnly).is_err());
        assert!(read_json_keys("{\"deps\": [1,], \"name\": 1}", &["name"], SyntaxOnly).is_err());
        let err = read_json_keys(
            indoc! {"
                {
                \"a\": [1,
                }"},
            &["a"],
            Checked,
        )
        .expect_err("invalid");
        assert_eq!(err.line, Some(3));
        assert!(err.message.starts_with("invalid JSON: "), "{}", err.message);
        assert!(!err.message.contains(" at line "), "{}", err.message);
        let deep = format!("{{\"a\": {}{}}}", "[".repeat(200), "]".repeat(200));
        assert!(read_json_keys(&deep, &["b"], Checked).is_err());
        // A root that is not an object is built whole.
        let root = read_json_keys("[1, 2]", &["a"], Checked).expect("valid");
        assert_eq!(root.items().map(<[Node]>::len), Some(2));
    }

    #[test]
    fn the_line_pass_moves_forward_whatever_the_text() {
        for text in [
            "{\"a\": ]",
            "[}",
            "{\"a\" 1 :",
            "[1 2",
            "{",
            "\"",
            "{\"\\",
            "]]]",
        ] {
            let mut root = Node::new(1, Value::Table(Vec::new()));
            let mut lines = Lines::new(text);
            lines.value(Some(&mut root));
        }
    }
}
