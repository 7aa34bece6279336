//! `agg run` at a terminal, with its output read: the task's stdout and stderr go to one
//! pseudo-terminal (so the task still sees a terminal: colours, widths, progress bars) whose
//! other end agg copies, chunk by chunk as it comes, to its own stdout and into the job's
//! output ring, from which the run's results are read when it ends. stdin stays agg's own
//! terminal and the task stays in agg's process group, so typing, Ctrl-C and Ctrl-Z reach
//! it as before.
//!
//! The pseudo-terminal starts with the size and settings of agg's terminal, output
//! processing off (agg's terminal does that once, as it would for the task). A program that
//! changes its output terminal's input settings (curses turning echo and line editing off)
//! has them copied to agg's terminal after its next output, and agg's terminal gets its own
//! settings back when the task ends. A window resized while the task runs resizes its
//! terminal too ([`follow_size`]): the task, in agg's process group, gets the terminal's
//! SIGWINCH itself, and agg passes the new size on as it gets the same signal.

use std::io::{Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::process::Stdio;
use std::sync::Arc;

use nix::sys::termios::{self, OutputFlags, SetArg, Termios};

use super::job::Job;
use super::output::Stream;

/// The two ends of the task's terminal.
pub(super) struct Pty {
    master: OwnedFd,
    slave: OwnedFd,
}

impl Pty {
    /// A pseudo-terminal like agg's own (its size from stdout, its settings from stdin).
    pub(super) fn open() -> std::io::Result<Pty> {
        let size = terminal_size::terminal_size().map(|(w, h)| nix::pty::Winsize {
            ws_row: h.0,
            ws_col: w.0,
            ws_xpixel: 0,
            ws_ypixel: 0,
        });
        let mut settings = termios::tcgetattr(std::io::stdin().as_fd()).ok();
        if let Some(t) = settings.as_mut() {
            t.output_flags.remove(OutputFlags::OPOST);
        }
        let pair = nix::pty::openpty(size.as_ref(), settings.as_ref())?;
        // Close-on-exec, both: the task gets the terminal as its stdout and stderr only, and
        // never agg's end of it (a process it leaves behind would otherwise hold agg's copy
        // open, or read what the person sees).
        for fd in [&pair.master, &pair.slave] {
            nix::fcntl::fcntl(
                fd,
                nix::fcntl::FcntlArg::F_SETFD(nix::fcntl::FdFlag::FD_CLOEXEC),
            )?;
        }
        Ok(Pty {
            master: pair.master,
            slave: pair.slave,
        })
    }

    /// The task's stdout and stderr (both the terminal), and the end agg reads.
    pub(super) fn split(self) -> std::io::Result<(Stdio, Stdio, OwnedFd)> {
        let second = self.slave.try_clone()?;
        Ok((Stdio::from(self.slave), Stdio::from(second), self.master))
    }
}

/// Copies what the task writes to agg's stdout, into `job`'s output and to `tee` until every
/// holder of the terminal's other end has closed it. Runs on a blocking thread.
pub(super) fn copy(job: &Arc<Job>, master: OwnedFd, tee: Option<&super::Tee>) {
    let stdin = std::io::stdin();
    let saved = termios::tcgetattr(stdin.as_fd()).ok();
    let mut seen: Option<Termios> = termios::tcgetattr(master.as_fd()).ok();
    let mut mirrored = false;
    let mut file = std::fs::File::from(master);
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        // EIO once the last writer is gone (Linux), or EOF.
        let n = match file.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        mirrored |= mirror(&file, &mut seen);
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(&buf[..n]);
        let _ = out.flush();
        drop(out);
        job.feed(Stream::Stdout, &buf[..n]);
        if let Some(tee) = tee {
            tee.write(&buf[..n]);
        }
    }
    job.output().finish(Stream::Stdout);
    if mirrored && let Some(saved) = saved {
        let _ = termios::tcsetattr(stdin.as_fd(), SetArg::TCSANOW, &saved);
    }
}

/// Copies the task terminal's input settings to agg's when the task changed them; whether
/// it did.
fn mirror(master: &std::fs::File, seen: &mut Option<Termios>) -> bool {
    let Ok(now) = termios::tcgetattr(master.as_fd()) else {
        return false;
    };
    let changed = seen.as_ref().is_none_or(|s| {
        s.local_flags != now.local_flags
            || s.input_flags != now.input_flags
            || s.control_chars != now.control_chars
    });
    if !changed {
        return false;
    }
    let stdin = std::io::stdin();
    let done = termios::tcgetattr(stdin.as_fd()).is_ok_and(|mut ours| {
        ours.local_flags = now.local_flags;
        ours.input_flags = now.input_flags;
        ours.control_chars = now.control_chars;
        termios::tcsetattr(stdin.as_fd(), SetArg::TCSANOW, &ours).is_ok()
    });
    *seen = Some(now);
    done
}

/// Gives the task's terminal the size of agg's whenever agg's window is resized, until the
/// job ends. `master` is a handle of the end agg reads.
pub(super) async fn follow_size(job: Arc<Job>, master: OwnedFd) {
    let Ok(mut resized) =
        tokio::signal::unix::signal(tokio::signal::unix::SignalKind::window_change())
    else {
        return;
    };
    loop {
        tokio::select! {
            () = job.wait() => return,
            got = resized.recv() => {
                if got.is_none() {
                    return;
                }
                if let Ok(size) = rustix::termios::tcgetwinsize(std::io::stdout()) {
                    let _ = rustix::termios::tcsetwinsize(&master, size);
                }
            }
        }
    }
}
