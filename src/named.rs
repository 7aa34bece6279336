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

use std::ops::Range;
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

/// The first part of a kept named table ([`payload`]): the scan it was derived from, and
/// the root.
#[derive(bitcode::Encode, bitcode::Decode)]
struct KeptHead {
    generation: Generation,
    root: Vec<u8>,
}

pub use offerable::Offerable;

mod offerable {
    // bitcode's derive takes the borrowed help as `&Option<&str>`.
    #![allow(clippy::ref_option_ref)]

    /// What a shell completion needs of a task: its unique name and its help (the first line of
    /// its description), or, when it has no description, what its command is filled in from.
    /// Decoded borrowing the cache file's bytes: a completion of a repository of 30,000 tasks
    /// allocates nothing per task.
    #[derive(Debug, bitcode::Encode, bitcode::Decode)]
    pub struct Offerable<'a> {
        /// The unique name.
        pub name: &'a str,
        /// The first line of the description.
        pub help: Option<&'a str>,
        /// The runner.
        pub runner: agg_runners::Runner,
        /// The directory, root-relative.
        pub dir: &'a str,
        /// The arguments after the runner's program.
        pub argv: Vec<&'a str>,
    }
}

impl<'a> Offerable<'a> {
    fn of(task: &'a Task) -> Offerable<'a> {
        let help = first_line(task);
        Offerable {
            name: &task.unique_name,
            help,
            runner: task.runner,
            dir: if help.is_some() { "" } else { &task.dir },
            argv: if help.is_some() {
                Vec::new()
            } else {
                task.argv.iter().map(String::as_str).collect()
            },
        }
    }
}

/// The rows a completion offers from, as the cache holds them (see [`Named::load_offerable`]).
pub enum Offerables {
    /// The kept rows, borrowing the cache file read.
    Kept(crate::cache::Loaded, Range<usize>),
    /// The named table itself, when none was kept for the repository as it is.
    Named(Named),
}

impl Offerables {
    /// Every task's row, in the table's order.
    pub fn rows(&self) -> Vec<Offerable<'_>> {
        match self {
            Offerables::Kept(loaded, part) => loaded
                .payload()
                .get(part.clone())
                .and_then(|bytes| bitcode::decode(bytes).ok())
                .unwrap_or_default(),
            Offerables::Named(named) => named.tasks.iter().map(Offerable::of).collect(),
        }
    }
}

/// The payload of a kept named table: three parts, its [`KeptHead`], what a completion needs
/// of each task ([`Offerable`]) and the table, so that a completion decodes the first two
/// alone.
fn payload(generation: Generation, named: &Named) -> Vec<u8> {
    let head = KeptHead {
        generation,
        root: named.root.clone(),
    };
    let rows: Vec<Offerable<'_>> = named.tasks.iter().map(Offerable::of).collect();
    crate::cache::join_parts(&[
        &bitcode::encode(&head),
        &bitcode::encode(&rows),
        &bitcode::encode(named),
    ])
}

impl Named {
    /// The named table of the repository at `root` as it is now: kept, when the scan cache
    /// finds the repository unchanged and a named table of that scan is kept; else from the
    /// scan (warm or cold), then kept for the next run when the scan cache holds that scan.
    pub fn load(root: &Path, name: impl FnOnce(Scan) -> Named) -> Named {
        Named::load_kept(root, name, |loaded, [_, _, table]| {
            bitcode::decode(loaded.payload().get(table)?).ok()
        })
        .unwrap_or_else(|named| named)
    }

    /// What a completion offers from, for the repository at `root` as it is now: the rows
    /// kept with the named table, without decoding the table, when the repository is
    /// unchanged; else as [`Named::load`] finds the table.
    pub fn load_offerable(root: &Path, name: impl FnOnce(Scan) -> Named) -> Offerables {
        Named::load_kept(root, name, |loaded, [_, rows, _]| {
            bitcode::decode::<Vec<Offerable<'_>>>(loaded.payload().get(rows.clone())?).ok()?;
            Some(Offerables::Kept(loaded, rows))
        })
        .unwrap_or_else(Offerables::Named)
    }

    /// What `decode` takes from the named table kept for the repository at `root` as it is
    /// now; else (`Err`) the table, from the scan, kept for the next run when the scan cache
    /// holds that scan.
    fn load_kept<T>(
        root: &Path,
        name: impl FnOnce(Scan) -> Named,
        decode: impl FnOnce(crate::cache::Loaded, [Range<usize>; 3]) -> Option<T>,
    ) -> Result<T, Named> {
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let (index, generation) = match Index::load_unless_unchanged(&root) {
            Loaded::Unchanged(generation) => {
                let began = std::time::Instant::now();
                let found = kept(&root, generation).and_then(|(loaded, parts)| {
                    let size = loaded.payload().len();
                    let found = decode(loaded, parts)?;
                    tracing::debug!(
                        "named table: {size} bytes read and decoded in {:?}",
                        began.elapsed()
                    );
                    Some(found)
                });
                if let Some(found) = found {
                    return Ok(found);
                }
                tracing::debug!("named table: none kept for this scan");
                Index::load_with_generation(&root)
            }
            Loaded::Index(index, generation) => (*index, generation),
        };
        let named = name(index.into_snapshot());
        if let Some(generation) = generation {
            let began = std::time::Instant::now();
            crate::cache::store(KIND, &root, &payload(generation, &named));
            tracing::debug!("named table: kept in {:?}", began.elapsed());
        }
        Err(named)
    }
}

/// The named table kept for the scan of `generation` at `root`, if any: the file read and
/// its parts, its head checked.
fn kept(root: &Path, generation: Generation) -> Option<(crate::cache::Loaded, [Range<usize>; 3])> {
    let loaded = crate::cache::load(KIND, root)?;
    let parts = crate::cache::split_parts::<3>(loaded.payload())?;
    let head: KeptHead = bitcode::decode(loaded.payload().get(parts[0].clone())?).ok()?;
    let usable = head.generation == generation && head.root == root.as_os_str().as_encoded_bytes();
    if !usable {
        tracing::debug!("named table: of another scan");
    }
    usable.then_some((loaded, parts))
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
    /// `None` at the root), each with the row it names: see [`offered`].
    pub fn offers(&self, typed: &str, below: Option<&str>) -> Vec<Offer<'_>> {
        offered(&self.tasks, |t| &t.unique_name, typed, below)
            .into_iter()
            .map(|(name, task)| Offer { name, task })
            .collect()
    }
}

/// The names a completion of `typed` offers among `rows` (each named by `name`) in the
/// directory `below` (root-relative; `None` at the root): every unique name that starts with
/// what is typed; below the root, first the shorter names `agg run` takes there (`build` in
/// `apps/web` for `apps/web/build`, nearest directory first). A name with a control
/// character is never offered: it would break the shell's word list.
pub fn offered<'r, R>(
    rows: &'r [R],
    name: impl Fn(&'r R) -> &'r str,
    typed: &str,
    below: Option<&str>,
) -> Vec<(String, &'r R)> {
    let mut found: Vec<(&str, &R)> = Vec::new();
    if let Some(below) = below {
        let dirs = std::iter::successors(Some(below), |d| d.rsplit_once('/').map(|(up, _)| up));
        for dir in dirs {
            let prefix = format!("{dir}/");
            for row in rows {
                if let Some(short) = name(row).strip_prefix(&prefix)
                    && short.starts_with(typed)
                {
                    found.push((short, row));
                }
            }
        }
    }
    found.extend(
        rows.iter()
            .map(|r| (name(r), r))
            .filter(|(n, _)| n.starts_with(typed)),
    );
    let mut taken: std::collections::HashSet<&str> = std::collections::HashSet::new();
    found
        .into_iter()
        .filter(|(name, _)| crate::terminal_text::line(name) == *name && taken.insert(name))
        .map(|(name, row)| (name.to_owned(), row))
        .collect()
}
