//! deno workspaces: a `deno.json(c)` with `workspace` (a list of member directories, or
//! `{"members": [...]}`) makes a workspace of itself and its members; each member with a
//! `name` is a package. A member depends on another when its `imports` map names the other's
//! package (`"@acme/core": "jsr:@acme/core@^1"`, an `npm:` specifier of the same name, or a
//! relative path into its directory). A source file importing a member by name without an
//! `imports` entry is code, which the graph does not read.

use std::collections::HashMap;

use super::{Builder, Ecosystem, Manifests};
use crate::doc::{Dialect, Node, read_jsonc};
use crate::files::{join, parent};

/// The package a `jsr:` or `npm:` specifier names (`jsr:@acme/core@^1` → `@acme/core`).
fn specifier_name(spec: &str) -> Option<&str> {
    let rest = spec
        .strip_prefix("jsr:")
        .or_else(|| spec.strip_prefix("npm:"))?;
    let rest = rest.trim_start_matches('/');
    let (scope, after) = match rest.strip_prefix('@') {
        Some(r) => {
            let slash = r.find('/')?;
            (slash + 2, &rest[slash + 2..])
        }
        None => (0, rest),
    };
    let end = after.find(['@', '/']).unwrap_or(after.len());
    Some(&rest[..scope + end])
}

pub(super) fn read(found: &Manifests<'_>, b: &mut Builder) {
    let mut docs: HashMap<&str, Node> = HashMap::new();
    let mut paths: Vec<&str> = found.named("deno.json").to_vec();
    paths.extend(found.named("deno.jsonc"));
    paths.sort_unstable();
    for path in &paths {
        match found.text(path).map(|t| read_jsonc(&t, Dialect::Loose)) {
            Ok(Ok(doc)) => {
                let dir = parent(path);
                // `deno.json` wins over `deno.jsonc` in one directory, as deno reads it.
                if b.find(Ecosystem::Deno, dir).is_none() {
                    let name = doc.get("name").and_then(Node::str).unwrap_or(dir);
                    let i = b.package(Ecosystem::Deno, name, path);
                    b.graph.packages[i].version =
                        doc.get("version").and_then(Node::str).map(str::to_owned);
                }
                docs.insert(path, doc);
            }
            Ok(Err(err)) => super::unreadable(b, path, &err),
            Err(reason) => b.diag(path, None, format!("cannot read: {reason}")),
        }
    }
    for path in &paths {
        let Some(doc) = docs.get(path) else { continue };
        let Some(list) = doc
            .get("workspace")
            .and_then(|w| w.strs().or_else(|| w.get("members").and_then(Node::strs)))
        else {
            continue;
        };
        let root = parent(path).to_owned();
        let set = b.member_set(path, "workspace member", list, []);
        let members = b.members_in(Ecosystem::Deno, &root, &set, &paths);
        let shared = found.present(&root, &["deno.json", "deno.jsonc", "deno.lock"]);
        let w = b.workspace("deno", Ecosystem::Deno, path, members, shared);
        let members = b.graph.workspaces[w].members.clone();
        let by_name = b.by_name(&members);
        for &from in &members {
            let (manifest, dir) = {
                let p = &b.graph.packages[from];
                (p.manifest.clone(), p.dir.clone())
            };
            let Some(member_doc) = docs.get(manifest.as_str()) else {
                continue;
            };
            for e in member_doc
                .get("imports")
                .and_then(Node::entries)
                .unwrap_or_default()
            {
                let Some(spec) = e.node.str() else { continue };
                let to = if spec.starts_with("./") || spec.starts_with("../") {
                    join(&dir, spec.trim_end_matches('/')).and_then(|target| {
                        members.iter().copied().find(|&m| {
                            let d = &b.graph.packages[m].dir;
                            target == *d || target.starts_with(&format!("{d}/"))
                        })
                    })
                } else {
                    specifier_name(spec).and_then(|n| by_name.get(n).copied())
                };
                if let Some(to) = to {
                    b.dep(from, to, "imports", Some(e.node.line));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specifiers_name_their_package() {
        assert_eq!(specifier_name("jsr:@acme/core@^1.0.0"), Some("@acme/core"));
        assert_eq!(specifier_name("jsr:@acme/core/mod.ts"), Some("@acme/core"));
        assert_eq!(specifier_name("npm:chalk@5"), Some("chalk"));
        assert_eq!(specifier_name("https://deno.land/x"), None);
    }
}
