//! The sandbox as a person meets it: `agg run --sandbox NAME` runs a task exactly as an
//! agent's run of it would be (the policy of the allowlist's rule for it, or the default),
//! and `agg describe` says which policy that is.

use crate::allowlist::{LiveAllowlist, OnDisk};
use crate::error::Error;
use crate::sandbox::{Policy, Spec};
use crate::table::{Table, Task};

/// The sandbox options agents' runs of `task` get from the person's allowlist.
pub(super) fn spec(table: &Table, task: &Task) -> Spec {
    LiveAllowlist::new(crate::allowlist::default_path(), &table.root)
        .sandbox_for(task, &mut OnDisk::new())
}

/// The policy an agent's run of `task` gets; an error when this machine cannot sandbox
/// and the rule does not turn the sandbox off.
pub(super) fn policy(table: &Table, task: &Task) -> Result<Policy, Error> {
    let spec = spec(table, task);
    let support = crate::sandbox::support();
    if !spec.no_sandbox
        && let crate::sandbox::Support::Unavailable { reason } = support
    {
        return Err(Error::Sandbox {
            task: task.unique_name.clone(),
            reason: reason.clone(),
        });
    }
    let allowlist = crate::allowlist::default_path();
    Ok(Policy::new(&table.root, &spec, allowlist.as_deref()))
}

/// What an agent's run of `task` gets, in words (`agg describe`).
pub(super) fn described(table: &Table, task: &Task) -> String {
    let allowlist = crate::allowlist::default_path();
    Policy::new(&table.root, &spec(table, task), allowlist.as_deref()).described()
}
