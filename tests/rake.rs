//! Rake for real (Ruby and rake from Debian): agg lists every fixture's tasks as `rake -AT`
//! does, and runs a task with its arguments in brackets.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use crate::common::listing::assert_names_match_the_runners;
use crate::test::{Test, assert_runs_as};
use indoc::indoc;

/// The task names `rake -AT` prints (without their `[args]`), in a clean environment (no
/// `CI`, so a Rakefile's `if ENV["CI"]` reads as it does on a developer's machine).
fn rake_names(dir: &Path, args: &[&str]) -> Option<BTreeSet<String>> {
    let out = Command::new("rake")
        .args(args)
        .arg("-AT")
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", std::env::var_os("HOME").unwrap_or_default())
        .output()
        .expect("run rake");
    if !out.status.success() {
        return None;
    }
    Some(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| l.strip_prefix("rake "))
            .filter_map(|l| l.split_whitespace().next())
            .map(|n| n.split('[').next().unwrap_or(n).to_owned())
            .collect(),
    )
}

#[test]
fn rake_tasks_match_rake_all_tasks_on_every_fixture() {
    require!("rake");
    assert_names_match_the_runners("rake", 2, |dir| {
        if ["rakefile", "Rakefile", "rakefile.rb", "Rakefile.rb"]
            .iter()
            .any(|f| dir.join(f).is_file())
        {
            let mut names = rake_names(dir, &[])?;
            // agg does not evaluate Ruby's conditions: a task under `if ENV["CI"]` is listed
            // (see docs/runners.md).
            if dir.join("Rakefile").is_file()
                && std::fs::read_to_string(dir.join("Rakefile"))
                    .is_ok_and(|t| t.contains("task :ci_only"))
            {
                names.insert("ci_only".to_owned());
            }
            return Some(names);
        }
        // A directory of `.rake` files no Rakefile loads: each runs with `rake -f`.
        let mut names = BTreeSet::new();
        for entry in std::fs::read_dir(dir).ok()?.filter_map(Result::ok) {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "rake") {
                let file = path.file_name()?.to_str()?.to_owned();
                names.extend(rake_names(dir, &["-f", &file])?);
            }
        }
        Some(names)
    });
}

#[test]
fn a_rake_task_runs_with_its_arguments_in_brackets() {
    let test = Test::new().write(
        "Rakefile",
        indoc! {"
            desc \"Greet someone\"
            task :greet, [:name, :greeting] do |_t, args|
              args.with_defaults(greeting: \"hello\")
              puts \"#{args.greeting} #{args.name}\"
            end

            task :fail do
              exit 7
            end
        "},
    );
    let json = Test::at(test.root()).list_json();
    assert_runs_as(&json, "greet", "rake greet");
    require!("rake");
    Test::at(test.root())
        .args(["run", "greet", "--", "greet[Ada Lovelace,hi]"])
        .run()
        .success()
        .stdout_has("hi Ada Lovelace");
    Test::at(test.root())
        .args(["run", "greet"])
        .run()
        .success()
        .stdout_has("hello");
    Test::at(test.root()).args(["run", "fail"]).run().code(7);
}
