//! Turborepo tasks: every key of the root `turbo.json`'s `tasks` (`pipeline` in turbo 1),
//! as written (`build`, `web#build`, `//#lint`), run from the root as `<pm> turbo run NAME`;
//! and the tasks a package's own `turbo.json` (`"extends": ["//"]`) adds, named the way
//! `turbo run` takes them from anywhere (`web#build`, from the package.json `name` beside it)
//! and also run from the root.
//!
//! A task's `dependsOn` become its deps as written (`^build` means "build in the packages
//! this one depends on first"; turbo 1's `$ENV` entries are not tasks and are left out),
//! `description` its description, `persistent` marks it a service and `interactive` a task
//! that wants a terminal. Arguments go after `--`: turbo hands them to the package scripts.

use super::manager::detect_manager;
use super::{nearest, read_json, through_manager};
use crate::doc::{self, Dialect, Node, Report, Terms};
use crate::files::parent;
use crate::model::{Parsed, Runner, Source, Task};

/// The root configuration's file names, in the order turbo looks for them.
const ROOT_FILES: [&str; 2] = ["turbo.json", "turbo.jsonc"];

pub(super) fn parse(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    let Some(root) = doc::read_jsonc(src.text, Dialect::Strict)
        .and_then(|root| root.into_table_or("turbo.json should be an object", Terms::Json))
        .or_report(src.path, &mut out)
    else {
        return out;
    };
    let dir = parent(src.path);
    if crate::files::file_name(src.path) == "turbo.json"
        && crate::files::join(dir, "turbo.jsonc").is_some_and(|p| src.files.exists(&p))
    {
        out.diag(
            src.path,
            None,
            "turbo.jsonc is here too: turbo refuses a directory with both; agg reads turbo.json",
        );
    }
    let Some(tasks) = task_table(src.path, &root, &mut out) else {
        return out;
    };
    match root.get("extends") {
        None => {
            let manager = detect_manager(dir, src.files);
            for entry in tasks.entries().unwrap_or_default() {
                push(src, (dir, manager), &entry.key, &entry.node, &mut out);
            }
        }
        Some(extends) => package_tasks(src, extends, tasks, &mut out),
    }
    out
}

/// The task table: `tasks`, or turbo 1's `pipeline`.
fn task_table<'n>(path: &str, root: &'n Node, out: &mut Parsed) -> Option<&'n Node> {
    let (key, tasks) = match (root.get("tasks"), root.get("pipeline")) {
        (Some(tasks), Some(pipeline)) => {
            out.diag(
                path,
                Some(pipeline.line),
                "both `tasks` and `pipeline`: turbo 2 reads `tasks` only, and so does agg",
            );
            ("tasks", tasks)
        }
        (Some(tasks), None) => ("tasks", tasks),
        (None, Some(pipeline)) => ("pipeline", pipeline),
        (None, None) => return None,
    };
    tasks
        .table_or(&format!("`{key}` should be an object"), Terms::Json)
        .or_report(path, out)
        .map(|_| tasks)
}

/// A package's `turbo.json`: its tasks apply to that package only and are listed as
/// `<package>#<task>`, run from the root configuration's directory.
fn package_tasks(src: &Source<'_>, extends: &Node, tasks: &Node, out: &mut Parsed) {
    let dir = parent(src.path);
    let from_root = extends
        .items()
        .is_some_and(|items| items.first().and_then(Node::str) == Some("//"));
    if !from_root {
        out.diag(
            src.path,
            Some(extends.line),
            "`extends` should be an array starting with \"//\" (the root turbo.json)",
        );
        return;
    }
    let Some(package) = read_json(dir, "package.json", src.files)
        .and_then(|p| p.get("name").and_then(Node::str).map(str::to_owned))
        .filter(|name| !name.is_empty())
    else {
        out.diag(
            src.path,
            Some(extends.line),
            "no package.json with a `name` beside this turbo.json: turbo cannot tell which package it configures",
        );
        return;
    };
    let Some((root_dir, root_file)) = (dir != ".")
        .then(|| nearest(parent(dir), &ROOT_FILES, src.files))
        .flatten()
    else {
        out.diag(
            src.path,
            Some(extends.line),
            "no turbo.json above this package to extend",
        );
        return;
    };
    // A `web#build` the root configures already has its row there.
    let root_tasks: std::collections::HashSet<String> = read_json(&root_dir, root_file, src.files)
        .and_then(|r| {
            let tasks = r.get("tasks").or_else(|| r.get("pipeline"))?;
            Some(tasks.entries()?.iter().map(|e| e.key.clone()).collect())
        })
        .unwrap_or_default();
    let manager = detect_manager(&root_dir, src.files);
    for entry in tasks.entries().unwrap_or_default() {
        if entry.key.contains('#') {
            let message = format!(
                "`{}`: a package's turbo.json names its tasks without `package#`",
                entry.key
            );
            out.diag(src.path, Some(entry.node.line), message);
            continue;
        }
        let name = format!("{package}#{}", entry.key);
        if root_tasks.contains(&name) {
            continue;
        }
        push(src, (&root_dir, manager), &name, &entry.node, out);
    }
}

/// Adds task `name`, run from `run_dir` through its package manager.
fn push(
    src: &Source<'_>,
    (run_dir, manager): (&str, Runner),
    name: &str,
    config: &Node,
    out: &mut Parsed,
) {
    let expected = format!("task `{name}` should be an object");
    if config
        .table_or(&expected, Terms::Json)
        .or_report(src.path, out)
        .is_none()
    {
        return;
    }
    let argv = through_manager(manager, "turbo", &["run", name]);
    let mut task = Task::new(Runner::Turbo, name, run_dir, src.path, argv);
    task.line = Some(config.line);
    task.description = config
        .get("description")
        .and_then(Node::str)
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(str::to_owned);
    if let Some(depends) = config.get("dependsOn") {
        let expected = format!("`dependsOn` of `{name}` should be an array");
        if let Some(items) = depends
            .array_or(&expected, Terms::Json)
            .or_report(src.path, out)
        {
            task.deps = items
                .iter()
                .filter_map(Node::str)
                .filter(|d| !d.starts_with('$') && !d.is_empty())
                .map(str::to_owned)
                .collect();
        }
    }
    task.behaviour.service = config.get("persistent").is_some_and(Node::is_true);
    task.behaviour.interactive = config.get("interactive").is_some_and(Node::is_true);
    out.tasks.push(task);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::MemFiles;
    use crate::testing::{messages, names, parse_with, task};
    use indoc::indoc;

    const ROOT: &str = r#"{
  "$schema": "https://turborepo.com/schema.json",
  // Shared by every package.
  "globalDependencies": [".env"],
  "tasks": {
    "build": {
      "description": "Compile every package",
      "dependsOn": ["^build"],
      "outputs": ["dist/**"],
    },
    "test": { "dependsOn": ["build", "$CI"] },
    "dev": { "persistent": true, "cache": false, "interactive": true },
    "web#deploy": { "dependsOn": ["web#build"] },
    "//#lint": {},
  },
}
"#;

    fn workspace() -> MemFiles {
        MemFiles::new()
            .with("turbo.json", ROOT)
            .with(
                "package.json",
                r#"{"name": "mono", "packageManager": "pnpm@9.1.0"}"#,
            )
            .with("apps/web/package.json", r#"{"name": "web"}"#)
    }

    #[test]
    fn root_tasks_run_through_the_package_manager_from_the_root() {
        let parsed = parse_with(parse, &workspace(), "turbo.json");
        assert_eq!(
            names(&parsed),
            ["build", "test", "dev", "web#deploy", "//#lint"]
        );
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let build = task(&parsed, "build");
        assert_eq!(build.argv, ["pnpm", "exec", "turbo", "run", "build"]);
        assert_eq!(build.dir, ".");
        assert_eq!(build.line, Some(6));
        assert_eq!(build.deps, ["^build"]);
        assert_eq!(build.description.as_deref(), Some("Compile every package"));
        assert_eq!(task(&parsed, "test").deps, ["build"]);
        let dev = task(&parsed, "dev");
        assert!(dev.behaviour.service && dev.behaviour.interactive);
        assert!(!build.behaviour.service);
        assert_eq!(task(&parsed, "//#lint").argv[4], "//#lint");
    }

    #[test]
    fn turbo_1_pipeline_and_the_npm_default() {
        let files = MemFiles::new().with(
            "turbo.json",
            r#"{"pipeline": {"build": {"dependsOn": ["^build"]}}}"#,
        );
        let parsed = parse_with(parse, &files, "turbo.json");
        assert_eq!(
            task(&parsed, "build").argv,
            ["npx", "turbo", "run", "build"]
        );
        let files = MemFiles::new().with(
            "turbo.json",
            r#"{"pipeline": {"a": {}}, "tasks": {"b": {}}}"#,
        );
        let parsed = parse_with(parse, &files, "turbo.json");
        assert_eq!(names(&parsed), ["b"]);
        assert_eq!(parsed.diagnostics.len(), 1);
    }

    #[test]
    fn a_package_turbo_json_adds_package_tasks_named_for_turbo_run() {
        let files = workspace().with(
            "apps/web/turbo.json",
            indoc! {"
                {
                  \"extends\": [\"//\"],
                  \"tasks\": {
                    \"build\": {\"outputs\": [\".next/**\"]},
                    \"deploy\": {},
                    \"e2e\": {\"persistent\": true},
                    \"web#x\": {}
                  }
                }
            "},
        );
        let parsed = parse_with(parse, &files, "apps/web/turbo.json");
        // `web#deploy` is configured at the root already.
        assert_eq!(names(&parsed), ["web#build", "web#e2e"]);
        let build = task(&parsed, "web#build");
        assert_eq!(build.dir, ".");
        assert_eq!(build.file_path, "apps/web/turbo.json");
        assert_eq!(build.line, Some(4));
        assert_eq!(build.argv, ["pnpm", "exec", "turbo", "run", "web#build"]);
        assert!(task(&parsed, "web#e2e").behaviour.service);
        assert_eq!(
            messages(&parsed),
            [(
                "apps/web/turbo.json",
                Some(7),
                "`web#x`: a package's turbo.json names its tasks without `package#`"
            )]
        );
    }

    #[test]
    fn package_configurations_that_turbo_refuses_are_reported() {
        let files = workspace()
            .with(
                "apps/web/turbo.json",
                r#"{"extends": ["x"], "tasks": {"a": {}}}"#,
            )
            .with(
                "apps/api/turbo.json",
                r#"{"extends": ["//"], "tasks": {"a": {}}}"#,
            )
            .with("apps/api/package.json", "{}")
            .with(
                "solo/turbo.json",
                r#"{"extends": ["//"], "tasks": {"a": {}}}"#,
            );
        let only = MemFiles::new()
            .with("turbo.json", r#"{"extends": ["//"], "tasks": {"a": {}}}"#)
            .with("package.json", r#"{"name": "x"}"#);
        for (files, path, message) in [
            (
                &files,
                "apps/web/turbo.json",
                "`extends` should be an array starting with \"//\" (the root turbo.json)",
            ),
            (
                &files,
                "apps/api/turbo.json",
                "no package.json with a `name` beside this turbo.json: turbo cannot tell which package it configures",
            ),
            (
                &only,
                "turbo.json",
                "no turbo.json above this package to extend",
            ),
        ] {
            let parsed = parse_with(parse, files, path);
            assert!(parsed.tasks.is_empty(), "{path}");
            assert_eq!(messages(&parsed), [(path, Some(1), message)]);
        }
        // solo/ has no package.json.
        assert_eq!(
            parse_with(parse, &files, "solo/turbo.json")
                .diagnostics
                .len(),
            1
        );
    }

    #[test]
    fn bad_entries_cost_one_diagnostic_each() {
        let files = MemFiles::new().with(
            "turbo.json",
            indoc! {"
                {
                \"tasks\": {
                \"a\": [],
                \"b\": {\"dependsOn\": \"x\"},
                \"c\": {\"description\": 3}
                }}"},
        );
        let parsed = parse_with(parse, &files, "turbo.json");
        assert_eq!(names(&parsed), ["b", "c"]);
        assert_eq!(
            messages(&parsed),
            [
                (
                    "turbo.json",
                    Some(3),
                    "task `a` should be an object, not an array"
                ),
                (
                    "turbo.json",
                    Some(4),
                    "`dependsOn` of `b` should be an array, not a string"
                ),
            ]
        );
        for (text, line, message) in [
            (
                "[]",
                Some(1),
                "turbo.json should be an object, not an array",
            ),
            (
                "{\"tasks\": 1}",
                Some(1),
                "`tasks` should be an object, not a number",
            ),
            (
                "{\n\"tasks\": {\n",
                Some(2),
                "invalid JSON: Unterminated object",
            ),
        ] {
            let parsed = crate::testing::parse_one(parse, "turbo.json", text);
            assert_eq!(crate::testing::lines(&parsed), [(line, message)], "{text}");
        }
    }

    #[test]
    fn both_file_names_in_one_directory_are_reported() {
        let files = MemFiles::new()
            .with("turbo.json", r#"{"tasks": {"a": {}}}"#)
            .with("turbo.jsonc", "{}");
        let parsed = parse_with(parse, &files, "turbo.json");
        assert_eq!(names(&parsed), ["a"]);
        assert_eq!(parsed.diagnostics.len(), 1);
    }

    #[test]
    fn hostile_inputs_return() {
        let many = format!(
            "{{\"tasks\": {{{}}}}}",
            (0..20_000)
                .map(|i| format!("\"t{i}\": {{\"dependsOn\": [\"^b\"]}}"))
                .collect::<Vec<_>>()
                .join(",")
        );
        let parsed = crate::testing::parse_one(parse, "turbo.json", &many);
        assert_eq!(parsed.tasks.len(), 20_000);
        let deep = format!(
            "{{\"tasks\": {}{}}}",
            "[".repeat(50_000),
            "]".repeat(50_000)
        );
        assert_eq!(
            crate::testing::parse_one(parse, "turbo.json", &deep)
                .diagnostics
                .len(),
            1
        );
    }
}
