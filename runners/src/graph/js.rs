//! npm, pnpm, Yarn and Bun workspaces: `package.json` packages and the dependencies among
//! them.
//!
//! A workspace is declared by `pnpm-workspace.yaml` (`packages:`) or by a root
//! `package.json`'s `workspaces` (an array, or `{"packages": [...]}` as Yarn also accepts);
//! its root package belongs to it, as pnpm lists it. A dependency of any kind
//! (`dependencies`, `devDependencies`, `optionalDependencies`, and `peerDependencies` where
//! the tool installs peers: npm, pnpm and Bun, not Yarn) is on a member when it is written `workspace:` (by name, `workspace:@scope/x@*` alias, or a path),
//! `file:`/`link:` to its directory, or, where the tool links by name (npm, Yarn and Bun
//! always; pnpm only with `link-workspace-packages`), a range the member's version satisfies
//! (`*` and an empty range always do; another protocol such as `github:` never does).

use std::collections::HashMap;

use super::{Builder, Ecosystem, Manifests};
use crate::doc::{Dialect, Node, Rest, read_json_keys, read_yaml};
use crate::files::{join, parent};

/// The keys of `package.json` the graph reads.
const KEYS: &[&str] = &[
    "name",
    "version",
    "workspaces",
    "dependencies",
    "devDependencies",
    "peerDependencies",
    "optionalDependencies",
    "packageManager",
];

/// The dependency tables, in the order they are read.
const KINDS: &[&str] = &[
    "dependencies",
    "devDependencies",
    "optionalDependencies",
    "peerDependencies",
];

/// Files at a workspace root that every member reads (and that the graph reads or notes
/// wherever they are).
pub(super) const SHARED: &[&str] = &[
    "package.json",
    "pnpm-workspace.yaml",
    "pnpm-lock.yaml",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "yarn.lock",
    ".yarnrc.yml",
    "bun.lock",
    "bun.lockb",
    ".npmrc",
    "tsconfig.json",
    "tsconfig.base.json",
    "turbo.json",
    "nx.json",
];

/// One `package.json`, as far as the graph reads it.
struct Manifest {
    name: Option<String>,
    version: Option<String>,
    /// The `workspaces` patterns, when it declares any.
    workspaces: Option<Vec<String>>,
    package_manager: Option<String>,
    /// (kind, name, spec, line), in file order.
    deps: Vec<(&'static str, String, String, u32)>,
}

fn manifest(root: &Node) -> Manifest {
    let text = |key: &str| root.get(key).and_then(Node::str).map(str::to_owned);
    let workspaces = root.get("workspaces").and_then(|w| {
        w.strs()
            .or_else(|| w.get("packages").and_then(Node::strs))
            .map(|list| list.into_iter().map(str::to_owned).collect())
    });
    let mut deps = Vec::new();
    for kind in KINDS {
        for e in root.get(kind).and_then(Node::entries).unwrap_or_default() {
            if let Some(spec) = e.node.str() {
                deps.push((*kind, e.key.clone(), spec.to_owned(), e.node.line));
            }
        }
    }
    Manifest {
        name: text("name").filter(|n| !n.trim().is_empty()),
        version: text("version"),
        workspaces,
        package_manager: text("packageManager"),
        deps,
    }
}

/// A workspace found: its root, tool, member patterns and whether it links by name.
struct Declared {
    root: String,
    manifest: String,
    tool: &'static str,
    patterns: Vec<String>,
    links_by_name: bool,
}

pub(super) fn read(found: &Manifests<'_>, b: &mut Builder) {
    let mut manifests: HashMap<&str, Manifest> = HashMap::new();
    for &path in found.named("package.json") {
        match found.text(path) {
            Ok(text) => match read_json_keys(&text, KEYS, Rest::SyntaxOnly) {
                Ok(root) => {
                    manifests.insert(path, manifest(&root));
                }
                Err(err) => super::unreadable(b, path, &err),
            },
            Err(reason) => b.diag(path, None, format!("cannot read: {reason}")),
        }
    }
    let declared = workspaces(found, &manifests, b);
    // Members first, so that each package knows its workspace before dependencies resolve.
    let mut spaces: Vec<(usize, &Declared)> = Vec::new();
    for d in &declared {
        let set = b.member_set(
            &d.manifest,
            "workspace pattern",
            d.patterns.iter().map(String::as_str),
            ["**/node_modules/**"],
        );
        let mut members = Vec::new();
        for &path in found.named("package.json") {
            let dir = parent(path);
            let Some(m) = manifests.get(path) else {
                continue;
            };
            if dir == d.root || set.contains(&d.root, dir) {
                let name = m.name.clone().unwrap_or_else(|| dir.to_owned());
                let i = b.package(Ecosystem::Npm, &name, path);
                b.graph.packages[i].version.clone_from(&m.version);
                members.push(i);
            }
        }
        let shared = found.present(&d.root, SHARED);
        let w = b.workspace(d.tool, Ecosystem::Npm, &d.manifest, members, shared);
        spaces.push((w, d));
    }
    // Packages outside any workspace: every named one.
    for &path in found.named("package.json") {
        if let Some(Manifest {
            name: Some(name),
            version,
            ..
        }) = manifests.get(path)
            && b.find(Ecosystem::Npm, parent(path)).is_none()
        {
            let i = b.package(Ecosystem::Npm, name, path);
            b.graph.packages[i].version.clone_from(version);
        }
    }
    for (w, d) in spaces {
        let members = b.graph.workspaces[w].members.clone();
        // Name → member; the first of two members of one name wins, as the tools refuse both.
        let mut by_name: HashMap<String, usize> = HashMap::new();
        for &m in &members {
            by_name.entry(b.graph.packages[m].name.clone()).or_insert(m);
        }
        for &from in &members {
            let path = b.graph.packages[from].manifest.clone();
            let dir = b.graph.packages[from].dir.clone();
            let Some(m) = manifests.get(path.as_str()) else {
                continue;
            };
            for (kind, name, spec, line) in &m.deps {
                // Yarn installs no peer dependency (npm, pnpm and Bun install them).
                if *kind == "peerDependencies" && d.tool == "yarn" {
                    continue;
                }
                match target(b, &by_name, &members, &dir, name, spec, d.links_by_name) {
                    Target::Member(to) => b.dep(from, to, kind, Some(*line)),
                    Target::Missing(what) => b.diag(
                        &path,
                        Some(*line),
                        format!("`{name}` is `{spec}`, but {what} is no package of the workspace"),
                    ),
                    Target::External => {}
                }
            }
        }
    }
    // Standalone packages still depend on others by `file:` and `link:` paths.
    for from in 0..b.graph.packages.len() {
        let p = &b.graph.packages[from];
        if p.ecosystem != Ecosystem::Npm || p.workspace.is_some() {
            continue;
        }
        let (path, dir) = (p.manifest.clone(), p.dir.clone());
        let Some(m) = manifests.get(path.as_str()) else {
            continue;
        };
        for (kind, _, spec, line) in &m.deps {
            if let Some(rel) = spec
                .strip_prefix("file:")
                .or_else(|| spec.strip_prefix("link:"))
                && let Some(to) = join(&dir, rel).and_then(|d| b.find(Ecosystem::Npm, &d))
            {
                b.dep(from, to, kind, Some(*line));
            }
        }
    }
}

/// The workspaces the manifests declare, shallowest root first.
fn workspaces(
    found: &Manifests<'_>,
    manifests: &HashMap<&str, Manifest>,
    b: &mut Builder,
) -> Vec<Declared> {
    let mut out = Vec::new();
    for &path in found.named("pnpm-workspace.yaml") {
        let root = parent(path).to_owned();
        let text = match found.text(path) {
            Ok(text) => text,
            Err(reason) => {
                b.diag(path, None, format!("cannot read: {reason}"));
                continue;
            }
        };
        let doc = match read_yaml(&text, Dialect::Loose) {
            Ok(doc) => doc,
            Err(err) => {
                super::unreadable(b, path, &err);
                continue;
            }
        };
        // pnpm reads every directory below when `packages` is absent.
        let patterns = match doc.get("packages") {
            Some(list) => list
                .strs()
                .map(|l| l.into_iter().map(str::to_owned).collect())
                .unwrap_or_default(),
            None => vec!["**".to_owned()],
        };
        let npmrc = join(&root, ".npmrc")
            .filter(|p| found.has(p))
            .and_then(|p| found.text(&p).ok());
        let links_by_name = doc
            .get("linkWorkspacePackages")
            .is_some_and(|n| n.is_true() || n.str() == Some("deep"))
            || npmrc.as_deref().is_some_and(npmrc_links);
        out.push(Declared {
            manifest: path.to_owned(),
            root,
            tool: "pnpm",
            patterns,
            links_by_name,
        });
    }
    for &path in found.named("package.json") {
        let root = parent(path);
        let Some(m) = manifests.get(path) else {
            continue;
        };
        let Some(patterns) = &m.workspaces else {
            continue;
        };
        if out.iter().any(|d| d.root == root) {
            // pnpm ignores `workspaces` beside its own file.
            continue;
        }
        let has = |name: &str| join(root, name).is_some_and(|p| found.has(&p));
        let manager = m.package_manager.as_deref().unwrap_or("");
        let tool = if manager.starts_with("yarn") || has("yarn.lock") || has(".yarnrc.yml") {
            "yarn"
        } else if manager.starts_with("bun") || has("bun.lock") || has("bun.lockb") {
            "bun"
        } else {
            "npm"
        };
        out.push(Declared {
            root: root.to_owned(),
            manifest: path.to_owned(),
            tool,
            patterns: patterns.clone(),
            links_by_name: true,
        });
    }
    out.sort_by(|a, b| {
        (a.root.matches('/').count(), &a.root).cmp(&(b.root.matches('/').count(), &b.root))
    });
    out
}

/// Whether an `.npmrc` turns on `link-workspace-packages`.
fn npmrc_links(text: &str) -> bool {
    text.lines().any(|line| {
        line.split_once('=').is_some_and(|(k, v)| {
            k.trim() == "link-workspace-packages" && matches!(v.trim(), "true" | "deep")
        })
    })
}

/// Where a dependency resolves.
enum Target {
    /// A member of the workspace.
    Member(usize),
    /// Written for the workspace (`workspace:`), but naming no member: what it names.
    Missing(String),
    /// The registry, git or anything outside the repository.
    External,
}

fn target(
    b: &Builder,
    by_name: &HashMap<String, usize>,
    members: &[usize],
    dir: &str,
    name: &str,
    spec: &str,
    links_by_name: bool,
) -> Target {
    let member_at = |rel: &str, base: &str| {
        join(base, rel).and_then(|d| {
            members
                .iter()
                .copied()
                .find(|&m| b.graph.packages[m].dir == d)
        })
    };
    if let Some(rest) = spec.strip_prefix("workspace:") {
        // `workspace:@scope/x@*`: another name; `workspace:../x`: a path.
        if let Some((alias, range)) = rest.rsplit_once('@')
            && matches!(range, "*" | "^" | "~")
            && !alias.is_empty()
        {
            return by_name.get(alias).map_or_else(
                || Target::Missing(format!("`{alias}`")),
                |&m| Target::Member(m),
            );
        }
        if rest.contains('/') {
            let root = b
                .graph
                .packages
                .get(members.first().copied().unwrap_or(usize::MAX))
                .and_then(|p| p.workspace)
                .map(|w| b.graph.workspaces[w].dir.clone())
                .unwrap_or_default();
            return member_at(rest, dir)
                .or_else(|| member_at(rest, &root))
                .map_or_else(|| Target::Missing(format!("`{rest}`")), Target::Member);
        }
        return by_name.get(name).map_or_else(
            || Target::Missing(format!("`{name}`")),
            |&m| Target::Member(m),
        );
    }
    if let Some(rel) = spec
        .strip_prefix("file:")
        .or_else(|| spec.strip_prefix("link:"))
    {
        return member_at(rel, dir).map_or(Target::External, Target::Member);
    }
    if !links_by_name {
        return Target::External;
    }
    let Some(&m) = by_name.get(name) else {
        return Target::External;
    };
    let range = spec.strip_prefix("npm:").unwrap_or(spec).trim();
    if range.contains(':') || range.contains('/') {
        // `github:`, `git+https:`, a tarball URL, `user/repo`: never the workspace's.
        return Target::External;
    }
    if satisfies(range, b.graph.packages[m].version.as_deref().unwrap_or("")) {
        Target::Member(m)
    } else {
        Target::External
    }
}

/// Whether a member of version `version` satisfies `range` as npm reads ranges: `*`, an
/// empty range and `latest` always; a range that is no semver range never.
fn satisfies(range: &str, version: &str) -> bool {
    if matches!(range, "" | "*" | "x" | "latest") {
        return true;
    }
    match (
        nodejs_semver::Range::parse(range),
        nodejs_semver::Version::parse(version),
    ) {
        (Ok(range), Ok(version)) => range.satisfies(&version),
        // A member without a (valid) version is still the one the tools link.
        (Ok(_), Err(_)) => true,
        (Err(_), _) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_link_as_npm_links_them() {
        for (range, version, linked) in [
            ("*", "1.0.0", true),
            ("", "1.0.0", true),
            ("^1.2.0", "1.4.1", true),
            ("^2.0.0", "1.4.1", false),
            ("~1.4.0 || 2", "2.1.0", true),
            ("latest", "0.0.1", true),
            ("next", "0.0.1", false),
            ("^1.0.0", "", true),
        ] {
            assert_eq!(satisfies(range, version), linked, "{range} {version}");
        }
        assert!(npmrc_links("a=b\nlink-workspace-packages = true\n"));
        assert!(!npmrc_links("link-workspace-packages=false\n"));
    }
}
