//! What a model reads of a job's output: the first failure region of a failed run in the
//! `task_start` result (within a token budget, counted with o200k), `task_output`'s `grep`
//! with context and line numbers, and one vocabulary for output everywhere: `offset` is a
//! line number (1 = the first line, 0 refused), `max_bytes` a hard bound, one default
//! tail, one answer for an unknown log.

use serde_json::{Value, json};

use crate::common::mcp::{Mcp, text};
use crate::common::raw::Raw;
use crate::common::repo;
use crate::conformance::modern_meta;
use crate::tokens::tokens;
use indoc::indoc;

/// A `task_start` result for a failed 5,000-line test run, in either form a host shows.
const FAILED_RUN_BUDGET: usize = 1_500;

/// A run of 5,000 lines whose one failure is at line 2,345; it exits 1. It looks like pytest
/// but ends without pytest's timed summary, so no parser of agg reads it: the failure region
/// is what finds its failure (`tests/results.rs` has the real runners).
const SUITE: &str = r#"import sys
DETAIL = [
    "tests/test_orders.py::test_refund_rounds_half_up FAILED                  [ 46%]",
    "    def test_refund_rounds_half_up():",
    ">       assert refund(Decimal(\"10.005\")) == Decimal(\"10.01\")",
    "E       AssertionError: assert Decimal('10.00') == Decimal('10.01')",
    "E        +  where Decimal('10.00') = refund(Decimal('10.005'))",
    "tests/test_orders.py:42: AssertionError",
]
out = []
n = 1
while n <= 4998:
    if n == 2345:
        out.extend(DETAIL)
        n += len(DETAIL)
        continue
    out.append(f"tests/test_mod_{n // 100:02}.py::test_case_{n:04} PASSED{' ' * 30}[{n * 100 // 5000:3}%]")
    n += 1
out.append("FAILED tests/test_orders.py::test_refund_rounds_half_up - AssertionError: assert Decimal('10.00') == Decimal('10.01')")
out.append("======================== 1 failed, 4992 passed ========================")
print("\n".join(out))
sys.exit(1)
"#;

fn suite_repo() -> tempfile::TempDir {
    repo(&[
        (
            "Makefile",
            indoc! {"
                test: ## Run the suite
                \t@python3 suite.py

                words:
                \t@printf 'alpha\\nbeta\\ngamma\\n%0400d\\n' 0
            "},
        ),
        ("suite.py", SUITE),
    ])
}

/// `task_start` of the suite, waiting for its end.
fn whole_suite() -> Value {
    json!({"unique_name": "test", "wait_ms": 60_000})
}

/// `agg mcp` on [`suite_repo`] once the suite has run to its failed end, and that run.
struct Suite {
    mcp: Mcp,
    run_id: String,
}

impl Suite {
    async fn failed() -> Suite {
        let mcp = Mcp::start(suite_repo(), true).await;
        let run = mcp.task_start(whole_suite()).await;
        assert_eq!(run["passed"], false, "{run}");
        let run_id = run["run_id"].as_str().expect("run_id").to_owned();
        Suite { mcp, run_id }
    }

    /// `args` and the run's `run_id`.
    fn with_run(&self, mut args: Value) -> Value {
        args["run_id"] = Value::from(self.run_id.as_str());
        args
    }

    /// `task_output` of the run with `args`; it must succeed.
    async fn output(&self, args: Value) -> Value {
        self.mcp.ok("task_output", self.with_run(args)).await
    }

    /// `task_output` of the run with `args`; it must be refused as invalid (-32602). The
    /// error body.
    async fn refused(&self, args: Value) -> Value {
        self.mcp
            .err("task_output", self.with_run(args), -32602)
            .await
    }
}

fn tokens_of(result: &rmcp::model::CallToolResult) -> (usize, usize) {
    let structured = result
        .structured_content
        .as_ref()
        .map_or(0, |v| tokens(&v.to_string()));
    (tokens(&text(result)), structured)
}

#[tokio::test]
async fn a_failed_run_s_result_carries_its_first_failure_within_budget() {
    let mcp = Mcp::start(suite_repo(), true).await;
    let call = mcp.call("task_start", whole_suite()).await;
    let run: Value = call.structured_content.clone().expect("structured");
    assert_eq!(run["passed"], false, "{run}");
    // The suite's 5,000 lines and make's own `make: *** [Makefile:2: test] Error 1`.
    assert_eq!(run["output"]["total_lines"], 5_001, "{run}");
    let failure = &run["failure"];
    assert_eq!(failure["first_line"], 2_345, "{run}");
    let region = failure["text"].as_str().expect("failure text");
    assert!(
        region.contains("2348:E       AssertionError: assert Decimal('10.00') == Decimal('10.01')"),
        "{region}"
    );
    assert!(
        region.starts_with("2343-"),
        "two lines of context before: {region}"
    );
    assert!(
        text(&call).contains("--- first failure, line 2345"),
        "{}",
        text(&call)
    );
    let (text_tokens, structured_tokens) = tokens_of(&call);
    eprintln!(
        "task_start of a failed 5,000-line run: text {text_tokens} tokens, structured {structured_tokens}, both {}",
        text_tokens + structured_tokens
    );
    assert!(text_tokens < FAILED_RUN_BUDGET, "text {text_tokens} tokens");
    assert!(
        structured_tokens < FAILED_RUN_BUDGET,
        "structured {structured_tokens} tokens"
    );
    // task_status and task_stop carry it too, and say where it is when the tail shows it.
    let run_id = run["run_id"].as_str().expect("run_id");
    let status = mcp.ok("task_status", json!({"run_id": run_id})).await;
    assert_eq!(status["failure"]["first_line"], 2_345);
    let stopped = mcp.ok("task_stop", json!({"run_id": run_id})).await;
    assert_eq!(stopped["failure"]["first_line"], 2_345);
    mcp.close().await;
}

#[tokio::test]
async fn grep_finds_the_failure_with_context_and_line_numbers() {
    let suite = Suite::failed().await;
    let found = suite
        .output(json!({"grep": "assertionerror", "ignore_case": true, "context": 1}))
        .await;
    let m = &found["matches"];
    assert_eq!(m["total"], 3, "{found}");
    assert_eq!(m["shown"], 3, "{found}");
    let text = m["text"].as_str().expect("text");
    assert!(
        text.starts_with("2347->       assert refund"),
        "context before the first match: {text}"
    );
    assert!(text.contains("\n2348:E       AssertionError"), "{text}");
    assert!(
        text.contains("\n2350:tests/test_orders.py:42: AssertionError\n2351-"),
        "merged: {text}"
    );
    // The last match is near the end, where make's own stderr line may land between the
    // suite's last stdout lines (two pipes: their order is not knowable), so its exact
    // number is not checked.
    let last = text.rsplit("\n--\n").next().unwrap_or_default();
    assert!(
        last != text && last.contains(":FAILED tests/test_orders.py"),
        "regions apart are separated: {text}"
    );
    assert!(
        found.get("output").is_none() && found.get("failure").is_none(),
        "{found}"
    );
    // Few regions at a time: the rest is counted, and offset resumes the search.
    let many = suite.output(json!({"grep": "PASSED", "context": 0})).await;
    let m = &many["matches"];
    assert_eq!(m["total"], 4_992, "{many}");
    let next = m["next_offset"].as_u64().expect("next_offset");
    assert!(
        m["marker"]
            .as_str()
            .is_some_and(|t| t.contains(&format!("offset {next}"))),
        "{many}"
    );
    let rest = suite
        .output(json!({"grep": "PASSED", "context": 0, "offset": next}))
        .await;
    assert!(
        rest["matches"]["text"]
            .as_str()
            .is_some_and(|t| t.starts_with(&format!("{next}:"))),
        "{rest}"
    );
    // Bounds: the pattern's length, its syntax, the context.
    suite.refused(json!({"grep": "x".repeat(1025)})).await;
    suite.refused(json!({"grep": "("})).await;
    suite.refused(json!({"grep": "E", "context": 21})).await;
    suite.mcp.close().await;
}

#[tokio::test]
async fn offset_is_a_line_number_and_max_bytes_a_hard_bound() {
    let suite = Suite::failed().await;
    let zero = suite.refused(json!({"offset": 0})).await;
    assert!(zero.to_string().contains("1 is the first line"), "{zero}");
    suite.refused(json!({"offset": 5, "output": "tail"})).await;
    let first = suite.output(json!({"offset": 1, "max_bytes": 400})).await;
    assert_eq!(first["output"]["first_line"], 1, "{first}");
    for (args, what) in [
        (json!({"offset": 1, "max_bytes": 400}), "a page"),
        (json!({"max_bytes": 400}), "a tail"),
        (json!({"grep": "PASSED", "max_bytes": 400}), "a grep"),
        (
            json!({"grep": "0", "max_bytes": 256}),
            "a grep at the least",
        ),
        (json!({"output": "full", "max_bytes": 300}), "full"),
    ] {
        let r = suite.output(args).await;
        let block = r
            .get("output")
            .or_else(|| r.get("matches"))
            .expect("a block");
        let returned = block["text"].as_str().map_or(0, str::len)
            + block["marker"].as_str().map_or(0, str::len);
        let asked = r.to_string();
        assert!(
            returned <= 400,
            "{what}: {returned} bytes for max_bytes 400: {asked}"
        );
        assert!(returned > 100, "{what}: the budget is used: {asked}");
    }
    // One default tail everywhere.
    let status = suite
        .mcp
        .ok("task_status", json!({"run_id": suite.run_id}))
        .await;
    let output = suite.output(json!({})).await;
    let lines = |v: &Value| {
        v["output"]["text"]
            .as_str()
            .map_or(0, |t| t.lines().count())
    };
    assert_eq!(lines(&status), lines(&output), "{status}\n{output}");
    assert_eq!(lines(&status), crate_tail_lines());
    // A single line longer than the budget is cut to it, not returned whole.
    let words = suite
        .mcp
        .task_start(json!({"unique_name": "words", "wait_ms": 30_000}))
        .await;
    let long = suite
        .mcp
        .ok(
            "task_output",
            json!({"run_id": words["run_id"], "offset": 4, "max_bytes": 256}),
        )
        .await;
    let block = &long["output"];
    let returned =
        block["text"].as_str().map_or(0, str::len) + block["marker"].as_str().map_or(0, str::len);
    assert!(returned <= 256, "{long}");
    suite.mcp.close().await;
}

/// The server's default tail, as `tools/list` states it.
fn crate_tail_lines() -> usize {
    let root = suite_repo();
    let config = tempfile::tempdir().expect("config");
    let mut raw = Raw::start(root.path(), &config.path().join("allowlist.toml"));
    raw.send_value(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    let list = raw.response(1);
    let tools = list["result"]["tools"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let defaults: Vec<String> = ["task_status", "task_output", "task_start", "task_stop"]
        .iter()
        .map(|name| {
            let tool = tools.iter().find(|t| t["name"] == *name).expect("tool");
            let desc = tool["inputSchema"]["properties"]["tail_lines"]["description"]
                .as_str()
                .unwrap_or("")
                .to_owned();
            desc.rsplit("(default ")
                .next()
                .unwrap_or("")
                .trim_end_matches(").")
                .to_owned()
        })
        .collect();
    assert!(defaults.windows(2).all(|w| w[0] == w[1]), "{defaults:?}");
    defaults[0].parse().expect("a number")
}

#[test]
fn an_unknown_log_is_resource_not_found_with_its_uri_in_both_lifecycles() {
    let root = suite_repo();
    let config = tempfile::tempdir().expect("config");
    let allowlist = config.path().join("allowlist.toml");
    let read = |id: u64, uri: &str, modern: bool| {
        let mut params = json!({"uri": uri});
        if modern {
            params["_meta"] = modern_meta();
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "resources/read", "params": params})
    };
    let mut classic = Raw::start(root.path(), &allowlist);
    let mut modern = Raw::start_modern(root.path(), &allowlist);
    let mut answers = Vec::new();
    for (raw, is_modern) in [(&mut classic, false), (&mut modern, true)] {
        raw.send_value(&read(1, "agg://runs/nope-1234/log", is_modern));
        let missing = raw.response(1);
        raw.send_value(&read(2, "agg://elsewhere", is_modern));
        let unknown = raw.response(2);
        raw.send_value(&read(3, "agg://runs/nope-1234/log?offset=0", is_modern));
        let zero = raw.response(3);
        answers.push((missing, unknown, zero));
    }
    for (i, (missing, unknown, zero)) in answers.iter().enumerate() {
        // The code each protocol revision asks for: -32002 up to 2025-11-25, -32602 since
        // 2026-07-28 (SEP-2164); everything else is the same.
        let code = if i == 0 { -32002 } else { -32602 };
        assert_eq!(missing["error"]["code"], code, "{missing}");
        assert_eq!(unknown["error"]["code"], code, "{unknown}");
        assert_eq!(missing["error"]["data"]["uri"], "agg://runs/nope-1234/log");
        assert_eq!(unknown["error"]["data"]["uri"], "agg://elsewhere");
        assert_eq!(
            zero["error"]["code"], -32602,
            "offset=0 is a bad parameter: {zero}"
        );
    }
    assert_eq!(
        answers[0].0["error"]["message"],
        answers[1].0["error"]["message"]
    );
}
