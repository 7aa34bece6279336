//! The JVM build tools: Maven (`pom.xml`) and Gradle (`settings.gradle(.kts)`,
//! `build.gradle(.kts)`).
//!
//! Both describe a multi-project build from one root (a Maven reactor's `<modules>`, a Gradle
//! settings file's `include`), and both run every task from that root, so each adapter reads
//! the root file, follows it to the member projects' files and marks those as consumed: a
//! module's `pom.xml` or a subproject's `build.gradle` is never listed on its own. Nothing
//! here runs Java, Maven or Gradle; build scripts are read as text.

mod gradle;
mod maven;

use crate::files::{Files, file_name, join, parent};
use crate::model::Adapter;

/// `pom.xml`: the lifecycle phases and profiles of a Maven reactor.
pub const MAVEN: Adapter = Adapter {
    name: "pom.xml",
    candidate: |path| (file_name(path) == "pom.xml").then_some(0),
    one_per_dir: true,
    admit: None,
    neighbours: None,
    parse: maven::parse,
};

/// `settings.gradle(.kts)` or, in a directory without one, `build.gradle(.kts)`: the tasks of
/// a Gradle build and its subprojects.
pub const GRADLE: Adapter = Adapter {
    name: "gradle",
    candidate: gradle::candidate,
    one_per_dir: true,
    admit: None,
    neighbours: None,
    parse: gradle::parse,
};

/// Whether `path` lies inside one of `folders` (`src`, the build's output folder) of a
/// directory that holds one of `markers`: integration-test projects (`src/it/*/pom.xml`),
/// archetype templates and test fixtures of a build, or its output, never a build a person
/// runs.
fn inside_sources(files: &dyn Files, path: &str, markers: &[&str], folders: &[&str]) -> bool {
    let mut dir = parent(path);
    while dir != "." {
        let up = parent(dir);
        if folders.contains(&file_name(dir))
            && markers
                .iter()
                .any(|m| join(up, m).is_some_and(|p| files.exists(&p)))
        {
            return true;
        }
        dir = up;
    }
    false
}

#[cfg(test)]
mod tests {
    use crate::files::MemFiles;

    #[test]
    fn files_under_a_projects_sources_are_not_builds() {
        let files = MemFiles::new()
            .with("pom.xml", "")
            .with("src/it/simple/pom.xml", "")
            .with("tools/src/pom.xml", "");
        assert!(super::inside_sources(
            &files,
            "src/it/simple/pom.xml",
            &["pom.xml"],
            &["src"]
        ));
        assert!(!super::inside_sources(
            &files,
            "tools/src/pom.xml",
            &["pom.xml"],
            &["src"]
        ));
        assert!(!super::inside_sources(
            &files,
            "pom.xml",
            &["pom.xml"],
            &["src"]
        ));
    }
}
