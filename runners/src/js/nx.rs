//! Nx targets, named `project:target` and run from the workspace root (the directory of
//! `nx.json`; the project's own without one) as `<pm> nx run project:target`: every target of
//! a `project.json`, and of a `package.json` Nx reads as a project, its scripts (all of them,
//! or those `nx.includedScripts` names) and its `nx.targets`, as Nx infers them.
//!
//! Nx reads a package.json as a project when the workspace's package manager does (the root
//! package.json `workspaces`, `pnpm-workspace.yaml` or `lerna.json` `packages` globs; the
//! root one itself when it has an `nx` key) or when a `project.json` is beside it; then the
//! two are one project, named by `project.json` first, and a target `project.json` defines
//! is listed once, from there. Targets that Nx plugins infer from other tools' files
//! (`@nx/vite`, `@nx/jest`, …) need the plugins' code and are not listed.
//!
//! A target's `dependsOn` (or its `targetDefaults`'s, by executor then by name) become its
//! deps: `build` on the project itself, `^build` on the projects it depends on,
//! `other:build` on named ones; `metadata.description` its description; `continuous` marks
//! it a service; its command (or executor) and `configurations` are shown by `describe`.

use std::collections::{HashMap, HashSet};

use super::{nearest, read_json, through_manager};
use crate::doc::{self, Dialect, Entry, Node, Report, Terms};
use crate::files::{Files, file_name, parent};
use crate::model::{Parsed, Runner, Source, Task};

pub(super) fn parse_project_json(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    let Some(root) = doc::read_jsonc(src.text, Dialect::Strict)
        .and_then(|root| root.into_table_or("project.json should be an object", Terms::Json))
        .or_report(src.path, &mut out)
    else {
        return out;
    };
    let dir = parent(src.path);
    let workspace = nearest(dir, &["nx.json"], src.files);
    // Other tools have used the name `project.json` (.NET's first project system); without
    // an Nx workspace around it, only its `targets` make it Nx's.
    let Some(targets) = root.get("targets") else {
        return out;
    };
    let package = read_json(dir, "package.json", src.files);
    let Some(name) = project_json_name(&root, package.as_ref(), dir) else {
        out.diag(
            src.path,
            Some(1),
            "a project.json at the workspace root needs a `name`",
        );
        return out;
    };
    let project = Project::new(src, name, workspace.as_ref().map(|(d, _)| d.as_str()));
    let Some(entries) = targets
        .table_or("`targets` should be an object", Terms::Json)
        .or_report(src.path, &mut out)
    else {
        return out;
    };
    let scripts = package.as_ref().map(included_scripts).unwrap_or_default();
    for entry in entries {
        // A target that says neither how nor what to run merges with the script of its
        // name, which then is what it runs.
        let how = ["command", "executor"]
            .iter()
            .any(|k| entry.node.get(k).is_some());
        let script = scripts
            .iter()
            .find(|s| s.name == entry.key && !how)
            .map(|s| s.command.as_str());
        project.push(
            &entry.key,
            entry.node.line,
            Some(&entry.node),
            script,
            &mut out,
        );
    }
    out
}

/// The name of the project a `project.json` describes: its `name`, else the package.json
/// beside it names it, else its directory does.
fn project_json_name(root: &Node, package: Option<&Node>, dir: &str) -> Option<String> {
    root.get("name")
        .and_then(Node::str)
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
        .or_else(|| package.and_then(package_name))
        .or_else(|| dir_name(dir))
}

/// A package.json script Nx makes a target of.
struct Script {
    name: String,
    command: String,
    line: u32,
}

/// The scripts of a package.json that are Nx targets: those `nx.includedScripts` names when
/// it is there, else all of them.
fn included_scripts(package: &Node) -> Vec<Script> {
    let included: Option<HashSet<&str>> = package
        .path(&["nx", "includedScripts"])
        .and_then(Node::items)
        .map(|items| items.iter().filter_map(Node::str).collect());
    package
        .get("scripts")
        .and_then(Node::entries)
        .unwrap_or_default()
        .iter()
        .filter(|e| {
            included
                .as_ref()
                .is_none_or(|list| list.contains(e.key.as_str()))
        })
        .filter_map(|e| {
            Some(Script {
                name: e.key.clone(),
                command: e.node.str()?.to_owned(),
                line: e.node.line,
            })
        })
        .collect()
}

/// The Nx rows of a `package.json` (the package.json adapter owns the file and calls this
/// with its text once it has read it as valid JSON).
pub fn from_package_json(src: &Source<'_>, out: &mut Parsed) {
    let dir = parent(src.path);
    let workspace = nearest(dir, &["nx.json"], src.files);
    // The key cannot be there without its name in the text (escapes aside, which no one
    // writes): skip the second parse for the packages of other repositories.
    let may_have_key = src.text.contains("\"nx\"") || src.text.contains("\\u");
    if workspace.is_none() && !may_have_key {
        return;
    }
    let Ok(root) = doc::read_jsonc(src.text, Dialect::Strict) else {
        return;
    };
    let nx = root.get("nx");
    let beside = crate::files::join(dir, "project.json")
        .and_then(|p| src.files.read(&p).ok())
        .and_then(|text| doc::read_jsonc(&text, Dialect::Strict).ok())
        .filter(Node::is_table);
    let member = match &workspace {
        // Without an nx.json, an `nx` key makes the package its own workspace's root.
        None => nx.is_some(),
        Some((root_dir, _)) => {
            beside.is_some() || in_package_workspaces(root_dir, src.path, src.files)
        }
    };
    if !member {
        return;
    }
    if let Some(nx) = nx
        && nx
            .table_or("`nx` should be an object", Terms::Json)
            .or_report(src.path, out)
            .is_none()
    {
        return;
    }
    // Beside a project.json, the project and its targets are read from there first.
    let defined: HashSet<String> = beside
        .as_ref()
        .and_then(|p| p.get("targets"))
        .and_then(Node::entries)
        .map(|entries| entries.iter().map(|e| e.key.clone()).collect())
        .unwrap_or_default();
    let name = match &beside {
        Some(project) => project_json_name(project, Some(&root), dir),
        None => package_name(&root).or_else(|| dir_name(dir)),
    };
    let Some(name) = name else {
        return;
    };
    let project = Project::new(src, name, workspace.as_ref().map(|(d, _)| d.as_str()));
    let nx_targets: &[Entry] = match nx.and_then(|n| n.get("targets")) {
        None => &[],
        Some(targets) => targets
            .table_or("`nx.targets` should be an object", Terms::Json)
            .or_report(src.path, out)
            .unwrap_or_default(),
    };
    let scripts = included_scripts(&root);
    for script in &scripts {
        if defined.contains(&script.name) {
            continue;
        }
        match nx_targets.iter().find(|e| e.key == script.name) {
            // `nx.targets` of a script's name configures that script, unless it says
            // how to run something else.
            Some(entry) => {
                let how = ["command", "executor"]
                    .iter()
                    .any(|k| entry.node.get(k).is_some());
                let command = (!how).then_some(script.command.as_str());
                project.push(
                    &script.name,
                    entry.node.line,
                    Some(&entry.node),
                    command,
                    out,
                );
            }
            None => project.push(&script.name, script.line, None, Some(&script.command), out),
        }
    }
    for entry in nx_targets {
        if defined.contains(&entry.key) || scripts.iter().any(|s| s.name == entry.key) {
            continue;
        }
        project.push(&entry.key, entry.node.line, Some(&entry.node), None, out);
    }
}

/// Whether the package.json at `path` is one of the packages of the workspace rooted at
/// `root` as Nx reads them: the root package.json `workspaces` (or `workspaces.packages`),
/// `pnpm-workspace.yaml` `packages` and `lerna.json` `packages` (`packages/*` when empty),
/// `!` patterns excluding; the root package.json itself when it has an `nx` key.
fn in_package_workspaces(root: &str, path: &str, files: &dyn Files) -> bool {
    let relative = if root == "." {
        path
    } else {
        match path.strip_prefix(root).and_then(|p| p.strip_prefix('/')) {
            Some(rest) => rest,
            None => return false,
        }
    };
    let mut patterns: Vec<String> = Vec::new();
    let package = read_json(root, "package.json", files);
    if let Some(package) = &package {
        let list = package.get("workspaces").and_then(|w| {
            w.items()
                .or_else(|| w.get("packages").and_then(Node::items))
        });
        patterns.extend(
            list.unwrap_or_default()
                .iter()
                .filter_map(Node::str)
                .map(str::to_owned),
        );
    }
    if let Some(text) =
        crate::files::join(root, "pnpm-workspace.yaml").and_then(|p| files.read(&p).ok())
        && let Ok(yaml) = doc::read_yaml(&text, Dialect::Strict)
        && let Some(items) = yaml.get("packages").and_then(Node::items)
    {
        patterns.extend(items.iter().filter_map(Node::scalar).map(str::to_owned));
    }
    if let Some(lerna) = read_json(root, "lerna.json", files) {
        let listed: Vec<String> = lerna
            .get("packages")
            .and_then(Node::items)
            .unwrap_or_default()
            .iter()
            .filter_map(Node::str)
            .map(str::to_owned)
            .collect();
        if listed.is_empty() {
            patterns.push("packages/*".to_owned());
        } else {
            patterns.extend(listed);
        }
    }
    let mut positive: Vec<String> = Vec::new();
    let mut negative: Vec<String> = Vec::new();
    for pattern in patterns {
        match pattern.strip_prefix('!') {
            Some(rest) => negative.push(package_json_glob(rest)),
            None => positive.push(package_json_glob(&pattern)),
        }
    }
    if package.as_ref().is_some_and(|p| p.get("nx").is_some()) {
        positive.push("package.json".to_owned());
    }
    if !negative.is_empty() && (positive.is_empty() || positive == ["package.json"]) {
        positive.push("**/package.json".to_owned());
    }
    let matches = |pattern: &String| {
        pattern == relative
            || globset::GlobBuilder::new(pattern)
                .literal_separator(true)
                .build()
                .is_ok_and(|g| g.compile_matcher().is_match(relative))
    };
    positive.iter().any(matches) && !negative.iter().any(matches)
}

/// A workspace pattern as the glob of the package.json files it names (`apps/*` →
/// `apps/*/package.json`).
fn package_json_glob(pattern: &str) -> String {
    let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
    let pattern = pattern.trim_end_matches('/');
    if pattern == "package.json" || pattern.ends_with("/package.json") {
        pattern.to_owned()
    } else if pattern.is_empty() || pattern == "." {
        "package.json".to_owned()
    } else {
        format!("{pattern}/package.json")
    }
}

/// The project a file describes and what every one of its targets shares.
struct Project<'s> {
    path: &'s str,
    /// Where its targets run: the workspace root.
    dir: String,
    name: String,
    manager: Runner,
    /// `nx.json` `targetDefaults`, by key.
    defaults: HashMap<String, Node>,
    /// Whether `nx.json` names plugins, which may infer what a target runs.
    plugins: bool,
}

impl<'s> Project<'s> {
    fn new(src: &Source<'s>, name: String, workspace: Option<&str>) -> Project<'s> {
        // Nx addresses `project:target` from anywhere in the workspace; its root is where
        // people run it, and where the names need no directory in front.
        let dir = workspace.unwrap_or_else(|| parent(src.path)).to_owned();
        let (defaults, plugins) = workspace
            .map(|root| workspace_config(root, src.files))
            .unwrap_or_default();
        Project {
            path: src.path,
            manager: super::manager::detect_manager(&dir, src.files),
            dir,
            name,
            defaults,
            plugins,
        }
    }

    /// The `targetDefaults` entry for a target: by its executor first, then by its name (Nx's
    /// own order).
    fn defaults_for(&self, target: &str, executor: &str) -> Option<&Node> {
        self.defaults
            .get(executor)
            .or_else(|| self.defaults.get(target))
            .filter(|d| d.is_table())
    }

    /// Adds target `key` (configured by `config`, or by nothing but a script).
    fn push(
        &self,
        key: &str,
        line: u32,
        config: Option<&Node>,
        script: Option<&str>,
        out: &mut Parsed,
    ) {
        // `"// These targets are…": {}` is a comment, as a `//` script is.
        if key.starts_with("//") {
            return;
        }
        let expected = || format!("target `{key}` should be an object");
        if let Some(config) = config
            && config
                .table_or(&expected(), Terms::Json)
                .or_report(self.path, out)
                .is_none()
        {
            return;
        }
        let field = |name: &str| config.and_then(|c| c.get(name));
        let command = field("command").and_then(Node::str);
        // A target that says neither what nor how to run, nor what to run first, configures
        // one a plugin infers (`build: {outputs: […]}` beside `@nx/vite`); without plugins
        // Nx drops it (one with `dependsOn` only runs those, as `nx:noop`).
        let says_how = |node: &Node| {
            node.get("executor").is_some()
                || node.get("command").is_some()
                || node
                    .get("dependsOn")
                    .and_then(Node::items)
                    .is_some_and(|d| !d.is_empty())
        };
        if config.is_some()
            && script.is_none()
            && !self.plugins
            && !config.is_some_and(says_how)
            && !self.defaults.get(key).is_some_and(says_how)
        {
            return;
        }
        let executor = field("executor").and_then(Node::str).unwrap_or(
            if command.is_some() || script.is_none() {
                "nx:run-commands"
            } else {
                "nx:run-script"
            },
        );
        let own = Identity::of(config, executor, script.map(|_| key));
        let defaults = self
            .defaults_for(key, executor)
            .filter(|d| own.merges(&Identity::of(Some(d), "", None)));
        let either = |name: &str| field(name).or_else(|| defaults.and_then(|d| d.get(name)));

        let source_name = format!("{}:{key}", self.name);
        let argv = through_manager(self.manager, "nx", &["run", &source_name]);
        let mut task = Task::new(Runner::Nx, source_name, &self.dir, self.path, argv);
        task.line = Some(line);
        task.description = field("metadata")
            .or_else(|| defaults.and_then(|d| d.get("metadata")))
            .and_then(|m| m.get("description"))
            .and_then(Node::str)
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(str::to_owned);
        if let Some(depends) = either("dependsOn") {
            let expected = format!("`dependsOn` of `{key}` should be an array");
            if let Some(items) = depends
                .array_or(&expected, Terms::Json)
                .or_report(self.path, out)
            {
                task.deps = items.iter().flat_map(dependency).collect();
            }
        }
        task.behaviour.service = either("continuous").is_some_and(Node::is_true);
        task.script = Some(what_it_runs(config, command, script, executor));
        out.tasks.push(task);
    }
}

/// What decides whether Nx merges a `targetDefaults` entry into a target: the executor
/// (`command` alone means `nx:run-commands`), and what it runs (`options.command`, the
/// `options.commands` joined with ` && `, or the script of `nx:run-script`).
struct Identity {
    executor: Option<String>,
    runs: Option<String>,
    /// Whether `executor` is written out rather than implied by a `command`: Nx compares
    /// what a default runs only then (a `command` default merges into any
    /// `nx:run-commands` target, its command giving way to the target's).
    written: bool,
}

impl Identity {
    /// The identity of a target (or a default, with `executor` empty) configured by
    /// `config`; `script` is the package.json script the target runs, if it is one.
    fn of(config: Option<&Node>, executor: &str, script: Option<&str>) -> Identity {
        let field = |name: &str| config.and_then(|c| c.get(name));
        let option = |name: &str| field("options").and_then(|o| o.get(name));
        let command = field("command").and_then(Node::str);
        let written = field("executor").and_then(Node::str);
        let executor = written
            .or(command.map(|_| "nx:run-commands"))
            .or((!executor.is_empty()).then_some(executor))
            .map(str::to_owned);
        let runs = match executor.as_deref() {
            Some("nx:run-commands") => command
                .or_else(|| option("command").and_then(Node::str))
                .map(str::to_owned)
                .or_else(|| {
                    let all: Vec<&str> = option("commands")?
                        .items()?
                        .iter()
                        .filter_map(|c| c.str().or_else(|| c.get("command").and_then(Node::str)))
                        .collect();
                    (!all.is_empty()).then(|| all.join(" && "))
                }),
            Some("nx:run-script") => option("script")
                .and_then(Node::str)
                .or(script)
                .map(str::to_owned),
            _ => None,
        };
        Identity {
            executor,
            runs,
            written: written.is_some(),
        }
    }

    /// Whether Nx merges `default` into a target of this identity (its `isCompatibleTarget`,
    /// as its target-defaults layer applies it): when either has no executor, or both the
    /// same one and, where the default writes its executor out, either runs nothing yet or
    /// both run the same command or script. A default of another executor (a `command`
    /// default for a package.json script, an `nx:run-commands` one with another command)
    /// would replace the target, so Nx leaves it out.
    fn merges(&self, default: &Identity) -> bool {
        let (Some(own), Some(theirs)) = (&self.executor, &default.executor) else {
            return true;
        };
        own == theirs
            && (!default.written
                || match (&self.runs, &default.runs) {
                    (Some(a), Some(b)) => a == b,
                    _ => true,
                })
    }
}

/// What `describe` shows of a target: its command(s), else its executor; then its
/// configurations, each runnable as `nx run project:target:configuration`.
fn what_it_runs(
    config: Option<&Node>,
    command: Option<&str>,
    script: Option<&str>,
    executor: &str,
) -> String {
    let options = config.and_then(|c| c.get("options"));
    let commands: Vec<&str> = match options
        .and_then(|o| o.get("commands"))
        .and_then(Node::items)
    {
        Some(items) => items
            .iter()
            .filter_map(|c| c.str().or_else(|| c.get("command").and_then(Node::str)))
            .collect(),
        None => Vec::new(),
    };
    let mut text = command
        .or_else(|| options.and_then(|o| o.get("command")).and_then(Node::str))
        .map(str::to_owned)
        .or_else(|| (!commands.is_empty()).then(|| commands.join("\n")))
        .or_else(|| script.map(str::to_owned))
        .unwrap_or_else(|| format!("executor: {executor}"));
    let configurations: Vec<&str> = config
        .and_then(|c| c.get("configurations"))
        .and_then(Node::entries)
        .map(|entries| entries.iter().map(|e| e.key.as_str()).collect())
        .unwrap_or_default();
    if !configurations.is_empty() {
        text.push_str("\nconfigurations: ");
        text.push_str(&configurations.join(", "));
    }
    text
}

/// One `dependsOn` entry as the deps column shows it: `build` (this project), `^build` (the
/// projects it depends on), `other:build` (a named project), as many as it names.
fn dependency(entry: &Node) -> Vec<String> {
    if let Some(text) = entry.str() {
        return vec![text.to_owned()];
    }
    let Some(target) = entry.get("target").and_then(Node::str) else {
        return Vec::new();
    };
    if entry.get("dependencies").is_some_and(Node::is_true) {
        return vec![format!("^{target}")];
    }
    match entry.get("projects") {
        Some(projects) => match (projects.str(), projects.items()) {
            (Some("self"), _) | (None, None) => vec![target.to_owned()],
            (Some("dependencies"), _) => vec![format!("^{target}")],
            (Some(one), _) => vec![format!("{one}:{target}")],
            (None, Some(many)) => many
                .iter()
                .filter_map(Node::str)
                .map(|p| format!("{p}:{target}"))
                .collect(),
        },
        None => vec![target.to_owned()],
    }
}

/// `nx.json`'s `targetDefaults` in the workspace root `root`, by key, and whether it names
/// plugins.
fn workspace_config(root: &str, files: &dyn Files) -> (HashMap<String, Node>, bool) {
    let Some(nx) = read_json(root, "nx.json", files) else {
        return (HashMap::new(), false);
    };
    let defaults = nx
        .get("targetDefaults")
        .and_then(Node::entries)
        .map(|entries| {
            entries
                .iter()
                .map(|e| (e.key.clone(), e.node.clone()))
                .collect()
        })
        .unwrap_or_default();
    let plugins = nx
        .get("plugins")
        .and_then(Node::items)
        .is_some_and(|p| !p.is_empty());
    (defaults, plugins)
}

/// The project name a package.json gives: `nx.name`, else its package `name`.
fn package_name(package: &Node) -> Option<String> {
    package
        .path(&["nx", "name"])
        .or_else(|| package.get("name"))
        .and_then(Node::str)
        .filter(|n| !n.is_empty())
        .map(str::to_owned)
}

/// Nx's last resort for a project's name: its directory's name, lowercased.
fn dir_name(dir: &str) -> Option<String> {
    (dir != ".").then(|| file_name(dir).to_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::MemFiles;
    use crate::testing::{messages, name_list, names, parse_with, task};
    use indoc::indoc;

    const NX_JSON: &str = r#"{
  "$schema": "./node_modules/nx/schemas/nx-schema.json",
  "targetDefaults": {
    "build": { "dependsOn": ["^build"], "cache": true },
    "serve": { "continuous": true },
    "@nx/vite:test": { "metadata": { "description": "Vitest" } },
    "lint": { "cache": true }
  }
}"#;

    const PROJECT: &str = r#"{
  "name": "api",
  "$schema": "../../node_modules/nx/schemas/project-schema.json",
  // Targets of the API server.
  "targets": {
    "build": {
      "executor": "@nx/esbuild:esbuild",
      "options": { "main": "src/main.ts" },
      "configurations": { "production": {}, "development": {} }
    },
    "serve": {
      "command": "node dist/main.js",
      "metadata": { "description": "Start the API" }
    },
    "test": { "executor": "@nx/vite:test" },
    "e2e": {
      "executor": "nx:run-commands",
      "options": { "commands": ["echo one", { "command": "echo two" }] },
      "dependsOn": [
        "build",
        { "target": "build", "dependencies": true },
        { "target": "seed", "projects": ["db", "cache"] },
        { "target": "x", "projects": "self" }
      ]
    }
  }
}"#;

    fn workspace() -> MemFiles {
        MemFiles::new()
            .with("nx.json", NX_JSON)
            .with(
                "package.json",
                r#"{"name": "acme", "packageManager": "pnpm@9.1.0", "workspaces": ["apps/*"]}"#,
            )
            .with("apps/api/project.json", PROJECT)
    }

    #[test]
    fn project_json_targets_with_their_defaults() {
        let parsed = parse_with(parse_project_json, &workspace(), "apps/api/project.json");
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        assert_eq!(
            names(&parsed),
            ["api:build", "api:serve", "api:test", "api:e2e"]
        );
        let build = task(&parsed, "api:build");
        assert_eq!(build.argv, ["pnpm", "exec", "nx", "run", "api:build"]);
        assert_eq!(build.dir, ".");
        assert_eq!(build.line, Some(6));
        assert_eq!(build.deps, ["^build"]);
        assert_eq!(
            build.script.as_deref(),
            Some("executor: @nx/esbuild:esbuild\nconfigurations: production, development")
        );
        let serve = task(&parsed, "api:serve");
        assert!(serve.behaviour.service);
        assert_eq!(serve.description.as_deref(), Some("Start the API"));
        assert_eq!(serve.script.as_deref(), Some("node dist/main.js"));
        assert_eq!(
            task(&parsed, "api:test").description.as_deref(),
            Some("Vitest")
        );
        let e2e = task(&parsed, "api:e2e");
        assert_eq!(e2e.deps, ["build", "^build", "db:seed", "cache:seed", "x"]);
        assert_eq!(e2e.script.as_deref(), Some("echo one\necho two"));
        assert!(!e2e.behaviour.service);
    }

    /// Nx merges a `targetDefaults` entry only into a target it is compatible with: not into
    /// a package.json script (`nx:run-script`) when the default runs commands, not into an
    /// `nx:run-commands` target with another command when the default names its executor;
    /// a `command` default merges into any command target. `// …` keys are comments.
    #[test]
    fn target_defaults_merge_only_where_nx_merges_them() {
        let files = MemFiles::new()
            .with(
                "nx.json",
                r#"{"targetDefaults": {
                    "attw-check": {"executor": "nx:run-commands", "dependsOn": ["build"],
                                   "options": {"command": "attw --pack ."}},
                    "e2e": {"executor": "nx:run-commands", "dependsOn": ["build"],
                            "options": {"command": "playwright test"}},
                    "lint": {"command": "eslint .", "dependsOn": ["codegen"]},
                    "check": {"dependsOn": ["^build"]}
                }}"#,
            )
            .with("package.json", r#"{"workspaces": ["libs/*"]}"#)
            .with(
                "libs/types/package.json",
                r#"{"name": "types", "scripts": {"attw-check": "nx attw-check", "lint": "eslint ."},
                    "nx": {"targets": {"// These targets run in CI": {}, "attw-check": {}}}}"#,
            )
            .with(
                "libs/util/project.json",
                r#"{"name": "util", "targets": {
                    "// comment": {"command": "echo no"},
                    "e2e": {"command": "playwright test"},
                    "e2e-ci": {"executor": "nx:run-commands", "options": {"command": "playwright test --ci"}},
                    "lint": {"command": "eslint libs/util"},
                    "check": {"executor": "@nx/js:tsc"}
                }}"#,
            );
        let types = parse_with(
            crate::js::package_json::ADAPTER.parse,
            &files,
            "libs/types/package.json",
        );
        let nx: Vec<(&str, &[String])> = types
            .tasks
            .iter()
            .filter(|t| t.runner == Runner::Nx)
            .map(|t| (t.source_name.as_str(), t.deps.as_slice()))
            .collect();
        assert_eq!(nx, [("types:attw-check", &[][..]), ("types:lint", &[][..])]);
        let util = parse_with(parse_project_json, &files, "libs/util/project.json");
        let deps: Vec<(&str, Vec<&str>)> = util
            .tasks
            .iter()
            .map(|t| {
                (
                    t.source_name.as_str(),
                    t.deps.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            deps,
            [
                ("util:e2e", vec!["build"]),
                ("util:e2e-ci", vec![]),
                ("util:lint", vec!["codegen"]),
                ("util:check", vec!["^build"]),
            ]
        );
    }

    #[test]
    fn the_project_name_falls_back_to_package_json_then_the_directory() {
        let files = MemFiles::new()
            .with("nx.json", "{}")
            .with(
                "libs/util/project.json",
                r#"{"targets": {"build": {"command": "tsc"}}}"#,
            )
            .with("libs/util/package.json", r#"{"name": "@acme/util"}"#)
            .with(
                "libs/Core/project.json",
                r#"{"targets": {"build": {"command": "tsc"}}}"#,
            )
            .with("project.json", r#"{"targets": {"build": {}}}"#);
        let util = parse_with(parse_project_json, &files, "libs/util/project.json");
        assert_eq!(names(&util), ["@acme/util:build"]);
        assert_eq!(util.tasks[0].argv, ["npx", "nx", "run", "@acme/util:build"]);
        let core = parse_with(parse_project_json, &files, "libs/Core/project.json");
        assert_eq!(names(&core), ["core:build"]);
        let root = parse_with(parse_project_json, &files, "project.json");
        assert!(root.tasks.is_empty());
        assert_eq!(
            messages(&root),
            [(
                "project.json",
                Some(1),
                "a project.json at the workspace root needs a `name`"
            )]
        );
    }

    #[test]
    fn a_target_that_runs_nothing_is_listed_only_where_a_plugin_may_infer_it() {
        let project = r#"{"name": "cart", "targets": {
            "build": {"outputs": ["{workspaceRoot}/dist/apps/cart"]},
            "ci": {"dependsOn": ["build", "test"]},
            "deploy": {"dependsOn": ["build"], "command": "netlify deploy"}
        }}"#;
        let plain = MemFiles::new()
            .with("nx.json", "{}")
            .with("apps/cart/project.json", project);
        let parsed = parse_with(parse_project_json, &plain, "apps/cart/project.json");
        // Nx drops `build`, which runs nothing; `ci` only runs its dependencies.
        assert_eq!(names(&parsed), ["cart:ci", "cart:deploy"]);
        let with_plugins = plain.clone().with(
            "nx.json",
            r#"{"plugins": [{"plugin": "@nx/rsbuild", "options": {"buildTargetName": "build"}}]}"#,
        );
        let parsed = parse_with(parse_project_json, &with_plugins, "apps/cart/project.json");
        assert_eq!(names(&parsed), ["cart:build", "cart:ci", "cart:deploy"]);
        // A target default of its name may say what it runs.
        let defaults = plain.with(
            "nx.json",
            r#"{"targetDefaults": {"build": {"executor": "@nx/rsbuild:build"}}}"#,
        );
        let parsed = parse_with(parse_project_json, &defaults, "apps/cart/project.json");
        assert_eq!(names(&parsed), ["cart:build", "cart:ci", "cart:deploy"]);
    }

    #[test]
    fn a_project_json_without_targets_is_not_read_as_nx() {
        let dotnet = r#"{"dependencies": {"Microsoft.AspNetCore": "1.0.0"}, "frameworks": {}}"#;
        let parsed = crate::testing::parse_one(parse_project_json, "src/app/project.json", dotnet);
        assert_eq!(parsed, Parsed::default());
    }

    fn package(files: &MemFiles, path: &str) -> Parsed {
        let text = files.read(path).expect("file");
        let mut out = Parsed::default();
        from_package_json(
            &Source {
                purpose: crate::reads::Purpose::List,
                path,
                text: &text,
                files,
            },
            &mut out,
        );
        out
    }

    #[test]
    fn package_json_scripts_are_targets_with_their_nx_configuration() {
        let web = r#"{
  "name": "web",
  "scripts": {
    "build": "vite build",
    "serve": "vite",
    "lint": "eslint .",
    "format": "prettier -w .",
    "test": "vitest"
  },
  "nx": {
    "includedScripts": ["build", "serve", "format", "test"],
    "targets": {
      "test": { "dependsOn": ["build"] },
      "deploy": { "command": "wrangler deploy", "continuous": false }
    }
  }
}"#;
        let parsed = package(
            &workspace().with("apps/web/package.json", web),
            "apps/web/package.json",
        );
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        // lint has defaults but nx does not include it; format has no Nx configuration
        // and is a target all the same, as Nx makes every included script one.
        assert_eq!(
            name_list(&parsed),
            "web:build, web:serve, web:format, web:test, web:deploy"
        );
        let test = task(&parsed, "web:test");
        assert_eq!(test.deps, ["build"]);
        assert_eq!(test.script.as_deref(), Some("vitest"));
        assert_eq!(test.line, Some(13));
        assert_eq!(test.argv, ["pnpm", "exec", "nx", "run", "web:test"]);
        let build = task(&parsed, "web:build");
        assert_eq!(build.deps, ["^build"]);
        assert_eq!(build.line, Some(4));
        assert!(task(&parsed, "web:serve").behaviour.service);
        assert_eq!(
            task(&parsed, "web:format").script.as_deref(),
            Some("prettier -w .")
        );
        assert_eq!(
            task(&parsed, "web:deploy").script.as_deref(),
            Some("wrangler deploy")
        );
    }

    #[test]
    fn a_package_json_is_a_project_where_nx_reads_one() {
        // Outside an Nx workspace, without an `nx` key: no project.
        let plain = MemFiles::new().with(
            "package.json",
            r#"{"name": "x", "scripts": {"build": "tsc"}}"#,
        );
        assert_eq!(package(&plain, "package.json"), Parsed::default());
        // Inside one, but not one of the package manager's workspaces, nor its root with
        // an `nx` key: no project either.
        let files = workspace()
            .with("tools/gen/package.json", r#"{"name": "gen", "scripts": {"gen": "node gen.js"}}"#)
            .with("package.json", r#"{"name": "acme", "workspaces": ["apps/*", "!apps/old"], "scripts": {"fmt": "prettier"}}"#)
            .with("apps/old/package.json", r#"{"name": "old", "scripts": {"x": "true"}}"#)
            .with("apps/new/package.json", r#"{"scripts": {"x": "true"}}"#);
        assert_eq!(package(&files, "tools/gen/package.json"), Parsed::default());
        assert_eq!(package(&files, "package.json"), Parsed::default());
        assert_eq!(package(&files, "apps/old/package.json"), Parsed::default());
        assert_eq!(names(&package(&files, "apps/new/package.json")), ["new:x"]);
        let rooted = files.with(
            "package.json",
            r#"{"name": "acme", "nx": {}, "scripts": {"fmt": "prettier"}}"#,
        );
        assert_eq!(names(&package(&rooted, "package.json")), ["acme:fmt"]);
        // pnpm's and lerna's package lists count too.
        for (list, text, path, expected) in [
            (
                "pnpm-workspace.yaml",
                indoc! {"
                    packages:
                      - 'libs/**'
                "},
                "libs/a/b/package.json",
                "b:t",
            ),
            ("lerna.json", "{}", "packages/c/package.json", "c:t"),
        ] {
            let name = expected.split(':').next().unwrap_or_default();
            let files = MemFiles::new()
                .with("nx.json", "{}")
                .with("package.json", r#"{"name": "acme"}"#)
                .with(list, text)
                .with(
                    path,
                    &format!(r#"{{"name": "{name}", "scripts": {{"t": "true"}}}}"#),
                );
            assert_eq!(names(&package(&files, path)), [expected], "{list}");
        }
        // An `nx` key alone makes a project, even without nx.json.
        let keyed = MemFiles::new().with(
            "tools/package.json",
            r#"{"name": "tools", "nx": {"targets": {"gen": {"command": "node gen.js"}}}}"#,
        );
        assert_eq!(names(&package(&keyed, "tools/package.json")), ["tools:gen"]);
    }

    #[test]
    fn package_json_beside_project_json_adds_the_targets_project_json_does_not_define() {
        let files = workspace()
            .with(
                "libs/util/package.json",
                r#"{"name": "@acme/util", "scripts": {"build": "tsc", "test": "vitest", "lint": "eslint ."}, "nx": {"targets": {"extra": {"command": "echo"}}}}"#,
            )
            .with(
                "libs/util/project.json",
                r#"{"name": "util", "targets": {"build": {"command": "tsc -b"}, "test": {"dependsOn": ["build"]}}}"#,
            );
        let from_package = package(&files, "libs/util/package.json");
        assert!(
            from_package.diagnostics.is_empty(),
            "{:?}",
            from_package.diagnostics
        );
        assert_eq!(names(&from_package), ["util:lint", "util:extra"]);
        let from_project = parse_with(parse_project_json, &files, "libs/util/project.json");
        assert_eq!(names(&from_project), ["util:build", "util:test"]);
        // The script of a target that does not say what to run is what it runs.
        let test = task(&from_project, "util:test");
        assert_eq!(test.script.as_deref(), Some("vitest"));
        assert_eq!(test.deps, ["build"]);
        assert_eq!(
            task(&from_project, "util:build").script.as_deref(),
            Some("tsc -b")
        );
    }

    #[test]
    fn bad_nx_configuration_costs_one_diagnostic_each() {
        let files = workspace()
            .with("apps/a/package.json", "{\"name\": \"a\",\n\"nx\": []}")
            .with(
                "apps/b/package.json",
                "{\"name\": \"b\",\n\"nx\": {\"targets\": 3}}",
            )
            .with(
                "c/project.json",
                indoc! {"
                    {\"name\": \"c\", \"targets\": {
                    \"x\": 1,
                    \"y\": {\"command\": \"y\", \"dependsOn\": {}},
                    \"z\": {\"command\": \"z\"}}}"},
            )
            .with("d/project.json", "{\"name\": \"d\", \"targets\": []}")
            .with("e/project.json", "{\"name\": \"e\", \"targets\": {,}");
        assert_eq!(
            messages(&package(&files, "apps/a/package.json")),
            [(
                "apps/a/package.json",
                Some(2),
                "`nx` should be an object, not an array"
            )]
        );
        assert_eq!(
            messages(&package(&files, "apps/b/package.json")),
            [(
                "apps/b/package.json",
                Some(2),
                "`nx.targets` should be an object, not a number"
            )]
        );
        let c = parse_with(parse_project_json, &files, "c/project.json");
        assert_eq!(names(&c), ["c:y", "c:z"]);
        assert_eq!(
            messages(&c),
            [
                (
                    "c/project.json",
                    Some(2),
                    "target `x` should be an object, not a number"
                ),
                (
                    "c/project.json",
                    Some(3),
                    "`dependsOn` of `y` should be an array, not an object"
                ),
            ]
        );
        let d = parse_with(parse_project_json, &files, "d/project.json");
        assert_eq!(
            messages(&d),
            [(
                "d/project.json",
                Some(1),
                "`targets` should be an object, not an array"
            )]
        );
        let e = parse_with(parse_project_json, &files, "e/project.json");
        assert!(e.tasks.is_empty());
        assert_eq!(e.diagnostics.len(), 1);
        assert_eq!(e.diagnostics[0].line, Some(1));
    }

    #[test]
    fn hostile_inputs_return() {
        let many = format!(
            "{{\"name\": \"p\", \"targets\": {{{}}}}}",
            (0..20_000)
                .map(|i| format!(
                    "\"t{i}\": {{\"dependsOn\": [{{\"target\": \"b\", \"projects\": [\"a\"]}}]}}"
                ))
                .collect::<Vec<_>>()
                .join(",")
        );
        let parsed = crate::testing::parse_one(parse_project_json, "p/project.json", &many);
        assert_eq!(parsed.tasks.len(), 20_000);
        let deep = format!(
            "{{\"targets\": {}{}}}",
            "{\"a\":".repeat(50_000),
            "}".repeat(50_000)
        );
        assert_eq!(
            crate::testing::parse_one(parse_project_json, "p/project.json", &deep)
                .diagnostics
                .len(),
            1
        );
    }
}
