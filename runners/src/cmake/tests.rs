//! Unit tests of the CMake adapter: presets, their inheritance and conditions, and the
//! `CMakeLists.txt` targets and tests they expose.

use super::*;
use crate::files::MemFiles;
use crate::files::relative;
use crate::testing::{messages, name_list, names, parse_with, task};
use indoc::{formatdoc, indoc};

const LISTS: &str = "cmake_minimum_required(VERSION 3.20)\nproject(demo NONE)\n";

fn parse_at(files: &MemFiles, path: &str) -> Parsed {
    parse_with(parse, files, path)
}

#[test]
fn candidates_are_the_presets_files_then_the_lists_file() {
    assert_eq!(candidate("CMakePresets.json"), Some(0));
    assert_eq!(candidate("a/CMakeUserPresets.json"), Some(1));
    assert_eq!(candidate("a/b/CMakeLists.txt"), Some(2));
    for path in [
        "cmakelists.txt",
        "CMakeLists.txt.in",
        "a/CMakeCache.txt",
        "x.cmake",
        "Makefile",
    ] {
        assert_eq!(candidate(path), None, "{path}");
    }
}

#[test]
fn presets_of_every_kind_with_their_commands() {
    let json = r#"{
  "version": 6,
  "configurePresets": [
    {"name": "base", "hidden": true, "generator": "Ninja", "binaryDir": "${sourceDir}/out/${presetName}",
     "cacheVariables": {"CMAKE_EXPORT_COMPILE_COMMANDS": "ON", "WARN": {"type": "BOOL", "value": "ON"}}},
    {"name": "release", "inherits": "base", "displayName": "Release", "description": "Optimised build",
     "cacheVariables": {"CMAKE_BUILD_TYPE": "Release", "WARN": "OFF"}}
  ],
  "buildPresets": [{"name": "release", "configurePreset": "release", "targets": ["app", "docs"], "jobs": 4}],
  "testPresets": [{"name": "release", "configurePreset": "release", "displayName": "Tests"}],
  "packagePresets": [{"name": "release", "configurePreset": "release"}],
  "workflowPresets": [{"name": "ship", "description": "Build, test and package",
    "steps": [{"type": "configure", "name": "release"}, {"type": "build", "name": "release"},
              {"type": "test", "name": "release"}, {"type": "package", "name": "release"}]}]
}"#;
    let files = MemFiles::new().with("CMakePresets.json", json);
    let parsed = parse_at(&files, "CMakePresets.json");
    assert_eq!(messages(&parsed), vec![]);
    assert_eq!(
        name_list(&parsed),
        "configure:release, build:release, test:release, package:release, workflow:ship"
    );
    let configure = task(&parsed, "configure:release");
    assert_eq!(configure.argv, ["cmake", "--preset", "release"]);
    assert_eq!(
        configure.description.as_deref(),
        Some("Release: Optimised build")
    );
    assert_eq!(
        configure.script.as_deref(),
        Some(indoc! {"
            generator: Ninja
            binaryDir: out/release
            -DCMAKE_BUILD_TYPE=Release
            -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
            -DWARN=OFF"})
    );
    assert_eq!(configure.line, Some(6));
    let build = task(&parsed, "build:release");
    assert_eq!(build.argv, ["cmake", "--build", "--preset", "release"]);
    assert_eq!(build.deps, ["configure:release"]);
    assert_eq!(
        build.script.as_deref(),
        Some(indoc! {"
            configurePreset: release
            jobs: 4
            targets: app, docs"})
    );
    assert_eq!(
        task(&parsed, "test:release").argv,
        ["ctest", "--preset", "release"]
    );
    assert_eq!(
        task(&parsed, "package:release").argv,
        ["cpack", "--preset", "release"]
    );
    let ship = task(&parsed, "workflow:ship");
    assert_eq!(ship.argv, ["cmake", "--workflow", "--preset", "ship"]);
    assert_eq!(
        ship.deps,
        [
            "configure:release",
            "build:release",
            "test:release",
            "package:release"
        ]
    );
    assert_eq!(ship.description.as_deref(), Some("Build, test and package"));
}

#[test]
fn user_presets_include_the_project_presets_and_further_files() {
    let main = r#"{"version": 4, "include": ["cmake/ci.json"],
      "configurePresets": [{"name": "dev", "inherits": "common"}]}"#;
    let ci = r#"{"version": 4, "configurePresets": [{"name": "common", "hidden": true, "binaryDir": "build/dev"}, {"name": "ci", "inherits": "common"}],
      "buildPresets": [{"name": "ci", "configurePreset": "ci"}]}"#;
    let user = r#"{"version": 4, "buildPresets": [{"name": "mine", "inherits": "ci", "configuration": "Debug"}]}"#;
    let files = MemFiles::new()
        .with("CMakePresets.json", main)
        .with("cmake/ci.json", ci)
        .with("CMakeUserPresets.json", user)
        .with("CMakeLists.txt", LISTS);
    let parsed = parse_at(&files, "CMakePresets.json");
    assert_eq!(messages(&parsed), vec![]);
    assert_eq!(
        names(&parsed),
        ["configure:dev", "configure:ci", "build:ci", "build:mine"]
    );
    // The configure preset is inherited, with its binary directory.
    assert_eq!(task(&parsed, "build:mine").deps, ["configure:ci"]);
    assert_eq!(
        task(&parsed, "build:mine").file_path,
        "CMakeUserPresets.json"
    );
    assert!(
        task(&parsed, "configure:ci")
            .script
            .as_deref()
            .unwrap()
            .contains("binaryDir: build/dev")
    );
    assert_eq!(
        parsed.consumed,
        ["CMakeLists.txt", "CMakeUserPresets.json", "cmake/ci.json"]
    );
    // A directory with only the user file reads the project's presets through it.
    let parsed = parse_at(&files, "CMakeUserPresets.json");
    assert_eq!(
        names(&parsed),
        ["configure:dev", "configure:ci", "build:ci", "build:mine"]
    );
    // A preset uses only presets of the files its own file reaches (the user file reaches
    // the project's): what it may not use is reported.
    let files = files.with(
        "cmake/ci.json",
        r#"{"version": 4, "configurePresets": [{"name": "common", "hidden": true}, {"name": "ci", "inherits": "dev"}],
          "buildPresets": [{"name": "ci", "configurePreset": "dev"}]}"#,
    );
    let parsed = parse_at(&files, "CMakePresets.json");
    assert_eq!(
        names(&parsed),
        ["configure:dev", "configure:ci", "build:mine"]
    );
    assert_eq!(
        messages(&parsed),
        [
            (
                "cmake/ci.json",
                Some(1),
                "configure preset `ci` inherits `dev`, which is in CMakePresets.json, which cmake/ci.json does not include; CMake refuses it"
            ),
            (
                "cmake/ci.json",
                Some(2),
                "build preset `ci` uses configure preset `dev`, which is in CMakePresets.json, which cmake/ci.json does not include; CMake refuses it"
            ),
        ]
    );
}

#[test]
fn hidden_and_disabled_presets_are_not_listed() {
    let json = r#"{"version": 3, "configurePresets": [
      {"name": "base", "hidden": true},
      {"name": "windows", "condition": {"type": "equals", "lhs": "${hostSystemName}", "rhs": "Windows"}},
      {"name": "unix", "condition": {"type": "notEquals", "lhs": "${hostSystemName}", "rhs": "Windows"}},
      {"name": "child", "inherits": "windows"},
      {"name": "env", "condition": {"type": "equals", "lhs": "$env{CI}", "rhs": "true"}},
      {"name": "local", "environment": {"CI": "false"}, "condition": {"type": "equals", "lhs": "$env{CI}", "rhs": "true"}},
      {"name": "any", "condition": {"type": "anyOf", "conditions": [
          {"type": "inList", "string": "${hostSystemName}", "list": ["Linux", "Darwin", "FreeBSD"]},
          {"type": "matches", "string": "${hostSystemName}", "regex": "^Win"}]}},
      {"name": "never", "condition": {"type": "not", "condition": {"type": "const", "value": true}}},
      {"name": "yes", "condition": true}
    ]}"#;
    let parsed = parse_one_presets(json);
    assert_eq!(messages(&parsed), vec![]);
    if cfg!(windows) {
        return;
    }
    // `env` depends on the shell: listed. `local` sets the variable itself: decided.
    assert_eq!(
        name_list(&parsed),
        "configure:unix, configure:env, configure:any, configure:yes"
    );
}

fn parse_one_presets(json: &str) -> Parsed {
    parse_at(
        &MemFiles::new().with("CMakePresets.json", json),
        "CMakePresets.json",
    )
}

#[test]
fn what_cmake_refuses_is_reported_and_the_rest_listed() {
    let json = r#"{
  "configurePresets": [
    {"name": "ok"},
    {"name": "ok"},
    {"name": "a", "inherits": "b"},
    {"name": "b", "inherits": ["a"]},
    {"name": "orphan", "inherits": "missing"},
    {"displayName": "no name"},
    "text",
    {"name": "h", "hidden": true}
  ],
  "buildPresets": [
    {"name": "lost"},
    {"name": "to-hidden", "configurePreset": "h"},
    {"name": "fine", "configurePreset": "ok"}
  ],
  "testPresets": {"name": "x"},
  "workflowPresets": [
    {"name": "w1", "steps": [{"type": "build", "name": "fine"}]},
    {"name": "w2", "steps": [{"type": "configure", "name": "ok"}, {"type": "deploy", "name": "x"}]},
    {"name": "w3", "steps": []},
    {"name": "w4", "steps": [{"type": "configure", "name": "ok"}, {"type": "build", "name": "fine"}]}
  ]
}"#;
    let parsed = parse_one_presets(json);
    assert_eq!(
        name_list(&parsed),
        "configure:ok, configure:orphan, build:fine, workflow:w4"
    );
    let got: Vec<(Option<u32>, &str)> = parsed
        .diagnostics
        .iter()
        .map(|d| (d.line, d.message.as_str()))
        .collect();
    let expect = [
        (
            Some(1),
            "no `version`: CMake refuses a presets file without one",
        ),
        (
            Some(4),
            "a second configure preset `ok` (the first is in CMakePresets.json line 3); CMake refuses duplicates",
        ),
        (Some(8), "a configure preset without a `name`"),
        (
            Some(9),
            "a configure preset must be an object, not a string",
        ),
        (Some(17), "`testPresets` must be an array, not a table"),
        (
            Some(7),
            "configure preset `orphan` inherits `missing`, which is no configure preset; CMake refuses it",
        ),
        (
            Some(5),
            "configure preset `a` inherits from itself through `inherits`; CMake refuses it",
        ),
        (
            Some(6),
            "configure preset `b` inherits from itself through `inherits`; CMake refuses it",
        ),
        (
            Some(13),
            "build preset `lost` names no `configurePreset`; CMake refuses it",
        ),
        (
            Some(14),
            "build preset `to-hidden` uses configure preset `h`, which is a hidden preset; CMake refuses it",
        ),
        (
            Some(19),
            "workflow preset `w1` must start with its one configure step; CMake refuses it",
        ),
        (
            Some(20),
            "workflow preset `w2` has a step of type `deploy`; CMake refuses it",
        ),
        (
            Some(21),
            "workflow preset `w3` has no steps; CMake refuses it",
        ),
    ];
    assert_eq!(got, expect);
}

#[test]
fn invalid_json_is_one_diagnostic_with_its_line() {
    let parsed = parse_one_presets(indoc! {"
        {
          \"version\": 3,
          \"configurePresets\": [
            {\"name\": \"a\",}
            oops
          ]
        }"});
    assert_eq!(parsed.tasks.len(), 0);
    assert_eq!(parsed.diagnostics.len(), 1);
    assert_eq!(
        parsed.diagnostics[0].line,
        Some(5),
        "{:?}",
        parsed.diagnostics
    );
}

#[test]
fn include_cycles_missing_files_and_escapes_are_reported() {
    let files = MemFiles::new()
        .with("CMakePresets.json", r#"{"version": 7, "include": ["a.json", "missing.json", "../out.json", "$env{HOME}/x.json", "${sourceDir}/b.json"], "configurePresets": [{"name": "root"}]}"#)
        .with("a.json", r#"{"version": 7, "include": ["CMakePresets.json"], "configurePresets": [{"name": "from-a"}]}"#)
        .with("b.json", r#"{"version": 7, "configurePresets": [{"name": "from-b"}]}"#);
    let parsed = parse_at(&files, "CMakePresets.json");
    assert_eq!(
        names(&parsed),
        ["configure:root", "configure:from-a", "configure:from-b"]
    );
    let got: Vec<String> = parsed
        .diagnostics
        .iter()
        .map(|d| format!("{}:{:?} {}", d.file_path, d.line, d.message))
        .collect();
    assert_eq!(got.len(), 4, "{got:#?}");
    assert!(
        got[0].starts_with("a.json:Some(1) `CMakePresets.json` includes itself"),
        "{got:#?}"
    );
    assert!(
        got[1].contains("included `missing.json` does not exist"),
        "{got:#?}"
    );
    assert!(
        got[2].contains("`../out.json` is outside the repository"),
        "{got:#?}"
    );
    assert!(
        got[3].contains("`$env{HOME}/x.json` is outside the repository or uses the environment"),
        "{got:#?}"
    );
}

#[test]
fn custom_targets_across_subdirectories_and_includes() {
    let root = r#"
cmake_minimum_required(VERSION 3.20)
project(demo LANGUAGES NONE)
set(DOCS_NAME docs)
# add_custom_target(commented_out)
#[[ add_custom_target(bracket_commented) ]]
add_custom_target(${DOCS_NAME}
  COMMAND doxygen "${CMAKE_CURRENT_SOURCE_DIR}/Doxyfile"
  COMMAND echo "docs are in build/html"
  WORKING_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR}
  COMMENT "Build the API docs"
  VERBATIM)
add_custom_target(format ALL clang-format -i src/a.c DEPENDS docs stamp.txt USES_TERMINAL)
function(make_thing name)
  add_custom_target(${name} COMMAND true)
endfunction()
make_thing(generated)
add_custom_target(${UNKNOWN}_x)
add_subdirectory(tools)
add_subdirectory(${CMAKE_CURRENT_SOURCE_DIR}/lib/core)
include(cmake/extra.cmake)
include(CTest)
"#;
    let tools =
        "add_custom_target(lint COMMAND [=[run-lint --all]=])\nadd_dependencies(lint format)\n";
    let core = "project(core)\nadd_custom_target(${PROJECT_NAME}_check COMMAND ./check.sh)\n";
    let extra = "ADD_CUSTOM_TARGET(coverage COMMAND gcovr)\n";
    let presets = r#"{"version": 3, "configurePresets": [{"name": "dev", "binaryDir": "${sourceDir}/build/${presetName}"}]}"#;
    let files = MemFiles::new()
        .with("CMakeLists.txt", root)
        .with("tools/CMakeLists.txt", tools)
        .with("lib/core/CMakeLists.txt", core)
        .with("cmake/extra.cmake", extra);
    let parsed = parse_at(&files, "CMakeLists.txt");
    assert_eq!(messages(&parsed), vec![]);
    assert_eq!(
        names(&parsed),
        ["docs", "format", "lint", "core_check", "coverage"]
    );
    let docs = task(&parsed, "docs");
    assert_eq!(docs.argv, ["cmake", "--build", "build", "--target", "docs"]);
    assert_eq!(docs.dir, ".");
    assert_eq!(docs.line, Some(7));
    assert_eq!(docs.description.as_deref(), Some("Build the API docs"));
    assert_eq!(
        docs.script.as_deref(),
        Some("doxygen ${CMAKE_CURRENT_SOURCE_DIR}/Doxyfile\necho \"docs are in build/html\"")
    );
    let format = task(&parsed, "format");
    assert_eq!(format.deps, ["docs"]);
    assert!(format.behaviour.interactive);
    assert_eq!(format.script.as_deref(), Some("clang-format -i src/a.c"));
    let lint = task(&parsed, "lint");
    assert_eq!(lint.file_path, "tools/CMakeLists.txt");
    assert_eq!(lint.deps, ["format"]);
    assert_eq!(lint.script.as_deref(), Some("\"run-lint --all\""));
    assert_eq!(
        parsed.consumed,
        [
            "cmake/extra.cmake",
            "lib/core/CMakeLists.txt",
            "tools/CMakeLists.txt"
        ]
    );
    // A subdirectory's own file lists nothing: its project reads it.
    assert_eq!(parse_at(&files, "tools/CMakeLists.txt").tasks.len(), 0);
    // With presets, targets are built in the first configure preset's binary directory.
    let files = files.with("CMakePresets.json", presets);
    let parsed = parse_at(&files, "CMakePresets.json");
    assert_eq!(names(&parsed)[..2], ["configure:dev", "docs"]);
    let docs = task(&parsed, "docs");
    assert_eq!(
        docs.argv,
        ["cmake", "--build", "build/dev", "--target", "docs"]
    );
    assert_eq!(docs.deps, ["configure:dev"]);
    assert!(parsed.consumed.contains(&"CMakeLists.txt".to_owned()));
}

#[test]
fn syntax_errors_keep_what_came_before() {
    for (text, line, message) in [
        (
            "add_custom_target(a)\nadd_custom_target(b\n",
            2,
            "`add_custom_target(` is never closed",
        ),
        (
            "add_custom_target(a)\nset(X \"open\n",
            2,
            "a quoted argument is never closed",
        ),
        (
            "add_custom_target(a)\n#[==[ open\n",
            2,
            "a bracket comment `#[[` is never closed",
        ),
        (
            "add_custom_target(a)\n(x)\n",
            2,
            "expected a command name, found `(`",
        ),
        (
            indoc! {"
                add_custom_target(a)
                set
                x()
            "},
            2,
            "expected `(` after the command name `set`",
        ),
        (
            "add_custom_target(a)\nset(x [[never\n",
            2,
            "a bracket argument `[[` is never closed",
        ),
    ] {
        let files = MemFiles::new().with("CMakeLists.txt", text);
        let parsed = parse_at(&files, "CMakeLists.txt");
        assert_eq!(names(&parsed), ["a"], "{text}");
        assert_eq!(
            messages(&parsed),
            [(
                "CMakeLists.txt",
                Some(line),
                &*format!("{message}; CMake stops reading this file here")
            )],
            "{text}"
        );
    }
}

#[test]
fn duplicate_targets_and_subdirectory_cycles_are_reported() {
    let files = MemFiles::new()
        .with(
            "CMakeLists.txt",
            indoc! {"
                add_custom_target(a)
                add_subdirectory(sub)
                add_subdirectory(missing)
            "},
        )
        .with(
            "sub/CMakeLists.txt",
            "add_custom_target(a)\ninclude(${CMAKE_CURRENT_SOURCE_DIR}/loop.cmake)\n",
        )
        .with(
            "sub/loop.cmake",
            "include(${CMAKE_CURRENT_LIST_DIR}/loop.cmake)\n",
        );
    let parsed = parse_at(&files, "CMakeLists.txt");
    assert_eq!(names(&parsed), ["a"]);
    let got = messages(&parsed);
    assert_eq!(got.len(), 3, "{got:#?}");
    assert_eq!(got[0].0, "sub/CMakeLists.txt");
    assert!(
        got[0].2.starts_with("a second custom target `a`"),
        "{got:#?}"
    );
    assert_eq!(got[1].0, "sub/loop.cmake");
    assert!(got[1].2.contains("already being read"), "{got:#?}");
    assert_eq!(
        got[2],
        (
            "CMakeLists.txt",
            Some(3),
            "cannot read `missing/CMakeLists.txt`: no such file"
        )
    );
}

#[test]
fn a_nested_project_with_presets_stands_on_its_own() {
    let files = MemFiles::new()
        .with("CMakeLists.txt", "add_custom_target(top)\n")
        .with("ext/lib/CMakeLists.txt", "add_custom_target(inner)\n")
        .with("ext/lib/CMakePresets.json", r#"{"version": 3, "configurePresets": [{"name": "x", "binaryDir": "${sourceParentDir}/out"}]}"#);
    let parsed = parse_at(&files, "ext/lib/CMakePresets.json");
    assert_eq!(names(&parsed), ["configure:x", "inner"]);
    assert_eq!(
        task(&parsed, "inner").argv,
        ["cmake", "--build", "../out", "--target", "inner"]
    );
    assert_eq!(task(&parsed, "inner").dir, "ext/lib");
}

#[test]
fn paths_are_tidied_relative_to_the_project() {
    assert_eq!(tidy("./build//x/"), "build/x");
    assert_eq!(tidy("a/../b"), "b");
    assert_eq!(tidy("../../out"), "../../out");
    assert_eq!(tidy("/abs/./b"), "/abs/b");
    assert_eq!(tidy("."), ".");
    assert_eq!(relative("a/b", "a/c"), "../c");
    assert_eq!(relative(".", "a"), "a");
    assert_eq!(relative("a", "a"), ".");
}

#[test]
fn what_an_if_may_keep_cmake_from_is_not_reported() {
    let files = MemFiles::new()
        .with(
            "CMakeLists.txt",
            indoc! {"
                if(ADB)
                  add_custom_target(prepare COMMENT \"adb\")
                else()
                  add_custom_target(prepare COMMENT \"no adb\")
                endif()
                if(EXISTS \"${CMAKE_CURRENT_LIST_DIR}/Tests/CMakeLists.txt\")
                  add_subdirectory(Tests)
                endif()
                add_subdirectory(a)
                add_subdirectory(b)
            "},
        )
        .with(
            "a/CMakeLists.txt",
            indoc! {"
                if(NOT TARGET uninstall)
                  add_custom_target(uninstall)
                endif()
            "},
        )
        .with(
            "b/CMakeLists.txt",
            indoc! {"
                if(NOT TARGET uninstall)
                  add_custom_target(uninstall)
                endif()
            "},
        );
    let parsed = parse_at(&files, "CMakeLists.txt");
    assert_eq!(names(&parsed), ["prepare", "uninstall"]);
    assert_eq!(
        task(&parsed, "prepare").description.as_deref(),
        Some("adb"),
        "the first definition stays"
    );
    assert!(messages(&parsed).is_empty(), "{:#?}", messages(&parsed));
}

#[test]
fn an_included_file_names_paths_from_its_includers_directory() {
    // CMake resolves an included file's relative paths against the current source
    // directory, that of the CMakeLists.txt being processed, not the included file's own.
    let files = MemFiles::new()
        .with("CMakeLists.txt", "add_subdirectory(frontend)\n")
        .with("frontend/CMakeLists.txt", "include(cmake/feature.cmake)\n")
        .with(
            "frontend/cmake/feature.cmake",
            "include(cmake/more.cmake)\nadd_subdirectory(tool)\n",
        )
        .with("frontend/cmake/more.cmake", "add_custom_target(more)\n")
        .with(
            "frontend/tool/CMakeLists.txt",
            "add_custom_target(tool-target)\n",
        );
    let parsed = parse_at(&files, "CMakeLists.txt");
    assert_eq!(names(&parsed), ["more", "tool-target"]);
    assert!(messages(&parsed).is_empty(), "{:#?}", messages(&parsed));
}

#[test]
#[cfg(target_os = "linux")]
fn host_conditions_are_decided_and_the_rest_noted() {
    let files = MemFiles::new().with(
        "CMakeLists.txt",
        &formatdoc! {"
            {LISTS}if(WIN32)
              add_custom_target(installer COMMAND makensis app.nsi)
              add_subdirectory(win)
            elseif(APPLE)
              add_custom_target(dmg COMMAND hdiutil create app.dmg)
            elseif(CMAKE_SYSTEM_NAME STREQUAL \"Linux\")
              add_custom_target(appimage COMMAND linuxdeploy)
            else()
              add_custom_target(tarball)
            endif()
            if(NOT MSVC AND UNIX)
              add_custom_target(valgrind COMMAND valgrind ./app)
            endif()
            if(BUILD_DOCS)
              add_custom_target(docs COMMAND doxygen)
            else()
              add_custom_target(no-docs)
            endif()
            if(WIN32)
              set(PKG zip)
            else()
              set(PKG tgz)
            endif()
            add_custom_target(package-${{PKG}})
        "
        },
    );
    let parsed = parse_at(&files, "CMakeLists.txt");
    // `win/CMakeLists.txt` does not exist: under `if(WIN32)` it is never read, so no diagnostic.
    assert_eq!(messages(&parsed), vec![]);
    assert_eq!(
        names(&parsed),
        ["appimage", "valgrind", "docs", "no-docs", "package-tgz"]
    );
    assert_eq!(
        task(&parsed, "appimage").script.as_deref(),
        Some("linuxdeploy")
    );
    assert_eq!(
        task(&parsed, "docs").script.as_deref(),
        Some(
            "# agg did not evaluate `if(BUILD_DOCS)` (CMakeLists.txt:16); CMake may not define this target\ndoxygen"
        )
    );
    assert_eq!(
        task(&parsed, "no-docs").script.as_deref(),
        Some(
            "# agg did not evaluate `if(BUILD_DOCS)` (CMakeLists.txt:16); CMake may not define this target"
        )
    );
}
