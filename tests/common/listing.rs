//! What the comparisons of agg's rows with a runner's own listing share: the fixture
//! directories where agg lists a runner's tasks (names, and descriptions where the runner
//! prints them), the walk over them that compares names or checks that agg reported what
//! the runner refused, and the runner's listing command run with a clean environment.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

use crate::test::{Test, diagnostics, fixtures, rows};

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
        let json = Test::at(&fixture).list_here_json(&["--runner", runner]);
        for task in rows(&json) {
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
    let json = Test::at(dir).list_here_json(&[]);
    assert!(
        diagnostics(&json).next().is_some(),
        "{runner} refuses {} but agg says nothing",
        dir.display()
    );
}

/// Runs `check` on every fixture directory where agg lists tasks of `runner`, with the source
/// names agg lists there and their descriptions; there must be at least `at_least` of them.
#[track_caller]
pub fn for_each_described(
    runner: &str,
    at_least: usize,
    mut check: impl FnMut(&Path, BTreeMap<String, Option<String>>),
) {
    let dirs = described_by_dir(runner);
    assert!(dirs.len() >= at_least, "{dirs:?}");
    for (dir, listed) in dirs {
        check(&dir, listed);
    }
}

/// Checks that on every fixture directory where agg lists tasks of `runner` (at least
/// `at_least` of them) agg lists the names the runner itself does: `theirs` gives those of a
/// directory, or `None` where the runner refuses the directory as a whole, and agg must then
/// say why in a diagnostic.
#[track_caller]
pub fn assert_names_match_the_runners(
    runner: &str,
    at_least: usize,
    mut theirs: impl FnMut(&Path) -> Option<BTreeSet<String>>,
) {
    let dirs = listed_by_dir(runner);
    assert!(dirs.len() >= at_least, "{dirs:?}");
    for (dir, listed) in dirs {
        match theirs(&dir) {
            Some(names) => assert_eq!(listed, names, "{}", dir.display()),
            None => assert_refusal_reported(&dir, runner),
        }
    }
}

/// The runner's listing in `dir` (see [`runner_listing_with`]) parsed as JSON, or `None`
/// where the runner refuses the directory (exits with an error).
pub fn runner_json(
    dir: &Path,
    program: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> Option<Value> {
    let out = runner_listing_with(dir, program, args, env);
    out.status
        .success()
        .then(|| parse(&out, dir, program, args))
}

/// The runner's listing in `dir` parsed as JSON; the runner must accept the directory.
#[track_caller]
pub fn runner_json_ok(dir: &Path, program: &str, args: &[&str], env: &[(&str, &str)]) -> Value {
    let out = runner_listing_with(dir, program, args, env);
    assert!(
        out.status.success(),
        "{program} {args:?} in {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    parse(&out, dir, program, args)
}

/// A runner's JSON listing.
#[track_caller]
fn parse(out: &Output, dir: &Path, program: &str, args: &[&str]) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{program} {args:?} is not JSON ({e}) in {}", dir.display()))
}

/// Checks that agg marks none of the rows of `runner` that run from `dir` itself not
/// runnable: the runner accepts the file there.
#[track_caller]
pub fn assert_all_runnable(dir: &Path, runner: &str) {
    let json = Test::at(dir).list_here_json(&["--runner", runner]);
    let not_runnable: Vec<&str> = rows(&json)
        .filter(|t| t["dir"] == "." && !t["not_runnable"].is_null())
        .filter_map(|t| t["source_name"].as_str())
        .collect();
    assert_eq!(not_runnable, Vec::<&str>::new(), "{}", dir.display());
}

/// The `name` of each item of a runner's JSON list (`json` itself, or the array under a key).
pub fn json_names(list: &Value) -> BTreeSet<String> {
    list.as_array()
        .into_iter()
        .flatten()
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect()
}
