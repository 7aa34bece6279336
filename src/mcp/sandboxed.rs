//! What a run's result says of its sandbox: the short `sandbox` field (the policy, the
//! rule's extra paths, and for a failed run the paths it was denied that the policy keeps
//! out), its line in the text copy, and the sentence of the server's instructions.

use std::fmt::Write as _;

use crate::engine::{Job, JobState, ReadRequest};
use crate::sandbox::{Summary, Support, denied};

/// Lines of a failed run's output read for denied paths, from its end, and their bytes.
const DENIAL_LINES: usize = 2_000;
const DENIAL_BYTES: usize = 256 * 1024;

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
