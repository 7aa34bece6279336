//! A real terminal for the tests: agg run in a tmux pane of a given size, on a tmux server
//! of the test's own, and the screen read back with `capture-pane` — as typed lines, as the
//! lines the program wrote (wrapped rows joined), and with its colours.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Whether tmux is installed. Under `AGG_REQUIRE_RUNNERS` a missing tmux fails the test;
/// otherwise the test says it is skipped and returns.
pub fn have_tmux(test: &str) -> bool {
    if which::which("tmux").is_ok() {
        return true;
    }
    assert!(
        std::env::var_os("AGG_REQUIRE_RUNNERS").is_none(),
        "tmux is required (AGG_REQUIRE_RUNNERS is set) but not on PATH"
    );
    // Past the harness's capture, so a passing run shows it too.
    let _ = std::io::Write::write_fmt(
        &mut std::io::stderr().lock(),
        format_args!("SKIPPED {test}: tmux not installed\n"),
    );
    false
}

/// What a pane showed once its command had ended.
pub struct Screen {
    /// Each screen row as the terminal shows it (a wrapped line is several rows).
    pub rows: Vec<String>,
    /// Each line as the program wrote it (`capture-pane -J`: wrapped rows joined).
    pub lines: Vec<String>,
    /// The rows with their colours and attributes as escape sequences (`capture-pane -e`).
    pub styled: String,
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
