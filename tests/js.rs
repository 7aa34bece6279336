//! Turborepo and Nx for real: npm and pnpm workspaces built in a temporary directory, whose
//! tasks print their arguments, run through `agg run` and the MCP tools. The workspace gets
//! the installed `turbo` and `nx` packages as its own `node_modules` (symlinks), as a project
//! that has installed them does; nothing is downloaded.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::verbatim::{mcp_allowing_any_args, passes_through_mcp};
use crate::run::{TRICKY, TRICKY_FOR_AGENTS};
use crate::test::{Output, Test, assert_runs_as, task};

/// A package script that prints its arguments as a JSON array (after `--`, so that node takes
/// none of them for its own options).
const PRINT_ARGS: &str = r#"node -e \"console.log(JSON.stringify(process.argv.slice(1)))\" --"#;

/// turbo, nx and the package managers must never wait for a person or reach a network.
pub const QUIET: [(&str, &str); 8] = [
    ("TURBO_TELEMETRY_DISABLED", "1"),
    ("DO_NOT_TRACK", "1"),
    ("TURBO_NO_UPDATE_NOTIFIER", "1"),
    ("NX_DAEMON", "false"),
    ("NX_NO_CLOUD", "true"),
    ("NX_SKIP_NX_CACHE", "true"),
    ("NX_TUI", "false"),
    ("NX_INTERACTIVE", "false"),
];

/// agg on the workspace, with turbo, nx and the package managers kept quiet.
fn agg(test: &Test) -> Test {
    QUIET
        .iter()
        .fold(Test::at(test.root()), |t, (key, value)| t.env(key, value))
}

/// Runs `task` with `args` and checks that it printed them as sent; returns the run's output.
#[track_caller]
fn args_arrive(test: &Test, task: &str, args: &[&str]) -> Output {
    let out = agg(test)
        .args(["run", task, "--"])
        .args(args)
        .run()
        .success();
    assert_eq!(printed_args(&out.stdout), args, "{task}: {}", out.stderr);
    out
}

/// The directory of the installed npm package that provides `binary` (its `.bin` entry
/// is a symlink into the package).
fn package_dir(binary: &str, package: &str) -> PathBuf {
    let bin = which::which(binary).expect("on PATH");
    let real = std::fs::canonicalize(&bin).expect("canonical path");
    real.ancestors()
        .find(|dir| {
            std::fs::read_to_string(dir.join("package.json")).is_ok_and(|text| {
                serde_json::from_str::<Value>(&text).is_ok_and(|p| p["name"] == package)
            })
        })
        .unwrap_or_else(|| panic!("no {package} package above {}", real.display()))
        .to_path_buf()
}

/// Installs the workspace's own `binary` from the package that provides it on PATH:
/// `node_modules/<package>` and `node_modules/.bin/<binary>`, as npm would lay them out.
pub fn install(root: &Path, binary: &str, package: &str) {
    let dir = package_dir(binary, package);
    let modules = root.join("node_modules");
    std::fs::create_dir_all(modules.join(".bin")).expect("mkdir");
    std::os::unix::fs::symlink(&dir, modules.join(package)).expect("symlink package");
    let entry = std::fs::canonicalize(which::which(binary).expect("on PATH")).expect("real");
    std::os::unix::fs::symlink(entry, modules.join(".bin").join(binary)).expect("symlink bin");
}

/// The one line of the output that holds a JSON array of strings (turbo prefixes each line
/// of a task's output with `package:task: `).
fn printed_args(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .find_map(|line| {
            let at = line.find("[\"").or_else(|| line.find("[]"))?;
            serde_json::from_str(&line[at..]).ok()
        })
        .unwrap_or_else(|| panic!("no JSON line in {stdout:?}"))
}

/// `program --version`: the package manager turbo is told the workspace uses must be the
/// one installed, or the package manager would fetch the one named.
fn version_of(program: &str) -> String {
    let out = std::process::Command::new(program)
        .arg("--version")
        .output()
        .expect("--version");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// An npm workspace with Turborepo: `web` depends on `ui`; both builds print their
/// arguments; `dev` is persistent.
fn turbo_npm_workspace() -> Test {
    let test = Test::new()
        .write(
            "package.json",
            format!(
                r#"{{"name": "mono", "private": true, "packageManager": "npm@{}", "workspaces": ["packages/*"], "scripts": {{"lint": "{PRINT_ARGS}"}}}}"#,
                version_of("npm")
            ),
        )
        .write(
            "turbo.json",
            r#"{
  // Builds wait for their dependencies.
  "tasks": {
    "build": { "dependsOn": ["^build"], "cache": false, "description": "Build everything" },
    "dev": { "persistent": true, "cache": false },
    "//#lint": { "cache": false },
  },
}"#,
        )
        .write(
            "packages/web/package.json",
            format!(
                r#"{{"name": "web", "dependencies": {{"ui": "*"}}, "scripts": {{"build": "{PRINT_ARGS}", "dev": "node -e \"setInterval(() => {{}}, 1000)\""}}}}"#
            ),
        )
        .write(
            "packages/ui/package.json",
            r#"{"name": "ui", "scripts": {"build": "node -e \"console.log('ui built')\""}}"#,
        );
    install(test.root(), "turbo", "turbo");
    test
}

#[test]
fn turbo_tasks_run_through_npx_with_their_arguments_verbatim() {
    require!("turbo", "npm");
    let test = turbo_npm_workspace();
    let json = agg(&test).list_json();
    // The runner is the workspace's own turbo.
    let build = assert_runs_as(&json, "build", "npx turbo run build");
    assert_eq!(build["deps"], json!(["^build"]));
    assert_eq!(build["description"], "Build everything");
    assert_eq!(task(&json, "dev")["service"], true);
    assert_eq!(task(&json, "//#lint")["command"], "npx turbo run '//#lint'");

    // ui builds first.
    args_arrive(&test, "build", &TRICKY).stdout_has("ui built");
    // A root task (`//#lint`) gets them too.
    args_arrive(&test, "//#lint", &["--fix", "a b"]);
    // The runner is the workspace's own turbo.
    agg(&test)
        .args(["describe", "dev"])
        .run()
        .success()
        .stdout_has("service")
        .stdout_has("node_modules/.bin/turbo");
}

#[test]
fn a_package_turbo_json_task_runs_from_the_root_for_that_package() {
    require!("turbo", "npm");
    let test = turbo_npm_workspace().write(
        "packages/web/turbo.json",
        r#"{"extends": ["//"], "tasks": {"build": {"dependsOn": [], "cache": false}}}"#,
    );
    let json = agg(&test).list_json();
    assert_eq!(
        task(&json, "web#build")["command"],
        "npx turbo run 'web#build'"
    );
    // No dependsOn.
    args_arrive(&test, "web#build", &["x", "-y"]).stdout_lacks("ui built");
}

#[test]
fn turbo_runs_through_pnpm_exec_in_a_pnpm_workspace() {
    require!("turbo", "pnpm");
    let test = Test::new()
        .write(
            "package.json",
            format!(
                r#"{{"name": "mono", "private": true, "devEngines": {{"packageManager": {{"name": "pnpm", "version": "{}"}}}}}}"#,
                version_of("pnpm")
            ),
        )
        .write("pnpm-workspace.yaml", "packages:\n  - \"apps/*\"\n")
        .write(
            "turbo.json",
            r#"{"tasks": {"build": {"cache": false}}}"#,
        )
        .write(
            "apps/web/package.json",
            format!(r#"{{"name": "web", "scripts": {{"build": "{PRINT_ARGS}"}}}}"#),
        );
    install(test.root(), "turbo", "turbo");
    let json = agg(&test).list_json();
    assert_runs_as(&json, "build", "pnpm exec turbo run build");
    args_arrive(&test, "build", &TRICKY);
}

#[tokio::test]
async fn mcp_lists_turbo_services_and_runs_tasks_with_arguments_verbatim() {
    require!("turbo", "npm");
    let test = turbo_npm_workspace();
    let mcp = mcp_allowing_any_args(test.into_tempdir(), &[]).await;
    let listed = mcp.ok("list_tasks", json!({"runner": "turbo"})).await;
    let dev = task(&listed, "dev");
    assert_eq!(dev["service"], true, "{dev}");
    let text = passes_through_mcp(&mcp, "build", &TRICKY_FOR_AGENTS).await;
    assert_eq!(printed_args(&text), TRICKY_FOR_AGENTS, "{text}");
    mcp.client.cancel().await.expect("close");
}

/// An npm workspace with Nx: a `project.json` project and a package.json one.
fn nx_npm_workspace() -> Test {
    let test = Test::new()
        .write(
            "package.json",
            r#"{"name": "acme", "private": true, "workspaces": ["apps/*", "libs/*"]}"#,
        )
        .write(
            "nx.json",
            r#"{
  "useDaemonProcess": false,
  "targetDefaults": { "build": { "dependsOn": ["^build"] }, "serve": { "continuous": true } }
}"#,
        )
        .write("libs/util/package.json", r#"{"name": "util", "version": "1.0.0"}"#)
        .write(
            "libs/util/project.json",
            format!(
                r#"{{"name": "util", "targets": {{"echo": {{"command": "{PRINT_ARGS}"}}, "build": {{"command": "node -e \"console.log('util built')\""}}}}}}"#
            ),
        )
        .write(
            "apps/web/package.json",
            format!(
                r#"{{"name": "web", "dependencies": {{"util": "1.0.0"}}, "scripts": {{"build": "{PRINT_ARGS}", "serve": "node -e \"setInterval(() => {{}}, 1000)\"", "lint": "eslint ."}}}}"#
            ),
        );
    install(test.root(), "nx", "nx");
    test
}

#[test]
fn nx_targets_run_through_npx_and_plain_arguments_arrive() {
    require!("nx", "npm");
    let test = nx_npm_workspace();
    let json = agg(&test).list_json();
    assert_runs_as(&json, "util:echo", "npx nx run util:echo");
    assert_eq!(task(&json, "web:build")["deps"], json!(["^build"]));
    assert_eq!(task(&json, "web:serve")["service"], true);
    // lint has no Nx configuration, and Nx makes it a target all the same.
    assert_eq!(task(&json, "web:lint")["command"], "npx nx run web:lint");

    // Nx re-reads its arguments into options and hands them to a shell line, so only
    // arguments a shell leaves alone arrive as sent (README: Nx).
    args_arrive(&test, "util:echo", &["--flag=1", "word", "-x"]);
    // Dependencies first.
    args_arrive(&test, "web:build", &["--mode=production"]).stdout_has("nx run util:build");
}
