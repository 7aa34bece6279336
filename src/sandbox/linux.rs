//! Linux: Landlock for files, TCP and signals; a small seccomp filter for what Landlock does
//! not cover. Everything is built in agg before the fork; the child only enters it.
//!
//! The seccomp filter always refuses the terminal ioctls that push input into a terminal
//! (`TIOCSTI`, `TIOCLINUX`: a run at a person's terminal could otherwise type commands
//! into their shell), and, with `--offline`, every socket but Unix and netlink ones (UDP,
//! raw and packet sockets are no business of Landlock's TCP rules, and a TCP socket that
//! listens without `bind` is not seen by them either) and `io_uring_setup` (`io_uring` opens
//! sockets without the `socket` system call). A system call of another architecture
//! (a 32-bit program) ends the process, as the filter cannot vouch for it.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, PathBeneath, Ruleset,
    RulesetAttr, RulesetCreated, RulesetCreatedAttr, RulesetStatus, Scope,
};
use nix::fcntl::{OFlag, OpenHow, ResolveFlag, openat2};
use nix::libc;
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
    SeccompRule, TargetArch,
};

use super::layout::{DEVICES, Layout};
use super::{Grants, OFFLINE_ABI, SCOPE_ABI, SandboxError, Support};

/// What the child applies between fork and exec.
#[derive(Debug)]
pub struct Prepared {
    ruleset: RulesetCreated,
    filter: BpfProgram,
}

/// Restricts a throwaway thread (Landlock restricts the calling thread only) to learn what
/// the kernel really enforces: in a container that blocks Landlock, creating a ruleset may
/// work and restricting may not.
pub fn probe() -> Support {
    let probe = std::thread::Builder::new()
        .name("agg-sandbox-probe".to_owned())
        .spawn(|| {
            Ruleset::default()
                .handle_access(AccessFs::from_all(ABI::V1))
                .and_then(Ruleset::create)
                .and_then(RulesetCreated::restrict_self)
        });
    let status = match probe.map(std::thread::JoinHandle::join) {
        Ok(Ok(Ok(status))) => status,
        Ok(Ok(Err(err))) => {
            return Support::Unavailable {
                reason: format!("Landlock refused to restrict a process: {err}"),
            };
        }
        Ok(Err(_)) | Err(_) => {
            return Support::Unavailable {
                reason: "the Landlock check could not run".to_owned(),
            };
        }
    };
    let abi = match status.landlock {
        landlock::LandlockStatus::Available { effective_abi, .. } => effective_abi as i32,
        landlock::LandlockStatus::NotEnabled => {
            return Support::Unavailable {
                reason: "the kernel has Landlock but it is not enabled (add `landlock` to the `lsm=` boot parameter)".to_owned(),
            };
        }
        landlock::LandlockStatus::NotImplemented => {
            return Support::Unavailable {
                reason:
                    "the kernel has no Landlock (Linux 6.2 or newer with CONFIG_SECURITY_LANDLOCK)"
                        .to_owned(),
            };
        }
    };
    if status.ruleset != RulesetStatus::FullyEnforced {
        return Support::Unavailable {
            reason:
                "Landlock did not enforce a ruleset (a container or seccomp profile may block it)"
                    .to_owned(),
        };
    }
    if abi < super::MIN_ABI {
        return Support::Unavailable {
            reason: format!(
                "the kernel's Landlock is ABI {abi}; agg needs ABI {} (Linux 6.2) to control truncation",
                super::MIN_ABI
            ),
        };
    }
    Support::Landlock { abi }
}

/// Builds the ruleset and the filter for a run granted `grants`.
pub fn prepare(
    layout: &Layout,
    grants: &Grants,
    support: &Support,
) -> Result<Prepared, SandboxError> {
    let Support::Landlock { abi: level } = *support else {
        return Err(SandboxError::Unavailable {
            reason: "Landlock is not available".to_owned(),
        });
    };
    if layout.offline && level < OFFLINE_ABI {
        return Err(SandboxError::TooOld {
            feature: "--offline",
            abi: level,
            needs: OFFLINE_ABI,
        });
    }
    let abi = ABI::from(level);
    let os = |e: landlock::RulesetError| SandboxError::Os(Box::new(e));
    // Pathname Unix sockets (ABI 9) are left unhandled: see docs/permissions.md.
    let handled = AccessFs::from_all(abi) & !BitFlags::from(AccessFs::ResolveUnix);
    let mut ruleset = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(handled)
        .map_err(os)?;
    if layout.offline {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(abi))
            .map_err(os)?;
    }
    if level >= SCOPE_ABI {
        ruleset = ruleset.scope(Scope::from_all(abi)).map_err(os)?;
    }
    let mut created = ruleset.create().map_err(os)?;
    for (path, access) in rules(grants, handled) {
        let Some((fd, is_dir)) = open(&path) else {
            continue;
        };
        let access = if is_dir {
            access
        } else {
            access & AccessFs::from_file(abi)
        };
        created = created.add_rule(PathBeneath::new(fd, access)).map_err(os)?;
    }
    let filter = filter(layout.offline).map_err(|e| SandboxError::Os(Box::new(e)))?;
    Ok(Prepared {
        ruleset: created,
        filter,
    })
}

/// One rule per path, read and write rights merged.
fn rules(grants: &Grants, handled: BitFlags<AccessFs>) -> BTreeMap<PathBuf, BitFlags<AccessFs>> {
    let read = (AccessFs::ReadFile | AccessFs::ReadDir | AccessFs::Execute) & handled;
    let write = (AccessFs::WriteFile
        | AccessFs::Truncate
        | AccessFs::MakeReg
        | AccessFs::MakeDir
        | AccessFs::MakeSym
        | AccessFs::MakeSock
        | AccessFs::MakeFifo
        | AccessFs::RemoveFile
        | AccessFs::RemoveDir
        | AccessFs::Refer)
        & handled;
    let mut rules: BTreeMap<PathBuf, BitFlags<AccessFs>> = BTreeMap::new();
    for (paths, access) in [(&grants.read, read), (&grants.write, write)] {
        for path in paths {
            *rules.entry(path.clone()).or_default() |= access;
        }
    }
    for device in DEVICES {
        if let Some(access) = rules.get_mut(Path::new(device)) {
            *access |= BitFlags::from(AccessFs::IoctlDev) & handled;
        }
    }
    rules
}

/// `path` opened to hang a rule on (`O_PATH`), with no symlink followed anywhere on the
/// way: a link that appeared since the path was resolved makes it fail, never land a rule
/// elsewhere. Whether it is a directory.
fn open(path: &Path) -> Option<(OwnedFd, bool)> {
    let how = OpenHow::new()
        .flags(OFlag::O_PATH | OFlag::O_CLOEXEC)
        .resolve(ResolveFlag::RESOLVE_NO_SYMLINKS);
    let fd = openat2(nix::fcntl::AT_FDCWD, path, how).ok()?;
    let stat = nix::sys::stat::fstat(&fd).ok()?;
    let is_dir = stat.st_mode & libc::S_IFMT == libc::S_IFDIR;
    Some((fd, is_dir))
}

/// The seccomp filter: refused calls fail with `EACCES`, as Landlock's refusals do.
fn filter(offline: bool) -> Result<BpfProgram, seccompiler::BackendError> {
    let arg = |index: u8, op: SeccompCmpOp, value: u64| {
        SeccompCondition::new(index, SeccompCmpArgLen::Dword, op, value)
    };
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    let ioctl = vec![
        SeccompRule::new(vec![arg(1, SeccompCmpOp::Eq, u64::from(TIOCSTI))?])?,
        SeccompRule::new(vec![arg(1, SeccompCmpOp::Eq, u64::from(TIOCLINUX))?])?,
    ];
    for nr in IOCTL {
        rules.insert(*nr, ioctl.clone());
    }
    if offline {
        let families = vec![SeccompRule::new(vec![
            arg(0, SeccompCmpOp::Ne, family(libc::AF_UNIX))?,
            arg(0, SeccompCmpOp::Ne, family(libc::AF_NETLINK))?,
        ])?];
        for nr in SOCKET {
            rules.insert(*nr, families.clone());
        }
        for nr in IO_URING_SETUP {
            rules.insert(*nr, Vec::new());
        }
    }
    let errno = u32::try_from(libc::EACCES).unwrap_or(13);
    SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(errno),
        ARCH,
    )?
    .try_into()
}

fn family(af: libc::c_int) -> u64 {
    u64::try_from(af).unwrap_or(u64::MAX)
}

/// The ioctl requests that type into a terminal.
const TIOCSTI: u32 = 0x5412;
const TIOCLINUX: u32 = 0x541C;

/// The system call numbers, with the x32 ones on x86-64 (the same architecture to
/// seccomp, told apart by bit 30), so a program built for x32 cannot step around them.
#[cfg(target_arch = "x86_64")]
const X32: i64 = 0x4000_0000;
#[cfg(target_arch = "x86_64")]
const IOCTL: &[i64] = &[libc::SYS_ioctl, X32 | 0x202];
#[cfg(target_arch = "x86_64")]
const SOCKET: &[i64] = &[libc::SYS_socket, X32 | libc::SYS_socket];
#[cfg(target_arch = "x86_64")]
const IO_URING_SETUP: &[i64] = &[libc::SYS_io_uring_setup, X32 | libc::SYS_io_uring_setup];
#[cfg(target_arch = "x86_64")]
const ARCH: TargetArch = TargetArch::x86_64;

#[cfg(target_arch = "aarch64")]
const IOCTL: &[i64] = &[libc::SYS_ioctl];
#[cfg(target_arch = "aarch64")]
const SOCKET: &[i64] = &[libc::SYS_socket];
#[cfg(target_arch = "aarch64")]
const IO_URING_SETUP: &[i64] = &[libc::SYS_io_uring_setup];
#[cfg(target_arch = "aarch64")]
const ARCH: TargetArch = TargetArch::aarch64;

#[cfg(target_arch = "riscv64")]
const IOCTL: &[i64] = &[libc::SYS_ioctl];
#[cfg(target_arch = "riscv64")]
const SOCKET: &[i64] = &[libc::SYS_socket];
#[cfg(target_arch = "riscv64")]
const IO_URING_SETUP: &[i64] = &[libc::SYS_io_uring_setup];
#[cfg(target_arch = "riscv64")]
const ARCH: TargetArch = TargetArch::riscv64;

/// The command for `program` with the sandbox entered in the child, after the fork and
/// before the exec.
pub fn command(prepared: Prepared, program: &OsStr, args: &[OsString]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args);
    let mut prepared = Some(prepared);
    let enter = move || match prepared.take() {
        Some(p) => enter(p),
        // Called once per spawn; a second call has nothing left to apply, so it refuses.
        None => Err(io::Error::from_raw_os_error(libc::EPERM)),
    };
    // SAFETY: `pre_exec` runs `enter` in the child between fork and exec, where only
    // async-signal-safe work may happen. `enter` allocates nothing and takes no lock: it
    // moves a value out of an `Option` and makes four system calls (prctl, Landlock's
    // restrict_self, close, seccomp), and its errors are plain errno values. The ruleset's
    // descriptor is close-on-exec, so nothing of it reaches the task.
    #[allow(unsafe_code)]
    unsafe {
        cmd.pre_exec(enter);
    }
    cmd
}

/// In the child: `no_new_privs`, the Landlock domain, then the seccomp filter (which needs
/// `no_new_privs`, already set).
fn enter(p: Prepared) -> io::Result<()> {
    let Prepared { ruleset, filter } = p;
    // The filter's memory is never freed here: a `free` after fork could wait forever on
    // an allocator lock another thread held at the fork. The exec (or the child's exit on
    // an error) releases it.
    let filter = std::mem::ManuallyDrop::new(filter);
    if let Err(err) = ruleset.restrict_self() {
        return Err(os_error(&err));
    }
    seccompiler::apply_filter(&filter).map_err(|err| os_error(&err))
}

/// The errno inside an error, without allocating (this runs after fork).
fn os_error(err: &(dyn std::error::Error + 'static)) -> io::Error {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = cause {
        if let Some(code) = e
            .downcast_ref::<io::Error>()
            .and_then(io::Error::raw_os_error)
        {
            return io::Error::from_raw_os_error(code);
        }
        cause = e.source();
    }
    io::Error::from_raw_os_error(libc::EPERM)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_filters_compile() {
        assert!(filter(false).is_ok_and(|f| !f.is_empty()));
        let offline = filter(true).expect("offline");
        assert!(offline.len() > filter(false).expect("default").len());
    }

    #[test]
    fn devices_may_take_ioctls_and_nothing_else_does() {
        let grants = Grants {
            read: vec![PathBuf::from("/"), PathBuf::from("/dev/null")],
            write: vec![PathBuf::from("/dev/null"), PathBuf::from("/repo")],
        };
        let handled = AccessFs::from_all(ABI::V7);
        let rules = rules(&grants, handled);
        assert!(rules[Path::new("/dev/null")].contains(AccessFs::IoctlDev));
        assert!(rules[Path::new("/dev/null")].contains(AccessFs::WriteFile));
        assert!(!rules[Path::new("/repo")].contains(AccessFs::IoctlDev));
        assert!(!rules[Path::new("/repo")].contains(AccessFs::MakeBlock));
        assert!(!rules[Path::new("/repo")].contains(AccessFs::MakeChar));
        assert!(!rules[Path::new("/")].contains(AccessFs::WriteFile));
    }
}
