//! go-task Taskfiles (schema v3): the tasks of a root Taskfile and of every local Taskfile
//! it includes, named the way `task --list-all` names them (`docs:serve`, `lib:nested:x`).
//!
//! Each task runs as `task <name>` from the root Taskfile's directory. Included files are
//! reported as consumed; remote includes are not followed (one short diagnostic each).

mod include;
mod node;
mod task;

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use self::include::Include;
use self::node::{Entry, Node};
use self::task::TaskDef;
use crate::{Adapter, file_name};
use crate::{Diagnostic, Files, Param, Parsed, RawTask, Runner, Source, join, parent};

/// The Taskfile adapter.
pub const ADAPTER: Adapter = Adapter {
    name: "taskfile",
    candidate,
    one_per_dir: true,
    parse,
};

/// The file names go-task looks for in a directory, in its order of precedence.
pub const FILE_NAMES: [&str; 8] = [
    "Taskfile.yml",
    "taskfile.yml",
    "Taskfile.yaml",
    "taskfile.yaml",
    "Taskfile.dist.yml",
    "taskfile.dist.yml",
    "Taskfile.dist.yaml",
    "taskfile.dist.yaml",
];

/// How deep includes may nest below the root Taskfile.
const MAX_DEPTH: usize = 16;
/// How many includes one root Taskfile may pull in, counting repeats: a diamond of includes
/// grows exponentially with depth, this keeps it linear.
const MAX_INCLUDES: usize = 256;
/// How many task entries the includes of one root Taskfile may add up to, counting repeats.
const MAX_TASKS: usize = 100_000;
/// How many alias names one included task may collect (namespace aliases times task aliases,
/// at every level).
const MAX_ALIASES: usize = 256;

fn candidate(path: &str) -> Option<u8> {
    let name = file_name(path);
    let rank = FILE_NAMES.iter().position(|n| *n == name)?;
    u8::try_from(rank).ok()
}

fn parse(src: &Source<'_>) -> Parsed {
    let root = match node::parse(src.text) {
        Ok(node) => node,
        Err(err) => {
            let mut parsed = Parsed::default();
            parsed.diag(src.path, err.line, format!("invalid YAML: {}", err.message));
            return parsed;
        }
    };
    let root_dir = parent(src.path).to_owned();
    let mut loader = Loader {
        files: src.files,
        root_dir: root_dir.clone(),
        cache: HashMap::new(),
        includes: 0,
        tasks_read: 0,
        capped: false,
        diagnostics: Vec::new(),
        consumed: Vec::new(),
    };
    let mut stack = vec![src.path.to_owned()];
    let found = loader.file_tasks(src.path, &root, &mut stack);

    let mut parsed = Parsed {
        consumed: loader.consumed,
        ..Parsed::default()
    };
    let mut seen: HashMap<String, (String, u32)> = HashMap::new();
    for f in found {
        if let Some((file, line)) = seen.get(&f.name) {
            let message = format!(
                "task `{}` is also defined at {file}:{line}; go-task refuses duplicate task names",
                f.name
            );
            loader
                .diagnostics
                .push(Diagnostic::new(&f.file, Some(f.def.line), message));
            continue;
        }
        seen.insert(f.name.clone(), (f.file.clone(), f.def.line));
        let def = f.def;
        let mut raw = RawTask::new(
            Runner::Task,
            f.name.clone(),
            root_dir.clone(),
            f.file,
            vec!["task".to_owned(), f.name],
        );
        raw.line = Some(def.line);
        raw.description = def.description;
        raw.aliases = f.aliases;
        // A leading `:` names a root task from inside an included file.
        raw.deps = f
            .deps
            .into_iter()
            .map(|d| d.strip_prefix(':').map_or(d.clone(), str::to_owned))
            .collect();
        raw.script = def.script;
        raw.params = def.params;
        // `greet:*` runs as `task greet:bob`: each `*` is a parameter (go-task's `.MATCH`).
        let stars = raw.source_name.matches('*').count();
        for i in 1..=stars {
            let name = if stars == 1 {
                "MATCH".to_owned()
            } else {
                format!("MATCH{i}")
            };
            raw.params.insert(i - 1, Param::required(name));
        }
        raw.env = def.env;
        raw.behaviour.confirm = def.prompt;
        raw.behaviour.interactive = def.interactive;
        parsed.tasks.push(raw);
    }
    let mut reported = HashSet::new();
    parsed.diagnostics = loader
        .diagnostics
        .into_iter()
        .filter(|d| reported.insert((d.file_path.clone(), d.line, d.message.clone())))
        .collect();
    parsed
}

/// A task as seen from one Taskfile, its names relative to that file.
struct Found {
    /// The name relative to the Taskfile being assembled.
    name: String,
    /// Alias names, relative the same way.
    aliases: Vec<String>,
    /// `deps`, relative the same way (a leading `:` stays until the root).
    deps: Vec<String>,
    /// The file that defines it.
    file: String,
    /// Everything else, as the file wrote it.
    def: TaskDef,
}

/// Reads the root Taskfile and follows its includes.
struct Loader<'a> {
    files: &'a dyn Files,
    root_dir: String,
    /// Included files already read, `None` when unreadable (reported once).
    cache: HashMap<String, Option<Rc<Node>>>,
    /// Includes followed so far, counting repeats.
    includes: usize,
    /// Task entries read so far, counting repeats.
    tasks_read: usize,
    /// Whether the include or task cap was hit (and reported).
    capped: bool,
    diagnostics: Vec<Diagnostic>,
    consumed: Vec<String>,
}

impl Loader<'_> {
    /// The listable tasks of the Taskfile at `path` (already parsed as `file`), its own
    /// first, then those of each include in order. `stack` holds the files being read.
    fn file_tasks(&mut self, path: &str, file: &Node, stack: &mut Vec<String>) -> Vec<Found> {
        let Node::Map(_) = file else {
            if *file != Node::Null {
                let message = format!("a Taskfile is a mapping, not {}", file.kind());
                self.diag(path, None, message);
            }
            return Vec::new();
        };
        self.check_version(path, file);
        if stack.len() > 1
            && let Some(entry) = file.entry("dotenv")
        {
            self.diag(
                path,
                Some(entry.line),
                "go-task refuses an included Taskfile with `dotenv` (it belongs in the main Taskfile)",
            );
        }
        let mut found = Vec::new();

        match file.entry("tasks") {
            None
            | Some(Entry {
                value: Node::Null, ..
            }) => {}
            Some(Entry {
                value: Node::Map(entries),
                ..
            }) => {
                found = self.own_tasks(path, entries);
            }
            Some(Entry { value, line, .. }) => {
                let message = format!("`tasks` should be a mapping, not {}", value.kind());
                self.diag(path, Some(*line), message);
            }
        }

        match file.entry("includes") {
            None
            | Some(Entry {
                value: Node::Null, ..
            }) => {}
            Some(Entry {
                value: Node::Map(entries),
                ..
            }) => {
                let vars = include::static_vars(file);
                for entry in entries {
                    found.extend(self.included_tasks(path, entry, &vars, stack));
                }
            }
            Some(Entry { value, line, .. }) => {
                let message = format!("`includes` should be a mapping, not {}", value.kind());
                self.diag(path, Some(*line), message);
            }
        }
        found
    }

    /// The tasks a file defines itself, minus the internal ones.
    fn own_tasks(&mut self, path: &str, entries: &[Entry]) -> Vec<Found> {
        let mut defs: Vec<Option<TaskDef>> = Vec::with_capacity(entries.len());
        let mut index: HashMap<String, usize> = HashMap::with_capacity(entries.len());
        for entry in entries {
            let def = task::read(path, entry, &mut self.diagnostics);
            // yaml.v3 lets the later of two equal keys win, and so does go-task.
            if let Some(i) = index.insert(def.name.clone(), defs.len())
                && let Some(earlier) = defs.get_mut(i).and_then(Option::take)
            {
                let message = format!(
                    "task `{}` is defined again (before on line {}); the later one wins",
                    def.name, earlier.line
                );
                self.diag(path, Some(def.line), message);
            }
            defs.push(Some(def));
        }
        self.tasks_read += defs.len();
        defs.into_iter()
            .flatten()
            .filter(|d| !d.internal)
            .map(|def| Found {
                name: def.name.clone(),
                aliases: def.aliases.clone(),
                deps: def.deps.clone(),
                file: path.to_owned(),
                def,
            })
            .collect()
    }

    /// The tasks one `includes:` entry brings in, named as the including file sees them.
    fn included_tasks(
        &mut self,
        path: &str,
        entry: &Entry,
        vars: &HashMap<String, String>,
        stack: &mut Vec<String>,
    ) -> Vec<Found> {
        let ns = &entry.key;
        let Some((target, inc)) = self.resolve(path, ns, entry.line, &entry.value, vars) else {
            return Vec::new();
        };
        if stack.contains(&target) {
            let message = format!("include cycle: {} -> {target}", stack.join(" -> "));
            self.diag(path, Some(entry.line), message);
            return Vec::new();
        }
        if stack.len() > MAX_DEPTH {
            let message = format!("includes nest deeper than {MAX_DEPTH} levels; `{ns}` not read");
            self.diag(path, Some(entry.line), message);
            return Vec::new();
        }
        if self.includes >= MAX_INCLUDES || self.tasks_read >= MAX_TASKS {
            // Said once: every later include would only repeat it.
            if !self.capped {
                self.capped = true;
                let message = format!(
                    "more than {MAX_INCLUDES} includes or {MAX_TASKS} included tasks; `{ns}` and later includes not read"
                );
                self.diag(path, Some(entry.line), message);
            }
            return Vec::new();
        }
        self.includes += 1;
        let Some(node) = self.load(&target) else {
            return Vec::new();
        };
        stack.push(target.clone());
        let inner = self.file_tasks(&target, &node, stack);
        stack.pop();
        if inc.internal {
            return Vec::new();
        }
        inner
            .into_iter()
            .filter(|f| {
                !inc.excludes
                    .iter()
                    .any(|pattern| glob_match(pattern, &f.name))
            })
            .map(|f| namespaced(f, ns, &inc))
            .collect()
    }

    /// Turns one `includes:` entry into the Taskfile it names, or reports why it can't.
    fn resolve(
        &mut self,
        path: &str,
        ns: &str,
        line: u32,
        value: &Node,
        vars: &HashMap<String, String>,
    ) -> Option<(String, Include)> {
        let inc = match include::read(value) {
            Ok(inc) => inc,
            Err(why) => {
                self.diag(path, Some(line), format!("include `{ns}` {why}"));
                return None;
            }
        };
        if include::is_remote(&inc.taskfile) {
            self.diag(
                path,
                Some(line),
                format!(
                    "remote include `{ns}` ({}) is not followed; its tasks are not listed",
                    inc.taskfile
                ),
            );
            return None;
        }
        let dir = parent(path);
        let rel = match include::expand(&inc.taskfile, vars, dir, &self.root_dir) {
            Ok(rel) => rel,
            Err(template) => {
                self.diag(
                    path,
                    Some(line),
                    format!("include `{ns}`: cannot resolve `{template}` in its path without running go-task"),
                );
                return None;
            }
        };
        let Some(joined) = join(dir, &rel) else {
            self.diag(
                path,
                Some(line),
                format!("include `{ns}` points outside the repository"),
            );
            return None;
        };
        match self.locate(&joined) {
            Some(target) => Some((target, inc)),
            None if inc.optional => None,
            None => {
                self.diag(
                    path,
                    Some(line),
                    format!("include `{ns}`: no Taskfile at {joined}"),
                );
                None
            }
        }
    }

    /// The Taskfile a path names: the file itself, or the first Taskfile name in that
    /// directory, the way go-task resolves a directory include.
    fn locate(&self, path: &str) -> Option<String> {
        if path != "." && self.files.exists(path) {
            return Some(path.to_owned());
        }
        FILE_NAMES
            .iter()
            .map(|name| join(path, name).unwrap_or_default())
            .find(|p| self.files.exists(p))
    }

    /// Reads and parses an included file once, whatever the number of includes naming it.
    fn load(&mut self, path: &str) -> Option<Rc<Node>> {
        if let Some(cached) = self.cache.get(path) {
            return cached.clone();
        }
        self.consumed.push(path.to_owned());
        let node = match self.files.read(path) {
            Ok(text) => match node::parse(&text) {
                Ok(node) => Some(Rc::new(node)),
                Err(err) => {
                    self.diag(path, err.line, format!("invalid YAML: {}", err.message));
                    None
                }
            },
            Err(why) => {
                self.diag(path, None, format!("cannot read included Taskfile: {why}"));
                None
            }
        };
        self.cache.insert(path.to_owned(), node.clone());
        node
    }

    /// go-task 3 refuses a Taskfile without `version` or with a version below 3; the
    /// tasks are still listed, with a diagnostic saying why `task` will fail.
    fn check_version(&mut self, path: &str, file: &Node) {
        match file.entry("version") {
            None => self.diag(
                path,
                None,
                "no `version: '3'`; go-task refuses a Taskfile without a schema version",
            ),
            Some(entry) => {
                let major = entry
                    .value
                    .scalar()
                    .and_then(|v| v.trim().split('.').next()?.parse::<u32>().ok());
                match major {
                    Some(major @ 0..=2) => self.diag(
                        path,
                        Some(entry.line),
                        format!("schema version {major} is no longer supported by go-task 3"),
                    ),
                    Some(major @ 4..) => self.diag(
                        path,
                        Some(entry.line),
                        format!("schema version {major} is newer than go-task 3 reads; it refuses the file"),
                    ),
                    _ => {}
                }
            }
        }
    }

    fn diag(&mut self, path: &str, line: Option<u32>, message: impl Into<String>) {
        self.diagnostics.push(Diagnostic::new(path, line, message));
    }
}

/// Whether `name` matches an `excludes` entry: a name, or a pattern where `*` stands for
/// any run of characters (`docs:*`), as go-task matches them.
fn glob_match(pattern: &str, name: &str) -> bool {
    let Some((first, rest)) = pattern.split_once('*') else {
        return pattern == name;
    };
    let Some(mut tail) = name.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = rest.split('*').collect();
    let Some((last, middle)) = parts.split_last() else {
        return true;
    };
    for part in middle {
        match tail.find(part) {
            Some(i) => tail = &tail[i + part.len()..],
            None => return false,
        }
    }
    tail.len() >= last.len() && tail.ends_with(last)
}

/// Renames a task of an included file into the including file's names: `ns:name`, plus one
/// alias for every other combination of namespace alias and task alias, in go-task's order.
fn namespaced(f: Found, ns: &str, inc: &Include) -> Found {
    if inc.flatten {
        return f;
    }
    let prefixes: Vec<&str> = std::iter::once(ns)
        .chain(inc.aliases.iter().map(String::as_str))
        .collect();
    let names: Vec<&str> = std::iter::once(f.name.as_str())
        .chain(f.aliases.iter().map(String::as_str))
        .collect();
    let name = format!("{ns}:{}", f.name);
    let mut aliases: Vec<String> = prefixes
        .iter()
        .flat_map(|prefix| names.iter().map(move |alias| format!("{prefix}:{alias}")))
        .take(MAX_ALIASES)
        .collect();
    // `task docs` runs `docs:default`.
    if f.name == "default" {
        aliases.extend(prefixes.iter().map(|p| (*p).to_owned()));
        aliases.truncate(MAX_ALIASES);
    }
    let mut seen = HashSet::from([name.clone()]);
    aliases.retain(|n| seen.insert(n.clone()));
    let deps = f
        .deps
        .into_iter()
        .map(|d| {
            if d.starts_with(':') {
                d
            } else {
                format!("{ns}:{d}")
            }
        })
        .collect();
    Found {
        name,
        aliases,
        deps,
        file: f.file,
        def: f.def,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemFiles;
    use crate::testing::{messages, names, task};

    fn run(files: &MemFiles, path: &str) -> Parsed {
        crate::testing::parse_with(parse, files, path)
    }

    #[test]
    fn candidates_follow_go_task_precedence() {
        assert_eq!(candidate("Taskfile.yml"), Some(0));
        assert_eq!(candidate("svc/taskfile.yml"), Some(1));
        assert_eq!(candidate("Taskfile.yaml"), Some(2));
        assert_eq!(candidate("a/Taskfile.dist.yml"), Some(4));
        assert_eq!(candidate("taskfile.dist.yaml"), Some(7));
        assert_eq!(candidate("Taskfile.yml.bak"), None);
        assert_eq!(candidate("Taskfile.json"), None);
        assert_eq!(candidate("docs/Taskfile.lint.yml"), None);
    }

    #[test]
    fn wildcards_prompts_and_interactive_tasks() {
        let files = MemFiles::new().with(
            "Taskfile.yml",
            "version: '3'\ntasks:\n  greet:*:\n    cmds: [echo hi]\n  deploy:*:*:\n    prompt: [Sure?, Really sure?]\n    cmds: [echo x]\n  shell:\n    interactive: true\n    prompt: Open a shell?\n    cmds: [sh]\n",
        );
        let parsed = run(&files, "Taskfile.yml");
        let greet = task(&parsed, "greet:*");
        assert_eq!(greet.params, [Param::required("MATCH")]);
        let deploy = task(&parsed, "deploy:*:*");
        assert_eq!(
            deploy.params,
            [Param::required("MATCH1"), Param::required("MATCH2")]
        );
        assert_eq!(deploy.behaviour.confirm, ["Sure?", "Really sure?"]);
        let shell = task(&parsed, "shell");
        assert!(shell.behaviour.interactive);
        assert_eq!(shell.behaviour.confirm, ["Open a shell?"]);
    }

    #[test]
    fn excludes_take_patterns_and_os_includes_resolve() {
        let files = MemFiles::new()
            .with(
                "Taskfile.yml",
                "version: '3'\nincludes:\n  t:\n    taskfile: ./tools.yml\n    excludes: ['lint:*', fmt]\n  os: ./Taskfile_{{OS}}.yml\n",
            )
            .with(
                "tools.yml",
                "version: '3'\ntasks:\n  fmt: x\n  vet: x\n  lint:go: x\n  lint:yaml: x\n  linter: x\n",
            )
            .with(
                &format!("Taskfile_{}.yml", include::go_os()),
                "version: '3'\ntasks:\n  open: x\n",
            );
        let parsed = run(&files, "Taskfile.yml");
        assert_eq!(names(&parsed), ["t:vet", "t:linter", "os:open"]);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        assert!(glob_match("a*c*e", "abcde"));
        assert!(!glob_match("a*c", "abcd"));
    }

    #[test]
    fn files_go_task_refuses_are_reported() {
        let files = MemFiles::new()
            .with(
                "Taskfile.yml",
                "version: '4'\nincludes:\n  web: ./web.yml\ntasks:\n  build: x\n",
            )
            .with(
                "web.yml",
                "version: '3'\ndotenv: [.env]\ntasks:\n  serve: x\n",
            );
        let parsed = run(&files, "Taskfile.yml");
        assert_eq!(
            messages(&parsed),
            [
                (
                    "Taskfile.yml",
                    Some(1),
                    "schema version 4 is newer than go-task 3 reads; it refuses the file"
                ),
                (
                    "web.yml",
                    Some(2),
                    "go-task refuses an included Taskfile with `dotenv` (it belongs in the main Taskfile)"
                ),
            ]
        );
    }

    /// The shape of go-task's own Taskfile.yml.
    #[test]
    fn go_task_style_root() {
        let files = MemFiles::new().with(
            "Taskfile.yml",
            "version: '3'\n\nvars:\n  BIN: '{{.ROOT_DIR}}/bin'\n\nenv:\n  CGO_ENABLED: '0'\n\ntasks:\n  default:\n    cmds:\n      - task: lint\n      - task: test\n\n  install:\n    desc: Installs Task\n    aliases: [i]\n    sources:\n      - './**/*.go'\n    cmds:\n      - go install -v -ldflags=\"-w -s\" ./cmd/task\n\n  lint: golangci-lint run\n",
        );
        let parsed = run(&files, "Taskfile.yml");
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        assert_eq!(names(&parsed), ["default", "install", "lint"]);
        let install = task(&parsed, "install");
        assert_eq!(install.runner, Runner::Task);
        assert_eq!(install.argv, ["task", "install"]);
        assert_eq!(install.dir, ".");
        assert_eq!(install.file_path, "Taskfile.yml");
        assert_eq!(install.line, Some(15));
        assert_eq!(install.description.as_deref(), Some("Installs Task"));
        assert_eq!(install.aliases, ["i"]);
        assert_eq!(
            task(&parsed, "default").script.as_deref(),
            Some("task: lint\ntask: test")
        );
        assert_eq!(
            task(&parsed, "lint").script.as_deref(),
            Some("golangci-lint run")
        );
        assert!(parsed.consumed.is_empty());
    }

    fn included_tree() -> MemFiles {
        MemFiles::new()
            .with(
                "Taskfile.yml",
                "version: '3'\nincludes:\n  docs: ./docs/Taskfile.yml\n  lib:\n    taskfile: ./lib\n    dir: ./lib\n    aliases: [l]\n    excludes: [secret]\n  tools:\n    taskfile: ./tools.yml\n    flatten: true\n  priv:\n    taskfile: ./private\n    internal: true\n  extra:\n    taskfile: ./extra.yml\n    optional: true\ntasks:\n  build:\n    desc: Build it\n    deps: [tools:nope, fmt]\n",
            )
            .with(
                "docs/Taskfile.yml",
                "version: '3'\ntasks:\n  default: mkdocs build\n  serve:\n    desc: Serve the docs\n    aliases: [s]\n    deps: [default, ':build']\n",
            )
            .with(
                "lib/Taskfile.yml",
                "version: '3'\nincludes:\n  nested: ./nested\ntasks:\n  secret: echo hidden\n  pub:\n    desc: Public\n  helper:\n    internal: true\n    cmds: [echo]\n",
            )
            .with(
                "lib/nested/Taskfile.yaml",
                "version: '3'\ntasks:\n  deep:\n    aliases: [d]\n    cmds: [echo deep]\n",
            )
            .with("tools.yml", "version: '3'\ntasks:\n  fmt:\n    desc: Format\n")
            .with("private/Taskfile.yml", "version: '3'\ntasks:\n  p: echo\n")
    }

    /// Names and aliases as `task --list-all --json` prints them for the same tree.
    #[test]
    fn includes_are_namespaced_like_go_task() {
        let parsed = run(&included_tree(), "Taskfile.yml");
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        assert_eq!(
            names(&parsed),
            [
                "build",
                "docs:default",
                "docs:serve",
                "lib:pub",
                "lib:nested:deep",
                "fmt"
            ]
        );
        let serve = task(&parsed, "docs:serve");
        assert_eq!(serve.aliases, ["docs:s"]);
        assert_eq!(serve.argv, ["task", "docs:serve"]);
        assert_eq!(serve.file_path, "docs/Taskfile.yml");
        assert_eq!(serve.dir, ".");
        assert_eq!(serve.line, Some(4));
        assert_eq!(serve.deps, ["docs:default", "build"]);
        assert_eq!(task(&parsed, "docs:default").aliases, ["docs"]);
        assert_eq!(task(&parsed, "lib:pub").aliases, ["l:pub"]);
        assert_eq!(
            task(&parsed, "lib:nested:deep").aliases,
            ["lib:nested:d", "l:nested:deep", "l:nested:d"]
        );
        assert_eq!(
            task(&parsed, "lib:nested:deep").file_path,
            "lib/nested/Taskfile.yaml"
        );
        assert_eq!(task(&parsed, "fmt").file_path, "tools.yml");
        assert_eq!(
            parsed.consumed,
            [
                "docs/Taskfile.yml",
                "lib/Taskfile.yml",
                "lib/nested/Taskfile.yaml",
                "tools.yml",
                "private/Taskfile.yml"
            ]
        );
    }

    #[test]
    fn default_tasks_answer_to_every_namespace_alias() {
        let files = MemFiles::new()
            .with(
                "Taskfile.yml",
                "version: '3'\nincludes:\n  a:\n    taskfile: ./a\n    aliases: [x, y]\n",
            )
            .with(
                "a/Taskfile.yml",
                "version: '3'\nincludes:\n  b: ./b\ntasks:\n  default: echo a\n",
            )
            .with(
                "a/b/Taskfile.yml",
                "version: '3'\ntasks:\n  default: echo b\n",
            );
        let parsed = run(&files, "Taskfile.yml");
        assert_eq!(
            task(&parsed, "a:default").aliases,
            ["x:default", "y:default", "a", "x", "y"]
        );
        assert_eq!(
            task(&parsed, "a:b:default").aliases,
            ["a:b", "x:b:default", "x:b", "y:b:default", "y:b"]
        );
    }

    #[test]
    fn excludes_name_tasks_relative_to_the_include() {
        let files = MemFiles::new()
            .with(
                "Taskfile.yml",
                "version: '3'\nincludes:\n  ex:\n    taskfile: ./a\n    excludes: [b:leaf, ok]\n",
            )
            .with(
                "a/Taskfile.yml",
                "version: '3'\nincludes:\n  b: ./b\ntasks:\n  ok: echo\n  kept: echo\n",
            )
            .with(
                "a/b/Taskfile.yml",
                "version: '3'\ntasks:\n  leaf: echo\n  other: echo\n",
            );
        let parsed = run(&files, "Taskfile.yml");
        assert_eq!(names(&parsed), ["ex:kept", "ex:b:other"]);
    }

    #[test]
    fn missing_includes() {
        let files = MemFiles::new().with(
            "Taskfile.yml",
            "version: '3'\nincludes:\n  opt:\n    taskfile: ./nope.yml\n    optional: true\n  req: ./gone\n  up: ../outside.yml\ntasks:\n  a: echo\n",
        );
        let parsed = run(&files, "Taskfile.yml");
        assert_eq!(names(&parsed), ["a"]);
        assert_eq!(
            messages(&parsed),
            [
                (
                    "Taskfile.yml",
                    Some(6),
                    "include `req`: no Taskfile at gone"
                ),
                (
                    "Taskfile.yml",
                    Some(7),
                    "include `up` points outside the repository"
                ),
            ]
        );
    }

    #[test]
    fn remote_and_templated_includes() {
        let files = MemFiles::new()
            .with(
                "svc/Taskfile.yml",
                "version: '3'\nvars:\n  SHARED: shared\n  OS_DIR: '{{OS}}'\nincludes:\n  remote: https://taskfile.dev/Taskfile.yml\n  shared: '{{.ROOT_DIR}}/{{.SHARED}}'\n  here: '{{.TASKFILE_DIR}}/local.yml'\n  os: ./{{.OS_DIR}}/Taskfile.yml\n",
            )
            .with("svc/shared/Taskfile.yml", "version: '3'\ntasks:\n  s: echo\n")
            .with("svc/local.yml", "version: '3'\ntasks:\n  l: echo\n");
        let parsed = run(&files, "svc/Taskfile.yml");
        assert_eq!(names(&parsed), ["shared:s", "here:l"]);
        assert_eq!(task(&parsed, "shared:s").dir, "svc");
        assert_eq!(
            messages(&parsed),
            [
                (
                    "svc/Taskfile.yml",
                    Some(6),
                    "remote include `remote` (https://taskfile.dev/Taskfile.yml) is not followed; its tasks are not listed"
                ),
                (
                    "svc/Taskfile.yml",
                    Some(9),
                    "include `os`: cannot resolve `{{.OS_DIR}}` in its path without running go-task"
                ),
            ]
        );
    }

    #[test]
    fn include_cycles_stop() {
        let files = MemFiles::new()
            .with("Taskfile.yml", "version: '3'\nincludes:\n  a: ./a.yml\ntasks:\n  root: echo\n")
            .with("a.yml", "version: '3'\nincludes:\n  back: ./Taskfile.yml\n  me: ./a.yml\ntasks:\n  x: echo\n");
        let parsed = run(&files, "Taskfile.yml");
        assert_eq!(names(&parsed), ["root", "a:x"]);
        assert_eq!(
            messages(&parsed),
            [
                (
                    "a.yml",
                    Some(3),
                    "include cycle: Taskfile.yml -> a.yml -> Taskfile.yml"
                ),
                (
                    "a.yml",
                    Some(4),
                    "include cycle: Taskfile.yml -> a.yml -> a.yml"
                ),
            ]
        );
    }

    /// Every level includes the next one twice: 2^30 paths without a cap.
    #[test]
    fn include_diamonds_are_capped() {
        let mut files = MemFiles::new().with(
            "Taskfile.yml",
            "version: '3'\nincludes:\n  l: ./t0.yml\n  r: ./t0.yml\n",
        );
        for i in 0..30 {
            let next = i + 1;
            files = files.with(
                &format!("t{i}.yml"),
                &format!("version: '3'\nincludes:\n  l: ./t{next}.yml\n  r: ./t{next}.yml\ntasks:\n  x: echo\n"),
            );
        }
        let parsed = run(&files, "Taskfile.yml");
        assert!(parsed.tasks.len() < 300);
        assert!(parsed.tasks.iter().any(|t| t.source_name == "l:x"));
        assert!(
            parsed.diagnostics.iter().any(
                |d| d.message.contains("deeper than 16") || d.message.contains("more than 256")
            )
        );
    }

    #[test]
    fn invalid_yaml_lists_nothing_from_that_file() {
        let files = MemFiles::new().with(
            "Taskfile.yml",
            "version: '3'\ntasks:\n  build:\n    cmds: [go build\n  test: go test\n",
        );
        let parsed = run(&files, "Taskfile.yml");
        assert!(parsed.tasks.is_empty());
        let [d] = parsed.diagnostics.as_slice() else {
            panic!("{:?}", parsed.diagnostics)
        };
        assert_eq!(d.line, Some(5));
        assert!(d.message.starts_with("invalid YAML: "), "{}", d.message);
    }

    #[test]
    fn a_broken_include_does_not_hide_the_rest() {
        let files = MemFiles::new()
            .with("Taskfile.yml", "version: '3'\nincludes:\n  bad: ./bad.yml\n  bad2: ./bad.yml\ntasks:\n  ok: echo\n")
            .with("bad.yml", "tasks: [\n");
        let parsed = run(&files, "Taskfile.yml");
        assert_eq!(names(&parsed), ["ok"]);
        assert_eq!(parsed.diagnostics.len(), 1, "{:?}", parsed.diagnostics);
        assert_eq!(parsed.diagnostics[0].file_path, "bad.yml");
        assert_eq!(parsed.consumed, ["bad.yml"]);
    }

    #[test]
    fn duplicates() {
        let files = MemFiles::new()
            .with(
                "Taskfile.yml",
                "version: '3'\nincludes:\n  flat:\n    taskfile: ./flat.yml\n    flatten: true\ntasks:\n  fmt: echo root\n  a: echo first\n  a: echo second\n",
            )
            .with("flat.yml", "version: '3'\ntasks:\n  fmt: echo flat\n");
        let parsed = run(&files, "Taskfile.yml");
        assert_eq!(names(&parsed), ["fmt", "a"]);
        assert_eq!(task(&parsed, "a").script.as_deref(), Some("echo second"));
        assert_eq!(task(&parsed, "fmt").script.as_deref(), Some("echo root"));
        assert_eq!(
            messages(&parsed),
            [
                (
                    "Taskfile.yml",
                    Some(9),
                    "task `a` is defined again (before on line 8); the later one wins"
                ),
                (
                    "flat.yml",
                    Some(3),
                    "task `fmt` is also defined at Taskfile.yml:7; go-task refuses duplicate task names"
                ),
            ]
        );
    }

    #[test]
    fn old_or_missing_versions_are_still_listed() {
        let files = MemFiles::new()
            .with("Taskfile.yml", "tasks:\n  a: echo\n")
            .with("v2/Taskfile.yml", "version: 2\ntasks:\n  b: echo\n");
        let parsed = run(&files, "Taskfile.yml");
        assert_eq!(names(&parsed), ["a"]);
        assert_eq!(
            messages(&parsed),
            [(
                "Taskfile.yml",
                None,
                "no `version: '3'`; go-task refuses a Taskfile without a schema version"
            )]
        );
        let parsed = run(&files, "v2/Taskfile.yml");
        assert_eq!(names(&parsed), ["b"]);
        assert_eq!(
            messages(&parsed),
            [(
                "v2/Taskfile.yml",
                Some(1),
                "schema version 2 is no longer supported by go-task 3"
            )]
        );
    }

    #[test]
    fn crlf_and_anchors() {
        let text = "version: '3'\r\n\r\nx-go: &go\r\n  desc: Go task\r\n  env: {GOFLAGS: -mod=mod}\r\n\r\ntasks:\r\n  build:\r\n    <<: *go\r\n    cmds:\r\n      - go build ./...\r\n  vet:\r\n    <<: *go\r\n    desc: Vet\r\n    cmds: [go vet ./...]\r\n";
        let files = MemFiles::new().with("Taskfile.yml", text);
        let parsed = run(&files, "Taskfile.yml");
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let build = task(&parsed, "build");
        assert_eq!(build.line, Some(8));
        assert_eq!(build.description.as_deref(), Some("Go task"));
        assert_eq!(build.script.as_deref(), Some("go build ./..."));
        assert_eq!(build.env, [("GOFLAGS".to_owned(), "-mod=mod".to_owned())]);
        assert_eq!(task(&parsed, "vet").line, Some(12));
        assert_eq!(task(&parsed, "vet").description.as_deref(), Some("Vet"));
    }

    #[test]
    fn odd_shapes_are_reported() {
        let files = MemFiles::new()
            .with("a/Taskfile.yml", "- not\n- a map\n")
            .with(
                "b/Taskfile.yml",
                "version: '3'\ntasks: [a, b]\nincludes: ./x\n",
            )
            .with("c/Taskfile.yml", "")
            .with(
                "d/Taskfile.yml",
                "version: '3'\nincludes:\n  x: [1]\n  y: {dir: ./y}\n",
            );
        assert_eq!(
            messages(&run(&files, "a/Taskfile.yml")),
            [(
                "a/Taskfile.yml",
                None,
                "a Taskfile is a mapping, not a list"
            )]
        );
        assert_eq!(
            messages(&run(&files, "b/Taskfile.yml")),
            [
                (
                    "b/Taskfile.yml",
                    Some(2),
                    "`tasks` should be a mapping, not a list"
                ),
                (
                    "b/Taskfile.yml",
                    Some(3),
                    "`includes` should be a mapping, not a string"
                ),
            ]
        );
        assert_eq!(run(&files, "c/Taskfile.yml"), Parsed::default());
        assert_eq!(
            messages(&run(&files, "d/Taskfile.yml")),
            [
                (
                    "d/Taskfile.yml",
                    Some(3),
                    "include `x` should be a path or a mapping, not a list"
                ),
                (
                    "d/Taskfile.yml",
                    Some(4),
                    "include `y` has no `taskfile` path"
                ),
            ]
        );
    }

    #[test]
    fn same_dir_dist_include_is_consumed() {
        let files = MemFiles::new()
            .with("Taskfile.yml", "version: '3'\nincludes:\n  dist:\n    taskfile: ./Taskfile.dist.yml\n    flatten: true\ntasks:\n  mine: echo\n")
            .with("Taskfile.dist.yml", "version: '3'\ntasks:\n  shared: echo\n");
        let parsed = run(&files, "Taskfile.yml");
        assert_eq!(names(&parsed), ["mine", "shared"]);
        assert_eq!(parsed.consumed, ["Taskfile.dist.yml"]);
    }

    #[test]
    fn byte_order_mark_is_ignored() {
        let files =
            MemFiles::new().with("Taskfile.yml", "\u{feff}version: '3'\ntasks:\n  a: echo\n");
        let parsed = run(&files, "Taskfile.yml");
        assert_eq!(names(&parsed), ["a"]);
        assert_eq!(parsed.tasks[0].line, Some(3));
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    }

    #[test]
    fn many_tasks_and_duplicates_stay_linear() {
        let mut text = String::from("version: '3'\ntasks:\n");
        for i in 0..60_000 {
            text.push_str(if i % 2 == 0 { "  same: echo\n" } else { "  " });
            if i % 2 == 1 {
                text.push_str(&i.to_string());
                text.push_str(": echo\n");
            }
        }
        let files = MemFiles::new();
        let parsed = parse(&Source {
            path: "Taskfile.yml",
            text: &text,
            files: &files,
        });
        assert_eq!(parsed.tasks.len(), 30_001);
        assert_eq!(parsed.diagnostics.len(), 29_999);
    }

    #[test]
    fn hostile_inputs_return() {
        let files = MemFiles::new();
        let long_line = format!("version: '3'\ntasks:\n  a: {}\n", "x".repeat(20_000_000));
        let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
        let keys = format!("{}\n", "a: ".repeat(100_000));
        for text in [
            long_line.as_str(),
            deep.as_str(),
            keys.as_str(),
            "\u{feff}tasks: {a: b}",
            "\0\0",
            ":",
        ] {
            let _ = parse(&Source {
                path: "Taskfile.yml",
                text,
                files: &files,
            });
        }
    }
}
