//! Cargo: crates (`[package]`), workspaces (`[workspace]` with `members` and `exclude`, the
//! root crate and every path dependency inside the workspace's directory being members too,
//! as Cargo makes them), and path dependencies of every kind (`dependencies`,
//! `dev-dependencies`, `build-dependencies`, the same under `target.'cfg(..)'`), written in the
//! crate or inherited with `workspace = true` from `[workspace.dependencies]`.

use std::collections::HashMap;

use super::members::{Members, below};
use super::{Builder, Ecosystem, Manifests};
use crate::doc::{Node, read_toml};
use crate::files::{join, parent};

const KINDS: &[&str] = &["dependencies", "dev-dependencies", "build-dependencies"];

/// Files at a workspace root that every member reads.
const SHARED: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    "rust-toolchain.toml",
    "rust-toolchain",
];

pub(super) fn read(found: &Manifests<'_>, b: &mut Builder) {
    let mut docs: HashMap<&str, Node> = HashMap::new();
    for &path in found.named("Cargo.toml") {
        match found.text(path).map(|t| read_toml(&t)) {
            Ok(Ok(doc)) => {
                docs.insert(path, doc);
            }
            Ok(Err(err)) => super::unreadable(b, path, &err),
            Err(reason) => b.diag(path, None, format!("cannot read: {reason}")),
        }
    }
    for &path in found.named("Cargo.toml") {
        let Some(doc) = docs.get(path) else { continue };
        if let Some(name) = doc.path(&["package", "name"]).and_then(Node::str) {
            let i = b.package(Ecosystem::Cargo, name, path);
            b.graph.packages[i].version = doc
                .path(&["package", "version"])
                .and_then(Node::str)
                .map(str::to_owned);
        }
    }
    // Workspaces, shallowest first: a crate belongs to the first that claims it.
    let mut roots: Vec<&str> = found
        .named("Cargo.toml")
        .iter()
        .copied()
        .filter(|p| docs.get(p).is_some_and(|d| d.get("workspace").is_some()))
        .collect();
    roots.sort_by_key(|p| p.matches('/').count());
    for root_manifest in roots {
        let Some(doc) = docs.get(root_manifest) else {
            continue;
        };
        let root = parent(root_manifest).to_owned();
        let list = |key: &str| {
            doc.path(&["workspace", key])
                .and_then(Node::strs)
                .unwrap_or_default()
        };
        let set = b.member_set(
            root_manifest,
            "workspace member pattern",
            list("members"),
            list("exclude"),
        );
        let mut members = b.members_in(Ecosystem::Cargo, &root, &set, found.named("Cargo.toml"));
        // Path dependencies inside the workspace's directory are members too.
        let mut i = 0;
        while i < members.len() {
            let m = members[i];
            let (manifest, dir) = {
                let p = &b.graph.packages[m];
                (p.manifest.clone(), p.dir.clone())
            };
            if let Some(d) = docs.get(manifest.as_str()) {
                for (_, path, _) in path_deps(d, doc, &dir, &root) {
                    if below(&root, &path).is_some()
                        && let Some(t) = b.find(Ecosystem::Cargo, &path)
                        && !members.contains(&t)
                        && !set_excludes(doc, &root, &path)
                    {
                        members.push(t);
                    }
                }
            }
            i += 1;
        }
        let shared = found.present(&root, SHARED);
        b.workspace("cargo", Ecosystem::Cargo, root_manifest, members, shared);
    }
    for from in 0..b.graph.packages.len() {
        let p = &b.graph.packages[from];
        if p.ecosystem != Ecosystem::Cargo {
            continue;
        }
        let (manifest, dir) = (p.manifest.clone(), p.dir.clone());
        let ws = p.workspace.map(|w| b.graph.workspaces[w].manifest.clone());
        let (Some(doc), ws_doc) = (
            docs.get(manifest.as_str()),
            ws.as_deref().and_then(|w| docs.get(w)),
        ) else {
            continue;
        };
        let ws_root = ws.as_deref().map_or(".", parent).to_owned();
        let empty = Node::new(0, crate::doc::Value::Table(Vec::new()));
        for (kind, path, line) in path_deps(doc, ws_doc.unwrap_or(&empty), &dir, &ws_root) {
            match b.find(Ecosystem::Cargo, &path) {
                Some(to) => b.dep(from, to, kind, Some(line)),
                None => b.diag(
                    &manifest,
                    Some(line),
                    format!("a path dependency on `{path}`, where no Cargo.toml names a package"),
                ),
            }
        }
    }
}

/// Whether the workspace's `exclude` names `dir`.
fn set_excludes(ws: &Node, root: &str, dir: &str) -> bool {
    let excluded = ws
        .path(&["workspace", "exclude"])
        .and_then(Node::strs)
        .unwrap_or_default();
    let (set, _) = Members::new(excluded, []);
    set.contains(root, dir)
}

/// The path dependencies of a crate: (kind, directory, line), with `workspace = true` ones
/// looked up in the workspace's `[workspace.dependencies]` (paths there are relative to the
/// workspace root).
fn path_deps(doc: &Node, ws: &Node, dir: &str, ws_root: &str) -> Vec<(&'static str, String, u32)> {
    let mut tables: Vec<(&'static str, &Node)> = Vec::new();
    for kind in KINDS {
        if let Some(t) = doc.get(kind) {
            tables.push((kind, t));
        }
        // Cargo still reads the old spellings.
        let old = kind.replace('-', "_");
        if let Some(t) = doc.get(&old) {
            tables.push((kind, t));
        }
    }
    for target in doc
        .get("target")
        .and_then(Node::entries)
        .unwrap_or_default()
    {
        for kind in KINDS {
            if let Some(t) = target.node.get(kind) {
                tables.push((kind, t));
            }
        }
    }
    let inherited = ws.path(&["workspace", "dependencies"]);
    let mut out = Vec::new();
    for (kind, table) in tables {
        for e in table.entries().unwrap_or_default() {
            let own = e.node.get("path").and_then(Node::str);
            let found = match own {
                Some(rel) => join(dir, rel),
                None if e.node.get("workspace").is_some_and(Node::is_true) => inherited
                    .and_then(|w| w.get(&e.key))
                    .and_then(|d| d.get("path"))
                    .and_then(Node::str)
                    .and_then(|rel| join(ws_root, rel)),
                None => None,
            };
            if let Some(path) = found {
                out.push((kind, path, e.node.line));
            }
        }
    }
    out
}
