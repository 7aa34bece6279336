//! Terminal injection: control characters, bidi overrides and newlines in names, descriptions, directories and output.
//!
//! The attacker writes the repository (or the task an agent starts) and waits for a person to
//! run `agg list`, `describe`, `run`, `ps`, `stop` or `logs` in a terminal: an OSC 52 sequence
//! would set their clipboard, a title sequence retitle their window, a CR or a newline draw a
//! row agg never listed, a U+202E reverse what they read. Each command runs under a real
//! pseudo-terminal (so agg colours its output, as it does for a person) and the bytes it
//! writes may hold agg's own colours and nothing else that a terminal obeys.

use std::io::Read;
use std::os::fd::OwnedFd;
use std::process::{Command, Stdio};

use serde_json::json;

use crate::common::have;
use crate::common::mcp::Mcp;
use crate::test::Test;
use indoc::formatdoc;

/// OSC 52: put `rm -rf ~` (base64) on the clipboard.
const OSC52: &str = "\x1b]52;c;cm0gLXJmIH4=\x07";
/// OSC 0: set the window title.
const TITLE: &str = "\x1b]0;pwned\x07";

/// A repository whose every visible part is hostile: script names (package.json can say
/// anything), Makefile and justfile descriptions, a target name and a directory name.
fn hostile_repo() -> Test {
    let scripts = json!({
        "name": "victim",
        "scripts": {
            format!("deploy{OSC52}"): "echo clipboard",
            format!("title{TITLE}"): "echo title",
            "ok\rEVIL": "echo cr",
            "two\n  fake  npm  $ npm run fake": "echo newline",
            "txt.\u{202e}exe": "echo bidi",
            "deploy\x1b[8m": "echo concealed",
        }
    });
    Test::new()
        .write("package.json", scripts.to_string())
        .write(
            "Makefile",
            formatdoc!(
                "
                    ## Build it{OSC52} now\u{202e}
                    build:
                    \t@echo built

                    clear\x1b[2J:
                    \t@echo x
                "
            ),
        )
        .write(
            "justfile",
            format!("# doc {TITLE} line\rfake  just  $ just fake\u{2066}\nrecipe:\n    echo hi\n"),
        )
        .write(
            &format!("apps/we\nb  fake  make  $ make fake{TITLE}/Makefile"),
            "lint:\n\t@echo lint\n",
        )
}

/// Runs `cmd` with a pseudo-terminal as its stdout and stderr (raw, so every byte it writes
/// arrives as written) and returns its exit code and what it wrote.
fn at_terminal(mut cmd: Command) -> (i32, String) {
    use nix::sys::termios::{SetArg, cfmakeraw, tcgetattr, tcsetattr};
    let pty = nix::pty::openpty(None, None).expect("openpty");
    let mut mode = tcgetattr(&pty.slave).expect("tcgetattr");
    cfmakeraw(&mut mode);
    tcsetattr(&pty.slave, SetArg::TCSANOW, &mode).expect("tcsetattr");
    let err: OwnedFd = pty.slave.try_clone().expect("dup");
    cmd.stdin(Stdio::null())
        .stdout(Stdio::from(pty.slave))
        .stderr(Stdio::from(err))
        .env_remove("NO_COLOR")
        .env("TERM", "xterm-256color");
    let mut child = cmd.spawn().expect("spawn agg");
    // The command holds the terminal's other end: once it is gone, the child's exit ends
    // the read.
    drop(cmd);
    let mut bytes = Vec::new();
    // Linux reports EIO once no process holds the terminal; what came before is kept.
    let _ = std::fs::File::from(pty.master).read_to_end(&mut bytes);
    let status = child.wait().expect("wait");
    (
        status.code().unwrap_or(-1),
        String::from_utf8_lossy(&bytes).into_owned(),
    )
}

fn agg() -> Command {
    Command::new(env!("CARGO_BIN_EXE_agg"))
}

/// What a terminal would obey in `shown`, once agg's own colours (SGR) are set aside.
fn obeyed(shown: &str) -> Vec<String> {
    let mut bad = Vec::new();
    let mut chars = shown.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' && chars.peek() == Some(&'[') {
            let mut seq = String::from("\x1b[");
            chars.next();
            while let Some(&d) = chars.peek() {
                chars.next();
                seq.push(d);
                if !(d.is_ascii_digit() || d == ';') {
                    break;
                }
            }
            if !seq.ends_with('m') {
                bad.push(format!("{seq:?}"));
            }
            continue;
        }
        let invisible = matches!(u32::from(c), 0x200B..=0x200F | 0x202A..=0x202E | 0x2066..=0x2069);
        if (c.is_control() && c != '\n') || invisible {
            bad.push(format!("{c:?}"));
        }
    }
    bad
}

#[track_caller]
fn assert_inert(shown: &str) {
    let bad = obeyed(shown);
    assert!(
        bad.is_empty(),
        "the terminal would obey {bad:?} in:\n{shown}"
    );
    assert!(
        !shown.lines().any(|l| l.trim_start().starts_with("fake")),
        "a row agg never listed:\n{shown}"
    );
}

#[test]
fn the_checker_sees_what_a_terminal_obeys() {
    assert!(obeyed("\x1b[1m\x1b[36mbuild\x1b[0m ok\n").is_empty());
    for hostile in [
        OSC52, TITLE, "a\rb", "\x07", "\u{202e}", "\x1b[2J", "\u{9b}",
    ] {
        assert!(!obeyed(hostile).is_empty(), "{hostile:?}");
    }
}

#[test]
fn list_shows_every_hostile_name_description_and_directory_as_escapes() {
    let dir = hostile_repo().into_tempdir();
    let root = dir.path();
    let tasks = Test::at(root)
        .args(["list", "--json"])
        .run()
        .success()
        .json()["tasks"]
        .as_array()
        .map_or(0, Vec::len);
    assert_eq!(tasks, 10, "every hostile task is listed");
    // Cut to the terminal's width, a row stays inert…
    let mut list = agg();
    list.arg("list").current_dir(root);
    let (code, shown) = at_terminal(list);
    assert_eq!(code, 0, "{shown}");
    assert_inert(&shown);
    // …and whole, every escape is there to read.
    let mut list = agg();
    list.args(["list", "--wide"]).current_dir(root);
    let (code, shown) = at_terminal(list);
    assert_eq!(code, 0, "{shown}");
    assert_inert(&shown);
    for escaped in [
        r"deploy\e]52;c;cm0gLXJmIH4=\x07",
        r"title\e]0;pwned\x07",
        r"ok\rEVIL",
        r"two\n  fake  npm  $ npm run fake",
        r"txt.\u{202e}exe",
        r"deploy\e[8m",
        r"clear\e[2J",
        r"Build it\e]52;c;cm0gLXJmIH4=\x07 now\u{202e}",
        r"apps/we\nb  fake  make  $ make fake\e]0;pwned\x07",
    ] {
        assert!(shown.contains(escaped), "{escaped} in:\n{shown}");
    }
    let rows = shown.lines().filter(|l| l.starts_with("  ")).count();
    assert_eq!(rows, tasks, "one row per task:\n{shown}");
    // Piped, the same escapes (nothing is silently stripped).
    let piped = Test::at(root).args(["list"]).run().success();
    assert_inert(&piped.stdout);
    assert_inert(&piped.stderr);
    piped.stdout_has(r"deploy\e]52;c;cm0gLXJmIH4=\x07");
}

#[test]
fn list_json_keeps_the_names_exact() {
    let json = hostile_repo()
        .args(["list", "--json"])
        .run()
        .success()
        .json();
    let names = crate::test::names(&json);
    assert!(names.contains(&format!("deploy{OSC52}")), "{names:?}");
    assert!(names.contains(&"ok\rEVIL".to_owned()), "{names:?}");
}

#[test]
fn describe_shows_a_hostile_task_as_escapes() {
    let test = hostile_repo();
    let root = test.root().to_path_buf();
    for (name, escaped) in [
        (format!("deploy{OSC52}"), r"deploy\e]52;c;cm0gLXJmIH4=\x07"),
        (
            "build".to_owned(),
            r"Build it\e]52;c;cm0gLXJmIH4=\x07 now\u{202e}",
        ),
        ("recipe".to_owned(), r"doc \e]0;pwned\x07 line"),
        (
            format!("apps/we\nb  fake  make  $ make fake{TITLE}/lint"),
            r"apps/we\nb  fake  make  $ make fake\e]0;pwned\x07",
        ),
    ] {
        let mut describe = agg();
        describe.args(["describe", &name]).current_dir(&root);
        let (code, shown) = at_terminal(describe);
        assert_eq!(code, 0, "{shown}");
        assert_inert(&shown);
        assert!(shown.contains(escaped), "{escaped} in:\n{shown}");
    }
    // `describe --json` stays exact.
    let json = Test::at(&root)
        .args(["describe", "recipe", "--json"])
        .run()
        .success()
        .json();
    let description = json["description"].as_str().unwrap_or_default();
    assert!(description.contains(TITLE), "{json}");
}

#[test]
fn a_look_alike_name_is_suggested_in_a_form_that_looks_different() {
    let test = hostile_repo();
    let root = test.root().to_path_buf();
    let mut describe = agg();
    describe.args(["describe", "deploy"]).current_dir(&root);
    let (code, shown) = at_terminal(describe);
    assert_eq!(code, 2, "{shown}");
    assert_inert(&shown);
    assert!(
        shown.contains(r"did you mean: deploy\e[8m, deploy\e]52;c;cm0gLXJmIH4=\x07?"),
        "{shown}"
    );
    // The typed name and a suggestion never print alike.
    assert!(!shown.contains("did you mean: deploy?"), "{shown}");
    let mut run = agg();
    run.args(["run", "ok"]).current_dir(&root);
    let (code, shown) = at_terminal(run);
    assert_eq!(code, 2, "{shown}");
    assert_inert(&shown);
    assert!(shown.contains(r"ok\rEVIL"), "{shown}");
}

#[test]
fn run_messages_quote_a_hostile_name_as_escapes() {
    if !have("make") {
        return;
    }
    let test = Test::new().write(
        "Makefile",
        "srv\x1b[8m\x07\u{202e}:\n\t@echo starting; exit 3\n",
    );
    let root = test.root().to_path_buf();
    let mut run = agg();
    run.args(["run", "--ready-line", "^READY$", "srv\x1b[8m\x07\u{202e}"])
        .env("XDG_STATE_HOME", root.join(".cache"))
        .current_dir(&root);
    let (code, shown) = at_terminal(run);
    assert_ne!(code, 0, "{shown}");
    // The task's own output (make's error quotes its target) is the task's, shown as a
    // foreground run would: running a task is trusting it with the terminal. agg's lines
    // are agg's.
    let ours: String = shown
        .lines()
        .filter(|l| l.starts_with("agg:") || l.starts_with("error:"))
        .collect();
    assert!(!ours.is_empty(), "{shown}");
    assert_inert(&ours);
    assert!(
        shown.contains(r"agg: srv\e[8m\x07\u{202e} ended before it was ready"),
        "{shown}"
    );
    drop(test);
}

/// `agg ARGS -C ROOT` against the control socket of `mcp`.
fn control(mcp: &Mcp, args: &[&str]) -> Command {
    let mut c = agg();
    c.args(args)
        .arg("-C")
        .arg(&mcp.root)
        .env("XDG_RUNTIME_DIR", &mcp.runtime);
    c
}

async fn at_terminal_async(cmd: Command) -> (i32, String) {
    tokio::task::spawn_blocking(move || at_terminal(cmd))
        .await
        .expect("join")
}

/// The task name (ESC, BEL, U+202E) and what the job prints (OSC 52, a title, CR, U+202E).
const JOB_NAME: &str = "evil\x1b[8m\x07\u{202e}";

fn job_repo() -> tempfile::TempDir {
    let makefile = format!(
        "{JOB_NAME}:\n\t@printf '\\033]52;c;aGk=\\007title\\033]0;pwned\\007 ok\\rEVIL \\342\\200\\256txt\\n'; printf 'err\\033]0;t\\007\\n' >&2; echo listening; sleep 300\n"
    );
    crate::common::repo(&[("Makefile", &makefile)])
}

async fn wait_for_output(mcp: &Mcp, run_id: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let mut logs = control(mcp, &["logs", run_id, "--raw"]);
        logs.env("NO_COLOR", "1");
        let out = tokio::task::spawn_blocking(move || logs.output().expect("agg logs"))
            .await
            .expect("join");
        if String::from_utf8_lossy(&out.stdout).contains("listening") {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the job never printed"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn ps_logs_and_stop_show_a_hostile_job_as_escapes() {
    if !have("make") {
        return;
    }
    let mcp = Mcp::start(job_repo(), true).await;
    let started = mcp
        .task_start(json!({"unique_name": JOB_NAME, "wait_ms": 0}))
        .await;
    let run_id = started["run_id"].as_str().expect("run_id").to_owned();
    wait_for_output(&mcp, &run_id).await;

    let (code, ps) = at_terminal_async(control(&mcp, &["ps"])).await;
    assert_eq!(code, 0, "{ps}");
    assert_inert(&ps);
    assert!(ps.contains(r"evil\e[8m\x07\u{202e}"), "{ps}");

    let (code, logs) = at_terminal_async(control(&mcp, &["logs", &run_id])).await;
    assert_eq!(code, 0, "{logs}");
    assert_inert(&logs);
    assert!(
        logs.contains(r"\e]52;c;aGk=\x07title\e]0;pwned\x07 ok\rEVIL \u{202e}txt"),
        "{logs}"
    );
    assert!(logs.contains(r"err\e]0;t\x07"), "stderr too: {logs}");

    // Piped, the same: a pager or a file is read on a terminal later.
    let mut piped = control(&mcp, &["logs", &run_id]);
    piped.env("NO_COLOR", "1");
    let out = tokio::task::spawn_blocking(move || piped.output().expect("agg logs"))
        .await
        .expect("join");
    assert_inert(&String::from_utf8_lossy(&out.stdout));
    assert_inert(&String::from_utf8_lossy(&out.stderr));

    // `--raw` is the way to the bytes as the task wrote them.
    let (code, raw) = at_terminal_async(control(&mcp, &["logs", &run_id, "--raw"])).await;
    assert_eq!(code, 0, "{raw}");
    assert!(raw.contains("\x1b]52;c;aGk=\x07"), "{raw:?}");

    let (code, stopped) =
        at_terminal_async(control(&mcp, &["stop", &run_id, "--grace-ms", "2000"])).await;
    assert_eq!(code, 0, "{stopped}");
    assert_inert(&stopped);
    assert!(
        stopped.contains(r"(evil\e[8m\x07\u{202e}) stopped"),
        "{stopped}"
    );

    // A run id pasted with a sequence in it is quoted back escaped.
    let (code, missing) = at_terminal_async(control(&mcp, &["stop", "run\x1b]0;x\x07"])).await;
    assert_eq!(code, 2, "{missing}");
    assert_inert(&missing);
    assert!(missing.contains(r"run\e]0;x\x07"), "{missing}");
    mcp.close().await;
}

/// The root a hostile repository lives in is only ever a path: it is never shown raw.
#[test]
fn a_hostile_root_path_is_shown_as_escapes() {
    let test = Test::new();
    let base = test.root().to_path_buf();
    let root = base.join("r\x1b]0;t\x07oot");
    std::fs::create_dir_all(root.join("sub")).expect("mkdir");
    std::fs::write(root.join("Makefile"), "build:\n\t@echo hi\n").expect("write");
    std::fs::create_dir_all(root.join(".git")).expect("git");
    let mut list = agg();
    list.arg("list").current_dir(root.join("sub"));
    let (code, shown) = at_terminal(list);
    assert_eq!(code, 0, "{shown}");
    assert_inert(&shown);
    assert!(shown.contains(r"r\e]0;t\x07oot"), "{shown}");
    let missing = base.join("gone\u{202e}");
    let mut bad = agg();
    bad.arg("list").arg(&missing);
    let (code, shown) = at_terminal(bad);
    assert_eq!(code, 2, "{shown}");
    assert_inert(&shown);
    assert!(shown.contains(r"gone\u{202e}"), "{shown}");
}
