//! Maven: the lifecycle phases a person runs (`mvn clean`, `mvn verify`, …) and the
//! profiles (`mvn -P ID`) of a reactor, read from its `pom.xml` with roxmltree.
//!
//! A reactor root lists the phases once; its modules (`<modules>`, also inside profiles, and
//! Maven 4's `<subprojects>`) are followed, their `pom.xml` consumed, and every profile any
//! of them declares is listed once, since `mvn -P ID` from the root activates it in each
//! module that has it. A profile task runs `mvn -P ID` followed by the caller's arguments,
//! which are the phases to run; without any, Maven runs the `<defaultGoal>`.
//!
//! DTDs are refused before any entity is read (roxmltree's `allow_dtd: false`), so an entity
//! bomb costs nothing; Maven itself expands none of a DOCTYPE's entities.

use std::collections::{HashSet, VecDeque};

use roxmltree::{Document, Node, ParsingOptions};

use crate::{LineIndex, Parsed, RawTask, Runner, Source, file_name, join, parent};

/// The phases agg lists, in lifecycle order, with what each does.
const PHASES: &[(&str, &str)] = &[
    ("clean", "Delete the build output in target/"),
    (
        "validate",
        "Check that the project is correct and everything it needs is there",
    ),
    ("compile", "Compile the main sources"),
    ("test", "Compile and run the unit tests"),
    ("package", "Package the compiled code (jar, war, …)"),
    (
        "verify",
        "Run the integration tests and checks on the package",
    ),
    ("install", "Install the package into the local repository"),
    ("deploy", "Copy the package to the remote repository"),
    ("site", "Generate the project's site"),
];

/// How many POMs one reactor may pull in; past that the rest is reported, not read.
const MAX_POMS: usize = 1000;

/// How many XML nodes one POM may hold (real ones have a few thousand).
const MAX_NODES: u32 = 1_000_000;

/// What agg reads from one POM.
#[derive(Debug, Default)]
struct Pom {
    /// The line of `<project>`.
    line: u32,
    /// `<name>`, else `<artifactId>`.
    name: Option<String>,
    /// `<artifactId>`: the package its tasks belong to.
    artifact_id: Option<String>,
    /// `<build><defaultGoal>`.
    default_goal: Option<String>,
    /// `<module>`/`<subproject>` entries with their lines, also those of profiles.
    modules: Vec<(String, u32)>,
    /// Profiles: id, line, `<build><defaultGoal>`.
    profiles: Vec<Profile>,
    /// What is wrong in an otherwise readable POM: line and message.
    problems: Vec<(u32, String)>,
}

#[derive(Debug)]
struct Profile {
    id: String,
    line: u32,
    default_goal: Option<String>,
}

pub(super) fn parse(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    if super::inside_sources(src.files, src.path, &["pom.xml"], &["src", "target"]) {
        return out;
    }
    let root = match read_pom(src.text) {
        Ok(pom) => pom,
        Err((line, message)) => {
            out.diag(src.path, line, message);
            return out;
        }
    };
    let dir = parent(src.path);
    for (phase, what) in PHASES {
        let mut task = RawTask::new(
            Runner::Maven,
            *phase,
            dir,
            src.path,
            vec!["mvn".to_owned(), (*phase).to_owned()],
        );
        task.line = Some(root.line);
        task.description = Some(match &root.name {
            Some(name) => format!("{what} ({name})"),
            None => (*what).to_owned(),
        });
        task.group = Some("lifecycle".to_owned());
        out.tasks.push(task);
    }
    let project_goal = root.default_goal.clone();
    let package = root.artifact_id.clone();
    let mut seen: HashSet<String> = HashSet::new();
    let mut visited: HashSet<String> = HashSet::from([src.path.to_owned()]);
    let mut queue: VecDeque<(String, Pom)> = VecDeque::from([(src.path.to_owned(), root)]);
    while let Some((path, pom)) = queue.pop_front() {
        for (line, message) in &pom.problems {
            out.diag(&path, Some(*line), message.clone());
        }
        for profile in &pom.profiles {
            if seen.insert(profile.id.clone()) {
                out.tasks
                    .push(profile_task(dir, &path, profile, project_goal.as_deref()));
            }
        }
        for (module, line) in &pom.modules {
            let Some(module_path) = module_pom(parent(&path), module) else {
                out.diag(
                    &path,
                    Some(*line),
                    format!("module `{module}` is outside the repository"),
                );
                continue;
            };
            if !visited.insert(module_path.clone()) {
                continue;
            }
            if visited.len() > MAX_POMS {
                out.diag(
                    &path,
                    Some(*line),
                    format!("the reactor has more than {MAX_POMS} modules; the rest are not read"),
                );
                return out;
            }
            let text = match src.files.read(&module_path) {
                Ok(text) => text,
                Err(reason) => {
                    out.diag(
                        &path,
                        Some(*line),
                        format!("module `{module}`: cannot read {module_path}: {reason}"),
                    );
                    continue;
                }
            };
            out.consumed.push(module_path.clone());
            match read_pom(&text) {
                Ok(pom) => queue.push_back((module_path, pom)),
                Err((line, message)) => out.diag(&module_path, line, message),
            }
        }
    }
    out.name_package(package.as_deref());
    out
}

fn profile_task(dir: &str, path: &str, profile: &Profile, project_goal: Option<&str>) -> RawTask {
    let mut task = RawTask::new(
        Runner::Maven,
        format!("profile:{}", profile.id),
        dir,
        path,
        vec!["mvn".to_owned(), "-P".to_owned(), profile.id.clone()],
    );
    task.line = Some(profile.line);
    let runs = match profile.default_goal.as_deref().or(project_goal) {
        Some(goal) => format!("without arguments it runs `{goal}`"),
        None => "give the phases to run as arguments (`-- verify`)".to_owned(),
    };
    task.description = Some(format!(
        "Activate profile `{}` (`-P {}`); {runs}",
        profile.id, profile.id
    ));
    task.group = Some("profiles".to_owned());
    task
}

/// The root-relative POM a `<module>` entry names: a directory holding `pom.xml`, or a
/// file.
fn module_pom(dir: &str, module: &str) -> Option<String> {
    let module = module.trim_end_matches('/');
    let path = join(dir, module)?;
    let is_file = std::path::Path::new(file_name(&path))
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("xml"));
    if is_file {
        Some(path)
    } else {
        join(&path, "pom.xml")
    }
}

/// Reads one POM, or says where and why it cannot.
fn read_pom(text: &str) -> Result<Pom, (Option<u32>, String)> {
    let options = ParsingOptions {
        allow_dtd: false,
        nodes_limit: MAX_NODES,
        ..ParsingOptions::default()
    };
    let doc = Document::parse_with_options(text, options).map_err(|err| xml_problem(text, &err))?;
    let lines = LineIndex::new(text);
    let project = doc.root_element();
    if project.tag_name().name() != "project" {
        return Err((
            Some(lines.line(project.range().start)),
            format!(
                "the root element is <{}>, not the <project> of a Maven POM",
                project.tag_name().name()
            ),
        ));
    }
    let line_of = |node: Node<'_, '_>| lines.line(node.range().start);
    let mut pom = Pom {
        line: line_of(project),
        name: child_text(project, "name").or_else(|| child_text(project, "artifactId")),
        artifact_id: child_text(project, "artifactId"),
        default_goal: child(project, "build").and_then(|b| child_text(b, "defaultGoal")),
        ..Pom::default()
    };
    let mut add_modules = |parent_node: Node<'_, '_>| {
        for (list, item) in [("modules", "module"), ("subprojects", "subproject")] {
            for entry in child(parent_node, list)
                .into_iter()
                .flat_map(|l| l.children())
                .filter(|n| n.tag_name().name() == item)
            {
                if let Some(name) = text_of(entry) {
                    pom.modules.push((name, line_of(entry)));
                }
            }
        }
    };
    add_modules(project);
    for profile in child(project, "profiles")
        .into_iter()
        .flat_map(|p| p.children())
        .filter(|n| n.tag_name().name() == "profile")
    {
        add_modules(profile);
        match child_text(profile, "id") {
            Some(id) if !id.chars().any(char::is_whitespace) && !id.starts_with(['-', '!']) => {
                pom.profiles.push(Profile {
                    id,
                    line: line_of(profile),
                    default_goal: child(profile, "build")
                        .and_then(|b| child_text(b, "defaultGoal")),
                });
            }
            // Maven names a profile without `<id>` "default"; it is activated by its
            // `<activation>` only.
            None => {}
            Some(id) => pom.problems.push((
                line_of(profile),
                format!("profile id `{id}` cannot be given to `-P`"),
            )),
        }
    }
    Ok(pom)
}

/// A diagnostic's line and message for an XML error.
fn xml_problem(text: &str, err: &roxmltree::Error) -> (Option<u32>, String) {
    if matches!(err, roxmltree::Error::DtdDetected) {
        let line = text
            .find("<!DOCTYPE")
            .map(|at| LineIndex::new(&text[..at]).line(at));
        return (
            line,
            "a POM may not have a DOCTYPE: agg does not read DTDs or expand their entities"
                .to_owned(),
        );
    }
    let row = err.pos().row;
    let message = err.to_string();
    // roxmltree ends most messages with ` at ROW:COL`; the line travels on its own.
    let message = message
        .rfind(" at ")
        .filter(|&at| {
            message[at + 4..]
                .chars()
                .all(|c| c.is_ascii_digit() || c == ':')
        })
        .map_or(message.as_str(), |at| &message[..at]);
    (
        Some(row).filter(|&r| r > 0),
        format!("invalid XML: {message}"),
    )
}

fn child<'a, 'i>(node: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    node.children().find(|n| n.tag_name().name() == name)
}

fn child_text(node: Node<'_, '_>, name: &str) -> Option<String> {
    child(node, name).and_then(text_of)
}

/// An element's text, trimmed; `None` when empty.
fn text_of(node: Node<'_, '_>) -> Option<String> {
    let text: String = node
        .children()
        .filter(Node::is_text)
        .filter_map(|n| n.text())
        .collect();
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

#[cfg(test)]
mod tests {
    use std::fmt::Write as _;

    use crate::MemFiles;
    use crate::testing::{lines, messages, names, parse_one, parse_with, task};

    const ROOT: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>org.example</groupId>
  <artifactId>shop-parent</artifactId>
  <version>1.0.0</version>
  <packaging>pom</packaging>
  <name>Shop</name>
  <modules>
    <module>core</module>
    <module>web/</module>
  </modules>
  <!-- <profiles><profile><id>commented</id></profile></profiles> -->
  <profiles>
    <profile>
      <id>release</id>
      <build><defaultGoal>deploy</defaultGoal></build>
    </profile>
    <profile>
      <id>it</id>
      <modules><module>integration-tests</module></modules>
    </profile>
  </profiles>
</project>
"#;

    fn shop() -> MemFiles {
        MemFiles::new()
            .with("pom.xml", ROOT)
            .with(
                "core/pom.xml",
                "<project><artifactId>core</artifactId><profiles><profile><id>it</id></profile><profile><id>native</id></profile></profiles></project>",
            )
            .with(
                "web/pom.xml",
                "<project><artifactId>web</artifactId><modules><module>../core</module><module>client</module></modules></project>",
            )
            .with("web/client/pom.xml", "<project><artifactId>client</artifactId></project>")
            .with("integration-tests/pom.xml", "<project>\n<broken>\n</project>")
    }

    #[test]
    fn a_reactor_lists_phases_once_and_every_profile() {
        let parsed = parse_with(super::parse, &shop(), "pom.xml");
        assert_eq!(
            names(&parsed),
            [
                "clean",
                "validate",
                "compile",
                "test",
                "package",
                "verify",
                "install",
                "deploy",
                "site",
                "profile:release",
                "profile:it",
                "profile:native"
            ]
        );
        let verify = task(&parsed, "verify");
        assert_eq!(verify.argv, ["mvn", "verify"]);
        assert_eq!(verify.line, Some(2));
        assert_eq!(
            verify.description.as_deref(),
            Some("Run the integration tests and checks on the package (Shop)")
        );
        let release = task(&parsed, "profile:release");
        assert_eq!(release.argv, ["mvn", "-P", "release"]);
        assert_eq!(release.line, Some(15));
        assert!(
            release
                .description
                .as_deref()
                .is_some_and(|d| d.contains("runs `deploy`"))
        );
        let native = task(&parsed, "profile:native");
        assert_eq!(native.file_path, "core/pom.xml");
        assert_eq!(native.dir, ".");
        assert_eq!(
            parsed.consumed,
            [
                "core/pom.xml",
                "web/pom.xml",
                "integration-tests/pom.xml",
                "web/client/pom.xml"
            ]
        );
        assert_eq!(
            messages(&parsed),
            [(
                "integration-tests/pom.xml",
                Some(3),
                "invalid XML: expected 'broken' tag, not 'project'"
            )]
        );
    }

    #[test]
    fn missing_modules_and_escapes_are_reported() {
        let pom = "<project>\n<modules>\n<module>gone</module>\n<module>../../x</module>\n<module>alt/other.xml</module>\n</modules>\n</project>";
        let files = MemFiles::new()
            .with("a/pom.xml", pom)
            .with("a/alt/other.xml", "<project/>");
        let parsed = parse_with(super::parse, &files, "a/pom.xml");
        assert_eq!(parsed.tasks.len(), 9);
        assert_eq!(parsed.tasks[0].dir, "a");
        let found = messages(&parsed);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].1, Some(3));
        assert!(found[0].2.contains("gone/pom.xml"), "{found:?}");
        assert_eq!(
            found[1],
            (
                "a/pom.xml",
                Some(4),
                "module `../../x` is outside the repository"
            )
        );
        assert_eq!(parsed.consumed, ["a/alt/other.xml"]);
    }

    #[test]
    fn a_module_cycle_is_read_once() {
        let files = MemFiles::new()
            .with(
                "pom.xml",
                "<project><modules><module>a</module></modules></project>",
            )
            .with(
                "a/pom.xml",
                "<project><modules><module>..</module><module>.</module></modules></project>",
            );
        let parsed = parse_with(super::parse, &files, "pom.xml");
        assert_eq!(parsed.tasks.len(), 9);
        assert_eq!(parsed.consumed, ["a/pom.xml"]);
        assert!(parsed.diagnostics.is_empty());
    }

    #[test]
    fn an_entity_bomb_is_refused_at_its_doctype() {
        let mut bomb =
            String::from("<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n<!ENTITY lol \"lol\">\n");
        for i in 1..10 {
            let prev = if i == 1 {
                "lol".to_owned()
            } else {
                format!("lol{}", i - 1)
            };
            let body = format!("&{prev};").repeat(10);
            writeln!(bomb, "<!ENTITY lol{i} \"{body}\">").expect("write");
        }
        bomb.push_str("]>\n<project><name>&lol9;</name></project>\n");
        let parsed = parse_one(super::parse, "pom.xml", &bomb);
        assert!(parsed.tasks.is_empty());
        assert_eq!(
            lines(&parsed),
            [(
                Some(2),
                "a POM may not have a DOCTYPE: agg does not read DTDs or expand their entities"
            )]
        );
    }

    #[test]
    fn invalid_xml_and_other_documents_are_reported_with_their_line() {
        let parsed = parse_one(
            super::parse,
            "pom.xml",
            "<project>\n  <name>x</nam>\n</project>\n",
        );
        assert_eq!(parsed.diagnostics[0].line, Some(2));
        assert!(parsed.tasks.is_empty());
        let parsed = parse_one(super::parse, "pom.xml", "\n<settings/>\n");
        assert_eq!(
            lines(&parsed),
            [(
                Some(2),
                "the root element is <settings>, not the <project> of a Maven POM"
            )]
        );
        let parsed = parse_one(
            super::parse,
            "pom.xml",
            "<project><profiles><profile><id>a b</id></profile>\n<profile><id>ok</id></profile></profiles></project>",
        );
        assert_eq!(parsed.diagnostics.len(), 1);
        assert_eq!(parsed.tasks.len(), 10);
    }

    #[test]
    fn deep_nesting_is_linear_and_harmless() {
        let depth = 200_000;
        let text = format!(
            "<project>{}{}</project>",
            "<a>".repeat(depth),
            "</a>".repeat(depth)
        );
        let parsed = parse_one(super::parse, "pom.xml", &text);
        assert_eq!(parsed.tasks.len(), 9);
    }

    #[test]
    fn poms_inside_a_projects_sources_are_not_listed() {
        let files = MemFiles::new()
            .with("pom.xml", "<project/>")
            .with("src/it/simple/pom.xml", "<project/>");
        let parsed = parse_with(super::parse, &files, "src/it/simple/pom.xml");
        assert!(parsed.tasks.is_empty() && parsed.diagnostics.is_empty());
    }
}
