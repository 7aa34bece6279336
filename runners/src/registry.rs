//! The one list of adapters: every task-file format agg reads, in the order they run.
//! Adding a runner is one adapter module, one [`crate::DESCRIPTORS`] row and one entry
//! here.

use crate::Adapter;

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
    crate::act::ADAPTER,
    crate::compose::ADAPTER,
    // Last: it takes any file at its places whose content says script, so every format
    // recognised by name comes first.
    crate::script::ADAPTER,
];
