//! Whether each allow rule's pin still holds, for `agg allowlist`.
//!
//! A task pin is checked against a fresh scan of the repository holding its file (the
//! nearest directory with a `.git`, else the file's directory), scanned once per
//! repository; a file pin against the file's bytes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::{Allowlist, Pin, Rule};
use crate::table::Table;

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
    let mut tables: HashMap<PathBuf, Table> = HashMap::new();
    list.allow
        .iter()
        .map(|rule| state(rule, &mut tables))
        .collect()
}

fn state(rule: &Rule, tables: &mut HashMap<PathBuf, Table>) -> RuleState {
    let (Some(pin), Some(file)) = (&rule.pin, &rule.file) else {
        return RuleState::Unpinned;
    };
    if !pin.is_task() {
        return match std::fs::read(file) {
            Ok(content) => pin
                .changes(&Pin::file(&content))
                .map_or(RuleState::Holds, RuleState::Lapsed),
            Err(e) => RuleState::Missing(crate::repo_files::io_reason(&e)),
        };
    }
    let Some(name) = &rule.task else {
        return RuleState::Unpinned;
    };
    if !file.is_file() {
        return RuleState::Missing("the task file is gone".to_owned());
    }
    let root = repo_root(file);
    let table = tables
        .entry(root.clone())
        .or_insert_with(|| Table::load(&root));
    match table
        .tasks
        .iter()
        .find(|t| table.root.join(&t.file_path) == *file && t.source_name == *name)
    {
        Some(task) => pin
            .changes(&Pin::task(&table.root, task))
            .map_or(RuleState::Holds, RuleState::Lapsed),
        None => RuleState::Missing(format!("the file no longer defines `{name}`")),
    }
}

/// The repository a task file belongs to: the nearest ancestor with a `.git`, else the
/// file's directory.
fn repo_root(file: &Path) -> PathBuf {
    let dir = file.parent().unwrap_or(file);
    dir.ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(dir)
        .to_path_buf()
}
