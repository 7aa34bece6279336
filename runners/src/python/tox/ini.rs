//! tox's INI configuration (`tox.ini`, `legacy_tox_ini`): sections and keys read the way
//! Python's configparser reads them, then the environments tox 4 knows of, in its order:
//! `env_list`, the `[testenv:…]` sections, and the environments only a factor condition
//! names (`nobyte: …` when no listed environment has the factor `nobyte`).

use std::collections::{HashMap, HashSet};

use super::factor;
use super::replace::{Budget, Settings, substitute};
use super::{DEFAULT_ENV, Env, Envs, Resolve};
use crate::model::Parsed;

/// Settings tox knows under two spellings: each pair is one setting.
const ALIASES: &[(&str, &str)] = &[
    ("env_list", "envlist"),
    ("set_env", "setenv"),
    ("base_python", "basepython"),
    ("work_dir", "toxworkdir"),
    ("change_dir", "changedir"),
];

/// One `key = value`, continuation lines joined with `\n` (full-line comments dropped,
/// inline ones kept, as configparser keeps them).
struct Key {
    name: String,
    value: String,
    line: u32,
    /// The line of each line of `value`.
    lines: Vec<u32>,
}

struct Section {
    name: String,
    line: u32,
    keys: Vec<Key>,
}

/// A read INI file.
pub(super) struct Ini {
    sections: Vec<Section>,
    /// For each environment declared by a `[testenv:…]` header, those sections in order.
    mapping: HashMap<String, Vec<usize>>,
    /// What the file's substitutions may still cost.
    budget: Budget,
}

/// Reads INI text; `offset` is added to every line (for `legacy_tox_ini`). Lines it cannot
/// read are reported and skipped.
pub(super) fn parse(path: &str, text: &str, offset: u32, out: &mut Parsed) -> Ini {
    let mut sections: Vec<Section> = Vec::new();
    let mut blanks = 0usize;
    for (i, raw) in text.lines().enumerate() {
        let line = u32::try_from(i + 1)
            .unwrap_or(u32::MAX)
            .saturating_add(offset);
        let trimmed = raw.trim();
        if trimmed.is_empty() {
            blanks += 1;
            continue;
        }
        if trimmed.starts_with('#') || trimmed.starts_with(';') {
            continue;
        }
        if raw.starts_with([' ', '\t'])
            && let Some(last) = sections.last_mut().and_then(|s| s.keys.last_mut())
        {
            for back in (0..=blanks).rev() {
                last.value.push('\n');
                last.lines
                    .push(line.saturating_sub(u32::try_from(back).unwrap_or(0)));
            }
            last.value.push_str(trimmed);
            blanks = 0;
            continue;
        }
        blanks = 0;
        if let Some(rest) = trimmed.strip_prefix('[') {
            if let Some(name) = rest.strip_suffix(']') {
                sections.push(Section {
                    name: name.trim().to_owned(),
                    line,
                    keys: Vec::new(),
                });
            } else {
                out.diag(path, Some(line), "section header is missing its `]`");
            }
            continue;
        }
        match (trimmed.find(['=', ':']), sections.last_mut()) {
            (Some(at), Some(section)) => section.keys.push(Key {
                name: trimmed[..at].trim().to_lowercase().replace('-', "_"),
                value: trimmed[at + 1..].trim().to_owned(),
                line,
                lines: vec![line],
            }),
            _ => out.diag(
                path,
                Some(line),
                "tox cannot read this line: it is not a `[section]`, a `key = value` or a comment",
            ),
        }
    }
    let mut mapping: HashMap<String, Vec<usize>> = HashMap::new();
    for (at, section) in sections.iter().enumerate() {
        if let Some(expr) = section.name.strip_prefix("testenv:") {
            for name in factor::env_names(expr.trim()).unwrap_or_default() {
                mapping.entry(name).or_default().push(at);
            }
        }
    }
    Ini {
        sections,
        mapping,
        budget: Budget::default(),
    }
}

impl Ini {
    /// The raw value of `key` (or its other spelling) in section number `at`; the last
    /// one wins, as in configparser.
    fn key_in(&self, at: usize, key: &str) -> Option<&Key> {
        let other = ALIASES.iter().find_map(|&(a, b)| {
            if a == key {
                Some(b)
            } else if b == key {
                Some(a)
            } else {
                None
            }
        });
        self.sections
            .get(at)?
            .keys
            .iter()
            .rev()
            .find(|k| k.name == key || Some(k.name.as_str()) == other)
    }

    fn index(&self, name: &str) -> Option<usize> {
        self.sections.iter().position(|s| s.name == name)
    }

    /// The environments tox lists, in its order, each described as tox describes it.
    pub(super) fn envs(&self, path: &str, out: &mut Parsed) -> Vec<Env> {
        let mut envs = Envs::default();
        let mut known: HashSet<String> = HashSet::new();
        let core = self.index("tox");
        let mut written = false;
        if let Some(list) = core.and_then(|at| self.key_in(at, "env_list")) {
            let value = process(&list.value, None).unwrap_or_default();
            written = !value.trim().is_empty();
            for expr in value.lines() {
                // The line the entry is written on (a continuation line of the list).
                let line = list
                    .value
                    .split('\n')
                    .position(|raw| !expr.trim().is_empty() && raw.contains(expr.trim()))
                    .and_then(|at| list.lines.get(at).copied())
                    .unwrap_or(list.line);
                match factor::env_names(expr) {
                    Ok(names) => {
                        for name in names {
                            known.extend(name.split('-').map(str::to_owned));
                            envs.add(name, line);
                        }
                    }
                    Err(refused) => out.diag(
                        path,
                        Some(line),
                        format!("tox cannot read the env list entry {refused}"),
                    ),
                }
            }
        }
        // With no env_list tox runs and lists `py`; a file of other tools' sections only
        // (`[flake8]`) is not taken for a tox configuration.
        if !written
            && let Some(first) = self
                .sections
                .iter()
                .find(|s| s.name == "tox" || s.name == "testenv" || s.name.starts_with("testenv:"))
        {
            envs.add(DEFAULT_ENV.to_owned(), first.line);
        }
        for section in &self.sections {
            let Some(expr) = section.name.strip_prefix("testenv:") else {
                continue;
            };
            match factor::env_names(expr.trim()) {
                Ok(names) => {
                    for name in names {
                        known.extend(name.split('-').map(str::to_owned));
                        envs.add(name, section.line);
                    }
                }
                Err(refused) => out.diag(
                    path,
                    Some(section.line),
                    format!("tox cannot read the environment name {refused}"),
                ),
            }
        }
        for section in &self.sections {
            let name = section.name.as_str();
            if !(name == "tox" || name == "testenv" || name.starts_with("testenv:")) {
                continue;
            }
            for key in &section.keys {
                for (env, at) in factor::conditional_envs(&key.value) {
                    if env.split('-').any(|f| !known.contains(f)) {
                        envs.add(env, key.lines.get(at).copied().unwrap_or(key.line));
                    }
                }
            }
        }
        let mut list = envs.into_list(path, out);
        super::resolve(self, path, &mut list, out);
        list
    }
}

impl Resolve for Ini {
    /// The line of the `key` environment `env` reads (its own section's, else the base's).
    fn line_of(&self, env: &str, key: &str) -> Option<u32> {
        let own = self.mapping.get(env).map(Vec::as_slice).unwrap_or_default();
        own.iter()
            .copied()
            .chain(self.index("testenv"))
            .find_map(|at| self.key_in(at, key))
            .map(|k| k.line)
    }

    /// The variables `set_env` sets in `env`, the last of a name winning, substituted;
    /// `file|…` lines name a file of variables agg does not read.
    fn set_env_all(&self, env: &str) -> Vec<(String, String)> {
        let Some(lines) = self.env(env, "set_env") else {
            return Vec::new();
        };
        let mut vars: Vec<(String, String)> = Vec::new();
        for (key, value) in lines.lines().filter_map(|l| l.trim().split_once('=')) {
            let key = key.trim();
            if key.is_empty() || key.contains('|') {
                continue;
            }
            let value = substitute(value.trim(), env, self);
            match vars.iter_mut().find(|(k, _)| k == key) {
                Some(existing) => existing.1 = value,
                None => vars.push((key.to_owned(), value)),
            }
        }
        vars
    }

    /// The commands of `env`, one a line, substituted.
    fn commands(&self, env: &str) -> Option<String> {
        let raw = self.env(env, "commands")?;
        let lines: Vec<String> = substitute(&raw, env, self)
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            // tox splits each line into words: a substitution that comes out empty leaves
            // no gap.
            .map(|l| {
                shlex::split(l).map_or_else(|| l.to_owned(), |w| crate::text::quote_command(&w))
            })
            .collect();
        (!lines.is_empty()).then(|| lines.join("\n"))
    }
}

impl Settings for Ini {
    fn budget(&self) -> &Budget {
        &self.budget
    }

    fn core(&self, key: &str) -> Option<String> {
        let key = self.key_in(self.index("tox")?, key)?;
        process(&key.value, None)
    }

    fn env(&self, env: &str, key: &str) -> Option<String> {
        let own = self.mapping.get(env).map(Vec::as_slice).unwrap_or_default();
        own.iter()
            .copied()
            .chain(self.index("testenv"))
            .filter_map(|at| self.key_in(at, key))
            .find_map(|k| process(&k.value, Some(env)))
    }

    fn section(&self, section: &str, key: &str, env: &str) -> Option<String> {
        let at = self.index(section)?;
        let key = self.key_in(at, key)?;
        Some(process(&key.value, Some(env)).unwrap_or_default())
    }

    fn set_env(&self, env: &str, var: &str) -> Option<String> {
        let lines = self.env(env, "set_env")?;
        lines
            .lines()
            .rev()
            .filter_map(|l| l.trim().split_once('='))
            .filter(|(k, _)| !k.contains('|') && k.trim() == var)
            .map(|(_, v)| v.trim().to_owned())
            .next()
    }
}

/// A raw value as tox hands it to a setting (`process_raw`): inline comments cut, the
/// lines of other factors dropped, `\`-continued lines joined. `None` when the value had
/// text but no line applies to `env` (tox then reads the next place the key may be).
fn process(value: &str, env: Option<&str>) -> Option<String> {
    let lines: Vec<String> = value
        .split('\n')
        .filter(|l| !l.starts_with('#'))
        .map(|l| cut_comment(l).replace("\\#", "#"))
        .collect();
    let text = lines.join("\n").replace('\r', "");
    let filtered = factor::filter_for_env(&text, env);
    if filtered.is_empty() && !text.trim().is_empty() {
        return None;
    }
    Some(filtered.replace("\\\n", ""))
}

/// The line without a `#` comment (one not escaped as `\#`) and the space before it.
fn cut_comment(line: &str) -> &str {
    let mut prev = None;
    for (i, c) in line.char_indices() {
        if c == '#' && prev != Some('\\') {
            return line[..i].trim_end();
        }
        prev = Some(c);
    }
    line
}
