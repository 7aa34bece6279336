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
        tree.extend(
            table
                .iter()
                .filter(|(_, ppid)| *ppid == parent)
                .map(|(p, _)| *p),
        );
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
        proc_stat(pid).map(|(_, ppid, _)| (pid, ppid))
    })
    .collect()
}

/// Whether any process of the group is still alive. Zombies do not count: an orphan that
/// died waits for init to reap it, which some container inits do late or never.
pub fn group_alive(pgid: u32) -> bool {
    let exists = match i32::try_from(pgid) {
        Ok(p) if p > 1 => killpg(Pid::from_raw(p), None).is_ok(),
        _ => false,
    };
    if !exists {
        return false;
    }
    match std::fs::read_dir("/proc") {
        Ok(dir) => dir.filter_map(Result::ok).any(|e| {
            let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
                return false;
            };
            proc_stat(pid)
                .is_some_and(|(state, _, group)| group == pgid && state != 'Z' && state != 'X')
        }),
        // No /proc (macOS): trust the kernel's answer, zombies included.
        Err(_) => true,
    }
}

/// `(state, ppid, pgrp)` of a process, from `/proc/PID/stat`.
fn proc_stat(pid: u32) -> Option<(char, u32, u32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses; fields resume after the last `)`.
    let mut fields = stat[stat.rfind(')')? + 1..].split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some((state, ppid, pgrp))
}

/// The conventional name of a signal number (`SIGTERM`), when it has one.
pub fn signal_name(signal: i32) -> Option<&'static str> {
    Signal::try_from(signal).ok().map(Signal::as_str)
}

/// Inodes of the sockets held open by any process of group `pgid`, from `/proc/PID/fd`
/// (empty where there is no `/proc`, or for processes agg may not inspect).
pub fn group_socket_inodes(pgid: u32) -> std::collections::HashSet<u64> {
    let mut inodes = std::collections::HashSet::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return inodes;
    };
    for entry in dir.filter_map(Result::ok) {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        if proc_stat(pid).is_none_or(|(_, _, group)| group != pgid) {
            continue;
        }
        let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
            continue;
        };
        for fd in fds.filter_map(Result::ok) {
            let Ok(target) = std::fs::read_link(fd.path()) else {
                continue;
            };
            if let Some(inode) = target
                .to_str()
                .and_then(|t| t.strip_prefix("socket:["))
                .and_then(|t| t.strip_suffix(']'))
                .and_then(|t| t.parse().ok())
            {
                inodes.insert(inode);
            }
        }
    }
    inodes
}
