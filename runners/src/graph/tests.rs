//! The graph of small repositories held in memory, one ecosystem per case, each read the way
//! its tool reads it.

use super::*;
use crate::files::MemFiles;
use indoc::indoc;

/// The graph of `files` (every file is offered as a manifest when its name is one).
fn graph(files: &[(&str, &str)]) -> Graph {
    let mut mem = MemFiles::new();
    let mut manifests = Vec::new();
    for (path, text) in files {
        mem = mem.with(path, text);
        if is_manifest(path) {
            manifests.push((*path).to_owned());
        }
    }
    read(&mem, &manifests)
}

/// Every dependency as `from -> to (kind)`, sorted.
fn edges(g: &Graph) -> Vec<String> {
    let mut out: Vec<String> = g
        .packages
        .iter()
        .flat_map(|p| {
            p.deps
                .iter()
                .map(move |d| format!("{} -> {} ({})", p.name, g.name(d.to), d.kind))
        })
        .collect();
    out.sort();
    out
}

fn names(g: &Graph, ecosystem: Ecosystem) -> Vec<&str> {
    g.packages
        .iter()
        .filter(|p| p.ecosystem == ecosystem)
        .map(|p| p.name.as_str())
        .collect()
}

#[test]
fn pnpm_links_workspace_ranges_only_unless_told_to_link_by_name() {
    let files = [
        (
            "pnpm-workspace.yaml",
            indoc! {"
                packages:
                  - 'packages/*'
                  - '!packages/legacy'
            "},
        ),
        ("pnpm-lock.yaml", "lockfileVersion: '9.0'\n"),
        (
            "package.json",
            r#"{"name": "root", "private": true, "devDependencies": {"@acme/tools": "workspace:*"}}"#,
        ),
        (
            "packages/core/package.json",
            r#"{"name": "@acme/core", "version": "1.2.0"}"#,
        ),
        (
            "packages/ui/package.json",
            r#"{"name": "@acme/ui", "version": "1.0.0", "dependencies": {"@acme/core": "workspace:^"}, "peerDependencies": {"react": "^18"}}"#,
        ),
        (
            "packages/web/package.json",
            r#"{"name": "@acme/web", "dependencies": {"@acme/ui": "workspace:*", "@acme/core": "^1.0.0", "tools": "workspace:@acme/tools@*"}, "optionalDependencies": {"@acme/legacy": "*"}}"#,
        ),
        (
            "packages/tools/package.json",
            r#"{"name": "@acme/tools", "devDependencies": {"@acme/core": "file:../core"}}"#,
        ),
        (
            "packages/legacy/package.json",
            r#"{"name": "@acme/legacy"}"#,
        ),
    ];
    let g = graph(&files);
    assert_eq!(
        edges(&g),
        [
            "@acme/tools -> @acme/core (devDependencies)",
            "@acme/ui -> @acme/core (dependencies)",
            "@acme/web -> @acme/tools (dependencies)",
            "@acme/web -> @acme/ui (dependencies)",
            "root -> @acme/tools (devDependencies)",
        ]
    );
    let ws = &g.workspaces[0];
    assert_eq!((ws.tool, ws.dir.as_str()), ("pnpm", "."));
    assert_eq!(
        ws.shared,
        ["package.json", "pnpm-workspace.yaml", "pnpm-lock.yaml"]
    );
    assert_eq!(
        ws.members.len(),
        5,
        "the root and four packages, not the excluded one"
    );
    // With linking by name, a satisfied range links too.
    let mut linked = files.to_vec();
    linked.push((".npmrc", "link-workspace-packages=true\n"));
    assert!(edges(&graph(&linked)).contains(&"@acme/web -> @acme/core (dependencies)".to_owned()));
}

#[test]
fn npm_yarn_and_bun_link_by_name_when_the_version_fits() {
    for (lockfile, tool) in [
        ("package-lock.json", "npm"),
        ("yarn.lock", "yarn"),
        ("bun.lock", "bun"),
    ] {
        let g = graph(&[
            (
                "package.json",
                r#"{"name": "root", "workspaces": {"packages": ["apps/*", "libs/*"]}}"#,
            ),
            (lockfile, ""),
            (
                "libs/core/package.json",
                r#"{"name": "core", "version": "2.0.0"}"#,
            ),
            (
                "libs/old/package.json",
                r#"{"name": "old", "version": "1.0.0"}"#,
            ),
            (
                "apps/web/package.json",
                r#"{"name": "web", "dependencies": {"core": "^2.1.0 || 2.0.0", "old": "^2.0.0", "lodash": "^4"}, "devDependencies": {"core": "github:acme/core"}}"#,
            ),
            ("apps/web/src/package.json", r#"{"type": "module"}"#),
        ]);
        assert_eq!(edges(&g), ["web -> core (dependencies)"], "{tool}");
        assert_eq!(g.workspaces[0].tool, tool);
        assert_eq!(
            names(&g, Ecosystem::Npm),
            ["root", "web", "core", "old"],
            "{tool}"
        );
    }
}

#[test]
fn a_workspace_dependency_on_no_member_is_a_diagnostic() {
    let g = graph(&[
        ("pnpm-workspace.yaml", "packages: [apps/*]\n"),
        (
            "apps/a/package.json",
            indoc! {"
                {
                  \"name\": \"a\",
                  \"dependencies\": {\"gone\": \"workspace:*\"}
                }
            "},
        ),
        ("apps/b/package.json", "{ not json"),
    ]);
    assert!(edges(&g).is_empty());
    let messages: Vec<String> = g
        .diagnostics
        .iter()
        .map(|d| format!("{}:{:?}: {}", d.file_path, d.line, d.message))
        .collect();
    assert_eq!(messages.len(), 2, "{messages:#?}");
    assert!(
        messages[0].starts_with("apps/a/package.json:Some(3): `gone` is `workspace:*`"),
        "{messages:#?}"
    );
    assert!(
        messages[1].starts_with("apps/b/package.json"),
        "{messages:#?}"
    );
}

#[test]
fn cargo_workspaces_follow_members_paths_and_inherited_paths() {
    let g = graph(&[
        (
            "rust/Cargo.toml",
            indoc! {"
                [workspace]
                members = [\"crates/*\", \"app\"]
                exclude = [\"crates/scratch\"]
                [workspace.dependencies]
                core = { path = \"crates/core\", version = \"0.1\" }
                serde = \"1\"
            "},
        ),
        ("rust/Cargo.lock", ""),
        (
            "rust/crates/core/Cargo.toml",
            indoc! {"
                [package]
                name = \"core\"
                version = \"0.1.0\"
            "},
        ),
        (
            "rust/crates/util/Cargo.toml",
            indoc! {"
                [package]
                name = \"util\"
                [dependencies]
                core.workspace = true
                serde.workspace = true
            "},
        ),
        (
            "rust/crates/scratch/Cargo.toml",
            "[package]\nname = \"scratch\"\n",
        ),
        (
            "rust/app/Cargo.toml",
            indoc! {"
                [package]
                name = \"app\"
                [dependencies]
                util = { path = \"../crates/util\" }
                [dev-dependencies]
                helpers = { path = \"../helpers\" }
                [target.'cfg(unix)'.build-dependencies]
                core = { path = \"../crates/core\" }
            "},
        ),
        ("rust/helpers/Cargo.toml", "[package]\nname = \"helpers\"\n"),
    ]);
    assert_eq!(
        edges(&g),
        [
            "app -> core (build-dependencies)",
            "app -> helpers (dev-dependencies)",
            "app -> util (dependencies)",
            "util -> core (dependencies)",
        ]
    );
    let ws = &g.workspaces[0];
    let members: Vec<&str> = ws.members.iter().map(|&m| g.name(m)).collect();
    assert_eq!(
        members,
        ["app", "core", "util", "helpers"],
        "a path dependency inside the workspace is a member"
    );
    assert_eq!(ws.shared, ["rust/Cargo.toml", "rust/Cargo.lock"]);
}

#[test]
fn uv_resolves_members_through_sources_only() {
    let g = graph(&[
        (
            "pyproject.toml",
            indoc! {"
                [project]
                name = \"shop\"
                dependencies = [\"Shop-Core\", \"requests\"]
                [tool.uv.sources]
                shop-core = { workspace = true }
                [tool.uv.workspace]
                members = [\"libs/*\"]
            "},
        ),
        (
            "libs/core/pyproject.toml",
            "[project]\nname = \"shop_core\"\n",
        ),
        (
            "libs/api/pyproject.toml",
            indoc! {"
                [project]
                name = \"shop-api\"
                dependencies = [\"shop-core>=0.1\"]
                [dependency-groups]
                dev = [\"shop-tools\"]
                [tool.uv.sources]
                shop-tools = { path = \"../../tools\" }
            "},
        ),
        (
            "libs/cli/pyproject.toml",
            indoc! {"
                [project]
                name = \"shop-cli\"
                dependencies = [\"shop-api\"]
            "},
        ),
        (
            "tools/pyproject.toml",
            indoc! {"
                [project]
                name = \"shop-tools\"
                [tool.pdm.dev-dependencies]
                dev = [\"-e file:///${PROJECT_ROOT}/../libs/core#egg=shop-core\"]
            "},
        ),
        (
            "legacy/pyproject.toml",
            indoc! {"
                [tool.poetry]
                name = \"legacy\"
                [tool.poetry.dependencies]
                shop-cli = { path = \"../libs/cli\", develop = true }
            "},
        ),
    ]);
    assert_eq!(
        edges(&g),
        [
            "legacy -> shop-cli (path)",
            "shop -> shop-core (dependencies)",
            // The workspace root's sources apply to every member.
            "shop-api -> shop-core (dependencies)",
            "shop-api -> shop-tools (dependency-groups)",
            "shop-tools -> shop-core (dev-dependencies)",
        ]
    );
    assert_eq!(g.workspaces[0].tool, "uv");
}

#[test]
fn go_modules_depend_through_replace_and_go_work() {
    let g = graph(&[
        (
            "go.work",
            indoc! {"
                go 1.22

                use (
                \t./svc/api
                \t./lib/core
                )
            "},
        ),
        (
            "svc/api/go.mod",
            indoc! {"
                module example.com/api

                require example.com/core v0.0.0
                require example.com/util v0.0.0
            "},
        ),
        ("lib/core/go.mod", "module example.com/core\n"),
        (
            "tools/go.mod",
            indoc! {"
                module example.com/tools

                require example.com/util v1.0.0
                replace example.com/util => ../lib/util
            "},
        ),
        ("lib/util/go.mod", "module example.com/util\n"),
        (
            "other/go.mod",
            indoc! {"
                module example.com/other

                require example.com/core v1.0.0
            "},
        ),
    ]);
    assert_eq!(
        edges(&g),
        [
            "example.com/api -> example.com/core (go.work)",
            "example.com/tools -> example.com/util (replace)",
        ],
        "a module outside the workspace, without a replace, gets `core` from the proxy"
    );
}

#[test]
fn maven_reactors_order_by_dependencies_plugins_and_parents() {
    let pom = |artifact: &str, body: &str| {
        format!(
            "<project><modelVersion>4.0.0</modelVersion><groupId>com.acme</groupId><artifactId>{artifact}</artifactId><version>1.0</version>{body}</project>"
        )
    };
    let root = pom(
        "root",
        "<packaging>pom</packaging><modules><module>core</module><module>web</module><module>tools/plugin</module></modules>",
    );
    let core = pom(
        "core",
        "<parent><groupId>com.acme</groupId><artifactId>root</artifactId></parent>",
    );
    let web = pom(
        "web",
        "<dependencies><dependency><groupId>com.acme</groupId><artifactId>core</artifactId></dependency><dependency><groupId>org.x</groupId><artifactId>y</artifactId></dependency></dependencies><build><plugins><plugin><groupId>com.acme</groupId><artifactId>plugin</artifactId></plugin></plugins></build>",
    );
    let plugin = pom("plugin", "");
    let g = graph(&[
        ("pom.xml", &root),
        ("core/pom.xml", &core),
        ("web/pom.xml", &web),
        ("tools/plugin/pom.xml", &plugin),
    ]);
    assert_eq!(
        edges(&g),
        [
            "com.acme:core -> com.acme:root (parent)",
            "com.acme:web -> com.acme:core (dependency)",
            "com.acme:web -> com.acme:plugin (plugin)",
        ]
    );
    assert_eq!(g.workspaces[0].members.len(), 4);
}

#[test]
fn gradle_projects_depend_on_projects() {
    let g = graph(&[
        (
            "settings.gradle.kts",
            indoc! {"
                rootProject.name = \"shop\"
                include(\":app\", \":libs:core\")
                include(\"worker\")
                project(\":worker\").projectDir = file(\"services/worker\")
            "},
        ),
        ("build.gradle.kts", "plugins { base }\n"),
        (
            "app/build.gradle.kts",
            indoc! {"
                dependencies {
                    implementation(project(\":libs:core\"))
                    testImplementation(projects.worker)
                }
            "},
        ),
        (
            "libs/core/build.gradle",
            "dependencies { api project(':missing') }\n",
        ),
        (
            "services/worker/build.gradle.kts",
            "dependencies { implementation(project(\":libs:core\")) }\n",
        ),
    ]);
    assert_eq!(
        edges(&g),
        [
            ":app -> :libs:core (project)",
            ":app -> :worker (project)",
            ":worker -> :libs:core (project)"
        ]
    );
    let worker = g
        .packages
        .iter()
        .find(|p| p.name == ":worker")
        .expect("worker");
    assert_eq!(worker.dir, "services/worker");
    assert_eq!(g.diagnostics.len(), 1, "{:?}", g.diagnostics);
}

#[test]
fn nx_projects_join_packages_and_add_implicit_dependencies() {
    let g = graph(&[
        ("nx.json", "{}"),
        (
            "package.json",
            r#"{"name": "root", "workspaces": ["packages/*"]}"#,
        ),
        (
            "packages/a/package.json",
            r#"{"name": "@x/a", "dependencies": {"@x/b": "*"}}"#,
        ),
        (
            "packages/a/project.json",
            r#"{"name": "a", "implicitDependencies": ["docs", "!@x/b"]}"#,
        ),
        ("packages/b/package.json", r#"{"name": "@x/b"}"#),
        (
            "docs/project.json",
            r#"{"name": "docs", "implicitDependencies": ["@x/*"]}"#,
        ),
    ]);
    assert_eq!(
        edges(&g),
        [
            "@x/a -> docs (implicitDependencies)",
            "docs -> @x/a (implicitDependencies)",
            "docs -> @x/b (implicitDependencies)",
        ]
    );
    assert_eq!(names(&g, Ecosystem::Nx), ["docs"]);
    assert!(
        g.packages
            .iter()
            .any(|p| p.name == "@x/a" && p.aliases == ["a"])
    );
}

#[test]
fn deno_and_composer_workspaces() {
    let g = graph(&[
        ("deno.json", r#"{"workspace": ["./packages/*"]}"#),
        (
            "packages/core/deno.json",
            r#"{"name": "@acme/core", "version": "1.0.0"}"#,
        ),
        (
            "packages/cli/deno.jsonc",
            "// the cli\n{\"name\": \"@acme/cli\", \"imports\": {\"@acme/core\": \"jsr:@acme/core@^1\", \"std\": \"jsr:@std/path\"}}",
        ),
        (
            "php/composer.json",
            r#"{"name": "acme/app", "repositories": [{"type": "path", "url": "packages/*"}], "require": {"acme/Billing": "*@dev", "monolog/monolog": "^3"}}"#,
        ),
        (
            "php/packages/billing/composer.json",
            r#"{"name": "acme/billing", "require-dev": {"acme/app": "*"}}"#,
        ),
    ]);
    assert_eq!(
        edges(&g),
        [
            "@acme/cli -> @acme/core (imports)",
            "acme/app -> acme/billing (require)",
            "acme/billing -> acme/app (require-dev)",
        ]
    );
}
