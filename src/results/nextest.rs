//! cargo-nextest: a `FAIL [ 0.004s] (2/6) BINARY TEST` line per failed test (and again in
//! the final list), the test's captured output after it (indented, under `stdout ───` and
//! `stderr ───`, or `--- STDERR: …` in older releases) holding the panic, and the
//! `Summary [ 1.064s] 6 tests run: 2 passed, 4 failed, 1 skipped` line.

use super::text::{Printed, counts, get, loc_prefix};
use super::{Out, Places, Tests};

/// Words nextest puts before a failed test's timing.
const FAILED: &[&str] = &[
    "FAIL",
    "SIGSEGV",
    "SIGABRT",
    "SIGBUS",
    "SIGKILL",
    "TIMEOUT",
    "ABORT",
    "LEAK-FAIL",
];

struct Failed {
    failure: Printed,
    in_message: bool,
}

pub fn parse(lines: &[&str], places: &Places, out: &mut Out) {
    let mut tests: Option<Tests> = None;
    let mut failed: Vec<Failed> = Vec::new();
    let mut current: Option<usize> = None;
    for &line in lines {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("Summary [") {
            let c = counts(rest.split_once(']').map_or(rest, |(_, r)| r));
            tests = Some(Tests {
                passed: Some(get(&c, &["passed"])),
                failed: get(&c, &["failed"]) + timed_out(rest),
                skipped: get(&c, &["skipped"]),
                ..Tests::default()
            });
            current = None;
            continue;
        }
        if let Some(name) = failed_test(trimmed) {
            current = match failed.iter().position(|f| f.failure.name == name) {
                Some(i) => Some(i),
                None if failed.len() < super::KEEP_FAILURES => {
                    failed.push(Failed {
                        failure: Printed::named(name),
                        in_message: false,
                    });
                    Some(failed.len() - 1)
                }
                None => None,
            };
            continue;
        }
        if trimmed.starts_with("PASS [") || trimmed.starts_with("SKIP [") {
            current = None;
            continue;
        }
        let Some(Failed {
            failure: f,
            in_message,
        }) = current.and_then(|i| failed.get_mut(i))
        else {
            continue;
        };
        if trimmed.starts_with("thread '")
            && let Some(at) = trimmed.find("panicked at ")
        {
            let place = trimmed[at + "panicked at ".len()..].trim_end_matches(':');
            if let Some((loc, _)) = loc_prefix(place) {
                f.file = Some(loc.path.to_owned());
                f.line = loc.line;
            }
            *in_message = f.message.is_empty();
            continue;
        }
        if *in_message {
            if trimmed.is_empty()
                || trimmed.starts_with("stack backtrace:")
                || trimmed.starts_with("note: ")
            {
                *in_message = false;
                f.message.close();
            } else {
                f.message.push(trimmed);
            }
        }
    }
    if let Some(tests) = tests {
        out.tests_with(tests, places, failed.into_iter().map(|f| f.failure));
    }
}

/// `N timed out` in a summary: failures too.
fn timed_out(summary: &str) -> u64 {
    summary
        .split(',')
        .filter_map(|part| part.trim().strip_suffix(" timed out"))
        .filter_map(super::text::count)
        .sum()
}

/// The test a `FAIL [ 0.004s] (2/6) shop tests::wrong` line names (`tests::wrong`).
fn failed_test(line: &str) -> Option<&str> {
    let (word, rest) = line.split_once(' ')?;
    if !FAILED.contains(&word) {
        return None;
    }
    let rest = rest.trim_start().strip_prefix('[')?;
    let (_, rest) = rest.split_once(']')?;
    let mut rest = rest.trim_start();
    if rest.starts_with('(') {
        rest = rest.split_once(')')?.1.trim_start();
    }
    // BINARY-ID TEST-NAME
    let (_, name) = rest.split_once(' ')?;
    let name = name.trim();
    (!name.is_empty()).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{counts, failures, run};
    use super::parse;

    /// `cargo nextest run --no-fail-fast` (0.9.143), the project of libtest's tests.
    const NEXTEST: &str = include_str!("recorded/nextest.txt");

    #[test]
    fn nextest_gives_its_summary_and_each_failed_test_s_panic() {
        let out = run(parse, NEXTEST);
        assert_eq!(counts(&out), (Some(2), 3, 1));
        let f = failures(&out);
        assert_eq!(f.len(), 3, "{f:?}");
        assert_eq!(f[0].0, "tests::should");
        assert_eq!(
            (f[1].0.as_str(), f[1].1.as_deref(), f[1].2, f[1].3.as_str()),
            (
                "tests::wrong",
                Some("src/lib.rs"),
                Some(9),
                "assertion `left == right` failed: refund of 5"
            )
        );
        assert_eq!(
            (f[2].1.as_deref(), f[2].3.as_str()),
            (Some("tests/it.rs"), "seven")
        );
    }
}
