//! Cargo aliases: the `[alias]` table of `.cargo/config.toml` (or the legacy
//! `.cargo/config`, which cargo prefers when both exist).
//!
//! An alias is a string (split on whitespace, as cargo does) or an array of words. One named
//! like a built-in cargo command is ignored by cargo, so it is reported instead of listed.
//! The alias belongs to the directory that holds `.cargo/`; the comment block directly
//! above an alias is its description.

use crate::{LineIndex, Parsed, RawTask, Runner, Source, registry::Adapter};

/// The Cargo alias adapter.
pub const ADAPTER: Adapter = Adapter {
    name: "cargo config",
    candidate,
    one_per_dir: true,
    parse,
};

/// Built-in cargo commands; a user alias with one of these names is never used. (The
/// built-in *aliases* `b`, `c`, `d`, `r`, `t` and `rm` may be redefined by users.)
const BUILTIN: &[&str] = &[
    "add",
    "bench",
    "build",
    "check",
    "clean",
    "config",
    "doc",
    "fetch",
    "fix",
    "generate-lockfile",
    "git-checkout",
    "help",
    "info",
    "init",
    "install",
    "locate-project",
    "login",
    "logout",
    "metadata",
    "new",
    "owner",
    "package",
    "pkgid",
    "publish",
    "read-manifest",
    "remove",
    "report",
    "run",
    "rustc",
    "rustdoc",
    "search",
    "tree",
    "uninstall",
    "update",
    "vendor",
    "verify-project",
    "version",
    "yank",
];

fn candidate(path: &str) -> Option<u8> {
    let mut parts = path.rsplit('/');
    let name = parts.next()?;
    if parts.next()? != ".cargo" {
        return None;
    }
    match name {
        "config" => Some(0),
        "config.toml" => Some(1),
        _ => None,
    }
}

fn parse(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    let lines = LineIndex::new(src.text);
    let table: toml::Table = match toml::from_str(src.text) {
        Ok(t) => t,
        Err(e) => {
            let line = e.span().map(|s| lines.line(s.start));
            out.diag(src.path, line, format!("invalid TOML: {}", e.message().trim()));
            return out;
        }
    };
    let Some(aliases) = table.get("alias") else {
        return out;
    };
    let Some(aliases) = aliases.as_table() else {
        out.diag(src.path, key_line(src.text, "alias"), "`alias` is not a table");
        return out;
    };
    // `.cargo/config.toml` in `web/` belongs to `web`.
    let cargo_dir = crate::parent(src.path);
    let dir = crate::parent(cargo_dir);
    for (name, value) in aliases {
        let line = alias_line(src.text, name);
        let words: Vec<String> = match value {
            toml::Value::String(s) => s.split_whitespace().map(str::to_owned).collect(),
            toml::Value::Array(items) => {
                let words: Option<Vec<String>> = items
                    .iter()
                    .map(|v| v.as_str().map(str::to_owned))
                    .collect();
                if let Some(words) = words {
                    words
                } else {
                    out.diag(
                        src.path,
                        line,
                        format!("alias `{name}`: every word of an array alias must be a string"),
                    );
                    continue;
                }
            }
            _ => {
                out.diag(
                    src.path,
                    line,
                    format!("alias `{name}` must be a string or an array of strings"),
                );
                continue;
            }
        };
        if BUILTIN.contains(&name.as_str()) {
            out.diag(
                src.path,
                line,
                format!(
                    "alias `{name}` is shadowed by the built-in cargo command and is never used"
                ),
            );
            continue;
        }
        if words.is_empty() {
            out.diag(src.path, line, format!("alias `{name}` is empty"));
            continue;
        }
        let mut task = RawTask::new(
            Runner::Cargo,
            name.clone(),
            dir,
            src.path,
            vec!["cargo".to_owned(), name.clone()],
        );
        task.line = line;
        task.description = line.and_then(|l| comment_above(src.text, l));
        task.script = Some(crate::quote_command(&words));
        out.tasks.push(task);
    }
    out
}

/// The 1-based line of a top-level key or table header named `key`.
fn key_line(text: &str, key: &str) -> Option<u32> {
    text.lines().position(|l| {
        let l = l.trim_start();
        l.strip_prefix('[')
            .map_or(l, |r| r.trim_start())
            .starts_with(key)
    })
    .and_then(|i| u32::try_from(i + 1).ok())
}

/// The line defining alias `name`: `name = …` inside `[alias]`, or `alias.name = …`.
fn alias_line(text: &str, name: &str) -> Option<u32> {
    let quoted = [
        name.to_owned(),
        format!("\"{name}\""),
        format!("'{name}'"),
    ];
    let mut in_alias = false;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with('[') {
            in_alias = line.trim_start_matches('[').trim_end_matches(']').trim() == "alias";
            continue;
        }
        let Some((key, _)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim();
        let key = if in_alias {
            Some(key)
        } else {
            key.strip_prefix("alias")
                .map(str::trim_start)
                .and_then(|k| k.strip_prefix('.'))
                .map(str::trim)
        };
        if key.is_some_and(|k| quoted.iter().any(|q| q == k)) {
            return u32::try_from(i + 1).ok();
        }
    }
    None
}

/// The `#` comment lines directly above `line` (1-based), joined with spaces.
fn comment_above(text: &str, line: u32) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut i = usize::try_from(line).ok()?.checked_sub(1)?;
    let mut block = Vec::new();
    while i > 0 {
        i -= 1;
        let Some(comment) = lines.get(i).and_then(|l| l.trim().strip_prefix('#')) else {
            break;
        };
        block.push(comment.trim());
    }
    block.reverse();
    let text = block.join(" ").trim().to_owned();
    (!text.is_empty()).then_some(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemFiles;

    fn run(path: &str, text: &str) -> Parsed {
        let files = MemFiles::new();
        parse(&Source {
            path,
            text,
            files: &files,
        })
    }

    #[test]
    fn only_cargo_config_files_are_candidates() {
        assert_eq!(candidate(".cargo/config"), Some(0));
        assert_eq!(candidate("web/.cargo/config.toml"), Some(1));
        assert_eq!(candidate("config.toml"), None);
        assert_eq!(candidate("cargo/config.toml"), None);
    }

    #[test]
    fn string_and_array_aliases_with_comments() {
        let text = "[build]\njobs = 4\n\n[alias]\n# Run the xtask helper\nxtask = \"run --package xtask --\"\nlint = [\"clippy\", \"--all-targets\", \"--\", \"-D\", \"warnings\"]\n\"quoted\" = \"test --doc\"\n";
        let p = run(".cargo/config.toml", text);
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        let names: Vec<&str> = p.tasks.iter().map(|t| t.source_name.as_str()).collect();
        assert_eq!(names, ["xtask", "lint", "quoted"]);
        let xtask = &p.tasks[0];
        assert_eq!(xtask.dir, ".");
        assert_eq!(xtask.line, Some(6));
        assert_eq!(xtask.description.as_deref(), Some("Run the xtask helper"));
        assert_eq!(xtask.argv, ["cargo", "xtask"]);
        assert_eq!(xtask.script.as_deref(), Some("run --package xtask --"));
        assert_eq!(p.tasks[1].script.as_deref(), Some("clippy --all-targets -- -D warnings"));
        assert_eq!(p.tasks[1].description, None);
        assert_eq!(p.tasks[2].line, Some(8));
    }

    #[test]
    fn dotted_keys_and_the_owning_directory() {
        let p = run("tools/.cargo/config", "alias.t2 = \"test --workspace\"\n");
        assert_eq!(p.tasks[0].source_name, "t2");
        assert_eq!(p.tasks[0].dir, "tools");
        assert_eq!(p.tasks[0].line, Some(1));
    }

    #[test]
    fn a_builtin_name_is_reported_not_listed_but_builtin_aliases_may_be_redefined() {
        let p = run(".cargo/config.toml", "[alias]\nbuild = \"check\"\nb = \"build --release\"\n");
        let names: Vec<&str> = p.tasks.iter().map(|t| t.source_name.as_str()).collect();
        assert_eq!(names, ["b"]);
        assert_eq!(p.diagnostics.len(), 1);
        assert_eq!(p.diagnostics[0].line, Some(2));
        assert!(p.diagnostics[0].message.contains("shadowed"));
    }

    #[test]
    fn bad_values_and_bad_toml_are_diagnostics_with_lines() {
        let p = run(".cargo/config.toml", "[alias]\nn = 3\nok = \"fmt\"\narr = [\"a\", 1]\n");
        assert_eq!(p.tasks.len(), 1);
        let lines: Vec<Option<u32>> = p.diagnostics.iter().map(|d| d.line).collect();
        assert_eq!(lines, [Some(2), Some(4)]);
        let p = run(".cargo/config.toml", "[alias]\nx = \"unterminated\n");
        assert!(p.tasks.is_empty());
        assert_eq!(p.diagnostics[0].line, Some(2));
        assert!(p.diagnostics[0].message.starts_with("invalid TOML"));
    }

    #[test]
    fn crlf_and_no_alias_table() {
        let p = run(".cargo/config.toml", "[alias]\r\n# Docs\r\nd2 = \"doc --open\"\r\n");
        assert_eq!(p.tasks[0].description.as_deref(), Some("Docs"));
        assert!(run(".cargo/config.toml", "[build]\njobs = 2\n").tasks.is_empty());
    }
}
