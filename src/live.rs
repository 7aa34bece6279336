//! A table that follows the repository: a recursive file watch (notify, debounced by
//! notify-debouncer-full) feeds changed paths to the scan [`Index`], which parses only the
//! task files that changed. When the tasks themselves change — not merely a line number or
//! an unrelated file — the new table replaces the old one and the caller is told.
//!
//! Idle cost: the watcher thread blocks on the kernel (inotify, `FSEvents`); the debouncer
//! wakes every 100 ms to look at an empty queue. Nothing is scanned until a path changes.

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

/// The table and the watch that keeps it current.
pub struct LiveTable {
    shared: Arc<Shared>,
    watch_guard: Option<Debouncer<RecommendedWatcher, NoCache>>,
    problem: Option<String>,
}

struct Shared {
    /// Batches of changed paths applied so far.
    batches: std::sync::atomic::AtomicU64,
    index: Mutex<Index>,
    table: RwLock<Arc<Table>>,
    on_change: OnChange,
}

impl std::fmt::Debug for LiveTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveTable")
            .field("watching", &self.watch_guard.is_some())
            .field("problem", &self.problem)
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
        });
        let (tx, rx) = mpsc::channel::<DebounceEventResult>();
        let watch = new_debouncer_opt::<_, RecommendedWatcher, NoCache>(
            Duration::from_millis(200),
            Some(Duration::from_millis(100)),
            tx,
            NoCache,
            notify::Config::default(),
        )
        .and_then(|mut d| d.watch(&root, RecursiveMode::Recursive).map(|()| d));
        let (watch, problem) = match watch {
            Ok(d) => {
                let weak = Arc::downgrade(&shared);
                let spawned = std::thread::Builder::new()
                    .name("agg-watch".to_owned())
                    .spawn(move || {
                        // Blocks without waking while nothing changes.
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
                    Ok(_) => (Some(d), None),
                    Err(e) => (None, Some(format!("cannot start the watch thread: {e}"))),
                }
            }
            Err(e) => (
                None,
                Some(format!(
                    "cannot watch {}: {e}; tasks are rescanned on each request",
                    root.display()
                )),
            ),
        };
        LiveTable {
            shared,
            watch_guard: watch,
            problem,
        }
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
        self.watch_guard.is_some()
    }

    /// Why the watch is not running, if it is not.
    pub fn problem(&self) -> Option<&str> {
        self.problem.as_deref()
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
            return;
        }
        let table = Table::from_scan(index.snapshot());
        drop(index);
        self.replace(table);
    }

    fn rebuild(&self) {
        let mut index = self.index.lock().unwrap_or_else(PoisonError::into_inner);
        let root = index.root().to_path_buf();
        *index = Index::build(&root);
        let table = Table::from_scan(index.snapshot());
        drop(index);
        self.replace(table);
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

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::LiveTable;

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
