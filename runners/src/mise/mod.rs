//! mise tasks: `[tasks]` of a project's config files (`mise.toml`, `.config/mise/config.toml`,
//! `mise.local.toml`, …) merged in mise's precedence, and the file tasks of its task
//! directories (`mise-tasks/`, `.mise/tasks/`, …) or of `[task_config] includes`.
//!
//! Each config file is a candidate; reading any of them reads the whole project (every config
//! file of its directory and every task directory) and lists the files and directories it
//! read as consumed, so the project is listed once, through its shallowest config file, and a
//! file task added, edited or removed reads the project again. Nothing is run: a file task's
//! `#MISE`/`#USAGE` header is read as text, and Tera templates are left as written.

mod header;
mod reads;
mod task;
mod usage;

use std::collections::HashMap;

use crate::doc::{self, Node, Report, Terms};
use crate::files::{Files, join, parent};
use crate::model::{Adapter, Parsed, Source};
use crate::reads::Purpose;
use task::{Def, Origin};

/// `mise.toml` and the other config files mise reads in a project directory.
pub const ADAPTER: Adapter = Adapter {
    name: "mise",
    candidate,
    one_per_dir: true,
    admit: None,
    neighbours: None,
    parse,
};

/// Where mise looks for configuration in a project directory.
#[derive(Clone, Copy)]
enum Place {
    /// A file at this path.
    File(&'static str),
    /// Every `*.toml` in this directory, in name order.
    ConfD(&'static str),
}

/// A project directory's config files, lowest precedence first: mise's own order, without the
/// `mise.<env>.toml` files it reads only when `MISE_ENV` names that environment.
const CONFIGS: &[Place] = &[
    Place::ConfD(".config/mise/conf.d"),
    Place::File(".config/mise/config.toml"),
    Place::File(".config/mise/mise.toml"),
    Place::File(".config/mise.toml"),
    Place::ConfD(".mise/conf.d"),
    Place::File(".mise/config.toml"),
    Place::File("mise/config.toml"),
    Place::File(".rtx.toml"),
    Place::File("mise.toml"),
    Place::File(".mise.toml"),
    Place::File(".config/mise/config.local.toml"),
    Place::File(".config/mise/mise.local.toml"),
    Place::File(".config/mise.local.toml"),
    Place::File(".mise/config.local.toml"),
    Place::File("mise/config.local.toml"),
    Place::File(".rtx.local.toml"),
    Place::File("mise.local.toml"),
    Place::File(".mise.local.toml"),
];

/// The task directories mise reads when no config sets `[task_config] includes`.
const TASK_DIRS: &[&str] = &[
    "mise-tasks",
    ".mise-tasks",
    ".mise/tasks",
    ".config/mise/tasks",
    "mise/tasks",
];

/// Task directories deeper than this below their include are not read.
const MAX_TASK_DEPTH: usize = 16;

/// Entries read from one project's task directories at most: no real project comes near it,
/// and it bounds the work a hostile tree can cause.
const MAX_TASK_ENTRIES: usize = 10_000;

/// The project directory of a config file, and the config's index in [`CONFIGS`].
fn locate(path: &str) -> Option<(&str, usize)> {
    // Every config file is TOML: one test turns away nearly every path of a walk. mise
    // matches its file names exactly, so the case matters here too.
    #[allow(clippy::case_sensitive_file_extension_comparisons)]
    if !path.ends_with(".toml") {
        return None;
    }
    let mut best: Option<(&str, usize, usize)> = None;
    for (i, place) in CONFIGS.iter().enumerate() {
        let (suffix, matched) = match *place {
            Place::File(name) => (name, ends_with_part(path, name)),
            Place::ConfD(dir) => (dir, is_toml(path) && ends_with_part(parent(path), dir)),
        };
        if !matched || best.is_some_and(|(_, _, len)| len >= suffix.len()) {
            continue;
        }
        let project = match *place {
            Place::File(_) => path.strip_suffix(suffix),
            Place::ConfD(_) => parent(path).strip_suffix(suffix),
        }
        .map(|p| p.strip_suffix('/').unwrap_or(p))
        .map(|p| if p.is_empty() { "." } else { p })?;
        best = Some((project, i, suffix.len()));
    }
    best.map(|(project, i, _)| (project, i))
}

/// Whether `path` is `tail` or ends with `/tail`.
fn ends_with_part(path: &str, tail: &str) -> bool {
    path.strip_suffix(tail)
        .is_some_and(|head| head.is_empty() || head.ends_with('/'))
}

fn candidate(path: &str) -> Option<u8> {
    let (_, i) = locate(path)?;
    // The most specific file of a directory is the one read there; any of them reads the
    // whole project.
    u8::try_from(CONFIGS.len() - i).ok()
}

/// The config files of the project in `dir` that exist, highest precedence first.
fn config_files(dir: &str, files: &dyn Files) -> Vec<String> {
    let mut found = Vec::new();
    for place in CONFIGS.iter().rev() {
        match *place {
            Place::File(name) => {
                if let Some(path) = join(dir, name)
                    && files.exists(&path)
                {
                    found.push(path);
                }
            }
            Place::ConfD(sub) => {
                let Some(conf_d) = join(dir, sub) else {
                    continue;
                };
                let mut names: Vec<String> = files
                    .read_dir(&conf_d)
                    .into_iter()
                    .filter(|n| is_toml(n))
                    .collect();
                names.sort();
                for name in names.into_iter().rev() {
                    if let Some(path) = join(&conf_d, &name)
                        && files.exists(&path)
                    {
                        found.push(path);
                    }
                }
            }
        }
    }
    found
}

fn parse(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    let Some((dir, _)) = locate(src.path) else {
        return out;
    };
    let mut paths = config_files(dir, src.files);
    if !paths.iter().any(|p| p == src.path) {
        paths.insert(0, src.path.to_owned());
    }
    // Every config file, highest precedence first, read as TOML.
    let mut configs: Vec<(String, Node)> = Vec::new();
    for path in paths {
        let text = if path == src.path {
            Ok(src.text.to_owned())
        } else {
            out.consumed.push(path.clone());
            src.files.read(&path)
        };
        let text = match text {
            Ok(text) => text,
            Err(reason) => {
                out.diag(&path, None, reason.to_string());
                continue;
            }
        };
        match doc::read_toml(&text) {
            Ok(root) => configs.push((path, root)),
            Err(err) => out.diag(&path, err.line, err.message),
        }
    }
    let mut config_defs: Vec<Def> = Vec::new();
    for (path, root) in &configs {
        if let Some(tasks) = root.get("tasks") {
            read_task_table(tasks, dir, path, Origin::Config, &mut config_defs, &mut out);
        }
    }
    let includes = includes(&configs, &mut out);
    let mut project = Project {
        dir,
        files: src.files,
        budget: MAX_TASK_ENTRIES,
        too_deep: false,
        exhausted: false,
        out: &mut out,
    };
    let file_defs = project.file_tasks(&includes);
    let mut defs = merge(file_defs, config_defs);
    shorten_script_names(&mut defs);
    defs.sort_by(|a, b| a.task.source_name.cmp(&b.task.source_name));
    out.tasks = defs
        .into_iter()
        .filter(|d| d.hide != Some(true))
        .map(|d| d.task)
        .collect();
    if src.purpose == Purpose::Decide {
        for task in &mut out.tasks {
            task.reads = Some(Box::new(reads::reads(task, &configs, src.files)));
        }
    }
    out
}

/// `[tasks]` (or an included TOML file's top level): one definition per entry.
fn read_task_table(
    tasks: &Node,
    dir: &str,
    file: &str,
    origin: Origin,
    defs: &mut Vec<Def>,
    out: &mut Parsed,
) {
    let Some(entries) = tasks
        .table_or("mise `tasks` must be a table", Terms::Toml)
        .or_report(file, out)
    else {
        return;
    };
    for entry in entries {
        defs.extend(task::from_toml(
            &entry.key,
            &entry.node,
            dir,
            file,
            origin,
            out,
        ));
    }
}

/// The includes of the project: `[task_config] includes` of the highest-precedence config
/// that sets it, else the default task directories; (path relative to the project, config
/// file and line, when written in one).
fn includes(configs: &[(String, Node)], out: &mut Parsed) -> Vec<(String, Option<(String, u32)>)> {
    for (path, root) in configs {
        let Some(includes) = root.path(&["task_config", "includes"]) else {
            continue;
        };
        let Some(items) = includes
            .array_or("mise `task_config.includes` must be an array", Terms::Toml)
            .or_report(path, out)
        else {
            continue;
        };
        return items
            .iter()
            .filter_map(|item| {
                let Some(s) = item.str() else {
                    out.diag(
                        path,
                        Some(item.line),
                        "mise `task_config.includes` entries must be strings",
                    );
                    return None;
                };
                Some((s.to_owned(), Some((path.clone(), item.line))))
            })
            .collect();
    }
    TASK_DIRS.iter().map(|d| ((*d).to_owned(), None)).collect()
}

/// Reading one project's task directories.
struct Project<'a, 'o> {
    dir: &'a str,
    files: &'a dyn Files,
    /// Entries that may still be read; once none may, every listing stops.
    budget: usize,
    /// Whether the nesting limit was reported already (once is enough).
    too_deep: bool,
    /// Whether running out of entries was reported already.
    exhausted: bool,
    out: &'o mut Parsed,
}

impl Project<'_, '_> {
    /// The tasks of every include, in include order (a later include wins a name).
    fn file_tasks(&mut self, includes: &[(String, Option<(String, u32)>)]) -> Vec<Def> {
        let mut defs = Vec::new();
        for (include, written) in includes {
            let here = |out: &mut Parsed, message: String| {
                if let Some((file, line)) = written {
                    out.diag(file, Some(*line), message);
                }
            };
            if include.starts_with("git::") || include.contains("://") || include.contains("{{") {
                here(
                    self.out,
                    format!("agg does not read the remote or templated include `{include}`"),
                );
                continue;
            }
            let Some(path) = join(self.dir, include) else {
                here(
                    self.out,
                    format!("include `{include}` is outside the repository"),
                );
                continue;
            };
            if is_toml(include) && self.files.exists(&path) {
                self.toml_file(&path, &mut defs);
                continue;
            }
            // Listed as read even when missing, so creating it reads the project again.
            self.out.consumed.push(path.clone());
            self.directory(&path, "", &mut Vec::new(), &mut defs);
        }
        defs
    }

    /// An included TOML file: each top-level table is a task.
    fn toml_file(&mut self, path: &str, defs: &mut Vec<Def>) {
        self.out.consumed.push(path.to_owned());
        let text = match self.files.read(path) {
            Ok(text) => text,
            Err(reason) => {
                self.out.diag(path, None, reason.to_string());
                return;
            }
        };
        match doc::read_toml(&text) {
            Ok(root) => {
                read_task_table(&root, self.dir, path, Origin::IncludedToml, defs, self.out);
            }
            Err(err) => self.out.diag(path, err.line, err.message),
        }
    }

    /// A task directory: executable files are tasks named by their path below the include
    /// (`db/migrate` is `db:migrate`, `test/_default` is `test`), `*.toml` files hold tasks,
    /// hidden entries are skipped. `above` holds the listings of the directories it is in.
    fn directory(
        &mut self,
        dir: &str,
        prefix: &str,
        above: &mut Vec<Vec<String>>,
        defs: &mut Vec<Def>,
    ) {
        if above.len() > MAX_TASK_DEPTH {
            if !self.too_deep {
                self.too_deep = true;
                self.out.diag(
                    dir,
                    None,
                    format!(
                        "task directories nested deeper than {MAX_TASK_DEPTH} levels are not read"
                    ),
                );
            }
            return;
        }
        let mut names: Vec<String> = self
            .files
            .read_dir(dir)
            .into_iter()
            .filter(|n| !n.starts_with('.'))
            .collect();
        names.sort();
        if names.is_empty() {
            return;
        }
        // A directory listing exactly the (several) entries one it is in lists is that
        // directory again through a symlink (mise itself stops at such a loop).
        if names.len() > 1 && above.contains(&names) {
            self.out.diag(
                dir,
                None,
                "task directory lists the same entries as one it is in (a symlink loop?); not read",
            );
            return;
        }
        if !above.is_empty() {
            self.out.consumed.push(dir.to_owned());
        }
        above.push(names.clone());
        for name in names {
            if self.budget == 0 {
                if !self.exhausted {
                    self.exhausted = true;
                    self.out.diag(
                        dir,
                        None,
                        format!("more than {MAX_TASK_ENTRIES} entries in task directories; the rest are not read"),
                    );
                }
                break;
            }
            self.budget -= 1;
            let Some(path) = join(dir, &name) else {
                continue;
            };
            let part = name.replace(':', "_");
            let task_name = if prefix.is_empty() {
                part
            } else {
                format!("{prefix}:{part}")
            };
            if !self.files.exists(&path) {
                self.directory(&path, &task_name, above, defs);
            } else if is_toml(&name) {
                // A config file met in a task directory is configuration, not a task file.
                if locate(&path).is_none() {
                    self.toml_file(&path, defs);
                }
            } else if self.files.executable(&path) {
                let task_name = match (prefix, stem(&name)) {
                    (prefix, "_default") if !prefix.is_empty() => prefix.to_owned(),
                    _ => task_name,
                };
                defs.extend(self.script(&path, &task_name));
            }
        }
        above.pop();
    }

    /// An executable file task and its `#MISE` header.
    fn script(&mut self, path: &str, name: &str) -> Option<Def> {
        self.out.consumed.push(path.to_owned());
        let text = match self.files.read(path) {
            Ok(text) => text,
            Err(reason) => {
                self.out.diag(path, None, reason.to_string());
                return None;
            }
        };
        let header = header::read(&text);
        for (line, message) in header.errors {
            self.out.diag(path, Some(line), message);
        }
        let mut def = Def::new(name, self.dir, path, Origin::Script);
        def.task.line = Some(1);
        task::read_settings(&mut def, &header.settings, path, self.out);
        if !header.usage.trim().is_empty() {
            def.task.params = usage::params(&header.usage);
        }
        Some(def)
    }
}

/// Whether a file name ends in `.toml`, compared as mise does: case-sensitively.
#[allow(clippy::case_sensitive_file_extension_comparisons)]
fn is_toml(name: &str) -> bool {
    name.ends_with(".toml")
}

/// Names a file task without its extension (`db:seed.py` is `db:seed`), as mise shows and
/// runs it, unless another task already has that name.
fn shorten_script_names(defs: &mut [Def]) {
    let taken: std::collections::HashSet<String> =
        defs.iter().map(|d| d.task.source_name.clone()).collect();
    for def in defs.iter_mut().filter(|d| d.origin == Origin::Script) {
        let name = &def.task.source_name;
        let (prefix, last) = match name.rsplit_once(':') {
            Some((prefix, last)) => (Some(prefix), last),
            None => (None, name.as_str()),
        };
        let short_last = stem(last);
        if short_last == last {
            continue;
        }
        let short = match prefix {
            Some(prefix) => format!("{prefix}:{short_last}"),
            None => short_last.to_owned(),
        };
        if taken.contains(&short) {
            continue;
        }
        def.task.argv[2].clone_from(&short);
        def.task.source_name = short;
    }
}

/// A file name without its extension.
fn stem(name: &str) -> &str {
    match name.rfind('.') {
        Some(i) if i > 0 => &name[..i],
        _ => name,
    }
}

/// The project's tasks from its file tasks and config tasks, the way mise merges them:
///
/// - among config files, the highest-precedence definition that runs something wins, and
///   higher-precedence definitions that run nothing add their settings to it;
/// - a config task replaces a same-named task of an included TOML file, and adds its settings
///   to a same-named executable file task, whose script still runs.
fn merge(file_defs: Vec<Def>, config_defs: Vec<Def>) -> Vec<Def> {
    let mut by_name: Vec<Def> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for def in file_defs {
        if let Some(&i) = index.get(&def.task.source_name) {
            by_name[i] = def;
        } else {
            index.insert(def.task.source_name.clone(), by_name.len());
            by_name.push(def);
        }
    }
    // Config definitions of one name, highest precedence first.
    let mut groups: Vec<Vec<Def>> = Vec::new();
    let mut group_of: HashMap<String, usize> = HashMap::new();
    for def in config_defs {
        if let Some(&g) = group_of.get(&def.task.source_name) {
            groups[g].push(def);
        } else {
            group_of.insert(def.task.source_name.clone(), groups.len());
            groups.push(vec![def]);
        }
    }
    for group in groups {
        let base_at = group.iter().position(|d| d.command).unwrap_or(0);
        let mut group = group.into_iter();
        let overlays: Vec<Def> = group.by_ref().take(base_at).collect();
        let Some(mut def) = group.next() else {
            continue;
        };
        for over in overlays.into_iter().rev() {
            def.overlay(over);
        }
        match index.get(&def.task.source_name) {
            Some(&i) if by_name[i].origin == Origin::Script => by_name[i].overlay(def),
            Some(&i) if def.command => by_name[i] = def,
            Some(&i) => by_name[i].overlay(def),
            None => {
                index.insert(def.task.source_name.clone(), by_name.len());
                by_name.push(def);
            }
        }
    }
    by_name
}

/// Whether `path` is a file mise reads as configuration (for tests of the candidate rule).
#[cfg(test)]
fn is_config(path: &str) -> bool {
    locate(path).is_some() && is_toml(path)
}

#[cfg(test)]
mod tests;
