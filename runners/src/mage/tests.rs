//! Magefiles read as mage's parser reads them.

use super::ADAPTER;
use crate::files::MemFiles;
use crate::model::Parsed;
use crate::testing::{lines, names, parse_with, task};
use indoc::{formatdoc, indoc};

const MAGEFILE: &str = r#"//go:build mage

// The build of the site.
package main

import (
	"context"
	"time"

	"github.com/magefile/mage/mg"
)

// Default is what `mage` alone runs.
var Default = Build

var Aliases = map[string]interface{}{
	"b":  Build,
	"ds": Docs.Site,
}

// Build compiles the site. It runs the generator first.
func Build() error {
	mg.Deps(Generate)
	return nil
}

// Generate writes the sources.
func Generate(ctx context.Context) {}

// Deploy pushes a release to an environment.
func Deploy(ctx context.Context, env string, count int, timeout time.Duration, dryRun *bool, tag *string) error {
	return nil
}

// unexported helpers are not targets.
func helper() {}

// Values returns something, so it is not a target.
func Values() string { return "" }

// Takes a type mage cannot pass.
func Bad(m map[string]string) {}

type Docs mg.Namespace

// Builds the site using hugo.
func (Docs) Site() error { return nil }

// Docs publishes the PDF.
func (d Docs) PDF() {}

type server struct{}

func (s *server) Start() {}
"#;

fn parse(files: &MemFiles, path: &str) -> Parsed {
    parse_with(ADAPTER.parse, files, path)
}

#[test]
fn exported_functions_and_namespace_methods_are_targets() {
    let files = MemFiles::new().with("magefile.go", MAGEFILE).with(
        "main.go",
        indoc! {"
            package main

            func Main() {}
        "},
    );
    let parsed = parse(&files, "magefile.go");
    assert_eq!(
        names(&parsed),
        ["build", "generate", "deploy", "docs:site", "docs:pdf"]
    );
    let build = task(&parsed, "build");
    assert_eq!(build.argv, ["mage", "build"]);
    assert_eq!(build.description.as_deref(), Some("compiles the site."));
    assert_eq!(build.aliases, ["b"]);
    assert!(
        build
            .script
            .as_deref()
            .is_some_and(|s| s.contains("default target"))
    );
    assert_eq!(task(&parsed, "docs:site").aliases, ["ds"]);
    assert_eq!(
        task(&parsed, "docs:site").description.as_deref(),
        Some("Builds the site using hugo.")
    );
    assert_eq!(
        task(&parsed, "docs:pdf").description.as_deref(),
        Some("Docs publishes the PDF.")
    );
    let deploy = task(&parsed, "deploy");
    let params: Vec<(&str, bool, &[String], Option<&str>)> = deploy
        .params
        .iter()
        .map(|p| {
            (
                p.name.as_str(),
                p.required,
                p.flags.as_slice(),
                p.kind.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        params,
        [
            ("env", true, &[][..], None),
            ("count", true, &[][..], Some("int")),
            ("timeout", true, &[][..], Some("time.Duration")),
            (
                "dryRun",
                false,
                &["-dryrun".to_owned()][..],
                Some("boolean")
            ),
            ("tag", false, &["-tag".to_owned()][..], None),
        ]
    );
    assert!(lines(&parsed).is_empty(), "{:?}", lines(&parsed));
    // A target's arguments follow its name, in order, as mage takes them.
    let values: Vec<(String, String)> = [("env", "staging"), ("count", "3"), ("timeout", "5s")]
        .iter()
        .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
        .collect();
    let (args, env) = crate::passing::arguments(deploy, &values);
    assert_eq!(args, ["staging", "3", "5s"]);
    assert!(env.is_empty(), "{env:?}");
}

#[test]
fn every_tagged_file_of_the_directory_counts_and_a_magefiles_folder_wins() {
    let files = MemFiles::new()
        .with(
            "tools/magefile.go",
            indoc! {"
                //go:build mage

                package main

                func Build() {}
            "},
        )
        .with(
            "tools/release.go",
            indoc! {"
                // +build mage

                package main

                // Release tags it.
                func Release() {}
            "},
        )
        .with(
            "tools/windows_only.go",
            indoc! {"
                //go:build mage && windows

                package main

                func Win() {}
            "},
        )
        .with(
            "tools/lib.go",
            indoc! {"
                package main

                func Lib() {}
            "},
        );
    let parsed = parse(&files, "tools/magefile.go");
    assert_eq!(names(&parsed), ["build", "release"]);
    assert_eq!(task(&parsed, "release").file_path, "tools/release.go");
    assert_eq!(parsed.consumed, ["tools/release.go"]);

    let folder = MemFiles::new()
        .with(
            "magefile.go",
            indoc! {"
                //go:build mage

                package main

                func Old() {}
            "},
        )
        .with(
            "magefiles/magefile.go",
            indoc! {"
                package main

                func Build() {}
            "},
        )
        .with(
            "magefiles/helpers.go",
            indoc! {"
                package main

                func Test() {}
            "},
        )
        .with(
            "magefiles/gen.go",
            indoc! {"
                //go:build ignore

                package main

                func Gen() {}
            "},
        );
    let parsed = parse(&folder, "magefiles/magefile.go");
    assert_eq!(names(&parsed), ["test", "build"]);
    assert_eq!(task(&parsed, "build").dir, ".");
    let shadowed = parse(&folder, "magefile.go");
    assert!(shadowed.tasks.is_empty());
    assert!(lines(&shadowed)[0].1.contains("magefiles/"));
    assert_eq!((ADAPTER.candidate)("magefiles/helpers.go"), Some(1));
    assert_eq!((ADAPTER.candidate)("cmd/main.go"), None);
    assert_eq!((ADAPTER.candidate)("magefile_test.go"), None);
}

#[test]
fn what_mage_refuses_is_said() {
    let files = MemFiles::new().with(
        "magefile.go",
        indoc! {"
            //go:build mage

            package main

            var Default = Missing

            var Aliases = map[string]any{
            \t\"x\": Nope,
            }

            func Build() {}

            func BUILD() {}
        "},
    );
    let parsed = parse(&files, "magefile.go");
    assert_eq!(names(&parsed), ["build", "bUILD"]);
    assert!(
        parsed
            .tasks
            .iter()
            .all(|t| t.behaviour.not_runnable.is_some())
    );
    let messages: Vec<&str> = lines(&parsed).into_iter().map(|(_, m)| m).collect();
    assert_eq!(messages.len(), 3, "{messages:?}");
    let unclosed = parse(
        &MemFiles::new().with(
            "magefile.go",
            indoc! {"
                //go:build mage

                package main

                func A() {}
                var s = `open
            "},
        ),
        "magefile.go",
    );
    assert_eq!(names(&unclosed), ["a"]);
    assert_eq!(lines(&unclosed)[0].0, Some(6));
}

#[test]
fn hostile_magefiles_stay_linear() {
    let deep = formatdoc! {"
        //go:build mage

        package main

        func A() {{{}}}
        func B() {{}}
    ",
        "{".repeat(100_000)
    };
    let parsed = parse(&MemFiles::new().with("magefile.go", &deep), "magefile.go");
    assert_eq!(names(&parsed), ["a"]);
    let many = formatdoc! {"
        //go:build mage

        package main

        {}",
        "func A() {}\n".repeat(50_000)
    };
    assert!(
        !parse(&MemFiles::new().with("magefile.go", &many), "magefile.go")
            .tasks
            .is_empty()
    );
}

#[test]
fn imported_targets_are_said_to_be_left_out_not_reported_as_missing() {
    let files = MemFiles::new().with(
        "magefile.go",
        indoc! {"
            //go:build mage

            package main

            import (
            \t// mage:import
            \t\"example.com/shared/build\"
            )

            var Default = build.All

            var Aliases = map[string]interface{}{
            \t\"b\": build.All,
            \t\"l\": Lint,
            }

            // Lint checks.
            func Lint() {}
        "},
    );
    let parsed = parse(&files, "magefile.go");
    assert_eq!(names(&parsed), ["lint"]);
    assert_eq!(task(&parsed, "lint").aliases, ["l"]);
    let messages = lines(&parsed);
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_eq!(messages[0].0, Some(6));
    assert!(messages[0].1.contains("mage:import"));
}
