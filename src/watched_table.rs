//! A table that follows the repository: a file watch (notify) feeds changed paths, in
//! batches that end after 200 ms of quiet, to the scan [`Index`], which parses only the task
//! files that changed. When the tasks themselves change — not merely a line number or an
//! unrelated file — the new table replaces the old one and the caller is told.
//!
//! On Linux each directory the scan entered is watched on its own, and directories are
//! added and dropped as the scan finds or loses them: ignored trees (`node_modules`,
//! `target/`, `.git`) cost no inotify watch and raise no event, however large they are.
//! Elsewhere the root is watched recursively (`FSEvents` watches a tree at no extra cost).
//!
//! The watch is laid in the background (thousands of directories take most of a second), so
//! the table is served at once; when the watch is in place, whatever changed since the scan
//! began (by modification time, and files or directories gone) is taken in.
//!
//! A question can be ordered after every change made before it ([`WatchedTable::current`]):
//! a cookie file is created in a directory of agg's own that the same inotify instance
//! watches; the kernel queues one instance's events in the order they happen, so once the
//! cookie's event comes through, every change made before the question has come through
//! too, and the batch that holds them is applied at once instead of after the quiet
//! (watchman's cookies, outside the repository, so the tree's own times do not move).
//!
//! Idle cost: the watch thread blocks on the kernel (inotify, `FSEvents`) and wakes only
//! for events. Nothing is scanned until a path changes.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, RwLock, Weak};
use std::time::{Duration, Instant, SystemTime};

use notify::{Config, Event, EventKind, EventKindMask, RecommendedWatcher, RecursiveMode, Watcher};

use crate::lock::{MutexExt, RwLockExt};
use crate::named::Named;
use crate::repo_files::abs_path;
use crate::scan::Index;
use crate::table::Table;

/// Called with the old and the new table after the tasks changed.
pub type OnChange = Box<dyn Fn(&Table, &Table) + Send + Sync>;

/// Whether each directory gets its own watch (inotify) rather than one recursive watch.
const WATCH_EACH_DIR: bool = cfg!(target_os = "linux");
/// Changed paths caught up one by one at most; beyond that the tree is scanned again.
const CATCH_UP_PATHS: usize = 2_000;
/// A batch of changes ends after this much quiet…
const QUIET: Duration = Duration::from_millis(200);
/// …or after this long, however busy the tree is.
const MAX_BATCH: Duration = Duration::from_secs(1);

/// The table and the watch that keeps it current. Clones share both.
#[derive(Clone)]
pub struct WatchedTable {
    shared: Arc<Shared>,
}

struct Shared {
    root: PathBuf,
    /// Batches of changed paths applied so far.
    batches: AtomicU64,
    /// Events the watch delivered so far.
    events: AtomicU64,
    index: Mutex<Index>,
    table: RwLock<Arc<Table>>,
    /// The table's rows before the environment is filled in (see [`crate::named`]): what a
    /// completion asks for, filled in by the asker.
    named: RwLock<Arc<Named>>,
    /// The cookies asked for and not seen yet, by path, with whom to tell.
    cookies: Mutex<HashMap<PathBuf, tokio::sync::oneshot::Sender<()>>>,
    /// The directory of the cookies, once watched.
    cookie_dir: Mutex<Option<CookieDir>>,
    on_change: OnChange,
    /// Where the watch is: being laid, running, or given up (the table then rescanned on
    /// request) because it cannot start or cannot follow the tree any more.
    watch: Mutex<WatchState>,
    /// Whether the first scan is done (until then the table is empty).
    built: AtomicBool,
    /// Wakes whoever waits for the first scan.
    built_now: tokio::sync::Notify,
}

/// The life of the watch: laid in the background, then running until the table is dropped
/// or the tree cannot be followed; a watch given up never comes back.
enum WatchState {
    /// Being laid (the table is served meanwhile, and catches up once it is in place).
    Laying,
    /// In place.
    Running(Watch),
    /// Not running, and why.
    GaveUp(WatchError),
}

/// A private directory for cookie files, watched by the table's watch; removed with it.
struct CookieDir {
    path: PathBuf,
}

impl Drop for CookieDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Cookies created so far by this process (their names must not repeat).
static COOKIES: AtomicU64 = AtomicU64::new(0);

/// The file watch and what it covers.
struct Watch {
    watcher: RecommendedWatcher,
    /// Root-relative directories watched one by one (with [`WATCH_EACH_DIR`]).
    dirs: BTreeSet<String>,
}

impl std::fmt::Debug for WatchedTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WatchedTable")
            .field("watching", &self.watching())
            .field("problem", &self.problem())
            .finish_non_exhaustive()
    }
}

impl WatchedTable {
    /// Scans `root` and starts watching it. If the watch cannot start (no inotify watches
    /// left, say), the table still works: [`WatchedTable::refresh`] rescans on demand, and
    /// [`WatchedTable::problem`] says why.
    pub fn start(root: &Path, on_change: OnChange) -> WatchedTable {
        // Modification times are compared with this once the watch is in place; a second
        // of margin costs at most a needless reparse.
        let since = SystemTime::now()
            .checked_sub(Duration::from_secs(1))
            .unwrap_or(SystemTime::UNIX_EPOCH);
        let index = Index::load(root);
        let (named, table) = tables(&index);
        let shared = Arc::new(Shared::new(index, (named, table), on_change, true));
        let weak = Arc::downgrade(&shared);
        let spawned = std::thread::Builder::new()
            .name("agg-watch".to_owned())
            .spawn(move || watch_thread(&weak, since));
        if let Err(e) = spawned {
            shared.give_up(WatchError::Thread(e));
        }
        WatchedTable { shared }
    }

    /// Like [`WatchedTable::start`], but returns at once with an empty table: the scan runs on
    /// the watch thread, which then lays the watch. [`WatchedTable::built`] waits for the scan
    /// (readers must, before they read the table); `on_change` is told of changes after it.
    pub fn start_in_background(root: &Path, on_change: OnChange) -> WatchedTable {
        let since = SystemTime::now()
            .checked_sub(Duration::from_secs(1))
            .unwrap_or(SystemTime::UNIX_EPOCH);
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let empty = Index::empty(&root);
        let tables = tables(&empty);
        let shared = Arc::new(Shared::new(empty, tables, on_change, false));
        let weak = Arc::downgrade(&shared);
        let spawned = std::thread::Builder::new()
            .name("agg-watch".to_owned())
            .spawn(move || {
                if let Some(shared) = weak.upgrade() {
                    shared.first_scan();
                }
                watch_thread(&weak, since);
            });
        if let Err(e) = spawned {
            // No thread: scan here, so the table is right even without a watch.
            shared.first_scan();
            shared.give_up(WatchError::Thread(e));
        }
        WatchedTable { shared }
    }

    /// Waits until the first scan is done.
    pub async fn built(&self) {
        loop {
            // Created before the check: a wake between the two is not lost.
            let woken = self.shared.built_now.notified();
            if self.shared.built.load(Ordering::Acquire) {
                return;
            }
            woken.await;
        }
    }

    /// The current table.
    pub fn table(&self) -> Arc<Table> {
        Arc::clone(&self.shared.table.read_locked())
    }

    /// Whether a watch keeps the table current (or is being laid and will catch up).
    pub fn watching(&self) -> bool {
        !matches!(*self.shared.watch.locked(), WatchState::GaveUp(_))
    }

    /// Whether the watch is in place (not merely being laid).
    #[cfg(test)]
    pub fn watch_ready(&self) -> bool {
        matches!(*self.shared.watch.locked(), WatchState::Running(_))
    }

    /// Why the watch is not running, if it is not.
    pub fn problem(&self) -> Option<String> {
        match &*self.shared.watch.locked() {
            WatchState::GaveUp(problem) => Some(problem.to_string()),
            WatchState::Laying | WatchState::Running(_) => None,
        }
    }

    /// How many directories are watched one by one (0 with a recursive watch or none).
    #[cfg(test)]
    pub fn watched_dirs(&self) -> usize {
        match &*self.shared.watch.locked() {
            WatchState::Running(watch) => watch.dirs.len(),
            WatchState::Laying | WatchState::GaveUp(_) => 0,
        }
    }

    /// The named rows as they are after every change made before this call: `None` when
    /// that cannot be vouched for within `within` (the first scan or the watch not done yet,
    /// no watch, a cookie that did not come through in time, a change outside the tree's
    /// directories, which no watch sees), and the asker then scans on its own.
    ///
    /// Only with inotify (Linux): its one queue orders the cookie among the tree's events.
    pub async fn current(&self, within: Duration) -> Option<Arc<Named>> {
        if !WATCH_EACH_DIR
            || !self.shared.built.load(Ordering::Acquire)
            || !matches!(*self.shared.watch.locked(), WatchState::Running(_))
        {
            return None;
        }
        let dir = self.shared.watch_cookies()?;
        let n = COOKIES.fetch_add(1, Ordering::Relaxed);
        let cookie = dir.join(format!("cookie-{n}"));
        let (told, seen) = tokio::sync::oneshot::channel();
        self.shared.cookies.locked().insert(cookie.clone(), told);
        let created = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&cookie);
        let came = created.is_ok()
            && tokio::time::timeout(within, seen)
                .await
                .is_ok_and(|r| r.is_ok());
        self.shared.cookies.locked().remove(&cookie);
        let _ = std::fs::remove_file(&cookie);
        if !came {
            tracing::debug!("cookie {} not seen within {within:?}", cookie.display());
            return None;
        }
        // What the ignore rules read outside the tree's directories is not watched: it must
        // be as the scan found it.
        let outside_same = self.shared.index.locked().outside_unchanged();
        if !outside_same {
            tracing::debug!("a file outside the tree changed: the table is scanned again");
            let shared = Arc::clone(&self.shared);
            tokio::task::spawn_blocking(move || shared.rebuild());
            return None;
        }
        Some(Arc::clone(&self.shared.named.read_locked()))
    }

    /// Scans the whole repository again (for when no watch runs).
    pub fn refresh(&self) -> Arc<Table> {
        self.shared.rebuild();
        self.table()
    }

    /// How many batches of changed paths the table has taken in.
    #[cfg(test)]
    pub fn batches(&self) -> u64 {
        self.shared.batches.load(Ordering::Relaxed)
    }

    /// How many events the watch has delivered.
    #[cfg(test)]
    pub fn events(&self) -> u64 {
        self.shared.events.load(Ordering::Relaxed)
    }
}

impl Shared {
    fn new(
        index: Index,
        (named, table): (Named, Table),
        on_change: OnChange,
        built: bool,
    ) -> Shared {
        Shared {
            root: index.root().to_path_buf(),
            batches: AtomicU64::new(0),
            events: AtomicU64::new(0),
            index: Mutex::new(index),
            table: RwLock::new(Arc::new(table)),
            named: RwLock::new(Arc::new(named)),
            cookies: Mutex::new(HashMap::new()),
            cookie_dir: Mutex::new(None),
            on_change,
            watch: Mutex::new(WatchState::Laying),
            built: AtomicBool::new(built),
            built_now: tokio::sync::Notify::new(),
        }
    }

    /// The cookie directory, watched by the table's watch: made and watched on first use;
    /// `None` when there is no watch or it cannot be made.
    fn watch_cookies(&self) -> Option<PathBuf> {
        let mut slot = self.cookie_dir.locked();
        if let Some(dir) = slot.as_ref() {
            return Some(dir.path.clone());
        }
        let base = crate::own_dirs::socket_dir()
            .create()
            .inspect_err(|err| tracing::debug!("no cookie directory: {err}"))
            .ok()?;
        let path = base.join(format!("cookies-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir(&path).ok()?;
        let dir = CookieDir { path };
        let mut watch = self.watch.locked();
        let WatchState::Running(running) = &mut *watch else {
            return None;
        };
        let watched = running
            .watcher
            .watch(&dir.path, RecursiveMode::NonRecursive);
        if let Err(err) = watched {
            tracing::debug!("cookie directory not watched: {err}");
            return None;
        }
        let path = dir.path.clone();
        *slot = Some(dir);
        Some(path)
    }

    /// The cookie directory, if one is watched.
    fn cookie_path(&self) -> Option<PathBuf> {
        self.cookie_dir.locked().as_ref().map(|d| d.path.clone())
    }

    /// Whether `event` is the creation of a cookie someone waits for.
    fn is_cookie(&self, event: &notify::Result<Event>) -> bool {
        let Ok(event) = event else { return false };
        let cookies = self.cookies.locked();
        !cookies.is_empty() && event.paths.iter().any(|p| cookies.contains_key(p))
    }

    /// Tells whoever waits for a cookie of `batch` that it came through (and, with it, every
    /// change before it: the batch is applied).
    fn cookies_seen(&self, batch: &[notify::Result<Event>]) {
        let mut cookies = self.cookies.locked();
        if cookies.is_empty() {
            return;
        }
        for path in batch.iter().flatten().flat_map(|e| &e.paths) {
            if let Some(told) = cookies.remove(path) {
                let _ = told.send(());
            }
        }
    }

    /// Scans the tree for the first time, publishes the table and wakes the waiters.
    fn first_scan(&self) {
        let index = Index::load(&self.root);
        let (named, table) = tables(&index);
        *self.index.locked() = index;
        *self.named.write_locked() = Arc::new(named);
        *self.table.write_locked() = Arc::new(table);
        self.built.store(true, Ordering::Release);
        self.built_now.notify_waiters();
        // No change to report: every reader of the table waited for this scan, so none saw
        // the empty table it replaces.
    }
}

/// Lays the watch, catches up with what changed meanwhile, then turns events into batches
/// of changed paths until the table is dropped.
fn watch_thread(weak: &Weak<Shared>, since: SystemTime) {
    let (tx, rx) = mpsc::channel::<notify::Result<Event>>();
    {
        let Some(shared) = weak.upgrade() else { return };
        // Changes only: a watch that also reported every open would wake this thread for
        // each file and directory any program reads in the tree (a `git status`, a search,
        // agg's own scans).
        let config = Config::default().with_event_kinds(EventKindMask::CORE);
        let watcher = match RecommendedWatcher::new(tx, config) {
            Ok(w) => w,
            Err(e) => {
                shared.give_up(WatchError::Root {
                    root: shared.root.clone(),
                    source: e,
                });
                return;
            }
        };
        let mut watch = Watch {
            watcher,
            dirs: BTreeSet::new(),
        };
        let laid = if WATCH_EACH_DIR {
            // Laying thousands of watches takes a while: not under the index lock.
            let wanted = shared.index.locked().dirs().clone();
            sync_dirs(&mut watch, &shared.root, &wanted)
        } else {
            watch
                .watcher
                .watch(&shared.root, RecursiveMode::Recursive)
                .map_err(|source| WatchError::Root {
                    root: shared.root.clone(),
                    source,
                })
        };
        if let Err(problem) = laid {
            shared.give_up(problem);
            return;
        }
        *shared.watch.locked() = WatchState::Running(watch);
        shared.catch_up(since);
    }
    // Blocks without waking while nothing changes; ends when the watcher (and with it the
    // sending side) is dropped with the table.
    while let Ok(first) = rx.recv() {
        let mut cookie = weak
            .upgrade()
            .is_some_and(|shared| shared.is_cookie(&first));
        let mut batch = vec![first];
        let deadline = Instant::now() + MAX_BATCH;
        // A cookie ends the batch at once: someone waits for what came before it.
        while !cookie {
            let wait = QUIET.min(deadline.saturating_duration_since(Instant::now()));
            match rx.recv_timeout(wait) {
                Ok(event) => {
                    cookie = weak
                        .upgrade()
                        .is_some_and(|shared| shared.is_cookie(&event));
                    batch.push(event);
                }
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return,
            }
            if Instant::now() >= deadline {
                break;
            }
        }
        let Some(shared) = weak.upgrade() else { return };
        shared.events.fetch_add(
            u64::try_from(batch.len()).unwrap_or(u64::MAX),
            Ordering::Relaxed,
        );
        // An error or a rescan flag means events were lost (queue overflow): start over.
        if batch
            .iter()
            .any(|e| e.as_ref().map_or(true, Event::need_rescan))
        {
            shared.batches.fetch_add(1, Ordering::Relaxed);
            shared.rebuild();
            shared.cookies_seen(&batch);
            continue;
        }
        let cookie_dir = shared.cookie_path();
        let paths: Vec<PathBuf> = batch
            .iter()
            .flatten()
            .filter(|e| changes_content(e.kind))
            .flat_map(|e| e.paths.iter())
            .filter(|p| cookie_dir.as_ref().is_none_or(|dir| !p.starts_with(dir)))
            .cloned()
            .collect();
        if !paths.is_empty() {
            shared.batches.fetch_add(1, Ordering::Relaxed);
            shared.apply(&paths);
        }
        shared.cookies_seen(&batch);
    }
}

/// Whether an event can change what agg reads of a file. Opening and reading a file (which
/// agg itself does when it parses one) cannot; reacting to it would make every parse trigger
/// the next. The watch does not ask for such events ([`EventKindMask::CORE`]); this keeps one
/// that arrives all the same from counting. A change of metadata can (an execute bit decides
/// whether a script is a task; inotify reports a `chmod` as one).
fn changes_content(kind: EventKind) -> bool {
    !matches!(kind, EventKind::Access(_))
}

/// The rows without and with the environment of the index's current scan.
fn tables(index: &Index) -> (Named, Table) {
    let named = Table::name(index.snapshot());
    let table = Table::from_named(named.clone());
    (named, table)
}

impl Shared {
    fn apply(&self, paths: &[PathBuf]) {
        let mut index = self.index.locked();
        let touched = index.apply(paths);
        // A new directory without task files changes no task, yet needs its watch.
        self.follow_dirs(&index);
        if !touched {
            return;
        }
        let tables = tables(&index);
        drop(index);
        self.replace(tables);
    }

    fn rebuild(&self) {
        let mut index = self.index.locked();
        let root = index.root().to_path_buf();
        *index = Index::load(&root);
        self.follow_dirs(&index);
        let tables = tables(&index);
        drop(index);
        self.replace(tables);
    }

    /// Takes in what changed between the start of the scan and the watch being in place:
    /// task files and directories modified since, and those gone.
    fn catch_up(&self, since: SystemTime) {
        let changed: Vec<PathBuf> = {
            let index = self.index.locked();
            let modified = |path: &Path| match std::fs::symlink_metadata(path) {
                Ok(meta) => meta.modified().map_or(true, |m| m >= since),
                Err(_) => true,
            };
            let mut changed = Vec::new();
            for dir in index.dirs() {
                let abs = index.abs(dir);
                if modified(&abs) {
                    if let Ok(entries) = std::fs::read_dir(&abs) {
                        changed.extend(entries.filter_map(|e| e.ok().map(|e| e.path())));
                    }
                    changed.push(abs);
                }
            }
            changed.extend(index.files().map(|f| index.abs(f)).filter(|p| modified(p)));
            changed
        };
        // A tree regenerated or checked out just now: scanning it again is cheaper.
        if changed.len() > CATCH_UP_PATHS {
            self.rebuild();
        } else if !changed.is_empty() {
            self.apply(&changed);
        }
    }

    /// Watches the directories the scan now enters and drops those it left. Should the
    /// kernel refuse a watch (inotify's limit), the watch stops and the table is rescanned
    /// on request instead: a table that silently misses changes would be worse.
    fn follow_dirs(&self, index: &Index) {
        if !WATCH_EACH_DIR {
            return;
        }
        let mut slot = self.watch.locked();
        let WatchState::Running(watch) = &mut *slot else {
            return;
        };
        if let Err(problem) = sync_dirs(watch, index.root(), index.dirs()) {
            *slot = given_up(problem);
        }
    }

    fn give_up(&self, problem: WatchError) {
        *self.watch.locked() = given_up(problem);
    }
}

/// The state of a watch given up for `problem`, said once in the log.
fn given_up(problem: WatchError) -> WatchState {
    tracing::warn!("{problem}; tasks are rescanned on each request");
    WatchState::GaveUp(problem)
}

/// Why the file watch stopped, or never started.
#[derive(Debug)]
enum WatchError {
    /// No thread to lay the watch on.
    Thread(std::io::Error),
    /// The watcher, or the root's recursive watch, cannot be made.
    Root {
        root: PathBuf,
        source: notify::Error,
    },
    /// The kernel refused one more directory (inotify's limit).
    Dir {
        path: PathBuf,
        watched: usize,
        source: notify::Error,
    },
}

impl std::fmt::Display for WatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            WatchError::Thread(e) => write!(f, "cannot start the watch thread: {e}"),
            WatchError::Root { root, source } => {
                write!(f, "cannot watch {}: {source}", root.display())
            }
            WatchError::Dir {
                path,
                watched,
                source,
            } => write!(
                f,
                "cannot watch {} ({watched} directories watched): {source}",
                path.display()
            ),
        }
    }
}

impl std::error::Error for WatchError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            WatchError::Thread(e) => Some(e),
            WatchError::Root { source, .. } | WatchError::Dir { source, .. } => Some(source),
        }
    }
}

impl Shared {
    fn replace(&self, (named, table): (Named, Table)) {
        *self.named.write_locked() = Arc::new(named);
        let new = Arc::new(table);
        let old = {
            let mut slot = self.table.write_locked();
            std::mem::replace(&mut *slot, Arc::clone(&new))
        };
        if !old.same_tasks(&new) {
            (self.on_change)(&old, &new);
        }
    }
}

/// Makes the watched directories (root-relative) those in `wanted`.
fn sync_dirs(watch: &mut Watch, root: &Path, wanted: &BTreeSet<String>) -> Result<(), WatchError> {
    let gone: Vec<String> = watch.dirs.difference(wanted).cloned().collect();
    for dir in gone {
        // A deleted directory's watch is already gone in the kernel; nothing to report.
        let _ = watch.watcher.unwatch(&abs_path(root, &dir));
        watch.dirs.remove(&dir);
    }
    let new: Vec<String> = wanted.difference(&watch.dirs).cloned().collect();
    for dir in new {
        let path = abs_path(root, &dir);
        match watch.watcher.watch(&path, RecursiveMode::NonRecursive) {
            Ok(()) => {
                watch.dirs.insert(dir);
            }
            // Gone again before its watch was added: its removal is (or will be) an event.
            Err(e) if matches!(&e.kind, notify::ErrorKind::PathNotFound) || !path.exists() => {}
            Err(e) => {
                return Err(WatchError::Dir {
                    path,
                    watched: watch.dirs.len(),
                    source: e,
                });
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::WatchedTable;

    fn wait_for(live: &WatchedTable, what: &str, ok: impl Fn(&WatchedTable) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !ok(live) {
            assert!(Instant::now() < deadline, "{what}: never happened");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    fn has(live: &WatchedTable, name: &str) -> bool {
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
        let live = WatchedTable::start(root, Box::new(|_, _| {}));
        wait_for(&live, "the watch", WatchedTable::watch_ready);
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

    /// Changes made while the watch is being laid are not lost: the watch catches up.
    #[test]
    fn changes_while_the_watch_is_laid_are_caught_up() {
        let dir = tempfile::tempdir().expect("tmp");
        let root = dir.path();
        // Enough directories that laying their watches takes a while (a tenth of a second).
        for i in 0..2000 {
            std::fs::create_dir_all(root.join(format!("pkgs/p{i}"))).expect("mkdir");
        }
        std::fs::write(root.join("Makefile"), "build:\n\t@true\n").expect("write");
        std::fs::write(root.join("pkgs/p7/justfile"), "old:\n    true\n").expect("write");
        let live = WatchedTable::start(root, Box::new(|_, _| {}));
        // Right away, before the watch is (likely) in place.
        std::fs::write(root.join("pkgs/p1999/justfile"), "new:\n    true\n").expect("write");
        std::fs::write(root.join("pkgs/p7/justfile"), "renamed:\n    true\n").expect("write");
        std::fs::remove_file(root.join("Makefile")).expect("rm");
        let early = !live.watch_ready();
        wait_for(&live, "catching up", |l| {
            has(l, "pkgs/p1999/new") && has(l, "pkgs/p7/renamed") && !has(l, "build")
        });
        assert!(!has(&live, "pkgs/p7/old"));
        assert!(
            early,
            "the watch was in place before the edits: nothing was caught up"
        );
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
        let live = WatchedTable::start(dir.path(), Box::new(|_, _| {}));
        assert!(live.watching(), "{:?}", live.problem());
        wait_for(&live, "the watch", WatchedTable::watch_ready);
        // Read the files the way a scan does (and a search, an editor), list the directory,
        // then stay idle past the debounce: nothing reaches the watch's thread at all.
        let _ = live.refresh();
        for _ in 0..3 {
            let _ = std::fs::read_to_string(dir.path().join("Makefile"));
            let _ = std::fs::read_dir(dir.path()).map(Iterator::count);
        }
        std::thread::sleep(Duration::from_millis(800));
        assert_eq!(live.batches(), 0, "reads were taken for changes");
        assert_eq!(live.events(), 0, "reads woke the watch");
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
        // A change of mode alone is a change: the execute bit makes a script a task.
        let script = dir.path().join("scripts/deploy.sh");
        std::fs::create_dir_all(script.parent().expect("parent")).expect("mkdir");
        std::fs::write(&script, "#!/bin/sh\necho deploy\n").expect("write");
        wait_for(&live, "the new script seen", |live| live.events() > 0);
        assert!(!has(&live, "scripts/deploy"), "not executable yet");
        let mut mode = std::fs::metadata(&script).expect("stat").permissions();
        std::os::unix::fs::PermissionsExt::set_mode(&mut mode, 0o755);
        std::fs::set_permissions(&script, mode).expect("chmod");
        wait_for(&live, "the chmod", |live| has(live, "scripts/deploy"));
    }
}
