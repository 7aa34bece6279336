//! Unit tests of the Rake adapter.
use super::*;
use crate::files::MemFiles;
use crate::testing::{messages, names, params, parse_with, task};
use indoc::indoc;

fn fixture() -> MemFiles {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/rake-edge-cases/");
    let read = |p: &str| std::fs::read_to_string(format!("{dir}{p}")).expect("fixture file");
    MemFiles::new()
        .with("Rakefile", &read("Rakefile"))
        .with("rakelib/docs.rake", &read("rakelib/docs.rake"))
        .with("tasks/release.rake", &read("tasks/release.rake"))
        .with("lib/tasks/orphan.rake", &read("lib/tasks/orphan.rake"))
}

#[test]
fn the_documented_forms_are_read() {
    let parsed = parse_with(parse, &fixture(), "Rakefile");
    let mut listed = names(&parsed);
    listed.sort_unstable();
    assert_eq!(
        listed,
        [
            "all",
            "assets:clobber",
            "assets:compile",
            "build",
            "ci_only",
            "clean",
            "clobber",
            "db:migrate",
            "db:seed:sample",
            "default",
            "deploy",
            "docs:generate",
            "environment",
            "integration",
            "lint",
            "pkg",
            "pkg/app.tar.gz",
            "release",
            "test",
            "version",
        ]
    );
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    assert_eq!(parsed.consumed, ["rakelib/docs.rake", "tasks/release.rake"]);
    let deploy = task(&parsed, "deploy");
    assert_eq!(deploy.argv, ["rake", "deploy"]);
    assert_eq!(deploy.deps, ["build"]);
    assert_eq!(
        params(deploy),
        [
            ("env", Some("staging"), false),
            ("tag", Some("latest"), false)
        ]
    );
    assert!(
        deploy
            .script
            .as_deref()
            .is_some_and(|s| s.contains("deploying") && s.ends_with("end"))
    );
    assert_eq!(task(&parsed, "default").deps, ["lint", "test"]);
    assert_eq!(task(&parsed, "db:migrate").deps, ["environment"]);
    assert_eq!(
        task(&parsed, "lint").description.as_deref(),
        Some("Lint the Ruby files / Lint with every cop")
    );
    assert_eq!(
        task(&parsed, "version").description.as_deref(),
        Some("Print the version")
    );
    assert_eq!(
        task(&parsed, "integration").description.as_deref(),
        Some("Run tests for integration")
    );
    assert_eq!(
        task(&parsed, "test").plugin.as_deref(),
        Some("Rake::TestTask")
    );
    assert_eq!(task(&parsed, "release").file_path, "tasks/release.rake");
    assert_eq!(task(&parsed, "all").deps, ["build", "assets:compile"]);
}

#[test]
fn a_rake_file_no_rakefile_loads_runs_with_rake_f() {
    let parsed = parse_with(parse, &fixture(), "lib/tasks/orphan.rake");
    assert_eq!(names(&parsed), ["hello"]);
    let hello = task(&parsed, "hello");
    assert_eq!(hello.argv, ["rake", "-f", "orphan.rake", "hello"]);
    assert_eq!(hello.dir, "lib/tasks");
}

#[test]
fn rails_load_tasks_reads_lib_tasks() {
    let files = MemFiles::new()
        .with(
            "Rakefile",
            indoc! {"
                require_relative \"config/application\"

                Rails.application.load_tasks
            "},
        )
        .with(
            "lib/tasks/cache.rake",
            indoc! {"
                namespace :cache do
                  desc \"Clear the cache\"
                  task clear: :environment do
                    Rails.cache.clear
                  end
                end
            "},
        )
        .with("lib/tasks/nested/report.rake", "task :report\n");
    let parsed = parse_with(parse, &files, "Rakefile");
    assert_eq!(names(&parsed), ["cache:clear", "report"]);
    assert_eq!(
        parsed.consumed,
        ["lib/tasks/cache.rake", "lib/tasks/nested/report.rake"]
    );
}

#[test]
fn only_the_first_rakefile_name_is_read() {
    let files = MemFiles::new()
        .with("rakefile", "task :a\n")
        .with("Rakefile", "task :b\n");
    assert_eq!(names(&parse_with(parse, &files, "rakefile")), ["a"]);
    let second = parse_with(parse, &files, "Rakefile");
    assert!(second.tasks.is_empty());
    assert_eq!(
        messages(&second),
        [(
            "Rakefile",
            None,
            "rake reads `rakefile` in this directory, not this file"
        )]
    );
}

#[test]
fn computed_names_strings_and_comments_do_not_make_tasks() {
    let files = MemFiles::new().with(
        "Rakefile",
        indoc! {"
            %w[a b].each do |n|
              task n do
                puts n
              end
            end
            # task :commented
            puts \"task :in_a_string do\"
            task \"ok\" do
              x = <<~SH
                end
              SH
            end
            task :after
        "},
    );
    let parsed = parse_with(parse, &files, "Rakefile");
    assert_eq!(names(&parsed), ["ok", "after"]);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
}

#[test]
fn broken_block_structure_is_reported_and_nothing_panics() {
    let files = MemFiles::new().with(
        "Rakefile",
        indoc! {"
            namespace :a do
              task :b do
        "},
    );
    let parsed = parse_with(parse, &files, "Rakefile");
    assert_eq!(names(&parsed), ["a:b"]);
    assert_eq!(parsed.diagnostics.len(), 1);
    for text in [
        indoc! {"
            end
            end
            task :x
        "},
        "task",
        "task :",
        "desc",
        "task [",
        "namespace do",
        "task :a, [",
        "%w[",
        "\"\\",
        ":\"",
    ] {
        let files = MemFiles::new().with("Rakefile", text);
        let _ = parse_with(parse, &files, "Rakefile");
    }
}

#[test]
fn candidates() {
    assert_eq!(candidate("Rakefile"), Some(1));
    assert_eq!(candidate("a/rakefile"), Some(0));
    assert_eq!(candidate("lib/tasks/db.rake"), Some(8));
    assert_eq!(candidate(".rake"), None);
    assert_eq!(candidate("Rakefile.txt"), None);
}

/// A task named like one of rake's options would run the option: it is reported, not listed.
#[test]
fn a_task_named_like_an_option_is_not_listed() {
    let files = MemFiles::new().with(
        "Rakefile",
        indoc! {"
            task \"--rakefile=/etc/passwd\"
            task \"-T\"
            task :ok
        "},
    );
    let parsed = parse_with(parse, &files, "Rakefile");
    assert_eq!(names(&parsed), ["ok"]);
    assert_eq!(parsed.diagnostics.len(), 2);
}

/// Files that load each other are read once each.
#[test]
fn import_cycles_are_read_once() {
    let files = MemFiles::new()
        .with("Rakefile", "import \"a.rake\"\ntask :top\n")
        .with(
            "a.rake",
            indoc! {"
                import \"Rakefile\"
                import \"a.rake\"
                task :a
            "},
        );
    let parsed = parse_with(parse, &files, "Rakefile");
    assert_eq!(names(&parsed), ["top", "a"]);
}
