//! Shell completions: the scripts `agg completions SHELL` prints, driven in real bash and
//! fish, complete subcommands, task names and runners from the table, without running
//! repository code and without printing anything but the answers.

use std::path::Path;
use std::process::Command;

use crate::common::succeeds;
use crate::test::Test;

/// A repository with make, npm and just tasks, one unreadable file, and a Makefile that
/// would leave a file behind if anything evaluated it.
fn repo() -> tempfile::TempDir {
    crate::common::repo(&[
        (".git/HEAD", "ref: refs/heads/main\n"),
        (
            "apps/web/Makefile",
            "serve: ## Serve the web app\n\t@echo s\n\nbuild: ## Bundle the web app\n\t@echo w\n",
        ),
        (
            "Makefile",
            "PROOF := $(shell touch evaluated)\n\nbuild: ## Build every service\n\t@echo b\n\nbench:\n\t@echo x\n",
        ),
        (
            "package.json",
            r#"{"scripts": {"test": "node test.js", "bundle": "esbuild"}}"#,
        ),
        ("justfile", "# Deploy it\ndeploy:\n    @echo d\n"),
        ("broken/package.json", "{ not json"),
    ])
}

fn agg_dir() -> &'static Path {
    Path::new(env!("CARGO_BIN_EXE_agg"))
        .parent()
        .expect("the binary's directory")
}

/// What bash completes for the words typed (the last one being completed), with the
/// script `agg completions bash` printed sourced, run in `dir`.
fn bash_complete(dir: &Path, words: &[&str]) -> (Vec<String>, String) {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let cword = words.len() - 1;
    let script = format!(
        "source <(agg completions bash) || exit 9
COMP_WORDS=({words})
COMP_CWORD={cword}
COMP_LINE='{line}'
COMP_POINT=${{#COMP_LINE}}
COMP_TYPE=9
_clap_complete_agg agg '{current}' '{previous}'
printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        words = quoted.join(" "),
        line = words.join(" "),
        current = words[cword],
        previous = words[cword - 1],
    );
    let out = succeeds(
        Command::new("bash")
            .arg("-c")
            .arg(script)
            .current_dir(dir)
            .env("PATH", path_with_agg()),
        "bash",
    );
    (
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(str::to_owned)
            .collect(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// What fish completes for `line`, with the script `agg completions fish` printed sourced.
fn fish_complete(dir: &Path, line: &str) -> Vec<(String, String)> {
    let out = succeeds(
        Command::new("fish")
            .arg("--no-config")
            .arg("-c")
            .arg(format!(
                "agg completions fish | source; complete -C '{line}'"
            ))
            .current_dir(dir)
            .env("PATH", path_with_agg()),
        "fish",
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let (value, help) = l.split_once('\t').unwrap_or((l, ""));
            (value.to_owned(), help.to_owned())
        })
        .collect()
}

fn path_with_agg() -> String {
    format!(
        "{}:{}",
        agg_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

#[test]
fn completions_prints_a_script_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = Test::new().args(["completions", shell]).run().success();
        assert!(
            out.stdout.contains("AGG_COMPLETE"),
            "{shell}: {}",
            out.stdout
        );
        assert!(out.stdout.contains(env!("CARGO_BIN_EXE_agg")), "{shell}");
    }
    let out = Test::new().args(["completions", "tcsh"]).run().code(2);
    out.stderr_has("possible values");
}

#[test]
fn bash_completes_task_names_runners_and_subcommands() {
    require!("bash");
    let repo = repo();
    let (names, stderr) = bash_complete(repo.path(), &["agg", "run", ""]);
    for name in [
        "build",
        "bench",
        "test",
        "bundle",
        "deploy",
        "apps/web/serve",
    ] {
        assert!(names.contains(&name.to_owned()), "{name} in {names:?}");
    }
    assert!(stderr.is_empty(), "nothing but the answers: {stderr}");
    let (names, _) = bash_complete(repo.path(), &["agg", "describe", "b"]);
    let mut names = names;
    names.sort();
    assert_eq!(names, ["bench", "build", "bundle"]);
    let (runners, _) = bash_complete(repo.path(), &["agg", "list", "-r", ""]);
    let mut runners = runners;
    runners.sort();
    assert_eq!(runners, ["just", "make", "npm"]);
    // After a comma, the next runner.
    let (runners, _) = bash_complete(repo.path(), &["agg", "list", "--runner", "make,j"]);
    assert_eq!(runners, ["make,just"]);
    let (commands, _) = bash_complete(repo.path(), &["agg", "de"]);
    assert_eq!(commands, ["describe", "deny"]);
    // Completing never evaluated the Makefile's `$(shell …)`.
    assert!(!repo.path().join("evaluated").exists());
}

#[test]
fn fish_completes_task_names_with_their_descriptions_and_runners() {
    require!("fish");
    let repo = repo();
    let names = fish_complete(repo.path(), "agg run b");
    let build = names.iter().find(|(n, _)| n == "build").expect("build");
    assert_eq!(build.1, "Build every service");
    let mut found: Vec<&str> = names.iter().map(|(n, _)| n.as_str()).collect();
    found.sort_unstable();
    assert_eq!(found, ["bench", "build", "bundle"]);
    let runners = fish_complete(repo.path(), "agg list --runner ");
    let mut runners: Vec<&str> = runners.iter().map(|(n, _)| n.as_str()).collect();
    runners.sort_unstable();
    assert_eq!(runners, ["just", "make", "npm"]);
    let deploy = fish_complete(repo.path(), "agg describe dep");
    assert_eq!(deploy, [("deploy".to_owned(), "Deploy it".to_owned())]);
    assert!(!repo.path().join("evaluated").exists());
}

#[test]
fn below_the_root_the_current_directorys_short_names_complete_too() {
    require!("fish");
    let repo = repo();
    let web = repo.path().join("apps/web");
    let found = fish_complete(&web, "agg run b");
    // `build` here is apps/web's (as `agg run build` there runs it), then the root's others.
    assert_eq!(
        found,
        [
            ("build".to_owned(), "Bundle the web app".to_owned()),
            ("bench".to_owned(), "make bench".to_owned()),
            ("bundle".to_owned(), "npm run bundle".to_owned()),
        ]
    );
    let serve = fish_complete(&web, "agg describe ser");
    assert_eq!(
        serve,
        [("serve".to_owned(), "Serve the web app".to_owned())]
    );
    let out = Test::at(repo.path())
        .current_dir("apps/web")
        .args(["describe", "build"])
        .run()
        .success();
    out.stdout_has("apps/web/build");
}

#[test]
fn completing_outside_any_repository_offers_no_task_and_prints_nothing_else() {
    require!("bash");
    let empty = tempfile::tempdir().expect("tmp");
    let (names, stderr) = bash_complete(empty.path(), &["agg", "run", ""]);
    // Only the options of `agg run`.
    assert!(names.contains(&"--root".to_owned()), "{names:?}");
    assert!(names.iter().all(|n| n.starts_with("--")), "{names:?}");
    assert!(stderr.is_empty(), "{stderr}");
}
