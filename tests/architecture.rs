//! The house rule that arrows point down: no module of either crate (`src/`, `runners/src/`)
//! imports one that imports it back, at any level of the module tree. Each `crate::a::b` or
//! `super::x` path in a file (test modules and comments aside) is an edge from its module
//! to the module it names; edges are compared between siblings — the two children of the
//! modules' lowest common ancestor — and any cycle among siblings fails with its path.
//! A path to an ancestor (a re-export such as `crate::mcp::Server`) counts as an edge to
//! that ancestor, which is not a sibling, so re-exports hide nothing only as long as a
//! module's `mod.rs` defines no items its children need.
//!
//! `runners/src` has floors besides: the bottom floor ([`BOTTOM`]: the task model, the
//! read-only file view, text helpers, the one document tree) names nothing above it; an
//! adapter names the bottom floor and its own room only, never another adapter; the registry
//! and the crate root name anything. A name the crate root re-exports (`crate::join`) counts
//! as the module it comes from.
//!
//! The runner catalog is finished when `src/` neither matches on the runner
//! ([`runner_arms`]) nor names an adapter's module ([`adapter_paths`]): what a runner does
//! differently lives in `runners/`, on its descriptor or on what its adapter returns.

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
        if after.starts_with('{') && (ident.is_empty() || ident.ends_with("::")) {
            // `crate::a::{b, c::D}`, `crate::{a::B, c}`: one path per item.
            let inner: String = after[1..].chars().take_while(|c| *c != '}').collect();
            for item in inner.split(',') {
                let mut p = full.clone();
                p.extend(
                    item.split("::")
                        .map(str::trim)
                        .take_while(|s| !s.is_empty() && *s != "self" && !s.starts_with('{'))
                        .map(str::to_owned),
                );
                out.push(p);
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

/// Writes `text` at `path` below `dir`: one file of a planted source tree.
fn plant(dir: &Path, path: &str, text: &str) {
    let full = dir.join(path);
    std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
    std::fs::write(full, text).expect("write");
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
    let write = |p: &str, t: &str| plant(dir.path(), p, t);
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

/// The bottom floor of `runners/src`: what every adapter may use.
const BOTTOM: &[&str] = &[
    "model", "passing", "reads", "files", "text", "token", "doc", "testing",
];
/// The top floor: it lists the adapters, so it names them all.
const TOP: &[&str] = &["registry"];

/// What the crate root (`lib.rs`) re-exports: a name and the module it comes from
/// (`pub use files::{join, parent};` → `join` → `files`).
fn root_exports(src: &Path) -> BTreeMap<String, String> {
    let code = code_of(&std::fs::read_to_string(src.join("lib.rs")).unwrap_or_default());
    let mut out = BTreeMap::new();
    for statement in code.split(';') {
        let Some(at) = statement.find("use ") else {
            continue;
        };
        let body = statement[at + 4..].trim();
        let Some((module, items)) = body.split_once("::") else {
            continue;
        };
        let items = items.trim().trim_start_matches('{').trim_end_matches('}');
        for item in items.split(',') {
            let name = item.trim().rsplit("::").next().unwrap_or("").trim();
            if !name.is_empty() {
                out.insert(name.to_owned(), module.trim().to_owned());
            }
        }
    }
    out
}

/// Each `crate::` path in `runners/src` that steps off its floor, as `file: what`.
fn floor_violations(src: &Path) -> Vec<String> {
    let known = modules(src);
    let exports = root_exports(src);
    let mut out = Vec::new();
    for (module, file) in &known {
        let Some(room) = module.first() else {
            continue; // the crate root
        };
        if TOP.contains(&room.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("read");
        for path in paths(&code_of(&text), module) {
            let target = resolve(&known, &path);
            let named = match target.first() {
                Some(first) => first.clone(),
                // A name the root re-exports, or something of the root itself.
                None => match path.first().and_then(|name| exports.get(name)) {
                    Some(module) => module.clone(),
                    None => continue,
                },
            };
            let allowed = named == *room || BOTTOM.contains(&named.as_str());
            let bottom = BOTTOM.contains(&room.as_str());
            if !allowed || (bottom && !BOTTOM.contains(&named.as_str())) {
                let rel = file.strip_prefix(src).unwrap_or(file);
                out.push(format!("{}: crate::{}", rel.display(), path.join("::")));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn runner_adapters_use_the_bottom_floor_and_never_each_other() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("runners/src");
    for floor in BOTTOM.iter().chain(TOP) {
        assert!(
            src.join(format!("{floor}.rs")).is_file() || src.join(floor).join("mod.rs").is_file(),
            "runners/src has no module `{floor}`: update the floors in tests/architecture.rs"
        );
    }
    let violations = floor_violations(&src);
    assert!(
        violations.is_empty(),
        "imports across the floors of runners/src (the bottom floor, {}, names only itself; an \
         adapter names the bottom floor and its own room, never another adapter):\n{}",
        BOTTOM.join(", "),
        violations.join("\n")
    );
}

#[test]
fn the_floor_checker_finds_a_sideways_import_and_one_back_up() {
    let dir = tempfile::tempdir().expect("tmp");
    let write = |p: &str, t: &str| plant(dir.path(), p, t);
    write(
        "lib.rs",
        "mod files;\nmod model;\nmod a;\nmod b;\nmod registry;\npub use files::{join, parent};\npub use a::helper;\n",
    );
    write("files.rs", "pub fn join() {}\npub fn parent() {}\n");
    write("model.rs", "use crate::files::join;\n");
    write(
        "registry.rs",
        "use crate::a::ADAPTER;\nuse crate::b::ADAPTER;\n",
    );
    write(
        "a/mod.rs",
        "mod part;\nuse crate::model::Task;\nuse crate::join;\n",
    );
    write(
        "a/part.rs",
        "use super::super::files::parent;\nuse crate::a::ADAPTER;\n#[cfg(test)]\nmod tests { use crate::b::X; }\n",
    );
    write("b.rs", "use crate::model::Task;\n// use crate::a::X;\n");
    assert_eq!(floor_violations(dir.path()), Vec::<String>::new());
    write(
        "b.rs",
        "use crate::{model::Task, a::part::X};\nuse crate::helper;\n",
    );
    write("model.rs", "use crate::registry::ADAPTERS;\n");
    let found = floor_violations(dir.path());
    let files: Vec<&str> = found
        .iter()
        .map(|v| v.split(':').next().unwrap_or(""))
        .collect();
    assert_eq!(files, ["b.rs", "b.rs", "model.rs"], "{found:#?}");
    assert!(found[0].contains("crate::a::part::X"), "{found:#?}");
    assert!(found[1].contains("crate::helper"), "{found:#?}");
}

/// The parser crates of the one document tree: only `runners/src/doc/` names them.
const PARSERS: &[&str] = &["serde_json", "toml", "serde_saphyr", "jsonc_parser"];

/// Whether `code` names the crate `name`: a path through it (`toml::de`, `::toml::de`, not
/// `crate::doc::toml::x`) or a `use`/`extern crate` of the crate itself (`use toml;`,
/// `use serde_json as json;`).
fn names_crate(code: &str, name: &str) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    code.match_indices(name).any(|(i, _)| {
        let before = &code[..i];
        let after = &code[i + name.len()..];
        if before.ends_with(ident) || after.starts_with(ident) {
            return false;
        }
        let leading = before.strip_suffix("::");
        let through = after.starts_with("::")
            && leading.is_none_or(|b| !b.ends_with(|c: char| ident(c) || c == '>'));
        let head = before.trim_end_matches([' ', '{']);
        let used = head
            .strip_suffix("use")
            .is_some_and(|b| !b.ends_with(ident))
            || head.ends_with("extern crate");
        through || used
    })
}

/// Each module of `runners/src` outside `doc/` (test modules and comments aside) that names a
/// parser crate, as `file: crate`.
fn parser_uses(src: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for (module, file) in &modules(src) {
        if module.first().is_some_and(|m| m == "doc") || module.last().is_some_and(|m| m == "tests")
        {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(file).expect("read"));
        for parser in PARSERS {
            if names_crate(&code, parser) {
                let rel = file.strip_prefix(src).unwrap_or(file);
                out.push(format!("{}: {parser}", rel.display()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn only_the_document_tree_names_the_parser_crates() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("runners/src");
    assert!(
        src.join("doc/mod.rs").is_file(),
        "runners/src has no `doc/`: update tests/architecture.rs"
    );
    let found = parser_uses(&src);
    assert!(
        found.is_empty(),
        "modules of runners/src outside doc/ that name a parser crate ({}); read the file \
         through crate::doc, extending it where it lacks something:\n{}",
        PARSERS.join(", "),
        found.join("\n")
    );
}

#[test]
fn the_parser_checker_finds_a_planted_use() {
    let dir = tempfile::tempdir().expect("tmp");
    let write = |p: &str, t: &str| plant(dir.path(), p, t);
    write("lib.rs", "mod doc;\nmod a;\nmod b;\n");
    write(
        "doc/mod.rs",
        "mod json;\nfn f() -> serde_json::Value { todo!() }\n",
    );
    write(
        "doc/json.rs",
        "use jsonc_parser::ast;\nuse ::toml::de::DeTable;\n",
    );
    write(
        "a/mod.rs",
        "mod tests;\nuse crate::doc::toml::read;\n// serde_json::from_str\nlet s = \"config.toml\";\nlet t = my_toml::x;\n#[cfg(test)]\nmod t { use serde_json::json; }\n",
    );
    write("a/tests.rs", "use serde_json::Value;\n");
    write(
        "b.rs",
        "let x = doc::toml::y;\nlet y = <T as serde::Deserialize>::toml;\n",
    );
    assert_eq!(parser_uses(dir.path()), Vec::<String>::new());
    write("b.rs", "use toml::de::{DeTable, DeValue};\n");
    write(
        "a/mod.rs",
        "let v = ::serde_saphyr::from_str(t);\nuse {jsonc_parser as j};\nextern crate serde_json;\n",
    );
    assert_eq!(
        parser_uses(dir.path()),
        [
            "a/mod.rs: jsonc_parser",
            "a/mod.rs: serde_json",
            "a/mod.rs: serde_saphyr",
            "b.rs: toml"
        ]
    );
}

/// Where `code` matches on the runner: an arm or pattern naming a runner (`Runner::Make =>`,
/// `Runner::Npm | Runner::Pnpm`, `Runner::GoTask if …`) or a `matches!` over runners, as the
/// text from that point to the end of its line.
fn runner_arms(code: &str) -> Vec<String> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = Vec::new();
    for (i, _) in code.match_indices("Runner::") {
        if code[..i].ends_with(ident) {
            continue;
        }
        let rest = &code[i + "Runner::".len()..];
        let after = rest.trim_start_matches(ident).trim_start();
        let arm = after.starts_with("=>")
            || (after.starts_with('|') && !after.starts_with("||"))
            || after.starts_with("if ");
        let in_matches = code[..i]
            .rfind("matches!(")
            .is_some_and(|m| !code[m..i].contains(';'));
        if arm || in_matches {
            out.push(code[i..].lines().next().unwrap_or_default().to_owned());
        }
    }
    out
}

/// Each match on the runner in the `.rs` files below `src` (test modules and comments
/// aside), as `file: text`.
fn runner_matches(src: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for (module, file) in &modules(src) {
        if module.last().is_some_and(|m| m == "tests") {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(file).expect("read"));
        for arm in runner_arms(&code) {
            let rel = file.strip_prefix(src).unwrap_or(file);
            out.push(format!("{}: {arm}", rel.display()));
        }
    }
    out.sort();
    out
}

/// What a runner does differently is a fact of its adapter or its descriptor
/// (`runners/`): the agg crate reads it from there and never matches on the runner, so that
/// adding a runner touches no file of `src/`.
#[test]
fn the_agg_crate_never_matches_on_the_runner() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = runner_matches(&src);
    assert!(
        found.is_empty(),
        "matches on the runner in src/; make it a field of the runner's Descriptor or of \
         what its adapter returns (a Param's Passing):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_runner_match_checker_finds_a_planted_arm() {
    let arms = runner_arms(
        "let f = match r {\n    Runner::Make => \"Makefile\",\n    _ => \"\",\n};\n\
         let s = matches!(r,\n    Runner::Npm\n        | Runner::Pnpm);\n\
         match r { Runner::GoTask if stars > 0 => 1, _ => 0 }\n\
         let plain = r == Runner::Just || r == Runner::Xc;\nlet all = Runner::ALL;\n\
         let other = MyRunner::Make => 1;\n",
    );
    assert_eq!(
        arms,
        [
            "Runner::Make => \"Makefile\",",
            "Runner::Npm",
            "Runner::Pnpm);",
            "Runner::GoTask if stars > 0 => 1, _ => 0 }"
        ]
    );
}

/// The adapter modules of `runners/src`, as the registry names them (`make`, `js`, …).
fn adapter_modules(runners_src: &Path) -> BTreeSet<String> {
    let registry = std::fs::read_to_string(runners_src.join("registry.rs")).expect("read");
    code_of(&registry)
        .split("crate::")
        .skip(1)
        .filter_map(|rest| {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            (!name.is_empty() && rest[name.len()..].starts_with("::")).then_some(name)
        })
        .collect()
}

/// Each path of `src` code through an adapter module of `runners/src` (`agg_runners::js::…`,
/// `use agg_runners::{python, …}`), as `file: module`.
fn adapter_paths(src: &Path, adapters: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    for (module, file) in &modules(src) {
        if module.last().is_some_and(|m| m == "tests") {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(file).expect("read"));
        for (i, _) in code.match_indices("agg_runners::") {
            let rest = &code[i + "agg_runners::".len()..];
            let first = |path: &str| {
                let path = path.trim_start();
                path[..path
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(path.len())]
                    .to_owned()
            };
            let segments: Vec<String> = match rest.strip_prefix('{') {
                Some(group) => group
                    .split_once('}')
                    .map_or(group, |(g, _)| g)
                    .split(',')
                    .map(first)
                    .collect(),
                None => vec![first(rest)],
            };
            let named = segments.iter().find(|m| adapters.contains(m.as_str()));
            if let Some(module) = named {
                let rel = file.strip_prefix(src).unwrap_or(file);
                out.push(format!("{}: {module}", rel.display()));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The agg crate reaches the adapters only through the registry and the fields of their
/// `Adapter` (which files they read, which neighbours make them read a file again), never
/// through an adapter's own module: an ecosystem's file names and conventions stay in it.
#[test]
fn the_agg_crate_reaches_adapters_only_through_the_registry() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let adapters = adapter_modules(&root.join("runners/src"));
    for expected in ["make", "js", "python", "just", "mise"] {
        assert!(adapters.contains(expected), "{adapters:?}");
    }
    let found = adapter_paths(&root.join("src"), &adapters);
    assert!(
        found.is_empty(),
        "src/ names an adapter module of runners/src; put what it needs on the Adapter, \
         the Descriptor or the crate root:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_adapter_path_checker_finds_a_planted_path() {
    let dir = tempfile::tempdir().expect("tmp");
    let write = |p: &str, t: &str| plant(dir.path(), p, t);
    write("lib.rs", "mod a;\nmod b;\n");
    write(
        "a.rs",
        "use agg_runners::{Runner, python};\nfn f() { agg_runners::js::MARKERS; }\n",
    );
    write(
        "b.rs",
        "use agg_runners::{ADAPTERS, graph};\n// agg_runners::js::x\n#[cfg(test)]\nmod t { use agg_runners::make; }\n",
    );
    let adapters: BTreeSet<String> = ["js", "make", "python"].map(str::to_owned).into();
    assert_eq!(
        adapter_paths(dir.path(), &adapters),
        ["a.rs: js", "a.rs: python"]
    );
}

/// Every `.rs` file below `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = modules(dir).into_values().collect();
    out.sort();
    out
}

/// Files of `src/` and `runners/src/` (tests included) that take over a poisoned lock
/// themselves instead of through `src/lock.rs`.
fn poison_takers(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for src in ["src", "runners/src"] {
        for file in rust_files(&root.join(src)) {
            let rel = file.strip_prefix(root).unwrap_or(&file);
            if rel == Path::new("src/lock.rs") {
                continue;
            }
            let text = std::fs::read_to_string(&file).expect("read");
            if text.contains("PoisonError::into_inner") {
                out.push(rel.display().to_string());
            }
        }
    }
    out
}

#[test]
fn one_helper_takes_over_a_poisoned_lock() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    assert!(
        root.join("src/lock.rs").is_file(),
        "src/lock.rs is gone: update tests/architecture.rs"
    );
    let found = poison_takers(root);
    assert!(
        found.is_empty(),
        "files that handle a poisoned lock by hand; use `crate::lock::{{MutexExt, RwLockExt}}` \
         (`.locked()`, `.read_locked()`, `.write_locked()`):\n{}",
        found.join("\n")
    );
}

/// Each path in a module of `src` (the crate root aside) that names an item through a
/// re-export of the crate root (`crate::Adapter` for `crate::model::Adapter`): an arrow
/// back up to the root, which imports every module, as `file: path`.
fn through_the_root(src: &Path) -> Vec<String> {
    let known = modules(src);
    let exports = root_exports(src);
    let mut out = Vec::new();
    for (module, file) in &known {
        if module.is_empty() {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("read");
        for path in paths(&code_of(&text), module) {
            if resolve(&known, &path).is_empty()
                && path.first().is_some_and(|name| exports.contains_key(name))
            {
                let rel = file.strip_prefix(src).unwrap_or(file);
                out.push(format!("{}: crate::{}", rel.display(), path.join("::")));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

#[test]
fn no_module_names_an_item_through_the_crate_root() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for src in ["src", "runners/src"] {
        found.extend(
            through_the_root(&root.join(src))
                .into_iter()
                .map(|f| format!("{src}/{f}")),
        );
    }
    assert!(
        found.is_empty(),
        "modules that reach an item through the crate root's re-exports; name it at its \
         module (`crate::model::Adapter`, not `crate::Adapter`):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_root_checker_finds_a_planted_arrow_back_up() {
    let dir = tempfile::tempdir().expect("tmp");
    let write = |p: &str, t: &str| plant(dir.path(), p, t);
    write(
        "lib.rs",
        "mod model;\nmod registry;\npub use model::Adapter;\n",
    );
    write("model.rs", "pub struct Adapter;\n");
    write(
        "registry.rs",
        "use crate::model::Adapter;\n// use crate::Adapter;\n",
    );
    assert_eq!(through_the_root(dir.path()), Vec::<String>::new());
    write("registry.rs", "use crate::{Adapter, model};\n");
    assert_eq!(
        through_the_root(dir.path()),
        ["registry.rs: crate::Adapter"]
    );
}

/// Every `Result<T, E>` in the code of `src` (tests aside) whose error `E` is text (`String`,
/// `&str`): an error that lost its cause, or never had a type. As `file: Result<…>`.
fn string_errors(src: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for (module, file) in &modules(src) {
        if module
            .last()
            .is_some_and(|m| m == "tests" || m == "testing")
        {
            continue;
        }
        let code = code_of(&std::fs::read_to_string(file).expect("read"));
        let bytes = code.as_bytes();
        for (at, _) in code.match_indices("Result<") {
            if at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_') {
                continue;
            }
            // The generic arguments, split at the commas of the outermost level.
            let (mut depth, mut nest) = (1, 0);
            let mut args = vec![String::new()];
            let mut prev = '<';
            for c in code[at + "Result<".len()..].chars() {
                match c {
                    '<' => depth += 1,
                    '>' if prev != '-' => depth -= 1,
                    '(' | '[' => nest += 1,
                    ')' | ']' => nest -= 1,
                    _ => {}
                }
                if depth == 0 {
                    break;
                }
                if depth == 1 && nest == 0 && c == ',' {
                    args.push(String::new());
                } else if let Some(last) = args.last_mut() {
                    last.push(c);
                }
                prev = c;
            }
            let text = ["String", "&str", "&'static str"];
            if args.len() == 2 && text.contains(&args[1].trim()) {
                let rel = file.strip_prefix(src).unwrap_or(file);
                out.push(format!(
                    "{}: Result<{}, {}>",
                    rel.display(),
                    args[0].trim(),
                    args[1].trim()
                ));
            }
        }
    }
    out
}

/// How many `Result<_, String>` each crate has outside its tests: none. An error is a type
/// that keeps its cause, worded in its `Display`.
const STRING_ERRORS_LEFT: [(&str, usize); 2] = [("src", 0), ("runners/src", 0)];

#[test]
fn errors_are_types_not_text() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (src, left) in STRING_ERRORS_LEFT {
        let found = string_errors(&root.join(src));
        assert!(
            found.len() <= left,
            "{src} has {} errors that are text, {left} allowed; give the new ones a type that \
             keeps its cause (an enum with a Display, as src/repo_files.rs's ReadError):\n{}",
            found.len(),
            found.join("\n")
        );
        assert!(
            found.len() >= left,
            "{src} has {} errors that are text, fewer than {left}: lower STRING_ERRORS_LEFT in \
             tests/architecture.rs to {}",
            found.len(),
            found.len()
        );
    }
}

#[test]
fn the_string_error_checker_finds_a_planted_one() {
    let dir = tempfile::tempdir().expect("tmp");
    let write = |p: &str, t: &str| plant(dir.path(), p, t);
    write("lib.rs", "mod a;\nmod b;\n");
    write(
        "a.rs",
        "fn f() -> Result<Vec<String>, Error> {}\nfn g() -> io::Result<String> {}\n\
         fn h(f: &dyn Fn() -> u8) -> Result<HashMap<String, u8>, MyError> {}\n\
         // fn x() -> Result<(), String>\n#[cfg(test)]\nmod t { fn y() -> Result<(), String> {} }\n",
    );
    assert_eq!(string_errors(dir.path()), Vec::<String>::new());
    write(
        "b.rs",
        "fn p(s: &str) -> Result<(u8, String), String> {}\ntype R = Result<Vec<u8>, &'static str>;\n",
    );
    assert_eq!(
        string_errors(dir.path()),
        [
            "b.rs: Result<(u8, String), String>",
            "b.rs: Result<Vec<u8>, &'static str>"
        ]
    );
}

/// The longest a function may be, in lines from its `fn` to its closing brace.
const MAX_FUNCTION_LINES: usize = 120;

/// The functions over [`MAX_FUNCTION_LINES`] when the bound was set, each with its length
/// then: most are a parser's or a writer's one `match` over every case (a tokenizer, a
/// report format, `Display` of every error), the others wait to be split. The list may only
/// shrink: a function that grows past the bound fails, and one that no longer does asks to
/// be taken off.
const LONG_FUNCTIONS: &[(&str, &str, usize)] = &[
    // The `Display` of every error agg reports: one match, a variant an arm, the one
    // place their words are kept.
    ("src/error.rs", "fmt", 133),
];

/// `(file, function, lines)` of every function in `text` longer than `max` lines: from a
/// line that declares it (`fn`, with any qualifiers) to the first line after it that closes
/// a brace at the declaration's indentation. rustfmt's layout makes that the function's end.
fn long_functions(file: &str, text: &str, max: usize) -> Vec<(String, String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let rest = [
            "pub(crate) ",
            "pub(super) ",
            "pub ",
            "async ",
            "const ",
            "unsafe ",
        ]
        .iter()
        .fold(trimmed, |rest, q| rest.strip_prefix(q).unwrap_or(rest));
        let Some(name) = rest.strip_prefix("fn ") else {
            continue;
        };
        if line.trim_end().ends_with(';') {
            continue;
        }
        let name: String = name
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let close = format!("{indent}}}");
        let Some(end) = lines[i + 1..].iter().position(|l| l.trim_end() == close) else {
            continue;
        };
        let length = end + 2;
        if length > max {
            out.push((file.to_owned(), name, length));
        }
    }
    out
}

#[test]
fn no_function_grows_past_the_bound() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for src in ["src", "runners/src"] {
        for file in rust_files(&root.join(src)) {
            let rel = file.strip_prefix(root).unwrap_or(&file);
            let text = std::fs::read_to_string(&file).expect("read");
            found.extend(long_functions(
                &rel.to_string_lossy(),
                &text,
                MAX_FUNCTION_LINES,
            ));
        }
    }
    let mut grown = Vec::new();
    for (file, name, length) in &found {
        let known = LONG_FUNCTIONS
            .iter()
            .find(|(f, n, _)| f == file && n == name);
        match known {
            Some((_, _, then)) if length <= then => {}
            Some((_, _, then)) => grown.push(format!(
                "{file}: fn {name} grew from {then} to {length} lines"
            )),
            None => grown.push(format!(
                "{file}: fn {name} is {length} lines (at most {MAX_FUNCTION_LINES})"
            )),
        }
    }
    assert!(grown.is_empty(), "split these: {grown:#?}");
    let shrunk: Vec<String> = LONG_FUNCTIONS
        .iter()
        .filter(|(f, n, _)| !found.iter().any(|(file, name, _)| file == f && name == n))
        .map(|(f, n, _)| format!("{f}: fn {n}"))
        .collect();
    assert!(
        shrunk.is_empty(),
        "now within {MAX_FUNCTION_LINES} lines: take them off LONG_FUNCTIONS: {shrunk:?}"
    );
}

#[test]
fn the_length_checker_finds_a_planted_long_function() {
    let body = "    let x = 1;\n".repeat(130);
    let text = format!("fn short() {{\n}}\n\npub(crate) fn long() {{\n{body}}}\n");
    assert_eq!(
        long_functions("a.rs", &text, MAX_FUNCTION_LINES),
        [("a.rs".to_owned(), "long".to_owned(), 132)]
    );
}
