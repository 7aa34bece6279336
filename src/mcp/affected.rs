//! `list_tasks {"affected": …}`: the tasks a change affects ([`crate::affected`]), read from
//! the repository at the moment of the call (changes with gitoxide, the workspace graph from
//! the manifests the live table knows), each row saying why, the changed files beside them.

use std::sync::Arc;

use super::envelope::{ErrorCode, ToolResult, success, tool_error};
use super::server::Server;
use super::types::{AffectedArg, ChangedFiles};
use crate::table::{Filter, Table, Task};

/// Changed files a result names at most (the count says how many there are).
const NAMED_FILES: usize = 20;

impl Server {
    pub(super) async fn list_affected(
        &self,
        table: Arc<Table>,
        affected: AffectedArg,
        filter: &Filter,
        offset: usize,
        limit: usize,
    ) -> ToolResult {
        let since = match affected {
            AffectedArg::Since(r) => Some(r),
            AffectedArg::Head | AffectedArg::Off => None,
        };
        // Reading the working tree takes a while on a large repository: off the runtime.
        let read = {
            let table = Arc::clone(&table);
            tokio::task::spawn_blocking(move || {
                let changes = crate::changes::read(&table.root, since.as_deref())?;
                let graph = crate::graph::read(&table);
                let hits = crate::affected::tasks(&table, &graph, &changes.files);
                Ok::<_, crate::changes::ChangeError>((changes, hits))
            })
            .await
        };
        let (changes, hits) = match read {
            Ok(Ok(found)) => found,
            Ok(Err(err)) => {
                return Err(tool_error(
                    ErrorCode::InvalidArgs,
                    err.to_string(),
                    Some("affected needs a git repository; a ref must name a commit (`main`, `origin/main`, a sha)".to_owned()),
                ));
            }
            Err(err) => {
                return Err(tool_error(
                    ErrorCode::InvalidArgs,
                    format!("reading the changes failed: {err}"),
                    None,
                ));
            }
        };
        let hits: Vec<_> = hits
            .into_iter()
            .filter(|h| filter.matches(&table.tasks[h.task]))
            .collect();
        let matching: Vec<&Task> = hits.iter().map(|h| &table.tasks[h.task]).collect();
        let mut result = self.listing(&table, &matching, offset, limit);
        for (row, hit) in result.tasks.iter_mut().zip(hits.iter().skip(offset)) {
            row.why = Some(hit.why.to_string());
        }
        result.changed = Some(ChangedFiles {
            against: changes.against.clone(),
            count: changes.files.len(),
            files: changes.files.iter().take(NAMED_FILES).cloned().collect(),
        });
        let mut text = super::table_tools::list_text(&result);
        text.insert_str(
            0,
            &format!(
                "{} files changed against {}{}\n",
                changes.files.len(),
                changes.against,
                if changes.files.is_empty() {
                    ": nothing is affected".to_owned()
                } else {
                    format!(
                        ": {}",
                        changes
                            .files
                            .iter()
                            .take(5)
                            .cloned()
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }
            ),
        );
        Ok(success(&result, text))
    }
}
