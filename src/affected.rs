//! Which tasks a change affects, from the changed files ([`crate::changes`]) and the
//! workspace graph ([`crate::graph`]): a pure function, used by `agg list --affected` and the
//! MCP `list_tasks {"affected": …}` alike.
//!
//! A changed file affects the package that holds it (the nearest directory with a manifest);
//! a file at a workspace's root that every member reads (its root manifest, a lockfile,
//! shared configuration: [`agg_runners::graph::Workspace::shared`]) affects every member.
//! Then every package that depends on an affected one is affected, transitively, one step
//! further away. The tasks come in that order, nearest first (table order within a
//! distance), each with the reason for it; a task of a directory no package holds is affected
//! when a changed file is inside its directory. Root tasks — those of the repository's root
//! and of each workspace's root, which run across its packages — come last, once, when
//! anything below them changed.

use std::collections::{HashSet, VecDeque};

use agg_runners::graph::Graph;

use crate::graph::Places;
use crate::table::{Table, Task};

/// Why a task is affected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    /// A file of its package (or of its directory) changed.
    Changed {
        /// The first changed file.
        file: String,
        /// How many more changed there.
        more: usize,
    },
    /// A file every package of its workspace reads changed.
    Shared {
        /// The file.
        file: String,
        /// The workspace's tool (`pnpm`, `cargo`).
        tool: String,
    },
    /// Its package depends on an affected package.
    DependsOn {
        /// That package's name.
        package: String,
    },
    /// It is a root task, and something below its directory changed.
    Root {
        /// The first changed file below it.
        file: String,
    },
}

impl std::fmt::Display for Why {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Why::Changed { file, more: 0 } => write!(f, "changed: {file}"),
            Why::Changed { file, more } => write!(f, "changed: {file} (+{more} more)"),
            Why::Shared { file, tool } => write!(
                f,
                "changed: {file}, which every package of the {tool} workspace reads"
            ),
            Why::DependsOn { package } => write!(f, "depends on {package}"),
            Why::Root { file } => write!(f, "root task: {file} changed below it"),
        }
    }
}

/// One affected task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// Its index in the table.
    pub task: usize,
    /// Steps from a change: 0 for its own package, 1 for a direct dependent, …; root tasks
    /// have none.
    pub distance: Option<usize>,
    /// Why.
    pub why: Why,
}

/// The packages reached so far, breadth first: each the first time only.
struct Reached {
    distance: Vec<Option<usize>>,
    why: Vec<Option<Why>>,
    queue: VecDeque<usize>,
}

impl Reached {
    fn reach(&mut self, p: usize, d: usize, why: Why) {
        if self.distance[p].is_none() {
            self.distance[p] = Some(d);
            self.why[p] = Some(why);
            self.queue.push_back(p);
        }
    }
}

/// Whether root-relative `path` is `dir` or inside it.
fn within(path: &str, dir: &str) -> bool {
    dir == "."
        || path == dir
        || path
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// The tasks of `table` that `changed` (root-relative files) affects, in the order above.
pub fn tasks(table: &Table, graph: &Graph, changed: &[String]) -> Vec<Hit> {
    let places = Places::new(graph);
    let n = graph.packages.len();
    let mut reached = Reached {
        distance: vec![None; n],
        why: vec![None; n],
        queue: VecDeque::new(),
    };
    // Files every member reads first: such a change says so, whatever else changed.
    for file in changed {
        for w in &graph.workspaces {
            if w.shared.iter().any(|s| s == file) {
                for &m in &w.members {
                    let shared = Why::Shared {
                        file: file.clone(),
                        tool: w.tool.to_owned(),
                    };
                    reached.reach(m, 0, shared);
                }
            }
        }
    }
    // Each package's own changed files.
    let mut own: Vec<Vec<&str>> = vec![Vec::new(); n];
    for file in changed {
        if let Some((_, found)) = places.holding(file) {
            for &p in found {
                own[p].push(file);
            }
        }
    }
    for (p, files) in own.iter().enumerate() {
        if let Some(first) = files.first() {
            let changed = Why::Changed {
                file: (*first).to_owned(),
                more: files.len() - 1,
            };
            reached.reach(p, 0, changed);
        }
    }
    let dependents = graph.dependents();
    while let Some(p) = reached.queue.pop_front() {
        let d = reached.distance[p].unwrap_or(0);
        for &q in &dependents[p] {
            let via = Why::DependsOn {
                package: graph.packages[p].name.clone(),
            };
            reached.reach(q, d + 1, via);
        }
    }
    let Reached { distance, why, .. } = reached;
    let roots: HashSet<&str> = std::iter::once(".")
        .chain(graph.workspaces.iter().map(|w| w.dir.as_str()))
        .collect();
    let mut hits = Vec::new();
    let mut root_hits = Vec::new();
    for (i, task) in table.tasks.iter().enumerate() {
        if roots.contains(task.dir.as_str()) {
            if let Some(hit) = root_hit(i, task, changed) {
                root_hits.push(hit);
            }
            continue;
        }
        if let Some((_, found)) = places.holding(&task.dir) {
            let best = found
                .iter()
                .filter_map(|&p| distance[p].map(|d| (d, p)))
                .min();
            if let Some((d, p)) = best
                && let Some(w) = &why[p]
            {
                hits.push(Hit {
                    task: i,
                    distance: Some(d),
                    why: w.clone(),
                });
            }
            continue;
        }
        let mut inside = changed.iter().filter(|f| within(f, &task.dir));
        if let Some(first) = inside.next() {
            hits.push(Hit {
                task: i,
                distance: Some(0),
                why: Why::Changed {
                    file: first.clone(),
                    more: inside.count(),
                },
            });
        }
    }
    // Stable: table order within a distance.
    hits.sort_by_key(|h| h.distance);
    hits.extend(root_hits);
    hits
}

/// A root task's hit, when a changed file lies below its directory.
fn root_hit(i: usize, task: &Task, changed: &[String]) -> Option<Hit> {
    let file = changed.iter().find(|f| within(f, &task.dir))?;
    Some(Hit {
        task: i,
        distance: None,
        why: Why::Root { file: file.clone() },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use agg_runners::MemFiles;
    use agg_runners::graph::is_manifest;

    /// A table of one `build` task per directory in `dirs`, and the graph of `files`.
    fn repo(files: &[(&str, &str)], dirs: &[&str]) -> (Table, Graph) {
        let mut mem = MemFiles::new();
        let mut manifests = Vec::new();
        for (p, t) in files {
            mem = mem.with(p, t);
            if is_manifest(p) {
                manifests.push((*p).to_owned());
            }
        }
        let graph = agg_runners::graph::read(&mem, &manifests);
        let tasks = dirs
            .iter()
            .map(|d| {
                let mut t = Task::new(
                    agg_runners::Runner::Make,
                    "build",
                    *d,
                    format!("{d}/Makefile").trim_start_matches("./"),
                    Vec::new(),
                );
                t.unique_name = format!("{d}/build");
                t
            })
            .collect();
        let table = Table {
            root: std::path::PathBuf::from("/repo"),
            tasks,
            diagnostics: Vec::new(),
            manifests,
        };
        (table, graph)
    }

    fn shown(table: &Table, hits: &[Hit]) -> Vec<String> {
        hits.iter()
            .map(|h| format!("{} ({})", table.tasks[h.task].dir, h.why))
            .collect()
    }

    const FILES: &[(&str, &str)] = &[
        ("pnpm-workspace.yaml", "packages: ['packages/*']\n"),
        ("pnpm-lock.yaml", ""),
        ("package.json", r#"{"name": "root"}"#),
        ("packages/core/package.json", r#"{"name": "core"}"#),
        (
            "packages/ui/package.json",
            r#"{"name": "ui", "dependencies": {"core": "workspace:*"}}"#,
        ),
        (
            "packages/web/package.json",
            r#"{"name": "web", "dependencies": {"ui": "workspace:*"}}"#,
        ),
        ("packages/other/package.json", r#"{"name": "other"}"#),
    ];
    const DIRS: &[&str] = &[
        ".",
        "packages/core",
        "packages/ui",
        "packages/web",
        "packages/other",
        "docs",
    ];

    #[test]
    fn a_change_reaches_its_dependents_nearest_first_and_root_tasks_last() {
        let (table, graph) = repo(FILES, DIRS);
        let hits = tasks(&table, &graph, &["packages/core/src/a.ts".to_owned()]);
        assert_eq!(
            shown(&table, &hits),
            [
                "packages/core (changed: packages/core/src/a.ts)",
                "packages/ui (depends on core)",
                "packages/web (depends on ui)",
                ". (root task: packages/core/src/a.ts changed below it)",
            ]
        );
        assert_eq!(hits[2].distance, Some(2));
    }

    #[test]
    fn a_file_every_package_reads_affects_them_all_and_says_so() {
        let (table, graph) = repo(FILES, DIRS);
        let hits = tasks(&table, &graph, &["pnpm-lock.yaml".to_owned()]);
        let shown = shown(&table, &hits);
        // Every package, `docs` (which the root package holds), then the root task.
        assert_eq!(shown.len(), 6, "{shown:#?}");
        assert!(shown[5].starts_with(". (root task"), "{shown:#?}");
        assert!(
            shown[0].contains("pnpm-lock.yaml, which every package of the pnpm workspace reads")
        );
    }

    #[test]
    fn a_directory_without_a_package_is_affected_by_its_own_files_only() {
        let (table, graph) = repo(FILES, DIRS);
        let hits = tasks(
            &table,
            &graph,
            &["docs/intro.md".to_owned(), "docs/api.md".to_owned()],
        );
        assert_eq!(
            shown(&table, &hits),
            [
                "docs (changed: docs/intro.md (+1 more))",
                ". (root task: docs/intro.md changed below it)"
            ]
        );
        assert!(tasks(&table, &graph, &[]).is_empty());
    }
}
