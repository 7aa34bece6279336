//! The MCP server's view of the allowlist: re-read whenever the file changes, and deny
//! everything, saying why, when it cannot be used (no config directory, a path inside the
//! served repository, a file that does not parse).

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::{Allowlist, Decision, Matched, OnDisk, Store};
use crate::table::Task;

/// An allowlist that re-reads its file whenever the file changes.
#[derive(Debug)]
pub struct LiveAllowlist {
    path: Option<PathBuf>,
    root: PathBuf,
    stamp: Option<(SystemTime, u64, u64)>,
    list: Allowlist,
    problem: Option<String>,
}

impl LiveAllowlist {
    /// Watches the allowlist at `path` for tasks under `root` (absolute).
    pub fn new(path: Option<PathBuf>, root: &Path) -> LiveAllowlist {
        let mut live = LiveAllowlist {
            path,
            root: root.to_path_buf(),
            stamp: None,
            list: Allowlist::default(),
            problem: None,
        };
        live.refresh();
        live
    }

    /// Re-reads the file if it changed since the last read.
    pub fn refresh(&mut self) {
        let Some(path) = self.path.clone() else {
            self.problem = Some(super::StoreError::NoConfigDir.to_string());
            return;
        };
        // Writers rename a new file into place, so the inode tells a rewrite apart even
        // when the size and the clock's granularity do not.
        let stamp = std::fs::metadata(&path).ok().map(|m| {
            (
                m.modified().unwrap_or(SystemTime::UNIX_EPOCH),
                m.len(),
                m.ino(),
            )
        });
        if stamp == self.stamp && self.stamp.is_some() {
            return;
        }
        self.stamp = stamp;
        // The file's real path decides: an allowlist that is a symlink into the served
        // repository (a dotfiles checkout) would let the repository grant itself permission.
        let real = std::fs::canonicalize(&path)
            .or_else(|_| std::fs::canonicalize(path.parent().unwrap_or(&path)));
        let inside_repo = real.is_ok_and(|p| p.starts_with(&self.root));
        if inside_repo {
            self.list = Allowlist::default();
            self.problem = Some(format!(
                "{} is inside the repository, which cannot grant itself permission; ignored",
                path.display()
            ));
            return;
        }
        match Store::new(path).load() {
            Ok(list) => {
                self.list = list;
                self.problem = None;
            }
            Err(e) => {
                self.list = Allowlist::default();
                self.problem = Some(e.to_string());
            }
        }
    }

    /// The decision for a task of the table rooted at `root`, its pins compared with what
    /// `now` reads from disk. While the allowlist cannot be used every task is denied, with
    /// the reason as the rule.
    pub fn decide(&mut self, task: &Task, now: &mut OnDisk) -> Decision {
        self.refresh();
        if let Some(problem) = &self.problem {
            return Decision::Denied(format!("the allowlist cannot be used: {problem}"));
        }
        self.list.decide(&self.root, task, now)
    }

    /// The rules that name `task` (owned: the caller decides without holding the lock),
    /// or, while the allowlist cannot be used, why.
    pub fn matched(&mut self, task: &Task) -> Matched {
        self.refresh();
        if let Some(problem) = &self.problem {
            return Matched {
                problem: Some(problem.clone()),
                ..Matched::default()
            };
        }
        self.list.matched(&self.root, task)
    }

    /// The sandbox options agents' runs of `task` get ([`Allowlist::sandbox_for`]); the
    /// default while the allowlist cannot be used (every task is denied then anyway).
    pub fn sandbox_for(&mut self, task: &Task, now: &mut OnDisk) -> crate::sandbox::Spec {
        self.refresh();
        if self.problem.is_some() {
            return crate::sandbox::Spec::default();
        }
        self.list.sandbox_for(&self.root, task, now)
    }

    /// Why the allowlist could not be used, if it could not.
    pub fn problem(&self) -> Option<&str> {
        self.problem.as_deref()
    }

    /// The file's path.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The file as a [`Store`], to write the user's answers through.
    pub fn store(&self) -> Option<Store> {
        self.path.clone().map(Store::new)
    }
}
