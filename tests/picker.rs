//! The picker `agg` alone and `agg run` without a name open at a terminal, driven in a real
//! one (tmux): filtering, moving, running, asking for parameters, leaving, resizing; and
//! what the same commands do without a terminal.

use std::path::Path;

use crate::common::tmux::Tmux;
use crate::test::Test;

const MAKEFILE: &str = "\
build: ## Build every service
\t@echo \"make build ran\"

lint: ## Check the style
\t@echo \"lint found 3 problems\"; exit 3

release: ## Cut a release
\t@echo \"release ran\"
";

const JUSTFILE: &str = "\
# Build the release artefacts
build:
    @echo \"just build ran\"

# Greet someone
greet name greeting=\"hello\":
    @echo \"{{greeting}}, {{name}}!\"
";

const WEB_MAKEFILE: &str = "\
serve: ## Serve the web app
\t@echo serving
";

/// A repository with make tasks at the root and in `apps/web`, and a history store of its own.
struct Repo {
    root: tempfile::TempDir,
    cache: tempfile::TempDir,
}

impl Repo {
    fn new(just: bool) -> Repo {
        // `.git` makes the temporary directory the repository, found from `apps/web` too.
        let mut files = vec![
            (".git/HEAD", "ref: refs/heads/main\n"),
            ("Makefile", MAKEFILE),
            ("apps/web/Makefile", WEB_MAKEFILE),
        ];
        if just {
            files.push(("justfile", JUSTFILE));
        }
        Repo {
            root: crate::common::repo(&files),
            cache: tempfile::tempdir().expect("tmp"),
        }
    }

    /// `agg ARGS` in `dir` (relative to the root) on a terminal of this size.
    fn open(&self, dir: &str, args: &str, width: u16, height: u16) -> Tmux {
        let env: [(&str, &Path); 1] = [("XDG_STATE_HOME", self.cache.path())];
        Tmux::start(&self.root.path().join(dir), args, &env, width, height)
    }

    /// The picker (`agg` alone) on a new repository, opened in `dir` on a terminal of this
    /// size, once it lists all four make tasks: the repository, the terminal, the screen.
    fn picker(just: bool, dir: &str, width: u16, height: u16) -> (Repo, Tmux, String) {
        let repo = Repo::new(just);
        let term = repo.open(dir, "", width, height);
        let screen = term.wait_for("4/4");
        (repo, term, screen)
    }

    /// The picker on this repository (with the justfile) on a terminal `width` wide, `greet`
    /// typed and the only match: the terminal and the screen.
    fn greet_selected(&self, width: u16) -> (Tmux, String) {
        let term = self.open(".", "", width, 24);
        term.wait_for("/6");
        term.type_text("greet");
        let screen = term.wait_for("1/6");
        (term, screen)
    }

    fn agg<const N: usize>(&self, args: [&str; N]) -> Test {
        Test::at(self.root.path())
            .env("XDG_STATE_HOME", self.cache.path())
            .args(args)
    }
}

/// The rows of the list: the lines that show a runner after a name, left of the preview.
/// Asserts that the screen shows `part`.
#[track_caller]
fn shows(screen: &str, part: &str) {
    assert!(
        screen.contains(part),
        "{part:?} not on the screen:\n{screen}"
    );
}

fn rows(screen: &str) -> Vec<String> {
    screen
        .lines()
        .map(|l| l.split('│').next().unwrap_or_default())
        .filter(|l| l.contains(" make ") || l.contains(" just "))
        .map(|l| l.split_whitespace().next().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn picker_filters_as_you_type_counts_and_highlights_matches() {
    require!("tmux");
    let (_repo, term, screen) = Repo::picker(false, ".", 100, 24);
    assert!(
        term.alternate_screen(),
        "the picker uses the alternate screen"
    );
    assert_eq!(
        rows(&screen),
        ["build", "lint", "release", "apps/web/serve"]
    );
    // Fuzzy: `rls` is r…l…s of `release` only.
    term.type_text("rls");
    let screen = term.wait_for("1/4");
    assert_eq!(rows(&screen), ["release"], "{screen}");
    shows(&screen, "❯ rls");
    // The matched characters of the name are drawn in yellow (tmux writes colour 3 as
    // `38;5;3`), the others not.
    let styled = term.screen_styled();
    let release = styled
        .lines()
        .find(|l| l.contains("ase"))
        .expect("the release row");
    for (c, marked) in [('r', true), ('e', false), ('l', true), ('s', true)] {
        let yellow =
            release.contains(&format!("38;5;3m{c}")) || release.contains(&format!("33m{c}"));
        assert_eq!(yellow, marked, "`{c}` highlighted: {marked}; {release:?}");
    }
    // Backspace widens the match again; a query nothing matches says so.
    term.keys(&["BSpace", "BSpace", "BSpace"]);
    term.wait_for("4/4");
    term.type_text("zzz");
    let screen = term.wait_for("0/4");
    shows(&screen, "no task matches");
    term.quit_with("Escape", 130);
    assert!(!term.alternate_screen(), "the alternate screen is left");
}

#[test]
fn picker_shows_the_current_directory_first_and_ranks_by_score_once_typing() {
    require!("tmux");
    let (_repo, term, screen) = Repo::picker(false, "apps/web", 100, 24);
    assert_eq!(
        rows(&screen),
        ["apps/web/serve", "build", "lint", "release"]
    );
    // `le` is in the name `release` and only in the descriptions of build and lint: release
    // comes first although it comes last in the tree; serve, without an `l`, is gone.
    term.type_text("le");
    let screen = term.wait("release first", |s| {
        s.contains("❯ le") && rows(s).first().is_some_and(|r| r == "release")
    });
    let rows = rows(&screen);
    assert_eq!(rows.len(), 3, "{screen}");
    assert!(!rows.contains(&"apps/web/serve".to_owned()), "{screen}");
    term.quit_with("C-c", 130);
}

#[test]
fn picker_enter_runs_the_selected_task_in_the_foreground_with_its_exit_code() {
    require!("tmux", "make");
    let (repo, term, screen) = Repo::picker(false, ".", 100, 24);
    // The preview shows the selected task.
    shows(&screen, "make build");
    shows(&screen, "Makefile:1");
    term.keys(&["Down"]);
    let screen = term.wait_for("Makefile:4");
    shows(&screen, "Check the style");
    term.keys(&["Enter"]);
    // make says the recipe failed with its own code, 2, which agg passes on.
    let line = term.exit_line();
    assert_eq!(line, "agg exited 2, terminal restored");
    let screen = term.screen();
    shows(&screen, "lint found 3 problems");
    shows(&screen, "agg run lint");
    drop(term);
    // The run went into the history, and the next picker's preview shows it.
    let out = repo.agg(["describe", "lint"]).run().success();
    out.stdout_has("failed (exit 2)");
    let term = repo.open(".", "", 100, 24);
    // Typed before the picker is up, the keys would be echoed by the terminal.
    term.wait_for("4/4");
    term.type_text("lint");
    let screen = term.wait_for("1/4");
    shows(&screen, "last run");
    shows(&screen, "failed (exit 2)");
    term.quit_with("Escape", 130);
}

#[test]
fn picker_asks_for_required_params_showing_defaults_then_runs() {
    require!("tmux", "just");
    let repo = Repo::new(true);
    let (term, screen) = repo.greet_selected(100);
    shows(&screen, "name (required)");
    shows(&screen, "greeting = hello");
    term.keys(&["Enter"]);
    term.wait_for("name (required):");
    // An empty answer to a required parameter is asked again.
    term.keys(&["Enter"]);
    term.wait_for("a value is required");
    term.type_text("Ada");
    term.keys(&["Enter"]);
    term.wait_for("greeting [hello]:");
    term.quit_with("Enter", 0);
    assert!(term.screen().contains("hello, Ada!"), "{}", term.screen());
}

#[test]
fn picker_leaves_with_130_on_esc_and_ctrl_c_and_on_ctrl_d_at_a_prompt() {
    require!("tmux", "just");
    let repo = Repo::new(true);
    for key in ["Escape", "C-c"] {
        let term = repo.open(".", "run", 80, 24);
        term.wait_for("/6");
        term.keys(&[key]);
        assert_eq!(
            term.exit_line(),
            "agg exited 130, terminal restored",
            "{key}"
        );
        assert!(!term.screen().contains("ran"), "nothing ran on {key}");
    }
    let (term, _) = repo.greet_selected(80);
    term.keys(&["Enter"]);
    term.wait_for("name (required):");
    term.quit_with("C-d", 130);
    assert!(!term.screen().contains("hello"), "nothing ran");
}

#[test]
fn picker_restores_the_terminal_on_sigterm() {
    require!("tmux");
    let (_repo, term, _) = Repo::picker(false, ".", 80, 24);
    let pid = term.agg_pid().expect("agg's pid");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(i32::try_from(pid).expect("pid")),
        nix::sys::signal::Signal::SIGTERM,
    )
    .expect("kill");
    term.assert_exited(143);
    assert!(!term.alternate_screen());
}

#[test]
fn picker_ends_when_its_terminal_goes_away() {
    require!("tmux");
    let (_repo, term, _) = Repo::picker(false, ".", 80, 24);
    let pid = term.agg_pid().expect("agg's pid");
    // The terminal closes under the picker (as when its window is closed).
    drop(term);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while crate::common::alive(pid) {
        if std::time::Instant::now() > deadline {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(i32::try_from(pid).expect("pid")),
                nix::sys::signal::Signal::SIGKILL,
            );
            panic!("agg kept running after its terminal went away");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn picker_redraws_to_the_new_size_when_the_terminal_is_resized() {
    require!("tmux");
    let (_repo, term, wide) = Repo::picker(false, ".", 120, 30);
    // Wide: the preview sits beside the list, on the same line as the first row.
    let first = wide.lines().find(|l| l.contains("build")).expect("row");
    assert!(
        first.contains("Build every service") && first.contains("│"),
        "{wide}"
    );
    term.resize(60, 20);
    let narrow = term.wait("a 60-column redraw", |s| {
        s.lines()
            .next()
            .is_some_and(|l| l.trim_end().ends_with("4/4"))
            && s.lines().all(|l| l.chars().count() <= 60)
            && s.contains("defined at")
    });
    // Narrow: the preview moved below the list.
    let row = narrow
        .lines()
        .position(|l| l.contains("release"))
        .expect("row");
    let preview = narrow
        .lines()
        .position(|l| l.contains("defined at"))
        .expect("preview");
    assert!(preview > row, "{narrow}");
    term.quit_with("Escape", 130);
}

#[test]
fn run_with_a_name_several_tasks_share_picks_among_them_at_a_terminal() {
    require!("tmux", "just");
    let repo = Repo::new(true);
    let term = repo.open(".", "run build", 100, 24);
    let screen = term.wait_for("2/2");
    shows(&screen, "`build` names 2 tasks");
    assert_eq!(rows(&screen), ["build-m", "build-j"]);
    term.keys(&["Down", "Enter"]);
    term.assert_exited(0);
    assert!(
        term.screen().contains("just build ran"),
        "{}",
        term.screen()
    );
}

#[test]
fn agg_alone_without_a_terminal_prints_the_list() {
    let repo = Repo::new(false);
    let out = repo.agg([]).run().success();
    let list = repo.agg(["list"]).run().success();
    assert_eq!(out.stdout, list.stdout);
    out.stdout_has("apps/web/serve");
}

#[test]
fn run_without_a_name_without_a_terminal_is_an_error() {
    let repo = Repo::new(false);
    let out = repo.agg(["run"]).run().code(2);
    out.stderr_has("`agg run` needs a task name");
}
