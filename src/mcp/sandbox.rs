//! The sandbox in the MCP server: the policy every run an agent starts gets (from the rule
//! that allows it: [`crate::allowlist::Allowlist::sandbox_for`]), and the refusal where this
//! machine cannot sandbox. What a run's result says of it is [`super::sandboxed`].

use crate::allowlist::OnDisk;
use crate::sandbox::{self, Policy, Support};
use crate::table::{Table, Task};

use super::envelope::{ErrorCode, ToolError, tool_error};
use super::server::Server;

impl Server {
    /// The policy an agent's run of `task` gets, its rule read with the same view of the
    /// disk (`now`) as the decision; refused where this machine cannot sandbox, unless the
    /// person's rule turns the sandbox off.
    pub(super) fn sandbox_policy(
        &self,
        table: &Table,
        task: &Task,
        now: &mut OnDisk,
    ) -> Result<Policy, ToolError> {
        let spec = self.0.allowlist().sandbox_for(task, now);
        if !spec.no_sandbox
            && let Support::Unavailable { reason } = sandbox::support()
        {
            return Err(tool_error(
                ErrorCode::SandboxUnavailable,
                format!(
                    "`{}` was not started: agg runs every task an agent starts in a sandbox, and this machine cannot sandbox ({reason})",
                    task.unique_name
                ),
                Some(format!(
                    "only the user can decide to run it unsandboxed, with `agg allow {} --no-sandbox` outside the agent",
                    task.unique_name
                )),
            ));
        }
        Ok(Policy::new(
            &table.root,
            &spec,
            self.0.settings().allowlist.as_deref(),
        ))
    }
}

impl Server {
    /// What an agent's run of `task` gets, in words (`describe_task`).
    pub(super) fn sandbox_words(&self, table: &Table, task: &Task) -> String {
        let spec = self.0.allowlist().sandbox_for(task, &mut OnDisk::new());
        Policy::new(&table.root, &spec, self.0.settings().allowlist.as_deref()).described()
    }
}
