//! The picker's rows and how a query orders them: every task as one line of text (its
//! name, runner and description, in the form a terminal shows), the current directory's
//! tasks first while the query is empty, and by `nucleo-matcher`'s score once it is not,
//! a match within the name before one that needs the runner or the description.

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};

use crate::table::Task;
use crate::terminal_text;

/// What a match within the name alone is worth above one that needs the runner or the
/// description: more than any score nucleo gives a short query, so names rank first.
const NAME_BONUS: u32 = 1 << 12;

/// One task as the picker shows it.
#[derive(Debug)]
pub(super) struct Entry {
    /// Its index in the table.
    pub task: usize,
    /// `name runner summary`: the text a query matches, as shown.
    pub text: String,
    /// Characters of the name, then of the runner (the summary is the rest, after a space).
    pub name_chars: usize,
    /// Characters of the runner.
    pub runner_chars: usize,
}

impl Entry {
    fn of(index: usize, task: &Task) -> Entry {
        let name = terminal_text::line(&task.unique_name);
        let runner = task.runner.name();
        let summary = task
            .description
            .as_deref()
            .and_then(|d| d.lines().map(str::trim).find(|l| !l.is_empty()))
            .map_or_else(|| format!("$ {}", task.command), str::to_owned);
        let summary = terminal_text::line(&summary);
        Entry {
            task: index,
            text: format!("{name} {runner} {summary}"),
            name_chars: name.chars().count(),
            runner_chars: runner.chars().count(),
        }
    }
}

/// The rows of a picker and the current query's order of them.
pub(super) struct Entries {
    rows: Vec<Entry>,
    /// Indices into `rows`: the matches, best first.
    order: Vec<usize>,
    matcher: Matcher,
    pattern: Pattern,
    buf: Vec<char>,
}

impl Entries {
    /// The rows of `tasks` (indices into `all`), the ones nearest to `below` first: the
    /// current directory's, then its parents' (nearest first), then the rest, each in table order.
    pub fn new(all: &[Task], tasks: &[usize], below: Option<&str>) -> Entries {
        let mut rows: Vec<Entry> = tasks.iter().map(|&i| Entry::of(i, &all[i])).collect();
        rows.sort_by_key(|e| nearness(&all[e.task].dir, below));
        let order = (0..rows.len()).collect();
        Entries {
            rows,
            order,
            matcher: Matcher::new(Config::DEFAULT),
            pattern: Pattern::default(),
            buf: Vec::new(),
        }
    }

    /// Orders the rows for `query`: those that match every word of it, best score first
    /// (ties in the empty query's order); every row, nearest first, when it is empty.
    pub fn filter(&mut self, query: &str) {
        self.pattern
            .reparse(query, CaseMatching::Smart, Normalization::Smart);
        if self.pattern.atoms.is_empty() {
            self.order = (0..self.rows.len()).collect();
            return;
        }
        let mut scored: Vec<(u32, usize)> = Vec::new();
        for (i, row) in self.rows.iter().enumerate() {
            let hay = Utf32Str::new(&row.text, &mut self.buf);
            let name = hay.slice(..row.name_chars);
            let score = match self.pattern.score(name, &mut self.matcher) {
                Some(score) => Some(score.saturating_add(NAME_BONUS)),
                None => self.pattern.score(hay, &mut self.matcher),
            };
            if let Some(score) = score {
                scored.push((score, i));
            }
        }
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        self.order = scored.into_iter().map(|(_, i)| i).collect();
    }

    /// How many rows match.
    pub fn matched(&self) -> usize {
        self.order.len()
    }

    /// How many rows there are.
    pub fn total(&self) -> usize {
        self.rows.len()
    }

    /// The `n`th match.
    pub fn get(&self, n: usize) -> Option<&Entry> {
        self.order.get(n).map(|&i| &self.rows[i])
    }

    /// The characters of the `n`th match's text that the query matched, sorted.
    pub fn highlights(&mut self, n: usize) -> Vec<usize> {
        let Some(&i) = self.order.get(n) else {
            return Vec::new();
        };
        let mut indices: Vec<u32> = Vec::new();
        let row = &self.rows[i];
        let hay = Utf32Str::new(&row.text, &mut self.buf);
        let name = hay.slice(..row.name_chars);
        if self
            .pattern
            .indices(name, &mut self.matcher, &mut indices)
            .is_none()
        {
            indices.clear();
            self.pattern.indices(hay, &mut self.matcher, &mut indices);
        }
        indices.sort_unstable();
        indices.dedup();
        indices.into_iter().map(|i| i as usize).collect()
    }
}

/// How far a task's directory is from the current one: 0 for the current directory, 1 for
/// its parent, …, the root last among them; every other directory after.
fn nearness(dir: &str, below: Option<&str>) -> usize {
    let Some(below) = below else {
        return usize::from(dir != ".");
    };
    if dir == "." {
        return below.split('/').count();
    }
    if below == dir {
        return 0;
    }
    match below
        .strip_prefix(dir)
        .and_then(|rest| rest.strip_prefix('/'))
    {
        Some(rest) => rest.split('/').count(),
        None => usize::MAX,
    }
}

#[cfg(test)]
mod tests {
    use super::nearness;

    #[test]
    fn the_current_directory_comes_first_then_its_parents_then_the_rest() {
        let below = Some("apps/web");
        let mut dirs = vec!["libs/ui", ".", "apps", "apps/web", "apps/web/e2e"];
        dirs.sort_by_key(|d| nearness(d, below));
        assert_eq!(dirs, ["apps/web", "apps", ".", "libs/ui", "apps/web/e2e"]);
    }

    #[test]
    fn at_the_root_its_own_tasks_come_first() {
        assert_eq!(nearness(".", None), 0);
        assert_eq!(nearness("apps/web", None), 1);
        assert_eq!(nearness("apps", Some("apps-old")), usize::MAX);
    }
}
