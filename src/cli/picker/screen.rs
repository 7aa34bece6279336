//! What the picker draws, with ratatui: the query line with the match count, the matching
//! tasks with the matched characters highlighted, and a preview of the selected one. Every
//! text a task file wrote is drawn in its [`crate::terminal_text`] form.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use super::entries::{Entries, Entry};
use crate::history::Summaries;
use crate::table::{Table, Task};
use crate::terminal_text;

/// From this width on the preview sits beside the list, else below it.
const SIDE_BY_SIDE: u16 = 100;
/// Below this height the preview under the list is left out.
const PREVIEW_BELOW_MIN_HEIGHT: u16 = 16;

const MATCH: Style = Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD);
const SELECTED: Style = Style::new().bg(Color::DarkGray);
const DIM: Style = Style::new().add_modifier(Modifier::DIM);
const KEY: Style = Style::new().add_modifier(Modifier::BOLD);
const MISSING: Style = Style::new().fg(Color::Red);

/// The picker's state: the rows, the query, the selection.
pub(super) struct Picker<'t> {
    pub table: &'t Table,
    pub entries: Entries,
    pub history: Summaries,
    /// What the picker is for, when it shows only some tasks (`build` names 3 tasks).
    pub title: Option<String>,
    pub query: String,
    /// The selected match.
    pub selected: usize,
    /// The first match shown.
    offset: usize,
    /// Rows of the list at the last draw (how far Page Down goes).
    pub page: usize,
}

impl<'t> Picker<'t> {
    pub fn new(table: &'t Table, entries: Entries, history: Summaries) -> Picker<'t> {
        Picker {
            table,
            entries,
            history,
            title: None,
            query: String::new(),
            selected: 0,
            offset: 0,
            page: 10,
        }
    }

    /// Applies a changed query; the best match is selected.
    pub fn requery(&mut self) {
        self.entries.filter(&self.query);
        self.selected = 0;
        self.offset = 0;
    }

    /// Moves the selection by `by` rows, staying within the matches.
    pub fn step(&mut self, by: isize) {
        let last = self.entries.matched().saturating_sub(1);
        self.selected = self.selected.saturating_add_signed(by).min(last);
    }

    /// The selected task's index in the table.
    pub fn chosen(&self) -> Option<usize> {
        self.entries.get(self.selected).map(|e| e.task)
    }

    pub fn draw(&mut self, frame: &mut Frame) {
        let [top, body, help] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Min(1),
            Constraint::Length(1),
        ])
        .areas(frame.area());
        self.draw_query(frame, top);
        let (list, preview) = if body.width >= SIDE_BY_SIDE {
            let [l, p] =
                Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)])
                    .areas(body);
            (l, Some(p))
        } else if body.height + 2 >= PREVIEW_BELOW_MIN_HEIGHT {
            let [l, p] = Layout::vertical([Constraint::Min(3), Constraint::Length(9)]).areas(body);
            (l, Some(p))
        } else {
            (body, None)
        };
        self.draw_list(frame, list);
        if let Some(area) = preview {
            let lines = self
                .chosen()
                .map(|i| preview_lines(&self.table.tasks[i], &self.history))
                .unwrap_or_default();
            let borders = if body.width >= SIDE_BY_SIDE {
                Borders::LEFT
            } else {
                Borders::TOP
            };
            frame.render_widget(
                Paragraph::new(lines)
                    .wrap(Wrap { trim: false })
                    .block(Block::new().borders(borders).border_style(DIM)),
                area,
            );
        }
        frame.render_widget(
            Paragraph::new(Line::styled(
                "↑/↓ move  enter run  esc leave  type to filter",
                DIM,
            )),
            help,
        );
    }

    fn draw_query(&self, frame: &mut Frame, area: Rect) {
        let count = format!("{}/{}", self.entries.matched(), self.entries.total());
        let mut spans = vec![Span::styled("❯ ", KEY), Span::raw(self.query.clone())];
        if self.query.is_empty()
            && let Some(title) = &self.title
        {
            spans.push(Span::styled(title.clone(), DIM));
        }
        frame.render_widget(Paragraph::new(Line::from(spans)), area);
        let count_width = u16::try_from(count.len()).unwrap_or(area.width);
        if area.width > count_width + 4 {
            let right = Rect {
                x: area.x + area.width - count_width,
                width: count_width,
                ..area
            };
            frame.render_widget(Paragraph::new(Span::styled(count, DIM)), right);
        }
        let typed = u16::try_from(self.query.chars().count()).unwrap_or(u16::MAX);
        frame.set_cursor_position((
            area.x
                .saturating_add(2)
                .saturating_add(typed)
                .min(area.right().saturating_sub(1)),
            area.y,
        ));
    }

    fn draw_list(&mut self, frame: &mut Frame, area: Rect) {
        let height = usize::from(area.height).max(1);
        self.page = height;
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + height {
            self.offset = self.selected + 1 - height;
        }
        let shown: Vec<usize> =
            (self.offset..self.entries.matched().min(self.offset + height)).collect();
        let name_width = shown
            .iter()
            .filter_map(|&n| self.entries.get(n))
            .map(|e| e.name_chars)
            .max()
            .unwrap_or(0)
            .min(usize::from(area.width) / 2);
        let mut lines = Vec::with_capacity(shown.len());
        for n in shown {
            let marks = self.entries.highlights(n);
            let Some(entry) = self.entries.get(n) else {
                continue;
            };
            let task = &self.table.tasks[entry.task];
            let usable = task.runner_available && task.behaviour.not_runnable.is_none();
            let mut line = row(entry, &marks, name_width, usable);
            if n == self.selected {
                // The highlight spans the whole row (the overflow is cut off).
                line.push_span(Span::raw(" ".repeat(usize::from(area.width))));
                line = line.patch_style(SELECTED);
            }
            lines.push(line);
        }
        if lines.is_empty() {
            lines.push(Line::styled("  no task matches", DIM));
        }
        frame.render_widget(Paragraph::new(lines), area);
    }
}

/// One row: the name padded to `name_width`, the runner, the summary; matched characters
/// highlighted; a task that cannot run here dimmed.
fn row(entry: &Entry, marks: &[usize], name_width: usize, usable: bool) -> Line<'static> {
    let base = if usable { Style::new() } else { DIM };
    let mut spans: Vec<Span<'static>> = vec![Span::raw(if usable { "  " } else { "✗ " })];
    let mut marks = marks.iter().copied().peekable();
    let mut run = String::new();
    let mut run_style = base;
    let runner_start = entry.name_chars + 1;
    let summary_start = runner_start + entry.runner_chars + 1;
    for (i, c) in entry.text.chars().enumerate() {
        let part = if i < runner_start {
            base.add_modifier(Modifier::BOLD)
        } else if i < summary_start {
            base.fg(Color::Cyan)
        } else {
            base.add_modifier(Modifier::DIM)
        };
        let style = if marks.next_if_eq(&i).is_some() {
            part.patch(MATCH)
        } else {
            part
        };
        if style != run_style && !run.is_empty() {
            spans.push(Span::styled(std::mem::take(&mut run), run_style));
        }
        run_style = style;
        run.push(c);
        // Pad the name and the runner into columns.
        let pad = if i + 1 == entry.name_chars {
            Some(name_width.saturating_sub(entry.name_chars))
        } else if i + 2 == summary_start {
            Some(runner_width().saturating_sub(entry.runner_chars))
        } else {
            None
        };
        if let Some(pad) = pad {
            spans.push(Span::styled(std::mem::take(&mut run), run_style));
            spans.push(Span::raw(" ".repeat(pad)));
        }
    }
    if !run.is_empty() {
        spans.push(Span::styled(run, run_style));
    }
    Line::from(spans)
}

/// The width of the longest runner name.
fn runner_width() -> usize {
    agg_runners::Runner::ALL
        .iter()
        .map(|r| r.name().len())
        .max()
        .unwrap_or(0)
}

/// The preview of `task`: what it runs, where, what it takes and asks, how it last went.
fn preview_lines(task: &Task, history: &Summaries) -> Vec<Line<'static>> {
    let field = |key: &str, value: String| {
        Line::from(vec![
            Span::styled(format!("{key:<11} "), KEY),
            Span::raw(terminal_text::line(&value).into_owned()),
        ])
    };
    let mut lines = vec![Line::from(vec![
        Span::styled(terminal_text::line(&task.unique_name).into_owned(), KEY),
        Span::styled(
            format!(
                "  {}: {}",
                task.runner,
                terminal_text::line(&task.source_name)
            ),
            DIM,
        ),
    ])];
    if let Some(desc) = &task.description {
        for l in desc.lines() {
            lines.push(Line::raw(terminal_text::line(l).into_owned()));
        }
    }
    lines.push(Line::raw(""));
    match task.behaviour.not_runnable.as_deref() {
        Some(reason) => lines.push(field("not runnable", reason.to_owned())),
        None => lines.push(field("command", task.command.clone())),
    }
    lines.push(field("dir", task.dir.clone()));
    let at = match task.line {
        Some(line) => format!("{}:{line}", task.file_path),
        None => task.file_path.clone(),
    };
    lines.push(field("defined at", at));
    if !task.runner_available {
        lines.push(Line::styled(
            format!(
                "{} is not installed: {}",
                task.runner,
                crate::availability::install_hint(task.runner)
            ),
            MISSING,
        ));
    }
    for p in &task.params {
        let mut text = p.name.clone();
        if let Some(default) = &p.default {
            text.push_str(" = ");
            text.push_str(default);
        }
        if p.required {
            text.push_str(" (required)");
        }
        if let Some(help) = &p.help {
            text.push_str(": ");
            text.push_str(help);
        }
        lines.push(field("param", text));
    }
    for question in &task.behaviour.confirm {
        lines.push(field("asks first", question.clone()));
    }
    if task.behaviour.interactive {
        lines.push(field("interactive", "expects a terminal".to_owned()));
    }
    if task.behaviour.service {
        lines.push(field("service", "keeps running until stopped".to_owned()));
    }
    if let Some(h) = history.get(&task.unique_name, &task.file_path, &task.source_name) {
        let style = if h.last.passed() {
            Style::new().fg(Color::Green)
        } else {
            Style::new().fg(Color::Red)
        };
        lines.push(Line::from(vec![
            Span::styled(format!("{:<11} ", "last run"), KEY),
            Span::styled(crate::describe::last_run(&h.last), style),
        ]));
        lines.push(field("typical", crate::human::duration(h.typical_ms)));
    }
    lines
}
