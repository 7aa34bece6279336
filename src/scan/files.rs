//! Every file of a tree as the listing's walk sees it (the same directories entered, the same
//! ignore rules read the same bounded way), for a reader that needs more than task files:
//! the untracked files of a working tree ([`crate::changes`]).

use std::path::Path;
use std::sync::Arc;

use ignore::WalkState;

use super::ignores::Ignores;
use super::walk::{relative, walk_builder};

/// Calls `visit` with the root-relative path of every file under `root` (symbolic links
/// included, never followed), on the walk's threads, and a function that says whether the
/// ignore rules admit it: asking costs a match, so a reader asks only about the files it
/// cares about. Directories the rules exclude are not entered, as in a listing.
pub fn each_file(root: &Path, visit: &(dyn Fn(&str, &dyn Fn() -> bool) + Sync)) {
    let ignores = Arc::new(Ignores::new(root, root, None));
    walk_builder(root, &ignores, None).build_parallel().run(|| {
        let ignores = Arc::clone(&ignores);
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if entry.file_type().is_none_or(|t| t.is_dir()) {
                return WalkState::Continue;
            }
            if let Some(rel) = relative(root, entry.path()).and_then(Path::to_str)
                && !rel.is_empty()
            {
                visit(rel, &|| ignores.admits(&entry));
            }
            WalkState::Continue
        })
    });
}
