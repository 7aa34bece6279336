//! tox environments: `tox.ini` (`[tox] envlist` and `[testenv:NAME]`), `tox.toml`
//! (`env_list` and `[env.NAME]`) and `[tool.tox]` of `pyproject.toml` (the same keys, or a
//! `legacy_tox_ini` string). Each runs as `tox -e NAME`, arguments after `--`.
//!
//! tox reads the first of `tox.ini`, `pyproject.toml` with `[tool.tox]` and `tox.toml`, so a
//! file tox would ignore is not listed. Brace groups (`py{311,312}-django{4,5}`) expand to
//! their product; generated `env_list` tables and `setup.cfg` are not read.

use std::collections::HashMap;

use super::Project;
use super::value::{self, Node};
use crate::{Parsed, RawTask, Runner, Source, parent};

/// One environment found in a file.
struct Env {
    name: String,
    line: u32,
    description: Option<String>,
}

pub(super) fn parse_file(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    let project = Project {
        path: src.path,
        dir: parent(src.path),
        files: src.files,
    };
    let envs = if crate::file_name(src.path) == "tox.ini" {
        read_ini(src.path, src.text, 0, &mut out)
    } else {
        if project
            .pyproject()
            .is_some_and(|p| p.path(&["tool", "tox"]).is_some())
        {
            out.diag(
                src.path,
                None,
                "tox ignores this file because pyproject.toml next to it has a [tool.tox] table",
            );
            return out;
        }
        match value::from_toml(src.text) {
            Ok(root) => read_toml(src.path, &root, &mut out),
            Err(err) => {
                out.diag(src.path, err.line, err.message);
                return out;
            }
        }
    };
    push(&project, envs, &mut out);
    out
}

pub(super) fn from_pyproject(project: &Project<'_>, root: &Node, out: &mut Parsed) {
    let Some(tox) = root.path(&["tool", "tox"]) else {
        return;
    };
    if project.has("tox.ini") {
        return;
    }
    let envs = if let Some(legacy) = tox.get("legacy_tox_ini") {
        // TOML drops the newline right after `"""`, so the text starts a line below.
        let Some(ini) = legacy.str() else {
            out.diag(
                project.path,
                Some(legacy.line),
                "`legacy_tox_ini` must be a string",
            );
            return;
        };
        read_ini(project.path, ini, legacy.line, out)
    } else {
        read_toml(project.path, tox, out)
    };
    push(project, envs, out);
}

fn push(project: &Project<'_>, envs: Vec<Env>, out: &mut Parsed) {
    for env in envs {
        let mut task = RawTask::new(
            Runner::Tox,
            env.name.clone(),
            project.dir,
            project.path,
            vec!["tox".to_owned(), "-e".to_owned(), env.name],
        );
        task.line = Some(env.line);
        task.description = env.description;
        out.tasks.push(task);
    }
}

/// Environments in the order first seen, indexed by name so a long list stays linear.
#[derive(Default)]
struct Envs {
    list: Vec<Env>,
    index: HashMap<String, usize>,
}

impl Envs {
    /// Adds `name` unless it is there already (then a description updates it) or is tox's
    /// own (`.pkg`).
    fn add(&mut self, name: String, line: u32, description: Option<String>) {
        if name.is_empty() || name.starts_with('.') {
            return;
        }
        if let Some(&at) = self.index.get(&name) {
            if let (Some(existing), Some(_)) = (self.list.get_mut(at), &description) {
                existing.description = description;
            }
            return;
        }
        self.index.insert(name.clone(), self.list.len());
        self.list.push(Env {
            name,
            line,
            description,
        });
    }
}

fn read_toml(path: &str, tox: &Node, out: &mut Parsed) -> Vec<Env> {
    let mut envs = Envs::default();
    let base = tox
        .path(&["env_run_base", "description"])
        .and_then(Node::str)
        .map(str::to_owned);
    if let Some(list) = tox.get("env_list") {
        match list.items() {
            Some(items) => {
                for item in items {
                    // Generated lists (`{ product = … }`) need tox's own evaluation.
                    if let Some(name) = item.str() {
                        envs.add(name.to_owned(), item.line, base.clone());
                    }
                }
            }
            None => out.diag(
                path,
                Some(list.line),
                format!("`env_list` must be an array, not {}", list.kind()),
            ),
        }
    }
    if let Some(env) = tox.get("env") {
        match env.entries() {
            Some(entries) => {
                for e in entries {
                    let description = e
                        .node
                        .get("description")
                        .and_then(Node::str)
                        .map(str::to_owned)
                        .or_else(|| base.clone());
                    envs.add(e.key.clone(), e.node.line, description);
                }
            }
            None => out.diag(
                path,
                Some(env.line),
                format!("`env` must be a table, not {}", env.kind()),
            ),
        }
    }
    envs.list
}

/// One `key = value` of an INI section, continuation lines joined with `\n`.
struct IniKey {
    section: String,
    key: String,
    value: String,
    line: u32,
}

/// Reads INI text; `offset` is added to every line (for `legacy_tox_ini`).
fn read_ini(path: &str, text: &str, offset: u32, out: &mut Parsed) -> Vec<Env> {
    let mut keys: Vec<IniKey> = Vec::new();
    let mut sections: Vec<(String, u32)> = Vec::new();
    let mut section = String::new();
    for (i, raw) in text.lines().enumerate() {
        let line = u32::try_from(i + 1)
            .unwrap_or(u32::MAX)
            .saturating_add(offset);
        let trimmed = raw.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        if raw.starts_with([' ', '\t'])
            && let Some(last) = keys.last_mut().filter(|k| k.section == section)
        {
            last.value.push('\n');
            last.value.push_str(trimmed);
            continue;
        }
        if let Some(rest) = trimmed.strip_prefix('[') {
            if let Some(name) = rest.strip_suffix(']') {
                name.trim().clone_into(&mut section);
                sections.push((section.clone(), line));
            } else {
                out.diag(path, Some(line), "section header is missing its `]`");
            }
            continue;
        }
        match trimmed.find(['=', ':']) {
            Some(at) if !section.is_empty() => keys.push(IniKey {
                section: section.clone(),
                key: trimmed[..at].trim().to_owned(),
                value: trimmed[at + 1..].trim().to_owned(),
                line,
            }),
            _ => out.diag(
                path,
                Some(line),
                "tox cannot read this line: it is not a `[section]`, a `key = value` or a comment",
            ),
        }
    }
    // The last value of each key wins, as in configparser; `env-list` means `env_list`.
    let by_key: HashMap<(&str, String), &IniKey> = keys
        .iter()
        .map(|k| ((k.section.as_str(), k.key.replace('-', "_")), k))
        .collect();
    let get = |section: &str, key: &str| by_key.get(&(section, key.to_owned())).copied();
    let base = get("testenv", "description").map(|k| one_line(&k.value));
    let mut envs = Envs::default();
    if let Some(list) = get("tox", "envlist").or_else(|| get("tox", "env_list")) {
        for word in split_top_level(&list.value) {
            match expand(&word) {
                Some(names) => {
                    for name in names {
                        envs.add(name, list.line, base.clone());
                    }
                }
                None => out.diag(
                    path,
                    Some(list.line),
                    format!("env list entry `{word}` has unbalanced braces"),
                ),
            }
        }
    }
    for (name, line) in &sections {
        let Some(env) = name.strip_prefix("testenv:") else {
            continue;
        };
        let description = get(name, "description")
            .map(|k| one_line(&k.value))
            .or_else(|| base.clone());
        match expand(env.trim()) {
            Some(names) => {
                for n in names {
                    envs.add(n, *line, description.clone());
                }
            }
            None => out.diag(
                path,
                Some(*line),
                format!("environment `{env}` has unbalanced braces"),
            ),
        }
    }
    envs.list
}

fn one_line(value: &str) -> String {
    value.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Splits an env list on commas and newlines outside braces, dropping comments.
fn split_top_level(list: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for line in list.lines() {
        let line = line.split(" #").next().unwrap_or(line);
        if line.trim_start().starts_with('#') {
            continue;
        }
        for c in line.chars() {
            match c {
                '{' => depth += 1,
                '}' => depth = depth.saturating_sub(1),
                ',' if depth == 0 => {
                    words.push(std::mem::take(&mut current));
                    continue;
                }
                _ => {}
            }
            current.push(c);
        }
        if depth == 0 {
            words.push(std::mem::take(&mut current));
        }
    }
    words.push(current);
    words
        .into_iter()
        .map(|w| w.trim().to_owned())
        .filter(|w| !w.is_empty())
        .collect()
}

/// Expands brace groups into their product: `py{311,312}-x` → `py311-x`, `py312-x`. `None`
/// when the braces do not balance or nest. The product is capped so a hostile list stays
/// small.
fn expand(word: &str) -> Option<Vec<String>> {
    const MAX: usize = 1024;
    let mut results = vec![String::new()];
    let mut rest = word;
    while !rest.is_empty() {
        match rest.find(['{', '}']) {
            None => {
                for r in &mut results {
                    r.push_str(rest);
                }
                break;
            }
            Some(at) if rest[at..].starts_with('}') => return None,
            Some(at) => {
                let literal = &rest[..at];
                let after = &rest[at + 1..];
                let close = after.find(['{', '}'])?;
                if after[close..].starts_with('{') {
                    return None;
                }
                let choices: Vec<&str> = after[..close].split(',').map(str::trim).collect();
                let mut next = Vec::new();
                for r in &results {
                    for choice in &choices {
                        if next.len() >= MAX {
                            break;
                        }
                        next.push(format!("{r}{literal}{choice}"));
                    }
                }
                results = next;
                rest = &after[close + 1..];
            }
        }
    }
    Some(results)
}

#[cfg(test)]
mod tests {
    use super::expand;
    use crate::MemFiles;
    use crate::testing::{messages, names, parse_with, task};

    #[test]
    fn braces_expand_to_their_product() {
        assert_eq!(
            expand("py{311,312}-django{4, 5}"),
            Some(vec![
                "py311-django4".to_owned(),
                "py311-django5".to_owned(),
                "py312-django4".to_owned(),
                "py312-django5".to_owned()
            ])
        );
        assert_eq!(expand("lint"), Some(vec!["lint".to_owned()]));
        assert_eq!(expand("py{3"), None);
        assert_eq!(expand("py}"), None);
        assert!(expand(&"{a,b,c,d}".repeat(20)).is_some_and(|v| v.len() <= 1024));
    }

    #[test]
    fn tox_ini_lists_envlist_then_sections() {
        let ini = "[tox]\nenvlist =\n    py{311,312}\n    lint, type  # comment\nskip_missing_interpreters = true\n\n[testenv]\ndescription = run the tests\n  with pytest\ncommands = pytest {posargs}\n\n[testenv:lint]\ndescription = lint the code\ncommands = ruff check .\n\n[testenv:docs]\ncommands = mkdocs build\n\n[testenv:.pkg]\n[flake8]\nmax-line-length = 100\n";
        let files = MemFiles::new().with("tox.ini", ini);
        let parsed = parse_with(super::parse_file, &files, "tox.ini");
        assert_eq!(names(&parsed), ["py311", "py312", "lint", "type", "docs"]);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let py = task(&parsed, "py311");
        assert_eq!(py.argv, ["tox", "-e", "py311"]);
        assert_eq!(py.line, Some(2));
        assert_eq!(py.description.as_deref(), Some("run the tests with pytest"));
        assert_eq!(
            task(&parsed, "lint").description.as_deref(),
            Some("lint the code")
        );
        assert_eq!(task(&parsed, "docs").line, Some(16));
    }

    #[test]
    fn tox_toml_and_pyproject() {
        let toml = "env_list = [\"3.13\", \"lint\"]\n[env_run_base]\ndescription = \"run tests\"\n[env.lint]\ndescription = \"lint\"\n[env.docs]\n";
        let files = MemFiles::new().with("tox.toml", toml);
        let parsed = parse_with(super::parse_file, &files, "tox.toml");
        assert_eq!(names(&parsed), ["3.13", "lint", "docs"]);
        assert_eq!(
            task(&parsed, "3.13").description.as_deref(),
            Some("run tests")
        );
        assert_eq!(task(&parsed, "lint").description.as_deref(), Some("lint"));
        assert_eq!(task(&parsed, "docs").line, Some(6));

        let pyproject = "[tool.tox]\nenv_list = [\"a\"]\n";
        let files = MemFiles::new()
            .with("pyproject.toml", pyproject)
            .with("tox.toml", toml);
        let parsed = parse_with(super::parse_file, &files, "tox.toml");
        assert!(parsed.tasks.is_empty());
        assert_eq!(parsed.diagnostics.len(), 1);
        let parsed = parse_with(super::super::PYPROJECT.parse, &files, "pyproject.toml");
        assert_eq!(names(&parsed), ["a"]);

        let legacy =
            "[tool.tox]\nlegacy_tox_ini = \"\"\"\n[tox]\nenvlist = a,b\n[testenv:c]\n\"\"\"\n";
        let files = MemFiles::new().with("pyproject.toml", legacy);
        let parsed = parse_with(super::super::PYPROJECT.parse, &files, "pyproject.toml");
        assert_eq!(names(&parsed), ["a", "b", "c"]);
        assert_eq!(task(&parsed, "c").line, Some(5));

        let files = MemFiles::new()
            .with("pyproject.toml", pyproject)
            .with("tox.ini", "[tox]\n");
        let parsed = parse_with(super::super::PYPROJECT.parse, &files, "pyproject.toml");
        assert!(parsed.tasks.is_empty());
    }

    #[test]
    fn bad_tox_input_is_reported() {
        let ini = "[tox]\nenvlist = py{3, ok\nthis is not ini\n[testenv:x\n[testenv:fine]\n";
        let files = MemFiles::new().with("tox.ini", ini);
        let parsed = parse_with(super::parse_file, &files, "tox.ini");
        assert_eq!(names(&parsed), ["fine"]);
        let lines: Vec<Option<u32>> = messages(&parsed).iter().map(|m| m.1).collect();
        assert_eq!(lines, [Some(3), Some(4), Some(2)]);
        let files = MemFiles::new().with("tox.toml", "env_list = 3\n[env]\nx = [");
        let parsed = parse_with(super::parse_file, &files, "tox.toml");
        assert_eq!(parsed.diagnostics.len(), 1);
        assert!(parsed.tasks.is_empty());
    }
}
