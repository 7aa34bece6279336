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
    crate::jvm::MAVEN,
    crate::jvm::GRADLE,
    crate::deno::ADAPTER,
    crate::composer::ADAPTER,
    crate::js::TURBO,
    crate::js::NX_PROJECT,
    crate::mise::ADAPTER,
    crate::vscode::ADAPTER,
];
