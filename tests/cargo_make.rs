//! cargo-make: agg's rows for each fixture's `Makefile.toml`, compared with `cargo make
//! --list-all-steps` where cargo-make is installed. `cargo install cargo-make` builds for
//! half an hour on a CI machine, so scripts/runners.sh does not install it; without it this
//! comparison is skipped even in CI, and the adapter's unit tests follow cargo-make's
//! documented rules (see docs/runners.md).

use std::collections::BTreeSet;

use crate::common::listing::{listed_by_dir, runner_listing};
use crate::test::{Test, rows};

#[test]
fn cargo_make_tasks_match_list_all_steps_where_cargo_make_is_installed() {
    let dirs = listed_by_dir("cargo-make");
    assert!(!dirs.is_empty(), "no fixture has cargo-make tasks");
    if which::which("cargo-make").is_err() {
        crate::common::skipped("cargo-make not installed (scripts/runners.sh does not build it)");
        return;
    }
    for (dir, listed) in dirs {
        let out = runner_listing(
            &dir,
            "cargo",
            &[
                "make",
                "--loglevel=off",
                "--list-all-steps",
                "--output-format=autocomplete",
            ],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let json = Test::at(&dir).list_here_json(&["--runner", "cargo-make"]);
        let aliases: BTreeSet<String> = rows(&json)
            .flat_map(|t| t["aliases"].as_array().cloned().unwrap_or_default())
            .filter_map(|a| a.as_str().map(str::to_owned))
            .collect();
        // cargo-make's predefined tasks (with `skip_core_tasks`, still these four) are not
        // listed (see docs/runners.md); aliases are columns of their task's row.
        let theirs: BTreeSet<String> = String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .filter(|n| !["init", "end", "default", "empty"].contains(n))
            .filter(|n| !aliases.contains(*n))
            .map(str::to_owned)
            .collect();
        assert_eq!(listed, theirs, "{}", dir.display());
    }
}
