//! invoke: the tasks of `tasks.py` or of a `tasks/` package (`tasks/__init__.py`, which
//! Python imports before a `tasks.py` beside it), read as text and never run.
//!
//! A module's tasks are its top-level functions decorated with `@task` (or `@invoke.task`),
//! named as invoke names them (`build_docs` → `build-docs`, or the decorator's `name=`),
//! described by their docstring's first line, with the decorator's `aliases`, `pre` tasks
//! (deps; `@task(clean)` too), `post` tasks (hooks), `default=True` (the task `invoke` runs
//! alone, and a sub-collection's name runs) and `help`. Every parameter after the context is
//! an option (`--name VALUE`; a boolean is a switch, `--[no-]name` when it defaults to true).
//! When the module builds its own collection (`ns = Collection(...)`, `ns.add_task`,
//! `ns.add_collection(module, name=…)`), that collection is what invoke lists: tasks of
//! other modules as `docs.build`, read from the sibling module's file.

use std::collections::HashSet;

use crate::files::{file_name, join, parent};
use crate::model::Passing;
use crate::model::{Adapter, Hook, HookWhen, Param, Parsed, Runner, Source, Task};
use crate::text::open_brackets;

/// The invoke adapter.
pub const ADAPTER: Adapter = Adapter {
    name: "invoke",
    candidate,
    one_per_dir: false,
    admit: None,
    neighbours: None,
    parse,
};

/// Nested collections followed (a module adding itself would recurse forever).
const MAX_DEPTH: usize = 8;
/// A decorator or signature longer than this is not read.
const MAX_STATEMENT: usize = 8 * 1024;

fn candidate(path: &str) -> Option<u8> {
    let name = file_name(path);
    let dir = parent(path);
    (name == "tasks.py" || (name == "__init__.py" && file_name(dir) == "tasks")).then_some(0)
}

fn parse(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    let package = file_name(src.path) == "__init__.py";
    let project = if package {
        parent(parent(src.path))
    } else {
        parent(src.path)
    };
    if !package && join(project, "tasks/__init__.py").is_some_and(|p| src.files.exists(&p)) {
        out.diag(
            src.path,
            None,
            "Python imports the `tasks/` package beside this file instead; invoke reads that",
        );
        return out;
    }
    let module = Module::read(src.text);
    let mut walk = Walk {
        src,
        seen: HashSet::from([src.path.to_owned()]),
        listed: Vec::new(),
        out,
    };
    walk.collect(src.path, &module, "", 0);
    let Walk {
        listed, mut out, ..
    } = walk;
    for (name, def, file) in listed {
        // invoke would read such a name as its own option.
        if name.starts_with('-') {
            out.diag(
                &file,
                Some(def.line),
                format!("task `{name}` starts with `-`: invoke reads it as an option, not a task"),
            );
            continue;
        }
        let mut task = Task::new(
            Runner::Invoke,
            &name,
            project,
            &file,
            vec!["invoke".to_owned(), name.clone()],
        );
        task.line = Some(def.line);
        task.description.clone_from(&def.help);
        let prefix = name
            .rsplit_once('.')
            .map_or(String::new(), |(p, _)| format!("{p}."));
        task.deps = def
            .pre
            .iter()
            .map(|p| format!("{prefix}{}", dashed(p)))
            .collect();
        task.behaviour.hooks = def
            .post
            .iter()
            .map(|p| Hook {
                name: format!("{prefix}{}", dashed(p)),
                when: HookWhen::After,
                command: format!("invoke {prefix}{}", dashed(p)),
            })
            .collect();
        task.aliases = def.aliases.iter().map(|a| format!("{prefix}{a}")).collect();
        if def.default {
            // `invoke` alone (or `invoke docs` for a sub-collection) runs it.
            let default = prefix.trim_end_matches('.');
            if !default.is_empty() {
                task.aliases.push(default.to_owned());
            }
        }
        task.params.clone_from(&def.params);
        out.tasks.push(task);
    }
    out
}

/// The walk from a tasks file through the collections it builds and the modules they add:
/// the source it starts from, the files already read (a module adding itself would recurse
/// forever), the tasks found with the file that defines each, and the parse's result.
struct Walk<'a, 's> {
    src: &'a Source<'s>,
    seen: HashSet<String>,
    listed: Vec<(String, TaskDef, String)>,
    out: Parsed,
}

impl Walk<'_, '_> {
    /// Adds the tasks `module` (the text of `path`) lists, named under `prefix`: its
    /// collection's when it builds one, else every task it defines.
    fn collect(&mut self, path: &str, module: &Module, prefix: &str, depth: usize) {
        let Some(collection) = &module.collection else {
            for def in &module.tasks {
                self.listed.push((
                    format!("{prefix}{}", def.name),
                    def.clone(),
                    path.to_owned(),
                ));
            }
            return;
        };
        let mut elsewhere = Vec::new();
        for (item, name) in &collection.items {
            if let Some(def) = module.tasks.iter().find(|t| t.function == *item) {
                let mut def = def.clone();
                if let Some(name) = name {
                    def.name.clone_from(name);
                }
                self.listed
                    .push((format!("{prefix}{}", def.name), def, path.to_owned()));
                continue;
            }
            // A module (its own file beside this one, a package, or what an import names), or
            // a task of another module (`from tasks.pytest import test`, `checks.blacken`).
            let Some(found) = locate(self.src, path, module, item) else {
                elsewhere.push(format!("`{item}`"));
                continue;
            };
            let file = match found {
                Located::Module(file) => file,
                Located::Task(file, function) => {
                    let Ok(text) = self.src.files.read(&file) else {
                        continue;
                    };
                    let Some(def) = Module::read(&text)
                        .tasks
                        .into_iter()
                        .find(|t| t.function == function)
                    else {
                        elsewhere.push(format!("`{item}`"));
                        continue;
                    };
                    let mut def = def;
                    if let Some(name) = name {
                        def.name.clone_from(name);
                    }
                    if !self.out.consumed.contains(&file) && file != self.src.path {
                        self.out.consumed.push(file.clone());
                    }
                    self.listed
                        .push((format!("{prefix}{}", def.name), def, file));
                    continue;
                }
            };
            if depth >= MAX_DEPTH || !self.seen.insert(file.clone()) {
                continue;
            }
            let Ok(text) = self.src.files.read(&file) else {
                continue;
            };
            self.out.consumed.push(file.clone());
            let inner = Module::read(&text);
            let name = name.clone().unwrap_or_else(|| dashed(item));
            self.collect(&file, &inner, &format!("{prefix}{name}."), depth + 1);
        }
        if !elsewhere.is_empty() {
            self.out.diag(
                path,
                Some(collection.line),
                format!(
                    "the collection adds {}, neither tasks of this file nor modules beside it (an installed package's?): their tasks are not listed",
                    elsewhere.join(", ")
                ),
            );
        }
    }
}

/// Where a collection's item is.
enum Located {
    /// A module file, whose tasks become a sub-collection.
    Module(String),
    /// A task function of another module file.
    Task(String, String),
}

/// Finds `item` of the collection in `path`: a module beside it, one its imports name
/// (`from pkg import docs`, relative to the file or to the project), or a function one of
/// them defines (`from pkg.pytest import test`, `checks.blacken`).
fn locate(src: &Source<'_>, path: &str, module: &Module, item: &str) -> Option<Located> {
    let dir = parent(path);
    let project = if file_name(path) == "__init__.py" {
        parent(dir)
    } else {
        dir
    };
    let exists = |base: &str, rel: &str| -> Option<String> {
        [format!("{rel}.py"), format!("{rel}/__init__.py")]
            .into_iter()
            .filter_map(|f| join(base, &f))
            .find(|f| src.files.exists(f))
    };
    let (head, attr) = match item.split_once('.') {
        Some((head, attr)) => (head, Some(attr)),
        None => (item, None),
    };
    // The module `head` stands for, as a path: an import's, or a file beside this one.
    let imported = module
        .imports
        .iter()
        .find(|(name, _)| name == head)
        .map(|(_, from)| from);
    let module_file = match imported {
        Some(from) if from.is_empty() => exists(dir, head),
        Some(from) => {
            let rel = format!("{}/{head}", from.replace('.', "/"));
            exists(dir, &rel).or_else(|| exists(project, &rel))
        }
        None => exists(dir, head),
    };
    match (module_file, attr) {
        (Some(file), None) => Some(Located::Module(file)),
        (Some(file), Some(attr)) => Some(Located::Task(file, attr.to_owned())),
        (None, None) => {
            // `from pkg.pytest import test`: `test` is a function of `pkg/pytest.py`.
            let from = imported.filter(|f| !f.is_empty())?.replace('.', "/");
            let file = exists(dir, &from).or_else(|| exists(project, &from))?;
            Some(Located::Task(file, head.to_owned()))
        }
        (None, Some(_)) => None,
    }
}

/// invoke's name for a Python name: underscores inside it become dashes; leading and
/// trailing ones stay (`all_` is listed as `all_`).
fn dashed(name: &str) -> String {
    let core = name.trim_matches('_');
    let Some(at) = name.find(core).filter(|_| !core.is_empty()) else {
        return name.to_owned();
    };
    format!(
        "{}{}{}",
        &name[..at],
        core.replace('_', "-"),
        &name[at + core.len()..]
    )
}

/// One `@task` function.
#[derive(Debug, Clone, Default)]
struct TaskDef {
    /// The function's own name (for `pre=[clean]` and collections).
    function: String,
    /// The name invoke lists.
    name: String,
    line: u32,
    help: Option<String>,
    aliases: Vec<String>,
    pre: Vec<String>,
    post: Vec<String>,
    default: bool,
    params: Vec<Param>,
}

/// A module's own collection: `(module or task function, name given)` in order.
#[derive(Debug, Default)]
struct Collection {
    items: Vec<(String, Option<String>)>,
    line: u32,
}

/// What one Python module says to invoke.
#[derive(Debug, Default)]
struct Module {
    tasks: Vec<TaskDef>,
    collection: Option<Collection>,
    /// `from pkg.sub import name` at the top level: (`name`, `pkg.sub`), relative imports
    /// without their dots.
    imports: Vec<(String, String)>,
}

impl Module {
    fn read(text: &str) -> Module {
        let lines: Vec<&str> = text.lines().collect();
        let mut module = Module::default();
        let mut ns_var: Option<String> = None;
        let mut pending: Option<(u32, String)> = None;
        let mut i = 0;
        while i < lines.len() {
            let line = lines[i];
            let line_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
            let (statement, last) = statement_at(&lines, i);
            if let Some(rest) = task_decorator(line) {
                pending = Some((line_no, rest_of(&statement, rest)));
            } else if let Some(rest) = line
                .strip_prefix("def ")
                .or_else(|| line.strip_prefix("async def "))
            {
                if let Some((decorator_line, args)) = pending.take() {
                    let body = lines.get(last + 1..).unwrap_or_default();
                    module
                        .tasks
                        .push(task_def(rest, &statement, &args, decorator_line, body));
                }
            } else if line.starts_with('@') {
                // Another decorator between `@task` and the function keeps it pending.
            } else if !line.starts_with([' ', '\t', '#']) && !line.trim().is_empty() {
                pending = None;
                if let Some(rest) = statement.strip_prefix("from ")
                    && let Some((from, names)) = rest.split_once(" import ")
                {
                    let from = from.trim().trim_start_matches('.');
                    let names = names.trim().trim_start_matches('(').trim_end_matches(')');
                    for name in split_args(names) {
                        let name = name.rsplit(" as ").next().unwrap_or(name).trim();
                        if is_identifier(name) {
                            module.imports.push((name.to_owned(), from.to_owned()));
                        }
                    }
                }
                if let Some((var, call)) = statement.split_once('=')
                    && let var = var.trim()
                    && matches!(var, "ns" | "namespace")
                    && let Some(args) = call.trim().strip_prefix("Collection(")
                {
                    ns_var = Some(var.to_owned());
                    let mut collection = Collection {
                        line: line_no,
                        ..Collection::default()
                    };
                    for arg in split_args(args.trim_end().trim_end_matches(')')) {
                        if arg.split('.').all(is_identifier) {
                            collection.items.push((arg.to_owned(), None));
                        }
                    }
                    module.collection = Some(collection);
                } else if let Some(var) = &ns_var
                    && let Some(call) = statement.strip_prefix(&format!("{var}."))
                    && let Some(collection) = module.collection.as_mut()
                {
                    add_call(call, collection);
                }
            }
            i = last + 1;
        }
        module
    }
}

/// `add_task(f, name="x")`, `add_collection(m, "x")`, `add_collection(Collection.from_module(m), name="x")`.
fn add_call(call: &str, collection: &mut Collection) {
    let Some(args) = call
        .strip_prefix("add_task(")
        .or_else(|| call.strip_prefix("add_collection("))
    else {
        return;
    };
    let args = split_args(args.trim_end().strip_suffix(')').unwrap_or(args));
    let Some(first) = args.first() else {
        return;
    };
    let item = first
        .strip_prefix("Collection.from_module(")
        .map_or(*first, |m| m.trim_end_matches(')').trim());
    if !is_identifier(item) {
        return;
    }
    let name = args.iter().skip(1).find_map(|a| {
        let value = a.strip_prefix("name=").unwrap_or(a);
        string_literal(value.trim())
    });
    collection.items.push((item.to_owned(), name));
}

/// The arguments of `@task`/`@task(...)`/`@invoke.task(...)` when `line` is such a decorator.
fn task_decorator(line: &str) -> Option<&str> {
    let rest = line
        .strip_prefix("@task")
        .or_else(|| line.strip_prefix("@invoke.task"))?;
    let rest = rest.trim_start();
    (rest.is_empty() || rest.starts_with('(') || rest.starts_with('#')).then_some(rest)
}

/// The decorator's argument text within a statement that may go on over several lines.
fn rest_of(statement: &str, first_rest: &str) -> String {
    let at = statement.find(first_rest).unwrap_or(0);
    let text = statement.get(at..).unwrap_or_default().trim();
    text.strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
        .unwrap_or("")
        .to_owned()
}

/// The statement starting at line `i`, lines joined while brackets are open (strings and
/// comments aside), and the index of its last line.
fn statement_at(lines: &[&str], i: usize) -> (String, usize) {
    let mut text = lines[i].to_owned();
    let mut last = i;
    while open_brackets(&text) > 0 && last + 1 < lines.len() && text.len() < MAX_STATEMENT {
        last += 1;
        text.push('\n');
        text.push_str(lines[last]);
    }
    (text, last)
}

/// Splits call arguments at top-level commas.
fn split_args(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut level = 0i32;
    let mut quote: Option<char> = None;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '"' | '\'') => quote = Some(c),
            (None, '(' | '[' | '{') => level += 1,
            (None, ')' | ']' | '}') => level -= 1,
            (None, ',') if level == 0 => {
                out.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = text[start..].trim();
    if !last.is_empty() {
        out.push(last);
    }
    out
}

fn is_identifier(text: &str) -> bool {
    !text.is_empty()
        && text.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !text.starts_with(|c: char| c.is_ascii_digit())
}

/// The text of a Python string literal (`"x"`, `'x'`, with an `r`/`u` prefix).
fn string_literal(text: &str) -> Option<String> {
    let text = text.trim_start_matches(['r', 'u', 'R', 'U']);
    let quote = text.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let inner = text.strip_prefix(quote)?.strip_suffix(quote)?;
    Some(inner.to_owned())
}

/// The value given to `key=` among a decorator's arguments.
fn keyword<'a>(args: &[&'a str], key: &str) -> Option<&'a str> {
    args.iter().find_map(|a| {
        let (k, v) = a.split_once('=')?;
        (k.trim() == key).then(|| v.trim())
    })
}

/// The items of a list or tuple literal (`["a", "b"]`, `(clean,)`), as written.
fn items(text: &str) -> Vec<&str> {
    let inner = text
        .trim()
        .trim_start_matches(['[', '('])
        .trim_end_matches([']', ')']);
    split_args(inner)
}

/// One task from its `def` line (`rest` after `def `), its whole signature statement, its
/// decorator's arguments and the lines after the signature.
fn task_def(rest: &str, signature: &str, decorator: &str, line: u32, body: &[&str]) -> TaskDef {
    let function: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    let args = split_args(decorator);
    let name = keyword(&args, "name")
        .and_then(string_literal)
        .unwrap_or_else(|| dashed(&function));
    let mut pre: Vec<String> = args
        .iter()
        .filter(|a| is_identifier(a))
        .map(|a| (*a).to_owned())
        .collect();
    pre.extend(
        keyword(&args, "pre")
            .map(items)
            .unwrap_or_default()
            .iter()
            .map(|s| (*s).to_owned()),
    );
    let post = keyword(&args, "post")
        .map(items)
        .unwrap_or_default()
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    let aliases = keyword(&args, "aliases")
        .map(items)
        .unwrap_or_default()
        .iter()
        .filter_map(|a| string_literal(a))
        .collect();
    let help_text = keyword(&args, "help").unwrap_or_default();
    let mut params = Vec::new();
    let open = signature.find('(').map_or(signature.len(), |i| i + 1);
    let close = signature.rfind(')').unwrap_or(signature.len()).max(open);
    for (n, arg) in split_args(&signature[open..close]).into_iter().enumerate() {
        let arg = arg.split('#').next().unwrap_or(arg).trim();
        if n == 0 || arg.starts_with('*') || arg.is_empty() || arg == "/" {
            continue;
        }
        let (head, default) = match arg.split_once('=') {
            Some((h, d)) => (h, Some(d.trim())),
            None => (arg, None),
        };
        let pname = head.split(':').next().unwrap_or(head).trim();
        if !is_identifier(pname) {
            continue;
        }
        let flag = dashed(pname);
        let mut param = Param::required(pname);
        param.required = default.is_none();
        param.help = help_for(help_text, pname);
        match default {
            Some("True") => {
                param.kind = Some("boolean".to_owned());
                param.default = Some("true".to_owned());
                param.flags = vec![format!("--no-{flag}")];
            }
            Some("False") => {
                param.kind = Some("boolean".to_owned());
                param.default = Some("false".to_owned());
                param.flags = vec![format!("--{flag}")];
            }
            Some(value) => {
                param.default = Some(string_literal(value).unwrap_or_else(|| value.to_owned()));
                param.flags = vec![format!("--{flag}")];
            }
            None => param.flags = vec![format!("--{flag}")],
        }
        param.passing = Passing::declared(&param);
        params.push(param);
    }
    TaskDef {
        function,
        name,
        line,
        help: docstring(body),
        aliases,
        pre,
        post,
        default: keyword(&args, "default") == Some("True"),
        params,
    }
}

/// The text `help={"name": "…"}` gives a parameter.
fn help_for(help: &str, name: &str) -> Option<String> {
    let inner = help.trim().strip_prefix('{')?.strip_suffix('}')?;
    split_args(inner).into_iter().find_map(|pair| {
        let (k, v) = pair.split_once(':')?;
        (string_literal(k.trim())? == name).then(|| string_literal(v.trim()))?
    })
}

/// The first line of a function's docstring, as invoke shows it.
fn docstring(body: &[&str]) -> Option<String> {
    let first = body.iter().find(|l| !l.trim().is_empty())?.trim();
    let first = first.trim_start_matches(['r', 'u']);
    for quote in ["\"\"\"", "'''", "\"", "'"] {
        if let Some(text) = first.strip_prefix(quote) {
            let text = text.split(quote).next().unwrap_or(text).trim();
            if !text.is_empty() {
                return Some(text.to_owned());
            }
            // The text starts on the next line.
            let next = body
                .iter()
                .skip_while(|l| !l.contains(quote))
                .nth(1)?
                .trim();
            return (!next.is_empty() && !next.starts_with(quote)).then(|| next.to_owned());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::MemFiles;
    use crate::testing::{name_list, names, parse_with, task};
    use indoc::indoc;

    fn fixture() -> MemFiles {
        let dir = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/invoke-edge-cases/"
        );
        let read = |p: &str| std::fs::read_to_string(format!("{dir}{p}")).expect("fixture file");
        MemFiles::new()
            .with("tasks.py", &read("tasks.py"))
            .with("pkg/tasks/__init__.py", &read("pkg/tasks/__init__.py"))
            .with("pkg/tasks/docs.py", &read("pkg/tasks/docs.py"))
            .with(
                "pkg/tasks/release_tools.py",
                &read("pkg/tasks/release_tools.py"),
            )
    }

    #[test]
    fn a_module_lists_its_decorated_functions() {
        let parsed = parse_with(parse, &fixture(), "tasks.py");
        assert_eq!(
            names(&parsed),
            ["clean", "build-docs", "test", "deploy", "serve"]
        );
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let test = task(&parsed, "test");
        assert_eq!(test.description.as_deref(), Some("Run the test suite."));
        assert_eq!(test.deps, ["clean"]);
        assert_eq!(test.aliases, ["t"]);
        let params: Vec<String> = test
            .params
            .iter()
            .map(|p| {
                format!(
                    "{} {:?} {} {:?}",
                    p.name,
                    p.default,
                    p.flags.join(","),
                    p.kind
                )
            })
            .collect();
        assert_eq!(
            params,
            [
                "verbose Some(\"false\") --verbose Some(\"boolean\")",
                "cov Some(\"true\") --no-cov Some(\"boolean\")",
                "k Some(\"\") --k None",
                "workers Some(\"4\") --workers None",
            ]
        );
        assert_eq!(test.params[0].help.as_deref(), Some("print every test"));
        let deploy = task(&parsed, "deploy");
        assert!(deploy.params[0].required);
        assert_eq!(deploy.params[0].flags, ["--target-env"]);
        assert_eq!(deploy.behaviour.hooks[0].name, "clean");
        assert_eq!(task(&parsed, "build-docs").deps, ["clean"]);
        assert_eq!(
            task(&parsed, "serve").description.as_deref(),
            Some("Serve the site locally.")
        );
        assert_eq!(deploy.argv, ["invoke", "deploy"]);
    }

    #[test]
    fn a_package_with_its_own_collection() {
        let files = fixture().with(
            "pkg/tasks.py",
            indoc! {"
                from invoke import task
                @task
                def ignored(c):
                    pass
            "},
        );
        let parsed = parse_with(parse, &files, "pkg/tasks/__init__.py");
        assert_eq!(
            name_list(&parsed),
            "test, build-all, docs.build, docs.serve-it, rel.tag"
        );
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        assert_eq!(task(&parsed, "test").dir, "pkg");
        assert_eq!(task(&parsed, "build-all").aliases, ["b"]);
        assert_eq!(task(&parsed, "docs.build").aliases, ["docs"]);
        assert_eq!(task(&parsed, "docs.build").file_path, "pkg/tasks/docs.py");
        assert_eq!(
            parsed.consumed,
            ["pkg/tasks/docs.py", "pkg/tasks/release_tools.py"]
        );
        let shadowed = parse_with(parse, &files, "pkg/tasks.py");
        assert!(shadowed.tasks.is_empty());
        assert_eq!(shadowed.diagnostics.len(), 1);
    }

    /// A collection of what the file imports from its own package: modules as
    /// sub-collections, functions as tasks, `module.task` too (pyinvoke/invocations).
    #[test]
    fn a_collection_of_imported_modules_and_functions() {
        let files = MemFiles::new()
            .with(
                "tasks.py",
                indoc! {"
                    from invoke import Collection
                    from tools import docs, checks
                    from tools.pytest import test as test

                    ns = Collection(test, docs, checks.blacken)
                "},
            )
            .with("tools/__init__.py", "")
            .with(
                "tools/docs.py",
                indoc! {"
                    from invoke import task
                    @task
                    def build(c):
                        pass
                "},
            )
            .with(
                "tools/checks.py",
                indoc! {"
                    from invoke import task
                    @task
                    def blacken(c):
                        pass
                "},
            )
            .with(
                "tools/pytest.py",
                indoc! {"
                    from invoke import task
                    @task
                    def test(c):
                        \"\"\"Run pytest.\"\"\"
                "},
            )
            .with(
                "other/tasks.py",
                indoc! {"
                    from invocations import ci
                    from invoke import Collection
                    ns = Collection(ci)
                "},
            );
        let parsed = parse_with(parse, &files, "tasks.py");
        assert_eq!(names(&parsed), ["test", "docs.build", "blacken"]);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        assert_eq!(task(&parsed, "test").file_path, "tools/pytest.py");
        let installed = parse_with(parse, &files, "other/tasks.py");
        assert!(installed.tasks.is_empty());
        assert_eq!(installed.diagnostics.len(), 1);
    }

    #[test]
    fn odd_inputs_do_not_panic() {
        for text in [
            "@task(",
            "@task\n",
            "@task\ndef",
            "@task\ndef x(",
            "ns = Collection(",
            "ns = Collection(x)\nns.add_collection(",
            indoc! {"
                @task(help={\"a\":
                )
                def x(c, a=\""},
            "\"\"\"",
        ] {
            let _ = crate::testing::parse_one(parse, "tasks.py", text);
        }
        assert_eq!(candidate("a/tasks/__init__.py"), Some(0));
        assert_eq!(candidate("tasks.py"), Some(0));
        assert_eq!(candidate("a/__init__.py"), None);
        assert_eq!(dashed("all_"), "all_");
        assert_eq!(dashed("_build_docs"), "_build-docs");
        assert_eq!(dashed("___"), "___");
    }
}
