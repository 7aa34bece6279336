//! gulp and grunt for real: agg's rows against `gulp --tasks-json` (names), `gulp --tasks`
//! (descriptions) and `grunt --help` on every fixture, and tasks run through `agg run`. Each
//! runner reads a copy of the fixture whose `node_modules` links the installed gulp and grunt
//! packages, as a project that installed them has; nothing is downloaded.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::listing::{assert_refusal_reported, described_by_dir, runner_listing};
use crate::test::{Test, fixtures, rows, task};

/// The `node_modules` the installed `gulp` (or `grunt`) comes from.
fn modules_of(binary: &str) -> PathBuf {
    let bin = which::which(binary).expect("on PATH");
    let real = std::fs::canonicalize(&bin).expect("canonical path");
    real.ancestors()
        .find(|dir| dir.file_name().is_some_and(|n| n == "node_modules"))
        .unwrap_or_else(|| panic!("no node_modules above {}", real.display()))
        .to_path_buf()
}

/// A copy of the fixture holding `dir`, with the installed packages linked in as its
/// `node_modules`, and where `dir` is in it.
fn linked_copy(dir: &Path, binary: &str, copies: &mut BTreeMap<PathBuf, Test>) -> PathBuf {
    let rel = dir.strip_prefix(fixtures()).expect("a fixture directory");
    let name = rel.components().next().expect("the fixture's name");
    let fixture = fixtures().join(name);
    let copy = copies.entry(fixture.clone()).or_insert_with(|| {
        let copy = Test::copy_of(&fixture);
        std::os::unix::fs::symlink(modules_of(binary), copy.root().join("node_modules"))
            .expect("link node_modules");
        copy
    });
    copy.root()
        .join(rel.strip_prefix(name).expect("inside the fixture"))
}

/// The top-level task names of `gulp --tasks-json`.
fn gulp_names(json: &Value) -> BTreeSet<String> {
    json["nodes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|n| n["label"].as_str().map(str::to_owned))
        .collect()
}

/// The descriptions `gulp --tasks --depth 1` prints beside the top-level tasks.
fn gulp_descriptions(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter_map(|line| {
            let rest = line.trim_start_matches(['├', '└', '─', '┬', '│', ' ']);
            let (name, description) = rest.split_once("  ")?;
            let description = description.trim();
            (!name.starts_with('-') && !description.is_empty())
                .then(|| (name.trim().to_owned(), description.to_owned()))
        })
        .collect()
}

#[test]
fn gulp_tasks_match_gulp_tasks_json_on_every_fixture() {
    require!("gulp");
    let mut copies = BTreeMap::new();
    let dirs = described_by_dir("gulp");
    assert!(dirs.len() >= 3, "{dirs:?}");
    for (dir, listed) in dirs {
        let copy = linked_copy(&dir, "gulp", &mut copies);
        let out = runner_listing(&copy, "gulp", &["--tasks-json"]);
        if !out.status.success() {
            // gulp refuses the whole file; agg lists what it read and says why.
            assert_refusal_reported(&dir, "gulp");
            continue;
        }
        let json: Value = serde_json::from_slice(&out.stdout).expect("gulp's JSON");
        let names: BTreeSet<String> = listed.keys().cloned().collect();
        assert_eq!(names, gulp_names(&json), "{}", dir.display());
        let text = runner_listing(&copy, "gulp", &["--tasks", "--depth", "1"]);
        let described = gulp_descriptions(&String::from_utf8_lossy(&text.stdout));
        let ours: BTreeMap<String, String> = listed
            .into_iter()
            .filter_map(|(name, d)| Some((name, d?)))
            .collect();
        assert_eq!(ours, described, "{}", dir.display());
    }
}

/// The tasks of `grunt --help`'s "Available tasks" section, with their descriptions.
fn grunt_tasks(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .skip_while(|line| !line.starts_with("Available tasks"))
        .skip(1)
        .take_while(|line| !line.trim().is_empty())
        .filter_map(|line| {
            let (name, description) = line.trim().split_once("  ")?;
            let description = description.trim().trim_end_matches(" *").trim();
            Some((name.to_owned(), description.to_owned()))
        })
        .collect()
}

#[test]
fn grunt_tasks_match_grunt_help_on_every_fixture() {
    require!("grunt");
    let mut copies = BTreeMap::new();
    let mut compared = 0;
    for (dir, _) in described_by_dir("grunt") {
        let copy = linked_copy(&dir, "grunt", &mut copies);
        let out = runner_listing(&copy, "grunt", &["--help", "--no-color"]);
        let theirs = grunt_tasks(&String::from_utf8_lossy(&out.stdout));
        assert!(
            !theirs.is_empty(),
            "{}: {}",
            dir.display(),
            String::from_utf8_lossy(&out.stdout)
        );
        // grunt lists the tasks the file registers; a plugin's tasks only once the plugin is
        // installed, and a multi-task's targets never (`concat:dist` is agg's own row).
        let json = Test::at(&dir).list_here_json(&["--runner", "grunt"]);
        let ours: BTreeMap<String, Option<String>> = rows(&json)
            .filter(|t| t["dir"] == "." && t.get("plugin").is_none())
            .filter_map(|t| {
                let name = t["source_name"].as_str()?;
                (!name.contains(':')).then(|| {
                    (
                        name.to_owned(),
                        t["description"].as_str().map(str::to_owned),
                    )
                })
            })
            .collect();
        let names: BTreeSet<&String> = ours.keys().collect();
        assert_eq!(names, theirs.keys().collect(), "{}", dir.display());
        for (name, description) in &ours {
            // grunt says "Custom task." of a task without a description; agg says nothing.
            let expected = description.as_deref().unwrap_or("Custom task.");
            assert_eq!(theirs[name], expected, "{name} in {}", dir.display());
        }
        compared += 1;
    }
    assert!(compared >= 2, "{compared}");
}

/// A project whose `node_modules` links the installed gulp and grunt.
fn project(files: &[(&str, &str)], binary: &str) -> Test {
    let test = files
        .iter()
        .fold(Test::new(), |t, (path, text)| t.write(path, *text));
    std::os::unix::fs::symlink(modules_of(binary), test.root().join("node_modules"))
        .expect("link node_modules");
    test
}

#[test]
fn gulp_tasks_run_with_their_flags_and_exit_codes() {
    require!("gulp");
    let test = project(
        &[(
            "gulpfile.js",
            "const { series } = require('gulp');\n\
             function hello(cb) { console.log('hello ' + JSON.stringify(process.argv.slice(3))); cb(); }\n\
             hello.flags = { '--loud': 'Shout' };\n\
             function fail(cb) { cb(new Error('boom')); }\n\
             exports.hello = hello;\n\
             exports.both = series(hello, fail);\n",
        )],
        "gulp",
    );
    let json = Test::at(test.root()).list_json();
    assert_eq!(
        task(&json, "hello")["command"],
        "node_modules/.bin/gulp hello"
    );
    assert_eq!(task(&json, "both")["deps"], serde_json::json!(["hello"]));
    let out = Test::at(test.root())
        .args(["run", "hello", "--", "--loud"])
        .run()
        .success();
    assert!(out.stdout.contains(r#"hello ["--loud"]"#), "{}", out.stdout);
    let out = Test::at(test.root()).args(["run", "both"]).run().code(1);
    assert!(
        out.stdout.contains("hello") && out.stderr.contains("boom") || out.stdout.contains("boom")
    );
}

#[test]
fn grunt_tasks_and_targets_run() {
    require!("grunt");
    let test = project(
        &[
            (
                "Gruntfile.js",
                "module.exports = function (grunt) {\n\
                   grunt.initConfig({ stamp: { release: { v: 1 }, nightly: { v: 2 } } });\n\
                   grunt.registerMultiTask('stamp', 'Stamp it.', function () { grunt.log.writeln('stamp ' + this.target); });\n\
                   grunt.registerTask('hello', 'Say hello.', function () { grunt.log.writeln('hello there'); });\n\
                   grunt.registerTask('fail', function () { grunt.fail.warn('broken'); });\n\
                   grunt.registerTask('default', ['hello', 'stamp:release']);\n\
                 };\n",
            ),
            ("package.json", r#"{"name": "g", "version": "1.0.0"}"#),
        ],
        "grunt",
    );
    let json = Test::at(test.root()).list_json();
    assert_eq!(
        task(&json, "stamp:nightly")["command"],
        "node_modules/.bin/grunt stamp:nightly"
    );
    let out = Test::at(test.root())
        .args(["run", "stamp:nightly"])
        .run()
        .success();
    assert!(out.stdout.contains("stamp nightly"), "{}", out.stdout);
    let out = Test::at(test.root())
        .args(["run", "default"])
        .run()
        .success();
    assert!(
        out.stdout.contains("hello there") && out.stdout.contains("stamp release"),
        "{}",
        out.stdout
    );
    let out = Test::at(test.root()).args(["run", "fail"]).run().fails();
    assert!(out.stdout.contains("broken"), "{}", out.stdout);
}
