//! Unit tests of the taskfile adapter.
use super::*;
use crate::files::MemFiles;
use crate::testing::{messages, name_list, names, task};
use indoc::{formatdoc, indoc};

fn run(files: &MemFiles, path: &str) -> Parsed {
    crate::testing::parse_with(parse, files, path)
}

#[test]
fn candidates_follow_go_task_precedence() {
    assert_eq!(candidate("Taskfile.yml"), Some(0));
    assert_eq!(candidate("svc/taskfile.yml"), Some(1));
    assert_eq!(candidate("Taskfile.yaml"), Some(2));
    assert_eq!(candidate("a/Taskfile.dist.yml"), Some(4));
    assert_eq!(candidate("taskfile.dist.yaml"), Some(7));
    assert_eq!(candidate("Taskfile.yml.bak"), None);
    assert_eq!(candidate("Taskfile.json"), None);
    assert_eq!(candidate("docs/Taskfile.lint.yml"), None);
}

#[test]
fn wildcards_prompts_and_interactive_tasks() {
    let files = MemFiles::new().with(
        "Taskfile.yml",
        indoc::indoc! {"
            version: '3'
            tasks:
              greet:*:
                cmds: [echo hi]
              deploy:*:*:
                prompt: [Sure?, Really sure?]
                cmds: [echo x]
              shell:
                interactive: true
                prompt: Open a shell?
                cmds: [sh]
        "},
    );
    let parsed = run(&files, "Taskfile.yml");
    let greet = task(&parsed, "greet:*");
    let wildcard = |name| Param::required(name).passed(Passing::Wildcard);
    assert_eq!(greet.params, [wildcard("MATCH")]);
    let deploy = task(&parsed, "deploy:*:*");
    assert_eq!(deploy.params, [wildcard("MATCH1"), wildcard("MATCH2")]);
    assert_eq!(deploy.behaviour.confirm, ["Sure?", "Really sure?"]);
    let shell = task(&parsed, "shell");
    assert!(shell.behaviour.interactive);
    assert_eq!(shell.behaviour.confirm, ["Open a shell?"]);
}

#[test]
fn excludes_take_patterns_and_os_includes_resolve() {
    let files = MemFiles::new()
        .with(
            "Taskfile.yml",
            indoc! {"
                version: '3'
                includes:
                  t:
                    taskfile: ./tools.yml
                    excludes: ['lint:*', fmt]
                  os: ./Taskfile_{{OS}}.yml
            "},
        )
        .with(
            "tools.yml",
            indoc! {"
                version: '3'
                tasks:
                  fmt: x
                  vet: x
                  lint:go: x
                  lint:yaml: x
                  linter: x
            "},
        )
        .with(
            &format!("Taskfile_{}.yml", include::go_os()),
            indoc! {"
                version: '3'
                tasks:
                  open: x
            "},
        );
    let parsed = run(&files, "Taskfile.yml");
    assert_eq!(names(&parsed), ["t:vet", "t:linter", "os:open"]);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    assert!(glob_match("a*c*e", "abcde"));
    assert!(!glob_match("a*c", "abcd"));
}

#[test]
fn files_go_task_refuses_are_reported() {
    let files = MemFiles::new()
        .with(
            "Taskfile.yml",
            indoc! {"
                version: '4'
                includes:
                  web: ./web.yml
                tasks:
                  build: x
            "},
        )
        .with(
            "web.yml",
            indoc! {"
                version: '3'
                dotenv: [.env]
                tasks:
                  serve: x
            "},
        );
    let parsed = run(&files, "Taskfile.yml");
    assert_eq!(
        messages(&parsed),
        [
            (
                "Taskfile.yml",
                Some(1),
                "schema version 4 is newer than go-task 3 reads"
            ),
            (
                "web.yml",
                Some(2),
                "included Taskfiles can't have `dotenv` (it belongs in the main Taskfile)"
            ),
        ]
    );
}

/// The shape of go-task's own Taskfile.yml.
#[test]
fn go_task_style_root() {
    let files = MemFiles::new().with(
        "Taskfile.yml",
        indoc! {"
            version: '3'

            vars:
              BIN: '{{.ROOT_DIR}}/bin'

            env:
              CGO_ENABLED: '0'

            tasks:
              default:
                cmds:
                  - task: lint
                  - task: test

              install:
                desc: Installs Task
                aliases: [i]
                sources:
                  - './**/*.go'
                cmds:
                  - go install -v -ldflags=\"-w -s\" ./cmd/task

              lint: golangci-lint run
        "},
    );
    let parsed = run(&files, "Taskfile.yml");
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    assert_eq!(names(&parsed), ["default", "install", "lint"]);
    let install = task(&parsed, "install");
    assert_eq!(install.runner, Runner::GoTask);
    assert_eq!(install.argv, ["task", "install"]);
    assert_eq!(install.dir, ".");
    assert_eq!(install.file_path, "Taskfile.yml");
    assert_eq!(install.line, Some(15));
    assert_eq!(install.description.as_deref(), Some("Installs Task"));
    assert_eq!(install.aliases, ["i"]);
    assert_eq!(
        task(&parsed, "default").script.as_deref(),
        Some("task: lint\ntask: test")
    );
    assert_eq!(
        task(&parsed, "lint").script.as_deref(),
        Some("golangci-lint run")
    );
    assert!(parsed.consumed.is_empty());
}

fn included_tree() -> MemFiles {
    MemFiles::new()
        .with(
            "Taskfile.yml",
            indoc! {"
                version: '3'
                includes:
                  docs: ./docs/Taskfile.yml
                  lib:
                    taskfile: ./lib
                    dir: ./lib
                    aliases: [l]
                    excludes: [secret]
                  tools:
                    taskfile: ./tools.yml
                    flatten: true
                  priv:
                    taskfile: ./private
                    internal: true
                  extra:
                    taskfile: ./extra.yml
                    optional: true
                tasks:
                  build:
                    desc: Build it
                    deps: [tools:nope, fmt]
            "},
        )
        .with(
            "docs/Taskfile.yml",
            indoc! {"
                version: '3'
                tasks:
                  default: mkdocs build
                  serve:
                    desc: Serve the docs
                    aliases: [s]
                    deps: [default, ':build']
            "},
        )
        .with(
            "lib/Taskfile.yml",
            indoc! {"
                version: '3'
                includes:
                  nested: ./nested
                tasks:
                  secret: echo hidden
                  pub:
                    desc: Public
                  helper:
                    internal: true
                    cmds: [echo]
            "},
        )
        .with(
            "lib/nested/Taskfile.yaml",
            indoc! {"
                version: '3'
                tasks:
                  deep:
                    aliases: [d]
                    cmds: [echo deep]
            "},
        )
        .with(
            "tools.yml",
            indoc! {"
                version: '3'
                tasks:
                  fmt:
                    desc: Format
            "},
        )
        .with(
            "private/Taskfile.yml",
            indoc! {"
                version: '3'
                tasks:
                  p: echo
            "},
        )
}

/// Names and aliases as `task --list-all --json` prints them for the same tree.
#[test]
fn includes_are_namespaced_like_go_task() {
    let parsed = run(&included_tree(), "Taskfile.yml");
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    assert_eq!(
        name_list(&parsed),
        "build, docs:default, docs:serve, lib:pub, lib:nested:deep, fmt"
    );
    let serve = task(&parsed, "docs:serve");
    assert_eq!(serve.aliases, ["docs:s"]);
    assert_eq!(serve.argv, ["task", "docs:serve"]);
    assert_eq!(serve.file_path, "docs/Taskfile.yml");
    assert_eq!(serve.dir, ".");
    assert_eq!(serve.line, Some(4));
    assert_eq!(serve.deps, ["docs:default", "build"]);
    assert_eq!(task(&parsed, "docs:default").aliases, ["docs"]);
    assert_eq!(task(&parsed, "lib:pub").aliases, ["l:pub"]);
    assert_eq!(
        task(&parsed, "lib:nested:deep").aliases,
        ["lib:nested:d", "l:nested:deep", "l:nested:d"]
    );
    assert_eq!(
        task(&parsed, "lib:nested:deep").file_path,
        "lib/nested/Taskfile.yaml"
    );
    assert_eq!(task(&parsed, "fmt").file_path, "tools.yml");
    assert_eq!(
        parsed.consumed,
        [
            "docs/Taskfile.yml",
            "lib/Taskfile.yml",
            "lib/nested/Taskfile.yaml",
            "tools.yml",
            "private/Taskfile.yml"
        ]
    );
}

#[test]
fn default_tasks_answer_to_every_namespace_alias() {
    let files = MemFiles::new()
        .with(
            "Taskfile.yml",
            indoc! {"
                version: '3'
                includes:
                  a:
                    taskfile: ./a
                    aliases: [x, y]
            "},
        )
        .with(
            "a/Taskfile.yml",
            indoc! {"
                version: '3'
                includes:
                  b: ./b
                tasks:
                  default: echo a
            "},
        )
        .with(
            "a/b/Taskfile.yml",
            indoc! {"
                version: '3'
                tasks:
                  default: echo b
            "},
        );
    let parsed = run(&files, "Taskfile.yml");
    assert_eq!(
        task(&parsed, "a:default").aliases,
        ["x:default", "y:default", "a", "x", "y"]
    );
    assert_eq!(
        task(&parsed, "a:b:default").aliases,
        ["a:b", "x:b:default", "x:b", "y:b:default", "y:b"]
    );
}

#[test]
fn excludes_name_tasks_relative_to_the_include() {
    let files = MemFiles::new()
        .with(
            "Taskfile.yml",
            indoc! {"
                version: '3'
                includes:
                  ex:
                    taskfile: ./a
                    excludes: [b:leaf, ok]
            "},
        )
        .with(
            "a/Taskfile.yml",
            indoc! {"
                version: '3'
                includes:
                  b: ./b
                tasks:
                  ok: echo
                  kept: echo
            "},
        )
        .with(
            "a/b/Taskfile.yml",
            indoc! {"
                version: '3'
                tasks:
                  leaf: echo
                  other: echo
            "},
        );
    let parsed = run(&files, "Taskfile.yml");
    assert_eq!(names(&parsed), ["ex:kept", "ex:b:other"]);
}

#[test]
fn missing_includes() {
    let files = MemFiles::new().with(
        "Taskfile.yml",
        indoc! {"
            version: '3'
            includes:
              opt:
                taskfile: ./nope.yml
                optional: true
              req: ./gone
              up: ../outside.yml
            tasks:
              a: echo
        "},
    );
    let parsed = run(&files, "Taskfile.yml");
    assert_eq!(names(&parsed), ["a"]);
    assert_eq!(
        messages(&parsed),
        [
            (
                "Taskfile.yml",
                Some(6),
                "include `req`: no Taskfile at gone"
            ),
            (
                "Taskfile.yml",
                Some(7),
                "include `up` points outside the repository"
            ),
        ]
    );
}

#[test]
fn remote_and_templated_includes() {
    let files = MemFiles::new()
        .with(
            "svc/Taskfile.yml",
            indoc! {"
                version: '3'
                vars:
                  SHARED: shared
                  OS_DIR: '{{OS}}'
                includes:
                  remote: https://taskfile.dev/Taskfile.yml
                  shared: '{{.ROOT_DIR}}/{{.SHARED}}'
                  here: '{{.TASKFILE_DIR}}/local.yml'
                  os: ./{{.OS_DIR}}/Taskfile.yml
            "},
        )
        .with(
            "svc/shared/Taskfile.yml",
            indoc! {"
                version: '3'
                tasks:
                  s: echo
            "},
        )
        .with(
            "svc/local.yml",
            indoc! {"
                version: '3'
                tasks:
                  l: echo
            "},
        );
    let parsed = run(&files, "svc/Taskfile.yml");
    assert_eq!(names(&parsed), ["shared:s", "here:l"]);
    assert_eq!(task(&parsed, "shared:s").dir, "svc");
    assert_eq!(
        messages(&parsed),
        [
            (
                "svc/Taskfile.yml",
                Some(6),
                "remote include `remote` (https://taskfile.dev/Taskfile.yml) is not followed; its tasks are not listed"
            ),
            (
                "svc/Taskfile.yml",
                Some(9),
                "include `os`: cannot resolve `{{.OS_DIR}}` in its path without running go-task"
            ),
        ]
    );
}

#[test]
fn include_cycles_stop() {
    let files = MemFiles::new()
        .with(
            "Taskfile.yml",
            indoc! {"
                version: '3'
                includes:
                  a: ./a.yml
                tasks:
                  root: echo
            "},
        )
        .with(
            "a.yml",
            indoc! {"
                version: '3'
                includes:
                  back: ./Taskfile.yml
                  me: ./a.yml
                tasks:
                  x: echo
            "},
        );
    let parsed = run(&files, "Taskfile.yml");
    assert_eq!(names(&parsed), ["root", "a:x"]);
    assert_eq!(
        messages(&parsed),
        [
            (
                "a.yml",
                Some(3),
                "include cycle: Taskfile.yml -> a.yml -> Taskfile.yml"
            ),
            (
                "a.yml",
                Some(4),
                "include cycle: Taskfile.yml -> a.yml -> a.yml"
            ),
        ]
    );
}

/// Every level includes the next one twice: 2^30 paths without a cap.
#[test]
fn include_diamonds_are_capped() {
    let mut files = MemFiles::new().with(
        "Taskfile.yml",
        indoc! {"
            version: '3'
            includes:
              l: ./t0.yml
              r: ./t0.yml
        "},
    );
    for i in 0..30 {
        let next = i + 1;
        files = files.with(
            &format!("t{i}.yml"),
            &formatdoc! {"
                version: '3'
                includes:
                  l: ./t{next}.yml
                  r: ./t{next}.yml
                tasks:
                  x: echo
            "},
        );
    }
    let parsed = run(&files, "Taskfile.yml");
    assert!(parsed.tasks.len() < 300);
    assert!(parsed.tasks.iter().any(|t| t.source_name == "l:x"));
    assert!(
        parsed
            .diagnostics
            .iter()
            .any(|d| d.message.contains("deeper than 16") || d.message.contains("more than 256"))
    );
}

#[test]
fn invalid_yaml_lists_nothing_from_that_file() {
    let files = MemFiles::new().with(
        "Taskfile.yml",
        indoc! {"
            version: '3'
            tasks:
              build:
                cmds: [go build
              test: go test
        "},
    );
    let parsed = run(&files, "Taskfile.yml");
    assert!(parsed.tasks.is_empty());
    let [d] = parsed.diagnostics.as_slice() else {
        panic!("{:?}", parsed.diagnostics)
    };
    assert_eq!(d.line, Some(5));
    assert!(d.message.starts_with("invalid YAML: "), "{}", d.message);
}

#[test]
fn a_broken_include_does_not_hide_the_rest() {
    let files = MemFiles::new()
        .with(
            "Taskfile.yml",
            indoc! {"
                version: '3'
                includes:
                  bad: ./bad.yml
                  bad2: ./bad.yml
                tasks:
                  ok: echo
            "},
        )
        .with("bad.yml", "tasks: [\n");
    let parsed = run(&files, "Taskfile.yml");
    assert_eq!(names(&parsed), ["ok"]);
    assert_eq!(parsed.diagnostics.len(), 1, "{:?}", parsed.diagnostics);
    assert_eq!(parsed.diagnostics[0].file_path, "bad.yml");
    assert_eq!(parsed.consumed, ["bad.yml"]);
}

#[test]
fn duplicates() {
    let files = MemFiles::new()
        .with(
            "Taskfile.yml",
            indoc! {"
                version: '3'
                includes:
                  flat:
                    taskfile: ./flat.yml
                    flatten: true
                tasks:
                  fmt: echo root
                  a: echo first
                  a: echo second
            "},
        )
        .with(
            "flat.yml",
            indoc! {"
                version: '3'
                tasks:
                  fmt: echo flat
            "},
        );
    let parsed = run(&files, "Taskfile.yml");
    assert_eq!(names(&parsed), ["fmt", "a"]);
    assert_eq!(task(&parsed, "a").script.as_deref(), Some("echo second"));
    assert_eq!(task(&parsed, "fmt").script.as_deref(), Some("echo root"));
    assert_eq!(
        messages(&parsed),
        [
            (
                "Taskfile.yml",
                Some(9),
                "task `a` is defined again (before on line 8); the later one wins"
            ),
            (
                "flat.yml",
                Some(3),
                "task `fmt` is also defined at Taskfile.yml:7"
            ),
        ]
    );
}

#[test]
fn old_or_missing_versions_are_still_listed() {
    let files = MemFiles::new()
        .with(
            "Taskfile.yml",
            indoc! {"
                tasks:
                  a: echo
            "},
        )
        .with(
            "v2/Taskfile.yml",
            indoc! {"
                version: 2
                tasks:
                  b: echo
            "},
        );
    let parsed = run(&files, "Taskfile.yml");
    assert_eq!(names(&parsed), ["a"]);
    assert_eq!(
        messages(&parsed),
        [(
            "Taskfile.yml",
            None,
            "no `version: '3'` (go-task needs a schema version)"
        )]
    );
    let parsed = run(&files, "v2/Taskfile.yml");
    assert_eq!(names(&parsed), ["b"]);
    assert_eq!(
        messages(&parsed),
        [(
            "v2/Taskfile.yml",
            Some(1),
            "schema version 2 is no longer supported by go-task 3"
        )]
    );
}

#[test]
fn crlf_and_anchors() {
    let text = indoc! {"
        version: '3'\r
        \r
        x-go: &go\r
          desc: Go task\r
          env: {GOFLAGS: -mod=mod}\r
        \r
        tasks:\r
          build:\r
            <<: *go\r
            cmds:\r
              - go build ./...\r
          vet:\r
            <<: *go\r
            desc: Vet\r
            cmds: [go vet ./...]\r
    "};
    let files = MemFiles::new().with("Taskfile.yml", text);
    let parsed = run(&files, "Taskfile.yml");
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let build = task(&parsed, "build");
    assert_eq!(build.line, Some(8));
    assert_eq!(build.description.as_deref(), Some("Go task"));
    assert_eq!(build.script.as_deref(), Some("go build ./..."));
    assert_eq!(build.env, [("GOFLAGS".to_owned(), "-mod=mod".to_owned())]);
    assert_eq!(task(&parsed, "vet").line, Some(12));
    assert_eq!(task(&parsed, "vet").description.as_deref(), Some("Vet"));
}

#[test]
fn odd_shapes_are_reported() {
    let files = MemFiles::new()
        .with("a/Taskfile.yml", "- not\n- a map\n")
        .with(
            "b/Taskfile.yml",
            indoc! {"
                version: '3'
                tasks: [a, b]
                includes: ./x
            "},
        )
        .with("c/Taskfile.yml", "")
        .with(
            "d/Taskfile.yml",
            indoc! {"
                version: '3'
                includes:
                  x: [1]
                  y: {dir: ./y}
            "},
        );
    assert_eq!(
        messages(&run(&files, "a/Taskfile.yml")),
        [(
            "a/Taskfile.yml",
            None,
            "a Taskfile is a mapping, not a list"
        )]
    );
    assert_eq!(
        messages(&run(&files, "b/Taskfile.yml")),
        [
            (
                "b/Taskfile.yml",
                Some(2),
                "`tasks` should be a mapping, not a list"
            ),
            (
                "b/Taskfile.yml",
                Some(3),
                "`includes` should be a mapping, not a string"
            ),
        ]
    );
    assert_eq!(run(&files, "c/Taskfile.yml"), Parsed::default());
    assert_eq!(
        messages(&run(&files, "d/Taskfile.yml")),
        [
            (
                "d/Taskfile.yml",
                Some(3),
                "include `x` should be a path or a mapping, not a list"
            ),
            (
                "d/Taskfile.yml",
                Some(4),
                "include `y` has no `taskfile` path"
            ),
        ]
    );
}

#[test]
fn same_dir_dist_include_is_consumed() {
    let files = MemFiles::new()
        .with(
            "Taskfile.yml",
            indoc! {"
                version: '3'
                includes:
                  dist:
                    taskfile: ./Taskfile.dist.yml
                    flatten: true
                tasks:
                  mine: echo
            "},
        )
        .with(
            "Taskfile.dist.yml",
            indoc! {"
                version: '3'
                tasks:
                  shared: echo
            "},
        );
    let parsed = run(&files, "Taskfile.yml");
    assert_eq!(names(&parsed), ["mine", "shared"]);
    assert_eq!(parsed.consumed, ["Taskfile.dist.yml"]);
}

#[test]
fn byte_order_mark_is_ignored() {
    let files = MemFiles::new().with(
        "Taskfile.yml",
        indoc! {"
            \u{feff}version: '3'
            tasks:
              a: echo
        "},
    );
    let parsed = run(&files, "Taskfile.yml");
    assert_eq!(names(&parsed), ["a"]);
    assert_eq!(parsed.tasks[0].line, Some(3));
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
}

#[test]
fn many_tasks_and_duplicates_stay_linear() {
    let mut text = String::from("version: '3'\ntasks:\n");
    for i in 0..60_000 {
        text.push_str(if i % 2 == 0 { "  same: echo\n" } else { "  " });
        if i % 2 == 1 {
            text.push_str(&i.to_string());
            text.push_str(": echo\n");
        }
    }
    let files = MemFiles::new();
    let parsed = parse(&Source {
        purpose: crate::reads::Purpose::List,
        path: "Taskfile.yml",
        text: &text,
        files: &files,
    });
    assert_eq!(parsed.tasks.len(), 30_001);
    assert_eq!(parsed.diagnostics.len(), 29_999);
}

#[test]
fn hostile_inputs_return() {
    let files = MemFiles::new();
    let long_line = formatdoc! {"
        version: '3'
        tasks:
          a: {}
    ", "x".repeat(20_000_000)};
    let deep = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
    let keys = format!("{}\n", "a: ".repeat(100_000));
    for text in [
        long_line.as_str(),
        deep.as_str(),
        keys.as_str(),
        "\u{feff}tasks: {a: b}",
        "\0\0",
        ":",
    ] {
        let _ = parse(&Source {
            purpose: crate::reads::Purpose::List,
            path: "Taskfile.yml",
            text,
            files: &files,
        });
    }
}

#[test]
fn a_command_go_task_cannot_read_stops_every_task() {
    let files = MemFiles::new()
        .with(
            "Taskfile.yml",
            indoc! {"
                version: '3'
                includes:
                  lib: ./lib
                tasks:
                  build:
                    cmds:
                      - cmd: go build
                        silent: true
                      - defer: {task: clean}
                  clean:
                    cmds:
                      - run: rm -rf dist
            "},
        )
        .with(
            "lib/Taskfile.yml",
            indoc! {"
                version: '3'
                tasks:
                  x:
                    cmds:
                      - task: ''
            "},
        );
    let parsed = run(&files, "Taskfile.yml");
    // Still listed, so they can be found; none runs, since go-task loads nothing.
    assert_eq!(names(&parsed), ["build", "clean", "lib:x"]);
    assert_eq!(
        messages(&parsed),
        [
            (
                "Taskfile.yml",
                Some(12),
                "go-task refuses the Taskfile: invalid keys in command"
            ),
            (
                "lib/Taskfile.yml",
                Some(5),
                "go-task refuses the Taskfile: invalid keys in command"
            ),
        ]
    );
    for name in ["build", "clean", "lib:x"] {
        assert_eq!(
            task(&parsed, name).behaviour.not_runnable.as_deref(),
            Some("go-task refuses the Taskfile at Taskfile.yml:12: invalid keys in command"),
            "{name}"
        );
    }
    // `cmd:` of its own and a list item are commands too.
    let single = MemFiles::new().with(
        "Taskfile.yml",
        indoc! {"
            version: '3'
            tasks:
              a:
                cmd: {silent: true}
              b:
                - [echo]
        "},
    );
    let parsed = run(&single, "Taskfile.yml");
    assert_eq!(
        messages(&parsed),
        [
            (
                "Taskfile.yml",
                Some(4),
                "go-task refuses the Taskfile: invalid keys in command"
            ),
            (
                "Taskfile.yml",
                Some(5),
                "go-task refuses the Taskfile: cannot unmarshal !!seq into command"
            ),
        ]
    );
}

#[test]
fn an_invalid_method_fails_the_tasks_it_applies_to() {
    let files = MemFiles::new()
        .with(
            "Taskfile.yml",
            indoc! {"
                version: '3'
                method: checksums
                includes:
                  lib: ./lib
                tasks:
                  own:
                    method: timestamp
                    cmds: [echo own]
                  inherits:
                    cmds: [echo inherits]
            "},
        )
        .with(
            "lib/Taskfile.yml",
            indoc! {"
                version: '3'
                method: ignored
                tasks:
                  x:
                    method: none
                    cmds: [echo x]
                  y:
                    method: Checksum
                    cmds: [echo y]
                  z:
                    deps: [y]
                    method: none
                    cmds: [echo z]
            "},
        );
    let parsed = run(&files, "Taskfile.yml");
    assert_eq!(
        messages(&parsed),
        [
            (
                "Taskfile.yml",
                Some(2),
                "invalid method \"checksums\": go-task accepts checksum, timestamp, none"
            ),
            (
                "lib/Taskfile.yml",
                Some(8),
                "invalid method \"Checksum\": go-task accepts checksum, timestamp, none"
            ),
        ]
    );
    let reason = |name: &str| task(&parsed, name).behaviour.not_runnable.clone();
    assert_eq!(reason("own"), None);
    assert_eq!(
        reason("inherits").as_deref(),
        Some("go-task fails at Taskfile.yml:2: invalid method \"checksums\"")
    );
    // An included file's own top-level `method` is not go-task's default; the root's is.
    assert_eq!(reason("lib:x"), None);
    assert_eq!(
        reason("lib:y").as_deref(),
        Some("go-task fails at lib/Taskfile.yml:8: invalid method \"Checksum\"")
    );
    assert_eq!(
        reason("lib:z").as_deref(),
        Some(
            "its dependency `lib:y`: go-task fails at lib/Taskfile.yml:8: invalid method \"Checksum\""
        )
    );
}

#[test]
fn an_include_whose_checksum_does_not_match_stops_every_task() {
    let lib = indoc! {"
        version: '3'
        tasks:
          x:
            cmds: [echo x]
    "};
    // sha256 of `lib`, as `sha256sum lib/Taskfile.yml` prints it.
    let sum = sha256_hex(lib.as_bytes());
    let taskfile = |checksum: &str| {
        formatdoc! {"
            version: '3'
            includes:
              lib:
                taskfile: ./lib
                checksum: {checksum}
            tasks:
              a:
                cmds: [echo a]
        "
        }
    };
    let files = MemFiles::new()
        .with("Taskfile.yml", &taskfile(&sum))
        .with("lib/Taskfile.yml", lib);
    let parsed = run(&files, "Taskfile.yml");
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    assert!(
        parsed
            .tasks
            .iter()
            .all(|t| t.behaviour.not_runnable.is_none())
    );
    // go-task compares the hex as written: upper case does not match.
    let files = files.with("Taskfile.yml", &taskfile(&sum.to_uppercase()));
    let parsed = run(&files, "Taskfile.yml");
    assert_eq!(names(&parsed), ["a", "lib:x"]);
    let why = format!(
        "the checksum of the Taskfile at \"lib/Taskfile.yml\" does not match: got \"{sum}\", want \"{}\"",
        sum.to_uppercase()
    );
    assert_eq!(
        messages(&parsed),
        [(
            "Taskfile.yml",
            Some(5),
            format!("go-task refuses the Taskfile: {why}").as_str()
        )]
    );
    assert_eq!(
        task(&parsed, "a").behaviour.not_runnable,
        Some(format!(
            "go-task refuses the Taskfile at Taskfile.yml:5: {why}"
        ))
    );
}

#[test]
fn what_else_go_task_refuses_makes_every_task_not_runnable() {
    let reason = |files: &MemFiles| {
        let parsed = run(files, "Taskfile.yml");
        let reasons: HashSet<Option<String>> = parsed
            .tasks
            .iter()
            .map(|t| t.behaviour.not_runnable.clone())
            .collect();
        assert_eq!(reasons.len(), 1, "{reasons:?}");
        reasons.into_iter().next().flatten()
    };
    let old = MemFiles::new().with(
        "Taskfile.yml",
        indoc! {"
            version: '2'
            tasks:
              a: echo a
              b: echo b
        "},
    );
    assert_eq!(
        reason(&old).as_deref(),
        Some(
            "go-task refuses the Taskfile at Taskfile.yml:1: schema version 2 is no longer supported by go-task 3"
        )
    );
    let cycle = MemFiles::new()
        .with(
            "Taskfile.yml",
            indoc! {"
                version: '3'
                includes:
                  a: ./a.yml
                tasks:
                  x: echo x
            "},
        )
        .with(
            "a.yml",
            indoc! {"
                version: '3'
                includes:
                  back: ./Taskfile.yml
                tasks:
                  y: echo y
            "},
        );
    assert_eq!(
        reason(&cycle).as_deref(),
        Some(
            "go-task refuses the Taskfile at a.yml:3: include cycle: Taskfile.yml -> a.yml -> Taskfile.yml"
        )
    );
    let duplicate = MemFiles::new()
        .with(
            "Taskfile.yml",
            indoc! {"
                version: '3'
                includes:
                  lib:
                    taskfile: ./lib.yml
                    flatten: true
                tasks:
                  x: echo x
            "},
        )
        .with(
            "lib.yml",
            indoc! {"
                version: '3'
                tasks:
                  x: echo lib
                  y: echo y
            "},
        );
    assert_eq!(
        reason(&duplicate).as_deref(),
        Some(
            "go-task refuses the Taskfile at lib.yml:3: task `x` is also defined at Taskfile.yml:7"
        )
    );
    let fine = MemFiles::new().with(
        "Taskfile.yml",
        indoc! {"
            version: '3'
            tasks:
              a: echo a
        "},
    );
    assert_eq!(reason(&fine), None);
}
