//! Arguments as data, runner by runner with the real runners: under a plain `agg allow NAME`
//! (no `--any-args`), an agent passes values with spaces, quotes, `$( )`, backticks, `;`,
//! `= / : @ ,`, Unicode and leading dashes, and each arrives at the task exactly as sent —
//! no shell expands it, no runner reads it as its own option — so nothing leaves a marker.
//! What a runner still reads itself (yarn's and hatch's `--`, hatch's `{…}`, PDM's `${…}`,
//! go-task's `{{…}}`, a just parameter spliced into a recipe line) needs the person's
//! approval (-32016), and a control character is refused outright (-32602).

use serde_json::{Value, json};

use super::harness::{Attack, error_code, ran, refused, start, text};
use crate::common::raw::Raw;
use indoc::indoc;

/// Prints its arguments as one JSON line.
const PRINT: &str = "import json, sys\nprint('ARGV=' + json.dumps(sys.argv[1:]))\n";

/// Values an agent sends that a shell would expand or a runner could take for its own, were
/// they not passed as data; `MARKER` stands for the marker's path.
const DATA: &[&str] = &[
    "a b",
    "it's \"quoted\"",
    "$(touch MARKER)",
    "`touch MARKER`",
    "semi;colon && touch MARKER",
    "x=y:z@w,v/u",
    "é ☃ 𝄞",
    "--help",
    "-C",
    "$HOME",
    "*",
];

/// The arguments the task printed.
fn printed(response: &Value) -> Vec<String> {
    let said = text(response);
    let line = said
        .lines()
        .find_map(|l| l.strip_prefix("ARGV="))
        .unwrap_or_else(|| panic!("no ARGV line: {said}"));
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"))
}

/// One runner's project: `files` (with `print.py` added), the task the person allows, and
/// arguments the runner reads itself.
struct Case<'a> {
    files: &'a [(&'a str, &'a str)],
    task: &'a str,
    asked: &'a [&'a str],
    env: &'a [(&'a str, &'a str)],
    /// A command a person runs first (`yarn install`), if any.
    setup: &'a [&'a str],
}

#[track_caller]
fn check(case: &Case<'_>) {
    let mut files = vec![("print.py", PRINT)];
    files.extend_from_slice(case.files);
    let attack = Attack::new(&files);
    for (path, _) in case.files {
        if path.starts_with("scripts/") {
            attack.executable(path);
        }
    }
    if let [program, args @ ..] = case.setup {
        crate::common::succeeds(
            std::process::Command::new(program)
                .args(args)
                .current_dir(&attack.root),
            program,
        );
    }
    attack.agg(&["allow", case.task]);
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
    let env: Vec<(&str, &std::ffi::OsStr)> = env.iter().map(|(k, v)| (*k, v.as_os_str())).collect();
    let mut raw = Raw::start_env(&attack.root, &attack.allowlist, &[], &env);
    let data: Vec<String> = DATA.iter().map(|d| attack.text(d)).collect();
    let response = start(&mut raw, 1, case.task, &json!({"args": data}));
    ran(&response);
    assert_eq!(printed(&response), data, "{response}");
    assert!(!attack.marked(), "an argument ran as code");
    for (i, arg) in case.asked.iter().enumerate() {
        let response = start(
            &mut raw,
            10 + i as u64,
            case.task,
            &json!({"args": ["ok", arg]}),
        );
        refused(&attack, &mut raw, &response, -32016);
    }
    let response = start(&mut raw, 50, case.task, &json!({"args": ["a\nb"]}));
    refused(&attack, &mut raw, &response, -32602);
}

const PACKAGE: &str =
    r#"{"name": "t", "version": "1.0.0", "scripts": {"args": "python3 print.py"}}"#;

#[test]
fn npm() {
    require!("npm", "python3");
    check(&Case {
        files: &[("package.json", PACKAGE)],
        task: "args",
        asked: &[],
        env: &[],
        setup: &[],
    });
}

#[test]
fn pnpm() {
    require!("pnpm", "python3");
    check(&Case {
        files: &[
            ("package.json", PACKAGE),
            ("pnpm-lock.yaml", "lockfileVersion: '9.0'\n"),
        ],
        task: "args",
        asked: &[],
        env: &[],
        setup: &[],
    });
}

#[test]
fn yarn() {
    require!("yarn", "python3");
    check(&Case {
        files: &[("package.json", PACKAGE), ("yarn.lock", "")],
        task: "args",
        asked: &["--"],
        env: &[],
        setup: &["yarn", "install", "--silent"],
    });
}

#[test]
fn bun() {
    require!("bun", "python3");
    check(&Case {
        files: &[
            ("package.json", PACKAGE),
            (
                "bun.lock",
                "{\"lockfileVersion\": 1, \"workspaces\": {\"\": {\"name\": \"t\"}}}\n",
            ),
        ],
        task: "args",
        asked: &["--"],
        env: &[],
        setup: &[],
    });
}

#[test]
fn just() {
    require!("just", "python3");
    let justfile = indoc! {"
        set positional-arguments

        args *words:
            @python3 print.py \"$@\"

        say word:
            @echo {{word}}
    "};
    check(&Case {
        files: &[("justfile", justfile)],
        task: "args",
        asked: &[],
        env: &[],
        setup: &[],
    });
    // A parameter spliced into a recipe line takes plain words only.
    let attack = Attack::new(&[("justfile", justfile)]);
    attack.agg(&["allow", "say"]);
    let mut raw = attack.serve();
    ran(&start(&mut raw, 1, "say", &json!({"args": ["plain-word"]})));
    let response = start(
        &mut raw,
        2,
        "say",
        &json!({"args": [attack.text("x; touch MARKER")]}),
    );
    refused(&attack, &mut raw, &response, -32016);
}

#[test]
fn go_task() {
    require!("task", "python3");
    check(&Case {
        files: &[(
            "Taskfile.yml",
            indoc! {"
                version: '3'
                tasks:
                  args:
                    cmds:
                      - python3 print.py {{.CLI_ARGS}}
            "},
        )],
        task: "args",
        asked: &["{{.TASK}}"],
        env: &[],
        setup: &[],
    });
}

const PYPROJECT: &str = indoc! {"
    [project]
    name = \"demo\"
    version = \"0.1.0\"
    dependencies = []

    [tool.poe.tasks]
    args = \"python3 print.py\"

    [tool.pdm]
    distribution = false

    [tool.pdm.scripts]
    pargs = { cmd = [\"python3\", \"print.py\"] }

    [tool.hatch.envs.default]
    skip-install = true

    [tool.hatch.envs.default.scripts]
    hargs = \"python3 print.py {args}\"
"};

#[test]
fn poe() {
    require!("poe");
    check(&Case {
        files: &[("pyproject.toml", PYPROJECT)],
        task: "args",
        asked: &[],
        env: &[],
        setup: &[],
    });
}

#[test]
fn pdm() {
    require!("pdm");
    check(&Case {
        files: &[("pyproject.toml", PYPROJECT)],
        task: "pargs",
        asked: &["${HOME}"],
        env: &[],
        setup: &[],
    });
}

#[test]
fn hatch() {
    require!("hatch");
    check(&Case {
        files: &[("pyproject.toml", PYPROJECT)],
        task: "hargs",
        asked: &["{env:HOME}", "--"],
        env: &[("HATCH_DATA_DIR", "hatch")],
        setup: &[],
    });
}

#[test]
fn tox() {
    require!("tox", "python3");
    check(&Case {
        files: &[(
            "tox.ini",
            indoc! {"
                [tox]
                skipsdist = true

                [testenv:args]
                skip_install = true
                allowlist_externals = python3
                commands = python3 print.py {posargs}
            "},
        )],
        task: "args",
        asked: &[],
        env: &[],
        setup: &[],
    });
}

#[test]
fn nox() {
    require!("nox", "python3");
    check(&Case {
        files: &[(
            "noxfile.py",
            indoc! {"
                import nox


                @nox.session(python=False)
                def args(session):
                    session.run(\"python3\", \"print.py\", *session.posargs)
            "},
        )],
        task: "args",
        asked: &[],
        env: &[],
        setup: &[],
    });
}

#[test]
fn deno() {
    require!("deno", "python3");
    check(&Case {
        files: &[("deno.json", r#"{"tasks": {"args": "python3 print.py"}}"#)],
        task: "args",
        asked: &[],
        env: &[],
        setup: &[],
    });
}

#[test]
fn mise() {
    require!("mise", "python3");
    check(&Case {
        files: &[("mise.toml", "[tasks.args]\nrun = \"python3 print.py\"\n")],
        task: "args",
        asked: &[],
        env: &[
            ("MISE_DATA_DIR", "mise/data"),
            ("MISE_STATE_DIR", "mise/state"),
            ("MISE_CACHE_DIR", "mise/cache"),
            ("MISE_CONFIG_DIR", "mise/config"),
            ("MISE_GLOBAL_CONFIG_FILE", "mise/config/config.toml"),
            ("MISE_TRUSTED_CONFIG_PATHS", "ROOT"),
        ],
        setup: &[],
    });
}

#[test]
fn composer() {
    require!("composer", "python3");
    check(&Case {
        files: &[(
            "composer.json",
            r#"{"name": "a/b", "scripts": {"args": "python3 print.py"}}"#,
        )],
        task: "args",
        asked: &[],
        env: &[],
        setup: &[],
    });
}

#[test]
fn scripts() {
    require!("python3");
    check(&Case {
        files: &[(
            "scripts/args",
            "#!/bin/sh\nexec python3 \"$(dirname \"$0\")/../print.py\" \"$@\"\n",
        )],
        task: "scripts/args",
        asked: &[],
        env: &[],
        setup: &[],
    });
}

#[test]
fn make_reads_every_argument_itself() {
    require!("make");
    let attack = Attack::new(&[("Makefile", "args:\n\t@echo args\n")]);
    attack.agg(&["allow", "args"]);
    let mut raw = attack.serve();
    for (id, arg) in [(1, "a b"), (2, "--eval=x:;@touch MARKER"), (3, "deploy")] {
        let response = start(&mut raw, id, "args", &json!({"args": [attack.text(arg)]}));
        refused(&attack, &mut raw, &response, -32016);
        assert!(error_code(&response).is_some());
    }
}
