#![no_main]

//! The script adapter: the admission gate on the first bytes, then the parse. Extra parts
//! (split at `0x00`) become executable neighbours with the same stem, so the naming of
//! clashing scripts is exercised too.

use agg_runners::{MemFiles, Source};
use libfuzzer_sys::fuzz_target;

const MAIN: &str = "scripts/deploy.sh";
const NEIGHBOURS: [&str; 3] = ["scripts/deploy", "scripts/deploy.py", "scripts/other.sh"];

fuzz_target!(|data: &[u8]| {
    let head = &data[..data.len().min(512)];
    let admitted = (agg_runners::script::ADAPTER.admit.expect("gate"))(head, true);
    let mut parts = data.split(|&b| b == 0);
    let main = String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned();
    let mut files = MemFiles::new().with_executable(MAIN, &main);
    for (part, path) in parts.zip(NEIGHBOURS) {
        files = files.with_executable(path, &String::from_utf8_lossy(part));
    }
    let src = Source {
        purpose: agg_runners::Purpose::List,
        path: MAIN,
        text: &main,
        files: &files,
    };
    let parsed = (agg_runners::script::ADAPTER.parse)(&src);
    assert!(parsed.tasks.len() <= 1, "one script, one task");
    for task in &parsed.tasks {
        assert_eq!(task.argv.len(), 1, "{task:?}");
        assert!(task.source_name.starts_with("scripts/deploy"), "{task:?}");
        if let Some(d) = &task.description {
            assert!(!d.contains('\n'), "one-line description: {d:?}");
        }
    }
    let _ = admitted;
    assert_eq!(parsed, (agg_runners::script::ADAPTER.parse)(&src));
});
