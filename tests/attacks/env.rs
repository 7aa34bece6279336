//! Attacks through the environment an agent adds: variables that load a library, pick the
//! shell, extend the program search path or pass options to an interpreter or a runner
//! are refused outright (-32017); any other variable needs the person's approval (-32016).

use serde_json::json;

use super::harness::{Attack, MAKEFILE, error_code, ran, refused, start, text};

#[test]
fn variables_that_load_or_redirect_code_are_refused_outright() {
    let attack = Attack::new(&[("Makefile", MAKEFILE)]);
    attack.write("evil.mk", "build:\n\t@echo pwned > MARKER\n");
    attack.write("bin/make", "#!/bin/sh\necho pwned > MARKER\n");
    attack.executable("bin/make");
    attack.agg(&["allow", "build"]);
    let bin = attack.root.join("bin").display().to_string();
    let evil = attack.root.join("evil.mk").display().to_string();
    let mut raw = attack.serve();
    for (id, name, value) in [
        (1, "LD_PRELOAD", "/tmp/evil.so"),
        (2, "PATH", bin.as_str()),
        (3, "MAKEFILES", evil.as_str()),
        (4, "MAKEFLAGS", "deploy"),
        (5, "NODE_OPTIONS", "--require /tmp/evil.js"),
        (6, "npm_config_script_shell", "/tmp/evil"),
        (7, "BASH_ENV", "/tmp/evil"),
        (8, "RUSTC_WRAPPER", "/tmp/evil"),
        (9, "AGG_ALLOWLIST", "/tmp/mine.toml"),
    ] {
        let response = start(&mut raw, id, "build", &json!({"env": {name: value}}));
        refused(&attack, &mut raw, &response, -32017);
        assert!(text(&response).contains(name), "{response}");
    }
}

#[test]
fn any_other_variable_needs_the_person_s_approval() {
    let attack = Attack::new(&[("Makefile", "build:\n\t@echo building $(GREETING)\n")]);
    attack.agg(&["allow", "build"]);
    let mut raw = attack.serve();
    let response = start(&mut raw, 1, "build", &json!({"env": {"GREETING": "hi"}}));
    assert_eq!(error_code(&response), Some(-32016), "{response}");
    assert!(text(&response).contains("GREETING"), "{response}");
    ran(&start(&mut raw, 2, "build", &json!({})));
}
