//! The naming contract: every task gets a short, stable, unique name.
//!
//! The base is the runner's own name for the task; a task outside the root gets its
//! directory in front (`apps/web/build`); when several runners define the same name in one
//! directory each gets a runner suffix (`build-m`, `build-n`). Names depend only on the
//! task files, never on discovery order or on what is installed.

use std::borrow::Cow;
use std::collections::BTreeMap;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use agg_runners::Task;
use rayon::prelude::*;

/// Directories are named on the thread pool from this many tasks on.
const PARALLEL_NAMING: usize = 4096;

/// A directory and the names of its tasks (by index) before the directory prefix.
type DirNames<'t> = (&'t str, Vec<(usize, Cow<'t, str>)>);

/// Returns one unique name per task, index-aligned with `tasks`.
///
/// `tasks` must already be in canonical order (see [`canonical_order`]) so that the rare
/// `-2` tie-breaks are stable too.
pub fn unique_names<'t>(tasks: &'t [Task]) -> Vec<String> {
    let mut names = vec![String::new(); tasks.len()];
    // Tasks by directory, directories in order. The tasks come sorted, so a directory's
    // tasks are usually next to each other.
    let mut by_dir: Vec<(&str, Vec<usize>)> = Vec::new();
    let mut slot: HashMap<&str, usize> = HashMap::default();
    for (i, t) in tasks.iter().enumerate() {
        let dir = t.dir.as_str();
        let group = match by_dir.last_mut() {
            Some((last, members)) if *last == dir => members,
            _ => {
                let next = by_dir.len();
                let at = *slot.entry(dir).or_insert(next);
                if at == next {
                    by_dir.push((dir, Vec::new()));
                }
                &mut by_dir[at].1
            }
        };
        group.push(i);
    }
    by_dir.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let in_dir = |(dir, members): (&'t str, Vec<usize>)| {
        let names = names_in_dir(tasks, &members);
        let first: Vec<(usize, String)> =
            names.iter().map(|(i, n)| (*i, prefixed(dir, n))).collect();
        ((dir, names), first)
    };
    // Directories are independent; a monorepo has thousands.
    let (local, first): (Vec<_>, Vec<_>) = if tasks.len() >= PARALLEL_NAMING {
        by_dir.into_par_iter().map(in_dir).unzip()
    } else {
        by_dir.into_iter().map(in_dir).unzip()
    };
    let local: Vec<DirNames<'t>> = local;
    // Every name some task would take first; a counter suffix never takes one of these.
    let first: Vec<(usize, String)> = first.into_iter().flatten().collect();
    let mut seen: HashSet<&str> =
        HashSet::with_capacity_and_hasher(first.len(), rustc_hash::FxBuildHasher);
    if first.iter().all(|(_, n)| seen.insert(n)) {
        // The usual case: no name in one directory equals a prefixed name from another.
        for (i, name) in first {
            names[i] = name;
        }
        return names;
    }
    let claimed: HashSet<&str> = first.iter().map(|(_, n)| n.as_str()).collect();
    let mut taken_global: HashSet<String> = HashSet::default();
    for (dir, assigned) in &local {
        for (i, local) in assigned {
            let mut full = prefixed(dir, local);
            let mut n = 2;
            while taken_global.contains(&full) {
                full = prefixed(dir, &format!("{local}-{n}"));
                if claimed.contains(full.as_str()) {
                    full = prefixed(dir, local);
                }
                n += 1;
            }
            taken_global.insert(full.clone());
            names[*i] = full;
        }
    }
    names
}

/// Sorts tasks into the order every table shows and every name is assigned in: by
/// directory (root first), then runner, then file and line.
pub fn canonical_order(a: &Task, b: &Task) -> std::cmp::Ordering {
    fn dir_key(t: &Task) -> (bool, &str) {
        (t.dir != ".", t.dir.as_str())
    }
    (dir_key(a), a.runner, &a.file_path, a.line, &a.source_name).cmp(&(
        dir_key(b),
        b.runner,
        &b.file_path,
        b.line,
        &b.source_name,
    ))
}

fn prefixed(dir: &str, name: &str) -> String {
    if dir == "." {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

/// Names within one directory, before the directory prefix.
fn names_in_dir<'t>(tasks: &'t [Task], members: &[usize]) -> Vec<(usize, Cow<'t, str>)> {
    let real: HashSet<&str> = members
        .iter()
        .map(|&i| tasks[i].source_name.as_str())
        .collect();
    if real.len() == members.len() {
        // The usual case: every name in the directory is its own.
        let mut out: Vec<(usize, Cow<'t, str>)> = members
            .iter()
            .map(|&i| (i, Cow::Borrowed(tasks[i].source_name.as_str())))
            .collect();
        out.sort_by(|a, b| a.1.cmp(&b.1));
        return out;
    }
    let mut groups: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for &i in members {
        groups
            .entry(tasks[i].source_name.as_str())
            .or_default()
            .push(i);
    }
    let mut taken: HashSet<String> = HashSet::default();
    let mut out = Vec::with_capacity(members.len());
    let mut clashing = Vec::new();
    for (name, group) in &groups {
        if group.len() == 1 {
            taken.insert((*name).to_owned());
            out.push((group[0], Cow::Borrowed(*name)));
        } else {
            clashing.push(group);
        }
    }
    for group in clashing {
        let mut runner_count: HashMap<_, usize> = HashMap::default();
        for &i in group {
            *runner_count.entry(tasks[i].runner).or_default() += 1;
        }
        let several_runners = runner_count.len() > 1;
        for &i in group {
            let t = &tasks[i];
            let mut candidates = Vec::new();
            if several_runners {
                candidates.push(format!("{}-{}", t.source_name, t.runner.suffix()));
                candidates.push(format!("{}-{}", t.source_name, t.runner.name()));
            } else {
                // One runner defining a name twice in one directory: the first keeps it.
                candidates.push(t.source_name.clone());
            }
            let base = candidates.last().cloned().unwrap_or_default();
            let chosen = candidates
                .into_iter()
                .find(|c| !taken.contains(c) && (!real.contains(c.as_str()) || *c == t.source_name))
                .unwrap_or_else(|| {
                    (2..=tasks.len() + 2)
                        .map(|n| format!("{base}-{n}"))
                        .find(|c| !taken.contains(c) && !real.contains(c.as_str()))
                        .unwrap_or_default()
                });
            taken.insert(chosen.clone());
            out.push((i, Cow::Owned(chosen)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use agg_runners::Runner;

    fn task(runner: Runner, dir: &str, name: &str) -> Task {
        Task::new(
            runner,
            name,
            dir,
            format!("{dir}/file"),
            vec![runner.name().to_owned(), name.to_owned()],
        )
    }

    fn named(mut tasks: Vec<Task>) -> Vec<(String, String)> {
        tasks.sort_by(canonical_order);
        let names = unique_names(&tasks);
        tasks
            .iter()
            .zip(names)
            .map(|(t, n)| (format!("{}:{}", t.runner, t.source_name), n))
            .collect()
    }

    fn lookup(pairs: &[(String, String)], key: &str) -> String {
        pairs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, n)| n.clone())
            .unwrap_or_default()
    }

    #[test]
    fn root_tasks_keep_their_names_and_subdirs_get_a_prefix() {
        let n = named(vec![
            task(Runner::Make, ".", "build"),
            task(Runner::Pnpm, "apps/web", "dev"),
        ]);
        assert_eq!(lookup(&n, "make:build"), "build");
        assert_eq!(lookup(&n, "pnpm:dev"), "apps/web/dev");
    }

    #[test]
    fn same_name_from_two_runners_gets_runner_letters() {
        let n = named(vec![
            task(Runner::Make, ".", "build"),
            task(Runner::Npm, ".", "build"),
            task(Runner::Make, "web", "build"),
        ]);
        assert_eq!(lookup(&n, "make:build"), "build-m");
        assert_eq!(lookup(&n, "npm:build"), "build-n");
        assert!(n.iter().any(|(_, name)| name == "web/build"));
    }

    #[test]
    fn a_real_name_beats_a_suffix_which_falls_back_to_the_runner_name() {
        let n = named(vec![
            task(Runner::Make, ".", "build"),
            task(Runner::Npm, ".", "build"),
            task(Runner::Just, ".", "build-m"),
        ]);
        assert_eq!(lookup(&n, "just:build-m"), "build-m");
        assert_eq!(lookup(&n, "make:build"), "build-make");
        assert_eq!(lookup(&n, "npm:build"), "build-n");
    }

    #[test]
    fn last_resort_is_a_counter() {
        let n = named(vec![
            task(Runner::Make, ".", "build"),
            task(Runner::Npm, ".", "build"),
            task(Runner::Just, ".", "build-m"),
            task(Runner::GoTask, ".", "build-make"),
        ]);
        assert_eq!(lookup(&n, "make:build"), "build-make-2");
        let all: HashSet<_> = n.iter().map(|(_, name)| name.clone()).collect();
        assert_eq!(all.len(), 4);
    }

    #[test]
    fn names_meeting_across_directories_stay_unique() {
        let n = named(vec![
            task(Runner::GoTask, ".", "web/build"),
            task(Runner::Npm, "web", "build"),
        ]);
        let all: HashSet<_> = n.iter().map(|(_, name)| name.clone()).collect();
        assert_eq!(all.len(), 2);
        assert_eq!(lookup(&n, "task:web/build"), "web/build");
        assert_eq!(lookup(&n, "npm:build"), "web/build-2");
    }

    #[test]
    fn later_runners_take_their_name_as_suffix() {
        let n = named(vec![
            task(Runner::Poe, ".", "test"),
            task(Runner::Tox, ".", "test"),
            task(Runner::Make, ".", "test"),
        ]);
        assert_eq!(lookup(&n, "poe:test"), "test-poe");
        assert_eq!(lookup(&n, "tox:test"), "test-tox");
        assert_eq!(lookup(&n, "make:test"), "test-m");
    }

    #[test]
    fn discovery_order_does_not_matter() {
        let tasks = vec![
            task(Runner::Make, ".", "build"),
            task(Runner::Npm, ".", "build"),
            task(Runner::Just, ".", "build-m"),
            task(Runner::GoTask, "a", "x"),
        ];
        let mut reversed = tasks.clone();
        reversed.reverse();
        assert_eq!(named(tasks), named(reversed));
    }
}

#[cfg(test)]
mod properties {
    use std::collections::HashSet;

    use agg_runners::{Runner, Task};
    use proptest::prelude::*;

    use super::{canonical_order, unique_names};

    fn arb_task() -> impl Strategy<Value = Task> {
        let runners = proptest::sample::select(Runner::ALL.to_vec());
        let dirs = proptest::sample::select(vec![".", "a", "a/b", "web"]);
        // Names that collide often, including ones that look like suffixed names.
        let names = proptest::sample::select(vec![
            "build",
            "build-m",
            "build-n",
            "build-make",
            "build-m-2",
            "build-poe",
            "build-tox-2",
            "test",
            "a/build",
            "b/build",
            "web/build",
            "x",
        ]);
        (runners, dirs, names, 0u32..5).prop_map(|(runner, dir, name, line)| {
            let mut t = Task::new(
                runner,
                name,
                dir,
                format!("{dir}/{}", runner.name()),
                vec![],
            );
            t.line = Some(line);
            t
        })
    }

    fn named(mut tasks: Vec<Task>) -> Vec<(String, String)> {
        tasks.sort_by(canonical_order);
        let names = unique_names(&tasks);
        let mut pairs: Vec<(String, String)> = tasks
            .iter()
            .zip(names)
            .map(|(t, n)| {
                (
                    format!("{}|{}|{}|{:?}", t.dir, t.runner, t.source_name, t.line),
                    n,
                )
            })
            .collect();
        pairs.sort();
        pairs
    }

    proptest! {
        #[test]
        fn names_are_unique(tasks in proptest::collection::vec(arb_task(), 0..40)) {
            let mut sorted = tasks.clone();
            sorted.sort_by(canonical_order);
            let names = unique_names(&sorted);
            let distinct: HashSet<&String> = names.iter().collect();
            prop_assert_eq!(distinct.len(), names.len(), "{:?}", names);
        }

        #[test]
        fn names_do_not_depend_on_discovery_order(
            tasks in proptest::collection::vec(arb_task(), 0..40),
            seed in any::<u64>(),
        ) {
            let mut shuffled = tasks.clone();
            // A deterministic permutation from the seed.
            let n = shuffled.len();
            let mut s = seed;
            for i in (1..n).rev() {
                s = s.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let j = usize::try_from(s >> 33).unwrap_or(0) % (i + 1);
                shuffled.swap(i, j);
            }
            prop_assert_eq!(named(tasks), named(shuffled));
        }

        #[test]
        fn a_task_whose_name_is_unique_in_its_directory_keeps_it(tasks in proptest::collection::vec(arb_task(), 0..40)) {
            let mut sorted = tasks.clone();
            sorted.sort_by(canonical_order);
            let names = unique_names(&sorted);
            for (i, t) in sorted.iter().enumerate() {
                let same = sorted.iter().filter(|o| o.dir == t.dir && o.source_name == t.source_name).count();
                let expected = if t.dir == "." { t.source_name.clone() } else { format!("{}/{}", t.dir, t.source_name) };
                let clash_elsewhere = sorted.iter().enumerate().any(|(j, o)| {
                    j < i && o.dir != t.dir && names[j] == expected
                });
                if same == 1 && !clash_elsewhere {
                    prop_assert_eq!(&names[i], &expected);
                }
            }
        }
    }
}
