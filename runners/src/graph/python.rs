//! Python projects (`pyproject.toml`): uv workspaces (`[tool.uv.workspace]` `members` and
//! `exclude`) and the dependencies uv resolves inside the repository — a requirement in
//! `[project] dependencies`, `optional-dependencies`, `[dependency-groups]` or
//! `[tool.uv] dev-dependencies` whose `[tool.uv.sources]` entry (the project's own, else the
//! workspace root's) says `workspace = true` or gives a `path`; PEP 508 direct references to a
//! local directory (`core @ file:///${PROJECT_ROOT}/../core`, as PDM writes them); PDM's
//! editable dev dependencies (`-e file:///${PROJECT_ROOT}/libs/core#egg=core`, `-e ./core`);
//! and Poetry's `{ path = "../core" }` dependencies.

use std::collections::HashMap;

use super::{Builder, Ecosystem, Manifests};
use crate::doc::{Node, read_toml};
use crate::files::{join, parent};

/// Files at a uv workspace root that every member reads.
const SHARED: &[&str] = &["pyproject.toml", "uv.lock", ".python-version"];

/// A project name as Python packaging compares them (PEP 503).
pub(crate) fn normalize(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut sep = false;
    for c in name.trim().chars() {
        if matches!(c, '-' | '_' | '.') {
            sep = true;
        } else {
            if sep && !out.is_empty() {
                out.push('-');
            }
            sep = false;
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// The name of a PEP 508 requirement and its direct reference (`name @ URL`), if any.
fn requirement(spec: &str) -> Option<(String, Option<&str>)> {
    let spec = spec.trim();
    let end = spec
        .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(spec.len());
    let name = &spec[..end];
    if name.is_empty() {
        return None;
    }
    let rest = spec[end..].trim_start();
    let rest = match rest.strip_prefix('[') {
        Some(r) => r
            .split_once(']')
            .map_or("", |(_, after)| after.trim_start()),
        None => rest,
    };
    let url = rest
        .strip_prefix('@')
        .map(|u| u.split(';').next().unwrap_or("").trim());
    Some((normalize(name), url))
}

/// A local directory a `file:` URL or a path names, relative to the project at `dir`.
fn local(dir: &str, reference: &str) -> Option<String> {
    let r = reference.trim();
    let r = r.split('#').next().unwrap_or(r);
    let r = r
        .strip_prefix("file:///${PROJECT_ROOT}/")
        .or_else(|| r.strip_prefix("file://${PROJECT_ROOT}/"))
        .or_else(|| r.strip_prefix("${PROJECT_ROOT}/"))
        .or_else(|| r.strip_prefix("file:"))
        .unwrap_or(r);
    if r.starts_with('/') || r.contains("://") {
        return None;
    }
    join(dir, r.trim_end_matches('/'))
}

/// One requirement to resolve: (kind, normalized name, direct reference, line).
type Req<'a> = (&'static str, String, Option<&'a str>, u32);

fn requirements(doc: &Node) -> Vec<Req<'_>> {
    fn list<'d>(out: &mut Vec<Req<'d>>, kind: &'static str, node: Option<&'d Node>) {
        for item in node.and_then(Node::items).unwrap_or_default() {
            if let Some((name, url)) = item.str().and_then(requirement) {
                out.push((kind, name, url, item.line));
            }
        }
    }
    let mut out = Vec::new();
    list(
        &mut out,
        "dependencies",
        doc.path(&["project", "dependencies"]),
    );
    for e in doc
        .path(&["project", "optional-dependencies"])
        .and_then(Node::entries)
        .unwrap_or_default()
    {
        list(&mut out, "optional-dependencies", Some(&e.node));
    }
    for e in doc
        .get("dependency-groups")
        .and_then(Node::entries)
        .unwrap_or_default()
    {
        list(&mut out, "dependency-groups", Some(&e.node));
    }
    list(
        &mut out,
        "dev-dependencies",
        doc.path(&["tool", "uv", "dev-dependencies"]),
    );
    out
}

/// The Python projects of the repository, their uv workspaces and the dependencies between
/// them.
pub(super) fn read(found: &Manifests<'_>, b: &mut Builder) {
    let docs = read_projects(found, b);
    read_uv_workspaces(found, &docs, b);
    for from in 0..b.graph.packages.len() {
        if b.graph.packages[from].ecosystem == Ecosystem::Python {
            read_dependencies(from, &docs, b);
        }
    }
}

/// Reads every `pyproject.toml`, adding a package for each that names its project; the
/// documents read, by path.
fn read_projects<'f>(found: &Manifests<'f>, b: &mut Builder) -> HashMap<&'f str, Node> {
    let mut docs: HashMap<&str, Node> = HashMap::new();
    for &path in found.named("pyproject.toml") {
        match found.text(path).map(|t| read_toml(&t)) {
            Ok(Ok(doc)) => {
                let name = doc
                    .path(&["project", "name"])
                    .or_else(|| doc.path(&["tool", "poetry", "name"]))
                    .and_then(Node::str)
                    .map(normalize);
                if let Some(name) = name.filter(|n| !n.is_empty()) {
                    let i = b.package(Ecosystem::Python, &name, path);
                    b.graph.packages[i].version = doc
                        .path(&["project", "version"])
                        .or_else(|| doc.path(&["tool", "poetry", "version"]))
                        .and_then(Node::str)
                        .map(str::to_owned);
                }
                docs.insert(path, doc);
            }
            Ok(Err(err)) => super::unreadable(b, path, &err),
            Err(reason) => b.diag(path, None, format!("cannot read: {reason}")),
        }
    }
    docs
}

/// Adds a workspace for each `[tool.uv.workspace]`, outermost first, with the projects its
/// `members` and `exclude` patterns take in.
fn read_uv_workspaces(found: &Manifests<'_>, docs: &HashMap<&str, Node>, b: &mut Builder) {
    let mut roots: Vec<&str> = found
        .named("pyproject.toml")
        .iter()
        .copied()
        .filter(|p| {
            docs.get(p)
                .is_some_and(|d| d.path(&["tool", "uv", "workspace"]).is_some())
        })
        .collect();
    roots.sort_by_key(|p| p.matches('/').count());
    for manifest in roots {
        let Some(doc) = docs.get(manifest) else {
            continue;
        };
        let root = parent(manifest).to_owned();
        let list = |key: &str| {
            doc.path(&["tool", "uv", "workspace", key])
                .and_then(Node::strs)
                .unwrap_or_default()
        };
        let set = b.member_set(
            manifest,
            "workspace member pattern",
            list("members"),
            list("exclude"),
        );
        let members = b.members_in(
            Ecosystem::Python,
            &root,
            &set,
            found.named("pyproject.toml"),
        );
        let shared = found.present(&root, SHARED);
        b.workspace("uv", Ecosystem::Python, manifest, members, shared);
    }
}

/// One dependency found in a project: (the package it leads to, its kind, its line).
type Edge = (usize, &'static str, u32);

/// Adds the dependencies of package `from` on the repository's other Python projects:
/// uv's requirements, PDM's editable dev dependencies and Poetry's path dependencies.
fn read_dependencies(from: usize, docs: &HashMap<&str, Node>, b: &mut Builder) {
    let p = &b.graph.packages[from];
    let (manifest, dir) = (p.manifest.clone(), p.dir.clone());
    let Some(doc) = docs.get(manifest.as_str()) else {
        return;
    };
    let mut edges = uv_edges(from, doc, docs, b);
    edges.extend(pdm_edges(doc, &dir, b));
    edges.extend(poetry_edges(doc, &dir, b));
    for (to, kind, line) in edges {
        b.dep(from, to, kind, Some(line));
    }
}

/// The requirements of package `from` (its document `doc`) that uv resolves inside the
/// repository: a direct reference to a local directory, or a `[tool.uv.sources]` entry (the
/// project's own, else its workspace root's) that names the workspace or a path.
fn uv_edges(from: usize, doc: &Node, docs: &HashMap<&str, Node>, b: &mut Builder) -> Vec<Edge> {
    let p = &b.graph.packages[from];
    let (manifest, dir) = (p.manifest.clone(), p.dir.clone());
    let (manifest, dir) = (manifest.as_str(), dir.as_str());
    let workspace = p.workspace;
    let ws_doc = workspace.and_then(|w| docs.get(b.graph.workspaces[w].manifest.as_str()));
    let by_name: HashMap<String, usize> = workspace
        .map(|w| {
            b.graph.workspaces[w]
                .members
                .iter()
                .map(|&m| (b.graph.packages[m].name.clone(), m))
                .collect()
        })
        .unwrap_or_default();
    let ws_dir = workspace.map(|w| b.graph.workspaces[w].dir.clone());
    let mut edges = Vec::new();
    for (kind, name, url, line) in requirements(doc) {
        let source = |d: &Node| {
            d.path(&["tool", "uv", "sources"])
                .and_then(Node::entries)
                .and_then(|e| e.iter().find(|e| normalize(&e.key) == name))
                .map(|e| e.node.clone())
        };
        let own = source(doc);
        let (source, base) = match own {
            Some(s) => (Some(s), dir.to_owned()),
            None => (
                ws_doc.and_then(source),
                ws_dir.clone().unwrap_or_else(|| dir.to_owned()),
            ),
        };
        let to = if let Some(url) = url {
            local(dir, url).and_then(|d| b.find(Ecosystem::Python, &d))
        } else if let Some(source) = source {
            if source.get("workspace").is_some_and(Node::is_true) {
                let member = by_name.get(&name).copied();
                if member.is_none() {
                    b.diag(
                        manifest,
                        Some(line),
                        format!(
                            "`{name}` comes from the workspace, which has no member of that name"
                        ),
                    );
                }
                member
            } else {
                source
                    .get("path")
                    .and_then(Node::str)
                    .and_then(|rel| join(&base, rel))
                    .and_then(|d| b.find(Ecosystem::Python, &d))
            }
        } else {
            None
        };
        if let Some(to) = to {
            edges.push((to, kind, line));
        }
    }
    edges
}

/// PDM's editable dev dependencies (`-e file:///${PROJECT_ROOT}/libs/core#egg=core`,
/// `-e ./core`, or a direct reference) on projects of the repository.
fn pdm_edges(doc: &Node, dir: &str, b: &Builder) -> Vec<Edge> {
    let mut edges = Vec::new();
    for group in doc
        .path(&["tool", "pdm", "dev-dependencies"])
        .and_then(Node::entries)
        .unwrap_or_default()
    {
        for item in group.node.items().unwrap_or_default() {
            let Some(spec) = item.str() else { continue };
            let reference = spec
                .trim()
                .strip_prefix("-e")
                .map(str::trim)
                .or_else(|| requirement(spec).and_then(|(_, url)| url));
            if let Some(to) = reference
                .and_then(|r| local(dir, r))
                .and_then(|d| b.find(Ecosystem::Python, &d))
            {
                edges.push((to, "dev-dependencies", item.line));
            }
        }
    }
    edges
}

/// Poetry's `{ path = "../core" }` dependencies, in the main table, the dev table and every
/// group.
fn poetry_edges(doc: &Node, dir: &str, b: &Builder) -> Vec<Edge> {
    let mut tables: Vec<&Node> = doc
        .path(&["tool", "poetry", "dependencies"])
        .into_iter()
        .chain(doc.path(&["tool", "poetry", "dev-dependencies"]))
        .collect();
    for g in doc
        .path(&["tool", "poetry", "group"])
        .and_then(Node::entries)
        .unwrap_or_default()
    {
        tables.extend(g.node.get("dependencies"));
    }
    let mut edges = Vec::new();
    for table in tables {
        for e in table.entries().unwrap_or_default() {
            if let Some(to) = e
                .node
                .get("path")
                .and_then(Node::str)
                .and_then(|rel| join(dir, rel))
                .and_then(|d| b.find(Ecosystem::Python, &d))
            {
                edges.push((to, "path", e.node.line));
            }
        }
    }
    edges
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requirements_and_local_references_read_as_the_tools_read_them() {
        assert_eq!(normalize("My_Pkg.Core"), "my-pkg-core");
        assert_eq!(requirement("core>=1.0"), Some(("core".to_owned(), None)));
        assert_eq!(
            requirement("Core[fast] @ file:///${PROJECT_ROOT}/../core ; python_version>'3'"),
            Some(("core".to_owned(), Some("file:///${PROJECT_ROOT}/../core")))
        );
        assert_eq!(
            local("apps/web", "file:///${PROJECT_ROOT}/../core"),
            Some("apps/core".to_owned())
        );
        assert_eq!(
            local("app", "./libs/core#egg=core"),
            Some("app/libs/core".to_owned())
        );
        assert_eq!(local("app", "https://example.com/x.whl"), None);
        assert_eq!(local("app", "/abs/path"), None);
    }
}
