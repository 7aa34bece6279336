//! `agg list`: discovery over the fixtures, naming, filters, diagnostics and output hygiene.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Read;
use std::process::{Command, Stdio};

use crate::common::listing::{
    assert_all_runnable, assert_names_match_the_runners, json_names, listed_by_dir, runner_json,
    runner_listing,
};
use crate::test::{Test, diagnostics, fixtures, names, rows, run_ok, task};
use indoc::indoc;

/// Every bundled fixture's `--json` table, snapshotted. `runner_available` depends on the
/// machine, so it is checked by its own tests instead.
#[test]
fn fixture_tables_match_their_snapshots() {
    let mut dirs: Vec<_> = std::fs::read_dir(fixtures())
        .expect("fixtures")
        .filter_map(Result::ok)
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name != "hostile" && name != "fuzz-regressions")
        .collect();
    dirs.sort();
    assert!(dirs.contains(&"polyglot".to_owned()));
    for name in dirs {
        let out = Test::fixture(&name)
            .args(["list", ".", "--json"])
            .run()
            .success();
        insta::assert_json_snapshot!(name.clone(), out.json(), {
            ".root" => "[root]",
            ".tasks[].runner_available" => "[machine-dependent]",
            ".tasks[].command" => insta::dynamic_redaction(|value, _| {
                // go-task is installed as `go-task` on some distributions; Compose runs as
                // `docker-compose` where Docker's Compose plugin is missing; a Procfile's
                // foreman rows run with honcho where only honcho is installed.
                value.as_str().map_or(value.clone(), |c| {
                    if let Some(rest) = c.strip_prefix("docker-compose ") {
                        return format!("docker compose {rest}").into();
                    }
                    if let Some(rest) = c.strip_prefix("honcho start") {
                        return format!("foreman start{rest}").into();
                    }
                    c.strip_prefix("go-task ").map_or(value.clone(), |rest| format!("task {rest}").into())
                })
            }),
        });
    }
}

#[test]
fn polyglot_lists_every_runner_and_suffixes_root_collisions() {
    let json = Test::fixture("polyglot").list_here_json(&[]);
    let names = names(&json);
    for expected in [
        "build-m",
        "build-p",
        "build-j",
        "build-t",
        "test-m",
        "test-p",
        "lint",
        "clean",
        "help",
        "dev",
        "format",
        "deploy",
        "xtask",
        "lint-rs",
        "ci",
        "docs:serve",
        "release",
        "changelog",
        "apps/api/build",
        "apps/api/run",
        "apps/web/dev",
        "apps/web/build",
        "services/worker/start",
        "tools/proto",
    ] {
        assert!(
            names.contains(&expected.to_owned()),
            "missing {expected} in {names:?}"
        );
    }
    let runners: BTreeSet<_> = rows(&json).filter_map(|t| t["runner"].as_str()).collect();
    assert_eq!(
        runners.into_iter().collect::<Vec<_>>(),
        [
            "bun", "cargo", "just", "make", "npm", "pnpm", "task", "xc", "yarn"
        ]
    );
}

#[test]
fn ignored_files_node_modules_and_included_files_are_not_listed() {
    let json = Test::fixture("polyglot").list_here_json(&[]);
    let names = names(&json);
    assert!(
        !names.iter().any(|n| n.contains("should-not-appear")),
        "{names:?}"
    );
    // docs/Taskfile.yml is included by the root Taskfile: listed as docs:serve only.
    assert!(!names.iter().any(|n| n.starts_with("docs/")), "{names:?}");
    // Hidden pre-script.
    assert!(
        !names.iter().any(|n| n.starts_with("prebuild")),
        "{names:?}"
    );
    // Private just recipe.
    assert!(
        !names.iter().any(|n| n.contains("bump-version")),
        "{names:?}"
    );
}

/// Runs git (the test's own tool, never agg's) in `dir` with no user or system config.
fn git(dir: &std::path::Path, args: &[&str]) {
    run_ok(
        Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.org"])
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1"),
    );
}

/// The source names `agg list --json` gives in `dir`, with its diagnostics.
fn listed_in(dir: &std::path::Path) -> (BTreeSet<String>, serde_json::Value) {
    let json = Test::at(dir).list_here_json(&[]);
    let names = rows(&json)
        .filter_map(|t| t["source_name"].as_str().map(str::to_owned))
        .collect();
    (names, json["diagnostics"].clone())
}

#[test]
fn task_files_git_tracks_are_read_where_an_ignore_rule_matches_them() {
    require!("git");
    let test = Test::new()
        .write(".gitignore", indoc! {"
            .vscode/
            !.vscode/tasks.json
            build/
        "})
        .write(
            ".vscode/tasks.json",
            r#"{"version": "2.0.0", "tasks": [{"label": "tracked-task", "type": "shell", "command": "echo hi"}]}"#,
        )
        .write(".vscode/extra/Makefile", "untracked-in-ignored:\n\techo no\n")
        .write("build/Makefile", "untracked-build:\n\techo no\n")
        .write("build/gen/Makefile", "tracked-deep:\n\techo yes\n")
        .write("Makefile", "top:\n\techo top\n");
    let root = test.root().to_path_buf();
    git(&root, &["init", "-q"]);
    git(&root, &["add", "Makefile", ".gitignore"]);
    let (names, _) = listed_in(&root);
    assert!(
        !names.contains("tracked-task"),
        "not yet tracked: {names:?}"
    );
    git(
        &root,
        &["add", "-f", ".vscode/tasks.json", "build/gen/Makefile"],
    );
    let expected: BTreeSet<String> = ["top", "tracked-task", "tracked-deep"]
        .map(str::to_owned)
        .into();
    for index in ["plain", "version 4", "split"] {
        match index {
            "version 4" => git(&root, &["update-index", "--index-version", "4"]),
            "split" => git(&root, &["update-index", "--split-index"]),
            _ => {}
        }
        let (names, diagnostics) = listed_in(&root);
        assert_eq!(names, expected, "{index} index; {diagnostics}");
    }
    git(&root, &["update-index", "--no-split-index"]);
    // A linked worktree: `.git` is a file naming its own index.
    git(&root, &["commit", "-q", "--no-verify", "-m", "tasks"]);
    let linked = tempfile::tempdir().expect("tmp");
    let linked = linked.path().join("linked");
    git(&root, &["worktree", "add", "-q", &linked.to_string_lossy()]);
    let (names, diagnostics) = listed_in(&linked);
    assert_eq!(names, expected, "worktree; {diagnostics}");
    // A command git would run for `core.fsmonitor`; agg never runs git, so never runs it.
    let marker = root.join("fsmonitor-ran");
    git(
        &root,
        &[
            "config",
            "core.fsmonitor",
            &format!("touch {}", marker.display()),
        ],
    );
    assert_eq!(listed_in(&root).0, expected);
    assert!(!marker.exists(), "agg ran git's fsmonitor command");
    // A damaged index is a diagnostic; the ignore rules alone decide then.
    std::fs::write(root.join(".git/index"), b"DIRC\0\0\0\x09").expect("write");
    let (names, diagnostics) = listed_in(&root);
    assert_eq!(names, ["top".to_owned()].into(), "{diagnostics}");
    let text = diagnostics.to_string();
    assert!(
        text.contains(".git/index") && text.contains("version 9"),
        "{text}"
    );
}

#[test]
fn rows_carry_the_contract_fields() {
    let json = Test::fixture("polyglot").list_here_json(&[]);
    let build = task(&json, "apps/api/build");
    assert_eq!(build["source_name"], "build");
    assert_eq!(build["runner"], "make");
    assert_eq!(build["command"], "make build");
    assert_eq!(build["dir"], "apps/api");
    assert_eq!(build["file_path"], "apps/api/Makefile");
    assert_eq!(build["line"], 1);
    assert_eq!(build["description"], "Compile the API server");
    assert!(build["runner_available"].is_boolean());
    assert!(json["root"].as_str().is_some_and(|r| r.starts_with('/')));
    assert!(json["diagnostics"].is_array());
}

#[test]
fn a_malformed_file_is_a_diagnostic_and_other_tasks_still_list() {
    let out = Test::new()
        .write("Makefile", "build:\n\techo hi\n")
        .write(
            "web/package.json",
            indoc! {"
                {
                  \"scripts\": {
                    \"dev\": vite
                  }
                }
            "},
        )
        .args(["list", "--json"])
        .run()
        .success();
    out.stderr_has("web/package.json:3:");
    let json = out.json();
    assert_eq!(names(&json), ["build"]);
    let diags: Vec<_> = diagnostics(&json).collect();
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0]["file_path"], "web/package.json");
    assert_eq!(diags[0]["line"], 3);
}

#[test]
fn human_output_groups_by_directory_and_explains_suffixes() {
    let out = Test::fixture("polyglot")
        .args(["list", "."])
        .run()
        .success();
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(lines[0].starts_with("./"), "{}", out.stdout);
    let build_m = lines
        .iter()
        .find(|l| l.trim_start().starts_with("build-m "))
        .expect("build-m row");
    assert!(build_m.contains("make"), "{build_m}");
    assert!(build_m.contains("Build every service"), "{build_m}");
    assert!(build_m.contains("[make build]"), "{build_m}");
    let out = out.stdout_has("\napps/api ");
    assert!(!out.stdout.contains('\u{1b}'), "colour when piped");
}

/// Many runners missing: one summary line, the runners with most tasks first, and `agg
/// doctor` with the details; one runner missing: its install hint.
#[test]
fn missing_runners_are_summed_up_in_one_line_and_detailed_by_doctor() {
    let empty = tempfile::tempdir().expect("tmp");
    let out = Test::fixture("polyglot")
        .env("PATH", empty.path())
        .args(["list", "."])
        .run()
        .success();
    out.stdout_has("pnpm ✗");
    let notes: Vec<&str> = out
        .stderr
        .lines()
        .filter(|l| l.contains("not installed"))
        .collect();
    assert_eq!(notes.len(), 1, "{}", out.stderr);
    assert!(
        notes[0].starts_with(
            "note: 8 runners not installed: make (9 tasks), pnpm (7 tasks), task (4 tasks),"
        ) && notes[0].ends_with("`agg describe NAME` or `agg doctor` says how to install"),
        "{}",
        out.stderr
    );
    let doctor = Test::fixture("polyglot")
        .env("PATH", empty.path())
        .args(["doctor", "--root", ".", "--json"])
        .run_json();
    let pnpm = doctor["runners"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["runner"] == "pnpm")
        .expect("pnpm in doctor");
    assert_eq!(pnpm["tasks"], 7);
    assert_eq!(pnpm["installed"], false);
    assert!(
        pnpm["install"]
            .as_str()
            .is_some_and(|h| h.contains("npm install -g pnpm"))
    );
    Test::fixture("polyglot")
        .env("PATH", empty.path())
        .args(["doctor", "--root", "."])
        .run()
        .success()
        .stdout_has("✗ pnpm")
        .stdout_has("install: `npm install -g pnpm`")
        .stdout_has("✓ xc");
    let one = Test::new()
        .write("justfile", "build:\n    echo hi\n")
        .env("PATH", empty.path())
        .args(["list"])
        .run()
        .success();
    one.stderr_has("just is not installed (1 task marked ✗): `cargo install just`");
    let json = Test::fixture("polyglot")
        .env("PATH", empty.path())
        .list_here_json(&[]);
    for task in rows(&json) {
        let xc = task["runner"] == "xc";
        assert_eq!(task["runner_available"], xc, "{task}");
    }
}

#[test]
fn filters_narrow_by_runner_dir_and_query() {
    let by_runner = Test::fixture("polyglot").list_here_json(&["--runner", "make,just"]);
    assert!(rows(&by_runner).all(|t| t["runner"] == "make" || t["runner"] == "just"));
    let by_dir = Test::fixture("polyglot").list_here_json(&["--dir", "apps"]);
    assert!(names(&by_dir).iter().all(|n| n.starts_with("apps/")));
    assert!(!names(&by_dir).is_empty());
    let by_query = Test::fixture("polyglot").list_here_json(&["--query", "DOCS"]);
    // A name first, then the tasks of the `docs-site` package.
    assert_eq!(
        names(&by_query),
        ["docs:serve", "tools/site/build", "tools/site/serve"]
    );
    Test::fixture("polyglot")
        .args(["list", ".", "--runner", "nonesuch"])
        .run()
        .code(2);
}

#[test]
fn a_missing_root_is_an_error() {
    Test::new()
        .args(["list", "does/not/exist"])
        .run()
        .code(2)
        .stderr_has("cannot scan `does/not/exist`: no such file");
}

#[test]
fn a_closed_pipe_is_success() {
    let mut test = Test::new();
    let mut makefile = String::new();
    for i in 0..5000 {
        let _ = writeln!(makefile, "target-{i}: ## Target number {i}\n\t@true");
    }
    test = test.write("Makefile", makefile);
    let mut child = Command::new(env!("CARGO_BIN_EXE_agg"))
        .arg("list")
        .current_dir(test.root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stdout = child.stdout.take().expect("stdout");
    let mut first = [0u8; 16];
    stdout.read_exact(&mut first).expect("some output");
    drop(stdout);
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
}

#[test]
fn published_schema_is_up_to_date() {
    let out = Test::new().args(["schema"]).run().success();
    let published = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/table.schema.json"),
    )
    .expect("schema/table.schema.json exists");
    assert_eq!(
        out.stdout, published,
        "run `cargo run -- schema > schema/table.schema.json`"
    );
}

/// Every row of every fixture's table has each key the published schema requires of a task,
/// and no key it does not describe.
#[test]
fn every_fixture_table_keeps_to_the_published_schema() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("schema/table.schema.json")).expect("schema"),
    )
    .expect("schema is JSON");
    let task = &schema["$defs"]["Task"];
    let required: Vec<&str> = task["required"]
        .as_array()
        .expect("required")
        .iter()
        .filter_map(serde_json::Value::as_str)
        .collect();
    let described = task["properties"].as_object().expect("properties");
    let mut rows = 0;
    for entry in std::fs::read_dir(root.join("fixtures"))
        .expect("fixtures")
        .flatten()
    {
        let fixture = entry.file_name().to_string_lossy().into_owned();
        let table = Test::fixture(&fixture).list_json();
        for row in table["tasks"].as_array().expect("tasks") {
            rows += 1;
            let keys = row.as_object().expect("row is an object");
            for key in &required {
                assert!(keys.contains_key(*key), "{fixture}: no `{key}` in {row}");
            }
            for key in keys.keys() {
                assert!(
                    described.contains_key(key),
                    "{fixture}: `{key}` not in the schema"
                );
            }
        }
    }
    assert!(rows > 500, "only {rows} rows");
}

/// Whether a name of make's database configures make rather than names a file: a special
/// target (`.PHONY`, all capitals) or an old-style suffix rule (`.c.o`), which `make -r`
/// lists as a target because `-r` clears the suffixes (plain `make` keeps them).
fn is_special_target(name: &str) -> bool {
    let Some(rest) = name.strip_prefix('.') else {
        return false;
    };
    let suffixes = [
        "c", "o", "cc", "cpp", "h", "s", "S", "a", "f", "y", "l", "sh", "el", "elc",
    ];
    rest.chars().all(|c| c.is_ascii_uppercase() || c == '_')
        || (rest.split('.').count() <= 2 && rest.split('.').all(|p| suffixes.contains(&p)))
}

/// The targets of make's database (`make -pRrq`) that agg should list: not special
/// (`.PHONY`, `.c.o`), not patterns, not "Not a target" files, and not `FORCE:`-style targets (no
/// prerequisites, no recipe, used only as another target's prerequisite), which agg hides
/// on purpose.
fn make_database_targets(db: &str, dir: &std::path::Path) -> BTreeSet<String> {
    let files = db.split_once("\n# Files\n").map_or("", |(_, rest)| {
        rest.split("\n# files hash-table stats")
            .next()
            .unwrap_or("")
    });
    let mut targets: BTreeMap<String, (bool, bool)> = BTreeMap::new();
    let mut prereqs: BTreeSet<String> = BTreeSet::new();
    let mut phony: BTreeSet<String> = BTreeSet::new();
    let mut previous = "";
    let mut current: Option<String> = None;
    for line in files.lines() {
        if line.starts_with('\t') {
            if let Some(entry) = current.as_ref().and_then(|c| targets.get_mut(c)) {
                entry.1 = true;
            }
        } else if !line.starts_with('#') && !line.is_empty() {
            current = None;
            let Some((name, rest)) = line.split_once(':') else {
                continue;
            };
            let rest = rest.trim_start_matches(':');
            // `target: VAR = value` is a target-specific variable, not a rule.
            let assignment = rest
                .split_whitespace()
                .nth(1)
                .is_some_and(|w| w.ends_with('='))
                || rest.trim_start().starts_with('=');
            if assignment || previous == "# Not a target:" {
                continue;
            }
            let deps: Vec<&str> = rest
                .split('|')
                .next()
                .unwrap_or("")
                .split_whitespace()
                .collect();
            if name == ".PHONY" {
                phony.extend(deps.iter().map(|d| (*d).to_owned()));
            } else if !is_special_target(name) {
                prereqs.extend(deps.iter().map(|d| (*d).to_owned()));
            }
            let entry = targets.entry(name.to_owned()).or_default();
            entry.0 |= !deps.is_empty();
            current = Some(name.to_owned());
        }
        previous = line;
    }
    // The database cannot tell `FORCE:` from `all: $(EMPTY)`: agg hides only the first, and
    // only when it is not phony (an empty phony `all:` is still a target to run).
    let texts: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .chain(
            std::fs::read_dir(dir.join("mk"))
                .into_iter()
                .flatten()
                .filter_map(Result::ok),
        )
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .collect();
    let written_empty = |name: &str| {
        texts
            .iter()
            .any(|t| t.lines().any(|l| l.trim_end() == format!("{name}:")))
    };
    targets
        .into_iter()
        .filter(|(name, (has_deps, has_recipe))| {
            let forced = !has_deps
                && !has_recipe
                && prereqs.contains(name)
                && !phony.contains(name)
                && written_empty(name);
            !is_special_target(name) && !name.contains('%') && !forced
        })
        .map(|(name, _)| name)
        .collect()
}

#[test]
fn make_targets_match_makes_own_database_on_every_fixture() {
    require!("make");
    let dirs = listed_by_dir("make");
    assert!(dirs.len() >= 5, "{dirs:?}");
    for (dir, listed) in dirs {
        // `MAKE=:` keeps recipes that call `$(MAKE)` from recursing (make runs them even with -q).
        let out = runner_listing(&dir, "make", &["-pRrq", "MAKE=:"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        if stderr.contains("***") {
            // make stops at a fatal error and lists nothing; agg keeps the rules it can
            // read and reports the error (a deliberate difference, see the README).
            continue;
        }
        let mut made = make_database_targets(&String::from_utf8_lossy(&out.stdout), &dir);
        // Targets `$(eval $(call …))` generates exist only once make evaluates the file;
        // agg never runs repository code to list tasks (see the README).
        if dir.ends_with("make-edge-cases/.") {
            for generated in ["run-fast", "run-slow"] {
                assert!(made.remove(generated), "{generated} no longer generated");
            }
        }
        assert_eq!(listed, made, "{}\n{stderr}", dir.display());
    }
}

#[test]
fn taskfile_tasks_match_task_list_all_on_every_fixture() {
    require!("task");
    assert_names_match_the_runners("task", 4, |dir| {
        // go-task refuses the whole file (a duplicate task, a bad include, a command it
        // cannot read); agg lists what it can and must say why in a diagnostic (see the
        // README).
        let json = runner_json(dir, "task", &["--list-all", "--json"], &[])?;
        assert_all_runnable(dir, "task");
        Some(json_names(&json["tasks"]))
    });
}

/// The public recipes of a `just --dump` module, with module paths (`tools::lint::check`).
fn public(module: &serde_json::Value, prefix: &str, out: &mut BTreeSet<String>) {
    for (name, recipe) in module["recipes"].as_object().into_iter().flatten() {
        if recipe["private"] != true {
            out.insert(format!("{prefix}{name}"));
        }
    }
    for (name, inner) in module["modules"].as_object().into_iter().flatten() {
        public(inner, &format!("{prefix}{name}::"), out);
    }
}

#[test]
fn just_recipes_match_just_dump_on_every_fixture() {
    require!("just");
    assert_names_match_the_runners("just", 4, |dir| {
        // just refuses a file with an error anywhere; agg lists what it can read and says
        // what is wrong.
        let json = runner_json(dir, "just", &["--dump", "--dump-format", "json"], &[])?;
        assert_all_runnable(dir, "just");
        let mut recipes = BTreeSet::new();
        public(&json, "", &mut recipes);
        // `--dump` does not mark a `[private] mod`; `--summary` leaves its recipes out.
        let summary = runner_listing(dir, "just", &["--summary"]);
        let summary: BTreeSet<String> = String::from_utf8_lossy(&summary.stdout)
            .split_whitespace()
            .map(str::to_owned)
            .collect();
        recipes.retain(|r| match r.rsplit_once("::") {
            Some((module, _)) => summary
                .iter()
                .any(|s| s.starts_with(&format!("{module}::"))),
            None => true,
        });
        Some(recipes)
    });
}

/// Runs `mise tasks ls --json` in `dir` the way the mise tests run mise: offline, with its
/// data, state, cache and config in `home`, no tool installs, and `dir` trusted, so it neither
/// touches the network nor asks whether to trust the file.
fn mise_listing(dir: &std::path::Path, home: &std::path::Path) -> Option<serde_json::Value> {
    let at = |sub: &str| home.join(sub).to_string_lossy().into_owned();
    let trusted = dir.to_string_lossy();
    let env = [
        ("HOME", home.to_string_lossy().into_owned()),
        ("MISE_DATA_DIR", at("data")),
        ("MISE_STATE_DIR", at("state")),
        ("MISE_CACHE_DIR", at("cache")),
        ("MISE_CONFIG_DIR", at("config")),
        ("MISE_GLOBAL_CONFIG_FILE", at("config/config.toml")),
        ("MISE_OFFLINE", "1".to_owned()),
        ("MISE_TASK_RUN_AUTO_INSTALL", "false".to_owned()),
        ("MISE_TRUSTED_CONFIG_PATHS", trusted.into_owned()),
    ];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    // Without `--hidden`, as agg hides `hide = true` tasks too.
    runner_json(dir, "mise", &["tasks", "ls", "--json"], &env)
}

#[test]
fn mise_tasks_match_mise_tasks_ls_on_every_fixture() {
    require!("mise");
    let home = tempfile::tempdir().expect("home");
    assert_names_match_the_runners("mise", 3, |dir| {
        // mise refuses a directory whose config has an error anywhere; agg lists what it
        // can read and must say why in a diagnostic (see docs/runners.md).
        let json = mise_listing(dir, home.path())?;
        let here = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
        // mise also lists the tasks of the parent directories' configs; agg lists each
        // task once, in the directory of the file that defines it.
        let own = json.as_array().into_iter().flatten().filter(|t| {
            t["source"]
                .as_str()
                .is_some_and(|s| std::path::Path::new(s).starts_with(&here))
        });
        Some(
            own.filter_map(|t| t["name"].as_str().map(str::to_owned))
                .collect(),
        )
    });
}

/// What `agg list . ARGS` prints for people in the `workspace` fixture.
fn workspace_text(args: &[&str]) -> crate::test::Output {
    Test::fixture("workspace")
        .args(["list", "."])
        .args(args)
        .run()
        .success()
}

/// The `workspace` fixture's tasks that `agg list ARGS --json` prints, in order.
fn workspace(args: &[&str]) -> Vec<String> {
    names(&Test::fixture("workspace").list_here_json(args))
}

#[test]
fn a_search_of_several_words_needs_every_word() {
    assert_eq!(
        workspace(&["-q", "account-adapter test"]),
        ["packages/account-adapter/test"]
    );
    assert_eq!(
        workspace(&["-q", "adapter build"]),
        [
            "packages/account-adapter/build",
            "packages/billing-adapter/build"
        ]
    );
}

#[test]
fn a_package_name_finds_the_tasks_of_that_package_and_rows_carry_it() {
    assert_eq!(
        workspace(&["-q", "@acme/web"]),
        [
            "apps/web/dev",
            "apps/web/build",
            "apps/web/test",
            "apps/web/test:e2e",
            "apps/web/lint",
            "apps/web/e2e/smoke",
        ],
        "a Makefile inside a package belongs to it"
    );
    assert_eq!(
        workspace(&["-q", "billing-service"]),
        ["services/billing/test", "services/billing/serve"]
    );
    let json = Test::fixture("workspace").list_here_json(&["-q", "account-adapter lint"]);
    assert_eq!(json["tasks"][0]["package"], "@acme/account-adapter");
}

#[test]
fn search_results_come_best_first() {
    assert_eq!(
        workspace(&["-q", "test"]),
        [
            // The name itself, root first, then directory by directory.
            "test",
            "apps/web/test",
            "packages/account-adapter/test",
            "packages/billing-adapter/test",
            "services/billing/test",
            // A word of the name.
            "apps/web/test:e2e",
            // The description only.
            "apps/web/e2e/smoke",
        ]
    );
}

#[test]
fn people_see_search_results_in_directory_blocks_ordered_by_their_best_match() {
    let out = workspace_text(&["-q", "test"]);
    let blocks: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| !l.starts_with(' ') && !l.is_empty())
        .collect();
    assert_eq!(
        blocks,
        [
            "./ (package.json)",
            "apps/web (package.json)",
            "packages/account-adapter (package.json)",
            "packages/billing-adapter (package.json)",
            "services/billing (pyproject.toml)",
            // Its only task matches in its description: last, unlike in the full table.
            "apps/web/e2e (Makefile)",
        ],
        "{}",
        out.stdout
    );
    let web: Vec<&str> = out
        .stdout
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| name.starts_with("apps/web/test"))
        .collect();
    assert_eq!(
        web,
        ["apps/web/test", "apps/web/test:e2e"],
        "{}",
        out.stdout
    );
}

#[test]
fn a_search_that_finds_nothing_suggests_what_would() {
    let out = workspace_text(&["-q", "acount-adaptr tset"]);
    assert_eq!(
        out.stdout,
        "no tasks match `acount-adaptr tset`\ndid you mean `account-adapter test`?\n"
    );
    let out = Test::fixture("workspace")
        .args(["list", ".", "-q", "billing-adapter serve", "--json"])
        .run()
        .success();
    out.stderr_has("did you mean `serve`, `billing-adapter`?");
    assert!(names(&out.json()).is_empty());
}

#[test]
fn for_a_path_lists_the_tasks_of_the_directories_around_it_nearest_first() {
    let web = [
        "apps/web/dev",
        "apps/web/build",
        "apps/web/test",
        "apps/web/test:e2e",
        "apps/web/lint",
    ];
    let found = workspace(&["--for", "apps/web/src/main.ts"]);
    assert_eq!(found[..5], web);
    assert_eq!(found[5..], ["lint", "test"]);
    let found = workspace(&["--for", "apps/web/e2e/login.spec.ts"]);
    assert_eq!(found[0], "apps/web/e2e/smoke");
    assert_eq!(
        workspace(&["--for", "apps/web/src/main.ts", "-q", "test"]),
        ["apps/web/test", "apps/web/test:e2e", "test"]
    );
    // From inside the repository, a relative path starts from the current directory.
    let root = fixtures().join("workspace");
    let json = Test::fixture("workspace")
        .current_dir("apps/web")
        .args(["list", "--json", "--for", "src/main.ts", "--runner", "npm"])
        .args([root.clone()])
        .run_json();
    assert_eq!(names(&json)[..5], web);
    let absolute = root.join("packages/account-adapter/src/index.ts");
    let absolute = absolute.to_string_lossy().into_owned();
    let found = workspace(&["--for", &absolute]);
    assert_eq!(found[0], "packages/account-adapter/build");
    Test::fixture("workspace")
        .args(["list", ".", "--for", "../elsewhere"])
        .run()
        .code(2)
        .stderr_has("is not inside the repository");
}
