//! Go modules: each `go.mod` is a package named by its `module` path. A module depends on
//! another of the repository when it requires that module's path and a `replace` directive
//! (its own, or the `go.work` of its workspace) points the path at the other module's
//! directory, or when both are `use`d by one `go.work` (the workspace then resolves the path to
//! its member). Requirements resolved from the module proxy are outside the repository.

use std::collections::HashMap;

use super::{Builder, Ecosystem, Manifests};
use crate::files::{join, parent};

/// What a `go.mod` or `go.work` says, as far as the graph reads it.
#[derive(Debug, Default, PartialEq, Eq)]
struct Directives {
    /// The `module` path.
    module: Option<String>,
    /// Required module paths, with their lines.
    requires: Vec<(String, u32)>,
    /// `replace` directives to a local directory: (module path, directory as written, line).
    replaces: Vec<(String, String, u32)>,
    /// `use` directories (go.work), with their lines.
    uses: Vec<(String, u32)>,
}

/// The words of a line, without its comment, unquoting quoted words.
fn words(line: &str) -> Vec<String> {
    let line = match line.find("//") {
        Some(i) => &line[..i],
        None => line,
    };
    let mut out = Vec::new();
    let mut rest = line.trim();
    while !rest.is_empty() {
        if let Some(q) = rest.strip_prefix('"').or_else(|| rest.strip_prefix('`')) {
            let end = q.find(['"', '`']).unwrap_or(q.len());
            out.push(q[..end].to_owned());
            rest = q.get(end + 1..).unwrap_or("").trim_start();
        } else {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            out.push(rest[..end].to_owned());
            rest = rest[end..].trim_start();
        }
    }
    out
}

fn parse(text: &str) -> Directives {
    let mut d = Directives::default();
    let mut block: Option<String> = None;
    for (n, line) in text.lines().enumerate() {
        let line_no = u32::try_from(n + 1).unwrap_or(u32::MAX);
        let mut w = words(line);
        if w.is_empty() {
            continue;
        }
        let verb = match &block {
            Some(_) if w[0] == ")" => {
                block = None;
                continue;
            }
            Some(verb) => verb.clone(),
            None => {
                let verb = w.remove(0);
                if w.first().is_some_and(|x| x == "(") {
                    block = Some(verb);
                    continue;
                }
                verb
            }
        };
        match verb.as_str() {
            "module" => d.module = w.first().cloned(),
            "require" => {
                if let Some(path) = w.first() {
                    d.requires.push((path.clone(), line_no));
                }
            }
            "replace" => {
                if let Some(arrow) = w.iter().position(|x| x == "=>")
                    && let (Some(from), Some(to)) = (w.first(), w.get(arrow + 1))
                    && (to.starts_with("./") || to.starts_with("../") || to == "." || to == "..")
                {
                    d.replaces.push((from.clone(), to.clone(), line_no));
                }
            }
            "use" => {
                if let Some(dir) = w.first() {
                    d.uses.push((dir.clone(), line_no));
                }
            }
            _ => {}
        }
    }
    d
}

pub(super) fn read(found: &Manifests<'_>, b: &mut Builder) {
    let mut mods: HashMap<&str, Directives> = HashMap::new();
    for &path in found.named("go.mod") {
        match found.text(path) {
            Ok(text) => {
                let d = parse(&text);
                match &d.module {
                    Some(module) => {
                        b.package(Ecosystem::Go, module, path);
                    }
                    None => b.diag(
                        path,
                        None,
                        "no `module` line; the module is left out of the workspace graph",
                    ),
                }
                mods.insert(path, d);
            }
            Err(reason) => b.diag(path, None, format!("cannot read: {reason}")),
        }
    }
    // go.work: its members, and its replacements, which apply to every member.
    let mut work_replaces: HashMap<usize, Vec<(String, String, String, u32)>> = HashMap::new();
    let mut works: Vec<&str> = found.named("go.work").to_vec();
    works.sort_by_key(|p| p.matches('/').count());
    for path in works {
        let Ok(text) = found.text(path).map_err(|reason| {
            b.diag(path, None, format!("cannot read: {reason}"));
        }) else {
            continue;
        };
        let d = parse(&text);
        let root = parent(path).to_owned();
        let mut members = Vec::new();
        for (dir, line) in &d.uses {
            match join(&root, dir.trim_end_matches('/')).and_then(|d| b.find(Ecosystem::Go, &d)) {
                Some(m) => members.push(m),
                None => b.diag(path, Some(*line), format!("`use {dir}`: no go.mod there")),
            }
        }
        let shared = found.present(&root, &["go.work", "go.work.sum"]);
        let w = b.workspace("go.work", Ecosystem::Go, path, members, shared);
        let replaces = d
            .replaces
            .iter()
            .map(|(m, to, line)| (m.clone(), to.clone(), path.to_owned(), *line))
            .collect::<Vec<_>>();
        work_replaces.insert(w, replaces);
    }
    for from in 0..b.graph.packages.len() {
        let p = &b.graph.packages[from];
        if p.ecosystem != Ecosystem::Go {
            continue;
        }
        let (manifest, dir, workspace) = (p.manifest.clone(), p.dir.clone(), p.workspace);
        let Some(d) = mods.get(manifest.as_str()) else {
            continue;
        };
        // Where each module path resolves locally: the workspace's members, then replacements
        // (the module's own win over the workspace's).
        let mut local: HashMap<String, (Option<usize>, String, Option<u32>)> = HashMap::new();
        if let Some(w) = workspace {
            for &m in &b.graph.workspaces[w].members {
                local.insert(
                    b.graph.packages[m].name.clone(),
                    (Some(m), "go.work".to_owned(), None),
                );
            }
            for (module, to, file, line) in work_replaces.get(&w).into_iter().flatten() {
                let target = join(parent(file), to).and_then(|t| b.find(Ecosystem::Go, &t));
                local.insert(module.clone(), (target, "replace".to_owned(), Some(*line)));
            }
        }
        for (module, to, line) in &d.replaces {
            let target = join(&dir, to).and_then(|t| b.find(Ecosystem::Go, &t));
            if target.is_none() {
                b.diag(
                    &manifest,
                    Some(*line),
                    format!("`replace {module} => {to}`: no go.mod there"),
                );
            }
            local.insert(module.clone(), (target, "replace".to_owned(), Some(*line)));
        }
        for (module, line) in &d.requires {
            if let Some((Some(to), how, _)) = local.get(module) {
                let kind = if how == "go.work" {
                    "go.work"
                } else {
                    "replace"
                };
                b.dep(from, *to, kind, Some(*line));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use indoc::indoc;

    #[test]
    fn directives_are_read_in_lines_and_blocks() {
        let d = parse(indoc! {"
            module example.com/app // the app

            go 1.22

            require (
            \texample.com/core v0.0.0
            \tgithub.com/x/y v1.2.3 // indirect
            )
            require example.com/util v0.1.0
            replace example.com/core => ../core
            replace (
            \texample.com/util v0.1.0 => \"./util\"
            \tgithub.com/x/y => github.com/z/y v1.0.0
            )
        "});
        assert_eq!(d.module.as_deref(), Some("example.com/app"));
        let required: Vec<&str> = d.requires.iter().map(|(m, _)| m.as_str()).collect();
        assert_eq!(
            required,
            ["example.com/core", "github.com/x/y", "example.com/util"]
        );
        assert_eq!(
            d.replaces,
            [
                ("example.com/core".to_owned(), "../core".to_owned(), 10),
                ("example.com/util".to_owned(), "./util".to_owned(), 12),
            ]
        );
        let w = parse(indoc! {"
            go 1.22

            use (
            \t./app
            \t./core
            )
            use ./tools
        "});
        let used: Vec<&str> = w.uses.iter().map(|(u, _)| u.as_str()).collect();
        assert_eq!(used, ["./app", "./core", "./tools"]);
    }
}
