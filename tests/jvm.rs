//! Maven and Gradle for real. Neither may download anything here, so each project is one
//! that runs offline: a `pom`-packaging Maven project whose `validate` phase needs no plugin
//! (the arguments come back through `-Dx=y` properties interpolated into the project's
//! name, which Maven prints), and a Gradle build whose task prints its `-P` properties as
//! JSON. The wrappers (`./mvnw`, `./gradlew`) are checked with stand-in scripts that print
//! their arguments, against a `PATH` that holds neither runner.

use std::path::Path;

use crate::common::verbatim::{
    assert_tricky_args_arrive, mcp_allowing_any_args, passes_through_mcp,
};
use crate::run::{TRICKY, TRICKY_FOR_AGENTS, argv_json};
use crate::test::{Test, assert_runs_as, rows, task};
use indoc::indoc;

/// A POM whose name shows the properties `p0`…`p5` and `greeting` (set by profile `greet`).
const POM: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.example</groupId>
  <artifactId>probe</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <name>BEGIN ${p0}@@${p1}@@${p2}@@${p3}@@${p4}@@${p5}@@${greeting} END</name>
  <properties>
    <greeting>none</greeting>
  </properties>
  <profiles>
    <profile>
      <id>greet</id>
      <properties>
        <greeting>from-profile</greeting>
      </properties>
    </profile>
  </profiles>
</project>
"#;

/// The values between `BEGIN ` and ` END` in Maven's output, split at `@@`.
fn echoed(stdout: &str) -> Vec<String> {
    let start = stdout
        .find("BEGIN ")
        .unwrap_or_else(|| panic!("no project name in {stdout}"));
    let rest = &stdout[start + "BEGIN ".len()..];
    let end = rest.find(" END").unwrap_or(rest.len());
    rest[..end].split("@@").map(str::to_owned).collect()
}

/// `-Dp0=…`…`-Dp5=…` for the tricky values, after Maven's own options.
fn maven_args(repo: &Path, values: &[&str]) -> Vec<String> {
    let mut args = vec![
        "-B".to_owned(),
        format!("-Dmaven.repo.local={}", repo.display()),
    ];
    args.extend(
        values
            .iter()
            .enumerate()
            .map(|(i, v)| format!("-Dp{i}={v}")),
    );
    args
}

#[test]
fn maven_phases_and_profiles_run_with_their_arguments_verbatim() {
    require!("mvn");
    let repo = tempfile::tempdir().expect("tmp");
    let test = Test::new().write("pom.xml", POM);
    let json = Test::at(test.root()).list_json();
    assert_runs_as(&json, "validate", "mvn validate");
    assert_eq!(task(&json, "profile:greet")["command"], "mvn -P greet");

    let out = Test::at(test.root())
        .args(["run", "validate", "--"])
        .args(maven_args(repo.path(), &TRICKY))
        .run()
        .success();
    let mut expected: Vec<String> = TRICKY.iter().map(|s| (*s).to_owned()).collect();
    expected.push("none".to_owned());
    assert_eq!(echoed(&out.stdout), expected, "{}", out.stderr);

    // A profile takes the phases as arguments.
    let out = Test::at(test.root())
        .args(["run", "profile:greet", "--", "validate"])
        .args(maven_args(repo.path(), &TRICKY))
        .run()
        .success();
    assert_eq!(
        echoed(&out.stdout).last().map(String::as_str),
        Some("from-profile"),
        "{}",
        out.stdout
    );

    // Maven's own failure is the task's.
    Test::at(test.root())
        .args(["run", "validate", "--", "-B", "no-such-phase"])
        .args([format!("-Dmaven.repo.local={}", repo.path().display())])
        .run()
        .code(1);
}

#[tokio::test]
async fn maven_runs_through_mcp_with_its_arguments() {
    require!("mvn");
    let repo = tempfile::tempdir().expect("tmp");
    let dir = crate::common::repo(&[("pom.xml", POM)]);
    let mcp = mcp_allowing_any_args(dir, &[]).await;
    let args = maven_args(repo.path(), &TRICKY_FOR_AGENTS);
    let text = passes_through_mcp(&mcp, "validate", &args).await;
    assert_eq!(
        &echoed(&text)[..TRICKY_FOR_AGENTS.len()],
        TRICKY_FOR_AGENTS,
        "{text}"
    );
    mcp.client.cancel().await.expect("close");
}

/// A wrapper's stand-in: it prints its arguments as JSON.
const STAND_IN: &str = "#!/bin/sh\nexec /usr/bin/python3 -c 'import json, sys; print(json.dumps(sys.argv[1:]))' \"$@\"\n";

/// Checks that without its wrapper the runner is missing (`PATH` holds neither runner), and
/// that with it the wrapper is what the table shows and what runs.
fn check_wrapper(files: &[(&str, &str)], wrapper: &str, task_name: &str, command: &str) {
    let empty = tempfile::tempdir().expect("tmp");
    let test = files
        .iter()
        .fold(Test::new(), |t, (p, text)| t.write(p, text));
    let agg = || Test::at(test.root()).env("PATH", empty.path());
    let json = agg().list_json();
    assert_eq!(task(&json, task_name)["runner_available"], false, "{json}");
    let test = test.executable(wrapper, STAND_IN);
    let agg = || Test::at(test.root()).env("PATH", empty.path());
    let json = agg().list_json();
    assert_runs_as(&json, task_name, command);
    // The wrapper gets the task's own words, then the caller's.
    let words: Vec<&str> = command.split(' ').skip(1).collect();
    assert_tricky_args_arrive(agg(), task_name, &words);
}

#[test]
fn the_maven_wrapper_counts_as_installed_and_runs() {
    check_wrapper(&[("pom.xml", POM)], "mvnw", "verify", "./mvnw verify");
}

#[test]
fn the_gradle_wrapper_counts_as_installed_and_runs() {
    check_wrapper(
        &[
            ("settings.gradle.kts", "include(\"app\")\n"),
            (
                "app/build.gradle.kts",
                indoc! {"
                plugins {
                    java
                }
            "},
            ),
        ],
        "gradlew",
        ":app:test",
        "./gradlew :app:test",
    );
}

/// A build Debian's Gradle runs offline: a root task that prints its `-P` properties and
/// a subproject with the `application` plugin.
const BUILD_GRADLE: &str = r#"task printArgs {
    description = 'Print the p0…p5 properties as JSON'
    doLast {
        def values = (0..5).collect { project.findProperty("p$it") }
        println groovy.json.JsonOutput.toJson(values)
    }
}

task fail {
    doLast { throw new GradleException('failing on purpose') }
}
"#;

/// A Gradle build, and a Gradle home of its own.
struct GradleBuild {
    test: Test,
    home: tempfile::TempDir,
}

impl GradleBuild {
    /// The build [`BUILD_GRADLE`] and its `app` subproject.
    fn probe() -> GradleBuild {
        GradleBuild::of(
            Test::new()
                .write(
                    "settings.gradle",
                    "rootProject.name = 'probe'\ninclude 'app'\n",
                )
                .write("build.gradle", BUILD_GRADLE)
                .write(
                    "app/build.gradle",
                    indoc! {"
                        apply plugin: 'application'
                        mainClassName = 'Main'

                        task hello {
                            doLast { println 'hello from app' }
                        }
                    "},
                ),
        )
    }

    /// The build of `test`'s files, without the Gradle daemon.
    fn of(test: Test) -> GradleBuild {
        let test = test.write("gradle.properties", "org.gradle.daemon=false\n");
        let home = tempfile::tempdir().expect("tmp");
        GradleBuild { test, home }
    }

    /// agg on the build, Gradle using the build's own home.
    fn agg(&self) -> Test {
        Test::at(self.test.root()).env("GRADLE_USER_HOME", self.home.path())
    }

    /// What `gradle --offline -q ARGS` prints in the build.
    fn gradle(&self, args: &[&str]) -> String {
        let out = std::process::Command::new("gradle")
            .args(["--offline", "-q"])
            .args(args)
            .current_dir(self.test.root())
            .env("GRADLE_USER_HOME", self.home.path())
            .output()
            .expect("gradle");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

fn gradle_args() -> Vec<String> {
    let mut args = vec!["--offline".to_owned(), "-q".to_owned()];
    args.extend(
        TRICKY
            .iter()
            .enumerate()
            .map(|(i, v)| format!("-Pp{i}={v}")),
    );
    args
}

#[test]
fn gradle_tasks_run_with_their_arguments_verbatim() {
    require!("gradle");
    let build = GradleBuild::probe();
    let json = Test::at(build.test.root()).list_json();
    assert_eq!(task(&json, "printArgs")["command"], "gradle printArgs");
    assert_eq!(task(&json, ":app:hello")["command"], "gradle :app:hello");
    let out = build
        .agg()
        .args(["run", "printArgs", "--"])
        .args(gradle_args())
        .run()
        .success();
    assert_eq!(argv_json(&out.stdout), TRICKY, "{}", out.stderr);
    build
        .agg()
        .args(["run", ":app:hello", "--", "--offline", "-q"])
        .run()
        .success()
        .stdout_has("hello from app");
    build
        .agg()
        .args(["run", "fail", "--", "--offline", "-q"])
        .run()
        .code(1);
}

#[test]
fn gradle_itself_knows_every_task_agg_lists() {
    require!("gradle");
    let build = GradleBuild::probe();
    let json = Test::at(build.test.root()).list_json();
    let report = build.gradle(&["tasks", "--all"]);
    // `gradle tasks --all` names a subproject's tasks `app:name`.
    let known: Vec<String> = report
        .lines()
        .filter_map(|l| l.split(" - ").next())
        .map(|name| format!(":{}", name.trim()))
        .collect();
    let listed: Vec<&str> = rows(&json)
        .filter_map(|t| t["source_name"].as_str())
        .collect();
    assert!(listed.len() > 20, "{listed:?}");
    for name in listed {
        let qualified = if name.starts_with(':') {
            name.to_owned()
        } else {
            format!(":{name}")
        };
        assert!(
            known.contains(&qualified),
            "gradle does not know {name}:\n{report}"
        );
    }
}

#[test]
fn gradle_lists_and_skips_a_disabled_task_and_knows_names_agg_reports_as_built_at_run_time() {
    require!("gradle");
    let build = GradleBuild::of(
        Test::new()
            .write("settings.gradle", "rootProject.name = 'probe'\n")
            .write(
                "build.gradle",
                "apply plugin: 'base'\n\
                 task docs {\n    enabled = false\n    doLast { println 'docs ran' }\n}\n\
                 ['Alpha', 'Beta'].each { n ->\n    task \"gen${n}\" {\n        doLast { println \"gen ran\" }\n    }\n}\n",
            ),
    );
    let json = Test::at(build.test.root()).list_json();
    assert_eq!(task(&json, "docs")["disabled"], true);
    assert!(task(&json, "docs").get("plugin").is_none());
    assert_eq!(task(&json, "clean")["plugin"], "base");
    let diagnostics = json["diagnostics"].to_string();
    assert!(
        diagnostics.contains("a task named at run time") && diagnostics.contains("\"line\":7"),
        "{diagnostics}"
    );
    let report = build.gradle(&["tasks", "--all"]);
    // Gradle lists the disabled task and the two it names while running the script.
    for name in ["docs", "genAlpha", "genBeta", "clean"] {
        assert!(
            report.lines().any(|l| l.split(" - ").next() == Some(name)),
            "{name}:\n{report}"
        );
    }
    // … and skips the disabled one when it runs.
    build
        .agg()
        .args(["run", "docs", "--", "--offline", "-q"])
        .run()
        .success()
        .stdout_lacks("docs ran");
    let describe = |name: &str| {
        Test::at(build.test.root())
            .args(["describe", name])
            .run()
            .success()
    };
    describe("docs").stdout_has("disabled");
    describe("clean").stdout_has("from plugin");
}
