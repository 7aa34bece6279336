//! Search over the table: the tasks a query of several words finds, best first, with "did
//! you mean" suggestions when it finds none ([`find`]), and the tasks that apply to a file
//! or directory ([`for_path`]). Pure functions of a [`Table`] and a [`Filter`], used by
//! `agg list` and the MCP `list_tasks` tool alike.
//!
//! **Matching.** The query is split on whitespace; every word must occur, case-insensitively,
//! in one of the task's texts ([`searchable`]): its names (own name, local unique name,
//! aliases), its place (unique name, directory, package, runner) or its description.
//!
//! **Ranking.** Each word counts where it matched best, from best to worst: a whole name,
//! a word of a name (bounded by the start, the end or one of `: - _ / . @` and spaces, so
//! `test` is a word of `test:unit` but not of `pretest`), a substring of a name, a word of
//! the place, a substring of the place, the description. A task whose name is the whole
//! query comes first; then tasks rank by their words' matches, the one with more words on a
//! better kind of match ahead. Ties keep table order (directory by directory, root first).
//!
//! **Suggestions**, when nothing matches: a word that matches nothing is replaced by the
//! closest terms of the tasks in scope (names, their words, packages, directories; by edit
//! distance) or dropped; when every word matches somewhere but never all together, the
//! query less one word. Only queries that find tasks are suggested, and only for queries of
//! a few words.

use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use crate::table::{Field, Filter, Table, Task, searchable};

/// At most this many suggestions.
const MAX_SUGGESTIONS: usize = 5;

/// At most this many replacements are tried for one unknown word.
const CLOSEST_TERMS: usize = 3;

/// A query of more words than this that finds nothing gets no suggestions: it is no typo,
/// and each word costs a pass over the table.
const MAX_SUGGESTED_WORDS: usize = 8;

/// A word longer than this (in characters) is not corrected, only dropped: no name is
/// that long, and the edit distance to every term would cost its length each time.
const MAX_CORRECTED_WORD: usize = 64;

/// What [`find`] found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Matches {
    /// Indices into `table.tasks` of the tasks that match, best first.
    pub indices: Vec<usize>,
    /// When nothing matched: queries that would find tasks, best first.
    pub suggestions: Vec<String>,
}

/// How well one word matched one task, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Hit {
    /// It is one of the task's names, or its unique name.
    Name,
    /// It is a word of a name.
    NameWord,
    /// It is inside a name.
    InName,
    /// It is a word of the directory, package, unique name or runner.
    PlaceWord,
    /// It is inside one of those.
    InPlace,
    /// It is in the description.
    Description,
}

const HITS: usize = Hit::Description as usize + 1;

/// The tasks `filter` selects (runners, directory, query), best first; when its query
/// finds none in the selected runners and directory, suggestions. Without a query, every
/// task in scope, in table order.
pub fn find(table: &Table, filter: &Filter) -> Matches {
    let words = filter.words();
    let scope = || {
        table
            .tasks
            .iter()
            .enumerate()
            .filter(|(_, t)| filter.in_scope(t))
    };
    if words.is_empty() {
        return Matches {
            indices: scope().map(|(i, _)| i).collect(),
            suggestions: Vec::new(),
        };
    }
    let whole = words.join(" ");
    let mut ranked: Vec<(Rank, usize)> = scope()
        .filter_map(|(i, t)| rank(t, &words, &whole).map(|r| (r, i)))
        .collect();
    // Stable: equal ranks keep table order.
    ranked.sort_by_key(|&(rank, _)| rank);
    let indices: Vec<usize> = ranked.into_iter().map(|(_, i)| i).collect();
    let suggestions = if indices.is_empty() {
        let tasks: Vec<&Task> = scope().map(|(_, t)| t).collect();
        suggest(&tasks, &words)
    } else {
        Vec::new()
    };
    Matches {
        indices,
        suggestions,
    }
}

/// The tasks that apply to `path` (a file or directory, absolute or relative to the root,
/// which need not exist): those of the directories that enclose it, deepest first, the
/// root's last; table order within a directory. Only tasks `filter` passes are kept (its
/// query as a plain match, not ranked). `None` when `path` is outside the root.
pub fn for_path(table: &Table, path: &Path, filter: &Filter) -> Option<Vec<usize>> {
    let rel = relative(&table.root, path)?;
    let mut hits: Vec<(usize, usize)> = table
        .tasks
        .iter()
        .enumerate()
        .filter(|(_, t)| encloses(&t.dir, &rel) && filter.matches(t))
        .map(|(i, t)| (depth(&t.dir), i))
        .collect();
    hits.sort_by_key(|&(depth, _)| Reverse(depth));
    Some(hits.into_iter().map(|(_, i)| i).collect())
}

/// `path` relative to `root`, `/`-separated (`"."` for the root itself), resolving `.` and
/// `..` without touching the file system; `None` when it leaves the root.
pub fn relative(root: &Path, path: &Path) -> Option<String> {
    let rest = if path.is_absolute() {
        let path = lexical(path)?;
        let root = lexical(root)?;
        path.strip_prefix(&root).ok()?.to_path_buf()
    } else {
        path.to_path_buf()
    };
    let mut parts: Vec<String> = Vec::new();
    for component in rest.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    })
}

/// An absolute path with `.` and `..` resolved as text.
fn lexical(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            other => out.push(other),
        }
    }
    Some(out)
}

/// Whether task directory `dir` is `rel` or one of its ancestors.
fn encloses(dir: &str, rel: &str) -> bool {
    dir == "."
        || rel == dir
        || rel
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/'))
}

fn depth(dir: &str) -> usize {
    if dir == "." {
        0
    } else {
        dir.split('/').count()
    }
}

/// Where a matching task ranks: whether its name is the whole query (`false` first), then
/// how many words matched at each kind of [`Hit`], more at better kinds first.
type Rank = (bool, Reverse<[u16; HITS]>);

fn rank(task: &Task, words: &[String], whole: &str) -> Option<Rank> {
    let mut counts = [0u16; HITS];
    for word in words {
        let hit = hit(task, word)?;
        let count = &mut counts[hit as usize];
        *count = count.saturating_add(1);
    }
    let named = searchable(task).any(|(field, text)| field == Field::Name && lower(text) == whole)
        || lower(&task.unique_name) == whole;
    Some((!named, Reverse(counts)))
}

/// The best match of lowercase `word` in `task`.
fn hit(task: &Task, word: &str) -> Option<Hit> {
    if lower(&task.unique_name) == word {
        return Some(Hit::Name);
    }
    let mut best: Option<Hit> = None;
    for (field, text) in searchable(task) {
        let text = lower(text);
        let found = match field {
            Field::Name if text == word => return Some(Hit::Name),
            Field::Name if is_word_of(&text, word) => Hit::NameWord,
            Field::Name if text.contains(word) => Hit::InName,
            Field::Place if is_word_of(&text, word) => Hit::PlaceWord,
            Field::Place if text.contains(word) => Hit::InPlace,
            Field::Description if text.contains(word) => Hit::Description,
            _ => continue,
        };
        best = Some(best.map_or(found, |b| b.min(found)));
    }
    best
}

/// `text` in lowercase, borrowed when it already is.
fn lower(text: &str) -> Cow<'_, str> {
    if text.chars().any(char::is_uppercase) {
        Cow::Owned(text.to_lowercase())
    } else {
        Cow::Borrowed(text)
    }
}

/// Whether a character separates the words of a name, path or package.
fn is_separator(c: char) -> bool {
    matches!(c, ':' | '-' | '_' | '/' | '.' | '@') || c.is_whitespace()
}

/// Whether `word` occurs in `text` bounded on both sides by an end or a separator.
fn is_word_of(text: &str, word: &str) -> bool {
    !word.is_empty()
        && text.match_indices(word).any(|(i, _)| {
            let before = text[..i].chars().next_back();
            let after = text[i + word.len()..].chars().next();
            before.is_none_or(is_separator) && after.is_none_or(is_separator)
        })
}

/// Whether lowercase `word` occurs anywhere in `task`.
fn occurs(task: &Task, word: &str) -> bool {
    searchable(task).any(|(_, text)| lower(text).contains(word))
}

fn finds(tasks: &[&Task], words: &[&str]) -> bool {
    tasks.iter().any(|t| words.iter().all(|w| occurs(t, w)))
}

/// Queries close to `words` that find tasks among `tasks` (see the module doc).
fn suggest(tasks: &[&Task], words: &[String]) -> Vec<String> {
    if words.len() > MAX_SUGGESTED_WORDS {
        return Vec::new();
    }
    let known: Vec<bool> = words
        .iter()
        .map(|w| tasks.iter().any(|t| occurs(t, w)))
        .collect();
    let mut queries: Vec<Vec<&str>> = Vec::new();
    let vocabulary;
    if known.iter().all(|&k| k) {
        for skip in 0..words.len() {
            let rest: Vec<&str> = words
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != skip)
                .map(|(_, w)| w.as_str())
                .collect();
            queries.push(rest);
        }
    } else {
        vocabulary = terms(tasks);
        let closest: Vec<Vec<&str>> = words
            .iter()
            .zip(&known)
            .map(|(word, &known)| {
                if known {
                    vec![word.as_str()]
                } else {
                    closest_terms(&vocabulary, word)
                }
            })
            .collect();
        let base: Vec<Option<&str>> = closest.iter().map(|c| c.first().copied()).collect();
        queries.push(base.iter().flatten().copied().collect());
        for (i, alternatives) in closest.iter().enumerate() {
            for alternative in alternatives.iter().skip(1) {
                let mut query = base.clone();
                query[i] = Some(alternative);
                queries.push(query.into_iter().flatten().collect());
            }
        }
    }
    let mut out: Vec<String> = Vec::new();
    for query in queries {
        if query.is_empty() || out.len() >= MAX_SUGGESTIONS {
            continue;
        }
        let text = query.join(" ");
        if !out.contains(&text) && finds(tasks, &query) {
            out.push(text);
        }
    }
    out
}

/// The longest term kept, in characters: a term is only ever suggested for a word at most
/// [`MAX_CORRECTED_WORD`] long and within a third of that in edit distance, and an edit
/// distance is at least the difference in length, so a longer term could never be chosen.
const MAX_TERM: usize = MAX_CORRECTED_WORD + MAX_CORRECTED_WORD / 3;

/// The most bytes of terms kept for one set of suggestions: a table of 100,000 tasks with
/// names of ordinary length fits; past it, the terms of the first tasks are the vocabulary.
const MAX_TERMS_BYTES: usize = 8 * 1024 * 1024;

/// Every term a task can be found by, lowercased, with how many tasks carry it: names and
/// their leading words (`test`, `test:unit`), packages and directory parts likewise
/// (`account`, `account-adapter`, `account-adapter-1585`). Only terms of up to
/// [`MAX_TERM`] characters are kept, so a long name costs its length, not its length
/// times its words, and all of them together at most [`MAX_TERMS_BYTES`].
fn terms(tasks: &[&Task]) -> HashMap<String, usize> {
    let mut terms: HashMap<String, usize> = HashMap::new();
    let mut bytes = 0usize;
    let mut keep = |term: &str| {
        if term.is_empty() || term.chars().count() > MAX_TERM {
            return;
        }
        if let Some(count) = terms.get_mut(term) {
            *count += 1;
        } else if bytes + term.len() <= MAX_TERMS_BYTES {
            bytes += term.len();
            terms.insert(term.to_owned(), 1);
        }
    };
    let mut add = |text: &str| {
        // Leading words, up to the first separator past the longest term kept.
        let head_end = text
            .char_indices()
            .nth(MAX_TERM + 1)
            .map_or(text.len(), |(i, _)| i);
        let head = text[..head_end].to_lowercase();
        let mut ends: Vec<usize> = head
            .char_indices()
            .filter(|&(_, c)| is_separator(c))
            .map(|(i, _)| i)
            .collect();
        ends.push(head.len());
        for end in ends {
            keep(head[..end].trim_start_matches(is_separator));
        }
        for part in text.split(is_separator) {
            if part.chars().nth(MAX_TERM).is_none() {
                keep(&part.to_lowercase());
            }
        }
    };
    for task in tasks {
        add(&task.source_name);
        for alias in &task.aliases {
            add(alias);
        }
        if let Some(package) = &task.package {
            add(package);
        }
        if task.dir != "." {
            for part in task.dir.split('/') {
                add(part);
            }
        }
    }
    terms
}

/// The terms closest to `word` by edit distance (at most a third of its length, and at
/// least 2), the nearest and most common first.
fn closest_terms<'v>(vocabulary: &'v HashMap<String, usize>, word: &str) -> Vec<&'v str> {
    let length = word.chars().count();
    if length > MAX_CORRECTED_WORD {
        return Vec::new();
    }
    let limit = (length / 3).max(2);
    let mut scored: Vec<(usize, Reverse<usize>, &str)> = vocabulary
        .iter()
        .filter_map(|(term, &count)| {
            // The distance is at least the difference in length: most terms stop here.
            if term.chars().count().abs_diff(length) > limit {
                return None;
            }
            let distance = strsim::damerau_levenshtein(term, word);
            (distance <= limit).then_some((distance, Reverse(count), term.as_str()))
        })
        .collect();
    scored.sort_unstable();
    scored
        .into_iter()
        .take(CLOSEST_TERMS)
        .map(|(_, _, term)| term)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use agg_runners::{Runner, Task};

    fn task(runner: Runner, dir: &str, name: &str, package: Option<&str>) -> Task {
        let file = match runner {
            Runner::Make => "Makefile",
            Runner::Just => "justfile",
            _ => "package.json",
        };
        let file = if dir == "." {
            file.to_owned()
        } else {
            format!("{dir}/{file}")
        };
        let mut t = Task::new(runner, name, dir, file, vec![name.to_owned()]);
        t.package = package.map(str::to_owned);
        t
    }

    fn table(tasks: Vec<Task>) -> Table {
        crate::table::table_of(tasks)
    }

    /// A monorepo: two packages with the same script names, a Makefile at the root.
    fn monorepo() -> Table {
        let mut deploy = task(Runner::Make, ".", "deploy", None);
        deploy.description = Some("Ship every service to production".to_owned());
        let mut lint = task(Runner::Make, ".", "lint", None);
        lint.description = Some("Run the linters, then test the fixtures".to_owned());
        table(vec![
            deploy,
            lint,
            task(Runner::Make, ".", "test-all", None),
            task(Runner::Npm, "apps/web", "test", Some("@acme/web")),
            task(Runner::Npm, "apps/web", "test:e2e", Some("@acme/web")),
            task(Runner::Npm, "apps/web", "pretest-data", Some("@acme/web")),
            task(Runner::Npm, "apps/web", "build", Some("@acme/web")),
            task(Runner::Make, "apps/web/e2e", "run", None),
            task(
                Runner::Npm,
                "packages/account-adapter",
                "test",
                Some("@acme/account-adapter"),
            ),
            task(
                Runner::Npm,
                "packages/account-adapter",
                "build",
                Some("@acme/account-adapter"),
            ),
            task(Runner::Just, "packages/account-adapter", "release", None),
        ])
    }

    fn names(table: &Table, indices: &[usize]) -> Vec<String> {
        indices
            .iter()
            .map(|&i| table.tasks[i].unique_name.clone())
            .collect()
    }

    fn search(table: &Table, query: &str) -> Matches {
        let filter = Filter {
            query: Some(query.to_owned()),
            ..Filter::default()
        };
        find(table, &filter)
    }

    #[test]
    fn an_exact_name_ranks_before_name_words_before_substrings_before_descriptions() {
        let t = monorepo();
        let found = search(&t, "test");
        assert_eq!(
            names(&t, &found.indices),
            [
                "apps/web/test",
                "packages/account-adapter/test",
                "test-all",
                "apps/web/test:e2e",
                "apps/web/pretest-data",
                "lint",
            ]
        );
        assert!(found.suggestions.is_empty());
    }

    #[test]
    fn every_word_must_match_and_a_package_or_directory_narrows() {
        let t = monorepo();
        let found = search(&t, "account-adapter TEST");
        assert_eq!(names(&t, &found.indices), ["packages/account-adapter/test"]);
        let found = search(&t, "@acme/account-adapter");
        assert_eq!(
            names(&t, &found.indices),
            [
                "packages/account-adapter/build",
                "packages/account-adapter/test",
                "packages/account-adapter/release",
            ],
            "the just recipe beside package.json is in the package too"
        );
        let found = search(&t, "web e2e");
        assert_eq!(
            names(&t, &found.indices),
            ["apps/web/test:e2e", "apps/web/e2e/run"]
        );
    }

    #[test]
    fn the_whole_query_as_a_name_comes_first() {
        let t = monorepo();
        let found = search(&t, "apps/web/build");
        assert_eq!(names(&t, &found.indices), ["apps/web/build"]);
        let found = search(&t, "build");
        assert_eq!(
            names(&t, &found.indices),
            ["apps/web/build", "packages/account-adapter/build"]
        );
    }

    #[test]
    fn runner_and_directory_filters_narrow_a_search() {
        let t = monorepo();
        let filter = Filter {
            query: Some("test".to_owned()),
            dir: Some("packages".to_owned()),
            ..Filter::default()
        };
        assert_eq!(
            names(&t, &find(&t, &filter).indices),
            ["packages/account-adapter/test"]
        );
        let filter = Filter {
            query: Some("test".to_owned()),
            runners: vec![Runner::Make],
            ..Filter::default()
        };
        assert_eq!(names(&t, &find(&t, &filter).indices), ["test-all", "lint"]);
        assert_eq!(find(&t, &Filter::default()).indices.len(), t.tasks.len());
    }

    #[test]
    fn a_misspelt_word_is_corrected_and_an_unknown_one_dropped() {
        let t = monorepo();
        let found = search(&t, "acount-adapter tset");
        assert!(found.indices.is_empty());
        assert_eq!(found.suggestions, ["account-adapter test"]);
        let found = search(&t, "account-adapter zzzzzzzz");
        assert_eq!(found.suggestions, ["account-adapter"]);
        assert!(search(&t, "zzzzzzzz").suggestions.is_empty());
        let long = format!("account-adapter {}", "tset".repeat(500));
        assert_eq!(search(&t, &long).suggestions, ["account-adapter"]);
    }

    #[test]
    fn a_long_name_costs_its_length_in_terms_not_its_length_times_its_words() {
        let long = "a-".repeat(4000);
        let t = table(vec![
            task(Runner::Npm, ".", &long, Some(&long)),
            task(Runner::Npm, ".", "test", None),
        ]);
        let tasks: Vec<&Task> = t.tasks.iter().collect();
        let vocabulary = terms(&tasks);
        let kept: usize = vocabulary.keys().map(String::len).sum();
        // Every leading word up to the longest term a word could be corrected to, and the
        // short parts: a few kilobytes, where all its prefixes would be 16 MB.
        assert!(kept < MAX_TERM * MAX_TERM, "{kept} bytes of terms");
        assert!(vocabulary.keys().all(|t| t.chars().count() <= MAX_TERM));
        // The name, its package and the package `test` takes from the same manifest: each
        // gives 4,000 words `a` and its first leading word.
        assert_eq!(vocabulary.get("a"), Some(&12_003));
        assert_eq!(search(&t, "tset").suggestions, ["test"]);
    }

    #[test]
    fn words_that_never_meet_suggest_the_query_less_one_word() {
        let t = monorepo();
        let found = search(&t, "account-adapter deploy");
        assert!(found.indices.is_empty());
        assert_eq!(found.suggestions, ["deploy", "account-adapter"]);
    }

    #[test]
    fn a_path_gets_its_enclosing_directories_tasks_deepest_first() {
        let t = monorepo();
        let all = Filter::default();
        let at =
            |path: &str| for_path(&t, Path::new(path), &all).map(|indices| names(&t, &indices));
        let found = at("apps/web/e2e/login.spec.ts").unwrap_or_default();
        assert_eq!(found[0], "apps/web/e2e/run");
        assert_eq!(
            found[1..5],
            [
                "apps/web/build",
                "apps/web/pretest-data",
                "apps/web/test",
                "apps/web/test:e2e"
            ]
        );
        assert_eq!(found[5..], ["deploy", "lint", "test-all"]);
        assert_eq!(at("/repo/apps/web/src/../e2e"), at("apps/web/e2e"));
        assert_eq!(
            at("apps/webapp/x.ts").unwrap_or_default(),
            ["deploy", "lint", "test-all"]
        );
        assert_eq!(at("."), at("/repo"));
        assert_eq!(at("../elsewhere"), None);
        assert_eq!(at("/elsewhere/apps/web"), None);
        let tests = Filter {
            query: Some("test".to_owned()),
            ..Filter::default()
        };
        let found = for_path(&t, Path::new("apps/web/src/x.ts"), &tests).unwrap_or_default();
        assert_eq!(
            names(&t, &found),
            [
                "apps/web/pretest-data",
                "apps/web/test",
                "apps/web/test:e2e",
                "lint",
                "test-all"
            ]
        );
    }

    #[test]
    fn a_task_without_a_manifest_takes_the_nearest_enclosing_package() {
        let t = monorepo();
        let package = |name: &str| t.get(name).and_then(|task| task.package.clone());
        assert_eq!(
            package("packages/account-adapter/release").as_deref(),
            Some("@acme/account-adapter")
        );
        assert_eq!(package("apps/web/e2e/run").as_deref(), Some("@acme/web"));
        assert_eq!(package("deploy"), None);
    }
}
