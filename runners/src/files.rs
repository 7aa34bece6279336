//! The read-only view of the repository that adapters may consult.
//!
//! Adapters receive a `&dyn Files` so they can follow includes and look for lockfiles
//! without doing I/O themselves; tests pass a [`MemFiles`], the `agg` crate passes the
//! real file system confined to the scan root.

use std::any::{Any, TypeId};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

/// Read-only access to files under the scan root, by root-relative `/`-separated path.
pub trait Files: Sync {
    /// The text of a file, or why it cannot be read (its `Display` is the one-line reason
    /// diagnostics quote).
    fn read(&self, path: &str) -> Result<String, Unreadable>;
    /// Whether a file (not a directory) exists at `path`.
    fn exists(&self, path: &str) -> bool;
    /// The names of the entries of a directory (`"."` is the root); empty when it is unreadable.
    fn read_dir(&self, dir: &str) -> Vec<String>;
    /// Whether `path` is a regular file with an execute bit set.
    fn executable(&self, path: &str) -> bool;
    /// The names of the other files in `path`'s directory that may be files of the same
    /// format as `path`. A scan answers from its walk (files the ignore rules hide are not
    /// among them); by default, every other entry of the directory.
    fn siblings(&self, path: &str) -> Vec<String> {
        let (dir, name) = path.rsplit_once('/').unwrap_or((".", path));
        let mut names = self.read_dir(dir);
        names.retain(|n| n != name);
        names
    }
    /// The name of the root directory itself (VS Code's `${workspaceFolderBasename}` of a
    /// workspace at the root), when known.
    fn root_name(&self) -> Option<String> {
        None
    }
    /// Parses shared by every parse made through this view, when it keeps them (a scan's
    /// does; see [`SharedParses`]).
    fn shared_parses(&self) -> Option<&SharedParses> {
        None
    }
}

/// The parses of files that many task files read, made once for all of them: a monorepo's
/// hundreds of services include the same few Makefile fragments and Taskfiles, which would
/// otherwise be parsed once per includer.
///
/// A parse is kept with the text it was made from, by path and by what it produces, and
/// given only for that same text: what an adapter gets is what it would have made itself.
/// The includer still reads the file through [`Files::read`], so what it read is known as
/// before. Two threads asking at once may both parse; either result is the same.
///
/// What is kept is bounded ([`SharedParses::MAX_TEXT_BYTES`] of text in all, none of a file
/// over [`SharedParses::MAX_FILE_BYTES`]): past that, parses are made and not kept, so a
/// repository of many large included files costs no more memory than before.
#[derive(Default)]
pub struct SharedParses {
    kept: Mutex<Kept>,
}

/// The parses kept, by kind and path, with the text each was made from, and the bytes of
/// text they hold.
#[derive(Default)]
struct Kept {
    parses: HashMap<(TypeId, String), KeptParse>,
    text_bytes: usize,
}

/// A kept parse, with the text it was made from.
type KeptParse = (Arc<str>, Arc<dyn Any + Send + Sync>);

impl std::fmt::Debug for SharedParses {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedParses").finish_non_exhaustive()
    }
}

impl SharedParses {
    /// The most text, in bytes, the parses kept were made from.
    pub const MAX_TEXT_BYTES: usize = 8 << 20;
    /// The largest file whose parse is kept.
    pub const MAX_FILE_BYTES: usize = 256 << 10;

    /// What `parse` makes of `text`, the text of `path`: kept from an earlier call for the
    /// same path and text, or made now and kept (within the bounds).
    pub fn get_or_parse<T: Any + Send + Sync>(
        &self,
        path: &str,
        text: &str,
        parse: impl FnOnce() -> T,
    ) -> Arc<T> {
        // The lock is never held across a parse, so it cannot be poisoned by one; were it
        // poisoned all the same, parses would simply not be shared.
        if text.len() > Self::MAX_FILE_BYTES {
            return Arc::new(parse());
        }
        let key = (TypeId::of::<T>(), path.to_owned());
        let kept = self.kept.lock().ok().and_then(|kept| {
            kept.parses
                .get(&key)
                .filter(|(source, _)| **source == *text)
                .and_then(|(_, parsed)| Arc::clone(parsed).downcast::<T>().ok())
        });
        if let Some(parsed) = kept {
            return parsed;
        }
        let parsed = Arc::new(parse());
        if let Ok(mut kept) = self.kept.lock() {
            // A parse of another text of the same file is replaced, its text's bytes freed.
            let replaced = kept.parses.get(&key).map_or(0, |(source, _)| source.len());
            let bytes = kept.text_bytes - replaced + text.len();
            if bytes <= Self::MAX_TEXT_BYTES {
                let keep: Arc<dyn Any + Send + Sync> = Arc::clone(&parsed) as _;
                kept.parses.insert(key, (Arc::from(text), keep));
                kept.text_bytes = bytes;
            }
        }
        parsed
    }
}

/// What `parse` makes of `text`, the text of `path`, shared through `files` when it keeps
/// parses ([`SharedParses`]), else made now.
pub(crate) fn shared_parse<T: Any + Send + Sync>(
    files: &dyn Files,
    path: &str,
    text: &str,
    parse: impl FnOnce() -> T,
) -> Arc<T> {
    match files.shared_parses() {
        Some(shared) => shared.get_or_parse(path, text, parse),
        None => Arc::new(parse()),
    }
}

/// Why [`Files::read`] could not give a file's text.
///
/// The view's owner words its own failures: the `agg` crate's confined reads hand their
/// error over whole (`Other`), so the cause (an `io::Error`, a size cap) stays reachable
/// through [`std::error::Error::source`] while adapters quote its `Display`.
#[derive(Debug, Clone)]
pub enum Unreadable {
    /// No file at the path.
    Missing,
    /// The owner's reason, with its type and cause.
    Other(Arc<dyn std::error::Error + Send + Sync>),
}

impl Unreadable {
    /// The owner's error `err`, kept whole.
    pub fn other(err: impl std::error::Error + Send + Sync + 'static) -> Unreadable {
        Unreadable::Other(Arc::new(err))
    }
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unreadable::Missing => f.write_str("no such file"),
            Unreadable::Other(err) => err.fmt(f),
        }
    }
}

impl std::error::Error for Unreadable {
    /// Transparent: `Other` shows its error's own words, so the cause is that error's.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Unreadable::Missing => None,
            Unreadable::Other(err) => err.source(),
        }
    }
}

/// An in-memory [`Files`], for tests and fuzzing.
#[derive(Debug, Clone, Default)]
pub struct MemFiles {
    files: BTreeMap<String, String>,
    executables: std::collections::BTreeSet<String>,
}

impl MemFiles {
    /// An empty tree.
    pub fn new() -> MemFiles {
        MemFiles::default()
    }

    /// Adds a file, builder style.
    #[must_use]
    pub fn with(mut self, path: &str, text: &str) -> MemFiles {
        self.files.insert(path.to_owned(), text.to_owned());
        self
    }

    /// Adds a file with its execute bit set, builder style.
    #[must_use]
    pub fn with_executable(mut self, path: &str, text: &str) -> MemFiles {
        self.executables.insert(path.to_owned());
        self.with(path, text)
    }
}

/// A tree of `(path, text)` files, for a table of them.
impl<'a> FromIterator<(&'a str, &'a str)> for MemFiles {
    fn from_iter<I: IntoIterator<Item = (&'a str, &'a str)>>(files: I) -> Self {
        files
            .into_iter()
            .fold(MemFiles::new(), |m, (path, text)| m.with(path, text))
    }
}

impl Files for MemFiles {
    fn read(&self, path: &str) -> Result<String, Unreadable> {
        self.files.get(path).cloned().ok_or(Unreadable::Missing)
    }

    fn exists(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    fn executable(&self, path: &str) -> bool {
        self.executables.contains(path)
    }

    fn read_dir(&self, dir: &str) -> Vec<String> {
        let mut names: Vec<String> = self
            .files
            .keys()
            .filter_map(|p| {
                let rest = if dir == "." {
                    p.as_str()
                } else {
                    p.strip_prefix(dir)?.strip_prefix('/')?
                };
                Some(rest.split('/').next().unwrap_or(rest).to_owned())
            })
            .collect();
        names.dedup();
        names
    }
}

/// The directory of a root-relative path (`"."` for a file at the root).
pub fn parent(path: &str) -> &str {
    match path.rfind('/') {
        Some(i) => &path[..i],
        None => ".",
    }
}

/// The path of `name` in the root-relative directory `dir` (`.` for the root): the
/// counterpart of [`parent`].
pub fn child(dir: &str, name: &str) -> String {
    if dir == "." {
        name.to_owned()
    } else {
        format!("{dir}/{name}")
    }
}

/// Joins `rel` onto directory `dir` and normalizes `.` and `..`.
///
/// Returns `None` when the result would leave the root, or when `rel` is absolute:
/// adapters never follow a file outside the repository.
pub fn join(dir: &str, rel: &str) -> Option<String> {
    if rel.starts_with('/') || rel.starts_with('~') {
        return None;
    }
    let mut parts: Vec<&str> = if dir == "." || dir.is_empty() {
        Vec::new()
    } else {
        dir.split('/').collect()
    };
    for part in rel.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    if parts.is_empty() {
        Some(".".to_owned())
    } else {
        Some(parts.join("/"))
    }
}

/// The path from directory `from` to directory `to`, both root-relative and normalized
/// (`a/b`, `a/c` → `../c`; the same directory → `.`).
pub(crate) fn relative(from: &str, to: &str) -> String {
    fn parts(d: &str) -> Vec<&str> {
        if d == "." {
            Vec::new()
        } else {
            d.split('/').collect()
        }
    }
    let (from, to) = (parts(from), parts(to));
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut steps: Vec<&str> = vec![".."; from.len() - common];
    steps.extend(&to[common..]);
    if steps.is_empty() {
        ".".to_owned()
    } else {
        steps.join("/")
    }
}

/// The file name part of a root-relative path.
pub(crate) fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Where `path` stands: the name of its directory, its own name, and whether that directory
/// is below the root (not the root itself).
pub(crate) fn place(path: &str) -> (&str, &str, bool) {
    let dir = parent(path);
    (file_name(dir), file_name(path), dir != ".")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Parsed;
    use indoc::indoc;

    #[test]
    fn a_shared_parse_is_given_only_for_the_same_text_and_kind() {
        let shared = SharedParses::default();
        let mut parses = 0;
        let mut parse = |text: &str| {
            parses += 1;
            text.len()
        };
        let first = shared.get_or_parse("a.mk", "x = 1", || parse("x = 1"));
        let again = shared.get_or_parse("a.mk", "x = 1", || parse("x = 1"));
        assert!(Arc::ptr_eq(&first, &again));
        // Another text at the same path (the file changed between two views' reads).
        let changed = shared.get_or_parse("a.mk", "x = 22", || parse("x = 22"));
        assert_eq!(*changed, 6);
        // Another kind of parse of the same file is kept apart.
        let other: Arc<String> = shared.get_or_parse("a.mk", "x = 22", || "other".to_owned());
        assert_eq!(*other, "other");
        assert_eq!(*shared.get_or_parse("a.mk", "x = 22", || 0_usize), 6);
        assert_eq!(parses, 2);
    }

    #[test]
    fn shared_parses_keep_no_more_than_their_bounds() {
        let shared = SharedParses::default();
        let large = "x".repeat(SharedParses::MAX_FILE_BYTES + 1);
        let first = shared.get_or_parse("large.mk", &large, || 1_u8);
        assert!(!Arc::ptr_eq(
            &first,
            &shared.get_or_parse("large.mk", &large, || 1_u8)
        ));
        // Files that fit, until their text reaches the total bound.
        let each = "y".repeat(SharedParses::MAX_FILE_BYTES);
        let fit = SharedParses::MAX_TEXT_BYTES / each.len();
        for i in 0..fit {
            shared.get_or_parse(&format!("{i}.mk"), &each, || i);
        }
        let kept = shared.get_or_parse("0.mk", &each, || usize::MAX);
        assert_eq!(*kept, 0);
        let past = shared.get_or_parse("past.mk", &each, || 7_usize);
        assert!(!Arc::ptr_eq(
            &past,
            &shared.get_or_parse("past.mk", &each, || 7_usize)
        ));
        // A file kept again with another text takes the place of its first text.
        let small = shared.get_or_parse("0.mk", "z", || 9_usize);
        assert!(Arc::ptr_eq(
            &small,
            &shared.get_or_parse("0.mk", "z", || 9_usize)
        ));
    }

    /// A view that shares parses, as a scan's does.
    struct Sharing(MemFiles, SharedParses);

    impl Files for Sharing {
        fn read(&self, path: &str) -> Result<String, Unreadable> {
            self.0.read(path)
        }
        fn exists(&self, path: &str) -> bool {
            self.0.exists(path)
        }
        fn read_dir(&self, dir: &str) -> Vec<String> {
            self.0.read_dir(dir)
        }
        fn executable(&self, path: &str) -> bool {
            self.0.executable(path)
        }
        fn shared_parses(&self) -> Option<&SharedParses> {
            Some(&self.1)
        }
    }

    #[test]
    fn files_included_by_many_read_the_same_shared_or_not() {
        let files = MemFiles::new()
            .with(
                "build/common.mk",
                indoc! {"
                    ifeq ($(SERVICE),a)
                    only-a: ## Only in a
                    \techo a
                    endif
                    docker: ## Build the image of $(SERVICE)
                    \tdocker build -t $(SERVICE) .
                    broken line
                "},
            )
            .with("build/lint.mk", "lint: ## Lint\n\truff check\n")
            .with(
                "a/Makefile",
                "SERVICE := a\ninclude ../build/common.mk ../build/lint.mk\nown:\n\ttrue\n",
            )
            .with("b/Makefile", "SERVICE := b\ninclude ../build/common.mk\n")
            .with(
                "build/Docker.yml",
                "version: '3'\ntasks:\n  push:\n    cmds: [docker push]\n  bad: [\n",
            )
            .with(
                "a/Taskfile.yml",
                "version: '3'\nincludes:\n  docker: ../build/Docker.yml\n",
            )
            .with(
                "b/Taskfile.yml",
                "version: '3'\nincludes:\n  d:\n    taskfile: ../build/Docker.yml\n",
            );
        let sharing = Sharing(files.clone(), SharedParses::default());
        let parse = |adapter: &crate::Adapter, view: &dyn Files, path: &str| -> Parsed {
            crate::testing::parse_with(adapter.parse, view, path)
        };
        for (adapter, paths) in [
            (&crate::make::ADAPTER, ["a/Makefile", "b/Makefile"]),
            (
                &crate::taskfile::ADAPTER,
                ["a/Taskfile.yml", "b/Taskfile.yml"],
            ),
        ] {
            for path in paths {
                let alone = parse(adapter, &files, path);
                // Twice through the sharing view: the second takes the first's parse.
                for _ in 0..2 {
                    assert_eq!(parse(adapter, &sharing, path), alone, "{path}");
                }
            }
        }
        // The includers read differently what they share: each its own targets.
        let a = parse(&crate::make::ADAPTER, &sharing, "a/Makefile");
        let b = parse(&crate::make::ADAPTER, &sharing, "b/Makefile");
        assert!(a.tasks.iter().any(|t| t.source_name == "only-a"));
        assert!(a.tasks.iter().any(|t| t.source_name == "lint"));
        assert!(!b.tasks.iter().any(|t| t.source_name == "only-a"));
        assert!(!a.diagnostics.is_empty() && !b.diagnostics.is_empty());
    }

    #[test]
    fn join_normalizes_and_stays_inside() {
        assert_eq!(join(".", "a/b.mk").as_deref(), Some("a/b.mk"));
        assert_eq!(join("a/b", "../c.mk").as_deref(), Some("a/c.mk"));
        assert_eq!(join("a", "./x/./y").as_deref(), Some("a/x/y"));
        assert_eq!(join("a", "..").as_deref(), Some("."));
        assert_eq!(join(".", "../etc/passwd"), None);
        assert_eq!(join("a", "/etc/passwd"), None);
    }

    #[test]
    fn an_unreadable_file_words_its_owner_s_error_and_keeps_its_cause() {
        use std::error::Error as _;
        #[derive(Debug)]
        struct Refused(std::io::Error);
        impl std::fmt::Display for Refused {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("permission denied")
            }
        }
        impl std::error::Error for Refused {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let io = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let err = Unreadable::other(Refused(io));
        assert_eq!(err.to_string(), "permission denied");
        let cause = err
            .source()
            .and_then(|s| s.downcast_ref::<std::io::Error>());
        assert_eq!(
            cause.map(std::io::Error::kind),
            Some(std::io::ErrorKind::PermissionDenied)
        );
        assert_eq!(
            MemFiles::new().read("x").map_err(|e| e.to_string()),
            Err("no such file".to_owned())
        );
    }

    #[test]
    fn parent_of_root_file_is_root() {
        assert_eq!(parent("Makefile"), ".");
        assert_eq!(parent("apps/web/package.json"), "apps/web");
    }

    #[test]
    fn mem_files_lists_directories() {
        let files = MemFiles::new()
            .with("Makefile", "")
            .with("apps/web/package.json", "{}")
            .with("apps/api/Justfile", "");
        assert_eq!(files.read_dir("apps"), vec!["api", "web"]);
        assert_eq!(files.read_dir("."), vec!["Makefile", "apps"]);
        assert!(files.exists("apps/api/Justfile"));
        assert!(!files.exists("apps/api"));
    }
}
