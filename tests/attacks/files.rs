//! Files that are not what they seem: FIFOs, devices and huge files where agg expects a regular file.
//! Each is answered at once, with a diagnostic or a clear error, every other task is still
//! listed, and `agg mcp` keeps answering. A command that takes more than a minute counts as
//! a hang (before agg read these files the bounded way, a FIFO hung it forever).

use std::fmt::Write as _;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nix::sys::stat::Mode;
use nix::unistd::mkfifo;
use serde_json::{Value, json};

use crate::common::mcp::allowlist_allowing_all;
use crate::common::raw::Raw;
use crate::common::repo;
use crate::hostile::diag_for;
use crate::test::names;

/// `agg list --json ROOT` with an allowlist of its own, which must succeed (not hang); the
/// document.
fn listed(root: &Path) -> Value {
    let config = tempfile::tempdir().expect("tmp");
    let run = agg(
        &["list", "--json", &root.display().to_string()],
        &config.path().join("allowlist.toml"),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    serde_json::from_str(&run.stdout).expect("JSON")
}

/// What one agg command printed.
struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs agg with `args` and `AGG_ALLOWLIST=allowlist`, failing the test if it hangs.
fn agg(args: &[&str], allowlist: &Path) -> Run {
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_agg"))
        .args(args)
        .env("AGG_ALLOWLIST", allowlist)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn agg");
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_string(&mut text);
            }
            text
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as _));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as _));
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("agg {args:?} hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run {
        code: status.code(),
        stdout: stdout.join().expect("stdout"),
        stderr: stderr.join().expect("stderr"),
    }
}

fn fifo(path: &Path) {
    mkfifo(path, Mode::from_bits_truncate(0o644)).expect("mkfifo");
}

#[test]
fn fifos_and_devices_named_like_task_and_ignore_files_are_diagnostics() {
    let dir = repo(&[
        ("Makefile", "build:\n\t@true\n"),
        ("sub/Makefile", "check:\n\t@true\n"),
        ("sub/dist/Makefile", "shipped:\n\t@true\n"),
        (".git/HEAD", "ref: refs/heads/main\n"),
    ]);
    let root = dir.path();
    std::fs::create_dir_all(root.join("pipe")).expect("mkdir");
    std::fs::create_dir_all(root.join("zero")).expect("mkdir");
    std::fs::create_dir_all(root.join(".git/info")).expect("mkdir");
    fifo(&root.join("pipe/Makefile"));
    symlink("/dev/zero", root.join("zero/justfile")).expect("symlink");
    fifo(&root.join(".gitignore"));
    symlink("/dev/zero", root.join("sub/.ignore")).expect("symlink");
    fifo(&root.join(".git/info/exclude"));
    let json = listed(root);
    let diagnostics = &json["diagnostics"];
    for file in [
        "pipe/Makefile",
        ".gitignore",
        "sub/.ignore",
        ".git/info/exclude",
    ] {
        let said = diag_for(&json, file);
        assert!(
            said.iter().any(|m| m.contains("not a regular file")),
            "{file}: {said:?}\n{diagnostics:#}"
        );
    }
    assert!(
        !diag_for(&json, "zero/justfile").is_empty(),
        "{diagnostics:#}"
    );
    // The unreadable ignore files hide nothing: their patterns are not applied.
    let listed = names(&json);
    for task in ["build", "sub/check", "sub/dist/shipped"] {
        assert!(listed.iter().any(|n| n == task), "{task} in {listed:?}");
    }
}

#[test]
fn a_huge_gitignore_is_skipped_with_a_diagnostic_and_the_tree_still_listed() {
    let dir = repo(&[
        ("Makefile", "build:\n\t@true\n"),
        ("dist/Makefile", "shipped:\n\t@true\n"),
        ("web/.gitignore", "gen/\n"),
        ("web/Makefile", "serve:\n\t@true\n"),
        ("web/gen/Makefile", "generated:\n\t@true\n"),
    ]);
    let root = dir.path();
    // 64 MiB of patterns, 2.8 million of them: before the cap this took agg minutes and
    // gigabytes; now it is refused by its size alone.
    let mut huge = String::from("dist/\n");
    let mut i = 0u64;
    while huge.len() < 64 << 20 {
        let _ = writeln!(huge, "build-{i}/**/cache-{i}.tmp");
        i += 1;
    }
    std::fs::write(root.join(".gitignore"), huge).expect("write");
    let json = listed(root);
    let said = diag_for(&json, ".gitignore");
    assert!(
        said.iter()
            .any(|m| m.contains("64.0 MiB") && m.contains("1.0 MiB limit")),
        "{said:?}"
    );
    let listed = names(&json);
    // The skipped file's `dist/` does not apply; another directory's ignore file does.
    for task in ["build", "dist/shipped", "web/serve"] {
        assert!(listed.iter().any(|n| n == task), "{task} in {listed:?}");
    }
    assert!(
        !listed.iter().any(|n| n == "web/gen/generated"),
        "{listed:?}"
    );
}

#[test]
fn many_ignore_files_under_the_cap_are_capped_together() {
    let dir = repo(&[("Makefile", "build:\n\t@true\n")]);
    let root = dir.path();
    // Six files of 300 KiB each: every one under the limit, together well over it.
    let mut patterns = String::new();
    let mut i = 0u64;
    while patterns.len() < 300 << 10 {
        let _ = writeln!(patterns, "generated/module-{i}.js");
        i += 1;
    }
    for d in 0..6 {
        std::fs::create_dir_all(root.join(format!("d{d}"))).expect("mkdir");
        std::fs::write(root.join(format!("d{d}/.gitignore")), &patterns).expect("write");
        std::fs::write(root.join(format!("d{d}/Makefile")), "x:\n\t@true\n").expect("write");
    }
    let json = listed(root);
    let skipped = (0..6)
        .filter(|d| {
            diag_for(&json, &format!("d{d}/.gitignore"))
                .iter()
                .any(|m| m.contains("together"))
        })
        .count();
    assert!(
        (3..6).contains(&skipped),
        "{skipped}: {:#}",
        json["diagnostics"]
    );
    assert_eq!(names(&json).len(), 7, "{:#}", json["tasks"]);
}

/// `list_tasks` through the raw harness: the structured result.
fn list_tasks(raw: &mut Raw, id: u64) -> Value {
    let reply = raw.call(id, "list_tasks", &json!({}));
    reply["result"]["structuredContent"].clone()
}

/// `tools/list` answers: the server is alive and serving.
fn tools_listed(raw: &mut Raw, id: u64) {
    raw.send_value(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}));
    let reply = raw.response(id);
    assert!(
        reply["result"]["tools"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{reply}"
    );
}

#[test]
fn agg_mcp_answers_when_task_and_ignore_files_become_fifos_or_devices() {
    let dir = repo(&[
        ("Makefile", "build:\n\t@true\n"),
        (".gitignore", "dist/\n"),
        ("dist/Makefile", "shipped:\n\t@true\n"),
    ]);
    let root = std::fs::canonicalize(dir.path()).expect("root");
    std::fs::create_dir_all(root.join("pipe")).expect("mkdir");
    fifo(&root.join("pipe/Makefile"));
    let (_config, allowlist) = allowlist_allowing_all(&root);
    let mut raw = Raw::start(&root, &allowlist);

    let listed = list_tasks(&mut raw, 1);
    assert_eq!(names(&listed), ["build"], "{listed}");
    assert!(
        diag_for(&listed, "pipe/Makefile")
            .iter()
            .any(|m| m.contains("not a regular file")),
        "{listed}"
    );

    // The watcher sees the ignore file replaced, by a FIFO and then by a device; each time
    // the tree is scanned again, the file reported and its pattern no longer applied.
    let mut id = 10;
    for (swap, kind) in [(true, "FIFO"), (false, "/dev/zero")] {
        std::fs::remove_file(root.join(".gitignore")).expect("rm");
        if swap {
            fifo(&root.join(".gitignore"));
        } else {
            symlink("/dev/zero", root.join(".gitignore")).expect("symlink");
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            id += 1;
            let listed = list_tasks(&mut raw, id);
            let reported = diag_for(&listed, ".gitignore")
                .iter()
                .any(|m| m.contains("not a regular file"));
            if reported && names(&listed).iter().any(|n| n == "dist/shipped") {
                break;
            }
            assert!(Instant::now() < deadline, "{kind}: {listed}");
            std::thread::sleep(Duration::from_millis(100));
        }
        tools_listed(&mut raw, id + 1000);
    }
}

#[test]
fn an_allowlist_that_is_a_fifo_or_a_device_is_an_error_at_once() {
    let dir = repo(&[("Makefile", "build:\n\t@true\n")]);
    let root = std::fs::canonicalize(dir.path()).expect("root");
    let config = tempfile::tempdir().expect("tmp");
    let pipe = config.path().join("fifo.toml");
    fifo(&pipe);
    let device = config.path().join("device.toml");
    symlink("/dev/zero", &device).expect("symlink");

    for allowlist in [&pipe, &device] {
        let run = agg(&["allowlist"], allowlist);
        assert_eq!(run.code, Some(1), "{}", run.stderr);
        assert!(run.stderr.contains("not a regular file"), "{}", run.stderr);

        let mut raw = Raw::start(&root, allowlist);
        let listed = list_tasks(&mut raw, 1);
        assert_eq!(names(&listed), ["build"], "{listed}");
        let refused = raw.call(2, "task_start", &json!({"unique_name": "build"}));
        assert_eq!(refused["result"]["isError"], true, "{refused}");
        assert!(
            refused.to_string().contains("not a regular file"),
            "the refusal says why: {refused}"
        );
        tools_listed(&mut raw, 3);
    }
    // A change goes through the same read: refused, the FIFO left as it is.
    let root_arg = root.display().to_string();
    let run = agg(&["allow", "--dir", &root_arg], &pipe);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert!(run.stderr.contains("not a regular file"), "{}", run.stderr);
    assert!(
        std::fs::symlink_metadata(&pipe).is_ok_and(|m| !m.is_file()),
        "the FIFO is untouched"
    );
}

#[test]
fn a_pinned_file_replaced_by_a_fifo_or_a_device_is_reported_at_once() {
    let dir = repo(&[("Makefile", "build:\n\t@true\n")]);
    let root = std::fs::canonicalize(dir.path()).expect("root");
    let makefile = root.join("Makefile");
    let config = tempfile::tempdir().expect("tmp");
    let allowlist = config.path().join("allowlist.toml");
    let file_arg = makefile.display().to_string();
    let run = agg(&["allow", "--file", &file_arg, "--pin"], &allowlist);
    assert_eq!(run.code, Some(0), "{}", run.stderr);

    for swap in [true, false] {
        std::fs::remove_file(&makefile).expect("rm");
        if swap {
            fifo(&makefile);
        } else {
            symlink("/dev/zero", &makefile).expect("symlink");
        }
        let run = agg(&["allowlist", "--json"], &allowlist);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        let json: Value = serde_json::from_str(&run.stdout).expect("JSON");
        assert_eq!(json["allow"][0]["state"], "missing", "{json:#}");
        // Pinning it again is refused, at once.
        let run = agg(&["allow", "--file", &file_arg, "--pin"], &allowlist);
        assert_eq!(run.code, Some(1), "{}", run.stderr);
        assert!(
            run.stderr.contains("not a file") || run.stderr.contains("not a regular file"),
            "{}",
            run.stderr
        );
    }
}

/// `agg run --json=FILE` never writes through a link planted at FILE (a shared directory
/// where another user guessed the name): it refuses, the file the link points to is
/// unchanged, and a FIFO at FILE is refused at once instead of blocking the run.
#[test]
fn a_results_file_is_never_written_through_a_planted_link_or_into_a_fifo() {
    let outside = tempfile::tempdir().expect("tmp");
    let victim = outside.path().join("victim");
    std::fs::write(&victim, "precious\n").expect("write");
    let link = outside.path().join("results.json");
    symlink(&victim, &link).expect("symlink");
    let fifo = outside.path().join("fifo.json");
    mkfifo(&fifo, Mode::from_bits_truncate(0o600)).expect("mkfifo");
    // The kernel refuses both opens: a link with ELOOP (O_NOFOLLOW), a FIFO without a
    // reader with ENXIO (O_NONBLOCK).
    for (target, why) in [(&link, "symbolic links"), (&fifo, "No such device")] {
        let started = Instant::now();
        crate::test::Test::new()
            .write("Makefile", "ok:\n\t@echo ran > marker\n")
            .args(["run", &format!("--json={}", target.display()), "ok"])
            .run()
            .fails()
            .stderr_has("cannot write the results")
            .stderr_has(why);
        assert!(started.elapsed() < Duration::from_secs(30), "{why}: hung");
    }
    assert_eq!(
        std::fs::read_to_string(&victim).expect("read"),
        "precious\n"
    );
}
