//! The repository scan: one walk that respects `.gitignore` (parallel once the tree is
//! large), then every candidate task file handed to its adapter from the `agg-runners`
//! registry.
//!
//! The walk includes hidden files (so `.cargo/` and `.justfile` are seen) but never enters
//! `.git` or `node_modules`. Files pulled in by another file (Make `include`, just `mod`,
//! Taskfile `includes`) are listed only through the file that pulls them in.
//!
//! [`Index`] keeps what the scan found so a file watcher can update it cheaply: a changed
//! task file is parsed again on its own, a directory is walked again only when something
//! appears in it, and a change to any other file costs nothing.
//!
//! The parts: [`walk`] (the directory walk), [`ignores`] (the ignore rules it respects, read
//! bounded, and the index of the files git tracks, read even where a rule matches them),
//! [`index`] (what was found, updated per batch of changed paths), [`listing`] (parsing one
//! file, and which files' tasks are listed), [`facts`] (what each parse read) and [`warm`]
//! (the scan kept in agg's cache and checked with `stat` instead of read again, with the
//! [`stamp`]s it trusts).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agg_runners::{ADAPTERS, Diagnostic, Task};

mod facts;
mod ignores;
mod index;
mod listing;
mod readdir;
mod remembered;
mod reread;
mod stamp;
mod tracked;
mod walk;
mod warm;

pub use index::Index;
pub use remembered::picked_files;
pub use reread::{Reread, reread};
pub use warm::{Generation, Loaded, set_cache};

/// Whether this process ends once it has listed (see [`set_ends_after_listing`]).
static ENDS_AFTER_LISTING: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Says that this process ends once it has written its listing (`agg list`), so that what a
/// scan no longer needs is left for the exit to free rather than freed piece by piece
/// beside the rest of the listing. A process that goes on (a server, a run) never says so.
pub fn set_ends_after_listing() {
    ENDS_AFTER_LISTING.store(true, std::sync::atomic::Ordering::Relaxed);
}

fn ends_after_listing() -> bool {
    ENDS_AFTER_LISTING.load(std::sync::atomic::Ordering::Relaxed)
}

/// Directories never entered, whatever the ignore files say.
pub(super) const NEVER_ENTER: &[&str] = &[".git", "node_modules"];

/// What one scan of a repository found.
#[derive(Debug)]
pub struct Scan {
    /// The absolute, canonical root.
    pub root: PathBuf,
    /// Every task, before naming.
    pub tasks: Vec<Task>,
    /// Every problem found, sorted by file and line.
    pub diagnostics: Vec<Diagnostic>,
    /// The task files that were parsed (root-relative), including pulled-in ones.
    pub task_files: Vec<String>,
    /// The manifests the workspace graph reads (root-relative), sorted.
    pub manifests: Vec<String>,
}

/// The repository root for a command run in `start` without an explicit root: the nearest
/// directory, `start` included, that holds `.git` (a directory, or a file in a worktree or
/// submodule); else the nearest that holds a task file (an xc README excepted: most
/// READMEs hold no tasks); else `start` itself. This is how git, just, go-task, npm and
/// cargo find their own files from a subdirectory.
pub fn find_root(start: &Path) -> PathBuf {
    let has = |dir: &Path, pred: &dyn Fn(&str) -> bool| {
        std::fs::read_dir(dir).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| e.file_name().to_str().is_some_and(pred))
        })
    };
    if let Some(dir) = start.ancestors().find(|dir| dir.join(".git").exists()) {
        return dir.to_path_buf();
    }
    // Formats known by content (scripts) say nothing by name alone.
    let is_task_file = |name: &str| {
        ADAPTERS
            .iter()
            .filter(|a| a.name != "xc" && a.admit.is_none())
            .any(|a| (a.candidate)(name).is_some())
    };
    start
        .ancestors()
        .find(|dir| {
            has(dir, &is_task_file)
                || dir.join(".cargo/config.toml").is_file()
                || dir.join(".cargo/config").is_file()
        })
        .unwrap_or(start)
        .to_path_buf()
}

/// Tells whether `rel` (root-relative) is a file some adapter reads, and which.
pub fn candidate_of(rel: &str) -> Option<(usize, u8)> {
    if agg_runners::surely_not_a_task_file(rel) {
        return None;
    }
    ADAPTERS
        .iter()
        .enumerate()
        .find_map(|(i, a)| (a.candidate)(rel).map(|rank| (i, rank)))
}

/// Whether a file named `name` is one of the files some adapter looks for beside and above
/// its task files ([`agg_runners::Neighbours`]: lockfiles, workspace markers): a whole walk
/// notes where they are, so that a parse asking whether one exists in a directory the walk
/// entered is answered without a `stat` (thousands of packages ask for eight lockfiles each).
pub(super) fn is_neighbour_marker(name: &str) -> bool {
    static MARKERS: std::sync::OnceLock<rustc_hash::FxHashSet<&'static str>> =
        std::sync::OnceLock::new();
    MARKERS
        .get_or_init(|| {
            ADAPTERS
                .iter()
                .filter_map(|a| a.neighbours.as_ref())
                .flat_map(|n| n.markers.iter().copied())
                .collect()
        })
        .contains(name)
}

/// Candidate files of one adapter in one directory, by path, with their rank.
pub(super) type Group = BTreeMap<String, u8>;
#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use agg_runners::Runner;

    use super::walk::{self as walking, Look, Walked, relative, walk_collecting};
    use super::*;

    /// What a walk found, in a comparable order.
    fn found(walked: Walked) -> (Vec<(usize, u8, String)>, BTreeSet<String>, usize) {
        let mut candidates = walked.candidates;
        candidates.sort();
        (
            candidates,
            walked.dirs.into_keys().collect(),
            walked.diagnostics.len(),
        )
    }

    #[test]
    fn a_directory_the_walk_cannot_open_is_reported_and_the_rest_is_walked() {
        use nix::fcntl::{OFlag, openat};
        use nix::sys::stat::{Mode, mkdirat};
        use std::io::Write;

        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::write(root.join("Makefile"), "all:\n").unwrap();
        std::fs::write(root.join("justfile"), "build:\n").unwrap();
        // A chain of directories whose paths outgrow what a path may be (PATH_MAX, 4,096
        // bytes), each made relative to the one before: the walk opens a directory by its
        // path, so the first one past the limit cannot be opened (as root, a mode of 000
        // would not stop it).
        let name = "d".repeat(200);
        let mut dir = std::fs::File::open(root).unwrap();
        for _ in 0..25 {
            mkdirat(&dir, name.as_str(), Mode::S_IRWXU).unwrap();
            let next = openat(&dir, name.as_str(), OFlag::O_DIRECTORY, Mode::empty()).unwrap();
            dir = std::fs::File::from(next);
        }
        let deep = openat(
            &dir,
            "Makefile",
            OFlag::O_WRONLY | OFlag::O_CREAT,
            Mode::S_IRUSR | Mode::S_IWUSR,
        )
        .unwrap();
        std::fs::File::from(deep).write_all(b"deep:\n").unwrap();

        for budget in [usize::MAX, 0] {
            let ignores = ignores::Ignores::new(root, root, None);
            let look = Look {
                root,
                ignores: &ignores,
                stamps: true,
            };
            let walked = walk_collecting(&look, root, None, budget);
            let mut candidates: Vec<&str> = walked
                .candidates
                .iter()
                .map(|(_, _, p)| p.as_str())
                .collect();
            candidates.sort_unstable();
            assert_eq!(candidates, ["Makefile", "justfile"], "budget {budget}");
            let [diagnostic] = walked.diagnostics.as_slice() else {
                panic!("one diagnostic: {:?}", walked.diagnostics);
            };
            assert_eq!(diagnostic.message, "skipped: File name too long");
            let unread = &diagnostic.file_path;
            let levels = unread.split('/').count();
            assert!(
                unread.split('/').all(|n| n == name) && (15..25).contains(&levels),
                "{unread}"
            );
            let absolute = root.join(unread).into_os_string().len();
            assert!(absolute >= 4096 && absolute - 201 < 4096, "{absolute}");
            // Entered, though not read: listed with the others, and with no stamp.
            assert_eq!(walked.dirs.get(unread.as_str()), Some(&None));
            assert!(walked.dirs.get(".").is_some_and(Option::is_some));
            assert_eq!(walked.dirs.len(), levels + 1);
        }
    }

    #[test]
    fn a_large_tree_is_walked_in_parallel_with_the_same_result() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        let write = |rel: &str, text: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(".gitignore", "dist/\n");
        write("Makefile", "all:\n");
        for pkg in 0..60 {
            write(&format!("pkgs/p{pkg}/package.json"), "{}");
            write(&format!("pkgs/p{pkg}/dist/Makefile"), "ignored:\n");
            write(
                &format!("pkgs/p{pkg}/node_modules/x/justfile"),
                "ignored:\n",
            );
            for file in 0..20 {
                write(&format!("pkgs/p{pkg}/src/f{file}.rs"), "");
            }
        }
        // On this thread alone, on rayon's threads from the start, and handed over midway.
        let walk_with_budget = |budget| {
            let ignores = ignores::Ignores::new(root, root, None);
            let look = Look {
                root,
                ignores: &ignores,
                stamps: false,
            };
            found(walk_collecting(&look, root, None, budget))
        };
        let serial = walk_with_budget(usize::MAX);
        assert_eq!(serial, walk_with_budget(0));
        assert_eq!(serial, walk_with_budget(100));
        assert_eq!(serial, found(walking::walk(root, root, false)));
        let (candidates, dirs, diagnostics) = serial;
        assert_eq!(candidates.len(), 61, "{candidates:?}");
        assert!(candidates.iter().all(|(_, _, p)| !p.contains("dist/")));
        assert!(dirs.contains("pkgs/p7/src") && !dirs.iter().any(|d| d.contains("node_modules")));
        assert_eq!(diagnostics, 0);
    }

    /// What the index lists, sorted, to compare with a fresh scan.
    fn listed_tasks(index: &Index) -> Vec<(String, String, Runner)> {
        let mut tasks: Vec<_> = index
            .snapshot()
            .tasks
            .into_iter()
            .map(|t| (t.dir, t.source_name, t.runner))
            .collect();
        tasks.sort();
        tasks
    }

    /// Incremental updates give what a fresh scan gives: an edited include reaches its
    /// includer, a new lockfile changes the package manager of the packages below it, and a
    /// large batch of paths (a branch switch) is taken in at once.
    #[test]
    fn applied_changes_match_a_fresh_scan() {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let write = |rel: &str, text: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            path
        };
        write("Makefile", "include build/common.mk\nall:\n\t@true\n");
        write("build/common.mk", "lint:\n\t@true\n");
        write("packages/a/package.json", r#"{"scripts": {"dev": "vite"}}"#);
        let mut index = Index::build(&root);
        assert!(listed_tasks(&index).contains(&(
            "packages/a".to_owned(),
            "dev".to_owned(),
            Runner::Npm
        )));

        let common = write("build/common.mk", "lint:\n\t@true\nfmt:\n\t@true\n");
        let lock = write("pnpm-lock.yaml", "lockfileVersion: '9.0'\n");
        assert!(index.apply(&[common, lock]));
        assert_eq!(listed_tasks(&index), listed_tasks(&Index::build(&root)));
        let tasks = listed_tasks(&index);
        assert!(tasks.contains(&(".".to_owned(), "fmt".to_owned(), Runner::Make)));
        assert!(tasks.contains(&("packages/a".to_owned(), "dev".to_owned(), Runner::Pnpm)));

        // Console scripts move from uv to poetry when poetry.lock appears; a hatch.toml with
        // `envs` takes over from the pyproject's.
        write(
            "py/pyproject.toml",
            "[project.scripts]\ncli = \"m:main\"\n[tool.hatch.envs.default.scripts]\nold = \"x\"\n",
        );
        let mut index = Index::build(&root);
        assert!(listed_tasks(&index).contains(&("py".to_owned(), "cli".to_owned(), Runner::Uv)));
        let poetry = write("py/poetry.lock", "");
        let hatch = write("py/hatch.toml", "[envs.default.scripts]\nnew = \"y\"\n");
        assert!(index.apply(&[poetry, hatch]));
        assert_eq!(listed_tasks(&index), listed_tasks(&Index::build(&root)));
        let tasks = listed_tasks(&index);
        assert!(tasks.contains(&("py".to_owned(), "cli".to_owned(), Runner::Poetry)));
        assert!(!tasks.contains(&("py".to_owned(), "old".to_owned(), Runner::Hatch)));

        let mut batch: Vec<PathBuf> = (0..3000)
            .map(|i| write(&format!("src/m{}/f{i}.rs", i % 30), ""))
            .collect();
        batch.push(write("src/m7/justfile", "check:\n    true\n"));
        batch.push(root.join("src"));
        assert!(index.apply(&batch));
        assert_eq!(listed_tasks(&index), listed_tasks(&Index::build(&root)));
        assert!(listed_tasks(&index).contains(&(
            "src/m7".to_owned(),
            "check".to_owned(),
            Runner::Just
        )));
    }

    /// mise reads its task directories through a config file: a file task that appears,
    /// a task directory created later, a file task removed and a second config file are
    /// each taken in as a fresh scan would.
    /// Writes `text` to the executable file `rel` under `root`, making its directories.
    fn executable(root: &Path, rel: &str, text: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    /// The names of `runner`'s tasks the index lists.
    fn names_of(index: &Index, runner: Runner) -> Vec<String> {
        listed_tasks(index)
            .into_iter()
            .filter(|t| t.2 == runner)
            .map(|t| t.1)
            .collect()
    }

    #[test]
    fn mise_task_directories_follow_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let write = |rel: &str, text: &str| executable(&root, rel, text);
        let mise = |index: &Index| names_of(index, Runner::Mise);
        write("mise.toml", "[tasks.build]\nrun = \"true\"\n");
        write("mise-tasks/lint", "#!/bin/sh\n");
        let mut index = Index::build(&root);
        assert_eq!(mise(&index), ["build", "lint"]);

        let added = write("mise-tasks/db/migrate", "#!/bin/sh\n");
        assert!(index.apply(&[root.join("mise-tasks/db"), added]));
        assert_eq!(mise(&index), ["build", "db:migrate", "lint"]);

        let created = write(".mise/tasks/fmt", "#!/bin/sh\n");
        assert!(index.apply(&[root.join(".mise"), root.join(".mise/tasks"), created]));
        assert_eq!(mise(&index), ["build", "db:migrate", "fmt", "lint"]);

        std::fs::remove_file(root.join("mise-tasks/lint")).unwrap();
        let local = write("mise.local.toml", "[tasks.mine]\nrun = \"true\"\n");
        assert!(index.apply(&[root.join("mise-tasks/lint"), local]));
        assert_eq!(mise(&index), ["build", "db:migrate", "fmt", "mine"]);
        assert_eq!(listed_tasks(&index), listed_tasks(&Index::build(&root)));
    }

    /// Formats read several to a directory (scripts, workflows) are all read again when one
    /// of them changes: a new `scripts/test` renames `scripts/test.sh`, and no other script
    /// of the directory is lost.
    #[test]
    fn every_script_of_a_directory_is_read_again_when_one_appears() {
        let tmp = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let script = |rel: &str| executable(&root, rel, "#!/bin/sh\n");
        let scripts = |index: &Index| names_of(index, Runner::Script);
        script("scripts/test.sh");
        script("scripts/lint.sh");
        script(".github/workflows/ci.yml");
        std::fs::write(
            root.join(".github/workflows/ci.yml"),
            "on: push\njobs:\n  a:\n    runs-on: x\n",
        )
        .unwrap();
        let mut index = Index::build(&root);
        assert_eq!(scripts(&index), ["scripts/lint", "scripts/test"]);
        let added = script("scripts/test");
        assert!(index.apply(&[added]));
        assert_eq!(
            scripts(&index),
            ["scripts/lint", "scripts/test", "scripts/test.sh"]
        );
        let workflow = root.join(".github/workflows/release.yml");
        std::fs::write(&workflow, "on: push\njobs:\n  b:\n    runs-on: x\n").unwrap();
        assert!(index.apply(&[workflow]));
        assert_eq!(listed_tasks(&index), listed_tasks(&Index::build(&root)));
        assert!(listed_tasks(&index).iter().any(|t| t.1 == "ci/a"));
    }

    #[test]
    fn relative_paths_match_strip_prefix() {
        for (root, path) in [
            ("/repo", "/repo"),
            ("/repo", "/repo/a/b"),
            ("/repo", "/repository/a"),
            ("/repo/", "/repo/a"),
            ("/", "/a/b"),
            ("/repo", "/other"),
        ] {
            let (root, path) = (Path::new(root), Path::new(path));
            assert_eq!(
                relative(root, path),
                path.strip_prefix(root).ok(),
                "{root:?} {path:?}"
            );
        }
    }
}
