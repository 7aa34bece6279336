//! Attacks through symlinks: a rule written for one name of a task file holds for the other
//! (deny winning either way), and an allowlist that is a symlink into the served
//! repository cannot let the repository allow itself.

use serde_json::json;

use super::harness::{Attack, MAKEFILE, ran, refused, start, text};

#[test]
fn a_deny_of_a_symlinked_task_file_wins_over_an_allow_of_its_directory() {
    let attack = Attack::new(&[("real/tasks.mk", MAKEFILE)]);
    std::os::unix::fs::symlink("real/tasks.mk", attack.root.join("Makefile")).expect("link");
    attack.agg(&["allow", "--dir", "."]);
    attack.agg(&["deny", "--file", "Makefile"]);
    let mut raw = attack.serve();
    let response = start(&mut raw, 1, "deploy", &json!({}));
    refused(&attack, &mut raw, &response, -32010);
    assert!(text(&response).contains("denied"), "{response}");
}

#[test]
fn an_allow_of_a_symlinked_task_file_allows_its_tasks() {
    let attack = Attack::new(&[("real/tasks.mk", MAKEFILE)]);
    std::os::unix::fs::symlink("real/tasks.mk", attack.root.join("Makefile")).expect("link");
    attack.agg(&["allow", "--file", "Makefile"]);
    let mut raw = attack.serve();
    ran(&start(&mut raw, 1, "build", &json!({})));
}

#[test]
fn an_allowlist_that_is_a_symlink_into_the_repository_is_ignored() {
    let attack = Attack::new(&[("Makefile", MAKEFILE)]);
    // The repository ships an allowlist that allows everything in it.
    attack.write(
        "dotfiles/allowlist.toml",
        &format!("[[allow]]\ndir = \"{}\"\n", attack.root.display()),
    );
    std::os::unix::fs::symlink(
        attack.root.join("dotfiles/allowlist.toml"),
        &attack.allowlist,
    )
    .expect("link");
    let mut raw = attack.serve();
    let response = start(&mut raw, 1, "deploy", &json!({}));
    refused(&attack, &mut raw, &response, -32010);
    assert!(
        text(&response).contains("inside the repository"),
        "{response}"
    );
}
