//! The watchdog that ends a job's process group when agg itself dies, SIGKILL included.
//!
//! # Theory of operation
//!
//! A killed agg runs no cleanup, and its jobs, each the leader of a group of its own, would
//! outlive it. So each such group gets one more member: `agg __watch`, the agg binary run
//! again (spawned like any child, in the job's group through `setpgid`, no `pre_exec`),
//! whose stdin is a pipe whose other end only agg holds (close-on-exec: no job inherits
//! it). However agg ends, the kernel closes that end; the watchdog reads end-of-file and
//! SIGKILLs its own group: the task, everything it started in the group, and itself. When
//! the task ends while agg lives, agg first writes one byte, and the watchdog exits quietly.
//!
//! The watchdog blocks every signal it can (KILL and STOP cannot be), so a stop's SIGTERM to
//! the group leaves it watching until the job has ended; a SIGKILL to the group ends it with
//! the rest. Being a member of the group it guards, it keeps the group's id from being
//! reused while it lives: its SIGKILL can only reach the job's own processes.
//!
//! Only the agg binary can serve: its `main` calls [`run_if_asked`] first. An engine in any
//! other program (the test binaries) runs its jobs without a watchdog.

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::{ExitCode, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use nix::sys::signal::{SigSet, Signal, killpg};
use nix::unistd::getpgrp;
use tokio::process::{Child, Command};

/// The hidden argument that makes `agg` a watchdog.
const ARG: &str = "__watch";
/// Set once the running program is known to be the agg binary, which answers [`ARG`].
static AVAILABLE: AtomicBool = AtomicBool::new(false);
/// How long a released watchdog may take to exit before it is killed.
const RELEASE_WAIT: Duration = Duration::from_secs(1);

/// For the agg binary's `main`, before anything else (no thread may run yet): runs the
/// watchdog when the arguments ask for one; otherwise notes that this program can serve as
/// one and returns `None`.
pub fn run_if_asked() -> Option<ExitCode> {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() == Some(OsStr::new(ARG)) && args.next().is_none() {
        return Some(watch());
    }
    AVAILABLE.store(true, Ordering::Relaxed);
    None
}

/// The watchdog itself: waits for agg's byte (released) or end-of-file (agg is gone).
fn watch() -> ExitCode {
    // Blocked rather than handled: no handler (and no unsafe code) is needed, and blocked
    // signals stay blocked for the process's whole life.
    let _ = SigSet::all().thread_block();
    let mut byte = [0u8; 1];
    let released = loop {
        match std::io::stdin().lock().read(&mut byte) {
            Ok(n) => break n > 0,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break false,
        }
    };
    if released {
        return ExitCode::SUCCESS;
    }
    let _ = killpg(getpgrp(), Signal::SIGKILL);
    ExitCode::FAILURE
}

/// A running watchdog, as agg holds it.
#[derive(Debug)]
pub(super) struct Watchdog {
    child: Child,
    /// The end of the pipe whose closing, without the byte, ends the group.
    pipe: Option<std::fs::File>,
}

impl Watchdog {
    /// A watchdog in the process group `pgid`; `None` (logged) when this program cannot
    /// serve as one or it cannot be started, and the job then runs unguarded.
    pub(super) fn spawn(pgid: u32) -> Option<Watchdog> {
        if !AVAILABLE.load(Ordering::Relaxed) {
            return None;
        }
        // The running binary itself, even if the file it came from was replaced since.
        let program = if cfg!(target_os = "linux") {
            PathBuf::from("/proc/self/exe")
        } else {
            std::env::current_exe().ok()?
        };
        let mut cmd = Command::new(program);
        cmd.arg0("agg")
            .arg(ARG)
            .current_dir("/")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(i32::try_from(pgid).ok()?)
            .kill_on_drop(false);
        let spawned = cmd.spawn().and_then(|mut child| {
            let pipe = child
                .stdin
                .take()
                .ok_or_else(|| std::io::Error::other("no pipe"))?
                .into_owned_fd()?;
            Ok(Watchdog {
                child,
                pipe: Some(pipe.into()),
            })
        });
        spawned
            .inspect_err(|err| {
                tracing::warn!(
                    "no watchdog for process group {pgid} ({err}): it would outlive a killed agg"
                );
            })
            .ok()
    }

    /// Lets the watchdog go without touching the group, and waits for it to exit.
    pub(super) async fn release(mut self) {
        self.send_release();
        if tokio::time::timeout(RELEASE_WAIT, self.child.wait())
            .await
            .is_err()
        {
            let _ = self.child.start_kill();
        }
    }

    /// Lets the watchdog go without waiting for it (the job is meant to outlive agg).
    pub(super) fn detach(mut self) {
        self.send_release();
    }

    fn send_release(&mut self) {
        if let Some(mut pipe) = self.pipe.take() {
            // A single byte into an empty pipe does not block.
            let _ = pipe.write_all(b"r");
        }
    }
}
