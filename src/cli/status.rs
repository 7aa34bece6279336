//! What `agg run` tells a person at a terminal besides the task's own output: a spinner
//! while a slow scan runs, and one line on stderr when a task ends (`✓ build-m  2.3s`,
//! `✗ test-n  exit 2  12.1s`). Both only when stderr is a terminal; the line's colours follow
//! `NO_COLOR` (through anstream). The same runs go into the run history ([`crate::history`]).

use std::io::{IsTerminal, Write};
use std::path::Path;
use std::time::Duration;

use crate::engine::{Job, JobState};
use crate::table::Table;

/// How long a scan runs before the spinner shows.
const SPINNER_AFTER: Duration = Duration::from_millis(500);

/// How a task ended.
#[derive(Debug, Clone)]
pub(super) struct Ended {
    /// agg's exit code for it: the task's own, 128+signal, 126 when it never started.
    pub code: u8,
    /// `None` when it passed, else how it failed: `exit 2`, `SIGKILL`.
    pub failure: Option<String>,
    /// From start to end.
    pub took: Duration,
    /// What its output and reports said (`3 failed, 1,204 passed`), when agg read them.
    pub results: Option<String>,
}

impl Ended {
    /// How `job`, finished, ended.
    pub(super) fn of(job: &Job) -> Ended {
        let snap = job.snapshot();
        let (code, failure) = match (snap.state, snap.exit_code) {
            (JobState::Exited, Some(0)) => (0, None),
            (JobState::Exited, Some(code)) => (code & 0xff, Some(format!("exit {code}"))),
            (JobState::Signaled, _) => {
                let n = job.signal_number().unwrap_or(0);
                let name = crate::engine::process::signal_name(n)
                    .map_or_else(|| format!("signal {n}"), str::to_owned);
                (128 + n, Some(name))
            }
            (JobState::FailedToStart, _) => (126, Some("did not start".to_owned())),
            _ => (1, Some("failed".to_owned())),
        };
        Ended {
            code: u8::try_from(code & 0xff).unwrap_or(1),
            failure,
            took: job.elapsed(),
            results: job.results().and_then(crate::results::Results::summary),
        }
    }
}

/// The line for a task that ended, or nothing when stderr is not a terminal.
pub(super) fn print(name: &str, ended: &Ended) {
    if !std::io::stderr().is_terminal() {
        return;
    }
    let _ = writeln!(anstream::stderr(), "{}", line(name, ended));
}

/// `✓ build-m  2.3s` or `✗ test-n  exit 2  12.1s`, in colour (anstream strips it for
/// `NO_COLOR`).
fn line(name: &str, ended: &Ended) -> String {
    let took = crate::human::duration(u64::try_from(ended.took.as_millis()).unwrap_or(u64::MAX));
    let name = crate::terminal_text::line(name);
    let bold = anstyle::Style::new().bold();
    // The tests' or problems' counts say more than the exit code.
    match (&ended.failure, &ended.results) {
        (None, None) => {
            let green = anstyle::AnsiColor::Green.on_default().bold();
            format!("{green}✓{green:#} {bold}{name}{bold:#}  {took}")
        }
        (None, Some(what)) => {
            let green = anstyle::AnsiColor::Green.on_default().bold();
            format!("{green}✓{green:#} {bold}{name}{bold:#}  {what}  {took}")
        }
        (Some(how), what) => {
            let red = anstyle::AnsiColor::Red.on_default().bold();
            let how = what.as_deref().unwrap_or(how);
            format!("{red}✗{red:#} {bold}{name}{bold:#}  {red}{how}{red:#}  {took}")
        }
    }
}

/// Scans `root`; on a terminal, a spinner on stderr once the scan has taken
/// [`SPINNER_AFTER`], cleared when it ends.
pub(super) fn scan(root: &Path) -> Table {
    if !std::io::stderr().is_terminal() {
        return Table::load(root);
    }
    let (done, scanned) = std::sync::mpsc::channel::<()>();
    std::thread::scope(|s| {
        let scan = s.spawn(move || {
            let table = Table::load(root);
            let _ = done.send(());
            table
        });
        if scanned.recv_timeout(SPINNER_AFTER).is_err() {
            let spinner = indicatif::ProgressBar::new_spinner();
            spinner.set_message(format!(
                "scanning {}",
                crate::terminal_text::line(&root.to_string_lossy())
            ));
            spinner.enable_steady_tick(Duration::from_millis(100));
            let _ = scanned.recv();
            spinner.finish_and_clear();
        }
        scan.join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}
