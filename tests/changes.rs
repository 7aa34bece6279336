//! What `--affected` reads as changed, read with gitoxide: the same files `git status` and
//! `git diff` name, in a repository that tries to make git run its own commands — and none of
//! them runs.

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::test::{Test, run_ok};

/// `git ARGS` in `dir`, which must succeed (run only before anything hostile is planted).
fn git(dir: &Path, args: &[&str]) -> String {
    let out = run_ok(
        Command::new("git")
            .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
            .args([
                "-c",
                "init.defaultBranch=main",
                "-c",
                "commit.gpgsign=false",
            ])
            .args(args)
            .current_dir(dir),
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// What `agg list --affected [REF] --json` says changed.
fn changed(dir: &Path, since: Option<&str>) -> BTreeSet<String> {
    let mut args = vec!["list", "--json", "--affected"];
    args.extend(since);
    let out = Test::at(dir).args(args).run().success();
    let doc: Value = serde_json::from_str(&out.stdout).expect("json");
    doc["changed"]
        .as_array()
        .expect("changed")
        .iter()
        .filter_map(|f| f.as_str().map(str::to_owned))
        .collect()
}

/// A repository with a first commit on `main`.
fn repo() -> tempfile::TempDir {
    let dir = Test::new()
        .write("Makefile", "build:\n\t@true\n")
        .write(".gitignore", "*.log\nbuild/\n")
        .write("src/a.txt", "alpha\n")
        .write("src/b.txt", "bravo\n")
        .write("docs/c.txt", "charlie\n")
        .executable("tools/run.sh", "#!/bin/sh\n")
        .into_tempdir();
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "-A"]);
    git(dir.path(), &["commit", "-qm", "one"]);
    dir
}

#[test]
fn changed_files_are_those_git_reports() {
    require!("git");
    let dir = repo();
    let root = dir.path();
    git(root, &["checkout", "-qb", "feature"]);
    std::fs::write(root.join("docs/c.txt"), "charlie 2\n").expect("write");
    git(root, &["commit", "-qam", "two"]);
    // Working tree: a change, a staged file, a deletion, a rename, a mode change, a symlink,
    // an untracked file, an ignored one.
    std::fs::write(root.join("src/a.txt"), "ALPHA\n").expect("write");
    std::fs::write(root.join("src/new.txt"), "new\n").expect("write");
    git(root, &["add", "src/new.txt"]);
    std::fs::remove_file(root.join("Makefile")).expect("rm");
    git(root, &["mv", "src/b.txt", "src/moved.txt"]);
    std::fs::set_permissions(
        root.join("tools/run.sh"),
        std::fs::Permissions::from_mode(0o644),
    )
    .expect("chmod");
    std::os::unix::fs::symlink("a.txt", root.join("src/link")).expect("symlink");
    std::fs::write(root.join("untracked.txt"), "u\n").expect("write");
    std::fs::write(root.join("debug.log"), "ignored\n").expect("write");
    std::fs::create_dir_all(root.join("build")).expect("mkdir");
    std::fs::write(root.join("build/out.bin"), "ignored\n").expect("write");
    // A racily clean file: rewritten with the same size within the index's second.
    std::fs::write(root.join("docs/c.txt"), "CHARLIE 2\n").expect("write");
    let from_git = git_status(root);
    assert_eq!(changed(root, None), from_git);
    // Since the merge base with main: also what the branch committed.
    let mut since = from_git.clone();
    since.extend(
        git(root, &["diff", "--name-only", "main...HEAD"])
            .lines()
            .map(str::to_owned),
    );
    assert_eq!(changed(root, Some("main")), since);
    Test::at(root)
        .args(["list", "--affected", "no-such-ref"])
        .run()
        .code(2)
        .stderr_has("`no-such-ref` names no commit");
    Test::new()
        .write("Makefile", "a:\n")
        .args(["list", "--affected"])
        .run()
        .code(2)
        .stderr_has("in no git repository");
}

/// What `git status --porcelain -uall --no-renames` names in `root`.
fn git_status(root: &Path) -> BTreeSet<String> {
    git(root, &["status", "--porcelain", "-uall", "--no-renames"])
        .lines()
        .map(|l| l[3..].trim_matches('"').to_owned())
        .collect()
}

/// A random path of the generated tree: `dN/[sM/]fK.txt`.
fn some_file(rng: &mut fastrand::Rng) -> String {
    let dir = format!("d{}", rng.usize(..3));
    let file = format!("f{}.txt", rng.usize(..3));
    if rng.bool() {
        format!("{dir}/s{}/{file}", rng.usize(..2))
    } else {
        format!("{dir}/{file}")
    }
}

#[test]
fn every_step_of_an_edited_repository_reads_as_git_reports_it() {
    require!("git");
    let dir = repo();
    let root = dir.path();
    let mut rng = fastrand::Rng::with_seed(37);
    for step in 0..120 {
        let path = some_file(&mut rng);
        let abs = root.join(&path);
        let what = match rng.usize(..12) {
            0..=2 => {
                std::fs::create_dir_all(abs.parent().expect("parent")).expect("mkdir");
                std::fs::write(&abs, format!("{step}\n")).expect("write");
                format!("write {path}")
            }
            3 | 4 if abs.exists() => {
                git(root, &["add", "--", &path]);
                format!("add {path}")
            }
            5 => {
                git(root, &["add", "-A"]);
                git(
                    root,
                    &["commit", "-qm", &format!("step {step}"), "--allow-empty"],
                );
                "commit".to_owned()
            }
            6 => {
                git(
                    root,
                    &["rm", "-q", "--cached", "--ignore-unmatch", "--", &path],
                );
                format!("rm --cached {path}")
            }
            7 if abs.exists() => {
                std::fs::remove_file(&abs).expect("rm");
                format!("delete {path}")
            }
            8 if !abs.exists() => {
                std::fs::create_dir_all(abs.parent().expect("parent")).expect("mkdir");
                std::fs::write(&abs, "intent\n").expect("write");
                git(root, &["add", "-N", "--", &path]);
                format!("add -N {path}")
            }
            9 if rng.bool() => {
                git(root, &["reset", "-q"]);
                "reset".to_owned()
            }
            9 => {
                // HEAD moves back and the index keeps the trees of the commit it left: its
                // cache tree is valid and is not HEAD's.
                git(root, &["add", "-A"]);
                git(
                    root,
                    &["commit", "-qm", &format!("step {step}"), "--allow-empty"],
                );
                git(root, &["reset", "-q", "--soft", "HEAD~1"]);
                "reset --soft to the commit before".to_owned()
            }
            10 => {
                let top = path.split('/').next().expect("dir").to_owned();
                let _ = std::fs::remove_dir_all(root.join(&top));
                format!("rm -r {top}")
            }
            _ => {
                git(root, &["add", "-A"]);
                git(
                    root,
                    &["commit", "-qm", &format!("step {step}"), "--allow-empty"],
                );
                git(root, &["checkout", "-q", "HEAD~1", "--", "."]);
                "checkout the previous commit's files".to_owned()
            }
        };
        assert_eq!(
            changed(root, None),
            git_status(root),
            "after step {step} ({what})"
        );
    }
}

#[test]
fn no_command_named_by_the_repository_runs() {
    require!("git");
    let dir = repo();
    let root = dir.path();
    git(root, &["branch", "base"]);
    std::fs::write(root.join("src/a.txt"), "changed\n").expect("write");
    let markers = tempfile::tempdir().expect("markers");
    let mark = |name: &str| format!("touch '{}'", markers.path().join(name).display());
    // Everything git itself would run for some command, written the way git reads it; git is
    // never run again in this repository.
    let config = format!(
        "[core]\n\tfsmonitor = \"{fsmonitor}\"\n\thooksPath = hooks\n\tpager = \"{pager}\"\n\teditor = \"{editor}\"\n\tsshCommand = \"{ssh}\"\n\
         [filter \"evil\"]\n\tclean = \"{clean}\"\n\tsmudge = \"{smudge}\"\n\tprocess = \"{process}\"\n\trequired = true\n\
         [diff]\n\texternal = \"{diff}\"\n[credential]\n\thelper = \"!{credential}\"\n[gpg]\n\tprogram = \"{gpg}\"\n",
        fsmonitor = mark("fsmonitor"),
        pager = mark("pager"),
        editor = mark("editor"),
        ssh = mark("ssh"),
        clean = mark("clean"),
        smudge = mark("smudge"),
        process = mark("process"),
        diff = mark("diff"),
        credential = mark("credential"),
        gpg = mark("gpg"),
    );
    let mut existing = std::fs::read_to_string(root.join(".git/config")).expect("config");
    existing.push_str(&config);
    std::fs::write(root.join(".git/config"), existing).expect("config");
    std::fs::write(root.join(".gitattributes"), "* filter=evil diff=evil\n").expect("attributes");
    for hooks in [root.join(".git/hooks"), root.join("hooks")] {
        std::fs::create_dir_all(&hooks).expect("hooks");
        for hook in [
            "fsmonitor-watchman",
            "post-checkout",
            "post-index-change",
            "pre-commit",
            "post-merge",
            "reference-transaction",
        ] {
            let path = hooks.join(hook);
            std::fs::write(&path, format!("#!/bin/sh\n{}\n", mark(hook))).expect("hook");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
    }
    assert!(changed(root, None).contains("src/a.txt"));
    assert!(changed(root, Some("base")).contains("src/a.txt"));
    let ran: Vec<String> = std::fs::read_dir(markers.path())
        .expect("markers")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        ran.is_empty(),
        "commands named by the repository ran: {ran:?}"
    );
}

#[test]
fn a_hostile_index_or_worktree_is_refused_or_read_without_hanging() {
    require!("git");
    let dir = repo();
    let root = dir.path();
    // A tracked file replaced by a FIFO: changed, and never opened.
    std::fs::remove_file(root.join("src/b.txt")).expect("rm");
    nix::unistd::mkfifo(&root.join("src/b.txt"), nix::sys::stat::Mode::S_IRWXU).expect("fifo");
    assert!(changed(root, None).contains("src/b.txt"));
    // An index that claims four billion entries: refused with a reason, not an allocation.
    let index = root.join(".git/index");
    let mut bomb = b"DIRC\x00\x00\x00\x02\xff\xff\xff\xff".to_vec();
    bomb.extend([0u8; 20]);
    std::fs::write(&index, bomb).expect("index");
    Test::at(root)
        .args(["list", "--affected"])
        .run()
        .code(2)
        .stderr_has("cannot read the index");
    // An index that is a FIFO: refused at once.
    std::fs::remove_file(&index).expect("rm");
    nix::unistd::mkfifo(&index, nix::sys::stat::Mode::S_IRWXU).expect("fifo");
    Test::at(root)
        .args(["list", "--affected"])
        .run()
        .code(2)
        .stderr_has("not a regular file");
}
