//! The attribute lines of a task body (`Requires:`, `Env:`, `Inputs:`, `Dir:`, `Run:`,
//! `RunDeps:`) and the small text helpers they need.

use crate::files::file_name;

/// The attribute keys xc knows (`doc/content/task-syntax`, `parser/parsemd`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Attr {
    Requires,
    Env,
    Inputs,
    Dir,
    Run,
    RunDeps,
    Interactive,
    Hidden,
}

/// Reads `Key: value` the way xc does: the key is what precedes the first `:`, with `*`, `_`
/// and backticks around it ignored and case ignored.
pub(super) fn attribute(line: &str) -> Option<(Attr, &str)> {
    let (key, value) = line.split_once(':')?;
    let key = trim_marks(key);
    // Keeps a long prose line with a colon from being lowercased for nothing.
    if key.len() > "rundependencies".len() {
        return None;
    }
    let attr = match key.to_ascii_lowercase().as_str() {
        "requires" | "req" => Attr::Requires,
        "env" | "environment" => Attr::Env,
        "inputs" => Attr::Inputs,
        "dir" | "directory" => Attr::Dir,
        "run" => Attr::Run,
        "rundeps" | "rundependencies" => Attr::RunDeps,
        "interactive" => Attr::Interactive,
        "hidden" => Attr::Hidden,
        _ => return None,
    };
    Some((attr, value))
}

/// A comma-separated attribute value, each entry trimmed like xc trims it; empty entries
/// (a trailing comma) are dropped rather than becoming a task named "".
pub(super) fn list(value: &str) -> impl Iterator<Item = String> + '_ {
    value
        .split(',')
        .map(trim_marks)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// Trims whitespace and the emphasis/code marks xc ignores around keys and values.
pub(super) fn trim_marks(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || matches!(c, '_' | '*' | '`'))
}

/// The interpreter a shebang names, unless it is `sh` or `bash`.
///
/// `/usr/bin/env` (and its `-S` flag) is dropped, as xc does, so `#!/usr/bin/env python3 -u`
/// gives `python3 -u`; a direct path stays as written (`/usr/bin/python3`). The executor runs
/// the first word with the other words, then the script file, as arguments.
pub(super) fn interpreter(script: &str) -> Option<String> {
    let first = script.trim_start().lines().next()?;
    let mut words = first.strip_prefix("#!")?.split_whitespace().peekable();
    if words.peek().is_some_and(|w| file_name(w) == "env") {
        words.next();
        while words.peek().is_some_and(|w| w.starts_with('-')) {
            words.next();
        }
    }
    let words: Vec<&str> = words.collect();
    match words.first() {
        None => None,
        Some(program) if matches!(file_name(program), "sh" | "bash") => None,
        Some(_) => Some(words.join(" ")),
    }
}
