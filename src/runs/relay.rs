//! How `agg run` keeps a copy of what a task prints without changing what the person sees.
//!
//! At a terminal the task must still write to a terminal (colours, progress bars, prompts,
//! the window's size), so its stdout and stderr become a pseudo-terminal of agg's own (one
//! for both when they are the same terminal, which keeps their interleaving exact), set up
//! like the person's — its attributes, without output processing, so bytes pass unchanged
//! and the person's terminal does its own `\n` → `\r\n`, and its size — and agg copies every
//! byte to the person's terminal and to the log as it comes. stdin stays the person's
//! terminal, and at a terminal the task stays in agg's process group, so typing, Ctrl-C and
//! Ctrl-Z reach it exactly as before. When the window is resized the copy's size follows, and
//! the task's group gets SIGWINCH again once the size is right (it got the first before agg
//! could resize, and may have read the old size). A stream that is not a terminal (a pipe, a
//! file) is relayed through a pipe; when its reader goes away (`agg run x | head`) agg stops
//! reading, so the task gets its broken pipe as before.

use std::io::{IsTerminal, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::termios::{OutputFlags, SetArg, tcgetattr, tcsetattr};

use super::log::LogWriter;
use crate::engine::StdioMode;
use crate::lock::MutexExt;

/// How long a quiet source is polled (ms) before the relay checks whether it should end.
const POLL_MS: u16 = 50;

/// Where a relayed stream goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dest {
    Stdout,
    Stderr,
}

impl Dest {
    /// Calls `f` with agg's own stream.
    fn with_fd<R>(self, f: impl FnOnce(BorrowedFd<'_>) -> R) -> R {
        match self {
            Dest::Stdout => f(std::io::stdout().as_fd()),
            Dest::Stderr => f(std::io::stderr().as_fd()),
        }
    }
}

/// The relay of one run: its copying threads, and the window-size follower.
#[derive(Debug)]
pub struct Relay {
    threads: Vec<JoinHandle<()>>,
    ending: Arc<AtomicBool>,
    deadline: Arc<Mutex<Option<Instant>>>,
    winch: Option<(signal_hook::iterator::Handle, JoinHandle<()>)>,
}

/// A pseudo-terminal standing for the terminal `like`: its attributes without output
/// processing, and its size.
fn pty_like(like: BorrowedFd<'_>) -> std::io::Result<nix::pty::OpenptyResult> {
    let mut termios = tcgetattr(like).map_err(std::io::Error::from)?;
    termios.output_flags.remove(OutputFlags::OPOST);
    let size = rustix::termios::tcgetwinsize(like)
        .ok()
        .map(|w| nix::pty::Winsize {
            ws_row: w.ws_row,
            ws_col: w.ws_col,
            ws_xpixel: w.ws_xpixel,
            ws_ypixel: w.ws_ypixel,
        });
    let pty = nix::pty::openpty(size.as_ref(), &termios).map_err(std::io::Error::from)?;
    // openpty sets the attributes, but some systems drop flags it does not know.
    let _ = tcsetattr(&pty.slave, SetArg::TCSANOW, &termios);
    Ok(nix::pty::OpenptyResult {
        master: cloexec(pty.master)?,
        slave: cloexec(pty.slave)?,
    })
}

/// Marks `fd` close-on-exec: the task gets its streams as stdout and stderr only, never agg's
/// ends (a task holding the reading end of its own pipe would never see it break).
fn cloexec(fd: OwnedFd) -> std::io::Result<OwnedFd> {
    use nix::fcntl::{FcntlArg, FdFlag, fcntl};
    fcntl(&fd, FcntlArg::F_SETFD(FdFlag::FD_CLOEXEC)).map_err(std::io::Error::from)?;
    Ok(fd)
}

/// Whether agg's stdout and stderr are one terminal.
fn same_terminal() -> bool {
    let rdev = |dest: Dest| dest.with_fd(|fd| nix::sys::stat::fstat(fd).ok().map(|s| s.st_rdev));
    matches!((rdev(Dest::Stdout), rdev(Dest::Stderr)), (Some(a), Some(b)) if a == b)
}

/// Starts relaying a run's output into `log`: the streams to give the task, and the relay.
/// `foreground`: the task stays in agg's process group (stdin is a terminal).
pub fn start(
    log: &Arc<Mutex<LogWriter>>,
    foreground: bool,
) -> std::io::Result<(StdioMode, Relay, bool)> {
    let out_tty = std::io::stdout().is_terminal();
    let err_tty = std::io::stderr().is_terminal();
    let mut sources: Vec<(OwnedFd, Dest)> = Vec::new();
    let mut ptys: Vec<(Arc<OwnedFd>, Dest)> = Vec::new();
    let (stdout, stderr) = if out_tty && err_tty && same_terminal() {
        let pty = Dest::Stdout.with_fd(pty_like)?;
        let master = Arc::new(pty.master);
        ptys.push((Arc::clone(&master), Dest::Stdout));
        sources.push((master.try_clone()?, Dest::Stdout));
        let slave = Arc::new(pty.slave);
        (Arc::clone(&slave), slave)
    } else {
        let mut one = |dest: Dest, tty: bool| -> std::io::Result<Arc<OwnedFd>> {
            if tty {
                let pty = dest.with_fd(pty_like)?;
                let master = Arc::new(pty.master);
                ptys.push((Arc::clone(&master), dest));
                sources.push((master.try_clone()?, dest));
                Ok(Arc::new(pty.slave))
            } else {
                let (read, write) = nix::unistd::pipe().map_err(std::io::Error::from)?;
                sources.push((cloexec(read)?, dest));
                Ok(Arc::new(cloexec(write)?))
            }
        };
        (one(Dest::Stdout, out_tty)?, one(Dest::Stderr, err_tty)?)
    };
    let ending = Arc::new(AtomicBool::new(false));
    let deadline = Arc::new(Mutex::new(None));
    let mut threads = Vec::new();
    for (source, dest) in sources {
        let (log, ending, deadline) = (Arc::clone(log), Arc::clone(&ending), Arc::clone(&deadline));
        threads.push(
            std::thread::Builder::new()
                .name("agg-relay".to_owned())
                .spawn(move || copy(&source, dest, &log, &ending, &deadline))?,
        );
    }
    let winch = if ptys.is_empty() {
        None
    } else {
        follow_window(ptys, foreground)
    };
    let mode = StdioMode::Relay {
        stdout,
        stderr,
        foreground,
    };
    let terminal = out_tty || err_tty;
    Ok((
        mode,
        Relay {
            threads,
            ending,
            deadline,
            winch,
        },
        terminal,
    ))
}

/// Copies `source` to `dest` and the log until it ends (its writers all closed it), or, once
/// the run ended, until it is quiet or `drain` is spent.
fn copy(
    source: &OwnedFd,
    dest: Dest,
    log: &Mutex<LogWriter>,
    ending: &AtomicBool,
    deadline: &Mutex<Option<Instant>>,
) {
    let mut buf = vec![0u8; 64 * 1024];
    let mut forward = true;
    loop {
        let mut fds = [PollFd::new(source.as_fd(), PollFlags::POLLIN)];
        let ready = poll(&mut fds, PollTimeout::from(POLL_MS)).unwrap_or(0);
        if ready == 0 {
            if ending.load(Ordering::Acquire) {
                return;
            }
            continue;
        }
        let n = match nix::unistd::read(source, &mut buf) {
            // End of a pipe; a terminal whose every writer is gone says EIO.
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        if forward {
            let written = match dest {
                Dest::Stdout => {
                    let mut out = std::io::stdout().lock();
                    out.write_all(&buf[..n]).and_then(|()| out.flush())
                }
                Dest::Stderr => std::io::stderr().lock().write_all(&buf[..n]),
            };
            if let Err(err) = written {
                if err.kind() == std::io::ErrorKind::BrokenPipe {
                    // The reader left: the task gets its broken pipe when it writes next.
                    return;
                }
                forward = false;
            }
        }
        log.locked().write(&buf[..n]);
        let passed = deadline.locked().is_some_and(|d| Instant::now() >= d);
        if passed {
            return;
        }
    }
}

/// Follows the window's size: on SIGWINCH, each pseudo-terminal gets the size of the
/// terminal it stands for, and when that changed the task's group (agg's, in the foreground)
/// gets SIGWINCH again.
fn follow_window(
    ptys: Vec<(Arc<OwnedFd>, Dest)>,
    foreground: bool,
) -> Option<(signal_hook::iterator::Handle, JoinHandle<()>)> {
    let mut signals = signal_hook::iterator::Signals::new([signal_hook::consts::SIGWINCH]).ok()?;
    let handle = signals.handle();
    let thread = std::thread::Builder::new()
        .name("agg-winch".to_owned())
        .spawn(move || {
            for _ in signals.forever() {
                let mut changed = false;
                for (master, dest) in &ptys {
                    let Ok(size) = dest.with_fd(|fd| rustix::termios::tcgetwinsize(fd)) else {
                        continue;
                    };
                    let old = rustix::termios::tcgetwinsize(master.as_fd()).ok();
                    if old.is_none_or(|o| (o.ws_row, o.ws_col) != (size.ws_row, size.ws_col)) {
                        changed |= rustix::termios::tcsetwinsize(master.as_fd(), size).is_ok();
                    }
                }
                if changed && foreground {
                    let _ = nix::sys::signal::killpg(
                        nix::unistd::getpgrp(),
                        nix::sys::signal::Signal::SIGWINCH,
                    );
                }
            }
        })
        .ok()?;
    Some((handle, thread))
}

impl Relay {
    /// Ends the relay once the run ended: what is still in flight is copied, for at most
    /// `drain` (a process the task left behind may hold the terminal open).
    pub fn finish(self, drain: Duration) {
        *self.deadline.locked() = Some(Instant::now() + drain);
        self.ending.store(true, Ordering::Release);
        for t in self.threads {
            let _ = t.join();
        }
        if let Some((handle, thread)) = self.winch {
            handle.close();
            let _ = thread.join();
        }
    }
}
