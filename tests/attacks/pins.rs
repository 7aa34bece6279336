//! Attacks on what an allow pinned: a script's body replaced, an npm hook added, an include
//! edited, a file the runner prefers planted beside the allowed one, and edits the file
//! watcher cannot see in time or at all (written and started at once, through a hard link
//! from outside, in a directory removed and made again, behind a symlink into an ignored
//! directory). The decision reads the files from disk each time, so every one is refused.

use serde_json::json;

use super::harness::{Attack, MAKEFILE, error_code, ran, refused, start};
use indoc::indoc;

const REFUSED: i64 = -32010;

/// An edit the decision must see: either the allow lapsed (-32010), or the table no
/// longer matches the files (-32012); never a run.
fn refused_either(
    attack: &Attack,
    raw: &mut crate::common::raw::Raw,
    response: &serde_json::Value,
) {
    let code = error_code(response);
    assert!(
        matches!(code, Some(-32010 | -32012)),
        "not refused: {response}"
    );
    refused(attack, raw, response, code.unwrap_or_default());
}

/// Starts `task` (request `id`) after the attack's edit and asserts it was refused, either
/// way ([`refused_either`]).
fn refuses(attack: &Attack, raw: &mut crate::common::raw::Raw, id: u64, task: &str) {
    let response = start(raw, id, task, &json!({}));
    refused_either(attack, raw, &response);
}

#[test]
fn a_script_s_body_is_pinned() {
    let attack = Attack::new(&[("scripts/hello", "#!/bin/sh\necho hello\n")]);
    attack.executable("scripts/hello");
    let mut raw = attack.serve_after_one_run("scripts/hello");
    attack.write("scripts/hello", "#!/bin/sh\necho pwned > MARKER\n");
    refuses(&attack, &mut raw, 2, "scripts/hello");
}

#[test]
fn an_npm_hook_added_after_the_allow_is_refused() {
    require!("npm");
    let attack = Attack::new(&[(
        "package.json",
        r#"{"name": "x", "scripts": {"test": "echo testing"}}"#,
    )]);
    attack.agg(&["allow", "test"]);
    attack.write(
        "package.json",
        r#"{"name": "x", "scripts": {"pretest": "echo pwned > MARKER", "test": "echo testing"}}"#,
    );
    let mut raw = attack.serve();
    refuses(&attack, &mut raw, 1, "test");
}

#[test]
fn an_edit_of_an_included_file_is_refused() {
    let attack = Attack::new(&[
        (
            "Makefile",
            indoc! {"
                include common.mk
                build:
                \t@$(GREET) building
            "},
        ),
        ("common.mk", "GREET = echo\n"),
    ]);
    attack.agg(&["allow", "build"]);
    let shown = attack.agg(&["allowlist"]);
    assert!(
        shown.contains("common.mk"),
        "the pin covers the include: {shown}"
    );
    let mut raw = attack.serve();
    ran(&start(&mut raw, 1, "build", &json!({})));
    attack.write("common.mk", "GREET = touch MARKER; echo\n");
    let response = start(&mut raw, 2, "build", &json!({}));
    refused(&attack, &mut raw, &response, REFUSED);
}

#[test]
fn a_file_the_runner_prefers_planted_beside_the_allowed_one_is_refused() {
    let attack = Attack::new(&[("Makefile", MAKEFILE)]);
    let mut raw = attack.serve_after_one_run("build");
    attack.write("GNUmakefile", "build:\n\t@echo pwned > MARKER\n");
    refuses(&attack, &mut raw, 2, "build");
}

#[test]
fn a_recipe_written_and_started_at_once_is_refused_every_time() {
    let attack = Attack::new(&[("Makefile", MAKEFILE)]);
    let mut raw = attack.serve_after_one_run("build");
    for i in 0..10u64 {
        attack.write("Makefile", &format!("build:\n\t@echo pwned {i} > MARKER\n"));
        refuses(&attack, &mut raw, 10 + i, "build");
        attack.write("Makefile", MAKEFILE);
    }
}

#[test]
fn an_edit_through_a_hard_link_from_outside_is_refused() {
    let attack = Attack::new(&[("Makefile", MAKEFILE)]);
    let link = attack.outside.join("linked.mk");
    std::fs::hard_link(attack.root.join("Makefile"), &link).expect("link");
    let mut raw = attack.serve_after_one_run("build");
    // Written in place through the other name: the repository sees no event at all.
    std::fs::write(&link, attack.text("build:\n\t@echo pwned > MARKER\n")).expect("write");
    std::thread::sleep(std::time::Duration::from_millis(300));
    refuses(&attack, &mut raw, 2, "build");
}

#[test]
fn a_directory_removed_and_made_again_is_read_again() {
    let attack = Attack::new(&[("web/Makefile", MAKEFILE)]);
    let mut raw = attack.serve_after_one_run("web/build");
    std::fs::remove_dir_all(attack.root.join("web")).expect("rm");
    attack.write("web/Makefile", "build:\n\t@echo pwned > MARKER\n");
    let response = start(&mut raw, 2, "web/build", &json!({}));
    let code = error_code(&response);
    assert!(code.is_some(), "not refused: {response}");
    refused(&attack, &mut raw, &response, code.unwrap_or_default());
}

#[test]
fn a_task_file_behind_a_symlink_into_an_ignored_directory_is_read_through_it() {
    let attack = Attack::new(&[(".gitignore", "hidden/\n"), ("hidden/real.mk", MAKEFILE)]);
    std::os::unix::fs::symlink("hidden/real.mk", attack.root.join("Makefile")).expect("link");
    let mut raw = attack.serve_after_one_run("build");
    attack.write("hidden/real.mk", "build:\n\t@echo pwned > MARKER\n");
    std::thread::sleep(std::time::Duration::from_millis(300));
    refuses(&attack, &mut raw, 2, "build");
}
