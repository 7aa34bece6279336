//! Attacks through the arguments an agent adds to an allowed task: another target, a
//! runner option that loads code, a variable the runner reads, a wildcard filled with a
//! denied task's name, a value a shell would expand. Each is refused with -32016 (the
//! user did not approve it) and leaves no marker; a plain start still runs, and a rule the
//! person wrote for it (`--any-args`) lets the arguments through.

use serde_json::{Value, json};

use super::harness::{Attack, MAKEFILE, error_code, ran, ran_saying, refused, start, text};
use crate::common::raw::Raw;
use indoc::indoc;

const NEEDS_APPROVAL: i64 = -32016;

#[test]
fn make_arguments_are_targets_options_and_variables_so_they_are_asked_about() {
    let attack = Attack::new(&[("Makefile", MAKEFILE)]);
    attack.write("evil.mk", "build:\n\t@echo pwned > MARKER\n");
    attack.agg(&["allow", "build"]);
    attack.agg(&["deny", "deploy"]);
    let evil = attack.root.join("evil.mk").display().to_string();
    let shell = attack.text("SHELL=/bin/sh -c 'touch MARKER'");
    let eval = attack.text("--eval=x:;@touch MARKER");
    let mut raw = attack.serve();
    for (id, args) in [
        (1, vec!["deploy"]),
        (2, vec![eval.as_str(), "x"]),
        (3, vec!["-f", evil.as_str()]),
        (4, vec![shell.as_str()]),
        (5, vec!["--file", evil.as_str(), "build"]),
    ] {
        let response = start(&mut raw, id, "build", &json!({"args": args}));
        refused(&attack, &mut raw, &response, NEEDS_APPROVAL);
        let said = text(&response);
        assert!(said.contains("agg allow build --any-args"), "{said}");
    }
    ran(&start(&mut raw, 10, "build", &json!({})));
    assert!(!attack.marked());
}

#[test]
fn a_rule_the_person_wrote_for_any_arguments_lets_them_through() {
    let attack = Attack::new(&[("Makefile", MAKEFILE)]);
    attack.agg(&["allow", "build", "--any-args"]);
    let shown = attack.agg(&["allowlist"]);
    assert!(shown.contains("(pinned, any arguments)"), "{shown}");
    let mut raw = attack.serve();
    // `deploy` is not denied here: the person allowed `build` with anything after it.
    ran(&start(&mut raw, 1, "build", &json!({"args": ["deploy"]})));
    assert!(attack.marked(), "the person's rule let `deploy` run");
}

/// `agg mcp` on the attack's repository once the person has run each of `rules` (`agg
/// allow …`, `agg deny …`).
fn served_with_rules(attack: &Attack, rules: &[&[&str]]) -> Raw {
    for rule in rules {
        attack.agg(rule);
    }
    attack.serve()
}

/// Starts `name` with `args` (request `id`) and asserts it was refused as needing the
/// person's approval, with nothing run.
fn needs_approval(attack: &Attack, raw: &mut Raw, id: u64, name: &str, args: &Value) {
    let response = start(raw, id, name, &json!({"args": args}));
    refused(attack, raw, &response, NEEDS_APPROVAL);
}

#[test]
fn just_never_takes_an_argument_past_the_recipe_s_parameters() {
    require!("just");
    let attack = Attack::new(&[(
        "justfile",
        indoc! {"
            build:
            \t@echo building

            deploy:
            \t@echo deployed > MARKER

            [private]
            secret:
            \t@echo secret > MARKER

            test filter='all':
            \t@echo testing {{filter}}
        "},
    )]);
    let mut raw = served_with_rules(
        &attack,
        &[&["allow", "build"], &["allow", "test"], &["deny", "deploy"]],
    );
    for (id, name, args) in [
        (1, "build", vec!["deploy"]),
        (2, "build", vec!["secret"]),
        (3, "test", vec!["unit", "deploy"]),
        (4, "test", vec!["$(touch MARKER)"]),
        (5, "test", vec!["--set", "filter", "x"]),
    ] {
        let args: Vec<String> = args.iter().map(|a| attack.text(a)).collect();
        needs_approval(&attack, &mut raw, id, name, &json!(args));
    }
    ran_saying(
        &start(&mut raw, 10, "test", &json!({"args": ["unit"]})),
        "testing unit",
    );
}

#[test]
fn a_go_task_wildcard_is_never_filled_with_another_task_s_name() {
    require!("task");
    let attack = Attack::new(&[(
        "Taskfile.yml",
        indoc! {"
            version: '3'
            tasks:
              greet:*:
                cmds:
                  - echo hello {{index .MATCH 0}}
              greet:secret:
                cmds:
                  - echo secret > MARKER
        "},
    )]);
    let mut raw = served_with_rules(&attack, &[&["allow", "greet:*"], &["deny", "greet:secret"]]);
    for (id, arg) in [(1, "secret"), (2, "$(touch MARKER)")] {
        needs_approval(&attack, &mut raw, id, "greet:*", &json!([arg]));
    }
    ran_saying(
        &start(&mut raw, 3, "greet:*", &json!({"args": ["bob"]})),
        "hello bob",
    );
}

#[test]
fn a_cargo_alias_takes_no_config_from_an_agent() {
    let attack = Attack::new(&[
        (".cargo/config.toml", "[alias]\nb = \"build\"\n"),
        (
            "Cargo.toml",
            indoc! {"
                [package]
                name = \"x\"
                version = \"0.1.0\"
                edition = \"2021\"
            "},
        ),
        ("src/main.rs", "fn main() {}\n"),
    ]);
    attack.write(
        "wrap.sh",
        indoc! {"
        #!/bin/sh
        touch MARKER
        exec \"$@\"
    "},
    );
    attack.executable("wrap.sh");
    attack.agg(&["allow", "b"]);
    let config = format!(
        "build.rustc-wrapper=\"{}\"",
        attack.root.join("wrap.sh").display()
    );
    let mut raw = attack.serve();
    let response = start(&mut raw, 1, "b", &json!({"args": ["--config", config]}));
    refused(&attack, &mut raw, &response, NEEDS_APPROVAL);
}

#[test]
fn npm_arguments_after_the_separator_are_data_even_what_a_shell_would_expand() {
    require!("npm");
    let attack = Attack::new(&[
        (
            "package.json",
            r#"{"name": "x", "scripts": {"test": "node print.js"}}"#,
        ),
        (
            "print.js",
            "console.log(JSON.stringify(process.argv.slice(2)));\n",
        ),
    ]);
    attack.agg(&["allow", "test"]);
    let mut raw = attack.serve();
    // npm quotes every argument it appends: a shell never sees `$( )` as code.
    let args = [
        "--watch=false".to_owned(),
        "src/a.test.ts".to_owned(),
        attack.text("$(touch MARKER)"),
        attack.text("`touch MARKER`; touch MARKER"),
    ];
    let response = start(&mut raw, 1, "test", &json!({"args": args}));
    ran(&response);
    let printed = serde_json::to_string(&args).expect("json");
    assert!(text(&response).contains(&printed), "{response}");
    assert!(!attack.marked());
    // A newline is no argument a person could check: refused outright.
    let response = start(&mut raw, 2, "test", &json!({"args": ["a\nb"]}));
    refused(&attack, &mut raw, &response, -32602);
    assert_eq!(error_code(&response), Some(-32602));
}

#[test]
fn a_lapsed_any_args_rule_waives_nothing_while_a_file_rule_still_allows_the_task() {
    let attack = Attack::new(&[("Makefile", MAKEFILE)]);
    attack.agg(&["allow", "build", "--any-args"]);
    attack.agg(&["allow", "--file", "Makefile"]);
    // The task rule's pin lapses; the unpinned file rule still allows `build` itself.
    attack.write(
        "Makefile",
        &MAKEFILE.replace("@echo building", "@echo building again"),
    );
    let shown = attack.agg(&["allowlist"]);
    assert!(shown.contains("lapsed: recipe text changed"), "{shown}");
    let mut raw = attack.serve();
    let response = start(&mut raw, 1, "build", &json!({"args": ["deploy"]}));
    refused(&attack, &mut raw, &response, NEEDS_APPROVAL);
    assert!(text(&response).contains("argument `deploy`"), "{response}");
    ran_saying(&start(&mut raw, 2, "build", &json!({})), "building again");
    assert!(!attack.marked());
}
