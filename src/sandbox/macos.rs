//! macOS: the policy as a Seatbelt profile ([`super::seatbelt`]), the run started through
//! `sandbox-exec -p PROFILE -- PROGRAM ARGS…`, as Codex does. Seatbelt's rules are
//! inherited by every process the run starts.

use std::ffi::{OsStr, OsString};
use std::path::Path;

use super::layout::Layout;
use super::{Grants, SandboxError, Support};

/// Where `sandbox-exec` lives on every macOS.
const SANDBOX_EXEC: &str = "/usr/bin/sandbox-exec";

/// The profile a run is started with.
#[derive(Debug)]
pub struct Prepared {
    profile: String,
}

/// Seatbelt is there when `sandbox-exec` is.
pub fn probe() -> Support {
    if Path::new(SANDBOX_EXEC).is_file() {
        Support::Seatbelt
    } else {
        Support::Unavailable {
            reason: format!("{SANDBOX_EXEC} is missing"),
        }
    }
}

/// The profile of `layout`.
pub fn prepare(
    layout: &Layout,
    _grants: &Grants,
    _support: &Support,
) -> Result<Prepared, SandboxError> {
    Ok(Prepared {
        profile: super::seatbelt::profile(layout),
    })
}

/// `sandbox-exec -p PROFILE -- PROGRAM ARGS…`.
pub fn command(prepared: Prepared, program: &OsStr, args: &[OsString]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(SANDBOX_EXEC);
    cmd.arg("-p")
        .arg(prepared.profile)
        .arg("--")
        .arg(program)
        .args(args);
    cmd
}
