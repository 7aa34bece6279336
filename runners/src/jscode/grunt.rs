//! grunt: the tasks a Gruntfile registers (`grunt.registerTask`, `grunt.registerMultiTask`,
//! in JavaScript or CoffeeScript) and the targets its configuration gives multi-tasks
//! (`grunt.initConfig({ concat: { dist: … } })` → `concat:dist`), read without running the
//! file. Tasks of plugins (`grunt.loadNpmTasks('grunt-contrib-concat')`, `load-grunt-tasks`)
//! are known by their configuration; tasks of `grunt.loadTasks('dir')` are read from that
//! directory's files.

use std::collections::BTreeSet;
use std::ops::Range;

use super::code::Code;
use super::lexer::{Lang, Tok};
use crate::files::{Files, join};
use crate::model::{Parsed, Runner, Task};

/// Files read from one `grunt.loadTasks('dir')` directory, at most.
const MAX_LOADED_FILES: usize = 256;

/// Configuration keys that hold data, not a plugin's targets, by grunt's own convention.
const DATA_KEYS: [&str; 2] = ["pkg", "meta"];

/// A task `registerTask`/`registerMultiTask` declares.
struct Declared {
    name: String,
    line: u32,
    description: Option<String>,
    /// An alias task's list (`registerTask('default', ['jshint', 'concat:dist'])`).
    alias: Option<Vec<String>>,
    multi: bool,
    file: String,
}

/// One key of `initConfig`: a task's configuration and its targets.
struct Configured {
    name: String,
    line: u32,
    targets: Vec<(String, u32)>,
}

/// How the file brings plugins' tasks in.
#[derive(Default)]
struct Plugins {
    /// `loadNpmTasks('grunt-contrib-concat')`: the plugin by the task it conventionally
    /// registers (`concat`).
    named: Vec<(String, String)>,
    /// `load-grunt-tasks`, `jit-grunt` or `matchdep`: every plugin of the package.
    all: Option<String>,
}

/// Everything read from a Gruntfile and the task files it loads.
#[derive(Default)]
struct Gruntfile {
    declared: Vec<Declared>,
    configured: Vec<Configured>,
    plugins: Plugins,
    task_dirs: Vec<String>,
}

/// The grunt tasks of `code` (the Gruntfile at `path`), run from `dir`.
pub(super) fn tasks(
    code: &Code,
    lang: Lang,
    path: &str,
    dir: &str,
    files: &dyn Files,
    out: &mut Parsed,
) {
    let mut file = Gruntfile::default();
    read(code, lang, path, &mut file, true);
    for task_dir in std::mem::take(&mut file.task_dirs) {
        load_tasks(&task_dir, dir, files, &mut file, out, path);
    }
    let declared: BTreeSet<&str> = file.declared.iter().map(|d| d.name.as_str()).collect();
    let run = |name: &str| vec!["grunt".to_owned(), name.to_owned()];
    for d in &file.declared {
        let mut task = Task::new(Runner::Grunt, &d.name, dir, &d.file, run(&d.name));
        task.line = Some(d.line);
        task.description.clone_from(&d.description);
        if let Some(alias) = &d.alias {
            task.deps.clone_from(alias);
            if task.description.is_none() {
                // What `grunt --help` says of an alias without a description.
                let list: Vec<String> = alias.iter().map(|a| format!("\"{a}\"")).collect();
                let noun = if list.len() == 1 { "task" } else { "tasks" };
                task.description = Some(format!("Alias for {} {noun}.", list.join(", ")));
            }
        }
        out.tasks.push(task);
    }
    for c in &file.configured {
        let multi = file.declared.iter().any(|d| d.multi && d.name == c.name);
        let plugin = if multi {
            None
        } else if let Some((plugin, _)) = file.plugins.named.iter().find(|(_, t)| *t == c.name) {
            Some(plugin.clone())
        } else if let Some(all) = &file.plugins.all
            && !DATA_KEYS.contains(&c.name.as_str())
            && !declared.contains(c.name.as_str())
        {
            Some(all.clone())
        } else {
            continue;
        };
        if plugin.is_some() {
            let mut task = Task::new(Runner::Grunt, &c.name, dir, path, run(&c.name));
            task.line = Some(c.line);
            task.plugin.clone_from(&plugin);
            task.description = Some(format!("every target of `{}`", c.name));
            out.tasks.push(task);
        }
        for (target, line) in &c.targets {
            let name = format!("{}:{target}", c.name);
            let mut task = Task::new(Runner::Grunt, &name, dir, path, run(&name));
            task.line = Some(*line);
            task.plugin.clone_from(&plugin);
            out.tasks.push(task);
        }
    }
}

/// Reads the registrations of one file; `gruntfile` when it is the Gruntfile itself, whose
/// configuration and plugins count.
fn read(code: &Code, lang: Lang, path: &str, file: &mut Gruntfile, gruntfile: bool) {
    let mut i = 0;
    while i < code.len() {
        let before_dot = i > 0 && code.is(i - 1, '.');
        match code.ident(i) {
            Some(kind @ ("registerTask" | "registerMultiTask" | "renameTask")) if before_dot => {
                if kind != "renameTask"
                    && let Some(args) = call_args(code, lang, i)
                    && let Some(d) = declared(code, &args, kind == "registerMultiTask", path)
                {
                    file.declared.retain(|k| k.name != d.name);
                    file.declared.push(d);
                }
            }
            Some("initConfig") if before_dot && gruntfile => config(code, lang, i + 1, file),
            Some("init") if before_dot && gruntfile && code.is_ident(i - 2, "config") => {
                config(code, lang, i + 1, file);
            }
            Some("loadNpmTasks") if before_dot && gruntfile => {
                if let Some(args) = call_args(code, lang, i)
                    && let Some(first) = args.first()
                    && let Some(plugin) = code.plain_str(first.start)
                    && let Some(task) = plugin_task(plugin)
                {
                    file.plugins.named.push((plugin.to_owned(), task));
                }
            }
            Some("loadTasks") if before_dot && gruntfile => {
                if let Some(args) = call_args(code, lang, i)
                    && let Some(first) = args.first()
                    && let Some(dir) = code.plain_str(first.start)
                {
                    file.task_dirs.push(dir.to_owned());
                }
            }
            Some("require") if gruntfile => {
                let name = code.plain_str(i + 1).or_else(|| code.plain_str(i + 2));
                if let Some(plugin @ ("load-grunt-tasks" | "jit-grunt" | "matchdep")) = name {
                    file.plugins.all.get_or_insert_with(|| plugin.to_owned());
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// The task a plugin registers by convention: `grunt-contrib-concat` and `grunt-concat`
/// register `concat`.
fn plugin_task(plugin: &str) -> Option<String> {
    let bare = plugin.rsplit('/').next().unwrap_or(plugin);
    let task = bare
        .strip_prefix("grunt-contrib-")
        .or_else(|| bare.strip_prefix("grunt-"))?;
    (!task.is_empty()).then(|| task.to_owned())
}

/// The arguments of the call whose name is at `i`: in parentheses, or in CoffeeScript
/// without them, to the end of the line (`grunt.registerTask 'default', ['a', 'b']`).
fn call_args(code: &Code, lang: Lang, i: usize) -> Option<Vec<Range<usize>>> {
    if code.is(i + 1, '(') {
        return Some(code.args(i + 1));
    }
    if lang != Lang::Coffee {
        return None;
    }
    let line = code.line(i);
    let start = i + 1;
    let mut j = start;
    let mut function = false;
    while let Some(t) = code.get(j) {
        // A function argument (`->`, `=>`) or the next line ends the list.
        if (t.is('-') || t.is('=')) && code.is(j + 1, '>') {
            function = true;
            break;
        }
        if t.line != line && t.first_on_line {
            break;
        }
        j = code.step(j);
    }
    let mut args = code.split(start..j);
    if function {
        args.push(j..j + 2);
    }
    (!args.is_empty()).then_some(args)
}

/// The task a `registerTask(name, [description,] what)` call declares.
fn declared(code: &Code, args: &[Range<usize>], multi: bool, path: &str) -> Option<Declared> {
    let first = args.first()?;
    let name = code.plain_str(first.start).filter(|_| first.len() == 1)?;
    let single_str = |r: &Range<usize>| {
        (r.len() == 1)
            .then(|| code.plain_str(r.start).map(str::to_owned))
            .flatten()
    };
    let list = |r: &Range<usize>| -> Option<Vec<String>> {
        if code.is(r.start, '[') {
            code.strings(r.start)
        } else {
            // grunt splits a string task list at spaces.
            single_str(r).map(|s| s.split_whitespace().map(str::to_owned).collect())
        }
    };
    let (description, alias) = match args.len() {
        0 | 1 => (None, None),
        2 if multi => (None, None),
        2 => (None, list(&args[1])),
        _ => {
            let description = single_str(&args[1]);
            let alias = if multi { None } else { list(&args[2]) };
            (description, alias)
        }
    };
    Some(Declared {
        name: name.to_owned(),
        line: code.line(first.start),
        description,
        alias,
        multi,
        file: path.to_owned(),
    })
}

/// `initConfig(…)` at the token after `initConfig`: an object literal, or CoffeeScript's
/// indented one.
fn config(code: &Code, lang: Lang, at: usize, file: &mut Gruntfile) {
    let mut at = at;
    if code.is(at, '(') {
        at += 1;
    }
    if code.is(at, '{') {
        for entry in code.entries(at) {
            let Some(name) = entry.key else { continue };
            let line = code.line(entry.at);
            let object = code.is(entry.value.start, '{')
                && code.close_of(entry.value.start) + 1 == entry.value.end;
            let targets = if object {
                object_keys(code, entry.value.start)
            } else if lang == Lang::Coffee && entry.value.is_empty() {
                Vec::new()
            } else {
                continue;
            };
            file.configured.push(Configured {
                name,
                line,
                targets,
            });
        }
        return;
    }
    if lang == Lang::Coffee {
        indented_config(code, at, file);
    }
}

/// The keys of the object at `open` that name targets (not `options`).
fn object_keys(code: &Code, open: usize) -> Vec<(String, u32)> {
    code.entries(open)
        .into_iter()
        .filter_map(|e| Some((e.key?, code.line(e.at))))
        .filter(|(k, _)| k != "options")
        .collect()
}

/// CoffeeScript's implicit object after `grunt.initConfig`: keys one indentation level in
/// are tasks, the keys one level further are their targets.
fn indented_config(code: &Code, start: usize, file: &mut Gruntfile) {
    let is_key = |j: usize| {
        code.get(j).is_some_and(|t| {
            t.first_on_line && matches!(t.tok, Tok::Ident(_) | Tok::Str { plain: true, .. })
        }) && code.is(j + 1, ':')
    };
    let key = |j: usize| match code.get(j).map(|t| &t.tok) {
        Some(Tok::Ident(name) | Tok::Str { value: name, .. }) => name.clone(),
        _ => String::new(),
    };
    let Some(first) = (start..code.len()).find(|&j| code.get(j).is_some_and(|t| t.first_on_line))
    else {
        return;
    };
    let level = code.get(first).map_or(0, |t| t.indent);
    let mut target_level: Option<u32> = None;
    let mut j = first;
    while let Some(t) = code.get(j) {
        if t.first_on_line {
            if t.indent < level {
                break;
            }
            if is_key(j) {
                if t.indent == level {
                    let targets = if code.is(j + 2, '{') {
                        object_keys(code, j + 2)
                    } else {
                        Vec::new()
                    };
                    file.configured.push(Configured {
                        name: key(j),
                        line: t.line,
                        targets,
                    });
                    target_level = None;
                } else if let Some(current) = file.configured.last_mut() {
                    let level_here = *target_level.get_or_insert(t.indent);
                    if t.indent == level_here && key(j) != "options" {
                        current.targets.push((key(j), t.line));
                    }
                }
            }
        }
        j = code.step(j);
    }
}

/// `grunt.loadTasks('dir')`: the registrations of the `.js` and `.coffee` files of `dir`
/// (relative to the Gruntfile's directory).
fn load_tasks(
    task_dir: &str,
    dir: &str,
    files: &dyn Files,
    file: &mut Gruntfile,
    out: &mut Parsed,
    path: &str,
) {
    let Some(at) = join(dir, task_dir) else {
        out.diag(
            path,
            None,
            format!("`grunt.loadTasks('{task_dir}')` leaves the repository; not read"),
        );
        return;
    };
    let mut names = files.read_dir(&at);
    names.sort();
    // grunt loads the files with these extensions, as written.
    #[allow(clippy::case_sensitive_file_extension_comparisons)]
    let names: Vec<String> = names
        .into_iter()
        .filter(|n| n.ends_with(".js") || n.ends_with(".coffee") || n.ends_with(".cjs"))
        .collect();
    if names.len() > MAX_LOADED_FILES {
        out.diag(
            path,
            None,
            format!("`{at}` holds more than {MAX_LOADED_FILES} task files; the rest are not read"),
        );
    }
    for name in names.into_iter().take(MAX_LOADED_FILES) {
        let Some(task_path) = join(&at, &name) else {
            continue;
        };
        let Ok(text) = files.read(&task_path) else {
            continue;
        };
        let lang = if name.ends_with(".coffee") {
            Lang::Coffee
        } else {
            Lang::Js
        };
        let (tokens, _) = super::lexer::tokenize(&text, lang);
        read(&Code::new(tokens), lang, &task_path, file, false);
    }
}
