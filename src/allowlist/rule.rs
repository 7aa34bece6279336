//! One allowlist rule: a directory, a task file, or one task of a file, optionally pinned.
//!
//! Rules match a task by its absolute file and source name, never by its unique name, so
//! a new runner suffix never changes a permission. Two rules with the same target are the
//! same rule: allowing it again replaces the pin, denying it removes the allow.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::pin::Pin;

/// One rule. Paths are absolute and canonical.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// A directory: every task defined in a file under it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<PathBuf>,
    /// A task file: every task it defines (or, with `task`, just that one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
    /// A task's source name within `file`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    /// What the task (or the whole file) said when it was allowed; the allow lapses when
    /// that changes. Allow rules for tasks and files only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pin: Option<Pin>,
    /// Agents may add any arguments to the task (`agg allow NAME --any-args`). Without it,
    /// an argument the runner could read as its own option, target or code is asked about.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub any_args: bool,
    /// The sandbox of agents' runs of what it allows (`agg allow NAME --offline`,
    /// `--write PATH`, `--read-secret PATH`, `--no-sandbox`); absent: the default policy.
    /// Allow rules only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<crate::sandbox::Spec>,
}

/// What a rule covers, broadest first: the order of precedence among allow rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// Every task under a directory.
    Directory,
    /// Every task of a file.
    File,
    /// One task.
    Task,
}

impl Kind {
    /// The word `agg allowlist` prints.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Directory => "directory",
            Kind::File => "file",
            Kind::Task => "task",
        }
    }
}

impl Rule {
    /// A rule for one task of `file`.
    pub fn for_task(file: PathBuf, source_name: String, pin: Option<Pin>) -> Rule {
        Rule {
            dir: None,
            file: Some(file),
            task: Some(source_name),
            pin,
            any_args: false,
            sandbox: None,
        }
    }

    /// A rule for every task of `file`.
    pub fn for_file(file: PathBuf, pin: Option<Pin>) -> Rule {
        Rule {
            dir: None,
            file: Some(file),
            task: None,
            pin,
            any_args: false,
            sandbox: None,
        }
    }

    /// A rule for every task under `dir`.
    pub fn for_dir(dir: PathBuf) -> Rule {
        Rule {
            dir: Some(dir),
            file: None,
            task: None,
            pin: None,
            any_args: false,
            sandbox: None,
        }
    }

    /// Whether both rules cover the same thing, whatever their pins.
    pub fn same_target(&self, other: &Rule) -> bool {
        self.dir == other.dir && self.file == other.file && self.task == other.task
    }

    /// Whether the rule covers the task `source_name` of the absolute `file`.
    pub fn matches(&self, file: &Path, source_name: &str) -> bool {
        if let Some(dir) = &self.dir {
            return file.starts_with(dir);
        }
        match (&self.file, &self.task) {
            (Some(f), Some(t)) => f == file && t == source_name,
            (Some(f), None) => f == file,
            _ => false,
        }
    }

    /// What the rule covers.
    pub fn kind(&self) -> Kind {
        match (&self.dir, &self.task) {
            (Some(_), _) => Kind::Directory,
            (None, Some(_)) => Kind::Task,
            (None, None) => Kind::File,
        }
    }

    /// The rule in words, as decisions and `agg allowlist` quote it.
    pub fn describe(&self) -> String {
        let what = match (&self.dir, &self.file, &self.task) {
            (Some(d), _, _) => format!("dir {}", d.display()),
            (None, Some(f), Some(t)) => format!("task {t} in {}", f.display()),
            (None, Some(f), None) => format!("file {}", f.display()),
            _ => "(empty rule)".to_owned(),
        };
        match (self.pin.is_some(), self.any_args) {
            (true, true) => format!("{what} (pinned, any arguments)"),
            (true, false) => format!("{what} (pinned)"),
            (false, true) => format!("{what} (any arguments)"),
            (false, false) => what,
        }
    }

    /// Why a rule read from the file cannot be used, if it cannot. `allow` says which
    /// list it came from: deny rules are never pinned.
    pub(super) fn problem(&self, allow: bool) -> Option<&'static str> {
        let shape = match (&self.dir, &self.file, &self.task) {
            (Some(_), Some(_), _) => Some("a rule names either `dir` or `file`, not both"),
            (Some(_), None, Some(_)) => Some("a `task` belongs to a `file`, not a `dir`"),
            (None, None, _) => Some("a rule needs `dir` or `file`"),
            (Some(_), None, None) | (None, Some(_), _) => None,
        };
        let relative = self.dir.iter().chain(&self.file).any(|p| !p.is_absolute());
        shape
            .or(relative.then_some("paths in the allowlist are absolute"))
            .or((!allow && self.any_args).then_some("a deny rule takes no `any_args`"))
            .or_else(|| super::sandbox::problem(self, allow))
            .or_else(|| {
                let pin = self.pin.as_ref()?;
                if !allow {
                    Some("a deny rule is never pinned")
                } else if self.dir.is_some() {
                    Some("a directory rule cannot be pinned")
                } else if pin.is_task() != self.task.is_some() {
                    Some("the pin does not fit the rule (task pins go on task rules, content pins on file rules)")
                } else {
                    None
                }
            })
    }
}
