//! From marks ("this tree allowed, that one not") to the allow-only rules Landlock takes.
//!
//! A Landlock rule on a directory grants its whole tree, and rules only ever add: there is
//! no "except". So a tree allowed with an exception inside (the home directory readable but
//! `~/.ssh` not; the XDG cache writable but agg's own cache in it not) is split along the
//! path to the exception: each directory on that path gets no rule of its own, and every
//! entry beside the path gets one, down to the exception, which gets none. The cost of
//! that: a directory on such a path cannot itself be listed (reads) or have entries made or
//! removed directly in it (writes), and an entry that appears in it after the run started
//! has no rule. The rules are taken from the directories as they are when the run starts.
//!
//! Symlinks are never followed: an entry that is a symlink gets no rule (a rule lands on
//! the inode a path resolves to, so a link in the repository to `~/.bashrc` must not carry
//! the repository's rule there); what it points to is decided where that really is.

use std::fs;
use std::path::{Path, PathBuf};

use super::layout::Mark;

/// The most rules one class of access may need; past it, the run is refused rather than
/// sandboxed partly or slowly (a directory with a huge number of entries on a split path).
pub const MAX_RULES: usize = 20_000;

/// Why the rules could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooMany {
    /// The directory whose entries went past the bound.
    pub dir: PathBuf,
}

/// The paths to grant one class of access on, so that exactly what `marks` allows is
/// allowed (as of now): whole trees where nothing inside differs, entries one by one
/// beside each exception.
pub fn grants(marks: &[Mark]) -> Result<Vec<PathBuf>, TooMany> {
    grants_within(marks, MAX_RULES)
}

/// [`grants`], refused past `max` rules.
fn grants_within(marks: &[Mark], max: usize) -> Result<Vec<PathBuf>, TooMany> {
    let mut out = Vec::new();
    let root = Path::new("/");
    let on = marks.iter().find(|m| m.path == root).is_some_and(|m| m.on);
    emit(root, on, marks, &mut out, max)?;
    Ok(out)
}

fn emit(
    dir: &Path,
    on: bool,
    marks: &[Mark],
    out: &mut Vec<PathBuf>,
    max: usize,
) -> Result<(), TooMany> {
    let below: Vec<&Mark> = marks
        .iter()
        .filter(|m| m.path != dir && m.path.starts_with(dir))
        .collect();
    if below.iter().all(|m| m.on == on) {
        if on {
            push(out, dir.to_path_buf(), max)?;
        }
        return Ok(());
    }
    if on {
        // An exception inside an allowed tree: every entry but the way to it.
        let Ok(entries) = fs::read_dir(dir) else {
            return Ok(());
        };
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_symlink()) {
                continue;
            }
            let child = dir.join(entry.file_name());
            let state = marks.iter().find(|m| m.path == child).map_or(on, |m| m.on);
            emit(&child, state, marks, out, max)?;
            if out.len() > max {
                return Err(TooMany {
                    dir: dir.to_path_buf(),
                });
            }
        }
    } else {
        // Nothing allowed here: go only where a mark inside allows something.
        let mut next: Vec<PathBuf> = below
            .iter()
            .filter(|m| m.on)
            .filter_map(|m| {
                let rest = m.path.strip_prefix(dir).ok()?;
                Some(dir.join(rest.components().next()?))
            })
            .collect();
        next.sort();
        next.dedup();
        for child in next {
            if fs::symlink_metadata(&child).map_or(true, |m| m.file_type().is_symlink()) {
                continue;
            }
            let state = marks.iter().find(|m| m.path == child).is_some_and(|m| m.on);
            emit(&child, state, marks, out, max)?;
        }
    }
    Ok(())
}

fn push(out: &mut Vec<PathBuf>, path: PathBuf, max: usize) -> Result<(), TooMany> {
    if out.len() >= max {
        // The directory whose entries went past the bound.
        let dir = path
            .parent()
            .map_or_else(|| path.clone(), Path::to_path_buf);
        return Err(TooMany { dir });
    }
    out.push(path);
    Ok(())
}

/// What a run was granted, as rules: whether a path it could not write was outside
/// the policy (see [`super::denied`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Grants {
    /// The trees it may read.
    pub read: Vec<PathBuf>,
    /// The trees it may write.
    pub write: Vec<PathBuf>,
}

impl Grants {
    /// Whether a rule lets the run read `path`.
    pub fn may_read(&self, path: &Path) -> bool {
        self.read.iter().any(|g| path.starts_with(g))
    }

    /// Whether a rule lets the run write `path`.
    pub fn may_write(&self, path: &Path) -> bool {
        self.write.iter().any(|g| path.starts_with(g))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(path: &Path, on: bool) -> Mark {
        Mark {
            path: path.to_path_buf(),
            on,
        }
    }

    #[test]
    fn a_split_directory_past_the_bound_is_refused_not_sandboxed_partly() {
        let dir = tempfile::tempdir().expect("dir");
        let t = std::fs::canonicalize(dir.path()).expect("real");
        for i in 0..12 {
            std::fs::write(t.join(format!("f{i}")), "").expect("write");
        }
        std::fs::create_dir(t.join("secret")).expect("mkdir");
        let marks = [
            mark(Path::new("/"), false),
            mark(&t, true),
            mark(&t.join("secret"), false),
        ];
        assert_eq!(grants_within(&marks, 20).map(|g| g.len()), Ok(12));
        assert_eq!(grants_within(&marks, 10), Err(TooMany { dir: t.clone() }));
    }

    /// A home with a secret, agg's cache in the cache dir, a link out of the repository.
    #[test]
    fn exceptions_split_their_tree_and_links_get_nothing() {
        let dir = tempfile::tempdir().expect("dir");
        let t = std::fs::canonicalize(dir.path()).expect("real");
        for d in [
            "home/.ssh",
            "home/.cache/agg",
            "home/.cache/pip",
            "home/docs",
            "repo/src",
        ] {
            std::fs::create_dir_all(t.join(d)).expect("mkdir");
        }
        std::fs::write(t.join("home/.bashrc"), "x").expect("write");
        std::os::unix::fs::symlink(t.join("home/.ssh"), t.join("home/keys")).expect("link");
        std::os::unix::fs::symlink(t.join("home/.bashrc"), t.join("repo/rc")).expect("link");
        let read = [
            mark(Path::new("/"), false),
            mark(&t, true),
            mark(&t.join("home/.ssh"), false),
        ];
        let mut got = grants(&read).expect("grants");
        got.sort();
        let mut want: Vec<PathBuf> = ["home/.bashrc", "home/.cache", "home/docs", "repo"]
            .iter()
            .map(|p| t.join(p))
            .collect();
        want.sort();
        assert_eq!(got, want, "the link to .ssh and .ssh itself get nothing");

        let write = [
            mark(Path::new("/"), false),
            mark(&t.join("repo"), true),
            mark(&t.join("home/.cache"), true),
            mark(&t.join("home/.cache/agg"), false),
            mark(&t.join("nowhere/missing"), true),
        ];
        let mut got = grants(&write).expect("grants");
        got.sort();
        assert_eq!(got, vec![t.join("home/.cache/pip"), t.join("repo")]);
        let g = Grants {
            read: Vec::new(),
            write: got,
        };
        assert!(g.may_write(&t.join("repo/rc")));
        assert!(!g.may_write(&t.join("home/.cache/agg/history")));
        assert!(!g.may_write(&t.join("home/.cache/new")));
    }
}
