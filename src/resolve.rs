//! Finding a task by the name a person or agent typed: exact unique names first, then
//! aliases and source names, and otherwise the closest names as suggestions.

use crate::table::{Table, Task};

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

/// Resolves `name` strictly: only a unique name matches.
pub fn exact<'a>(table: &'a Table, name: &str) -> Lookup<'a> {
    match table.get(name) {
        Some(t) => Lookup::Found(t),
        None => Lookup::NotFound(suggest(
            table.tasks.iter().map(|t| t.unique_name.as_str()),
            name,
        )),
    }
}

/// Resolves `name` leniently: a unique name, else an alias (with its directory prefix), else
/// a source name that only one task has.
pub fn lenient<'a>(table: &'a Table, name: &str) -> Lookup<'a> {
    if let Some(t) = table.get(name) {
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

/// Up to five of `names` closest to `wanted`, best first: names containing it, then names
/// within a small edit distance.
pub fn suggest<'a>(names: impl Iterator<Item = &'a str>, wanted: &str) -> Vec<String> {
    let wanted_lc = wanted.to_lowercase();
    let mut scored: Vec<(u8, usize, &str)> = names
        .filter_map(|n| {
            let lc = n.to_lowercase();
            let distance = strsim::damerau_levenshtein(&lc, &wanted_lc);
            let local = lc.rsplit('/').next().unwrap_or(&lc);
            let local_distance = strsim::damerau_levenshtein(local, &wanted_lc);
            // `build-m` should come up for `biuld` as readily as `build` does.
            let unsuffixed = local
                .rsplit_once('-')
                .filter(|(_, suffix)| {
                    suffix.len() <= 5 && suffix.chars().all(|c| c.is_ascii_lowercase())
                })
                .map_or(usize::MAX, |(base, _)| {
                    strsim::damerau_levenshtein(base, &wanted_lc)
                });
            let best = distance.min(local_distance).min(unsuffixed);
            let limit = (wanted.chars().count() / 3).max(2);
            if lc == wanted_lc {
                Some((0, 0, n))
            } else if !wanted_lc.is_empty()
                && (lc.contains(&wanted_lc) || wanted_lc.contains(local))
            {
                Some((1, best, n))
            } else if best <= limit {
                Some((2, best, n))
            } else {
                None
            }
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
    use super::suggest;

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
