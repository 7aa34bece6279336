//! Where agg works from: `agg list` below the root shows the current directory's tasks
//! first and the rest of the repository under one heading (`--here`: only the first part),
//! prints the warnings of the files there and counts the others (`--diagnostics` prints
//! them all); `-C DIR` runs any command as if started in DIR.

use crate::fits::wide_repo;
use crate::test::{Test, names};

/// The rows of the human table (indented lines), names only.
fn row_names(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect()
}

#[test]
fn below_the_root_the_current_directorys_tasks_come_first_then_the_rest_under_one_heading() {
    let out = wide_repo()
        .current_dir("apps/web")
        .args(["list"])
        .run()
        .success();
    let rows = row_names(&out.stdout);
    assert_eq!(
        rows[..2],
        ["apps/web/assets", "apps/web/dev"],
        "{}",
        out.stdout
    );
    assert!(rows[2..].contains(&"build".to_owned()), "{}", out.stdout);
    let headings: Vec<&str> = out
        .stdout
        .lines()
        .filter(|l| l.contains("the rest of the repository"))
        .collect();
    assert_eq!(headings.len(), 1, "{}", out.stdout);
    let root = std::fs::canonicalize(out_root(&out.stdout)).expect("the heading names the root");
    assert!(root.join("justfile").is_file(), "{}", out.stdout);
    // Nothing of the rest comes before the current directory's first block.
    assert!(out.stdout.starts_with("apps/web ("), "{}", out.stdout);
    out.stdout_lacks("repository root:");
}

/// The root the rest-of-the-repository heading names: `── the rest of the repository (ROOT) ──`.
fn out_root(stdout: &str) -> std::path::PathBuf {
    let line = stdout
        .lines()
        .find(|l| l.contains("the rest of the repository ("))
        .expect("heading");
    let start = line.find('(').expect("(") + 1;
    let end = line.rfind(')').expect(")");
    std::path::PathBuf::from(&line[start..end])
}

#[test]
fn here_lists_only_the_current_directory_and_below_in_json_too() {
    let out = wide_repo()
        .current_dir("apps/web")
        .args(["list", "--here"])
        .run()
        .success();
    assert_eq!(row_names(&out.stdout), ["apps/web/assets", "apps/web/dev"]);
    out.stdout_lacks("the rest of the repository");
    out.stderr_has("more tasks elsewhere in the repository (without --here)");
    let json = wide_repo()
        .current_dir("apps/web")
        .args(["list", "--here", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(names(&json), ["apps/web/assets", "apps/web/dev"]);
    // Without --here, JSON keeps the whole table in table order.
    let all = wide_repo()
        .current_dir("apps/web")
        .args(["list", "--json"])
        .run()
        .success()
        .json();
    let all = names(&all);
    assert!(all.len() > 2 && !all[0].starts_with("apps/web/"), "{all:?}");
}

#[test]
fn warnings_about_files_elsewhere_are_one_line_and_diagnostics_prints_them_all() {
    let out = wide_repo()
        .current_dir("apps/web")
        .args(["list"])
        .run()
        .success();
    // The broken file under the current directory is named in full…
    out.stderr_has("warning: apps/web/broken/package.json:");
    // …the one elsewhere is counted.
    out.stderr_lacks("vendor-tools/package.json");
    out.stderr_has("1 warning in 1 file elsewhere: agg list --diagnostics");
    let all = wide_repo()
        .current_dir("apps/web")
        .args(["list", "--diagnostics"])
        .run()
        .success();
    let lines: Vec<&str> = all.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", all.stdout);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("warning: vendor-tools/package.json:"))
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("warning: apps/web/broken/package.json:"))
    );
    assert!(
        !all.stdout.contains("apps/web/dev"),
        "no tasks: {}",
        all.stdout
    );
    // At the root every warning is printed, and nothing is summed up.
    let root = wide_repo().args(["list"]).run().success();
    root.stderr_has("warning: vendor-tools/package.json");
    root.stderr_lacks("elsewhere");
    // --dir moves the focus.
    let dir = wide_repo().args(["list", "--dir", "apps"]).run().success();
    dir.stderr_has("apps/web/broken/package.json");
    dir.stderr_has("1 warning in 1 file elsewhere");
}

#[test]
fn from_a_directory_without_tasks_the_list_says_so_and_shows_the_rest() {
    let out = wide_repo()
        .current_dir("docs/guides")
        .args(["list"])
        .run()
        .success();
    let first = out.stdout.lines().next().unwrap_or_default();
    assert_eq!(first, "no tasks in docs/guides or below", "{}", out.stdout);
    out.stdout_has("the rest of the repository");
    assert!(row_names(&out.stdout).contains(&"apps/web/dev".to_owned()));
    let here = wide_repo()
        .current_dir("docs/guides")
        .args(["list", "--here"])
        .run()
        .success();
    assert_eq!(here.stdout, "no tasks in docs/guides or below\n");
    here.stderr_has("10 more tasks elsewhere in the repository (without --here)");
}

#[test]
fn dash_c_runs_any_command_as_if_started_in_the_directory() {
    let repo = wide_repo();
    let from_there = Test::at(repo.root())
        .current_dir("apps/web")
        .args(["list", "--here", "--json"])
        .run()
        .success()
        .json();
    // Before the subcommand or after it, list and describe alike.
    for args in [
        ["-C", "apps/web", "list", "--here", "--json"],
        ["list", "--here", "--json", "-C", "apps/web"],
    ] {
        let json = Test::at(repo.root()).args(args).run().success().json();
        assert_eq!(names(&json), names(&from_there), "{args:?}");
    }
    // A name is tried in DIR first, as from there.
    let described = Test::at(repo.root())
        .args(["-C", "apps/web", "describe", "dev", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(described["unique_name"], "apps/web/dev", "{described}");
    let described = Test::at(repo.root())
        .args(["describe", "assets", "-C", "apps/web"])
        .run()
        .success();
    described.stdout_has("apps/web/assets");
    // An explicit root still wins over the repository around DIR.
    let rooted = Test::at(repo.root())
        .args(["-C", "apps", "list", "web", "--json"])
        .run()
        .success()
        .json();
    assert_eq!(names(&rooted), ["assets", "dev"]);
    // A directory that is not there is an error naming it.
    let missing = Test::at(repo.root())
        .args(["-C", "no/such/dir", "list"])
        .run()
        .code(2);
    assert!(
        missing
            .stderr
            .contains("cannot run in `no/such/dir` (-C): no such file"),
        "{}",
        missing.stderr
    );
    drop(repo);
}

#[test]
fn help_texts_say_what_each_command_does() {
    let help = Test::new().args(["--help"]).run().success().stdout;
    assert!(help.contains("-C, --directory <DIR>"), "{help}");
    assert!(
        help.contains(
            "List the tasks of the repository: those of the current directory and below first"
        ),
        "{help}"
    );
    assert!(!help.contains("default: the current directory"), "{help}");
    let list = Test::new().args(["list", "--help"]).run().success().stdout;
    for flag in [
        "--here",
        "--wide",
        "--diagnostics",
        "-C, --directory <DIR>",
        "[ROOT]",
    ] {
        assert!(
            list.contains(flag),
            "{flag} missing from agg list --help:\n{list}"
        );
    }
    for command in [
        "run",
        "describe",
        "mcp",
        "ps",
        "logs",
        "stop",
        "allow",
        "deny",
        "allowlist",
    ] {
        let help = Test::new().args([command, "--help"]).run().success().stdout;
        assert!(
            help.contains("-C, --directory <DIR>"),
            "agg {command} --help:\n{help}"
        );
    }
}
