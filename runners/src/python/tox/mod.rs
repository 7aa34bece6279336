//! tox environments: `tox.ini` (`[tox] envlist` and `[testenv:NAME]`), `tox.toml`
//! (`env_list` and `[env.NAME]`) and `[tool.tox]` of `pyproject.toml` (the same keys, or a
//! `legacy_tox_ini` string). Each runs as `tox -e NAME`, arguments after `--`.
//!
//! tox reads the first of `tox.ini`, `pyproject.toml` with `[tool.tox]` and `tox.toml`, so a
//! file tox would ignore is not listed. [`ini`] reads the INI form with its factor
//! conditions ([`factor`]); both forms describe an environment through tox's
//! substitutions ([`replace`]). Generated `env_list` tables and `setup.cfg` are not read.

mod factor;
mod ini;
mod replace;

use std::collections::HashMap;

use super::Project;
use crate::doc::{self, Node, Terms};
use crate::model::{Parsed, Runner, Source, Task};
use replace::{Budget, MAX_FILE_BYTES, MAX_FILE_SUBSTITUTIONS, Settings};

/// The environment tox runs and lists when its configuration names none.
const DEFAULT_ENV: &str = "py";

/// The most environments one file lists: an expression names at most 1,024 and a file
/// may hold many; real files name a few dozen.
const MAX_ENVS: usize = 4096;

/// The longest description kept, in bytes; tox prints a description on one line of its
/// listing, and substitutions can make one as long as a value may grow.
const MAX_DESCRIPTION_BYTES: usize = 1024;

/// The longest commands kept for one environment, in bytes.
const MAX_SCRIPT_BYTES: usize = 16 * 1024;

/// One environment found in a file.
struct Env {
    name: String,
    line: u32,
    description: Option<String>,
    /// The commands it runs, one a line, as tox resolves them with no arguments given.
    script: Option<String>,
    /// The variables its `set_env` sets, substituted.
    vars: Vec<(String, String)>,
}

pub(super) fn parse_file(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    let project = Project::of(src);
    let envs = if crate::files::file_name(src.path) == "tox.ini" {
        ini::parse(src.path, src.text, 0, &mut out).envs(src.path, &mut out)
    } else {
        if project.yields_to_pyproject("tox", &mut out) {
            return out;
        }
        match doc::read_toml(src.text) {
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
        ini::parse(project.path, ini, legacy.line, out).envs(project.path, out)
    } else {
        read_toml(project.path, tox, out)
    };
    push(project, envs, out);
}

fn push(project: &Project<'_>, envs: Vec<Env>, out: &mut Parsed) {
    for mut env in envs {
        if let Some(description) = &mut env.description
            && cut(description, MAX_DESCRIPTION_BYTES)
        {
            out.diag(
                project.path,
                Some(env.line),
                format!(
                    "the description of tox environment `{}` is cut to {MAX_DESCRIPTION_BYTES} bytes",
                    env.name
                ),
            );
        }
        if let Some(script) = &mut env.script
            && cut(script, MAX_SCRIPT_BYTES)
        {
            script.push_str("\n… (cut)");
            out.diag(
                project.path,
                Some(env.line),
                format!(
                    "the commands of tox environment `{}` are cut to {MAX_SCRIPT_BYTES} bytes",
                    env.name
                ),
            );
        }
        let mut task = Task::new(
            Runner::Tox,
            env.name.clone(),
            project.dir,
            project.path,
            vec!["tox".to_owned(), "-e".to_owned(), env.name],
        );
        task.line = Some(env.line);
        task.description = env.description;
        task.script = env.script;
        task.env = env.vars;
        out.tasks.push(task);
    }
}

/// Cuts `text` to at most `max` bytes, at a character boundary; whether it was longer.
fn cut(text: &mut String, max: usize) -> bool {
    if text.len() <= max {
        return false;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    true
}

/// Reports, once per file, the setting at which the file's substitutions ran out.
struct Spent<'p> {
    path: &'p str,
    reported: bool,
}

impl<'p> Spent<'p> {
    fn new(path: &'p str) -> Self {
        Spent {
            path,
            reported: false,
        }
    }

    /// Called after `key` of `env` was substituted: the diagnostic, at the setting's line
    /// (else the environment's), if this was where the budget ran out.
    fn check(&mut self, settings: &impl Resolve, env: &Env, key: &str, out: &mut Parsed) {
        if self.reported || !settings.budget().spent() {
            return;
        }
        self.reported = true;
        out.diag(
            self.path,
            Some(settings.line_of(&env.name, key).unwrap_or(env.line)),
            format!(
                "tox substitutions stop at `{key}` of environment `{}`: this file may make {MAX_FILE_SUBSTITUTIONS} substitutions building {} MiB of text; what is left is shown as written",
                env.name,
                MAX_FILE_BYTES / (1024 * 1024)
            ),
        );
    }
}

/// Environments in the order first seen, indexed by name so a long list stays linear.
#[derive(Default)]
struct Envs {
    list: Vec<Env>,
    index: HashMap<String, usize>,
    /// The line of the first environment past [`MAX_ENVS`], which is not kept.
    dropped: Option<u32>,
}

impl Envs {
    /// The environments kept, with a diagnostic when there were more than [`MAX_ENVS`].
    fn into_list(self, path: &str, out: &mut Parsed) -> Vec<Env> {
        if let Some(line) = self.dropped {
            out.diag(
                path,
                Some(line),
                format!(
                    "this file names more than {MAX_ENVS} tox environments; the rest are not listed"
                ),
            );
        }
        self.list
    }

    /// Adds `name` unless it is there already or is tox's own (`.pkg`).
    fn add(&mut self, name: String, line: u32) {
        if name.is_empty() || name.starts_with('.') || self.index.contains_key(&name) {
            return;
        }
        if self.list.len() >= MAX_ENVS {
            self.dropped.get_or_insert(line);
            return;
        }
        self.index.insert(name.clone(), self.list.len());
        self.list.push(Env {
            name,
            line,
            description: None,
            script: None,
            vars: Vec::new(),
        });
    }
}

fn read_toml(path: &str, tox: &Node, out: &mut Parsed) -> Vec<Env> {
    let mut envs = Envs::default();
    if let Some(list) = tox.get("env_list") {
        match list.items() {
            Some(items) => {
                for item in items {
                    // Generated lists (`{ product = … }`) need tox's own evaluation.
                    if let Some(name) = item.str() {
                        envs.add(name.to_owned(), item.line);
                    }
                }
            }
            None => list
                .mismatch("`env_list` must be an array", Terms::Toml)
                .report(path, out),
        }
    }
    if envs.list.is_empty() {
        envs.add(DEFAULT_ENV.to_owned(), tox.line);
    }
    if let Some(env) = tox.get("env") {
        match env.entries() {
            Some(entries) => {
                for e in entries {
                    envs.add(e.key.clone(), e.node.line);
                }
            }
            None => env
                .mismatch("`env` must be a table", Terms::Toml)
                .report(path, out),
        }
    }
    let settings = Toml {
        root: tox,
        budget: Budget::default(),
    };
    let mut list = envs.into_list(path, out);
    resolve(&settings, path, &mut list, out);
    list
}

/// What an environment's task is built from, in either form of the file.
trait Resolve: Settings {
    /// The line of the `key` environment `env` reads, if it is written.
    fn line_of(&self, env: &str, key: &str) -> Option<u32>;
    /// The variables `set_env` sets in `env`, substituted.
    fn set_env_all(&self, env: &str) -> Vec<(String, String)>;
    /// The commands of `env`, one a line, substituted.
    fn commands(&self, env: &str) -> Option<String>;
}

/// Fills in each environment of `list` (read from the file at `path`): its description,
/// commands and variables as tox resolves them, with a diagnostic where the file's
/// substitutions ran out.
fn resolve(settings: &impl Resolve, path: &str, list: &mut [Env], out: &mut Parsed) {
    let mut spent = Spent::new(path);
    for env in list {
        env.description = settings
            .env(&env.name, "description")
            .and_then(|raw| one_line(&replace::substitute(&raw, &env.name, settings)));
        spent.check(settings, env, "description", out);
        env.script = settings.commands(&env.name);
        spent.check(settings, env, "commands", out);
        env.vars = settings.set_env_all(&env.name);
        spent.check(settings, env, "set_env", out);
    }
}

/// A description as tox prints it: on one line; `None` when empty.
fn one_line(text: &str) -> Option<String> {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    (!text.is_empty()).then_some(text)
}

impl Toml<'_> {
    /// One word of a command: a string, or a `{ replace = … }` table tox fills in.
    fn word(&self, env: &str, word: &Node, out: &mut Vec<String>) {
        if let Some(text) = word.str() {
            out.push(replace::substitute(text, env, self));
            return;
        }
        let kind = word.get("replace").and_then(Node::str);
        let default = word.get("default");
        let set = match kind {
            Some("env") => word
                .get("name")
                .and_then(Node::str)
                .and_then(|name| self.set_env(env, name))
                .map(|v| vec![replace::substitute(&v, env, self)]),
            _ => None,
        };
        let values = set.unwrap_or_else(|| match default {
            Some(d) => d.str().map_or_else(
                || {
                    d.items()
                        .into_iter()
                        .flatten()
                        .filter_map(Node::str)
                        .map(|w| replace::substitute(w, env, self))
                        .collect()
                },
                |s| vec![replace::substitute(s, env, self)],
            ),
            None => Vec::new(),
        });
        out.extend(values);
    }
}

/// The settings of `tox.toml` or `[tool.tox]`: strings at the top, in `env.NAME` and in
/// `env_run_base`.
struct Toml<'a> {
    root: &'a Node,
    budget: Budget,
}

impl Resolve for Toml<'_> {
    /// The line of the `key` environment `env` reads (its own table's, else the base's).
    fn line_of(&self, env: &str, key: &str) -> Option<u32> {
        let own = self.root.get("env").and_then(|e| e.get(env));
        own.and_then(|e| e.get(key))
            .or_else(|| self.root.path(&["env_run_base", key]))
            .map(|n| n.line)
    }

    /// The string entries of the environment's `set_env` table (or the base's), substituted.
    fn set_env_all(&self, env: &str) -> Vec<(String, String)> {
        let own = self.root.get("env").and_then(|e| e.get(env));
        own.and_then(|e| e.get("set_env"))
            .or_else(|| self.root.path(&["env_run_base", "set_env"]))
            .and_then(Node::entries)
            .into_iter()
            .flatten()
            .filter_map(|e| Some((e.key.clone(), e.node.str()?)))
            .map(|(k, v)| (k, replace::substitute(v, env, self)))
            .collect()
    }

    /// `commands = [["pytest", { replace = "posargs", default = ["-q"], extend = true }]]`
    /// as command lines.
    fn commands(&self, env: &str) -> Option<String> {
        let own = self.root.get("env").and_then(|e| e.get(env));
        let commands = own
            .and_then(|e| e.get("commands"))
            .or_else(|| self.root.path(&["env_run_base", "commands"]))?;
        let lines: Vec<String> = commands
            .items()?
            .iter()
            .filter_map(|command| {
                let mut words = Vec::new();
                for word in command.items()? {
                    self.word(env, word, &mut words);
                }
                (!words.is_empty()).then(|| crate::text::quote_command(&words))
            })
            .collect();
        (!lines.is_empty()).then(|| lines.join("\n"))
    }
}

impl Settings for Toml<'_> {
    fn budget(&self) -> &Budget {
        &self.budget
    }

    fn core(&self, key: &str) -> Option<String> {
        self.root.get(key).and_then(Node::str).map(str::to_owned)
    }

    fn env(&self, env: &str, key: &str) -> Option<String> {
        let own = self.root.get("env").and_then(|e| e.get(env));
        own.and_then(|e| e.get(key))
            .or_else(|| self.root.path(&["env_run_base", key]))
            .and_then(Node::str)
            .map(str::to_owned)
    }

    fn section(&self, _section: &str, _key: &str, _env: &str) -> Option<String> {
        None
    }

    fn set_env(&self, env: &str, var: &str) -> Option<String> {
        let own = self.root.get("env").and_then(|e| e.get(env));
        own.and_then(|e| e.path(&["set_env", var]))
            .or_else(|| self.root.path(&["env_run_base", "set_env", var]))
            .and_then(Node::str)
            .map(str::to_owned)
    }
}

#[cfg(test)]
mod tests {
    use crate::files::MemFiles;
    use crate::testing::{messages, names, parse_with, task};
    use indoc::{formatdoc, indoc};

    /// Each environment of the file `path` holding `text`, as `name: commands [VAR=value …]`.
    fn resolved(path: &str, text: &str) -> Vec<String> {
        let files = MemFiles::new().with(path, text);
        parse_with(super::parse_file, &files, path)
            .tasks
            .iter()
            .map(|t| {
                let vars: Vec<String> = t.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
                let script = t.script.as_deref().unwrap_or_default();
                format!("{}: {script} [{}]", t.source_name, vars.join(" "))
            })
            .collect()
    }

    #[test]
    fn tox_ini_lists_envlist_then_sections() {
        let ini = indoc! {"
            [tox]
            envlist =
                py{311,312}
                lint, type  # comment
            skip_missing_interpreters = true

            [testenv]
            description = run the tests
              with pytest
            commands = pytest {posargs}

            [testenv:lint]
            description = lint the code
            commands = ruff check .

            [testenv:docs]
            commands = mkdocs build

            [testenv:.pkg]
            [flake8]
            max-line-length = 100
        "};
        let files = MemFiles::new().with("tox.ini", ini);
        let parsed = parse_with(super::parse_file, &files, "tox.ini");
        assert_eq!(names(&parsed), ["py311", "py312", "lint", "type", "docs"]);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let py = task(&parsed, "py311");
        assert_eq!(py.argv, ["tox", "-e", "py311"]);
        // The line the entry is written on.
        assert_eq!(py.line, Some(3));
        assert_eq!(task(&parsed, "type").line, Some(4));
        assert_eq!(py.description.as_deref(), Some("run the tests with pytest"));
        assert_eq!(
            task(&parsed, "lint").description.as_deref(),
            Some("lint the code")
        );
        assert_eq!(task(&parsed, "docs").line, Some(16));
    }

    #[test]
    fn tox_toml_and_pyproject() {
        let toml = indoc! {"
            env_list = [\"3.13\", \"lint\"]
            [env_run_base]
            description = \"run tests\"
            [env.lint]
            description = \"lint\"
            [env.docs]
        "};
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

        let legacy = indoc! {"
            [tool.tox]
            legacy_tox_ini = \"\"\"
            [tox]
            envlist = a,b
            [testenv:c]
            \"\"\"
        "};
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
    fn factor_conditions_choose_each_environment_s_description() {
        let ini = indoc! {"
            [tox]
            env_list = py312-{fast,slow}, docs
            [testenv]
            description = run tests
              fast: quickly
              slow: slowly
              under `{basepython}`
            set_env =
              nobyte: PYTHONDONTWRITEBYTECODE=1
            [testenv:docs]
            description = build {toxinidir}{/}docs with {env:THEME:plain}
            setenv = THEME=furo
        "};
        let files = MemFiles::new().with("tox.ini", ini);
        let parsed = parse_with(super::parse_file, &files, "tox.ini");
        assert_eq!(
            names(&parsed),
            ["py312-fast", "py312-slow", "docs", "nobyte"]
        );
        let description = |name| task(&parsed, name).description.clone().unwrap_or_default();
        assert_eq!(description("py312-fast"), "run tests quickly under `py312`");
        assert_eq!(description("py312-slow"), "run tests slowly under `py312`");
        assert_eq!(description("docs"), "build ./docs with furo");
        assert_eq!(task(&parsed, "docs").script, None);
        // Named only by a condition: tox lists it, and so does agg, at that line.
        assert_eq!(description("nobyte"), "run tests under `python`");
        assert_eq!(task(&parsed, "nobyte").line, Some(9));
    }

    #[test]
    fn commands_are_resolved_for_each_environment() {
        let ini = "[tox]\nenv_list = py-{a,b}\n[testenv]\nset_env =\n  ARGS = -q\n  b: ARGS = -x\ncommands =\n  {env:COV:} pytest {posargs:{env:ARGS}} 'a b'\n  a: coverage report \\\n    -m\n  # a comment\n";
        assert_eq!(
            resolved("tox.ini", ini),
            [
                "py-a: pytest -q 'a b'\ncoverage report -m [ARGS=-q]",
                "py-b: pytest -x 'a b' [ARGS=-x]"
            ]
        );
        let toml = indoc! {"
            [env_run_base]
            set_env = { T = \"unit\" }
            commands = [[\"pytest\", { replace = \"posargs\", default = [\"-k\", \"{env:T}\"], extend = true }], [\"echo\", \"{env_name}\"]]
        "};
        assert_eq!(
            resolved("tox.toml", toml),
            ["py: pytest -k unit\necho py [T=unit]"]
        );
    }

    #[test]
    fn with_no_env_list_tox_lists_py() {
        let files = MemFiles::new().with(
            "tox.ini",
            indoc! {"
                [testenv]
                description = t {envname}
                [testenv:x]
            "},
        );
        let parsed = parse_with(super::parse_file, &files, "tox.ini");
        assert_eq!(names(&parsed), ["py", "x"]);
        assert_eq!(task(&parsed, "py").description.as_deref(), Some("t py"));
        let files = MemFiles::new().with("tox.ini", "[flake8]\nmax-line-length = 100\n");
        assert!(
            parse_with(super::parse_file, &files, "tox.ini")
                .tasks
                .is_empty()
        );
        let files = MemFiles::new().with("tox.toml", "[env.b]\ndescription = \"in {env_name}\"\n");
        let parsed = parse_with(super::parse_file, &files, "tox.toml");
        assert_eq!(names(&parsed), ["py", "b"]);
        assert_eq!(task(&parsed, "b").description.as_deref(), Some("in b"));
    }

    /// 1,024 generated environments whose base `description` (and `commands`, in `toml`
    /// form too) reads a chain of references that doubles 29 times.
    fn doubling(toml: bool) -> (&'static str, String) {
        let factors: Vec<String> = (0..10).map(|i| format!("{{a{i},b{i}}}")).collect();
        let chain = (1..30)
            .map(|i| format!("a{i} = {{[x]a{0}}}{{[x]a{0}}}\n", i + 1))
            .collect::<Vec<_>>()
            .concat();
        if toml {
            // tox.toml has no `[section]key` references: a doubling chain of set_env.
            let vars = (1..30)
                .map(|i| format!("V{i} = \"{{env:V{0}}}{{env:V{0}}}\"\n", i + 1))
                .collect::<Vec<_>>()
                .concat();
            let text = formatdoc! {"
                env_list = [{}]
                [env_run_base]
                description = \"{{env:V1}}\"
                commands = [[\"echo\", \"{{env:V1}}\"]]
                [env_run_base.set_env]
                {vars}V30 = \"0123456789abcdef\"
            ",
                (0..1024)
                    .map(|i| format!("\"e{i}\""))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            return ("tox.toml", text);
        }
        let text = formatdoc! {"
            [tox]
            env_list = {}
            [x]
            {chain}a30 = 0123456789abcdef
            [testenv]
            description = {{[x]a1}}
            commands = echo {{[x]a1}}
        ",
            factors.join("-")
        };
        ("tox.ini", text)
    }

    #[test]
    fn substitutions_that_double_are_bounded_per_file() {
        for toml in [false, true] {
            let (path, text) = doubling(toml);
            // tox.toml has no factor expressions: its 1,024 names are written out.
            let max = if toml { 10 * 1024 } else { 1024 };
            assert!(text.len() < max, "{path}: {} bytes", text.len());
            let files = MemFiles::new().with(path, &text);
            let parsed = parse_with(super::parse_file, &files, path);
            assert_eq!(parsed.tasks.len(), 1024, "{path}");
            let kept: usize = parsed
                .tasks
                .iter()
                .map(|t| {
                    let description = t.description.as_deref().unwrap_or_default();
                    let script = t.script.as_deref().unwrap_or_default();
                    assert!(description.len() <= super::MAX_DESCRIPTION_BYTES, "{path}");
                    assert!(script.len() <= super::MAX_SCRIPT_BYTES + 16, "{path}");
                    description.len()
                        + script.len()
                        + t.env.iter().map(|(k, v)| k.len() + v.len()).sum::<usize>()
                })
                .sum();
            // The table stays within a few times the file's budget, not 1,024 values of
            // 64 KiB each.
            assert!(
                kept < 3 * super::MAX_FILE_BYTES,
                "{path}: {kept} bytes kept"
            );
            let spent: Vec<_> = messages(&parsed)
                .into_iter()
                .filter(|(_, _, m)| m.contains("substitutions stop"))
                .collect();
            assert_eq!(spent.len(), 1, "{path}: {:?}", parsed.diagnostics);
            let (file, line, message) = spent[0];
            assert_eq!(file, path);
            let setting = if toml { 5 } else { 36 };
            assert_eq!(line, Some(setting), "{path}: {message}");
            // What is left after the budget is as written, and the last environment reads so.
            let last = parsed.tasks.last().map(|t| t.description.clone());
            let written = if toml { "{env:V1}" } else { "{[x]a1}" };
            assert_eq!(last, Some(Some(written.to_owned())), "{path}");
        }
    }

    #[test]
    fn descriptions_commands_and_environments_are_cut_to_a_bound() {
        let long = "d".repeat(super::MAX_DESCRIPTION_BYTES + 10);
        let command = format!("echo {}", "c".repeat(super::MAX_SCRIPT_BYTES));
        let ini = formatdoc! {"
            [tox]
            env_list = {}
            [testenv]
            description = {long}
            commands = {command}
        ",
            (0..5)
                .map(|i| format!("{{a{i},b{i},c{i},d{i},e{i},f{i}}}"))
                .collect::<Vec<_>>()
                .join("-")
        };
        let files = MemFiles::new().with("tox.ini", &ini);
        let parsed = parse_with(super::parse_file, &files, "tox.ini");
        // 6^5 = 7,776 names, each expression bounded at 1,024: 1,024 listed.
        assert_eq!(parsed.tasks.len(), 1024);
        let first = &parsed.tasks[0];
        assert_eq!(
            first.description.as_deref().map(str::len),
            Some(super::MAX_DESCRIPTION_BYTES)
        );
        assert!(
            first
                .script
                .as_deref()
                .is_some_and(|s| s.ends_with("… (cut)"))
        );
        let said = |part: &str| {
            messages(&parsed)
                .iter()
                .filter(|(_, line, m)| *line == Some(2) && m.contains(part))
                .count()
        };
        assert_eq!(said("description of tox environment"), 1024);
        assert_eq!(said("commands of tox environment"), 1024);
        let many: String = (0..5)
            .map(|i| {
                let names: Vec<String> = (0..4).map(|f| format!("f{f}{i}")).collect();
                format!("{{{}}}", names.join(","))
            })
            .collect::<Vec<_>>()
            .join("-");
        let ini = formatdoc! {"
            [tox]
            env_list =
              {many}
              x-{many}
              y-{many}
              z-{many}
              w-{many}
        "
        };
        let files = MemFiles::new().with("tox.ini", &ini);
        let parsed = parse_with(super::parse_file, &files, "tox.ini");
        assert_eq!(parsed.tasks.len(), super::MAX_ENVS);
        assert_eq!(
            messages(&parsed),
            [(
                "tox.ini",
                Some(7),
                "this file names more than 4096 tox environments; the rest are not listed"
            )]
        );
    }

    #[test]
    fn bad_tox_input_is_reported() {
        let ini = indoc! {"
            [tox]
            envlist = py{3, ok
            this is not ini
            [testenv:x
            [testenv:fine]
        "};
        let files = MemFiles::new().with("tox.ini", ini);
        let parsed = parse_with(super::parse_file, &files, "tox.ini");
        assert_eq!(names(&parsed), ["fine"]);
        let lines: Vec<Option<u32>> = messages(&parsed).iter().map(|m| m.1).collect();
        assert_eq!(lines, [Some(3), Some(4), Some(2)]);
        let files = MemFiles::new().with(
            "tox.toml",
            indoc! {"
                env_list = 3
                [env]
                x = ["},
        );
        let parsed = parse_with(super::parse_file, &files, "tox.toml");
        assert_eq!(parsed.diagnostics.len(), 1);
        assert!(parsed.tasks.is_empty());
    }
}
