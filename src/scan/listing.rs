//! Parsing one task file (a panic in an adapter is a diagnostic, not a crash), and which
//! parsed files' tasks are listed and in what order.

use std::collections::{BTreeMap, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};

use agg_runners::{Adapter, Files, Parsed, Purpose, Runner, Source, parent};

use crate::naming::canonical_order;
use crate::repo_files::{RepoFiles, Text};

pub(super) fn parse_file(adapter: &Adapter, rel: &str, files: &RepoFiles) -> Parsed {
    match read_source(adapter, rel, files) {
        Ok(Some(text)) => parse_text(adapter, rel, &text, files, Purpose::List),
        Ok(None) => Parsed::default(),
        Err(parsed) => parsed,
    }
}

/// Reads the task file `rel` for `adapter`: `Ok(None)` when the adapter refuses it by
/// content (no task file, no diagnostic), `Err` with the diagnostic when it cannot be read.
pub(super) fn read_source(
    adapter: &Adapter,
    rel: &str,
    files: &RepoFiles,
) -> Result<Option<Text>, Parsed> {
    let text = match adapter.admit {
        Some(admit) => match files.read_admitted(rel, admit) {
            Some(text) => text,
            None => return Ok(None),
        },
        None => files.read_task_file(rel),
    };
    text.map(Some).map_err(|reason| {
        let mut parsed = Parsed::default();
        parsed.diag(rel, None, reason);
        parsed
    })
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
pub(super) fn listed(parsed: &BTreeMap<String, Parsed>) -> (Vec<&str>, Vec<String>) {
    let mut results: Vec<(&str, &Parsed)> = parsed.iter().map(|(k, v)| (k.as_str(), v)).collect();
    results.sort_by(|(a, _), (b, _)| (a.matches('/').count(), a).cmp(&(b.matches('/').count(), b)));
    let pulled_in: HashSet<&str> = results
        .iter()
        .flat_map(|(_, p)| p.consumed.iter().map(String::as_str))
        .collect();
    let mut dropped: HashSet<&str> = results
        .iter()
        .filter(|(rel, _)| !pulled_in.contains(rel))
        .flat_map(|(_, p)| p.consumed.iter().map(String::as_str))
        .collect();
    let mut listed = Vec::new();
    let mut task_files = Vec::new();
    for (rel, parsed) in results {
        if dropped.contains(rel) {
            continue;
        }
        listed.push((rel, parsed));
        task_files.push(rel.to_owned());
        for c in &parsed.consumed {
            task_files.push(c.clone());
            dropped.insert(c);
        }
    }
    task_files.sort();
    task_files.dedup();
    // The table's own order at file granularity (see `naming::canonical_order`), so that
    // the tasks are usually in order already when the table sorts them.
    listed.sort_by(|a, b| file_order(a).cmp(&file_order(b)));
    (listed.into_iter().map(|(rel, _)| rel).collect(), task_files)
}

/// Where a file's tasks go in the table: by their directory, then runner, then file.
pub(super) fn file_order<'a>(
    (rel, parsed): &(&'a str, &'a Parsed),
) -> (bool, &'a str, Option<Runner>, &'a str) {
    let first = parsed.tasks.first();
    let dir = first.map_or_else(|| parent(rel), |t| t.dir.as_str());
    (dir != ".", dir, first.map(|t| t.runner), rel)
}
