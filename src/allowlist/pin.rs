//! Pins: what a task (or a whole file) said when the user allowed it.
//!
//! A pin is a sha256 fingerprint plus the few facts a person needs to see what changed
//! (runner, command, directory, deps, line count, the files it covers). The fingerprint
//! covers everything the runner reads to run the task: the task's own facts and the bytes
//! of every file its adapter read for it (the task file, its includes and imports, a
//! script's body), read from disk when the decision is made ([`super::Current`]). When any
//! of it changes the fingerprint no longer matches, the allow lapses, and [`Pin::changes`]
//! says what changed.

use std::path::{Path, PathBuf};

use agg_runners::{Behaviour, Param, XcSpec, quote_command};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::repo_files::sha256_hex;
use crate::table::Task;

/// Bumped when the fingerprinted facts change shape, so an old pin lapses instead of
/// matching something it never saw.
const FINGERPRINT_VERSION: u32 = 2;

/// What a task or file looked like when it was allowed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pin {
    /// sha256 of everything pinned: for a task its runner, argv, directory, deps,
    /// parameters (with defaults), recipe text, environment, hooks, xc settings and the
    /// bytes of every file in `files`; for a file its bytes and those of `files`.
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
    /// Every file the pin covers (the task file first, then what it pulls in), with the
    /// sha256 of its bytes when pinned.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<PinnedFile>,
}

/// One file a pin covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PinnedFile {
    /// The file's absolute path.
    pub path: PathBuf,
    /// sha256 of its bytes, or `unreadable…` when it could not be read.
    pub sha256: String,
}

/// The facts a task pin hashes. Field order is part of the fingerprint.
#[derive(Serialize)]
struct Fingerprinted<'a> {
    version: u32,
    runner: &'a str,
    argv: &'a [String],
    dir: &'a Path,
    deps: &'a [String],
    params: &'a [Param],
    script: Option<&'a str>,
    env: &'a [(String, String)],
    xc: Option<&'a XcSpec>,
    behaviour: &'a Behaviour,
    files: &'a [PinnedFile],
}

/// The absolute directory a task of the table rooted at `root` runs in.
pub fn task_dir(root: &Path, task: &Task) -> PathBuf {
    dir_of(root, &task.dir)
}

fn dir_of(root: &Path, dir: &str) -> PathBuf {
    if dir == "." || dir.is_empty() {
        root.to_path_buf()
    } else {
        root.join(dir)
    }
}

/// The files read, as a pin records them: absolute paths under `root`.
pub fn pinned_files(root: &Path, read: &[(String, String)]) -> Vec<PinnedFile> {
    read.iter()
        .map(|(rel, sha256)| PinnedFile {
            path: crate::repo_files::abs_path(root, rel),
            sha256: sha256.clone(),
        })
        .collect()
}

impl Pin {
    /// Pins `task` as its file, read now from the repository at the absolute `root`, defines
    /// it, with `files` the files read to find it. `task` is what the adapter returned (a
    /// [`Task`]), not a table row, whose program the table may have rewritten.
    pub fn task(root: &Path, task: &Task, files: Vec<PinnedFile>) -> Pin {
        let dir = dir_of(root, &task.dir);
        let script = task.script.as_deref();
        let facts = Fingerprinted {
            version: FINGERPRINT_VERSION,
            runner: task.runner.name(),
            argv: &task.argv,
            dir: &dir,
            deps: &task.deps,
            params: &task.params,
            script,
            env: &task.env,
            xc: task.xc.as_ref(),
            behaviour: &task.behaviour,
            files: &files,
        };
        // Serialising plain strings, paths and derived structs cannot fail; an empty
        // body would still give a fingerprint that no real task matches.
        let body = serde_json::to_vec(&facts).unwrap_or_default();
        Pin {
            sha256: sha256_hex(&body),
            lines: script.map_or(0, |s| s.lines().count()),
            runner: Some(task.runner.name().to_owned()),
            command: Some(quote_command(&task.argv)),
            dir: Some(dir),
            deps: task.deps.clone(),
            text_sha256: Some(sha256_hex(script.unwrap_or("").as_bytes())),
            files,
        }
    }

    /// Pins a file's content, and the other `files` it pulls in.
    pub fn file(content: &[u8], files: Vec<PinnedFile>) -> Pin {
        let mut body = sha256_hex(content);
        for f in &files {
            body.push('\n');
            body.push_str(&f.path.to_string_lossy());
            body.push('\0');
            body.push_str(&f.sha256);
        }
        Pin {
            sha256: if files.is_empty() {
                sha256_hex(content)
            } else {
                sha256_hex(body.as_bytes())
            },
            lines: memchr::memchr_iter(b'\n', content).count()
                + usize::from(!content.is_empty() && !content.ends_with(b"\n")),
            runner: None,
            command: None,
            dir: None,
            deps: Vec::new(),
            text_sha256: None,
            files,
        }
    }

    /// Whether this pins a task (rather than a file's content).
    pub fn is_task(&self) -> bool {
        self.command.is_some()
    }

    /// The files that changed from this pin to `now`, in words.
    fn changed_files(&self, now: &Pin) -> Vec<String> {
        let mut out = Vec::new();
        for before in &self.files {
            match now.files.iter().find(|f| f.path == before.path) {
                Some(after) if after.sha256 == before.sha256 => {}
                Some(_) => out.push(format!("{} changed", before.path.display())),
                None => out.push(format!("{} is no longer read", before.path.display())),
            }
        }
        for after in &now.files {
            if !self.files.iter().any(|f| f.path == after.path) {
                out.push(format!("{} is now read too", after.path.display()));
            }
        }
        out
    }

    /// A short summary of what changed from this pin to `now`, or `None` when nothing did.
    pub fn changes(&self, now: &Pin) -> Option<String> {
        if self.sha256 == now.sha256 {
            return None;
        }
        if self.files.is_empty() {
            return Some(
                "pinned by an earlier agg that did not cover the files the task reads; allow it again"
                    .to_owned(),
            );
        }
        if !self.is_task() {
            let mut parts = vec![format!(
                "file content changed ({})",
                lines(self.lines, now.lines)
            )];
            parts.extend(self.changed_files(now).into_iter().skip(1));
            return Some(parts.join("; "));
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
        // The task file itself changed whenever its facts did: name it only when nothing
        // else says why (a variable or setting elsewhere in it changed).
        let files = self.changed_files(now);
        let own = self
            .files
            .first()
            .map(|f| format!("{} changed", f.path.display()));
        for change in files {
            if Some(&change) == own.as_ref() {
                if parts.is_empty() {
                    parts.push(format!(
                        "{change} outside the task (a variable or setting it may read)"
                    ));
                }
            } else {
                parts.push(change);
            }
        }
        if parts.is_empty() {
            parts.push("parameters, environment, hooks or runner settings changed".to_owned());
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
        let file = |content: &[u8]| {
            let sha256 = sha256_hex(content);
            Pin::file(
                content,
                vec![PinnedFile {
                    path: PathBuf::from("/repo/Makefile"),
                    sha256,
                }],
            )
        };
        assert_eq!(file(b"").lines, 0);
        assert_eq!(file(b"a\nb\n").lines, 2);
        assert_eq!(file(b"a\nb").lines, 2);
        let summary = file(b"a\n").changes(&file(b"a\nb\nc\n"));
        assert_eq!(
            summary.as_deref(),
            Some("file content changed (1 → 3 lines)")
        );
        assert_eq!(file(b"x").changes(&file(b"x")), None);
    }
}
