//! What a run's results are, as every result shows them: `tests` (the runner's counts and
//! each failed test with its place and first message lines) and `problems` (compiler and
//! linter diagnostics). The field names and their doc comments are the MCP contract; the
//! schemas are generated from them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Failed tests a result lists at most; the rest are counted in `more`.
pub const MAX_FAILURES: usize = 20;
/// Problems a result lists at most; the rest are counted in `problems_more`.
pub const MAX_PROBLEMS: usize = 50;
/// Lines of a failure's or problem's message kept: the assertion and the values, not the stack.
pub const MESSAGE_LINES: usize = 3;
/// Bytes of a message kept.
pub const MESSAGE_BYTES: usize = 200;

/// A test runner's report of one run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Tests {
    /// Tests that passed, as the runner counts them; absent when its output does not say
    /// (`go test` without `-v` names only the failures).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passed: Option<u64>,
    /// Tests that failed (errors included).
    pub failed: u64,
    /// Tests skipped (and expected failures).
    pub skipped: u64,
    /// Each failed test the output names, at most 20.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<Failure>,
    /// Failed tests not listed in `failures`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub more: u64,
}

/// One failed test.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Failure {
    /// The test, as its runner names it (`tests/test_a.py::test_b`, `sum › adds`, `TestSum/case`).
    pub name: String,
    /// Its file, relative to the repository root when it is inside it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The line that failed (else the test's own line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The first lines of why: the assertion and the expected/actual values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// How bad a problem is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// It fails the build or the check.
    Error,
    /// It does not.
    Warning,
}

/// One compiler or linter diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub struct Problem {
    /// The file, relative to the repository root when it is inside it.
    pub file: String,
    /// 1-based line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// 1-based column.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// `error` or `warning`.
    pub severity: Severity,
    /// What the tool said, its first lines.
    pub message: String,
    /// The tool's code for it (`E0308`, `TS2322`, `no-undef`, `F401`, `-Wunused-variable`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

/// Everything agg read from one finished run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Results {
    /// The test report, when a runner's report was recognised.
    pub tests: Option<Tests>,
    /// Diagnostics, deduplicated, errors first, at most [`MAX_PROBLEMS`].
    pub problems: Vec<Problem>,
    /// Problems beyond those listed.
    pub problems_more: u64,
    /// Errors among all problems found (listed or not).
    pub errors: u64,
    /// Warnings among all problems found.
    pub warnings: u64,
    /// The formats recognised, in the order of the catalog (`pytest`, `rustc`, `JUnit XML`).
    pub formats: Vec<&'static str>,
}

impl Results {
    /// Whether nothing was recognised.
    pub fn is_empty(&self) -> bool {
        self.tests.is_none() && self.problems.is_empty()
    }
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Results {
    /// One phrase for a person or a model: `3 failed, 1,204 passed, 2 skipped` for tests,
    /// `2 errors, 1 warning` for problems, both when both were read.
    pub fn summary(&self) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(t) = &self.tests {
            let mut words = Vec::new();
            if t.failed > 0 {
                words.push(format!("{} failed", thousands(t.failed)));
            }
            if let Some(p) = t.passed {
                words.push(format!("{} passed", thousands(p)));
            }
            if t.skipped > 0 {
                words.push(format!("{} skipped", thousands(t.skipped)));
            }
            if words.is_empty() {
                words.push("no tests ran".to_owned());
            }
            parts.push(words.join(", "));
        }
        let plural =
            |n: u64, one: &str| format!("{} {one}{}", thousands(n), if n == 1 { "" } else { "s" });
        match (self.errors, self.warnings) {
            (0, 0) => {}
            (e, 0) => parts.push(plural(e, "error")),
            (0, w) => parts.push(plural(w, "warning")),
            (e, w) => parts.push(format!("{}, {}", plural(e, "error"), plural(w, "warning"))),
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// `1204` as `1,204`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
