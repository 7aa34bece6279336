//! Where a file a tool names is, relative to the repository root: tools print paths
//! relative to their own directory (gcc, eslint), to a workspace root (cargo), to a
//! package (`go test`), or absolute (pyright, node); the result says them from the root
//! whenever the file is inside it. Each distinct path costs at most a few `stat`s, once.

use crate::lock::MutexExt;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

/// The directories a run's paths are read against.
#[derive(Debug)]
pub struct Places {
    root: PathBuf,
    canonical_root: PathBuf,
    cwd: PathBuf,
    seen: Mutex<HashMap<(String, String), String>>,
    /// The module of the run's directory, once looked for (`None` inside: there is none).
    go_module: std::sync::OnceLock<Option<(String, PathBuf)>>,
}

/// Distinct paths resolved at most (then kept as printed): bounds the `stat`s a hostile
/// output can cause.
const MAX_RESOLVED: usize = 2_000;

impl Places {
    /// Paths of a run in `cwd`, inside the repository at `root`.
    pub fn new(root: &Path, cwd: &Path) -> Places {
        Places {
            root: root.to_path_buf(),
            canonical_root: std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf()),
            cwd: cwd.to_path_buf(),
            seen: Mutex::new(HashMap::new()),
            go_module: std::sync::OnceLock::new(),
        }
    }

    /// The run's directory.
    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// `printed` (as a tool printed it, relative to `base` or the run's directory, or
    /// absolute) from the root, when it is inside it; else as printed.
    pub fn file_in(&self, printed: &str, base: Option<&Path>) -> String {
        let printed = printed.strip_prefix("file://").unwrap_or(printed);
        let key = (
            printed.to_owned(),
            base.map(|b| b.to_string_lossy().into_owned())
                .unwrap_or_default(),
        );
        let mut seen = self.seen.locked();
        if let Some(known) = seen.get(&key) {
            return known.clone();
        }
        if seen.len() >= MAX_RESOLVED {
            return printed.to_owned();
        }
        let found = self.resolve(printed, base);
        seen.insert(key, found.clone());
        found
    }

    /// [`Places::file_in`] against the run's directory.
    pub fn file(&self, printed: &str) -> String {
        self.file_in(printed, None)
    }

    fn resolve(&self, printed: &str, base: Option<&Path>) -> String {
        let p = Path::new(printed);
        if p.is_absolute() {
            return self
                .under_root(&normal(p))
                .unwrap_or_else(|| printed.to_owned());
        }
        // The first directory, from the run's (or the given) one up to the root, where the
        // path names an existing file; cargo prints paths from its workspace root, which is
        // above a member's directory.
        let start = base.map_or_else(|| self.cwd.clone(), |b| self.cwd.join(b));
        let mut dir = Some(start.as_path());
        while let Some(d) = dir {
            let candidate = normal(&d.join(p));
            if candidate.is_file()
                && let Some(rel) = self.under_root(&candidate)
            {
                return rel;
            }
            if d == self.root || !d.starts_with(&self.root) {
                break;
            }
            dir = d.parent();
        }
        self.under_root(&normal(&start.join(p)))
            .unwrap_or_else(|| printed.to_owned())
    }

    fn under_root(&self, abs: &Path) -> Option<String> {
        let rel = abs
            .strip_prefix(&self.root)
            .or_else(|_| abs.strip_prefix(&self.canonical_root))
            .ok()?;
        let s = rel.to_string_lossy().into_owned();
        Some(if s.is_empty() { ".".to_owned() } else { s })
    }

    /// The directory of a Go package from its import path, read against the module of the
    /// run's directory (its `go.mod`, found at or above it): `example.com/shop/sum` in module
    /// `example.com/shop` is `sum`.
    pub fn go_package_dir(&self, import_path: &str) -> Option<PathBuf> {
        let (path, dir) = self
            .go_module
            .get_or_init(|| self.find_go_module())
            .clone()?;
        if import_path == path {
            return Some(dir);
        }
        let rest = import_path.strip_prefix(&path)?.strip_prefix('/')?;
        Some(dir.join(rest))
    }

    fn find_go_module(&self) -> Option<(String, PathBuf)> {
        let mut dir = Some(self.cwd.as_path());
        while let Some(d) = dir {
            if let Ok(bytes) = crate::repo_files::read_regular(&d.join("go.mod"), 1 << 20) {
                let text = String::from_utf8_lossy(&bytes);
                let module = text.lines().find_map(|l| {
                    l.trim()
                        .strip_prefix("module")
                        .map(|m| m.trim().trim_matches('"').to_owned())
                })?;
                return Some((module, d.to_path_buf()));
            }
            if d == self.root {
                break;
            }
            dir = d.parent();
        }
        None
    }
}

/// `p` with `.` and `..` resolved lexically.
fn normal(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_said_from_the_root_when_the_file_is_inside_it() {
        let dir = tempfile::tempdir().expect("tmp");
        let root = dir.path();
        std::fs::create_dir_all(root.join("crates/shop/src")).expect("mkdir");
        std::fs::write(root.join("crates/shop/src/lib.rs"), "").expect("write");
        std::fs::write(root.join("go.mod"), "module example.com/shop\n").expect("write");
        let places = Places::new(root, &root.join("crates/shop"));
        // cargo: from the workspace root, above the member's directory.
        assert_eq!(
            places.file("crates/shop/src/lib.rs"),
            "crates/shop/src/lib.rs"
        );
        // gcc, eslint: from the run's directory.
        assert_eq!(places.file("src/lib.rs"), "crates/shop/src/lib.rs");
        assert_eq!(places.file("./src/../src/lib.rs"), "crates/shop/src/lib.rs");
        // absolute, inside and outside.
        let abs = root.join("crates/shop/src/lib.rs");
        assert_eq!(
            places.file(&abs.to_string_lossy()),
            "crates/shop/src/lib.rs"
        );
        assert_eq!(places.file("/usr/include/stdio.h"), "/usr/include/stdio.h");
        assert_eq!(
            places.go_package_dir("example.com/shop/sum"),
            Some(root.join("sum"))
        );
    }
}
