//! What a `package.json` script reads, for a pin: the package fields it refers to as
//! `$npm_package_*` (its `config` values, its `version`), the package manager the file
//! names, and the other scripts it runs (`npm run lint`, `pnpm build`); its `pre`/`post`
//! hooks are part of the task already. Everything else in the file — other scripts, the
//! version, dependencies, layout — is not read, so an edit there keeps the allow.

use crate::doc::Node;
use crate::reads::Reads;

/// What the script `command` (with its hooks' commands, `hooks`) reads of the package
/// `root`, whose scripts `is_script` names.
pub(super) fn reads(
    root: &Node,
    command: &str,
    hooks: &[&str],
    is_script: &dyn Fn(&str) -> bool,
) -> Reads {
    let mut reads = Reads::default();
    for text in std::iter::once(command).chain(hooks.iter().copied()) {
        for rest in package_fields(text) {
            let (path, value) = lookup(root, rest);
            reads.part(format!("package.json `{path}`"), value);
        }
        for script in scripts_run(text) {
            if is_script(script) {
                reads.runs(script);
            }
        }
    }
    // corepack runs the package manager's version this names.
    if let Some(manager) = root.get("packageManager") {
        reads.part("package.json `packageManager`", manager.canonical());
    }
    reads
}

/// What follows `npm_package_` wherever the script names such a variable: `$npm_package_x`,
/// `${npm_package_x}`, `%npm_package_x%`, `process.env.npm_package_x`.
fn package_fields(text: &str) -> Vec<&str> {
    let mut out: Vec<&str> = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("npm_package_") {
        let before = rest[..at].chars().next_back();
        let after = &rest[at + "npm_package_".len()..];
        let end = after
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .unwrap_or(after.len());
        let name = &after[..end];
        let own = before.is_none_or(|c| !c.is_ascii_alphanumeric() && c != '_');
        if own && !name.is_empty() && !out.contains(&name) {
            out.push(name);
        }
        rest = &after[end..];
    }
    out
}

/// The field `npm_package_<rest>` stands for, as a dotted path, and its value: npm joins
/// the path with `_` (`config_port` is `config.port`), so each step takes the longest key
/// that matches. A field that is not there is empty, so adding it is a change.
fn lookup(root: &Node, rest: &str) -> (String, String) {
    let mut node = root;
    let mut path: Vec<&str> = Vec::new();
    let mut left = rest;
    while !left.is_empty() {
        let found = node.entries().and_then(|entries| {
            entries
                .iter()
                .filter(|e| {
                    left == e.key
                        || left
                            .strip_prefix(e.key.as_str())
                            .is_some_and(|after| after.starts_with('_'))
                })
                .max_by_key(|e| e.key.len())
        });
        let Some(entry) = found else {
            path.push(left);
            return (path.join("."), String::new());
        };
        path.push(&entry.key);
        node = &entry.node;
        left = left[entry.key.len()..].trim_start_matches('_');
    }
    (path.join("."), node.canonical())
}

/// The scripts `text` runs through the package manager: `npm run X`, `npm test`, `pnpm X`,
/// `pnpm run X`, `yarn X`, `yarn run X`, `bun run X`, with any flags before the name
/// skipped.
fn scripts_run(text: &str) -> Vec<&str> {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')'))
        .filter(|w| !w.is_empty())
        .collect();
    let mut out = Vec::new();
    for (i, word) in words.iter().enumerate() {
        let rest = &words[i + 1..];
        let mut names = rest.iter().copied().skip_while(|w| w.starts_with('-'));
        let named = match *word {
            "npm" => match names.next() {
                Some("run" | "run-script" | "rum" | "urn") => names.find(|w| !w.starts_with('-')),
                Some(lifecycle @ ("test" | "start" | "stop" | "restart")) => Some(lifecycle),
                Some("t" | "tst") => Some("test"),
                _ => None,
            },
            "pnpm" | "yarn" => match names.next() {
                Some("run") => names.find(|w| !w.starts_with('-')),
                other => other,
            },
            "bun" => match names.next() {
                Some("run") => names.find(|w| !w.starts_with('-')),
                _ => None,
            },
            _ => None,
        };
        out.extend(named.map(|n| n.trim_matches(['"', '\''])));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::{Dialect, read_json};

    const PACKAGE: &str = r#"{
  "name": "web",
  "version": "1.2.3",
  "config": {"port": "8080", "deep": {"key": 1}},
  "packageManager": "pnpm@9.0.0",
  "dependencies": {"left-pad": "1.0.0"},
  "scripts": {"lint": "eslint .", "test": "npm run lint && jest --port $npm_package_config_port"}
}"#;

    fn read(text: &str, command: &str) -> Reads {
        let root = read_json(text, Dialect::Strict).expect("valid");
        reads(&root, command, &[], &|s| {
            ["lint", "test", "build"].contains(&s)
        })
    }

    #[test]
    fn a_script_reads_the_fields_it_names_and_the_scripts_it_runs() {
        let test = read(
            PACKAGE,
            "npm run lint && jest --port $npm_package_config_port",
        );
        let parts: Vec<(&str, &str)> = test
            .parts
            .iter()
            .map(|p| (p.what.as_str(), p.text.as_str()))
            .collect();
        assert_eq!(
            parts,
            [
                ("package.json `config.port`", "\"8080\""),
                ("package.json `packageManager`", "\"pnpm@9.0.0\""),
            ]
        );
        assert_eq!(test.runs, ["lint"]);
        let deep = read(
            PACKAGE,
            "echo ${npm_package_config_deep_key} $npm_package_nope",
        );
        let whats: Vec<&str> = deep.parts.iter().map(|p| p.what.as_str()).collect();
        assert_eq!(
            whats,
            [
                "package.json `config.deep.key`",
                "package.json `nope`",
                "package.json `packageManager`"
            ]
        );
    }

    #[test]
    fn the_version_dependencies_and_layout_are_not_read() {
        let bumped = PACKAGE
            .replace("1.2.3", "1.3.0")
            .replace("1.0.0", "2.0.0")
            .replace(", ", ",\n    ");
        let command = "npm run lint && jest --port $npm_package_config_port";
        assert_eq!(read(PACKAGE, command), read(&bumped, command));
        let moved = PACKAGE.replace("8080", "9090");
        assert_ne!(read(PACKAGE, command), read(&moved, command));
    }

    #[test]
    fn package_fields_in_every_spelling() {
        assert_eq!(
            package_fields(
                "echo $npm_package_a ${npm_package_b_c} %npm_package_d% process.env.npm_package_e xnpm_package_f"
            ),
            ["a", "b_c", "d", "e"]
        );
    }

    #[test]
    fn scripts_run_through_every_package_manager() {
        assert_eq!(
            scripts_run("npm run -s build && pnpm lint; yarn run test|bun run x & npm test"),
            ["build", "lint", "test", "x", "test"]
        );
        assert_eq!(scripts_run("npm install && npx jest"), Vec::<&str>::new());
    }
}
