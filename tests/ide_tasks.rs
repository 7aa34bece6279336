//! Zed tasks and `JetBrains` run configurations for real: agg runs them itself through `sh`,
//! in their working directory with their environment, the caller's arguments arriving
//! verbatim; what only the editor can run is listed and refused with the reason.

use serde_json::json;

use crate::common::verbatim::assert_tricky_args_arrive;
use crate::test::{Test, task};
use indoc::formatdoc;

/// Prints its arguments as a JSON array.
const PRINT_ARGS: &str = "import json, sys; print(json.dumps(sys.argv[1:]))";

fn zed_project() -> Test {
    let tasks = json!([
        { "label": "where", "command": "pwd; echo \"$GREETING from $(basename \"$ZED_WORKTREE_ROOT\")\"",
          "cwd": "$ZED_WORKTREE_ROOT/src", "env": { "GREETING": "hi there" } },
        { "label": "args", "command": "python3", "args": ["-c", PRINT_ARGS, "two words", "${ZED_STEM:fallback}"] },
        { "label": "file", "command": "cat", "args": ["$ZED_FILE"] },
        { "label": "fail", "command": "exit 7" }
    ]);
    Test::new()
        .write(".zed/tasks.json", format!("// Zed reads comments\n{tasks}"))
        .write("src/keep", "")
}

#[test]
fn zed_tasks_run_in_their_cwd_with_their_env_and_arguments() {
    require!("python3");
    let test = zed_project();
    let root = test.root().to_path_buf();
    let out = Test::at(&root).args(["run", "where"]).run().success();
    let src = std::fs::canonicalize(root.join("src")).expect("src");
    let name = root
        .file_name()
        .expect("name")
        .to_string_lossy()
        .into_owned();
    assert_eq!(
        out.stdout,
        format!("{}\nhi there from {name}\n", src.display()),
        "{}",
        out.stderr
    );
    assert_tricky_args_arrive(Test::at(&root), "args", &["two words", "fallback"]);
    Test::at(&root).args(["run", "fail"]).run().code(7);
    let out = Test::at(&root).args(["run", "file"]).run().code(2);
    out.stderr_has("$ZED_FILE");
    let json = Test::at(&root).list_json();
    assert_eq!(task(&json, "file")["command"], "");
    assert!(
        task(&json, "file")["not_runnable"]
            .as_str()
            .is_some_and(|r| r.contains("Zed"))
    );
}

fn jetbrains_project() -> Test {
    let config = |name: &str, body: &str| {
        formatdoc!(
            "
                <component name=\"ProjectRunConfigurationManager\">
                  <configuration default=\"false\" name=\"{name}\" {body}
                  </configuration>
                </component>
            "
        )
    };
    Test::new()
        .write(
            ".run/where.run.xml",
            config(
                "where",
                r#"type="ShConfigurationType">
    <option name="SCRIPT_TEXT" value="pwd; echo &quot;$STAGE&quot;" />
    <option name="SCRIPT_WORKING_DIRECTORY" value="$PROJECT_DIR$/src" />
    <option name="EXECUTE_SCRIPT_FILE" value="false" />
    <envs><env name="STAGE" value="dev stage" /></envs>"#,
            ),
        )
        .write(
            ".run/args.run.xml",
            config(
                "args",
                r#"type="ShConfigurationType">
    <option name="SCRIPT_PATH" value="$PROJECT_DIR$/print_args.sh" />
    <option name="SCRIPT_OPTIONS" value="first" />
    <option name="INTERPRETER_PATH" value="/bin/sh" />
    <option name="EXECUTE_SCRIPT_FILE" value="true" />"#,
            ),
        )
        .write(
            ".idea/runConfigurations/py.xml",
            config(
                "py",
                r#"type="PythonConfigurationType" factoryName="Python">
    <option name="WORKING_DIRECTORY" value="$PROJECT_DIR$" />
    <option name="SCRIPT_NAME" value="$PROJECT_DIR$/args.py" />
    <option name="PARAMETERS" value="--from-ide" />"#,
            ),
        )
        .write(
            ".idea/runConfigurations/App.xml",
            config("App", r#"type="Application" factoryName="Application">"#),
        )
        .write(
            "print_args.sh",
            "python3 -c 'import json, sys; print(json.dumps(sys.argv[1:]))' \"$@\"\n",
        )
        .write("args.py", format!("{PRINT_ARGS}\n"))
        .write("src/keep", "")
}

#[test]
fn jetbrains_configurations_run_as_the_ide_runs_them() {
    require!("python3");
    let test = jetbrains_project();
    let root = test.root().to_path_buf();
    let out = Test::at(&root).args(["run", "where"]).run().success();
    let src = std::fs::canonicalize(root.join("src")).expect("src");
    assert_eq!(
        out.stdout,
        format!("{}\ndev stage\n", src.display()),
        "{}",
        out.stderr
    );
    assert_tricky_args_arrive(Test::at(&root), "args", &["first"]);
    assert_tricky_args_arrive(Test::at(&root), "py", &["--from-ide"]);
    let out = Test::at(&root).args(["run", "App"]).run().code(2);
    out.stderr_has("IDE");
    let json = Test::at(&root).list_json();
    assert_eq!(
        task(&json, "py")["description"],
        "Python: python3 ./args.py --from-ide"
    );
}
