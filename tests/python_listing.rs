//! agg's rows against the Python runners' own listings, on every fixture where agg lists a
//! runner's tasks: `tox list`, `nox --list --json`, `poe`'s task list, `pdm run --json`
//! and `hatch env show --json`. Names must match, and descriptions where the runner prints
//! them. Each deliberate difference is listed with its reason (the README says the same).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::common::listing::{
    assert_refusal_reported, for_each_described, runner_json_ok, runner_listing,
    runner_listing_with,
};
use crate::test::{Test, fixtures, rows};

/// Directories (under `fixtures/`) whose file a runner refuses as a whole, where agg lists
/// what it can read and reports the rest: (directory, runner, reason).
const REFUSED: &[(&str, &str, &str)] = &[
    (
        "python-edge-cases/broken",
        "tox",
        "one line configparser cannot read makes tox refuse all of tox.ini",
    ),
    (
        "python-edge-cases/broken",
        "nox",
        "Python refuses a noxfile with a syntax error; agg reads the sessions it can",
    ),
];

/// Sessions nox lists that agg does not: (directory, session, reason).
const NOX_UNLISTED: &[(&str, &str, &str)] = &[
    (
        "python-edge-cases/nox",
        "django-4",
        "named in a loop: it exists only once the noxfile runs, and agg never runs it",
    ),
    (
        "python-edge-cases/nox",
        "django-5",
        "named in a loop: it exists only once the noxfile runs, and agg never runs it",
    ),
];

/// The fixture directory as the lists above name it.
fn relative(dir: &Path) -> String {
    let rel = dir.strip_prefix(fixtures()).unwrap_or(dir);
    rel.to_string_lossy().trim_end_matches("/.").to_owned()
}

/// Whether `runner` refuses the file in `dir` on purpose (see [`REFUSED`]); agg must then
/// say why in a diagnostic.
fn refused(dir: &Path, runner: &str, output: &std::process::Output) -> bool {
    let rel = relative(dir);
    let expected = REFUSED.iter().any(|(d, r, _)| *d == rel && *r == runner);
    assert_eq!(
        expected,
        !output.status.success(),
        "{runner} in {rel}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    if expected {
        assert_refusal_reported(dir, runner);
    }
    expected
}

/// `tox list` output as names and descriptions (`[no description]` is none), with the
/// absolute path of `dir` written as `.`, the way agg writes `{toxinidir}`.
fn tox_list(stdout: &str, dir: &Path) -> BTreeMap<String, Option<String>> {
    let root = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let root = root.to_string_lossy();
    stdout
        .lines()
        .filter_map(|line| line.split_once(" -> "))
        .map(|(name, description)| {
            let description = (description != "[no description]")
                .then(|| description.replace(root.as_ref(), "."));
            (name.trim().to_owned(), description)
        })
        .collect()
}

#[test]
fn tox_environments_match_tox_list_on_every_fixture() {
    require!("tox");
    let work = tempfile::tempdir().expect("tempdir");
    let work = work.path().to_string_lossy().into_owned();
    for_each_described("tox", 4, |dir, listed| {
        // `--workdir` keeps tox from leaving `.tox` in the fixture.
        let out = runner_listing(dir, "tox", &["list", "--workdir", &work]);
        if refused(dir, "tox", &out) {
            return;
        }
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(listed, tox_list(&stdout, dir), "{}", dir.display());
        // The commands `agg describe` shows are those `tox config` resolves.
        let names: Vec<&str> = listed.keys().map(String::as_str).collect();
        let envs = names.join(",");
        let out = runner_listing(
            dir,
            "tox",
            &["config", "--workdir", &work, "-e", &envs, "-k", "commands"],
        );
        let resolved = tox_commands(&String::from_utf8_lossy(&out.stdout));
        assert_eq!(resolved.len(), names.len(), "{}", dir.display());
        let list = Test::at(dir).list_here_json(&["--runner", "tox"]);
        let unique = |name: &str| {
            rows(&list)
                .find(|t| t["source_name"] == name)
                .and_then(|t| t["unique_name"].as_str())
                .unwrap_or(name)
                .to_owned()
        };
        for name in names {
            let json = Test::at(dir)
                .args(["describe", "-C", ".", &unique(name), "--json"])
                .run_json();
            let script = json["script"].as_str().unwrap_or_default();
            assert_eq!(script, resolved[name], "{name} in {}", dir.display());
        }
    });
}

/// `tox config -k commands`: each environment's commands, one a line.
fn tox_commands(stdout: &str) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in stdout.lines() {
        if let Some(name) = line
            .strip_prefix("[testenv:")
            .and_then(|l| l.strip_suffix(']'))
        {
            current = Some(name.to_owned());
            out.insert(name.to_owned(), String::new());
        } else if let Some(entry) = current.as_ref().and_then(|c| out.get_mut(c)) {
            let line = line.strip_prefix("commands =").unwrap_or(line).trim();
            if !line.is_empty() {
                if !entry.is_empty() {
                    entry.push('\n');
                }
                entry.push_str(line);
            }
        }
    }
    out
}

#[test]
fn nox_sessions_match_nox_list_on_every_fixture() {
    require!("nox");
    for_each_described("nox", 3, |dir, listed| {
        // nox imports the noxfile; no `__pycache__` is left in the fixture. `--json` lists
        // the sessions `nox.options.sessions` selects, all of them here (no fixture sets it).
        let out = runner_listing_with(
            dir,
            "nox",
            &["--list", "--json"],
            &[("PYTHONDONTWRITEBYTECODE", "1")],
        );
        if refused(dir, "nox", &out) {
            return;
        }
        let json: serde_json::Value =
            serde_json::from_slice(&out.stdout).expect("nox --list --json");
        let rel = relative(dir);
        // A session run on several Pythons is listed once per Python (`tests-3.12`) and
        // once by agg, by the name that runs them all (`nox -s tests`).
        let sessions: BTreeMap<String, Option<String>> = json
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| {
                let name = s["name"].as_str()?.to_owned();
                let description = s["description"]
                    .as_str()
                    .filter(|d| !d.is_empty())
                    .map(str::to_owned);
                Some((name, description))
            })
            .filter(|(name, _)| {
                !NOX_UNLISTED
                    .iter()
                    .any(|(d, session, _)| *d == rel && session == name)
            })
            .collect();
        assert_eq!(listed, sessions, "{rel}");
    });
}

/// The tasks of poe's help page (`poe` with no task): `  name   help`, each argument
/// indented below its task.
fn poe_tasks(help: &str) -> BTreeMap<String, Option<String>> {
    help.split_once("Configured tasks:")
        .map_or("", |(_, tasks)| tasks)
        .lines()
        .filter(|line| line.starts_with("  ") && !line.starts_with("   "))
        .filter_map(|line| {
            let line = line.trim();
            let (name, help) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
            (!name.is_empty()).then(|| {
                let help = help.trim();
                (name.to_owned(), (!help.is_empty()).then(|| help.to_owned()))
            })
        })
        .collect()
}

#[test]
fn poe_tasks_match_poe_s_own_list_on_every_fixture() {
    require!("poe");
    for_each_described("poe", 4, |dir, listed| {
        // `poe` alone prints its help page, tasks included, and exits 1.
        let out = runner_listing_with(dir, "poe", &[], &[("NO_COLOR", "1")]);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(listed, poe_tasks(&stdout), "{}\n{stdout}", dir.display());
    });
}

#[test]
fn pdm_scripts_match_pdm_run_json_on_every_fixture() {
    require!("pdm");
    for_each_described("pdm", 2, |dir, listed| {
        // pdm looks for a newer version of itself unless told not to.
        let env = [("PDM_CHECK_UPDATE", "false")];
        let json = runner_json_ok(dir, "pdm", &["run", "--json"], &env);
        let scripts: BTreeMap<&str, &serde_json::Value> = json
            .as_object()
            .into_iter()
            .flatten()
            // `_` holds the options every script shares; it is not a script.
            .filter(|(_, s)| s["kind"] != "shared")
            .map(|(name, s)| (name.as_str(), s))
            .collect();
        let names: BTreeSet<&str> = scripts.keys().copied().collect();
        let ours: BTreeSet<&str> = listed.keys().map(String::as_str).collect();
        assert_eq!(ours, names, "{}", dir.display());
        for (name, description) in &listed {
            let script = scripts[name.as_str()];
            // pdm shows a script's command where it has no help; agg leaves the
            // description empty then and shows the command in `describe`.
            let command = match &script["args"] {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let expected = description.clone().unwrap_or(command);
            assert_eq!(
                script["help"],
                expected.as_str(),
                "{name} in {}",
                dir.display()
            );
        }
    });
}

#[test]
fn hatch_scripts_match_hatch_env_show_on_every_fixture() {
    require!("hatch");
    for_each_described("hatch", 2, |dir, listed| {
        let json = runner_json_ok(dir, "hatch", &["env", "show", "--json"], &[]);
        let default = &json["default"]["scripts"];
        let mut scripts = BTreeSet::new();
        for (env, config) in json.as_object().into_iter().flatten() {
            // hatch's own environments (`hatch-test`, `hatch-static-analysis`) serve its
            // commands (`hatch test`, `hatch fmt`), not the project's scripts.
            if env.starts_with("hatch-") {
                continue;
            }
            for (script, commands) in config["scripts"].as_object().into_iter().flatten() {
                if env == "default" {
                    scripts.insert(script.clone());
                } else if default[script] != *commands {
                    scripts.insert(format!("{env}:{script}"));
                }
                // Otherwise the environment inherits the default's script: agg lists it
                // once, under the default environment.
            }
        }
        let ours: BTreeSet<String> = listed.into_keys().collect();
        assert_eq!(ours, scripts, "{}", dir.display());
    });
}
