//! Results an agent can act on: which tests failed and where, and which lines a compiler
//! or linter rejected, read from a finished run's output (and from the JUnit XML reports it
//! wrote) into [`Results`]: `tests` and `problems`.
//!
//! # Theory of operation
//!
//! When a job ends, the engine hands its retained output (the bounded ring of
//! [`crate::engine::output`], at most 5 MiB and 100,000 lines of at most 64 KiB each) to
//! [`extract`], once, on a blocking thread. Every parser of [`PARSERS`] reads the lines in
//! one pass with a few bytes of state, so the work is linear in what the ring holds and
//! nothing is done while output streams in (a flood costs what it cost before). Each
//! parser recognises its tool only by the tool's own summary or diagnostic lines, so the
//! catalog can run them all on every output. Test reports of different runners add up (a
//! `make check` that runs pytest and Jest); a JUnit XML report the run wrote
//! ([`reports`]) replaces what the output said for the runner that wrote it, since it holds
//! every failure even when the output was longer than the ring. Problems are deduplicated,
//! errors first, and paths said from the repository root ([`places::Places`]).

mod eslint;
mod gcc;
mod go_build;
mod go_test;
mod javac;
mod jest;
mod junit;
mod libtest;
mod mocha;
pub mod model;
mod mypy;
mod nextest;
mod node_test;
pub mod places;
mod pyright;
mod pytest;
mod reports;
mod ruff;
mod rustc;
pub mod text;
mod tsc;
mod unittest;
mod vitest;

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::SystemTime;

pub use model::{Failure, MAX_FAILURES, MAX_PROBLEMS, Problem, Results, Severity, Tests};
use places::Places;

/// What a run is, for reading its results: where it ran, what it ran (where a JUnit
/// report's path is named), and when it started (only reports written since count).
#[derive(Debug, Clone)]
pub struct Scope {
    /// The repository root.
    pub root: PathBuf,
    /// The run's directory.
    pub cwd: PathBuf,
    /// The command, the task's script and its arguments, as one text.
    pub command: String,
    /// The environment the run was given (`JEST_JUNIT_OUTPUT_DIR`, …).
    pub env: Vec<(String, String)>,
    /// When the run started.
    pub started: SystemTime,
}

/// What one parser found in one output.
#[derive(Debug, Default)]
pub struct Out {
    /// The test report, when its summary was seen.
    pub tests: Option<Tests>,
    /// Diagnostics, paths already said from the root.
    pub problems: Vec<Problem>,
}

/// Failures one parser keeps at most (the result lists [`MAX_FAILURES`]); keeps memory
/// bounded whatever the output repeats.
pub const KEEP_FAILURES: usize = 200;
/// Problems one parser keeps at most.
pub const KEEP_PROBLEMS: usize = 1_000;

impl Out {
    /// Adds a failure, within [`KEEP_FAILURES`].
    pub fn failure(tests: &mut Tests, failure: Failure) {
        if tests.failures.len() < KEEP_FAILURES {
            tests.failures.push(failure);
        }
    }

    /// Adds a failure as a parser read it from the output: its `file` as the tool printed
    /// it (said from the root, [`Places::file`]), its line, and the message gathered for it.
    pub fn printed_failure(
        tests: &mut Tests,
        places: &Places,
        name: String,
        (file, line): (Option<&str>, Option<u32>),
        message: &text::Message,
    ) {
        Out::failure(
            tests,
            Failure {
                name,
                file: file.map(|f| places.file(f)),
                line,
                message: message.text(),
            },
        );
    }

    /// Keeps `tests` as the report, with the failures a parser gathered from the output.
    pub fn tests_with(
        &mut self,
        mut tests: Tests,
        places: &Places,
        failures: impl IntoIterator<Item = text::Printed>,
    ) {
        for f in failures {
            Out::printed_failure(
                &mut tests,
                places,
                f.name,
                (f.file.as_deref(), f.line),
                &f.message,
            );
        }
        self.tests = Some(tests);
    }

    /// Adds a problem, within [`KEEP_PROBLEMS`].
    /// A problem the tool printed at `loc` (its path as printed, made root-relative).
    pub fn problem_at(
        &mut self,
        places: &Places,
        loc: &text::Loc<'_>,
        severity: Severity,
        message: impl Into<String>,
        code: Option<String>,
    ) {
        self.problem(Problem {
            file: places.file(loc.path),
            line: loc.line,
            column: loc.column,
            severity,
            message: message.into(),
            code,
        });
    }

    pub fn problem(&mut self, problem: Problem) {
        if self.problems.len() < KEEP_PROBLEMS {
            self.problems.push(problem);
        }
    }
}

/// One parser of the catalog.
pub struct Parser {
    /// The format it reads, as the docs name it.
    pub name: &'static str,
    /// The test runner whose report it reads (JUnit reports of that runner replace it).
    pub runner: Option<&'static str>,
    /// Reads every line, once.
    pub parse: fn(&[&str], &Places, &mut Out),
}

/// Every parser, test runners first. Adding a tool is one module and one row.
pub const PARSERS: &[Parser] = &[
    Parser {
        name: "libtest (cargo test)",
        runner: Some("libtest"),
        parse: libtest::parse,
    },
    Parser {
        name: "cargo-nextest",
        runner: Some("nextest"),
        parse: nextest::parse,
    },
    Parser {
        name: "pytest",
        runner: Some("pytest"),
        parse: pytest::parse,
    },
    Parser {
        name: "unittest",
        runner: Some("unittest"),
        parse: unittest::parse,
    },
    Parser {
        name: "Jest",
        runner: Some("jest"),
        parse: jest::parse,
    },
    Parser {
        name: "Vitest",
        runner: Some("vitest"),
        parse: vitest::parse,
    },
    Parser {
        name: "Mocha",
        runner: Some("mocha"),
        parse: mocha::parse,
    },
    Parser {
        name: "node --test (spec, TAP)",
        runner: Some("node"),
        parse: node_test::parse,
    },
    Parser {
        name: "go test (plain, -v, -json)",
        runner: Some("go"),
        parse: go_test::parse,
    },
    Parser {
        name: "rustc, cargo (human, short, JSON)",
        runner: None,
        parse: rustc::parse,
    },
    Parser {
        name: "tsc",
        runner: None,
        parse: tsc::parse,
    },
    Parser {
        name: "gcc, clang",
        runner: None,
        parse: gcc::parse,
    },
    Parser {
        name: "eslint (stylish, unix)",
        runner: None,
        parse: eslint::parse,
    },
    Parser {
        name: "ruff (full, concise)",
        runner: None,
        parse: ruff::parse,
    },
    Parser {
        name: "mypy",
        runner: None,
        parse: mypy::parse,
    },
    Parser {
        name: "pyright",
        runner: None,
        parse: pyright::parse,
    },
    Parser {
        name: "go build, go vet",
        runner: None,
        parse: go_build::parse,
    },
    Parser {
        name: "javac (and Maven's compiler lines)",
        runner: None,
        parse: javac::parse,
    },
];

/// Reads a finished run's output lines (raw, as the ring holds them) and the reports it
/// wrote.
pub fn extract<S: AsRef<str>>(lines: &[S], scope: &Scope) -> Results {
    let clean: Vec<std::borrow::Cow<'_, str>> =
        lines.iter().map(|l| text::clean(l.as_ref())).collect();
    let lines: Vec<&str> = clean.iter().map(AsRef::as_ref).collect();
    let places = Places::new(&scope.root, &scope.cwd);
    let mut formats = Vec::new();
    let mut by_runner: Vec<(&'static str, Tests)> = Vec::new();
    let mut problems = Vec::new();
    for parser in PARSERS {
        let mut out = Out::default();
        (parser.parse)(&lines, &places, &mut out);
        if out.tests.is_none() && out.problems.is_empty() {
            continue;
        }
        formats.push(parser.name);
        if let (Some(tests), Some(runner)) = (out.tests, parser.runner) {
            by_runner.push((runner, tests));
        }
        problems.extend(out.problems);
    }
    for report in reports::read(scope, &places) {
        formats.push("JUnit XML");
        match report
            .runner
            .and_then(|r| by_runner.iter().position(|(n, _)| *n == r))
        {
            Some(i) => by_runner[i].1 = report.tests,
            None => by_runner.push((report.runner.unwrap_or("junit"), report.tests)),
        }
    }
    formats.dedup();
    let (problems, problems_more, errors, warnings) = finish_problems(problems);
    Results {
        tests: combine(by_runner.into_iter().map(|(_, t)| t)),
        problems,
        problems_more,
        errors,
        warnings,
        formats,
    }
}

/// The reports of several runners as one: counts added, failures in order, at most
/// [`MAX_FAILURES`] listed.
fn combine(reports: impl Iterator<Item = Tests>) -> Option<Tests> {
    let mut all: Option<Tests> = None;
    for t in reports {
        let acc = all.get_or_insert_with(Tests::default);
        acc.passed = match (acc.passed, t.passed) {
            (Some(a), Some(b)) => Some(a + b),
            (a, b) => a.or(b),
        };
        acc.failed += t.failed;
        acc.skipped += t.skipped;
        acc.failures.extend(t.failures);
    }
    let mut tests = all?;
    let mut seen = HashSet::new();
    tests
        .failures
        .retain(|f| seen.insert((f.name.clone(), f.file.clone())));
    let found = tests.failures.len() as u64;
    tests.failures.truncate(MAX_FAILURES);
    let shown = tests.failures.len() as u64;
    tests.more = tests.failed.max(found).saturating_sub(shown);
    Some(tests)
}

/// Deduplicated, errors first (in order of appearance within each), at most
/// [`MAX_PROBLEMS`]; with the number left out and the errors and warnings in all.
fn finish_problems(mut problems: Vec<Problem>) -> (Vec<Problem>, u64, u64, u64) {
    let mut seen = HashSet::new();
    problems.retain(|p| seen.insert((p.file.clone(), p.line, p.column, p.message.clone())));
    problems.sort_by_key(|p| p.severity);
    let errors = problems
        .iter()
        .filter(|p| p.severity == Severity::Error)
        .count() as u64;
    let warnings = problems.len() as u64 - errors;
    let more = problems.len().saturating_sub(MAX_PROBLEMS) as u64;
    problems.truncate(MAX_PROBLEMS);
    (problems, more, errors, warnings)
}

/// The unit tests' way to run one parser on a real output.
#[cfg(test)]
pub(crate) mod testing {
    use super::{Out, Places};

    /// Runs `parse` on `output` as if the run had been in `/repo`.
    pub fn run(parse: fn(&[&str], &Places, &mut Out), output: &str) -> Out {
        run_in(parse, output, std::path::Path::new("/repo"))
    }

    /// Runs `parse` on `output` as if the run had been in `root`.
    pub fn run_in(
        parse: fn(&[&str], &Places, &mut Out),
        output: &str,
        root: &std::path::Path,
    ) -> Out {
        let lines: Vec<std::borrow::Cow<'_, str>> =
            output.lines().map(super::text::clean).collect();
        let lines: Vec<&str> = lines.iter().map(AsRef::as_ref).collect();
        let places = Places::new(root, root);
        let mut out = Out::default();
        parse(&lines, &places, &mut out);
        out
    }

    /// `(name, file, line, message's first line)` of each failure.
    pub fn failures(out: &Out) -> Vec<(String, Option<String>, Option<u32>, String)> {
        out.tests
            .as_ref()
            .map(|t| {
                t.failures
                    .iter()
                    .map(|f| {
                        (
                            f.name.clone(),
                            f.file.clone(),
                            f.line,
                            f.message
                                .as_deref()
                                .and_then(|m| m.lines().next())
                                .unwrap_or("")
                                .to_owned(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// `(passed, failed, skipped)`.
    pub fn counts(out: &Out) -> (Option<u64>, u64, u64) {
        let t = out.tests.as_ref().expect("a test report");
        (t.passed, t.failed, t.skipped)
    }

    /// `file:line:col severity code message` of each problem.
    pub fn problems(out: &Out) -> Vec<String> {
        out.problems
            .iter()
            .map(|p| {
                format!(
                    "{}:{}:{} {:?} {} {}",
                    p.file,
                    p.line.unwrap_or(0),
                    p.column.unwrap_or(0),
                    p.severity,
                    p.code.as_deref().unwrap_or("-"),
                    p.message.lines().next().unwrap_or("")
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Whatever a task prints, reading it ends, without a panic, within the caps.
        #[test]
        fn any_output_is_read_within_the_caps(lines in prop::collection::vec(line(), 0..200)) {
            let scope = Scope {
                root: "/nonexistent-root".into(),
                cwd: "/nonexistent-root".into(),
                command: String::new(),
                env: Vec::new(),
                started: std::time::SystemTime::now(),
            };
            let r = extract(&lines, &scope);
            prop_assert!(r.problems.len() <= MAX_PROBLEMS);
            if let Some(t) = &r.tests {
                prop_assert!(t.failures.len() <= MAX_FAILURES);
                for f in &t.failures {
                    prop_assert!(f.message.as_ref().is_none_or(|m| m.len() <= model::MESSAGE_BYTES));
                }
            }
        }
    }

    /// Lines made of the pieces the parsers look for, so that their states are reached.
    fn line() -> impl Strategy<Value = String> {
        let pieces = prop::sample::select(vec![
            "test result: FAILED. 1 passed; 2 failed; 0 ignored",
            "---- a stdout ----",
            "thread 'a' panicked at src/a.rs:1:2:",
            "==== FAILURES ====",
            "____ t ____",
            "E   assert",
            "FAILED a.py::t - x",
            "== 1 failed in 0.1s ==",
            "FAIL: t (a.T.t)",
            "Ran 3 tests in 0.1s",
            "FAILED (failures=1)",
            "FAIL src/a.test.js",
            "  ● a › b",
            "Tests: 1 failed, 1 total",
            " FAIL  a.js > b",
            " Test Files 1 failed",
            "      Tests  1 failed (1)",
            "  1 passing (1ms)",
            "  1 failing",
            "  1) a",
            "ℹ tests 1",
            "✖ failing tests:",
            "not ok 1 - a",
            "  ---",
            "  error: |-",
            "--- FAIL: TestA (0.00s)",
            "    a_test.go:3: x",
            "FAIL\tex.com/a\t0.1s",
            "{\"Action\":\"fail\",\"Test\":\"T\"}",
            "error[E0308]: x",
            " --> a.rs:1:2",
            "a.ts(1,2): error TS1: x",
            "a.c:1:2: error: x [-Wx]",
            "/a.js",
            "  1:2  error  x  r",
            "F401 x",
            "a.py:1: error: x  [c]",
            "  /a.py:1:2 - error: x",
            "# a",
            "a.go:1:2: x",
            "A.java:1: error: x",
            "        ^",
            "\u{1b}[31m",
            "\r",
            "",
            " ",
            ":",
            "(",
            "é",
        ]);
        prop::collection::vec(pieces, 0..4).prop_map(|p| p.concat())
    }

    fn problem(file: &str, line: u32, severity: Severity) -> Problem {
        Problem {
            file: file.into(),
            line: Some(line),
            column: None,
            severity,
            message: "m".into(),
            code: None,
        }
    }

    #[test]
    fn problems_are_deduplicated_errors_first_and_capped() {
        let mut all = vec![
            problem("a", 1, Severity::Warning),
            problem("a", 2, Severity::Error),
            problem("a", 2, Severity::Error),
        ];
        for i in 0..100 {
            all.push(problem("b", i, Severity::Error));
        }
        let (shown, more, errors, warnings) = finish_problems(all);
        assert_eq!(shown.len(), MAX_PROBLEMS);
        assert_eq!((more, errors, warnings), (52, 101, 1));
        assert_eq!(shown[0].line, Some(2));
        assert!(shown.iter().all(|p| p.severity == Severity::Error));
    }

    #[test]
    fn reports_of_several_runners_add_up_and_list_twenty() {
        let failures = |n: usize, tag: &str| {
            (0..n)
                .map(|i| Failure {
                    name: format!("{tag}{i}"),
                    file: None,
                    line: None,
                    message: None,
                })
                .collect::<Vec<_>>()
        };
        let a = Tests {
            passed: Some(10),
            failed: 15,
            skipped: 1,
            failures: failures(15, "a"),
            more: 0,
        };
        let b = Tests {
            passed: None,
            failed: 10,
            skipped: 0,
            failures: failures(10, "b"),
            more: 0,
        };
        let t = combine([a, b].into_iter()).expect("tests");
        assert_eq!((t.passed, t.failed, t.skipped), (Some(10), 25, 1));
        assert_eq!(t.failures.len(), MAX_FAILURES);
        assert_eq!(t.more, 5);
    }
}
