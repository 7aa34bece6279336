//! Python's unittest (and runners that print its report, such as Django's): a
//! `FAIL: test_eq (tests.test_unit.T.test_eq)` block per failed test, whose traceback's first
//! `File "…", line N` is the test's own frame and whose exception line is the message, then
//! `Ran 4 tests in 0.009s` and `FAILED (failures=1, errors=1, skipped=1)` or `OK (skipped=1)`.

use super::text::{Printed, number};
use super::{Out, Places, Tests};

struct Block {
    failure: Printed,
    /// 0: before the traceback's end, 1: in the exception's lines.
    in_message: bool,
}

pub fn parse(lines: &[&str], places: &Places, out: &mut Out) {
    let mut ran: Option<u64> = None;
    let mut verdict: Option<Vec<(String, u64)>> = None;
    let mut blocks: Vec<Block> = Vec::new();
    let mut current: Option<Block> = None;
    for &line in lines {
        if let Some(rest) = line.strip_prefix("Ran ") {
            if let Some((n, tail)) = rest.split_once(' ')
                && (tail.starts_with("test in") || tail.starts_with("tests in"))
            {
                ran = super::text::count(n);
            }
            blocks.extend(current.take());
            continue;
        }
        if ran.is_some()
            && (line == "OK" || line.starts_with("OK (") || line.starts_with("FAILED ("))
        {
            verdict = Some(tallies(line));
            continue;
        }
        if let Some(header) = line
            .strip_prefix("FAIL: ")
            .or_else(|| line.strip_prefix("ERROR: "))
        {
            blocks.extend(current.take());
            if blocks.len() < super::KEEP_FAILURES {
                current = Some(Block {
                    failure: Printed::named(test_name(header)),
                    in_message: false,
                });
            }
            continue;
        }
        let Some(Block {
            failure: b,
            in_message,
        }) = current.as_mut()
        else {
            continue;
        };
        if line.starts_with("----------") || line.starts_with("==========") {
            if !b.message.is_empty() {
                b.message.close();
            }
            continue;
        }
        if let Some(frame) = line.trim_start().strip_prefix("File \"") {
            if b.file.is_none()
                && let Some((file, rest)) = frame.split_once("\", line ")
            {
                b.file = Some(file.to_owned());
                b.line = number(rest).map(|(n, _)| n);
            }
            continue;
        }
        if line.starts_with("Traceback ") || line.starts_with(' ') && !*in_message {
            continue;
        }
        *in_message = true;
        b.message.push(line);
    }
    blocks.extend(current);
    let (Some(ran), Some(verdict)) = (ran, verdict) else {
        return;
    };
    let of = |word: &str| {
        verdict
            .iter()
            .filter(|(w, _)| w == word)
            .map(|(_, n)| n)
            .sum::<u64>()
    };
    let failed = of("failures") + of("errors") + of("unexpected successes");
    let skipped = of("skipped") + of("expected failures");
    let tests = Tests {
        passed: Some(ran.saturating_sub(failed + skipped)),
        failed,
        skipped,
        ..Tests::default()
    };
    out.tests_with(tests, places, blocks.into_iter().map(|b| b.failure));
}

/// `FAILED (failures=1, errors=1, skipped=1)` as `(word, n)` pairs.
fn tallies(line: &str) -> Vec<(String, u64)> {
    let inner = line
        .split_once('(')
        .and_then(|(_, r)| r.strip_suffix(')'))
        .unwrap_or("");
    inner
        .split(", ")
        .filter_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            Some((k.trim().to_owned(), super::text::count(v.trim())?))
        })
        .collect()
}

/// `test_eq (tests.test_unit.T.test_eq)` (Python 3.11+) or `test_eq (tests.test_unit.T)` as
/// `tests.test_unit.T.test_eq`.
fn test_name(header: &str) -> String {
    match header.split_once(" (") {
        Some((method, rest)) => {
            let dotted = rest.split(')').next().unwrap_or(rest);
            if dotted.ends_with(&format!(".{method}")) {
                dotted.to_owned()
            } else {
                format!("{dotted}.{method}")
            }
        }
        None => header.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{counts, failures, run};
    use super::parse;

    /// `python3 -m unittest tests.test_unit` (Python 3.11).
    const UNITTEST: &str = include_str!("recorded/unittest.txt");

    #[test]
    fn unittest_blocks_give_the_test_s_frame_and_exception() {
        let out = run(parse, UNITTEST);
        assert_eq!(counts(&out), (Some(1), 2, 1));
        let f = failures(&out);
        assert_eq!(
            f,
            vec![
                (
                    "tests.test_unit.T.test_raise".into(),
                    Some("tests/test_unit.py".into()),
                    Some(9),
                    "KeyError: 'k'".into()
                ),
                (
                    "tests.test_unit.T.test_eq".into(),
                    Some("tests/test_unit.py".into()),
                    Some(5),
                    "AssertionError: Lists differ: [1, 2] != [1, 3]".into()
                ),
            ]
        );
        let ok = run(
            parse,
            "....\n----------------------------------------------------------------------\nRan 4 tests in 0.001s\n\nOK\n",
        );
        assert_eq!(counts(&ok), (Some(4), 0, 0));
    }
}
