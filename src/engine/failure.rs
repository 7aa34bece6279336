//! What a failure looks like in a task's output: one table of line patterns, each with
//! the tool whose failure line it recognises and a real example of that line, and a short
//! table of lines that look alike but report success (`0 errors`). A failed run's result
//! carries the first region of its output that matches ([`FailureMatcher`] over the job's
//! retained lines), so the model sees the failure without paging for it.

use std::borrow::Cow;
use std::sync::OnceLock;

use regex::bytes::RegexSet;

/// One failure pattern.
#[derive(Debug, Clone, Copy)]
pub struct Pattern {
    /// The tools whose failure lines it recognises.
    pub tool: &'static str,
    /// The regex, matched against one line with ANSI colours removed.
    pub regex: &'static str,
    /// A real failure line of that tool (the unit tests check it matches).
    pub example: &'static str,
}

/// The failure patterns, most specific first.
pub const PATTERNS: &[Pattern] = &[
    Pattern {
        tool: "rustc, cargo",
        regex: r"^error(\[E\d{4}\])?:",
        example: "error[E0308]: mismatched types",
    },
    Pattern {
        tool: "cargo test, Rust",
        regex: r"panicked at ",
        example: "thread 'tests::refund' panicked at src/lib.rs:12:9:",
    },
    Pattern {
        tool: "gcc, clang, mypy, javac",
        regex: r": (fatal )?error:",
        example: "src/main.c:3:5: error: expected ';' before 'return'",
    },
    Pattern {
        tool: "tsc",
        regex: r"\berror TS\d+:",
        example: "src/app.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
    },
    Pattern {
        tool: "eslint",
        regex: r"^\s*\d+:\d+\s+error\s",
        example: "  3:10  error  'total' is assigned a value but never used  no-unused-vars",
    },
    Pattern {
        tool: "Python",
        regex: r"^Traceback \(most recent call last\):",
        example: "Traceback (most recent call last):",
    },
    Pattern {
        tool: "Python, Node.js (SyntaxError, TypeError, AssertionError, …)",
        regex: r"^\s*(Uncaught )?[A-Z][A-Za-z]*(Error|Exception)( \[\w+\])?(:|$)",
        example: "TypeError: Cannot read properties of undefined (reading 'id')",
    },
    Pattern {
        tool: "Node.js, generic",
        regex: r"^\s*Error: ",
        example: "Error: Cannot find module './config'",
    },
    Pattern {
        tool: "Java",
        regex: r"^Exception in thread ",
        example: "Exception in thread \"main\" java.lang.NullPointerException",
    },
    Pattern {
        tool: "Go",
        regex: r"^panic: ",
        example: "panic: runtime error: index out of range [3] with length 3",
    },
    Pattern {
        tool: "go test",
        regex: r"^\s*--- FAIL: ",
        example: "--- FAIL: TestRefund (0.00s)",
    },
    Pattern {
        tool: "pytest",
        regex: r"^=+ (FAILURES|ERRORS) =+$",
        example: "=================================== FAILURES ===================================",
    },
    Pattern {
        tool: "pytest (the failing source line)",
        regex: r"^>\s{3,}\S",
        example: ">       assert refund(10.005) == 10.01",
    },
    Pattern {
        tool: "pytest (explanation lines)",
        regex: r"^E\s{3}",
        example: "E       AssertionError: assert 10.0 == 10.01",
    },
    Pattern {
        tool: "C assert",
        regex: r"Assertion `.*' failed",
        example: "a.out: main.c:5: main: Assertion `total == 4' failed.",
    },
    Pattern {
        tool: "test runners (pytest, jest, go test, cargo test, unittest, Gradle, …)",
        regex: r"\bFAIL(ED)?\b",
        example: "FAILED tests/test_orders.py::test_refund - AssertionError: assert 10.0 == 10.01",
    },
    Pattern {
        tool: "unittest, pytest",
        regex: r"^ERROR[: ]",
        example: "ERROR: test_fetch (tests.test_api.ApiTest.test_fetch)",
    },
    Pattern {
        tool: "jest",
        regex: r"^\s*● ",
        example: "  ● orders › refunds round half up",
    },
    Pattern {
        tool: "vitest, mocha, ava, tap",
        regex: r"^\s*[✗✘×] ",
        example: "   × refunds round half up 3ms",
    },
    Pattern {
        tool: "npm, node-gyp",
        regex: r"\bERR! ",
        example: "npm ERR! code ELIFECYCLE",
    },
    Pattern {
        tool: "npm 10+",
        regex: r"^npm error ",
        example: "npm error Lifecycle script `test` failed with error:",
    },
    Pattern {
        tool: "Maven",
        regex: r"^\[ERROR\]",
        example: "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:3.2.5:test",
    },
    Pattern {
        tool: "Maven",
        regex: r"\bBUILD FAILURE\b",
        example: "[INFO] BUILD FAILURE",
    },
    Pattern {
        tool: "Gradle",
        regex: r"^FAILURE: ",
        example: "FAILURE: Build failed with an exception.",
    },
    Pattern {
        tool: "make",
        regex: r"^g?make(\[\d+\])?: \*\*\* ",
        example: "make: *** [Makefile:4: test] Error 1",
    },
];

/// Lines that match a pattern above but report success or a count of zero.
pub const NOT_FAILURES: &[&str] = &[
    r"(?i)\b0 (errors?|failures?|failed)\b",
    r"(?i)\b(errors?|failures?|failed)[:=] ?0\b",
    r"● Console",
];

/// The compiled tables.
#[derive(Debug)]
pub struct FailureMatcher {
    patterns: RegexSet,
    not: RegexSet,
}

impl FailureMatcher {
    /// The matcher, compiled once.
    pub fn get() -> &'static FailureMatcher {
        static MATCHER: OnceLock<FailureMatcher> = OnceLock::new();
        MATCHER.get_or_init(|| FailureMatcher {
            patterns: RegexSet::new(PATTERNS.iter().map(|p| p.regex))
                .expect("the failure patterns are valid regexes (unit-tested)"),
            not: RegexSet::new(NOT_FAILURES).expect("the exclusions are valid regexes"),
        })
    }

    /// The pattern a raw output line matches, if it reads as a failure.
    pub fn pattern(&self, line: &[u8]) -> Option<&'static Pattern> {
        let line = plain(line);
        if !self.patterns.is_match(&line) || self.not.is_match(&line) {
            return None;
        }
        self.patterns
            .matches(&line)
            .iter()
            .next()
            .and_then(|i| PATTERNS.get(i))
    }

    /// Whether a raw output line reads as a failure.
    pub fn is_failure(&self, line: &[u8]) -> bool {
        self.pattern(line).is_some()
    }
}

/// A raw line without ANSI colour sequences, borrowed when it has none.
pub fn plain(line: &[u8]) -> Cow<'_, [u8]> {
    if memchr::memchr(0x1b, line).is_some() {
        Cow::Owned(anstream::adapter::strip_bytes(line).into_vec())
    } else {
        Cow::Borrowed(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_matches_its_tool_s_real_failure_line() {
        let m = FailureMatcher::get();
        for p in PATTERNS {
            let found = m.pattern(p.example.as_bytes());
            assert!(
                found.is_some(),
                "{} does not match {:?}",
                p.regex,
                p.example
            );
        }
    }

    #[test]
    fn the_brief_list_of_failure_lines_is_recognised() {
        let m = FailureMatcher::get();
        for line in [
            "error: could not compile `orders` (lib) due to 1 previous error",
            "SyntaxError: invalid syntax",
            "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:",
            "FAIL src/orders.test.js",
            "FAIL\texample.com/orders\t0.012s",
            "test result: FAILED. 3 passed; 1 failed; 0 ignored",
            "BUILD FAILED in 2s",
            "gyp ERR! stack Error: `make` failed with exit code: 2",
            "make[1]: *** [Makefile:12: all] Error 2",
            "✗ rejects empty names",
            "✘ rejects empty names",
            "\u{1b}[31mFAILED\u{1b}[0m tests/test_a.py::test_b",
            "tests/test_orders.py::test_refund FAILED                                 [ 46%]",
        ] {
            assert!(m.is_failure(line.as_bytes()), "{line:?}");
        }
    }

    #[test]
    fn success_lines_are_not_failures() {
        let m = FailureMatcher::get();
        for line in [
            "0 errors",
            "Found 0 errors. Watching for file changes.",
            "test result: ok. 12 passed; 0 failed; 0 ignored; 0 measured",
            "Tests run: 5, Failures: 0, Errors: 0, Skipped: 0",
            "[INFO] BUILD SUCCESS",
            "BUILD SUCCESSFUL in 3s",
            "============================== 5 passed in 0.12s ===============================",
            "tests/test_failures.py::test_error_paths PASSED                          [ 46%]",
            "ok  \texample.com/orders\t0.012s",
            "--- PASS: TestRefund (0.00s)",
            "PASS src/orders.test.js",
            "  ✓ adds 1 + 2 (3 ms)",
            "  ● Console",
            "warning: unused variable: `total`",
            "   Compiling orders v0.1.0 (/work/orders)",
            "Success: no issues found in 3 source files",
            "All checks passed!",
            "npm notice New minor version of npm available!",
            "error_count=3 retries=0",
            "Tests:       12 passed, 12 total",
            "XFAIL tests/test_a.py::test_known_bug",
        ] {
            assert!(!m.is_failure(line.as_bytes()), "{line:?} read as a failure");
        }
    }
}
