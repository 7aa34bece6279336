#![no_main]

//! A file task's `#MISE`/`#USAGE` header: the input (split at `0x00`) is an executable task in
//! `mise-tasks/`, then optionally a nested one and the project's `mise.toml`.

use agg_runners::{MemFiles, Source};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut parts = data.split(|&b| b == 0).map(String::from_utf8_lossy);
    let task = parts.next().unwrap_or_default();
    let nested = parts.next().unwrap_or_default();
    let config = parts.next().unwrap_or_default();
    let files = MemFiles::new()
        .with("mise.toml", &config)
        .with_executable("mise-tasks/deploy", &task)
        .with_executable("mise-tasks/db/_default.sh", &nested);
    let src = Source {
        purpose: agg_runners::Purpose::List,
        path: "mise.toml",
        text: &config,
        files: &files,
    };
    let parsed = (agg_runners::mise::ADAPTER.parse)(&src);
    for task in &parsed.tasks {
        assert!(!task.source_name.is_empty(), "task without a name: {task:?}");
        assert!(task.line.is_none_or(|l| l >= 1), "task line 0: {task:?}");
        assert_eq!(task.argv.len(), 3, "{task:?}");
    }
    for d in &parsed.diagnostics {
        assert!(d.line.is_none_or(|l| l >= 1), "diagnostic line 0: {d:?}");
    }
    assert_eq!(parsed, (agg_runners::mise::ADAPTER.parse)(&src), "not deterministic");
});
