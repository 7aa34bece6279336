//! What the adapters' unit tests share: running an adapter on in-memory files and reading
//! its result.

use crate::files::{Files, MemFiles};
use crate::model::{Parsed, Source, Task};

/// Runs `parse` on `path` as stored in `files`.
pub(crate) fn parse_with(
    parse: fn(&Source<'_>) -> Parsed,
    files: &dyn Files,
    path: &str,
) -> Parsed {
    let text = files.read(path).expect("test file exists");
    parse(&Source {
        purpose: crate::reads::Purpose::List,
        path,
        text: &text,
        files,
    })
}

/// Runs `parse` on `path` as stored in `files`, read for a decision: every task's
/// [`crate::Reads`] filled in.
pub(crate) fn parse_deciding(
    parse: fn(&Source<'_>) -> Parsed,
    files: &MemFiles,
    path: &str,
) -> Parsed {
    let text = files.read(path).expect("test file exists");
    parse(&Source {
        purpose: crate::reads::Purpose::Decide,
        path,
        text: &text,
        files,
    })
}

/// The parts task `name` reads (read for a decision), as `what = text` lines, and why the
/// rest is unknown, if it is.
pub(crate) fn reads(
    parse: fn(&Source<'_>) -> Parsed,
    files: &MemFiles,
    path: &str,
    name: &str,
) -> crate::reads::Reads {
    let parsed = parse_deciding(parse, files, path);
    task(&parsed, name)
        .reads
        .as_deref()
        .cloned()
        .unwrap_or_else(|| panic!("task {name} reports no reads"))
}

/// The source names of the tasks, in order.
pub(crate) fn names(parsed: &Parsed) -> Vec<&str> {
    parsed
        .tasks
        .iter()
        .map(|t| t.source_name.as_str())
        .collect()
}

/// The source names of the tasks, in order, in one line: `"build, test, lint"`.
pub(crate) fn name_list(parsed: &Parsed) -> String {
    names(parsed).join(", ")
}

/// The task with this source name.
pub(crate) fn task<'p>(parsed: &'p Parsed, name: &str) -> &'p Task {
    parsed
        .tasks
        .iter()
        .find(|t| t.source_name == name)
        .unwrap_or_else(|| panic!("no task {name} in {:?}", names(parsed)))
}

/// The parameters of `task` as (name, default, required).
pub(crate) fn params(task: &Task) -> Vec<(&str, Option<&str>, bool)> {
    task.params
        .iter()
        .map(|p| (p.name.as_str(), p.default.as_deref(), p.required))
        .collect()
}

/// The diagnostics as (file, line, message).
pub(crate) fn messages(parsed: &Parsed) -> Vec<(&str, Option<u32>, &str)> {
    parsed
        .diagnostics
        .iter()
        .map(|d| (d.file_path.as_str(), d.line, d.message.as_str()))
        .collect()
}

/// Runs `parse` on one file, `path`, holding `text` (and nothing else in the repository).
pub(crate) fn parse_one(parse: fn(&Source<'_>) -> Parsed, path: &str, text: &str) -> Parsed {
    parse_with(parse, &MemFiles::new().with(path, text), path)
}

/// The diagnostics as (line, message), for one-file tests.
pub(crate) fn lines(parsed: &Parsed) -> Vec<(Option<u32>, &str)> {
    parsed
        .diagnostics
        .iter()
        .map(|d| (d.line, d.message.as_str()))
        .collect()
}
