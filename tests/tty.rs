//! `agg run` at a real terminal, driven through tmux: the status line after each task
//! (`✓ one  0.0s`, `✗ fail  exit 2  0.0s`), coloured unless `NO_COLOR`, and `--parallel`'s
//! prefixes, each task's name in a colour of its own.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::test::Test;

const MAKEFILE: &str = "\
one:\n\t@echo one done\n\n\
fail:\n\t@echo failing; exit 3\n\n\
alpha:\n\t@echo from alpha; sleep 0.2; echo alpha again\n\n\
beta:\n\t@echo from beta; sleep 0.2; echo beta again\n";

/// A tmux server of the test's own (its socket in a temporary directory), killed on drop.
struct Tmux {
    dir: tempfile::TempDir,
}

impl Tmux {
    fn new() -> Tmux {
        Tmux {
            dir: tempfile::tempdir().expect("tmp"),
        }
    }

    fn socket(&self) -> PathBuf {
        self.dir.path().join("tmux.sock")
    }

    fn tmux(&self) -> Command {
        let mut c = Command::new("tmux");
        c.arg("-S").arg(self.socket()).arg("-f").arg("/dev/null");
        c
    }

    /// Runs `agg ARGS` in `root` in a new 200×50 window, with `env` set (`NO_COLOR`), and
    /// returns the screen, escape sequences included, once agg has exited.
    fn run(&self, root: &Path, env: &[(&str, &str)], args: &str) -> String {
        let agg = env!("CARGO_BIN_EXE_agg");
        let exports: Vec<String> = env
            .iter()
            .map(|(k, v)| format!("export {k}={v};"))
            .collect();
        let exports = exports.join(" ");
        let script = format!(
            "unset NO_COLOR; {exports} cd '{}' && '{agg}' {args}; echo \"agg exited $?\"; sleep 60",
            root.display()
        );
        let started = self
            .tmux()
            .args([
                "new-session",
                "-d",
                "-x",
                "200",
                "-y",
                "50",
                "sh",
                "-c",
                &script,
            ])
            .status()
            .expect("tmux");
        assert!(started.success(), "tmux new-session failed");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let screen = self.capture();
            if screen.contains("agg exited ") {
                self.kill_session();
                return screen;
            }
            assert!(Instant::now() < deadline, "agg did not exit:\n{screen}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn capture(&self) -> String {
        let out = self
            .tmux()
            .args(["capture-pane", "-p", "-e", "-J"])
            .output()
            .expect("tmux capture-pane");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn kill_session(&self) {
        let _ = self
            .tmux()
            .arg("kill-server")
            .stderr(std::process::Stdio::null())
            .status();
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.kill_session();
    }
}

/// The screen without its escape sequences.
fn plain(screen: &str) -> String {
    let mut out = String::new();
    let mut chars = screen.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            if chars.next_if_eq(&'[').is_some() {
                for c in chars.by_ref() {
                    if c.is_ascii_alphabetic() {
                        break;
                    }
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

fn line_with<'a>(screen: &'a str, needle: &str) -> &'a str {
    screen
        .lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in:\n{screen}"))
}

#[test]
fn a_run_at_a_terminal_ends_with_a_status_line_per_task() {
    require!("tmux", "make");
    let test = Test::new().write("Makefile", MAKEFILE);
    let tmux = Tmux::new();
    let screen = tmux.run(test.root(), &[], "run one fail");
    let text = plain(&screen);
    assert!(text.contains("agg exited 2"), "make's code: {text}");
    let ok = line_with(&text, "✓ one");
    assert!(
        ok.trim_end().ends_with('s') && ok.starts_with("✓ one  0."),
        "{ok:?}"
    );
    let failed = line_with(&text, "✗ fail");
    assert!(failed.starts_with("✗ fail  exit 2  0."), "{failed:?}");
    // In colour: green for the pass, red for the failure.
    assert!(line_with(&screen, "✓").contains("\x1b[32m✓"), "{screen:?}");
    assert!(line_with(&screen, "✗").contains("\x1b[31m✗"), "{screen:?}");
    // The order: the task's own output, then its line.
    let lines: Vec<&str> = text.lines().collect();
    let at = |s: &str| lines.iter().position(|l| l.contains(s)).expect(s);
    assert!(at("one done") < at("✓ one") && at("✓ one") < at("failing"));
    assert!(at("failing") < at("✗ fail"));

    let screen = Tmux::new().run(test.root(), &[("NO_COLOR", "1")], "run one");
    let ok = line_with(&screen, "✓ one");
    assert!(!ok.contains('\x1b'), "NO_COLOR: {ok:?}");
}

#[test]
fn parallel_prefixes_each_line_with_its_task_in_its_own_colour() {
    require!("tmux", "make");
    let test = Test::new().write("Makefile", MAKEFILE);
    let screen = Tmux::new().run(test.root(), &[], "run --parallel alpha beta");
    let text = plain(&screen);
    assert!(text.contains("agg exited 0"), "{text}");
    for line in [
        "alpha | from alpha",
        "alpha | alpha again",
        "beta  | from beta",
        "beta  | beta again",
    ] {
        assert!(text.lines().any(|l| l == line), "{line:?} in:\n{text}");
    }
    assert!(
        text.contains("✓ alpha  0."),
        "a status line per task: {text}"
    );
    assert!(text.contains("✓ beta  0."), "{text}");
    // Each prefix starts with a colour, and the two differ.
    let colour = |needle: &str| {
        let line = line_with(&screen, needle);
        let start = line
            .find("\x1b[")
            .unwrap_or_else(|| panic!("no colour: {line:?}"));
        let end = start + line[start..].find('m').expect("m") + 1;
        assert!(
            line[end..].starts_with(needle.split(' ').next().unwrap_or("")),
            "the colour is the prefix's: {line:?}"
        );
        line[start..end].to_owned()
    };
    assert_ne!(colour("alpha again"), colour("beta again"));

    let screen = Tmux::new().run(test.root(), &[("NO_COLOR", "1")], "run -p alpha beta");
    let prefixed = line_with(&screen, "| from alpha");
    assert_eq!(prefixed, "alpha | from alpha", "NO_COLOR: {screen:?}");
}
