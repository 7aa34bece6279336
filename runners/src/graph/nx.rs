//! Nx: below an `nx.json`, every `project.json` is a project, named by its `name`. Beside a
//! `package.json` it is the same project as that package (the Nx name becomes one of the
//! package's names); elsewhere a package of its own. `implicitDependencies` add dependencies
//! on projects by name (or a glob of names), and `!name` removes one the package manifests
//! declare, as Nx does. Dependencies Nx infers from source imports are code, which the graph
//! does not read.

use std::collections::HashMap;

use globset::GlobBuilder;

use super::members::below;
use super::{Builder, Ecosystem, Manifests};
use crate::doc::{Dialect, Node, read_jsonc};
use crate::files::parent;

pub(super) fn read(found: &Manifests<'_>, b: &mut Builder) {
    let mut roots: Vec<String> = found
        .named("nx.json")
        .iter()
        .map(|p| parent(p).to_owned())
        .collect();
    roots.sort_by_key(|r| r.matches('/').count());
    let mut claimed = std::collections::HashSet::new();
    for root in roots {
        let mut projects: Vec<(usize, Vec<(String, u32)>)> = Vec::new();
        for &path in found.named("project.json") {
            let dir = parent(path);
            if below(&root, dir).is_none() || dir.split('/').any(|p| p == "node_modules") {
                continue;
            }
            if !claimed.insert(path) {
                continue;
            }
            let doc = match found.text(path).map(|t| read_jsonc(&t, Dialect::Strict)) {
                Ok(Ok(doc)) => doc,
                Ok(Err(err)) => {
                    super::unreadable(b, path, &err);
                    continue;
                }
                Err(reason) => {
                    b.diag(path, None, format!("cannot read: {reason}"));
                    continue;
                }
            };
            let name = doc
                .get("name")
                .and_then(Node::str)
                .unwrap_or(dir)
                .to_owned();
            let i = match b.find(Ecosystem::Npm, dir) {
                Some(i) => {
                    if b.graph.packages[i].name != name
                        && !b.graph.packages[i].aliases.contains(&name)
                    {
                        b.graph.packages[i].aliases.push(name);
                    }
                    i
                }
                None => b.package(Ecosystem::Nx, &name, path),
            };
            let implicit = doc
                .get("implicitDependencies")
                .and_then(Node::items)
                .unwrap_or_default()
                .iter()
                .filter_map(|n| n.str().map(|s| (s.to_owned(), n.line)))
                .collect();
            projects.push((i, implicit));
        }
        // Every project below the root, by each of its names.
        let mut by_name: HashMap<String, usize> = HashMap::new();
        for (i, p) in b.graph.packages.iter().enumerate() {
            if matches!(p.ecosystem, Ecosystem::Npm | Ecosystem::Nx)
                && below(&root, &p.dir).is_some()
            {
                by_name.entry(p.name.clone()).or_insert(i);
                for a in &p.aliases {
                    by_name.entry(a.clone()).or_insert(i);
                }
            }
        }
        let nx_json = crate::files::join(&root, "nx.json").unwrap_or_default();
        let mut members = Vec::new();
        for (from, implicit) in projects {
            if b.graph.packages[from].ecosystem == Ecosystem::Nx {
                members.push(from);
            }
            let manifest = b.graph.packages[from].manifest.clone();
            for (name, line) in implicit {
                if let Some(removed) = name.strip_prefix('!') {
                    if let Some(&to) = by_name.get(removed) {
                        b.graph.packages[from].deps.retain(|d| d.to != to);
                    }
                    continue;
                }
                let matched: Vec<usize> = if name.contains('*') {
                    GlobBuilder::new(&name)
                        .build()
                        .map(|g| g.compile_matcher())
                        .map(|m| {
                            let mut v: Vec<usize> = by_name
                                .iter()
                                .filter(|(n, _)| m.is_match(n.as_str()))
                                .map(|(_, &i)| i)
                                .collect();
                            v.sort_unstable();
                            v.dedup();
                            v
                        })
                        .unwrap_or_default()
                } else {
                    by_name.get(&name).copied().into_iter().collect()
                };
                if matched.is_empty() {
                    b.diag(
                        &manifest,
                        Some(line),
                        format!("implicit dependency `{name}` names no project"),
                    );
                }
                for to in matched {
                    b.dep(from, to, "implicitDependencies", Some(line));
                }
            }
        }
        if !members.is_empty() {
            let shared = found.present(&root, &["nx.json", "package.json"]);
            b.workspace("nx", Ecosystem::Nx, &nx_json, members, shared);
        }
    }
}
