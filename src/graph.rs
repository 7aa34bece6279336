//! The workspace graph of a repository ([`agg_runners::graph`]): built from the manifests the
//! scan saw ([`Table::manifests`]), their texts read in parallel through the same bounded,
//! non-following reads as task files, and the questions the rest of agg asks of it: which
//! package holds a path, and a task's package as `agg describe` and `describe_task` show it.
//!
//! The graph is built when asked for (`agg graph`, `--affected`, `describe`), never during
//! a plain listing, so it costs a listing nothing.

use std::collections::HashMap;

use agg_runners::graph::Graph;
use agg_runners::{Files, Unreadable};
use rayon::prelude::*;
use schemars::JsonSchema;
use serde::Serialize;

use crate::repo_files::RepoFiles;
use crate::table::{Table, Task};

/// The manifests' texts, read before the graph is built (in parallel: a monorepo has
/// thousands), served to the pure reader through the [`Files`] view.
struct Prefetched<'r> {
    texts: HashMap<&'r str, Result<String, Unreadable>>,
    files: RepoFiles<'r>,
}

impl Files for Prefetched<'_> {
    fn read(&self, path: &str) -> Result<String, Unreadable> {
        match self.texts.get(path) {
            Some(text) => text.clone(),
            None => self.files.read(path),
        }
    }

    fn exists(&self, path: &str) -> bool {
        self.texts.contains_key(path) || self.files.exists(path)
    }

    fn read_dir(&self, dir: &str) -> Vec<String> {
        self.files.read_dir(dir)
    }

    fn executable(&self, path: &str) -> bool {
        self.files.executable(path)
    }
}

/// Manifests read on the calling thread below this many (a pool costs more than it saves).
const PARALLEL_READS: usize = 64;

/// The workspace graph of `table`'s repository, read from the disk now.
pub fn read(table: &Table) -> Graph {
    let files = RepoFiles::new(&table.root);
    let wanted: Vec<&str> = table
        .manifests
        .iter()
        .map(String::as_str)
        .filter(|p| agg_runners::graph::reads_text(p))
        .collect();
    let texts: HashMap<&str, Result<String, Unreadable>> = if wanted.len() < PARALLEL_READS {
        wanted.iter().map(|&p| (p, files.read(p))).collect()
    } else {
        wanted.par_iter().map(|&p| (p, files.read(p))).collect()
    };
    let prefetched = Prefetched {
        texts,
        files: RepoFiles::new(&table.root),
    };
    agg_runners::graph::read(&prefetched, &table.manifests)
}

/// The packages by directory, to find the one that holds a path.
#[derive(Debug)]
pub struct Places<'g> {
    by_dir: HashMap<&'g str, Vec<usize>>,
}

impl<'g> Places<'g> {
    /// The places of `graph`'s packages.
    pub fn new(graph: &'g Graph) -> Places<'g> {
        let mut by_dir: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, p) in graph.packages.iter().enumerate() {
            by_dir.entry(p.dir.as_str()).or_default().push(i);
        }
        Places { by_dir }
    }

    /// The directory of the nearest package enclosing `path` (a root-relative file or
    /// directory, `.` for the root) and the packages there.
    pub fn holding(&self, path: &str) -> Option<(&'g str, &[usize])> {
        let mut at = path;
        loop {
            if let Some((dir, found)) = self.by_dir.get_key_value(at) {
                return Some((dir, found));
            }
            if at == "." {
                return None;
            }
            at = match at.rfind('/') {
                Some(i) => &at[..i],
                None => ".",
            };
        }
    }
}

/// A task's package, as `agg describe` and `describe_task` show it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PackageOf {
    /// Its name (`@acme/web`, a crate, a Go module path, `group:artifact`, `:app`).
    pub name: String,
    /// Its ecosystem (`npm`, `cargo`, `python`, `go`, `maven`, `gradle`, `nx`, `deno`,
    /// `composer`).
    pub ecosystem: String,
    /// Its directory, root-relative.
    pub dir: String,
    /// Its manifest, root-relative.
    pub manifest: String,
    /// The workspace it belongs to: its tool and root (`pnpm .`, `cargo rust`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<String>,
    /// The packages of the repository it depends on.
    pub depends_on: Vec<String>,
    /// The packages of the repository that depend on it.
    pub used_by: Vec<String>,
}

/// The packages of the nearest package directory holding `task`, most specific ecosystem
/// first (a directory with a `package.json` and a `Cargo.toml` holds two).
pub fn package_of(graph: &Graph, task: &Task) -> Vec<PackageOf> {
    let places = Places::new(graph);
    let Some((_, found)) = places.holding(&task.dir) else {
        return Vec::new();
    };
    let dependents = graph.dependents();
    let mut found: Vec<usize> = found.to_vec();
    // The package whose manifest is the task's file first.
    found.sort_by_key(|&i| {
        (
            graph.packages[i].manifest != task.file_path,
            graph.packages[i].ecosystem,
        )
    });
    found
        .into_iter()
        .map(|i| {
            let p = &graph.packages[i];
            PackageOf {
                name: p.name.clone(),
                ecosystem: p.ecosystem.name().to_owned(),
                dir: p.dir.clone(),
                manifest: p.manifest.clone(),
                workspace: p
                    .workspace
                    .and_then(|w| graph.workspaces.get(w))
                    .map(|w| format!("{} {}", w.tool, w.dir)),
                depends_on: p.deps.iter().map(|d| graph.name(d.to).to_owned()).collect(),
                used_by: dependents
                    .get(i)
                    .into_iter()
                    .flatten()
                    .map(|&d| graph.name(d).to_owned())
                    .collect(),
            }
        })
        .collect()
}
