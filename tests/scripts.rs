//! Executable scripts for real: each runs as itself from the directory above its `scripts/`
//! or `bin/`, its arguments verbatim, its exit code passed on; through `agg run` and MCP.

use std::path::Path;

use crate::common::verbatim::{
    NO_ARGS, assert_tricky_args_arrive, mcp_allowing_any_args, passes_through_mcp, task_start_full,
};
use crate::run::{TRICKY_FOR_AGENTS, argv_json};
use crate::test::{Test, assert_runs_as};
use indoc::indoc;

/// Prints its arguments as a JSON array.
const PRINT_ARGS: &str = indoc! {"
    #!/usr/bin/env python3
    # Print the arguments.
    import json, sys
    print(json.dumps(sys.argv[1:]))
"};

fn names(root: &Path) -> Vec<String> {
    crate::test::names(&Test::at(root).list_json())
}

#[test]
fn scripts_get_their_args_verbatim_and_pass_on_exit_codes() {
    let test = Test::new()
        .write(".git/HEAD", "ref: refs/heads/main\n")
        .executable("scripts/args.py", PRINT_ARGS)
        .executable(
            "scripts/fail",
            indoc! {"
            #!/bin/sh
            # Fail on purpose.
            exit 7
        "},
        )
        .executable("bin/where", "#!/bin/sh\npwd\n")
        .executable("apps/web/bin/where", "#!/bin/sh\npwd\n")
        .executable("check", "#!/bin/sh\necho \"root script: $1\"\n");
    let root = test.root().to_path_buf();
    let json = Test::at(&root).list_json();
    let args = assert_runs_as(&json, "scripts/args", "./scripts/args.py");
    assert_eq!(args["description"], "Print the arguments.");

    assert_tricky_args_arrive(Test::at(&root), "scripts/args", &[]);
    Test::at(&root).args(["run", "scripts/fail"]).run().code(7);
    let canonical = std::fs::canonicalize(&root).expect("root");
    let out = Test::at(&root).args(["run", "bin/where"]).run().success();
    assert_eq!(out.stdout.trim(), canonical.display().to_string());
    // Run from a subdirectory, the script still runs from the directory above its `bin/`.
    let out = Test::at(&root)
        .current_dir("apps")
        .args(["run", "apps/web/bin/where"])
        .run()
        .success();
    assert_eq!(
        out.stdout.trim(),
        canonical.join("apps/web").display().to_string()
    );
    let out = Test::at(&root)
        .args(["run", "check", "--", "a b"])
        .run()
        .success();
    assert_eq!(out.stdout.trim(), "root script: a b");
}

#[tokio::test]
async fn scripts_run_through_mcp_with_their_args() {
    let test = Test::new()
        .executable("scripts/args.py", PRINT_ARGS)
        .executable(
            "scripts/fail",
            indoc! {"
            #!/bin/sh
            echo failing >&2
            exit 3
        "},
        );
    let mcp = mcp_allowing_any_args(test.into_tempdir(), &[]).await;
    let text = passes_through_mcp(&mcp, "scripts/args", &TRICKY_FOR_AGENTS).await;
    assert_eq!(argv_json(&text), TRICKY_FOR_AGENTS, "{text}");
    let failed = task_start_full(&mcp, "scripts/fail", &NO_ARGS).await;
    assert_eq!(failed["exit_code"], 3, "{failed}");
    assert_eq!(failed["passed"], false);
    mcp.client.cancel().await.expect("close");
}

#[test]
fn only_the_projects_own_scripts_are_listed() {
    let test = Test::new()
        .write(".gitignore", "build/\n")
        .write("README", "#!/bin/sh\nnot executable\n")
        .write("scripts/lib.sh", "#!/bin/sh\n# sourced, not run\n")
        .executable("scripts/deploy.sh", "#!/bin/sh\n# Deploy.\n")
        .executable("scripts/test", "#!/bin/sh\n")
        .executable("scripts/test.sh", "#!/bin/sh\n")
        .executable("scripts/nested/deeper.sh", "#!/bin/sh\n")
        .executable("bin/tool", "\u{7f}ELF\u{2}\u{1}\u{1}\0\0\0")
        .executable("bin/no-shebang", "echo hi\n")
        .executable("build/bin/generated", "#!/bin/sh\n")
        .executable("vendor/lib/bin/theirs", "#!/bin/sh\n")
        .executable("third_party/x/scripts/theirs", "#!/bin/sh\n")
        .executable(".venv/bin/pip", "#!/usr/bin/python3\n")
        .executable("env/bin/pip", "#!/usr/bin/python3\n")
        .write("env/pyvenv.cfg", "home = /usr\n")
        .executable("src/not-a-script-dir.sh", "#!/bin/sh\n");
    assert_eq!(
        names(test.root()),
        ["scripts/deploy", "scripts/test", "scripts/test.sh"]
    );
}

#[test]
fn an_extension_stays_only_beside_another_program_of_the_same_stem() {
    let test = Test::new()
        .write(".gitignore", "bin/release\n")
        .executable("bin/build.sh", "#!/bin/sh\n")
        .executable("bin/build.py", "#!/usr/bin/env python3\n")
        // A binary of the same stem is a program too.
        .executable("bin/fmt.sh", "#!/bin/sh\n")
        .executable("bin/fmt", "\u{7f}ELF\u{2}\u{1}\u{1}\0\0\0")
        // An ignored build output, a document and a non-executable file do not count.
        .executable("bin/release.sh", "#!/bin/sh\n")
        .executable("bin/release", "#!/bin/sh\n")
        .executable("bin/lint.sh", "#!/bin/sh\n")
        .executable("bin/lint.md", "notes\n")
        .executable("bin/serve.sh", "#!/bin/sh\n")
        .write("bin/serve.js", "#!/usr/bin/env node\n");
    assert_eq!(
        names(test.root()),
        [
            "bin/build.py",
            "bin/build.sh",
            "bin/fmt.sh",
            "bin/lint",
            "bin/release",
            "bin/serve"
        ]
    );
}

#[test]
fn a_directory_with_only_scripts_is_not_taken_for_a_repository_root() {
    // Without `.git`, agg looks up for the nearest directory with a task file; a file that
    // might be a script says nothing by its name alone.
    let test = Test::new()
        .write("Makefile", "all:\n\t@echo all\n")
        .executable("pkg/configure", "#!/bin/sh\necho configured\n");
    let names = crate::test::names(&Test::at(test.root()).current_dir("pkg").list_json());
    assert!(names.contains(&"all".to_owned()), "{names:?}");
}
