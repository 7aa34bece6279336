//! CMake for real: presets run as `cmake --preset`, `cmake --build --preset`, `ctest
//! --preset` and `cmake --workflow --preset`, custom targets as `cmake --build DIR --target
//! NAME` in the first configure preset's binary directory, arguments arriving verbatim, and
//! agg lists the presets `cmake --list-presets=all` lists.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use crate::common::repo;
use crate::common::verbatim::{
    NO_ARGS, mcp_allowing_any_args, passes_through_mcp, task_start_full,
};
use crate::run::{TRICKY, TRICKY_FOR_AGENTS};
use crate::test::{Test, rows, run_ok, task};

/// A project that prints the cache variables `A0`…`A5` when configured, and a custom target
/// that fails.
const ARGS_LISTS: &str = r#"cmake_minimum_required(VERSION 3.25)
project(args NONE)
foreach(i RANGE 5)
  message(NOTICE "A${i}=[${A${i}}]")
endforeach()
add_custom_target(fail COMMAND ${CMAKE_COMMAND} -E false COMMENT "Fail on purpose")
"#;

const ARGS_PRESETS: &str =
    r#"{"version": 6, "configurePresets": [{"name": "args", "binaryDir": "${sourceDir}/out"}]}"#;

/// `-DA<i>=<value>` for each of the tricky arguments.
fn definitions(values: &[&str]) -> Vec<String> {
    values
        .iter()
        .enumerate()
        .map(|(i, v)| format!("-DA{i}={v}"))
        .collect()
}

/// The values the configure step printed, in order. CMake keeps a value's newline in the
/// variable (and drops what follows it only from the cache file).
fn printed(stderr: &str, count: usize) -> Vec<String> {
    (0..count)
        .map(|i| {
            let start = format!("A{i}=[");
            let at = stderr
                .find(&start)
                .map_or(stderr.len(), |at| at + start.len());
            let rest = &stderr[at..];
            rest[..rest.find("]\n").unwrap_or(rest.len())].to_owned()
        })
        .collect()
}

#[test]
fn configure_presets_get_their_args_verbatim_and_targets_build_in_the_preset_dir() {
    require!("cmake");
    let test = Test::new()
        .write("CMakeLists.txt", ARGS_LISTS)
        .write("CMakePresets.json", ARGS_PRESETS);
    let json = Test::at(test.root()).list_json();
    assert_eq!(
        task(&json, "configure:args")["command"],
        "cmake --preset args"
    );
    assert_eq!(
        task(&json, "fail")["command"],
        "cmake --build out --target fail"
    );
    assert!(rows(&json).all(|t| t["runner_available"] == true), "{json}");
    let out = Test::at(test.root())
        .args(["run", "configure:args", "--"])
        .args(definitions(&TRICKY))
        .run()
        .success();
    assert_eq!(printed(&out.stderr, TRICKY.len()), TRICKY, "{}", out.stderr);
    assert!(test.root().join("out/CMakeCache.txt").is_file());
    // The custom target builds in the preset's binary directory; its failure is the task's.
    let out = Test::at(test.root()).args(["run", "fail"]).run();
    assert_ne!(out.code, Some(0), "{}", out.stderr);
    assert!(out.stdout.contains("Fail on purpose"), "{}", out.stdout);
}

#[test]
fn every_kind_of_preset_and_target_runs_in_the_fixture_project() {
    require!("cmake", "ctest", "make");
    let copy = Test::fixture_copy("cmake-edge-cases");
    let dir = copy.root();
    let run = |name: &str| Test::at(dir).args(["run", name]).run().success();
    let out = run("configure:dev");
    assert!(
        dir.join("build/dev/CMakeCache.txt").is_file(),
        "{}",
        out.stderr
    );
    // A custom target of the top file, one of a subdirectory, one of an included file.
    assert!(run("hello").stdout.contains("hello from cmake"));
    let docs = run("docs").stdout;
    assert!(
        docs.contains("building docs") && docs.contains("hello from cmake"),
        "{docs}"
    );
    assert!(run("lint").stdout.contains("linting"));
    // `if(WIN32)`/`elseif(APPLE)`/`elseif(CMAKE_SYSTEM_NAME STREQUAL "Linux")`: agg lists the
    // branch CMake takes on this host, and CMake agrees that the others define nothing here.
    assert!(run("appimage").stdout.contains("appimage"));
    let listed = Test::at(dir)
        .args(["list", "--json", "--runner", "cmake"])
        .run_json();
    let names: Vec<&str> = rows(&listed)
        .filter_map(|t| t["source_name"].as_str())
        .collect();
    assert!(
        names.contains(&"appimage") && names.contains(&"api-docs"),
        "{names:?}"
    );
    for other_host in ["installer", "dmg"] {
        assert!(!names.contains(&other_host), "{other_host} in {names:?}");
        let built = Command::new("cmake")
            .args(["--build", "build/dev", "--target", other_host])
            .current_dir(dir)
            .output()
            .expect("cmake --build");
        assert!(!built.status.success(), "CMake knows {other_host}");
    }
    // A condition agg cannot decide keeps the target, and describe says so.
    let described = Test::at(dir).args(["describe", "api-docs"]).run().success();
    assert!(
        described
            .stdout
            .contains("agg did not evaluate `if(FIXTURE_WITH_DOCS)` (CMakeLists.txt:"),
        "{}",
        described.stdout
    );
    assert!(run("build:docs").stdout.contains("building docs"));
    assert!(run("test:dev").stdout.contains("100% tests passed"));
    let workflow = run("workflow:check").stdout;
    assert!(
        workflow.contains("Executing workflow step 3 of 3: test preset \"dev\""),
        "{workflow}"
    );
    // The preset that inherits across an included file configures where it says.
    run("configure:ci");
    let cache = std::fs::read_to_string(dir.join("build/ci/CMakeCache.txt")).expect("cache");
    assert!(
        cache.contains("CI:UNINITIALIZED=ON") || cache.contains("CI:STRING=ON"),
        "{cache}"
    );
    assert!(cache.contains("GREETING:STRING=hello"), "{cache}");
}

/// The preset names `cmake --list-presets=all` prints in `dir`, as agg names them
/// (`configure:dev`).
fn cmake_presets(dir: &Path) -> BTreeSet<String> {
    let out = run_ok(
        Command::new("cmake")
            .arg("--list-presets=all")
            .current_dir(dir),
    );
    let mut kind = String::new();
    let mut names = BTreeSet::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        if let Some(rest) = line.strip_prefix("Available ") {
            rest.split(' ')
                .next()
                .unwrap_or_default()
                .clone_into(&mut kind);
        } else if let Some(name) = line
            .trim()
            .strip_prefix('"')
            .and_then(|l| l.split('"').next())
        {
            names.insert(format!("{kind}:{name}"));
        }
    }
    names
}

#[test]
fn agg_lists_the_presets_cmake_lists() {
    require!("cmake");
    // The user's own presets file, beside the project's, is read through it.
    let copy = Test::fixture_copy("cmake-edge-cases").write(
        "CMakeUserPresets.json",
        r#"{"version": 6, "configurePresets": [{"name": "mine", "inherits": "dev", "displayName": "Mine"}],
            "buildPresets": [{"name": "mine", "configurePreset": "mine"}]}"#,
    );
    let json = Test::at(copy.root()).list_json();
    let ours: BTreeSet<String> = rows(&json)
        .filter(|t| t["dir"] == "." && t["runner"] == "cmake")
        .filter_map(|t| t["source_name"].as_str())
        .filter(|name| name.contains(':'))
        .map(str::to_owned)
        .collect();
    let theirs = cmake_presets(copy.root());
    assert!(
        theirs.contains("configure:mine") && theirs.contains("workflow:check"),
        "{theirs:?}"
    );
    assert_eq!(ours, theirs);
}

#[tokio::test]
async fn presets_and_targets_run_through_mcp() {
    require!("cmake");
    let files = [
        ("CMakeLists.txt", ARGS_LISTS),
        ("CMakePresets.json", ARGS_PRESETS),
    ];
    let mcp = mcp_allowing_any_args(repo(&files), &[]).await;
    let text = passes_through_mcp(&mcp, "configure:args", &definitions(&TRICKY_FOR_AGENTS)).await;
    assert_eq!(
        printed(&text, TRICKY_FOR_AGENTS.len()),
        TRICKY_FOR_AGENTS,
        "{text}"
    );
    let run = task_start_full(&mcp, "fail", &NO_ARGS).await;
    assert_ne!(run["exit_code"], 0, "{run}");
    mcp.client.cancel().await.expect("close");
}
