//! The OS sandbox of every run an agent starts: an allow says which task may run; the
//! sandbox holds what that task's code can then do, even when it is hostile.
//!
//! # Theory of operation
//!
//! A person's rule carries a [`Spec`] (`--offline`, `--write PATH`, `--read-secret PATH`,
//! `--no-sandbox`). At each start agg builds a [`Policy`] from it and from agg's own
//! environment ([`layout`]: the repository, the temp dir, the runners' caches and devices
//! are writable; everything but the secrets is readable; agg's own directories are never
//! writable), and hands it to the engine inside the [`crate::engine::Invocation`].
//!
//! On Linux the engine calls [`prepare`] before it forks: the marks become Landlock rules
//! ([`tree`] splits each allowed tree around its exceptions, since Landlock only allows),
//! every path is opened there (`O_PATH`, no symlink followed), the ruleset is created and
//! filled, and the seccomp filter compiled. Between fork and exec the child only makes
//! system calls: `no_new_privs`, `landlock_restrict_self`, `seccomp` ([`command`]), so agg
//! itself is never restricted and nothing that could deadlock after `fork` runs there. The
//! domain is inherited by every process of the run, across `setsid`, double forks and any
//! `exec`, and cannot be lifted from inside. Landlock's scopes (ABI 6) keep a run from
//! signalling processes outside its domain (agg, the person's shell, other runs) and from
//! reaching abstract Unix sockets made outside it.
//!
//! On macOS the same marks become a Seatbelt profile for `sandbox-exec` ([`seatbelt`]).
//! Elsewhere, or where the kernel offers no usable Landlock, [`support`] says why and an
//! agent's run is refused.
//!
//! When a sandboxed run fails, [`denied`] reads its output for access errors naming a
//! path its rules did not grant, so the model is told the path and the `agg allow`
//! a person could run.

pub mod denied;
pub mod layout;
pub mod seatbelt;
mod spec;
pub mod tree;

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
use linux as os;
#[cfg(target_os = "macos")]
mod macos;
#[cfg(target_os = "macos")]
use macos as os;
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
mod unsupported;
#[cfg(not(any(target_os = "linux", target_os = "macos")))]
use unsupported as os;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::Serialize;

pub use layout::Layout;
pub use spec::{LOOPBACK_REFUSED, Spec, resolve};
pub use tree::Grants;

/// What a sandboxed run gets: the rule's options and where they put it, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    spec: Spec,
    layout: Layout,
}

impl Policy {
    /// The policy of a run in the repository at `root` under `spec`. `allowlist` is the
    /// allowlist file, never writable, like the rest of agg's own directories.
    pub fn new(root: &Path, spec: &Spec, allowlist: Option<&Path>) -> Policy {
        Policy {
            spec: spec.clone(),
            layout: Layout::new(root, spec, &own_dirs(allowlist)),
        }
    }

    /// The policy for a run that inherits agg's standard streams (a person's run at a
    /// terminal): the terminals they are stay readable and writable by name.
    #[must_use]
    pub fn inheriting_terminals(mut self) -> Policy {
        use std::os::fd::AsFd;
        let streams = [
            std::io::stdin().as_fd().try_clone_to_owned(),
            std::io::stdout().as_fd().try_clone_to_owned(),
            std::io::stderr().as_fd().try_clone_to_owned(),
        ];
        for fd in streams.into_iter().flatten() {
            if let Ok(tty) = nix::unistd::ttyname(&fd)
                && !self.layout.terminals.contains(&tty)
            {
                self.layout.terminals.push(tty);
            }
        }
        self
    }

    /// The rule's options.
    pub fn spec(&self) -> &Spec {
        &self.spec
    }

    /// Where the policy lets a run read and write.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The policy in words, for `agg describe`, the question and `agg run --sandbox`.
    pub fn words(&self) -> String {
        if self.spec.no_sandbox {
            return self.spec.words();
        }
        let network = if self.spec.offline {
            "network off"
        } else {
            "network on"
        };
        let mut s = format!(
            "sandboxed ({}): writes only in the repository, the temp dir and the runners' caches; secrets unreadable; {network}",
            self.spec.name()
        );
        if !self.spec.write.is_empty() || !self.spec.read_secret.is_empty() {
            s.push_str("; ");
            s.push_str(&self.spec.words().replace("offline; ", ""));
        }
        s
    }
}

impl Policy {
    /// What an agent's run under this policy gets on this machine, in words: the policy,
    /// or the refusal where runs cannot be sandboxed here.
    pub fn described(&self) -> String {
        match support() {
            Support::Unavailable { reason } if !self.spec.no_sandbox => {
                format!("agents' runs are refused: this machine cannot sandbox ({reason})")
            }
            _ => self.words(),
        }
    }
}

/// agg's own directories, never writable by a task: the allowlist's directory (where it is
/// written and, if it is a symlink, where it really is), the config and state directories
/// (run history, service logs) and the control sockets' directory.
pub fn own_dirs(allowlist: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(file) = allowlist {
        dirs.extend(file.parent().map(Path::to_path_buf));
        if let Ok(real) = std::fs::canonicalize(file) {
            dirs.extend(real.parent().map(Path::to_path_buf));
        }
    }
    dirs.extend(crate::own_dirs::config_dir());
    dirs.push(crate::own_dirs::OwnDir::state().path());
    dirs.push(crate::own_dirs::socket_dir().path());
    dirs
}

/// Whether this machine can sandbox runs, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Support {
    /// Landlock, with the kernel's ABI version (as this agg knows it).
    Landlock {
        /// The ABI version.
        abi: i32,
    },
    /// macOS: Seatbelt through `sandbox-exec`.
    Seatbelt,
    /// Runs cannot be sandboxed here.
    Unavailable {
        /// Why.
        reason: String,
    },
}

/// The lowest Landlock ABI agg sandboxes with: 3 (Linux 6.2) is the first that controls
/// truncation, without which a run could empty any file it can read.
pub const MIN_ABI: i32 = 3;
/// The lowest Landlock ABI that controls TCP (Linux 6.7), needed by `--offline`.
pub const OFFLINE_ABI: i32 = 4;
/// The lowest Landlock ABI with scopes (Linux 6.12): signals and abstract Unix sockets.
pub const SCOPE_ABI: i32 = 6;

impl Support {
    /// Whether runs can be sandboxed.
    pub fn available(&self) -> bool {
        !matches!(self, Support::Unavailable { .. })
    }

    /// One line for `agg mcp`'s log and the server's instructions.
    pub fn line(&self) -> String {
        match self {
            Support::Landlock { abi } if *abi >= SCOPE_ABI => {
                format!("agents' runs are sandboxed (Landlock ABI {abi}: files, network, signals)")
            }
            Support::Landlock { abi } => format!(
                "agents' runs are sandboxed (Landlock ABI {abi}: files{}; signals to other processes are not confined before ABI {SCOPE_ABI})",
                if *abi >= OFFLINE_ABI { ", network" } else { "" }
            ),
            Support::Seatbelt => "agents' runs are sandboxed (Seatbelt)".to_owned(),
            Support::Unavailable { reason } => format!(
                "agents' runs cannot be sandboxed here ({reason}): each is refused unless the person's rule says --no-sandbox"
            ),
        }
    }
}

/// Whether runs can be sandboxed on this machine, checked once per process.
pub fn support() -> &'static Support {
    static SUPPORT: OnceLock<Support> = OnceLock::new();
    SUPPORT.get_or_init(os::probe)
}

/// Why a run could not be sandboxed.
#[derive(Debug)]
pub enum SandboxError {
    /// This machine cannot sandbox runs.
    Unavailable {
        /// Why.
        reason: String,
    },
    /// The policy needs a newer Landlock than the kernel has.
    TooOld {
        /// What needs it.
        feature: &'static str,
        /// The kernel's ABI.
        abi: i32,
        /// The ABI it needs.
        needs: i32,
    },
    /// A directory on a split path holds too many entries to give each a rule.
    TooManyEntries {
        /// The directory.
        dir: PathBuf,
    },
    /// The kernel refused the rules.
    Os(Box<dyn std::error::Error + Send + Sync>),
}

impl std::fmt::Display for SandboxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SandboxError::Unavailable { reason } => {
                write!(f, "this machine cannot sandbox runs: {reason}")
            }
            SandboxError::TooOld {
                feature,
                abi,
                needs,
            } => write!(
                f,
                "{feature} needs Landlock ABI {needs} or newer; this kernel has ABI {abi}"
            ),
            SandboxError::TooManyEntries { dir } => write!(
                f,
                "{} holds more entries than the sandbox gives rules to ({}), and it lies on the way to a path the policy keeps out",
                dir.display(),
                tree::MAX_RULES
            ),
            SandboxError::Os(err) => write!(f, "the sandbox could not be set up: {err}"),
        }
    }
}

impl std::error::Error for SandboxError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SandboxError::Os(err) => Some(err.as_ref()),
            _ => None,
        }
    }
}

/// A policy made ready to apply: on Linux the filled Landlock ruleset and the compiled
/// seccomp filter, made before the fork.
#[derive(Debug)]
pub struct Prepared {
    os: os::Prepared,
}

/// What a job keeps of its sandbox: the rule's options and what its rules granted, to say
/// what it was denied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The rule's options (`no_sandbox` for a run the person's rule left unconfined).
    pub spec: Spec,
    /// What the rules granted (nothing recorded for an unconfined run).
    pub grants: Grants,
}

/// Makes `policy` ready to apply to a run started now: `None` to apply when the person's
/// rule turned the sandbox off.
pub fn confine(policy: &Policy) -> Result<(Option<Prepared>, Applied), SandboxError> {
    if policy.spec().no_sandbox {
        let applied = Applied {
            spec: policy.spec().clone(),
            grants: Grants::default(),
        };
        return Ok((None, applied));
    }
    let (prepared, grants) = prepare(policy)?;
    let applied = Applied {
        spec: policy.spec().clone(),
        grants,
    };
    Ok((Some(prepared), applied))
}

/// Makes `policy` ready to apply to a run started now, and what it grants.
pub fn prepare(policy: &Policy) -> Result<(Prepared, Grants), SandboxError> {
    if let Support::Unavailable { reason } = support() {
        return Err(SandboxError::Unavailable {
            reason: reason.clone(),
        });
    }
    let layout = policy.layout();
    create_missing(policy);
    let too_many = |e: tree::TooMany| SandboxError::TooManyEntries { dir: e.dir };
    let grants = Grants {
        read: tree::grants(&layout.read_marks()).map_err(too_many)?,
        write: tree::grants(&layout.write_marks()).map_err(too_many)?,
    };
    let os = os::prepare(layout, &grants, support())?;
    Ok((Prepared { os }, grants))
}

/// The command that runs `program` with `args` under `prepared`: on Linux with the
/// sandbox entered between fork and exec, on macOS through `sandbox-exec`.
pub fn command(
    prepared: Prepared,
    program: &OsStr,
    args: &[std::ffi::OsString],
) -> tokio::process::Command {
    os::command(prepared.os, program, args)
}

/// Creates the rule's `--write` paths that do not exist yet, as directories, so a rule
/// has something to hold on to (a person allowed writing there; agg's own directories
/// excepted).
fn create_missing(policy: &Policy) {
    let layout = policy.layout();
    for path in &layout.write {
        if !layout.is_own(path) && std::fs::symlink_metadata(path).is_err() {
            let _ = std::fs::create_dir_all(path);
        }
    }
}

/// What a run's result says about its sandbox (`sandbox` in `task_start`'s result).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Summary {
    /// The policy: `default` (writes in the repository, the temp dir and the runners'
    /// caches; secrets unreadable; network on), `offline` (the same without network), or
    /// `none` (the person's rule turned the sandbox off).
    pub policy: &'static str,
    /// More paths the person's rule lets it write.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub write: Vec<String>,
    /// Secrets the person's rule lets it read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub read_secret: Vec<String>,
    /// When the run failed: paths its output says it was denied, which the policy keeps
    /// out.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub denied: Vec<denied::Denied>,
}

impl Summary {
    /// The summary of a run under `spec`, before anything was denied.
    pub fn of(spec: &Spec) -> Summary {
        let shown = |paths: &[PathBuf]| paths.iter().map(|p| p.display().to_string()).collect();
        Summary {
            policy: spec.name(),
            write: shown(&spec.write),
            read_secret: shown(&spec.read_secret),
            denied: Vec::new(),
        }
    }
}
