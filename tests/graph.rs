//! The workspace graph agg reads equals the one each package manager reports on the same
//! repository — pnpm (`pnpm ls -r --json`), npm (`npm query`), Yarn (`yarn workspaces info`),
//! Cargo (`cargo metadata`), uv (`uv tree`), Maven (its reactor order), Go (`go mod graph` and
//! `go list -m -json`) — on fixtures with every dependency form each knows; and the tasks
//! `--affected` finds on a generated pnpm monorepo are those of the packages Turborepo
//! (`turbo ls --affected`) and Nx (`nx show projects --affected`) find, for edits at a leaf, a
//! middle and the base of its graph.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::test::{Test, command_in, run_ok};
use indoc::indoc;

/// `(from dir, to dir)` of every dependency of `ecosystem` in `agg graph --json`.
fn agg_edges(root: &Path, ecosystem: &str) -> BTreeSet<(String, String)> {
    let out = Test::at(root).args(["graph", "--json"]).run().success();
    let doc: Value = serde_json::from_str(&out.stdout).expect("json");
    let mut edges = BTreeSet::new();
    for p in doc["packages"].as_array().expect("packages") {
        if p["ecosystem"] != ecosystem {
            continue;
        }
        for d in p["dependencies"].as_array().into_iter().flatten() {
            edges.insert((
                p["dir"].as_str().unwrap_or("").to_owned(),
                d["dir"].as_str().unwrap_or("").to_owned(),
            ));
        }
    }
    edges
}

/// `program ARGS` in `dir`, which must succeed; its stdout.
fn tool(dir: &Path, program: &str, args: &[&str], env: &[(&str, &str)]) -> String {
    let out = run_ok(&mut command_in(dir, program, args, env));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A root-relative directory from a path a tool printed (absolute, or relative to `base`).
fn rel(root: &Path, base: &str, path: &str) -> String {
    let joined = if path.starts_with('/') {
        std::path::PathBuf::from(path)
    } else {
        root.join(base).join(path)
    };
    let canonical = std::fs::canonicalize(&joined).unwrap_or(joined);
    let root = std::fs::canonicalize(root).expect("root");
    let r = canonical
        .strip_prefix(&root)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    if r.is_empty() { ".".to_owned() } else { r }
}

/// Adds `d` to `sorted` after everything it depends on (depth first), as Maven's reactor
/// sorts its modules.
fn visit(d: &str, edges: &BTreeSet<(String, String)>, sorted: &mut Vec<String>) {
    if sorted.iter().any(|s| s == d) {
        return;
    }
    for (_, to) in edges.iter().filter(|(from, _)| from == d) {
        visit(to, edges, sorted);
    }
    sorted.push(d.to_owned());
}

fn pair(a: &str, b: &str) -> (String, String) {
    (a.to_owned(), b.to_owned())
}

#[test]
fn pnpm_s_graph_is_agg_s() {
    require!("pnpm");
    let t = Test::new()
        .write("package.json", r#"{"name": "root", "private": true, "devDependencies": {"d": "workspace:*"}}"#)
        .write("pnpm-workspace.yaml", "packages:\n  - 'packages/*'\n")
        .write("packages/a/package.json", r#"{"name": "@x/a", "version": "1.2.0"}"#)
        .write("packages/b/package.json", r#"{"name": "b", "version": "1.0.0", "dependencies": {"@x/a": "workspace:^"}}"#)
        .write("packages/c/package.json", r#"{"name": "c", "version": "1.0.0", "devDependencies": {"b": "workspace:*"}, "optionalDependencies": {"aa": "workspace:@x/a@*"}, "dependencies": {"d": "link:../d"}}"#)
        .write("packages/d/package.json", r#"{"name": "d", "version": "1.0.0", "dependencies": {"b": "file:../b"}}"#)
        .write("packages/e/package.json", r#"{"name": "e", "version": "1.0.0"}"#);
    let root = t.root().to_path_buf();
    tool(&root, "pnpm", &["install", "--offline"], &[]);
    let listed: Value = serde_json::from_str(&tool(
        &root,
        "pnpm",
        &["ls", "-r", "--json", "--depth", "0"],
        &[],
    ))
    .expect("json");
    let mut from_pnpm = BTreeSet::new();
    for p in listed.as_array().expect("projects") {
        let dir = rel(&root, ".", p["path"].as_str().unwrap_or(""));
        for kind in ["dependencies", "devDependencies", "optionalDependencies"] {
            for (_, dep) in p[kind].as_object().into_iter().flatten() {
                let version = dep["version"].as_str().unwrap_or("");
                let target = if let Some(path) = version.strip_prefix("link:") {
                    rel(&root, &dir, path)
                } else if let Some(path) = version.strip_prefix("file:") {
                    // pnpm writes a `file:` dependency relative to the workspace root.
                    rel(&root, ".", path)
                } else {
                    continue;
                };
                from_pnpm.insert((dir.clone(), target));
            }
        }
    }
    assert_eq!(agg_edges(&root, "npm"), from_pnpm);
    assert_eq!(from_pnpm.len(), 6, "{from_pnpm:?}");
}

#[test]
fn npm_s_and_yarn_s_graphs_are_agg_s() {
    require!("npm", "yarn");
    let files = [
        (
            "package.json",
            r#"{"name": "root", "private": true, "workspaces": ["packages/*"]}"#,
        ),
        (
            "packages/a/package.json",
            r#"{"name": "a", "version": "1.2.0"}"#,
        ),
        (
            "packages/b/package.json",
            r#"{"name": "b", "version": "1.0.0", "dependencies": {"a": "^1.0.0"}}"#,
        ),
        (
            "packages/c/package.json",
            r#"{"name": "c", "version": "1.0.0", "devDependencies": {"b": "*"}, "peerDependencies": {"d": "1.x"}}"#,
        ),
        (
            "packages/d/package.json",
            r#"{"name": "d", "version": "1.0.0", "optionalDependencies": {"a": "1.2.0"}}"#,
        ),
    ];
    let npm = files.iter().fold(Test::new(), |t, (p, x)| t.write(p, x));
    let root = npm.root().to_path_buf();
    tool(
        &root,
        "npm",
        &["install", "--offline", "--no-audit", "--no-fund"],
        &[],
    );
    let mut from_npm = BTreeSet::new();
    for (from, dir) in [
        ("a", "packages/a"),
        ("b", "packages/b"),
        ("c", "packages/c"),
        ("d", "packages/d"),
    ] {
        let deps: Value = serde_json::from_str(&tool(
            &root,
            "npm",
            &["query", &format!("#{from} > .workspace")],
            &[],
        ))
        .expect("json");
        for d in deps.as_array().into_iter().flatten() {
            from_npm.insert(pair(dir, d["location"].as_str().unwrap_or("")));
        }
    }
    assert_eq!(agg_edges(&root, "npm"), from_npm);
    // Yarn reads the same manifests, with a range no member satisfies as well: not a link.
    let yarn = files
        .iter()
        .fold(Test::new(), |t, (p, x)| t.write(p, x))
        .write("yarn.lock", "")
        .write(
            "packages/e/package.json",
            r#"{"name": "e", "version": "1.0.0", "dependencies": {"a": "^2.0.0", "b": "1.0.0"}}"#,
        );
    let root = yarn.root().to_path_buf();
    let info = tool(
        &root,
        "yarn",
        &["--silent", "workspaces", "info", "--json"],
        &[],
    );
    let info: Value = serde_json::from_str(&info).expect("json");
    let at: BTreeMap<&str, &str> = info
        .as_object()
        .expect("workspaces")
        .iter()
        .map(|(name, w)| (name.as_str(), w["location"].as_str().unwrap_or("")))
        .collect();
    let mut from_yarn = BTreeSet::new();
    for (_, w) in info.as_object().expect("workspaces") {
        for d in w["workspaceDependencies"].as_array().into_iter().flatten() {
            from_yarn.insert(pair(
                w["location"].as_str().unwrap_or(""),
                at[d.as_str().unwrap_or("")],
            ));
        }
    }
    assert_eq!(agg_edges(&root, "npm"), from_yarn);
    assert!(from_yarn.contains(&pair("packages/e", "packages/b")));
    assert!(!from_yarn.contains(&pair("packages/e", "packages/a")));
}

#[test]
fn cargo_metadata_s_graph_is_agg_s() {
    require!("cargo");
    let t = Test::new()
        .write(
            "Cargo.toml",
            indoc! {"
            [workspace]
            members = [\"crates/*\", \"app\"]
            exclude = [\"crates/scratch\"]
            resolver = \"2\"
            [workspace.dependencies]
            core = { path = \"crates/core\" }
        "},
        )
        .write(
            "crates/core/Cargo.toml",
            indoc! {"
            [package]
            name = \"core\"
            version = \"0.1.0\"
            edition = \"2021\"
        "},
        )
        .write("crates/core/src/lib.rs", "")
        .write(
            "crates/util/Cargo.toml",
            indoc! {"
            [package]
            name = \"util\"
            version = \"0.1.0\"
            edition = \"2021\"
            [dependencies]
            core.workspace = true
        "},
        )
        .write("crates/util/src/lib.rs", "")
        .write(
            "crates/scratch/Cargo.toml",
            indoc! {"
            [package]
            name = \"scratch\"
            version = \"0.1.0\"
            edition = \"2021\"
            [workspace]
        "},
        )
        .write("crates/scratch/src/lib.rs", "")
        .write(
            "app/Cargo.toml",
            indoc! {"
            [package]
            name = \"app\"
            version = \"0.1.0\"
            edition = \"2021\"
            [dependencies]
            util = { path = \"../crates/util\" }
            [dev-dependencies]
            helpers = { path = \"../helpers\" }
            [target.'cfg(unix)'.build-dependencies]
            core = { path = \"../crates/core\" }
        "},
        )
        .write("app/src/main.rs", "fn main() {}\n")
        .write(
            "helpers/Cargo.toml",
            indoc! {"
            [package]
            name = \"helpers\"
            version = \"0.1.0\"
            edition = \"2021\"
        "},
        )
        .write("helpers/src/lib.rs", "");
    let root = t.root().to_path_buf();
    let meta: Value = serde_json::from_str(&tool(
        &root,
        "cargo",
        &[
            "metadata",
            "--no-deps",
            "--offline",
            "--format-version",
            "1",
        ],
        &[],
    ))
    .expect("json");
    let mut from_cargo = BTreeSet::new();
    for p in meta["packages"].as_array().expect("packages") {
        let dir = rel(
            &root,
            ".",
            Path::new(p["manifest_path"].as_str().unwrap_or(""))
                .parent()
                .and_then(Path::to_str)
                .unwrap_or(""),
        );
        for d in p["dependencies"].as_array().into_iter().flatten() {
            if let Some(path) = d["path"].as_str() {
                from_cargo.insert((dir.clone(), rel(&root, ".", path)));
            }
        }
    }
    assert_eq!(agg_edges(&root, "cargo"), from_cargo);
    assert_eq!(from_cargo.len(), 4, "{from_cargo:?}");
}

#[test]
fn uv_tree_s_graph_is_agg_s() {
    require!("uv");
    let t = Test::new()
        .write(
            "pyproject.toml",
            indoc! {"
            [project]
            name = \"shop\"
            version = \"0.1.0\"
            requires-python = \">=3.8\"
            dependencies = [\"shop-api\"]
            [tool.uv.sources]
            shop-api = { workspace = true }
            shop-core = { workspace = true }
            [tool.uv.workspace]
            members = [\"libs/*\"]
        "},
        )
        .write(
            "libs/core/pyproject.toml",
            indoc! {"
            [project]
            name = \"Shop_Core\"
            version = \"0.1.0\"
            requires-python = \">=3.8\"
        "},
        )
        .write(
            "libs/api/pyproject.toml",
            indoc! {"
            [project]
            name = \"shop-api\"
            version = \"0.1.0\"
            requires-python = \">=3.8\"
            dependencies = [\"shop-core\"]
            [project.optional-dependencies]
            cli = [\"shop-cli\"]
            [dependency-groups]
            dev = [\"shop-tools\"]
            [tool.uv.sources]
            shop-tools = { path = \"../../tools\" }
            shop-cli = { workspace = true }
        "},
        )
        .write(
            "libs/cli/pyproject.toml",
            indoc! {"
            [project]
            name = \"shop-cli\"
            version = \"0.1.0\"
            requires-python = \">=3.8\"
        "},
        )
        .write(
            "tools/pyproject.toml",
            indoc! {"
            [project]
            name = \"shop-tools\"
            version = \"0.1.0\"
            requires-python = \">=3.8\"
        "},
        );
    let root = t.root().to_path_buf();
    let offline = [("UV_OFFLINE", "1"), ("UV_NO_CONFIG", "1")];
    tool(&root, "uv", &["lock"], &offline);
    let tree = tool(&root, "uv", &["tree", "--frozen", "--all-groups"], &offline);
    let dirs: BTreeMap<&str, &str> = [
        ("shop", "."),
        ("shop-core", "libs/core"),
        ("shop-api", "libs/api"),
        ("shop-cli", "libs/cli"),
        ("shop-tools", "tools"),
    ]
    .into();
    let mut from_uv = BTreeSet::new();
    let mut parent = "";
    for line in tree.lines() {
        let name = |s: &str| s.split_whitespace().next().unwrap_or("").to_owned();
        if !line.starts_with(['├', '└', '│', ' ']) {
            parent = dirs.get(name(line).as_str()).copied().unwrap_or("");
        } else if let Some(child) = line
            .strip_prefix("├── ")
            .or_else(|| line.strip_prefix("└── "))
            && let Some(to) = dirs.get(name(child).as_str())
        {
            from_uv.insert(pair(parent, to));
        }
    }
    assert_eq!(agg_edges(&root, "python"), from_uv, "uv tree:\n{tree}");
    assert_eq!(from_uv.len(), 4, "uv tree:\n{tree}");
}

#[test]
fn maven_s_reactor_order_follows_agg_s_graph() {
    require!("mvn");
    let pom = |parent: bool, artifact: &str, body: &str| {
        let head = if parent {
            "<parent><groupId>com.acme</groupId><artifactId>root</artifactId><version>1.0</version></parent>".to_owned()
        } else {
            "<groupId>com.acme</groupId><version>1.0</version>".to_owned()
        };
        format!(
            "<project><modelVersion>4.0.0</modelVersion>{head}<artifactId>{artifact}</artifactId>{body}</project>"
        )
    };
    let dep = |a: &str| {
        format!(
            "<dependency><groupId>com.acme</groupId><artifactId>{a}</artifactId><version>1.0</version></dependency>"
        )
    };
    // Declared in the reverse of the order they must build in.
    let t = Test::new()
        .write("pom.xml", pom(false, "root", "<packaging>pom</packaging><modules><module>web</module><module>api</module><module>util</module><module>core</module></modules>"))
        .write("core/pom.xml", pom(true, "core", ""))
        .write("util/pom.xml", pom(false, "util", &format!("<dependencies>{}</dependencies>", dep("core"))))
        .write("api/pom.xml", pom(true, "api", &format!("<dependencies>{}{}</dependencies>", dep("util"), dep("core"))))
        .write("web/pom.xml", pom(false, "web", &format!("<dependencies>{}</dependencies>", dep("api"))));
    let root = t.root().to_path_buf();
    let out = tool(&root, "mvn", &["-o", "-B", "validate"], &[]);
    let order: Vec<String> = out
        .lines()
        .skip_while(|l| !l.contains("Reactor Build Order:"))
        .skip(2)
        .take_while(|l| l.contains('['))
        .map(|l| l.trim_start_matches("[INFO]").trim())
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect();
    // Maven's sort: depth first over the modules as declared, each after what it depends on.
    let edges = agg_edges(&root, "maven");
    let declared = [".", "web", "api", "util", "core"];
    let mut sorted: Vec<String> = Vec::new();
    for d in declared {
        visit(d, &edges, &mut sorted);
    }
    let names: Vec<String> = sorted
        .iter()
        .map(|d| {
            if d == "." {
                "root".to_owned()
            } else {
                d.clone()
            }
        })
        .collect();
    assert_eq!(names, order, "mvn:\n{out}");
    assert_eq!(edges.len(), 6, "{edges:?}");
}

#[test]
fn go_s_module_graph_is_agg_s() {
    require!("go");
    let t = Test::new()
        .write(
            "go.work",
            indoc! {"
            go 1.19

            use (
            \t./app
            \t./lib
            )

            replace example.com/lib v0.0.0 => ./lib
        "},
        )
        .write(
            "app/go.mod",
            indoc! {"
            module example.com/app

            go 1.19

            require example.com/lib v0.0.0
        "},
        )
        .write(
            "lib/go.mod",
            indoc! {"
            module example.com/lib

            go 1.19
        "},
        )
        .write(
            "tools/go.mod",
            indoc! {"
            module example.com/tools

            go 1.19

            require (
            \texample.com/util v0.0.0
            )

            replace example.com/util => ../util
        "},
        )
        .write(
            "util/go.mod",
            indoc! {"
            module example.com/util

            go 1.19
        "},
        );
    let root = t.root().to_path_buf();
    let offline = [("GOPROXY", "off")];
    let mut from_go = BTreeSet::new();
    // Each module: its requirements (`go mod graph`) that resolve to a directory here.
    for (dir, workspace) in [(".", true), ("tools", false)] {
        let env: Vec<(&str, &str)> = if workspace {
            offline.to_vec()
        } else {
            [
                offline.as_slice(),
                &[("GOWORK", "off"), ("GOFLAGS", "-mod=mod")],
            ]
            .concat()
        };
        let listed = tool(&root.join(dir), "go", &["list", "-m", "-json", "all"], &env);
        let mut local: BTreeMap<String, String> = BTreeMap::new();
        let mut stream = serde_json::Deserializer::from_str(&listed).into_iter::<Value>();
        while let Some(Ok(m)) = stream.next() {
            let at = m["Replace"]["Dir"]
                .as_str()
                .or_else(|| m["Dir"].as_str())
                .unwrap_or("");
            if !at.is_empty() {
                local.insert(
                    m["Path"].as_str().unwrap_or("").to_owned(),
                    rel(&root, dir, at),
                );
            }
        }
        for line in tool(&root.join(dir), "go", &["mod", "graph"], &env).lines() {
            let mut parts = line.split_whitespace();
            let (Some(from), Some(to)) = (parts.next(), parts.next()) else {
                continue;
            };
            let to = to.split('@').next().unwrap_or("");
            if let (Some(f), Some(t)) = (local.get(from), local.get(to)) {
                from_go.insert((f.clone(), t.clone()));
            }
        }
    }
    assert_eq!(agg_edges(&root, "go"), from_go);
    assert_eq!(from_go.len(), 2, "{from_go:?}");
}

/// A pnpm monorepo of `n` packages, each depending on up to two made before it (a DAG with
/// leaves, middles and a base), each with a `build` script and a source file; Turborepo's and
/// Nx's configuration; installed offline and committed.
fn monorepo(n: usize) -> (tempfile::TempDir, Vec<Vec<usize>>) {
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |below: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        usize::try_from(seed >> 33).unwrap_or(0) % below.max(1)
    };
    // Turborepo wants the package manager named, at the version that is installed.
    let pnpm = tool(Path::new("/"), "pnpm", &["--version"], &[]);
    let mut t = Test::new()
        .write(
            "package.json",
            format!(r#"{{"name": "mono", "private": true, "packageManager": "pnpm@{}", "scripts": {{"build": "turbo run build"}}}}"#, pnpm.trim()),
        )
        .write("pnpm-workspace.yaml", "packages:\n  - 'packages/*'\n")
        .write("turbo.json", r#"{"tasks": {"build": {"dependsOn": ["^build"]}}}"#)
        .write("nx.json", r#"{"pluginsConfig": {"@nx/js": {"analyzeLockfile": false, "analyzeSourceFiles": false}}}"#)
        .write(".gitignore", indoc! {"
            node_modules
            .turbo
            .nx
        "});
    let mut deps = Vec::new();
    for i in 0..n {
        let mut mine: Vec<usize> = Vec::new();
        for _ in 0..2 {
            if i > 0 && next(3) > 0 {
                let j = next(i);
                if !mine.contains(&j) {
                    mine.push(j);
                }
            }
        }
        let listed: Vec<String> = mine
            .iter()
            .map(|j| format!("\"p{j}\": \"workspace:*\""))
            .collect();
        t = t
            .write(
                &format!("packages/p{i}/package.json"),
                format!("{{\"name\": \"p{i}\", \"version\": \"1.0.0\", \"scripts\": {{\"build\": \"true\"}}, \"dependencies\": {{{}}}}}", listed.join(", ")),
            )
            .write(&format!("packages/p{i}/src/index.ts"), "export const x = 1;\n");
        deps.push(mine);
    }
    let dir = t.into_tempdir();
    tool(dir.path(), "pnpm", &["install", "--offline"], &[]);
    let git = |args: &[&str]| {
        run_ok(
            Command::new("git")
                .args([
                    "-c",
                    "user.email=t@example.com",
                    "-c",
                    "user.name=t",
                    "-c",
                    "init.defaultBranch=main",
                    "-c",
                    "commit.gpgsign=false",
                ])
                .args(args)
                .current_dir(dir.path()),
        );
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "init"]);
    (dir, deps)
}

/// The package directories `agg list --affected --json` lists tasks of (root tasks aside).
fn agg_affected(root: &Path) -> BTreeSet<String> {
    let out = Test::at(root)
        .args(["list", "--affected", "--json"])
        .run()
        .success();
    let doc: Value = serde_json::from_str(&out.stdout).expect("json");
    doc["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .filter(|t| !t["distance"].is_null())
        .filter_map(|t| t["dir"].as_str().map(str::to_owned))
        .collect()
}

#[test]
fn affected_packages_are_those_turborepo_and_nx_find() {
    require!("pnpm", "git", "turbo", "nx");
    let (dir, deps) = monorepo(40);
    let root = dir.path();
    // Nx runs from the workspace's own node_modules: the one agg's scripts installed.
    let nx = which::which("nx")
        .ok()
        .and_then(|p| std::fs::canonicalize(p).ok());
    let nx_package = nx
        .as_deref()
        .and_then(|p| {
            p.ancestors()
                .find(|a| a.file_name().is_some_and(|n| n == "nx"))
        })
        .map(Path::to_path_buf);
    if let Some(package) = &nx_package {
        let _ = std::os::unix::fs::symlink(package, root.join("node_modules/nx"));
    }
    let dependents = |p: usize| {
        deps.iter()
            .enumerate()
            .filter(|(_, d)| d.contains(&p))
            .count()
    };
    let leaf = (0..deps.len())
        .rev()
        .find(|&p| dependents(p) == 0 && !deps[p].is_empty())
        .expect("a leaf");
    let middle = (0..deps.len())
        .find(|&p| dependents(p) > 0 && !deps[p].is_empty())
        .expect("a middle");
    let base = (0..deps.len())
        .max_by_key(|&p| dependents(p))
        .expect("a base");
    let quiet = [
        ("TURBO_TELEMETRY_DISABLED", "1"),
        ("NX_DAEMON", "false"),
        ("NX_NO_CLOUD", "true"),
        ("DO_NOT_TRACK", "1"),
    ];
    for (what, p) in [("a leaf", leaf), ("a middle", middle), ("the base", base)] {
        let file = root.join(format!("packages/p{p}/src/index.ts"));
        std::fs::write(&file, "export const x = 2;\n").expect("edit");
        let ours = agg_affected(root);
        let turbo: Value = serde_json::from_str(&tool(
            root,
            "turbo",
            &["ls", "--affected", "--output=json"],
            &quiet,
        ))
        .expect("turbo json");
        let theirs: BTreeSet<String> = turbo["packages"]["items"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|i| i["path"].as_str().map(str::to_owned))
            .collect();
        assert_eq!(ours, theirs, "turbo, editing {what} (p{p})");
        if nx_package.is_some() {
            let nx: Value = serde_json::from_str(
                tool(
                    root,
                    "nx",
                    &["show", "projects", "--affected", "--json"],
                    &quiet,
                )
                .lines()
                .last()
                .unwrap_or("[]"),
            )
            .expect("nx json");
            let theirs: BTreeSet<String> = nx
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|n| n.as_str())
                .map(|n| format!("packages/{n}"))
                .collect();
            assert_eq!(ours, theirs, "nx, editing {what} (p{p})");
        }
        std::fs::write(&file, "export const x = 1;\n").expect("revert");
    }
}
