//! Another local user plants agg's state directory. With `HOME`, `XDG_STATE_HOME` and
//! `XDG_RUNTIME_DIR` unset, agg keeps its files in `agg-<uid>` under the temporary
//! directory (`TMPDIR` here, a directory of the test's own, as `/tmp` is everyone's), where
//! anyone could have made that directory first, or a link by its name. A directory another
//! user owns, or a link where agg's own directory should be, is refused with an error that
//! names it: no run log is written into it or through it, the history planted there is not
//! shown, and `agg mcp` keeps answering without it.
//!
//! The tests run as root here (CI too) and plant as uid 65534 (`nobody`); as another user
//! they cannot hand a directory to someone else, and skip.

use std::ffi::OsStr;
use std::os::unix::fs::{PermissionsExt, lchown, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::json;

use super::harness::Attack;
use crate::common::raw::Raw;
use indoc::indoc;

/// Who plants the directories.
const NOBODY: u32 = 65534;

/// A build that fails (so its run is in the history) and a service that ends at once (so
/// `--until-ready` has written its log by the time it returns).
const MAKEFILE: &str = indoc! {"
    build:
    \t@echo building; exit 3

    serve:
    \t@echo started
"};

/// A repository and the temporary directory agg falls back to.
struct Planted {
    attack: Attack,
    _tmp: tempfile::TempDir,
    tmp: PathBuf,
}

impl Planted {
    /// `None` (with a note on stderr) unless the test can give a directory to another user.
    fn new() -> Option<Planted> {
        if !nix::unistd::geteuid().is_root() {
            crate::common::skipped("planting a directory as another user needs root");
            return None;
        }
        let tmp_dir = tempfile::tempdir().expect("tmp");
        let tmp = std::fs::canonicalize(tmp_dir.path()).expect("tmp");
        Some(Planted {
            attack: Attack::new(&[("Makefile", MAKEFILE)]),
            _tmp: tmp_dir,
            tmp,
        })
    }

    /// Where agg keeps its files for this user when nothing else says where.
    fn state(&self) -> PathBuf {
        self.tmp.join(format!("agg-{}", nix::unistd::geteuid()))
    }

    /// The variables that make agg fall back to the temporary directory.
    fn env(&self) -> [(&'static str, Option<&OsStr>); 4] {
        [
            ("HOME", None),
            ("XDG_STATE_HOME", None),
            ("XDG_RUNTIME_DIR", None),
            ("TMPDIR", Some(self.tmp.as_os_str())),
        ]
    }

    /// `agg ARGS…` in the repository with the fallback in effect.
    fn agg(&self, args: &[&str]) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_agg"));
        command
            .args(args)
            .current_dir(&self.attack.root)
            .env("AGG_ALLOWLIST", &self.attack.allowlist)
            .env("NO_COLOR", "1");
        for (name, value) in self.env() {
            match value {
                Some(value) => command.env(name, value),
                None => command.env_remove(name),
            };
        }
        command.output().expect("agg")
    }

    /// `agg mcp` with the fallback in effect.
    fn serve(&self) -> Raw {
        Raw::start_with_env(&self.attack.root, &self.attack.allowlist, &self.env())
    }
}

/// Every file under `dir`, for the failure message and the check that nothing was written.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(path.clone());
            }
            found.push(path);
        }
    }
    found.sort();
    found
}

fn chown_all(dir: &Path) {
    for path in files_under(dir).iter().chain([&dir.to_path_buf()]) {
        lchown(path, Some(NOBODY), Some(NOBODY)).expect("lchown");
    }
}

#[test]
fn a_state_directory_another_user_made_is_refused_and_its_history_not_shown() {
    let Some(planted) = Planted::new() else {
        return;
    };
    // The other user runs agg first, so the directory holds a real store with a failed
    // `build`, then opens it to everyone.
    let first = planted.agg(&["run", "build"]);
    assert_eq!(first.status.code(), Some(2), "{first:?}");
    let state = planted.state();
    chown_all(&state);
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    let planted_files = files_under(&state);

    // A service's run log is not written into it.
    let run = planted.agg(&["run", "serve", "--until-ready"]);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_ne!(run.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("belongs to another user (uid 65534)")
            && stderr.contains(&state.display().to_string()),
        "{stderr}"
    );
    assert!(stderr.contains("cannot write the run log"), "{stderr}");
    assert_eq!(files_under(&state), planted_files, "agg wrote into it");

    // The planted history is not read: `agg list` shows no last run, and says why.
    let list = planted.agg(&["list"]);
    let stdout = String::from_utf8_lossy(&list.stdout);
    assert!(list.status.success(), "{list:?}");
    assert!(
        stdout.contains("build") && !stdout.contains("exit 2"),
        "{stdout}"
    );
    assert!(
        String::from_utf8_lossy(&list.stderr).contains("run history not read"),
        "{list:?}"
    );

    // The server answers without it: no last run from the planted store, no control
    // socket in the planted directory.
    let mut raw = planted.serve();
    for id in 1..=2 {
        let list = raw.call(id, "list_tasks", &json!({}));
        let rows = list["result"]["structuredContent"]["tasks"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert!(
            rows.iter().any(|r| r["unique_name"] == "build")
                && rows.iter().all(|r| r.get("last").is_none()),
            "{list}"
        );
    }
    assert_eq!(files_under(&state), planted_files, "agg mcp wrote into it");
}

#[test]
fn a_planted_link_does_not_send_run_logs_elsewhere() {
    let Some(planted) = Planted::new() else {
        return;
    };
    let state = planted.state();
    let elsewhere = planted.attack.outside.join("logs");
    std::fs::create_dir(&elsewhere).expect("mkdir");
    // The link as agg's own directory, and as the `runs` directory inside a real one.
    for link in [state.clone(), state.join("runs")] {
        let _ = std::fs::remove_file(&state);
        let _ = std::fs::remove_dir_all(&state);
        if link != state {
            std::fs::create_dir(&state).expect("mkdir");
            std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o700))
                .expect("chmod");
        }
        symlink(&elsewhere, &link).expect("symlink");
        lchown(&link, Some(NOBODY), Some(NOBODY)).expect("lchown");
        let run = planted.agg(&["run", "serve", "--until-ready"]);
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_ne!(run.status.code(), Some(0), "{stderr}");
        assert!(
            stderr.contains(&format!("{} is a symbolic link", link.display())),
            "{stderr}"
        );
        assert_eq!(
            files_under(&elsewhere),
            Vec::<PathBuf>::new(),
            "a log went through the link {}",
            link.display()
        );
    }
    // And the server still answers.
    let mut raw = planted.serve();
    let list = raw.call(1, "list_tasks", &json!({}));
    assert!(list["result"]["isError"] != true, "{list}");
}
