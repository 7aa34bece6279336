//! What a task's files say now, read from disk when a decision is made: the pins a rule is
//! compared with. Never the watcher's table, which may lag behind an edit or never see it.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use agg_runners::Parsed;

use super::pin::{Definition, Pin, PinnedFile, PinnedPart, Unfollowed, fingerprint, pinned_files};
use crate::repo_files::{MAX_TASK_FILE_BYTES, ReadError, read_regular, sha256_hex};
use crate::scan::{Reread, reread};
use crate::table::Task;

/// One task as its files define it now.
#[derive(Debug, Clone)]
pub struct Current {
    /// The task as its file defines it now (with what it reads), or why it cannot be found
    /// there.
    pub task: Result<Task, Unpinnable>,
    /// The pin an allow of this task would write now.
    pub task_pin: Result<Pin, Unpinnable>,
    /// The pin an allow of the task's whole file would write now.
    pub file_pin: Result<Pin, Unpinnable>,
    /// Every file read for the task.
    pub files: Vec<PinnedFile>,
}

/// Why a task cannot be found, or pinned, as its files say it now.
#[derive(Debug, Clone)]
pub enum Unpinnable {
    /// agg no longer reads the task's origin as a task file.
    NotATaskFile {
        /// The file the task came from.
        origin: String,
    },
    /// Another file now stands beside the origin, and the runner reads that one instead.
    Superseded {
        /// The file the runner reads now.
        other: String,
        /// The file the task came from.
        origin: String,
    },
    /// The task's file cannot be read.
    Unreadable {
        /// The task's file.
        file: String,
        /// Why.
        source: ReadError,
    },
    /// The file no longer defines the task.
    Undefined {
        /// The task's file.
        file: String,
        /// The task's name in it.
        name: String,
    },
}

impl std::fmt::Display for Unpinnable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unpinnable::NotATaskFile { origin } => {
                write!(f, "agg no longer reads {origin} as a task file")
            }
            Unpinnable::Superseded { other, origin } => write!(
                f,
                "{other} now stands beside {origin}, and the runner reads it instead"
            ),
            Unpinnable::Unreadable { file, source } => write!(f, "{file} cannot be read: {source}"),
            Unpinnable::Undefined { file, name } => write!(f, "{file} no longer defines `{name}`"),
        }
    }
}

impl std::error::Error for Unpinnable {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Unpinnable::Unreadable { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Reads task files again for one decision (or one listing), each file once.
#[derive(Debug, Default)]
pub struct OnDisk {
    reread: HashMap<String, Option<Reread>>,
    current: HashMap<(String, String, String), Current>,
}

impl OnDisk {
    /// A fresh view: every file is read again on first use.
    pub fn new() -> OnDisk {
        OnDisk::default()
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
        let gone = |reason: Unpinnable| Current {
            task: Err(reason.clone()),
            task_pin: Err(reason.clone()),
            file_pin: Err(reason),
            files: Vec::new(),
        };
        let Some(again) = again else {
            return gone(Unpinnable::NotATaskFile { origin });
        };
        if let Some(other) = &again.superseded_by {
            return gone(Unpinnable::Superseded {
                other: other.clone(),
                origin,
            });
        }
        let files = pinned_files(root, &again.read);
        let file_pin = read_regular(&root.join(&task.file_path), MAX_TASK_FILE_BYTES)
            .map(|content| Pin::file(&content, files.clone()))
            .map_err(|source| Unpinnable::Unreadable {
                file: task.file_path.clone(),
                source,
            });
        let found = again.parsed.tasks.iter().find(|t| {
            t.source_name == task.source_name
                && t.file_path == task.file_path
                && t.runner == task.runner
        });
        let Some(found) = found else {
            let reason = Unpinnable::Undefined {
                file: task.file_path.clone(),
                name: task.source_name.clone(),
            };
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
) -> Result<Vec<PinnedPart>, Unfollowed> {
    let Some(reads) = task.reads.as_deref() else {
        return Err(Unfollowed::Runner(task.runner));
    };
    if let Some(why) = &reads.unknown {
        return Err(Unfollowed::Unknown(why.clone()));
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
            return Err(Unfollowed::TooMany(MAX_FOLLOWED));
        }
        let inner = reads_of(root, parsed, other, seen).map_err(|why| Unfollowed::Runs {
            task: other.source_name.clone(),
            why: Box::new(why),
        })?;
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
