//! Maven: every `pom.xml` is a module named `groupId:artifactId` (the group inherited from
//! `<parent>` when the POM has none). An aggregator's `<modules>` make a reactor, the
//! aggregator and every module it reaches; a module depends on another module of the
//! repository when its `<dependencies>`, its build `<plugins>` or its `<parent>` name that
//! module's coordinates, as Maven orders the reactor. DTDs are refused, so an entity bomb is
//! never expanded.

use std::collections::HashMap;

use roxmltree::{Document, Node, ParsingOptions};

use super::{Builder, Ecosystem, Manifests};
use crate::files::{join, parent};
use crate::text::LineIndex;

/// How many XML nodes one POM may hold.
const MAX_NODES: u32 = 1_000_000;

/// What the graph reads of one POM.
#[derive(Debug, Default)]
struct Pom {
    group: Option<String>,
    artifact: Option<String>,
    version: Option<String>,
    /// `<parent>`: its coordinates and line.
    parent: Option<(String, String, u32)>,
    /// `<modules>`: directories (or POM files) as written, with their lines.
    modules: Vec<(String, u32)>,
    /// Dependencies and build plugins: (kind, group, artifact, line).
    uses: Vec<(&'static str, String, String, u32)>,
}

fn child<'a>(node: Node<'a, 'a>, name: &str) -> Option<Node<'a, 'a>> {
    node.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
}

fn text_of(node: Node<'_, '_>, name: &str) -> Option<String> {
    child(node, name)
        .and_then(|c| c.text())
        .map(|t| t.trim().to_owned())
        .filter(|t| !t.is_empty())
}

fn parse(text: &str) -> Result<Pom, (Option<u32>, String)> {
    let options = ParsingOptions {
        allow_dtd: false,
        nodes_limit: MAX_NODES,
        ..ParsingOptions::default()
    };
    let doc = Document::parse_with_options(text, options).map_err(|err| {
        let message = if matches!(err, roxmltree::Error::DtdDetected) {
            "a POM may not have a DOCTYPE: agg does not read DTDs".to_owned()
        } else {
            format!("invalid XML: {err}")
        };
        (Some(err.pos().row), message)
    })?;
    let lines = LineIndex::new(text);
    let line = |n: Node<'_, '_>| lines.line(n.range().start);
    let project = doc.root_element();
    if project.tag_name().name() != "project" {
        return Err((Some(1), "the root element is not <project>".to_owned()));
    }
    let mut pom = Pom {
        group: text_of(project, "groupId"),
        artifact: text_of(project, "artifactId"),
        version: text_of(project, "version"),
        ..Pom::default()
    };
    if let Some(p) = child(project, "parent")
        && let (Some(g), Some(a)) = (text_of(p, "groupId"), text_of(p, "artifactId"))
    {
        pom.group.get_or_insert_with(|| g.clone());
        pom.parent = Some((g, a, line(p)));
    }
    let group = pom.group.clone().unwrap_or_default();
    let coordinates = |n: Node<'_, '_>| {
        let g = match text_of(n, "groupId") {
            Some(g) if g == "${project.groupId}" || g == "${pom.groupId}" => group.clone(),
            Some(g) => g,
            // A plugin's group defaults to Maven's own.
            None if n.tag_name().name() == "plugin" => "org.apache.maven.plugins".to_owned(),
            None => String::new(),
        };
        text_of(n, "artifactId").map(|a| (g, a))
    };
    if let Some(modules) = child(project, "modules") {
        for m in modules
            .children()
            .filter(|c| c.is_element() && c.tag_name().name() == "module")
        {
            if let Some(t) = m.text().map(str::trim).filter(|t| !t.is_empty()) {
                pom.modules.push((t.to_owned(), line(m)));
            }
        }
    }
    if let Some(deps) = child(project, "dependencies") {
        for d in deps
            .children()
            .filter(|c| c.is_element() && c.tag_name().name() == "dependency")
        {
            if let Some((g, a)) = coordinates(d) {
                pom.uses.push(("dependency", g, a, line(d)));
            }
        }
    }
    if let Some(plugins) = child(project, "build").and_then(|b| child(b, "plugins")) {
        for p in plugins
            .children()
            .filter(|c| c.is_element() && c.tag_name().name() == "plugin")
        {
            if let Some((g, a)) = coordinates(p) {
                pom.uses.push(("plugin", g, a, line(p)));
            }
        }
    }
    Ok(pom)
}

pub(super) fn read(found: &Manifests<'_>, b: &mut Builder) {
    let mut poms: HashMap<&str, Pom> = HashMap::new();
    let mut by_coordinates: HashMap<(String, String), usize> = HashMap::new();
    for &path in found.named("pom.xml") {
        let pom = match found.text(path) {
            Ok(text) => match parse(&text) {
                Ok(pom) => pom,
                Err((line, message)) => {
                    b.diag(
                        path,
                        line,
                        format!("{message}; the module is left out of the workspace graph"),
                    );
                    continue;
                }
            },
            Err(reason) => {
                b.diag(path, None, format!("cannot read: {reason}"));
                continue;
            }
        };
        let Some(artifact) = pom.artifact.clone() else {
            b.diag(
                path,
                None,
                "no <artifactId>; the module is left out of the workspace graph",
            );
            continue;
        };
        let group = pom.group.clone().unwrap_or_default();
        let i = b.package(Ecosystem::Maven, &format!("{group}:{artifact}"), path);
        b.graph.packages[i].version.clone_from(&pom.version);
        by_coordinates.entry((group, artifact)).or_insert(i);
        poms.insert(path, pom);
    }
    // Reactors: every aggregator no other aggregator lists, with every module it reaches.
    let module_dirs = |path: &str, pom: &Pom| -> Vec<(String, u32)> {
        pom.modules
            .iter()
            .filter_map(|(m, line)| {
                let target = join(parent(path), m.trim_end_matches('/'))?;
                let dir = if std::path::Path::new(&target)
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("xml"))
                {
                    parent(&target).to_owned()
                } else {
                    target
                };
                Some((dir, *line))
            })
            .collect()
    };
    let mut listed = std::collections::HashSet::new();
    for (path, pom) in &poms {
        for (dir, _) in module_dirs(path, pom) {
            listed.insert(dir);
        }
    }
    let mut tops: Vec<&str> = poms
        .iter()
        .filter(|(p, pom)| !pom.modules.is_empty() && !listed.contains(parent(p)))
        .map(|(p, _)| *p)
        .collect();
    tops.sort_unstable();
    for top in tops {
        let mut members = Vec::new();
        let mut queue = vec![top.to_owned()];
        while let Some(path) = queue.pop() {
            let Some(i) = b.find(Ecosystem::Maven, parent(&path)) else {
                continue;
            };
            if members.contains(&i) {
                continue;
            }
            members.push(i);
            if let Some(pom) = poms.get(path.as_str()) {
                for (dir, line) in module_dirs(&path, pom) {
                    let pom_path = join(&dir, "pom.xml").unwrap_or_default();
                    if found.has(&pom_path) {
                        queue.push(pom_path);
                    } else {
                        b.diag(&path, Some(line), format!("module `{dir}` has no pom.xml"));
                    }
                }
            }
        }
        let shared = found.present(parent(top), &["pom.xml"]);
        b.workspace("maven", Ecosystem::Maven, top, members, shared);
    }
    for (path, pom) in &poms {
        let Some(from) = b.find(Ecosystem::Maven, parent(path)) else {
            continue;
        };
        if let Some((g, a, line)) = &pom.parent
            && let Some(&to) = by_coordinates.get(&(g.clone(), a.clone()))
        {
            b.dep(from, to, "parent", Some(*line));
        }
        for (kind, g, a, line) in &pom.uses {
            if let Some(&to) = by_coordinates.get(&(g.clone(), a.clone())) {
                b.dep(from, to, kind, Some(*line));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use indoc::indoc;

    #[test]
    fn a_pom_gives_its_coordinates_modules_and_uses() {
        let pom = parse(
            indoc! {"
                <project>
                  <parent><groupId>com.acme</groupId><artifactId>root</artifactId></parent>
                  <artifactId>web</artifactId>
                  <dependencies>
                    <dependency><groupId>${project.groupId}</groupId><artifactId>core</artifactId></dependency>
                  </dependencies>
                  <build><plugins><plugin><artifactId>maven-jar-plugin</artifactId></plugin></plugins></build>
                </project>
            "},
        )
        .expect("valid");
        assert_eq!(pom.group.as_deref(), Some("com.acme"));
        assert_eq!(
            pom.parent,
            Some(("com.acme".to_owned(), "root".to_owned(), 2))
        );
        assert_eq!(
            pom.uses[0],
            ("dependency", "com.acme".to_owned(), "core".to_owned(), 5)
        );
        assert_eq!(pom.uses[1].1, "org.apache.maven.plugins");
        let bomb = parse("<!DOCTYPE x [<!ENTITY a \"aaaa\">]><project/>");
        assert!(bomb.is_err_and(|(_, m)| m.contains("DOCTYPE")));
    }
}
