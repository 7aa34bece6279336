//! Gradle: the tasks of a build, read from its settings file and build scripts (Groovy or
//! Kotlin DSL) as text, never run.
//!
//! The settings file (`settings.gradle`, else `settings.gradle.kts`, as Gradle picks them) is
//! the build's root: its `include`s name the subprojects, whose build scripts are read and
//! consumed, and every task runs from the root as `gradle TASK` (the root project's) or
//! `gradle :sub:TASK`. A directory with a build script and no settings file is a build of
//! one project. A project's tasks are those its scripts declare ([`script`]) and those of the
//! plugins it applies that agg knows ([`plugins`]); `subprojects {}`, `allprojects {}` and
//! `project(":x") {}` blocks of the root script apply to the projects they name. `buildSrc`
//! is part of the build that owns it and is not listed on its own.
//!
//! Each row says whether a script declares it or a plugin brings it (`plugin`), and whether
//! the build disables it (`enabled = false`); a task named at run time is a diagnostic.

mod android;
mod lexer;
mod plugins;
mod script;
mod settings;

use std::collections::{HashMap, HashSet};

use crate::files::{Files, file_name, join, parent};
use crate::model::{Parsed, Runner, Source, Task};
use script::{Scope, Script, TaskDecl};

/// Every file name that makes a directory a Gradle build, in Gradle's order of preference.
const FILES: &[&str] = &[
    "settings.gradle",
    "settings.gradle.kts",
    "build.gradle",
    "build.gradle.kts",
];

/// How many projects one settings file may include; past that the rest is reported.
const MAX_PROJECTS: usize = 2000;

/// How deep a project path may nest (`:a:b:c` is 3).
const MAX_DEPTH: usize = 64;

/// Whether a script is in the Kotlin DSL (`.gradle.kts`).
fn kotlin(path: &str) -> bool {
    std::path::Path::new(path)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("kts"))
}

pub(super) fn candidate(path: &str) -> Option<u8> {
    let name = file_name(path);
    FILES
        .iter()
        .position(|f| *f == name)
        .and_then(|i| u8::try_from(i).ok())
}

/// One project of the build.
struct Project {
    /// `:` for the root, `:a:b` for a subproject.
    path: String,
    /// Its build script and what it declares, when it has one.
    script: Option<(String, Script)>,
}

pub(super) fn parse(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    if super::inside_sources(src.files, src.path, FILES, &["src", "build"]) {
        return out;
    }
    let dir = parent(src.path);
    let is_settings = file_name(src.path).starts_with("settings.");
    let mut projects = Vec::new();
    let root_script = if is_settings {
        build_script(src, dir, &mut out)
    } else {
        Some((
            src.path.to_owned(),
            script::read(src.text, kotlin(src.path)),
        ))
    };
    projects.push(Project {
        path: ":".to_owned(),
        script: root_script,
    });
    let mut plugin_builds = vec!["buildSrc".to_owned()];
    let mut root_name = None;
    if is_settings {
        let settings = settings::read(src.text, kotlin(src.path));
        root_name.clone_from(&settings.root_name);
        for (line, message) in &settings.problems {
            out.diag(src.path, Some(*line), message.clone());
        }
        subprojects(src, dir, &settings, &mut projects, &mut out);
        plugin_builds.extend(settings.included_builds);
    }
    let conventions = Conventions::read(src.files, dir, &plugin_builds, &projects);
    for name in FILES {
        if let Some(p) = join(dir, &format!("buildSrc/{name}"))
            && src.files.exists(&p)
        {
            out.consumed.push(p);
        }
    }
    for project in &projects {
        if let Some((path, script)) = &project.script {
            for (line, message) in script.problems.iter().chain(&script.unknown) {
                out.diag(path, Some(*line), message.clone());
            }
        }
    }
    for (path, script) in conventions.scripts.values() {
        for (line, message) in script.problems.iter().chain(&script.unknown) {
            out.diag(path, Some(*line), message.clone());
        }
    }
    let root = &projects[0];
    for project in &projects {
        let before = out.tasks.len();
        list_tasks(dir, root, project, &conventions, &mut out);
        // A subproject is named by the last part of its path, as Gradle names it.
        let name = match project.path.rsplit(':').next() {
            Some(last) if project.path != ":" => Some(last),
            _ => root_name.as_deref(),
        };
        if let Some(name) = name {
            for task in out.tasks.iter_mut().skip(before) {
                task.package = Some(name.to_owned());
            }
        }
    }
    out
}

/// Reads the root build script next to a settings file.
fn build_script(src: &Source<'_>, dir: &str, out: &mut Parsed) -> Option<(String, Script)> {
    for name in ["build.gradle", "build.gradle.kts"] {
        let Some(path) = join(dir, name) else {
            continue;
        };
        if !src.files.exists(&path) {
            continue;
        }
        out.consumed.push(path.clone());
        return match src.files.read(&path) {
            Ok(text) => {
                let script = script::read(&text, kotlin(name));
                Some((path, script))
            }
            Err(reason) => {
                out.diag(&path, None, reason.to_string());
                None
            }
        };
    }
    None
}

/// The subprojects a settings file includes, with their build scripts.
fn subprojects(
    src: &Source<'_>,
    dir: &str,
    settings: &settings::Settings,
    projects: &mut Vec<Project>,
    out: &mut Parsed,
) {
    let moved: HashMap<&str, &str> = settings
        .dirs
        .iter()
        .map(|(p, d)| (p.as_str(), d.as_str()))
        .collect();
    let mut seen: HashSet<String> = HashSet::new();
    for include in &settings.includes {
        if include.path.contains(['/', '\\']) {
            out.diag(
                src.path,
                Some(include.line),
                format!(
                    "`{}` is not a project path: Gradle separates them with `:`, and names have no `/`",
                    include.path
                ),
            );
            continue;
        }
        // `include("a:b")` also makes `:a` a project.
        let parts: Vec<&str> = include.path[1..].split(':').collect();
        if parts.len() > MAX_DEPTH {
            out.diag(
                src.path,
                Some(include.line),
                format!("project paths deeper than {MAX_DEPTH} levels are not listed"),
            );
            continue;
        }
        for n in 1..=parts.len() {
            let path = format!(":{}", parts[..n].join(":"));
            if seen.contains(&path) {
                continue;
            }
            if seen.len() >= MAX_PROJECTS {
                out.diag(
                    src.path,
                    Some(include.line),
                    format!("the build includes more than {MAX_PROJECTS} projects; the rest are not listed"),
                );
                return;
            }
            seen.insert(path.clone());
            let rel = moved
                .get(path.as_str())
                .map_or_else(|| parts[..n].join("/"), |d| (*d).to_owned());
            let Some(project_dir) = join(dir, &rel) else {
                out.diag(
                    src.path,
                    Some(include.line),
                    format!("project `{path}` lies outside the repository"),
                );
                continue;
            };
            let script = FILES[2..].iter().find_map(|name| {
                let file = join(&project_dir, name)?;
                let text = src.files.read(&file).ok()?;
                Some((file, script::read(&text, kotlin(name))))
            });
            if let Some((file, _)) = &script {
                out.consumed.push(file.clone());
            }
            projects.push(Project { path, script });
        }
    }
}

/// Whether a declaration of `scope` in the script of `owner` applies to `project`.
fn applies(scope: &Scope, owner_is_root: bool, project: &Project) -> bool {
    let is_root = project.path == ":";
    match scope {
        Scope::Own => owner_is_root == is_root,
        Scope::Subprojects => owner_is_root && !is_root,
        Scope::All => owner_is_root,
        Scope::Project(path) => {
            owner_is_root && settings::normalize(path).as_deref().unwrap_or(":") == project.path
        }
    }
}

/// A task being assembled for one project.
struct Row {
    name: String,
    file: String,
    line: u32,
    description: Option<String>,
    group: Option<String>,
    deps: Vec<String>,
    /// Declared by a script (not brought by a plugin): a second declaration is an error.
    declared: bool,
    /// Declared inside a conditional block.
    conditional: bool,
    /// The plugin that brings it, while no script declares it.
    plugin: Option<String>,
    /// The last literal `enabled =` said false.
    disabled: bool,
}

/// Lists the tasks of `project`: its plugins' and its scripts', with what configures them.
fn list_tasks(
    dir: &str,
    root: &Project,
    project: &Project,
    conventions: &Conventions,
    out: &mut Parsed,
) {
    // The scripts that speak about this project: the root's (for its blocks) and its own.
    let mut sources: Vec<(&str, &Script, bool)> = Vec::new();
    if let Some((file, script)) = &root.script {
        sources.push((file, script, true));
    }
    if project.path != ":"
        && let Some((file, script)) = &project.script
    {
        sources.push((file, script, false));
    }
    let mut rows = Rows::default();
    let mut applied: HashSet<&str> = HashSet::new();
    for (file, script, is_root) in &sources {
        for plugin in &script.plugins {
            if applies(&plugin.scope, *is_root, project) {
                rows.plugin(
                    &plugin.id,
                    file,
                    plugin.line,
                    conventions,
                    &mut applied,
                    out,
                );
            }
        }
    }
    // An Android project's variants come from the build types its own script declares.
    if let Some((file, script, _)) = sources
        .iter()
        .rev()
        .find(|(_, _, is_root)| !is_root || project.path == ":")
    {
        let android = script
            .plugins
            .iter()
            .find_map(|p| android::kind(&p.id).map(|k| (k, p)));
        if let Some((kind, plugin)) = android {
            for std in android::tasks(kind, &script.build_types) {
                rows.add_std(std, file, plugin.line, &plugin.id);
            }
        }
    }
    let Rows {
        list: mut rows,
        mut index,
        configured,
    } = rows;
    for (file, script, is_root) in &sources {
        for decl in &script.tasks {
            if !applies(&decl.scope, *is_root, project) {
                continue;
            }
            declare(&mut rows, &mut index, file, decl, out);
        }
    }
    let own = sources.iter().flat_map(|(_, script, is_root)| {
        script
            .configured
            .iter()
            .filter(move |c| applies(&c.scope, *is_root, project))
    });
    for conf in configured.into_iter().chain(own) {
        if let Some(row) = index.get(&conf.name).and_then(|&i| rows.get_mut(i)) {
            merge(row, conf);
        }
    }
    for row in rows {
        let name = if project.path == ":" {
            row.name
        } else {
            format!("{}:{}", project.path, row.name)
        };
        let mut task = Task::new(
            Runner::Gradle,
            name.clone(),
            dir,
            row.file,
            vec!["gradle".to_owned(), name],
        );
        task.line = Some(row.line);
        task.description = row.description;
        task.group = row.group;
        task.deps = row.deps;
        task.plugin = row.plugin;
        task.disabled = row.disabled;
        out.tasks.push(task);
    }
}

/// The tasks of one project as its plugins bring them.
#[derive(Default)]
struct Rows<'c> {
    list: Vec<Row>,
    index: HashMap<String, usize>,
    /// What the convention plugins configure, applied once every task is known.
    configured: Vec<&'c TaskDecl>,
}

impl<'c> Rows<'c> {
    /// Adds a task plugin `id` brings, unless the project has one of that name already.
    fn add_std(&mut self, std: plugins::Named, file: &str, line: u32, id: &str) {
        if self.index.contains_key(&std.name) {
            return;
        }
        self.index.insert(std.name.clone(), self.list.len());
        self.list.push(Row {
            name: std.name,
            file: file.to_owned(),
            line,
            description: Some(std.description),
            group: std.group.map(str::to_owned),
            deps: Vec::new(),
            declared: false,
            conditional: false,
            plugin: Some(id.to_owned()),
            disabled: false,
        });
    }

    /// Adds the tasks of plugin `id`, applied in `file` at `line`: a core plugin's from the
    /// table, a convention plugin's from its script (its plugins and its own tasks).
    fn plugin(
        &mut self,
        id: &str,
        file: &str,
        line: u32,
        conventions: &'c Conventions,
        applied: &mut HashSet<&'c str>,
        out: &mut Parsed,
    ) {
        for std in plugins::tasks_of(id) {
            self.add_std(
                plugins::Named {
                    name: std.name.to_owned(),
                    group: std.group,
                    description: std.description.to_owned(),
                },
                file,
                line,
                id,
            );
        }
        let Some((id, (path, script))) = conventions.scripts.get_key_value(id) else {
            return;
        };
        if !applied.insert(id) {
            return;
        }
        for plugin in script.plugins.iter().filter(|p| p.scope == Scope::Own) {
            self.plugin(&plugin.id, path, plugin.line, conventions, applied, out);
        }
        for decl in script.tasks.iter().filter(|t| t.scope == Scope::Own) {
            declare(&mut self.list, &mut self.index, path, decl, out);
        }
        self.configured
            .extend(script.configured.iter().filter(|c| c.scope == Scope::Own));
    }
}

/// Convention plugins: precompiled script plugins of `buildSrc` and of the builds the
/// settings include (`includeBuild("build-logic")`), which a project applies by their file
/// name (`id("myproject.java-conventions")` is `src/main/kotlin/myproject.java-conventions.gradle.kts`).
struct Conventions {
    /// By plugin id: the script's path and what it declares.
    scripts: HashMap<String, (String, Script)>,
}

/// How many convention scripts one build may read.
const MAX_CONVENTIONS: usize = 256;

impl Conventions {
    /// Reads every convention plugin the projects (and the conventions themselves) apply.
    fn read(files: &dyn Files, dir: &str, builds: &[String], projects: &[Project]) -> Conventions {
        let mut scripts = HashMap::new();
        let mut pending: Vec<String> = projects
            .iter()
            .filter_map(|p| p.script.as_ref())
            .flat_map(|(_, s)| s.plugins.iter().map(|p| p.id.clone()))
            .collect();
        let mut tried: HashSet<String> = HashSet::new();
        while let Some(id) = pending.pop() {
            if scripts.len() >= MAX_CONVENTIONS || !tried.insert(id.clone()) {
                continue;
            }
            if id.contains('/') || id.starts_with('.') {
                continue;
            }
            let found = builds.iter().find_map(|build| {
                [("kotlin", ".gradle.kts"), ("groovy", ".gradle")]
                    .iter()
                    .find_map(|(lang, ext)| {
                        let path = join(dir, &format!("{build}/src/main/{lang}/{id}{ext}"))?;
                        let text = files.read(&path).ok()?;
                        Some((path, script::read(&text, kotlin(ext))))
                    })
            });
            if let Some((path, script)) = found {
                pending.extend(script.plugins.iter().map(|p| p.id.clone()));
                scripts.insert(id, (path, script));
            }
        }
        Conventions { scripts }
    }
}

/// Adds a declared task; a name declared twice in one script is Gradle's error, and one
/// declared by a script and a plugin is the script's.
fn declare(
    rows: &mut Vec<Row>,
    index: &mut HashMap<String, usize>,
    file: &str,
    decl: &TaskDecl,
    out: &mut Parsed,
) {
    if let Some(row) = index.get(&decl.name).and_then(|&i| rows.get_mut(i)) {
        if row.declared {
            if row.file == file && !row.conditional && !decl.conditional {
                out.diag(
                    file,
                    Some(decl.line),
                    format!(
                        "task `{}` is already declared on line {}; Gradle refuses a second task of one name",
                        decl.name, row.line
                    ),
                );
            }
            return;
        }
        file.clone_into(&mut row.file);
        row.line = decl.line;
        row.declared = true;
        row.conditional = decl.conditional;
        row.plugin = None;
        merge(row, decl);
        return;
    }
    index.insert(decl.name.clone(), rows.len());
    rows.push(Row {
        name: decl.name.clone(),
        file: file.to_owned(),
        line: decl.line,
        description: decl.description.clone(),
        group: decl.group.clone(),
        deps: decl.deps.clone(),
        declared: true,
        conditional: decl.conditional,
        plugin: None,
        disabled: decl.enabled == Some(false),
    });
}

fn merge(row: &mut Row, decl: &TaskDecl) {
    if let Some(enabled) = decl.enabled {
        row.disabled = !enabled;
    }
    if decl.description.is_some() {
        row.description.clone_from(&decl.description);
    }
    if decl.group.is_some() {
        row.group.clone_from(&decl.group);
    }
    for d in &decl.deps {
        if !row.deps.contains(d) {
            row.deps.push(d.clone());
        }
    }
}

#[cfg(test)]
mod tests;
