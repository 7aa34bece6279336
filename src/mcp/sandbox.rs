//! The sandbox in the MCP server: the policy every run an agent starts gets (from the rule
//! that allows it: [`crate::allowlist::Allowlist::sandbox_for`]), the refusal where this
//! machine cannot sandbox, and the short `sandbox` field of a run's result, which names the
//! paths a failed run was denied.

use std::fmt::Write as _;

use crate::allowlist::Now;
use crate::engine::{Job, JobState, ReadRequest};
use crate::sandbox::{self, Policy, Summary, Support, denied};
use crate::table::{Table, Task};

use super::envelope::{ToolError, code, tool_error};
use super::server::Server;
use super::state::lock;

/// Lines of a failed run's output read for denied paths, from its end, and their bytes.
const DENIAL_LINES: usize = 2_000;
const DENIAL_BYTES: usize = 256 * 1024;

impl Server {
    /// The policy an agent's run of `task` gets, its rule read with the same view of the
    /// disk (`now`) as the decision; refused where this machine cannot sandbox, unless the
    /// person's rule turns the sandbox off.
    pub(super) fn sandbox_policy(
        &self,
        table: &Table,
        task: &Task,
        now: &mut Now,
    ) -> Result<Policy, ToolError> {
        let spec = lock(&self.0.allowlist).sandbox_for(task, now);
        if !spec.no_sandbox
            && let Support::Unavailable { reason } = sandbox::support()
        {
            return Err(tool_error(
                code::SANDBOX_UNAVAILABLE,
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
            self.0.settings.allowlist.as_deref(),
        ))
    }
}

impl Server {
    /// What an agent's run of `task` gets, in words (`describe_task`).
    pub(super) fn sandbox_words(&self, table: &Table, task: &Task) -> String {
        let spec = lock(&self.0.allowlist).sandbox_for(task, &mut Now::new());
        Policy::new(&table.root, &spec, self.0.settings.allowlist.as_deref()).described()
    }
}

/// The `sandbox` field of `job`'s result: its policy and extra paths, and when it failed,
/// the paths its output says it was denied that the policy keeps out.
pub(super) fn summary(job: &Job) -> Option<Summary> {
    let applied = job.sandbox.as_ref()?;
    let mut summary = Summary::of(&applied.spec);
    let snapshot = job.snapshot();
    let failed = snapshot.state == JobState::Signaled
        || (snapshot.state == JobState::Exited && snapshot.exit_code != Some(0));
    if failed && !applied.spec.no_sandbox {
        // The tail: where a failure says why.
        let page = job.read(&ReadRequest {
            max_lines: Some(DENIAL_LINES),
            max_bytes: Some(DENIAL_BYTES),
            ..ReadRequest::default()
        });
        let lines: Vec<String> = page.lines.into_iter().map(|l| l.text).collect();
        let marked: Vec<bool> = lines
            .iter()
            .map(|l| denied::is_denial(l.as_bytes()))
            .collect();
        if marked.contains(&true) {
            let paths = denied::paths(&lines, &marked);
            summary.denied = denied::kept_out(&paths, &applied.grants, &job.unique_name);
        }
    }
    Some(summary)
}

/// A result's text copy about the sandbox: the policy and its options, then each path
/// denied on a line of its own.
pub(super) fn text(summary: &Summary) -> String {
    let mut s = format!("sandbox: {}", summary.policy);
    for path in &summary.write {
        let _ = write!(s, ", writes {path}");
    }
    for path in &summary.read_secret {
        let _ = write!(s, ", reads {path}");
    }
    for d in &summary.denied {
        let _ = match &d.allow {
            Some(allow) => write!(
                s,
                "\ndenied by the sandbox: {} (the user can allow it: {allow})",
                d.path
            ),
            None => write!(s, "\ndenied by the sandbox: {} (a secret)", d.path),
        };
    }
    s
}

/// The sentence of the server's instructions about the sandbox.
pub(super) fn instructions(support: &Support) -> String {
    match support {
        Support::Unavailable { reason } => format!(
            "This machine cannot sandbox runs ({reason}), so agg refuses each one unless the user turned the sandbox off for that task."
        ),
        _ => "Runs are sandboxed by the OS: they write only in the repository, the temp dir and the runners' caches, and cannot read secrets such as ~/.ssh; a failed run's `sandbox.denied` names a path it was refused.".to_owned(),
    }
}
