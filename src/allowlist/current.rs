//! What a task's files say now, read from disk when a decision is made: the pins a rule is
//! compared with. Never the watcher's table, which may lag behind an edit or never see it.

use std::collections::HashMap;
use std::path::Path;

use super::pin::{Pin, PinnedFile, pinned_files};
use crate::repo_files::{MAX_TASK_FILE_BYTES, read_regular};
use crate::scan::{Reread, reread};
use crate::table::Task;

/// One task as its files define it now.
#[derive(Debug, Clone)]
pub struct Current {
    /// The task as its file defines it now, or why it cannot be found there.
    pub task: Result<Task, String>,
    /// The pin an allow of this task would write now.
    pub task_pin: Result<Pin, String>,
    /// The pin an allow of the task's whole file would write now.
    pub file_pin: Result<Pin, String>,
    /// Every file the pins cover.
    pub files: Vec<PinnedFile>,
}

/// Reads task files again for one decision (or one listing), each file once.
#[derive(Debug, Default)]
pub struct Now {
    reread: HashMap<String, Option<Reread>>,
    current: HashMap<(String, String, String), Current>,
}

impl Now {
    /// A fresh view: every file is read again on first use.
    pub fn new() -> Now {
        Now::default()
    }

    /// `task` of the repository at the absolute `root` as its files define it now.
    pub fn current(&mut self, root: &Path, task: &Task) -> &Current {
        let key = (
            task.origin.clone(),
            task.file_path.clone(),
            task.source_name.clone(),
        );
        if !self.current.contains_key(&key) {
            let found = self.compute(root, task);
            self.current.insert(key.clone(), found);
        }
        &self.current[&key]
    }

    /// What was read for `task` already, if anything.
    pub fn shown(&self, task: &Task) -> Option<&Current> {
        self.current.get(&(
            task.origin.clone(),
            task.file_path.clone(),
            task.source_name.clone(),
        ))
    }

    fn compute(&mut self, root: &Path, task: &Task) -> Current {
        let origin = if task.origin.is_empty() {
            task.file_path.clone()
        } else {
            task.origin.clone()
        };
        let again = self
            .reread
            .entry(origin.clone())
            .or_insert_with(|| reread(root, &origin));
        let gone = |reason: String| Current {
            task: Err(reason.clone()),
            task_pin: Err(reason.clone()),
            file_pin: Err(reason),
            files: Vec::new(),
        };
        let Some(again) = again else {
            return gone(format!("agg no longer reads {origin} as a task file"));
        };
        if let Some(other) = &again.superseded_by {
            return gone(format!(
                "{other} now stands beside {origin}, and the runner reads it instead"
            ));
        }
        let files = pinned_files(root, &again.read);
        let file_pin = read_regular(&root.join(&task.file_path), MAX_TASK_FILE_BYTES)
            .map(|content| Pin::file(&content, files.clone()))
            .map_err(|reason| format!("{} cannot be read: {reason}", task.file_path));
        let found = again.parsed.tasks.iter().find(|t| {
            t.source_name == task.source_name
                && t.file_path == task.file_path
                && t.runner == task.runner
        });
        let Some(found) = found else {
            let reason = format!(
                "{} no longer defines `{}`",
                task.file_path, task.source_name
            );
            return Current {
                task: Err(reason.clone()),
                task_pin: Err(reason),
                file_pin,
                files,
            };
        };
        Current {
            task: Ok(found.clone()),
            task_pin: Ok(Pin::task(root, found, files.clone())),
            file_pin,
            files,
        }
    }
}
