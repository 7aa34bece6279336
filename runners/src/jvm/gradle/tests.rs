//! The Gradle adapter over whole builds: settings, root and subproject scripts together.

use crate::files::MemFiles;
use crate::testing::{messages, names, parse_with, task};
use indoc::indoc;

const SETTINGS: &str = r#"rootProject.name = "shop"
include("core", "app")
include(":libs:util")
project(":libs:util").projectDir = file("util")
"#;

const ROOT: &str = r#"plugins {
    base
    id("org.jetbrains.kotlin.jvm") version "2.0.0" apply false
}

subprojects {
    apply(plugin = "java")
    tasks.register("lines") {
        description = "Count the lines of code"
    }
}

tasks.register<Exec>("release") {
    description = "Tag and publish"
    group = "publishing"
    dependsOn(":app:installDist")
}
"#;

const APP: &str = r#"plugins {
    application
}

tasks.named<JavaExec>("run") {
    description = "Run the shop locally"
}
"#;

fn shop() -> MemFiles {
    MemFiles::new()
        .with("settings.gradle.kts", SETTINGS)
        .with("build.gradle.kts", ROOT)
        .with("app/build.gradle.kts", APP)
        .with(
            "core/build.gradle",
            "task generate(description: 'Generate the sources')\n",
        )
        .with("util/build.gradle.kts", "")
        .with("buildSrc/build.gradle.kts", "plugins { `kotlin-dsl` }\n")
}

#[test]
fn a_build_lists_each_projects_tasks_from_the_root() {
    let parsed = parse_with(super::parse, &shop(), "settings.gradle.kts");
    assert!(parsed.diagnostics.is_empty(), "{:?}", messages(&parsed));
    let all = names(&parsed);
    for expected in [
        "clean",
        "build",
        "release",
        ":core:compileJava",
        ":core:lines",
        ":core:generate",
        ":app:run",
        ":app:distZip",
        ":libs:util:test",
        ":libs:lines",
    ] {
        assert!(all.contains(&expected), "{expected} missing from {all:?}");
    }
    assert!(
        !all.contains(&"compileJava"),
        "the root applies no java: {all:?}"
    );
    assert!(!all.contains(&"compileKotlin"), "apply false: {all:?}");
    let release = task(&parsed, "release");
    assert_eq!(release.argv, ["gradle", "release"]);
    assert_eq!(release.file_path, "build.gradle.kts");
    assert_eq!(release.line, Some(13));
    assert_eq!(release.group.as_deref(), Some("publishing"));
    assert_eq!(release.deps, [":app:installDist"]);
    let run = task(&parsed, ":app:run");
    assert_eq!(run.argv, ["gradle", ":app:run"]);
    assert_eq!(run.dir, ".");
    assert_eq!(run.file_path, "app/build.gradle.kts");
    assert_eq!(run.description.as_deref(), Some("Run the shop locally"));
    let lines = task(&parsed, ":core:lines");
    assert_eq!(lines.file_path, "build.gradle.kts");
    assert_eq!(
        lines.description.as_deref(),
        Some("Count the lines of code")
    );
    assert_eq!(
        task(&parsed, ":core:generate").description.as_deref(),
        Some("Generate the sources")
    );
    assert_eq!(
        task(&parsed, ":libs:util:test").file_path,
        "build.gradle.kts"
    );
    assert_eq!(
        parsed.consumed,
        [
            "build.gradle.kts",
            "core/build.gradle",
            "app/build.gradle.kts",
            "util/build.gradle.kts",
            "buildSrc/build.gradle.kts"
        ]
    );
}

#[test]
fn a_build_script_without_settings_is_a_one_project_build() {
    let files = MemFiles::new().with(
        "tool/build.gradle",
        indoc! {"
            apply plugin: 'java'

            task hello {
                description 'Say hello'
            }
        "},
    );
    let parsed = parse_with(super::parse, &files, "tool/build.gradle");
    let hello = task(&parsed, "hello");
    assert_eq!(hello.dir, "tool");
    assert_eq!(hello.argv, ["gradle", "hello"]);
    assert_eq!(hello.description.as_deref(), Some("Say hello"));
    assert_eq!(task(&parsed, "test").line, Some(1));
    assert!(parsed.consumed.is_empty());
}

#[test]
fn the_groovy_files_win_over_kotlin_ones() {
    assert_eq!(super::candidate("a/settings.gradle"), Some(0));
    assert_eq!(super::candidate("settings.gradle.kts"), Some(1));
    assert_eq!(super::candidate("build.gradle"), Some(2));
    assert_eq!(super::candidate("build.gradle.kts"), Some(3));
    assert_eq!(super::candidate("gradle.properties"), None);
    let files = MemFiles::new()
        .with("settings.gradle", "")
        .with("build.gradle", "task groovy\n")
        .with("build.gradle.kts", "tasks.register(\"kotlin\")\n");
    let parsed = parse_with(super::parse, &files, "settings.gradle");
    assert_eq!(names(&parsed), ["groovy"]);
}

#[test]
fn definite_errors_are_reported_and_the_rest_listed() {
    let files = MemFiles::new()
        .with("settings.gradle", "include 'a'\ninclude '../../out'\n")
        .with(
            "build.gradle",
            indoc! {"
                task one
                task one
                task two {
            "},
        )
        .with("a/build.gradle", "task three\n}\n");
    let parsed = parse_with(super::parse, &files, "settings.gradle");
    assert_eq!(names(&parsed), ["one", "two", ":a:three"]);
    assert_eq!(
        messages(&parsed),
        [
            (
                "settings.gradle",
                Some(2),
                "`:../../out` is not a project path: Gradle separates them with `:`, and names have no `/`"
            ),
            ("build.gradle", Some(3), "this `{` is never closed"),
            ("a/build.gradle", Some(2), "this `}` closes nothing"),
            (
                "build.gradle",
                Some(2),
                "task `one` is already declared on line 1; Gradle refuses a second task of one name"
            ),
        ]
    );
}

#[test]
fn scripts_inside_a_projects_sources_are_not_builds() {
    let files = MemFiles::new()
        .with("build.gradle", "")
        .with("src/test/resources/sample/build.gradle", "task x\n");
    let parsed = parse_with(
        super::parse,
        &files,
        "src/test/resources/sample/build.gradle",
    );
    assert!(parsed.tasks.is_empty() && parsed.diagnostics.is_empty());
}

#[test]
fn convention_plugins_of_build_src_and_included_builds_bring_their_tasks() {
    let files = MemFiles::new()
        .with(
            "settings.gradle.kts",
            "pluginManagement { includeBuild(\"build-logic\") }\ninclude(\"core\", \"cli\")\n",
        )
        .with(
            "core/build.gradle.kts",
            indoc! {"
                plugins {
                    id(\"shop.java-conventions\")
                }
            "},
        )
        .with(
            "cli/build.gradle",
            indoc! {"
                plugins {
                    id 'shop.app-conventions'
                }
            "},
        )
        .with(
            "buildSrc/src/main/kotlin/shop.java-conventions.gradle.kts",
            indoc! {"
                plugins {
                    `java-library`
                    checkstyle
                }

                tasks.register(\"lines\") {
                    description = \"Count the lines\"
                }
                tasks.named(\"test\") { description = \"Tests, the shop's way\" }
            "},
        )
        .with(
            "build-logic/src/main/groovy/shop.app-conventions.gradle",
            indoc! {"
                plugins {
                    id 'shop.java-conventions'
                    id 'application'
                }
            "},
        );
    let parsed = parse_with(super::parse, &files, "settings.gradle.kts");
    assert!(parsed.diagnostics.is_empty(), "{:?}", messages(&parsed));
    let lines = task(&parsed, ":core:lines");
    assert_eq!(
        lines.file_path,
        "buildSrc/src/main/kotlin/shop.java-conventions.gradle.kts"
    );
    assert_eq!(lines.line, Some(6));
    let test = task(&parsed, ":core:test");
    assert_eq!(test.description.as_deref(), Some("Tests, the shop's way"));
    assert_eq!(task(&parsed, ":core:checkstyleMain").line, Some(3));
    let all = names(&parsed);
    for expected in [":cli:run", ":cli:lines", ":cli:jar", ":core:jar"] {
        assert!(all.contains(&expected), "{expected} missing from {all:?}");
    }
    assert!(!all.contains(&":core:run"), "{all:?}");
}

#[test]
fn a_name_declared_twice_in_exclusive_branches_is_no_error() {
    let files = MemFiles::new().with(
        "build.gradle.kts",
        indoc! {"
            if (android) {
                val sourcesJar by tasks.registering(Jar::class)
            } else {
                val sourcesJar by tasks.registering(Jar::class)
            }
        "},
    );
    let parsed = parse_with(super::parse, &files, "build.gradle.kts");
    assert_eq!(names(&parsed), ["sourcesJar"]);
    assert!(parsed.diagnostics.is_empty(), "{:?}", messages(&parsed));
}

#[test]
fn plugin_rows_disabled_tasks_and_names_built_at_run_time_are_told_apart() {
    let files = MemFiles::new()
        .with("settings.gradle", "include 'lib'\n")
        .with(
            "build.gradle",
            indoc! {"
                plugins { id 'java' }
                tasks.register('docs') { enabled = false }
                javadoc { enabled = true }
                tasks.jar.enabled = false
                test.enabled = true
                tasks.getByName('javadoc').enabled = false
                tasks.named('processResources').get().enabled = false
                tasks.register('check') { description = 'All checks' }
                for (v in [11, 17]) {
                  tasks.register(\"testJdk$v\") { dependsOn 'test' }
                }
                task \"bench${it}\"
            "},
        )
        .with(
            "lib/build.gradle.kts",
            indoc! {"
                plugins { `java-library` }
                val name = \"gen\"
                tasks.register(name)
                tasks.named(\"compileJava\") { isEnabled = false }
            "},
        );
    let parsed = parse_with(super::parse, &files, "settings.gradle");
    assert_eq!(
        messages(&parsed),
        vec![
            (
                "build.gradle",
                Some(10),
                "a task named at run time (\"testJdk$v\"): agg reads the script without running it and lists no task for it"
            ),
            (
                "build.gradle",
                Some(12),
                "a task named at run time (\"bench${…}\"): agg reads the script without running it and lists no task for it"
            ),
            (
                "lib/build.gradle.kts",
                Some(3),
                "a task named at run time (name): agg reads the script without running it and lists no task for it"
            ),
        ]
    );
    let compile = task(&parsed, "compileJava");
    assert_eq!(compile.plugin.as_deref(), Some("java"));
    assert!(!compile.disabled);
    assert_eq!(task(&parsed, "docs").plugin, None);
    assert!(task(&parsed, "docs").disabled);
    assert!(task(&parsed, "javadoc").disabled);
    assert!(task(&parsed, "processResources").disabled);
    assert!(task(&parsed, "jar").disabled);
    assert!(!task(&parsed, "test").disabled);
    // A script's own declaration of a plugin's task name makes it the script's.
    assert_eq!(task(&parsed, "check").plugin, None);
    assert_eq!(task(&parsed, "clean").plugin.as_deref(), Some("java"));
    let lib_compile = task(&parsed, ":lib:compileJava");
    assert!(lib_compile.disabled);
    assert_eq!(lib_compile.plugin.as_deref(), Some("java-library"));
}

#[test]
fn an_android_module_gets_its_core_tasks_per_declared_build_type() {
    let files = MemFiles::new()
        .with("settings.gradle.kts", "include(\":app\", \":core\")\n")
        .with(
            "app/build.gradle.kts",
            indoc! {"
                plugins {
                  alias(libs.plugins.android.application)
                }
                android {
                  buildTypes {
                    getByName(\"release\") { isMinifyEnabled = true }
                    create(\"staging\") { initWith(getByName(\"debug\")) }
                  }
                }
            "},
        )
        .with(
            "core/build.gradle",
            "plugins { id 'com.android.library' }\nandroid { buildTypes { benchmark { } } }\n",
        );
    let parsed = parse_with(super::parse, &files, "settings.gradle.kts");
    assert_eq!(messages(&parsed), vec![]);
    let all = names(&parsed);
    for name in [
        ":app:assembleDebug",
        ":app:assembleStaging",
        ":app:installRelease",
        ":app:testStagingUnitTest",
        ":app:lint",
        ":core:assembleBenchmark",
        ":core:lintBenchmark",
    ] {
        assert!(all.contains(&name), "{name} in {all:?}");
    }
    assert!(!all.contains(&":core:installDebug"), "{all:?}");
    assert!(!all.contains(&":app:android"), "{all:?}");
    let install = task(&parsed, ":app:installStaging");
    assert_eq!(install.plugin.as_deref(), Some("com.android.application"));
    assert_eq!(install.argv, ["gradle", ":app:installStaging"]);
    assert_eq!(install.line, Some(2));
}
