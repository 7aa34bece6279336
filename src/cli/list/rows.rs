//! The human table of `agg list`: one block per directory, headed by the directory and its
//! task files, each row the name with its parameters in just's style (`deploy env`,
//! `test filter="all"`), a mark for a task that asks first or is a service, the runner, the
//! last run, and the description (else the command), cut to the terminal's width.
//!
//! Everything the repository wrote is printed through [`visible`]: a name, directory or
//! description can neither drive the terminal nor start a row of its own.

use std::io::{self, Write};

use agg_runners::Param;
use anstyle::{AnsiColor, Style};

use super::fit::{self, Line};
use crate::history::Summaries;
use crate::table::Task;
use crate::terminal_text;

const DIR: Style = Style::new().bold();
const NAME: Style = AnsiColor::Cyan.on_default().bold();
const PARAMS: Style = AnsiColor::Cyan.on_default();
pub(super) const DIM: Style = Style::new().dimmed();
pub(super) const MISSING: Style = AnsiColor::Red.on_default();
const MARK: Style = AnsiColor::Yellow.on_default().bold();

/// The mark of a task that asks a question before it runs (just `[confirm]`, go-task
/// `prompt`).
pub(super) const ASKS: &str = "?";
/// The mark of a service: a task that runs until it is stopped.
pub(super) const SERVICE: &str = "∞";

/// The name column takes at most this share of the width (in percent): a longer name
/// pushes its own row's description rather than every row's.
const NAME_SHARE: usize = 50;
/// A description narrower than this is not worth cutting to: the whole row is cut instead.
const MIN_DESCRIPTION: usize = 12;
/// At a terminal, a parameter's default is cut to this many columns (`…` marks the cut):
/// a workflow input whose default is a paragraph would otherwise fill the name column.
const MAX_DEFAULT: usize = 16;
/// Name cells wider than this do not widen the column: the rare long one pushes its own
/// row's runner and description, not every row's (piped, where nothing is cut).
const LONG_NAME: usize = 48;

/// How the rows are drawn.
pub(super) struct View<'a> {
    /// The width rows are cut to; `None` writes them whole.
    pub columns: Option<usize>,
    /// How each task last ran.
    pub history: &'a Summaries,
}

/// Which marks the written rows carry, for the legend.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct Marks {
    pub asks: bool,
    pub service: bool,
}

impl Marks {
    fn add(&mut self, other: Marks) {
        self.asks |= other.asks;
        self.service |= other.service;
    }
}

/// Writes `tasks` (rows of a table, in table order or in search blocks) one block per
/// directory, a blank line between blocks.
pub(super) fn write(out: &mut impl Write, tasks: &[Task], view: &View) -> io::Result<Marks> {
    let mut marks = Marks::default();
    let mut start = 0;
    let mut first = true;
    while start < tasks.len() {
        let dir = &tasks[start].dir;
        let len = tasks[start..].iter().take_while(|t| &t.dir == dir).count();
        if !first {
            writeln!(out)?;
        }
        first = false;
        marks.add(write_block(out, &tasks[start..start + len], view)?);
        start += len;
    }
    Ok(marks)
}

/// One directory's heading and rows.
fn write_block(out: &mut impl Write, group: &[Task], view: &View) -> io::Result<Marks> {
    write_heading(out, group, view)?;
    let columns = Columns::measure(group, view);
    let mut marks = Marks::default();
    for (i, t) in group.iter().enumerate() {
        let mut row = columns.head(i, t, &mut marks);
        let tail = tail(t);
        let (desc_style, desc) = description(t);
        match view.columns {
            Some(width) => {
                let room = width.saturating_sub(row.width() + tail.width());
                if room >= MIN_DESCRIPTION || fit::width(&desc) <= room {
                    row.push(desc_style, fit::cut(&desc, room));
                } else {
                    // Too narrow for a useful description: the row is cut at the edge.
                    row.push(desc_style, desc);
                }
            }
            None => {
                row.push(desc_style, desc);
            }
        }
        row.extend(tail);
        row.write(out, view.columns)?;
    }
    Ok(marks)
}

/// A block's heading: its directory and the task files its rows come from.
fn write_heading(out: &mut impl Write, group: &[Task], view: &View) -> io::Result<()> {
    let dir = group.first().map_or(".", |t| t.dir.as_str());
    let mut files: Vec<&str> = Vec::new();
    for t in group {
        let f = file_in(dir, &t.file_path);
        if !files.contains(&f) {
            files.push(f);
        }
    }
    let files: Vec<_> = files.iter().map(|f| terminal_text::line(f)).collect();
    let mut heading = Line::new();
    heading
        .push(
            DIR,
            if dir == "." {
                "./".to_owned()
            } else {
                terminal_text::line(dir).into_owned()
            },
        )
        .push(Style::new(), " ")
        .push(DIM, format!("({})", files.join(", ")));
    heading.write(out, view.columns)
}

/// The cells of a block's columns before its descriptions, each row's and the widths they
/// line up to: the name with its parameters, the mark, the runner and the last run.
struct Columns {
    names: Vec<String>,
    signatures: Vec<String>,
    name_cells: Vec<usize>,
    name_w: usize,
    marks: Vec<&'static str>,
    mark_column: bool,
    labels: Vec<String>,
    runner_w: usize,
    badges: Vec<Option<(String, bool)>>,
    badge_w: Option<usize>,
}

impl Columns {
    /// The cells of `group`'s rows and their columns' widths.
    fn measure(group: &[Task], view: &View) -> Columns {
        let names: Vec<String> = group
            .iter()
            .map(|t| terminal_text::line(&t.unique_name).into_owned())
            .collect();
        let cut_defaults = view.columns.map(|_| MAX_DEFAULT);
        let mut signatures: Vec<String> = group
            .iter()
            .map(|t| signature(&t.params, cut_defaults))
            .collect();
        let name_w = name_width(&names, &signatures, view.columns);
        if view.columns.is_some() {
            // At a terminal a signature still too wide for the column is cut too, so the
            // runner and description keep their place; the name itself never is.
            for (name, signature) in names.iter().zip(&mut signatures) {
                let room = name_w.saturating_sub(fit::width(name));
                if fit::width(signature) > room && room > 1 {
                    *signature = fit::cut(signature, room);
                }
            }
        }
        let name_cells: Vec<usize> = names
            .iter()
            .zip(&signatures)
            .map(|(n, s)| fit::width(n) + fit::width(s))
            .collect();
        let marks: Vec<&str> = group.iter().map(mark).collect();
        let mark_column = marks.iter().any(|m| !m.is_empty());
        let labels: Vec<String> = group.iter().map(runner_label).collect();
        let runner_w = labels.iter().map(|l| fit::width(l)).max().unwrap_or(0);
        let badges: Vec<Option<(String, bool)>> = group
            .iter()
            .map(|t| {
                let s = view
                    .history
                    .get(&t.unique_name, &t.file_path, &t.source_name)?;
                Some((s.badge(), s.last.passed()))
            })
            .collect();
        let badge_w = badges.iter().flatten().map(|(b, _)| fit::width(b)).max();
        Columns {
            names,
            signatures,
            name_cells,
            name_w,
            marks,
            mark_column,
            labels,
            runner_w,
            badges,
            badge_w,
        }
    }

    /// Row `i` (task `t`) up to its description, padded to the columns; the mark it
    /// carries is added to `marks`.
    fn head(&self, i: usize, t: &Task, marks: &mut Marks) -> Line {
        let mut head = Line::new();
        head.push(Style::new(), "  ")
            .push(NAME, self.names[i].clone())
            .push(PARAMS, self.signatures[i].clone())
            .push(
                Style::new(),
                " ".repeat(self.name_w.saturating_sub(self.name_cells[i])),
            );
        if self.mark_column {
            let m = self.marks[i];
            marks.asks |= m == ASKS;
            marks.service |= m == SERVICE;
            head.push(Style::new(), " ")
                .push(MARK, m)
                .push(Style::new(), fit::pad(m, 1))
                .push(Style::new(), " ");
        } else {
            head.push(Style::new(), "  ");
        }
        let runner_style = if t.runner_available && t.behaviour.not_runnable.is_none() {
            DIM
        } else {
            MISSING
        };
        head.push(runner_style, self.labels[i].clone())
            .push(Style::new(), fit::pad(&self.labels[i], self.runner_w))
            .push(Style::new(), "  ");
        if let Some(width) = self.badge_w {
            let (text, passed) = self.badges[i].clone().unwrap_or_default();
            let style = if passed { DIM } else { MISSING };
            let padding = fit::pad(&text, width);
            head.push(style, text)
                .push(Style::new(), padding)
                .push(Style::new(), "  ");
        }
        head
    }
}

/// What a row says after its description: that the task cannot run here, and the other
/// name agg takes for a suffixed task (`agg run 'just format'`).
fn tail(t: &Task) -> Line {
    let mut tail = Line::new();
    if t.behaviour.not_runnable.is_some() {
        tail.push(Style::new(), "  ")
            .push(MISSING, "[not runnable here]");
    }
    if t.is_suffixed() {
        let local = if t.dir == "." {
            t.source_name.clone()
        } else {
            format!("{}/{}", t.dir, t.source_name)
        };
        tail.push(Style::new(), "  ").push(
            DIM,
            format!("[{} {}]", t.runner, terminal_text::line(&local)),
        );
    }
    tail
}

/// The width of the name column: the widest name with its parameters, but at most half a
/// terminal's width, and not set by a cell wider than [`LONG_NAME`] when narrower ones
/// exist (such a row takes the room it needs for itself).
fn name_width(names: &[String], signatures: &[String], columns: Option<usize>) -> usize {
    let cells = names
        .iter()
        .zip(signatures)
        .map(|(n, s)| fit::width(n) + fit::width(s));
    let widest = cells.clone().max().unwrap_or(0);
    let usual = cells.filter(|&w| w <= LONG_NAME).max().unwrap_or(widest);
    match columns {
        Some(columns) => usual.min(columns * NAME_SHARE / 100),
        None => usual,
    }
}

/// What a row says of a task: its description, else what it runs (for a package
/// manager's script, the script's own command rather than `npm run NAME`).
fn description(t: &Task) -> (Style, String) {
    let first_line = |s: &str| {
        // A tab would move the rest of the row by an amount only the terminal knows.
        terminal_text::text(s.lines().next().unwrap_or_default()).replace('\t', " ")
    };
    if let Some(desc) = t.description.as_deref() {
        return (Style::new(), first_line(desc));
    }
    if t.behaviour.not_runnable.is_some() {
        // Nothing runs, so no `$`: what the file wrote, if anything.
        return (DIM, first_line(t.script.as_deref().unwrap_or_default()));
    }
    if t.runner.descriptor().lists_script
        && let Some(script) = t.script.as_deref().filter(|s| !s.trim().is_empty())
    {
        return (DIM, format!("$ {}", first_line(script.trim())));
    }
    (DIM, format!("$ {}", terminal_text::line(&t.command)))
}

/// The mark of a task that asks first or is a service, or `""`.
fn mark(t: &Task) -> &'static str {
    if !t.behaviour.confirm.is_empty() {
        ASKS
    } else if t.behaviour.service {
        SERVICE
    } else {
        ""
    }
}

/// The parameters as `just --list` shows them, each after a space: `env`,
/// `filter="all"`, `+files`, `$token`; an option a runner takes by flag as `--name`; an
/// optional one without a default in brackets. Each default is cut to `max_default`
/// columns when given.
pub(super) fn signature(params: &[Param], max_default: Option<usize>) -> String {
    let mut s = String::new();
    for p in params {
        s.push(' ');
        let optional = !p.required && p.default.is_none() && p.variadic.is_none();
        if optional {
            s.push('[');
        }
        s.push_str(crate::describe::param_marks(p));
        let flag = p
            .flags
            .iter()
            .find(|f| f.starts_with("--"))
            .or(p.flags.first());
        s.push_str(&terminal_text::line(flag.unwrap_or(&p.name)));
        if let Some(default) = &p.default {
            s.push_str("=\"");
            let default = terminal_text::line(default);
            match max_default {
                Some(max) if fit::width(&default) > max => s.push_str(&fit::cut(&default, max)),
                _ => s.push_str(&default),
            }
            s.push('"');
        }
        if optional {
            s.push(']');
        }
    }
    s
}

fn runner_label(t: &Task) -> String {
    if t.runner_available {
        t.runner.name().to_owned()
    } else {
        format!("{} ✗", t.runner)
    }
}

/// The task file as seen from the block's directory: `Makefile`, `.cargo/config.toml`,
/// `scripts/deploy.sh` for a script that runs from the root.
fn file_in<'a>(dir: &str, path: &'a str) -> &'a str {
    if dir == "." {
        return path;
    }
    path.strip_prefix(dir)
        .and_then(|rest| rest.strip_prefix('/'))
        .unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use agg_runners::Variadic;

    #[test]
    fn parameters_read_as_just_lists_them() {
        let env = Param::required("env");
        let filter = Param {
            default: Some("all".to_owned()),
            required: false,
            ..Param::required("filter")
        };
        let files = Param {
            variadic: Some(Variadic::OneOrMore),
            ..Param::required("files")
        };
        let token = Param {
            exported: true,
            ..Param::required("token")
        };
        let verbose = Param {
            required: false,
            flags: vec!["-v".to_owned(), "--verbose".to_owned()],
            ..Param::required("verbose")
        };
        assert_eq!(signature(std::slice::from_ref(&env), None), " env");
        assert_eq!(
            signature(std::slice::from_ref(&filter), None),
            " filter=\"all\""
        );
        assert_eq!(signature(&[env, files, token], None), " env +files $token");
        assert_eq!(signature(&[verbose], None), " [--verbose]");
        assert_eq!(signature(&[], None), "");
        let long = Param {
            default: Some("x".repeat(300)),
            ..filter
        };
        let cut = signature(std::slice::from_ref(&long), Some(16));
        assert_eq!(cut, format!(" filter=\"{}…\"", "x".repeat(15)));
        assert_eq!(signature(&[long], None).len(), 300 + 10);
    }

    #[test]
    fn a_block_names_its_files_from_its_directory() {
        assert_eq!(file_in(".", "scripts/deploy.sh"), "scripts/deploy.sh");
        assert_eq!(file_in(".", "Makefile"), "Makefile");
        assert_eq!(file_in("apps/web", "apps/web/package.json"), "package.json");
        assert_eq!(
            file_in("apps/web", "apps/web/.cargo/config.toml"),
            ".cargo/config.toml"
        );
        assert_eq!(file_in("apps/web", "turbo.json"), "turbo.json");
    }
}
