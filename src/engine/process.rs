//! Process-group plumbing: every job is the leader of its own group, so one signal reaches
//! the task and everything it started (grandchildren included).

use nix::errno::Errno;
use nix::sys::signal::{Signal, kill, killpg};
use nix::unistd::Pid;

/// Sends `signal` to the whole group. Returns false when the group is already gone.
pub fn signal_group(pgid: u32, signal: Signal) -> bool {
    match i32::try_from(pgid) {
        Ok(pgid) if pgid > 1 => killpg(Pid::from_raw(pgid), signal) != Err(Errno::ESRCH),
        _ => false,
    }
}

/// Sends `signal` to `pid` and all its descendants (found through `/proc`), children
/// first being signalled after their parent so none is missed while it forks.
pub fn signal_tree(pid: u32, signal: Signal) {
    let mut tree = vec![pid];
    let mut i = 0;
    let table = process_table();
    while i < tree.len() {
        let parent = tree[i];
        tree.extend(table.iter().filter(|(_, ppid)| *ppid == parent).map(|(p, _)| *p));
        i += 1;
    }
    for p in tree {
        if let Ok(p) = i32::try_from(p) {
            let _ = kill(Pid::from_raw(p), signal);
        }
    }
}

/// `(pid, ppid)` of every process, from `/proc` (empty where there is none).
fn process_table() -> Vec<(u32, u32)> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| {
        let pid: u32 = e.ok()?.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // The command name may hold spaces and parentheses; fields resume after the last `)`.
        let rest = &stat[stat.rfind(')')? + 1..];
        let ppid = rest.split_whitespace().nth(1)?.parse().ok()?;
        Some((pid, ppid))
    })
    .collect()
}

/// Whether any process of the group is still alive (zombies of reaped leaders excluded).
pub fn group_alive(pgid: u32) -> bool {
    match i32::try_from(pgid) {
        Ok(pgid) if pgid > 1 => killpg(Pid::from_raw(pgid), None).is_ok(),
        _ => false,
    }
}

/// The conventional name of a signal number (`SIGTERM`), when it has one.
pub fn signal_name(signal: i32) -> Option<&'static str> {
    Signal::try_from(signal).ok().map(Signal::as_str)
}
