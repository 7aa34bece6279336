//! A real terminal for the tests, on a tmux server of the test's own: [`run_in_pane`] runs a
//! command in a pane of a given size and reads the screen back once it ended (as typed rows,
//! as the lines the program wrote, and with its colours); [`Tmux`] keeps agg running in a
//! session, sends it keys with `send-keys` and reads the screen with `capture-pane` as it
//! goes. The session's shell notes the terminal settings, runs agg, and prints `agg exited
//! CODE, terminal restored|changed`, so a test sees both how agg ended and whether it left
//! the terminal as it found it.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long a test waits for the screen to show something.
const PATIENCE: Duration = Duration::from_secs(20);

/// What a pane showed once its command had ended.
pub struct Screen {
    /// Each screen row as the terminal shows it (a wrapped line is several rows).
    pub rows: Vec<String>,
    /// Each line as the program wrote it (`capture-pane -J`: wrapped rows joined).
    pub lines: Vec<String>,
    /// The rows with their colours and attributes as escape sequences (`capture-pane -e`).
    pub styled: String,
}

impl Screen {
    /// The first row that shows `part`; fails the test, naming `what`, when none does.
    #[track_caller]
    pub fn row_with(&self, part: &str, what: &str) -> &str {
        self.rows
            .iter()
            .find(|r| r.contains(part))
            .unwrap_or_else(|| panic!("no {what}:\n{}", self.rows.join("\n")))
    }
}

/// Runs `program args` in a `width`×`height` pane from `dir`, with `env` set and `unset`
/// removed, and returns the screen after it exits.
pub fn run_in_pane(
    dir: &Path,
    (width, height): (u16, u16),
    env: &[(&str, &str)],
    unset: &[&str],
    program: &Path,
    args: &[&str],
) -> Screen {
    static SERVERS: AtomicUsize = AtomicUsize::new(0);
    let socket = format!(
        "agg-test-{}-{}",
        std::process::id(),
        SERVERS.fetch_add(1, Ordering::Relaxed)
    );
    let server = Server {
        socket: socket.clone(),
    };
    // The pane runs a shell line: the command, then a signal the test waits on.
    let quote = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
    let mut words = vec!["env".to_owned()];
    for name in unset {
        words.push(format!("-u {name}"));
    }
    words.extend(env.iter().map(|(k, v)| quote(&format!("{k}={v}"))));
    words.push(quote(&program.to_string_lossy()));
    words.extend(args.iter().map(|a| quote(a)));
    let line = format!("{}; tmux -L {socket} wait-for -S agg-done", words.join(" "));
    let started = server
        .tmux()
        // The pane stays after its command ends, for capture-pane to read.
        .args(["-f", "/dev/null", "start-server", ";"])
        .args(["set-option", "-g", "remain-on-exit", "on", ";"])
        .args(["new-session", "-d", "-s", "t"])
        .args(["-x", &width.to_string(), "-y", &height.to_string()])
        .arg("-c")
        .arg(dir)
        .args(["sh", "-c", &line])
        .status()
        .expect("start tmux");
    assert!(started.success(), "tmux new-session failed");
    // `wait-for` has no deadline of its own: it runs beside one.
    let mut waiting = server
        .tmux()
        .args(["wait-for", "agg-done"])
        .spawn()
        .expect("tmux wait-for");
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if waiting.try_wait().expect("wait-for").is_some() {
            break;
        }
        if Instant::now() > deadline {
            let _ = waiting.kill();
            panic!("the command in the tmux pane did not end within 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let capture = |extra: &[&str]| {
        let out = server
            .tmux()
            .args(["capture-pane", "-p", "-t", "t", "-S", "-", "-E", "-"])
            .args(extra)
            .output()
            .expect("tmux capture-pane");
        assert!(out.status.success(), "capture-pane failed");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let trimmed = |s: String| {
        let mut rows: Vec<String> = s.lines().map(|l| l.trim_end().to_owned()).collect();
        // remain-on-exit's own last line.
        if rows.last().is_some_and(|r| r.starts_with("Pane is dead")) {
            rows.pop();
        }
        while rows.last().is_some_and(String::is_empty) {
            rows.pop();
        }
        rows
    };
    Screen {
        rows: trimmed(capture(&[])),
        lines: trimmed(capture(&["-J"])),
        styled: capture(&["-e"]),
    }
}

/// A tmux server of one test, killed when the test is done with it.
struct Server {
    socket: String,
}

impl Server {
    fn tmux(&self) -> Command {
        let mut c = Command::new("tmux");
        c.args(["-L", &self.socket])
            .stdin(Stdio::null())
            .stderr(Stdio::null());
        c
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.tmux().arg("kill-server").status();
    }
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

    /// Presses `key`, upon which agg must exit with `code` ([`Tmux::assert_exited`]).
    #[track_caller]
    pub fn quit_with(&self, key: &str, code: i32) {
        self.keys(&[key]);
        self.assert_exited(code);
    }

    /// Asserts that agg exited with `code` and left the terminal as it found it.
    #[track_caller]
    pub fn assert_exited(&self, code: i32) {
        assert_eq!(
            self.exit_line(),
            format!("agg exited {code}, terminal restored")
        );
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
