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
    crate::cmake::ADAPTER,
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

/// Extensions of source and asset files, which no format reads by name: a file with one of
/// them, outside a script directory and below the root, is no adapter's candidate. Most
/// files of a repository are of these kinds, and turning them away with one test saves asking
/// every adapter in turn.
const NEVER_TASK_FILES: [&str; 22] = [
    "ts", "tsx", "js", "jsx", "mjs", "cjs", "go", "rs", "c", "h", "cc", "cpp", "java", "kt", "svg",
    "png", "jpg", "gif", "css", "scss", "sql", "proto",
];

/// Whether `path` is surely no adapter's candidate (see [`NEVER_TASK_FILES`]); `false` means
/// the adapters must be asked.
pub fn surely_not_a_task_file(path: &str) -> bool {
    let Some((dir, name)) = path.rsplit_once('/') else {
        // A file of the root may be a script whatever its name.
        return false;
    };
    let dir_name = dir.rsplit('/').next().unwrap_or(dir);
    !crate::script::SCRIPT_DIRS.contains(&dir_name)
        && name
            .rsplit_once('.')
            .is_some_and(|(stem, ext)| !stem.is_empty() && NEVER_TASK_FILES.contains(&ext))
}

#[cfg(test)]
mod tests {
    use super::{ADAPTERS, surely_not_a_task_file};

    /// A file goes to the first adapter that claims it: formats known by content (scripts)
    /// take any file at their places, so every format known by name must come before them.
    /// The shortcut turns away only paths every adapter turns away.
    #[test]
    fn the_shortcut_agrees_with_every_adapter() {
        let dirs = [
            "",
            "a/",
            "a/b/",
            "scripts/",
            "bin/",
            "app/.vscode/",
            ".github/workflows/",
        ];
        let names = [
            "index.ts",
            "main.go",
            "lib.rs",
            "x.java",
            "gen.ts",
            "deploy.js",
            "style.css",
            "noxfile.py",
            "Makefile",
            "package.json",
            "justfile",
            "Taskfile.yml",
            "tasks.json",
            "ci.yml",
            "build.gradle.kts",
            "CMakeLists.txt",
            "CMakePresets.json",
            "pom.xml",
            "mise.toml",
            "deno.json",
            "a.svg",
            "b.sql",
        ];
        for dir in dirs {
            for name in names {
                let path = format!("{dir}{name}");
                if surely_not_a_task_file(&path) {
                    for adapter in ADAPTERS {
                        assert_eq!((adapter.candidate)(&path), None, "{path} {adapter:?}");
                    }
                }
            }
        }
        assert!(surely_not_a_task_file("src/index.ts"));
        assert!(!surely_not_a_task_file("scripts/gen.ts"));
        assert!(!surely_not_a_task_file("gen.ts"));
    }

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
