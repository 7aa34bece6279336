//! Unit tests of the make adapter (and the helpers the other make tests share).
use super::text::{bounded_lines, comment_text, line_doc};
use super::*;
use crate::files::MemFiles;
pub(super) use crate::testing::names;
use crate::testing::{messages, name_list, task};
use indoc::{formatdoc, indoc};

pub(super) fn run(files: &MemFiles, path: &str) -> Parsed {
    crate::testing::parse_with(parse, files, path)
}

pub(super) fn one(text: &str) -> Parsed {
    run(&MemFiles::new().with("Makefile", text), "Makefile")
}

#[test]
fn candidates_rank_like_make() {
    assert_eq!(candidate("GNUmakefile"), Some(0));
    assert_eq!(candidate("sub/makefile"), Some(1));
    assert_eq!(candidate("a/b/Makefile"), Some(2));
    assert_eq!(candidate("common.mk"), None);
    assert_eq!(candidate("Makefile.am"), None);
    assert_eq!(candidate("MAKEFILE"), None);
}

#[test]
fn self_documenting_makefile() {
    let parsed = one(indoc! {"
        .DEFAULT_GOAL := help
        .PHONY: help build test

        help: ## Show this help
        \t@grep -E '^[a-zA-Z_-]+:.*?## .*$$' $(MAKEFILE_LIST) | awk 'BEGIN {FS = \":.*?## \"}; {printf \"%-20s %s\\n\", $$1, $$2}'

        build: ## Build the binary
        \tcargo build --release

        test: build ## Run the tests
        \tcargo test
    "});
    assert_eq!(names(&parsed), ["help", "build", "test"]);
    let help = task(&parsed, "help");
    assert_eq!(help.description.as_deref(), Some("Show this help"));
    assert_eq!(help.line, Some(4));
    assert_eq!(help.argv, ["make", "help"]);
    assert_eq!(help.dir, ".");
    assert_eq!(help.file_path, "Makefile");
    assert!(
        help.script
            .as_deref()
            .unwrap()
            .starts_with("@grep -E '^[a-zA-Z_-]+:")
    );
    let test = task(&parsed, "test");
    assert_eq!(test.description.as_deref(), Some("Run the tests"));
    assert_eq!(test.deps, ["build"]);
    assert_eq!(test.script.as_deref(), Some("cargo test"));
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
}

#[test]
fn comment_block_above_describes_the_rule() {
    let parsed = one(indoc! {"
        # Makefile for the demo project
        # Copyright nobody

        # Build everything
        # from scratch.
        all: build

        ##########
        # Build  #
        ##########

        # Compile the binary
        .PHONY: build
        build:
        \tcc -o app main.c
        CC = cc
        lint:
        \ttrue
        # Doc above ## wins? no: the line comment does
        fmt: ## Format the code
        \ttrue
    "});
    assert_eq!(
        task(&parsed, "all").description.as_deref(),
        Some("Build everything from scratch.")
    );
    assert_eq!(
        task(&parsed, "build").description.as_deref(),
        Some("Compile the binary")
    );
    assert_eq!(task(&parsed, "lint").description, None);
    assert_eq!(
        task(&parsed, "fmt").description.as_deref(),
        Some("Format the code")
    );
}

#[test]
fn single_hash_on_the_rule_line_is_not_a_description() {
    let parsed = one(indoc! {"
        clean: # TODO also remove dist
        \trm -rf build
        x: ; echo ## not a comment
    "});
    assert_eq!(task(&parsed, "clean").description, None);
    let x = task(&parsed, "x");
    assert_eq!(x.description, None);
    assert_eq!(x.script.as_deref(), Some("echo ## not a comment"));
}

#[test]
fn variables_special_and_pattern_targets() {
    let parsed = one(indoc! {"
        BIN := app
        OUT = build/$(BIN)
        SRC = $(wildcard src/*.c)
        OBJ := $(SRC:.c=.o)
        export FOO=bar
        .DEFAULT_GOAL := all
        .PHONY: all clean
        .SUFFIXES:
        .c.o:
        \t$(CC) -c $<
        all: $(BIN)
        $(BIN): $(OBJ)
        \t$(CC) -o $@ $^
        $(OUT).tar: $(BIN)
        \ttar cf $@ $<
        %.o: %.c
        \t$(CC) -c $<
        $(obj)/%.o: %.c
        \ttrue
        $(OBJ): config.h
        clean:
        \trm -f $(BIN) $(OBJ)
    "});
    assert_eq!(names(&parsed), ["all", "app", "build/app.tar", "clean"]);
    assert_eq!(task(&parsed, "all").deps, ["app"]);
    assert_eq!(task(&parsed, "build/app.tar").deps, ["app"]);
    assert_eq!(
        task(&parsed, "app").script.as_deref(),
        Some("$(CC) -o $@ $^")
    );
}

#[test]
fn target_specific_variables_are_not_tasks() {
    let parsed = one(indoc! {"
        debug: CFLAGS += -O0 -g
        debug: export RUST_LOG = debug
        release: CFLAGS = -O2
        debug release: build
        build:
        \tcc $(CFLAGS) main.c
    "});
    assert_eq!(names(&parsed), ["debug", "release", "build"]);
    assert_eq!(task(&parsed, "debug").line, Some(4));
    assert!(!names(&parsed).iter().any(|n| n.contains("CFLAGS")));
}

#[test]
fn multiple_targets_double_colon_and_repeated_rules() {
    let parsed = one(indoc! {"
        install uninstall: check
        \t./tool $@
        check:
        \ttrue
        clean::
        \trm -rf build
        clean::
        \trm -rf dist
        all: a
        all: b ## Build all
        a:
        \techo a
        b:
        \techo b
        a:
        \techo A
    "});
    assert_eq!(
        names(&parsed),
        ["install", "uninstall", "check", "clean", "all", "a", "b"]
    );
    assert_eq!(
        task(&parsed, "uninstall").script.as_deref(),
        Some("./tool $@")
    );
    assert_eq!(task(&parsed, "uninstall").deps, ["check"]);
    assert_eq!(
        task(&parsed, "clean").script.as_deref(),
        Some("rm -rf build\nrm -rf dist")
    );
    let all = task(&parsed, "all");
    assert_eq!(all.line, Some(9));
    assert_eq!(all.deps, ["a", "b"]);
    assert_eq!(all.description.as_deref(), Some("Build all"));
    // make keeps the last recipe of an ordinary rule (and warns).
    assert_eq!(task(&parsed, "a").script.as_deref(), Some("echo A"));
    // Defined where that recipe is.
    assert_eq!(task(&parsed, "a").line, Some(15));
}

#[test]
fn deps_are_listed_targets_without_order_only() {
    let parsed = one(indoc! {"
        build: main.c lib.c gen | outdir
        \tcc main.c
        gen:
        \t./gen.sh
        outdir:
        \tmkdir -p out
    "});
    assert_eq!(task(&parsed, "build").deps, ["gen"]);
}

#[test]
fn force_style_empty_targets_are_not_listed() {
    let parsed = one(indoc! {"
        .PHONY: placeholder
        version.h: FORCE
        \t./mkversion > $@
        FORCE:
        placeholder:
    "});
    assert_eq!(names(&parsed), ["version.h", "placeholder"]);
    assert!(task(&parsed, "version.h").deps.is_empty());
}

#[test]
fn conditionals_are_evaluated_like_make() {
    let parsed = one(indoc! {"
        ifeq ($(OS),Windows_NT)
        EXE := app.exe
        # Windows only
        installer:
        \tmakensis app.nsi
        package: installer
        else ifdef MACOS
        EXE := app
        package:
        \t./bundle.sh
        else
        EXE := app
        package:
        \ttar czf app.tgz app
        endif
        $(EXE): main.c
        \tcc -o $@ main.c
        test:
        ifdef VERBOSE
        \tcargo test -- --nocapture
        else
        \tcargo test
        endif
    "});
    assert_eq!(names(&parsed), ["package", "app", "test"]);
    assert!(task(&parsed, "package").deps.is_empty());
    // Recipe lines of every branch are shown: they are text, not rules.
    assert_eq!(
        task(&parsed, "test").script.as_deref(),
        Some("cargo test -- --nocapture\ncargo test")
    );
}

#[test]
fn conditionals_on_the_environment_see_it_empty() {
    let parsed = one(indoc! {"
        ifneq ($(CIRCLE_JOB),)
        DIR := test-results
        endif
        $(DIR):
        \tmkdir -p $@
        MODE ?= debug
        ifeq ($(MODE),debug)
        debug-only:
        \ttrue
        else
        release-only:
        \ttrue
        endif
        ifndef MODE
        never:
        \ttrue
        endif
        ifdef MODE
        always:
        \ttrue
        endif
    "});
    assert_eq!(names(&parsed), ["debug-only", "always"]);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
}

#[test]
fn conditionals_that_cannot_be_known_keep_every_branch() {
    let parsed = one(indoc! {"
        ifeq ($(shell ./detect),Darwin)
        mac:
        \ttrue
        else
        linux:
        \ttrue
        endif
        ifneq ($(filter release,$(MAKECMDGOALS)),)
        stamp:
        \ttrue
        endif
        ifdef MAKE_RESTARTS
        restarted:
        \ttrue
        endif
    "});
    assert_eq!(names(&parsed), ["mac", "linux", "stamp", "restarted"]);
}

#[test]
fn rules_inside_a_conditional_in_a_recipe_body() {
    let parsed = one(indoc! {"
        X = 1
        a:
        \techo a
        ifdef X
        b:
        \techo b
        endif
        ifdef Y
        c:
        endif
    "});
    assert_eq!(names(&parsed), ["a", "b"]);
    assert_eq!(task(&parsed, "a").script.as_deref(), Some("echo a"));
    assert_eq!(task(&parsed, "b").script.as_deref(), Some("echo b"));
}

#[test]
fn targets_stay_listed_when_their_prerequisites_cannot_be_expanded() {
    let parsed = one(indoc! {"
        SRCS := $(wildcard cmd/*)
        BINS := $(patsubst cmd/%,bin/%,$(SRCS))
        all: $(BINS)
        install: all
        \tcp bin/* /usr/local/bin
        .PHONY: all install
    "});
    assert_eq!(names(&parsed), ["all", "install"]);
    assert_eq!(task(&parsed, "install").deps, ["all"]);
}

#[test]
fn help_lines_name_their_target() {
    let parsed = one(indoc! {"
        ## build: Builds the binary.
        build:
        \tgo build
        test:
        ## test: Runs the tests.
        \tgo test ./...
        lint: ## Inline wins
        \ttrue
        ## lint: Help line loses

        # fmt: Formats the code
        fmt:
        \tgofmt -w .
        ## Note: not a target
        clean:
        \trm -rf bin
        help:
        \t@sed -n 's/^## //p' $(MAKEFILE_LIST)
    "});
    assert_eq!(
        task(&parsed, "build").description.as_deref(),
        Some("Builds the binary.")
    );
    assert_eq!(
        task(&parsed, "test").description.as_deref(),
        Some("Runs the tests.")
    );
    assert_eq!(
        task(&parsed, "lint").description.as_deref(),
        Some("Inline wins")
    );
    assert_eq!(
        task(&parsed, "fmt").description.as_deref(),
        Some("Formats the code")
    );
    assert_eq!(
        task(&parsed, "clean").description.as_deref(),
        Some("Note: not a target")
    );
}

#[test]
fn an_escaped_hash_inside_shell_is_no_unclosed_parenthesis() {
    let parsed = one(indoc! {"
        V = $(shell head -n 1 .golangci.yml | tr -d '\\# ')
        W = $(shell echo a#b)
        lint:
        \tgolangci-lint run
    "});
    assert_eq!(names(&parsed), ["lint"]);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
}

#[test]
fn define_blocks_hold_no_rules() {
    let parsed = one(indoc! {"
        define PROGRAM_template
        $(1): $$($(1)_OBJS)
        notatarget: x
        \techo nope
        endef
        $(foreach prog,$(PROGRAMS),$(eval $(call PROGRAM_template,$(prog))))
        real:
        \techo yes
    "});
    assert_eq!(names(&parsed), ["real"]);
}

#[test]
fn crlf_line_endings() {
    let parsed = one(indoc! {"
        # Build it\r
        build: gen ## Build\r
        \tcc -o app \\\r
        \t  main.c\r
        \r
        # Generate\r
        gen:\r
        \t./gen.sh\r
    "});
    let build = task(&parsed, "build");
    assert_eq!(build.description.as_deref(), Some("Build"));
    assert_eq!(build.script.as_deref(), Some("cc -o app \\\n  main.c"));
    assert_eq!(build.deps, ["gen"]);
    assert_eq!(
        task(&parsed, "gen").description.as_deref(),
        Some("Generate")
    );
    assert_eq!(task(&parsed, "gen").line, Some(7));
}

/// Found by fuzzing: 64 KB of `\\` and `(\` continuation lines took 2.4 s in
/// makefile-lossless's error recovery, growing superlinearly.
#[test]
fn lines_without_a_separator_are_skipped_before_the_parser_sees_them() {
    let text = String::from_utf8_lossy(include_bytes!(
        "../../../fixtures/fuzz-regressions/make/backslash-pair-lines-inside-an-open-paren"
    ))
    .into_owned();
    let parsed = one(&text);
    assert!(parsed.tasks.is_empty());
    assert!(
        parsed.diagnostics[0].message.contains("missing separator"),
        "{:?}",
        parsed.diagnostics
    );
    let guarded = guard::guard(&text);
    assert!(!guarded.skipped.is_empty());
    let guarded = guarded.text.expect("rewritten");
    assert_eq!(guarded.len(), text.len(), "offsets are kept");
    assert!(guarded.trim().is_empty(), "every line was blanked");
}

/// Found by fuzzing: rule lines ending in `\\\\` followed by `(\\` continuation lines made
/// the parser search the rest of the file for each unclosed `(` (64 KB: 0.3 s, 256 KB: 3.7 s).
#[test]
fn unclosed_parentheses_are_skipped_before_the_parser_sees_them() {
    let text = String::from_utf8_lossy(include_bytes!(
        "../../../fixtures/fuzz-regressions/make/rule-ending-in-backslash-pair-then-open-paren"
    ))
    .into_owned();
    let skipped = guard::guard(&text).skipped;
    assert!(skipped.len() > 1000, "{}", skipped.len());
    let parsed = one(&text);
    assert!(
        parsed
            .diagnostics
            .iter()
            .any(|d| d.message.contains("make stops here"))
    );
}

/// Found by fuzzing: one variable definition continued over thousands of lines made
/// `VariableDefinition::name` quadratic in the mutable tree (64 KB: 1.3 s, 256 KB: 20 s);
/// the tree is read immutably now. Both inputs, repeated to 256 KB, still read right.
#[test]
fn variable_definitions_continued_over_thousands_of_lines() {
    let grown = |bytes: &[u8]| {
        let text = String::from_utf8_lossy(bytes).into_owned();
        text.repeat(4)
    };
    let define = grown(include_bytes!(
        "../../../fixtures/fuzz-regressions/make/define-line-continued-into-an-assignment"
    ));
    let parsed = one(&define);
    assert!(parsed.tasks.is_empty());
    assert!(
        parsed.diagnostics[0].message.contains("missing `endef`"),
        "{:?}",
        parsed.diagnostics
    );
    let dollars = grown(include_bytes!(
        "../../../fixtures/fuzz-regressions/make/one-long-line-of-dollar-assignments"
    ));
    let parsed = one(&dollars);
    assert!(parsed.tasks.is_empty());

    // A value continued over 20,000 lines still names the target after it.
    let long = formatdoc! {"
        BIN := app{}
        $(BIN): ## Build it
        \tcc -o $@
    ",
        " \\\n".repeat(20_000)
    };
    let parsed = one(&long);
    assert_eq!(names(&parsed), ["app"]);
    let app = task(&parsed, "app");
    assert_eq!(app.line, Some(20_002));
    assert_eq!(app.description.as_deref(), Some("Build it"));
    assert_eq!(app.script.as_deref(), Some("cc -o $@"));
}

#[test]
fn recipe_prefix_and_inline_recipes() {
    let parsed = one(indoc! {"
        .RECIPEPREFIX = >
        foo:
        >echo hi
        bar: ; @echo inline
    "});
    assert_eq!(task(&parsed, "foo").script.as_deref(), Some("echo hi"));
    assert_eq!(task(&parsed, "bar").script.as_deref(), Some("@echo inline"));
}

#[test]
fn includes_belong_to_the_including_directory() {
    let files = MemFiles::new()
        .with(
            "svc/Makefile",
            indoc! {"
                BIN := svc
                include mk/common.mk
                -include $(DEPS)
                all: lint $(BIN)
            "},
        )
        .with(
            "svc/mk/common.mk",
            indoc! {"
                # Lint the code
                lint:
                \tgolangci-lint run
                $(BIN):
                \tgo build -o $(BIN)
                include mk/more.mk
            "},
        )
        .with(
            "svc/mk/more.mk",
            indoc! {"
                TOOL = fmt
                $(TOOL): ## Format
                \tgofmt -w .
            "},
        );
    let parsed = run(&files, "svc/Makefile");
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    assert_eq!(names(&parsed), ["lint", "svc", "fmt", "all"]);
    let lint = task(&parsed, "lint");
    assert_eq!(lint.dir, "svc");
    assert_eq!(lint.file_path, "svc/mk/common.mk");
    assert_eq!(lint.line, Some(2));
    assert_eq!(lint.description.as_deref(), Some("Lint the code"));
    // Nested includes resolve from make's working directory, not the including file.
    assert_eq!(task(&parsed, "fmt").file_path, "svc/mk/more.mk");
    assert_eq!(task(&parsed, "all").deps, ["lint", "svc"]);
    assert_eq!(parsed.consumed, ["svc/mk/common.mk", "svc/mk/more.mk"]);
}

#[test]
fn an_included_makefile_stays_listed_on_its_own() {
    let files = MemFiles::new()
        .with("Makefile", "root:\n")
        .with("sub/Makefile", "include ../Makefile\nsub:\n");
    let parsed = run(&files, "sub/Makefile");
    assert_eq!(names(&parsed), ["root", "sub"]);
    assert!(parsed.consumed.is_empty());
}

#[test]
fn broken_makefile_keeps_its_good_rules() {
    let parsed = one(indoc! {"
        good1:
        \techo 1
        this line is garbage
          so is this one
        bad: $(unclosed
        good2: good1 ## After the garbage
        \techo 2
        endif
        else
        more garbage
        even more
        good3:
        \techo 3
    "});
    assert!(names(&parsed).contains(&"good1"));
    assert!(names(&parsed).contains(&"good2"));
    assert!(names(&parsed).contains(&"good3"));
    assert!(!names(&parsed).iter().any(|n| n.contains("garbage")));
    let good2 = task(&parsed, "good2");
    assert_eq!(good2.description.as_deref(), Some("After the garbage"));
    assert_eq!(good2.deps, ["good1"]);
    // make stops at the first line it cannot read; agg lists what it could read, not
    // runnable, with make's message, and says where make stops.
    assert_eq!(
        good2.behaviour.not_runnable.as_deref(),
        Some("make stops at Makefile:3: *** missing separator.  Stop.")
    );
    let refused: Vec<(Option<u32>, &str)> = parsed
        .diagnostics
        .iter()
        .filter(|d| d.message.starts_with("make stops here"))
        .map(|d| (d.line, d.message.as_str()))
        .collect();
    assert_eq!(
        refused[0],
        (Some(3), "make stops here: *** missing separator.  Stop.")
    );
    assert!(
        refused.len() <= MAX_SYNTAX_DIAGNOSTICS,
        "{:?}",
        parsed.diagnostics
    );
    assert!(
        parsed.diagnostics.len() <= 2 * MAX_SYNTAX_DIAGNOSTICS + 2,
        "{:?}",
        parsed.diagnostics
    );
}

/// A file make refuses while reading (bat's test fixture: a Makefile written through a
/// syntax highlighter, escape codes and all) stops make at its first line: every target is
/// listed not runnable, with make's own message. A line make never reads (in a branch it
/// skips) stops nothing; one under a condition agg cannot decide may.
#[test]
fn a_file_make_refuses_while_reading_lists_its_targets_not_runnable() {
    let parsed = one(indoc::indoc! {"
        \u{1b}[38;2;124;120;101m#\u{1b}[0m Redis Makefile
        all: server
        \tcc -o server
        server:
        \ttrue
    "});
    assert_eq!(names(&parsed), ["all", "server"]);
    for name in ["all", "server"] {
        assert_eq!(
            task(&parsed, name).behaviour.not_runnable.as_deref(),
            Some("make stops at Makefile:1: *** missing separator.  Stop."),
        );
    }
    assert_eq!(
        messages(&parsed),
        [(
            "Makefile",
            Some(1),
            "make stops here: *** missing separator.  Stop."
        )]
    );

    let parsed = one(indoc::indoc! {"
        ifeq ($(OS),Windows_NT)
        this is no rule
        endif
        ifeq ($(shell ./detect),yes)
        neither is this
        endif
        build:
                cc -o app
    "});
    assert_eq!(names(&parsed), ["build"]);
    assert_eq!(
        task(&parsed, "build").behaviour.not_runnable.as_deref(),
        Some(
            "make stops at Makefile:8: *** missing separator (did you mean TAB instead of 8 spaces?).  Stop."
        )
    );
    let said = messages(&parsed);
    assert_eq!(said.len(), 2, "{said:?}");
    assert!(
        said[0]
            .2
            .starts_with("make may stop here, depending on `ifeq ($(shell ./detect),yes)`"),
        "{said:?}"
    );
}

#[test]
fn unterminated_define_swallows_the_rest_like_make() {
    let parsed = one(indoc! {"
        before:
        define X
        after:
    "});
    assert_eq!(names(&parsed), ["before"]);
    assert_eq!(parsed.diagnostics.len(), 1);
}

#[test]
fn odd_inputs_do_not_panic() {
    for text in [
        "",
        "\n\n\n",
        ":",
        "::=",
        "$(",
        "${}:",
        "\t\techo orphan recipe\n",
        "a:\\",
        "a: b \\\n",
        indoc! {"
            ifeq (
            endif
            endif
            else
        "},
        "define\n",
        "include\n",
        "-include\n",
        "a b c :: d | e | f ; g\n",
        indoc! {"
            é: ü ## ünïcode
            \techo ✓
        "},
        "\u{feff}all:\n",
        "a:\r",
        "#\\\nb:\n",
        "x = $(x)\n$(x):\n",
        indoc! {"
            .RECIPEPREFIX =
            a:
            \tb
        "},
    ] {
        let _ = one(text);
    }
}

#[test]
fn long_lines_stay_fast_enough_to_finish() {
    let many = "x ".repeat(200_000);
    let parsed = one(&formatdoc! {"
        all: {many}
        x:
        \techo x
    "});
    assert_eq!(task(&parsed, "all").deps, ["x"]);
    // So many targets before the `:` looks like garbage to the guard: skipped, said so.
    let parsed = one(&format!("{many}: y\nok:\n"));
    assert_eq!(names(&parsed), ["ok"]);
    assert_eq!(parsed.diagnostics.len(), 1);
    let parsed = one(&format!("{}\nok:\n", ") ".repeat(200_000)));
    assert_eq!(names(&parsed), ["ok"]);
    let recipe = "\techo hi\n".repeat(100_000);
    let parsed = one(&format!("big:\n{recipe}"));
    assert!(
        task(&parsed, "big")
            .script
            .as_deref()
            .unwrap()
            .ends_with('…')
    );
    let _ = one(&format!("include {many}\n"));
}

#[test]
fn helpers() {
    assert_eq!(line_doc(": a b ## Doc text"), Some("Doc text".to_owned()));
    assert_eq!(line_doc(": $(X#) ## Doc"), Some("Doc".to_owned()));
    assert_eq!(line_doc(": a\\#b ## Doc"), Some("Doc".to_owned()));
    assert_eq!(line_doc(": a ##"), None);
    assert_eq!(comment_text("## -------"), None);
    assert_eq!(comment_text("##   indented"), Some("  indented"));
    assert_eq!(bounded_lines(["ab", "cd"].into_iter(), 4), "ab\nc…");
    assert_eq!(bounded_lines(["ab", "cd"].into_iter(), 5), "ab\ncd");
    assert_eq!(bounded_lines(["abcdef"].into_iter(), 4), "abcd…");
    assert_eq!(bounded_lines(["aé"].into_iter(), 2), "a…");
}

/// The host's `uname -s`, as agg answers it for `$(shell uname -s)`.
fn host_uname() -> &'static str {
    expand::host_uname().expect("a host agg knows")
}

#[test]
fn platform_probes_have_the_hosts_answer() {
    let parsed = one(indoc! {"
        OS := $(shell uname -s)
        SUF = so
        ifeq ($(OS),Darwin)
        SUF = dylib
        endif
        lib.$(SUF):
        \ttouch $@
        ifeq ($(shell uname),Linux)
        linux-only:
        \ttrue
        else
        not-linux:
        \ttrue
        endif
        ARCH = $(shell uname -m)
        ifneq ($(ARCH),)
        arch-known:
        \ttrue
        endif
        ifeq ($(OS),Windows_NT)
        windows:
        \ttrue
        endif
    "});
    let (lib, linux) = if host_uname() == "Darwin" {
        ("lib.dylib", "not-linux")
    } else if host_uname() == "Linux" {
        ("lib.so", "linux-only")
    } else {
        ("lib.so", "not-linux")
    };
    assert_eq!(names(&parsed), [lib, linux, "arch-known"]);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    assert_eq!(task(&parsed, lib).script.as_deref(), Some("touch $@"));
}

#[test]
fn wildcard_conditions_test_the_files_that_exist() {
    let text = indoc! {"
        ifeq ($(wildcard po/Makefile),po/Makefile)
        po:
        \t$(MAKE) -C po
        endif
        ifneq ($(wildcard docs/*.md),)
        docs:
        \tmkdocs build
        endif
        HAVE_GO := $(wildcard go.mod)
        ifdef HAVE_GO
        go-test:
        \tgo test ./...
        endif
    "};
    let bare = run(&MemFiles::new().with("sub/Makefile", text), "sub/Makefile");
    assert!(names(&bare).is_empty(), "{:?}", names(&bare));
    let full = run(
        &MemFiles::new()
            .with("sub/Makefile", text)
            .with("sub/po/Makefile", "all:\n")
            .with("sub/docs/index.md", "")
            .with("sub/go.mod", "module x\n")
            .with("po/Makefile", "")
            .with("go.mod", ""),
        "sub/Makefile",
    );
    assert_eq!(names(&full), ["po", "docs", "go-test"]);
    assert!(full.diagnostics.is_empty(), "{:?}", full.diagnostics);
    // Only the sub-directory's files count: make runs there.
    let root_only = run(
        &MemFiles::new()
            .with("sub/Makefile", text)
            .with("po/Makefile", "")
            .with("go.mod", ""),
        "sub/Makefile",
    );
    assert!(names(&root_only).is_empty(), "{:?}", names(&root_only));
}

#[test]
fn rows_that_depend_on_a_condition_agg_cannot_evaluate_say_so() {
    let parsed = one(indoc! {"
        MODE = plain
        ifeq ($(shell ./detect-gpu),yes)
        MODE = gpu
        gpu-check:
        \tnvidia-smi
        endif
        run-$(MODE):
        \t./run
        always:
        \ttrue
    "});
    assert_eq!(names(&parsed), ["gpu-check", "run-gpu", "always"]);
    let note = "# agg did not evaluate `ifeq ($(shell ./detect-gpu),yes)` (Makefile:2)";
    for name in ["gpu-check", "run-gpu"] {
        let script = task(&parsed, name).script.clone().unwrap_or_default();
        assert!(script.starts_with(note), "{name}: {script}");
    }
    assert_eq!(task(&parsed, "always").script.as_deref(), Some("true"));
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    // Rules of a file included under such a condition depend on it too.
    let files = MemFiles::new()
        .with(
            "Makefile",
            indoc! {"
                ifneq ($(filter ci,$(MAKECMDGOALS)),)
                include ci.mk
                endif
                build:
                \ttrue
            "},
        )
        .with(
            "ci.mk",
            indoc! {"
                ci:
                \t./ci.sh
            "},
        );
    let parsed = run(&files, "Makefile");
    assert_eq!(names(&parsed), ["ci", "build"]);
    let script = task(&parsed, "ci").script.clone().unwrap_or_default();
    assert!(script.contains("(Makefile:1)"), "{script}");
    assert_eq!(task(&parsed, "build").script.as_deref(), Some("true"));
}

#[test]
fn undefined_variables_in_target_names_are_empty() {
    let parsed = one(indoc! {"
        NAME=server$(SUFFIX)
        $(NAME): main.c
        \tcc -o $@ main.c
        $(DESTDIR)/install-stamp:
        \ttouch $@
        $(CURDIR)/here:
        \ttrue
    "});
    assert_eq!(names(&parsed), ["server", "/install-stamp"]);
}

#[test]
fn a_makefile_that_stops_itself_is_listed_but_not_runnable() {
    let parsed = one(indoc! {"
        ifndef FROM_TOP
        $(error run make from the top directory)
        endif
        build:
        \ttrue
    "});
    assert_eq!(names(&parsed), ["build"]);
    assert_eq!(
        messages(&parsed),
        [(
            "Makefile",
            Some(2),
            "make stops here: run make from the top directory"
        )]
    );
    assert_eq!(
        task(&parsed, "build").behaviour.not_runnable.as_deref(),
        Some("make stops at Makefile:2: run make from the top directory")
    );
    // Set, or in a branch make does not take, it stops nothing.
    let parsed = one(indoc! {"
        FROM_TOP = 1
        ifndef FROM_TOP
        $(error run make from the top directory)
        endif
        build:
        \t$(error only when built)
    "});
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    assert_eq!(task(&parsed, "build").behaviour.not_runnable, None);
    // Under a condition agg cannot evaluate, make may stop or not: said, still runnable.
    let parsed = one(indoc! {"
        ifeq ($(shell ./configure --check),missing)
        $(error run ./configure first)
        endif
        build:
        \ttrue
    "});
    assert_eq!(
        messages(&parsed),
        [(
            "Makefile",
            Some(2),
            "make may stop here, depending on `ifeq ($(shell ./configure --check),missing)` \
             (Makefile:1): run ./configure first"
        )]
    );
    assert_eq!(task(&parsed, "build").behaviour.not_runnable, None);
}

#[test]
fn an_indented_error_in_a_top_level_conditional_is_no_recipe() {
    let parsed = one(indoc! {"
        V = 1
        ifeq ($(V),2)
        \t$(error V must not be 2)
        endif
        build:
        \ttrue
    "});
    assert_eq!(names(&parsed), ["build"]);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    assert_eq!(task(&parsed, "build").behaviour.not_runnable, None);
}

#[test]
fn defined_at_is_the_rule_with_the_recipe() {
    let files = MemFiles::new()
        .with(
            "Makefile",
            indoc! {"
                include extra.mk
                build:
                \tcc main.c
            "},
        )
        .with(
            "extra.mk",
            indoc! {"
                build: extra
                extra:
                \ttrue
            "},
        );
    let parsed = run(&files, "Makefile");
    assert_eq!(names(&parsed), ["build", "extra"]);
    let build = task(&parsed, "build");
    assert_eq!(
        (build.file_path.as_str(), build.line),
        ("Makefile", Some(2))
    );
    assert_eq!(build.deps, ["extra"]);
}

#[test]
fn empty_phony_and_double_colon_targets_are_listed() {
    let parsed = one(indoc! {"
        .PHONY: all
        default: all precheck FORCE
        all:
        precheck::
        define T
        precheck:: ; @echo $(1)
        endef
        $(eval $(call T,x))
        FORCE:
    "});
    assert_eq!(names(&parsed), ["default", "all", "precheck"]);
    assert_eq!(task(&parsed, "default").deps, ["all", "precheck"]);
}

/// Every form Makefiles write the platform probe in decides its conditional as make does on
/// this host (git's and hiredis's `sh -c '… || echo not'`, redis's `| tr` to lower case, `!=`,
/// `uname -p`/`-o`, and `$(OS)`, empty outside Windows).
#[test]
fn platform_probes_in_every_written_form_decide() {
    let (kernel, machine) = (host_uname(), expand::platform_probe("uname -m").unwrap());
    let forms = [
        ("$(shell uname -s)", kernel.to_owned()),
        (
            "$(shell sh -c 'uname -s 2>/dev/null || echo not')",
            kernel.to_owned(),
        ),
        (
            "$(shell uname -s 2>/dev/null || echo unknown)",
            kernel.to_owned(),
        ),
        (
            "$(shell /bin/sh -c \"uname -m 2>/dev/null\")",
            machine.clone(),
        ),
        (
            "$(shell uname -s | tr '[:upper:]' '[:lower:]')",
            kernel.to_ascii_lowercase(),
        ),
        (
            "$(shell uname -s | tr A-Z a-z)",
            kernel.to_ascii_lowercase(),
        ),
        ("$(shell uname --machine)", machine.clone()),
        ("$(shell uname -sm)", format!("{kernel} {machine}")),
    ];
    for (probe, answer) in forms {
        let parsed = one(&formatdoc! {"
            P := {probe}
            ifeq ($(P),{answer})
            right:
            \ttrue
            else
            wrong:
            \ttrue
            endif
        "
        });
        assert_eq!(names(&parsed), ["right"], "{probe}");
        assert!(
            task(&parsed, "right").script.as_deref() == Some("true"),
            "{probe}"
        );
    }
    let parsed = one(indoc::indoc! {"
        UNAME != uname -s
        uname_S := $(shell sh -c 'uname -s 2>/dev/null || echo not')
        ifneq ($(findstring MINGW,$(uname_S)),)
        X = .exe
        endif
        ifeq ($(OS),Windows_NT)
        X = .exe
        endif
        git$(X):
        \tcc -o $@
        ifeq ($(UNAME),$(uname_S))
        same:
        \ttrue
        endif
    "});
    if cfg!(windows) {
        return;
    }
    assert_eq!(names(&parsed), ["git", "same"]);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    if host_uname() == "Linux" {
        for (probe, answer) in [("uname -p", "unknown"), ("uname -o", "GNU/Linux")] {
            assert_eq!(expand::platform_probe(probe).as_deref(), Some(answer));
        }
    }
    // Anything else stays unknown: the kernel's release, another program, another filter.
    for command in [
        "uname -r",
        "uname -s | sed s/x/y/",
        "sh -c 'uname -s; rm -rf /'",
        "lsb_release -i",
    ] {
        assert_eq!(expand::platform_probe(command), None, "{command}");
    }
}

/// `$(ARCH_MAP_$(shell uname -m))` names a variable by the probe's answer (redis
/// `modules/common.mk`): the `$(error)` guarding an unknown architecture is not reached.
#[test]
fn computed_variable_names_are_evaluated() {
    let machine = expand::platform_probe("uname -m").unwrap();
    let parsed = one(&format!(
        indoc::indoc! {"
            ARCH_MAP_{machine} := x64
            ARCH_MAP_sparc := sparc
            ARCH := $(ARCH_MAP_$(shell uname -m))
            ifeq ($(ARCH),)
            \t$(error Unrecognized CPU architecture $(shell uname -m))
            endif
            KIND = arch
            NAME_arch = module-$(ARCH)
            $(NAME_$(KIND)):
            \tcc -o $@
        "},
        machine = machine
    ));
    assert_eq!(names(&parsed), ["module-x64"]);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    assert!(task(&parsed, "module-x64").behaviour.not_runnable.is_none());
    // An architecture the map lacks: make stops, and so does the listing's verdict.
    let parsed = one(indoc::indoc! {"
        ARCH := $(ARCH_MAP_$(shell uname -m))
        ifeq ($(ARCH),)
        \t$(error Unrecognized CPU architecture)
        endif
        all:
        \ttrue
    "});
    assert!(task(&parsed, "all").behaviour.not_runnable.is_some());
}

/// A section banner above a target's own comment is a divider, not part of its
/// description (kind's `# ===== Testing =====` over `# unit tests (hermetic)`).
#[test]
fn banner_and_divider_lines_are_not_descriptions() {
    let parsed = one(indoc::indoc! {"
        ################################################################################
        # ================================= Testing ====================================
        # unit tests (hermetic)
        unit:
        \tgo test ./...
        # ---------- Lint ----------
        lint:
        \tgolangci-lint run
        #### Release ####
        # Build and push the images
        # -----
        release:
        \t./release.sh
    "});
    let described: Vec<(&str, Option<&str>)> = parsed
        .tasks
        .iter()
        .map(|t| (t.source_name.as_str(), t.description.as_deref()))
        .collect();
    assert_eq!(
        described,
        [
            ("unit", Some("unit tests (hermetic)")),
            ("lint", None),
            ("release", Some("Build and push the images")),
        ]
    );
}

/// Targets named with a leading dot that are not special targets are files make builds and
/// runs by name (`make .stamp`): listed, as `make -pRrq` lists them. Special targets and
/// suffix rules (`.c.o`) are not.
#[test]
fn dot_named_targets_that_are_not_special_are_listed() {
    let parsed = one(indoc::indoc! {"
        .PHONY: all
        .SUFFIXES: .c .o
        .c.o:
        \tcc -c $<
        .DELETE_ON_ERROR:
        all: .make-prerequisites
        \ttrue
        .make-prerequisites:
        \ttouch $@
        .stamp: .make-prerequisites
        \ttouch $@
        .git/hooks/pre-commit: scripts/hook
        \tcp scripts/hook $@
    "});
    assert_eq!(
        name_list(&parsed),
        "all, .make-prerequisites, .stamp, .git/hooks/pre-commit"
    );
    assert_eq!(task(&parsed, "all").deps, [".make-prerequisites"]);
}
