//! The one list of adapters: every task-file format agg reads, in the order they run.
//! Adding a runner is one adapter module, one [`crate::model::DESCRIPTORS`] row and one entry
//! here.

use crate::model::Adapter;

/// Every adapter agg runs over a repository.
pub static ADAPTERS: &[Adapter] = &[
    crate::make::ADAPTER,
    crate::js::package_json::ADAPTER,
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
    crate::jscode::GULP,
    crate::jscode::GRUNT,
    crate::mage::ADAPTER,
    crate::zed::ADAPTER,
    crate::jetbrains::ADAPTER,
    crate::rake::ADAPTER,
    crate::invoke::ADAPTER,
    crate::procfile::ADAPTER,
    crate::cargo_make::ADAPTER,
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
    if !name
        .rsplit_once('.')
        .is_some_and(|(stem, ext)| !stem.is_empty() && NEVER_TASK_FILES.contains(&ext))
    {
        return false;
    }
    let dir_name = dir.rsplit('/').next().unwrap_or(dir);
    !crate::script::SCRIPT_DIRS.contains(&dir_name)
        // Build files written in a source language: gulpfiles, Gruntfiles, magefiles.
        && !crate::jscode::is_build_file(dir_name, name)
        && !crate::mage::is_magefile(dir_name, name)
}

#[cfg(test)]
mod tests {
    use super::{ADAPTERS, surely_not_a_task_file};
    use indoc::indoc;

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
            "gulpfile.js",
            "gulpfile.ts",
            "gulpfile.js/index.js",
            "Gruntfile.js",
            "magefile.go",
            "magefiles/build.go",
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

    /// Each manifest that names its package names every task it brings; a manifest
    /// without a name names none.
    #[test]
    fn every_manifest_names_the_package_of_its_tasks() {
        use crate::{MemFiles, testing::parse_with};
        let files: MemFiles = [
            (
                "web/package.json",
                r#"{"name": "@acme/web", "scripts": {"build": "vite"}}"#,
            ),
            ("anon/package.json", r#"{"scripts": {"build": "vite"}}"#),
            (
                "py/pyproject.toml",
                indoc! {"
                    [project]
                    name = \"svc\"
                    [tool.poe.tasks]
                    fmt = \"ruff format\"
                "},
            ),
            (
                "old/pyproject.toml",
                indoc! {"
                    [tool.poetry]
                    name = \"legacy\"
                    [tool.poetry.scripts]
                    serve = \"legacy.cli:main\"
                "},
            ),
            (
                "rs/.cargo/config.toml",
                "[alias]\nxtask = \"run -p xtask\"\n",
            ),
            ("rs/Cargo.toml", "[package]\nname = \"tool\"\n"),
            (
                "java/pom.xml",
                "<project><artifactId>shop</artifactId><name>The shop</name></project>",
            ),
            (
                "gradle/settings.gradle",
                "rootProject.name = 'store'\ninclude 'core'\n",
            ),
            ("gradle/build.gradle", "plugins { id 'base' }\n"),
            ("gradle/core/build.gradle", "plugins { id 'java' }\n"),
            (
                "php/composer.json",
                r#"{"name": "acme/site", "scripts": {"test": "phpunit"}}"#,
            ),
            (
                "deno/deno.json",
                r#"{"name": "@acme/tool", "tasks": {"dev": "deno run main.ts"}}"#,
            ),
        ]
        .into_iter()
        .collect();
        let packages = |path: &str| {
            let adapter = ADAPTERS
                .iter()
                .find(|a| (a.candidate)(path).is_some())
                .unwrap_or_else(|| panic!("no adapter for {path}"));
            let parsed = parse_with(adapter.parse, &files, path);
            assert!(!parsed.tasks.is_empty(), "{path}: {:?}", parsed.diagnostics);
            let mut packages: Vec<(String, Option<String>)> = parsed
                .tasks
                .iter()
                .map(|t| (t.source_name.clone(), t.package.clone()))
                .collect();
            packages.dedup_by(|a, b| a.1 == b.1 && a.0.contains(':') == b.0.contains(':'));
            packages
                .into_iter()
                .map(|(name, package)| (name.contains(':'), package))
                .collect::<Vec<_>>()
        };
        let one = |package: &str| vec![(false, Some(package.to_owned()))];
        assert_eq!(packages("web/package.json"), one("@acme/web"));
        assert_eq!(packages("anon/package.json"), [(false, None)]);
        assert_eq!(packages("py/pyproject.toml"), one("svc"));
        assert_eq!(packages("old/pyproject.toml"), one("legacy"));
        assert_eq!(packages("rs/.cargo/config.toml"), one("tool"));
        assert_eq!(packages("java/pom.xml"), one("shop"));
        assert_eq!(
            packages("gradle/settings.gradle"),
            [
                (false, Some("store".to_owned())),
                (true, Some("core".to_owned()))
            ]
        );
        assert_eq!(packages("php/composer.json"), one("acme/site"));
        assert_eq!(packages("deno/deno.json"), one("@acme/tool"));
    }

    /// A change to a marker file means reading again the files of the formats that read it,
    /// and only those: the package manager's lockfiles for every JS format, a uv or Poetry
    /// lockfile for pyproject, `pyproject.toml` for `tox.toml` (which yields to `[tool.tox]`)
    /// but not for `tox.ini`.
    #[test]
    fn neighbours_are_named_by_the_formats_that_read_them() {
        let reads = |path: &str, name: &str| {
            ADAPTERS
                .iter()
                .find(|a| (a.candidate)(path).is_some())
                .is_some_and(|a| a.reads_neighbour(name) && a.reads_neighbours(path))
        };
        for (path, name) in [
            ("web/package.json", "pnpm-lock.yaml"),
            ("web/package.json", "npm-shrinkwrap.json"),
            ("web/package.json", "bun.lockb"),
            ("apps/web/project.json", "nx.json"),
            ("apps/web/turbo.json", "package.json"),
            ("py/pyproject.toml", "uv.lock"),
            ("py/pyproject.toml", "poetry.lock"),
            ("py/poe_tasks.yaml", "pyproject.toml"),
            ("py/tox.toml", "pyproject.toml"),
        ] {
            assert!(reads(path, name), "{path} should read {name}");
        }
        for (path, name) in [
            ("py/tox.ini", "pyproject.toml"),
            ("py/hatch.toml", "uv.lock"),
            ("Makefile", "package.json"),
            ("web/package.json", "uv.lock"),
        ] {
            assert!(!reads(path, name), "{path} should not read {name}");
        }
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
