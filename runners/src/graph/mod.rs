//! The workspace graph: which directories of the repository are packages, and which packages
//! of the repository each one depends on, read statically from the manifests of each
//! ecosystem (npm, pnpm, Yarn and Bun workspaces, Cargo, uv and PDM, Go modules, Maven,
//! Gradle, Nx, deno, Composer).
//!
//! Like the adapters, this is a pure function from files to data: [`read`] takes the list of
//! manifest files the scan's walk saw ([`is_manifest`] says which names those are) and reads
//! them through the read-only [`Files`] view, never running a tool. One module per ecosystem
//! ([`js`], [`cargo`], [`python`], [`go`], [`maven`], [`gradle`], [`nx`], [`deno`],
//! [`composer`]) finds its packages and workspaces and resolves its dependencies the way its
//! own tool does (names for npm and Maven, paths for Cargo and `replace`, projects for Gradle);
//! they share only the model below and the glob matching of [`members`]. A manifest that cannot
//! be read costs its own package a diagnostic, never the rest of the graph.
//!
//! Bounded by construction: a graph holds at most one package per manifest and ecosystem, and
//! each manifest is read once, within the view's size cap.

mod cargo;
mod composer;
mod deno;
mod go;
mod gradle;
mod js;
mod maven;
mod members;
mod nx;
mod python;

use std::collections::HashMap;

use serde::Serialize;

use crate::files::{Files, parent};
use crate::model::Diagnostic;
use members::Members;

/// The file names the graph reads (or, for lockfiles, only notes), wherever they are,
/// besides those of npm, pnpm, Yarn and Bun: the files every member of a JavaScript
/// workspace reads ([`js::SHARED`]).
const MANIFESTS: &[&str] = &[
    // Cargo
    "Cargo.toml",
    "Cargo.lock",
    "rust-toolchain.toml",
    "rust-toolchain",
    // Python
    "pyproject.toml",
    "uv.lock",
    "pdm.lock",
    "poetry.lock",
    ".python-version",
    // Go
    "go.mod",
    "go.work",
    "go.work.sum",
    // Maven
    "pom.xml",
    // Gradle
    "settings.gradle",
    "settings.gradle.kts",
    "build.gradle",
    "build.gradle.kts",
    "gradle.properties",
    "libs.versions.toml",
    // Nx
    "nx.json",
    "project.json",
    // deno
    "deno.json",
    "deno.jsonc",
    "deno.lock",
    // Composer
    "composer.json",
    "composer.lock",
];

/// Manifests whose text the graph never reads (lockfiles and the like: large, and only
/// their place matters, as files every package of a workspace reads).
const NOTED_ONLY: &[&str] = &[
    "pnpm-lock.yaml",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    "bun.lock",
    "bun.lockb",
    "Cargo.lock",
    "uv.lock",
    "pdm.lock",
    "poetry.lock",
    "go.work.sum",
    "deno.lock",
    "composer.lock",
    "tsconfig.json",
    "tsconfig.base.json",
    "turbo.json",
    "rust-toolchain.toml",
    "rust-toolchain",
    ".python-version",
    ".yarnrc.yml",
    "gradle.properties",
    "libs.versions.toml",
];

/// The file name of a root-relative path.
fn name_of(path: &str) -> &str {
    path.rsplit_once('/').map_or(path, |(_, name)| name)
}

/// Whether the graph reads (or notes) the file at `path`.
pub fn is_manifest(path: &str) -> bool {
    let name = name_of(path);
    MANIFESTS.contains(&name) || js::SHARED.contains(&name)
}

/// Whether [`read`] reads the text of the manifest at `path` (lockfiles are only noted).
pub fn reads_text(path: &str) -> bool {
    is_manifest(path) && !NOTED_ONLY.contains(&name_of(path))
}

/// A family of package managers that share one manifest format and one way of naming
/// dependencies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Ecosystem {
    /// `package.json` packages: npm, pnpm, Yarn and Bun workspaces.
    Npm,
    /// Cargo crates.
    Cargo,
    /// `pyproject.toml` projects: uv workspaces, PDM and Poetry path dependencies.
    Python,
    /// Go modules.
    Go,
    /// Maven modules.
    Maven,
    /// Gradle projects.
    Gradle,
    /// Nx projects of their own (`project.json` without a `package.json` beside it).
    Nx,
    /// deno workspace members.
    Deno,
    /// Composer packages.
    Composer,
}

impl Ecosystem {
    /// The name people know it by.
    pub fn name(self) -> &'static str {
        match self {
            Ecosystem::Npm => "npm",
            Ecosystem::Cargo => "cargo",
            Ecosystem::Python => "python",
            Ecosystem::Go => "go",
            Ecosystem::Maven => "maven",
            Ecosystem::Gradle => "gradle",
            Ecosystem::Nx => "nx",
            Ecosystem::Deno => "deno",
            Ecosystem::Composer => "composer",
        }
    }
}

impl std::fmt::Display for Ecosystem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One dependency of a package on another package of the repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Dep {
    /// The package depended on (an index into [`Graph::packages`]).
    pub to: usize,
    /// How the manifest declares it: `dependencies`, `devDependencies`, `path`, `replace`,
    /// `project`, `implicitDependencies`, …
    pub kind: &'static str,
    /// The line of the declaration, where known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
}

/// One package: a directory with a manifest of one ecosystem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Package {
    /// Its name as its ecosystem names it: `@acme/core`, a crate, a Go module path,
    /// `group:artifact` for Maven, `:app` for Gradle.
    pub name: String,
    /// Its ecosystem.
    pub ecosystem: Ecosystem,
    /// Its directory, root-relative (`.` for the root).
    pub dir: String,
    /// Its manifest, root-relative.
    pub manifest: String,
    /// Its version, when the manifest states one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The workspace it belongs to (an index into [`Graph::workspaces`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workspace: Option<usize>,
    /// Other names it answers to (the Nx project name of a `package.json` package).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// What it depends on in the repository, each package once, in manifest order.
    pub deps: Vec<Dep>,
}

/// A set of packages one tool manages together, from one root manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Workspace {
    /// The tool that reads it: `pnpm`, `npm`, `yarn`, `bun`, `cargo`, `uv`, `go.work`,
    /// `maven`, `gradle`, `deno`, `composer`, `nx`.
    pub tool: &'static str,
    /// Its ecosystem.
    pub ecosystem: Ecosystem,
    /// Its root directory.
    pub dir: String,
    /// The file that declares it.
    pub manifest: String,
    /// Its packages (indices into [`Graph::packages`]).
    pub members: Vec<usize>,
    /// Files at its root that every member reads (the root manifest, lockfiles, shared
    /// configuration), those that exist: a change to one affects every member.
    pub shared: Vec<String>,
}

/// The packages of a repository and their dependencies on each other.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Graph {
    /// Every package, in the order of their manifests.
    pub packages: Vec<Package>,
    /// Every workspace.
    pub workspaces: Vec<Workspace>,
    /// Manifests that could not be read or understood, and dependencies that point nowhere.
    pub diagnostics: Vec<Diagnostic>,
}

impl Graph {
    /// The packages whose directory is `dir` exactly.
    pub fn at_dir(&self, dir: &str) -> impl Iterator<Item = usize> + '_ {
        let dir = dir.to_owned();
        self.packages
            .iter()
            .enumerate()
            .filter(move |(_, p)| p.dir == dir)
            .map(|(i, _)| i)
    }

    /// For each package, the packages that depend on it (indices), each once.
    pub fn dependents(&self) -> Vec<Vec<usize>> {
        let mut out = vec![Vec::new(); self.packages.len()];
        for (i, p) in self.packages.iter().enumerate() {
            for d in &p.deps {
                if let Some(list) = out.get_mut(d.to)
                    && !list.contains(&i)
                {
                    list.push(i);
                }
            }
        }
        out
    }

    /// A package's name, for messages.
    pub fn name(&self, i: usize) -> &str {
        self.packages.get(i).map_or("", |p| p.name.as_str())
    }
}

/// Builds a graph: ecosystems add packages and workspaces, then resolve dependencies.
#[derive(Default)]
pub(crate) struct Builder {
    graph: Graph,
    /// (ecosystem, dir) → package.
    at: HashMap<(Ecosystem, String), usize>,
}

impl Builder {
    /// Adds a package (or returns the one already at that directory for that ecosystem).
    fn package(&mut self, ecosystem: Ecosystem, name: &str, manifest: &str) -> usize {
        self.package_at(ecosystem, name, parent(manifest), manifest)
    }

    /// Adds a package whose directory is not its manifest's (a Gradle project without a
    /// build script of its own).
    fn package_at(&mut self, ecosystem: Ecosystem, name: &str, dir: &str, manifest: &str) -> usize {
        let dir = dir.to_owned();
        if let Some(&i) = self.at.get(&(ecosystem, dir.clone())) {
            return i;
        }
        let i = self.graph.packages.len();
        self.graph.packages.push(Package {
            name: name.to_owned(),
            ecosystem,
            dir: dir.clone(),
            manifest: manifest.to_owned(),
            version: None,
            workspace: None,
            aliases: Vec::new(),
            deps: Vec::new(),
        });
        self.at.insert((ecosystem, dir), i);
        i
    }

    /// The package of `ecosystem` whose directory is `dir`.
    fn find(&self, ecosystem: Ecosystem, dir: &str) -> Option<usize> {
        self.at.get(&(ecosystem, dir.to_owned())).copied()
    }

    /// A workspace's member patterns (declared in `manifest`; `excluded` always excludes)
    /// compiled, with a diagnostic for each that is not a valid glob: "not a valid `what`".
    fn member_set<'p>(
        &mut self,
        manifest: &str,
        what: &str,
        patterns: impl IntoIterator<Item = &'p str>,
        excluded: impl IntoIterator<Item = &'p str>,
    ) -> Members {
        let (set, bad) = Members::new(patterns, excluded);
        for p in bad {
            self.diag(manifest, None, format!("`{p}` is not a valid {what}"));
        }
        set
    }

    /// The packages of `ecosystem` a workspace at `root` takes in: its own package first,
    /// then, once each, the package in the directory of each of `manifests` that `set`
    /// names.
    fn members_in(
        &self,
        ecosystem: Ecosystem,
        root: &str,
        set: &Members,
        manifests: &[&str],
    ) -> Vec<usize> {
        let mut members: Vec<usize> = self.find(ecosystem, root).into_iter().collect();
        for &path in manifests {
            let dir = parent(path);
            if dir != root
                && set.contains(root, dir)
                && let Some(i) = self.find(ecosystem, dir)
                && !members.contains(&i)
            {
                members.push(i);
            }
        }
        members
    }

    /// Each of `members` by its package name (the last of a name wins).
    fn by_name(&self, members: &[usize]) -> HashMap<String, usize> {
        members
            .iter()
            .map(|&m| (self.graph.packages[m].name.clone(), m))
            .collect()
    }

    /// Adds a workspace and makes it the workspace of its members (a package keeps the
    /// first workspace that claims it, as tools refuse nested workspaces).
    #[allow(clippy::too_many_arguments)]
    fn workspace(
        &mut self,
        tool: &'static str,
        ecosystem: Ecosystem,
        manifest: &str,
        members: Vec<usize>,
        shared: Vec<String>,
    ) -> usize {
        let w = self.graph.workspaces.len();
        let mut kept = Vec::new();
        for m in members {
            if let Some(p) = self.graph.packages.get_mut(m)
                && p.workspace.is_none()
            {
                p.workspace = Some(w);
                kept.push(m);
            }
        }
        self.graph.workspaces.push(Workspace {
            tool,
            ecosystem,
            dir: parent(manifest).to_owned(),
            manifest: manifest.to_owned(),
            members: kept,
            shared,
        });
        w
    }

    /// Records that `from` depends on `to` (once; a package never depends on itself).
    fn dep(&mut self, from: usize, to: usize, kind: &'static str, line: Option<u32>) {
        if from == to {
            return;
        }
        if let Some(p) = self.graph.packages.get_mut(from)
            && !p.deps.iter().any(|d| d.to == to)
        {
            p.deps.push(Dep { to, kind, line });
        }
    }

    fn diag(&mut self, file: &str, line: Option<u32>, message: impl Into<String>) {
        self.graph
            .diagnostics
            .push(Diagnostic::new(file, line, message));
    }

    fn finish(mut self) -> Graph {
        self.graph
            .diagnostics
            .sort_by(|a, b| (&a.file_path, a.line).cmp(&(&b.file_path, b.line)));
        self.graph.diagnostics.dedup();
        self.graph
    }
}

/// The manifests of a repository, grouped by file name, each with its text read when needed.
pub(crate) struct Manifests<'a> {
    files: &'a dyn Files,
    by_name: HashMap<&'a str, Vec<&'a str>>,
    all: std::collections::HashSet<&'a str>,
}

impl<'a> Manifests<'a> {
    fn new(files: &'a dyn Files, paths: &'a [String]) -> Manifests<'a> {
        let mut by_name: HashMap<&str, Vec<&str>> = HashMap::new();
        let mut all = std::collections::HashSet::new();
        for p in paths {
            by_name.entry(name_of(p)).or_default().push(p.as_str());
            all.insert(p.as_str());
        }
        for list in by_name.values_mut() {
            // The root's first, then by path: the table's order of directories.
            list.sort_unstable_by_key(|p| (p.contains('/'), *p));
            list.dedup();
        }
        Manifests {
            files,
            by_name,
            all,
        }
    }

    /// Every manifest with this file name, in path order.
    fn named(&self, name: &str) -> &[&'a str] {
        self.by_name.get(name).map_or(&[], Vec::as_slice)
    }

    /// Whether this manifest exists.
    fn has(&self, path: &str) -> bool {
        self.all.contains(path)
    }

    /// Its text, or the reason it cannot be read.
    fn text(&self, path: &str) -> Result<String, crate::Unreadable> {
        self.files.read(path)
    }

    /// The files among `names` that exist in `dir`, as paths.
    fn present(&self, dir: &str, names: &[&str]) -> Vec<String> {
        names
            .iter()
            .map(|n| crate::files::join(dir, n).unwrap_or_else(|| (*n).to_owned()))
            .filter(|p| self.has(p))
            .collect()
    }
}

/// Reads the workspace graph of the repository whose manifests (root-relative paths of files
/// [`is_manifest`] accepts, as the scan found them) are `manifests`.
pub fn read(files: &dyn Files, manifests: &[String]) -> Graph {
    let found = Manifests::new(files, manifests);
    let mut b = Builder::default();
    js::read(&found, &mut b);
    cargo::read(&found, &mut b);
    python::read(&found, &mut b);
    go::read(&found, &mut b);
    maven::read(&found, &mut b);
    gradle::read(&found, &mut b);
    deno::read(&found, &mut b);
    composer::read(&found, &mut b);
    // Last: Nx projects name npm packages as well as their own.
    nx::read(&found, &mut b);
    b.finish()
}

/// A diagnostic's message for a manifest that could not be parsed.
fn unreadable(b: &mut Builder, path: &str, err: &crate::doc::ParseError) {
    b.diag(
        path,
        err.line,
        format!(
            "{}; its packages are left out of the workspace graph",
            err.message
        ),
    );
}

#[cfg(test)]
mod tests;
