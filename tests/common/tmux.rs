//! A real terminal for tests: agg started in a detached tmux session of its own (a private
//! server socket), keys sent with `send-keys`, the screen read with `capture-pane`.
//!
//! The pane runs a shell that notes the terminal settings, runs agg, and prints
//! `agg exited CODE, terminal restored|changed`, so a test sees both how agg ended and
//! whether it left the terminal as it found it.

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// How long a test waits for the screen to show something.
const PATIENCE: Duration = Duration::from_secs(20);

/// Whether `program` is installed; when it is not, the test says so and skips (and fails
/// under `AGG_REQUIRE_RUNNERS`).
pub fn have_tool(test: &str, program: &str) -> bool {
    if which::which(program).is_ok() {
        return true;
    }
    assert!(
        std::env::var_os("AGG_REQUIRE_RUNNERS").is_none(),
        "{test}: {program} is required (AGG_REQUIRE_RUNNERS is set) but not installed"
    );
    eprintln!("SKIPPED {test}: {program} not installed");
    false
}

/// One tmux session running agg.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// Starts `agg ARGS` in `dir` on a `width`×`height` terminal, with `env` set.
    pub fn start(dir: &Path, args: &str, env: &[(&str, &Path)], width: u16, height: u16) -> Tmux {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let socket = format!(
            "agg-test-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
        );
        let agg = env!("CARGO_BIN_EXE_agg");
        let script = format!(
            "before=$(stty -g); '{agg}' {args}; code=$?; \
             if [ \"$(stty -g)\" = \"$before\" ]; then state=restored; else state=changed; fi; \
             echo \"agg exited $code, terminal $state\"; sleep 600"
        );
        let mut cmd = Command::new("tmux");
        cmd.args([
            "-L",
            &socket,
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            "agg",
        ])
        .args(["-x", &width.to_string(), "-y", &height.to_string()])
        .arg("-c")
        .arg(dir)
        .env_remove("NO_COLOR")
        .env_remove("TMUX")
        .env("TERM", "xterm-256color");
        for (key, value) in env {
            cmd.arg("-e").arg(format!("{key}={}", value.display()));
        }
        cmd.args(["sh", "-c", &script]);
        let out = cmd.output().expect("run tmux");
        assert!(
            out.status.success(),
            "tmux: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let tmux = Tmux { socket };
        // The window keeps its size whatever clients attach (none do).
        tmux.tmux(&["set-option", "-g", "window-size", "manual"]);
        tmux
    }

    fn tmux(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("run tmux")
    }

    /// Sends keys by tmux's names (`Down`, `Enter`, `Escape`, `C-c`).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "agg"];
        args.extend(keys);
        self.tmux(&args);
    }

    /// Types text literally.
    pub fn type_text(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "agg", "-l", text]);
    }

    /// The screen as text.
    pub fn screen(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-t", "agg"]).stdout)
            .into_owned()
    }

    /// The screen with its colours, as ANSI escapes.
    pub fn screen_styled(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-e", "-p", "-t", "agg"]).stdout)
            .into_owned()
    }

    /// Waits until the screen satisfies `cond`, and returns it.
    #[track_caller]
    pub fn wait(&self, what: &str, cond: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + PATIENCE;
        loop {
            let screen = self.screen();
            if cond(&screen) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; the screen:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits until the screen shows `text`, and returns it.
    #[track_caller]
    pub fn wait_for(&self, text: &str) -> String {
        self.wait(&format!("`{text}`"), |s| s.contains(text))
    }

    /// Waits for agg to end and returns the line the shell printed after it.
    #[track_caller]
    pub fn exit_line(&self) -> String {
        let screen = self.wait("a line `agg exited …`", |s| {
            s.lines().any(|l| l.starts_with("agg exited "))
        });
        screen
            .lines()
            .find(|l| l.starts_with("agg exited "))
            .unwrap_or_default()
            .to_owned()
    }

    /// Resizes the terminal.
    pub fn resize(&self, width: u16, height: u16) {
        self.tmux(&[
            "resize-window",
            "-t",
            "agg",
            "-x",
            &width.to_string(),
            "-y",
            &height.to_string(),
        ]);
    }

    /// Whether the program shows the alternate screen.
    pub fn alternate_screen(&self) -> bool {
        let out = self.tmux(&["display-message", "-p", "-t", "agg", "#{alternate_on}"]);
        String::from_utf8_lossy(&out.stdout).trim() == "1"
    }

    /// The pid of the shell in the pane (agg is its child).
    pub fn agg_pid(&self) -> Option<u32> {
        let out = self.tmux(&["display-message", "-p", "-t", "agg", "#{pane_pid}"]);
        let shell: u32 = String::from_utf8_lossy(&out.stdout).trim().parse().ok()?;
        let children =
            std::fs::read_to_string(format!("/proc/{shell}/task/{shell}/children")).ok()?;
        children.split_whitespace().next()?.parse().ok()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        self.tmux(&["kill-server"]);
    }
}
