//! Shared driver for the adapter fuzz targets.
//!
//! The input bytes are split at `0x00`: the first part is the task file itself (decoded
//! lossily, the way agg decodes files it reads), every further part is an extra file. When
//! there are extra parts they are placed, round robin, at the paths the format would pull
//! in (`include`, `import`, `mod`, `includes:`, a parent `package.json`, …), so one input
//! can exercise includes, include cycles and nested includes. The task file itself is in
//! the tree too, so an include can point back at it.

use agg_runners::{Adapter, MemFiles, Parsed, Source};

/// Everything one fuzz target needs to know about its format.
pub struct Layout<'a> {
    /// Root-relative path of the task file under test.
    pub main: &'a str,
    /// Paths that receive the extra parts (round robin, so one extra part lands on all).
    pub extra: &'a [&'a str],
    /// Paths that merely exist (lockfiles and the like): the `n`th (from 0) when the input
    /// has at least `n + 2` extra parts, so more parts make more of them present.
    pub markers: &'a [&'a str],
}

pub fn run(adapter: &Adapter, layout: &Layout<'_>, data: &[u8]) {
    let mut parts = data.split(|&b| b == 0);
    let main = String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
    let extras: Vec<String> = parts
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect();

    let mut files = MemFiles::new().with(layout.main, &main);
    if !extras.is_empty() {
        for (i, path) in layout.extra.iter().enumerate() {
            files = files.with(path, &extras[i % extras.len()]);
        }
    }
    for (i, path) in layout.markers.iter().enumerate() {
        if extras.len() > i + 1 {
            files = files.with(path, "");
        }
    }

    let src = Source {
        purpose: agg_runners::Purpose::List,
        path: layout.main,
        text: &main,
        files: &files,
    };
    let parsed = (adapter.parse)(&src);
    check(&parsed);
    // Same input, same answer: the table must not depend on hash seeds or call order.
    let again = (adapter.parse)(&src);
    assert_eq!(parsed, again, "parse is not deterministic");
}

/// Cheap invariants every adapter promises.
fn check(parsed: &Parsed) {
    for task in &parsed.tasks {
        assert!(
            !task.file_path.is_empty(),
            "task with empty file_path: {task:?}"
        );
        assert!(!task.dir.is_empty(), "task with empty dir: {task:?}");
        assert!(task.line.is_none_or(|l| l >= 1), "task line 0: {task:?}");
        // Only a task agg lists but cannot run has nothing to execute.
        assert_eq!(
            task.argv.is_empty(),
            task.behaviour.not_runnable.is_some(),
            "argv empty exactly when not runnable: {task:?}"
        );
    }
    for diag in &parsed.diagnostics {
        assert!(
            !diag.file_path.is_empty(),
            "diagnostic with empty file_path: {diag:?}"
        );
        assert!(
            diag.line.is_none_or(|l| l >= 1),
            "diagnostic line 0: {diag:?}"
        );
    }
    for path in &parsed.consumed {
        assert!(!path.is_empty(), "empty consumed path");
    }
}
