//! `agg list --affected [REF]`: the tasks a change affects ([`crate::affected`]), nearest
//! first, each directory's block under the reason it is affected; with `--json`, a document
//! of the changed files and the affected rows, each with `why` and `distance`.

use std::io::{self, Write};
use std::process::ExitCode;

use serde_json::{Value, json};

use super::{fit, rows};
use crate::affected::Hit;
use crate::error::Error;
use crate::table::{Filter, Table};
use crate::terminal_text;

/// What `--affected` was asked, with the listing's other options.
pub(super) struct How<'a> {
    /// The ref whose merge base with HEAD the changes start from (`None`: HEAD).
    pub since: Option<&'a str>,
    /// `--runner`, `--dir`, `--query`.
    pub filter: &'a Filter,
    pub json: bool,
    pub wide: bool,
}

/// Changed files named in the heading at most.
const NAMED_FILES: usize = 5;

pub(super) fn run(table: &Table, how: &How<'_>) -> Result<ExitCode, Error> {
    let changes = crate::changes::read(&table.root, how.since).map_err(Error::Changes)?;
    let graph = crate::graph::read(table);
    let hits: Vec<Hit> = crate::affected::tasks(table, &graph, &changes.files)
        .into_iter()
        .filter(|h| how.filter.matches(&table.tasks[h.task]))
        .collect();
    if how.json {
        let rows: Vec<Value> = hits.iter().map(|h| row(table, h)).collect();
        let doc = json!({
            "root": table.root.display().to_string(),
            "against": changes.against,
            "changed": changes.files,
            "tasks": rows,
            "diagnostics": graph.diagnostics,
        });
        let mut out = io::BufWriter::new(io::stdout().lock());
        serde_json::to_writer(&mut out, &doc)
            .map_err(io::Error::from)
            .map_err(Error::Output)?;
        writeln!(out).map_err(Error::Output)?;
        out.flush().map_err(Error::Output)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = anstream::stdout().lock();
    write(&mut out, table, &hits, &changes, how).map_err(Error::Output)?;
    out.flush().map_err(Error::Output)?;
    Ok(ExitCode::SUCCESS)
}

/// One affected row as JSON: the table's row (with its behaviour) plus `why` and `distance`.
fn row(table: &Table, hit: &Hit) -> Value {
    let task = &table.tasks[hit.task];
    let mut v = serde_json::to_value(task).unwrap_or(Value::Null);
    if let (Some(obj), Ok(Value::Object(behaviour))) =
        (v.as_object_mut(), serde_json::to_value(&task.behaviour))
    {
        obj.extend(behaviour);
        obj.insert("why".into(), json!(hit.why.to_string()));
        obj.insert("distance".into(), json!(hit.distance));
    }
    v
}

fn write(
    out: &mut impl Write,
    table: &Table,
    hits: &[Hit],
    changes: &crate::changes::Changes,
    how: &How<'_>,
) -> io::Result<()> {
    let columns = fit::columns(&io::stdout(), how.wide);
    let named: Vec<String> = changes
        .files
        .iter()
        .take(NAMED_FILES)
        .map(|f| terminal_text::line(f).into_owned())
        .collect();
    let more = changes.files.len().saturating_sub(NAMED_FILES);
    let files = if more > 0 {
        format!("{} and {more} more", named.join(", "))
    } else {
        named.join(", ")
    };
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut heading = fit::Line::new();
    if changes.files.is_empty() {
        heading.push(
            rows::DIM,
            format!(
                "nothing changed against {}",
                terminal_text::line(&changes.against)
            ),
        );
        heading.write(out, columns)?;
        return Ok(());
    }
    heading.push(
        rows::DIM,
        format!(
            "{} affected by {} against {}: {files}",
            plural(hits.len(), "task", "tasks"),
            plural(changes.files.len(), "changed file", "changed files"),
            terminal_text::line(&changes.against),
        ),
    );
    heading.write(out, columns)?;
    let view = rows::View {
        columns,
        history: &super::past_runs(&table.root),
    };
    let mut start = 0;
    while start < hits.len() {
        let first = &hits[start];
        let dir = &table.tasks[first.task].dir;
        let len = hits[start..]
            .iter()
            .take_while(|h| table.tasks[h.task].dir == *dir && h.why == first.why)
            .count();
        writeln!(out)?;
        let mut why = fit::Line::new();
        why.push(
            rows::DIM,
            format!("← {}", terminal_text::line(&first.why.to_string())),
        );
        why.write(out, columns)?;
        let group: Vec<_> = hits[start..start + len]
            .iter()
            .map(|h| table.tasks[h.task].clone())
            .collect();
        rows::write(out, &group, &view)?;
        start += len;
    }
    Ok(())
}
