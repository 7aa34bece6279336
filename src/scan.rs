//! The repository scan: one parallel walk that respects `.gitignore`, then every candidate
//! task file handed to its adapter from the `agg-runners` registry.
//!
//! The walk includes hidden files (so `.cargo/` and `.justfile` are seen) but never enters
//! `.git` or `node_modules`. Files pulled in by another file (Make `include`, just `mod`,
//! Taskfile `includes`) are listed only through the file that pulls them in.

use std::collections::{BTreeMap, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use agg_runners::{ADAPTERS, Adapter, Diagnostic, Parsed, RawTask, Source, parent};
use ignore::{WalkBuilder, WalkState};
use rayon::prelude::*;

use crate::repo_files::RepoFiles;

/// Directories never entered, whatever the ignore files say.
const NEVER_ENTER: &[&str] = &[".git", "node_modules"];

/// What one scan of a repository found.
#[derive(Debug)]
pub struct Scan {
    /// The absolute, canonical root.
    pub root: PathBuf,
    /// Every task, before naming.
    pub tasks: Vec<RawTask>,
    /// Every problem found, sorted by file and line.
    pub diagnostics: Vec<Diagnostic>,
    /// The task files that were parsed (root-relative), including pulled-in ones.
    pub task_files: Vec<String>,
}

#[derive(Debug)]
struct Candidate {
    adapter: usize,
    rank: u8,
    rel: String,
}

/// Scans the tree under `root`.
pub fn scan(root: &Path) -> Scan {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let (mut candidates, mut diagnostics) = walk(&root);
    candidates = pick_per_dir(candidates);
    let files = RepoFiles::new(&root);
    let results: Vec<(String, Parsed)> = candidates
        .par_iter()
        .map(|c| {
            (
                c.rel.clone(),
                parse_file(&ADAPTERS[c.adapter], &c.rel, &files),
            )
        })
        .collect();
    let (tasks, more, task_files) = merge(results);
    diagnostics.extend(more);
    diagnostics.sort_by(|a, b| (&a.file_path, a.line).cmp(&(&b.file_path, b.line)));
    diagnostics.dedup();
    Scan {
        root,
        tasks,
        diagnostics,
        task_files,
    }
}

/// Tells whether `rel` (root-relative) is a file some adapter reads, and which.
pub fn candidate_of(rel: &str) -> Option<(usize, u8)> {
    ADAPTERS
        .iter()
        .enumerate()
        .find_map(|(i, a)| (a.candidate)(rel).map(|rank| (i, rank)))
}

fn walk(root: &Path) -> (Vec<Candidate>, Vec<Diagnostic>) {
    let found = Mutex::new(Vec::new());
    let diags = Mutex::new(Vec::new());
    WalkBuilder::new(root)
        .hidden(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(true)
        .ignore(true)
        .parents(true)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|e| {
            !(e.file_type().is_some_and(|t| t.is_dir())
                && NEVER_ENTER.iter().any(|n| e.file_name() == *n))
        })
        .build_parallel()
        .run(|| {
            let found = &found;
            let diags = &diags;
            Box::new(move |entry| {
                match entry {
                    Ok(entry) => {
                        if entry.depth() == 0 || entry.file_type().is_some_and(|t| t.is_dir()) {
                            return WalkState::Continue;
                        }
                        visit(root, entry.path(), found, diags);
                    }
                    Err(err) => push(diags, walk_error(root, &err)),
                }
                WalkState::Continue
            })
        });
    (
        found.into_inner().unwrap_or_default(),
        diags.into_inner().unwrap_or_default(),
    )
}

fn visit(root: &Path, path: &Path, found: &Mutex<Vec<Candidate>>, diags: &Mutex<Vec<Diagnostic>>) {
    let Ok(rel) = path.strip_prefix(root) else {
        return;
    };
    match rel.to_str() {
        Some(rel) => {
            if let Some((adapter, rank)) = candidate_of(rel) {
                push(
                    found,
                    Candidate {
                        adapter,
                        rank,
                        rel: rel.to_owned(),
                    },
                );
            }
        }
        None => {
            let lossy = rel.to_string_lossy();
            if candidate_of(&lossy).is_some() {
                push(
                    diags,
                    Diagnostic::new(
                        lossy.into_owned(),
                        None,
                        "path is not valid UTF-8; its tasks are skipped",
                    ),
                );
            }
        }
    }
}

fn push<T>(list: &Mutex<Vec<T>>, item: T) {
    if let Ok(mut list) = list.lock() {
        list.push(item);
    }
}

fn walk_error(root: &Path, err: &ignore::Error) -> Diagnostic {
    let mut path = None;
    let mut cur = err;
    let message;
    loop {
        match cur {
            ignore::Error::WithPath { path: p, err } => {
                path.get_or_insert_with(|| p.clone());
                cur = err;
            }
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
                cur = err;
            }
            ignore::Error::Loop { child, .. } => {
                path.get_or_insert_with(|| child.clone());
                message = "symlink loop; not followed".to_owned();
                break;
            }
            ignore::Error::Io(io) => {
                message = crate::repo_files::io_reason(io);
                break;
            }
            other => {
                message = other.to_string();
                break;
            }
        }
    }
    let file = path.map_or_else(
        || ".".to_owned(),
        |p| {
            p.strip_prefix(root)
                .unwrap_or(&p)
                .to_string_lossy()
                .into_owned()
        },
    );
    Diagnostic::new(file, None, format!("skipped: {message}"))
}

/// Keeps only the best-ranked candidate per (adapter, directory) for adapters that read
/// one file per directory, and sorts the rest for a deterministic order.
fn pick_per_dir(candidates: Vec<Candidate>) -> Vec<Candidate> {
    let mut best: BTreeMap<(usize, String), Candidate> = BTreeMap::new();
    let mut all = Vec::new();
    for c in candidates {
        let adapter: &Adapter = &ADAPTERS[c.adapter];
        if !adapter.one_per_dir {
            all.push(c);
            continue;
        }
        let key = (c.adapter, parent(&c.rel).to_owned());
        match best.get(&key) {
            Some(b) if (b.rank, &b.rel) <= (c.rank, &c.rel) => {}
            _ => {
                best.insert(key, c);
            }
        }
    }
    all.extend(best.into_values());
    all.sort_by(|a, b| a.rel.cmp(&b.rel));
    all
}

fn parse_file(adapter: &Adapter, rel: &str, files: &RepoFiles) -> Parsed {
    let mut parsed = Parsed::default();
    let text = match files.read_task_file(rel) {
        Ok(text) => text,
        Err(reason) => {
            parsed.diag(rel, None, reason);
            return parsed;
        }
    };
    if let Some(line) = text.invalid_utf8_line {
        parsed.diag(
            rel,
            Some(line),
            "invalid UTF-8; undecodable bytes were replaced",
        );
    }
    let source = Source {
        path: rel,
        text: &text.text,
        files,
    };
    // Adapters are fuzzed not to panic; should one still do so, one file's diagnostic is
    // better than losing every other file's tasks.
    match catch_unwind(AssertUnwindSafe(|| (adapter.parse)(&source))) {
        Ok(mut found) => {
            found.diagnostics.splice(0..0, parsed.diagnostics);
            found
        }
        Err(_) => {
            parsed.diag(
                rel,
                None,
                format!("internal error while reading this {} file", adapter.name),
            );
            parsed
        }
    }
}

/// Drops the results of files that another file pulled in. Files nobody pulls in are kept,
/// and so everything they pull in is dropped; files caught only in an include cycle keep the
/// shallowest side.
fn merge(mut results: Vec<(String, Parsed)>) -> (Vec<RawTask>, Vec<Diagnostic>, Vec<String>) {
    results.sort_by(|(a, _), (b, _)| (a.matches('/').count(), a).cmp(&(b.matches('/').count(), b)));
    let pulled_in: HashSet<&str> = results
        .iter()
        .flat_map(|(_, p)| p.consumed.iter().map(String::as_str))
        .collect();
    let mut dropped: HashSet<String> = results
        .iter()
        .filter(|(rel, _)| !pulled_in.contains(rel.as_str()))
        .flat_map(|(_, p)| p.consumed.iter().cloned())
        .collect();
    let mut tasks = Vec::new();
    let mut diagnostics = Vec::new();
    let mut task_files = Vec::new();
    for (rel, parsed) in results {
        if dropped.contains(&rel) {
            continue;
        }
        task_files.push(rel);
        for c in parsed.consumed {
            task_files.push(c.clone());
            dropped.insert(c);
        }
        tasks.extend(parsed.tasks);
        diagnostics.extend(parsed.diagnostics);
    }
    task_files.sort();
    task_files.dedup();
    (tasks, diagnostics, task_files)
}
