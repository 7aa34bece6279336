//! tox substitutions in a setting's text, as tox 4 makes them when nothing is passed on
//! the command line and no variable is set outside the file: `{/}`, `{:}`,
//! `{posargs:default}`, `{env:X:default}` (from the environment's `set_env`), `{envname}`,
//! `{basepython}`, `{toxinidir}`, `{toxworkdir}`, `{[section]key}` and the environment's
//! own settings (`{changedir}`). What cannot be known without running tox stays as written.
//!
//! Paths are written relative to the directory of the tox file (`.`), where agg runs tox;
//! an environment with no Python in its name or settings has `python` for `{basepython}`
//! where tox prints the interpreter it runs on.

use std::cell::Cell;

/// Nesting of substitutions deeper than this is left as written, as tox stops too.
const MAX_DEPTH: usize = 32;

/// The most substitutions one value gets, and the longest text they may build: a file
/// whose references double at each level (`a = {b}{b}`, `b = {c}{c}`, …) stays cheap.
const MAX_SUBSTITUTIONS: usize = 4096;
const MAX_LEN: usize = 64 * 1024;

/// The most substitutions one file gets, all its environments together, and the most text
/// they may build: a file of 1,024 generated environments, each reading a doubling chain,
/// would otherwise cost each environment the whole per-value budget. Real files make a few
/// hundred substitutions and build a few kilobytes.
pub const MAX_FILE_SUBSTITUTIONS: usize = 16 * 1024;
pub const MAX_FILE_BYTES: usize = 4 * 1024 * 1024;

/// What one file's substitutions may still cost; past it, the rest stay as written.
#[derive(Debug)]
pub(super) struct Budget {
    substitutions: Cell<usize>,
    bytes: Cell<usize>,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            substitutions: Cell::new(MAX_FILE_SUBSTITUTIONS),
            bytes: Cell::new(MAX_FILE_BYTES),
        }
    }
}

impl Budget {
    /// Whether the file's substitutions have stopped.
    pub(super) fn spent(&self) -> bool {
        self.substitutions.get() == 0 || self.bytes.get() == 0
    }

    /// Takes one substitution; `false` when none is left.
    fn take(&self) -> bool {
        if self.spent() {
            return false;
        }
        self.substitutions.set(self.substitutions.get() - 1);
        true
    }

    /// Counts text a substitution built.
    fn built(&self, len: usize) {
        self.bytes.set(self.bytes.get().saturating_sub(len));
    }
}

/// Where a substitution reads settings from; every value comes back raw, with the lines
/// of other factors already dropped.
pub(super) trait Settings {
    /// What the file's substitutions may still cost.
    fn budget(&self) -> &Budget;
    /// A key of the core section (`[tox]`, the top of `tox.toml`).
    fn core(&self, key: &str) -> Option<String>;
    /// A key as environment `env` reads it: its own section, then the base.
    fn env(&self, env: &str, key: &str) -> Option<String>;
    /// A key of a named INI section, read for `env` (`{[testenv:release]deps}`).
    fn section(&self, section: &str, key: &str, env: &str) -> Option<String>;
    /// The raw value `set_env` gives `var` in `env`.
    fn set_env(&self, env: &str, var: &str) -> Option<String>;
}

/// `text` with its substitutions made for environment `env`.
pub(super) fn substitute(text: &str, env: &str, settings: &dyn Settings) -> String {
    Replacer {
        env,
        settings,
        chain: Vec::new(),
        left: MAX_SUBSTITUTIONS,
    }
    .expand(text, 0)
}

struct Replacer<'a> {
    env: &'a str,
    settings: &'a dyn Settings,
    /// The `{env:X}` variables being expanded, so a cycle stays as written.
    chain: Vec<String>,
    /// Substitutions left in this value before the rest is left as written.
    left: usize,
}

impl Replacer<'_> {
    fn expand(&mut self, text: &str, depth: usize) -> String {
        if depth > MAX_DEPTH {
            return text.to_owned();
        }
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find(['{', '\\']) {
            out.push_str(&rest[..at]);
            let tail = &rest[at..];
            if let Some(escaped) = tail.strip_prefix('\\') {
                // `\{` and `\}` are literal braces; the backslash stays, as tox keeps it.
                let len = escaped.chars().next().map_or(0, char::len_utf8);
                out.push_str(&tail[..=len]);
                rest = &tail[1 + len..];
                continue;
            }
            let Some(close) = matching_brace(tail) else {
                out.push_str(tail);
                return out;
            };
            if self.left == 0 || out.len() > MAX_LEN || !self.settings.budget().take() {
                out.push_str(tail);
                return out;
            }
            self.left -= 1;
            let args: Vec<String> = split_args(&tail[1..close])
                .into_iter()
                .map(|a| self.expand(a, depth + 1))
                .collect();
            if let Some(value) = self.resolve(&args, depth) {
                self.settings.budget().built(value.len());
                out.push_str(&value);
            } else {
                out.push('{');
                out.push_str(&args.join(":"));
                out.push('}');
            }
            rest = &tail[close + 1..];
        }
        out.push_str(rest);
        out
    }

    fn resolve(&mut self, args: &[String], depth: usize) -> Option<String> {
        let (key, rest) = args.split_first()?;
        match key.as_str() {
            "/" => return Some("/".to_owned()),
            "" if rest.len() == 1 && rest[0].is_empty() => return Some(":".to_owned()),
            "posargs" => return Some(rest.join(":")),
            "tty" => return Some(rest.get(1).cloned().unwrap_or_default()),
            "env" => {
                let var = rest.first().filter(|v| !v.is_empty())?;
                if !self.chain.contains(var) {
                    self.chain.push(var.clone());
                    let set = self
                        .settings
                        .set_env(self.env, var)
                        .map(|raw| self.expand(&raw, depth + 1));
                    self.chain.pop();
                    if set.is_some() {
                        return set;
                    }
                }
                return Some(rest[1..].join(":"));
            }
            _ => {}
        }
        self.reference(&args.join(":"), depth)
    }

    /// `[section]key:default` or `key:default`: another setting.
    fn reference(&mut self, text: &str, depth: usize) -> Option<String> {
        let (section, rest) = match text.strip_prefix('[') {
            Some(after) => {
                let (section, rest) = after.split_once(']')?;
                (Some(section), rest)
            }
            None => (None, text),
        };
        let (key, default) = match rest.split_once(':') {
            Some((key, default)) => (key, Some(default)),
            None => (rest, None),
        };
        if key.is_empty()
            || !key
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        {
            return None;
        }
        let raw = if let Some(section) = section {
            self.settings.section(section, key, self.env)
        } else if let Some(known) = self.known(key, depth) {
            return Some(known);
        } else {
            self.settings
                .core(key)
                .or_else(|| self.settings.env(self.env, key))
        };
        match raw {
            Some(raw) => Some(self.expand(&raw, depth + 1)),
            None => default.map(str::to_owned),
        }
    }

    /// The settings tox computes rather than reads.
    fn known(&mut self, key: &str, depth: usize) -> Option<String> {
        let work_dir = |this: &mut Self| {
            this.settings
                .core("work_dir")
                .or_else(|| this.settings.core("toxworkdir"))
                .map_or_else(|| "./.tox".to_owned(), |w| this.expand(w.trim(), depth + 1))
        };
        let env_dir = |this: &mut Self| format!("{}/{}", work_dir(this), this.env);
        Some(match key {
            "tox_root" | "toxinidir" | "toxinipath" => ".".to_owned(),
            "work_dir" | "toxworkdir" => work_dir(self),
            "env_name" | "envname" => self.env.to_owned(),
            "env_dir" | "envdir" => env_dir(self),
            "env_tmp_dir" | "envtmpdir" => format!("{}/tmp", env_dir(self)),
            "env_log_dir" | "envlogdir" => format!("{}/log", env_dir(self)),
            "env_bin_dir" | "envbindir" => format!("{}/bin", env_dir(self)),
            "env_python" | "envpython" => format!("{}/bin/python", env_dir(self)),
            "base_python" | "basepython" => super::factor::python(self.env)
                .or_else(|| {
                    let raw = self
                        .settings
                        .env(self.env, "base_python")
                        .or_else(|| self.settings.env(self.env, "basepython"))?;
                    let first = raw.lines().map(str::trim).find(|l| !l.is_empty())?;
                    Some(self.expand(first, depth + 1))
                })
                .unwrap_or_else(|| "python".to_owned()),
            _ => return None,
        })
    }
}

/// The index of the `}` that closes the `{` at the start of `text`.
fn matching_brace(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '{' => depth += 1,
            '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Splits a substitution's text on the `:` outside nested braces.
fn split_args(text: &str) -> Vec<&str> {
    let mut args = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ':' if depth == 0 => {
                args.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    args.push(&text[start..]);
    args
}

#[cfg(test)]
mod tests {
    use super::{
        Budget, MAX_FILE_BYTES, MAX_FILE_SUBSTITUTIONS, MAX_SUBSTITUTIONS, Settings, substitute,
    };

    /// `[x] kN = {[x]kN+1}{[x]kN+1}`: each level doubles the text.
    #[derive(Default)]
    struct Doubling(Budget);

    impl Settings for Doubling {
        fn budget(&self) -> &Budget {
            &self.0
        }
        fn core(&self, _key: &str) -> Option<String> {
            None
        }
        fn env(&self, _env: &str, _key: &str) -> Option<String> {
            None
        }
        fn section(&self, _section: &str, key: &str, _env: &str) -> Option<String> {
            let n: u32 = key.strip_prefix('k')?.parse().ok()?;
            Some(format!("{{[x]k{0}}}{{[x]k{0}}}", n + 1))
        }
        fn set_env(&self, _env: &str, _var: &str) -> Option<String> {
            None
        }
    }

    #[test]
    fn references_that_double_at_each_level_stay_bounded() {
        let text = substitute("{[x]k0}", "py", &Doubling::default());
        assert!(text.len() < 256 * 1024, "{}", text.len());
        assert!(text.contains("{[x]k"), "the rest stays as written");
    }

    #[test]
    fn one_budget_bounds_every_value_of_a_file() {
        let file = Doubling::default();
        let mut built = 0;
        let mut values = 0;
        while !file.budget().spent() {
            built += substitute("{[x]k0}", "py", &file).len();
            values += 1;
        }
        // Each value takes its own bound of 4,096; the file's budget ends it after four.
        assert_eq!(values, MAX_FILE_SUBSTITUTIONS / MAX_SUBSTITUTIONS);
        assert!(built <= MAX_FILE_BYTES, "{built}");
        // Past the budget nothing is substituted, so nothing more is built.
        assert_eq!(substitute("{[x]k0} {/}", "py", &file), "{[x]k0} {/}");
    }

    #[derive(Default)]
    struct Plain(Budget);

    impl Settings for Plain {
        fn budget(&self) -> &Budget {
            &self.0
        }
        fn core(&self, key: &str) -> Option<String> {
            (key == "work_dir").then(|| "{tox_root}{/}build".to_owned())
        }
        fn env(&self, _env: &str, key: &str) -> Option<String> {
            (key == "changedir").then(|| "src".to_owned())
        }
        fn section(&self, _section: &str, _key: &str, _env: &str) -> Option<String> {
            None
        }
        fn set_env(&self, _env: &str, var: &str) -> Option<String> {
            match var {
                "A" => Some("{env:B}".to_owned()),
                "B" => Some("{env:A}".to_owned()),
                _ => None,
            }
        }
    }

    #[test]
    fn substitutions_are_made_as_tox_makes_them() {
        let plain = Plain::default();
        let s = |text| substitute(text, "py312-x", &plain);
        assert_eq!(s("{envname} {basepython} {/} {:}"), "py312-x py312 / :");
        assert_eq!(s("{toxworkdir} {envdir}"), "./build ./build/py312-x");
        assert_eq!(s("{posargs:-k {envname}} {posargs}"), "-k py312-x ");
        assert_eq!(s("{env:UNSET:a:b} {env:UNSET}"), "a:b ");
        assert_eq!(s("in {changedir}"), "in src");
        // Not a substitution: kept as written.
        assert_eq!(
            s("{py39,py38}-{,dep} {unknown} \\{x\\}"),
            "{py39,py38}-{,dep} {unknown} \\{x\\}"
        );
        // A cycle of variables ends (tox refuses it) rather than loop.
        assert_eq!(s("[{env:A:none}]"), "[]");
        // Unbalanced braces stay.
        assert_eq!(s("a {b"), "a {b");
    }
}
