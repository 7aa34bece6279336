//! Rust's libtest, as `cargo test` prints it: `test NAME ... FAILED` lines, a
//! `---- NAME stdout ----` block per failure with its panic (`panicked at FILE:LINE:COL:` and
//! the message after it, or the older `panicked at 'MSG', FILE:LINE:COL`), and one
//! `test result:` line per test binary, whose counts add up. Lines indented (as
//! cargo-nextest shows libtest's own output) are not read here.

use super::text::{Message, Printed, get, loc_prefix};
use super::{Out, Places, Tests};

#[derive(Default)]
struct Block {
    failure: Printed,
    /// The panic line was seen: the lines after it are the message.
    in_message: bool,
    /// An older panic line's quoted message goes on: its place ends it.
    in_quote: bool,
}

pub fn parse(lines: &[&str], places: &Places, out: &mut Out) {
    let mut tests: Option<Tests> = None;
    let mut failed_names: Vec<String> = Vec::new();
    let mut blocks: Vec<Block> = Vec::new();
    let mut current: Option<Block> = None;
    for &line in lines {
        if let Some(rest) = line.strip_prefix("test result: ") {
            let c = super::text::counts(rest);
            let t = tests.get_or_insert_with(Tests::default);
            t.passed = Some(t.passed.unwrap_or(0) + get(&c, &["passed"]));
            t.failed += get(&c, &["failed"]);
            t.skipped += get(&c, &["ignored"]);
            continue;
        }
        if let Some(name) = line.strip_prefix("---- ").and_then(|r| {
            r.strip_suffix(" stdout ----")
                .or_else(|| r.strip_suffix(" stderr ----"))
        }) {
            blocks.extend(current.take());
            current = Some(Block {
                failure: Printed::named(name),
                ..Block::default()
            });
            continue;
        }
        if line == "failures:" || line.starts_with("test result") {
            blocks.extend(current.take());
            continue;
        }
        if let Some(rest) = line.strip_prefix("test ") {
            if let Some(name) = rest.strip_suffix(" ... FAILED") {
                let name = name.split(" - should panic").next().unwrap_or(name);
                if failed_names.len() < super::KEEP_FAILURES {
                    failed_names.push(name.to_owned());
                }
            }
            continue;
        }
        let Some(Block {
            failure: block,
            in_message,
            in_quote,
        }) = current.as_mut()
        else {
            continue;
        };
        if let Some(at) = line
            .find("panicked at ")
            .filter(|_| line.starts_with("thread '"))
        {
            let after = &line[at + "panicked at ".len()..];
            if let Some(quoted) = after.strip_prefix('\'') {
                // `panicked at 'MSG', FILE:LINE:COL` (Rust before 1.73).
                if let Some((msg, place)) = quoted.rsplit_once("', ") {
                    block.message = Message::of(msg);
                    set_place(block, place);
                } else {
                    block.message = Message::of(quoted);
                    *in_quote = true;
                }
            } else {
                set_place(block, after.trim_end_matches(':'));
                *in_message = true;
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("note: test did not panic as expected") {
            block.message = Message::of("test did not panic as expected");
            set_place(block, rest.trim().trim_start_matches("at ").trim());
            continue;
        }
        if *in_quote {
            match line.rsplit_once("', ") {
                Some((msg, place)) if loc_prefix(place).is_some() => {
                    block.message.push(msg);
                    set_place(block, place);
                    *in_quote = false;
                }
                _ => block.message.push(line),
            }
            continue;
        }
        if *in_message {
            if line.starts_with("stack backtrace:") || line.starts_with("note: ") || line.is_empty()
            {
                *in_message = false;
                block.message.close();
            } else {
                block.message.push(line);
            }
        }
    }
    blocks.extend(current);
    let Some(tests) = tests else {
        return;
    };
    // A test listed as FAILED without a `---- NAME stdout ----` block is still a failure,
    // without a place or a message.
    let unprinted: Vec<Printed> = failed_names
        .into_iter()
        .filter(|name| !blocks.iter().any(|b| b.failure.name == *name))
        .map(Printed::named)
        .collect();
    let printed = blocks.into_iter().map(|b| b.failure);
    out.tests_with(tests, places, printed.chain(unprinted));
}

fn set_place(block: &mut Printed, place: &str) {
    if let Some((loc, _)) = loc_prefix(place) {
        block.file = Some(loc.path.to_owned());
        block.line = loc.line;
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{counts, failures, run};
    use super::parse;

    /// `cargo test --no-fail-fast` (Rust 1.95, `RUST_BACKTRACE=1`): a library with four
    /// tests failing and an integration test failing, and the doc-tests passing.
    const CARGO_TEST: &str = include_str!("recorded/cargo-test.txt");

    /// Rust before 1.73 put the message in the panic line.
    const OLD_PANIC: &str = "running 1 test
test it_adds ... FAILED

failures:

---- it_adds stdout ----
thread 'it_adds' panicked at 'assertion failed: `(left == right)`
  left: `1`,
 right: `2`', src/main.rs:4:5

failures:
    it_adds

test result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out
";

    #[test]
    fn cargo_test_gives_every_binary_s_counts_and_each_panic() {
        let out = run(parse, CARGO_TEST);
        assert_eq!(counts(&out), (Some(2), 4, 1));
        let f = failures(&out);
        let want = [
            (
                "tests::should",
                "src/lib.rs",
                17,
                "test did not panic as expected",
            ),
            (
                "tests::panics",
                "src/lib.rs",
                14,
                "index out of bounds: the len is 0 but the index is 1",
            ),
            (
                "tests::wrong",
                "src/lib.rs",
                9,
                "assertion `left == right` failed: refund of 5",
            ),
            ("integration_fails", "tests/it.rs", 2, "seven"),
        ];
        assert_eq!(f.len(), want.len(), "{f:?}");
        for (got, (name, file, line, msg)) in f.iter().zip(want) {
            assert_eq!(
                (got.0.as_str(), got.1.as_deref(), got.2, got.3.as_str()),
                (name, Some(file), Some(line), msg)
            );
        }
        let wrong = &out.tests.as_ref().expect("tests").failures[2];
        assert_eq!(
            wrong.message.as_deref(),
            Some("assertion `left == right` failed: refund of 5\nleft: 2\nright: 3")
        );
    }

    #[test]
    fn the_older_panic_line_carries_its_message() {
        let out = run(parse, OLD_PANIC);
        let f = failures(&out);
        assert_eq!(f[0].1.as_deref(), Some("src/main.rs"));
        assert_eq!(f[0].2, Some(4));
        assert!(f[0].3.starts_with("assertion failed"), "{f:?}");
    }

    #[test]
    fn output_without_a_test_result_line_is_not_libtest() {
        assert!(run(parse, "test foo ... FAILED\n").tests.is_none());
    }
}
