//! invoke for real (PyPI): agg lists every fixture's tasks as `invoke --list` does, and runs
//! a task with its options.

use std::collections::BTreeSet;
use std::path::Path;

use crate::common::listing::{assert_names_match_the_runners, runner_listing};
use crate::test::{Test, assert_runs_as};
use indoc::indoc;

/// The task names `invoke --list` prints (its flat format; aliases in parentheses left
/// out). Its JSON format names a sub-collection by the collection's own name, not the name
/// it was added under (`rel.tag` is listed under `release-tools`), so the text is read.
fn invoke_names(dir: &Path) -> Option<BTreeSet<String>> {
    let out = runner_listing(dir, "invoke", &["--list"]);
    if !out.status.success() {
        return None;
    }
    Some(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.strip_prefix("  "))
            .filter_map(|l| l.split_whitespace().next())
            .map(str::to_owned)
            .collect(),
    )
}

#[test]
fn invoke_tasks_match_invoke_list_on_every_fixture() {
    require!("invoke");
    assert_names_match_the_runners("invoke", 2, invoke_names);
}

#[test]
fn an_invoke_task_runs_with_its_options() {
    let test = Test::new().write(
        "tasks.py",
        indoc! {"
            from invoke import task


            @task
            def greet(c, name=\"world\", loud=False):
                \"\"\"Greet someone.\"\"\"
                text = f\"hello {name}\"
                print(text.upper() if loud else text)


            @task
            def fail(c):
                raise SystemExit(7)
        "},
    );
    let json = Test::at(test.root()).list_json();
    assert_runs_as(&json, "greet", "invoke greet");
    require!("invoke");
    Test::at(test.root())
        .args(["run", "greet", "--", "--name", "Ada Lovelace", "--loud"])
        .run()
        .success()
        .stdout_has("HELLO ADA LOVELACE");
    Test::at(test.root()).args(["run", "fail"]).run().code(7);
}
