//! Unit tests of the xc adapter.
use super::attributes::interpreter;
use super::markdown::{fence_closed, find_ignore_case};
use super::*;
use crate::model::{Param, Runner, Task, XcSpec};
use crate::testing::{names, task};
use indoc::{formatdoc, indoc};

fn run(path: &str, text: &str) -> Parsed {
    crate::testing::parse_one(parse, path, text)
}

fn spec(t: &Task) -> &XcSpec {
    t.xc.as_deref().expect("xc spec")
}

use crate::testing::lines as messages;

/// Asserts that xc refuses `text` whole: no task is listed, and the one diagnostic, at
/// `line`, quotes xc's parse error `error`.
fn assert_refused(text: &str, line: u32, error: &str) {
    let p = run("README.md", text);
    assert!(names(&p).is_empty());
    let message =
        format!("xc refuses this file (xc parse error: {error}); none of its tasks are listed");
    assert_eq!(messages(&p), [(Some(line), message.as_str())]);
}

#[test]
fn only_readme_md_is_a_candidate() {
    assert_eq!(candidate("README.md"), Some(0));
    assert_eq!(candidate("apps/web/README.md"), Some(0));
    assert_eq!(candidate("readme.md"), None);
    assert_eq!(candidate("README.org"), None);
    assert_eq!(candidate("docs/README.markdown"), None);
}

/// The tasks section of xc's own README (github.com/joerdav/xc).
#[test]
fn xc_own_readme() {
    let text = indoc! {"
        # xc - Simple, Convenient, Markdown defined task runner.

        `xc` is a task runner designed to maximise convenience, and minimise complexity.

        # Example

        Take the `tag` task in the README.md:

        ````
        ## tag

        Deploys a new tag for the repo.

        Requires: test

        ```
        git tag v0.0.1
        ```
        ````

        # Tasks for this project:

        ## Tasks

        ### test

        Test the project.

        ```
        go test ./...
        ```

        ### build

        Builds the `xc` binary.

        ```
        go build ./cmd/xc
        ```

        ### tag
        Deploys a new tag for the repo.

        Requires: test
        ```
        export VERSION=`git rev-list --count HEAD`
        echo Adding git tag with version v0.0.${VERSION}
        git tag v0.0.${VERSION}
        git push origin v0.0.${VERSION}
        ```

        ### update-nix
        Updates nix flake.
        ```
        sh ./update-nix.sh
        ```
    "};
    let p = run("README.md", text);
    assert_eq!(names(&p), ["test", "build", "tag", "update-nix"]);
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);

    let first = task(&p, "test");
    assert_eq!(first.argv, ["xc", "test"]);
    assert_eq!(first.dir, ".");
    assert_eq!(first.file_path, "README.md");
    assert_eq!(first.runner, Runner::Xc);
    assert_eq!(first.line, Some(25));
    assert_eq!(first.description.as_deref(), Some("Test the project."));
    assert_eq!(first.script.as_deref(), Some("go test ./..."));

    let build = task(&p, "build");
    assert_eq!(
        build.description.as_deref(),
        Some("Builds the `xc` binary.")
    );

    let tag = task(&p, "tag");
    assert_eq!(tag.deps, ["test"]);
    assert_eq!(
        tag.description.as_deref(),
        Some("Deploys a new tag for the repo.")
    );
    assert!(
        tag.script
            .as_deref()
            .unwrap()
            .starts_with("export VERSION=`git rev-list --count HEAD`\n")
    );
    assert_eq!(spec(tag).script, tag.script);
    assert_eq!(spec(tag).interpreter, None);

    let nix = task(&p, "update-nix");
    assert_eq!(nix.description.as_deref(), Some("Updates nix flake."));
    assert_eq!(nix.script.as_deref(), Some("sh ./update-nix.sh"));
}

/// xc's parser test file: setext title and setext `Tasks`, Dir, Env, Inputs, a
/// commandless task, and a section that ends at the next H2.
#[test]
fn xc_example_with_setext_headings() {
    let text = indoc! {"
        My Readme
        ==

        Here is a readme.

        ## Subtitle
        Sub text

        Tasks
        ---

        ### list

        Lists files

        ```
        ls
        ```
        ### list2

        Lists files

        Directory: ./somefolder

        ```
        ls
        ```

        ### hello

        Print a message

        Requires: list, list2

        Env: `somevar=val`
        Inputs: FOO, BAR

        ```
        echo \"Hello, world!\"
        echo \"Hello, world2!\"
        ```

        ### all-lists

        An example of a commandless task.

        Requires: list, list2


        ## Out Of Scope


        ### something

        Print a message

        Requires: list, list2

        ```
        echo \"Hello, world!\"
        ```
    "};
    let p = run("README.md", text);
    assert_eq!(names(&p), ["list", "list2", "hello", "all-lists"]);
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    assert_eq!(task(&p, "list").line, Some(12));
    assert_eq!(spec(task(&p, "list2")).dir.as_deref(), Some("./somefolder"));

    let hello = task(&p, "hello");
    assert_eq!(hello.description.as_deref(), Some("Print a message"));
    assert_eq!(hello.deps, ["list", "list2"]);
    assert_eq!(hello.env, [("somevar".to_owned(), "val".to_owned())]);
    assert_eq!(spec(hello).inputs, ["FOO", "BAR"]);
    assert_eq!(
        hello.params,
        [Param::required("FOO"), Param::required("BAR")]
    );
    assert_eq!(
        hello.script.as_deref(),
        Some("echo \"Hello, world!\"\necho \"Hello, world2!\"")
    );

    let all = task(&p, "all-lists");
    assert_eq!(all.script, None);
    assert_eq!(spec(all).script, None);
    assert_eq!(all.deps, ["list", "list2"]);
}

/// xc's `till-eof.md`: the last task has no script, only async deps, and ends the file.
#[test]
fn deps_only_task_at_end_of_file_runs_deps_async() {
    let text = indoc! {"
        # My readme

        ## Tasks

        ### generate-templ

        ```bash
        go run -mod=mod github.com/a-h/templ/cmd/templ generate
        go mod tidy
        ```

        ### generate-translations

        ```bash
        go run ./i18n/generate
        ```

        ### generate-all

        Requires: generate-templ, generate-translations
        RunDeps: async
    "};
    let p = run("README.md", text);
    assert_eq!(
        names(&p),
        ["generate-templ", "generate-translations", "generate-all"]
    );
    let all = task(&p, "generate-all");
    assert_eq!(all.deps, ["generate-templ", "generate-translations"]);
    assert!(spec(all).run_deps_async);
    assert_eq!(all.description, None);
    assert!(!spec(task(&p, "generate-templ")).run_deps_async);
    assert_eq!(
        task(&p, "generate-templ").script.as_deref(),
        Some("go run -mod=mod github.com/a-h/templ/cmd/templ generate\ngo mod tidy")
    );
}

/// xc's `marked-heading-next-line.md`: the marker picks a differently named heading.
#[test]
fn xc_heading_marker_picks_the_next_heading() {
    let text = indoc! {"
        # Tasks with a marked header

        You can use `<!-- xc-heading -->` to specify a header for tasks
        without using a `--heading` flag.

        <!-- xc-heading -->
        ## Getting Started

        ### hello

        Print a message

        ```
        echo \"Hello, world!\"
        ```

        ## Out of Scope

        ### something

        ```
        echo \"xc cannot execute this task.\"
        ```
    "};
    let p = run("docs/README.md", text);
    assert_eq!(names(&p), ["hello"]);
    let hello = task(&p, "hello");
    assert_eq!(hello.dir, "docs");
    assert_eq!(hello.file_path, "docs/README.md");
    assert_eq!(hello.line, Some(9));
    assert_eq!(hello.description.as_deref(), Some("Print a message"));
}

#[test]
fn marker_with_a_blank_line_before_the_heading_still_counts() {
    let text = indoc! {"
        # Project

        <!--   xc-heading   -->

        # Development

        ## up

        ```
        docker compose up
        ```
    "};
    let p = run("README.md", text);
    assert_eq!(names(&p), ["up"]);
    // Only an HTML block that is just the marker counts, not a mention of it.
    let text = indoc! {"
        # Project

        Write `<!-- xc-heading -->` above it.

        ## Development

        ### up

        ```
        up
        ```
    "};
    assert!(run("README.md", text).tasks.is_empty());
}

/// xc itself skips a `## Tasks` heading right under the title; agg must not.
#[test]
fn tasks_heading_right_under_the_title() {
    let text = indoc! {"
        # Project
        ## Tasks
        ### build
        ```
        cargo build
        ```
        ### test
        ```
        cargo test
        ```
    "};
    let p = run("README.md", text);
    assert_eq!(names(&p), ["build", "test"]);
    assert_eq!(task(&p, "build").line, Some(3));
    assert_eq!(task(&p, "test").line, Some(7));
}

#[test]
fn tasks_heading_at_any_level_and_case_with_closing_hashes() {
    let text = indoc! {"
        # TASKS #

        ## `build` ##

        ```sh
        make
        ```

        # Next H1 Heading

        ## not-a-task

        ```
        no
        ```
    "};
    let p = run("README.md", text);
    assert_eq!(names(&p), ["build"]);
    assert_eq!(task(&p, "build").argv, ["xc", "build"]);

    let text = indoc! {"
        Project
        =======

        #### tasks

        ##### deploy

        Requires: build
    "};
    assert_eq!(names(&run("README.md", text)), ["deploy"]);
}

#[test]
fn only_the_first_tasks_section_counts() {
    let text = indoc! {"
        ## Tasks
        ### a
        ```
        a
        ```
        ## Tasks
        ### b
        ```
        b
        ```
    "};
    assert_eq!(names(&run("README.md", text)), ["a"]);
}

#[test]
fn readme_without_tasks_section_is_silent() {
    let text = indoc! {"
        # Widget

        A library for widgets. It schedules tasks on a thread pool.

        ## Usage

        ```rust
        let w = Widget::new();
        ```

        ### Options

        Requires: nothing.
    "};
    let p = run("README.md", text);
    assert!(p.tasks.is_empty());
    assert!(p.diagnostics.is_empty());
    assert_eq!(run("README.md", "").tasks, []);
    // A "Tasks" heading inside a list or quote is not a tasks section.
    let p = run(
        "README.md",
        indoc! {"
            > ## Tasks
            > ### a
            > ```
            > a
            > ```
        "},
    );
    assert!(p.tasks.is_empty() && p.diagnostics.is_empty());
}

#[test]
fn prose_tasks_section_without_subheadings_is_silent() {
    let text = indoc! {"
        # Roadmap

        ## Tasks

        - [ ] write docs
        - [x] ship it

        See issues.

        ## License

        MIT
    "};
    let p = run("README.md", text);
    assert!(p.tasks.is_empty());
    assert!(p.diagnostics.is_empty());
}

#[test]
fn attribute_keys_are_case_insensitive_and_may_be_wrapped() {
    let text = indoc! {"
        ## Tasks
        ### deploy
        Ships it.
        **Requires**: build, `lint`
        _Env_: STAGE=prod, `REGION=eu`
        `Dir`: infra
        RUN: once
        runDependencies: _async_

        **Inputs:** TAG

        ```
        ./deploy.sh \"$TAG\"
        ```
    "};
    let p = run("README.md", text);
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    let t = task(&p, "deploy");
    assert_eq!(t.description.as_deref(), Some("Ships it."));
    assert_eq!(t.deps, ["build", "lint"]);
    assert_eq!(
        t.env,
        [
            ("STAGE".to_owned(), "prod".to_owned()),
            ("REGION".to_owned(), "eu".to_owned())
        ]
    );
    let x = spec(t);
    assert_eq!(x.dir.as_deref(), Some("infra"));
    assert!(x.run_once);
    assert!(x.run_deps_async);
    assert_eq!(x.inputs, ["TAG"]);
    assert_eq!(t.params, [Param::required("TAG")]);
}

/// The Env and Inputs docs: repeated Env lines, comma lists, and an Env default
/// making an input optional.
#[test]
fn env_lines_accumulate_and_give_inputs_defaults() {
    let text = indoc! {"
        ## Tasks
        ### Task1
        Env: ENVIRONMENT=PRODUCTION
        Env: VERSION=1.2
        ```
        echo $ENVIRONMENT
        ```
        ### greet

        Inputs: NAME, GREETING
        Environment: NAME=World, URL=http://x?a=b

        ```
        echo \"$GREETING, $NAME.\"
        ```
    "};
    let p = run("README.md", text);
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    assert_eq!(
        task(&p, "Task1").env,
        [
            ("ENVIRONMENT".to_owned(), "PRODUCTION".to_owned()),
            ("VERSION".to_owned(), "1.2".to_owned())
        ]
    );
    let greet = task(&p, "greet");
    assert_eq!(
        greet.env[1],
        ("URL".to_owned(), "http://x?a=b".to_owned()),
        "only the first `=` splits, and `:` in a value is kept"
    );
    assert_eq!(
        greet.params,
        [
            Param {
                name: "NAME".to_owned(),
                default: Some("World".to_owned()),
                required: false,
                variadic: None,
                exported: false,
                ..Param::default()
            },
            Param::required("GREETING"),
        ]
    );
    assert_eq!(greet.description, None);
}

#[test]
fn bad_attribute_values_are_reported_as_xc_reports_them() {
    let env = indoc! {"
        ## Tasks

        ### setup

        Env: JUSTAKEY, OK=1

        ```
        ./setup
        ```
    "};
    let p = run("README.md", env);
    assert_eq!(names(&p), ["setup"]);
    assert_eq!(
        messages(&p),
        [(
            Some(5),
            "xc task `setup`: Env entry `JUSTAKEY` is not KEY=value; ignored"
        )]
    );
    assert_eq!(task(&p, "setup").env, [("OK".to_owned(), "1".to_owned())]);
    for (attr, why) in [
        (
            "Run: sometimes",
            "run contains invalid behaviour \"sometimes\" should be (always, once): setup",
        ),
        (
            "RunDeps: parallel",
            "runDeps contains invalid behaviour \"parallel\" should be (sync, async): setup",
        ),
        (
            "Dir: a\nDir: b",
            "directory appears more than once for setup",
        ),
    ] {
        let text = formatdoc! {"
            ## Tasks
            ### setup
            {attr}
            ```
            ./setup
            ```
        "};
        let p = run("README.md", &text);
        assert!(names(&p).is_empty(), "{attr}");
        assert_eq!(p.diagnostics.len(), 1, "{attr}");
        assert!(
            p.diagnostics[0].message.contains(why),
            "{:?}",
            p.diagnostics
        );
    }
}

#[test]
fn a_task_with_nothing_to_run_makes_xc_refuse_the_file() {
    // xc's own commandless-task test, plus an empty code block (xc ignores those).
    let text = indoc! {"

        # Tasks
        ## atask
        ## another
        Just words.

        ```

        ```
        ## ok
        req: atask
    "};
    assert_refused(text, 3, "task atask has no commands or required tasks");
}

#[test]
fn a_second_code_block_makes_xc_refuse_the_file() {
    let text = indoc! {"
        ## Tasks
        ### lint
        ```
        x
        ```
        ### fmt
        ```
        gofmt -w .
        ```
        Then check:
        ```console
        $ git diff
        ```
    "};
    assert_refused(text, 11, "command block already exists for task fmt");
}

#[test]
fn plan_style_headings_are_not_tasks() {
    let text = indoc! {"
        # Plan
        ## Tasks
        ### Task 1: Install SQLite
        ```bash
        apt-get install sqlite3
        ```
        ### Task 2: Create the schema
        ```bash
        sqlite3 db < schema.sql
        ```
    "};
    let p = run("README.md", text);
    assert!(names(&p).is_empty());
    assert_eq!(
        messages(&p),
        [
            (
                Some(3),
                "`Task 1: Install SQLite` is not an xc task name (names hold no spaces); skipped"
            ),
            (
                Some(7),
                "`Task 2: Create the schema` is not an xc task name (names hold no spaces); skipped"
            ),
        ]
    );
}

#[test]
fn duplicate_names_keep_the_first_case_insensitively() {
    let text = indoc! {"
        ## Tasks
        ### build
        ```
        one
        ```
        ### build
        ```
        two
        ```
        ### Build
        ```
        three
        ```
    "};
    let p = run("README.md", text);
    assert_eq!(names(&p), ["build"]);
    assert_eq!(task(&p, "build").script.as_deref(), Some("one"));
    assert_eq!(
        messages(&p),
        [
            (
                Some(6),
                "xc task `build` is defined again (first on line 2); keeping the first"
            ),
            (
                Some(10),
                "xc task `Build` clashes with `build` on line 2 (xc matches names \
                 case-insensitively); keeping the first"
            ),
        ]
    );
}

#[test]
fn shebang_picks_an_interpreter_unless_it_is_a_shell() {
    for (script, named) in [
        ("#!/usr/bin/env python3\nprint(1)", Some("python3")),
        ("#!/usr/bin/python3\nprint(1)", Some("/usr/bin/python3")),
        (
            "#!/usr/bin/env -S deno run --allow-read\n",
            Some("deno run --allow-read"),
        ),
        ("#! /usr/bin/env node\n", Some("node")),
        ("#!/bin/bash\nset -e", None),
        ("#!/usr/bin/env bash\n", None),
        ("#!/bin/sh -eu\n", None),
        ("#!\n", None),
        ("echo '#!/usr/bin/python3'", None),
        ("#!/bin/zsh\n", Some("/bin/zsh")),
    ] {
        assert_eq!(interpreter(script).as_deref(), named, "{script:?}");
    }

    let text = indoc! {"
        ## Tasks
        ### python-task
        ```
        #!/usr/bin/env python
        print(\"foo\")
        ```
    "};
    let p = run("README.md", text);
    let t = task(&p, "python-task");
    assert_eq!(spec(t).interpreter.as_deref(), Some("python"));
    assert_eq!(
        spec(t).script.as_deref(),
        Some("#!/usr/bin/env python\nprint(\"foo\")")
    );
}

/// xc's `indented.md`: indented code blocks are scripts too.
#[test]
fn indented_code_blocks_are_scripts() {
    let text = indoc! {"
        # My readme

        ## Tasks

        ### list

        Lists files

            ls

        ### greet

        Print a message

        \techo \"Hello, world!\"
        \techo \"Hello, world2!\"
    "};
    let p = run("README.md", text);
    assert_eq!(task(&p, "list").script.as_deref(), Some("ls"));
    assert_eq!(
        task(&p, "greet").script.as_deref(),
        Some("echo \"Hello, world!\"\necho \"Hello, world2!\"")
    );
    assert_eq!(
        task(&p, "greet").description.as_deref(),
        Some("Print a message")
    );
}

#[test]
fn crlf_and_bom_are_handled() {
    let text = indoc! {"
        \u{feff}# Project\r
        \r
        Tasks\r
        -----\r
        \r
        ### build\r
        Builds it.\r
        Requires: gen\r
        \r
        ```\r
        go build ./...\r
        go vet ./...\r
        ```\r
        \r
        ### gen\r
        ```\r
        go generate\r
        ```\r
    "};
    let p = run("README.md", text);
    assert_eq!(names(&p), ["build", "gen"]);
    let b = task(&p, "build");
    assert_eq!(b.line, Some(6));
    assert_eq!(b.description.as_deref(), Some("Builds it."));
    assert_eq!(b.deps, ["gen"]);
    assert_eq!(b.script.as_deref(), Some("go build ./...\ngo vet ./..."));
    assert_eq!(task(&p, "gen").line, Some(15));
}

#[test]
fn deeper_subsections_belong_to_the_task_body() {
    let text = indoc! {"
        ## Tasks

        ### release

        Cuts a release.

        #### Notes

        Needs a clean tree.
        Requires: test

        ```
        ./release.sh
        ```

        #### Example output

        Nothing much.

        ### test

        ```
        go test
        ```
    "};
    let p = run("README.md", text);
    assert_eq!(names(&p), ["release", "test"]);
    let t = task(&p, "release");
    assert_eq!(t.deps, ["test"]);
    assert_eq!(t.script.as_deref(), Some("./release.sh"));
    assert_eq!(
        t.description.as_deref(),
        Some(indoc! {"
            Cuts a release.

            Needs a clean tree.

            Nothing much."})
    );
    // A deeper heading before the first task is not a task either.
    let text = indoc! {"
        ## Tasks
        #### About
        Run these with xc.
        ### a
        ```
        a
        ```
    "};
    let p = run("README.md", text);
    assert_eq!(names(&p), ["a"]);
    assert!(p.diagnostics.is_empty());
}

#[test]
fn descriptions_skip_lists_quotes_comments_and_keep_breaks() {
    let text = "## Tasks\n### lint\n<!-- keep in sync with CI -->\nRuns **all** the [linters](https://x).  \nTakes a while.\n\n\
- Requires: not-an-attribute\n- a bullet\n\n> Note: slow.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n\
Unknown: key stays prose.\n```\nmake lint\n```\n";
    let p = run("README.md", text);
    let t = task(&p, "lint");
    assert_eq!(
        t.description.as_deref(),
        Some(indoc! {"
            Runs all the linters.
            Takes a while.

            Unknown: key stays prose."})
    );
    assert!(t.deps.is_empty());
    assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
}

#[test]
fn interactive_and_hidden_are_attributes_not_prose() {
    let text = indoc! {"
        ## Tasks
        ### configure
        interactive: true
        hidden: true
        ```
        ./configure
        ```
    "};
    let p = run("README.md", text);
    let t = task(&p, "configure");
    assert_eq!(t.description, None);
    assert!(t.behaviour.interactive);
}

#[test]
fn an_unclosed_fence_makes_xc_refuse_the_file() {
    let text = indoc! {"
        ## Tasks
        ### a
        ````
        echo a
        ### b
        ```
    "};
    assert_refused(text, 3, "command block in task a was not ended");
    assert!(fence_closed(indoc! {"
        ```sh
        x
        ```"}));
    assert!(fence_closed("~~~~\nx\n~~~~~  "));
    assert!(!fence_closed(indoc! {"
        ````
        x
        ```"}));
    assert!(!fence_closed("```"));
}

#[test]
fn empty_heading_and_empty_list_entries() {
    let text =
        "## Tasks\n###\n```\nx\n```\n### `*deploy*`\nRequires: build, , \nInputs: ,\n```\nx\n```\n";
    let p = run("README.md", text);
    assert_eq!(names(&p), ["deploy"]);
    assert_eq!(task(&p, "deploy").deps, ["build"]);
    assert!(task(&p, "deploy").params.is_empty());
    assert_eq!(
        messages(&p),
        [(Some(2), "xc task heading has no name; skipped")]
    );
}

#[test]
fn requires_keeps_arguments_as_written() {
    // xc splits each Requires entry with shlex: `greet Joe` runs greet with input Joe.
    let text = indoc! {"
        ## Tasks
        ### greet
        Inputs: NAME
        ```
        echo $NAME
        ```
        ### hi
        Requires: greet Joe
    "};
    let p = run("README.md", text);
    assert_eq!(task(&p, "hi").deps, ["greet Joe"]);
}

#[test]
fn hostile_inputs_do_not_panic_or_hang() {
    let deep = formatdoc! {"
        ## Tasks
        ### a
        {}x
        ```
        a
        ```
    ", ">".repeat(50_000)};
    let _ = run("README.md", &deep);
    let nested = formatdoc! {"
        ## Tasks
        ### a
        {}
    ", "- ".repeat(20_000)};
    let _ = run("README.md", &nested);
    let long = formatdoc! {"
        ## Tasks
        ### a
        Requires: {}
    ", "b, ".repeat(500_000)};
    let p = run("README.md", &long);
    assert_eq!(task(&p, "a").deps.len(), 500_000);
    let inputs = formatdoc! {"
        ## Tasks
        ### a
        Inputs: {}
        Env: {}
        ```
        x
        ```
    ",
        "I, ".repeat(200_000),
        "I=1, ".repeat(200_000)
    };
    let p = run("README.md", &inputs);
    assert_eq!(task(&p, "a").params.len(), 200_000);
    let line = format!("tasks {}", "word *x_ `y` [z](w) ".repeat(200_000));
    assert!(run("README.md", &line).tasks.is_empty());
    for junk in [
        "#",
        "```",
        "<!-- xc-heading -->",
        "<!-- xc-heading -->\n",
        "Tasks\n---",
        "\r\r\n",
    ] {
        let _ = run("README.md", junk);
    }
}

#[test]
fn case_insensitive_search() {
    assert_eq!(find_ignore_case("The TaSkS section", "tasks"), Some(4));
    assert_eq!(find_ignore_case("tasks", "tasks"), Some(0));
    assert_eq!(find_ignore_case("task", "tasks"), None);
    assert_eq!(find_ignore_case("ééé", "tasks"), None);
}

#[test]
fn pre_check_only_passes_possible_tasks_headings() {
    assert!(may_hold_tasks(indoc! {"
        # Project

        ## Tasks
    "}));
    assert!(may_hold_tasks("   ### **TASKS** ###"));
    assert!(may_hold_tasks(indoc! {"
        Intro\r
        \r
        Tasks\r
        -----\r
    "}));
    assert!(may_hold_tasks("Old Mac\rTasks\r===\r"));
    assert!(may_hold_tasks("[Tasks](#tasks)\n---\n"));
    assert!(may_hold_tasks(indoc! {"
        text
        <!-- XC-HEADING -->
        ## Dev
    "}));
    assert!(!may_hold_tasks(indoc! {"
        Runs tasks on a pool.
        Tasks are cheap.

        ---
    "}));
    assert!(!may_hold_tasks("## Usage\nSpawn tasks.\n"));
    assert!(!may_hold_tasks(""));
}
