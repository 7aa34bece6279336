//! agg's rows against the runners' own listings on every fixture, for the JavaScript
//! monorepo runners and deno: `nx show projects` / `nx show project P --json`, `turbo
//! query` with `turbo run T --dry=json`, and `deno task`. The make, go-task and just
//! comparisons live with the rest of `agg list` (`list.rs`), whose helpers these share.
//!
//! Each runner reads a copy of the fixture, so nothing it caches lands in the repository.
//! Where a runner refuses a whole workspace for one broken file, agg must have said so in
//! a diagnostic; the files agg named are then removed and the rest compared.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

use crate::common::listing::{assert_names_match_the_runners, listed_by_dir, runner_listing_with};
use crate::js::{QUIET, install};
use crate::test::{Test, diagnostics, rows, source_names_in};

/// `agg list --json` of `dir`, for `runner`.
fn agg_rows(dir: &Path, runner: &str) -> Value {
    Test::at(dir).list_here_json(&["--runner", runner])
}

/// Removes from the copy at `dir` every file agg reported a problem in, and says which.
#[track_caller]
fn remove_reported(dir: &Path, runner: &str) -> Vec<String> {
    let json = agg_rows(dir, runner);
    let files: BTreeSet<String> = diagnostics(&json)
        .filter_map(|d| d["file_path"].as_str().map(str::to_owned))
        .collect();
    for file in &files {
        std::fs::remove_file(dir.join(file)).expect("remove a reported file");
    }
    files.into_iter().collect()
}

/// What `program args` prints in `dir` as JSON, `None` when it refuses.
fn listing_json(dir: &Path, program: &str, args: &[&str]) -> Option<Value> {
    let out = runner_listing_with(dir, program, args, &QUIET);
    if !out.status.success() {
        return None;
    }
    serde_json::from_slice(&out.stdout).ok()
}

/// One `dependsOn` entry of `nx show project` as agg's deps column writes it (`build`,
/// `^build`, `project:build`).
fn nx_dependency(entry: &Value) -> Vec<String> {
    if let Some(text) = entry.as_str() {
        return vec![text.to_owned()];
    }
    let target = entry["target"].as_str().unwrap_or_default();
    match (&entry["dependencies"], &entry["projects"]) {
        (Value::Bool(true), _) => vec![format!("^{target}")],
        (_, Value::String(p)) if p == "dependencies" => vec![format!("^{target}")],
        (_, Value::Array(projects)) => projects
            .iter()
            .filter_map(Value::as_str)
            .map(|p| format!("{p}:{target}"))
            .collect(),
        (_, Value::String(p)) if p != "self" => vec![format!("{p}:{target}")],
        _ => vec![target.to_owned()],
    }
}

/// The targets Nx lists in the workspace at `dir`, as `project:target`, each with what it
/// depends on (its own `dependsOn` merged with the `targetDefaults` Nx applies to it).
fn nx_targets(dir: &Path) -> Option<BTreeMap<String, Vec<String>>> {
    let projects = listing_json(dir, "nx", &["show", "projects", "--json"])?;
    let mut targets = BTreeMap::new();
    for project in projects
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        let shown = listing_json(dir, "nx", &["show", "project", project, "--json"])
            .unwrap_or_else(|| panic!("nx show project {project} in {}", dir.display()));
        for (target, config) in shown["targets"].as_object().into_iter().flatten() {
            let deps = config["dependsOn"]
                .as_array()
                .into_iter()
                .flatten()
                .flat_map(nx_dependency)
                .collect();
            targets.insert(format!("{project}:{target}"), deps);
        }
    }
    Some(targets)
}

#[test]
fn nx_targets_match_nx_show_project_on_every_fixture() {
    require!("nx");
    let dirs = listed_by_dir("nx");
    assert!(!dirs.is_empty(), "no fixture has Nx targets");
    for (dir, _) in dirs {
        let copy = Test::copy_of(&dir);
        install(copy.root(), "nx", "nx");
        let nx = nx_targets(copy.root()).unwrap_or_else(|| {
            // Nx refuses the whole workspace for one unreadable project file; agg lists
            // the rest and names that file (see the README).
            let removed = remove_reported(copy.root(), "nx");
            assert!(
                !removed.is_empty(),
                "nx refuses {} but agg says nothing",
                dir.display()
            );
            nx_targets(copy.root())
                .unwrap_or_else(|| panic!("nx still refuses {} without {removed:?}", dir.display()))
        });
        // The same targets, each depending on what Nx says: a `targetDefaults` entry is
        // merged only where Nx merges it (same executor, and the same command where the
        // default names its executor), and `// comment` keys are no targets.
        let ours: BTreeMap<String, Vec<String>> = rows(&agg_rows(copy.root(), "nx"))
            .filter(|t| t["dir"] == ".")
            .map(|t| {
                let deps = t["deps"].as_array().into_iter().flatten();
                let deps = deps.filter_map(Value::as_str).map(str::to_owned).collect();
                (
                    t["source_name"].as_str().unwrap_or_default().to_owned(),
                    deps,
                )
            })
            .collect();
        assert_eq!(ours, nx, "{}", dir.display());
    }
}

/// What `turbo query` lists in the workspace at `dir`: for each package (`//` the root),
/// its task names (the tasks turbo.json configures and the package's scripts).
fn turbo_tasks(dir: &Path) -> Option<Vec<(String, String)>> {
    let query = "query { packages { items { name tasks { items { name } } } } }";
    let json = listing_json(dir, "turbo", &["query", query])?;
    let mut out = Vec::new();
    for package in json["data"]["packages"]["items"]
        .as_array()
        .into_iter()
        .flatten()
    {
        let name = package["name"].as_str().unwrap_or_default();
        for task in package["tasks"]["items"].as_array().into_iter().flatten() {
            if let Some(task) = task["name"].as_str() {
                out.push((name.to_owned(), task.to_owned()));
            }
        }
    }
    Some(out)
}

/// Turbo 1 files (`pipeline`): turbo 2 refuses them, and their projects pin turbo 1, which
/// agg lists them for (a deliberate difference; see the README).
fn turbo_1(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("turbo.json"))
        .is_ok_and(|text| text.contains("\"pipeline\"") && !text.contains("\"tasks\""))
}

#[test]
fn turbo_tasks_match_turbo_query_and_dry_runs_on_every_fixture() {
    require!("turbo");
    let dirs = listed_by_dir("turbo");
    assert!(!dirs.is_empty(), "no fixture has turbo tasks");
    let mut compared = 0;
    for (dir, _) in dirs {
        if turbo_1(&dir) {
            continue;
        }
        let copy = Test::copy_of(&dir);
        let tasks = if let Some(tasks) = turbo_tasks(copy.root()) {
            tasks
        } else {
            // turbo refuses the whole workspace for one bad turbo.json (or a directory that
            // is no workspace); agg must have said why.
            let removed = remove_reported(copy.root(), "turbo");
            assert!(
                !removed.is_empty(),
                "turbo refuses {} but agg says nothing",
                dir.display()
            );
            let Some(tasks) = turbo_tasks(copy.root()) else {
                // What remains is no workspace turbo reads, and agg lists nothing there.
                let left = source_names_in(&agg_rows(copy.root(), "turbo"), ".");
                assert!(left.is_empty(), "{}: {left:?}", dir.display());
                continue;
            };
            tasks
        };
        let ours = source_names_in(&agg_rows(copy.root(), "turbo"), ".");
        // Every task turbo runs is a row: `task` for all packages, or `package#task` for
        // that one. `turbo query` also lists package scripts no turbo.json configures,
        // which turbo refuses to run ("Could not find task"): those are no tasks.
        let names: BTreeSet<&str> = tasks.iter().map(|(_, task)| task.as_str()).collect();
        for name in names {
            let Some(plan) = listing_json(copy.root(), "turbo", &["run", name, "--dry=json"])
            else {
                continue;
            };
            for id in plan["tasks"].as_array().into_iter().flatten() {
                let id = id["taskId"].as_str().unwrap_or_default();
                if id.rsplit_once('#').is_some_and(|(_, task)| task == name) {
                    assert!(
                        ours.contains(name) || ours.contains(id),
                        "{}: turbo runs {id}, agg lists {ours:?}",
                        dir.display()
                    );
                }
            }
        }
        // And every row is one turbo runs.
        for row in &ours {
            let plan = listing_json(copy.root(), "turbo", &["run", row, "--dry=json"])
                .unwrap_or_else(|| panic!("{}: turbo run {row} --dry=json", dir.display()));
            let ids: Vec<&str> = plan["tasks"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| t["taskId"].as_str())
                .collect();
            let own = |id: &&str| match row.split_once('#') {
                Some(_) => *id == row,
                None => id.rsplit_once('#').is_some_and(|(_, task)| task == row),
            };
            assert!(
                ids.iter().any(own),
                "{}: {row} plans {ids:?}",
                dir.display()
            );
        }
        compared += 1;
    }
    assert!(compared >= 1, "no turbo workspace compared");
}

/// The task names `deno task` lists in `dir`, without the workspace root's (which deno
/// lists in every member, and agg once at the root); `None` when deno refuses the file.
pub(crate) fn deno_tasks(dir: &Path, cache: &Path) -> Option<BTreeSet<String>> {
    let cache = cache.to_string_lossy();
    let env = [
        ("DENO_DIR", cache.as_ref()),
        ("DENO_NO_UPDATE_CHECK", "1"),
        ("NO_COLOR", "1"),
    ];
    let out = runner_listing_with(dir, "deno", &["task"], &env);
    if !out.status.success() {
        return None;
    }
    Some(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.strip_prefix("- "))
            .filter(|name| !name.ends_with(" (workspace)"))
            .map(str::to_owned)
            .collect(),
    )
}

#[test]
fn deno_tasks_match_deno_task_on_every_fixture() {
    require!("deno");
    let cache = tempfile::tempdir().expect("tmp");
    // deno refuses a file it cannot read as a whole; agg lists what it can and says what is
    // wrong.
    assert_names_match_the_runners("deno", 4, |dir| deno_tasks(dir, cache.path()));
}
