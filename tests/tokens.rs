//! What a model pays for agg's answers, counted with a real o200k tokenizer (tiktoken-rs
//! embeds the rank file): `tools/list`, and `list_tasks` on the generated monorepo in both
//! forms hosts show a model (the text, and `structuredContent`, which Claude Code and Codex
//! pass on). Each test prints its figures; the README's token table comes from them.

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

use serde_json::{Value, json};
use tiktoken_rs::CoreBPE;

use crate::common::raw::Raw;
use crate::test::fixtures;
use indoc::{formatdoc, indoc};

/// `tools/list` of a plain server (no per-task tools): 3,000 until `wait_for` and the
/// results fields (`tests`, `problems`, `problems_more`, `wait`) of the job tools came,
/// 3,200 until the job tools' `sandbox` and `describe_task`'s (3,218 measured), 3,250 until
/// `list_runs` and `list_tasks`' `affected`.
const TOOLS_BUDGET: usize = 3_400;
/// `list_tasks {}` on the generated monorepo, in either form.
const LIST_BUDGET: usize = 3_000;
/// Any result, whatever the arguments.
const RESULT_BUDGET: usize = 25_000;

fn bpe() -> &'static CoreBPE {
    static BPE: OnceLock<CoreBPE> = OnceLock::new();
    BPE.get_or_init(|| tiktoken_rs::o200k_base().expect("o200k"))
}

pub(crate) fn tokens(text: &str) -> usize {
    bpe().encode_ordinary(text).len()
}

/// The generated monorepo of the benchmarks (24,690 tasks), made once per test run.
fn monorepo() -> std::path::PathBuf {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tmp");
        let out = dir.path().join("mono");
        let status = Command::new("python3")
            .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/gen-monorepo.py"))
            .args(["--quiet"])
            .arg(&out)
            .status()
            .expect("python3");
        assert!(status.success(), "gen-monorepo.py failed");
        dir
    })
    .path()
    .join("mono")
}

fn server(root: &Path) -> (Raw, tempfile::TempDir) {
    let config = tempfile::tempdir().expect("config");
    let raw = Raw::start(root, &config.path().join("allowlist.toml"));
    (raw, config)
}

/// The text and the structured form of a tool result, in tokens.
fn both(response: &Value) -> (usize, usize) {
    let result = &response["result"];
    let text: String = result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .collect();
    (
        tokens(&text),
        tokens(&result["structuredContent"].to_string()),
    )
}

#[test]
fn tools_list_fits_its_budget() {
    let (mut raw, _config) = server(&fixtures().join("polyglot"));
    raw.send_value(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    let list = raw.response(1);
    let total = tokens(&list["result"].to_string());
    let outputs: usize = list["result"]["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| tokens(&t["outputSchema"].to_string()))
        .sum();
    eprintln!("tools/list: {total} tokens, {outputs} of them output schemas");
    assert!(total <= TOOLS_BUDGET, "tools/list is {total} tokens");
}

#[test]
fn list_tasks_on_the_monorepo_fits_in_either_form() {
    let (mut raw, _config) = server(&monorepo());
    let (text, structured) = both(&raw.call(1, "list_tasks", &json!({})));
    eprintln!("list_tasks {{}} on the monorepo: text {text} tokens, structured {structured}");
    assert!(text <= LIST_BUDGET, "text {text} tokens");
    assert!(structured <= LIST_BUDGET, "structured {structured} tokens");
    let (text, structured) = both(&raw.call(2, "list_tasks", &json!({"limit": 100_000})));
    eprintln!("list_tasks {{limit: 100000}}: text {text} tokens, structured {structured}");
    assert!(text < RESULT_BUDGET, "text {text} tokens");
    assert!(structured < RESULT_BUDGET, "structured {structured} tokens");
    let (text, structured) = both(&raw.call(3, "list_tasks", &json!({"query": "test"})));
    eprintln!("list_tasks {{query: test}}: text {text} tokens, structured {structured}");
    assert!(text <= LIST_BUDGET && structured <= LIST_BUDGET);
}

/// A failed run of 2,000 tests, 20 of them failing: its result, text and structured
/// together.
const FAILED_RUN_BUDGET: usize = 2_000;

/// A pytest module of `n` tests, the first `failing` of them failing their assertion.
fn pytest_module(n: usize, failing: usize) -> String {
    let mut s = String::from(indoc! {"
        def total(items):
            return sum(items)

    "});
    for i in 0..n {
        let want = if i < failing { i + 1 } else { i };
        s.push_str(&formatdoc! {"
            def test_total_{i}():
                assert total([{i}]) == {want}

        "});
    }
    s
}

#[test]
fn a_failed_run_of_two_thousand_tests_gives_its_twenty_failures_in_two_thousand_tokens() {
    require!("pytest", "make");
    let repo = crate::test::Test::new()
        .write(
            "Makefile",
            indoc! {"
            test:
            \tpytest -q -p no:cacheprovider tests/test_orders.py
            pass:
            \tpytest -q -p no:cacheprovider tests/test_pass.py
        "},
        )
        .write("tests/test_orders.py", pytest_module(2_000, 20))
        .write("tests/test_pass.py", pytest_module(2_000, 0))
        .into_tempdir();
    let config = tempfile::tempdir().expect("config");
    let allowlist = config.path().join("allowlist.toml");
    let root = std::fs::canonicalize(repo.path()).expect("root");
    crate::common::mcp::allow_all(&root, &allowlist);
    let mut raw = Raw::start(&root, &allowlist);
    let long = std::time::Duration::from_secs(300);
    let response = raw.call_within(
        1,
        "task_start",
        &json!({"unique_name": "test", "wait_ms": 300_000}),
        long,
    );
    let structured = &response["result"]["structuredContent"];
    assert_eq!(structured["tests"]["failed"], 20, "{structured}");
    assert_eq!(structured["tests"]["passed"], 1_980);
    let failures = structured["tests"]["failures"]
        .as_array()
        .expect("failures");
    assert_eq!(failures.len(), 20);
    assert!(
        failures
            .iter()
            .all(|f| f["file"] == "tests/test_orders.py" && f["line"].as_u64().is_some()),
        "{structured}"
    );
    let (text, structured_tokens) = both(&response);
    eprintln!(
        "20 failures of 2,000 pytest tests: text {text} tokens, structured {structured_tokens}, together {}",
        text + structured_tokens
    );
    assert!(
        text + structured_tokens <= FAILED_RUN_BUDGET,
        "text {text} + structured {structured_tokens}"
    );
    // A passing run adds one line to the text, and its counts to the structured result.
    let response = raw.call_within(
        2,
        "task_start",
        &json!({"unique_name": "pass", "wait_ms": 300_000}),
        long,
    );
    let text: String = response["result"]["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .collect();
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("tests:")).collect();
    assert_eq!(lines, ["tests: 2,000 passed"], "{text}");
    let tests = &response["result"]["structuredContent"]["tests"];
    eprintln!(
        "a passing run adds: text {} tokens, structured {}",
        tokens(lines[0]),
        tokens(&format!("\"tests\":{tests}"))
    );
}
