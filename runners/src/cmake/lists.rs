//! `CMakeLists.txt` files, read as the CMake language (cmake-language(7)) without running
//! any of it: command invocations with their bracket, quoted and unquoted arguments, and
//! comments. From the project's top file, `add_subdirectory` and `include(file.cmake)` are
//! followed the way CMake would, so every `add_custom_target` of the build is found with its
//! `COMMENT`, commands and dependencies (`DEPENDS`, `add_dependencies`). `${VAR}` is
//! resolved from `project()`, `set()` and CMake's source-directory variables; a target whose
//! name needs anything else (a function's argument, a cache value) is not listed.

use std::collections::HashMap;

use super::condition;
use super::syntax::{Arg, Command, commands};
use crate::files::{Files, join, parent};
use crate::model::Parsed;

/// How deep `add_subdirectory` and `include` may nest.
const MAX_DEPTH: usize = 64;
/// How many files one project may read.
const MAX_FILES: usize = 4_096;
/// Nesting of `${…}` references resolved.
const MAX_REFERENCE_DEPTH: usize = 8;
/// The longest value a variable keeps; `set(A ${A}${A})` repeated would double it each time.
const MAX_VALUE_LEN: usize = 4_096;

/// Stands for the repository root at the start of a path variable's value
/// (`CMAKE_CURRENT_SOURCE_DIR` is `ROOT/sub`), so that it is told from relative paths.
const ROOT: &str = "\u{1}";

/// One custom target as found.
#[derive(Debug)]
pub(super) struct Target {
    pub name: String,
    pub file: String,
    pub line: u32,
    pub comment: Option<String>,
    pub commands: Vec<String>,
    /// `DEPENDS` entries and `add_dependencies`, as written (files and targets alike).
    pub depends: Vec<String>,
    pub uses_terminal: bool,
    /// Defined inside an `if()` block (of its file or of what pulled the file in): agg reads
    /// every branch it cannot decide, so a second definition of the name may be the other
    /// branch.
    conditional: bool,
    /// The `if()` agg did not evaluate that the target depends on, shown by `describe`.
    pub note: Option<String>,
}

/// Where a file is read from: the source directory its relative paths start from (an
/// `include`d file's are its includer's, as in CMake) and whether an `if()` encloses it.
#[derive(Debug, Clone, Copy)]
struct Scope<'a> {
    source_dir: &'a str,
    conditional: bool,
    /// The innermost `if()` around it that agg could not decide, as a note for `describe`.
    note: Option<&'a str>,
}

/// One `if()` block being read: whether the branch being read is taken on this host
/// (`None`: agg cannot tell), whether an earlier branch was, and the note its targets carry
/// when undecided.
#[derive(Debug)]
struct Branch {
    active: Option<bool>,
    taken: Option<bool>,
    note: Option<String>,
}

/// Follows `if`, `elseif`, `else` and `endif` on the stack of open blocks.
fn branch(ifs: &mut Vec<Branch>, command: &Command, path: &str) {
    let undecided = || {
        let shown: Vec<String> = command
            .args
            .iter()
            .map(|a| {
                if a.quoted {
                    format!("\"{}\"", a.text)
                } else {
                    a.text.clone()
                }
            })
            .collect();
        format!(
            "`{}({})` ({path}:{})",
            command.name,
            shown.join(" ").replace("( ", "(").replace(" )", ")"),
            command.line
        )
    };
    match command.name.as_str() {
        "if" => {
            let value = condition::evaluate(&command.args);
            ifs.push(Branch {
                active: value,
                taken: value,
                note: value.is_none().then(undecided),
            });
        }
        "elseif" => {
            let note = undecided();
            if let Some(b) = ifs.last_mut() {
                if b.taken == Some(true) {
                    b.active = Some(false);
                } else {
                    let value = condition::evaluate(&command.args);
                    (b.active, b.taken) = match (b.taken, value) {
                        (Some(false), v) => (v, v),
                        (_, Some(false)) => (Some(false), b.taken),
                        (_, Some(true)) => (None, Some(true)),
                        (_, None) => (None, None),
                    };
                    b.note = b.active.is_none().then_some(note);
                }
            }
        }
        "else" => {
            if let Some(b) = ifs.last_mut() {
                b.active = b.taken.map(|t| !t);
                if b.active.is_some() {
                    b.note = None;
                }
            }
        }
        _ => {
            ifs.pop();
        }
    }
}

/// What reading a project's `CMakeLists.txt` files found.
#[derive(Debug, Default)]
pub(super) struct Project {
    pub targets: Vec<Target>,
    /// `add_dependencies(target dep…)`, applied once every target is known.
    added: Vec<(String, Vec<String>)>,
    /// Where each target is in `targets`, by name.
    index: HashMap<String, usize>,
    files_read: usize,
}

/// Reads the project whose top file is `path` (already read into `text`): its custom
/// targets, following `add_subdirectory` and `include`. Every other file read goes into
/// `out.consumed`.
pub(super) fn read(files: &dyn Files, path: &str, text: &str, out: &mut Parsed) -> Project {
    let mut project = Project::default();
    let dir = parent(path);
    let mut vars = HashMap::new();
    for name in [
        "CMAKE_SOURCE_DIR",
        "CMAKE_CURRENT_LIST_DIR",
        "CMAKE_CURRENT_SOURCE_DIR",
        "PROJECT_SOURCE_DIR",
    ] {
        vars.insert(name.to_owned(), root_path(dir));
    }
    let mut walk = Walk {
        files,
        chain: vec![path.to_owned()],
    };
    let scope = Scope {
        source_dir: dir,
        conditional: false,
        note: None,
    };
    project.file(&mut walk, path, text, scope, &mut vars, out);
    let added = std::mem::take(&mut project.added);
    for (target, deps) in added {
        if let Some(&i) = project.index.get(&target) {
            project.targets[i].depends.extend(deps);
        }
    }
    project
}

fn root_path(dir: &str) -> String {
    if dir == "." {
        ROOT.to_owned()
    } else {
        format!("{ROOT}/{dir}")
    }
}

/// The root-relative path a path argument names from directory `dir`, or `None` when it is
/// outside the repository or not known statically.
fn resolve_path(dir: &str, path: &str) -> Option<String> {
    if let Some(rest) = path.strip_prefix(ROOT) {
        return join(".", rest.trim_start_matches('/'));
    }
    if path.contains(ROOT) {
        return None;
    }
    join(dir, path)
}

/// The files a walk over a project's `CMakeLists.txt` reads: the view of the repository,
/// and the files being read, outermost first (to spot an include cycle).
struct Walk<'f> {
    files: &'f dyn Files,
    chain: Vec<String>,
}

/// The commands of a file that CMake runs on this host, each with the note of the
/// undecided `if()` it is under: function and macro bodies run only when called, with
/// arguments agg cannot know, and a branch CMake does not take here is left out.
fn taken<'c>(commands: &'c [Command], path: &str) -> Vec<(&'c Command, Option<String>)> {
    let mut skipping: Vec<&str> = Vec::new();
    let mut ifs: Vec<Branch> = Vec::new();
    let mut out = Vec::new();
    for command in commands {
        match command.name.as_str() {
            "function" | "macro" => {
                skipping.push(if command.name == "function" {
                    "endfunction"
                } else {
                    "endmacro"
                });
                continue;
            }
            end if skipping.last() == Some(&end) => {
                skipping.pop();
                continue;
            }
            _ if !skipping.is_empty() => continue,
            "if" | "elseif" | "else" | "endif" => {
                branch(&mut ifs, command, path);
                continue;
            }
            _ => {}
        }
        if ifs.iter().any(|b| b.active == Some(false)) {
            continue;
        }
        out.push((command, ifs.iter().rev().find_map(|b| b.note.clone())));
    }
    out
}

/// `project(NAME …)`: the variables it sets.
fn project(command: &Command, dir: &str, vars: &mut HashMap<String, String>) {
    if let Some(name) = command.args.first().and_then(|a| expand(&a.text, vars)) {
        vars.insert("PROJECT_NAME".to_owned(), name.clone());
        vars.entry("CMAKE_PROJECT_NAME".to_owned())
            .or_insert_with(|| name.clone());
        vars.insert(format!("{name}_SOURCE_DIR"), root_path(dir));
        vars.insert("PROJECT_SOURCE_DIR".to_owned(), root_path(dir));
    }
}

impl Project {
    /// Runs the commands of one file (`path`, read into `text`) that make targets or lead
    /// to other files.
    fn file(
        &mut self,
        walk: &mut Walk<'_>,
        path: &str,
        text: &str,
        scope: Scope<'_>,
        vars: &mut HashMap<String, String>,
        out: &mut Parsed,
    ) {
        self.files_read += 1;
        let (commands, error) = commands(text);
        if let Some(err) = error {
            out.diag(
                path,
                Some(err.line),
                format!("{}; CMake stops reading this file here", err.message),
            );
        }
        let dir = scope.source_dir;
        for (command, note) in taken(&commands, path) {
            let here = Scope {
                source_dir: dir,
                conditional: scope.conditional || note.is_some(),
                note: note.as_deref().or(scope.note),
            };
            match command.name.as_str() {
                "project" => project(command, dir, vars),
                "set" => set(command, vars),
                "add_custom_target" => {
                    self.custom_target(path, command, here, vars, out);
                }
                "add_dependencies" => {
                    let mut names = command.args.iter().filter_map(|a| expand(&a.text, vars));
                    if let Some(target) = names.next() {
                        self.added.push((target, names.collect()));
                    }
                }
                "add_subdirectory" => self.add_subdirectory(walk, (path, command), here, vars, out),
                "include" => self.include(walk, (path, command), here, vars, out),
                _ => {}
            }
        }
    }

    /// `add_subdirectory(DIR)` in `path`: reads `DIR/CMakeLists.txt` with its own copy of
    /// the variables, as CMake gives a subdirectory its own scope.
    fn add_subdirectory(
        &mut self,
        walk: &mut Walk<'_>,
        (path, command): (&str, &Command),
        here: Scope<'_>,
        vars: &HashMap<String, String>,
        out: &mut Parsed,
    ) {
        let Some(sub) = command.args.first().and_then(|a| expand(&a.text, vars)) else {
            return;
        };
        let Some(sub_dir) = resolve_path(here.source_dir, &sub) else {
            return;
        };
        let Some(list) = join(&sub_dir, "CMakeLists.txt") else {
            return;
        };
        let mut sub_vars = vars.clone();
        sub_vars.insert("CMAKE_CURRENT_SOURCE_DIR".to_owned(), root_path(&sub_dir));
        sub_vars.insert("CMAKE_CURRENT_LIST_DIR".to_owned(), root_path(&sub_dir));
        let inner = Scope {
            source_dir: &sub_dir,
            ..here
        };
        self.follow(walk, (path, command.line), &list, inner, &mut sub_vars, out);
    }

    /// `include(FILE.cmake)` in `path`: reads the file in the same scope, with
    /// `CMAKE_CURRENT_LIST_DIR` its directory while it is read. A module name
    /// (`include(CTest)`) is CMake's own; a file path is the project's.
    fn include(
        &mut self,
        walk: &mut Walk<'_>,
        (path, command): (&str, &Command),
        here: Scope<'_>,
        vars: &mut HashMap<String, String>,
        out: &mut Parsed,
    ) {
        let Some(name) = command.args.first().and_then(|a| expand(&a.text, vars)) else {
            return;
        };
        if !std::path::Path::new(&name)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("cmake"))
        {
            return;
        }
        let Some(file) = resolve_path(here.source_dir, &name) else {
            return;
        };
        let saved = vars.get("CMAKE_CURRENT_LIST_DIR").cloned();
        vars.insert(
            "CMAKE_CURRENT_LIST_DIR".to_owned(),
            root_path(parent(&file)),
        );
        self.follow(walk, (path, command.line), &file, here, vars, out);
        if let Some(saved) = saved {
            vars.insert("CMAKE_CURRENT_LIST_DIR".to_owned(), saved);
        }
    }

    /// Reads the file at `path`, named at `(from, line)`, unless it is already being read
    /// or the walk's bounds are reached.
    fn follow(
        &mut self,
        walk: &mut Walk<'_>,
        (from, line): (&str, u32),
        path: &str,
        scope: Scope<'_>,
        vars: &mut HashMap<String, String>,
        out: &mut Parsed,
    ) {
        if walk.chain.iter().any(|c| c == path) {
            out.diag(
                from,
                Some(line),
                format!("`{path}` is already being read; CMake would recurse without end"),
            );
            return;
        }
        if walk.chain.len() > MAX_DEPTH || self.files_read >= MAX_FILES {
            out.diag(
                from,
                Some(line),
                format!("more than {MAX_DEPTH} levels or {MAX_FILES} files; `{path}` not read"),
            );
            return;
        }
        let text = match walk.files.read(path) {
            Ok(text) => text,
            Err(reason) => {
                // A missing directory is CMake's error too; report it where it is named,
                // unless an `if()` may be what keeps CMake away from it (`if(EXISTS …)`).
                if !scope.conditional {
                    out.diag(from, Some(line), format!("cannot read `{path}`: {reason}"));
                }
                return;
            }
        };
        if !out.consumed.iter().any(|c| c == path) {
            out.consumed.push(path.to_owned());
        }
        walk.chain.push(path.to_owned());
        self.file(walk, path, &text, scope, vars, out);
        walk.chain.pop();
    }

    fn custom_target(
        &mut self,
        path: &str,
        command: &Command,
        scope: Scope<'_>,
        vars: &HashMap<String, String>,
        out: &mut Parsed,
    ) {
        let Some(name_arg) = command.args.first() else {
            out.diag(
                path,
                Some(command.line),
                "`add_custom_target` without a target name",
            );
            return;
        };
        let Some(name) = expand(&name_arg.text, vars).filter(|n| !n.is_empty() && !n.contains(';'))
        else {
            // A computed name (a function's argument, a cache value): not known statically.
            return;
        };
        if let Some(first) = self.index.get(&name).map(|&i| &self.targets[i]) {
            // Two unconditional definitions are CMake's error; under an `if()` the second
            // may be the other branch (`if(NOT TARGET x)`, `else()`), and the first stays.
            if !scope.conditional && !first.conditional {
                out.diag(path, Some(command.line), format!("a second custom target `{name}` (the first is in {} line {}); CMake refuses it", first.file, first.line));
            }
            return;
        }
        let mut target = Target {
            name,
            file: path.to_owned(),
            line: command.line,
            comment: None,
            commands: Vec::new(),
            depends: Vec::new(),
            uses_terminal: false,
            conditional: scope.conditional,
            note: scope.note.map(str::to_owned),
        };
        let mut section = "COMMAND";
        let mut current: Vec<String> = Vec::new();
        let mut args = command.args.iter().skip(1).peekable();
        if args.peek().is_some_and(|a| !a.quoted && a.text == "ALL") {
            args.next();
        }
        for arg in args {
            let keyword = if arg.quoted {
                None
            } else {
                KEYWORDS.iter().find(|k| **k == arg.text)
            };
            if let Some(keyword) = keyword {
                if section == "COMMAND" && !current.is_empty() {
                    target.commands.push(current.join(" "));
                    current.clear();
                }
                match *keyword {
                    "VERBATIM" | "COMMAND_EXPAND_LISTS" => {}
                    "USES_TERMINAL" => target.uses_terminal = true,
                    other => section = other,
                }
                continue;
            }
            let text = shown(&arg.text, vars);
            match section {
                "COMMAND" => current.push(if arg.quoted && text.contains([' ', '\t']) {
                    format!("\"{text}\"")
                } else {
                    text
                }),
                "DEPENDS" => target
                    .depends
                    .extend(text.split(';').filter(|s| !s.is_empty()).map(str::to_owned)),
                "COMMENT" => target.comment = Some(text),
                _ => {}
            }
        }
        if !current.is_empty() {
            target.commands.push(current.join(" "));
        }
        self.index.insert(target.name.clone(), self.targets.len());
        self.targets.push(target);
    }
}

/// The keywords of `add_custom_target` after the name.
const KEYWORDS: [&str; 12] = [
    "COMMAND",
    "DEPENDS",
    "BYPRODUCTS",
    "WORKING_DIRECTORY",
    "COMMENT",
    "JOB_POOL",
    "JOB_SERVER_AWARE",
    "VERBATIM",
    "USES_TERMINAL",
    "COMMAND_EXPAND_LISTS",
    "SOURCES",
    "ALL",
];

/// `set(VAR value…)`: a value known statically is recorded, anything else forgets the
/// variable (so a later `${VAR}` is not guessed).
fn set(command: &Command, vars: &mut HashMap<String, String>) {
    let Some(var) = command.args.first().and_then(|a| expand(&a.text, vars)) else {
        return;
    };
    let values: Vec<&Arg> = command
        .args
        .iter()
        .skip(1)
        .take_while(|a| a.quoted || !matches!(a.text.as_str(), "CACHE" | "PARENT_SCOPE"))
        .collect();
    if command
        .args
        .iter()
        .any(|a| !a.quoted && a.text == "PARENT_SCOPE")
    {
        return;
    }
    let expanded: Option<Vec<String>> = values.iter().map(|a| expand(&a.text, vars)).collect();
    match expanded {
        Some(parts) if !parts.is_empty() => {
            vars.insert(var, parts.join(";"));
        }
        _ => {
            vars.remove(&var);
        }
    }
}

/// `text` with its `${VAR}` references resolved, or `None` when one is unknown (or uses
/// `$ENV{}`, `$CACHE{}` or a generator expression).
fn expand(text: &str, vars: &HashMap<String, String>) -> Option<String> {
    expand_at(text, vars, 0)
}

fn expand_at(text: &str, vars: &HashMap<String, String>, depth: usize) -> Option<String> {
    if depth > MAX_REFERENCE_DEPTH
        || text.contains("$<")
        || text.contains("$ENV{")
        || text.contains("$CACHE{")
    {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let body = &rest[start + 2..];
        // The end of this reference, past any nested one: `${a_${b}}`.
        let mut level = 1usize;
        let mut end = None;
        let mut previous = '\0';
        for (i, c) in body.char_indices() {
            match c {
                '{' if previous == '$' => level += 1,
                '}' => {
                    level -= 1;
                    if level == 0 {
                        end = Some(i);
                        break;
                    }
                }
                _ => {}
            }
            previous = c;
        }
        let end = end?;
        let name = expand_at(&body[..end], vars, depth + 1)?;
        out.push_str(vars.get(&name)?);
        if out.len() > MAX_VALUE_LEN {
            return None;
        }
        rest = &body[end + 1..];
    }
    out.push_str(rest);
    Some(out)
}

/// An argument as shown in `describe`: resolved where it can be, as written where not, with
/// the source directory written as CMake's variable rather than agg's marker.
fn shown(text: &str, vars: &HashMap<String, String>) -> String {
    match expand(text, vars) {
        Some(resolved) if !resolved.contains(ROOT) => resolved,
        _ => text.to_owned(),
    }
}
