//! What a task's files say now, read from disk when a decision is made: the pins a rule is
//! compared with. Never the watcher's table, which may lag behind an edit or never see it.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use agg_runners::Parsed;

use super::pin::{Definition, Pin, PinnedFile, PinnedPart, fingerprint, pinned_files};
use crate::repo_files::{MAX_TASK_FILE_BYTES, read_regular, sha256_hex};
use crate::scan::{Reread, reread};
use crate::table::Task;

/// One task as its files define it now.
#[derive(Debug, Clone)]
pub struct Current {
    /// The task as its file defines it now (with what it reads), or why it cannot be found
    /// there.
    pub task: Result<Task, String>,
    /// The pin an allow of this task would write now.
    pub task_pin: Result<Pin, String>,
    /// The pin an allow of the task's whole file would write now.
    pub file_pin: Result<Pin, String>,
    /// Every file read for the task.
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
        let definition = definition(root, &again.parsed, found);
        Current {
            task: Ok(found.clone()),
            task_pin: Ok(Pin::task(root, found, files.clone(), definition)),
            file_pin,
            files,
        }
    }
}

/// Most tasks one definition follows through deps and the tasks it runs.
const MAX_FOLLOWED: usize = 256;

/// What `task` of `parsed` reads beyond its own facts: its parts, then the fingerprint of
/// each task it runs first or runs from its recipe (each with what that one reads), or why
/// its files must be pinned whole.
fn definition(root: &Path, parsed: &Parsed, task: &Task) -> Definition {
    let mut seen = HashSet::from([task.source_name.as_str()]);
    match reads_of(root, parsed, task, &mut seen) {
        Ok(parts) => Definition::Reads(parts),
        Err(why) => Definition::Whole(why),
    }
}

/// The parts `task` reads, with those of the tasks it runs folded in as one part each;
/// `Err` with the reason when agg cannot tell.
fn reads_of<'p>(
    root: &Path,
    parsed: &'p Parsed,
    task: &'p Task,
    seen: &mut HashSet<&'p str>,
) -> Result<Vec<PinnedPart>, String> {
    let Some(reads) = task.reads.as_deref() else {
        return Err(format!(
            "agg does not follow what {} tasks read",
            task.runner.name()
        ));
    };
    if let Some(why) = &reads.unknown {
        return Err(why.clone());
    }
    let mut parts: Vec<PinnedPart> = reads
        .parts
        .iter()
        .map(|p| PinnedPart {
            what: p.what.clone(),
            sha256: sha256_hex(p.text.as_bytes()),
        })
        .collect();
    let named = task
        .deps
        .iter()
        .map(|d| ("dep", d))
        .chain(reads.runs.iter().map(|r| ("runs", r)));
    for (how, name) in named {
        let Some(other) = parsed
            .tasks
            .iter()
            .find(|t| t.source_name == *name && t.runner == task.runner)
        else {
            // Not a task of this file (a make prerequisite that is a file): its name is
            // part of the task's own facts.
            continue;
        };
        if !seen.insert(other.source_name.as_str()) {
            continue;
        }
        if seen.len() > MAX_FOLLOWED {
            return Err(format!("it runs more than {MAX_FOLLOWED} other tasks"));
        }
        let inner = reads_of(root, parsed, other, seen)
            .map_err(|why| format!("it runs `{}`, and {why}", other.source_name))?;
        let what = if how == "dep" {
            format!("dep `{name}`")
        } else {
            format!("task `{name}` it runs")
        };
        parts.push(PinnedPart {
            what,
            sha256: fingerprint(root, other, &inner, &[]),
        });
    }
    Ok(parts)
}
