//! The one list of adapters. Adding a runner is one new module plus one entry in
//! [`ADAPTERS`].

use crate::{Files, Parsed};

/// One task file handed to an adapter.
pub struct Source<'a> {
    /// The file, relative to the root, `/`-separated.
    pub path: &'a str,
    /// Its text (already decoded; undecodable bytes were replaced and reported).
    pub text: &'a str,
    /// Read-only access to the rest of the repository, for includes and lockfiles.
    pub files: &'a dyn Files,
}

/// A task-file format agg understands.
pub struct Adapter {
    /// Short name of the format, used in diagnostics and docs (`make`, `package.json`, …).
    pub name: &'static str,
    /// Given a root-relative path, its rank among this format's candidate files in one
    /// directory (lower wins), or `None` when the file is not of this format.
    pub candidate: fn(path: &str) -> Option<u8>,
    /// When true, only the best-ranked candidate in each directory is parsed, the way
    /// `make` picks `GNUmakefile` over `Makefile`.
    pub one_per_dir: bool,
    /// Parses one file.
    pub parse: fn(&Source<'_>) -> Parsed,
}

impl std::fmt::Debug for Adapter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Adapter")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

/// Every adapter agg runs over a repository.
pub static ADAPTERS: &[Adapter] = &[
    crate::make::ADAPTER,
    crate::package_json::ADAPTER,
    crate::cargo::ADAPTER,
    crate::just::ADAPTER,
    crate::taskfile::ADAPTER,
    crate::xc::ADAPTER,
    crate::python::PYPROJECT,
    crate::python::POE_TASKS,
    crate::python::HATCH_TOML,
    crate::python::TOX,
    crate::python::NOX,
];

/// The file name part of a root-relative path.
pub(crate) fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}
