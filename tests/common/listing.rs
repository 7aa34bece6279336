//! What the comparisons of agg's rows with a runner's own listing share: the fixture
//! directories where agg lists a runner's tasks (names, and descriptions where the runner
//! prints them), and the runner's listing command run with a clean environment.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::test::{Test, fixtures};

/// Fixture directories where agg lists tasks of `runner`, each with the source names listed
/// there and their descriptions, for comparing with the runner's own listing.
pub fn described_by_dir(runner: &str) -> Vec<(PathBuf, BTreeMap<String, Option<String>>)> {
    let mut out: BTreeMap<PathBuf, BTreeMap<String, Option<String>>> = BTreeMap::new();
    let mut fixtures_dirs: Vec<_> = std::fs::read_dir(fixtures())
        .expect("fixtures")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .filter(|p| !p.ends_with("hostile") && !p.ends_with("fuzz-regressions"))
        .collect();
    fixtures_dirs.sort();
    for fixture in fixtures_dirs {
        let json = Test::at(&fixture)
            .args(["list", ".", "--json", "--runner", runner])
            .run()
            .success()
            .json();
        for task in json["tasks"].as_array().into_iter().flatten() {
            let dir = task["dir"].as_str().unwrap_or(".");
            let name = task["source_name"].as_str().unwrap_or_default().to_owned();
            let description = task["description"].as_str().map(str::to_owned);
            out.entry(fixture.join(dir))
                .or_default()
                .insert(name, description);
        }
    }
    out.into_iter().collect()
}

/// Fixture directories where agg lists tasks of `runner`, each with the source names listed
/// there.
pub fn listed_by_dir(runner: &str) -> Vec<(PathBuf, BTreeSet<String>)> {
    described_by_dir(runner)
        .into_iter()
        .map(|(dir, tasks)| (dir, tasks.into_keys().collect()))
        .collect()
}

/// Runs a runner's listing command in `dir` with a clean environment (PATH only), so the
/// developer's variables cannot change what it lists.
pub fn runner_listing(dir: &Path, program: &str, args: &[&str]) -> Output {
    runner_listing_with(dir, program, args, &[])
}

/// [`runner_listing`] with a few variables set, such as one that keeps the runner off the
/// network.
pub fn runner_listing_with(
    dir: &Path,
    program: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> Output {
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", std::env::var_os("HOME").unwrap_or_default())
        .envs(env.iter().copied())
        .output()
        .expect("run the runner")
}

/// Checks that agg reports a problem in `dir` (which `runner` refuses as a whole).
#[track_caller]
pub fn assert_refusal_reported(dir: &Path, runner: &str) {
    let json = Test::at(dir)
        .args(["list", ".", "--json"])
        .run()
        .success()
        .json();
    assert!(
        json["diagnostics"]
            .as_array()
            .is_some_and(|d| !d.is_empty()),
        "{runner} refuses {} but agg says nothing",
        dir.display()
    );
}
