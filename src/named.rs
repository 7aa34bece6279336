//! The named table kept beside the scan cache: the rows of a scan ordered, placed in their
//! packages and given their unique names — everything of the table that follows from the
//! files alone — so that a listing of an unchanged repository neither decodes the parses nor
//! names 30,000 tasks again, and a shell completion reads names it can offer at once.
//!
//! A file holds the [`Generation`] of the scan cache it was derived from and is used only
//! while the scan cache checks as unchanged at that very generation ([`Named::load`]): any
//! change to the repository writes the scan cache again under a new generation, and the
//! named table of the old one is then ignored and replaced. What depends on the person's
//! environment (which runners are installed, the project's own runner binaries, the command
//! written with them) is never kept: [`crate::table`] fills it in on every run.

use std::path::Path;

use agg_runners::{Diagnostic, Task};

use crate::scan::{Generation, Index, Loaded, Scan};

/// The kind of [`crate::cache`] file (its directory's name).
const KIND: &str = "table-cache";

/// A table before its environment is filled in: root, named rows, diagnostics, manifests.
#[derive(Debug, Clone, bitcode::Encode, bitcode::Decode)]
pub struct Named {
    /// The absolute, canonical root.
    pub root: Vec<u8>,
    /// Every task in the table's order, with its unique name and package; its command and
    /// availability not filled in.
    pub tasks: Vec<Task>,
    /// Every problem found, sorted by file and line.
    pub diagnostics: Vec<Diagnostic>,
    /// The manifests the workspace graph reads.
    pub manifests: Vec<String>,
}

/// A kept named table and the scan it was derived from.
#[derive(bitcode::Encode, bitcode::Decode)]
struct Kept {
    generation: Generation,
    named: Named,
}

impl Named {
    /// The named table of the repository at `root` as it is now: kept, when the scan cache
    /// finds the repository unchanged and a named table of that scan is kept; else from the
    /// scan (warm or cold), then kept for the next run when the scan cache holds that scan.
    pub fn load(root: &Path, name: impl FnOnce(Scan) -> Named) -> Named {
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let (index, generation) = match Index::load_unless_unchanged(&root) {
            Loaded::Unchanged(generation) => {
                if let Some(named) = kept(&root, generation) {
                    return named;
                }
                tracing::debug!("named table: none kept for this scan");
                Index::load_with_generation(&root)
            }
            Loaded::Index(index, generation) => (*index, generation),
        };
        let named = name(index.into_snapshot());
        if let Some(generation) = generation {
            let began = std::time::Instant::now();
            let kept = Kept { generation, named };
            crate::cache::store(KIND, &root, &bitcode::encode(&kept));
            tracing::debug!("named table: kept in {:?}", began.elapsed());
            return kept.named;
        }
        named
    }
}

/// The named table kept for the scan of `generation` at `root`, if any.
fn kept(root: &Path, generation: Generation) -> Option<Named> {
    let began = std::time::Instant::now();
    let loaded = crate::cache::load(KIND, root)?;
    let kept: Kept = bitcode::decode(loaded.payload()).ok()?;
    let usable =
        kept.generation == generation && kept.named.root == root.as_os_str().as_encoded_bytes();
    tracing::debug!(
        "named table: {} bytes read and decoded in {:?}{}",
        loaded.payload().len(),
        began.elapsed(),
        if usable { "" } else { " (of another scan)" }
    );
    usable.then_some(kept.named)
}

/// The first line of a task's description, if it has one: a completion's help (else the
/// task's command).
pub fn first_line(t: &Task) -> Option<&str> {
    t.description.as_deref().and_then(|d| d.lines().next())
}

/// One task name a completion offers: the name as typed (shortened below the root), and the
/// row it names.
pub struct Offer<'n> {
    /// The name to offer.
    pub name: String,
    /// The task.
    pub task: &'n Task,
}

impl Named {
    /// The names a completion of `typed` offers in the directory `below` (root-relative;
    /// `None` at the root): every unique name that starts with what is typed; below the root,
    /// first the shorter names `agg run` takes there (`build` in `apps/web` for
    /// `apps/web/build`, nearest directory first). A name with a control character is never
    /// offered: it would break the shell's word list.
    pub fn offers(&self, typed: &str, below: Option<&str>) -> Vec<Offer<'_>> {
        let mut found: Vec<(&str, &Task)> = Vec::new();
        if let Some(below) = below {
            let dirs = std::iter::successors(Some(below), |d| d.rsplit_once('/').map(|(up, _)| up));
            for dir in dirs {
                let prefix = format!("{dir}/");
                for task in &self.tasks {
                    if let Some(short) = task.unique_name.strip_prefix(&prefix)
                        && short.starts_with(typed)
                    {
                        found.push((short, task));
                    }
                }
            }
        }
        found.extend(
            self.tasks
                .iter()
                .filter(|t| t.unique_name.starts_with(typed))
                .map(|t| (t.unique_name.as_str(), t)),
        );
        let mut taken: std::collections::HashSet<&str> = std::collections::HashSet::new();
        found
            .into_iter()
            .filter(|(name, _)| crate::terminal_text::line(name) == *name && taken.insert(name))
            .map(|(name, task)| Offer {
                name: name.to_owned(),
                task,
            })
            .collect()
    }
}
