//! The client matrix: `agg mcp` driven by MCP clients agg did not write — the official
//! TypeScript SDK 1.x, the official Python SDK in both lifecycles, and the MCP Inspector CLI
//! (`--strict`). Each runs `tests/clients/scenario.json`: every tool on success and on each
//! error, and every resource; the clients validate every result against the published
//! schemas. `scripts/clients.sh` installs the clients into `.tools/clients`; locally a
//! missing client skips, under `AGG_REQUIRE_RUNNERS` it fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::installed::Installed;
use crate::test::fixtures;
use indoc::indoc;

/// Where `scripts/clients.sh` put the clients, if it did.
fn clients() -> Option<PathBuf> {
    Installed {
        what: "MCP clients",
        var: "AGG_CLIENTS",
        folder: "clients",
        script: "scripts/clients.sh",
    }
    .folder(|dir| {
        dir.join("npm/node_modules/.bin/inspector").exists() && dir.join("venv/bin/python").exists()
    })
}

/// A fresh allowlist (in its own config directory) with the rules the real `agg allow` /
/// `agg deny` write when run in `repo` with each of `commands`.
fn rules(repo: &Path, commands: &[&[&str]]) -> (tempfile::TempDir, PathBuf) {
    let config = crate::common::mcp::config_dir();
    let allowlist = config.path().join("allowlist.toml");
    for args in commands {
        crate::common::mcp::agg_on_allowlist(repo, &allowlist, args);
    }
    (config, allowlist)
}

/// A repository for the scenario, its allowlist, and a PATH with make but without just.
struct Matrix {
    repo: tempfile::TempDir,
    config: tempfile::TempDir,
    allowlist: PathBuf,
    bin: tempfile::TempDir,
    clients: PathBuf,
}

impl Matrix {
    fn new(clients: PathBuf) -> Matrix {
        let repo = crate::common::repo(&[
            (
                "Makefile",
                indoc! {"
                    hello: ## Say hello
                    \t@echo hello from make

                    fail:
                    \t@echo broken >&2; exit 3

                    slow:
                    \t@echo started; sleep 30

                    deploy:
                    \t@echo deploying
                "},
            ),
            (
                "justfile",
                indoc! {"
                    # Greet someone
                    greet name:
                        @echo hi {{name}}
                "},
            ),
        ]);
        let (config, allowlist) = rules(
            repo.path(),
            &[
                &["allow", "--file", "Makefile"],
                &["allow", "--file", "justfile"],
                &["deny", "deploy"],
            ],
        );
        // The tasks need make, sh, sleep and echo; just stays missing (runner unavailable).
        let bin = tempfile::tempdir().expect("tmp");
        for tool in ["make", "sh", "sleep", "echo"] {
            let path = which::which(tool).unwrap_or_else(|_| panic!("{tool} is required"));
            std::os::unix::fs::symlink(path, bin.path().join(tool)).expect("symlink");
        }
        Matrix {
            repo,
            config,
            allowlist,
            bin,
            clients,
        }
    }

    fn node(&self) -> PathBuf {
        let local = self.clients.join("npm/node_modules/.bin/node");
        if local.exists() {
            local
        } else {
            PathBuf::from("node")
        }
    }

    /// The PATH for client processes: the clients' node first, then the machine's.
    fn client_path(&self) -> String {
        format!(
            "{}:{}",
            self.clients.join("npm/node_modules/.bin").display(),
            std::env::var("PATH").unwrap_or_default()
        )
    }

    fn server_args(&self) -> Vec<String> {
        vec![
            env!("CARGO_BIN_EXE_agg").to_owned(),
            "mcp".to_owned(),
            "--root".to_owned(),
            self.repo.path().display().to_string(),
            "--max-runs".to_owned(),
            "1".to_owned(),
            "--task-tools".to_owned(),
        ]
    }

    /// Runs a scenario client (`node ts_client.mjs …` / `python py_client.py MODE …`).
    fn scenario(&self, program: &Path, script: &str, mode: Option<&str>) -> Output {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients");
        let mut cmd = Command::new(program);
        cmd.arg(dir.join(script));
        if let Some(mode) = mode {
            cmd.arg(mode);
        }
        let server = self.server_args();
        cmd.arg(dir.join("scenario.json"))
            .arg(&server[0])
            .arg(self.repo.path())
            .args(["--max-runs", "1", "--task-tools"])
            .env("AGG_CLIENTS", &self.clients)
            .env("AGG_ALLOWLIST", &self.allowlist)
            .env("PATH", self.bin.path())
            .env("NO_COLOR", "1");
        cmd.output().expect("client")
    }

    /// Runs the Inspector CLI with `args` against agg (`extra` server arguments).
    fn inspector(&self, args: &[&str], extra: &[&str]) -> Output {
        Command::new(self.clients.join("npm/node_modules/.bin/inspector"))
            .arg("--cli")
            .args(args)
            .arg("-e")
            .arg(format!("AGG_ALLOWLIST={}", self.allowlist.display()))
            .arg("-e")
            .arg(format!("PATH={}", self.bin.path().display()))
            .arg("--")
            .args(&self.server_args()[..4])
            .args(extra)
            .env("PATH", self.client_path())
            .env("HOME", self.config.path())
            .output()
            .expect("inspector")
    }
}

/// The client matrix, when `scripts/clients.sh` installed it.
fn matrix() -> Option<Matrix> {
    clients().map(Matrix::new)
}

/// Asserts that a client exited 0 and its run of the scenario failed no step.
fn scenario_passed(what: &str, out: &Output) {
    let text = succeeded(what, out);
    assert!(text.contains(", 0 failed"), "{text}");
}

/// Asserts that a client exited 0; its report ([`report`]).
fn succeeded(what: &str, out: &Output) -> String {
    let text = report(what, out);
    assert!(out.status.success(), "{text}");
    text
}

fn report(what: &str, out: &Output) -> String {
    format!(
        "{what}: exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn the_typescript_sdk_accepts_every_result() {
    let Some(m) = matrix() else { return };
    let out = m.scenario(&m.node(), "ts_client.mjs", None);
    scenario_passed("ts-sdk", &out);
}

#[test]
fn the_python_sdk_accepts_every_result_in_both_lifecycles() {
    let Some(m) = matrix() else { return };
    let python = m.clients.join("venv/bin/python");
    for mode in ["legacy", "2026-07-28"] {
        let out = m.scenario(&python, "py_client.py", Some(mode));
        scenario_passed(&format!("python-sdk {mode}"), &out);
    }
}

#[test]
fn the_inspector_finds_every_schema_portable_and_reads_every_answer() {
    let Some(m) = matrix() else { return };
    for extra in [&[][..], &["--task-tools"][..]] {
        let out = m.inspector(&["--strict", "--method", "tools/list"], extra);
        let text = succeeded("inspector --strict tools/list", &out);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            !stderr.contains("Warning") && !stderr.contains("Error"),
            "portability findings: {text}"
        );
    }
    let ok = m.inspector(
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "task_start",
            "--tool-arg",
            "unique_name=hello",
        ],
        &[],
    );
    let text = succeeded("inspector task_start hello", &ok);
    assert!(text.contains("hello from make"), "{text}");
    // Each error is a result the Inspector reads (exit 5: "the tool returned isError"),
    // never a schema failure (exit 1).
    for (args, code) in [
        (
            vec![
                "--tool-name",
                "task_start",
                "--tool-arg",
                "unique_name=deploy",
            ],
            "-32010",
        ),
        (
            vec![
                "--tool-name",
                "task_start",
                "--tool-arg",
                "unique_name=greet",
            ],
            "-32011",
        ),
        (
            vec![
                "--tool-name",
                "describe_task",
                "--tool-arg",
                "unique_name=nope",
            ],
            "-32012",
        ),
        (
            vec!["--tool-name", "task_stop", "--tool-arg", "run_id=nope"],
            "-32012",
        ),
    ] {
        let mut all = vec!["--method", "tools/call"];
        all.extend(args);
        let out = m.inspector(&all, &[]);
        let text = report("inspector error", &out);
        assert_eq!(out.status.code(), Some(5), "{text}");
        assert!(text.contains(&format!("\"code\": {code}")), "{text}");
    }
    for args in [
        vec!["--method", "resources/list"],
        vec!["--method", "resources/templates/list"],
        vec!["--method", "resources/read", "--uri", "agg://tasks"],
    ] {
        let out = m.inspector(&args, &[]);
        let text = succeeded("inspector resources", &out);
        assert!(text.contains("agg://"), "{text}");
    }
}

/// The per-task tool schemas of a real fixture stay portable too (strict mode above covers
/// the matrix repository; this one covers every runner's parameters).
#[test]
fn per_task_tool_schemas_of_the_polyglot_fixture_are_portable() {
    let Some(m) = matrix() else { return };
    let out = Command::new(m.clients.join("npm/node_modules/.bin/inspector"))
        .args(["--cli", "--strict", "--method", "tools/list", "--"])
        .arg(env!("CARGO_BIN_EXE_agg"))
        .args(["mcp", "--task-tools", "--root"])
        .arg(fixtures().join("polyglot"))
        .env("PATH", m.client_path())
        .output()
        .expect("inspector");
    let text = succeeded("inspector --strict polyglot", &out);
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("Warning"),
        "{text}"
    );
}

/// A repository for the elicitation flows: make tasks nobody allowed, a denied one, and
/// runner-native confirmations (just `[confirm]`, go-task `prompt`, mise `confirm`) in allowed
/// files.
fn elicitation_repo() -> (tempfile::TempDir, tempfile::TempDir, PathBuf) {
    let repo = crate::common::repo(&[
        (
            "Makefile",
            indoc! {"
                hello:
                \t@echo hello
                again:
                \t@echo again
                other:
                \t@echo other
                deploy:
                \t@echo deploying
            "},
        ),
        (
            "justfile",
            indoc! {"
            [confirm]
            publish:
                @echo published
        "},
        ),
        (
            "Taskfile.yml",
            indoc! {"
                version: '3'
                tasks:
                  ship:
                    prompt: Ship it to production?
                    cmds:
                      - echo shipped
            "},
        ),
        (
            "mise.toml",
            indoc! {"
                [tasks.release]
                confirm = \"Cut a release?\"
                run = \"echo released\"
            "},
        ),
    ]);
    let (config, allowlist) = rules(
        repo.path(),
        &[
            &["deny", "deploy"],
            &["allow", "--file", "justfile"],
            &["allow", "--file", "Taskfile.yml"],
            &["allow", "--file", "mise.toml"],
        ],
    );
    (repo, config, allowlist)
}

#[test]
fn the_python_sdk_asks_the_user_through_elicitation_in_both_lifecycles() {
    let Some(clients) = clients() else { return };
    require!("just", "task", "mise");
    for mode in ["legacy", "2026-07-28"] {
        let (repo, _config, allowlist) = elicitation_repo();
        // mise keeps what it records (trusting the repository) out of the developer's home.
        let mise_state = tempfile::tempdir().expect("mise state");
        let out = Command::new(clients.join("venv/bin/python"))
            .env("MISE_STATE_DIR", mise_state.path().join("state"))
            .env("MISE_DATA_DIR", mise_state.path().join("data"))
            .env("MISE_CACHE_DIR", mise_state.path().join("cache"))
            .env("MISE_CONFIG_DIR", mise_state.path().join("config"))
            .env("MISE_OFFLINE", "1")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/py_elicit.py"))
            .arg(mode)
            .arg(env!("CARGO_BIN_EXE_agg"))
            .arg(repo.path())
            .arg(&allowlist)
            .env("AGG_ALLOWLIST", &allowlist)
            .output()
            .expect("python");
        scenario_passed(&format!("python-sdk elicitation {mode}"), &out);
    }
}

#[test]
fn the_typescript_sdk_asks_the_user_through_elicitation() {
    let Some(clients) = clients() else { return };
    require!("just", "task");
    let (repo, _config, allowlist) = elicitation_repo();
    let local = clients.join("npm/node_modules/.bin/node");
    let node = if local.exists() {
        local
    } else {
        PathBuf::from("node")
    };
    let out = Command::new(node)
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/ts_elicit.mjs"))
        .arg(env!("CARGO_BIN_EXE_agg"))
        .arg(repo.path())
        .arg(&allowlist)
        .env("AGG_ALLOWLIST", &allowlist)
        .env("AGG_CLIENTS", &clients)
        .output()
        .expect("node");
    scenario_passed("ts-sdk elicitation", &out);
}
