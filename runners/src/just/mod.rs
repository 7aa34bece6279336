//! The just adapter: a justfile's recipes as task rows, following `import` and `mod`.
//!
//! No Rust crate parses justfiles, so the `lexer` and `parser` submodules are written by
//! hand after just's grammar. This module walks imports and modules the way just's analyzer
//! does (imports merge into one namespace, modules become `mod::recipe`), picks the winner
//! among duplicate recipes, hides private and other-OS recipes, and attaches aliases.

mod attributes;
mod lexer;
mod parser;
mod reads;

use std::collections::{HashMap, HashSet};

use crate::files::file_name;
use crate::files::{Files, join, parent};
use crate::model::Adapter;
use crate::model::{Parsed, Runner, Source, Task};
use crate::reads::Purpose;
use parser::{Ast, Def, Item, Recipe, os};

/// The just adapter.
pub const ADAPTER: Adapter = Adapter {
    name: "just",
    candidate,
    one_per_dir: true,
    admit: None,
    neighbours: None,
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
        refused: None,
        purpose: src.purpose,
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
    task: Task,
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
    /// Why just refuses the justfile (the first error that makes it refuse it all).
    refused: Option<String>,
    /// Why the file is read: for a decision, each recipe says what it reads.
    purpose: Purpose,
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
        // Settings and assignments of every file of the namespace (imports merge into it).
        let mut defs: Vec<Def> = Vec::new();
        // Like just, walk imports with a stack: a file's own items first, then the files
        // it imports, last import first. This order decides which duplicate wins.
        while let Some(frame) = stack.pop() {
            for (line, message) in &frame.ast.errors {
                self.diag(&frame.file, *line, message.clone());
            }
            if let Some((line, message)) = &frame.ast.refused
                && self.refused.is_none()
            {
                let file = &frame.file;
                self.refused = Some(format!(
                    "just refuses the justfile at {file}:{line}: {message}"
                ));
            }
            let mut chain = frame.chain.clone();
            chain.push(frame.file.clone());
            if self.purpose == Purpose::Decide {
                defs.extend(frame.ast.defs);
            }
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
        self.settle(collected, ns, allow_duplicates, &defs);
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
            Err(outside) => {
                self.diag(from, line, outside.to_string());
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
    ) -> Result<Vec<String>, OutsideModule> {
        let is_justfile = |entry: &str| {
            entry.eq_ignore_ascii_case("justfile") || entry.eq_ignore_ascii_case(".justfile")
        };
        let module_dir = match path {
            Some(p) => {
                let target = join(dir, p).ok_or_else(|| OutsideModule(p.to_owned()))?;
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
    fn settle(
        &mut self,
        collected: Vec<Collected>,
        ns: &Namespace,
        allow_duplicates: bool,
        defs: &[Def],
    ) {
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
            let reads = (self.purpose == Purpose::Decide)
                .then(|| Box::new(reads::reads(&c.recipe, defs, self.files, &self.dir)));
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
            let mut task = Task::new(
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
            task.reads = reads;
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
        if let Some(reason) = &self.refused {
            for task in &mut self.out.tasks {
                task.behaviour.not_runnable = Some(reason.clone());
            }
        }
        let mut seen = HashSet::new();
        self.out.consumed.retain(|c| seen.insert(c.clone()));
        self.out
    }
}

/// A module path (`mod x 'PATH'`) that leads out of the repository: not followed.
#[derive(Debug, Clone, PartialEq, Eq)]
struct OutsideModule(String);

impl std::fmt::Display for OutsideModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "module path `{}` points outside the repository", self.0)
    }
}

impl std::error::Error for OutsideModule {}

#[cfg(test)]
mod tests;
