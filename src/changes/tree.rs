//! Trees of the object database: the index against one (through the index's cache tree), or
//! two compared, skipping every subtree the two share. Each tree object's size is checked from its header before it
//! is inflated, depth and entry counts are bounded ([`super::MAX_TREE_DEPTH`],
//! [`super::MAX_TREE_ENTRIES`]).

use std::collections::HashMap;

use gix::ObjectId;
use gix::bstr::ByteSlice;
use gix::objs::tree::EntryMode;

use super::{ChangeError, MAX_TREE_BYTES, MAX_TREE_DEPTH, MAX_TREE_ENTRIES};

/// A tree's entries: (name, id, mode).
type Entries = Vec<(Vec<u8>, ObjectId, EntryMode)>;
/// Files of a tree by path, with id and mode.
type HeadFiles = HashMap<Vec<u8>, (ObjectId, EntryMode)>;
/// One name's entry on each side of a comparison.
type Sides = [Option<(ObjectId, EntryMode)>; 2];

/// The entries of the tree `id`, bounded.
fn entries(repo: &gix::Repository, id: ObjectId) -> Result<Entries, ChangeError> {
    if id == ObjectId::empty_tree(repo.object_hash()) {
        return Ok(Vec::new());
    }
    let unreadable = |reason: String| ChangeError::Read {
        what: format!("tree {id}"),
        reason,
    };
    let header = repo
        .find_header(id)
        .map_err(|e| unreadable(e.to_string()))?;
    if header.kind() != gix::objs::Kind::Tree {
        return Err(unreadable(format!("it is a {}, not a tree", header.kind())));
    }
    if header.size() > MAX_TREE_BYTES {
        return Err(ChangeError::TooLarge {
            what: format!("tree {id}"),
            size: header.size(),
            limit: MAX_TREE_BYTES,
        });
    }
    let object = repo
        .find_object(id)
        .map_err(|e| unreadable(e.to_string()))?;
    let mut out = Vec::new();
    for entry in gix::objs::TreeRefIter::from_bytes(&object.data, repo.object_hash()) {
        let entry = entry.map_err(|e| unreadable(e.to_string()))?;
        out.push((entry.filename.to_vec(), entry.oid.to_owned(), entry.mode));
    }
    Ok(out)
}

fn join(prefix: &[u8], name: &[u8]) -> Vec<u8> {
    if prefix.is_empty() {
        return name.to_vec();
    }
    let mut p = Vec::with_capacity(prefix.len() + 1 + name.len());
    p.extend_from_slice(prefix);
    p.push(b'/');
    p.extend_from_slice(name);
    p
}

/// Counts entries read against [`MAX_TREE_ENTRIES`].
struct Budget(usize);

impl Budget {
    fn take(&mut self, n: usize) -> Result<(), ChangeError> {
        self.0 += n;
        if self.0 > MAX_TREE_ENTRIES {
            return Err(ChangeError::TooLarge {
                what: "the trees compared".to_owned(),
                size: self.0 as u64,
                limit: MAX_TREE_ENTRIES as u64,
            });
        }
        Ok(())
    }
}

fn too_deep(depth: usize) -> Result<(), ChangeError> {
    if depth > MAX_TREE_DEPTH {
        return Err(ChangeError::TooLarge {
            what: "a tree's nesting".to_owned(),
            size: depth as u64,
            limit: MAX_TREE_DEPTH as u64,
        });
    }
    Ok(())
}

/// The paths whose index entry differs from `HEAD`'s tree `head` (staged additions, changes
/// and deletions, and conflicts).
///
/// Compared as git compares them, through the index's cache tree (its `TREE` extension): a
/// directory whose cached tree is still valid and is the very tree `HEAD` has there holds the
/// same entries in both, so neither is read. After a commit that is the whole index, and
/// only the directories on the way to what was staged since are read.
pub(super) fn staged(
    repo: &gix::Repository,
    index: &gix::index::State,
    head: ObjectId,
) -> Result<Vec<Vec<u8>>, ChangeError> {
    let (files, same) = head_files_outside_cached(repo, index, head)?;
    let mut out = Vec::new();
    let mut same = same.iter().peekable();
    let entries = index.entries();
    let mut at = 0;
    while at < entries.len() {
        while same.next_if(|range| range.end <= at).is_some() {}
        if let Some(range) = same.peek().filter(|range| range.start <= at) {
            at = range.end;
            continue;
        }
        let entry = &entries[at];
        at += 1;
        let path = entry.path(index);
        let same = entry.stage_raw() == 0
            && files.get(path.as_bytes()).is_some_and(|(id, mode)| {
                *id == entry.id && entry.mode.to_tree_entry_mode() == Some(*mode)
            });
        if !same {
            out.push(path.to_vec());
        }
    }
    for path in files.keys() {
        if index.entry_index_by_path(path.as_bstr()).is_err() {
            out.push(path.clone());
        }
    }
    Ok(out)
}

/// The files of `HEAD`'s tree `head` outside the directories the index's cache tree vouches
/// for, and the ranges of index entries in those directories (sorted).
fn head_files_outside_cached(
    repo: &gix::Repository,
    index: &gix::index::State,
    head: ObjectId,
) -> Result<(HeadFiles, Vec<std::ops::Range<usize>>), ChangeError> {
    let mut files = HashMap::new();
    let mut same = Vec::new();
    let mut budget = Budget(0);
    let mut stack = vec![(Vec::new(), head, index.tree(), 0usize)];
    while let Some((prefix, id, cached, depth)) = stack.pop() {
        if cached.is_some_and(|tree| tree.num_entries.is_some() && tree.id == id) {
            let range = if prefix.is_empty() {
                Some(0..index.entries().len())
            } else {
                let mut dir = prefix;
                dir.push(b'/');
                index.prefixed_entries_range(dir.as_bstr())
            };
            same.extend(range);
            continue;
        }
        too_deep(depth)?;
        let list = entries(repo, id)?;
        budget.take(list.len())?;
        let children: HashMap<&[u8], &gix::index::extension::Tree> = cached
            .map(|tree| {
                tree.children
                    .iter()
                    .map(|child| (child.name.as_slice(), child))
                    .collect()
            })
            .unwrap_or_default();
        for (name, oid, mode) in list {
            let path = join(&prefix, &name);
            if mode.is_tree() {
                let child = children.get(name.as_slice()).copied();
                stack.push((path, oid, child, depth + 1));
            } else {
                files.insert(path, (oid, mode));
            }
        }
    }
    same.sort_by_key(|range| range.start);
    Ok((files, same))
}

/// The paths of the files that differ between the trees `a` and `b` (added, removed or
/// changed in either), skipping the subtrees they share.
pub(super) fn diff(
    repo: &gix::Repository,
    a: ObjectId,
    b: ObjectId,
) -> Result<Vec<Vec<u8>>, ChangeError> {
    let mut out = Vec::new();
    let mut budget = Budget(0);
    // (path, the tree on each side, if any): a side without the tree has its files added or
    // removed wholesale.
    let mut stack = vec![(Vec::new(), Some(a), Some(b), 0usize)];
    while let Some((prefix, a, b, depth)) = stack.pop() {
        if a == b {
            continue;
        }
        too_deep(depth)?;
        let left = a
            .map(|id| entries(repo, id))
            .transpose()?
            .unwrap_or_default();
        let right = b
            .map(|id| entries(repo, id))
            .transpose()?
            .unwrap_or_default();
        budget.take(left.len() + right.len())?;
        let mut by_name: HashMap<&[u8], Sides> = HashMap::new();
        for (side, list) in [&left, &right].into_iter().enumerate() {
            for (name, id, mode) in list {
                by_name.entry(name.as_slice()).or_default()[side] = Some((*id, *mode));
            }
        }
        for (name, [l, r]) in by_name {
            if l == r {
                continue;
            }
            let path = join(&prefix, name);
            let tree_of =
                |e: Option<(ObjectId, EntryMode)>| e.filter(|(_, m)| m.is_tree()).map(|(id, _)| id);
            let (lt, rt) = (tree_of(l), tree_of(r));
            if lt.is_some() || rt.is_some() {
                stack.push((path.clone(), lt, rt, depth + 1));
            }
            // A file on either side that is not the same file on the other.
            let file = |e: Option<(ObjectId, EntryMode)>| e.filter(|(_, m)| !m.is_tree());
            if file(l).is_some() || file(r).is_some() {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}
