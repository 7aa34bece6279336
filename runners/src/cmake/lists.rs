//! `CMakeLists.txt` files, read as the CMake language (cmake-language(7)) without running
//! any of it: command invocations with their bracket, quoted and unquoted arguments, and
//! comments. From the project's top file, `add_subdirectory` and `include(file.cmake)` are
//! followed the way CMake would, so every `add_custom_target` of the build is found with its
//! `COMMENT`, commands and dependencies (`DEPENDS`, `add_dependencies`). `${VAR}` is
//! resolved from `project()`, `set()` and CMake's source-directory variables; a target whose
//! name needs anything else (a function's argument, a cache value) is not listed.

use std::collections::HashMap;

use super::condition;
use crate::{Files, LineIndex, Parsed, join, parent};

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

/// One command invocation.
#[derive(Debug)]
pub(super) struct Command {
    /// The name, lowercased (command names are case-insensitive).
    pub name: String,
    pub line: u32,
    pub args: Vec<Arg>,
}

/// One argument.
#[derive(Debug)]
pub(super) struct Arg {
    pub text: String,
    /// Quoted or bracket: never a keyword.
    pub quoted: bool,
}

/// Why a file stops being readable, and where.
#[derive(Debug)]
pub(super) struct SyntaxError {
    pub line: u32,
    pub message: String,
}

/// The commands of one file, up to the first syntax error (CMake stops there too).
pub(super) fn commands(text: &str) -> (Vec<Command>, Option<SyntaxError>) {
    let mut reader = Reader {
        bytes: text.as_bytes(),
        text,
        at: 0,
        lines: LineIndex::new(text),
    };
    let mut commands = Vec::new();
    loop {
        match reader.next_command() {
            Ok(Some(command)) => commands.push(command),
            Ok(None) => return (commands, None),
            Err(err) => return (commands, Some(err)),
        }
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    text: &'a str,
    at: usize,
    lines: LineIndex,
}

impl Reader<'_> {
    fn line(&self) -> u32 {
        self.lines.line(self.at)
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn error<T>(line: u32, message: impl Into<String>) -> Result<T, SyntaxError> {
        Err(SyntaxError {
            line,
            message: message.into(),
        })
    }

    /// Skips blanks, line ends and comments.
    fn skip_space(&mut self) -> Result<(), SyntaxError> {
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' | b'\r' | b'\n' => self.at += 1,
                b'#' => {
                    self.at += 1;
                    if let Some(level) = self.bracket_open() {
                        let line = self.line();
                        if self.bracket_body(level).is_none() {
                            return Self::error(line, "a bracket comment `#[[` is never closed");
                        }
                    } else {
                        while self.peek().is_some_and(|b| b != b'\n') {
                            self.at += 1;
                        }
                    }
                }
                _ => break,
            }
        }
        Ok(())
    }

    /// At `[` followed by `=`s and `[`: consumes the opening and returns the count of `=`.
    fn bracket_open(&mut self) -> Option<usize> {
        let rest = self.bytes.get(self.at..)?;
        if rest.first() != Some(&b'[') {
            return None;
        }
        let level = rest[1..].iter().take_while(|b| **b == b'=').count();
        if rest.get(1 + level) != Some(&b'[') {
            return None;
        }
        self.at += level + 2;
        Some(level)
    }

    /// The body of a bracket argument or comment, up to its `]=…]` (consumed).
    fn bracket_body(&mut self, level: usize) -> Option<String> {
        let close = format!("]{}]", "=".repeat(level));
        let rest = self.text.get(self.at..)?;
        let end = rest.find(&close)?;
        let mut body = &rest[..end];
        // A line end right after the opening bracket is not part of the content.
        body = body
            .strip_prefix("\r\n")
            .or_else(|| body.strip_prefix('\n'))
            .unwrap_or(body);
        self.at += end + close.len();
        Some(body.to_owned())
    }

    fn next_command(&mut self) -> Result<Option<Command>, SyntaxError> {
        self.skip_space()?;
        let Some(first) = self.peek() else {
            return Ok(None);
        };
        let line = self.line();
        if !(first.is_ascii_alphabetic() || first == b'_') {
            return Self::error(
                line,
                format!(
                    "expected a command name, found `{}`",
                    char_at(self.text, self.at)
                ),
            );
        }
        let start = self.at;
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            self.at += 1;
        }
        let name = self.text[start..self.at].to_ascii_lowercase();
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
        if self.peek() != Some(b'(') {
            return Self::error(
                line,
                format!("expected `(` after the command name `{name}`"),
            );
        }
        self.at += 1;
        let args = self.arguments(&name, line)?;
        Ok(Some(Command { name, line, args }))
    }

    /// The arguments up to the `)` that closes the invocation; nested parentheses are
    /// arguments themselves (as `if((a) AND b)` has them).
    fn arguments(&mut self, name: &str, line: u32) -> Result<Vec<Arg>, SyntaxError> {
        let mut args = Vec::new();
        let mut depth = 1usize;
        loop {
            self.skip_space()?;
            let Some(b) = self.peek() else {
                return Self::error(line, format!("`{name}(` is never closed"));
            };
            match b {
                b')' => {
                    self.at += 1;
                    depth -= 1;
                    if depth == 0 {
                        return Ok(args);
                    }
                    args.push(Arg {
                        text: ")".to_owned(),
                        quoted: false,
                    });
                }
                b'(' => {
                    self.at += 1;
                    depth += 1;
                    args.push(Arg {
                        text: "(".to_owned(),
                        quoted: false,
                    });
                }
                b'"' => {
                    let start = self.line();
                    self.at += 1;
                    let Some(text) = self.quoted() else {
                        return Self::error(start, "a quoted argument is never closed");
                    };
                    args.push(Arg { text, quoted: true });
                }
                b'[' if self.bracket_open_ahead() => {
                    let start = self.line();
                    let level = self.bracket_open().unwrap_or(0);
                    let Some(text) = self.bracket_body(level) else {
                        return Self::error(start, "a bracket argument `[[` is never closed");
                    };
                    args.push(Arg { text, quoted: true });
                }
                _ => args.push(Arg {
                    text: self.unquoted(),
                    quoted: false,
                }),
            }
        }
    }

    fn bracket_open_ahead(&self) -> bool {
        let rest = &self.bytes[self.at..];
        let level = rest[1..].iter().take_while(|b| **b == b'=').count();
        rest.get(1 + level) == Some(&b'[')
    }

    /// A quoted argument's content, after its opening `"`; `None` when it never closes.
    fn quoted(&mut self) -> Option<String> {
        let mut out = String::new();
        let mut chars = self.text.get(self.at..)?.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.at += i + 1;
                    return Some(out);
                }
                '\\' => match chars.next() {
                    // A line continuation.
                    Some((_, '\n')) => {}
                    Some((_, 'n')) => out.push('\n'),
                    Some((_, 't')) => out.push('\t'),
                    Some((_, 'r')) => out.push('\r'),
                    Some((_, ';')) => out.push_str("\\;"),
                    Some((_, other)) => out.push(other),
                    None => return None,
                },
                c => out.push(c),
            }
        }
        None
    }

    /// An unquoted argument: up to a blank, a parenthesis or a comment. A quoted part inside
    /// (`-DX="a b"`, CMake's legacy form) is kept with its quotes.
    fn unquoted(&mut self) -> String {
        let mut out = String::new();
        while let Some(b) = self.peek() {
            match b {
                b' ' | b'\t' | b'\r' | b'\n' | b'(' | b')' | b'#' => break,
                b'\\' => {
                    self.at += 1;
                    let c = char_at(self.text, self.at);
                    match c {
                        'n' => out.push('\n'),
                        't' => out.push('\t'),
                        ';' => out.push_str("\\;"),
                        '\0' => break,
                        c => out.push(c),
                    }
                    self.at += c.len_utf8();
                }
                b'"' => {
                    self.at += 1;
                    out.push('"');
                    if let Some(inner) = self.quoted() {
                        out.push_str(&inner);
                        out.push('"');
                    } else {
                        self.at = self.bytes.len();
                    }
                }
                _ => {
                    let c = char_at(self.text, self.at);
                    out.push(c);
                    self.at += c.len_utf8();
                }
            }
        }
        out
    }
}

/// The character at byte `at` (`'\0'` past the end or inside a character).
fn char_at(text: &str, at: usize) -> char {
    text.get(at..)
        .and_then(|s| s.chars().next())
        .unwrap_or('\0')
}

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
    let mut chain = vec![path.to_owned()];
    let scope = Scope {
        source_dir: dir,
        conditional: false,
        note: None,
    };
    project.file(files, path, text, scope, &mut vars, &mut chain, out);
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

impl Project {
    #[allow(clippy::too_many_arguments)]
    fn file(
        &mut self,
        files: &dyn Files,
        path: &str,
        text: &str,
        scope: Scope<'_>,
        vars: &mut HashMap<String, String>,
        chain: &mut Vec<String>,
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
        let mut skipping: Vec<&str> = Vec::new();
        let mut ifs: Vec<Branch> = Vec::new();
        for command in &commands {
            // Function and macro bodies run only when called, with arguments agg cannot know.
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
                // A branch CMake does not take on this host.
                continue;
            }
            let note = ifs.iter().rev().find_map(|b| b.note.clone());
            let here = Scope {
                source_dir: dir,
                conditional: scope.conditional || note.is_some(),
                note: note.as_deref().or(scope.note),
            };
            match command.name.as_str() {
                "project" => {
                    if let Some(name) = command.args.first().and_then(|a| expand(&a.text, vars)) {
                        vars.insert("PROJECT_NAME".to_owned(), name.clone());
                        vars.entry("CMAKE_PROJECT_NAME".to_owned())
                            .or_insert_with(|| name.clone());
                        vars.insert(format!("{name}_SOURCE_DIR"), root_path(dir));
                        vars.insert("PROJECT_SOURCE_DIR".to_owned(), root_path(dir));
                    }
                }
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
                "add_subdirectory" => {
                    let Some(sub) = command.args.first().and_then(|a| expand(&a.text, vars)) else {
                        continue;
                    };
                    let Some(sub_dir) = resolve_path(dir, &sub) else {
                        continue;
                    };
                    let Some(list) = join(&sub_dir, "CMakeLists.txt") else {
                        continue;
                    };
                    let mut sub_vars = vars.clone();
                    sub_vars.insert("CMAKE_CURRENT_SOURCE_DIR".to_owned(), root_path(&sub_dir));
                    sub_vars.insert("CMAKE_CURRENT_LIST_DIR".to_owned(), root_path(&sub_dir));
                    let inner = Scope {
                        source_dir: &sub_dir,
                        ..here
                    };
                    self.follow(
                        files,
                        (path, command.line),
                        &list,
                        inner,
                        &mut sub_vars,
                        chain,
                        out,
                    );
                }
                "include" => {
                    let Some(name) = command.args.first().and_then(|a| expand(&a.text, vars))
                    else {
                        continue;
                    };
                    // A module name (`include(CTest)`) is CMake's own; a file path is the
                    // project's.
                    if !std::path::Path::new(&name)
                        .extension()
                        .is_some_and(|e| e.eq_ignore_ascii_case("cmake"))
                    {
                        continue;
                    }
                    let Some(file) = resolve_path(dir, &name) else {
                        continue;
                    };
                    let saved = vars.get("CMAKE_CURRENT_LIST_DIR").cloned();
                    vars.insert(
                        "CMAKE_CURRENT_LIST_DIR".to_owned(),
                        root_path(parent(&file)),
                    );
                    self.follow(files, (path, command.line), &file, here, vars, chain, out);
                    if let Some(saved) = saved {
                        vars.insert("CMAKE_CURRENT_LIST_DIR".to_owned(), saved);
                    }
                }
                _ => {}
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn follow(
        &mut self,
        files: &dyn Files,
        (from, line): (&str, u32),
        path: &str,
        scope: Scope<'_>,
        vars: &mut HashMap<String, String>,
        chain: &mut Vec<String>,
        out: &mut Parsed,
    ) {
        if chain.iter().any(|c| c == path) {
            out.diag(
                from,
                Some(line),
                format!("`{path}` is already being read; CMake would recurse without end"),
            );
            return;
        }
        if chain.len() > MAX_DEPTH || self.files_read >= MAX_FILES {
            out.diag(
                from,
                Some(line),
                format!("more than {MAX_DEPTH} levels or {MAX_FILES} files; `{path}` not read"),
            );
            return;
        }
        let text = match files.read(path) {
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
        chain.push(path.to_owned());
        self.file(files, path, &text, scope, vars, chain, out);
        chain.pop();
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
