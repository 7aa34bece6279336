//! `agg list` at a terminal: rows cut with `…` to the terminal's width (measured in display
//! columns, wide characters counted twice), whole with `--wide` and in a pipe; colour only on
//! a terminal or with `CLICOLOR_FORCE`, never with `NO_COLOR`; parameters, marks and a
//! package manager's own command in the rows. The terminal is a real one: a tmux pane.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use unicode_width::UnicodeWidthStr;

use crate::common::tmux::{Screen, run_in_pane};
use crate::test::Test;
use indoc::{formatdoc, indoc};

const LONG_BUILD: &str = "Build every service, the web app, the API and the workers, with release optimisations and a description far longer than any terminal";
const CJK_DEPLOY: &str =
    "デプロイする: 本番環境にアプリケーションをデプロイして、すべてのサービスを再起動します";
const EMOJI_TEST: &str = "Run the tests 🚀🚀🚀 with every feature and the slow integration suites enabled on every platform";
const PRETTIER: &str = "prettier --check 'src/**/*.{ts,tsx,js,jsx,json,css,md}' --ignore-path .gitignore --log-level warn";

/// A repository whose every kind of line is longer than 80 columns: descriptions (ASCII,
/// CJK, emoji), a package manager's script, a heading with many files, a warning.
pub fn wide_repo() -> Test {
    let justfile = formatdoc!(
        "
            # {LONG_BUILD}
            build:
                echo build

            # {CJK_DEPLOY}
            [confirm]
            deploy env:
                echo deploying to {{{{env}}}}

            # {EMOJI_TEST}
            test filter=\"all\":
                echo {{{{filter}}}}
        "
    );
    let test = Test::new()
        .write(".git/HEAD", "ref: refs/heads/main\n")
        .write("justfile", justfile)
        .write(
            "package.json",
            format!(r#"{{"scripts": {{"format:check": "{PRETTIER}"}}}}"#),
        )
        .write("compose.yaml", indoc! {"
            services:
              web:
                image: nginx
        "})
        .write(
            "scripts/deploy-the-whole-platform-to-production.sh",
            indoc! {"
                #!/bin/sh
                # Deploy the whole platform to production, region by region, waiting for each to be healthy
                echo deploy
            "},
        )
        .write(
            "apps/web/package.json",
            r#"{"scripts": {"dev": "vite --host 0.0.0.0 --port 5173 --strictPort --open --config vite.config.development.ts"}}"#,
        )
        .write(
            "apps/web/Makefile",
            indoc! {"
                # Compile the web app's assets, fingerprint them and write the manifest the server reads at start
                assets:
                \techo assets
            "},
        )
        .write(
            "apps/web/broken/package.json",
            "{\"scripts\": {\"a-very-long-script-name-that-is-never-closed-and-goes-on\": \"x\",\n",
        )
        .write("vendor-tools/package.json", "{ not json\n");
    let script = test
        .root()
        .join("scripts/deploy-the-whole-platform-to-production.sh");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    test
}

/// Display width of a screen row.
fn columns(row: &str) -> usize {
    UnicodeWidthStr::width(row)
}

/// `agg ARGS…` in a pane 80 columns wide and 60 rows high on `repo`, with `set` in its
/// environment and `unset` taken out; the screen once it ended.
fn on_80_columns(repo: &Test, set: &[(&str, &str)], unset: &[&str], args: &[&str]) -> Screen {
    run_in_pane(repo.root(), (80, 60), set, unset, agg(), args)
}

fn agg() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_agg"))
}

/// Asserts that no row of `screen` is wider than `width` and that the terminal wrapped
/// none of the lines agg wrote.
#[track_caller]
fn fits(screen: &Screen, width: usize) {
    for row in &screen.rows {
        assert!(
            columns(row) <= width,
            "a row is {} columns wide, more than {width}: {row:?}",
            columns(row)
        );
    }
    let wrapped: Vec<&String> = screen
        .lines
        .iter()
        .filter(|l| !screen.rows.contains(l))
        .collect();
    assert!(
        wrapped.is_empty() && screen.rows.len() == screen.lines.len(),
        "the terminal wrapped {wrapped:?}:\n{}",
        screen.rows.join("\n")
    );
}

#[test]
fn at_80_columns_no_row_is_wider_than_the_terminal_and_nothing_wraps() {
    require!("tmux");
    let repo = wide_repo();
    let screen = on_80_columns(
        &repo,
        &[],
        &["COLUMNS", "NO_COLOR", "CLICOLOR_FORCE"],
        &["list"],
    );
    let shown = screen.rows.join("\n");
    fits(&screen, 80);
    // Every row is still there, cut where it was long.
    for name in [
        "build",
        "deploy env",
        "test filter=\"all\"",
        "format:check",
        "apps/web/dev",
        "apps/web/assets",
    ] {
        assert!(
            shown.contains(&format!("  {name} ")),
            "{name} missing:\n{shown}"
        );
    }
    let cut: Vec<&String> = screen.rows.iter().filter(|r| r.ends_with('…')).collect();
    assert!(cut.len() >= 6, "long rows are cut with …:\n{shown}");
    // The CJK and emoji descriptions are cut at a character, not inside one.
    let deploy = screen.row_with("デプロイ", "deploy row");
    assert!(deploy.ends_with('…') && columns(deploy) <= 80, "{deploy}");
    // The root's heading names the files of the root, the script by its path.
    assert!(
        screen
            .rows
            .iter()
            .any(|r| r.starts_with("./ (") && r.contains("scripts/deploy")),
        "{shown}"
    );
    // A package manager's row shows the script's own command.
    let format = screen.row_with("format:check", "format row");
    assert!(format.contains("$ prettier --check"), "{format}");
    // The marks, and what they mean.
    assert!(
        deploy.contains(" ? "),
        "a task that asks first is marked: {deploy}"
    );
    let web = screen
        .rows
        .iter()
        .find(|r| r.starts_with("  web "))
        .expect("compose service row");
    assert!(web.contains(" ∞ "), "a service is marked: {web}");
    assert!(shown.contains("note: ? asks before it runs"), "{shown}");
    // The warnings at the root are printed, cut like the rows.
    assert!(
        shown.contains("warning: vendor-tools/package.json"),
        "{shown}"
    );
}

#[test]
fn columns_narrows_the_table_and_wide_prints_whole_lines() {
    require!("tmux");
    let repo = wide_repo();
    let narrow = on_80_columns(&repo, &[("COLUMNS", "50")], &["NO_COLOR"], &["list"]);
    fits(&narrow, 50);
    assert!(
        narrow.rows.iter().any(|r| columns(r) == 50),
        "{}",
        narrow.rows.join("\n")
    );

    let wide = on_80_columns(&repo, &[], &["COLUMNS"], &["list", "--wide"]);
    let whole = wide.lines.join("\n");
    for text in [LONG_BUILD, CJK_DEPLOY, EMOJI_TEST, PRETTIER] {
        assert!(whole.contains(text), "--wide cut {text:?}:\n{whole}");
    }
    assert_ne!(
        wide.rows, wide.lines,
        "--wide lines are longer than the terminal"
    );
}

#[test]
fn colour_on_a_terminal_but_never_with_no_color() {
    require!("tmux");
    let repo = wide_repo();
    let coloured = on_80_columns(&repo, &[], &["NO_COLOR", "COLUMNS"], &["list"]);
    assert!(
        coloured.styled.contains("\u{1b}["),
        "no colour on a terminal"
    );
    let plain = on_80_columns(
        &repo,
        &[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")],
        &["COLUMNS"],
        &["list"],
    );
    assert!(
        !plain.styled.contains("\u{1b}["),
        "colour despite NO_COLOR:\n{}",
        plain.styled
    );
    fits(&plain, 80);
}

#[test]
fn clicolor_force_colours_a_pipe_and_no_color_wins_over_it() {
    let run = |env: &[(&str, &str)]| {
        let mut test = wide_repo().args(["list"]).env_remove("NO_COLOR");
        for (k, v) in env {
            test = test.env(*k, *v);
        }
        test.run().success().stdout
    };
    // The builder sets NO_COLOR; each case says what it wants.
    let piped = {
        let out = wide_repo().args(["list"]).run().success();
        out.stdout
    };
    assert!(!piped.contains('\u{1b}'), "colour in a pipe");
    let forced = run(&[("CLICOLOR_FORCE", "1")]);
    assert!(
        forced.contains("\u{1b}["),
        "CLICOLOR_FORCE gave no colour:\n{forced}"
    );
    let both = run(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]);
    assert!(!both.contains('\u{1b}'), "NO_COLOR must win:\n{both}");
}

#[test]
fn a_pipe_gets_whole_lines_whatever_columns_says() {
    let out = wide_repo()
        .env("COLUMNS", "40")
        .args(["list"])
        .run()
        .success();
    for text in [LONG_BUILD, CJK_DEPLOY, EMOJI_TEST, PRETTIER] {
        assert!(
            out.stdout.contains(text),
            "{text:?} cut in a pipe:\n{}",
            out.stdout
        );
    }
    out.stdout_lacks("…");
    // JSON is the same table, whole.
    let json = wide_repo().args(["list", "--json"]).run().success().json();
    let build = &json["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .find(|t| t["unique_name"] == "build")
        .expect("build")["description"];
    assert_eq!(build, LONG_BUILD);
}

#[test]
fn from_a_subdirectory_at_80_columns_its_tasks_come_first_and_nothing_wraps() {
    require!("tmux");
    let repo = wide_repo();
    let screen = run_in_pane(
        &repo.root().join("apps/web"),
        (80, 60),
        &[],
        &["COLUMNS", "NO_COLOR"],
        agg(),
        &["list"],
    );
    fits(&screen, 80);
    let shown = screen.rows.join("\n");
    // The warning about the file below comes first, then this directory's block.
    assert!(
        screen.rows[0].starts_with("warning: apps/web/broken/package.json:2:"),
        "{shown}"
    );
    assert!(
        screen.rows[1].starts_with("apps/web (Makefile, package.json)"),
        "{shown}"
    );
    assert!(screen.rows[2].starts_with("  apps/web/assets "), "{shown}");
    assert!(shown.contains("── the rest of the repository ("), "{shown}");
    assert_eq!(
        screen.rows.last().map(String::as_str),
        Some("1 warning in 1 file elsewhere: agg list --diagnostics"),
        "{shown}"
    );
}

/// A workflow input whose default is a paragraph: at a terminal the default is cut with `…`
/// and the row keeps its runner and description; piped, the default is whole but that one
/// row does not widen the name column of every other row.
#[test]
fn a_long_parameter_default_is_cut_at_a_terminal_and_sets_no_column_width() {
    let default = "a ".repeat(150);
    let workflow = formatdoc!(
        "
            name: Release
            on:
              workflow_dispatch:
                inputs:
                  notes:
                    default: \"{}\"
            jobs:
              publish:
                runs-on: ubuntu-latest
                steps:
                  - run: echo publish
        ",
        default.trim_end()
    );
    let repo = Test::new()
        .write(".git/HEAD", "ref: refs/heads/main\n")
        .write(".github/workflows/release.yml", workflow)
        .write(
            "justfile",
            indoc! {"
                # Build it
                build:
                    echo build

                # Test it
                test:
                    echo test
            "},
        );
    let piped = Test::at(repo.root()).args(["list"]).run().success();
    let out = &piped.stdout;
    let build = out
        .lines()
        .find(|l| l.contains("  build "))
        .expect("build row");
    assert!(
        columns(build) < 60,
        "one long default widened every row: {build:?}"
    );
    assert!(
        out.contains(default.trim_end()),
        "piped, the default is whole:\n{out}"
    );
    require!("tmux");
    let screen = on_80_columns(
        &repo,
        &[],
        &["COLUMNS", "NO_COLOR", "CLICOLOR_FORCE"],
        &["list"],
    );
    fits(&screen, 80);
    let publish = screen.row_with("release/publish", "publish row");
    assert!(publish.contains("…\""), "the default is cut: {publish}");
    assert!(
        publish.contains("act"),
        "the runner stays on the row: {publish}"
    );
}
