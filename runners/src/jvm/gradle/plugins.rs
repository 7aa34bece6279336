//! The tasks Gradle's plugins add to a project, for the plugins agg knows: Gradle's core
//! JVM plugins, Kotlin JVM and Spring Boot. A plugin agg does not know adds nothing to the
//! list (its tasks cannot be seen without running Gradle).

/// A task a plugin adds.
#[derive(Debug)]
pub(super) struct StdTask {
    pub name: &'static str,
    pub group: Option<&'static str>,
    pub description: &'static str,
}

/// A task a plugin adds, with a name that may be built (Android's `assembleStaging`).
#[derive(Debug)]
pub(super) struct Named {
    pub name: String,
    pub group: Option<&'static str>,
    pub description: String,
}

/// A plugin: the ids it is applied by, the plugins it applies in turn, its own tasks.
struct Plugin {
    ids: &'static [&'static str],
    applies: &'static [&'static str],
    tasks: &'static [StdTask],
}

const fn t(name: &'static str, group: Option<&'static str>, description: &'static str) -> StdTask {
    StdTask {
        name,
        group,
        description,
    }
}

pub(super) const BUILD: Option<&str> = Some("build");
pub(super) const VERIFICATION: Option<&str> = Some("verification");
const DOCUMENTATION: Option<&str> = Some("documentation");
const DISTRIBUTION: Option<&str> = Some("distribution");
pub(super) const APPLICATION: Option<&str> = Some("application");
const PUBLISHING: Option<&str> = Some("publishing");

static PLUGINS: &[Plugin] = &[
    Plugin {
        ids: &["base"],
        applies: &[],
        tasks: &[
            t("clean", BUILD, "Delete the project's build directory"),
            t("assemble", BUILD, "Build every output of the project"),
            t("check", VERIFICATION, "Run every check of the project"),
            t("build", BUILD, "Assemble and check the project"),
        ],
    },
    Plugin {
        ids: &["java"],
        applies: &["base"],
        tasks: &[
            t("compileJava", None, "Compile the main Java sources"),
            t("processResources", None, "Copy the main resources"),
            t(
                "classes",
                BUILD,
                "Compile and process everything the main code needs",
            ),
            t("compileTestJava", None, "Compile the test Java sources"),
            t("processTestResources", None, "Copy the test resources"),
            t(
                "testClasses",
                BUILD,
                "Compile and process everything the tests need",
            ),
            t("jar", BUILD, "Package the main classes into a jar"),
            t(
                "javadoc",
                DOCUMENTATION,
                "Generate the Javadoc of the main sources",
            ),
            t("test", VERIFICATION, "Run the unit tests"),
        ],
    },
    Plugin {
        ids: &["java-library"],
        applies: &["java"],
        tasks: &[],
    },
    Plugin {
        ids: &["application"],
        applies: &["java", "distribution"],
        tasks: &[
            t("run", APPLICATION, "Run the project as a JVM application"),
            t(
                "startScripts",
                None,
                "Create the scripts that start the application",
            ),
        ],
    },
    Plugin {
        ids: &["distribution"],
        applies: &["base"],
        tasks: &[
            t(
                "distZip",
                DISTRIBUTION,
                "Bundle the main distribution as a zip",
            ),
            t(
                "distTar",
                DISTRIBUTION,
                "Bundle the main distribution as a tar",
            ),
            t(
                "installDist",
                DISTRIBUTION,
                "Install the main distribution into build/install",
            ),
            t(
                "assembleDist",
                DISTRIBUTION,
                "Build every archive of the main distribution",
            ),
        ],
    },
    Plugin {
        ids: &["groovy"],
        applies: &["java"],
        tasks: &[
            t("compileGroovy", None, "Compile the main Groovy sources"),
            t("compileTestGroovy", None, "Compile the test Groovy sources"),
            t(
                "groovydoc",
                DOCUMENTATION,
                "Generate the Groovydoc of the main sources",
            ),
        ],
    },
    Plugin {
        ids: &["scala"],
        applies: &["java"],
        tasks: &[
            t("compileScala", None, "Compile the main Scala sources"),
            t("compileTestScala", None, "Compile the test Scala sources"),
            t(
                "scaladoc",
                DOCUMENTATION,
                "Generate the Scaladoc of the main sources",
            ),
        ],
    },
    Plugin {
        ids: &["war"],
        applies: &["java"],
        tasks: &[t("war", BUILD, "Package the web application into a war")],
    },
    Plugin {
        ids: &["ear"],
        applies: &["base"],
        tasks: &[t(
            "ear",
            BUILD,
            "Package the enterprise application into an ear",
        )],
    },
    Plugin {
        ids: &["java-gradle-plugin"],
        applies: &["java-library"],
        tasks: &[t(
            "validatePlugins",
            Some("plugin development"),
            "Check the plugin's task and transform types",
        )],
    },
    Plugin {
        ids: &["kotlin-dsl"],
        applies: &["java-gradle-plugin", "org.jetbrains.kotlin.jvm"],
        tasks: &[],
    },
    Plugin {
        ids: &["org.jetbrains.kotlin.jvm", "kotlin", "kotlin-jvm"],
        applies: &["java"],
        tasks: &[
            t("compileKotlin", None, "Compile the main Kotlin sources"),
            t("compileTestKotlin", None, "Compile the test Kotlin sources"),
        ],
    },
    Plugin {
        ids: &["maven-publish"],
        applies: &[],
        tasks: &[
            t(
                "publish",
                PUBLISHING,
                "Publish every publication of the project",
            ),
            t(
                "publishToMavenLocal",
                PUBLISHING,
                "Publish the Maven publications to the local Maven repository",
            ),
        ],
    },
    Plugin {
        ids: &["jacoco"],
        applies: &[],
        tasks: &[
            t(
                "jacocoTestReport",
                VERIFICATION,
                "Report the test task's code coverage",
            ),
            t(
                "jacocoTestCoverageVerification",
                VERIFICATION,
                "Check the test task's code coverage against its rules",
            ),
        ],
    },
    Plugin {
        ids: &["checkstyle"],
        applies: &[],
        tasks: &[
            t("checkstyleMain", None, "Run Checkstyle on the main sources"),
            t("checkstyleTest", None, "Run Checkstyle on the test sources"),
        ],
    },
    Plugin {
        ids: &["pmd"],
        applies: &[],
        tasks: &[
            t("pmdMain", None, "Run PMD on the main sources"),
            t("pmdTest", None, "Run PMD on the test sources"),
        ],
    },
    Plugin {
        ids: &["org.springframework.boot"],
        applies: &[],
        tasks: &[
            t(
                "bootRun",
                APPLICATION,
                "Run the project as a Spring Boot application",
            ),
            t(
                "bootJar",
                BUILD,
                "Package the application and its dependencies into an executable jar",
            ),
        ],
    },
];

/// A plugin id as written (`org.gradle.java`, `java`) in the form the table uses.
fn canonical(id: &str) -> &str {
    id.strip_prefix("org.gradle.").unwrap_or(id)
}

fn find(id: &str) -> Option<&'static Plugin> {
    let id = canonical(id);
    PLUGINS.iter().find(|p| p.ids.contains(&id))
}

/// The tasks the plugin `id` adds, with those of the plugins it applies, base first.
pub(super) fn tasks_of(id: &str) -> Vec<&'static StdTask> {
    let mut order: Vec<&'static Plugin> = Vec::new();
    let mut pending: Vec<&'static Plugin> = find(id).into_iter().collect();
    while let Some(plugin) = pending.pop() {
        if order.iter().any(|p| std::ptr::eq(*p, plugin)) {
            continue;
        }
        order.push(plugin);
        pending.extend(plugin.applies.iter().filter_map(|id| find(id)));
    }
    order.iter().rev().flat_map(|p| p.tasks.iter()).collect()
}

#[cfg(test)]
mod tests {
    use super::tasks_of;

    #[test]
    fn plugins_bring_the_tasks_of_the_plugins_they_apply() {
        let names: Vec<&str> = tasks_of("application").iter().map(|t| t.name).collect();
        for expected in ["clean", "build", "compileJava", "test", "run", "distZip"] {
            assert!(names.contains(&expected), "{expected} in {names:?}");
        }
        let kotlin: Vec<&str> = tasks_of("kotlin-dsl").iter().map(|t| t.name).collect();
        assert!(kotlin.contains(&"compileKotlin") && kotlin.contains(&"validatePlugins"));
        assert_eq!(tasks_of("org.gradle.base").len(), 4);
        assert!(tasks_of("com.example.unknown").is_empty());
        assert!(tasks_of("idea").is_empty());
    }
}
