//! Finding a task by the name a person or agent typed: exact unique names first, then
//! `RUNNER NAME` (the form `agg list` shows beside a suffixed name), aliases and source
//! names, then go-task wildcard tasks whose pattern matches (`greet:bob` → `greet:*`), and
//! otherwise the closest names as suggestions.

use agg_runners::Runner;

use crate::table::{Table, Task};

/// A name resolved to a task, with the arguments the name itself carries: the parts a
/// wildcard task's `*`s matched (`greet:bob` → `greet:*` with `["bob"]`). They go before
/// any other argument of the run ([`crate::invocation::runner_args`] fills the `*`s from
/// the first arguments).
#[derive(Debug)]
pub struct Resolved<'a> {
    /// The task.
    pub task: &'a Task,
    /// Arguments implied by the name, to put before the caller's own.
    pub implied_args: Vec<String>,
}

impl<'a> Resolved<'a> {
    fn plain(task: &'a Task) -> Resolved<'a> {
        Resolved {
            task,
            implied_args: Vec::new(),
        }
    }
}

/// Resolves a name the way agents name tasks (MCP `task_start`): a unique name, else
/// `RUNNER NAME`, else the wildcard task whose pattern matches it. `None` when nothing
/// matches unambiguously.
pub fn for_agent<'a>(table: &'a Table, name: &str) -> Option<Resolved<'a>> {
    table
        .get(name)
        .or_else(|| by_runner(table, name))
        .map(Resolved::plain)
        .or_else(|| wildcard(table, name))
}

/// Resolves a name the way people type it (`agg run`, `agg describe`): [`lenient`], then a
/// wildcard task whose pattern matches. A name [`lenient`] finds carries no arguments.
pub fn for_person<'a>(table: &'a Table, name: &str) -> Result<Resolved<'a>, Unresolved<'a>> {
    match lenient(table, name) {
        Lookup::Found(task) => Ok(Resolved::plain(task)),
        Lookup::NotFound(near) => wildcard(table, name).ok_or(Unresolved::NotFound(near)),
        Lookup::Ambiguous(tasks) => Err(Unresolved::Ambiguous(tasks)),
    }
}

/// Why a name resolves to no task: [`Lookup`] without its `Found`.
#[derive(Debug)]
pub enum Unresolved<'a> {
    /// A source name several tasks share.
    Ambiguous(Vec<&'a Task>),
    /// Nothing; the closest unique names, best first.
    NotFound(Vec<String>),
}

/// `RUNNER NAME`: the task of that runner whose source name is `NAME` (with its directory in
/// front outside the root: `make apps/web/build`). This is what `agg list` prints in
/// brackets beside a suffixed name.
pub fn by_runner<'a>(table: &'a Table, name: &str) -> Option<&'a Task> {
    let (runner, rest) = name.split_once(' ')?;
    let runner = Runner::from_name(runner)?;
    let rest = rest.trim_start();
    let mut found = table
        .tasks
        .iter()
        .filter(|t| t.runner == runner && in_dir(t, rest).is_some_and(|n| n == t.source_name));
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

/// The go-task wildcard task (`greet:*`, `deploy:*:*`) whose pattern matches `name`
/// (`greet:bob`), with what each `*` matched. go-task matches the first such task in its
/// file; so does agg, in table order.
pub fn wildcard<'a>(table: &'a Table, name: &str) -> Option<Resolved<'a>> {
    table
        .tasks
        .iter()
        .filter(|t| t.runner == Runner::GoTask && t.source_name.contains('*'))
        .find_map(|t| {
            let local = in_dir(t, name)?;
            let parts = match_stars(&t.source_name, local)?;
            Some(Resolved {
                task: t,
                implied_args: parts,
            })
        })
}

/// `name` without the task's directory in front, when it has it (root tasks: `name` as is).
fn in_dir<'n>(task: &Task, name: &'n str) -> Option<&'n str> {
    if task.dir == "." {
        Some(name)
    } else {
        name.strip_prefix(task.dir.as_str())?.strip_prefix('/')
    }
}

/// What each `*` of `pattern` matched in `name`, as go-task matches (`*` is any run of
/// characters, at least one; earlier stars take as little as they can).
fn match_stars(pattern: &str, name: &str) -> Option<Vec<String>> {
    let mut parts = pattern.split('*');
    let mut rest = name.strip_prefix(parts.next()?)?;
    let literals: Vec<&str> = parts.collect();
    let mut matched = Vec::with_capacity(literals.len());
    for (i, literal) in literals.iter().enumerate() {
        let last = i + 1 == literals.len();
        let end = if last {
            let end = rest.len().checked_sub(literal.len())?;
            rest.get(end..)
                .filter(|tail| tail == literal)
                .map(|_| end)?
        } else {
            rest.get(1..)?.find(literal)? + 1
        };
        if end == 0 {
            return None;
        }
        matched.push(rest.get(..end)?.to_owned());
        rest = rest.get(end + literal.len()..)?;
    }
    Some(matched)
}

/// What a name resolved to.
#[derive(Debug)]
pub enum Lookup<'a> {
    /// Exactly one task.
    Found(&'a Task),
    /// A source name several tasks share (`build` → `build-m`, `build-n`).
    Ambiguous(Vec<&'a Task>),
    /// Nothing; the closest unique names, best first.
    NotFound(Vec<String>),
}

/// Resolves `name` leniently: a unique name, else an alias (with its directory prefix), else
/// a source name that only one task has.
pub fn lenient<'a>(table: &'a Table, name: &str) -> Lookup<'a> {
    if let Some(t) = table.get(name).or_else(|| by_runner(table, name)) {
        return Lookup::Found(t);
    }
    let prefixed = |t: &Task, local: &str| {
        if t.dir == "." {
            local == name
        } else {
            name.strip_prefix(t.dir.as_str())
                .and_then(|r| r.strip_prefix('/'))
                .is_some_and(|r| r == local)
        }
    };
    let by_alias: Vec<&Task> = table
        .tasks
        .iter()
        .filter(|t| t.aliases.iter().any(|a| prefixed(t, a)))
        .collect();
    if by_alias.len() == 1 {
        return Lookup::Found(by_alias[0]);
    }
    let by_source: Vec<&Task> = table
        .tasks
        .iter()
        .filter(|t| prefixed(t, &t.source_name))
        .collect();
    match by_source.len() {
        1 => Lookup::Found(by_source[0]),
        0 if by_alias.len() > 1 => Lookup::Ambiguous(by_alias),
        0 => Lookup::NotFound(suggest(
            table.tasks.iter().map(|t| t.unique_name.as_str()),
            name,
        )),
        _ => Lookup::Ambiguous(by_source),
    }
}

/// The most cells of edit-distance tables one pair may cost (two names of 256 characters):
/// past it, the difference in length stands in for the distance (it is never more).
const MAX_PAIR_CELLS: usize = 256 * 256;

/// The most cells of edit-distance tables one lookup may cost, about a tenth of a second:
/// a table of 10,000 names of ordinary length costs a tenth of it. Past it, the difference
/// in length stands in for the distance.
const MAX_LOOKUP_CELLS: usize = 32 * 1024 * 1024;

/// A name asked for that is longer than this gets no suggestions: nobody mistypes a
/// kilobyte, and each name of the table would be searched for in it.
const MAX_SUGGESTED_WANTED: usize = 1024;

/// Edit distances under a budget of work, so a long name or a long query costs a bounded
/// amount per lookup however many names the table has.
struct Distances {
    cells: usize,
}

/// An edit distance, or what stands in for it once the work it would take is past the
/// budget: the difference in length, which is never more than the distance.
#[derive(Clone, Copy)]
enum Distance {
    Exact(usize),
    AtLeast(usize),
}

impl Distance {
    fn value(self) -> usize {
        match self {
            Distance::Exact(d) | Distance::AtLeast(d) => d,
        }
    }

    fn exact(self) -> Option<usize> {
        match self {
            Distance::Exact(d) => Some(d),
            Distance::AtLeast(_) => None,
        }
    }
}

impl Distances {
    /// The Damerau-Levenshtein distance of `a` and `b` (character counts `a_len` and
    /// `b_len`) when it fits the budget.
    fn between(&mut self, a: &str, a_len: usize, b: &str, b_len: usize) -> Distance {
        let cells = (a_len + 1).saturating_mul(b_len + 1);
        if cells > MAX_PAIR_CELLS || cells > self.cells {
            return Distance::AtLeast(a_len.abs_diff(b_len));
        }
        self.cells -= cells;
        Distance::Exact(strsim::damerau_levenshtein(a, b))
    }
}

/// Up to five of `names` closest to `wanted`, best first: names containing it, then names
/// within a small edit distance. The work is bounded: a name whose edit distance would cost
/// too much ([`Distances`]) is only suggested when it contains `wanted`, ranked by
/// length, and a `wanted` past [`MAX_SUGGESTED_WANTED`] bytes gets no suggestions.
pub fn suggest<'a>(names: impl Iterator<Item = &'a str>, wanted: &str) -> Vec<String> {
    if wanted.len() > MAX_SUGGESTED_WANTED {
        return Vec::new();
    }
    let wanted_lc = wanted.to_lowercase();
    let wanted_len = wanted_lc.chars().count();
    let limit = (wanted.chars().count() / 3).max(2);
    let mut distances = Distances {
        cells: MAX_LOOKUP_CELLS,
    };
    let mut scored: Vec<(u8, usize, &str)> = names
        .filter_map(|n| {
            let lc = n.to_lowercase();
            if lc == wanted_lc {
                return Some((0, 0, n));
            }
            let local = lc.rsplit('/').next().unwrap_or(&lc);
            // `build-m` should come up for `biuld` as readily as `build` does.
            let unsuffixed = local
                .rsplit_once('-')
                .filter(|(_, suffix)| {
                    suffix.len() <= 5 && suffix.chars().all(|c| c.is_ascii_lowercase())
                })
                .map(|(base, _)| base);
            let compared = [Some(lc.as_str()), Some(local), unsuffixed];
            let compared = compared.iter().flatten().map(|t| (*t, t.chars().count()));
            if !wanted_lc.is_empty() && (lc.contains(&wanted_lc) || wanted_lc.contains(local)) {
                // Ranked by how close it is, however far.
                let best = compared
                    .map(|(t, len)| distances.between(t, len, &wanted_lc, wanted_len).value())
                    .min()
                    .unwrap_or(usize::MAX);
                return Some((1, best, n));
            }
            // Only a text within `limit` in length can be within `limit` in distance: the
            // others are not computed at all.
            compared
                .filter(|&(_, len)| len.abs_diff(wanted_len) <= limit)
                .filter_map(|(t, len)| distances.between(t, len, &wanted_lc, wanted_len).exact())
                .min()
                .filter(|&best| best <= limit)
                .map(|best| (2, best, n))
        })
        .collect();
    scored.sort_unstable();
    scored.dedup_by(|a, b| a.2 == b.2);
    scored
        .into_iter()
        .take(5)
        .map(|(_, _, n)| n.to_owned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{match_stars, suggest};

    #[test]
    fn stars_match_like_go_task() {
        let m = |p: &str, n: &str| match_stars(p, n);
        assert_eq!(m("greet:*", "greet:bob"), Some(vec!["bob".to_owned()]));
        assert_eq!(m("greet:*", "greet:"), None);
        assert_eq!(m("greet:*", "hello:bob"), None);
        assert_eq!(
            m("deploy:*:*", "deploy:web:prod"),
            Some(vec!["web".to_owned(), "prod".to_owned()])
        );
        assert_eq!(m("*-start", "db-start"), Some(vec!["db".to_owned()]));
        assert_eq!(m("a*b", "ab"), None);
    }

    #[test]
    fn suggestion_work_is_bounded_whatever_the_lengths() {
        let long = "x".repeat(1 << 20);
        let names = [long.as_str(), "test", "lint"];
        // A kilobyte asked for against a megabyte name: compared by length, not by a
        // thousand million cells of edit distance; the short names still come up.
        let wanted = format!("{}y", "x".repeat(1000));
        assert!(suggest(names.iter().copied(), &wanted).is_empty());
        assert_eq!(suggest(names.iter().copied(), "tets"), ["test"]);
        // Containment still finds the long name, however long.
        assert_eq!(
            suggest(names.iter().copied(), "xxxx"),
            std::slice::from_ref(&long)
        );
        // Nobody mistypes more than a kilobyte.
        let huge = "x".repeat(2000);
        assert!(suggest(names.iter().copied(), &huge).is_empty());
    }

    #[test]
    fn suggestions_prefer_containment_then_edit_distance() {
        let names = ["build-m", "build-n", "test", "apps/web/build", "lint"];
        assert_eq!(
            suggest(names.iter().copied(), "biuld"),
            ["apps/web/build", "build-m", "build-n"]
                .iter()
                .map(|s| (*s).to_owned())
                .collect::<Vec<_>>()
        );
        let s = suggest(names.iter().copied(), "build");
        assert_eq!(s[..2], ["apps/web/build".to_owned(), "build-m".to_owned()]);
        assert!(suggest(names.iter().copied(), "zzzzzzzz").is_empty());
        assert_eq!(suggest(names.iter().copied(), "tset"), ["test".to_owned()]);
    }
}
