//! Maven: the lifecycle phases a person runs (`mvn clean`, `mvn verify`, …) and the
//! profiles (`mvn -P ID`) of a reactor, read from its `pom.xml` with roxmltree.
//!
//! A reactor root lists the phases once; its modules (`<modules>`, also inside profiles, and
//! Maven 4's `<subprojects>`) are followed, their `pom.xml` consumed, and every profile any
//! of them declares is listed once, since `mvn -P ID` from the root activates it in each
//! module that has it. A profile task runs `mvn -P ID` followed by the caller's arguments,
//! which are the phases to run; without any, Maven runs the `<defaultGoal>`.
//!
//! Plugin goals are listed as `prefix:goal` (`jacoco:prepare-agent`): those the POMs'
//! `<executions>` name, for plugins their `<build><plugins>` declare (a plugin only in
//! `<pluginManagement>` runs nothing), and the run goal of each declared dev-server plugin
//! (`spring-boot:run`, `quarkus:dev`, `jetty:run`), a service.
//!
//! DTDs are refused before any entity is read (roxmltree's `allow_dtd: false`), so an entity
//! bomb costs nothing; Maven itself expands none of a DOCTYPE's entities.

use std::collections::{HashSet, VecDeque};
use std::fmt::Write as _;

use roxmltree::Node;

use crate::doc;
use crate::files::{file_name, join, parent};
use crate::model::{Parsed, Runner, Source, Task};
use crate::text::LineIndex;

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
    /// The goals its plugins name, in `<build><plugins>` and in profiles' builds.
    goals: Vec<Goal>,
}

/// A plugin goal a POM names: in an `<execution>` of a plugin the build declares, or the run
/// goal of a dev-server plugin it declares.
#[derive(Debug)]
struct Goal {
    /// `prefix:goal`, as a person types it (`spring-boot:run`).
    name: String,
    /// `groupId:artifactId` of the plugin.
    plugin: String,
    line: u32,
    /// The profile whose build declares the plugin.
    profile: Option<String>,
    /// The execution that binds it, and to which phase.
    execution: Option<(String, Option<String>)>,
    /// A dev server that runs until stopped.
    service: bool,
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
        let mut task = Task::new(
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
    let root_plugins: HashSet<String> = root.goals.iter().map(|g| g.plugin.clone()).collect();
    let root_plugins: HashSet<&str> = root_plugins.iter().map(String::as_str).collect();
    let mut goals_seen: HashSet<String> = HashSet::new();
    let mut goal_tasks = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut visited: HashSet<String> = HashSet::from([src.path.to_owned()]);
    let mut queue: VecDeque<(String, Pom)> = VecDeque::from([(src.path.to_owned(), root)]);
    'reactor: while let Some((path, pom)) = queue.pop_front() {
        for (line, message) in &pom.problems {
            out.diag(&path, Some(*line), message.clone());
        }
        for goal in &pom.goals {
            // A phase's name is not a goal; each goal is listed once for the reactor.
            if goals_seen.insert(goal.name.clone()) {
                goal_tasks.push(goal_task(dir, &path, goal, &root_plugins));
            }
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
                break 'reactor;
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
    out.tasks.extend(goal_tasks);
    out.name_package(package.as_deref());
    out
}

fn profile_task(dir: &str, path: &str, profile: &Profile, project_goal: Option<&str>) -> Task {
    let mut task = Task::new(
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
    let doc = doc::read_xml(text, "a POM").map_err(|err| (err.line, err.message))?;
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
    plugin_goals(child(project, "build"), None, &line_of, &mut pom.goals);
    for profile in child(project, "profiles")
        .into_iter()
        .flat_map(|p| p.children())
        .filter(|n| n.tag_name().name() == "profile")
    {
        add_modules(profile);
        if let Some(id) = child_text(profile, "id") {
            plugin_goals(child(profile, "build"), Some(&id), &line_of, &mut pom.goals);
        }
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

/// The run goals of dev-server plugins, by goal prefix: listed whenever the build declares
/// the plugin, as services (they serve until stopped). `exec:java` runs the project's main
/// class, which may as well end on its own: listed, not a service.
const RUN_GOALS: &[(&str, &str, bool)] = &[
    ("spring-boot", "run", true),
    ("quarkus", "dev", true),
    ("jetty", "run", true),
    ("tomcat7", "run", true),
    ("liberty", "dev", true),
    ("wildfly", "run", true),
    ("exec", "java", false),
];

/// The goal prefix Maven gives a plugin that does not set its own: `xxx-maven-plugin` and
/// `maven-xxx-plugin` give `xxx`, another `xxx-plugin` gives `xxx`.
fn goal_prefix(artifact_id: &str) -> &str {
    if let Some(prefix) = artifact_id.strip_suffix("-maven-plugin") {
        return prefix;
    }
    let plain = artifact_id.strip_suffix("-plugin").unwrap_or(artifact_id);
    plain.strip_prefix("maven-").unwrap_or(plain)
}

/// The `<plugin>` entries of a `<plugins>` list: groupId (Maven's default when absent),
/// artifactId, and the node.
fn plugin_entries<'a, 'i>(list: Option<Node<'a, 'i>>) -> Vec<(String, String, Node<'a, 'i>)> {
    list.into_iter()
        .flat_map(|l| l.children())
        .filter(|n| n.tag_name().name() == "plugin")
        .filter_map(|plugin| {
            let artifact = child_text(plugin, "artifactId")?;
            let group = child_text(plugin, "groupId")
                .unwrap_or_else(|| "org.apache.maven.plugins".to_owned());
            Some((group, artifact, plugin))
        })
        .collect()
}

/// The goals the plugins of one `<build>` name: each execution's `<goals>` of a plugin in
/// `<plugins>` (with the executions `<pluginManagement>` gives it, since those apply only
/// to a declared plugin), and the run goal of each declared dev-server plugin.
fn plugin_goals(
    build: Option<Node<'_, '_>>,
    profile: Option<&str>,
    line_of: &dyn Fn(Node<'_, '_>) -> u32,
    goals: &mut Vec<Goal>,
) {
    let Some(build) = build else {
        return;
    };
    let managed =
        plugin_entries(child(build, "pluginManagement").and_then(|m| child(m, "plugins")));
    for (group, artifact, plugin) in plugin_entries(child(build, "plugins")) {
        if artifact.contains("${") {
            continue;
        }
        let prefix = goal_prefix(&artifact);
        let id = format!("{group}:{artifact}");
        let managed_executions = managed
            .iter()
            .filter(|(g, a, _)| *g == group && *a == artifact)
            .map(|(_, _, node)| *node);
        for node in std::iter::once(plugin).chain(managed_executions) {
            for execution in child(node, "executions")
                .into_iter()
                .flat_map(|e| e.children())
                .filter(|n| n.tag_name().name() == "execution")
            {
                let execution_id =
                    child_text(execution, "id").unwrap_or_else(|| "default".to_owned());
                let phase = child_text(execution, "phase");
                for goal in child(execution, "goals")
                    .into_iter()
                    .flat_map(|g| g.children())
                    .filter(|n| n.tag_name().name() == "goal")
                {
                    let Some(name) = text_of(goal).filter(|g| {
                        !g.contains("${") && !g.contains(char::is_whitespace) && !g.starts_with('-')
                    }) else {
                        continue;
                    };
                    goals.push(Goal {
                        name: format!("{prefix}:{name}"),
                        plugin: id.clone(),
                        line: line_of(goal),
                        profile: profile.map(str::to_owned),
                        execution: Some((execution_id.clone(), phase.clone())),
                        service: false,
                    });
                }
            }
        }
        for (run_prefix, goal, service) in RUN_GOALS {
            if prefix == *run_prefix {
                goals.push(Goal {
                    name: format!("{prefix}:{goal}"),
                    plugin: id.clone(),
                    line: line_of(plugin),
                    profile: profile.map(str::to_owned),
                    execution: None,
                    service: *service,
                });
            }
        }
    }
}

/// The task of a plugin goal, run from the reactor's root at `dir`. A goal of a plugin the
/// root POM itself declares, or one of Maven's default plugin groups, runs by its prefix;
/// another is named in full, since Maven resolves a prefix from the root's plugins only.
fn goal_task(dir: &str, path: &str, goal: &Goal, root_plugins: &HashSet<&str>) -> Task {
    let (prefix, name) = goal.name.split_once(':').unwrap_or((&goal.name, ""));
    let default_group = goal.plugin.starts_with("org.apache.maven.plugins:")
        || goal.plugin.starts_with("org.codehaus.mojo:");
    let invoked = if default_group || root_plugins.contains(goal.plugin.as_str()) {
        goal.name.clone()
    } else {
        format!("{}:{name}", goal.plugin)
    };
    let mut argv = vec!["mvn".to_owned()];
    if let Some(profile) = &goal.profile {
        argv.extend(["-P".to_owned(), profile.clone()]);
    }
    argv.push(invoked);
    let mut task = Task::new(Runner::Maven, goal.name.clone(), dir, path, argv);
    task.line = Some(goal.line);
    let mut description = format!("Goal `{name}` of {} (`{prefix}`)", goal.plugin);
    if let Some((id, phase)) = &goal.execution {
        match phase {
            Some(phase) => {
                let _ = write!(description, "; execution `{id}` binds it to `{phase}`");
            }
            None => {
                let _ = write!(description, "; execution `{id}`");
            }
        }
    } else if goal.service {
        description.push_str("; runs the application until stopped");
    } else {
        description.push_str("; runs the application");
    }
    if let Some(profile) = &goal.profile {
        let _ = write!(description, "; declared in profile `{profile}`");
    }
    task.description = Some(description);
    task.group = Some("plugins".to_owned());
    task.behaviour.service = goal.service;
    task
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
    use indoc::indoc;
    use std::fmt::Write as _;

    use crate::files::MemFiles;
    use crate::testing::{lines, messages, name_list, names, parse_one, parse_with, task};

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
            .with("integration-tests/pom.xml", indoc! {"
                <project>
                <broken>
                </project>"})
    }

    #[test]
    fn a_reactor_lists_phases_once_and_every_profile() {
        let parsed = parse_with(super::parse, &shop(), "pom.xml");
        assert_eq!(
            name_list(&parsed),
            "clean, validate, compile, test, package, verify, install, deploy, site, profile:release, profile:it, profile:native"
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
        let pom = indoc! {"
            <project>
            <modules>
            <module>gone</module>
            <module>../../x</module>
            <module>alt/other.xml</module>
            </modules>
            </project>"};
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
        let mut bomb = String::from(indoc! {"
            <?xml version=\"1.0\"?>
            <!DOCTYPE lolz [
            <!ENTITY lol \"lol\">
        "});
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
            indoc! {"
                <project>
                  <name>x</nam>
                </project>
            "},
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

    const APP: &str = r"<project>
  <artifactId>petshop</artifactId>
  <modules><module>api</module></modules>
  <build>
    <pluginManagement>
      <plugins>
        <plugin>
          <groupId>org.jacoco</groupId>
          <artifactId>jacoco-maven-plugin</artifactId>
          <executions>
            <execution><id>report</id><phase>verify</phase><goals><goal>report</goal></goals></execution>
          </executions>
        </plugin>
        <plugin>
          <groupId>org.example</groupId>
          <artifactId>managed-only-maven-plugin</artifactId>
          <executions><execution><goals><goal>never</goal></goals></execution></executions>
        </plugin>
      </plugins>
    </pluginManagement>
    <plugins>
      <plugin>
        <groupId>org.jacoco</groupId>
        <artifactId>jacoco-maven-plugin</artifactId>
        <executions>
          <execution><goals><goal>prepare-agent</goal></goals></execution>
        </executions>
      </plugin>
      <plugin>
        <groupId>org.springframework.boot</groupId>
        <artifactId>spring-boot-maven-plugin</artifactId>
        <executions>
          <execution><goals><goal>build-info</goal><goal>${goal}</goal></goals></execution>
        </executions>
      </plugin>
      <plugin>
        <artifactId>maven-jar-plugin</artifactId>
        <executions><execution><id>tests</id><goals><goal>test-jar</goal></goals></execution></executions>
      </plugin>
    </plugins>
  </build>
  <profiles>
    <profile>
      <id>dev</id>
      <build><plugins><plugin><groupId>org.eclipse.jetty</groupId><artifactId>jetty-maven-plugin</artifactId></plugin></plugins></build>
    </profile>
  </profiles>
</project>";

    #[test]
    fn plugin_goals_the_poms_name_and_dev_servers_as_services() {
        let files = MemFiles::new().with("pom.xml", APP).with(
            "api/pom.xml",
            indoc! {"
                <project><artifactId>api</artifactId><build><plugins>
                             <plugin><groupId>io.quarkus</groupId><artifactId>quarkus-maven-plugin</artifactId></plugin>
                             <plugin><groupId>org.codehaus.mojo</groupId><artifactId>exec-maven-plugin</artifactId></plugin>
                             </plugins></build></project>"},
        );
        let parsed = parse_with(super::parse, &files, "pom.xml");
        assert_eq!(messages(&parsed), vec![]);
        let goals: Vec<&str> = names(&parsed).into_iter().skip(9).collect();
        assert_eq!(
            goals,
            [
                "profile:dev",
                "jacoco:prepare-agent",
                "jacoco:report",
                "spring-boot:build-info",
                "spring-boot:run",
                "jar:test-jar",
                "jetty:run",
                "quarkus:dev",
                "exec:java",
            ]
        );
        let run = task(&parsed, "spring-boot:run");
        assert_eq!(run.argv, ["mvn", "spring-boot:run"]);
        assert!(run.behaviour.service);
        assert_eq!(run.group.as_deref(), Some("plugins"));
        let report = task(&parsed, "jacoco:report");
        assert_eq!(
            report.description.as_deref(),
            Some(
                "Goal `report` of org.jacoco:jacoco-maven-plugin (`jacoco`); execution `report` binds it to `verify`"
            )
        );
        assert!(!report.behaviour.service);
        assert_eq!(task(&parsed, "jar:test-jar").argv, ["mvn", "jar:test-jar"]);
        let jetty = task(&parsed, "jetty:run");
        assert_eq!(jetty.argv, ["mvn", "-P", "dev", "jetty:run"]);
        assert!(jetty.behaviour.service);
        // A module's plugin is not one the root resolves a prefix from: named in full.
        let quarkus = task(&parsed, "quarkus:dev");
        assert_eq!(quarkus.argv, ["mvn", "io.quarkus:quarkus-maven-plugin:dev"]);
        assert_eq!(quarkus.file_path, "api/pom.xml");
        assert!(quarkus.behaviour.service);
        let exec = task(&parsed, "exec:java");
        assert_eq!(exec.argv, ["mvn", "exec:java"]);
        assert!(!exec.behaviour.service);
    }

    #[test]
    fn goal_prefixes_follow_mavens_naming() {
        for (artifact, prefix) in [
            ("spring-boot-maven-plugin", "spring-boot"),
            ("maven-jar-plugin", "jar"),
            ("maven-surefire-plugin", "surefire"),
            ("exec-maven-plugin", "exec"),
            ("frontend-plugin", "frontend"),
            ("odd", "odd"),
        ] {
            assert_eq!(super::goal_prefix(artifact), prefix);
        }
    }
}
