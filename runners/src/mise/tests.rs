//! Unit tests of the mise adapter: TOML tasks, file tasks, their usage specs and the
//! configuration files mise merges.

use super::*;
use crate::files::{Files, MemFiles};
use crate::model::{Runner, Source, Variadic};
use crate::testing::{messages, name_list, names, parse_with, task};
use indoc::indoc;

const SCRIPT: &str = "#!/bin/sh\necho hi\n";

#[test]
fn config_files_are_found_with_their_project_directory() {
    assert_eq!(locate("mise.toml"), Some((".", 8)));
    assert_eq!(locate("apps/web/.mise.toml").map(|l| l.0), Some("apps/web"));
    assert_eq!(locate(".config/mise/config.toml").map(|l| l.0), Some("."));
    assert_eq!(locate("a/.config/mise.toml").map(|l| l.0), Some("a"));
    assert_eq!(locate("a/mise/config.toml").map(|l| l.0), Some("a"));
    assert_eq!(locate(".mise/conf.d/10-ci.toml").map(|l| l.0), Some("."));
    assert_eq!(locate("x/mise.local.toml").map(|l| l.0), Some("x"));
    for path in [
        "xmise.toml",
        "mise.json",
        "mise-tasks/build",
        ".mise/conf.d/x.yml",
        "config.toml",
    ] {
        assert!(!is_config(path), "{path}");
        assert_eq!(candidate(path), None, "{path}");
    }
    // The more specific file ranks first in its directory.
    assert!(candidate("mise.local.toml") < candidate("mise.toml"));
    assert!(candidate(".mise.toml") < candidate("mise.toml"));
}

#[test]
fn toml_tasks_in_every_form() {
    let toml = r#"
[tools]
node = "22"

[tasks]
fmt = "cargo fmt"
ci = ["cargo fmt --check", "cargo test"]

[tasks.build]
description = "Build the CLI"
run = "cargo build"
alias = ["b", "bld"]
env = { RUST_LOG = "debug" }

[tasks.test]
depends = ["build", "NODE_ENV=test setup --fast", ["lint", "--fix"], { task = "fmt" }]
depends_post = "report"
wait_for = ["db"]
dir = "{{cwd}}"
run = [
  "cargo test",
  { task = "fmt" },
  { tasks = ["a", "b"] },
]

[tasks.release]
confirm = { message = "Cut a release?", default = "no" }
file = "scripts/release.sh"
usage = '''
arg "<version>"
flag "--dry-run"
'''

[tasks.secret]
hide = true
run = "true"

[tasks.old]
run = 'echo {{arg(name="who")}} {{flag(name="loud")}}'
interactive = true
"#;
    let files = MemFiles::new().with("mise.toml", toml);
    let parsed = parse_with(parse, &files, "mise.toml");
    assert_eq!(
        names(&parsed),
        ["build", "ci", "fmt", "old", "release", "test"]
    );
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let build = task(&parsed, "build");
    assert_eq!(build.runner, Runner::Mise);
    assert_eq!(build.argv, ["mise", "run", "build"]);
    assert_eq!(build.dir, ".");
    assert_eq!(build.line, Some(9));
    assert_eq!(build.description.as_deref(), Some("Build the CLI"));
    assert_eq!(build.aliases, ["b", "bld"]);
    assert_eq!(build.env, [("RUST_LOG".to_owned(), "debug".to_owned())]);
    assert_eq!(
        task(&parsed, "ci").script.as_deref(),
        Some("cargo fmt --check\ncargo test")
    );
    let test = task(&parsed, "test");
    assert_eq!(test.deps, ["build", "setup", "lint", "fmt"]);
    assert_eq!(
        test.script.as_deref(),
        Some(indoc! {"
            # dir: {{cwd}}
            # depends_post: report
            # wait_for: db
            cargo test
            task: fmt
            tasks: a b"})
    );
    let release = task(&parsed, "release");
    assert_eq!(release.behaviour.confirm, ["Cut a release?"]);
    assert_eq!(release.script.as_deref(), Some("file: scripts/release.sh"));
    let params: Vec<&str> = release.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(params, ["version", "--dry-run"]);
    let old = task(&parsed, "old");
    assert!(old.behaviour.interactive);
    let params: Vec<&str> = old.params.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(params, ["who", "--loud"]);
}

#[test]
fn config_files_merge_in_mise_precedence() {
    let files = MemFiles::new()
        .with(
            ".config/mise/config.toml",
            indoc! {"
                [tasks.build]
                run = \"make\"
                description = \"from .config\"
                [tasks.deep]
                run = \"x\"
            "},
        )
        .with(
            "mise.toml",
            indoc! {"
                [tasks.build]
                run = \"cargo build\"
                [tasks.lint]
                run = \"cargo clippy\"
            "},
        )
        .with(
            "mise.local.toml",
            indoc! {"
                [tasks.lint]
                description = \"Local lint\"
                alias = \"l\"
                [tasks.mine]
                run = \"echo mine\"
            "},
        )
        .with(".mise/conf.d/10-ci.toml", "[tasks.ci]\nrun = \"true\"\n")
        .with("README.md", "");
    let parsed = parse_with(parse, &files, "mise.toml");
    assert_eq!(names(&parsed), ["build", "ci", "deep", "lint", "mine"]);
    // mise.toml wins over .config/mise/config.toml; its own build has no description.
    let build = task(&parsed, "build");
    assert_eq!(build.script.as_deref(), Some("cargo build"));
    assert_eq!(build.description, None);
    assert_eq!(build.file_path, "mise.toml");
    // mise.local.toml's lint runs nothing: it adds to mise.toml's.
    let lint = task(&parsed, "lint");
    assert_eq!(lint.script.as_deref(), Some("cargo clippy"));
    assert_eq!(lint.description.as_deref(), Some("Local lint"));
    assert_eq!(lint.aliases, ["l"]);
    assert_eq!(lint.file_path, "mise.toml");
    // A task of .config/mise/config.toml runs from the project directory.
    let deep = task(&parsed, "deep");
    assert_eq!(deep.dir, ".");
    assert_eq!(deep.file_path, ".config/mise/config.toml");
    let mut consumed = parsed.consumed.clone();
    consumed.sort();
    assert!(
        consumed.contains(&"mise.local.toml".to_owned()),
        "{consumed:?}"
    );
    assert!(consumed.contains(&".config/mise/config.toml".to_owned()));
    assert!(consumed.contains(&".mise/conf.d/10-ci.toml".to_owned()));
    assert!(!consumed.contains(&"mise.toml".to_owned()));
    // Reading the project from another of its config files gives the same tasks.
    let other = parse_with(parse, &files, ".config/mise/config.toml");
    assert_eq!(other.tasks, parsed.tasks);
    assert!(other.consumed.contains(&"mise.toml".to_owned()));
}

#[test]
fn file_tasks_from_the_task_directories() {
    let files = MemFiles::new()
        .with("mise.toml", "[tasks.build]\nrun = \"cargo build\"\n")
        .with_executable(
            "mise-tasks/deploy",
            indoc! {"
                #!/usr/bin/env bash
                #MISE description=\"Deploy the app\"
                #MISE depends=[\"build\"]
                #MISE alias=\"d\"
                #MISE confirm=\"Deploy now?\"
                #USAGE arg \"<env>\" help=\"Where\"
                #USAGE flag \"-f --force\"
                set -e
            "},
        )
        .with_executable(
            "mise-tasks/db/migrate",
            "#!/bin/sh\n# [MISE] description=\"Migrate\"\n",
        )
        .with_executable("mise-tasks/test/_default", SCRIPT)
        .with_executable("mise-tasks/test/unit.sh", SCRIPT)
        .with_executable("mise-tasks/seed.py", SCRIPT)
        .with_executable("mise-tasks/lint.sh", SCRIPT)
        .with_executable("mise-tasks/a:b", SCRIPT)
        .with("mise-tasks/notes.txt", "not executable")
        .with_executable("mise-tasks/.hidden", SCRIPT)
        .with_executable("mise-tasks/.private/x", SCRIPT)
        .with_executable("mise-tasks/secret", "#!/bin/sh\n#MISE hide=true\n")
        .with_executable(
            ".mise/tasks/lint",
            "#!/bin/sh\n//MISE description=\"Lint\"\n",
        )
        .with_executable(".config/mise/tasks/fmt", SCRIPT)
        .with("mise-tasks/more.toml", "[extra]\nrun = \"echo extra\"\n")
        .with(
            "mise-tasks/nested/mise.toml",
            "[tasks.not-here]\nrun = \"x\"\n",
        );
    let parsed = parse_with(parse, &files, "mise.toml");
    assert_eq!(
        name_list(&parsed),
        "a_b, build, db:migrate, deploy, extra, fmt, lint, lint.sh, seed, test, test:unit"
    );
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let deploy = task(&parsed, "deploy");
    assert_eq!(deploy.file_path, "mise-tasks/deploy");
    assert_eq!(deploy.dir, ".");
    assert_eq!(deploy.argv, ["mise", "run", "deploy"]);
    assert_eq!(deploy.description.as_deref(), Some("Deploy the app"));
    assert_eq!(deploy.deps, ["build"]);
    assert_eq!(deploy.aliases, ["d"]);
    assert_eq!(deploy.behaviour.confirm, ["Deploy now?"]);
    assert_eq!(deploy.params[0].name, "env");
    assert_eq!(deploy.params[1].name, "--force");
    assert_eq!(task(&parsed, "test").file_path, "mise-tasks/test/_default");
    // Shown without its extension, as mise does, unless that name is taken.
    assert_eq!(task(&parsed, "seed").argv, ["mise", "run", "seed"]);
    assert_eq!(task(&parsed, "lint.sh").file_path, "mise-tasks/lint.sh");
    assert_eq!(task(&parsed, "extra").file_path, "mise-tasks/more.toml");
    for read in [
        "mise-tasks/deploy",
        "mise-tasks/db",
        "mise-tasks",
        "mise-tasks/more.toml",
        ".mise/tasks",
    ] {
        assert!(
            parsed.consumed.contains(&read.to_owned()),
            "{read}: {:?}",
            parsed.consumed
        );
    }
}

#[test]
fn file_tasks_and_config_tasks_of_one_name() {
    let files = MemFiles::new()
        .with(
            "mise.toml",
            indoc! {"
                [tasks.deploy]
                description = \"From the config\"
                alias = \"dep\"

                [tasks.gen]
                run = \"echo config\"
            "},
        )
        .with_executable(
            "mise-tasks/deploy",
            "#!/bin/sh\n#MISE description=\"From the file\"\n",
        )
        .with("mise-tasks/gen.toml", "[gen]\nrun = \"echo included\"\n");
    let parsed = parse_with(parse, &files, "mise.toml");
    let deploy = task(&parsed, "deploy");
    assert_eq!(deploy.file_path, "mise-tasks/deploy");
    assert_eq!(deploy.description.as_deref(), Some("From the config"));
    assert_eq!(deploy.aliases, ["dep"]);
    let gen_task = task(&parsed, "gen");
    assert_eq!(gen_task.file_path, "mise.toml");
    assert_eq!(gen_task.script.as_deref(), Some("echo config"));
}

#[test]
fn task_config_includes_replace_the_default_directories() {
    let files = MemFiles::new()
        .with(
            "mise.toml",
            "[task_config]\nincludes = [\"scripts\", \"tasks.toml\", \"missing\", \"../outside\", \"git::https://x/y.git//t\"]\n",
        )
        .with_executable("scripts/one", SCRIPT)
        .with("tasks.toml", "[two]\nrun = \"echo two\"\n")
        .with_executable("mise-tasks/ignored", SCRIPT);
    let parsed = parse_with(parse, &files, "mise.toml");
    assert_eq!(names(&parsed), ["one", "two"]);
    assert_eq!(
        messages(&parsed),
        [
            (
                "mise.toml",
                Some(2),
                "include `../outside` is outside the repository"
            ),
            (
                "mise.toml",
                Some(2),
                "agg does not read the remote or templated include `git::https://x/y.git//t`"
            ),
        ]
    );
    assert!(parsed.consumed.contains(&"missing".to_owned()));
}

#[test]
fn bad_input_is_reported_on_its_line_and_the_rest_is_listed() {
    let files = MemFiles::new()
        .with(
            "mise.toml",
            indoc! {"
                [tasks]
                ok = \"true\"
                num = 3
                [tasks.t]
                run = 4
                depends = 5
                hide = \"yes\"
                confirm = 1
                usage = []
                alias = [1]
                description = 2
                [tasks.steps]
                run = [\"a\", 3]
            "},
        )
        .with("mise.local.toml", "[tasks\n")
        .with("sub/mise.toml", "tasks = 3\n")
        .with("inc/mise.toml", "[task_config]\nincludes = \"x\"\n")
        .with_executable(
            "mise-tasks/bad",
            indoc! {"
                #!/bin/sh
                #MISE description=\"ok\"
                #MISE depends=nope
            "},
        );
    let parsed = parse_with(parse, &files, "mise.toml");
    assert_eq!(names(&parsed), ["bad", "ok", "steps", "t"]);
    let lines: Vec<(&str, Option<u32>)> = messages(&parsed).iter().map(|m| (m.0, m.1)).collect();
    assert_eq!(
        lines,
        [
            ("mise.local.toml", Some(1)),
            ("mise.toml", Some(3)),
            ("mise.toml", Some(5)),
            ("mise.toml", Some(11)),
            ("mise.toml", Some(10)),
            ("mise.toml", Some(6)),
            ("mise.toml", Some(7)),
            ("mise.toml", Some(8)),
            ("mise.toml", Some(9)),
            ("mise.toml", Some(13)),
            ("mise-tasks/bad", Some(3)),
        ],
        "{:?}",
        parsed.diagnostics
    );
    assert_eq!(task(&parsed, "bad").description.as_deref(), Some("ok"));
    let parsed = parse_with(parse, &files, "sub/mise.toml");
    assert_eq!(
        messages(&parsed),
        [(
            "sub/mise.toml",
            Some(1),
            "mise `tasks` must be a table, not a number"
        )]
    );
    let parsed = parse_with(parse, &files, "inc/mise.toml");
    assert_eq!(parsed.diagnostics.len(), 1);
}

#[test]
fn hostile_task_trees_are_bounded() {
    let mut files = MemFiles::new().with("mise.toml", "");
    let deep = (0..40)
        .map(|i| format!("d{i}"))
        .collect::<Vec<_>>()
        .join("/");
    files = files.with_executable(&format!("mise-tasks/{deep}/x"), SCRIPT);
    for i in 0..(MAX_TASK_ENTRIES + 5) {
        files = files.with_executable(&format!(".mise-tasks/t{i:05}"), SCRIPT);
    }
    let parsed = parse_with(parse, &files, "mise.toml");
    assert!(
        parsed.tasks.len() < MAX_TASK_ENTRIES,
        "{}",
        parsed.tasks.len()
    );
    let text: Vec<&str> = parsed
        .diagnostics
        .iter()
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(text.len(), 2, "each limit is reported once: {text:?}");
    assert!(text[0].contains("nested deeper"), "{text:?}");
    assert!(text[1].contains("more than"), "{text:?}");
}

/// A view whose `mise-tasks/self` is the task directory again, at every depth (a symlink to
/// `.`), and whose `mise-tasks/up` is the project directory.
struct Looping;

impl Files for Looping {
    fn read(&self, path: &str) -> Result<String, crate::Unreadable> {
        if path == "mise.toml" {
            Ok(String::new())
        } else {
            Ok(SCRIPT.to_owned())
        }
    }
    fn exists(&self, path: &str) -> bool {
        path == "mise.toml" || path.ends_with("/x")
    }
    fn read_dir(&self, dir: &str) -> Vec<String> {
        let names: &[&str] = if dir == "." || dir.ends_with("/up") {
            &["mise-tasks", "mise.toml"]
        } else if dir == "mise-tasks" || dir.ends_with("/mise-tasks") || dir.ends_with("/self") {
            &["self", "up", "x"]
        } else {
            &[]
        };
        names.iter().map(|n| (*n).to_owned()).collect()
    }
    fn executable(&self, path: &str) -> bool {
        path.ends_with("/x")
    }
}

#[test]
fn a_symlink_loop_in_a_task_directory_is_read_once() {
    let parsed = parse(&Source {
        purpose: crate::reads::Purpose::List,
        path: "mise.toml",
        text: "",
        files: &Looping,
    });
    assert_eq!(names(&parsed), ["x"]);
    let text: Vec<(&str, &str)> = parsed
        .diagnostics
        .iter()
        .map(|d| (d.file_path.as_str(), d.message.as_str()))
        .collect();
    assert_eq!(text.len(), 2, "{text:?}");
    assert_eq!(text[0].0, "mise-tasks/self");
    assert_eq!(text[1].0, "mise-tasks/up/mise-tasks");
    assert!(text[0].1.contains("symlink loop"));
}

#[test]
fn usage_params_of_file_tasks_keep_their_shape() {
    let files = MemFiles::new().with("mise.toml", "").with_executable(
        "mise-tasks/copy",
        indoc! {"
            #!/bin/sh
            #USAGE arg \"<src>\"
            #USAGE arg \"[dest]...\"
        "},
    );
    let parsed = parse_with(parse, &files, "mise.toml");
    let copy = task(&parsed, "copy");
    assert!(copy.params[0].required);
    assert_eq!(copy.params[1].variadic, Some(Variadic::ZeroOrMore));
}
