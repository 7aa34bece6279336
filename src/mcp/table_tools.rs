//! The read-only task handlers of `agg mcp`: `list_tasks`, `describe_task`, and the
//! per-task `run_*` tools, which become a `task_start` call ([`super::start`]).
#![allow(deprecated)] // rmcp marks the MCP logging API deprecated (SEP-2577); we still serve it.

use std::fmt::Write as _;

use agg_runners::Runner;
use rmcp::RoleServer;
use rmcp::model::CallToolResponse;
use rmcp::service::RequestContext;

use super::ask::Retry;
use super::catalog::{self};
use super::envelope::{ErrorCode, ToolError, ToolResult, invalid, parse, success, tool_error};
use super::per_task_tools::{self};
use super::server::Server;
use super::types::{
    AffectedArg, DescribeResult, DescribeTaskArgs, ListTasksArgs, ListTasksResult, TaskStartArgs,
};
use crate::allowlist::{Decision, OnDisk};
use crate::table::{Filter, Task};
use crate::terminal_text::cut_line;

impl Server {
    pub(super) async fn list_tasks(&self, args: ListTasksArgs) -> ToolResult {
        let runners = match args.runner.as_deref() {
            None | Some("") => Vec::new(),
            Some(name) => vec![Runner::from_name(name).ok_or_else(|| {
                tool_error(
                    ErrorCode::InvalidArgs,
                    format!("unknown runner `{}`", cut_line(name, 256)),
                    Some(format!("one of: {}", Runner::names())),
                )
            })?],
        };
        let dir = match args.dir.as_deref() {
            None => None,
            Some(d) => Some(inside_root(self.0.root(), d)?),
        };
        let filter = Filter {
            runners,
            dir,
            query: args.query.clone(),
        };
        let table = self.fresh().await;
        if let Some(affected) = args.affected.clone().filter(|a| *a != AffectedArg::Off) {
            if args.path.is_some() {
                return Err(invalid("affected and path cannot be combined"));
            }
            let offset = args.offset.unwrap_or(0);
            let limit = args.limit.unwrap_or(catalog::LIST_LIMIT).max(1);
            return self
                .list_affected(table, affected, &filter, offset, limit)
                .await;
        }
        let (order, suggestions) = if let Some(path) = args.path.as_deref() {
            {
                let outside = || {
                    tool_error(
                        ErrorCode::InvalidArgs,
                        format!("path `{}` is outside the repository", cut_line(path, 256)),
                        Some(
                            "path is a file or directory in the repository, relative to its root"
                                .to_owned(),
                        ),
                    )
                };
                let rel = crate::search::relative(&table.root, std::path::Path::new(path))
                    .ok_or_else(outside)?;
                let found = crate::search::for_path(&table, std::path::Path::new(&rel), &filter)
                    .ok_or_else(outside)?;
                (found, Vec::new())
            }
        } else {
            let found = crate::search::find(&table, &filter);
            (found.indices, found.suggestions)
        };
        let matching: Vec<&Task> = order.iter().filter_map(|&i| table.tasks.get(i)).collect();
        let offset = args.offset.unwrap_or(0);
        let limit = args.limit.unwrap_or(catalog::LIST_LIMIT).max(1);
        let mut result = self.listing(&table, &matching, offset, limit);
        result.suggestions = suggestions;
        let mut text = list_text(&result);
        if limit > catalog::LIST_MAX {
            let _ = writeln!(
                text,
                "[limit is at most {}: page on with offset]",
                catalog::LIST_MAX
            );
        }
        Ok(success(&result, text))
    }

    pub(super) async fn describe_task(&self, args: DescribeTaskArgs) -> ToolResult {
        let (table, i, _) = self.find(&args.unique_name).await?;
        let task = &table.tasks[i];
        let decision = self.decide(task, &mut OnDisk::new());
        let mut detail = crate::describe::of(
            task,
            crate::availability::runner_path(&table.root, &task.dir, task.runner)
                .map(|p| p.to_string_lossy().into_owned()),
        );
        detail.history = crate::history::History::open_existing(&table.root)
            .and_then(|h| h.summary_of(&task.unique_name, &task.file_path, &task.source_name));
        detail.packages = crate::graph::package_of(&crate::graph::read(&table), task);
        detail.sandbox = Some(self.sandbox_words(&table, task));
        // A result stays within a model's budget whatever the file holds: a recipe or a
        // description past the cap is cut where a line ends, saying how much was left out.
        for text in [&mut detail.script, &mut detail.task.description]
            .into_iter()
            .flatten()
        {
            cut(text, DESCRIBE_CAP);
        }
        let result = DescribeResult {
            detail,
            allowlisted: decision.allowed(),
            allowlist_rule: match decision {
                Decision::Allowed(r) | Decision::Denied(r) => Some(r),
                Decision::NotListed | Decision::Lapsed { .. } => None,
            },
        };
        let mut text = Vec::new();
        let _ = crate::describe::write(&mut text, &result.detail);
        // The text copy is for a model, not a terminal: no styling.
        let mut text = anstream::adapter::strip_str(&String::from_utf8_lossy(&text)).to_string();
        text.push_str(if result.allowlisted {
            "  agents may run it (allowlisted)\n"
        } else {
            "  agents may not run it yet (not allowlisted)\n"
        });
        Ok(success(&result, text))
    }

    /// A per-task tool call: its parameters become the task's arguments and environment,
    /// then it goes through exactly the checks of `task_start`.
    pub(super) async fn run_task_tool(
        &self,
        unique_name: String,
        args: rmcp::model::JsonObject,
        ctx: RequestContext<RoleServer>,
        retry: Retry,
    ) -> Result<CallToolResponse, ToolError> {
        let table = self.built().await;
        let Some(task) = table.get(&unique_name) else {
            return Err(tool_error(
                ErrorCode::NotFound,
                format!(
                    "the task `{}` is gone from the repository",
                    cut_line(&unique_name, 256)
                ),
                Some("list_tasks shows the current tasks".to_owned()),
            ));
        };
        let start =
            per_task_tools::start_arguments(task, &args).map_err(|e| invalid(e.to_string()))?;
        let start: TaskStartArgs = parse(Some(start))?;
        self.task_start(start, ctx, retry).await
    }
}

/// The most bytes of a recipe or a description `describe_task` returns.
const DESCRIBE_CAP: usize = 16 * 1024;

/// Cuts `text` to at most `cap` bytes at a line end, and says how many lines were left out.
fn cut(text: &mut String, cap: usize) {
    if text.len() <= cap {
        return;
    }
    let mut end = cap;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let end = text[..end].rfind('\n').unwrap_or(end);
    let left = text[end..].lines().filter(|l| !l.is_empty()).count();
    text.truncate(end);
    let _ = write!(
        text,
        "\n… {left} more lines (the file holds the rest: {DESCRIBE_CAP} bytes are shown at most)"
    );
}

/// Normalizes a root-relative directory, refusing anything that resolves outside the
/// root (`..`, absolute paths, symlinks leading out).
fn inside_root(root: &std::path::Path, dir: &str) -> Result<String, ToolError> {
    let out = || {
        tool_error(
            ErrorCode::InvalidArgs,
            format!("dir `{}` is outside the repository", cut_line(dir, 256)),
            Some("dir is relative to the repository root".to_owned()),
        )
    };
    let joined = agg_runners::join(".", dir.trim_end_matches('/')).ok_or_else(out)?;
    if let Ok(real) = std::fs::canonicalize(root.join(&joined))
        && !real.starts_with(root)
    {
        return Err(out());
    }
    Ok(joined)
}

pub(super) fn list_text(r: &ListTasksResult) -> String {
    let mut s = format!(
        "{} of {} tasks in {} (✓ = agents may run it)\n",
        r.tasks.len(),
        r.total,
        cut_line(&r.root, LIST_TEXT_CAP * 4)
    );
    for row in &r.tasks {
        let mut tags = String::new();
        for (on, tag) in [
            (row.not_runnable.is_some(), ", not runnable"),
            (row.missing_runner, ", not installed"),
            (row.service, ", service"),
            (!row.confirm.is_empty(), ", asks first"),
        ] {
            if on {
                tags.push_str(tag);
            }
        }
        let params = if row.params.is_empty() {
            String::new()
        } else {
            format!(" ({})", cut_line(&row.params.join(" "), LIST_TEXT_CAP))
        };
        if let Some(last) = &row.last {
            let _ = write!(tags, ", last {last}");
        }
        let why = row
            .why
            .as_deref()
            .map_or_else(String::new, |w| format!(" ← {w}"));
        let _ = writeln!(
            s,
            "{} {}{params} [{}{tags}] {}{why}",
            if row.allowlisted { "✓" } else { "·" },
            cut_line(&row.unique_name, LIST_TEXT_CAP),
            row.runner,
            row.description.as_deref().map_or_else(
                || format!(
                    "$ {}",
                    cut_line(row.command.as_deref().unwrap_or_default(), LIST_TEXT_CAP)
                ),
                |d| cut_line(d, LIST_TEXT_CAP)
            )
        );
    }
    if let Some(next) = r.next_offset {
        let _ = writeln!(
            s,
            "[{} more: list_tasks with offset {next}, or narrow with query/dir/runner/path]",
            r.total - next
        );
    }
    if !r.suggestions.is_empty() {
        let names: Vec<String> = r
            .suggestions
            .iter()
            .map(|n| cut_line(n, LIST_TEXT_CAP))
            .collect();
        let _ = writeln!(s, "did you mean: {}?", names.join(", "));
    }
    if r.problems > 0 {
        let _ = writeln!(
            s,
            "{} problems reading task files (see diagnostics)",
            r.problems
        );
    }
    if let Some(problem) = &r.allowlist_problem {
        let _ = writeln!(s, "allowlist: {}", cut_line(problem, LIST_TEXT_CAP * 4));
    }
    s
}

/// Most bytes of a name, a description or a command one row of `list_tasks`' text quotes:
/// what the repository wrote is escaped and cut there (the structured result is exact).
const LIST_TEXT_CAP: usize = 300;
