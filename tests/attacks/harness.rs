//! What the permission attacks share: a repository with a marker file outside it, an
//! allowlist written by the real `agg allow`/`agg deny`, and `agg mcp` driven by raw
//! JSON-RPC lines from a client that cannot ask the user (so anything not allowed is
//! refused, never run).

use std::path::PathBuf;
use std::process::Command;

use serde_json::{Value, json};
use tempfile::TempDir;

use crate::common::raw::Raw;
use indoc::indoc;

/// A repository under attack.
pub struct Attack {
    _repo: TempDir,
    _outside: TempDir,
    _config: TempDir,
    /// The repository's canonical root.
    pub root: PathBuf,
    /// The allowlist `agg mcp` and `agg allow` use.
    pub allowlist: PathBuf,
    /// A file that exists only if code nobody allowed ran; outside the repository.
    pub marker: PathBuf,
    /// A directory outside the repository, for the attacker's own files.
    pub outside: PathBuf,
}

impl Attack {
    /// A repository with `files`, in which `MARKER` stands for the marker file's path.
    pub fn new(files: &[(&str, &str)]) -> Attack {
        let repo = tempfile::tempdir().expect("repo");
        // The marker where a sandboxed run may write (the temp dir), so that its absence
        // says the start was refused, not that the sandbox stopped the write; the allowlist
        // apart, where agg's own files are.
        let out = tempfile::tempdir().expect("outside");
        let config = crate::common::mcp::config_dir();
        let root = std::fs::canonicalize(repo.path()).expect("root");
        let outside = std::fs::canonicalize(out.path()).expect("outside");
        let marker = outside.join("marker");
        let attack = Attack {
            _repo: repo,
            _outside: out,
            allowlist: config.path().join("allowlist.toml"),
            _config: config,
            root,
            marker,
            outside,
        };
        for (path, text) in files {
            attack.write(path, text);
        }
        attack
    }

    /// Writes a repository file (`MARKER` replaced by the marker's path).
    pub fn write(&self, path: &str, text: &str) {
        let full = self.root.join(path);
        std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
        std::fs::write(&full, self.text(text)).expect("write");
    }

    /// `text` with `MARKER` replaced by the marker's path.
    pub fn text(&self, text: &str) -> String {
        text.replace("MARKER", &self.marker.display().to_string())
    }

    /// Makes a repository file executable.
    pub fn executable(&self, path: &str) {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(self.root.join(path), std::fs::Permissions::from_mode(0o755))
            .expect("chmod");
    }

    /// Runs the real `agg ARGS…` in the repository with its allowlist; fails the test when
    /// it fails.
    pub fn agg(&self, args: &[&str]) -> String {
        let out = crate::common::succeeds(
            Command::new(env!("CARGO_BIN_EXE_agg"))
                .args(args)
                .env("AGG_ALLOWLIST", &self.allowlist)
                .env("NO_COLOR", "1")
                .current_dir(&self.root),
            &format!("agg {args:?}"),
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Allows `task`, starts `agg mcp` on the repository and runs `task` once as it stands
    /// (request 1): the server, for the edit that follows.
    pub fn serve_after_one_run(&self, task: &str) -> Raw {
        self.agg(&["allow", task]);
        let mut raw = self.serve();
        ran(&start(&mut raw, 1, task, &json!({})));
        raw
    }

    /// `agg mcp` on the repository.
    pub fn serve(&self) -> Raw {
        Raw::start(&self.root, &self.allowlist)
    }

    /// Whether code nobody allowed ran.
    pub fn marked(&self) -> bool {
        self.marker.exists()
    }
}

/// The `agg/error` code of a tool result, when it is an error.
pub fn error_code(response: &Value) -> Option<i64> {
    let result = &response["result"];
    (result["isError"] == true)
        .then(|| result["_meta"]["agg/error"]["code"].as_i64())
        .flatten()
}

/// The text of a tool result.
pub fn text(response: &Value) -> String {
    response["result"]["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .collect()
}

/// `task_start` of `name` with `extra` arguments (merged), waiting up to 20 s.
pub fn start(raw: &mut Raw, id: u64, name: &str, extra: &Value) -> Value {
    let mut args = json!({"unique_name": name, "wait_ms": 20_000});
    if let (Some(args), Some(extra)) = (args.as_object_mut(), extra.as_object()) {
        args.extend(extra.clone());
    }
    raw.call(id, "task_start", &args)
}

/// Asserts that the start was refused with `code`, that nothing ran, and that the server
/// still answers.
pub fn refused(attack: &Attack, raw: &mut Raw, response: &Value, code: i64) {
    assert_eq!(error_code(response), Some(code), "{response}");
    assert!(
        !attack.marked(),
        "code nobody allowed ran: {}",
        attack.marker.display()
    );
    let id = 900_000 + u64::from(std::process::id() % 1000);
    let list = raw.call(id, "list_tasks", &json!({}));
    assert!(list["result"]["isError"] != true, "{list}");
}

/// Asserts that the start ran, exited 0 and printed `part`.
pub fn ran_saying(response: &Value, part: &str) {
    ran(response);
    assert!(text(response).contains(part), "{response}");
}

/// Asserts that the start ran and exited 0.
pub fn ran(response: &Value) {
    assert_eq!(error_code(response), None, "{response}");
    assert_eq!(
        response["result"]["structuredContent"]["exit_code"], 0,
        "{response}"
    );
}

/// A Makefile with an allowed `build` and a `deploy` that touches the marker.
pub const MAKEFILE: &str = indoc! {"
        build:
        \t@echo building

        deploy:
        \t@echo deployed > MARKER

        x:
        \t@true
    "};
