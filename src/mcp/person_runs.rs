//! `list_runs`, and the server's view of the person's runs ([`super::mirrors`]): refreshed
//! from the disk whenever a call needs them.

use super::envelope::success;
use super::mirrors::{By, ListRunsResult, Mirrors, RunRow};
use super::server::Server;
use crate::engine::JobState;

impl Server {
    /// The mirrors, refreshed from the disk now.
    pub(super) fn person_runs(&self) -> &Mirrors {
        self.0.person_runs().refresh(self.0.root());
        self.0.person_runs()
    }

    /// `list_runs`: this agent's jobs and the person's runs.
    pub(super) fn list_runs(&self) -> rmcp::model::CallToolResult {
        let mut runs: Vec<RunRow> = self
            .0
            .engine()
            .list()
            .iter()
            .map(|j| RunRow {
                job: j.snapshot(),
                by: By::Agent,
                pid: None,
            })
            .collect();
        runs.extend(self.person_runs().rows());
        runs.sort_by(|a, b| a.job.started_at.cmp(&b.job.started_at));
        let running = runs
            .iter()
            .filter(|r| r.job.state == JobState::Running)
            .count();
        let mut text = format!("{} runs, {running} running", runs.len());
        for r in &runs {
            let by = match r.by {
                By::Agent => "yours",
                By::Person => "the person's agg run",
                By::Service => "a service the person left running",
            };
            let _ = std::fmt::Write::write_fmt(
                &mut text,
                format_args!(
                    "\n{}  {}  {}  {}ms{}  ({by})",
                    r.job.run_id,
                    r.job.unique_name,
                    r.job.state.as_str(),
                    r.job.elapsed_ms,
                    r.job
                        .exit_code
                        .map_or_else(String::new, |c| format!("  exit {c}")),
                ),
            );
        }
        success(&ListRunsResult { runs, running }, text)
    }
}
