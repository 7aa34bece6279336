//! The Python runners for real: poe, pdm, hatch, uv, poetry, tox and nox each run a task
//! that prints its arguments, which must arrive verbatim. Every project here builds its
//! environment without downloading a package (no dependencies; console scripts come from
//! a tiny in-tree build backend, `tests/python_project/backend.py`).

use std::path::Path;
use std::process::{Command, Stdio};

use crate::run::{TRICKY, argv_json};
use crate::test::Test;

/// Prints its arguments as a JSON array.
const PRINT_ARGS: &str = "import json, sys; print(json.dumps(sys.argv[1:]))";

/// Runs task `task` with the tricky arguments and checks they arrive as they were sent.
fn check_args(test: Test, task: &str) -> Test {
    let root = test.root().to_path_buf();
    let out = Test::at(&root)
        .args(["run", task, "--"])
        .args(TRICKY)
        .run()
        .success();
    assert_eq!(argv_json(&out.stdout), TRICKY, "{task}: {}", out.stderr);
    test
}

/// A project whose console script `print-args` is built by the in-tree backend.
fn console_script_project(test: Test, extra: &str) -> Test {
    let backend = include_str!("python_project/backend.py");
    test.write("backend.py", backend)
        .write(
            "demo/__init__.py",
            "import json, sys\n\n\ndef main():\n    print(json.dumps(sys.argv[1:]))\n",
        )
        .write(
            "pyproject.toml",
            format!(
                "{extra}\n[build-system]\nrequires = []\nbuild-backend = \"backend\"\nbackend-path = [\".\"]\n"
            ),
        )
}

fn listed_command(root: &Path, unique_name: &str) -> String {
    let json = Test::at(root)
        .args(["list", "--json"])
        .run()
        .success()
        .json();
    let task = crate::test::task(&json, unique_name);
    assert_eq!(task["runner_available"], true, "{task}");
    task["command"].as_str().unwrap_or_default().to_owned()
}

#[test]
fn poe_tasks_get_their_args_verbatim() {
    require!("poe");
    let test = Test::new().write(
        "pyproject.toml",
        format!(
            "[tool.poe.tasks]\nargs = {{ cmd = \"python3 -c '{PRINT_ARGS}'\", help = \"Print\" }}\nfail = {{ shell = \"exit 7\" }}\n"
        ),
    );
    assert_eq!(listed_command(test.root(), "args"), "poe args");
    let test = check_args(test, "args");
    Test::at(test.root()).args(["run", "fail"]).run().code(7);
}

#[test]
fn the_projects_own_poe_counts_as_installed_and_runs() {
    let test = Test::new()
        .write("poe_tasks.toml", "[tasks]\nargs = \"unused\"\n")
        .write(
            ".venv/bin/poe",
            format!("#!/bin/sh\nexec python3 -c '{PRINT_ARGS}' \"$@\"\n"),
        );
    let poe = test.root().join(".venv/bin/poe");
    let mut perms = std::fs::metadata(&poe).expect("poe").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&poe, perms).expect("chmod");
    let json = Test::at(test.root())
        .env("PATH", "/usr/bin:/bin")
        .args(["list", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(json["tasks"][0]["runner_available"], true, "{json}");
    assert_eq!(json["tasks"][0]["command"], ".venv/bin/poe args", "{json}");
    let out = Test::at(test.root())
        .env("PATH", "/usr/bin:/bin")
        .args(["run", "args", "--", "x y"])
        .run()
        .success();
    assert_eq!(argv_json(&out.stdout), ["args", "x y"], "{}", out.stderr);
}

#[test]
fn pdm_scripts_get_their_args_verbatim() {
    require!("pdm");
    let test = Test::new().write(
        "pyproject.toml",
        format!(
            "[project]\nname = \"t\"\nversion = \"0.1.0\"\nrequires-python = \">=3.8\"\ndependencies = []\n\n[tool.pdm]\ndistribution = false\n\n[tool.pdm.scripts]\nargs = {{ cmd = [\"python3\", \"-c\", \"{PRINT_ARGS}\"], help = \"Print\" }}\nfail = {{ shell = \"exit 7\" }}\n"
        ),
    );
    assert_eq!(listed_command(test.root(), "args"), "pdm run args");
    let test = check_args(test, "args");
    Test::at(test.root()).args(["run", "fail"]).run().code(7);
}

#[test]
fn hatch_scripts_get_their_args_verbatim() {
    require!("hatch");
    let data = tempfile::tempdir().expect("tmp");
    let test = Test::new().write(
        "pyproject.toml",
        format!(
            "[project]\nname = \"t\"\nversion = \"0.1.0\"\n\n[tool.hatch.envs.default]\nskip-install = true\n\n[tool.hatch.envs.default.scripts]\nargs = \"python3 -c '{PRINT_ARGS}' {{args}}\"\n\n[tool.hatch.envs.other]\nskip-install = true\n[tool.hatch.envs.other.scripts]\nfail = \"exit 7\"\n"
        ),
    );
    assert_eq!(listed_command(test.root(), "args"), "hatch run args");
    let out = Test::at(test.root())
        .env("HATCH_DATA_DIR", data.path())
        .args(["run", "args", "--"])
        .args(TRICKY)
        .run()
        .success();
    assert_eq!(argv_json(&out.stdout), TRICKY, "{}", out.stderr);
    Test::at(test.root())
        .env("HATCH_DATA_DIR", data.path())
        .args(["run", "other:fail"])
        .run()
        .code(7);
}

#[test]
fn uv_runs_console_scripts_offline() {
    require!("uv");
    let cache = tempfile::tempdir().expect("tmp");
    let test = console_script_project(
        Test::new(),
        "[project]\nname = \"demo\"\nversion = \"0.1.0\"\nrequires-python = \">=3.8\"\ndependencies = []\n\n[project.scripts]\nprint-args = \"demo:main\"\n\n[tool.uv]\npackage = true\n",
    );
    assert_eq!(
        listed_command(test.root(), "print-args"),
        "uv run print-args"
    );
    let out = Test::at(test.root())
        .env("UV_OFFLINE", "1")
        .env("UV_CACHE_DIR", cache.path())
        .args(["run", "print-args", "--"])
        .args(TRICKY)
        .run()
        .success();
    assert_eq!(argv_json(&out.stdout), TRICKY, "{}", out.stderr);
}

#[test]
fn poetry_runs_console_scripts() {
    require!("poetry");
    let cache = tempfile::tempdir().expect("tmp");
    let test = console_script_project(
        Test::new(),
        "[tool.poetry]\nname = \"demo\"\nversion = \"0.1.0\"\ndescription = \"\"\nauthors = []\n\n[tool.poetry.dependencies]\npython = \">=3.8\"\n\n[tool.poetry.scripts]\nprint-args = \"demo:main\"\n",
    );
    assert_eq!(
        listed_command(test.root(), "print-args"),
        "poetry run print-args"
    );
    // `poetry run` needs the project installed first, as a person would do.
    let status = Command::new("poetry")
        .arg("install")
        .current_dir(test.root())
        .env("POETRY_VIRTUALENVS_IN_PROJECT", "true")
        .env("POETRY_CACHE_DIR", cache.path())
        .stdout(Stdio::null())
        .status();
    assert!(status.is_ok_and(|s| s.success()), "poetry install failed");
    let out = Test::at(test.root())
        .env("POETRY_VIRTUALENVS_IN_PROJECT", "true")
        .env("POETRY_CACHE_DIR", cache.path())
        .args(["run", "print-args", "--"])
        .args(TRICKY)
        .run()
        .success();
    assert_eq!(argv_json(&out.stdout), TRICKY, "{}", out.stderr);
}

#[test]
fn tox_environments_get_their_args_after_a_separator() {
    require!("tox");
    // tox.toml: tox.ini's `{posargs}` is substituted into a command line that tox splits
    // again, which turns a newline inside an argument into a space; a TOML command is an
    // argv and keeps it.
    let test = Test::new().write(
        "tox.toml",
        format!(
            "env_list = [\"args\"]\n\n[env_run_base]\nskip_install = true\n\n[env.args]\ndescription = \"print the arguments\"\ncommands = [[\"python\", \"-c\", \"{PRINT_ARGS}\", {{ replace = \"posargs\", extend = true }}]]\n\n[env.fail]\ncommands = [[\"python\", \"-c\", \"raise SystemExit(7)\"]]\n"
        ),
    );
    assert_eq!(listed_command(test.root(), "args"), "tox -e args");
    let test = check_args(test, "args");
    let out = Test::at(test.root()).args(["run", "fail"]).run();
    assert_ne!(out.code, Some(0), "{}", out.stderr);
}

#[test]
fn nox_sessions_get_their_args_after_a_separator() {
    require!("nox");
    let test = Test::new().write(
        "noxfile.py",
        format!(
            "import nox\n\n\n@nox.session(python=False)\ndef args(session):\n    \"\"\"Print the arguments.\"\"\"\n    session.run(\"python3\", \"-c\", \"{PRINT_ARGS}\", *session.posargs)\n\n\n@nox.session(name=\"fail\", python=False)\ndef failing(session):\n    session.run(\"python3\", \"-c\", \"raise SystemExit(7)\")\n"
        ),
    );
    assert_eq!(listed_command(test.root(), "args"), "nox -s args");
    let test = check_args(test, "args");
    let out = Test::at(test.root()).args(["run", "fail"]).run();
    assert_ne!(out.code, Some(0), "{}", out.stderr);
}

#[test]
fn poe_lists_included_parallel_and_option_tasks_and_runs_them_with_their_flags() {
    let test = Test::new()
        .write(
            "pyproject.toml",
            "[tool.poe]\ninclude = \"tasks/a.toml\"\n\n[tool.poe.tasks.both]\nparallel = [\"a\", \"b\"]\n\n[tool.poe.tasks.greet]\ncmd = \"echo hello ${who}\"\nargs = [{ name = \"who\", options = [\"-w\", \"--person\"], default = \"world\" }, { name = \"loud\", options = [\"--shout\"], type = \"boolean\", help = \"Louder\" }]\n",
        )
        .write(
            "tasks/a.toml",
            "include = \"b.toml\"\n[tasks]\na = \"echo from-a\"\n",
        )
        .write(
            "tasks/b.toml",
            "[tool.poe.tasks]\nb = \"echo from-b\"\n[tool.poe.groups.docker.tasks.logs]\ncmd = \"echo logs\"\n",
        );
    let json = Test::at(test.root())
        .args(["list", "--json"])
        .run()
        .success()
        .json();
    let tasks = json["tasks"].as_array().expect("tasks");
    let find = |name: &str| {
        tasks
            .iter()
            .find(|t| t["unique_name"] == name)
            .unwrap_or_else(|| panic!("no {name} in {json}"))
    };
    assert_eq!(find("both")["deps"], serde_json::json!(["a", "b"]));
    assert_eq!(find("logs")["group"], "docker");
    let greet = &find("greet")["params"];
    assert_eq!(greet[0]["flags"], serde_json::json!(["-w", "--person"]));
    assert_eq!(greet[1]["kind"], "boolean");
    assert_eq!(greet[1]["help"], "Louder");
    assert!(
        json["diagnostics"].as_array().is_none_or(Vec::is_empty),
        "{json}"
    );
    require!("poe");
    let out = Test::at(test.root())
        .args(["run", "greet", "--", "--person", "bob", "--shout"])
        .run()
        .success();
    assert!(out.stdout.contains("hello bob"), "{}", out.stderr);
    let out = Test::at(test.root()).args(["run", "both"]).run().success();
    assert!(
        out.stdout.contains("from-a") && out.stdout.contains("from-b"),
        "{}",
        out.stdout
    );
    let out = Test::at(test.root()).args(["run", "logs"]).run().success();
    assert!(out.stdout.contains("logs"), "{}", out.stderr);
}

#[test]
fn pdm_projects_list_hooks_hide_private_scripts_and_run_console_scripts_with_pdm() {
    let test = Test::new()
        .write(
            "pyproject.toml",
            "[project]\nname = \"t\"\nversion = \"0.1.0\"\n[project.scripts]\ndemo = \"demo.cli:main\"\n\n[tool.pdm.scripts]\n_private = \"echo private\"\npre_doc = \"echo before-doc\"\ndoc-build = { composite = [\"pre_doc\", \"echo built\", \"_private\"] }\n",
        )
        .write("pdm.lock", "");
    let json = Test::at(test.root())
        .args(["list", "--json"])
        .run()
        .success()
        .json();
    let tasks = json["tasks"].as_array().expect("tasks");
    let mut names: Vec<&str> = tasks
        .iter()
        .filter_map(|t| t["unique_name"].as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["demo", "doc-build", "pre_doc"], "{json}");
    let find = |name: &str| tasks.iter().find(|t| t["unique_name"] == name);
    assert_eq!(
        find("doc-build").map(|t| &t["deps"]),
        Some(&serde_json::json!(["pre_doc", "_private"]))
    );
    assert_eq!(
        find("demo").map(|t| &t["command"]),
        Some(&serde_json::json!("pdm run demo"))
    );
}
