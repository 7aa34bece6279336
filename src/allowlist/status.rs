//! Whether each allow rule's pin still holds, for `agg allowlist`.
//!
//! A pin is checked against what the files say now: the repository holding the rule's file
//! (the nearest directory with a `.git`, else the file's directory) is scanned once to find
//! the task, and its files are read again as a decision reads them ([`OnDisk`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::pin::PinnedFile;
use super::{Allowlist, OnDisk, Pin, Rule};
use crate::repo_files::{MAX_TASK_FILE_BYTES, read_regular, sha256_hex};
use crate::table::{Table, Task};

/// The state of one allow rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleState {
    /// Not pinned: allows whatever the directory, file or task says.
    Unpinned,
    /// Pinned, and what it pinned is unchanged.
    Holds,
    /// Pinned, and what it pinned changed: what changed.
    Lapsed(String),
    /// The pinned task or file is gone: why.
    Missing(String),
}

impl RuleState {
    /// The word `agg allowlist` prints.
    pub fn name(&self) -> &'static str {
        match self {
            RuleState::Unpinned => "unpinned",
            RuleState::Holds => "pinned",
            RuleState::Lapsed(_) => "lapsed",
            RuleState::Missing(_) => "missing",
        }
    }

    /// What changed or why it is missing.
    pub fn detail(&self) -> Option<&str> {
        match self {
            RuleState::Lapsed(s) | RuleState::Missing(s) => Some(s),
            RuleState::Unpinned | RuleState::Holds => None,
        }
    }
}

/// The state of every allow rule of `list`, in order.
pub fn audit(list: &Allowlist) -> Vec<RuleState> {
    let mut tables: HashMap<PathBuf, (Table, OnDisk)> = HashMap::new();
    list.allow
        .iter()
        .map(|rule| state(rule, &mut tables))
        .collect()
}

fn state(rule: &Rule, tables: &mut HashMap<PathBuf, (Table, OnDisk)>) -> RuleState {
    let (Some(pin), Some(file)) = (&rule.pin, &rule.file) else {
        return RuleState::Unpinned;
    };
    if !file.is_file() {
        return RuleState::Missing(if pin.is_task() {
            "the task file is gone".to_owned()
        } else {
            "no such file".to_owned()
        });
    }
    let root = repo_root(file, pin.dir.as_deref());
    let (table, now) = tables
        .entry(root.clone())
        .or_insert_with(|| (Table::load(&root), OnDisk::new()));
    let defines = |t: &&Task| {
        super::defined_in(&table.root, t, file)
            && rule.task.as_ref().is_none_or(|name| *name == t.source_name)
    };
    let task = table.tasks.iter().find(defines);
    let current = match (task, pin.is_task()) {
        // Whatever the reason, the rule's state says it in words.
        (Some(task), true) => {
            (now.current(&table.root, task).task_pin.clone()).map_err(|e| e.to_string())
        }
        (Some(task), false) => {
            (now.current(&table.root, task).file_pin.clone()).map_err(|e| e.to_string())
        }
        (None, true) => {
            return RuleState::Missing(format!(
                "the file no longer defines `{}`",
                rule.task.as_deref().unwrap_or_default()
            ));
        }
        // A file that defines no task now: its bytes alone.
        (None, false) => read_regular(file, MAX_TASK_FILE_BYTES)
            .map(|content| {
                let sha256 = sha256_hex(&content);
                Pin::file(
                    &content,
                    vec![PinnedFile {
                        path: file.clone(),
                        sha256,
                    }],
                )
            })
            .map_err(|e| e.to_string()),
    };
    match current {
        Ok(current) => pin
            .changes(&current)
            .map_or(RuleState::Holds, RuleState::Lapsed),
        Err(reason) => RuleState::Missing(reason),
    }
}

/// The repository a task file belongs to: the nearest ancestor with a `.git`, else the
/// directory the pinned task runs in when it holds the file (`.cargo/config.toml`'s aliases
/// run from the directory above `.cargo`), else the file's directory.
fn repo_root(file: &Path, task_dir: Option<&Path>) -> PathBuf {
    let dir = file.parent().unwrap_or(file);
    dir.ancestors()
        .find(|d| d.join(".git").exists())
        .or_else(|| task_dir.filter(|d| file.starts_with(d)))
        .unwrap_or(dir)
        .to_path_buf()
}
