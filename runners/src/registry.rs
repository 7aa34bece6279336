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
    crate::act::ADAPTER,
    crate::compose::ADAPTER,
    // Last: it takes any file at its places whose content says script, so every format
    // recognised by name comes first.
    crate::script::ADAPTER,
];

#[cfg(test)]
mod tests {
    use super::ADAPTERS;

    /// A file goes to the first adapter that claims it: formats known by content (scripts)
    /// take any file at their places, so every format known by name must come before them.
    #[test]
    fn formats_known_by_content_come_after_every_format_known_by_name() {
        let first_by_content = ADAPTERS.iter().position(|a| a.admit.is_some());
        let last_by_name = ADAPTERS.iter().rposition(|a| a.admit.is_none());
        assert!(
            first_by_content.is_none_or(|f| last_by_name.is_none_or(|l| l < f)),
            "{ADAPTERS:?}"
        );
    }
}
