//! A table that follows the repository: a file watch (notify, debounced by
//! notify-debouncer-full) feeds changed paths to the scan [`Index`], which parses only the
//! task files that changed. When the tasks themselves change — not merely a line number or
//! an unrelated file — the new table replaces the old one and the caller is told.
//!
//! On Linux each directory the scan entered is watched on its own, and directories are
//! added and dropped as the scan finds or loses them: ignored trees (`node_modules`,
//! `target/`, `.git`) cost no inotify watch and raise no event, however large they are.
//! Elsewhere the root is watched recursively (`FSEvents` watches a tree at no extra cost).
//!
//! Idle cost: the watcher thread blocks on the kernel (inotify, `FSEvents`); the debouncer
//! wakes every 100 ms to look at an empty queue. Nothing is scanned until a path changes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use notify::event::ModifyKind;
use notify::{EventKind, RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, NoCache, new_debouncer_opt};

use crate::scan::Index;
use crate::table::Table;

/// Called with the old and the new table after the tasks changed.
pub type OnChange = Box<dyn Fn(&Table, &Table) + Send + Sync>;

/// Whether each directory gets its own watch (inotify) rather than one recursive watch.
const WATCH_EACH_DIR: bool = cfg!(target_os = "linux");

/// The table and the watch that keeps it current.
pub struct LiveTable {
    shared: Arc<Shared>,
}

struct Shared {
    /// Batches of changed paths applied so far.
    batches: std::sync::atomic::AtomicU64,
    index: Mutex<Index>,
    table: RwLock<Arc<Table>>,
    on_change: OnChange,
    /// The watch, while it runs. Dropped (and the table then rescanned on request) when it
    /// cannot start or cannot follow the tree any more.
    watch: Mutex<Option<Watch>>,
    /// Why the watch is not running, if it is not.
    problem: Mutex<Option<String>>,
}

/// The file watch and what it covers.
struct Watch {
    debouncer: Debouncer<RecommendedWatcher, NoCache>,
    /// Root-relative directories watched one by one (with [`WATCH_EACH_DIR`]).
    dirs: BTreeSet<String>,
}

impl std::fmt::Debug for LiveTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveTable")
            .field("watching", &self.watching())
            .field("problem", &self.problem())
            .finish_non_exhaustive()
    }
}

impl LiveTable {
    /// Scans `root` and starts watching it. If the watch cannot start (no inotify watches
    /// left, say), the table still works: [`LiveTable::refresh`] rescans on demand, and
    /// [`LiveTable::problem`] says why.
    pub fn start(root: &Path, on_change: OnChange) -> LiveTable {
        let index = Index::build(root);
        let table = Table::from_scan(index.snapshot());
        let root = index.root().to_path_buf();
        let shared = Arc::new(Shared {
            batches: std::sync::atomic::AtomicU64::new(0),
            index: Mutex::new(index),
            table: RwLock::new(Arc::new(table)),
            on_change,
            watch: Mutex::new(None),
            problem: Mutex::new(None),
        });
        let (tx, rx) = mpsc::channel::<DebounceEventResult>();
        let debouncer = new_debouncer_opt::<_, RecommendedWatcher, NoCache>(
            Duration::from_millis(200),
            Some(Duration::from_millis(100)),
            tx,
            NoCache,
            notify::Config::default(),
        );
        let mut debouncer = match debouncer {
            Ok(d) => d,
            Err(e) => {
                shared.give_up(&format!("cannot watch {}: {e}", root.display()));
                return LiveTable { shared };
            }
        };
        let mut watch_dirs = BTreeSet::new();
        if WATCH_EACH_DIR {
            let index = shared.index.lock().unwrap_or_else(PoisonError::into_inner);
            if let Err(e) = sync_dirs(&mut debouncer, &mut watch_dirs, &index) {
                drop(index);
                shared.give_up(&e);
                return LiveTable { shared };
            }
        } else if let Err(e) = debouncer.watch(&root, RecursiveMode::Recursive) {
            shared.give_up(&format!("cannot watch {}: {e}", root.display()));
            return LiveTable { shared };
        }
        let weak = Arc::downgrade(&shared);
        let spawned = std::thread::Builder::new()
            .name("agg-watch".to_owned())
            .spawn(move || {
                // Blocks without waking while nothing changes; ends when the debouncer (and
                // with it the sending side) is dropped.
                while let Ok(batch) = rx.recv() {
                    let Some(shared) = weak.upgrade() else { return };
                    if let Ok(events) = batch {
                        let paths: Vec<PathBuf> = events
                            .into_iter()
                            .filter(|e| changes_content(e.event.kind))
                            .flat_map(|e| e.event.paths)
                            .collect();
                        if !paths.is_empty() {
                            shared.apply(&paths);
                        }
                    } else {
                        // The kernel dropped events (queue overflow): start over.
                        shared.rebuild();
                    }
                }
            });
        match spawned {
            Ok(_) => {
                *shared.watch.lock().unwrap_or_else(PoisonError::into_inner) = Some(Watch {
                    debouncer,
                    dirs: watch_dirs,
                });
            }
            Err(e) => shared.give_up(&format!("cannot start the watch thread: {e}")),
        }
        LiveTable { shared }
    }

    /// The current table.
    pub fn table(&self) -> Arc<Table> {
        Arc::clone(
            &self
                .shared
                .table
                .read()
                .unwrap_or_else(PoisonError::into_inner),
        )
    }

    /// Whether a watch keeps the table current.
    pub fn watching(&self) -> bool {
        self.shared
            .watch
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    /// Why the watch is not running, if it is not.
    pub fn problem(&self) -> Option<String> {
        self.shared
            .problem
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// How many directories are watched one by one (0 with a recursive watch or none).
    pub fn watched_dirs(&self) -> usize {
        self.shared
            .watch
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            .map_or(0, |w| w.dirs.len())
    }

    /// Scans the whole repository again (for when no watch runs).
    pub fn refresh(&self) -> Arc<Table> {
        self.shared.rebuild();
        self.table()
    }

    /// How many batches of changed paths the table has taken in.
    pub fn batches(&self) -> u64 {
        self.shared
            .batches
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Applies changed paths now (the watcher does this by itself).
    pub fn apply(&self, paths: &[PathBuf]) {
        self.shared.apply(paths);
    }
}

/// Whether an event can change what a file says. Opening and reading a file (which agg
/// itself does when it parses one) and metadata changes cannot; reacting to them would make
/// every parse trigger the next.
fn changes_content(kind: EventKind) -> bool {
    !matches!(
        kind,
        EventKind::Access(_) | EventKind::Modify(ModifyKind::Metadata(_))
    )
}

impl Shared {
    fn apply(&self, paths: &[PathBuf]) {
        self.batches
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut index = self.index.lock().unwrap_or_else(PoisonError::into_inner);
        if !index.apply(paths) {
            // A new directory without task files changes no task, yet needs its watch.
            self.follow_dirs(&index);
            return;
        }
        self.follow_dirs(&index);
        let table = Table::from_scan(index.snapshot());
        drop(index);
        self.replace(table);
    }

    fn rebuild(&self) {
        let mut index = self.index.lock().unwrap_or_else(PoisonError::into_inner);
        let root = index.root().to_path_buf();
        *index = Index::build(&root);
        self.follow_dirs(&index);
        let table = Table::from_scan(index.snapshot());
        drop(index);
        self.replace(table);
    }

    /// Watches the directories the scan now enters and drops those it left. Should the
    /// kernel refuse a watch (inotify's limit), the watch stops and the table is rescanned
    /// on request instead: a table that silently misses changes would be worse.
    fn follow_dirs(&self, index: &Index) {
        if !WATCH_EACH_DIR {
            return;
        }
        let mut slot = self.watch.lock().unwrap_or_else(PoisonError::into_inner);
        let Some(watch) = slot.as_mut() else {
            return;
        };
        if let Err(problem) = sync_dirs(&mut watch.debouncer, &mut watch.dirs, index) {
            *slot = None;
            drop(slot);
            self.give_up(&problem);
        }
    }

    fn give_up(&self, problem: &str) {
        tracing::warn!("{problem}; tasks are rescanned on each request");
        *self.problem.lock().unwrap_or_else(PoisonError::into_inner) =
            Some(format!("{problem}; tasks are rescanned on each request"));
    }

    fn replace(&self, table: Table) {
        let new = Arc::new(table);
        let old = {
            let mut slot = self.table.write().unwrap_or_else(PoisonError::into_inner);
            std::mem::replace(&mut *slot, Arc::clone(&new))
        };
        if old.signature() != new.signature() {
            (self.on_change)(&old, &new);
        }
    }
}

/// Makes the watched directories those the scan entered.
fn sync_dirs(
    debouncer: &mut Debouncer<RecommendedWatcher, NoCache>,
    watched: &mut BTreeSet<String>,
    index: &Index,
) -> Result<(), String> {
    let wanted = index.dirs();
    let gone: Vec<String> = watched.difference(wanted).cloned().collect();
    for dir in gone {
        // A deleted directory's watch is already gone in the kernel; nothing to report.
        let _ = debouncer.unwatch(index.abs(&dir));
        watched.remove(&dir);
    }
    let new: Vec<String> = wanted.difference(watched).cloned().collect();
    for dir in new {
        let path = index.abs(&dir);
        match debouncer.watch(&path, RecursiveMode::NonRecursive) {
            Ok(()) => {
                watched.insert(dir);
            }
            // Gone again before its watch was added: its removal is (or will be) an event.
            Err(e) if matches!(&e.kind, notify::ErrorKind::PathNotFound) || !path.exists() => {}
            Err(e) => {
                return Err(format!(
                    "cannot watch {} ({} directories watched): {e}",
                    path.display(),
                    watched.len()
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::LiveTable;

    fn wait_for(live: &LiveTable, what: &str, ok: impl Fn(&LiveTable) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !ok(live) {
            assert!(Instant::now() < deadline, "{what}: never happened");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn has(live: &LiveTable, name: &str) -> bool {
        live.table().tasks.iter().any(|t| t.unique_name == name)
    }

    /// Ignored trees get no watch; directories that appear (nested, later filled, or
    /// un-ignored) are followed, and removed ones dropped.
    #[cfg(target_os = "linux")]
    #[test]
    fn each_entered_directory_is_watched_and_only_those() {
        let dir = tempfile::tempdir().expect("tmp");
        let root = dir.path();
        std::fs::write(root.join(".gitignore"), "dist/\n").expect("write");
        for sub in ["src", "node_modules/a/b", "dist/x", ".git/objects"] {
            std::fs::create_dir_all(root.join(sub)).expect("mkdir");
        }
        std::fs::write(root.join("Makefile"), "build:\n\t@true\n").expect("write");
        let live = LiveTable::start(root, Box::new(|_, _| {}));
        assert!(live.watching(), "{:?}", live.problem());
        assert_eq!(live.watched_dirs(), 2, "the root and src/ only");

        // A nested directory, filled only after its watch must already be there.
        std::fs::create_dir_all(root.join("a/b/c")).expect("mkdir");
        wait_for(&live, "watching a/b/c", |l| l.watched_dirs() == 5);
        std::fs::write(root.join("a/b/c/justfile"), "lint:\n    true\n").expect("write");
        wait_for(&live, "a/b/c/lint listed", |l| has(l, "a/b/c/lint"));

        // Un-ignoring dist/ brings its tasks and, later, its edits.
        std::fs::write(root.join(".gitignore"), "").expect("write");
        wait_for(&live, "dist/ watched", |l| l.watched_dirs() == 7);
        std::fs::write(root.join("dist/x/Makefile"), "pack:\n\t@true\n").expect("write");
        wait_for(&live, "dist/x/pack listed", |l| has(l, "dist/x/pack"));

        // A removed directory loses its tasks and its watch.
        std::fs::remove_dir_all(root.join("a")).expect("rm");
        wait_for(&live, "a/ forgotten", |l| {
            !has(l, "a/b/c/lint") && l.watched_dirs() == 4
        });
        assert!(live.watching(), "{:?}", live.problem());
    }

    /// Parsing reads every task file, which raises access events. Taking those for changes
    /// made each parse trigger the next: an idle server spun a core on a large repository.
    #[test]
    fn reading_task_files_is_not_a_change() {
        let dir = tempfile::tempdir().expect("tmp");
        std::fs::write(dir.path().join("Makefile"), "build:\n\t@true\n").expect("write");
        std::fs::write(
            dir.path().join("README.md"),
            "## Tasks\n\n### a\n\n```sh\ntrue\n```\n",
        )
        .expect("write");
        let live = LiveTable::start(dir.path(), Box::new(|_, _| {}));
        assert!(live.watching(), "{:?}", live.problem());
        // Read the files the way a scan does, then stay idle past the debounce.
        let _ = live.refresh();
        for _ in 0..3 {
            let _ = std::fs::read_to_string(dir.path().join("Makefile"));
        }
        std::thread::sleep(Duration::from_millis(800));
        assert_eq!(live.batches(), 0, "reads were taken for changes");
        // A real edit is one batch.
        std::fs::write(
            dir.path().join("Makefile"),
            "build:\n\t@true\ntest:\n\t@true\n",
        )
        .expect("write");
        let deadline = Instant::now() + Duration::from_secs(5);
        while live.table().tasks.len() < 3 {
            assert!(Instant::now() < deadline, "the edit never arrived");
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(live.batches() >= 1);
    }
}
