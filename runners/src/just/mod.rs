//! The just adapter: a justfile's recipes as task rows, following `import` and `mod`.
//!
//! No Rust crate parses justfiles, so the `lexer` and `parser` submodules are written by
//! hand after just's grammar. This module walks imports and modules the way just's analyzer
//! does (imports merge into one namespace, modules become `mod::recipe`), picks the winner
//! among duplicate recipes, hides private and other-OS recipes, and attaches aliases.

mod lexer;
mod parser;

use std::collections::{HashMap, HashSet};

use crate::{Adapter, file_name};
use crate::{Files, Parsed, RawTask, Runner, Source, join, parent};
use parser::{Ast, Item, Recipe, os};

/// The just adapter.
pub const ADAPTER: Adapter = Adapter {
    name: "just",
    candidate,
    one_per_dir: true,
    parse,
};

/// How many files one justfile may pull in through imports and modules.
const MAX_FILES: usize = 256;
/// How deep imports may nest inside one module.
const MAX_IMPORT_DEPTH: usize = 32;
/// How deep modules may nest.
const MAX_MODULE_DEPTH: usize = 32;

/// `justfile` in any capitalisation ranks before `.justfile` (just itself refuses a
/// directory holding both).
fn candidate(path: &str) -> Option<u8> {
    let name = file_name(path);
    if name.eq_ignore_ascii_case("justfile") {
        Some(0)
    } else if name.eq_ignore_ascii_case(".justfile") {
        Some(1)
    } else {
        None
    }
}

fn parse(src: &Source<'_>) -> Parsed {
    parse_for(src, Platform::current())
}

/// The platform recipes are listed for: just drops recipes whose OS attributes
/// (`[linux]`, `[windows]`, …) exclude the running system, so agg does too.
#[derive(Debug, Clone, Copy)]
struct Platform {
    /// `std::env::consts::OS` spelling.
    os: &'static str,
    unix: bool,
}

impl Platform {
    fn current() -> Platform {
        Platform {
            os: std::env::consts::OS,
            unix: cfg!(unix),
        }
    }

    fn enables(self, bits: u16) -> bool {
        bits == 0 || (self.unix && bits & os::UNIX != 0) || bits & os::bit(self.os) != 0
    }
}

/// Parses `src` as a root justfile, listing recipes enabled on `platform`.
fn parse_for(src: &Source<'_>, platform: Platform) -> Parsed {
    let text = src.text.strip_prefix('\u{feff}').unwrap_or(src.text);
    let mut builder = Builder {
        files: src.files,
        dir: parent(src.path).to_owned(),
        platform,
        out: Parsed::default(),
        files_read: 1,
        entries: Vec::new(),
        aliases: Vec::new(),
        disabled: HashSet::new(),
    };
    let namespace = Namespace {
        prefix: String::new(),
        key: Vec::new(),
        private: false,
        modules: vec![src.path.to_owned()],
    };
    builder.namespace(src.path, parser::parse(text), &namespace);
    builder.finish()
}

/// Where a namespace (the root justfile or a module) sits.
struct Namespace {
    /// `""` at the root, `"a::b::"` in module `a::b`.
    prefix: String,
    /// Sort key of the `mod` line that declared it.
    key: Vec<u32>,
    /// Declared `[private] mod`, or inside such a module.
    private: bool,
    /// Source files of the enclosing modules, to refuse module cycles.
    modules: Vec<String>,
}

/// A listed recipe and where it goes in the output.
struct Entry {
    key: Vec<u32>,
    task: RawTask,
    hidden: bool,
}

/// An alias waiting for its target to be known.
struct PendingAlias {
    name: String,
    target: String,
    file: String,
    line: u32,
    hidden: bool,
}

/// A recipe collected in just's processing order, before duplicates are settled.
struct Collected {
    recipe: Recipe,
    file: String,
    depth: usize,
    key: Vec<u32>,
}

/// A file waiting to be walked within one namespace.
struct Frame {
    file: String,
    ast: Ast,
    key: Vec<u32>,
    /// Files importing this one, from the namespace's root file down.
    chain: Vec<String>,
}

struct Builder<'s> {
    files: &'s dyn Files,
    /// Where every recipe is invoked from: the root justfile's directory.
    dir: String,
    platform: Platform,
    out: Parsed,
    files_read: usize,
    entries: Vec<Entry>,
    aliases: Vec<PendingAlias>,
    /// Full names of recipes dropped because of their OS attributes.
    disabled: HashSet<String>,
}

impl Builder<'_> {
    fn diag(&mut self, file: &str, line: u32, message: impl Into<String>) {
        self.out.diag(file, Some(line), message);
    }

    /// Walks one namespace: its file and everything it imports, then its modules.
    fn namespace(&mut self, file: &str, ast: Ast, ns: &Namespace) {
        let mut stack = vec![Frame {
            file: file.to_owned(),
            ast,
            key: ns.key.clone(),
            chain: Vec::new(),
        }];
        let mut imported: HashSet<String> = HashSet::from([file.to_owned()]);
        let mut module_names: HashSet<String> = HashSet::new();
        let mut collected = Vec::new();
        let mut allow_duplicates = false;
        // Like just, walk imports with a stack: a file's own items first, then the files
        // it imports, last import first. This order decides which duplicate wins.
        while let Some(frame) = stack.pop() {
            for (line, message) in &frame.ast.errors {
                self.diag(&frame.file, *line, message.clone());
            }
            let mut chain = frame.chain.clone();
            chain.push(frame.file.clone());
            for (idx, item) in frame.ast.items.into_iter().enumerate() {
                let mut key = frame.key.clone();
                key.push(u32::try_from(idx).unwrap_or(u32::MAX));
                match item {
                    Item::Recipe(recipe) => {
                        if self.platform.enables(recipe.os) {
                            collected.push(Collected {
                                recipe,
                                file: frame.file.clone(),
                                depth: frame.chain.len(),
                                key,
                            });
                        } else {
                            self.disabled
                                .insert(format!("{}{}", ns.prefix, recipe.name));
                        }
                    }
                    Item::Alias(alias) => self.aliases.push(PendingAlias {
                        name: format!("{}{}", ns.prefix, alias.name),
                        target: format!("{}{}", ns.prefix, alias.target),
                        file: frame.file.clone(),
                        line: alias.line,
                        hidden: alias.private || ns.private,
                    }),
                    Item::Import {
                        path,
                        optional,
                        line,
                    } => {
                        let Some(target) = join(parent(&frame.file), &path) else {
                            self.diag(
                                &frame.file,
                                line,
                                format!("import `{path}` points outside the repository"),
                            );
                            continue;
                        };
                        if chain.contains(&target) {
                            self.diag(&frame.file, line, format!("import `{path}` is circular"));
                            continue;
                        }
                        if imported.contains(&target) {
                            continue;
                        }
                        if chain.len() > MAX_IMPORT_DEPTH {
                            self.diag(&frame.file, line, "imports nest too deeply");
                            continue;
                        }
                        if !self.files.exists(&target) {
                            if !optional {
                                self.diag(
                                    &frame.file,
                                    line,
                                    format!("cannot find imported file `{path}`"),
                                );
                            }
                            continue;
                        }
                        let Some(ast) = self.read(&target, &frame.file, line) else {
                            continue;
                        };
                        imported.insert(target.clone());
                        stack.push(Frame {
                            file: target,
                            ast,
                            key,
                            chain: chain.clone(),
                        });
                    }
                    Item::Module(module) => {
                        if !module_names.insert(module.name.clone()) {
                            let message =
                                format!("module `{}` is declared more than once", module.name);
                            self.diag(&frame.file, module.line, message);
                            continue;
                        }
                        self.module(&frame.file, ns, &module, key);
                    }
                    Item::AllowDuplicateRecipes => allow_duplicates = true,
                }
            }
        }
        self.settle(collected, ns, allow_duplicates);
    }

    /// Reads and parses a file pulled in from `from` at `line`, counting it as consumed.
    fn read(&mut self, path: &str, from: &str, line: u32) -> Option<Ast> {
        if self.files_read >= MAX_FILES {
            self.diag(
                from,
                line,
                format!("too many imported files; `{path}` is not read"),
            );
            return None;
        }
        self.files_read += 1;
        match self.files.read(path) {
            Ok(text) => {
                self.out.consumed.push(path.to_owned());
                let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
                Some(parser::parse(text))
            }
            Err(reason) => {
                self.diag(from, line, format!("cannot read `{path}`: {reason}"));
                None
            }
        }
    }

    /// Finds, reads and walks the module declared in `from`.
    fn module(&mut self, from: &str, ns: &Namespace, module: &parser::Module, key: Vec<u32>) {
        let parser::Module {
            name,
            path,
            optional,
            private,
            line,
        } = module;
        let (name, path, line) = (name.as_str(), path.as_deref(), *line);
        if ns.modules.len() > MAX_MODULE_DEPTH {
            self.diag(from, line, "modules nest too deeply");
            return;
        }
        let found = match self.find_module(parent(from), name, path) {
            Ok(found) => found,
            Err(message) => {
                self.diag(from, line, message);
                return;
            }
        };
        let Some(file) = found.first().cloned() else {
            if !*optional {
                let message = match path {
                    Some(p) => format!("cannot find the source of module `{name}` at `{p}`"),
                    None => format!(
                        "cannot find the source of module `{name}` \
                         ({name}.just, {name}/mod.just or {name}/justfile)"
                    ),
                };
                self.diag(from, line, message);
            }
            return;
        };
        if found.len() > 1 {
            self.diag(
                from,
                line,
                format!(
                    "module `{name}` has several source files ({}); using `{file}`",
                    found.join(", ")
                ),
            );
        }
        if ns.modules.contains(&file) {
            self.diag(from, line, format!("module `{name}` is circular"));
            return;
        }
        let Some(ast) = self.read(&file, from, line) else {
            return;
        };
        let mut modules = ns.modules.clone();
        modules.push(file.clone());
        let child = Namespace {
            prefix: format!("{}{name}::", ns.prefix),
            key,
            private: ns.private || *private,
            modules,
        };
        self.namespace(&file, ast, &child);
    }

    /// The source files of module `name` declared in `dir`, sorted, the way just searches:
    /// `name.just`, `name/mod.just`, `name/justfile` or `name/.justfile` (those two in any
    /// capitalisation); with an explicit path, that file or the same names inside it.
    fn find_module(
        &self,
        dir: &str,
        name: &str,
        path: Option<&str>,
    ) -> Result<Vec<String>, String> {
        let is_justfile = |entry: &str| {
            entry.eq_ignore_ascii_case("justfile") || entry.eq_ignore_ascii_case(".justfile")
        };
        let module_dir = match path {
            Some(p) => {
                let target = join(dir, p)
                    .ok_or_else(|| format!("module path `{p}` points outside the repository"))?;
                if self.files.exists(&target) {
                    return Ok(vec![target]);
                }
                target
            }
            None => join(dir, name).unwrap_or_else(|| name.to_owned()),
        };
        let mut found = Vec::new();
        if path.is_none() {
            let wanted = format!("{name}.just");
            for entry in self.files.read_dir(dir) {
                if entry == wanted {
                    found.extend(join(dir, &entry));
                }
            }
        }
        for entry in self.files.read_dir(&module_dir) {
            if entry == "mod.just" || is_justfile(&entry) {
                found.extend(join(&module_dir, &entry));
            }
        }
        found.retain(|f| self.files.exists(f));
        found.sort();
        found.dedup();
        Ok(found)
    }

    /// Settles duplicate recipes the way just does (a shallower import wins; at the same
    /// depth the later-processed one wins) and records the winners.
    fn settle(&mut self, collected: Vec<Collected>, ns: &Namespace, allow_duplicates: bool) {
        let mut winners: Vec<Collected> = Vec::new();
        let mut by_name: HashMap<String, usize> = HashMap::new();
        for c in collected {
            let Some(&w) = by_name.get(&c.recipe.name) else {
                by_name.insert(c.recipe.name.clone(), winners.len());
                winners.push(c);
                continue;
            };
            let Some(old) = winners.get_mut(w) else {
                continue;
            };
            if !allow_duplicates {
                let place = if old.file == c.file {
                    format!("line {}", old.recipe.line)
                } else {
                    format!("{}:{}", old.file, old.recipe.line)
                };
                let message = format!(
                    "recipe `{}{}` is already defined at {place}",
                    ns.prefix, c.recipe.name
                );
                self.out.diag(&c.file, Some(c.recipe.line), message);
            }
            if c.depth <= old.depth {
                *old = c;
            }
        }
        for c in winners {
            let full = format!("{}{}", ns.prefix, c.recipe.name);
            let Recipe {
                line,
                params,
                deps,
                description,
                private,
                group,
                confirm,
                body,
                ..
            } = c.recipe;
            let mut task = RawTask::new(
                Runner::Just,
                full.clone(),
                self.dir.clone(),
                c.file,
                vec!["just".to_owned(), full],
            );
            task.line = Some(line);
            task.description = description;
            task.params = params;
            task.deps = deps
                .into_iter()
                .map(|d| format!("{}{d}", ns.prefix))
                .collect();
            task.group = group;
            task.behaviour.confirm = confirm.into_iter().collect();
            task.script = (!body.is_empty()).then(|| body.join("\n"));
            self.entries.push(Entry {
                key: c.key,
                task,
                hidden: private || ns.private,
            });
        }
    }

    /// Attaches aliases to their recipes and returns the listed tasks in file order.
    fn finish(mut self) -> Parsed {
        let index: HashMap<String, usize> = self
            .entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.task.source_name.clone(), i))
            .collect();
        let mut seen: HashSet<String> = HashSet::new();
        for alias in std::mem::take(&mut self.aliases) {
            if index.contains_key(&alias.name) {
                let message = format!("alias `{}` has the same name as a recipe", alias.name);
                self.diag(&alias.file, alias.line, message);
                continue;
            }
            if !seen.insert(alias.name.clone()) {
                let message = format!("alias `{}` is defined more than once", alias.name);
                self.diag(&alias.file, alias.line, message);
                continue;
            }
            match index
                .get(&alias.target)
                .and_then(|&i| self.entries.get_mut(i))
            {
                Some(entry) => {
                    if !alias.hidden && !entry.hidden {
                        entry.task.aliases.push(alias.name);
                    }
                }
                None if self.disabled.contains(&alias.target) => {}
                None => {
                    let message = format!(
                        "alias `{}` points to unknown recipe `{}`",
                        alias.name, alias.target
                    );
                    self.diag(&alias.file, alias.line, message);
                }
            }
        }
        self.entries.sort_by(|a, b| a.key.cmp(&b.key));
        self.out.tasks = self
            .entries
            .into_iter()
            .filter(|e| !e.hidden)
            .map(|e| e.task)
            .collect();
        let mut seen = HashSet::new();
        self.out.consumed.retain(|c| seen.insert(c.clone()));
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{messages, names, task};
    use crate::{MemFiles, Param, Variadic};

    const LINUX: Platform = Platform {
        os: "linux",
        unix: true,
    };
    const WINDOWS: Platform = Platform {
        os: "windows",
        unix: false,
    };

    fn run_on(files: &MemFiles, path: &str, platform: Platform) -> Parsed {
        let text = files.read(path).expect("test file exists");
        parse_for(
            &Source {
                path,
                text: &text,
                files,
            },
            platform,
        )
    }

    fn run(files: &MemFiles, path: &str) -> Parsed {
        run_on(files, path, LINUX)
    }

    #[test]
    fn candidates_rank_justfile_before_dotfile() {
        assert_eq!(candidate("justfile"), Some(0));
        assert_eq!(candidate("apps/api/Justfile"), Some(0));
        assert_eq!(candidate("JUSTFILE"), Some(0));
        assert_eq!(candidate(".justfile"), Some(1));
        assert_eq!(candidate("x/.JustFile"), Some(1));
        assert_eq!(candidate("tools.just"), None);
        assert_eq!(candidate("justfile.bak"), None);
        assert_eq!(candidate("Makefile"), None);
    }

    #[test]
    fn lists_a_typical_project_justfile() {
        let files = MemFiles::new().with(
            "justfile",
            concat!(
                "set dotenv-load\n",
                "set shell := [\"bash\", \"-euo\", \"pipefail\", \"-c\"]\n",
                "\n",
                "image := \"ghcr.io/acme/api:\" + `git rev-parse --short HEAD`\n",
                "\n",
                "alias t := test\n",
                "\n",
                "# Show the available recipes\n",
                "default:\n",
                "    @just --list\n",
                "\n",
                "# Run the unit tests\n",
                "[group('dev')]\n",
                "test *args:\n",
                "    cargo nextest run {{args}}\n",
                "\n",
                "# Build and push the container image\n",
                "[group('release')]\n",
                "docker-push tag=image: test\n",
                "    docker build -t {{tag}} .\n",
                "    docker push {{tag}}\n",
            ),
        );
        let parsed = run(&files, "justfile");
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        assert_eq!(names(&parsed), vec!["default", "test", "docker-push"]);
        let push = task(&parsed, "docker-push");
        assert_eq!(push.runner, Runner::Just);
        assert_eq!(push.argv, vec!["just", "docker-push"]);
        assert_eq!(push.dir, ".");
        assert_eq!(push.file_path, "justfile");
        assert_eq!(push.line, Some(19));
        assert_eq!(
            push.description.as_deref(),
            Some("Build and push the container image")
        );
        assert_eq!(push.group.as_deref(), Some("release"));
        assert_eq!(push.deps, vec!["test"]);
        assert_eq!(
            push.params,
            vec![Param {
                name: "tag".into(),
                default: Some("image".into()),
                required: false,
                variadic: None,
                exported: false,
            }]
        );
        assert_eq!(
            push.script.as_deref(),
            Some("docker build -t {{tag}} .\ndocker push {{tag}}")
        );
        let test = task(&parsed, "test");
        assert_eq!(test.aliases, vec!["t"]);
        assert_eq!(test.params[0].variadic, Some(Variadic::ZeroOrMore));
        assert_eq!(
            task(&parsed, "default").script.as_deref(),
            Some("@just --list")
        );
    }

    #[test]
    fn windows_line_endings_are_understood() {
        let files = MemFiles::new().with(
            "justfile",
            "# Say hi\r\nhi name=\"you\":\r\n  echo hi {{name}}\r\n\r\nbye: hi\r\n",
        );
        let parsed = run(&files, "justfile");
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let hi = task(&parsed, "hi");
        assert_eq!(hi.description.as_deref(), Some("Say hi"));
        assert_eq!(hi.params[0].default.as_deref(), Some("you"));
        assert_eq!(hi.script.as_deref(), Some("echo hi {{name}}"));
        assert_eq!(task(&parsed, "bye").deps, vec!["hi"]);
    }

    #[test]
    fn a_nested_justfile_runs_in_its_own_directory() {
        let files = MemFiles::new().with("services/api/.justfile", "serve:\n\tcargo run\n");
        let parsed = run(&files, "services/api/.justfile");
        let serve = task(&parsed, "serve");
        assert_eq!(serve.dir, "services/api");
        assert_eq!(serve.file_path, "services/api/.justfile");
        assert_eq!(serve.script.as_deref(), Some("cargo run"));
    }

    #[test]
    fn imports_merge_into_the_importing_namespace() {
        let files = MemFiles::new()
            .with(
                "app/justfile",
                "import 'just/common.just'\nimport? 'local.just'\nimport 'missing.just'\n\nbuild: lint\n",
            )
            .with(
                "app/just/common.just",
                "import 'deeper/more.just'\n\n# Lint the code\nlint:\n  cargo clippy\n",
            )
            .with("app/just/deeper/more.just", "fmt:\n  cargo fmt\n");
        let parsed = run(&files, "app/justfile");
        assert_eq!(names(&parsed), vec!["fmt", "lint", "build"]);
        let lint = task(&parsed, "lint");
        assert_eq!(lint.file_path, "app/just/common.just");
        assert_eq!(lint.line, Some(4));
        assert_eq!(lint.dir, "app");
        assert_eq!(lint.description.as_deref(), Some("Lint the code"));
        assert_eq!(task(&parsed, "fmt").file_path, "app/just/deeper/more.just");
        assert_eq!(
            parsed.consumed,
            vec!["app/just/common.just", "app/just/deeper/more.just"]
        );
        assert_eq!(
            messages(&parsed),
            vec![(
                "app/justfile",
                Some(3),
                "cannot find imported file `missing.just`"
            )]
        );
    }

    #[test]
    fn modules_are_named_with_their_path() {
        let files = MemFiles::new()
            .with(
                "justfile",
                concat!(
                    "# Tooling\n",
                    "mod tools\n",
                    "mod? extras\n",
                    "mod web 'frontend'\n",
                    "mod ops 'deploy/ops.just'\n",
                    "mod gone\n",
                    "all: tools::check (web::build 'prod')\n",
                ),
            )
            .with(
                "tools/mod.just",
                "mod lint\n# Run the checks\ncheck: lint::run\n  echo check\n",
            )
            .with("tools/lint/Justfile", "run:\n  cargo clippy\n")
            .with("frontend/mod.just", "build mode:\n  npm run build\n")
            .with("deploy/ops.just", "ship:\n");
        let parsed = run(&files, "justfile");
        assert_eq!(
            names(&parsed),
            vec![
                "tools::lint::run",
                "tools::check",
                "web::build",
                "ops::ship",
                "all"
            ]
        );
        let run_lint = task(&parsed, "tools::lint::run");
        assert_eq!(run_lint.argv, vec!["just", "tools::lint::run"]);
        assert_eq!(run_lint.dir, ".");
        assert_eq!(run_lint.file_path, "tools/lint/Justfile");
        let check = task(&parsed, "tools::check");
        assert_eq!(check.deps, vec!["tools::lint::run"]);
        assert_eq!(check.description.as_deref(), Some("Run the checks"));
        assert_eq!(
            task(&parsed, "all").deps,
            vec!["tools::check", "web::build"]
        );
        assert_eq!(
            parsed.consumed,
            vec![
                "tools/mod.just",
                "tools/lint/Justfile",
                "frontend/mod.just",
                "deploy/ops.just"
            ]
        );
        assert_eq!(
            messages(&parsed),
            vec![(
                "justfile",
                Some(6),
                "cannot find the source of module `gone` (gone.just, gone/mod.just or gone/justfile)"
            )]
        );
    }

    #[test]
    fn module_files_are_searched_like_just() {
        let files = MemFiles::new()
            .with("justfile", "mod a\nmod b\nmod c\nmod d\n")
            .with("a.just", "from-a-just:\n")
            .with("a/mod.just", "from-a-mod:\n")
            .with("b/.JUSTFILE", "from-b:\n")
            .with("c/Mod.just", "case-sensitive:\n")
            .with("d/README.md", "not a module\n");
        let parsed = run(&files, "justfile");
        assert_eq!(names(&parsed), vec!["a::from-a-just", "b::from-b"]);
        assert_eq!(
            messages(&parsed),
            vec![
                (
                    "justfile",
                    Some(1),
                    "module `a` has several source files (a.just, a/mod.just); using `a.just`"
                ),
                (
                    "justfile",
                    Some(3),
                    "cannot find the source of module `c` (c.just, c/mod.just or c/justfile)"
                ),
                (
                    "justfile",
                    Some(4),
                    "cannot find the source of module `d` (d.just, d/mod.just or d/justfile)"
                ),
            ]
        );
    }

    #[test]
    fn nested_modules_are_found_next_to_the_declaring_file() {
        // `mod lint` in `tools.just` (at the root) looks for `lint.just` at the root, as
        // just does; in `tools/mod.just` it would look inside `tools/`.
        let files = MemFiles::new()
            .with("justfile", "mod tools\n")
            .with("tools.just", "mod lint\ncheck:\n")
            .with("lint.just", "run:\n")
            .with("tools/lint/justfile", "unused:\n");
        let parsed = run(&files, "justfile");
        assert_eq!(names(&parsed), vec!["tools::lint::run", "tools::check"]);
        assert_eq!(task(&parsed, "tools::lint::run").file_path, "lint.just");
    }

    #[test]
    fn private_recipes_and_modules_are_hidden() {
        let files = MemFiles::new()
            .with(
                "justfile",
                "[private]\nmod secret\nmod _underscored\n_helper:\n[private]\nhidden:\nshown: _helper hidden\n",
            )
            .with("secret.just", "rotate:\n")
            .with("_underscored.just", "visible:\n_not:\n");
        let parsed = run(&files, "justfile");
        // just lists `_mod::recipe` but hides everything under `[private] mod`.
        assert_eq!(names(&parsed), vec!["_underscored::visible", "shown"]);
        assert_eq!(task(&parsed, "shown").deps, vec!["_helper", "hidden"]);
        assert!(parsed.consumed.contains(&"secret.just".to_owned()));
    }

    #[test]
    fn aliases_attach_to_their_targets() {
        let files = MemFiles::new()
            .with(
                "justfile",
                concat!(
                    "mod tools\n",
                    "alias b := build\n",
                    "alias bld := build\n",
                    "[private]\n",
                    "alias p := build\n",
                    "alias _q := build\n",
                    "alias d := tools::doctor\n",
                    "alias h := _helper\n",
                    "alias typo := biuld\n",
                    "alias b := build\n",
                    "build:\n",
                    "_helper:\n",
                ),
            )
            .with("tools.just", "alias doc := doctor\ndoctor:\n");
        let parsed = run(&files, "justfile");
        assert_eq!(task(&parsed, "build").aliases, vec!["b", "bld"]);
        assert_eq!(
            task(&parsed, "tools::doctor").aliases,
            vec!["tools::doc", "d"]
        );
        assert_eq!(
            messages(&parsed),
            vec![
                (
                    "justfile",
                    Some(9),
                    "alias `typo` points to unknown recipe `biuld`"
                ),
                ("justfile", Some(10), "alias `b` is defined more than once"),
            ]
        );
    }

    #[test]
    fn duplicate_recipes_keep_the_later_one() {
        let files = MemFiles::new().with(
            "justfile",
            "# first\nbuild:\n  echo one\n\n# second\nbuild:\n  echo two\n",
        );
        let parsed = run(&files, "justfile");
        assert_eq!(names(&parsed), vec!["build"]);
        let build = task(&parsed, "build");
        assert_eq!(build.script.as_deref(), Some("echo two"));
        assert_eq!(build.description.as_deref(), Some("second"));
        assert_eq!(
            messages(&parsed),
            vec![(
                "justfile",
                Some(6),
                "recipe `build` is already defined at line 2"
            )]
        );

        let allowed = MemFiles::new().with(
            "justfile",
            "set allow-duplicate-recipes\nbuild:\n  echo one\nbuild:\n  echo two\n",
        );
        let parsed = run(&allowed, "justfile");
        assert!(parsed.diagnostics.is_empty());
        assert_eq!(task(&parsed, "build").script.as_deref(), Some("echo two"));
    }

    #[test]
    fn the_importing_file_overrides_imported_recipes() {
        // As in just: a shallower definition wins whatever the order.
        let files = MemFiles::new()
            .with(
                "justfile",
                "set allow-duplicate-recipes\nbuild:\n  echo root\nimport 'a.just'\nimport 'b.just'\n",
            )
            .with("a.just", "build:\n  echo a\ntest:\n  echo a\n")
            .with("b.just", "test:\n  echo b\n");
        let parsed = run(&files, "justfile");
        assert!(parsed.diagnostics.is_empty());
        assert_eq!(task(&parsed, "build").script.as_deref(), Some("echo root"));
        // Between two imports at the same depth just keeps the earlier import's recipe.
        assert_eq!(task(&parsed, "test").script.as_deref(), Some("echo a"));
    }

    #[test]
    fn os_attributes_select_the_recipe_for_the_platform() {
        let files = MemFiles::new().with(
            "justfile",
            concat!(
                "alias o := open\n",
                "# Open the docs\n",
                "[unix]\n",
                "open:\n",
                "  xdg-open docs/index.html\n",
                "\n",
                "[windows]\n",
                "open:\n",
                "  start docs\\index.html\n",
                "\n",
                "[macos]\n",
                "notarize:\n",
                "\n",
                "[linux, windows]\n",
                "portable:\n",
            ),
        );
        let linux = run_on(&files, "justfile", LINUX);
        assert!(linux.diagnostics.is_empty(), "{:?}", linux.diagnostics);
        assert_eq!(names(&linux), vec!["open", "portable"]);
        let open = task(&linux, "open");
        assert_eq!(open.line, Some(4));
        assert_eq!(open.description.as_deref(), Some("Open the docs"));
        assert_eq!(open.aliases, vec!["o"]);

        let windows = run_on(&files, "justfile", WINDOWS);
        assert!(windows.diagnostics.is_empty());
        assert_eq!(names(&windows), vec!["open", "portable"]);
        assert_eq!(
            task(&windows, "open").script.as_deref(),
            Some("start docs\\index.html")
        );

        let mac = Platform {
            os: "macos",
            unix: true,
        };
        assert_eq!(
            names(&run_on(&files, "justfile", mac)),
            vec!["open", "notarize"]
        );
    }

    #[test]
    fn cycles_and_escapes_are_reported() {
        let files = MemFiles::new()
            .with(
                "justfile",
                "import 'a.just'\nimport '../outside.just'\nmod again 'justfile'\nmod self '.'\nroot:\n",
            )
            .with("a.just", "import 'justfile'\na:\n");
        let parsed = run(&files, "justfile");
        assert_eq!(names(&parsed), vec!["a", "root"]);
        assert_eq!(
            messages(&parsed),
            vec![
                (
                    "justfile",
                    Some(2),
                    "import `../outside.just` points outside the repository"
                ),
                ("justfile", Some(3), "module `again` is circular"),
                ("justfile", Some(4), "module `self` is circular"),
                ("a.just", Some(1), "import `justfile` is circular"),
            ]
        );
    }

    #[test]
    fn deep_module_chains_are_bounded() {
        let mut files = MemFiles::new().with("justfile", "mod m\n");
        let mut dir = String::new();
        for _ in 0..60 {
            dir.push_str("m/");
            files = files.with(&format!("{dir}mod.just"), "mod m\nr:\n");
        }
        let parsed = run(&files, "justfile");
        assert_eq!(parsed.tasks.len(), MAX_MODULE_DEPTH);
        assert_eq!(parsed.diagnostics.len(), 1);
        assert_eq!(parsed.diagnostics[0].message, "modules nest too deeply");
    }

    #[test]
    fn broken_parts_do_not_hide_good_recipes() {
        let files = MemFiles::new().with(
            "justfile",
            concat!(
                "before:\n",
                "  echo before\n",
                "\n",
                "bad-header param1 param2\n",
                "  echo \"no colon\"\n",
                "\n",
                "bad-string name='unterminated:\n",
                "  echo never\n",
                "\n",
                "# Still listed\n",
                "after:\n",
                "  echo after\n",
            ),
        );
        let parsed = run(&files, "justfile");
        assert_eq!(names(&parsed), vec!["before", "after"]);
        assert_eq!(
            task(&parsed, "after").description.as_deref(),
            Some("Still listed")
        );
        let lines: Vec<Option<u32>> = parsed.diagnostics.iter().map(|d| d.line).collect();
        assert_eq!(lines, vec![Some(4), Some(7)]);
        assert_eq!(parsed.diagnostics[1].message, "unterminated string");
    }

    #[test]
    fn stray_delimiters_cost_linear_work_and_keep_later_recipes() {
        let text = "x := 'stray\n".repeat(20_000) + "ok:\n";
        let files = MemFiles::new().with("justfile", &text);
        let parsed = run(&files, "justfile");
        assert_eq!(names(&parsed), vec!["ok"]);

        let parens = "(\n".repeat(20_000) + "ok:\n";
        let files = MemFiles::new().with("justfile", &parens);
        let parsed = run(&files, "justfile");
        assert!(!parsed.diagnostics.is_empty());
    }

    #[test]
    fn never_panics_on_truncated_or_odd_input() {
        let sample = concat!(
            "#!/usr/bin/env just --justfile\n",
            "set shell := [\"bash\", \"-c\"]\n",
            "x := f'a{{ \"b\" + `c` }}' + '''\n  d\n''' + \"\\u{e9}\\\"\"\n",
            "import? 'ünïcode.just'\n",
            "mod? m 'ü'\n",
            "# doc ✓\n",
            "[group('ğ'), doc(\"é\")]\n",
            "@r $a='é' +b=(x / \"y\"): (dep \"z\" x) && c\n",
            "\t#!/bin/sh\n",
            "\techo {{ if a == 'é' { \"}}\" } else { x } }} {{{{\n",
            "\r\n",
            "alias q := r\n",
        );
        let files = MemFiles::new();
        for (i, _) in sample.char_indices() {
            for text in [&sample[..i], &sample[i..]] {
                let _ = parse_for(
                    &Source {
                        path: "justfile",
                        text,
                        files: &files,
                    },
                    LINUX,
                );
            }
        }
        for odd in [
            "\u{feff}a:\n",
            "\\",
            "{{",
            "}}",
            "[",
            "a: (",
            "a:\n\t{{",
            "'''",
            "\r",
        ] {
            let _ = parse_for(
                &Source {
                    path: "justfile",
                    text: odd,
                    files: &files,
                },
                LINUX,
            );
        }
    }
}
