//! Parsing one task file (a panic in an adapter is a diagnostic, not a crash), and which
//! parsed files' tasks are listed and in what order.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

use agg_runners::{Adapter, Files, Parsed, Purpose, Runner, Source, parent};
use rustc_hash::FxHashSet;

use super::facts::{Fact, ParsedFile, Recorder};
use super::stamp::Stamp;
use crate::naming::canonical_order;
use crate::repo_files::{Gated, Opened, ReadError, RepoFiles, Text};

/// Parses the task file `rel` with `adapter`; with `record`, notes what the parse read (its
/// facts are given apart, for the index to number).
pub(super) fn parse_file(
    adapter: &Adapter,
    rel: &str,
    files: &RepoFiles,
    record: bool,
) -> (ParsedFile, Vec<Fact>) {
    let recorder = Recorder::new(files);
    let view: &dyn Files = if record { &recorder } else { files };
    let (parsed, opened) = match read_source(adapter, rel, files) {
        Ok((Some(text), opened)) => (parse_text(adapter, rel, &text, view, Purpose::List), opened),
        Ok((None, opened)) => (Parsed::default(), opened),
        Err(unreadable) => *unreadable,
    };
    if !record {
        return (
            ParsedFile {
                parsed,
                main: None,
                facts: Vec::new(),
            },
            Vec::new(),
        );
    }
    let main = match opened {
        Some(opened) if !opened.linked => Some(Stamp::of(&opened.meta)),
        Some(_) => None,
        // Nothing was opened (gone, a FIFO, no permission): whatever is there now vouches for
        // that, unless it is a symlink.
        None => Stamp::at(&files.abs(rel)).filter(|s| !s.is_symlink()),
    };
    let found = ParsedFile {
        parsed,
        main,
        facts: Vec::new(),
    };
    (found, recorder.into_facts())
}

/// What reading a task file for its adapter gave: its text, or `None` when the adapter
/// refuses it by content (no task file, no diagnostic); with the file that was opened, if one
/// was.
pub(super) type SourceText = (Option<Text>, Option<Opened>);

/// The diagnostic of a task file that cannot be read, with the file that was opened, if one
/// was.
pub(super) type Unreadable = Box<(Parsed, Option<Opened>)>;

/// Reads the task file `rel` for `adapter` (see [`SourceText`]).
pub(super) fn read_source(
    adapter: &Adapter,
    rel: &str,
    files: &RepoFiles,
) -> Result<SourceText, Unreadable> {
    let unreadable = |reason: ReadError, opened: Option<Opened>| {
        let mut parsed = Parsed::default();
        parsed.diag(rel, None, reason.to_string());
        Box::new((parsed, opened))
    };
    match adapter.admit {
        Some(admit) => match files.read_admitted(rel, admit) {
            Gated::Admitted(text) => {
                let opened = Some(text.opened.clone());
                Ok((Some(text), opened))
            }
            Gated::Refused(opened) => Ok((None, opened)),
            Gated::Unreadable(reason, opened) => Err(unreadable(reason, Some(opened))),
        },
        None => match files.read_task_file(rel) {
            Ok(text) => {
                let opened = Some(text.opened.clone());
                Ok((Some(text), opened))
            }
            Err(reason) => Err(unreadable(reason, None)),
        },
    }
}

/// Parses the text of the task file `rel`, its adapter reading any other file through
/// `files`, for `purpose`.
pub(super) fn parse_text(
    adapter: &Adapter,
    rel: &str,
    text: &Text,
    files: &dyn Files,
    purpose: Purpose,
) -> Parsed {
    let mut parsed = Parsed::default();
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
        purpose,
    };
    // Adapters are fuzzed not to panic; should one still do so, one file's diagnostic is
    // better than losing every other file's tasks.
    if let Ok(mut found) = catch_unwind(AssertUnwindSafe(|| (adapter.parse)(&source))) {
        found.diagnostics.splice(0..0, parsed.diagnostics);
        found.drop_overlong_names();
        for task in &mut found.tasks {
            rel.clone_into(&mut task.origin);
        }
        // In table order already, here on the pool, so that sorting the whole table later
        // finds it (nearly) sorted and moves nothing.
        found.tasks.sort_by(canonical_order);
        found
    } else {
        parsed.diag(
            rel,
            None,
            format!("internal error while reading this {} file", adapter.name),
        );
        parsed
    }
}

/// The parsed files whose tasks are listed, in listing order, and every task file read
/// (root-relative, sorted).
///
/// Drops the results of files that another file pulled in. Files nobody pulls in are kept,
/// and so everything they pull in is dropped; files caught only in an include cycle keep the
/// shallowest side.
pub(super) fn listed(parsed: &BTreeMap<String, ParsedFile>) -> (Vec<&str>, Vec<String>) {
    let entries: Vec<(&str, &Parsed)> = parsed
        .iter()
        .map(|(k, v)| (k.as_str(), &v.parsed))
        .collect();
    let (order, task_files) = listed_order(&entries);
    (
        order.into_iter().map(|i| entries[i].0).collect(),
        task_files,
    )
}

/// [`listed`] over `entries` (sorted by path): the positions of the listed ones, in listing
/// order.
pub(super) fn listed_order(entries: &[(&str, &Parsed)]) -> (Vec<usize>, Vec<String>) {
    // Shallowest first, then by path: the depth counted once per file, not per comparison.
    let mut results: Vec<(usize, usize)> = entries
        .iter()
        .enumerate()
        .map(|(i, (rel, _))| (rel.matches('/').count(), i))
        .collect();
    results.sort_unstable_by(|(da, a), (db, b)| (da, entries[*a].0).cmp(&(db, entries[*b].0)));
    let pulled_in: FxHashSet<&str> = entries
        .iter()
        .flat_map(|(_, p)| p.consumed.iter().map(String::as_str))
        .collect();
    let mut dropped: FxHashSet<&str> = entries
        .iter()
        .filter(|(rel, _)| !pulled_in.contains(rel))
        .flat_map(|(_, p)| p.consumed.iter().map(String::as_str))
        .collect();
    let mut listed = Vec::with_capacity(entries.len());
    // Every file read, once: many task files read the same included ones.
    let mut read: Vec<&str> = Vec::with_capacity(entries.len());
    for (_, i) in results {
        let (rel, parsed) = entries[i];
        if dropped.contains(rel) {
            continue;
        }
        listed.push(i);
        read.push(rel);
        for c in &parsed.consumed {
            read.push(c);
            dropped.insert(c);
        }
    }
    read.sort_unstable();
    read.dedup();
    let task_files = read.into_iter().map(str::to_owned).collect();
    // The table's own order at file granularity (see `naming::canonical_order`), so that
    // the tasks are usually in order already when the table sorts them.
    let mut keyed: Vec<_> = listed
        .into_iter()
        .map(|i| (file_order(&entries[i]), i))
        .collect();
    keyed.sort_unstable();
    (keyed.into_iter().map(|(_, i)| i).collect(), task_files)
}

/// Where a file's tasks go in the table: by their directory, then runner, then file.
pub(super) fn file_order<'a>(
    (rel, parsed): &(&'a str, &'a Parsed),
) -> (bool, &'a str, Option<Runner>, &'a str) {
    let first = parsed.tasks.first();
    let dir = first.map_or_else(|| parent(rel), |t| t.dir.as_str());
    (dir != ".", dir, first.map(|t| t.runner), rel)
}
