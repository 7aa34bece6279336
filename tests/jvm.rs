//! Maven and Gradle for real. Neither may download anything here, so each project is one
//! that runs offline: a `pom`-packaging Maven project whose `validate` phase needs no plugin
//! (the arguments come back through `-Dx=y` properties interpolated into the project's
//! name, which Maven prints), and a Gradle build whose task prints its `-P` properties as
//! JSON. The wrappers (`./mvnw`, `./gradlew`) are checked with stand-in scripts that print
//! their arguments, against a `PATH` that holds neither runner.

use std::path::Path;

use serde_json::json;

use crate::common::mcp::Mcp;
use crate::run::{TRICKY, argv_json};
use crate::test::{Test, task};

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
fn maven_args(repo: &Path) -> Vec<String> {
    let mut args = vec![
        "-B".to_owned(),
        format!("-Dmaven.repo.local={}", repo.display()),
    ];
    args.extend(
        TRICKY
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
    assert_eq!(task(&json, "validate")["command"], "mvn validate");
    assert_eq!(task(&json, "validate")["runner_available"], true);
    assert_eq!(task(&json, "profile:greet")["command"], "mvn -P greet");

    let out = Test::at(test.root())
        .args(["run", "validate", "--"])
        .args(maven_args(repo.path()))
        .run()
        .success();
    let mut expected: Vec<String> = TRICKY.iter().map(|s| (*s).to_owned()).collect();
    expected.push("none".to_owned());
    assert_eq!(echoed(&out.stdout), expected, "{}", out.stderr);

    // A profile takes the phases as arguments.
    let out = Test::at(test.root())
        .args(["run", "profile:greet", "--", "validate"])
        .args(maven_args(repo.path()))
        .run()
        .success();
    assert_eq!(
        echoed(&out.stdout).last().map(String::as_str),
        Some("from-profile"),
        "{}",
        out.stdout
    );

    // Maven's own failure is the task's.
    let out = Test::at(test.root())
        .args(["run", "validate", "--", "-B", "no-such-phase"])
        .args([format!("-Dmaven.repo.local={}", repo.path().display())])
        .run();
    assert_eq!(out.code, Some(1), "{}", out.stdout);
}

#[tokio::test]
async fn maven_runs_through_mcp_with_its_arguments() {
    require!("mvn");
    let repo = tempfile::tempdir().expect("tmp");
    let dir = crate::common::repo(&[("pom.xml", POM)]);
    let mcp = Mcp::start(dir, true).await;
    // Arguments the runner or a shell could read need the person's approval; this one covers them.
    mcp.agg_allow(&["--dir", ".", "--any-args"]);
    let result = mcp
        .ok(
            "task_start",
            json!({
                "unique_name": "validate",
                "args": maven_args(repo.path()),
                "wait_ms": 120_000,
                "output": "full"
            }),
        )
        .await;
    assert_eq!(result["exit_code"], 0, "{result}");
    let text = result["output"]["text"].as_str().unwrap_or_default();
    assert_eq!(&echoed(text)[..TRICKY.len()], TRICKY, "{result}");
    mcp.client.cancel().await.expect("close");
}

/// Makes `path` under `root` an executable that prints its arguments as JSON.
fn stand_in(test: Test, path: &str) -> Test {
    let test = test.write(
        path,
        "#!/bin/sh\nexec /usr/bin/python3 -c 'import json, sys; print(json.dumps(sys.argv[1:]))' \"$@\"\n",
    );
    let file = test.root().join(path);
    let mut perms = std::fs::metadata(&file).expect("stand-in").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&file, perms).expect("chmod");
    test
}

/// Checks that without its wrapper the runner is missing (`PATH` holds neither runner), and
/// that with it the wrapper is what the table shows and what runs.
fn check_wrapper(files: &[(&str, &str)], wrapper: &str, task_name: &str, command: &str) {
    let empty = tempfile::tempdir().expect("tmp");
    let path = empty.path().to_string_lossy().into_owned();
    let test = files
        .iter()
        .fold(Test::new(), |t, (p, text)| t.write(p, text));
    let json = Test::at(test.root()).env("PATH", &path).list_json();
    assert_eq!(task(&json, task_name)["runner_available"], false, "{json}");
    let test = stand_in(test, wrapper);
    let json = Test::at(test.root()).env("PATH", &path).list_json();
    assert_eq!(task(&json, task_name)["runner_available"], true, "{json}");
    assert_eq!(task(&json, task_name)["command"], command, "{json}");
    let out = Test::at(test.root())
        .env("PATH", &path)
        .args(["run", task_name, "--"])
        .args(TRICKY)
        .run()
        .success();
    let mut expected = command
        .split(' ')
        .skip(1)
        .map(str::to_owned)
        .collect::<Vec<_>>();
    expected.extend(TRICKY.iter().map(|s| (*s).to_owned()));
    assert_eq!(argv_json(&out.stdout), expected, "{}", out.stderr);
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
            ("app/build.gradle.kts", "plugins {\n    java\n}\n"),
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

fn gradle_build() -> Test {
    Test::new()
        .write("settings.gradle", "rootProject.name = 'probe'\ninclude 'app'\n")
        .write("build.gradle", BUILD_GRADLE)
        .write(
            "app/build.gradle",
            "apply plugin: 'application'\nmainClassName = 'Main'\n\ntask hello {\n    doLast { println 'hello from app' }\n}\n",
        )
        .write("gradle.properties", "org.gradle.daemon=false\n")
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
    let home = tempfile::tempdir().expect("tmp");
    let test = gradle_build();
    let json = Test::at(test.root()).list_json();
    assert_eq!(task(&json, "printArgs")["command"], "gradle printArgs");
    assert_eq!(task(&json, ":app:hello")["command"], "gradle :app:hello");
    let out = Test::at(test.root())
        .env("GRADLE_USER_HOME", home.path())
        .args(["run", "printArgs", "--"])
        .args(gradle_args())
        .run()
        .success();
    assert_eq!(argv_json(&out.stdout), TRICKY, "{}", out.stderr);
    let out = Test::at(test.root())
        .env("GRADLE_USER_HOME", home.path())
        .args(["run", ":app:hello", "--", "--offline", "-q"])
        .run()
        .success();
    assert!(out.stdout.contains("hello from app"), "{}", out.stdout);
    let out = Test::at(test.root())
        .env("GRADLE_USER_HOME", home.path())
        .args(["run", "fail", "--", "--offline", "-q"])
        .run();
    assert_eq!(out.code, Some(1), "{}", out.stderr);
}

#[test]
fn gradle_itself_knows_every_task_agg_lists() {
    require!("gradle");
    let home = tempfile::tempdir().expect("tmp");
    let test = gradle_build();
    let json = Test::at(test.root()).list_json();
    let out = std::process::Command::new("gradle")
        .args(["--offline", "-q", "tasks", "--all"])
        .current_dir(test.root())
        .env("GRADLE_USER_HOME", home.path())
        .output()
        .expect("gradle tasks");
    let report = String::from_utf8_lossy(&out.stdout);
    // `gradle tasks --all` names a subproject's tasks `app:name`.
    let known: Vec<String> = report
        .lines()
        .filter_map(|l| l.split(" - ").next())
        .map(|name| format!(":{}", name.trim()))
        .collect();
    let listed: Vec<&str> = json["tasks"]
        .as_array()
        .map(|tasks| {
            tasks
                .iter()
                .filter_map(|t| t["source_name"].as_str())
                .collect()
        })
        .unwrap_or_default();
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
    let home = tempfile::tempdir().expect("tmp");
    let test = Test::new()
        .write("settings.gradle", "rootProject.name = 'probe'\n")
        .write(
            "build.gradle",
            "apply plugin: 'base'\n\
             task docs {\n    enabled = false\n    doLast { println 'docs ran' }\n}\n\
             ['Alpha', 'Beta'].each { n ->\n    task \"gen${n}\" {\n        doLast { println \"gen ran\" }\n    }\n}\n",
        )
        .write("gradle.properties", "org.gradle.daemon=false\n");
    let json = Test::at(test.root()).list_json();
    assert_eq!(task(&json, "docs")["disabled"], true);
    assert!(task(&json, "docs").get("plugin").is_none());
    assert_eq!(task(&json, "clean")["plugin"], "base");
    let diagnostics = json["diagnostics"].to_string();
    assert!(
        diagnostics.contains("a task named at run time") && diagnostics.contains("\"line\":7"),
        "{diagnostics}"
    );
    let gradle = |args: &[&str]| {
        std::process::Command::new("gradle")
            .args(["--offline", "-q"])
            .args(args)
            .current_dir(test.root())
            .env("GRADLE_USER_HOME", home.path())
            .output()
            .expect("gradle")
    };
    let report = String::from_utf8_lossy(&gradle(&["tasks", "--all"]).stdout).into_owned();
    // Gradle lists the disabled task and the two it names while running the script.
    for name in ["docs", "genAlpha", "genBeta", "clean"] {
        assert!(
            report.lines().any(|l| l.split(" - ").next() == Some(name)),
            "{name}:\n{report}"
        );
    }
    // … and skips the disabled one when it runs.
    let out = Test::at(test.root())
        .env("GRADLE_USER_HOME", home.path())
        .args(["run", "docs", "--", "--offline", "-q"])
        .run()
        .success();
    assert!(!out.stdout.contains("docs ran"), "{}", out.stdout);
    let described = Test::at(test.root())
        .args(["describe", "docs"])
        .run()
        .success();
    assert!(
        described.stdout.contains("disabled"),
        "{}",
        described.stdout
    );
    let described = Test::at(test.root())
        .args(["describe", "clean"])
        .run()
        .success();
    assert!(
        described.stdout.contains("from plugin"),
        "{}",
        described.stdout
    );
}
