//! Systems where agg has no sandbox: an agent's run is refused unless the person's rule
//! says `--no-sandbox`.

use std::ffi::{OsStr, OsString};

use super::layout::Layout;
use super::{Grants, SandboxError, Support};

/// Nothing to apply.
#[derive(Debug)]
pub struct Prepared;

/// No sandbox on this system.
pub fn probe() -> Support {
    Support::Unavailable {
        reason: format!("agg has no sandbox for {}", std::env::consts::OS),
    }
}

/// Never reached: [`super::prepare`] refuses first.
pub fn prepare(
    _layout: &Layout,
    _grants: &Grants,
    support: &Support,
) -> Result<Prepared, SandboxError> {
    Err(SandboxError::Unavailable {
        reason: support.line(),
    })
}

/// The plain command.
pub fn command(_prepared: Prepared, program: &OsStr, args: &[OsString]) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(args);
    cmd
}
