//! gulp: the tasks a gulpfile registers, read as gulp-cli would find them, without running
//! the file. A task is a function the file exports (`exports.build = …`, `module.exports =
//! { … }`, `export function`, `export const`, `export default`, `export { … }`) or one it
//! registers with `task('name', …)` (gulp 4) or `gulp.task('name', ['deps'], fn)` (gulp 3).
//! `series(…)`/`parallel(…)` compositions give the task's dependencies, and
//! `fn.description`/`fn.flags` its description and options, as `gulp --tasks` shows them.

use std::collections::HashMap;
use std::ops::Range;

use super::code::Code;
use crate::model::{Param, Parsed, Runner, Task};

/// Compositions nested deeper than this are not read further (no gulpfile comes near it).
const MAX_NESTING: usize = 32;

/// What an expression is, as far as listing needs it.
#[derive(Debug, Clone)]
enum Value {
    /// A function (declared, an arrow, `function () {}`).
    Function,
    /// `series(…)`/`parallel(…)`: the tasks and functions it runs, in order.
    Composition(Vec<Ref>),
    /// Another name, resolved through the file's bindings.
    Name(String),
    /// A value from another module (`require('./tasks/build')`): gulp registers it if it
    /// is a function, which only running the file would tell, so it counts as one.
    External,
    /// A literal that is no function (a string, a number, an object, an array).
    Data,
    /// Anything else (a call's result): it may be a function.
    Unknown,
}

/// One step of a composition.
#[derive(Debug, Clone)]
enum Ref {
    /// A task by its name (`'clean'`).
    Task(String),
    /// A function by the name it is bound to (`clean`).
    Function(String),
}

/// One registration: a task's name, its value and where it was registered.
struct Registration {
    name: String,
    line: u32,
    value: Value,
    /// The composition as written, for `describe`.
    written: Option<String>,
    /// gulp 3's dependency array (`gulp.task('a', ['b'], fn)`).
    deps: Vec<String>,
    /// Registered in gulp 3's form, which gulp 4 refuses.
    gulp3: bool,
}

impl Registration {
    /// A registration in gulp 4's form with no composition to show.
    fn exported(name: String, line: u32, value: Value) -> Self {
        Registration {
            name,
            line,
            value,
            written: None,
            deps: Vec::new(),
            gulp3: false,
        }
    }
}

/// Everything the file says about its names.
#[derive(Default)]
struct Facts {
    bindings: HashMap<String, (Value, Option<String>)>,
    descriptions: HashMap<String, String>,
    display_names: HashMap<String, String>,
    flags: HashMap<String, Vec<Param>>,
}

/// The gulp tasks of `code`, read from the file at `path`, run from `dir`.
pub(super) fn tasks(code: &Code, path: &str, dir: &str, out: &mut Parsed) {
    let mut facts = Facts::default();
    let mut calls = Vec::new();
    let mut exports = Vec::new();
    let mut i = 0;
    while i < code.len() {
        let before_dot = i > 0 && code.is(i - 1, '.');
        match code.ident(i) {
            Some("function") if !before_dot => {
                if let Some(name) = code.ident(i + 1).filter(|_| code.is(i + 2, '(')) {
                    facts
                        .bindings
                        .entry(name.to_owned())
                        .or_insert((Value::Function, None));
                }
            }
            Some("const" | "let" | "var") if !before_dot => bind(code, i + 1, &mut facts),
            Some("task") if !code.is_ident(i.wrapping_sub(1), "function") => {
                if code.is(i + 1, '(')
                    && let Some(call) = task_call(code, i + 1, &facts)
                {
                    calls.push(call);
                }
            }
            Some("exports") => exported_members(code, i, &mut exports),
            Some("export") if !before_dot => es_export(code, i, &mut exports),
            Some(name) if !before_dot && code.is(i + 1, '.') => property(code, i, name, &mut facts),
            _ => {}
        }
        i += 1;
    }
    // gulp-cli registers the exports after the file ran: an export wins over a `task()` of
    // the same name.
    if let Some(first) = calls.iter().find(|r| r.gulp3) {
        out.diag(
            path,
            Some(first.line),
            "`task(name, [dependencies], fn)` is gulp 3's form: gulp 4 and later refuse this file (\"Task function must be specified\"); it runs with the gulp 3 the project pins",
        );
    }
    let mut registered: Vec<Registration> = Vec::new();
    for r in calls.into_iter().chain(exports) {
        let r = resolve(r, &facts);
        if !is_function(&r.value, &facts, 0) {
            continue;
        }
        match registered.iter_mut().find(|k| k.name == r.name) {
            Some(known) => *known = r,
            None => registered.push(r),
        }
    }
    // The names gulp knows each function by: the task it was registered as.
    let mut task_of: HashMap<&str, &str> = HashMap::new();
    for r in &registered {
        if let Value::Name(f) = &r.value {
            task_of.entry(f).or_insert(&r.name);
        }
    }
    for r in &registered {
        let mut task = Task::new(
            Runner::Gulp,
            &r.name,
            dir,
            path,
            vec!["gulp".to_owned(), r.name.clone()],
        );
        task.line = Some(r.line);
        let function = match &r.value {
            Value::Name(f) => Some(f.as_str()),
            _ => None,
        };
        if let Some(f) = function {
            task.description = facts.descriptions.get(f).cloned();
            task.params = facts.flags.get(f).cloned().unwrap_or_default();
        }
        task.deps.clone_from(&r.deps);
        for step in steps(&r.value, &facts) {
            let name = match step {
                Ref::Task(name) => Some(name),
                Ref::Function(f) => task_of.get(f.as_str()).map(|t| (*t).to_owned()),
            };
            if let Some(name) = name.filter(|n| *n != r.name && !task.deps.contains(n)) {
                task.deps.push(name);
            }
        }
        task.script = r.written.clone().or_else(|| {
            function
                .and_then(|f| facts.bindings.get(f))
                .and_then(|(_, written)| written.clone())
        });
        out.tasks.push(task);
    }
}

/// `NAME = EXPR` (or `NAME: Type = EXPR`) after `const`/`let`/`var` at `i`, and
/// `{ a, b: c } = require(…)`, whose names come from elsewhere.
fn bind(code: &Code, i: usize, facts: &mut Facts) {
    if code.is(i, '{') || code.is(i, '[') {
        let close = code.close_of(i);
        if code.is(close + 1, '=') {
            for part in code.split(i + 1..close) {
                // `{ a }`, `{ a: b }`, `{ a = 1 }`: the name bound is the last before `=`.
                let name = (part.start..part.end)
                    .take_while(|&j| !code.is(j, '='))
                    .filter_map(|j| code.ident(j))
                    .last();
                if let Some(name) = name {
                    facts
                        .bindings
                        .entry(name.to_owned())
                        .or_insert((Value::External, None));
                }
            }
        }
        return;
    }
    let Some(name) = code.ident(i) else { return };
    // Skip a type annotation: `const build: TaskFunction = …`.
    let mut j = i + 1;
    if code.is(j, ':') {
        while j < code.len() && !code.is(j, '=') && !code.is(j, ';') && j < i + 16 {
            j = code.step(j);
        }
    }
    if !code.is(j, '=') || code.is(j + 1, '=') {
        return;
    }
    let (value, end) = value(code, j + 1, 0);
    let written = matches!(value, Value::Composition(_)).then(|| code.render(j + 1..end, 400));
    facts
        .bindings
        .entry(name.to_owned())
        .or_insert((value, written));
}

/// What the expression starting at `i` is, and where it ends (the first token after it at
/// its level: `,`, `;`, a closer, or a new line's statement).
fn value(code: &Code, mut i: usize, depth: usize) -> (Value, usize) {
    if code.is_ident(i, "async") {
        i += 1;
    }
    let end = expression_end(code, i);
    let Some(t) = code.get(i) else {
        return (Value::Unknown, i);
    };
    if let Some(word) = t.ident() {
        if word == "function" || code.is(i + 1, '=') && code.is(i + 2, '>') {
            return (Value::Function, end);
        }
        if word == "require" || word == "import" {
            return (Value::External, end);
        }
        if word == "new" {
            return (Value::Unknown, end);
        }
        // `series(…)`, `gulp.series(…)`, `gulp.parallel(…)`.
        let mut k = i;
        while code.ident(k).is_some() && code.is(k + 1, '.') && code.ident(k + 2).is_some() {
            k += 2;
        }
        if matches!(code.ident(k), Some("series" | "parallel")) && code.is(k + 1, '(') {
            let mut steps = Vec::new();
            if depth < MAX_NESTING {
                for arg in code.args(k + 1) {
                    composition_step(code, arg, depth, &mut steps);
                }
            }
            return (Value::Composition(steps), end);
        }
        if k == i && end == i + 1 {
            return (Value::Name(word.to_owned()), end);
        }
        return (Value::Unknown, end);
    }
    if t.is('(') {
        let close = code.close_of(i);
        if code.is(close + 1, '=') && code.is(close + 2, '>') {
            return (Value::Function, end);
        }
        // `(a, b) : void => …` (TypeScript) is rare enough to read as unknown.
        return (Value::Unknown, end);
    }
    if t.plain_str().is_some()
        || matches!(t.tok, super::lexer::Tok::Str { .. })
        || matches!(t.tok, super::lexer::Tok::Num)
        || t.is('{')
        || t.is('[')
    {
        return (Value::Data, end);
    }
    (Value::Unknown, end)
}

/// One argument of `series`/`parallel`.
fn composition_step(code: &Code, arg: Range<usize>, depth: usize, steps: &mut Vec<Ref>) {
    if arg.len() == 1 {
        if let Some(name) = code.plain_str(arg.start) {
            steps.push(Ref::Task(name.to_owned()));
        } else if let Some(f) = code.ident(arg.start) {
            steps.push(Ref::Function(f.to_owned()));
        }
        return;
    }
    if let (Value::Composition(inner), _) = value(code, arg.start, depth + 1) {
        steps.extend(inner);
    }
}

/// Where the expression at `i` ends: the first `,`, `;` or closer at its level, or a token
/// that starts a new statement on a later line.
fn expression_end(code: &Code, i: usize) -> usize {
    let mut j = i;
    let start_line = code.line(i);
    while let Some(t) = code.get(j) {
        if t.is(',') || t.is(';') || t.is(')') || t.is(']') || t.is('}') {
            break;
        }
        if j > i && t.line != start_line && t.first_on_line && statement_start(code, j) {
            break;
        }
        j = code.step(j);
    }
    j
}

/// Whether the token at `j` begins a statement rather than continuing an expression.
fn statement_start(code: &Code, j: usize) -> bool {
    let continues = j > 0
        && code.get(j - 1).is_some_and(
            |p| matches!(p.tok, super::lexer::Tok::Punct(c) if "=+-*/%&|^<>?:!~.(".contains(c)),
        );
    !continues && !code.is(j, '.') && !code.is(j, '(') && !code.is(j, '?')
}

/// `task(…)` at its `(`: `task('name', fn)`, `task('name', ['deps'], fn)` (gulp 3) or
/// `task(fn)` (named by the function). A getter (`task('name')`) registers nothing.
fn task_call(code: &Code, open: usize, facts: &Facts) -> Option<Registration> {
    let args = code.args(open);
    let first = args.first()?;
    let line = code.line(open);
    if args.len() == 1 {
        // `task(fn)`: the function's display name, else its own. A name the file does not
        // bind to a function (a parameter: `function start(name) { gulp.task(name) }`) is
        // gulp's getter, which registers nothing.
        let f = code.ident(first.start).filter(|_| first.len() == 1)?;
        if !matches!(
            facts.bindings.get(f),
            Some((Value::Function | Value::Composition(_) | Value::External, _))
        ) {
            return None;
        }
        let name = facts
            .display_names
            .get(f)
            .cloned()
            .unwrap_or_else(|| f.to_owned());
        return Some(Registration::exported(
            name,
            line,
            Value::Name(f.to_owned()),
        ));
    }
    let name = code.plain_str(first.start).filter(|_| first.len() == 1)?;
    let last = args.last()?;
    let gulp3 = args.len() >= 2 && code.is(args[1].start, '[');
    let deps = if gulp3 {
        code.strings(args[1].start).unwrap_or_default()
    } else {
        Vec::new()
    };
    // gulp 3's `task('default', ['a', 'b'])` runs only its dependencies.
    let (value, end) = if gulp3 && args.len() == 2 {
        (Value::Function, last.end)
    } else {
        value(code, last.start, 0)
    };
    let written = matches!(value, Value::Composition(_)).then(|| code.render(last.start..end, 400));
    Some(Registration {
        name: name.to_owned(),
        line,
        value,
        written,
        deps,
        gulp3,
    })
}

/// `exports.NAME = …`, `module.exports.NAME = …`, `exports['NAME'] = …` and
/// `module.exports = { … }`, at the `exports` token `i`.
fn exported_members(code: &Code, i: usize, out: &mut Vec<Registration>) {
    let is_module = i >= 2 && code.is(i - 1, '.') && code.is_ident(i - 2, "module");
    if i > 0 && code.is(i - 1, '.') && !is_module {
        return;
    }
    let line = code.line(i);
    let (name, eq) = if code.is(i + 1, '.') && code.is(i + 3, '=') {
        (code.ident(i + 2).map(str::to_owned), i + 3)
    } else if code.is(i + 1, '[') && code.is(i + 3, ']') && code.is(i + 4, '=') {
        (code.plain_str(i + 2).map(str::to_owned), i + 4)
    } else if is_module && code.is(i + 1, '=') && !code.is(i + 2, '=') {
        if code.is(i + 2, '{') {
            object_exports(code, i + 2, out);
        }
        return;
    } else {
        return;
    };
    if code.is(eq + 1, '=') {
        return;
    }
    if let Some(name) = name {
        out.push(export(code, name, line, eq + 1));
    }
}

/// The registration of an export named `name` whose value starts at `at`.
fn export(code: &Code, name: String, line: u32, at: usize) -> Registration {
    let (value, end) = value(code, at, 0);
    let written = matches!(value, Value::Composition(_)).then(|| code.render(at..end, 400));
    Registration {
        written,
        ..Registration::exported(name, line, value)
    }
}

/// `module.exports = { build, clean: wipe, lint() {…} }` at its `{`.
fn object_exports(code: &Code, open: usize, out: &mut Vec<Registration>) {
    for entry in code.entries(open) {
        let Some(key) = entry.key else { continue };
        let line = code.line(entry.at);
        if entry.method {
            out.push(Registration::exported(key, line, Value::Function));
        } else if entry.value.is_empty() {
            out.push(Registration::exported(key.clone(), line, Value::Name(key)));
        } else {
            out.push(export(code, key, line, entry.value.start));
        }
    }
}

/// ES module exports at the `export` token `i`.
fn es_export(code: &Code, i: usize, out: &mut Vec<Registration>) {
    let line = code.line(i);
    let mut j = i + 1;
    if code.is_ident(j, "default") {
        out.push(export(code, "default".to_owned(), line, j + 1));
        return;
    }
    if code.is_ident(j, "async") {
        j += 1;
    }
    // A function or a binding: the main loop recorded it; export its name.
    if code.is_ident(j, "function") || matches!(code.ident(j), Some("const" | "let" | "var")) {
        if let Some(name) = code.ident(j + 1) {
            out.push(Registration::exported(
                name.to_owned(),
                line,
                Value::Name(name.to_owned()),
            ));
        }
        return;
    }
    if code.is(j, '{') {
        let close = code.close_of(j);
        if code.is_ident(close + 1, "from") {
            // Re-exported from another module: functions there, as far as listing knows.
            for part in code.split(j + 1..close) {
                if let Some(name) = exported_as(code, part) {
                    out.push(Registration::exported(name, line, Value::External));
                }
            }
            return;
        }
        for part in code.split(j + 1..close) {
            let Some(local) = code.ident(part.start) else {
                continue;
            };
            if let Some(name) = exported_as(code, part.clone()) {
                out.push(Registration::exported(
                    name,
                    line,
                    Value::Name(local.to_owned()),
                ));
            }
        }
    }
}

/// The name an `export { a as b }` part gives: `b`, or `a` without `as`.
fn exported_as(code: &Code, part: Range<usize>) -> Option<String> {
    match part.len() {
        1 => code.ident(part.start).map(str::to_owned),
        3 if code.is_ident(part.start + 1, "as") => code
            .ident(part.start + 2)
            .or_else(|| code.plain_str(part.start + 2))
            .map(str::to_owned),
        _ => None,
    }
}

/// `name.description = '…'`, `name.displayName = '…'` and `name.flags = { … }` at `i`.
fn property(code: &Code, i: usize, name: &str, facts: &mut Facts) {
    let Some(prop) = code.ident(i + 2) else {
        return;
    };
    if !code.is(i + 3, '=') || code.is(i + 4, '=') {
        return;
    }
    let at = i + 4;
    match prop {
        "description" => {
            if let Some(text) = code.plain_str(at) {
                facts.descriptions.insert(name.to_owned(), text.to_owned());
            }
        }
        "displayName" => {
            if let Some(text) = code.plain_str(at) {
                facts.display_names.insert(name.to_owned(), text.to_owned());
            }
        }
        "flags" if code.is(at, '{') => {
            let params = code
                .entries(at)
                .into_iter()
                .filter_map(|e| {
                    let flag = e.key?;
                    let help = (e.value.len() == 1)
                        .then(|| code.plain_str(e.value.start).map(str::to_owned))
                        .flatten();
                    Some(Param {
                        name: flag.trim_start_matches('-').to_owned(),
                        required: false,
                        flags: vec![flag],
                        help,
                        ..Param::default()
                    })
                })
                .collect();
            facts.flags.insert(name.to_owned(), params);
        }
        _ => {}
    }
}

/// A registration's value with a bare name followed to what it names.
fn resolve(mut r: Registration, facts: &Facts) -> Registration {
    if r.written.is_none()
        && let Value::Name(f) = &r.value
        && let Some((_, written)) = facts.bindings.get(f)
    {
        r.written.clone_from(written);
    }
    r
}

/// Whether gulp would register `value`: a function, a composition, or what may be one.
fn is_function(value: &Value, facts: &Facts, depth: usize) -> bool {
    match value {
        Value::Function | Value::Composition(_) | Value::External | Value::Unknown => true,
        Value::Data => false,
        Value::Name(name) => match facts.bindings.get(name) {
            Some((inner, _)) if depth < MAX_NESTING => is_function(inner, facts, depth + 1),
            Some(_) => false,
            // A name the file never binds (a global, an import agg did not see).
            None => true,
        },
    }
}

/// The steps a task runs: its composition's, or those of the composition its name is bound to.
fn steps(value: &Value, facts: &Facts) -> Vec<Ref> {
    let mut value = value;
    for _ in 0..MAX_NESTING {
        match value {
            Value::Composition(steps) => return steps.clone(),
            Value::Name(name) => match facts.bindings.get(name) {
                Some((inner, _)) => value = inner,
                None => break,
            },
            _ => break,
        }
    }
    Vec::new()
}
