//! What changed in a repository, read with gitoxide (`gix`) and never by running `git`: the
//! files whose working-tree or index content differs from `HEAD`, the untracked files no
//! ignore rule excludes, and, given a ref, every file changed since the merge base of `HEAD`
//! and that ref.
//!
//! **Architecture Invariant: no command named in the repository runs.** A repository's own
//! configuration can make git run programs — `core.fsmonitor`, the `clean`, `smudge` and
//! `process` commands of filter drivers, hooks. The repository is opened in gix's isolated
//! mode (its local configuration only, no system or user configuration, never the `git`
//! binary), and agg uses only gix's readers — objects, refs, the index — never its status,
//! checkout or filter machinery: contents are compared by hashing each file as it is on disk,
//! as a blob, without clean filters or end-of-line conversion. So a file whose stored form
//! differs from its working form (Git LFS pointers, `text=auto` line endings) counts as
//! changed once its stat data no longer matches the index. `tests/changes.rs` plants each of
//! those commands and checks that none ran.
//!
//! **Bounded against a hostile repository**: an index file larger than [`MAX_INDEX_BYTES`] is
//! refused before it is read (and its decoding has an allocation limit), trees deeper than
//! [`MAX_TREE_DEPTH`] or holding more than [`MAX_TREE_ENTRIES`] entries are refused, a tree
//! object larger than [`MAX_TREE_BYTES`] is refused from its header before it is inflated,
//! files are hashed in chunks, and a file that is neither a regular file nor a symbolic link
//! is never opened (a FIFO cannot hang the read).
//!
//! The parts: [`tree`] (the index against `HEAD`'s tree, or two trees compared) and [`worktree`] (the index
//! against the files, and the untracked files, through the listing's own walk).

mod tree;
mod worktree;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use gix::bstr::ByteSlice;

/// The largest index file read (a repository of two million files has one of about 200 MB).
pub const MAX_INDEX_BYTES: u64 = 256 * 1024 * 1024;
/// The deepest tree followed.
pub const MAX_TREE_DEPTH: usize = 256;
/// The most entries read from the trees of one comparison.
pub const MAX_TREE_ENTRIES: usize = 5_000_000;
/// The largest tree object read.
pub const MAX_TREE_BYTES: u64 = 64 * 1024 * 1024;
/// The longest ref name accepted.
pub const MAX_REF_BYTES: usize = 1024;

/// What changed, relative to the root agg works on.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Changes {
    /// Changed files (root-relative, `/`-separated), sorted, each once: modified, added,
    /// deleted, renamed (both names), untracked.
    pub files: Vec<String>,
    /// What they were compared with: `HEAD`, or `main (merge base 3f9c2a1d)`.
    pub against: String,
}

/// Why the changes could not be read.
#[derive(Debug)]
pub enum ChangeError {
    /// No git repository holds the root.
    NotARepository {
        /// The root.
        root: PathBuf,
        /// What gix said.
        reason: String,
    },
    /// The repository has no working tree, or its working tree does not hold the root.
    Outside {
        /// The root.
        root: PathBuf,
        /// The working tree, if any.
        worktree: Option<PathBuf>,
    },
    /// The ref given does not name a commit.
    BadRef {
        /// The ref as given.
        name: String,
        /// Why.
        reason: String,
    },
    /// `HEAD` and the ref have no common ancestor.
    NoMergeBase {
        /// The ref as given.
        name: String,
    },
    /// Something of the repository is larger than agg reads.
    TooLarge {
        /// What (`the index`, `a tree`).
        what: String,
        /// Its size or count.
        size: u64,
        /// The bound.
        limit: u64,
    },
    /// Something of the repository could not be read.
    Read {
        /// What.
        what: String,
        /// Why.
        reason: String,
    },
}

impl std::fmt::Display for ChangeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ChangeError::NotARepository { root, reason } => write!(
                f,
                "{} is in no git repository, so agg cannot tell what changed ({reason})",
                root.display()
            ),
            ChangeError::Outside { root, worktree } => match worktree {
                Some(w) => write!(
                    f,
                    "the repository's working tree is {}, which does not hold {}",
                    w.display(),
                    root.display()
                ),
                None => write!(
                    f,
                    "the repository of {} has no working tree",
                    root.display()
                ),
            },
            ChangeError::BadRef { name, reason } => {
                write!(f, "`{name}` names no commit: {reason}")
            }
            ChangeError::NoMergeBase { name } => {
                write!(f, "HEAD and `{name}` have no common ancestor")
            }
            ChangeError::TooLarge { what, size, limit } => write!(
                f,
                "{what} is too large to read ({size}, more than agg reads: {limit})"
            ),
            ChangeError::Read { what, reason } => write!(f, "cannot read {what}: {reason}"),
        }
    }
}

impl std::error::Error for ChangeError {}

fn read_error(what: impl Into<String>) -> impl FnOnce(gix::Error) -> ChangeError {
    let what = what.into();
    move |err| ChangeError::Read {
        what,
        reason: err.to_string(),
    }
}

/// What changed in the repository holding `root`: the working tree and the index against
/// `HEAD` and untracked files, plus, with `since`, everything changed between the merge base
/// of `HEAD` and `since` and `HEAD`. Paths outside `root` are left out.
pub fn read(root: &Path, since: Option<&str>) -> Result<Changes, ChangeError> {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let repo = gix::discover_opts(
        &root,
        gix::discover::upwards::Options::default(),
        gix::open::Options::isolated(),
    )
    .map_err(|err| ChangeError::NotARepository {
        root: root.clone(),
        reason: err.to_string(),
    })?;
    let worktree = repo
        .workdir()
        .map(|w| std::fs::canonicalize(w).unwrap_or_else(|_| w.to_path_buf()));
    let prefix = match worktree.as_deref().map(|w| root.strip_prefix(w)) {
        Some(Ok(rest)) => rest.to_string_lossy().replace('\\', "/"),
        _ => {
            return Err(ChangeError::Outside { root, worktree });
        }
    };
    let worktree = worktree.unwrap_or_else(|| root.clone());
    let mut changed: BTreeSet<Vec<u8>> = BTreeSet::new();
    let index = worktree::index(&repo)?;
    let head_tree = repo
        .head_tree_id_or_empty()
        .map_err(read_error("HEAD"))?
        .detach();
    changed.extend(tree::staged(&repo, &index, head_tree)?);
    // The files against the index, then what no index entry names.
    changed.extend(worktree::modified(&repo, &index, &worktree));
    changed.extend(worktree::untracked(&root, &prefix, &index));
    let mut against = "HEAD".to_owned();
    if let Some(name) = since {
        let (base, files) = since_merge_base(&repo, name, head_tree)?;
        changed.extend(files);
        against = format!("{name} (merge base {})", &base.to_hex().to_string()[..8]);
    }
    let below = |p: &[u8]| -> Option<String> {
        let p = p.to_str_lossy();
        if prefix.is_empty() {
            return Some(p.into_owned());
        }
        p.strip_prefix(prefix.as_str())
            .and_then(|r| r.strip_prefix('/'))
            .map(str::to_owned)
    };
    Ok(Changes {
        files: changed.iter().filter_map(|p| below(p)).collect(),
        against,
    })
}

/// The merge base of `HEAD` and `name`, and the files that differ between its tree and
/// `HEAD`'s.
fn since_merge_base(
    repo: &gix::Repository,
    name: &str,
    head_tree: gix::ObjectId,
) -> Result<(gix::ObjectId, Vec<Vec<u8>>), ChangeError> {
    let bad = |reason: String| ChangeError::BadRef {
        name: name.to_owned(),
        reason,
    };
    if name.len() > MAX_REF_BYTES || name.starts_with('-') || name.trim().is_empty() {
        return Err(bad("not a ref name".to_owned()));
    }
    let other = repo
        .rev_parse_single(name)
        .map_err(|e| bad(e.to_string()))?
        .object()
        .map_err(|e| bad(e.to_string()))?
        .peel_to_commit()
        .map_err(|e| bad(e.to_string()))?
        .id;
    let head = repo
        .head_commit()
        .map_err(read_error("the commit of HEAD"))?
        .id;
    let base = repo
        .merge_base(head, other)
        .map_err(|e| bad(e.to_string()))?
        .ok_or_else(|| ChangeError::NoMergeBase {
            name: name.to_owned(),
        })?
        .detach();
    let base_tree = repo
        .find_commit(base)
        .map_err(read_error("the merge base"))?
        .tree_id()
        .map_err(read_error("the merge base's tree"))?
        .detach();
    let files = tree::diff(repo, base_tree, head_tree)?;
    Ok((base, files))
}
