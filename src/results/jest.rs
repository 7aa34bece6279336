//! Jest: `FAIL path` headers, a `● describe › test` block per failed test (its message,
//! a code frame, then `at … (path:line:col)` frames), `● Test suite failed to run` for a
//! file that could not run, and `Tests: 3 failed, 1 skipped, 1 passed, 5 total`. Colours
//! turn `FAIL` into ` FAIL ` (an inverse badge); both are read.

use super::text::{Message, counts, get, loc_in_parens};
use super::{Out, Places, Tests};

struct Block {
    name: String,
    file: String,
    line: Option<u32>,
    message: Message,
    /// The message ended (a code frame or a stack began).
    framed: bool,
}

pub fn parse(lines: &[&str], places: &Places, out: &mut Out) {
    let mut tests: Option<Tests> = None;
    let mut file = String::new();
    let mut blocks: Vec<Block> = Vec::new();
    let mut current: Option<Block> = None;
    for &line in lines {
        if let Some(rest) = line.strip_prefix("Tests:") {
            let c = counts(rest);
            if rest.trim_end().ends_with("total") {
                tests = Some(Tests {
                    passed: Some(get(&c, &["passed"])),
                    failed: get(&c, &["failed"]),
                    skipped: get(&c, &["skipped", "todo", "pending"]),
                    ..Tests::default()
                });
            }
            blocks.extend(current.take());
            continue;
        }
        let badge = line.trim_start();
        if let Some(path) = badge
            .strip_prefix("FAIL ")
            .or_else(|| badge.strip_prefix("PASS "))
        {
            blocks.extend(current.take());
            // ` FAIL  src/a.test.js (5.1 s)`: the path, without a timing.
            path.trim()
                .split(" (")
                .next()
                .unwrap_or("")
                .clone_into(&mut file);
            continue;
        }
        if line.starts_with("Summary of all failing tests") {
            blocks.extend(current.take());
            continue;
        }
        if let Some(title) = line.strip_prefix("  ● ") {
            blocks.extend(current.take());
            if title != "Console" && blocks.len() < super::KEEP_FAILURES {
                current = Some(Block {
                    name: title.trim().to_owned(),
                    file: file.clone(),
                    line: None,
                    message: Message::default(),
                    framed: false,
                });
            }
            continue;
        }
        let Some(b) = current.as_mut() else { continue };
        let t = line.trim_start();
        if let Some(frame) = t.strip_prefix("at ") {
            b.framed = true;
            if b.line.is_none()
                && let Some(loc) =
                    loc_in_parens(frame).or_else(|| super::text::loc_prefix(frame).map(|(l, _)| l))
                && (loc.path == b.file || loc.path.ends_with(&format!("/{}", b.file)))
            {
                b.line = loc.line;
            }
            continue;
        }
        if code_frame(t) {
            b.framed = true;
            if b.line.is_none()
                && let Some(n) = t
                    .strip_prefix('>')
                    .and_then(|r| super::text::number(r.trim_start()))
            {
                b.line = Some(n.0);
            }
            continue;
        }
        if !b.framed {
            b.message.push(line);
        }
    }
    blocks.extend(current);
    let Some(mut tests) = tests else { return };
    for b in blocks {
        if tests
            .failures
            .iter()
            .any(|f| f.name == b.name && f.file.as_deref() == Some(&places.file(&b.file)))
        {
            continue;
        }
        Out::printed_failure(
            &mut tests,
            places,
            b.name,
            ((!b.file.is_empty()).then_some(b.file.as_str()), b.line),
            &b.message,
        );
    }
    out.tests = Some(tests);
}

/// A line of a code frame: `>  7 |   expect(…)`, `   8 | });` or `     |   ^`.
fn code_frame(t: &str) -> bool {
    let t = t.strip_prefix('>').unwrap_or(t).trim_start();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    t[digits..].trim_start().starts_with('|') && (digits > 0 || t.starts_with('|'))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{counts, failures, run};
    use super::parse;

    /// Jest 30 on two files: three failures and a file that fails to load.
    const JEST: &str = include_str!("recorded/jest.txt");

    #[test]
    fn jest_gives_each_failure_with_its_frame_line() {
        let out = run(parse, JEST);
        assert_eq!(counts(&out), (Some(1), 3, 1));
        let f = failures(&out);
        let want = [
            (
                "sum › adds wrong",
                "src/sum.test.js",
                7,
                "expect(received).toBe(expected) // Object.is equality",
            ),
            (
                "sum › objects",
                "src/sum.test.js",
                11,
                "expect(received).toEqual(expected) // deep equality",
            ),
            ("top level throws", "src/sum.test.js", 15, "TypeError: boom"),
            (
                "Test suite failed to run",
                "src/broken.test.js",
                1,
                "Cannot find module './missing' from 'src/broken.test.js'",
            ),
        ];
        assert_eq!(f.len(), want.len(), "{f:?}");
        for (got, (name, file, line, msg)) in f.iter().zip(want) {
            assert_eq!(
                (got.0.as_str(), got.1.as_deref(), got.2, got.3.as_str()),
                (name, Some(file), Some(line), msg)
            );
        }
        let first = &out.tests.as_ref().expect("tests").failures[0];
        assert_eq!(
            first.message.as_deref(),
            Some("expect(received).toBe(expected) // Object.is equality\nExpected: 4\nReceived: 3")
        );
    }
}
