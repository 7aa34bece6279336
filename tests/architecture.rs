//! The house rule that arrows point down: no module of either crate (`src/`, `runners/src/`)
//! imports one that imports it back, at any level of the module tree. Each `crate::a::b` or
//! `super::x` path in a file (test modules and comments aside) is an edge from its module
//! to the module it names; edges are compared between siblings — the two children of the
//! modules' lowest common ancestor — and any cycle among siblings fails with its path.
//! A path to an ancestor (a re-export such as `crate::mcp::Server`) counts as an edge to
//! that ancestor, which is not a sibling, so re-exports hide nothing only as long as a
//! module's `mod.rs` defines no items its children need.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

fn modules(src: &Path) -> BTreeMap<Module, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read_dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().and_then(|e| e.to_str()) != Some("rs") {
                continue;
            }
            let rel = path.strip_prefix(src).expect("inside");
            let mut parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            let file = parts.pop().unwrap_or_default();
            match file.as_str() {
                "lib.rs" | "main.rs" if parts.is_empty() => {}
                "mod.rs" => {}
                other => parts.push(other.trim_end_matches(".rs").to_owned()),
            }
            out.insert(parts, path);
        }
    }
    out
}

/// The longest known module that `path` (segments after `crate::`) names.
fn resolve(known: &BTreeMap<Module, PathBuf>, path: &[String]) -> Module {
    (0..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|m| known.contains_key(m))
        .unwrap_or_default()
}

fn code_of(text: &str) -> String {
    let end = text.find("#[cfg(test)]").unwrap_or(text.len());
    text[..end]
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every `crate::…` and `super::…` path in `code`, as segments (braces expanded one level).
fn paths(code: &str, module: &Module) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let bytes = code.as_bytes();
    for (i, _) in code
        .match_indices("crate::")
        .chain(code.match_indices("super::"))
    {
        if i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_') {
            continue;
        }
        let rest = &code[i..];
        let mut segs: Vec<String> = Vec::new();
        let mut base: Module = if rest.starts_with("crate::") {
            Vec::new()
        } else {
            module.clone()
        };
        let mut tail = rest;
        loop {
            if let Some(t) = tail.strip_prefix("crate::") {
                tail = t;
                continue;
            }
            if let Some(t) = tail.strip_prefix("super::") {
                base.pop();
                tail = t;
                continue;
            }
            break;
        }
        let ident: String = tail
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == ':')
            .collect();
        for s in ident.split("::").filter(|s| !s.is_empty()) {
            segs.push(s.to_owned());
        }
        let after = &tail[ident.len()..];
        let mut full = base.clone();
        full.extend(segs.iter().cloned());
        if after.starts_with('{') && ident.ends_with("::") {
            // `crate::a::{b, c::D}`: one path per top-level item.
            let inner: String = after[1..].chars().take_while(|c| *c != '}').collect();
            for item in inner.split(',') {
                let first = item.trim().split("::").next().unwrap_or("").trim();
                if first.is_empty() || first == "self" {
                    out.push(full.clone());
                } else {
                    let mut p = full.clone();
                    p.push(first.to_owned());
                    out.push(p);
                }
            }
        } else {
            out.push(full);
        }
    }
    out
}

fn sibling_cycles(src: &Path) -> Vec<String> {
    let known = modules(src);
    // parent -> (child -> set of children it depends on)
    let mut graph: BTreeMap<Module, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (module, file) in &known {
        let text = std::fs::read_to_string(file).expect("read");
        for path in paths(&code_of(&text), module) {
            let target = resolve(&known, &path);
            let common = module
                .iter()
                .zip(&target)
                .take_while(|(a, b)| a == b)
                .count();
            if common >= module.len() || common >= target.len() {
                continue; // same module, or a path to an ancestor / a descendant
            }
            graph
                .entry(module[..common].to_vec())
                .or_default()
                .entry(module[common].clone())
                .or_default()
                .insert(target[common].clone());
        }
    }
    let mut cycles = Vec::new();
    for (parent, edges) in &graph {
        for start in edges.keys() {
            // A path from `start` back to itself.
            let mut stack = vec![(start.clone(), vec![start.clone()])];
            let mut seen = BTreeSet::new();
            while let Some((node, trail)) = stack.pop() {
                for next in edges.get(&node).into_iter().flatten() {
                    if next == start {
                        let mut t = trail.clone();
                        t.push(next.clone());
                        cycles.push(format!("{}: {}", parent.join("::"), t.join(" -> ")));
                    } else if seen.insert(next.clone()) {
                        let mut t = trail.clone();
                        t.push(next.clone());
                        stack.push((next.clone(), t));
                    }
                }
            }
        }
    }
    cycles.sort();
    cycles.dedup();
    cycles
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    for src in ["src", "runners/src"] {
        all.extend(
            sibling_cycles(&root.join(src))
                .into_iter()
                .map(|c| format!("{src}: {c}")),
        );
    }
    assert!(all.is_empty(), "import cycles:\n{}", all.join("\n"));
}

#[test]
fn the_checker_finds_a_planted_cycle() {
    let dir = tempfile::tempdir().expect("tmp");
    let write = |p: &str, t: &str| {
        let full = dir.path().join(p);
        std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
        std::fs::write(full, t).expect("write");
    };
    write("lib.rs", "mod a;\nmod b;\nmod c;\n");
    write("a.rs", "use crate::b::B;\n");
    write(
        "b.rs",
        "use crate::c::{C, D};\n#[cfg(test)]\nmod tests { use crate::a::A; }\n",
    );
    write("c/mod.rs", "mod x;\nmod y;\n");
    write("c/x.rs", "use super::y::Y;\n");
    write("c/y.rs", "use crate::c::x::X;\n// use crate::a::A;\n");
    let cycles = sibling_cycles(dir.path());
    assert_eq!(cycles, ["c: x -> y -> x", "c: y -> x -> y"], "{cycles:?}");
    write("c/y.rs", "use crate::a::A;\n");
    let cycles = sibling_cycles(dir.path());
    assert!(
        cycles.iter().any(|c| c == ": a -> b -> c -> a"),
        "{cycles:?}"
    );
}
