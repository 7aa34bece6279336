//! Composer: every `composer.json` with a `name` is a package. A `composer.json` whose
//! `repositories` hold `path` repositories (`{"type": "path", "url": "packages/*"}`) makes a
//! workspace of itself and the packages those paths hold; a package of it depends on another
//! when its `require` or `require-dev` names that package, which Composer then installs from
//! the path.

use std::collections::HashMap;

use super::{Builder, Ecosystem, Manifests};
use crate::doc::{Dialect, Node, read_json};
use crate::files::parent;

pub(super) fn read(found: &Manifests<'_>, b: &mut Builder) {
    let mut docs: HashMap<&str, Node> = HashMap::new();
    for &path in found.named("composer.json") {
        match found.text(path).map(|t| read_json(&t, Dialect::Loose)) {
            Ok(Ok(doc)) => {
                if let Some(name) = doc.get("name").and_then(Node::str) {
                    let i = b.package(Ecosystem::Composer, &name.to_lowercase(), path);
                    b.graph.packages[i].version =
                        doc.get("version").and_then(Node::str).map(str::to_owned);
                }
                docs.insert(path, doc);
            }
            Ok(Err(err)) => super::unreadable(b, path, &err),
            Err(reason) => b.diag(path, None, format!("cannot read: {reason}")),
        }
    }
    let mut roots: Vec<&str> = found.named("composer.json").to_vec();
    roots.sort_by_key(|p| p.matches('/').count());
    for path in roots {
        let Some(doc) = docs.get(path) else { continue };
        let repos: Vec<&Node> = match doc.get("repositories") {
            Some(r) => match (r.items(), r.entries()) {
                (Some(items), _) => items.iter().collect(),
                (None, Some(entries)) => entries.iter().map(|e| &e.node).collect(),
                _ => Vec::new(),
            },
            None => Vec::new(),
        };
        let urls: Vec<&str> = repos
            .iter()
            .filter(|r| r.get("type").and_then(Node::str) == Some("path"))
            .filter_map(|r| r.get("url").and_then(Node::str))
            .collect();
        if urls.is_empty() {
            continue;
        }
        let root = parent(path).to_owned();
        let set = b.member_set(path, "path repository", urls, []);
        let members = b.members_in(
            Ecosystem::Composer,
            &root,
            &set,
            found.named("composer.json"),
        );
        let shared = found.present(&root, &["composer.json", "composer.lock"]);
        let w = b.workspace("composer", Ecosystem::Composer, path, members, shared);
        let members = b.graph.workspaces[w].members.clone();
        let by_name = b.by_name(&members);
        for &from in &members {
            let manifest = b.graph.packages[from].manifest.clone();
            let Some(d) = docs.get(manifest.as_str()) else {
                continue;
            };
            for kind in ["require", "require-dev"] {
                for e in d.get(kind).and_then(Node::entries).unwrap_or_default() {
                    if let Some(&to) = by_name.get(&e.key.to_lowercase()) {
                        b.dep(from, to, kind, Some(e.node.line));
                    }
                }
            }
        }
    }
}
