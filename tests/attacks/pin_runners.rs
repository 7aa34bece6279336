//! What a pin covers, runner by runner, with the real runners: the person allows one task
//! (`agg allow NAME`), then the repository changes. An edit of what the task does not read —
//! another task, a comment, an unread variable, the package's version or dependencies,
//! reformatting — keeps the allow: the task still runs through `task_start`. An edit of what it
//! reads (a variable it names, a setting, a hook, a config value, a task it runs first) lapses
//! it: the start is refused with -32010, `agg allowlist` and the error both say what changed,
//! and the code the edit slipped in never runs.

use std::ffi::OsStr;
use std::path::Path;

use serde_json::json;

use super::harness::{Attack, error_code, ran, refused, start, text};
use crate::common::raw::Raw;
use indoc::indoc;

/// One runner's case: the project, the task the person allows, edits that must keep the
/// allow, and the edit that must lapse it with the words that say what changed.
struct Case<'a> {
    files: &'a [(&'a str, &'a str)],
    task: &'a str,
    keeps: &'a [(&'a str, &'a str)],
    lapses: (&'a str, &'a str),
    says: &'a str,
    env: &'a [(&'a str, &'a str)],
}

/// Runs the case: each keeping edit in turn (each still runs), then the lapsing one.
#[track_caller]
fn check(case: &Case<'_>) {
    let attack = Attack::new(case.files);
    attack.agg(&["allow", case.task]);
    // Paths outside the repository, and `ROOT` for the repository itself.
    let env: Vec<(&str, std::ffi::OsString)> = case
        .env
        .iter()
        .map(|(k, v)| {
            let path = if *v == "ROOT" {
                attack.root.clone()
            } else {
                attack.outside.join(v)
            };
            (*k, path.into_os_string())
        })
        .collect();
    let env: Vec<(&str, &OsStr)> = env.iter().map(|(k, v)| (*k, v.as_os_str())).collect();
    let mut raw = Raw::start_env(&attack.root, &attack.allowlist, &[], &env);
    ran(&start(&mut raw, 1, case.task, &json!({})));
    for (i, (path, content)) in case.keeps.iter().enumerate() {
        attack.write(path, content);
        let response = start(&mut raw, 10 + i as u64, case.task, &json!({}));
        assert_eq!(
            error_code(&response),
            None,
            "editing {path} lapsed the allow of {}:\n{content}\n{response}",
            case.task
        );
        ran(&response);
    }
    let (path, content) = case.lapses;
    attack.write(path, content);
    let response = lapsed(&attack, &mut raw, case.task);
    let said = text(&response);
    assert!(said.contains(case.says), "{said}");
    let shown = attack.agg(&["allowlist"]);
    assert!(shown.contains(case.says), "{shown}");
}

/// Starts `task` after an edit until the start is refused as lapsed (-32010): a start that
/// comes before the file watch saw the edit is refused as not what agg listed (-32012),
/// which says nothing of what changed. Nothing runs either way.
fn lapsed(attack: &Attack, raw: &mut Raw, task: &str) -> serde_json::Value {
    for id in 100..200 {
        let response = start(raw, id, task, &json!({}));
        if error_code(&response) != Some(-32012) {
            refused(attack, raw, &response, -32010);
            return response;
        }
        refused(attack, raw, &response, -32012);
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("{task}: the table never caught up with the edit");
}

#[test]
fn make() {
    require!("make");
    let makefile = indoc! {"
        GREETING = hello
        UNUSED = 1

        test: gen
        \t@echo $(GREETING)

        gen:
        \t@true

        lint:
        \t@echo lint
    "};
    check(&Case {
        files: &[("Makefile", makefile)],
        task: "test",
        keeps: &[
            ("Makefile", &makefile.replace("echo lint", "echo linting")),
            (
                "Makefile",
                &makefile.replace("UNUSED = 1", "UNUSED = 2 # now two"),
            ),
            (
                "Makefile",
                &format!("# the tests\n{makefile}\nnew:\n\t@true\n"),
            ),
            (
                "Makefile",
                &makefile.replace("GREETING = hello", "GREETING    =    hello"),
            ),
        ],
        lapses: (
            "Makefile",
            &makefile.replace("GREETING = hello", "GREETING = $(shell touch MARKER)hi"),
        ),
        says: "variable `GREETING` changed",
        env: &[],
    });
}

#[test]
fn make_include_and_dep() {
    require!("make");
    let makefile = indoc! {"
        include tools.mk

        test: gen
        \t@$(RUN) tests

        gen:
        \t@true
    "};
    let tools = "RUN = echo\nOTHER = x\n";
    check(&Case {
        files: &[("Makefile", makefile), ("tools.mk", tools)],
        task: "test",
        keeps: &[("tools.mk", "RUN = echo\nOTHER = y\n")],
        lapses: ("Makefile", &makefile.replace("\t@true", "\t@touch MARKER")),
        says: "dep `gen` changed",
        env: &[],
    });
}

const PACKAGE: &str = r#"{
  "name": "web",
  "version": "1.0.0",
  "config": {"greeting": "hello"},
  "dependencies": {},
  "scripts": {
    "test": "node -e \"console.log(process.env.npm_package_config_greeting)\"",
    "lint": "node -e 0"
  }
}
"#;

#[track_caller]
fn package_json(extra: &[(&str, &str)]) {
    let files: Vec<(&str, &str)> = std::iter::once(("package.json", PACKAGE))
        .chain(extra.iter().copied())
        .collect();
    let reformatted = PACKAGE.replace("\n  ", "\n    ").replace(
        r#""config": {"greeting": "hello"}"#,
        "\"config\": {\n      \"greeting\": \"hello\"\n    }",
    );
    check(&Case {
        files: &files,
        task: "test",
        keeps: &[
            ("package.json", &PACKAGE.replace("1.0.0", "1.1.0")),
            (
                "package.json",
                &PACKAGE.replace(
                    r#""dependencies": {}"#,
                    r#""dependencies": {"left-pad": "1.3.0"}"#,
                ),
            ),
            ("package.json", &PACKAGE.replace("node -e 0", "node -e 1")),
            ("package.json", &reformatted),
        ],
        lapses: (
            "package.json",
            &PACKAGE.replace(
                r#""lint""#,
                r#""pretest": "node -e \"require('fs').writeFileSync('MARKER','')\"", "lint""#,
            ),
        ),
        says: "`pretest`",
        env: &[],
    });
    let files: Vec<(&str, &str)> = std::iter::once(("package.json", PACKAGE))
        .chain(extra.iter().copied())
        .collect();
    check(&Case {
        files: &files,
        task: "test",
        keeps: &[],
        lapses: (
            "package.json",
            &PACKAGE.replace(r#""greeting": "hello""#, r#""greeting": "bye""#),
        ),
        says: "package.json `config.greeting` changed",
        env: &[],
    });
}

#[test]
fn npm() {
    require!("npm");
    package_json(&[]);
}

#[test]
fn pnpm() {
    require!("pnpm");
    package_json(&[("pnpm-lock.yaml", "lockfileVersion: '9.0'\n")]);
}

#[test]
fn bun() {
    require!("bun");
    package_json(&[(
        "bun.lock",
        "{\"lockfileVersion\": 1, \"workspaces\": {\"\": {\"name\": \"web\"}}}\n",
    )]);
}

#[test]
fn just() {
    require!("just");
    let justfile = indoc! {"
        greeting := 'hello'
        unused := 'x'

        # the tests
        test:
            @echo {{greeting}}

        lint:
            @echo lint
    "};
    check(&Case {
        files: &[("justfile", justfile)],
        task: "test",
        keeps: &[
            (
                "justfile",
                &justfile.replace("unused := 'x'", "unused := 'y'"),
            ),
            ("justfile", &justfile.replace("echo lint", "echo linting")),
            ("justfile", &justfile.replace("# the tests", "# every test")),
        ],
        lapses: (
            "justfile",
            &justfile.replace("greeting := 'hello'", "greeting := `touch MARKER; echo hi`"),
        ),
        says: "variable `greeting` changed",
        env: &[],
    });
    check(&Case {
        files: &[("justfile", justfile)],
        task: "test",
        keeps: &[],
        lapses: (
            "justfile",
            &format!("set shell := ['sh', '-c', 'touch MARKER; sh -c \"$1\"', 'x']\n{justfile}"),
        ),
        says: "setting `shell`",
        env: &[],
    });
}

#[test]
fn go_task() {
    require!("task");
    let taskfile = indoc! {"
        version: '3'
        vars:
          GREETING: hello
          UNUSED: x
        tasks:
          test:
            desc: The tests
            cmds:
              - echo {{.GREETING}}
          lint:
            cmds: [echo lint]
    "};
    check(&Case {
        files: &[("Taskfile.yml", taskfile)],
        task: "test",
        keeps: &[
            ("Taskfile.yml", &taskfile.replace("UNUSED: x", "UNUSED: y")),
            (
                "Taskfile.yml",
                &taskfile.replace("echo lint", "echo linting"),
            ),
            ("Taskfile.yml", &taskfile.replace("The tests", "Every test")),
        ],
        lapses: (
            "Taskfile.yml",
            &taskfile.replace("GREETING: hello", "GREETING: hi; touch MARKER"),
        ),
        says: "variable `GREETING` of Taskfile.yml changed",
        env: &[],
    });
}

#[test]
fn cargo_alias() {
    require!("cargo");
    let config = indoc! {"
        [alias]
        meta = \"metadata --format-version 1 --no-deps\"
        t = \"test\"
    "};
    check(&Case {
        files: &[
            (".cargo/config.toml", config),
            (
                "Cargo.toml",
                indoc! {"
                    [package]
                    name = \"x\"
                    version = \"0.1.0\"
                    edition = \"2021\"
                "},
            ),
            ("src/main.rs", "fn main() {}\n"),
        ],
        task: "meta",
        keeps: &[(
            ".cargo/config.toml",
            &config.replace("\"test\"", "\"test --all\""),
        )],
        lapses: (
            ".cargo/config.toml",
            &format!("{config}\n[env]\nRUSTC_BOOTSTRAP = \"1\"\n"),
        ),
        says: "setting `[env]` is now read",
        env: &[],
    });
}

const PYPROJECT: &str = indoc! {"
    [project]
    name = \"demo\"
    version = \"0.1.0\"
    dependencies = []

    [tool.poe.env]
    GREETING = \"hello\"

    [tool.poe.tasks]
    test = \"python3 -c 'import os; print(os.environ[\\\"GREETING\\\"])'\"
    lint = \"python3 -c 0\"

    [tool.pdm]
    distribution = false

    [tool.pdm.scripts]
    _.env = { GREETING = \"hello\" }
    check = { shell = \"echo $GREETING\" }
    fmt = { shell = \"true\" }
"};

#[test]
fn poe() {
    require!("poe");
    check(&Case {
        files: &[("pyproject.toml", PYPROJECT)],
        task: "test",
        keeps: &[
            (
                "pyproject.toml",
                &PYPROJECT.replace("version = \"0.1.0\"", "version = \"0.2.0\""),
            ),
            (
                "pyproject.toml",
                &PYPROJECT.replace("dependencies = []", "dependencies = [\"requests\"]"),
            ),
            (
                "pyproject.toml",
                &PYPROJECT.replace("python3 -c 0", "python3 -c 1"),
            ),
        ],
        lapses: (
            "pyproject.toml",
            &PYPROJECT.replace(
                "[tool.poe.env]\nGREETING = \"hello\"",
                "[tool.poe.env]\nGREETING = \"bye\"",
            ),
        ),
        says: "setting `env` changed",
        env: &[],
    });
}

#[test]
fn pdm() {
    require!("pdm");
    check(&Case {
        files: &[("pyproject.toml", PYPROJECT)],
        task: "check",
        keeps: &[
            (
                "pyproject.toml",
                &PYPROJECT.replace("version = \"0.1.0\"", "version = \"0.2.0\""),
            ),
            (
                "pyproject.toml",
                &PYPROJECT.replace("shell = \"true\"", "shell = \"true; true\""),
            ),
        ],
        lapses: (
            "pyproject.toml",
            &PYPROJECT.replace(
                "_.env = { GREETING = \"hello\" }",
                "_.env = { GREETING = \"$(touch MARKER)\" }",
            ),
        ),
        says: "shared options `_` changed",
        env: &[],
    });
}

#[test]
fn mise() {
    require!("mise");
    let config = indoc! {"
        [env]
        GREETING = \"hello\"

        [tasks.test]
        run = \"echo $GREETING\"

        [tasks.lint]
        run = \"echo lint\"
    "};
    check(&Case {
        files: &[("mise.toml", config)],
        task: "test",
        keeps: &[("mise.toml", &config.replace("echo lint", "echo linting"))],
        lapses: (
            "mise.toml",
            &config.replace("GREETING = \"hello\"", "GREETING = \"bye\""),
        ),
        says: "settings of mise.toml changed",
        env: &[
            ("MISE_DATA_DIR", "mise/data"),
            ("MISE_STATE_DIR", "mise/state"),
            ("MISE_CACHE_DIR", "mise/cache"),
            ("MISE_CONFIG_DIR", "mise/config"),
            ("MISE_GLOBAL_CONFIG_FILE", "mise/config/config.toml"),
            ("MISE_TRUSTED_CONFIG_PATHS", "ROOT"),
        ],
    });
}

#[test]
fn deno() {
    require!("deno");
    let config = indoc! {"
        {
          \"name\": \"@x/y\",
          \"version\": \"1.0.0\",
          \"tasks\": {\"test\": \"echo testing\", \"lint\": \"echo lint\"}
        }
    "};
    check(&Case {
        files: &[("deno.json", config)],
        task: "test",
        keeps: &[
            ("deno.json", &config.replace("1.0.0", "1.1.0")),
            ("deno.json", &config.replace("echo lint", "echo linting")),
        ],
        lapses: (
            "deno.json",
            &config.replace(
                "\"version\"",
                "\"imports\": {\"x\": \"./x.ts\"},\n  \"version\"",
            ),
        ),
        says: "setting `imports` is now read",
        env: &[],
    });
}

#[test]
fn composer() {
    require!("composer");
    let json = indoc! {"
        {
          \"name\": \"a/b\",
          \"version\": \"1.0.0\",
          \"require\": {},
          \"scripts\": {\"test\": \"echo testing\", \"lint\": \"echo lint\"}
        }
    "};
    check(&Case {
        files: &[("composer.json", json)],
        task: "test",
        keeps: &[
            ("composer.json", &json.replace("1.0.0", "1.1.0")),
            ("composer.json", &json.replace("echo lint", "echo linting")),
        ],
        lapses: (
            "composer.json",
            &json.replace("\"require\": {}", "\"config\": {\"process-timeout\": 0}"),
        ),
        says: "setting `config` changed",
        env: &[],
    });
}

#[test]
fn scripts() {
    let root = Path::new("scripts");
    let test = root.join("test").to_string_lossy().into_owned();
    let lint = root.join("lint").to_string_lossy().into_owned();
    let attack_files = [
        (test.as_str(), "#!/bin/sh\necho testing\n"),
        (lint.as_str(), "#!/bin/sh\necho lint\n"),
    ];
    let attack = Attack::new(&attack_files);
    attack.executable(&test);
    attack.executable(&lint);
    attack.agg(&["allow", "scripts/test"]);
    let mut raw = attack.serve();
    ran(&start(&mut raw, 1, "scripts/test", &json!({})));
    attack.write(&lint, "#!/bin/sh\necho linting\n");
    ran(&start(&mut raw, 2, "scripts/test", &json!({})));
    attack.write(&test, "#!/bin/sh\ntouch MARKER\n");
    let response = lapsed(&attack, &mut raw, "scripts/test");
    assert!(
        text(&response).contains("script scripts/test changed"),
        "{response}"
    );
}
