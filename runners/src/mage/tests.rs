//! Magefiles read as mage's parser reads them.

use super::ADAPTER;
use crate::files::MemFiles;
use crate::model::Parsed;
use crate::testing::{lines, names, parse_with, task};

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
    let files = MemFiles::new()
        .with("magefile.go", MAGEFILE)
        .with("main.go", "package main\n\nfunc Main() {}\n");
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
            "//go:build mage\n\npackage main\n\nfunc Build() {}\n",
        )
        .with(
            "tools/release.go",
            "// +build mage\n\npackage main\n\n// Release tags it.\nfunc Release() {}\n",
        )
        .with(
            "tools/windows_only.go",
            "//go:build mage && windows\n\npackage main\n\nfunc Win() {}\n",
        )
        .with("tools/lib.go", "package main\n\nfunc Lib() {}\n");
    let parsed = parse(&files, "tools/magefile.go");
    assert_eq!(names(&parsed), ["build", "release"]);
    assert_eq!(task(&parsed, "release").file_path, "tools/release.go");
    assert_eq!(parsed.consumed, ["tools/release.go"]);

    let folder = MemFiles::new()
        .with(
            "magefile.go",
            "//go:build mage\n\npackage main\n\nfunc Old() {}\n",
        )
        .with("magefiles/magefile.go", "package main\n\nfunc Build() {}\n")
        .with("magefiles/helpers.go", "package main\n\nfunc Test() {}\n")
        .with(
            "magefiles/gen.go",
            "//go:build ignore\n\npackage main\n\nfunc Gen() {}\n",
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
        "//go:build mage\n\npackage main\n\nvar Default = Missing\n\nvar Aliases = map[string]any{\n\t\"x\": Nope,\n}\n\nfunc Build() {}\n\nfunc BUILD() {}\n",
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
            "//go:build mage\n\npackage main\n\nfunc A() {}\nvar s = `open\n",
        ),
        "magefile.go",
    );
    assert_eq!(names(&unclosed), ["a"]);
    assert_eq!(lines(&unclosed)[0].0, Some(6));
}

#[test]
fn hostile_magefiles_stay_linear() {
    let deep = format!(
        "//go:build mage\n\npackage main\n\nfunc A() {{{}}}\nfunc B() {{}}\n",
        "{".repeat(100_000)
    );
    let parsed = parse(&MemFiles::new().with("magefile.go", &deep), "magefile.go");
    assert_eq!(names(&parsed), ["a"]);
    let many = format!(
        "//go:build mage\n\npackage main\n\n{}",
        "func A() {}\n".repeat(50_000)
    );
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
        "//go:build mage\n\npackage main\n\nimport (\n\t// mage:import\n\t\"example.com/shared/build\"\n)\n\nvar Default = build.All\n\nvar Aliases = map[string]interface{}{\n\t\"b\": build.All,\n\t\"l\": Lint,\n}\n\n// Lint checks.\nfunc Lint() {}\n",
    );
    let parsed = parse(&files, "magefile.go");
    assert_eq!(names(&parsed), ["lint"]);
    assert_eq!(task(&parsed, "lint").aliases, ["l"]);
    let messages = lines(&parsed);
    assert_eq!(messages.len(), 1, "{messages:?}");
    assert_eq!(messages[0].0, Some(6));
    assert!(messages[0].1.contains("mage:import"));
}
