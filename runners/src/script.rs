//! Executable scripts: files with a `#!` line and an execute bit directly in a `scripts/`,
//! `script/` or `bin/` directory, or in the repository root. Each runs as itself
//! (`./scripts/deploy.sh args…`) from the directory that holds that `scripts/` (or from the
//! root), and is named by its path from there without its extension (`scripts/deploy`).
//!
//! Files are recognised by content: the scan offers this adapter (the last in the registry,
//! so every named format wins) each file at those places, and [`admit`] looks at its first
//! bytes and execute bit before anything else is read. Hidden and vendored trees are skipped
//! by path, a virtualenv's `bin/` by its `pyvenv.cfg`.

use crate::files::{Files, file_name, join, parent};
use crate::model::{Adapter, Parsed, Runner, Source, Task};
use crate::reads::{Purpose, Reads};
use crate::text::is_divider;

/// The script adapter.
pub const ADAPTER: Adapter = Adapter {
    name: "script",
    candidate,
    one_per_dir: false,
    admit: Some(admit),
    neighbours: None,
    parse,
};

/// Directories whose executable files are listed (besides the root's own files).
pub const SCRIPT_DIRS: [&str; 3] = ["scripts", "script", "bin"];

/// Path components that mark a vendored tree: someone else's scripts, not the project's.
pub const VENDORED: [&str; 5] = [
    "vendor",
    "vendored",
    "third_party",
    "third-party",
    "3rdparty",
];

/// Extensions of files that are never scripts, skipped without a look at their content.
const NOT_SCRIPTS: [&str; 24] = [
    "md", "markdown", "rst", "txt", "adoc", "json", "jsonc", "toml", "yaml", "yml", "lock", "xml",
    "html", "css", "svg", "png", "jpg", "jpeg", "gif", "ico", "pdf", "csv", "cfg", "ini",
];

fn candidate(path: &str) -> Option<u8> {
    let mut parts = path.rsplit('/');
    let name = parts.next()?;
    let dir = parts.next();
    // The directory first: it turns away nearly every path of a walk at once.
    if dir.is_some_and(|d| !SCRIPT_DIRS.contains(&d))
        || name.starts_with('.')
        || has_extension_in(name, &NOT_SCRIPTS)
    {
        return None;
    }
    let Some(dir) = dir else {
        // A file of the root.
        return Some(0);
    };
    let clean = std::iter::once(dir)
        .chain(parts)
        .all(|p| !p.starts_with('.') && !VENDORED.contains(&p));
    clean.then_some(0)
}

fn has_extension_in(name: &str, list: &[&str]) -> bool {
    name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && list.iter().any(|e| ext.eq_ignore_ascii_case(e))
    })
}

/// A script: executable, starting with `#!`, and text (no NUL byte in its first bytes, which
/// rules out binaries that happen to start with `#!`).
pub fn admit(head: &[u8], executable: bool) -> bool {
    executable && head.starts_with(b"#!") && !head.contains(&0)
}

fn parse(src: &Source<'_>) -> Parsed {
    let mut parsed = Parsed::default();
    let file_dir = parent(src.path);
    // A file of `scripts/` runs from the directory holding `scripts/`; a root file from
    // the root.
    let dir = if src.path.contains('/') {
        parent(file_dir)
    } else {
        "."
    };
    // A Python virtualenv's own programs (`venv/bin/pip`): their first lines name Python
    // (in the `#!` line, or in the `exec` line of the `#!/bin/sh` form for long paths).
    if file_name(file_dir) == "bin"
        && src.text.lines().take(2).any(|l| l.contains("python"))
        && join(dir, "pyvenv.cfg").is_some_and(|p| src.files.exists(&p))
    {
        return parsed;
    }
    let rel = match dir {
        "." => src.path,
        _ => src.path.get(dir.len() + 1..).unwrap_or(src.path),
    };
    let name = script_name(src.path, rel, src.files);
    let mut task = Task::new(
        Runner::Script,
        name,
        dir,
        src.path,
        vec![format!("./{rel}")],
    );
    task.line = Some(1);
    task.description = description(src.text);
    if src.purpose == Purpose::Decide {
        // The script is the task: its bytes are what runs.
        let mut reads = Reads::default();
        reads.part(format!("script {}", src.path), src.text);
        task.reads = Some(Box::new(reads));
    }
    parsed.tasks.push(task);
    parsed
}

/// `scripts/deploy` for `scripts/deploy.sh`; the extension stays when another executable
/// file of the same directory that could be a script has the same stem (`scripts/test`
/// beside `scripts/test.sh`, `bin/build.py` beside `bin/build.sh`), so that no two scripts
/// share a name and no name suggests a different file than the one that runs.
fn script_name(path: &str, rel: &str, files: &dyn Files) -> String {
    let name = file_name(path);
    let Some((stem, _)) = name.rsplit_once('.').filter(|(stem, _)| !stem.is_empty()) else {
        return rel.to_owned();
    };
    let dir = parent(path);
    let clash = files.siblings(path).iter().any(|other| {
        other != name
            && (other == stem || other.strip_prefix(stem).is_some_and(|r| r.starts_with('.')))
            && join(dir, other).is_some_and(|p| files.executable(&p))
    });
    if clash {
        rel.to_owned()
    } else {
        rel.get(..rel.len() - (name.len() - stem.len()))
            .unwrap_or(rel)
            .to_owned()
    }
}

/// The first comment line after the `#!` line (blank lines skipped; tool directives such as
/// `# shellcheck …` or `# -*- coding … -*-`, divider lines such as `# -----`, and licence
/// blocks — from a `Copyright`/`SPDX-License-Identifier`/`Licensed …` line to the next empty
/// comment line — passed over), or the first line of a Python docstring there.
fn description(text: &str) -> Option<String> {
    let mut in_licence = false;
    for line in text.lines().skip(1).take(80) {
        let line = line.trim();
        if line.is_empty() {
            in_licence = false;
            continue;
        }
        let comment = line
            .strip_prefix('#')
            .or_else(|| line.strip_prefix("//"))
            .map(|c| c.trim_start_matches(['#', '/']).trim());
        if let Some(comment) = comment {
            if comment.is_empty() {
                in_licence = false;
                continue;
            }
            if is_licence(comment) {
                in_licence = true;
            }
            if in_licence || is_directive(comment) || is_divider(comment) {
                continue;
            }
            return Some(comment.to_owned());
        }
        let doc = line
            .strip_prefix("\"\"\"")
            .or_else(|| line.strip_prefix("'''"))?;
        let doc = doc.split("\"\"\"").next().unwrap_or(doc);
        let doc = doc.split("'''").next().unwrap_or(doc).trim();
        return (!doc.is_empty()).then(|| doc.to_owned());
    }
    None
}

/// The first line of a licence or copyright block.
fn is_licence(comment: &str) -> bool {
    let lower = comment.to_ascii_lowercase();
    [
        "copyright",
        "(c) ",
        "©",
        "spdx-license-identifier",
        "licensed ",
        "license:",
        "all rights reserved",
        "this program is free software",
        "permission is hereby granted",
    ]
    .iter()
    .any(|k| lower.starts_with(k))
        || lower.contains("licensed to the ")
}

/// Comments meant for a tool rather than a reader.
fn is_directive(comment: &str) -> bool {
    let lower = comment.to_ascii_lowercase();
    [
        "shellcheck ",
        "-*-",
        "vim:",
        "vi:",
        "frozen_string_literal",
        "coding:",
        "coding=",
        "!",
    ]
    .iter()
    .any(|d| lower.starts_with(d))
        || lower.starts_with("ts-") && !lower.contains(' ')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::MemFiles;
    use crate::testing::{names, parse_with};
    use indoc::indoc;

    #[test]
    fn candidates_are_files_of_script_directories_and_the_root() {
        for yes in [
            "configure",
            "scripts/deploy.sh",
            "script/bootstrap",
            "bin/dev",
            "apps/web/bin/rails",
            "tools/scripts/gen.py",
        ] {
            assert_eq!(candidate(yes), Some(0), "{yes}");
        }
        for no in [
            ".envrc",
            "README.md",
            "Cargo.toml",
            "src/main.rs",
            "scripts/lib/util.sh",
            "scripts/.hidden",
            ".venv/bin/pip",
            ".github/scripts/x.sh",
            "vendor/pkg/bin/tool",
            "third_party/x/scripts/build",
            "docs/bin/notes.md",
        ] {
            assert_eq!(candidate(no), None, "{no}");
        }
    }

    #[test]
    fn only_executable_text_with_a_shebang_is_admitted() {
        assert!(admit(b"#!/bin/sh\necho hi\n", true));
        assert!(!admit(b"#!/bin/sh\necho hi\n", false));
        assert!(!admit(b"echo hi\n", true));
        assert!(!admit(b"\x7fELF\x02\x01\x01\0\0", true));
        assert!(!admit(b"#!/bin/sh\n\0\0binary payload", true));
        assert!(!admit(b"", true));
    }

    fn parse_at(files: &MemFiles, path: &str) -> Task {
        let parsed = parse_with(parse, files, path);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        parsed.tasks.into_iter().next().expect("one task")
    }

    #[test]
    fn scripts_run_from_the_directory_above_and_lose_their_extension() {
        let files = MemFiles::new()
            .with_executable(
                "scripts/deploy.sh",
                indoc! {"
                    #!/bin/bash
                    # Deploy to an environment.
                    set -e
                "},
            )
            .with_executable(
                "apps/web/bin/dev",
                "#!/usr/bin/env node\n// Start the dev server\n",
            )
            .with_executable(
                "configure",
                indoc! {"
                    #!/bin/sh

                    # shellcheck disable=SC2034
                    # Configure the build
                "},
            )
            .with_executable(
                "tools/script/release.tar.py",
                indoc! {"
                    #!/usr/bin/env python3
                    # -*- coding: utf-8 -*-
                    \"\"\"Cut a release.\"\"\"
                "},
            );
        let deploy = parse_at(&files, "scripts/deploy.sh");
        assert_eq!(
            (deploy.source_name.as_str(), deploy.dir.as_str()),
            ("scripts/deploy", ".")
        );
        assert_eq!(deploy.argv, ["./scripts/deploy.sh"]);
        assert_eq!(
            deploy.description.as_deref(),
            Some("Deploy to an environment.")
        );
        let dev = parse_at(&files, "apps/web/bin/dev");
        assert_eq!(
            (dev.source_name.as_str(), dev.dir.as_str()),
            ("bin/dev", "apps/web")
        );
        assert_eq!(dev.argv, ["./bin/dev"]);
        assert_eq!(dev.description.as_deref(), Some("Start the dev server"));
        let configure = parse_at(&files, "configure");
        assert_eq!(
            (configure.source_name.as_str(), configure.dir.as_str()),
            ("configure", ".")
        );
        assert_eq!(configure.argv, ["./configure"]);
        assert_eq!(
            configure.description.as_deref(),
            Some("Configure the build")
        );
        let release = parse_at(&files, "tools/script/release.tar.py");
        assert_eq!(release.source_name, "script/release.tar");
        assert_eq!(release.description.as_deref(), Some("Cut a release."));
    }

    #[test]
    fn a_shared_stem_keeps_the_extensions() {
        let files = MemFiles::new()
            .with_executable("scripts/test", "#!/bin/sh\n")
            .with_executable("scripts/test.sh", "#!/bin/sh\n")
            .with_executable("scripts/build.sh", "#!/bin/sh\n")
            .with_executable("scripts/build.py", "#!/usr/bin/env python3\n")
            .with_executable("scripts/lint.sh", "#!/bin/sh\n")
            .with("scripts/lint.md", "not executable")
            .with_executable("scripts/testing.sh", "#!/bin/sh\n");
        let name = |p: &str| parse_at(&files, p).source_name;
        assert_eq!(name("scripts/test"), "scripts/test");
        assert_eq!(name("scripts/test.sh"), "scripts/test.sh");
        assert_eq!(name("scripts/build.sh"), "scripts/build.sh");
        assert_eq!(name("scripts/build.py"), "scripts/build.py");
        assert_eq!(name("scripts/lint.sh"), "scripts/lint");
        assert_eq!(name("scripts/testing.sh"), "scripts/testing");
    }

    #[test]
    fn a_virtualenv_bin_is_not_the_project_s() {
        let files = MemFiles::new()
            .with("venv/pyvenv.cfg", "home = /usr/bin\n")
            .with_executable("venv/bin/pip", "#!/x/venv/bin/python\n");
        assert!(names(&parse_with(parse, &files, "venv/bin/pip")).is_empty());
    }

    #[test]
    fn descriptions_come_from_the_first_comment_only() {
        assert_eq!(
            description(indoc! {"
                #!/bin/sh
                set -e
                # later
            "}),
            None
        );
        assert_eq!(
            description("#!/bin/sh\n#\n##  Title  \n"),
            Some("Title".to_owned())
        );
        assert_eq!(description("#!/bin/sh"), None);
        assert_eq!(
            description("#!/usr/bin/env python3\n'''Doc'''\n"),
            Some("Doc".to_owned())
        );
        assert_eq!(
            description(indoc! {"
                #!/bin/sh
                # vim: set ft=sh:
                # Real
            "}),
            Some("Real".to_owned())
        );
    }

    #[test]
    fn licence_blocks_and_divider_lines_are_not_descriptions() {
        assert_eq!(
            description(indoc! {"
                #!/bin/sh
                # Copyright 2024 ACME
                # SPDX-License-Identifier: MIT
                #
                # Build the docs
            "}),
            Some("Build the docs".to_owned())
        );
        assert_eq!(
            description(indoc! {"
                #!/bin/sh
                # -----
                # Licensed to the Apache Software Foundation (ASF) under one
                # or more contributor license agreements.
                # -----

                # Maven wrapper startup script
            "}),
            Some("Maven wrapper startup script".to_owned())
        );
        assert_eq!(description("#!/bin/sh\n# =====\n"), None);
        assert_eq!(description("#!/bin/sh\n# Licensed under MIT\n"), None);
    }
}
