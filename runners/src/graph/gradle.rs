//! Gradle: a `settings.gradle(.kts)` makes a build of its root project and every project it
//! `include`s (`:a:b` lives in `a/b` unless `project(":a:b").projectDir` moves it); a
//! project depends on another when its build script declares `project(":x")` (or the
//! type-safe `projects.x`) as a dependency of some configuration (`implementation(...)`,
//! `api project(':x')`, `testImplementation(project(path: ":x"))`). The scripts are read as
//! text, never evaluated: a dependency computed by code is not seen.

use std::collections::HashMap;

use super::{Builder, Ecosystem, Manifests};
use crate::files::{join, parent};

const SETTINGS: &[&str] = &["settings.gradle.kts", "settings.gradle"];
const BUILDS: &[&str] = &["build.gradle.kts", "build.gradle"];

/// The quoted strings of `text`, in order.
fn strings(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(['"', '\'']) {
        let quote = rest.as_bytes()[i] as char;
        let after = &rest[i + 1..];
        let Some(end) = after.find(quote) else { break };
        out.push(after[..end].to_owned());
        rest = &after[end + 1..];
    }
    out
}

/// A line without its `//` comment (a `//` inside quotes, as in a URL, is kept).
fn code(line: &str) -> &str {
    let mut quote = None;
    let bytes = line.as_bytes();
    for (i, &c) in bytes.iter().enumerate() {
        match (quote, c) {
            (None, b'"' | b'\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, b'/') if bytes.get(i + 1) == Some(&b'/') => return &line[..i],
            _ => {}
        }
    }
    line
}

/// A project path as Gradle writes it: `:a:b` (a leading `:` added when missing).
fn project_path(p: &str) -> String {
    if p.starts_with(':') {
        p.to_owned()
    } else {
        format!(":{p}")
    }
}

/// What a settings script declares: included project paths and moved project directories.
fn settings(text: &str) -> (Vec<(String, u32)>, HashMap<String, String>) {
    let mut included = Vec::new();
    let mut dirs = HashMap::new();
    for (n, raw) in text.lines().enumerate() {
        let line = code(raw).trim();
        let no = u32::try_from(n + 1).unwrap_or(u32::MAX);
        if let Some(rest) = line
            .strip_prefix("include")
            .filter(|r| r.starts_with(['(', ' ', '\t']))
        {
            for p in strings(rest) {
                included.push((project_path(&p), no));
            }
        } else if line.starts_with("project(") && line.contains("projectDir") {
            let s = strings(line);
            if let (Some(path), Some(dir)) = (s.first(), s.last()) {
                dirs.insert(project_path(path), dir.clone());
            }
        }
    }
    (included, dirs)
}

/// The projects a build script depends on: (project path, line).
fn project_deps(text: &str, names: &HashMap<String, String>) -> Vec<(String, u32)> {
    let mut out = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = code(raw).trim();
        let no = u32::try_from(n + 1).unwrap_or(u32::MAX);
        // `project(":x") { ... }` configures a project; a dependency follows a configuration.
        if line.starts_with("project(") || line.starts_with("evaluationDependsOn") {
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find("project(") {
            let after = &rest[i + "project(".len()..];
            let inner = after.split(')').next().unwrap_or("");
            // `project(path: ':x', configuration: 'y')`: the path is the first string.
            if let Some(p) = strings(inner).first() {
                out.push((project_path(p), no));
            }
            rest = after;
        }
        let mut rest = line;
        while let Some(i) = rest.find("projects.") {
            let before_ok = i == 0 || !rest.as_bytes()[i - 1].is_ascii_alphanumeric();
            let after = &rest[i + "projects.".len()..];
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '_'))
                .unwrap_or(after.len());
            if before_ok && let Some(path) = names.get(&after[..end]) {
                out.push((path.clone(), no));
            }
            rest = &after[end..];
        }
    }
    out
}

/// The type-safe accessor of a project path: `:libs:http-client` → `libs.httpClient`.
fn accessor(path: &str) -> String {
    path.trim_start_matches(':')
        .split(':')
        .map(|part| {
            let mut out = String::new();
            let mut upper = false;
            for c in part.chars() {
                if c == '-' || c == '_' {
                    upper = true;
                } else if upper {
                    out.extend(c.to_uppercase());
                    upper = false;
                } else {
                    out.push(c);
                }
            }
            out
        })
        .collect::<Vec<_>>()
        .join(".")
}

pub(super) fn read(found: &Manifests<'_>, b: &mut Builder) {
    let mut settings_files: Vec<&str> = SETTINGS
        .iter()
        .flat_map(|n| found.named(n).iter().copied())
        .collect();
    settings_files.sort_by_key(|p| (p.matches('/').count(), *p));
    for path in settings_files {
        let root = parent(path).to_owned();
        if b.find(Ecosystem::Gradle, &root).is_some() {
            // A directory with both spellings: Gradle reads the Kotlin one.
            continue;
        }
        let text = match found.text(path) {
            Ok(text) => text,
            Err(reason) => {
                b.diag(path, None, format!("cannot read: {reason}"));
                continue;
            }
        };
        let (included, moved) = settings(&text);
        let build_of = |dir: &str| {
            BUILDS
                .iter()
                .filter_map(|n| join(dir, n))
                .find(|p| found.has(p))
        };
        let root_manifest = build_of(&root).unwrap_or_else(|| path.to_owned());
        let root_i = b.package_at(Ecosystem::Gradle, ":", &root, &root_manifest);
        let mut members = vec![root_i];
        let mut names = HashMap::new();
        for (project, line) in included {
            let rel = moved
                .get(&project)
                .cloned()
                .unwrap_or_else(|| project.trim_start_matches(':').replace(':', "/"));
            let Some(dir) = join(&root, rel.trim_end_matches('/')) else {
                b.diag(
                    path,
                    Some(line),
                    format!("`{project}` lies outside the repository"),
                );
                continue;
            };
            let manifest = build_of(&dir).unwrap_or_else(|| path.to_owned());
            let i = b.package_at(Ecosystem::Gradle, &project, &dir, &manifest);
            if !members.contains(&i) {
                members.push(i);
            }
            names.insert(accessor(&project), project);
        }
        let shared = found.present(
            &root,
            &[
                "settings.gradle.kts",
                "settings.gradle",
                "build.gradle.kts",
                "build.gradle",
                "gradle.properties",
                "gradle/libs.versions.toml",
            ],
        );
        let w = b.workspace("gradle", Ecosystem::Gradle, path, members, shared);
        let members = b.graph.workspaces[w].members.clone();
        let by_path: HashMap<String, usize> = members
            .iter()
            .map(|&m| (b.graph.packages[m].name.clone(), m))
            .collect();
        for from in members {
            let manifest = b.graph.packages[from].manifest.clone();
            if !BUILDS.iter().any(|n| manifest.ends_with(n)) {
                continue;
            }
            let Ok(text) = found.text(&manifest) else {
                continue;
            };
            for (project, line) in project_deps(&text, &names) {
                match by_path.get(&project) {
                    Some(&to) => b.dep(from, to, "project", Some(line)),
                    None => b.diag(
                        &manifest,
                        Some(line),
                        format!(
                            "`project(\"{project}\")`: the settings script includes no such project"
                        ),
                    ),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use indoc::indoc;

    #[test]
    fn settings_and_build_scripts_read_as_text() {
        let (included, moved) = settings(indoc! {"
            rootProject.name = \"shop\"
            include(\"api\", \":libs:http-client\") // two
            include 'worker'
            project(':worker').projectDir = file('services/worker')
        "});
        let paths: Vec<&str> = included.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(paths, [":api", ":libs:http-client", ":worker"]);
        assert_eq!(
            moved.get(":worker").map(String::as_str),
            Some("services/worker")
        );
        let names = HashMap::from([(
            accessor(":libs:http-client"),
            ":libs:http-client".to_owned(),
        )]);
        assert_eq!(accessor(":libs:http-client"), "libs.httpClient");
        let deps = project_deps(
            indoc! {"
                dependencies {
                  implementation(project(\":api\"))
                  testImplementation project(path: ':worker', configuration: 'x')
                  api(projects.libs.httpClient)
                  // implementation(project(\":gone\"))
                }
                project(':api') { }
            "},
            &names,
        );
        assert_eq!(
            deps,
            [
                (":api".to_owned(), 2),
                (":worker".to_owned(), 3),
                (":libs:http-client".to_owned(), 4)
            ]
        );
    }
}
