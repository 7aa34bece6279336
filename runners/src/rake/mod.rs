//! Rake: the tasks of a `Rakefile` (rake's names: `rakefile`, `Rakefile`, `rakefile.rb`,
//! `Rakefile.rb`, first found) with the files rake loads with it (`rakelib/*.rake`, what it
//! `import`s or `load`s, `Dir.glob("…*.rake")` patterns, and a Rails app's `lib/tasks/**/*.rake`
//! when it calls `load_tasks`), read as text and never run. A `*.rake` file no Rakefile loads
//! is listed on its own, run with `rake -f FILE`.
//!
//! `task`, `multitask`, `file` and `directory` define tasks, inside `namespace` blocks
//! (`db:migrate`); `desc` describes the next one (several descriptions of one task are
//! joined with ` / `, as rake joins them); prerequisites (`task test: [:lint]`,
//! `task :x, [:a] => :y`) are its deps; arguments (`task :deploy, [:env, :tag]`) its
//! parameters, with the defaults `args.with_defaults(env: "staging")` gives them. `rule`s
//! are patterns, not tasks. Task libraries that rake itself ships or most Rakefiles use
//! (`Rake::TestTask`, `rake/clean`, `bundler/gem_tasks`, `RSpec::Core::RakeTask`,
//! `RuboCop::RakeTask`) add the tasks they define. The parts: [`ruby`] (strings, comments,
//! heredocs, blocks and call arguments).

mod ruby;

use std::collections::{HashMap, HashSet};

use crate::files::{Files, file_name, join, parent};
use crate::model::Passing;
use crate::model::{Adapter, Param, Parsed, Runner, Source, Task};
use ruby::Token;

/// The Rake adapter.
pub const ADAPTER: Adapter = Adapter {
    name: "rake",
    candidate,
    one_per_dir: false,
    admit: None,
    neighbours: None,
    parse,
};

/// The names rake looks for, in its order.
const RAKEFILES: [&str; 4] = ["rakefile", "Rakefile", "rakefile.rb", "Rakefile.rb"];
/// Files one Rakefile may load (its own, `rakelib/`, imports, `lib/tasks`).
const MAX_FILES: usize = 256;
/// Directory levels a `**` pattern is followed.
const MAX_GLOB_DEPTH: usize = 8;
/// Physical lines joined into one statement (a call whose arguments go on).
const MAX_JOINED: usize = 64;
/// Bytes of a task's body kept for `describe`.
const MAX_SCRIPT: usize = 16 * 1024;
/// Tasks listed per Rakefile.
const MAX_TASKS: usize = 10_000;

fn candidate(path: &str) -> Option<u8> {
    let name = file_name(path);
    if let Some(rank) = RAKEFILES.iter().position(|r| *r == name) {
        return u8::try_from(rank).ok();
    }
    let rake = std::path::Path::new(name)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("rake"));
    (rake && name.len() > ".rake".len()).then_some(8)
}

fn parse(src: &Source<'_>) -> Parsed {
    let name = file_name(src.path);
    let dir = parent(src.path);
    let mut out = Parsed::default();
    let rank = RAKEFILES.iter().position(|r| *r == name);
    if let Some(rank) = rank {
        // rake reads the first of its names that exists; the others are not read.
        let siblings = src.files.siblings(src.path);
        if let Some(first) = RAKEFILES[..rank]
            .iter()
            .find(|r| siblings.iter().any(|s| s == *r))
        {
            out.diag(
                src.path,
                None,
                format!("rake reads `{first}` in this directory, not this file"),
            );
            return out;
        }
    }
    let mut reader = Reader::default();
    reader.read(src.path, src.text, &mut out);
    if rank.is_some() {
        for path in loaded_files(src, &reader.loads, &mut out) {
            if reader.files_read >= MAX_FILES {
                out.diag(
                    src.path,
                    None,
                    format!("more than {MAX_FILES} files loaded; the rest are not read"),
                );
                break;
            }
            match src.files.read(&path) {
                Ok(text) => reader.read(&path, &text, &mut out),
                Err(reason) => out.diag(&path, None, reason.to_string()),
            }
            out.consumed.push(path);
        }
    }
    let argv = |task: &str| -> Vec<String> {
        match rank {
            Some(_) => vec!["rake".to_owned(), task.to_owned()],
            None => vec![
                "rake".to_owned(),
                "-f".to_owned(),
                name.to_owned(),
                task.to_owned(),
            ],
        }
    };
    for def in reader.defs.into_iter().take(MAX_TASKS) {
        // rake would read such a name as its own option (`-T`, `--rakefile`), never a task.
        if def.name.starts_with('-') || def.name.is_empty() {
            out.diag(
                &def.file,
                Some(def.line),
                format!(
                    "task `{}` starts with `-`: rake reads it as an option, not a task",
                    def.name
                ),
            );
            continue;
        }
        let mut task = Task::new(Runner::Rake, &def.name, dir, &def.file, argv(&def.name));
        task.line = Some(def.line);
        task.description = (!def.descriptions.is_empty()).then(|| def.descriptions.join(" / "));
        task.deps = def.deps;
        task.params = def.params;
        task.plugin = def.library.map(str::to_owned);
        task.script = (!def.body.is_empty()).then_some(def.body);
        out.tasks.push(task);
    }
    out
}

/// One task as the Rakefile (and what it loads) defines it, all its definitions merged.
#[derive(Debug, Default)]
struct Def {
    name: String,
    file: String,
    line: u32,
    descriptions: Vec<String>,
    deps: Vec<String>,
    params: Vec<Param>,
    body: String,
    /// The task library that defines it (`Rake::TestTask`), when no `task` call does.
    library: Option<&'static str>,
}

/// What a Rakefile says beyond its tasks: the files it loads.
#[derive(Debug, Default)]
struct Loads {
    /// `import "x.rake"`, `load "x.rake"`: paths relative to the Rakefile's directory.
    files: Vec<String>,
    /// `Dir.glob("tasks/**/*.rake")`, `Dir["…"]`: patterns relative to it.
    patterns: Vec<String>,
}

/// Reads files of one Rakefile, collecting task definitions in order.
#[derive(Debug, Default)]
struct Reader {
    defs: Vec<Def>,
    index: HashMap<String, usize>,
    loads: Loads,
    files_read: usize,
}

/// One open block: a `namespace`, the body of a task (capturing its lines), or another.
#[derive(Debug)]
enum Frame {
    Namespace(String),
    Body(usize, u32),
    Other,
}

impl Reader {
    /// Reads one file's definitions.
    #[allow(clippy::too_many_lines)]
    fn read(&mut self, path: &str, text: &str, out: &mut Parsed) {
        self.files_read += 1;
        let lines: Vec<&str> = text.lines().collect();
        let mut stack: Vec<Frame> = Vec::new();
        let mut pending_desc: Option<String> = None;
        let mut lost = false;
        let mut i = 0;
        while i < lines.len() {
            let line_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
            let first = lines[i];
            if first.starts_with("=begin") {
                while i < lines.len() && !lines[i].starts_with("=end") {
                    i += 1;
                }
                i += 1;
                continue;
            }
            if first.trim_end() == "__END__" {
                break;
            }
            let (statement, code, heredoc) = read_statement(&lines, &mut i);
            let trimmed = statement.trim_start();
            let prefix = namespace_of(&stack);
            let mut opens = self.statement(
                trimmed,
                &heredoc,
                &prefix,
                (path, line_no),
                &mut pending_desc,
            );
            if trimmed.contains("with_defaults") {
                self.defaults(trimmed, &stack);
            }
            for step in ruby::block_steps(&code) {
                if step > 0 {
                    stack.push(if let Some(name) = opens.namespace.take() {
                        Frame::Namespace(name)
                    } else if let Some(at) = opens.body.take() {
                        Frame::Body(at, line_no)
                    } else {
                        Frame::Other
                    });
                } else if let Some(frame) = stack.pop() {
                    if let Frame::Body(at, from) = frame {
                        let end = usize::try_from(line_no).unwrap_or(usize::MAX);
                        let start = usize::try_from(from).unwrap_or(usize::MAX);
                        let body = body_lines(&lines, start, end.min(i + 1));
                        if let Some(def) = self.defs.get_mut(at)
                            && def.body.is_empty()
                        {
                            def.body = body;
                        }
                    }
                } else if !lost {
                    lost = true;
                    out.diag(
                        path,
                        Some(line_no),
                        "an `end` closes no block agg saw open; task names after it may lack their namespace",
                    );
                }
            }
            i += 1;
        }
        if !stack.is_empty() && !lost {
            out.diag(
                path,
                Some(u32::try_from(lines.len()).unwrap_or(u32::MAX)),
                "a block is still open at the end of the file (an `end` missing?); rake would not load it",
            );
        }
    }

    /// Takes in one statement (`trimmed`, with the text of the heredocs it opens) at
    /// `(path, line)` under namespace `prefix`: a description waits in `pending_desc` for the
    /// task it describes. What it opens, should its line open a block.
    fn statement(
        &mut self,
        trimmed: &str,
        heredoc: &str,
        prefix: &str,
        (path, line_no): (&str, u32),
        pending_desc: &mut Option<String>,
    ) -> Opens {
        let (word, rest) = split_word(trimmed);
        let mut opens = Opens::default();
        match word {
            "desc" => {
                *pending_desc = ruby::first_string(rest)
                    .or_else(|| Some(heredoc.trim().to_owned()))
                    .map(|d| d.trim().to_owned())
                    .filter(|d| !d.is_empty());
            }
            "task" | "multitask" | "file" | "file_create" | "directory" => {
                if let Some(decl) = declaration(&ruby::tokens(rest)) {
                    let name = if word == "file" || word == "directory" {
                        decl.name.clone()
                    } else {
                        qualified(prefix, &decl.name)
                    };
                    opens.body = Some(self.declare(&name, decl, (path, line_no), pending_desc));
                }
            }
            "namespace" => {
                if let Some(Token::Symbol(name) | Token::Str(name)) =
                    ruby::tokens(rest).into_iter().next()
                {
                    opens.namespace = Some(name);
                }
            }
            "import" | "load" => {
                if let Some(file) = ruby::first_string(rest) {
                    self.loads.files.push(file);
                }
            }
            "require" => {
                if let Some(lib) = ruby::first_string(rest) {
                    self.library_require(&lib, path, line_no);
                }
            }
            _ => {
                self.library_call(trimmed, prefix, path, line_no);
                self.glob_loads(trimmed);
            }
        }
        opens
    }

    /// Defines task `name` from its declaration at `(path, line)`, or adds to it: the
    /// waiting description, the prerequisites it did not have, its parameters if it had none.
    /// Its index.
    fn declare(
        &mut self,
        name: &str,
        decl: Declaration,
        (path, line_no): (&str, u32),
        pending_desc: &mut Option<String>,
    ) -> usize {
        let at = self.define(name, path, line_no);
        let def = &mut self.defs[at];
        if let Some(desc) = pending_desc.take()
            && !def.descriptions.contains(&desc)
        {
            def.descriptions.push(desc);
        }
        for dep in decl.deps {
            if !def.deps.contains(&dep) {
                def.deps.push(dep);
            }
        }
        if def.params.is_empty() {
            def.params = decl.params.into_iter().map(optional).collect();
        }
        def.library = None;
        at
    }

    /// The definition of `name`, made now when it is the first.
    fn define(&mut self, name: &str, path: &str, line: u32) -> usize {
        if let Some(&at) = self.index.get(name) {
            return at;
        }
        self.index.insert(name.to_owned(), self.defs.len());
        self.defs.push(Def {
            name: name.to_owned(),
            file: path.to_owned(),
            line,
            ..Def::default()
        });
        self.defs.len() - 1
    }

    /// A task a library defines, unless the Rakefile defines it too.
    fn library_task(
        &mut self,
        name: &str,
        description: &str,
        library: &'static str,
        path: &str,
        line: u32,
    ) {
        let new = !self.index.contains_key(name);
        let at = self.define(name, path, line);
        if new {
            let def = &mut self.defs[at];
            if !description.is_empty() {
                def.descriptions.push(description.to_owned());
            }
            def.library = Some(library);
        }
    }

    /// `require "rake/clean"`, `require "bundler/gem_tasks"`: the tasks they define.
    fn library_require(&mut self, lib: &str, path: &str, line: u32) {
        const CLEAN: &str = "rake/clean";
        let tasks: &[(&str, &str)] = match lib {
            "rake/clean" => &[
                ("clean", "Remove any temporary products"),
                ("clobber", "Remove any generated files"),
            ],
            "bundler/gem_tasks" => &[
                ("build", "Build the gem into the pkg directory"),
                (
                    "build:checksum",
                    "Generate SHA512 checksum of the gem into the checksums directory",
                ),
                ("install", "Build and install the gem into system gems"),
                (
                    "install:local",
                    "Build and install the gem into system gems without network access",
                ),
                (
                    "release",
                    "Create a tag, build and push the gem to rubygems.org",
                ),
                ("release:guard_clean", ""),
                ("release:rubygem_push", ""),
                ("release:source_control_push", ""),
                ("clean", "Remove any temporary products"),
                ("clobber", "Remove any generated files"),
            ],
            _ => return,
        };
        let library = if lib == CLEAN {
            CLEAN
        } else {
            "bundler/gem_tasks"
        };
        for (name, description) in tasks {
            self.library_task(name, description, library, path, line);
        }
    }

    /// `Rake::TestTask.new(:name)`, `RSpec::Core::RakeTask.new(:spec)`,
    /// `RuboCop::RakeTask.new`: the tasks these task classes define.
    fn library_call(&mut self, statement: &str, prefix: &str, path: &str, line: u32) {
        let classes: [(&str, &str, &str, &'static str); 3] = [
            ("Rake::TestTask.new", "test", "Run tests", "Rake::TestTask"),
            (
                "RSpec::Core::RakeTask.new",
                "spec",
                "Run RSpec code examples",
                "RSpec::Core::RakeTask",
            ),
            (
                "RuboCop::RakeTask.new",
                "rubocop",
                "Run RuboCop",
                "RuboCop::RakeTask",
            ),
        ];
        for (call, default, description, library) in classes {
            let Some(rest) = statement.strip_prefix(call) else {
                continue;
            };
            let name = match ruby::tokens(rest).first() {
                Some(Token::Symbol(n) | Token::Str(n)) => n.clone(),
                _ => default.to_owned(),
            };
            let full = qualified(prefix, &name);
            let description = if library == "Rake::TestTask" && name != "test" {
                format!("Run tests for {name}")
            } else {
                description.to_owned()
            };
            self.library_task(&full, &description, library, path, line);
            if library == "RuboCop::RakeTask" {
                for (sub, text) in [
                    (
                        "autocorrect",
                        "Autocorrect RuboCop offenses (only when it's safe)",
                    ),
                    (
                        "autocorrect_all",
                        "Autocorrect RuboCop offenses (safe and unsafe)",
                    ),
                ] {
                    self.library_task(&format!("{full}:{sub}"), text, library, path, line);
                }
            }
        }
    }

    /// `Dir.glob("tasks/*.rake").each { |f| import f }` and `Rails.application.load_tasks`.
    fn glob_loads(&mut self, statement: &str) {
        if statement.contains("load_tasks") {
            self.loads.patterns.push("lib/tasks/**/*.rake".to_owned());
        }
        for open in ["Dir.glob(", "Dir["] {
            if let Some(at) = statement.find(open)
                && let Some(pattern) = ruby::first_string(&statement[at + open.len()..])
                && std::path::Path::new(&pattern)
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("rake"))
            {
                self.loads.patterns.push(pattern);
            }
        }
    }

    /// `args.with_defaults(env: "staging", tag: "latest")` inside a task's body: the
    /// defaults of its parameters.
    fn defaults(&mut self, statement: &str, stack: &[Frame]) {
        let Some(at) = stack.iter().rev().find_map(|f| match f {
            Frame::Body(at, _) => Some(*at),
            _ => None,
        }) else {
            return;
        };
        let Some(start) = statement.find("with_defaults") else {
            return;
        };
        let tokens = ruby::tokens(&statement[start + "with_defaults".len()..]);
        let Some(def) = self.defs.get_mut(at) else {
            return;
        };
        for pair in tokens.windows(2) {
            let (Token::Label(name), Token::Str(value) | Token::Symbol(value)) =
                (&pair[0], &pair[1])
            else {
                continue;
            };
            if let Some(param) = def.params.iter_mut().find(|p| p.name == *name) {
                param.default = Some(value.clone());
            }
        }
    }
}

/// Whether a statement's code goes on to the next line: a trailing `,`, `\`, `=>` or an
/// open bracket.
fn continues(code: &str) -> bool {
    let trimmed = code.trim_end();
    let open = trimmed.matches(['[', '(']).count() > trimmed.matches([']', ')']).count();
    open || trimmed.ends_with(',') || trimmed.ends_with('\\') || trimmed.ends_with("=>")
}

/// The first word of a statement and what follows it (`task`, `:x => :y`).
fn split_word(statement: &str) -> (&str, &str) {
    let end = statement
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(statement.len());
    let (word, rest) = statement.split_at(end);
    // `task.name`, `task_list`: a method call on something else, not the word.
    if rest.starts_with(['.', ':', '=']) && !rest.starts_with("=>") {
        return ("", statement);
    }
    (word, rest)
}

/// The namespace the open blocks put a task in (`db:schema`), empty at the top.
fn namespace_of(stack: &[Frame]) -> String {
    let names: Vec<&str> = stack
        .iter()
        .filter_map(|f| match f {
            Frame::Namespace(name) => Some(name.as_str()),
            _ => None,
        })
        .collect();
    names.join(":")
}

fn qualified(prefix: &str, name: &str) -> String {
    if prefix.is_empty() {
        name.to_owned()
    } else {
        format!("{prefix}:{name}")
    }
}

/// A task's parameter: rake passes `nil` for one not given.
fn optional(name: String) -> Param {
    Param {
        required: false,
        passing: Passing::Bracket,
        ..Param::required(name)
    }
}

/// What one `task` call declares.
#[derive(Debug, Default, PartialEq, Eq)]
struct Declaration {
    name: String,
    params: Vec<String>,
    deps: Vec<String>,
}

/// Reads `:name`, `"name"`, `name: deps`, `:name => deps`, `:name, [:a, :b]` and
/// `:name, [:a] => deps`; `None` when the name is not written as a literal.
fn declaration(tokens: &[Token]) -> Option<Declaration> {
    let mut decl = Declaration::default();
    let mut rest = match tokens.first()? {
        Token::Symbol(name) | Token::Str(name) => {
            decl.name.clone_from(name);
            &tokens[1..]
        }
        Token::Label(name) => {
            decl.name.clone_from(name);
            decl.deps = values(&tokens[1..]).0;
            return (!decl.name.is_empty()).then_some(decl);
        }
        _ => return None,
    };
    if decl.name.is_empty() {
        return None;
    }
    if rest.first() == Some(&Token::Comma) {
        let (params, after) = values(&rest[1..]);
        decl.params = params;
        rest = after;
    }
    if rest.first() == Some(&Token::Arrow) {
        decl.deps = values(&rest[1..]).0;
    }
    Some(decl)
}

/// A symbol, string, `[…]` list or `%w[…]` at the start of `tokens`, as names, and what
/// follows it.
fn values(tokens: &[Token]) -> (Vec<String>, &[Token]) {
    match tokens.first() {
        Some(Token::Symbol(v) | Token::Str(v)) => (vec![v.clone()], &tokens[1..]),
        Some(Token::Words(words)) => (words.clone(), &tokens[1..]),
        Some(Token::Open) => {
            let mut names = Vec::new();
            for (i, token) in tokens.iter().enumerate().skip(1) {
                match token {
                    Token::Symbol(v) | Token::Str(v) => names.push(v.clone()),
                    Token::Close => return (names, &tokens[i + 1..]),
                    _ => {}
                }
            }
            (names, &[])
        }
        _ => (Vec::new(), tokens),
    }
}

/// The lines of a task's block, from its `task` line to its `end`, bounded.
fn body_lines(lines: &[&str], from: usize, to: usize) -> String {
    let from = from.saturating_sub(1);
    let mut out = String::new();
    for line in lines.get(from..to).unwrap_or_default() {
        if out.len() + line.len() > MAX_SCRIPT {
            out.push('…');
            break;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(line);
    }
    out
}

/// The files rake loads with a Rakefile, after it: `rakelib/*.rake`, then what it imports
/// and the `.rake` files its patterns match, each once, relative to its directory.
fn loaded_files(src: &Source<'_>, loads: &Loads, out: &mut Parsed) -> Vec<String> {
    let dir = parent(src.path);
    let mut found: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::from([src.path.to_owned()]);
    let mut add = |path: String, found: &mut Vec<String>| {
        if seen.insert(path.clone()) {
            found.push(path);
        }
    };
    for path in glob(src.files, dir, "rakelib/*.rake") {
        add(path, &mut found);
    }
    for file in &loads.files {
        let with_ext = if std::path::Path::new(file).extension().is_some() {
            file.clone()
        } else {
            format!("{file}.rake")
        };
        match join(dir, &with_ext) {
            Some(path) if src.files.exists(&path) => add(path, &mut found),
            Some(path) => out.diag(
                src.path,
                None,
                format!("loaded file `{path}` does not exist"),
            ),
            None => out.diag(
                src.path,
                None,
                format!("loaded file `{file}` is outside the repository; not read"),
            ),
        }
    }
    for pattern in &loads.patterns {
        for path in glob(src.files, dir, pattern) {
            add(path, &mut found);
        }
    }
    found
}

/// The files under `dir` matching `pattern` (`*` within a name, `**` across directories),
/// sorted, at most [`MAX_FILES`].
fn glob(files: &dyn Files, dir: &str, pattern: &str) -> Vec<String> {
    let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
    let Ok(glob) = globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
    else {
        return Vec::new();
    };
    let matcher = glob.compile_matcher();
    // Walk from the pattern's literal directories, not the whole tree.
    let parts: Vec<&str> = pattern.split('/').collect();
    let literal = parts
        .iter()
        .take_while(|p| !p.contains(['*', '?', '[', '{']))
        .count()
        .min(parts.len().saturating_sub(1));
    let base = parts[..literal].join("/");
    let Some(start) = join(dir, &base) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut queue = vec![(start, base, 0usize)];
    while let Some((abs, rel, depth)) = queue.pop() {
        for name in files.read_dir(&abs) {
            if found.len() >= MAX_FILES {
                break;
            }
            let Some(path) = join(&abs, &name) else {
                continue;
            };
            let entry = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            if files.exists(&path) {
                if matcher.is_match(&entry) {
                    found.push(path);
                }
            } else if depth < MAX_GLOB_DEPTH && !name.starts_with('.') {
                queue.push((path, entry, depth + 1));
            }
        }
    }
    found.sort();
    found
}

/// What a statement opens when its line opens a block: a namespace, or a task's body.
#[derive(Default)]
struct Opens {
    namespace: Option<String>,
    body: Option<usize>,
}

/// The statement starting at line `*i`, as written and as code (comments cut): lines joined
/// while a call's arguments go on, then the text of the heredocs it opens (a `desc <<~EOS`).
/// `*i` is left on its last line.
fn read_statement(lines: &[&str], i: &mut usize) -> (String, String, String) {
    let mut statement = lines[*i].to_owned();
    let mut code = ruby::code_of(lines[*i]);
    while continues(&code) && *i + 1 < lines.len() && statement.len() < 64 * MAX_JOINED {
        *i += 1;
        statement.push('\n');
        statement.push_str(lines[*i]);
        code.push('\n');
        code.push_str(&ruby::code_of(lines[*i]));
    }
    let mut heredoc = String::new();
    for terminator in ruby::heredocs(&code) {
        while *i + 1 < lines.len() {
            *i += 1;
            if lines[*i].trim() == terminator {
                break;
            }
            heredoc.push_str(lines[*i].trim());
            heredoc.push(' ');
        }
    }
    (statement, code, heredoc)
}

#[cfg(test)]
mod tests;
