//! The test builder: a repository (a bundled fixture or a fresh temp dir), arguments,
//! environment, then the real `agg` binary run on it.

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
        Test {
            root: tmp.path().to_path_buf(),
            tmp: Some(tmp),
            args: Vec::new(),
            env: Vec::new(),
            remove: Vec::new(),
            cwd_root: true,
            cwd: None,
        }
    }

    /// A bundled fixture, used in place (read-only tests).
    pub fn fixture(name: &str) -> Test {
        Test {
            root: fixtures().join(name),
            tmp: None,
            args: Vec::new(),
            env: Vec::new(),
            remove: Vec::new(),
            cwd_root: true,
            cwd: None,
        }
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
        assert_eq!(
            self.code,
            Some(0),
            "agg failed\nstdout:\n{}\nstderr:\n{}",
            self.stdout,
            self.stderr
        );
        self
    }

    /// Asserts a given exit code.
    #[track_caller]
    pub fn code(self, code: i32) -> Output {
        assert_eq!(
            self.code,
            Some(code),
            "unexpected exit code\nstdout:\n{}\nstderr:\n{}",
            self.stdout,
            self.stderr
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
    json["tasks"]
        .as_array()
        .and_then(|tasks| tasks.iter().find(|t| t["unique_name"] == unique_name))
        .unwrap_or_else(|| panic!("no {unique_name} in {json}"))
}

/// The task names of an `agg list --json` document.
pub fn names(json: &serde_json::Value) -> Vec<String> {
    json["tasks"]
        .as_array()
        .map(|tasks| {
            tasks
                .iter()
                .filter_map(|t| t["unique_name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}
