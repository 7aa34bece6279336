//! `agg run` and `agg describe` with the real runners: argv passing per runner, exit codes,
//! signals forwarded to the whole tree, and the errors a person meets.

use std::process::{Command, Stdio};
use std::time::Duration;

use crate::common::{alive, have, read_pid};
use crate::test::{Output, Test};
use indoc::{formatdoc, indoc};

/// The arguments every runner test passes: shell metacharacters must arrive verbatim.
pub(crate) const TRICKY: [&str; 6] = [
    "a b",
    "$(echo pwned)",
    "semi;colon",
    "it's \"quoted\"",
    "-leading",
    "new\nline",
];

/// [`TRICKY`] as an agent may send them: every one but the newline, since `task_start`
/// refuses an argument holding a control character (-32602), whatever the allowlist says.
pub(crate) const TRICKY_FOR_AGENTS: [&str; 5] = [
    "a b",
    "$(echo pwned)",
    "semi;colon",
    "it's \"quoted\"",
    "-leading",
];

pub(crate) fn argv_json(stdout: &str) -> Vec<String> {
    let line = stdout
        .lines()
        .find(|l| l.starts_with('['))
        .unwrap_or_else(|| panic!("no JSON line in {stdout:?}"));
    serde_json::from_str(line).expect("argv JSON")
}

const PRINT_ARGS_JS: &str = r#"node -e \"console.log(JSON.stringify(process.argv.slice(1)))\""#;

fn package_json(script: &str) -> String {
    formatdoc!(
        "
            {{
              \"name\": \"t\",
              \"version\": \"1.0.0\",
              \"scripts\": {{
                \"args\": \"{script}\",
                \"fail\": \"exit 7\"
              }}
            }}
        "
    )
}

fn check_package_manager(pm: &str, lockfile: Option<(&str, &str)>, install: bool) {
    if !have(pm) {
        return;
    }
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::write(dir.path().join("package.json"), package_json(PRINT_ARGS_JS)).expect("write");
    if let Some((name, text)) = lockfile {
        std::fs::write(dir.path().join(name), text).expect("write lockfile");
    }
    if install {
        let status = Command::new(pm)
            .arg("install")
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .status();
        assert!(status.is_ok_and(|s| s.success()), "{pm} install failed");
    }
    let listed = Test::at(dir.path())
        .args(["list", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(listed["tasks"][0]["runner"], pm, "{listed}");
    let out = Test::at(dir.path())
        .args(["run", "args", "--"])
        .args(TRICKY)
        .run()
        .success();
    assert_eq!(argv_json(&out.stdout), TRICKY, "{pm}: {}", out.stderr);
    Test::at(dir.path()).args(["run", "fail"]).run().code(7);
}

#[test]
fn npm_scripts_get_their_args_verbatim_after_a_separator() {
    check_package_manager("npm", None, false);
}

#[test]
fn pnpm_scripts_run_with_pnpm() {
    check_package_manager(
        "pnpm",
        Some(("pnpm-lock.yaml", "lockfileVersion: '9.0'\n")),
        false,
    );
}

#[test]
fn yarn_scripts_run_with_yarn() {
    // The registry's `yarn` is Yarn 2 (berry), which wants `yarn install` first, as a
    // person would run it.
    check_package_manager("yarn", Some(("yarn.lock", "")), true);
}

#[test]
fn bun_scripts_run_with_bun() {
    check_package_manager(
        "bun",
        Some((
            "bun.lock",
            "{\"lockfileVersion\": 1, \"workspaces\": {\"\": {\"name\": \"t\"}}}\n",
        )),
        false,
    );
}

/// `agg ARGS…` in a repository with one file, `path` holding `text`.
fn agg_in(path: &str, text: &str, args: &[&str]) -> Output {
    Test::new().write(path, text).args(args).run()
}

#[test]
fn make_targets_take_variable_assignments_and_keep_exit_codes() {
    require!("make");
    let makefile = indoc! {"
        greet: ## Say hello
        \t@echo \"hello $(NAME)\"

        fail:
        \t@exit 4
    "};
    let out = agg_in("Makefile", makefile, &["run", "greet", "NAME=big world"]).success();
    assert_eq!(out.stdout.trim(), "hello big world");
    agg_in("Makefile", makefile, &["run", "fail"]).code(2);
}

#[test]
fn make_runs_in_the_makefile_directory() {
    require!("make");
    let out = agg_in(
        "sub/dir/Makefile",
        "where:\n\t@pwd\n",
        &["run", "sub/dir/where"],
    )
    .success();
    assert!(out.stdout.trim().ends_with("/sub/dir"), "{}", out.stdout);
}

#[test]
fn just_recipes_get_positional_arguments() {
    require!("just");
    let justfile = indoc! {"
        set positional-arguments

        # Print the args
        args *rest:
            @python3 -c 'import json,sys; print(json.dumps(sys.argv[1:]))' \"$@\"

        fail:
            @exit 5
    "};
    let out = Test::new()
        .write("justfile", justfile)
        .args(["run", "args", "--"])
        .args(TRICKY)
        .run()
        .success();
    assert_eq!(argv_json(&out.stdout), TRICKY, "{}", out.stderr);
    agg_in("justfile", justfile, &["run", "fail"]).code(5);
}

#[test]
fn go_task_receives_args_as_cli_args() {
    require!("task");
    let taskfile = indoc! {"
        version: '3'

        tasks:
          echo:
            desc: Echo the args
            cmds:
              - echo \"args={{.CLI_ARGS}}\"
          fail:
            cmds:
              - exit 6
    "};
    let out = agg_in(
        "Taskfile.yml",
        taskfile,
        &["run", "echo", "--", "one", "two"],
    )
    .success();
    out.stdout_has("args=one two");
    let failed = agg_in("Taskfile.yml", taskfile, &["run", "fail"]);
    assert_ne!(failed.code, Some(0));
}

const WILD_TASKFILE: &str = indoc! {"
    version: '3'

    tasks:
      greet:*:
        cmds:
          - echo \"hello {{index .MATCH 0}}\"
      greet:
        requires:
          vars: [NAME]
        cmds:
          - echo \"hi {{.NAME}} {{.CLI_ARGS}}\"
"};

#[test]
fn go_task_wildcard_tasks_run_by_the_name_they_match() {
    require!("task");
    for args in [&["run", "greet:bob"][..], &["run", "greet:*", "bob"][..]] {
        let out = Test::new()
            .write("Taskfile.yml", WILD_TASKFILE)
            .args(args)
            .run()
            .success();
        assert!(out.stdout.contains("hello bob"), "{args:?}: {}", out.stderr);
    }
    let missing = agg_in("Taskfile.yml", WILD_TASKFILE, &["run", "greet:*"]).code(2);
    missing.stderr_has("needs a value for `MATCH`");
}

#[test]
fn go_task_variables_are_set_as_go_task_takes_them() {
    require!("task");
    let out = agg_in(
        "Taskfile.yml",
        WILD_TASKFILE,
        &["run", "greet", "NAME=Bob", "extra"],
    )
    .success();
    assert!(out.stdout.contains("hi Bob extra"), "{}", out.stderr);
}

#[test]
fn a_runner_and_its_own_name_pick_a_suffixed_task() {
    require!("just");
    let test = || {
        Test::new()
            .write("Makefile", "format:\n\t@echo make format\n")
            .write("justfile", "format:\n    @echo just format\n")
            .write("web/justfile", "format:\n    @echo web format\n")
    };
    let listed = test().args(["list", "."]).run().success();
    listed.stdout_has("[just format]");
    let out = test().args(["run", "just format"]).run().success();
    assert_eq!(out.stdout.trim(), "just format");
    let out = test().args(["run", "just web/format"]).run().success();
    assert_eq!(out.stdout.trim(), "web format");
}

#[test]
fn from_a_subdirectory_the_repository_root_is_found() {
    require!("make");
    let test = || {
        Test::new()
            .write(".git/HEAD", "ref: refs/heads/main\n")
            .write("Makefile", "pwd:\n\t@pwd\n")
            .write(
                "src/lib/package.json",
                r#"{"scripts": {"hello": "echo hi"}}"#,
            )
            .current_dir("src/lib/deep")
    };
    let listed = test().args(["list"]).run().success();
    let first = listed.stdout.lines().next().unwrap_or_default();
    assert_eq!(
        first, "no tasks in src/lib/deep or below",
        "{}",
        listed.stdout
    );
    assert!(
        listed.stdout.contains("── the rest of the repository ("),
        "{}",
        listed.stdout
    );
    listed.stdout_has("src/lib/hello");
    let json = test().args(["list", "--json"]).run().success().json();
    assert_eq!(crate::test::names(&json), ["pwd", "src/lib/hello"]);
    // The task runs from its own directory, the repository root.
    let ran = test().args(["run", "pwd"]).run().success();
    let root = ran.stdout.trim().to_owned();
    assert!(!root.ends_with("deep") && !root.ends_with("src"), "{root}");
    // A name is tried in the current directory first.
    test().args(["describe", "hello"]).run().success();
    // An explicit root wins.
    let here = test().args(["list", ".", "--json"]).run().success().json();
    assert!(crate::test::names(&here).is_empty(), "{here}");
}

#[test]
fn without_git_the_nearest_task_file_marks_the_root() {
    let out = Test::new()
        .write("justfile", "hello:\n    @echo hi\n")
        .current_dir("docs")
        .args(["list", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(crate::test::names(&out), ["hello"]);
}

#[test]
fn describe_shows_what_else_running_involves() {
    let package = r#"{"scripts": {"//": "a note", "prebuild": "rm -rf dist", "build": "tsc", "postbuild": "echo done"}}"#;
    Test::new()
        .write("package.json", package)
        .write("package-lock.json", "{}")
        .args(["describe", "build"])
        .run()
        .success()
        .stdout_starts_with("build  npm: build")
        .stdout_has("also runs    prebuild (before): rm -rf dist")
        .stdout_has("postbuild (after): echo done");
    let unknown = agg_in("package.json", package, &["run", "//"]).code(2);
    unknown.stderr_has("no task named `//`");
    let just = agg_in(
        "justfile",
        indoc! {"
            [confirm]
            publish:
                cargo publish
        "},
        &["describe", "publish", "--json"],
    )
    .success()
    .json();
    assert_eq!(just["confirm"][0], "Run recipe `publish`?");
    let task = Test::new()
        .write(
            "Taskfile.yml",
            indoc! {"
                version: '3'
                tasks:
                  deploy:
                    prompt: Deploy now?
                    interactive: true
                    cmds: [echo x]
            "},
        )
        .args(["describe", "deploy"])
        .run()
        .success();
    task.stdout_has("asks first   Deploy now? (runs only if answered yes)");
    task.stdout_has("interactive");
}

#[test]
fn cargo_aliases_run_through_cargo() {
    require!("cargo");
    let out = agg_in(
        ".cargo/config.toml",
        "[alias]\nv = \"version\"\n",
        &["run", "v", "--", "--verbose"],
    )
    .success();
    out.stdout_starts_with("cargo ");
    assert!(
        out.stdout.contains("release:"),
        "--verbose reached cargo: {}",
        out.stdout
    );
}

const XC_README: &str = r#"# Demo

## Tasks

### greet

Say hello.

Inputs: NAME, GREETING
Env: GREETING=hello

```sh
echo "$GREETING $NAME from $(basename "$PWD")"
```

### prepare

```sh
echo prepare >> log.txt
```

### build

Requires: prepare, prepare-more
Run: once

```sh
echo build >> log.txt
cat log.txt
```

### prepare-more

Requires: prepare

```sh
echo more >> log.txt
```

### py

```python
#!/usr/bin/env python3
import sys
print("python says", sys.argv[1:])
```

### loop-a

Requires: loop-b

```sh
true
```

### loop-b

Requires: loop-a

```sh
true
```

### sub

Dir: web

```sh
pwd
```
"#;

#[test]
fn xc_tasks_run_with_the_built_in_executor() {
    let test = Test::new()
        .write("README.md", XC_README)
        .write("web/.keep", "");
    let out = test.args(["run", "greet", "--", "world"]).run().success();
    out.stdout_has("hello world from ");
    let out = Test::new()
        .write("README.md", XC_README)
        .env("NAME", "env")
        .env("GREETING", "hi")
        .args(["run", "greet"])
        .run()
        .success();
    out.stdout_has("hi env");
    let missing = Test::new()
        .write("README.md", XC_README)
        .args(["run", "greet"])
        .env_remove_name()
        .run()
        .code(2);
    missing.stderr_has("needs input `NAME`");
}

#[test]
fn xc_dependencies_run_first_and_cycles_are_refused() {
    let out = agg_in("README.md", XC_README, &["run", "build"]).success();
    assert_eq!(
        out.stdout.lines().collect::<Vec<_>>(),
        ["prepare", "prepare", "more", "build"]
    );
    let skipped = Test::new()
        .write("README.md", XC_README)
        .write("log.txt", "")
        .args(["run", "--skip-deps", "build"])
        .run()
        .success();
    assert_eq!(skipped.stdout.trim(), "build");
    let cycle = agg_in("README.md", XC_README, &["run", "loop-a"]).code(2);
    cycle.stderr_has("dependency cycle");
    let sub = Test::new()
        .write("README.md", XC_README)
        .write("web/.keep", "")
        .args(["run", "sub"])
        .run()
        .success();
    assert!(sub.stdout.trim().ends_with("/web"), "{}", sub.stdout);
    if have("python3") {
        let py = agg_in("README.md", XC_README, &["run", "py", "--", "x"]).success();
        py.stdout_has("python says ['x']");
    }
}

#[test]
fn unknown_and_ambiguous_names_get_help() {
    let test = || {
        Test::new()
            .write("Makefile", "build:\n\t@true\n")
            .write("justfile", "build:\n    @true\n")
            .write("web/Makefile", "build:\n\t@true\n")
    };
    let unknown = test().args(["run", "biuld"]).run().code(2);
    unknown.stderr_has("no task named `biuld`");
    unknown.stderr_has("did you mean: build-j, build-m");
    let ambiguous = test().args(["run", "build"]).run().code(2);
    ambiguous.stderr_has("`build` names 2 tasks");
    assert!(ambiguous.stderr.contains("build-j") && ambiguous.stderr.contains("build-m"));
}

#[test]
fn a_missing_runner_gets_an_install_hint() {
    let empty = tempfile::tempdir().expect("tmp");
    let out = Test::new()
        .write("justfile", "build:\n    @true\n")
        .env("PATH", empty.path())
        .args(["run", "build"])
        .run()
        .code(127);
    out.stderr_has("`build` needs just, which is not installed");
    out.stderr_has("cargo install just");
}

#[test]
fn describe_shows_everything_known() {
    let out = agg_in("README.md", XC_README, &["describe", "greet"]).success();
    for want in [
        "greet",
        "Say hello.",
        "README.md:",
        "NAME (required)",
        "GREETING=hello",
        "script",
        "echo \"$GREETING",
    ] {
        out.stdout_has(want);
    }
    let json = agg_in("README.md", XC_README, &["describe", "greet", "--json"])
        .success()
        .json();
    assert_eq!(json["unique_name"], "greet");
    assert_eq!(json["runner"], "xc");
    assert!(
        json["script"]
            .as_str()
            .is_some_and(|s| s.contains("$GREETING"))
    );
}

#[tokio::test]
async fn sigterm_to_agg_stops_the_whole_task_tree() {
    let test = Test::new().write(
        "README.md",
        indoc! {"
            ## Tasks

            ### serve

            ```sh
            sh -c 'echo $$ > gc.pid; exec sleep 300' &
            wait
            ```
        "},
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_agg"))
        .args(["run", "serve"])
        .current_dir(test.root())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .spawn()
        .expect("spawn agg");
    let gc = read_pid(&test.root().join("gc.pid")).await;
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id().cast_signed()),
        nix::sys::signal::Signal::SIGTERM,
    )
    .expect("kill");
    let status = tokio::task::spawn_blocking(move || child.wait())
        .await
        .expect("join")
        .expect("wait");
    assert_eq!(status.code(), Some(143));
    crate::common::eventually(Duration::from_secs(5), "grandchild gone", || !alive(gc)).await;
}
