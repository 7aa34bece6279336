//! Unit tests of the VS Code adapter: tasks.json entries, their variables, inputs and
//! platform overrides.

use super::*;
use crate::files::relative;
use crate::testing::{lines, name_list, names, parse_one, task};
use indoc::indoc;

const PATH: &str = "app/.vscode/tasks.json";

fn parsed(text: &str) -> Parsed {
    parse_one(parse, PATH, text)
}

#[test]
fn shell_and_process_tasks_with_their_fields() {
    let p = parsed(
        r#"{
  // a comment
  "version": "2.0.0",
  "tasks": [
    { "label": "build", "type": "shell", "command": "make all", "detail": "Build it",
      "group": { "kind": "build", "isDefault": true } },
    { "label": "serve", "type": "process", "command": "node", "args": ["server.js", "a b"],
      "isBackground": true, "dependsOn": "build" },
  ],
}"#,
    );
    assert_eq!(names(&p), ["build", "serve"]);
    let build = task(&p, "build");
    assert_eq!(build.dir, "app");
    assert_eq!(build.line, Some(5));
    assert_eq!(build.description.as_deref(), Some("Build it"));
    assert_eq!(build.group.as_deref(), Some("build"));
    assert_eq!(build.argv, ["sh", "-c", "make all \"$@\"", "sh"]);
    let serve = task(&p, "serve");
    assert!(serve.behaviour.service);
    assert_eq!(serve.deps, ["build"]);
    // It depends on build, so the chain runs build first from the workspace folder.
    assert_eq!(
        serve.argv[2],
        "(make all) &&\n(node server.js 'a b' \"$@\")"
    );
    assert!(lines(&p).is_empty(), "{:?}", lines(&p));
}

#[test]
fn variables_cwd_env_and_platform_overrides() {
    let p = parsed(
        r#"{ "version": "2.0.0", "options": { "env": { "A": "1" } },
  "linux": { "options": { "env": { "A": "linux" } } },
  "osx": { "options": { "env": { "A": "mac" } } },
  "tasks": [
    { "label": "where", "type": "shell", "command": "echo ${workspaceFolder}${pathSeparator}x ${workspaceFolderBasename}" },
    { "label": "sub", "type": "process", "command": "ls", "options": { "cwd": "${workspaceFolder}/src" } },
    { "label": "home", "type": "process", "command": "echo", "args": ["${env:HOME}/x"] },
    { "label": "os", "command": "echo", "args": ["other"], "linux": { "args": ["linux"] }, "osx": { "args": ["mac"] } }
  ] }"#,
    );
    let expected = if cfg!(target_os = "macos") {
        "mac"
    } else {
        "linux"
    };
    let where_ = task(&p, "where");
    assert_eq!(where_.env, [("A".to_owned(), expected.to_owned())]);
    assert!(
        where_.argv[2].contains("echo ./x app"),
        "{}",
        where_.argv[2]
    );
    let sub = task(&p, "sub");
    assert_eq!(
        sub.dir, "app",
        "named and started from the workspace folder"
    );
    assert!(
        sub.argv[2].starts_with("(cd 'src' || exit; "),
        "{}",
        sub.argv[2]
    );
    assert!(task(&p, "home").argv[2].contains("\"${HOME}/x\""));
    assert!(task(&p, "os").script.as_deref().unwrap().contains(expected));
}

#[test]
fn what_agg_cannot_run_is_reported_with_its_line() {
    let p = parsed(
        r#"{ "tasks": [
  { "label": "file", "type": "shell", "command": "cat ${file}" },
  { "label": "tsc", "type": "typescript", "tsconfig": "tsconfig.json" },
  { "label": "uses-tsc", "dependsOn": ["tsc"] },
  { "label": "loop-a", "dependsOn": "loop-b" },
  { "label": "loop-b", "dependsOn": "loop-a" },
  { "label": "ghost", "dependsOn": "nope" },
  { "label": "empty" },
  { "type": "shell", "command": "x" },
  "not a task",
  { "label": "ok", "type": "shell", "command": "true" },
  { "label": "ok", "type": "shell", "command": "false" },
  { "label": "out", "command": "ls", "options": { "cwd": "${workspaceFolder}/../.." } },
  { "type": "npm", "script": "build", "path": "web/" }
] }"#,
    );
    // What needs the editor is listed, with the reason and no command; what is written
    // wrong is a diagnostic.
    assert_eq!(names(&p), ["file", "tsc", "uses-tsc", "ok", "npm: build"]);
    let reason = |name: &str| task(&p, name).behaviour.not_runnable.clone().unwrap();
    assert!(reason("file").contains("`${file}`"), "{}", reason("file"));
    assert!(reason("tsc").contains("`typescript`"), "{}", reason("tsc"));
    assert!(reason("uses-tsc").contains("depends on `tsc`"));
    assert!(task(&p, "file").argv.is_empty());
    assert_eq!(task(&p, "file").script.as_deref(), Some("cat ${file}"));
    assert_eq!(task(&p, "file").line, Some(2));
    assert_eq!(task(&p, "uses-tsc").deps, ["tsc"]);
    assert!(task(&p, "ok").behaviour.not_runnable.is_none());
    assert_eq!(
        task(&p, "npm: build").argv[2],
        "(cd 'web' || exit; npm run build -- \"$@\")"
    );
    assert_eq!(task(&p, "npm: build").dir, "app");
    let found = lines(&p);
    let has = |line: u32, text: &str| {
        assert!(
            found
                .iter()
                .any(|(l, m)| *l == Some(line) && m.contains(text)),
            "no `{text}` at line {line}: {found:?}"
        );
    };
    assert!(
        !found.iter().any(|(l, _)| matches!(l, Some(2..=4))),
        "{found:?}"
    );
    has(5, "cycle");
    has(7, "`nope`");
    has(8, "nothing to run");
    has(12, "defined twice");
    has(13, "outside the repository");
    assert!(found.iter().any(|(_, m)| m.contains("without a `label`")));
    assert!(found.iter().any(|(_, m)| m.contains("must be an object")));
}

#[test]
fn bad_files_are_one_diagnostic() {
    assert_eq!(lines(&parsed("{ \"tasks\": [ }"))[0].0, Some(1));
    assert!(
        lines(&parsed("{ \"tasks\": {} }"))[0]
            .1
            .contains("must be an array")
    );
    assert!(lines(&parsed("[1]"))[0].1.contains("expected an object"));
    let deep = format!(
        "{{\"tasks\": {}{}}}",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    assert_eq!(parsed(&deep).tasks.len(), 0);
    assert!(parsed("").tasks.is_empty());
}

#[test]
fn shell_quoting_follows_vs_code() {
    let p = parsed(
        r#"{ "tasks": [ { "label": "q", "type": "shell", "command": "printf",
  "args": ["plain", "two words", {"value": "a b", "quoting": "escape"},
           {"value": "$X y", "quoting": "weak"}, {"value": "it's", "quoting": "strong"}] } ] }"#,
    );
    assert_eq!(
        task(&p, "q").script.as_deref(),
        Some(r#"printf plain 'two words' a\ b "$X y" 'it'\''s'"#)
    );
}

#[test]
fn relative_paths_between_directories() {
    assert_eq!(relative("a", "a"), ".");
    assert_eq!(relative("a/b", "a"), "..");
    assert_eq!(relative(".", "a/b"), "a/b");
    assert_eq!(relative("a/b", "a/c"), "../c");
    assert_eq!(relative("a", "."), "..");
}

#[test]
fn found_in_real_tasks_files() {
    let p = parsed(
        r#"{ "version": "2.0.0", "tasks": [
  // { "label": "old", "type": "shell", "command": "x" },
  { "label": "watch:tsc", "type": "shell", "command": "tsc -w", "isBackground": true },
  { "label": "watch", "dependsOn": ["watch:tsc", "npm: watch:esbuild"] },
  { "label": "after", "type": "shell", "command": "echo go", "dependsOn": "watch:tsc" },
  { "label": "compile", "dependsOn": [{ "type": "npm", "script": "compile:client" }] },
  { "label": "client", "type": "npm", "script": "compile:client", "path": "${workspaceFolder}/client" },
  { "label": "list", "type": "shell", "command": "echo a; pwd & pwd",
    "options": { "cwd": "sub", "env": { "X": "1" } } },
  { "label": "secret", "type": "shell", "command": "true", "hide": true },
  { "label": "arr", "command": ["echo", "one"], "group": "none" },
  {
    "type": "typescript", "tsconfig": "tsconfig.json", "option": "watch"
  },
  { "type": "gulp", "task": "hygiene" },
  { "type": "cargo", "command": "build" }
] }"#,
    );
    assert_eq!(
        name_list(&p),
        "watch:tsc, watch, after, compile, client, list, arr, tsc: watch - tsconfig.json, gulp: hygiene"
    );
    // Lines are exact, whatever comments come before.
    assert_eq!(task(&p, "watch:tsc").line, Some(3));
    assert_eq!(task(&p, "tsc: watch - tsconfig.json").line, Some(12));
    // Background dependencies start and the chain goes on; the task waits for them.
    let watch = task(&p, "watch");
    assert_eq!(
        watch.argv[2],
        indoc! {"
            { (tsc -w) & } &&
            (npm run watch:esbuild --) &&
            wait"}
    );
    assert!(watch.behaviour.service);
    assert_eq!(
        task(&p, "after").argv[2],
        indoc! {"
            { (tsc -w) & } &&
            (echo go \"$@\") &&
            wait"}
    );
    // A task identifier in dependsOn is the npm task of that script.
    assert_eq!(task(&p, "compile").deps, ["npm: compile:client"]);
    assert_eq!(
        task(&p, "compile").argv[2],
        "(cd 'client' || exit; npm run compile:client --)"
    );
    // The whole command list runs in the directory, and none of it without it.
    assert_eq!(
        task(&p, "list").argv[2],
        "(cd 'sub' || exit; export X='1'; echo a; pwd & pwd \"$@\")"
    );
    assert_eq!(task(&p, "arr").argv, ["echo", "one"]);
    assert_eq!(task(&p, "arr").group, None);
    assert!(
        lines(&p)
            .iter()
            .any(|(l, m)| *l == Some(16) && m.contains("`cargo` without a `label`")),
        "{:?}",
        lines(&p)
    );
}

#[test]
fn a_task_needing_more_than_the_step_cap_is_reported() {
    let mut tasks: Vec<String> = (0..1_200)
        .map(|i| format!(r#"{{ "label": "t{i}", "type": "shell", "command": "true" }}"#))
        .collect();
    let all: Vec<String> = (0..1_200).map(|i| format!("\"t{i}\"")).collect();
    tasks.push(format!(
        r#"{{ "label": "hub", "dependsOn": [{}] }}"#,
        all.join(",")
    ));
    let p = parsed(&format!(r#"{{ "tasks": [{}] }}"#, tasks.join(",\n")));
    assert_eq!(p.tasks.len(), 1_200);
    assert!(
        lines(&p)
            .iter()
            .any(|(_, m)| m.contains("`hub` needs more than 1000 tasks")),
        "{:?}",
        lines(&p)
    );
}

#[test]
fn chains_deeper_than_the_cap_are_reported_and_shared_dependencies_read_once() {
    // t0 → t1 → … → t40: the first tasks' chains are too deep, the later ones are listed.
    let mut tasks: Vec<String> = (0..40)
        .map(|i| format!(r#"{{ "label": "t{i}", "dependsOn": "t{}" }}"#, i + 1))
        .collect();
    tasks.push(r#"{ "label": "t40", "type": "shell", "command": "true" }"#.to_owned());
    // Many tasks on one hub with a long, repeated dependency list.
    let leafs = vec!["\"t40\""; 5_000].join(",");
    tasks.push(format!(r#"{{ "label": "hub", "dependsOn": [{leafs}] }}"#));
    tasks.extend((0..5_000).map(|i| format!(r#"{{ "label": "top{i}", "dependsOn": "hub" }}"#)));
    let p = parsed(&format!(r#"{{ "tasks": [{}] }}"#, tasks.join(",\n")));
    let deep: Vec<_> = lines(&p)
        .into_iter()
        .filter(|(_, m)| m.contains("nested more than 32 deep"))
        .collect();
    assert_eq!(deep.len(), 8, "{deep:?}");
    assert!(names(&p).contains(&"t8"));
    assert!(!names(&p).contains(&"t7"));
    assert_eq!(task(&p, "top4999").argv[2], "(true)");
    assert_eq!(task(&p, "top0").deps, ["hub"]);
}
