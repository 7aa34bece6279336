//! The Python runners for real: poe, pdm, hatch, uv, poetry, tox and nox each run a task
//! that prints its arguments, which must arrive verbatim. Every project here builds its
//! environment without downloading a package (no dependencies; console scripts come from
//! a tiny in-tree build backend, `tests/python_project/backend.py`).

use std::process::{Command, Stdio};

use serde_json::json;

use crate::common::verbatim::assert_tricky_args_arrive;
use crate::run::argv_json;
use crate::test::{Test, assert_no_diagnostics, assert_runs_as, names, task};
use indoc::{formatdoc, indoc};

/// Prints its arguments as a JSON array.
const PRINT_ARGS: &str = "import json, sys; print(json.dumps(sys.argv[1:]))";

/// A project whose console script `print-args` is built by the in-tree backend.
fn console_script_project(extra: &str) -> Test {
    let backend = include_str!("python_project/backend.py");
    Test::new()
        .write("backend.py", backend)
        .write(
            "demo/__init__.py",
            indoc! {"
                import json, sys


                def main():
                    print(json.dumps(sys.argv[1:]))
            "},
        )
        .write(
            "pyproject.toml",
            formatdoc!(
                "
                    {extra}
                    [build-system]
                    requires = []
                    build-backend = \"backend\"
                    backend-path = [\".\"]
                "
            ),
        )
}

/// Checks that agg lists `task` as `command` with its runner installed, and that the tricky
/// arguments reach it verbatim; `agg` makes a builder that runs agg on the project.
#[track_caller]
fn listed_and_verbatim(agg: impl Fn() -> Test, task: &str, command: &str) {
    assert_runs_as(&agg().list_json(), task, command);
    assert_tricky_args_arrive(agg(), task, &[]);
}

/// A project of one file, `file`, whose task `args` prints its arguments (`PRINT_ARGS` in
/// `text` stands for the program that does) and whose task `fail` fails: agg lists `args` as
/// `command`, the tricky arguments reach it verbatim, and the failure is the run's.
#[track_caller]
fn prints_args_and_fails(file: &str, text: &str, command: &str, fails: Fails) {
    let test = Test::new().write(file, text.replace("PRINT_ARGS", PRINT_ARGS));
    listed_and_verbatim(|| Test::at(test.root()), "args", command);
    let out = Test::at(test.root()).args(["run", "fail"]).run();
    match fails {
        Fails::WithCode(code) => {
            out.code(code);
        }
        Fails::NonZero => {
            out.fails();
        }
    }
}

/// How the task `fail` of a project ends.
#[derive(Clone, Copy)]
enum Fails {
    /// With this exit code, which the runner passes on.
    WithCode(i32),
    /// With some exit code other than 0 (the runner reports the failure its own way).
    NonZero,
}

#[test]
fn poe_tasks_get_their_args_verbatim() {
    require!("poe");
    let text = indoc! {"
        [tool.poe.tasks]
        args = { cmd = \"python3 -c 'PRINT_ARGS'\", help = \"Print\" }
        fail = { shell = \"exit 7\" }
    "};
    prints_args_and_fails("pyproject.toml", text, "poe args", Fails::WithCode(7));
}

#[test]
fn the_projects_own_poe_counts_as_installed_and_runs() {
    let test = Test::new()
        .write("poe_tasks.toml", "[tasks]\nargs = \"unused\"\n")
        .executable(
            ".venv/bin/poe",
            format!("#!/bin/sh\nexec python3 -c '{PRINT_ARGS}' \"$@\"\n"),
        );
    let agg = || Test::at(test.root()).env("PATH", "/usr/bin:/bin");
    let json = agg().list_json();
    assert_eq!(json["tasks"][0]["runner_available"], true, "{json}");
    assert_eq!(json["tasks"][0]["command"], ".venv/bin/poe args", "{json}");
    let out = agg().args(["run", "args", "--", "x y"]).run().success();
    assert_eq!(argv_json(&out.stdout), ["args", "x y"], "{}", out.stderr);
}

#[test]
fn pdm_scripts_get_their_args_verbatim() {
    require!("pdm");
    let text = indoc! {"
        [project]
        name = \"t\"
        version = \"0.1.0\"
        requires-python = \">=3.8\"
        dependencies = []

        [tool.pdm]
        distribution = false

        [tool.pdm.scripts]
        args = { cmd = [\"python3\", \"-c\", \"PRINT_ARGS\"], help = \"Print\" }
        fail = { shell = \"exit 7\" }
    "};
    prints_args_and_fails("pyproject.toml", text, "pdm run args", Fails::WithCode(7));
}

#[test]
fn hatch_scripts_get_their_args_verbatim() {
    require!("hatch");
    let data = tempfile::tempdir().expect("tmp");
    let test = Test::new().write(
        "pyproject.toml",
        formatdoc!(
            "
                [project]
                name = \"t\"
                version = \"0.1.0\"

                [tool.hatch.envs.default]
                skip-install = true

                [tool.hatch.envs.default.scripts]
                args = \"python3 -c '{PRINT_ARGS}' {{args}}\"

                [tool.hatch.envs.other]
                skip-install = true
                [tool.hatch.envs.other.scripts]
                fail = \"exit 7\"
            "
        ),
    );
    let agg = || Test::at(test.root()).env("HATCH_DATA_DIR", data.path());
    listed_and_verbatim(agg, "args", "hatch run args");
    agg().args(["run", "other:fail"]).run().code(7);
}

#[test]
fn uv_runs_console_scripts_offline() {
    require!("uv");
    let cache = tempfile::tempdir().expect("tmp");
    let test = console_script_project(indoc! {"
            [project]
            name = \"demo\"
            version = \"0.1.0\"
            requires-python = \">=3.8\"
            dependencies = []

            [project.scripts]
            print-args = \"demo:main\"

            [tool.uv]
            package = true
        "});
    let agg = || {
        Test::at(test.root())
            .env("UV_OFFLINE", "1")
            .env("UV_CACHE_DIR", cache.path())
    };
    listed_and_verbatim(agg, "print-args", "uv run print-args");
}

#[test]
fn poetry_runs_console_scripts() {
    require!("poetry");
    let cache = tempfile::tempdir().expect("tmp");
    let test = console_script_project(indoc! {"
            [tool.poetry]
            name = \"demo\"
            version = \"0.1.0\"
            description = \"\"
            authors = []

            [tool.poetry.dependencies]
            python = \">=3.8\"

            [tool.poetry.scripts]
            print-args = \"demo:main\"
        "});
    assert_runs_as(
        &Test::at(test.root()).list_json(),
        "print-args",
        "poetry run print-args",
    );
    let cache = cache.path().to_string_lossy().into_owned();
    let env = [
        ("POETRY_VIRTUALENVS_IN_PROJECT", "true"),
        ("POETRY_CACHE_DIR", cache.as_str()),
    ];
    // `poetry run` needs the project installed first, as a person would do.
    let status = Command::new("poetry")
        .arg("install")
        .current_dir(test.root())
        .envs(env)
        .stdout(Stdio::null())
        .status();
    assert!(status.is_ok_and(|s| s.success()), "poetry install failed");
    let agg = || {
        env.iter()
            .fold(Test::at(test.root()), |t, (k, v)| t.env(k, v))
    };
    assert_tricky_args_arrive(agg(), "print-args", &[]);
}

#[test]
fn tox_environments_get_their_args_after_a_separator() {
    require!("tox");
    // tox.toml: tox.ini's `{posargs}` is substituted into a command line that tox splits
    // again, which turns a newline inside an argument into a space; a TOML command is an
    // argv and keeps it.
    let text = indoc! {"
        env_list = [\"args\"]

        [env_run_base]
        skip_install = true

        [env.args]
        description = \"print the arguments\"
        commands = [[\"python\", \"-c\", \"PRINT_ARGS\", { replace = \"posargs\", extend = true }]]

        [env.fail]
        commands = [[\"python\", \"-c\", \"raise SystemExit(7)\"]]
    "};
    prints_args_and_fails("tox.toml", text, "tox -e args", Fails::NonZero);
}

#[test]
fn nox_sessions_get_their_args_after_a_separator() {
    require!("nox");
    let text = indoc! {"
        import nox


        @nox.session(python=False)
        def args(session):
            \"\"\"Print the arguments.\"\"\"
            session.run(\"python3\", \"-c\", \"PRINT_ARGS\", *session.posargs)


        @nox.session(name=\"fail\", python=False)
        def failing(session):
            session.run(\"python3\", \"-c\", \"raise SystemExit(7)\")
    "};
    prints_args_and_fails("noxfile.py", text, "nox -s args", Fails::NonZero);
}

#[test]
fn poe_lists_included_parallel_and_option_tasks_and_runs_them_with_their_flags() {
    let test = Test::new()
        .write(
            "pyproject.toml",
            indoc! {"
                [tool.poe]
                include = \"tasks/a.toml\"

                [tool.poe.tasks.both]
                parallel = [\"a\", \"b\"]

                [tool.poe.tasks.greet]
                cmd = \"echo hello ${who}\"
                args = [{ name = \"who\", options = [\"-w\", \"--person\"], default = \"world\" }, { name = \"loud\", options = [\"--shout\"], type = \"boolean\", help = \"Louder\" }]
            "},
        )
        .write(
            "tasks/a.toml",
            indoc! {"
                include = \"b.toml\"
                [tasks]
                a = \"echo from-a\"
            "},
        )
        .write(
            "tasks/b.toml",
            indoc! {"
                [tool.poe.tasks]
                b = \"echo from-b\"
                [tool.poe.groups.docker.tasks.logs]
                cmd = \"echo logs\"
            "},
        );
    let json = Test::at(test.root()).list_json();
    let find = |name: &str| task(&json, name);
    assert_eq!(find("both")["deps"], json!(["a", "b"]));
    assert_eq!(find("logs")["group"], "docker");
    let greet = &find("greet")["params"];
    assert_eq!(greet[0]["flags"], json!(["-w", "--person"]));
    assert_eq!(greet[1]["kind"], "boolean");
    assert_eq!(greet[1]["help"], "Louder");
    assert_no_diagnostics(&json);
    require!("poe");
    let agg = || Test::at(test.root());
    agg()
        .args(["run", "greet", "--", "--person", "bob", "--shout"])
        .run()
        .success()
        .stdout_has("hello bob");
    agg()
        .args(["run", "both"])
        .run()
        .success()
        .stdout_has("from-a")
        .stdout_has("from-b");
    agg()
        .args(["run", "logs"])
        .run()
        .success()
        .stdout_has("logs");
}

#[test]
fn pdm_projects_list_hooks_hide_private_scripts_and_run_console_scripts_with_pdm() {
    let test = Test::new()
        .write(
            "pyproject.toml",
            indoc! {"
                [project]
                name = \"t\"
                version = \"0.1.0\"
                [project.scripts]
                demo = \"demo.cli:main\"

                [tool.pdm.scripts]
                _private = \"echo private\"
                pre_doc = \"echo before-doc\"
                doc-build = { composite = [\"pre_doc\", \"echo built\", \"_private\"] }
            "},
        )
        .write("pdm.lock", "");
    let json = Test::at(test.root()).list_json();
    let mut names = names(&json);
    names.sort_unstable();
    assert_eq!(names, ["demo", "doc-build", "pre_doc"], "{json}");
    assert_eq!(
        task(&json, "doc-build")["deps"],
        json!(["pre_doc", "_private"])
    );
    assert_eq!(task(&json, "demo")["command"], "pdm run demo");
}
