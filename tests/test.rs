//! The test builder: a repository (a bundled fixture, a copy of one, or a fresh temp dir),
//! arguments, environment, then the real `agg` binary run on it; the assertions on what it
//! printed (`success`, `stdout_has`, …), and the readers of its `--json` table (`task`,
//! `rows`, `diagnostics`, …).

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use tempfile::TempDir;

/// The bundled fixtures.
pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// One invocation of `agg`.
pub struct Test {
    root: PathBuf,
    tmp: Option<TempDir>,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    remove: Vec<OsString>,
    cwd_root: bool,
    /// A directory below the root to run agg from, instead of the root.
    cwd: Option<PathBuf>,
}

impl Test {
    /// An empty temporary repository.
    pub fn new() -> Test {
        let tmp = tempfile::tempdir().expect("temp dir");
        let mut test = Test::at(tmp.path());
        test.tmp = Some(tmp);
        test
    }

    /// A bundled fixture, used in place (read-only tests).
    pub fn fixture(name: &str) -> Test {
        Test::at(&fixtures().join(name))
    }

    /// A temporary copy of a bundled fixture, for a test that writes into it (or whose
    /// runner does).
    pub fn fixture_copy(name: &str) -> Test {
        Test::copy_of(&fixtures().join(name))
    }

    /// A temporary copy of the directory `dir`.
    pub fn copy_of(dir: &Path) -> Test {
        let test = Test::new();
        copy_dir(dir, test.root());
        test
    }

    /// An existing directory (the caller owns it).
    pub fn at(root: &Path) -> Test {
        Test {
            root: root.to_path_buf(),
            tmp: None,
            args: Vec::new(),
            env: Vec::new(),
            remove: Vec::new(),
            cwd_root: true,
            cwd: None,
        }
    }

    /// The temporary repository, kept after the builder is gone.
    pub fn into_tempdir(self) -> TempDir {
        self.tmp.expect("a temporary repository (Test::new)")
    }

    /// The repository root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Writes a file under the root, creating directories.
    pub fn write(self, path: &str, contents: impl AsRef<[u8]>) -> Test {
        let full = self.root.join(path);
        if let Some(parent) = full.parent() {
            fs::create_dir_all(parent).expect("mkdir");
        }
        fs::write(full, contents).expect("write");
        self
    }

    /// Writes an executable file under the root, creating directories.
    pub fn executable(self, path: &str, contents: impl AsRef<[u8]>) -> Test {
        write_executable(&self.root.join(path), contents);
        self
    }

    /// Adds arguments.
    pub fn args<I, S>(mut self, args: I) -> Test
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets an environment variable for agg.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Test {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Runs agg from `dir` (relative to the root) instead of the root itself.
    pub fn current_dir(mut self, dir: &str) -> Test {
        let full = self.root.join(dir);
        fs::create_dir_all(&full).expect("mkdir");
        self.cwd = Some(full);
        self
    }

    /// Removes a variable from agg's environment.
    pub fn env_remove(mut self, key: impl Into<OsString>) -> Test {
        self.remove.push(key.into());
        self
    }

    /// Removes the xc input variables the tests use from agg's environment.
    pub fn env_remove_name(mut self) -> Test {
        self.remove.extend(["NAME".into(), "GREETING".into()]);
        self
    }

    /// Runs agg from the root directory.
    pub fn run(self) -> Output {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agg"));
        cmd.args(&self.args)
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(cwd) = &self.cwd {
            cmd.current_dir(cwd);
        } else if self.cwd_root {
            cmd.current_dir(&self.root);
        }
        for k in &self.remove {
            cmd.env_remove(k);
        }
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        let out = cmd.output().expect("run agg");
        Output {
            code: out.status.code(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            _tmp: self.tmp,
        }
    }

    /// Runs agg, checks it succeeded, and returns its stdout parsed as JSON.
    #[track_caller]
    pub fn run_json(self) -> serde_json::Value {
        self.run().success().json()
    }

    /// Runs `agg list --json` and returns the table.
    #[track_caller]
    pub fn list_json(self) -> serde_json::Value {
        self.args(["list", "--json"]).run_json()
    }

    /// Runs `agg list . --json ARGS` (the current directory as the root) and returns the
    /// table.
    #[track_caller]
    pub fn list_here_json(self, args: &[&str]) -> serde_json::Value {
        self.args(["list", ".", "--json"]).args(args).run_json()
    }
}

/// What one agg run printed.
pub struct Output {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    _tmp: Option<TempDir>,
}

impl Output {
    /// Asserts exit code 0.
    #[track_caller]
    pub fn success(self) -> Output {
        assert_eq!(self.code, Some(0), "agg failed\n{self}");
        self
    }

    /// Asserts a given exit code.
    #[track_caller]
    pub fn code(self, code: i32) -> Output {
        assert_eq!(self.code, Some(code), "unexpected exit code\n{self}");
        self
    }

    /// Asserts that agg failed: an exit code other than 0, or none (a signal).
    #[track_caller]
    pub fn fails(self) -> Output {
        assert_ne!(self.code, Some(0), "agg succeeded\n{self}");
        self
    }

    /// Asserts that stdout holds `text`.
    #[track_caller]
    pub fn stdout_has(&self, text: &str) -> &Output {
        self.holds("stdout", &self.stdout, text, true)
    }

    /// Asserts that stdout does not hold `text`.
    #[track_caller]
    pub fn stdout_lacks(&self, text: &str) -> &Output {
        self.holds("stdout", &self.stdout, text, false)
    }

    /// Asserts that stderr holds `text`.
    #[track_caller]
    pub fn stderr_has(&self, text: &str) -> &Output {
        self.holds("stderr", &self.stderr, text, true)
    }

    /// Asserts that stderr does not hold `text`.
    #[track_caller]
    pub fn stderr_lacks(&self, text: &str) -> &Output {
        self.holds("stderr", &self.stderr, text, false)
    }

    /// Asserts whether `stream` (named `name`) holds `text`, showing both streams if not.
    #[track_caller]
    fn holds(&self, name: &str, stream: &str, text: &str, wanted: bool) -> &Output {
        let missing = if wanted { "no " } else { "" };
        assert!(
            stream.contains(text) == wanted,
            "{missing}`{text}` in {name}\n{self}"
        );
        self
    }

    /// Asserts that stdout starts with `text`.
    #[track_caller]
    pub fn stdout_starts_with(&self, text: &str) -> &Output {
        assert!(
            self.stdout.starts_with(text),
            "stdout does not start with `{text}`\n{self}"
        );
        self
    }

    /// Asserts that some line of stdout is a `line`.
    #[track_caller]
    pub fn stdout_has_line(&self, line: impl Fn(&str) -> bool) -> &Output {
        assert!(
            self.stdout.lines().any(line),
            "no such line in stdout\n{self}"
        );
        self
    }

    /// stdout parsed as JSON.
    #[track_caller]
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", self.stdout))
    }
}

/// Both streams, for a failure message.
impl std::fmt::Display for Output {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "stdout:\n{}\nstderr:\n{}", self.stdout, self.stderr)
    }
}

/// `program args`, to run in `dir` with `env` added: a runner, a package manager or a
/// test tool whose own answer a test compares with agg's.
pub fn command_in(dir: &Path, program: &str, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(program);
    command
        .args(args)
        .current_dir(dir)
        .envs(env.iter().copied());
    command
}

/// Runs a program other than agg (a runner, git), checks that it succeeded, showing its
/// stderr when not, and returns what it printed.
#[track_caller]
pub fn run_ok(command: &mut Command) -> std::process::Output {
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("{command:?}: {e}"));
    assert!(
        out.status.success(),
        "{command:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Writes an executable file at `path`, creating directories.
pub fn write_executable(path: &Path, contents: impl AsRef<[u8]>) {
    use std::os::unix::fs::PermissionsExt;
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).expect("mkdir");
    }
    fs::write(path, contents).expect("write");
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).expect("chmod");
}

/// Copies a directory tree, hidden files and ignored folders included.
pub fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).expect("mkdir");
    for entry in fs::read_dir(from).expect("read fixture") {
        let entry = entry.expect("entry");
        let ty = entry.file_type().expect("type");
        let dest = to.join(entry.file_name());
        if ty.is_dir() {
            copy_dir(&entry.path(), &dest);
        } else if ty.is_symlink() {
            let target = fs::read_link(entry.path()).expect("readlink");
            std::os::unix::fs::symlink(target, dest).expect("symlink");
        } else {
            fs::copy(entry.path(), dest).expect("copy");
        }
    }
}

/// The row of the task `unique_name` in an `agg list --json` document; fails the test,
/// showing the document, when there is none.
pub fn task<'j>(json: &'j serde_json::Value, unique_name: &str) -> &'j serde_json::Value {
    rows(json)
        .find(|t| t["unique_name"] == unique_name)
        .unwrap_or_else(|| panic!("no {unique_name} in {json}"))
}

/// The task names of an `agg list --json` document.
pub fn names(json: &serde_json::Value) -> Vec<String> {
    rows(json)
        .filter_map(|t| t["unique_name"].as_str().map(str::to_owned))
        .collect()
}

/// The task rows of an `agg list --json` document (or a `list_tasks` result).
pub fn rows(json: &serde_json::Value) -> impl Iterator<Item = &serde_json::Value> {
    json["tasks"].as_array().into_iter().flatten()
}

/// The diagnostics of an `agg list --json` document (or a `list_tasks` result).
pub fn diagnostics(json: &serde_json::Value) -> impl Iterator<Item = &serde_json::Value> {
    json["diagnostics"].as_array().into_iter().flatten()
}

/// Asserts that an `agg list --json` document has no diagnostics.
#[track_caller]
pub fn assert_no_diagnostics(json: &serde_json::Value) {
    assert_eq!(diagnostics(json).count(), 0, "{json}");
}

/// The source names of the rows of an `agg list --json` document that run from `dir`
/// (relative to the scanned root).
pub fn source_names_in(json: &serde_json::Value, dir: &str) -> BTreeSet<String> {
    rows(json)
        .filter(|t| t["dir"] == dir)
        .filter_map(|t| t["source_name"].as_str().map(str::to_owned))
        .collect()
}

/// Asserts that a JSON value is a string holding `text` (an error, a reason, a message),
/// showing the value when it is not.
#[track_caller]
pub fn assert_text_has(value: &serde_json::Value, text: &str) {
    assert!(
        value.as_str().is_some_and(|s| s.contains(text)),
        "no `{text}` in {value}"
    );
}

/// The row of the task `unique_name` in an `agg list --json` document, once checked that
/// agg found its runner and runs it as `command`.
#[track_caller]
pub fn assert_runs_as<'j>(
    json: &'j serde_json::Value,
    unique_name: &str,
    command: &str,
) -> &'j serde_json::Value {
    let row = task(json, unique_name);
    assert_eq!(row["command"], command, "{row}");
    assert_eq!(row["runner_available"], true, "{row}");
    row
}
