//! One task file read again from disk at the moment agg decides whether an agent may run
//! one of its tasks. The watcher's table may lag behind an edit, or never see one (a hard
//! link edited from outside the repository, a directory removed and recreated, a symlink into
//! an ignored directory), so a decision never trusts it: it parses the file that listed the
//! task again and records every file the adapter read for it, with a sha256 of its bytes,
//! so a pin covers includes, imports and script bodies as well as the file itself.

use std::path::Path;
use std::sync::Mutex;

use agg_runners::{ADAPTERS, Files, Parsed, Purpose};

use super::candidate_of;
use super::listing::{parse_text, read_source};
use crate::lock::MutexExt;
use crate::repo_files::{RepoFiles, sha256_hex};

/// What a task file says now.
#[derive(Debug)]
pub struct Reread {
    /// The file's tasks and diagnostics, as a scan would find them.
    pub parsed: Parsed,
    /// Every file read to find them, the task file first: its root-relative path and the
    /// sha256 of its bytes (or `unreadable: …` with the reason).
    pub read: Vec<(String, String)>,
    /// A file beside it that the runner reads instead (a `GNUmakefile` beside the
    /// `Makefile` that was allowed).
    pub superseded_by: Option<String>,
}

/// Reads the task file `origin` (root-relative) of the repository at the absolute `root`
/// again. `None` when no adapter reads a file of that name.
pub fn reread(root: &Path, origin: &str) -> Option<Reread> {
    let (index, _) = candidate_of(origin)?;
    let adapter = &ADAPTERS[index];
    let files = RepoFiles::new(root);
    let recording = Recording {
        inner: &files,
        read: Mutex::new(Vec::new()),
    };
    let parsed = match read_source(adapter, origin, &files) {
        Ok((Some(text), _)) => {
            recording.record(origin, sha256_hex(text.text.as_bytes()));
            parse_text(adapter, origin, &text, &recording, Purpose::Decide)
        }
        Ok((None, _)) => Parsed::default(),
        Err(unreadable) => {
            recording.record(origin, "unreadable".to_owned());
            unreadable.0
        }
    };
    let superseded_by = if adapter.one_per_dir {
        preferred(&files, origin, index).filter(|best| best != origin)
    } else {
        None
    };
    let read = recording.read.unlocked();
    Some(Reread {
        parsed,
        read,
        superseded_by,
    })
}

/// The file of `adapter` that its runner reads in `origin`'s directory, looking at every
/// entry (ignore files do not hide a file from the runner).
fn preferred(files: &RepoFiles, origin: &str, adapter: usize) -> Option<String> {
    let dir = agg_runners::parent(origin);
    files
        .read_dir(dir)
        .into_iter()
        .map(|name| agg_runners::child(dir, &name))
        .filter_map(|rel| match candidate_of(&rel) {
            Some((a, rank)) if a == adapter && files.exists(&rel) => Some((rank, rel)),
            _ => None,
        })
        .min()
        .map(|(_, rel)| rel)
}

/// A view of the repository that remembers what was read through it.
struct Recording<'a> {
    inner: &'a RepoFiles<'a>,
    read: Mutex<Vec<(String, String)>>,
}

impl Recording<'_> {
    fn record(&self, path: &str, digest: String) {
        let mut read = self.read.locked();
        if !read.iter().any(|(p, _)| p == path) {
            read.push((path.to_owned(), digest));
        }
    }
}

impl Files for Recording<'_> {
    fn read(&self, path: &str) -> Result<String, agg_runners::Unreadable> {
        let text = self.inner.read(path);
        let digest = match &text {
            Ok(text) => sha256_hex(text.as_bytes()),
            Err(reason) => format!("unreadable: {reason}"),
        };
        self.record(path, digest);
        text
    }

    fn exists(&self, path: &str) -> bool {
        self.inner.exists(path)
    }

    fn read_dir(&self, dir: &str) -> Vec<String> {
        self.inner.read_dir(dir)
    }

    fn executable(&self, path: &str) -> bool {
        self.inner.executable(path)
    }

    fn siblings(&self, path: &str) -> Vec<String> {
        self.inner.siblings(path)
    }

    fn root_name(&self) -> Option<String> {
        self.inner.root_name()
    }
}
