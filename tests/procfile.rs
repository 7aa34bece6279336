//! Procfiles for real (honcho from PyPI): agg lists every fixture's processes as `honcho
//! check` reads them, and starts one process, and the whole file, with honcho.

use std::collections::BTreeSet;
use std::path::Path;

use crate::common::listing::{assert_names_match_the_runners, runner_listing};
use crate::test::{Test, assert_runs_as};

/// The processes `honcho -f FILE check` finds in each Procfile of `dir` (`dev:web` for
/// `Procfile.dev`), with a row for each file.
fn honcho_names(dir: &Path) -> Option<BTreeSet<String>> {
    let mut names = BTreeSet::new();
    for entry in std::fs::read_dir(dir).ok()?.filter_map(Result::ok) {
        let file = entry.file_name().to_string_lossy().into_owned();
        let prefix = match file.strip_prefix("Procfile") {
            Some("") => String::new(),
            Some(suffix) => format!("{}:", suffix.strip_prefix('.')?),
            None => continue,
        };
        let out = runner_listing(dir, "honcho", &["-f", &file, "check"]);
        let said = String::from_utf8_lossy(&out.stderr).into_owned();
        let listed = said
            .split("Valid procfile detected (")
            .nth(1)?
            .split(')')
            .next()?;
        names.extend(listed.split(", ").map(|p| format!("{prefix}{p}")));
        names.insert(file);
    }
    Some(names)
}

#[test]
fn procfile_processes_match_honcho_check_on_every_fixture() {
    require!("honcho");
    assert_names_match_the_runners("procfile", 2, honcho_names);
}

#[test]
fn a_process_and_the_whole_procfile_start_with_honcho() {
    let test = Test::new()
        .write(
            "Procfile",
            "hello: echo hello from the process\nbye: echo bye\n",
        )
        .write("requirements.txt", "honcho\n");
    let json = Test::at(test.root()).list_json();
    assert_runs_as(&json, "hello", "honcho start hello");
    require!("honcho");
    Test::at(test.root())
        .args(["run", "hello"])
        .run()
        .stdout_has("hello from the process");
    Test::at(test.root())
        .args(["run", "Procfile"])
        .run()
        .stdout_has("hello from the process");
}
