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
    affected(Test::at(dir), since).0
}

/// What `agg list --affected [REF] --json`, run as `test`, says changed, and its stderr.
fn affected(test: Test, since: Option<&str>) -> (BTreeSet<String>, String) {
    let mut args = vec!["list", "--json", "--affected"];
    args.extend(since);
    let out = test.args(args).run().success();
    let doc: Value = serde_json::from_str(&out.stdout).expect("json");
    let files = doc["changed"]
        .as_array()
        .expect("changed")
        .iter()
        .filter_map(|f| f.as_str().map(str::to_owned))
        .collect();
    (files, out.stderr)
}

/// agg in `root` with its state (the remembered untracked files) in `state`, trusting
/// stamps [`SETTLE_MS`] after a change.
fn remembering(root: &Path, state: &Path) -> Test {
    Test::at(root)
        .env("XDG_STATE_HOME", state)
        .env("AGG_TEST_SETTLE_MS", SETTLE_MS.to_string())
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

/// Stamps settle this long after a change in these tests (see `AGG_TEST_SETTLE_MS`).
const SETTLE_MS: u64 = 150;

#[test]
fn every_step_of_an_edited_repository_reads_as_git_reports_it() {
    require!("git");
    let dir = repo();
    let root = dir.path();
    let state = tempfile::tempdir().expect("state");
    let mut rng = fastrand::Rng::with_seed(37);
    let mut remembered = 0;
    for step in 0..140 {
        let path = some_file(&mut rng);
        let abs = root.join(&path);
        let what = match rng.usize(..15) {
            0..=2 => {
                std::fs::create_dir_all(abs.parent().expect("parent")).expect("mkdir");
                std::fs::write(&abs, format!("{step}\n")).expect("write");
                format!("write {path}")
            }
            3 | 4 if abs.exists() => {
                git(root, &["add", "-f", "--", &path]);
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
                // Committed, the file is untracked only, in a directory that did not change.
                if rng.bool() {
                    git(
                        root,
                        &["commit", "-qm", &format!("step {step}"), "--allow-empty"],
                    );
                }
                format!("rm --cached {path}, maybe committed")
            }
            7 if abs.exists() => {
                std::fs::remove_file(&abs).expect("rm");
                format!("delete {path}")
            }
            8 if !abs.exists() => {
                std::fs::create_dir_all(abs.parent().expect("parent")).expect("mkdir");
                std::fs::write(&abs, "intent\n").expect("write");
                git(root, &["add", "-f", "-N", "--", &path]);
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
            11 => {
                git(root, &["add", "-A"]);
                git(
                    root,
                    &["commit", "-qm", &format!("step {step}"), "--allow-empty"],
                );
                git(root, &["checkout", "-q", "HEAD~1", "--", "."]);
                "checkout the previous commit's files".to_owned()
            }
            12 => {
                // Rules that appear, change or go in a directory, or at the root.
                let dir = if rng.bool() {
                    root.to_path_buf()
                } else {
                    abs.parent().expect("parent").to_path_buf()
                };
                std::fs::create_dir_all(&dir).expect("mkdir");
                let rules = dir.join(".gitignore");
                match rng.usize(..3) {
                    0 => std::fs::write(&rules, "f1.txt\n").expect("write"),
                    1 => std::fs::write(&rules, "s1/\n*.log\n").expect("write"),
                    _ => {
                        let _ = std::fs::remove_file(&rules);
                    }
                }
                format!("rules in {}", dir.display())
            }
            13 => {
                let top = path.split('/').next().expect("dir").to_owned();
                let to = format!("{top}-{step}");
                let _ = std::fs::rename(root.join(&top), root.join(&to));
                format!("mv {top} {to}")
            }
            _ => {
                let sub = abs
                    .parent()
                    .expect("parent")
                    .join(format!("new{step}/deeper"));
                std::fs::create_dir_all(&sub).expect("mkdir");
                std::fs::write(sub.join("x.txt"), "x\n").expect("write");
                format!("new directories in {}", sub.display())
            }
        };
        // Half the steps are read once what changed has settled, so that the remembered
        // files are used; the rest right away, when they may not be.
        if rng.bool() {
            std::thread::sleep(std::time::Duration::from_millis(SETTLE_MS + 50));
        }
        let (seen, log) = affected(
            remembering(root, state.path()).env("AGG_LOG", "debug"),
            None,
        );
        if !log.contains("untracked files: walking") {
            remembered += 1;
        }
        assert_eq!(seen, git_status(root), "after step {step} ({what})");
    }
    // Most steps changed a directory or two: those were listed again, and the rest of what
    // the last run found was used.
    assert!(
        remembered > 70,
        "the remembered files were used {remembered} times of 140"
    );
}

#[test]
fn a_file_taken_out_of_the_index_is_untracked_though_its_directory_did_not_change() {
    require!("git");
    let dir = repo();
    let root = dir.path();
    let state = tempfile::tempdir().expect("state");
    let settle = std::time::Duration::from_millis(SETTLE_MS + 50);
    let list = || {
        std::thread::sleep(settle);
        affected(remembering(root, state.path()), None).0
    };
    let only_a = BTreeSet::from(["src/a.txt".to_owned()]);
    assert_eq!(list(), BTreeSet::new());
    git(root, &["rm", "-q", "--cached", "src/a.txt"]);
    git(root, &["commit", "-qm", "untrack"]);
    assert_eq!(git_status(root), only_a);
    assert_eq!(list(), only_a);
    git(root, &["add", "src/a.txt"]);
    assert_eq!(list(), only_a);
    git(root, &["commit", "-qm", "track again"]);
    assert_eq!(list(), BTreeSet::new());
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
