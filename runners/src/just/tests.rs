//! Unit tests of the just adapter.
use super::*;
use crate::files::MemFiles;
use crate::model::Passing;
use crate::model::{Param, Variadic};
use crate::testing::{messages, names, task};
use indoc::indoc;

const LINUX: Platform = Platform {
    os: "linux",
    unix: true,
};
const WINDOWS: Platform = Platform {
    os: "windows",
    unix: false,
};

fn run_on(files: &MemFiles, path: &str, platform: Platform) -> Parsed {
    let text = files.read(path).expect("test file exists");
    parse_for(
        &Source {
            purpose: crate::reads::Purpose::List,
            path,
            text: &text,
            files,
        },
        platform,
    )
}

fn run(files: &MemFiles, path: &str) -> Parsed {
    run_on(files, path, LINUX)
}

#[test]
fn candidates_rank_justfile_before_dotfile() {
    assert_eq!(candidate("justfile"), Some(0));
    assert_eq!(candidate("apps/api/Justfile"), Some(0));
    assert_eq!(candidate("JUSTFILE"), Some(0));
    assert_eq!(candidate(".justfile"), Some(1));
    assert_eq!(candidate("x/.JustFile"), Some(1));
    assert_eq!(candidate("tools.just"), None);
    assert_eq!(candidate("justfile.bak"), None);
    assert_eq!(candidate("Makefile"), None);
}

#[test]
fn lists_a_typical_project_justfile() {
    let files = MemFiles::new().with(
        "justfile",
        indoc! {"
            set dotenv-load
            set shell := [\"bash\", \"-euo\", \"pipefail\", \"-c\"]

            image := \"ghcr.io/acme/api:\" + `git rev-parse --short HEAD`

            alias t := test

            # Show the available recipes
            default:
                @just --list

            # Run the unit tests
            [group('dev')]
            test *args:
                cargo nextest run {{args}}

            # Build and push the container image
            [group('release')]
            docker-push tag=image: test
                docker build -t {{tag}} .
                docker push {{tag}}
        "},
    );
    let parsed = run(&files, "justfile");
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    assert_eq!(names(&parsed), vec!["default", "test", "docker-push"]);
    let push = task(&parsed, "docker-push");
    assert_eq!(push.runner, Runner::Just);
    assert_eq!(push.argv, vec!["just", "docker-push"]);
    assert_eq!(push.dir, ".");
    assert_eq!(push.file_path, "justfile");
    assert_eq!(push.line, Some(19));
    assert_eq!(
        push.description.as_deref(),
        Some("Build and push the container image")
    );
    assert_eq!(push.group.as_deref(), Some("release"));
    assert_eq!(push.deps, vec!["test"]);
    assert_eq!(
        push.params,
        vec![Param {
            name: "tag".into(),
            default: Some("image".into()),
            required: false,
            variadic: None,
            exported: false,
            passing: Passing::Positional,
            ..Param::default()
        }]
    );
    assert_eq!(
        push.script.as_deref(),
        Some("docker build -t {{tag}} .\ndocker push {{tag}}")
    );
    let test = task(&parsed, "test");
    assert_eq!(test.aliases, vec!["t"]);
    assert_eq!(test.params[0].variadic, Some(Variadic::ZeroOrMore));
    assert_eq!(
        task(&parsed, "default").script.as_deref(),
        Some("@just --list")
    );
}

#[test]
fn windows_line_endings_are_understood() {
    let files = MemFiles::new().with(
        "justfile",
        indoc! {"
            # Say hi\r
            hi name=\"you\":\r
              echo hi {{name}}\r
            \r
            bye: hi\r
        "},
    );
    let parsed = run(&files, "justfile");
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    let hi = task(&parsed, "hi");
    assert_eq!(hi.description.as_deref(), Some("Say hi"));
    assert_eq!(hi.params[0].default.as_deref(), Some("you"));
    assert_eq!(hi.script.as_deref(), Some("echo hi {{name}}"));
    assert_eq!(task(&parsed, "bye").deps, vec!["hi"]);
}

#[test]
fn a_nested_justfile_runs_in_its_own_directory() {
    let files = MemFiles::new().with(
        "services/api/.justfile",
        indoc! {"
            serve:
            \tcargo run
        "},
    );
    let parsed = run(&files, "services/api/.justfile");
    let serve = task(&parsed, "serve");
    assert_eq!(serve.dir, "services/api");
    assert_eq!(serve.file_path, "services/api/.justfile");
    assert_eq!(serve.script.as_deref(), Some("cargo run"));
}

#[test]
fn imports_merge_into_the_importing_namespace() {
    let files = MemFiles::new()
        .with(
            "app/justfile",
            indoc! {"
                import 'just/common.just'
                import? 'local.just'
                import 'missing.just'

                build: lint
            "},
        )
        .with(
            "app/just/common.just",
            indoc! {"
                import 'deeper/more.just'

                # Lint the code
                lint:
                  cargo clippy
            "},
        )
        .with(
            "app/just/deeper/more.just",
            indoc! {"
                fmt:
                  cargo fmt
            "},
        );
    let parsed = run(&files, "app/justfile");
    assert_eq!(names(&parsed), vec!["fmt", "lint", "build"]);
    let lint = task(&parsed, "lint");
    assert_eq!(lint.file_path, "app/just/common.just");
    assert_eq!(lint.line, Some(4));
    assert_eq!(lint.dir, "app");
    assert_eq!(lint.description.as_deref(), Some("Lint the code"));
    assert_eq!(task(&parsed, "fmt").file_path, "app/just/deeper/more.just");
    assert_eq!(
        parsed.consumed,
        vec!["app/just/common.just", "app/just/deeper/more.just"]
    );
    assert_eq!(
        messages(&parsed),
        vec![(
            "app/justfile",
            Some(3),
            "cannot find imported file `missing.just`"
        )]
    );
}

#[test]
fn modules_are_named_with_their_path() {
    let files = MemFiles::new()
        .with(
            "justfile",
            indoc! {"
                # Tooling
                mod tools
                mod? extras
                mod web 'frontend'
                mod ops 'deploy/ops.just'
                mod gone
                all: tools::check (web::build 'prod')
            "},
        )
        .with(
            "tools/mod.just",
            indoc! {"
                mod lint
                # Run the checks
                check: lint::run
                  echo check
            "},
        )
        .with(
            "tools/lint/Justfile",
            indoc! {"
                run:
                  cargo clippy
            "},
        )
        .with(
            "frontend/mod.just",
            indoc! {"
                build mode:
                  npm run build
            "},
        )
        .with("deploy/ops.just", "ship:\n");
    let parsed = run(&files, "justfile");
    assert_eq!(
        names(&parsed),
        vec![
            "tools::lint::run",
            "tools::check",
            "web::build",
            "ops::ship",
            "all"
        ]
    );
    let run_lint = task(&parsed, "tools::lint::run");
    assert_eq!(run_lint.argv, vec!["just", "tools::lint::run"]);
    assert_eq!(run_lint.dir, ".");
    assert_eq!(run_lint.file_path, "tools/lint/Justfile");
    let check = task(&parsed, "tools::check");
    assert_eq!(check.deps, vec!["tools::lint::run"]);
    assert_eq!(check.description.as_deref(), Some("Run the checks"));
    assert_eq!(
        task(&parsed, "all").deps,
        vec!["tools::check", "web::build"]
    );
    assert_eq!(
        parsed.consumed,
        vec![
            "tools/mod.just",
            "tools/lint/Justfile",
            "frontend/mod.just",
            "deploy/ops.just"
        ]
    );
    assert_eq!(
        messages(&parsed),
        vec![(
            "justfile",
            Some(6),
            "cannot find the source of module `gone` (gone.just, gone/mod.just or gone/justfile)"
        )]
    );
}

#[test]
fn module_files_are_searched_like_just() {
    let files = MemFiles::new()
        .with(
            "justfile",
            indoc! {"
                mod a
                mod b
                mod c
                mod d
            "},
        )
        .with("a.just", "from-a-just:\n")
        .with("a/mod.just", "from-a-mod:\n")
        .with("b/.JUSTFILE", "from-b:\n")
        .with("c/Mod.just", "case-sensitive:\n")
        .with("d/README.md", "not a module\n");
    let parsed = run(&files, "justfile");
    assert_eq!(names(&parsed), vec!["a::from-a-just", "b::from-b"]);
    assert_eq!(
        messages(&parsed),
        vec![
            (
                "justfile",
                Some(1),
                "module `a` has several source files (a.just, a/mod.just); using `a.just`"
            ),
            (
                "justfile",
                Some(3),
                "cannot find the source of module `c` (c.just, c/mod.just or c/justfile)"
            ),
            (
                "justfile",
                Some(4),
                "cannot find the source of module `d` (d.just, d/mod.just or d/justfile)"
            ),
        ]
    );
}

#[test]
fn nested_modules_are_found_next_to_the_declaring_file() {
    // `mod lint` in `tools.just` (at the root) looks for `lint.just` at the root, as
    // just does; in `tools/mod.just` it would look inside `tools/`.
    let files = MemFiles::new()
        .with("justfile", "mod tools\n")
        .with("tools.just", "mod lint\ncheck:\n")
        .with("lint.just", "run:\n")
        .with("tools/lint/justfile", "unused:\n");
    let parsed = run(&files, "justfile");
    assert_eq!(names(&parsed), vec!["tools::lint::run", "tools::check"]);
    assert_eq!(task(&parsed, "tools::lint::run").file_path, "lint.just");
}

#[test]
fn private_recipes_and_modules_are_hidden() {
    let files = MemFiles::new()
        .with(
            "justfile",
            indoc! {"
                [private]
                mod secret
                mod _underscored
                _helper:
                [private]
                hidden:
                shown: _helper hidden
            "},
        )
        .with("secret.just", "rotate:\n")
        .with("_underscored.just", "visible:\n_not:\n");
    let parsed = run(&files, "justfile");
    // just lists `_mod::recipe` but hides everything under `[private] mod`.
    assert_eq!(names(&parsed), vec!["_underscored::visible", "shown"]);
    assert_eq!(task(&parsed, "shown").deps, vec!["_helper", "hidden"]);
    assert!(parsed.consumed.contains(&"secret.just".to_owned()));
}

#[test]
fn aliases_attach_to_their_targets() {
    let files = MemFiles::new()
        .with(
            "justfile",
            indoc! {"
                mod tools
                alias b := build
                alias bld := build
                [private]
                alias p := build
                alias _q := build
                alias d := tools::doctor
                alias h := _helper
                alias typo := biuld
                alias b := build
                build:
                _helper:
            "},
        )
        .with("tools.just", "alias doc := doctor\ndoctor:\n");
    let parsed = run(&files, "justfile");
    assert_eq!(task(&parsed, "build").aliases, vec!["b", "bld"]);
    assert_eq!(
        task(&parsed, "tools::doctor").aliases,
        vec!["tools::doc", "d"]
    );
    assert_eq!(
        messages(&parsed),
        vec![
            (
                "justfile",
                Some(9),
                "alias `typo` points to unknown recipe `biuld`"
            ),
            ("justfile", Some(10), "alias `b` is defined more than once"),
        ]
    );
}

#[test]
fn duplicate_recipes_keep_the_later_one() {
    let files = MemFiles::new().with(
        "justfile",
        indoc! {"
            # first
            build:
              echo one

            # second
            build:
              echo two
        "},
    );
    let parsed = run(&files, "justfile");
    assert_eq!(names(&parsed), vec!["build"]);
    let build = task(&parsed, "build");
    assert_eq!(build.script.as_deref(), Some("echo two"));
    assert_eq!(build.description.as_deref(), Some("second"));
    assert_eq!(
        messages(&parsed),
        vec![(
            "justfile",
            Some(6),
            "recipe `build` is already defined at line 2"
        )]
    );

    let allowed = MemFiles::new().with(
        "justfile",
        indoc! {"
            set allow-duplicate-recipes
            build:
              echo one
            build:
              echo two
        "},
    );
    let parsed = run(&allowed, "justfile");
    assert!(parsed.diagnostics.is_empty());
    assert_eq!(task(&parsed, "build").script.as_deref(), Some("echo two"));
}

#[test]
fn the_importing_file_overrides_imported_recipes() {
    // As in just: a shallower definition wins whatever the order.
    let files = MemFiles::new()
        .with(
            "justfile",
            indoc! {"
                set allow-duplicate-recipes
                build:
                  echo root
                import 'a.just'
                import 'b.just'
            "},
        )
        .with(
            "a.just",
            indoc! {"
                build:
                  echo a
                test:
                  echo a
            "},
        )
        .with(
            "b.just",
            indoc! {"
                test:
                  echo b
            "},
        );
    let parsed = run(&files, "justfile");
    assert!(parsed.diagnostics.is_empty());
    assert_eq!(task(&parsed, "build").script.as_deref(), Some("echo root"));
    // Between two imports at the same depth just keeps the earlier import's recipe.
    assert_eq!(task(&parsed, "test").script.as_deref(), Some("echo a"));
}

#[test]
fn os_attributes_select_the_recipe_for_the_platform() {
    let files = MemFiles::new().with(
        "justfile",
        indoc! {"
            alias o := open
            # Open the docs
            [unix]
            open:
              xdg-open docs/index.html

            [windows]
            open:
              start docs\\index.html

            [macos]
            notarize:

            [linux, windows]
            portable:
        "},
    );
    let linux = run_on(&files, "justfile", LINUX);
    assert!(linux.diagnostics.is_empty(), "{:?}", linux.diagnostics);
    assert_eq!(names(&linux), vec!["open", "portable"]);
    let open = task(&linux, "open");
    assert_eq!(open.line, Some(4));
    assert_eq!(open.description.as_deref(), Some("Open the docs"));
    assert_eq!(open.aliases, vec!["o"]);

    let windows = run_on(&files, "justfile", WINDOWS);
    assert!(windows.diagnostics.is_empty());
    assert_eq!(names(&windows), vec!["open", "portable"]);
    assert_eq!(
        task(&windows, "open").script.as_deref(),
        Some("start docs\\index.html")
    );

    let mac = Platform {
        os: "macos",
        unix: true,
    };
    assert_eq!(
        names(&run_on(&files, "justfile", mac)),
        vec!["open", "notarize"]
    );
}

#[test]
fn cycles_and_escapes_are_reported() {
    let files = MemFiles::new()
        .with(
            "justfile",
            indoc! {"
                import 'a.just'
                import '../outside.just'
                mod again 'justfile'
                mod self '.'
                root:
            "},
        )
        .with("a.just", "import 'justfile'\na:\n");
    let parsed = run(&files, "justfile");
    assert_eq!(names(&parsed), vec!["a", "root"]);
    assert_eq!(
        messages(&parsed),
        vec![
            (
                "justfile",
                Some(2),
                "import `../outside.just` points outside the repository"
            ),
            ("justfile", Some(3), "module `again` is circular"),
            ("justfile", Some(4), "module `self` is circular"),
            ("a.just", Some(1), "import `justfile` is circular"),
        ]
    );
}

#[test]
fn deep_module_chains_are_bounded() {
    let mut files = MemFiles::new().with("justfile", "mod m\n");
    let mut dir = String::new();
    for _ in 0..60 {
        dir.push_str("m/");
        files = files.with(&format!("{dir}mod.just"), "mod m\nr:\n");
    }
    let parsed = run(&files, "justfile");
    assert_eq!(parsed.tasks.len(), MAX_MODULE_DEPTH);
    assert_eq!(parsed.diagnostics.len(), 1);
    assert_eq!(parsed.diagnostics[0].message, "modules nest too deeply");
}

#[test]
fn broken_parts_do_not_hide_good_recipes() {
    let files = MemFiles::new().with(
        "justfile",
        indoc! {"
            before:
              echo before

            bad-header param1 param2
              echo \"no colon\"

            bad-string name='unterminated:
              echo never

            # Still listed
            after:
              echo after
        "},
    );
    let parsed = run(&files, "justfile");
    assert_eq!(names(&parsed), vec!["before", "after"]);
    assert_eq!(
        task(&parsed, "after").description.as_deref(),
        Some("Still listed")
    );
    let lines: Vec<Option<u32>> = parsed.diagnostics.iter().map(|d| d.line).collect();
    assert_eq!(lines, vec![Some(4), Some(7)]);
    assert_eq!(parsed.diagnostics[1].message, "unterminated string");
}

#[test]
fn stray_delimiters_cost_linear_work_and_keep_later_recipes() {
    let text = "x := 'stray\n".repeat(20_000) + "ok:\n";
    let files = MemFiles::new().with("justfile", &text);
    let parsed = run(&files, "justfile");
    assert_eq!(names(&parsed), vec!["ok"]);

    let parens = "(\n".repeat(20_000) + "ok:\n";
    let files = MemFiles::new().with("justfile", &parens);
    let parsed = run(&files, "justfile");
    assert!(!parsed.diagnostics.is_empty());
}

#[test]
fn never_panics_on_truncated_or_odd_input() {
    let sample = indoc! {"
        #!/usr/bin/env just --justfile
        set shell := [\"bash\", \"-c\"]
        x := f'a{{ \"b\" + `c` }}' + '''
          d
        ''' + \"\\u{e9}\\\"\"
        import? 'ünïcode.just'
        mod? m 'ü'
        # doc ✓
        [group('ğ'), doc(\"é\")]
        @r $a='é' +b=(x / \"y\"): (dep \"z\" x) && c
        \t#!/bin/sh
        \techo {{ if a == 'é' { \"}}\" } else { x } }} {{{{
        \r
        alias q := r
    "};
    let files = MemFiles::new();
    for (i, _) in sample.char_indices() {
        for text in [&sample[..i], &sample[i..]] {
            let _ = parse_for(
                &Source {
                    purpose: crate::reads::Purpose::List,
                    path: "justfile",
                    text,
                    files: &files,
                },
                LINUX,
            );
        }
    }
    for odd in [
        "\u{feff}a:\n",
        "\\",
        "{{",
        "}}",
        "[",
        "a: (",
        indoc! {"
            a:
            \t{{"},
        "'''",
        "\r",
    ] {
        let _ = parse_for(
            &Source {
                purpose: crate::reads::Purpose::List,
                path: "justfile",
                text: odd,
                files: &files,
            },
            LINUX,
        );
    }
}

#[test]
fn a_justfile_just_refuses_lists_its_recipes_as_not_runnable() {
    let files = MemFiles::new()
        .with(
            "justfile",
            indoc! {"
                mod tools

                # Build
                build:
                  cargo build
            "},
        )
        .with(
            "tools.just",
            indoc! {"
                [no-cd]
                alias l := lint

                lint:
                  cargo clippy
            "},
        );
    let parsed = run(&files, "justfile");
    assert_eq!(names(&parsed), ["tools::lint", "build"]);
    assert_eq!(
        messages(&parsed),
        [(
            "tools.just",
            Some(2),
            "alias `l` has invalid attribute `no-cd`"
        )]
    );
    for name in ["build", "tools::lint"] {
        assert_eq!(
            task(&parsed, name).behaviour.not_runnable.as_deref(),
            Some(
                "just refuses the justfile at tools.just:2: alias `l` has invalid attribute `no-cd`"
            ),
            "{name}"
        );
    }
    // Its other errors are said but do not stop the recipes agg reads around them.
    let files = MemFiles::new().with(
        "justfile",
        indoc! {"
            ok:
              true
            bad x
        "},
    );
    let parsed = run(&files, "justfile");
    assert_eq!(task(&parsed, "ok").behaviour.not_runnable, None);
}
