//! The hosts themselves: Claude Code, Codex, Gemini CLI, Qwen Code and opencode, installed
//! by `scripts/hosts.sh` into `.tools/hosts`, each configured exactly as `agg mcp
//! --print-config` says, in a home of its own (no user state, offline). Each host's own
//! `mcp list` (Codex: `codex exec`) must report agg connected, after the step the printed
//! note names. Then a scripted model (`tests/clients/model_server.py`, on 127.0.0.1) drives
//! a whole round through each host, pointed at it as a custom endpoint: `list_tasks`, `task_start`
//! of an allowed task, `task_start` of one nobody allowed, `task_output`; the test reads what
//! the host fed back to the model. Every host runs in its own process group, under a
//! deadline, and the group is killed when it ends.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::installed::{Installed, tools_folder};
use crate::test::Test;
use indoc::indoc;

/// What the scripted round asks each host.
const PROMPT: &str = "Run the tests of this repository";

/// Gemini CLI's one-shot prompt, unattended, answering in JSON; Qwen Code, a fork of it,
/// takes the same flags.
const GEMINI_FLAGS: [&str; 6] = ["-p", PROMPT, "--approval-mode", "yolo", "-o", "json"];

/// How long one host command may take.
const DEADLINE: Duration = Duration::from_secs(150);

/// Where `scripts/hosts.sh` put the hosts, if it did.
fn hosts() -> Option<PathBuf> {
    let dir = Installed {
        what: "MCP hosts",
        var: "AGG_HOSTS",
        folder: "hosts",
        script: "scripts/hosts.sh",
    }
    .folder(|dir| {
        ["claude", "codex", "gemini", "qwen", "opencode"]
            .iter()
            .all(|host| dir.join("node_modules/.bin").join(host).exists())
    })?;
    Some(dir.join("node_modules/.bin"))
}

/// What a host command did.
struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
    timed_out: bool,
}

impl Ran {
    /// stdout and stderr together (hosts differ in which one `mcp list` writes).
    fn all(&self) -> String {
        format!("{}{}", self.stdout, self.stderr)
    }

    fn report(&self, what: &str) -> String {
        format!(
            "{what}: exit {:?}{}\n--- stdout\n{}\n--- stderr\n{}",
            self.code,
            if self.timed_out { " (timed out)" } else { "" },
            self.stdout,
            self.stderr
        )
    }
}

/// Kills a process group, whatever is left of it.
fn kill_group(pid: u32) {
    if let Ok(pid) = i32::try_from(pid) {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

/// Runs `cmd` in a process group of its own, its output in files, and kills the whole group
/// when it ends or at the deadline: neither the host nor the agg it started outlives it.
fn run(mut cmd: Command, scratch: &Path) -> Ran {
    let out = scratch.join("stdout");
    let err = scratch.join("stderr");
    cmd.stdin(Stdio::null())
        .stdout(std::fs::File::create(&out).expect("stdout file"))
        .stderr(std::fs::File::create(&err).expect("stderr file"))
        .process_group(0);
    let mut child = cmd.spawn().expect("host starts");
    let deadline = Instant::now() + DEADLINE;
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break Some(status);
        }
        if Instant::now() > deadline {
            timed_out = true;
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    kill_group(child.id());
    let _ = child.wait();
    Ran {
        code: status.and_then(|s| s.code()),
        stdout: std::fs::read_to_string(out).unwrap_or_default(),
        stderr: std::fs::read_to_string(err).unwrap_or_default(),
        timed_out,
    }
}

/// The scripted model on 127.0.0.1, killed (its whole group) when dropped.
struct Model {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl Model {
    fn start(dir: &Path, allowed: &str, refused: &str) -> Model {
        let port_file = dir.join("model.port");
        let log = dir.join("model.jsonl");
        let child = Command::new("python3")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients/model_server.py"))
            .arg(&port_file)
            .arg(&log)
            .args([allowed, refused])
            .stdin(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("python3 runs the scripted model");
        let deadline = Instant::now() + Duration::from_secs(20);
        let port = loop {
            if let Some(port) = std::fs::read_to_string(&port_file)
                .ok()
                .and_then(|p| p.trim().parse().ok())
            {
                break port;
            }
            assert!(
                Instant::now() < deadline,
                "the scripted model did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        Model { child, port, log }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every request the host sent, in order.
    fn requests(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .collect()
    }

    /// Forgets what was recorded (a new run).
    fn clear(&self) {
        let _ = std::fs::remove_file(&self.log);
    }
}

impl Drop for Model {
    fn drop(&mut self) {
        kill_group(self.child.id());
        let _ = self.child.wait();
    }
}

/// A tool result as the host fed it back to the model.
#[derive(Debug)]
struct Fed {
    text: String,
    error: bool,
}

/// The text of a content value: a string, or a list of text blocks.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .map(|item| {
                item.get("text")
                    .and_then(Value::as_str)
                    .map_or_else(|| item.to_string(), str::to_owned)
            })
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    }
}

/// The tool results of the longest conversation the host sent (its last turn carries them
/// all), in order, whatever the API.
fn fed_back(requests: &[Value]) -> Vec<Fed> {
    let mut best: Vec<Fed> = Vec::new();
    for request in requests {
        let body = &request["body"];
        let mut fed = Vec::new();
        for message in body["messages"].as_array().into_iter().flatten() {
            if message["role"] == "tool" {
                let text = text_of(&message["content"]);
                fed.push(Fed {
                    error: text.contains("error -3") || text.contains("tool error"),
                    text,
                });
                continue;
            }
            for block in message["content"].as_array().into_iter().flatten() {
                if block["type"] == "tool_result" {
                    fed.push(Fed {
                        text: text_of(&block["content"]),
                        error: block["is_error"] == true,
                    });
                }
            }
        }
        for item in body["input"].as_array().into_iter().flatten() {
            if item["type"] == "function_call_output" {
                let text = text_of(&item["output"]);
                fed.push(Fed {
                    error: text.contains("error -3"),
                    text,
                });
            }
        }
        for content in body["contents"].as_array().into_iter().flatten() {
            for part in content["parts"].as_array().into_iter().flatten() {
                let response = &part["functionResponse"]["response"];
                if response.is_object() {
                    let error = response.get("error").is_some();
                    let text = response
                        .get("output")
                        .or_else(|| response.get("error"))
                        .map_or_else(|| response.to_string(), text_of);
                    fed.push(Fed { text, error });
                }
            }
        }
        if fed.len() > best.len() {
            best = fed;
        }
    }
    best
}

/// Whether the first request that offered the model any tools already offered agg's.
fn first_request_had_agg(requests: &[Value]) -> bool {
    requests
        .iter()
        .map(|r| r["body"].to_string())
        .find(|body| body.contains("\"tools\""))
        .is_some_and(|body| body.contains("list_tasks"))
}

/// A repository with a task the user allowed (`test`) and one nobody allowed (`deploy`),
/// and a home of its own holding agg's allowlist where every host finds it: Codex passes
/// servers `HOME` but not `XDG_CONFIG_HOME`.
struct Sandbox {
    repo: PathBuf,
    home: PathBuf,
    scratch: PathBuf,
    bin: PathBuf,
    _dir: tempfile::TempDir,
}

impl Sandbox {
    /// A sandbox for the hosts `scripts/hosts.sh` installed; none when they are not there
    /// (the test then skips, or fails under `AGG_REQUIRE_RUNNERS`).
    fn with_hosts() -> Option<Sandbox> {
        hosts().map(Sandbox::new)
    }

    fn new(bin: PathBuf) -> Sandbox {
        let dir = tempfile::tempdir().expect("tmp");
        // Canonical: hosts key trust and approvals by the real path.
        let base = std::fs::canonicalize(dir.path()).expect("canonical");
        let (repo, home, scratch) = (base.join("repo"), base.join("home"), base.join("scratch"));
        for d in [&repo, &home, &scratch] {
            std::fs::create_dir_all(d).expect("mkdir");
        }
        std::fs::write(
            repo.join("Makefile"),
            indoc! {"
                test: ## Run the tests
                \t@echo \"3 tests passed\"

                deploy: ## Ship it
                \t@echo deploying
            "},
        )
        .expect("Makefile");
        let sandbox = Sandbox {
            repo,
            home,
            scratch,
            bin,
            _dir: dir,
        };
        let out = sandbox.agg(&["allow", "test"]);
        assert!(out.status.success(), "{out:?}");
        assert!(
            sandbox.home.join(".config/agg/allowlist.toml").exists(),
            "agg allow wrote the allowlist under HOME"
        );
        sandbox
    }

    /// The PATH hosts run with: the hosts, Node.js 22 from the client matrix when it is
    /// there, then the machine's (make, python3, git).
    fn path(&self) -> String {
        let clients = tools_folder("AGG_CLIENTS", "clients");
        format!(
            "{}:{}:{}",
            self.bin.display(),
            clients.join("npm/node_modules/.bin").display(),
            std::env::var("PATH").unwrap_or_default()
        )
    }

    /// Runs agg in the repository with the sandbox's home.
    fn agg(&self, args: &[&str]) -> std::process::Output {
        Command::new(env!("CARGO_BIN_EXE_agg"))
            .args(args)
            .current_dir(&self.repo)
            .env("HOME", &self.home)
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("AGG_ALLOWLIST")
            .output()
            .expect("agg")
    }

    /// `agg mcp --print-config HOST [--scope SCOPE]`: the snippet and the note.
    fn print_config(&self, host: &str, scope: &str) -> (String, String) {
        let out = self.agg(&["mcp", "--print-config", host, "--scope", scope]);
        assert!(out.status.success(), "{out:?}");
        (
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// The entry `agg mcp --print-config HOST --scope SCOPE` prints, its note asserted to
    /// name `place` (the file it goes in, or the step that enables it).
    fn printed(&self, host: &str, scope: &str, place: &str) -> String {
        let (snippet, note) = self.print_config(host, scope);
        assert!(note.contains(place), "{note}");
        snippet
    }

    /// The scripted model, which runs `test` (allowed) and then `deploy` (allowed by nobody).
    fn model(&self) -> Model {
        Model::start(&self.scratch, "test", "deploy")
    }

    /// `HOST ARGS…` ([`Sandbox::host`]).
    fn asked(&self, program: &str, args: &[&str]) -> Command {
        let mut cmd = self.host(program);
        cmd.args(args);
        cmd
    }

    /// Writes the printed snippet where the note says it goes (a path under the repository
    /// or `~`).
    fn install(&self, file: &str, snippet: &str) -> PathBuf {
        let path = match file.strip_prefix("~/") {
            Some(rest) => self.home.join(rest),
            None => self.repo.join(file),
        };
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, snippet).expect("write config");
        path
    }

    /// A host command with nothing of the developer's environment but PATH.
    fn host(&self, program: &str) -> Command {
        let mut cmd = Command::new(self.bin.join(program));
        cmd.env_clear()
            .current_dir(&self.repo)
            .env("PATH", self.path())
            .env("HOME", &self.home)
            .env("TERM", "dumb")
            .env("NO_COLOR", "1")
            .env("LANG", "C.UTF-8");
        cmd
    }

    fn run(&self, cmd: Command) -> Ran {
        run(cmd, &self.scratch)
    }

    /// `HOST mcp list`, asserted to say every one of `says`.
    fn mcp_list(&self, host: &str, says: &[&str], what: &str) {
        let mut list = self.host(host);
        list.args(["mcp", "list"]);
        let listed = self.run(list);
        let all = listed.all();
        assert!(
            says.iter().all(|s| all.contains(s)),
            "{}",
            listed.report(what)
        );
    }

    /// Runs a host's round against `model`: it must end well, saying the scripted model's last
    /// words; returns what it fed back to the model, asserted useful ([`assert_round`]).
    fn round(&self, cmd: Command, model: &Model, title: &str, what: &str) -> Vec<Fed> {
        let ran = self.run(cmd);
        let report = ran.report(what);
        assert_eq!(ran.code, Some(0), "{report}");
        assert!(ran.stdout.contains("agg round finished"), "{report}");
        let fed = fed_back(&model.requests());
        assert_round(title, &fed, &report);
        fed
    }
}

/// The round's four results, asserted useful to a model: the task names, the run's result,
/// an actionable refusal, the output again.
fn assert_round(host: &str, fed: &[Fed], report: &str) {
    assert!(
        fed.len() >= 4,
        "{host} fed back {} results: {fed:#?}\n{report}",
        fed.len()
    );
    let (list, ran, refused, output) = (&fed[0], &fed[1], &fed[2], &fed[3]);
    assert!(
        !list.error && list.text.contains("test") && list.text.contains("deploy"),
        "{host} list_tasks: {list:?}"
    );
    assert!(
        !ran.error && ran.text.contains("3 tests passed"),
        "{host} task_start test: {ran:?}"
    );
    assert!(
        refused.error
            && refused.text.contains("-32010")
            && refused.text.contains("agg allow deploy"),
        "{host} task_start deploy must be refused with the command that allows it: {refused:?}"
    );
    assert!(
        !output.error && output.text.contains("3 tests passed"),
        "{host} task_output: {output:?}"
    );
}

#[test]
fn claude_code_approves_the_printed_project_entry_and_runs_a_round() {
    let Some(s) = Sandbox::with_hosts() else {
        return;
    };
    let (snippet, note) = s.print_config("claude", "project");
    assert!(
        note.contains(".mcp.json") && note.contains("enabledMcpjsonServers"),
        "{note}"
    );
    s.install(".mcp.json", &snippet);
    // Claude Code trusts the folder once a person said so (its first-start dialog).
    std::fs::write(
        s.home.join(".claude.json"),
        serde_json::json!({"projects": {s.repo.display().to_string(): {"hasTrustDialogAccepted": true}}})
            .to_string(),
    )
    .expect("trust");
    s.mcp_list(
        "claude",
        &["agg:", "Pending approval"],
        "claude mcp list before approval",
    );
    // The approval the note names.
    s.install(
        ".claude/settings.local.json",
        r#"{"enabledMcpjsonServers": ["agg"]}"#,
    );
    s.mcp_list("claude", &["agg:", "Connected"], "claude mcp list");

    let model = s.model();
    let mut cmd = s.asked(
        "claude",
        &[
            "-p",
            PROMPT,
            "--output-format",
            "json",
            "--allowedTools",
            "mcp__agg",
        ],
    );
    cmd.env("ANTHROPIC_BASE_URL", model.url())
        .env("ANTHROPIC_API_KEY", "sk-scripted")
        .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
        .env("DISABLE_AUTOUPDATER", "1")
        // Claude Code otherwise offers MCP tools only through its tool search.
        .env("ENABLE_TOOL_SEARCH", "false");
    let fed = s.round(cmd, &model, "Claude Code", "claude -p");
    // Claude Code hands the model structuredContent (JSON), not the text.
    assert!(fed[0].text.starts_with("{\"root\""), "{:?}", fed[0]);
    assert!(fed[1].text.contains("\"passed\":true"), "{:?}", fed[1]);
    // In -p mode Claude Code answers agg's question itself, without a person.
    assert!(fed[2].text.contains("declined by the user"), "{:?}", fed[2]);
}

#[test]
fn codex_reads_the_printed_entry_and_runs_a_round() {
    let Some(s) = Sandbox::with_hosts() else {
        return;
    };
    let snippet = s.printed("codex", "user", "~/.codex/config.toml");
    let model = s.model();
    // The scripted model as a provider, then agg's entry exactly as printed.
    let provider = format!(
        "model = \"scripted\"\nmodel_provider = \"scripted\"\n\n[model_providers.scripted]\n\
         name = \"scripted\"\nbase_url = \"{}/v1\"\nwire_api = \"responses\"\nenv_key = \"SCRIPTED_API_KEY\"\n\n",
        model.url()
    );
    s.install("~/.codex/config.toml", &format!("{provider}{snippet}"));
    s.mcp_list("codex", &["agg", "enabled"], "codex mcp list");
    // `codex mcp list` does not connect; `codex exec` does. Codex sometimes sends the first
    // model request before agg's tools are listed: such a run is tried again.
    let mut attempts = Vec::new();
    let (ran, requests) = loop {
        model.clear();
        let mut cmd = s.asked(
            "codex",
            &[
                "exec",
                "--skip-git-repo-check",
                // No person approves tool calls in `codex exec`; agg's allowlist still decides.
                "-c",
                "mcp_servers.agg.default_tools_approval_mode=\"approve\"",
                PROMPT,
            ],
        );
        cmd.env("SCRIPTED_API_KEY", "scripted");
        let ran = s.run(cmd);
        let requests = model.requests();
        let early = !first_request_had_agg(&requests);
        attempts.push(early);
        if !early || attempts.len() == 3 {
            break (ran, requests);
        }
    };
    eprintln!(
        "codex exec attempts (true: the model was asked before agg's tools were there): {attempts:?}"
    );
    let report = ran.report("codex exec");
    assert_eq!(ran.code, Some(0), "{report}");
    let fed = fed_back(&requests);
    assert_round("Codex", &fed, &report);
    // Codex hands the model structuredContent (JSON), not the text.
    assert!(fed[0].text.contains("{\"root\""), "{:?}", fed[0]);
    assert!(fed[2].text.contains("declined by the user"), "{:?}", fed[2]);
}

#[test]
fn gemini_cli_in_a_trusted_folder_runs_a_round() {
    let Some(s) = Sandbox::with_hosts() else {
        return;
    };
    let snippet = s.printed("gemini", "project", "trustedFolders.json");
    s.install(".gemini/settings.json", &snippet);
    s.install(
        "~/.gemini/settings.json",
        r#"{"security": {"auth": {"selectedType": "gemini-api-key"}}}"#,
    );
    s.mcp_list(
        "gemini",
        &["Disabled"],
        "gemini mcp list in an untrusted folder",
    );
    // The trust the note names.
    s.install(
        "~/.gemini/trustedFolders.json",
        &serde_json::json!({s.repo.display().to_string(): "TRUST_FOLDER"}).to_string(),
    );
    s.mcp_list("gemini", &["agg:", "Connected"], "gemini mcp list");

    let model = s.model();
    let mut cmd = s.asked("gemini", &GEMINI_FLAGS);
    cmd.env("GEMINI_API_KEY", "scripted")
        .env("GOOGLE_GEMINI_BASE_URL", model.url());
    let fed = s.round(cmd, &model, "Gemini CLI", "gemini -p");
    // Gemini CLI hands the model the text, and declares no elicitation: agg refuses with the
    // command that allows the task.
    assert!(fed[0].text.contains("2 of 2 tasks"), "{:?}", fed[0]);
    assert!(fed[2].text.contains("not allowlisted"), "{:?}", fed[2]);
}

#[test]
fn qwen_code_connects_once_the_project_entry_is_approved_and_runs_a_round() {
    let Some(s) = Sandbox::with_hosts() else {
        return;
    };
    let snippet = s.printed("qwen", "project", "qwen mcp approve agg");
    s.install(".qwen/settings.json", &snippet);
    s.mcp_list(
        "qwen",
        &["Pending approval"],
        "qwen mcp list before approval",
    );
    let mut approve = s.host("qwen");
    approve.args(["mcp", "approve", "agg"]);
    let approved = s.run(approve);
    assert_eq!(
        approved.code,
        Some(0),
        "{}",
        approved.report("qwen mcp approve")
    );
    s.mcp_list("qwen", &["agg:", "Connected"], "qwen mcp list");

    // An OpenAI-compatible endpoint: the scripted model.
    s.install(
        "~/.qwen/settings.json",
        r#"{"security": {"auth": {"selectedType": "openai"}}}"#,
    );
    let model = s.model();
    let mut cmd = s.asked("qwen", &GEMINI_FLAGS);
    cmd.env("OPENAI_API_KEY", "scripted")
        .env("OPENAI_BASE_URL", format!("{}/v1", model.url()))
        .env("OPENAI_MODEL", "scripted");
    let fed = s.round(cmd, &model, "Qwen Code", "qwen -p");
    // Qwen Code hands the model both: structuredContent, then the text.
    assert!(
        fed[0].text.starts_with("{\"root\"") && fed[0].text.contains("2 of 2 tasks"),
        "{:?}",
        fed[0]
    );
    // No elicitation: the refusal names the command that allows the task.
    assert!(fed[2].text.contains("not allowlisted"), "{:?}", fed[2]);
}

#[test]
fn opencode_connects_with_the_printed_project_entry_and_runs_a_round() {
    let Some(s) = Sandbox::with_hosts() else {
        return;
    };
    let snippet = s.printed("opencode", "project", "opencode.json");
    s.install("opencode.json", &snippet);
    s.mcp_list("opencode", &["agg", "connected"], "opencode mcp list");

    // opencode's bundled Anthropic provider, pointed at the scripted model, beside agg's
    // entry exactly as printed.
    let model = s.model();
    let mut config: Value = serde_json::from_str(&snippet).expect("printed JSON");
    config["provider"] = serde_json::json!({"anthropic": {"options": {
        "baseURL": format!("{}/v1", model.url()),
        "apiKey": "sk-scripted"
    }}});
    config["model"] = Value::from("anthropic/claude-sonnet-4-5");
    s.install("opencode.json", &config.to_string());
    let mut cmd = s.asked("opencode", &["run", PROMPT]);
    cmd.env("OPENCODE_DISABLE_AUTOUPDATE", "1")
        .env("OPENCODE_DISABLE_MODELS_FETCH", "1");
    let fed = s.round(cmd, &model, "opencode", "opencode run");
    // opencode hands the model the text, and declares no elicitation.
    assert!(fed[0].text.starts_with("2 of 2 tasks"), "{:?}", fed[0]);
    assert!(fed[2].text.contains("not allowlisted"), "{:?}", fed[2]);
}

const HOSTS: [&str; 9] = [
    "claude", "cursor", "vscode", "codex", "gemini", "qwen", "opencode", "zed", "windsurf",
];

/// Every host's entry, in both scopes, as the npm package starts agg (a command that is the
/// same on every machine): the file content on stdout, where it goes on stderr.
#[test]
fn print_config_gives_every_host_its_entry_in_both_scopes() {
    use std::fmt::Write as _;
    let mut all = String::new();
    for host in HOSTS {
        for scope in ["project", "user"] {
            let out = Test::new()
                .args([
                    "mcp",
                    "--print-config",
                    host,
                    "--scope",
                    scope,
                    "--via",
                    "npx",
                ])
                .run();
            let _ = write!(
                all,
                "=== {host} --scope {scope}: exit {:?}\n--- stdout\n{}--- stderr\n{}",
                out.code, out.stdout, out.stderr
            );
            if out.code == Some(0) && host != "codex" {
                let parsed: Value = serde_json::from_str(&out.stdout)
                    .unwrap_or_else(|e| panic!("{host}: not JSON ({e}): {}", out.stdout));
                assert!(parsed.to_string().contains("task-agg"), "{host}: {parsed}");
            }
        }
    }
    insta::assert_snapshot!(all);
}

#[test]
fn print_config_via_uvx_starts_the_pypi_package() {
    let out = Test::new()
        .args([
            "mcp",
            "--print-config",
            "codex",
            "--via",
            "uvx",
            "--scope",
            "user",
        ])
        .run()
        .success();
    assert_eq!(
        out.stdout,
        indoc! {"
            [mcp_servers.agg]
            command = \"uvx\"
            args = [\"--from\", \"task-agg\", \"agg\", \"mcp\"]
        "}
    );
    out.stderr_has("codex mcp add agg -- uvx --from task-agg agg mcp");
}

/// `--via agg` names this binary by its absolute path, unless `agg` on PATH is this very
/// file: the entry must start the agg that printed it.
#[test]
fn print_config_names_this_binary_unless_path_finds_it() {
    let me = env!("CARGO_BIN_EXE_agg");
    let elsewhere = cursor_entry(Path::new("/usr/bin:/bin"));
    assert_eq!(elsewhere["command"], me);
    assert_eq!(
        elsewhere["args"],
        serde_json::json!(["mcp", "--root", "${workspaceFolder}"])
    );
    let bin = tempfile::tempdir().expect("tmp");
    std::os::unix::fs::symlink(me, bin.path().join("agg")).expect("symlink");
    assert_eq!(cursor_entry(bin.path())["command"], "agg");
}

/// agg's entry in what `agg mcp --print-config cursor` prints when run with `PATH`.
fn cursor_entry(path: &Path) -> Value {
    Test::new()
        .env("PATH", path)
        .args(["mcp", "--print-config", "cursor"])
        .run()
        .success()
        .json()["mcpServers"]["agg"]
        .clone()
}

#[test]
fn a_scope_the_host_has_no_file_for_is_refused_naming_the_file() {
    let out = Test::new()
        .args(["mcp", "--print-config", "windsurf", "--scope", "project"])
        .run()
        .code(2);
    assert_eq!(out.stdout, "");
    out.stderr_has("~/.codeium/windsurf/mcp_config.json");
}

#[test]
fn via_and_scope_need_print_config() {
    let out = Test::new().args(["mcp", "--via", "npx"]).run().code(2);
    out.stderr_has("--print-config");
}
