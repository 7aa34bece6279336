//! Pins: what a task (or a whole file) said when the user allowed it.
//!
//! A pin is a sha256 fingerprint plus the few facts a person needs to see what changed
//! (runner, command, directory, deps, line count). When the definition changes the
//! fingerprint no longer matches, the allow lapses, and [`Pin::changes`] says why.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use agg_runners::{Param, XcSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::table::Task;

/// Bumped when the fingerprinted facts change shape, so an old pin lapses instead of
/// matching something it never saw.
const FINGERPRINT_VERSION: u32 = 1;

/// What a task or file looked like when it was allowed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pin {
    /// sha256 of everything pinned: for a task its runner, command, argv, directory,
    /// deps, parameters (with defaults), recipe text, environment and xc settings; for a
    /// file its bytes.
    pub sha256: String,
    /// Lines of the recipe text (task) or of the file (file) when pinned.
    pub lines: usize,
    /// The runner, for task pins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner: Option<String>,
    /// The command, for task pins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The absolute directory the task ran in, for task pins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<PathBuf>,
    /// The deps' names, for task pins.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deps: Vec<String>,
    /// sha256 of the recipe text alone, for task pins: tells a changed recipe from a
    /// changed environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_sha256: Option<String>,
}

/// The facts a task pin hashes. Field order is part of the fingerprint.
#[derive(Serialize)]
struct Fingerprinted<'a> {
    version: u32,
    runner: &'a str,
    command: &'a str,
    argv: &'a [String],
    dir: &'a Path,
    deps: &'a [String],
    params: &'a [Param],
    script: Option<&'a str>,
    env: &'a [(String, String)],
    xc: Option<&'a XcSpec>,
}

fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut hex = String::with_capacity(64);
    for byte in &digest {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

/// The absolute directory a task of the table rooted at `root` runs in.
pub fn task_dir(root: &Path, task: &Task) -> PathBuf {
    if task.dir == "." || task.dir.is_empty() {
        root.to_path_buf()
    } else {
        root.join(&task.dir)
    }
}

impl Pin {
    /// Pins `task` of the table rooted at `root` (absolute).
    pub fn task(root: &Path, task: &Task) -> Pin {
        let dir = task_dir(root, task);
        let script = task.script.as_deref();
        let facts = Fingerprinted {
            version: FINGERPRINT_VERSION,
            runner: task.runner.name(),
            command: &task.command,
            argv: &task.argv,
            dir: &dir,
            deps: &task.deps,
            params: &task.params,
            script,
            env: &task.env,
            xc: task.xc.as_ref(),
        };
        // Serialising plain strings, paths and a derived struct cannot fail; an empty
        // body would still give a fingerprint that no real task matches.
        let body = serde_json::to_vec(&facts).unwrap_or_default();
        Pin {
            sha256: sha256_hex(&body),
            lines: script.map_or(0, |s| s.lines().count()),
            runner: Some(task.runner.name().to_owned()),
            command: Some(task.command.clone()),
            dir: Some(dir),
            deps: task.deps.clone(),
            text_sha256: Some(sha256_hex(script.unwrap_or("").as_bytes())),
        }
    }

    /// Pins a file's content.
    pub fn file(content: &[u8]) -> Pin {
        Pin {
            sha256: sha256_hex(content),
            lines: memchr::memchr_iter(b'\n', content).count()
                + usize::from(!content.is_empty() && !content.ends_with(b"\n")),
            runner: None,
            command: None,
            dir: None,
            deps: Vec::new(),
            text_sha256: None,
        }
    }

    /// Whether this pins a task (rather than a file's content).
    pub fn is_task(&self) -> bool {
        self.command.is_some()
    }

    /// A short summary of what changed from this pin to `now`, or `None` when nothing did.
    pub fn changes(&self, now: &Pin) -> Option<String> {
        if self.sha256 == now.sha256 {
            return None;
        }
        if !self.is_task() {
            return Some(format!(
                "file content changed ({})",
                lines(self.lines, now.lines)
            ));
        }
        let mut parts = Vec::new();
        if self.runner != now.runner {
            parts.push(format!(
                "runner {} → {}",
                self.runner.as_deref().unwrap_or("?"),
                now.runner.as_deref().unwrap_or("?")
            ));
        }
        if self.command != now.command {
            parts.push(format!(
                "command `{}` → `{}`",
                self.command.as_deref().unwrap_or(""),
                now.command.as_deref().unwrap_or("")
            ));
        }
        if self.dir != now.dir {
            let show = |d: Option<&PathBuf>| d.map_or(String::new(), |d| d.display().to_string());
            parts.push(format!(
                "directory {} → {}",
                show(self.dir.as_ref()),
                show(now.dir.as_ref())
            ));
        }
        if self.deps != now.deps {
            let show = |d: &[String]| {
                if d.is_empty() {
                    "(none)".to_owned()
                } else {
                    d.join(", ")
                }
            };
            parts.push(format!("deps {} → {}", show(&self.deps), show(&now.deps)));
        }
        if self.text_sha256 != now.text_sha256 {
            parts.push(format!(
                "recipe text changed ({})",
                lines(self.lines, now.lines)
            ));
        }
        if parts.is_empty() {
            parts.push("parameters, environment or runner settings changed".to_owned());
        }
        Some(parts.join("; "))
    }
}

fn lines(before: usize, after: usize) -> String {
    let unit = |n: usize| if n == 1 { "line" } else { "lines" };
    if before == after {
        format!("{after} {}", unit(after))
    } else {
        format!("{before} → {after} {}", unit(after))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_pins_count_lines_with_or_without_a_final_newline() {
        assert_eq!(Pin::file(b"").lines, 0);
        assert_eq!(Pin::file(b"a\nb\n").lines, 2);
        assert_eq!(Pin::file(b"a\nb").lines, 2);
        let summary = Pin::file(b"a\n").changes(&Pin::file(b"a\nb\nc\n"));
        assert_eq!(
            summary.as_deref(),
            Some("file content changed (1 → 3 lines)")
        );
        assert_eq!(Pin::file(b"x").changes(&Pin::file(b"x")), None);
    }
}
