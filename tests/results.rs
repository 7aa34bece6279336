//! `tests` and `problems` of real runs, through `agg mcp` and a real client, compared field
//! by field with each tool's own machine report of the same run (JUnit XML, `--json`,
//! `-json`), or, where a tool can write only one report per run, of a second run of the
//! same project. Each project has known failures. The tools come from
//! `scripts/checkers.sh` (from `PyPI`, npm and Debian's `golang-go`) and the machine (cargo, gcc, javac).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::common::mcp::{Mcp, text};
use crate::test::command_in;
use indoc::{formatdoc, indoc};

/// A repository holding `files`, `before` run on it (links, builds), then `task` started
/// through `agg mcp` and waited for; the structured result and its text.
async fn run_task(
    files: &[(&str, &str)],
    task: &str,
    before: impl FnOnce(&Path),
) -> (Mcp, Value, String) {
    let mcp = Mcp::on_files(files, true).await;
    before(&mcp.root);
    let result = mcp
        .call(
            "task_start",
            json!({"unique_name": task, "wait_ms": 300_000}),
        )
        .await;
    let body = result.structured_content.clone().expect("structured");
    assert_ne!(body["state"], "running", "{body}");
    (mcp, body, text(&result))
}

/// The npm tools of scripts/checkers.sh, linked into a project as its `node_modules`.
fn node_modules(root: &Path) {
    let shared = std::env::var_os("AGG_NODE_CHECKERS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join(".tools/npm-checkers/node_modules"),
        PathBuf::from,
    );
    std::os::unix::fs::symlink(shared, root.join("node_modules")).expect("link node_modules");
}

/// Runs `program args` in `dir`; its stdout (the exit code is the tool's verdict, not
/// checked).
fn output_of(dir: &Path, program: &str, args: &[&str]) -> String {
    let out = command_in(dir, program, args, &[("NO_COLOR", "1")])
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `(name, file, line)` of agg's listed failures.
fn agg_failures(body: &Value) -> BTreeSet<(String, String, u64)> {
    body["tests"]["failures"]
        .as_array()
        .unwrap_or_else(|| panic!("no failures in {body}"))
        .iter()
        .map(|f| {
            (
                f["name"].as_str().unwrap_or("").to_owned(),
                f["file"].as_str().unwrap_or("").to_owned(),
                f["line"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

fn assert_counts(body: &Value, passed: u64, failed: u64, skipped: u64) {
    let t = &body["tests"];
    assert_eq!(
        (
            t["passed"].as_u64(),
            t["failed"].as_u64(),
            t["skipped"].as_u64()
        ),
        (Some(passed), Some(failed), Some(skipped)),
        "{body}"
    );
}

/// `(file, line, column, severity, code)` and message of agg's problems.
fn agg_problems(body: &Value) -> BTreeSet<(String, u64, u64, String, String, String)> {
    body["problems"]
        .as_array()
        .unwrap_or_else(|| panic!("no problems in {body}"))
        .iter()
        .map(|p| {
            (
                p["file"].as_str().unwrap_or("").to_owned(),
                p["line"].as_u64().unwrap_or(0),
                p["column"].as_u64().unwrap_or(0),
                p["severity"].as_str().unwrap_or("").to_owned(),
                p["code"].as_str().unwrap_or("").to_owned(),
                p["message"]
                    .as_str()
                    .unwrap_or("")
                    .lines()
                    .next()
                    .unwrap_or("")
                    .to_owned(),
            )
        })
        .collect()
}

/// A JUnit XML report's tests: `(passed, failed, skipped)` and the failed `(classname, name)`.
/// A report's `(passed, failed, skipped)` and its failed `(classname, name, message)`.
type Junit = ((u64, u64, u64), Vec<(String, String, String)>);

fn junit(path: &Path) -> Junit {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let doc = roxmltree::Document::parse(&text).expect("report");
    let (mut p, mut f, mut s) = (0, 0, 0);
    let mut failed = Vec::new();
    for case in doc.descendants().filter(|n| n.has_tag_name("testcase")) {
        let failure = case
            .children()
            .find(|c| c.has_tag_name("failure") || c.has_tag_name("error"));
        if let Some(fail) = failure {
            f += 1;
            failed.push((
                case.attribute("classname").unwrap_or("").to_owned(),
                case.attribute("name").unwrap_or("").to_owned(),
                fail.attribute("message").unwrap_or("").to_owned(),
            ));
        } else if case.children().any(|c| c.has_tag_name("skipped")) {
            s += 1;
        } else {
            p += 1;
        }
    }
    ((p, f, s), failed)
}

const PYTEST_FILE: &str = r#"import pytest

def refund(x):
    return round(x, 1)

def test_refund():
    assert refund(10.05) == 10.01

def test_ok():
    assert refund(1) == 1

@pytest.mark.skip(reason="later")
def test_skip():
    pass

class TestCart:
    def test_total(self):
        items = [1, 2]
        assert sum(items) == 4, "total is wrong"

    @pytest.mark.parametrize("n", [1, 2])
    def test_param(self, n):
        assert n == 1

@pytest.fixture
def broken():
    raise RuntimeError("db down")

def test_err(broken):
    pass
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pytest_failures_equal_its_junit_report() {
    require!("pytest", "make");
    let report = tempfile::tempdir().expect("tmp");
    let xml = report.path().join("report.xml");
    // The report goes outside the repository, through pytest's own environment variable:
    // agg reads the human output, the test reads the report of the same run.
    let addopts = format!("--junitxml={} -o junit_family=xunit1", xml.display());
    let makefile = format!("test:\n\tPYTEST_ADDOPTS='{addopts}' pytest -p no:cacheprovider\n");
    let (_mcp, body, text) = run_task(
        &[
            ("Makefile", &makefile),
            ("tests/test_orders.py", PYTEST_FILE),
        ],
        "test",
        |_| {},
    )
    .await;
    let ((p, f, s), failed) = junit(&xml);
    assert_counts(&body, p, f, s);
    let names: BTreeSet<(String, String, u64)> = failed
        .iter()
        .map(|(class, name, _)| {
            let parts: Vec<&str> = class.split('.').collect();
            let id = if parts.len() > 2 {
                format!("tests/test_orders.py::{}::{name}", parts[2..].join("::"))
            } else {
                format!("tests/test_orders.py::{name}")
            };
            (id, "tests/test_orders.py".to_owned(), 0)
        })
        .collect();
    let ours: BTreeSet<(String, String, u64)> = agg_failures(&body)
        .into_iter()
        .map(|(n, f, _)| (n, f, 0))
        .collect();
    assert_eq!(ours, names);
    // Each message is the report's message's first line (the assertion).
    for (_, name, message) in &failed {
        let first = message.lines().next().unwrap_or("");
        let first = first
            .trim_start_matches("failed on setup with \"")
            .trim_end_matches('"');
        assert!(
            body["tests"]["failures"]
                .as_array()
                .expect("failures")
                .iter()
                .any(|f| {
                    f["name"]
                        .as_str()
                        .is_some_and(|n| n.ends_with(name.as_str()))
                        && f["message"].as_str().is_some_and(|m| m.starts_with(first))
                }),
            "{name}: {first:?} not in {body}"
        );
    }
    // The failing lines, from the traceback agg read.
    let lines: BTreeSet<u64> = agg_failures(&body).iter().map(|f| f.2).collect();
    assert_eq!(lines, [7, 19, 23, 27].into_iter().collect());
    assert!(
        body.get("failure").is_none(),
        "the failure region gives way to tests: {body}"
    );
    assert!(
        text.contains("tests: 4 failed, 2 passed, 1 skipped"),
        "{text}"
    );
}

const JS_TEST: &str = r"const sum = (a, b) => a + b;
describe('sum', () => {
  test('adds', () => {
    expect(sum(1, 2)).toBe(3);
  });
  test('adds wrong', () => {
    expect(sum(1, 2)).toBe(4);
  });
  test.skip('later', () => {});
  test('objects', () => {
    expect({ a: 1, b: [1, 2] }).toEqual({ a: 1, b: [1, 3] });
  });
});
test('top level throws', () => {
  throw new TypeError('boom');
});
";

/// Checks agg's counts and failures against a report in Jest's JSON form (Jest's own,
/// Vitest's `json` reporter) at `json_path`: a failure's name is its titles joined with
/// `separator`, each in `src/sum.test.js`. Lines are left to each test.
fn assert_equals_jest_json(body: &Value, json_path: &Path, separator: &str) {
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(json_path).expect("report")).expect("json");
    assert_counts(
        body,
        report["numPassedTests"].as_u64().unwrap_or(0),
        report["numFailedTests"].as_u64().unwrap_or(0),
        report["numPendingTests"].as_u64().unwrap_or(0)
            + report["numTodoTests"].as_u64().unwrap_or(0),
    );
    let mut want = BTreeSet::new();
    for file in report["testResults"].as_array().expect("results") {
        for a in file["assertionResults"].as_array().expect("assertions") {
            if a["status"] == "failed" {
                let mut name: Vec<&str> = a["ancestorTitles"]
                    .as_array()
                    .expect("titles")
                    .iter()
                    .filter_map(Value::as_str)
                    .collect();
                name.push(a["title"].as_str().unwrap_or(""));
                want.insert((name.join(separator), "src/sum.test.js".to_owned(), 0));
            }
        }
    }
    let ours: BTreeSet<(String, String, u64)> = agg_failures(body)
        .into_iter()
        .map(|(n, f, _)| (n, f, 0))
        .collect();
    assert_eq!(ours, want);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jest_failures_equal_its_json_report() {
    require!("jest", "make");
    let report = tempfile::tempdir().expect("tmp");
    let json_path = report.path().join("jest.json");
    let makefile = format!(
        "test:\n\tjest --ci --json --outputFile={}\n",
        json_path.display()
    );
    let (_mcp, body, _) = run_task(
        &[
            ("Makefile", &makefile),
            ("package.json", r#"{"name":"shop","private":true}"#),
            ("src/sum.test.js", JS_TEST),
        ],
        "test",
        node_modules,
    )
    .await;
    // Jest's `location` is the test's own line (with --testLocationInResults); agg's is
    // the failing line, so lines are compared with the failure messages' frames below.
    assert_equals_jest_json(&body, &json_path, " › ");
    let lines: BTreeSet<u64> = agg_failures(&body).iter().map(|f| f.2).collect();
    assert_eq!(lines, [7, 11, 15].into_iter().collect(), "{body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vitest_failures_equal_its_json_report() {
    require!("vitest", "make");
    let report = tempfile::tempdir().expect("tmp");
    let json_path = report.path().join("vitest.json");
    let makefile = format!(
        "test:\n\tvitest run --reporter=default --reporter=json --outputFile.json={}\n",
        json_path.display()
    );
    let test = format!("import {{ describe, test, expect }} from 'vitest'\n{JS_TEST}");
    let (_mcp, body, _) = run_task(
        &[
            ("Makefile", &makefile),
            (
                "package.json",
                r#"{"name":"shop","private":true,"type":"module"}"#,
            ),
            ("src/sum.test.js", &test),
        ],
        "test",
        node_modules,
    )
    .await;
    assert_equals_jest_json(&body, &json_path, " > ");
    let lines: BTreeSet<u64> = agg_failures(&body).iter().map(|f| f.2).collect();
    assert_eq!(lines, [8, 12, 16].into_iter().collect(), "{body}");
}

const MOCHA_TEST: &str = r"const assert = require('node:assert');
const sum = (a, b) => a + b;
describe('sum', function () {
  it('adds', function () { assert.strictEqual(sum(1, 2), 3); });
  it('adds wrong', function () { assert.strictEqual(sum(1, 2), 4); });
  it.skip('later', function () {});
  describe('nested', function () {
    it('deep equal', function () { assert.deepStrictEqual({ a: [1, 2] }, { a: [1, 3] }); });
  });
});
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mocha_failures_equal_its_json_report() {
    require!("mocha", "make");
    let (mcp, body, _) = run_task(
        &[
            (
                "Makefile",
                indoc! {"
                .PHONY: test
                test:
                \tmocha
            "},
            ),
            ("package.json", r#"{"name":"shop","private":true}"#),
            ("test/sum.test.js", MOCHA_TEST),
        ],
        "test",
        node_modules,
    )
    .await;
    // Mocha writes one report per run: its JSON of a second run of the same tests.
    let report: Value =
        serde_json::from_str(&output_of(&mcp.root, "mocha", &["--reporter", "json"]))
            .expect("json");
    let stats = &report["stats"];
    assert_counts(
        &body,
        stats["passes"].as_u64().unwrap_or(0),
        stats["failures"].as_u64().unwrap_or(0),
        stats["pending"].as_u64().unwrap_or(0),
    );
    let want: BTreeSet<(String, String, u64)> = report["failures"]
        .as_array()
        .expect("failures")
        .iter()
        .map(|f| {
            (
                f["fullTitle"].as_str().unwrap_or("").to_owned(),
                "test/sum.test.js".to_owned(),
                0,
            )
        })
        .collect();
    let ours: BTreeSet<(String, String, u64)> = agg_failures(&body)
        .into_iter()
        .map(|(n, f, _)| (n, f, 0))
        .collect();
    assert_eq!(ours, want);
    for f in report["failures"].as_array().expect("failures") {
        let first = f["err"]["message"]
            .as_str()
            .unwrap_or("")
            .lines()
            .next()
            .unwrap_or("")
            .to_owned();
        assert!(text_of(&body).contains(&first), "{first} not in {body}");
    }
}

fn text_of(body: &Value) -> String {
    body.to_string().replace("\\n", "\n")
}

const NODE_TEST: &str = r"const test = require('node:test');
const assert = require('node:assert');
const sum = (a, b) => a + b;
test.describe('sum', () => {
  test.it('adds', () => { assert.strictEqual(sum(1, 2), 3); });
  test.it('adds wrong', () => { assert.strictEqual(sum(1, 2), 4); });
  test.it.skip('later', () => {});
});
test('top level throws', () => { throw new TypeError('boom'); });
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn node_test_spec_and_tap_equal_its_junit_report() {
    require!("node", "make");
    for reporter in ["spec", "tap"] {
        let report = tempfile::tempdir().expect("tmp");
        let xml = report.path().join("node.xml");
        let makefile = formatdoc!(
"
                .PHONY: test
                test:
                \tnode --test --test-reporter={reporter} --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination={}
            ",
            xml.display()
        );
        let (_mcp, body, _) = run_task(
            &[("Makefile", &makefile), ("test/sum.test.js", NODE_TEST)],
            "test",
            |_| {},
        )
        .await;
        let ((p, f, s), failed) = junit(&xml);
        // Node's JUnit report lists the failing suite as a test case too; its own summary
        // (`ℹ fail 2`) counts tests only, as agg does.
        let suites = failed.iter().filter(|(_, n, _)| n == "sum").count() as u64;
        assert_counts(&body, p, f - suites, s);
        let want: BTreeSet<(String, String, u64)> = failed
            .iter()
            .filter(|(_, n, _)| n != "sum")
            .map(|(_, n, _)| (n.clone(), "test/sum.test.js".to_owned(), 0))
            .collect();
        let ours: BTreeSet<(String, String, u64)> = agg_failures(&body)
            .into_iter()
            .map(|(n, f, _)| (n, f, 0))
            .collect();
        assert_eq!(ours, want, "{reporter}");
        let lines: BTreeSet<u64> = agg_failures(&body).iter().map(|f| f.2).collect();
        assert_eq!(lines, [6, 9].into_iter().collect(), "{reporter}: {body}");
    }
}

const GO_TEST: &str = "package sum

import \"testing\"

func Sum(a, b int) int { return a + b }

func TestSum(t *testing.T) {
\tif Sum(1, 2) != 3 {
\t\tt.Fatal(\"bad\")
\t}
}

func TestWrong(t *testing.T) {
\tif got := Sum(1, 2); got != 4 {
\t\tt.Errorf(\"Sum(1, 2) = %d, want %d\", got, 4)
\t}
}

func TestTable(t *testing.T) {
\tfor _, c := range []struct {
\t\tname    string
\t\ta, want int
\t}{{\"one\", 1, 2}, {\"two\", 2, 5}} {
\t\tt.Run(c.name, func(t *testing.T) {
\t\t\tif got := Sum(c.a, c.a); got != c.want {
\t\t\t\tt.Errorf(\"got %d\\nwant %d\", got, c.want)
\t\t\t}
\t\t})
\t}
}

func TestSkip(t *testing.T) { t.Skip(\"later\") }
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn go_test_in_every_form_equals_its_json_events() {
    require!("go", "make");
    let files = [
        (
            "go.mod",
            indoc! {"
            module example.com/shop

            go 1.19
        "},
        ),
        ("sum/sum_test.go", GO_TEST),
        (
            "Makefile",
            indoc! {"
                plain:
                \tgo test ./...
                verbose:
                \tgo test -v ./...
                json:
                \tgo test -json ./...
            "},
        ),
    ];
    for task in ["plain", "verbose", "json"] {
        let (mcp, body, _) = run_task(&files, task, |_| {}).await;
        let events = output_of(&mcp.root, "go", &["test", "-json", "./..."]);
        let (mut p, mut s) = (0, 0);
        let mut want = BTreeSet::new();
        for ev in events
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        {
            let Some(test) = ev["Test"].as_str() else {
                continue;
            };
            match ev["Action"].as_str() {
                Some("pass") => p += 1,
                Some("skip") => s += 1,
                Some("fail") => {
                    want.insert(test.to_owned());
                }
                _ => {}
            }
        }
        let t = &body["tests"];
        assert_eq!(
            t["failed"].as_u64(),
            Some(want.len() as u64),
            "{task}: {body}"
        );
        if task == "plain" {
            // Plain `go test` names no passing or skipped test.
            assert!(t.get("passed").is_none(), "{body}");
        } else {
            assert_counts(&body, p, want.len() as u64, s);
        }
        let ours: BTreeSet<String> = agg_failures(&body).into_iter().map(|f| f.0).collect();
        assert_eq!(ours, want, "{task}");
        let wrong = agg_failures(&body)
            .into_iter()
            .find(|f| f.0 == "TestWrong")
            .expect("TestWrong");
        assert_eq!(
            (wrong.1.as_str(), wrong.2),
            ("sum/sum_test.go", 15),
            "{task}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cargo_test_equals_libtest_s_json_and_nextest_equals_its_junit() {
    require!("cargo", "cargo-nextest", "make");
    let lib = "pub fn refund(x: u32) -> u32 { x / 2 }

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn halves() { assert_eq!(refund(4), 2); }
    #[test]
    fn wrong() { assert_eq!(refund(5), 3, \"refund of {}\", 5); }
    #[test]
    #[ignore]
    fn later() {}
    #[test]
    fn panics() { let v: Vec<u32> = vec![]; let _ = v[1]; }
}
";
    let target = tempfile::tempdir().expect("target");
    let files = [
        (
            "Cargo.toml",
            indoc! {"
                [package]
                name = \"shop\"
                version = \"0.1.0\"
                edition = \"2021\"

                [workspace]
            "},
        ),
        ("src/lib.rs", lib),
        (
            ".config/nextest.toml",
            "[profile.default.junit]\npath = \"junit.xml\"\n",
        ),
        (
            "Makefile",
            indoc! {"
                test:
                \tcargo test -q --lib
                nextest:
                \tcargo nextest run --lib --no-fail-fast
            "},
        ),
    ];
    let mcp = Mcp::start_env(
        crate::common::repo(&files),
        true,
        &[("CARGO_TARGET_DIR", target.path().to_str().expect("utf-8"))],
    )
    .await;
    let body = mcp
        .task_start(json!({"unique_name": "test", "wait_ms": 300_000}))
        .await;
    // libtest's own JSON of the same tests (unstable, so through RUSTC_BOOTSTRAP).
    let json_out = Command::new("cargo")
        .args([
            "test",
            "-q",
            "--lib",
            "--",
            "-Z",
            "unstable-options",
            "--format",
            "json",
        ])
        .current_dir(&mcp.root)
        .env("RUSTC_BOOTSTRAP", "1")
        .env("CARGO_TARGET_DIR", target.path())
        .output()
        .expect("cargo");
    let (mut p, mut f, mut s) = (0, BTreeSet::new(), 0);
    for ev in String::from_utf8_lossy(&json_out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
    {
        if ev["type"] != "test" {
            continue;
        }
        match ev["event"].as_str() {
            Some("ok") => p += 1,
            Some("ignored") => s += 1,
            Some("failed") => {
                f.insert(ev["name"].as_str().unwrap_or("").to_owned());
            }
            _ => {}
        }
    }
    assert_counts(&body, p, f.len() as u64, s);
    let ours: BTreeSet<String> = agg_failures(&body).into_iter().map(|x| x.0).collect();
    assert_eq!(ours, f);
    let wrong = agg_failures(&body)
        .into_iter()
        .find(|x| x.0 == "tests::wrong")
        .expect("wrong");
    assert_eq!((wrong.1.as_str(), wrong.2), ("src/lib.rs", 9));
    // nextest, with its JUnit report of the same run.
    let body = mcp
        .task_start(json!({"unique_name": "nextest", "wait_ms": 300_000}))
        .await;
    // nextest keeps its store (and the report) under the workspace's own target/.
    let report = [mcp.root.join("target"), target.path().to_path_buf()]
        .iter()
        .map(|t| t.join("nextest/default/junit.xml"))
        .find(|p| p.is_file())
        .expect("nextest's JUnit report");
    let ((p, nf, _), failed) = junit(&report);
    // nextest's JUnit report leaves out the tests it skipped (`#[ignore]`); its summary
    // line, which agg reads, counts them.
    assert_counts(&body, p, nf, 1);
    let want: BTreeSet<String> = failed.into_iter().map(|(_, n, _)| n).collect();
    let ours: BTreeSet<String> = agg_failures(&body).into_iter().map(|x| x.0).collect();
    assert_eq!(ours, want);
}

/// The problems a compiler or linter's JSON gives, as `(file, line, column, severity,
/// code, message)`.
type Problems = BTreeSet<(String, u64, u64, String, String, String)>;

fn problem(
    file: &str,
    line: u64,
    column: u64,
    severity: &str,
    code: &str,
    message: &str,
) -> (String, u64, u64, String, String, String) {
    (
        file.to_owned(),
        line,
        column,
        severity.to_owned(),
        code.to_owned(),
        message.lines().next().unwrap_or("").to_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rustc_problems_equal_cargo_s_json() {
    require!("cargo", "make");
    let target = tempfile::tempdir().expect("target");
    let files = [
        (
            "Cargo.toml",
            indoc! {"
                [package]
                name = \"rc\"
                version = \"0.1.0\"
                edition = \"2021\"

                [workspace]
            "},
        ),
        (
            "src/main.rs",
            indoc! {"
                fn main() {
                    let x: u32 = \"a\";
                    println!(\"{}\", y);
                }
            "},
        ),
        ("Makefile", "build:\n\tcargo build\n"),
    ];
    let mcp = Mcp::start_env(
        crate::common::repo(&files),
        true,
        &[("CARGO_TARGET_DIR", target.path().to_str().expect("utf-8"))],
    )
    .await;
    let body = mcp
        .task_start(json!({"unique_name": "build", "wait_ms": 300_000}))
        .await;
    let json_out = Command::new("cargo")
        .args(["build", "--message-format=json"])
        .current_dir(&mcp.root)
        .env("CARGO_TARGET_DIR", target.path())
        .output()
        .expect("cargo");
    let mut want = Problems::new();
    for rec in String::from_utf8_lossy(&json_out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
    {
        let m = &rec["message"];
        let Some(span) = m["spans"]
            .as_array()
            .and_then(|s| s.iter().find(|s| s["is_primary"] == true))
        else {
            continue;
        };
        want.insert(problem(
            span["file_name"].as_str().unwrap_or(""),
            span["line_start"].as_u64().unwrap_or(0),
            span["column_start"].as_u64().unwrap_or(0),
            m["level"].as_str().unwrap_or(""),
            m["code"]["code"].as_str().unwrap_or(""),
            m["message"].as_str().unwrap_or(""),
        ));
    }
    assert!(!want.is_empty());
    assert_eq!(agg_problems(&body), want);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tsc_problems_equal_the_compiler_api_s_diagnostics() {
    require!("tsc", "node", "make");
    let files = [
        (
            "src/a.ts",
            indoc! {"
                const n: number = \"one\";
                function f(a: string) { return a.lenght; }
                f(1);
            "},
        ),
        (
            "tsconfig.json",
            r#"{"compilerOptions":{"strict":true,"noEmit":true},"include":["src"]}"#,
        ),
        ("Makefile", "check:\n\ttsc -p .\n"),
        (
            "diagnostics.js",
            indoc! {"
                const ts = require('typescript');
                const cfg = ts.getParsedCommandLineOfConfigFile('tsconfig.json', {}, {...ts.sys, onUnRecoverableConfigFileDiagnostic() {}});
                const program = ts.createProgram(cfg.fileNames, cfg.options);
                for (const d of ts.getPreEmitDiagnostics(program)) {
                  const p = d.file.getLineAndCharacterOfPosition(d.start);
                  console.log(JSON.stringify({file: d.file.fileName.replace(process.cwd() + '/', ''), line: p.line + 1, column: p.character + 1, severity: d.category === 1 ? 'error' : 'warning', code: 'TS' + d.code, message: ts.flattenDiagnosticMessageText(d.messageText, '\\n')}));
                }
            "},
        ),
    ];
    let (mcp, body, _) = run_task(&files, "check", node_modules).await;
    let api = output_of(&mcp.root, "node", &["diagnostics.js"]);
    let want: Problems = api
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|d| {
            problem(
                d["file"].as_str().unwrap_or(""),
                d["line"].as_u64().unwrap_or(0),
                d["column"].as_u64().unwrap_or(0),
                d["severity"].as_str().unwrap_or(""),
                d["code"].as_str().unwrap_or(""),
                d["message"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(want.len(), 3, "{api}");
    assert_eq!(agg_problems(&body), want);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gcc_problems_equal_its_json_diagnostics() {
    require!("gcc", "make");
    let source = indoc! {"
        #include <stdio.h>
        int main(void) {
            int unused;
            int x = \"a\";
            printf(\"%d\\n\", y)
            return 0;
        }
    "};
    let (mcp, body, _) = run_task(
        &[
            ("main.c", source),
            ("Makefile", "build:\n\tgcc -Wall -c main.c -o main.o\n"),
        ],
        "build",
        |_| {},
    )
    .await;
    let out = Command::new("gcc")
        .args([
            "-Wall",
            "-fdiagnostics-format=json",
            "-c",
            "main.c",
            "-o",
            "/dev/null",
        ])
        .current_dir(&mcp.root)
        .output()
        .expect("gcc");
    let json: Value = serde_json::from_slice(&out.stderr).expect("gcc json");
    let want: Problems = json
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["kind"] != "note")
        .map(|d| {
            let caret = &d["locations"][0]["caret"];
            problem(
                caret["file"].as_str().unwrap_or(""),
                caret["line"].as_u64().unwrap_or(0),
                caret["column"].as_u64().unwrap_or(0),
                d["kind"].as_str().unwrap_or(""),
                d["option"].as_str().unwrap_or(""),
                d["message"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert!(want.len() >= 4, "{json}");
    assert_eq!(agg_problems(&body), want);
}

const ESLINT_CONFIG: &str = "import js from \"@eslint/js\";\nexport default [js.configs.recommended, { rules: { \"no-unused-vars\": \"warn\", eqeqeq: \"error\" }, languageOptions: { sourceType: \"commonjs\" } }];\n";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eslint_stylish_and_unix_equal_its_json() {
    require!("eslint", "make");
    let files = [
        (
            "src/a.js",
            indoc! {"
                const unused = 1;
                function f() {
                  return undefinedThing + 1;
                }
                if (x == null) { debugger; }
            "},
        ),
        ("src/b.js", "let ok = 1;\nok = ok +;\n"),
        ("eslint.config.mjs", ESLINT_CONFIG),
        (
            "Makefile",
            indoc! {"
                stylish:
                \teslint src
                unix:
                \teslint -f unix src
            "},
        ),
    ];
    for task in ["stylish", "unix"] {
        let (mcp, body, _) = run_task(&files, task, node_modules).await;
        let report: Value =
            serde_json::from_str(&output_of(&mcp.root, "eslint", &["-f", "json", "src"]))
                .expect("json");
        let mut want = Problems::new();
        for file in report.as_array().expect("files") {
            let path = file["filePath"].as_str().unwrap_or("");
            let rel = path
                .strip_prefix(&format!("{}/", mcp.root.display()))
                .unwrap_or(path);
            for m in file["messages"].as_array().expect("messages") {
                // stylish drops a message's final period; unix keeps it.
                let text = m["message"].as_str().unwrap_or("");
                let text = if task == "stylish" {
                    text.strip_suffix('.').unwrap_or(text)
                } else {
                    text
                };
                want.insert(problem(
                    rel,
                    m["line"].as_u64().unwrap_or(0),
                    m["column"].as_u64().unwrap_or(0),
                    if m["severity"] == 2 {
                        "error"
                    } else {
                        "warning"
                    },
                    m["ruleId"].as_str().unwrap_or(""),
                    text,
                ));
            }
        }
        assert_eq!(agg_problems(&body), want, "{task}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ruff_full_and_concise_equal_its_json() {
    require!("ruff", "make");
    let files = [
        (
            "a.py",
            indoc! {"
                import os
                import sys, json

                def f(x):
                    if x == None:
                        return undefined_name
                    l = 1
                    return l
            "},
        ),
        (
            "Makefile",
            indoc! {"
                full:
                \truff check --no-cache --select E,F .
                concise:
                \truff check --no-cache --select E,F --output-format concise .
            "},
        ),
    ];
    for task in ["full", "concise"] {
        let (mcp, body, _) = run_task(&files, task, |_| {}).await;
        let report: Value = serde_json::from_str(&output_of(
            &mcp.root,
            "ruff",
            &[
                "check",
                "--no-cache",
                "--select",
                "E,F",
                "--output-format",
                "json",
                ".",
            ],
        ))
        .expect("json");
        let want: Problems = report
            .as_array()
            .expect("violations")
            .iter()
            .map(|v| {
                let path = v["filename"].as_str().unwrap_or("");
                let rel = path
                    .strip_prefix(&format!("{}/", mcp.root.display()))
                    .unwrap_or(path);
                problem(
                    rel,
                    v["location"]["row"].as_u64().unwrap_or(0),
                    v["location"]["column"].as_u64().unwrap_or(0),
                    "error",
                    v["code"].as_str().unwrap_or(""),
                    v["message"].as_str().unwrap_or(""),
                )
            })
            .collect();
        assert_eq!(agg_problems(&body), want, "{task}");
    }
}

const TYPED: &str = indoc! {"
        def f(x: int) -> str:
            return x

        y: int = \"a\"
        reveal_type(y)
        z = f(\"no\")
    "};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mypy_problems_equal_its_json() {
    require!("mypy", "make");
    let files = [
        ("pkg/a.py", TYPED),
        (
            "Makefile",
            "types:\n\tmypy --no-incremental --show-column-numbers pkg\n",
        ),
    ];
    let (mcp, body, _) = run_task(&files, "types", |_| {}).await;
    let report = output_of(
        &mcp.root,
        "mypy",
        &["--no-incremental", "-O", "json", "pkg"],
    );
    let want: Problems = report
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|d| d["severity"] != "note")
        // mypy's JSON columns count from 0, its text's from 1.
        .map(|d| {
            problem(
                d["file"].as_str().unwrap_or(""),
                d["line"].as_u64().unwrap_or(0),
                d["column"].as_u64().unwrap_or(0) + 1,
                d["severity"].as_str().unwrap_or(""),
                d["code"].as_str().unwrap_or(""),
                d["message"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(want.len(), 3, "{report}");
    assert_eq!(agg_problems(&body), want);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pyright_problems_equal_its_json() {
    require!("pyright", "make");
    let files = [("pkg/a.py", TYPED), ("Makefile", "types:\n\tpyright pkg\n")];
    let (mcp, body, _) = run_task(&files, "types", |_| {}).await;
    let report: Value =
        serde_json::from_str(&output_of(&mcp.root, "pyright", &["--outputjson", "pkg"]))
            .expect("json");
    let want: Problems = report["generalDiagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .filter(|d| d["severity"] != "information")
        .map(|d| {
            let path = d["file"].as_str().unwrap_or("");
            let rel = path
                .strip_prefix(&format!("{}/", mcp.root.display()))
                .unwrap_or(path);
            // pyright's JSON ranges count from 0.
            problem(
                rel,
                d["range"]["start"]["line"].as_u64().unwrap_or(0) + 1,
                d["range"]["start"]["character"].as_u64().unwrap_or(0) + 1,
                d["severity"].as_str().unwrap_or(""),
                d["rule"].as_str().unwrap_or(""),
                d["message"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(want.len(), 3, "{report}");
    assert_eq!(agg_problems(&body), want);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn go_vet_problems_equal_its_json_and_go_build_s_are_read() {
    require!("go", "make");
    let files = [
        (
            "go.mod",
            indoc! {"
            module example.com/shop

            go 1.19
        "},
        ),
        (
            "vetme/v.go",
            indoc! {"
                package vetme

                import \"fmt\"

                func G(s string) {
                \tfmt.Printf(\"%d\\n\", s)
                }
            "},
        ),
        (
            "bad/bad.go",
            indoc! {"
                package bad

                func F() int {
                \tx := 1
                \treturn y
                }
            "},
        ),
        (
            "Makefile",
            indoc! {"
                vet:
                \tgo vet ./vetme
                build:
                \tgo build ./bad
            "},
        ),
    ];
    let (mcp, body, _) = run_task(&files, "vet", |_| {}).await;
    let out = Command::new("go")
        .args(["vet", "-json", "./vetme"])
        .current_dir(&mcp.root)
        .output()
        .expect("go vet");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let json: Value =
        serde_json::from_str(&stderr[stderr.find('{').expect("json")..]).expect("vet json");
    let mut want = Problems::new();
    for (_, analyzers) in json.as_object().expect("packages") {
        for (_, findings) in analyzers.as_object().expect("analyzers") {
            for f in findings.as_array().expect("findings") {
                let posn = f["posn"].as_str().unwrap_or("");
                let rel = posn
                    .strip_prefix(&format!("{}/", mcp.root.display()))
                    .unwrap_or(posn);
                let mut parts = rel.rsplitn(3, ':');
                let (col, line, file) = (parts.next(), parts.next(), parts.next());
                // go vet's text names no analyzer, so agg's problems carry no code.
                want.insert(problem(
                    file.unwrap_or(""),
                    line.and_then(|l| l.parse().ok()).unwrap_or(0),
                    col.and_then(|c| c.parse().ok()).unwrap_or(0),
                    "error",
                    "",
                    f["message"].as_str().unwrap_or(""),
                ));
            }
        }
    }
    assert_eq!(agg_problems(&body), want);
    // go build (Go 1.19 has no machine format for compile errors): the two errors it prints.
    let body = mcp
        .task_start(json!({"unique_name": "build", "wait_ms": 300_000}))
        .await;
    let want: Problems = [
        problem("bad/bad.go", 4, 2, "error", "", "x declared but not used"),
        problem("bad/bad.go", 5, 9, "error", "", "undefined: y"),
    ]
    .into_iter()
    .collect();
    assert_eq!(agg_problems(&body), want);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn javac_problems_equal_javax_tools_diagnostics() {
    require!("javac", "java", "make");
    let files = [
        (
            "src/Main.java",
            indoc! {"
                import java.util.*;
                public class Main {
                    public static void main(String[] args) {
                        List raw = new ArrayList();
                        int y = x + 1;
                        String s = 5;
                    }
                }
            "},
        ),
        (
            "Makefile",
            "build:\n\tjavac -Xlint:all -d out src/Main.java\n",
        ),
        (
            "Check.java",
            indoc! {"
                import javax.tools.*;
                import java.util.*;
                public class Check {
                  public static void main(String[] a) throws Exception {
                    JavaCompiler c = ToolProvider.getSystemJavaCompiler();
                    DiagnosticCollector<JavaFileObject> d = new DiagnosticCollector<>();
                    StandardJavaFileManager fm = c.getStandardFileManager(d, null, null);
                    c.getTask(null, fm, d, List.of(\"-Xlint:all\", \"-d\", \"out2\"), null, fm.getJavaFileObjects(\"src/Main.java\")).call();
                    for (Diagnostic<? extends JavaFileObject> x : d.getDiagnostics()) {
                      if (x.getKind() == Diagnostic.Kind.NOTE) continue;
                      System.out.println(x.getKind() + \"\\t\" + x.getLineNumber() + \"\\t\" + x.getColumnNumber() + \"\\t\" + x.getMessage(null).lines().findFirst().orElse(\"\"));
                    }
                  }
                }
            "},
        ),
    ];
    let (mcp, body, _) = run_task(&files, "build", |_| {}).await;
    let api = output_of(&mcp.root, "java", &["Check.java"]);
    let want: Problems = api
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.splitn(4, '\t').collect();
            // javax.tools names types in full where javac's text shortens them.
            let text = f
                .get(3)?
                .replace("java.util.", "")
                .replace("java.lang.", "");
            let severity = if f.first()? == &"ERROR" {
                "error"
            } else {
                "warning"
            };
            // The API's code is javac's message key (`compiler.warn.raw.class.use`); agg
            // gives the lint category javac's text prints in brackets.
            let code = if severity == "warning" {
                "rawtypes"
            } else {
                ""
            };
            Some(problem(
                "src/Main.java",
                f[1].parse().ok()?,
                f[2].parse().ok()?,
                severity,
                code,
                &text,
            ))
        })
        .collect();
    assert_eq!(want.len(), 4, "{api}");
    assert_eq!(agg_problems(&body), want);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wait_for_returns_on_the_matching_line_on_the_end_or_at_its_timeout() {
    require!("make");
    let mcp = Mcp::on_files(
        &[(
            "Makefile",
            indoc! {"
            serve:
            \t@sleep 2; echo 'compiled successfully, ready'; sleep 30
            short:
            \t@sleep 1; echo done
        "},
        )],
        true,
    )
    .await;
    let started = mcp
        .task_start(json!({"unique_name": "serve", "wait_ms": 0}))
        .await;
    let run_id = started["run_id"].clone();
    let t = std::time::Instant::now();
    let body = mcp
        .ok(
            "task_status",
            json!({"run_id": run_id, "wait_for": {"pattern": "ready", "timeout_ms": 10_000}}),
        )
        .await;
    assert!(
        t.elapsed() < std::time::Duration::from_millis(2_500),
        "{:?}",
        t.elapsed()
    );
    assert_eq!(body["wait"]["outcome"], "matched", "{body}");
    assert_eq!(body["wait"]["line"], "compiled successfully, ready");
    // A pattern that never comes: back at its timeout, saying so.
    let t = std::time::Instant::now();
    let result = mcp
        .call(
            "task_output",
            json!({"run_id": run_id, "wait_for": {"pattern": "never", "timeout_ms": 1_000}}),
        )
        .await;
    let waited = t.elapsed();
    assert!(
        waited >= std::time::Duration::from_secs(1) && waited < std::time::Duration::from_secs(3),
        "{waited:?}"
    );
    let body = result.structured_content.clone().expect("structured");
    assert_eq!(body["wait"]["outcome"], "timeout", "{body}");
    assert!(
        text(&result).contains("no new line matched"),
        "{}",
        text(&result)
    );
    mcp.stop(&started).await;
    // The end of a run ends the wait, whatever the pattern.
    let started = mcp
        .task_start(json!({"unique_name": "short", "wait_ms": 0}))
        .await;
    let body = mcp
        .ok("task_status", json!({"run_id": started["run_id"], "wait_for": {"pattern": "never", "timeout_ms": 20_000}}))
        .await;
    assert_eq!(body["wait"]["outcome"], "ended", "{body}");
    assert_eq!(body["passed"], true);
    // The timeout is capped at 60 s and a bad pattern is refused.
    mcp.err_saying(
        "task_status",
        json!({"run_id": started["run_id"], "wait_for": {"pattern": "("}}),
        -32602,
        "wait_for.pattern",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_output_is_read_in_bounded_time_and_memory() {
    require!("python3", "make");
    // A million-line failure message, a 10 MB line, ANSI everywhere, and a summary at the
    // end: agg reads what its ring holds and answers.
    let script = indoc! {"
        import sys
        w = sys.stdout.write
        w('=' * 20 + ' FAILURES ' + '=' * 20 + '\\n')
        w('_' * 10 + ' test_x ' + '_' * 10 + '\\n')
        for i in range(1_000_000):
            w('E       \\x1b[31massert %d\\x1b[0m\\n' % i)
        w('x' * 10_000_000 + '\\n')
        w('FAILED t.py::test_x - boom\\n')
        w('=' * 10 + ' 1 failed, 2 passed in 1.00s ' + '=' * 10 + '\\n')
    "};
    let (_mcp, body, _) = run_task(
        &[
            ("flood.py", script),
            ("Makefile", "flood:\n\t@python3 flood.py; exit 1\n"),
        ],
        "flood",
        |_| {},
    )
    .await;
    assert_counts(&body, 2, 1, 0);
    let f = &body["tests"]["failures"][0];
    assert_eq!(f["name"], "t.py::test_x");
    assert!(f["message"].as_str().is_some_and(|m| m.len() <= 200), "{f}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn junit_reports_the_command_or_config_names_are_read() {
    require!("pytest", "jest", "make");
    // pytest's report named on the command line: agg's tests are the report's.
    let makefile = indoc! {"
            .PHONY: test
            test:
            \tpytest -q -p no:cacheprovider --junitxml=out/report.xml
        "};
    let (mcp, body, _) = run_task(
        &[
            ("Makefile", makefile),
            ("tests/test_orders.py", PYTEST_FILE),
        ],
        "test",
        |_| {},
    )
    .await;
    let ((p, f, s), failed) = junit(&mcp.root.join("out/report.xml"));
    assert_counts(&body, p, f, s);
    assert_eq!(agg_failures(&body).len(), failed.len());
    assert!(
        agg_failures(&body)
            .iter()
            .any(|x| x.0 == "tests/test_orders.py::TestCart::test_total" && x.2 == 19),
        "{body}"
    );
    // jest-junit, named in package.json's Jest configuration, written to its outputDirectory.
    let package = r#"{"name":"shop","private":true,"jest":{"reporters":["default","jest-junit"]},"jest-junit":{"outputDirectory":"reports"}}"#;
    let (mcp, body, _) = run_task(
        &[
            (
                "Makefile",
                indoc! {"
                .PHONY: test
                test:
                \tjest --ci
            "},
            ),
            ("package.json", package),
            ("src/sum.test.js", JS_TEST),
        ],
        "test",
        node_modules,
    )
    .await;
    let ((p, f, s), failed) = junit(&mcp.root.join("reports/junit.xml"));
    assert_counts(&body, p, f, s);
    let names: BTreeSet<String> = failed.into_iter().map(|(_, n, _)| n).collect();
    let ours: BTreeSet<String> = agg_failures(&body).into_iter().map(|x| x.0).collect();
    assert_eq!(ours, names);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn warnings_alone_leave_a_failed_run_its_failure_region() {
    require!("make");
    let makefile = indoc! {"
        .PHONY: t
        t:
        \t@echo 'main.c:1:2: warning: unused variable [-Wunused-variable]'
        \t@echo 'Traceback (most recent call last):'; echo 'ValueError: bad config'; exit 3
    "};
    let (_mcp, body, text) = run_task(&[("Makefile", makefile)], "t", |_| {}).await;
    assert_eq!(agg_problems(&body).len(), 1, "{body}");
    assert!(
        body["failure"]["first_line"].as_u64().is_some(),
        "the warning does not explain the failure: {body}"
    );
    assert!(text.contains("problems: 1 warning"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gradle_s_junit_reports_are_read_after_its_test_task() {
    require!("gradle", "make");
    let junit4 = Path::new("/usr/share/java/junit4.jar");
    if !junit4.is_file() && !crate::common::have("junit4.jar (Debian: junit4)") {
        return;
    }
    let files = [
        (
            "build.gradle",
            indoc! {"
                apply plugin: 'java'
                dependencies {
                    testCompile files('/usr/share/java/junit4.jar', '/usr/share/java/hamcrest-core.jar')
                }
            "},
        ),
        (
            "src/main/java/shop/Cart.java",
            "package shop;\npublic class Cart { public static int total(int a, int b) { return a + b; } }\n",
        ),
        (
            "src/test/java/shop/CartTest.java",
            indoc! {"
                package shop;
                import static org.junit.Assert.assertEquals;
                import org.junit.Ignore;
                import org.junit.Test;
                public class CartTest {
                    @Test public void adds() { assertEquals(3, Cart.total(1, 2)); }
                    @Test public void addsWrong() {
                        assertEquals(\"the total\", 4, Cart.total(1, 2));
                    }
                    @Ignore @Test public void later() {}
                }
            "},
        ),
        (
            "Makefile",
            indoc! {"
                .PHONY: unit
                unit:
                \tgradle test --offline --console=plain
            "},
        ),
    ];
    let (mcp, body, _) = run_task(&files, "unit", |_| {}).await;
    let ((p, f, s), failed) = junit(
        &mcp.root
            .join("build/test-results/test/TEST-shop.CartTest.xml"),
    );
    assert_counts(&body, p, f, s);
    let want: BTreeSet<(String, String, u64)> = failed
        .iter()
        .map(|(class, name, _)| {
            (
                format!("{class}.{name}"),
                "src/test/java/shop/CartTest.java".to_owned(),
                8,
            )
        })
        .collect();
    assert_eq!(agg_failures(&body), want);
    assert_eq!(
        body["tests"]["failures"][0]["message"], failed[0].2,
        "{body}"
    );
}
