//! The comment header of a file task: `#MISE key=value` lines (also `//MISE`, `::MISE` and
//! `# [MISE]`), each a line of TOML (an array left open goes on over the next header lines),
//! and the first block of `#USAGE` lines, the task's usage spec.

use std::collections::HashMap;

use crate::doc::{self, Entry, Node, Value};

/// What a file task's header says.
pub(super) struct Header {
    /// The `#MISE` settings, merged in file order (a later key wins).
    pub settings: Node,
    /// The usage spec, one line per `#USAGE` line.
    pub usage: String,
    /// Header lines that are not valid TOML: (1-based line, message).
    pub errors: Vec<(u32, String)>,
}

/// The text after a `#MISE`-style marker, and whether the marker was `MISE` (not `USAGE`).
fn marked(line: &str) -> Option<(bool, &str)> {
    let rest = line
        .strip_prefix('#')
        .or_else(|| line.strip_prefix("//"))
        .or_else(|| line.strip_prefix("::"))?;
    let trimmed = rest.trim_start();
    for (marker, mise) in [
        ("MISE", true),
        ("[MISE]", true),
        ("USAGE", false),
        ("[USAGE]", false),
    ] {
        if let Some(after) = trimmed.strip_prefix(marker)
            && (after.is_empty() || after.starts_with([' ', '\t']))
        {
            return Some((mise, after.trim()));
        }
    }
    None
}

/// Whether `content` starts a `key=value` entry.
fn is_entry(content: &str) -> bool {
    content.split_once('=').is_some_and(|(key, value)| {
        let key = key.trim_end();
        !key.is_empty()
            && !value.trim().is_empty()
            && key
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"_.-".contains(&b))
    })
}

/// How many `[` are still open at the end of `text`, outside strings.
fn open_brackets(text: &str, mut depth: i64) -> i64 {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in text.chars() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' && q == '"' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None => match c {
                '"' | '\'' => quote = Some(c),
                '[' | '{' => depth += 1,
                ']' | '}' => depth -= 1,
                '#' => break,
                _ => {}
            },
        }
    }
    depth
}

/// Reads the header of a file task's text.
pub(super) fn read(text: &str) -> Header {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut entries = Entries::default();
    let mut errors = Vec::new();
    let mut usage: Vec<&str> = Vec::new();
    let mut usage_done = false;
    // An entry being read: its TOML so far, its first line, and its open brackets.
    let mut open: Option<(String, u32, i64)> = None;
    for (i, line) in text.lines().enumerate() {
        let number = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let Some((mise, content)) = marked(line) else {
            if let Some((toml, start, _)) = open.take() {
                parse_entry(&toml, start, &mut entries, &mut errors);
            }
            if !usage.is_empty() && !is_blank_comment(line) {
                usage_done = true;
            }
            continue;
        };
        if let Some((mut toml, start, depth)) = open.take() {
            toml.push('\n');
            toml.push_str(content);
            let depth = open_brackets(content, depth);
            if depth > 0 {
                open = Some((toml, start, depth));
            } else {
                parse_entry(&toml, start, &mut entries, &mut errors);
            }
            continue;
        }
        if mise && is_entry(content) {
            let depth = open_brackets(content, 0);
            if depth > 0 {
                open = Some((content.to_owned(), number, depth));
            } else {
                parse_entry(content, number, &mut entries, &mut errors);
            }
        } else if !usage_done {
            usage.push(content);
        }
    }
    if let Some((toml, start, _)) = open {
        parse_entry(&toml, start, &mut entries, &mut errors);
    }
    Header {
        settings: Node {
            line: 1,
            value: Value::Table(entries.list),
        },
        usage: usage.join("\n"),
        errors,
    }
}

fn is_blank_comment(line: &str) -> bool {
    matches!(line.trim(), "#" | "//" | "::")
}

/// The settings read so far, with an index by key so that a header of many keys stays linear.
#[derive(Default)]
struct Entries {
    list: Vec<Entry>,
    at: HashMap<String, usize>,
}

/// Parses one `key=value` entry and merges its keys into `entries` (later keys win).
fn parse_entry(toml: &str, line: u32, entries: &mut Entries, errors: &mut Vec<(u32, String)>) {
    match doc::read_toml(toml) {
        Ok(node) => {
            let Value::Table(parsed) = node.value else {
                return;
            };
            for mut entry in parsed {
                entry.node.line = line + entry.node.line.saturating_sub(1);
                if let Some(&i) = entries.at.get(&entry.key) {
                    entries.list[i] = entry;
                } else {
                    entries.at.insert(entry.key.clone(), entries.list.len());
                    entries.list.push(entry);
                }
            }
        }
        Err(err) => errors.push((
            line + err.line.unwrap_or(1).saturating_sub(1),
            format!(
                "invalid #MISE header: {}",
                err.message.trim_start_matches("invalid TOML: ")
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use indoc::indoc;

    #[test]
    fn settings_usage_and_multiline_arrays() {
        let text = indoc! {"
            #!/usr/bin/env bash
            #MISE description=\"Deploy it\"
            # [MISE] alias=\"d\"
            //MISE depends=[
            //MISE   \"build\",
            //MISE ]
            #USAGE arg \"<env>\"
            #
            #USAGE flag \"--force\"
            echo hi
            #USAGE arg \"<late>\"
        "};
        let header = read(text);
        assert_eq!(
            header.settings.get("description").and_then(Node::str),
            Some("Deploy it")
        );
        assert_eq!(header.settings.get("alias").map(|n| n.line), Some(3));
        let deps = header.settings.get("depends").and_then(Node::items);
        assert_eq!(deps.map(<[Node]>::len), Some(1));
        assert_eq!(header.usage, "arg \"<env>\"\nflag \"--force\"");
        assert!(header.errors.is_empty());
    }

    #[test]
    fn a_bad_entry_is_an_error_on_its_line_and_the_rest_is_kept() {
        let header = read(indoc! {"
            #!/bin/sh
            #MISE description=\"ok\"
            #MISE hide=nope
            #MISE depends=[\"a\"
        "});
        assert_eq!(header.errors.len(), 2, "{:?}", header.errors);
        assert_eq!(header.errors[0].0, 3);
        assert_eq!(header.errors[1].0, 4);
        assert_eq!(
            header.settings.get("description").and_then(Node::str),
            Some("ok")
        );
    }

    #[test]
    fn a_later_key_wins_and_markers_need_a_space() {
        let header = read(indoc! {"
            #MISE description=\"a\"
            #MISEdescription=\"x\"
            #MISE description=\"b\"
        "});
        assert_eq!(
            header.settings.get("description").and_then(Node::str),
            Some("b")
        );
    }
}
