//! The read-only view of the repository that adapters may consult.
//!
//! Adapters receive a `&dyn Files` so they can follow includes and look for lockfiles
//! without doing I/O themselves; tests pass a [`MemFiles`], the `agg` crate passes the
//! real file system confined to the scan root.

use std::collections::BTreeMap;
use std::sync::Arc;

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

#[cfg(test)]
mod tests {
    use super::*;

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
