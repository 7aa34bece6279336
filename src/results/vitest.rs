//! Vitest: after `Failed Tests N`, a ` FAIL  file > describe > test` line per failure, its
//! error line (`AssertionError: expected 3 to be 4`), the diff, and ` ❯ file:line:col`;
//! then the ` Test Files ` and `      Tests  3 failed | 2 passed | 1 skipped (6)` lines, on
//! stdout where the failures are on stderr (so in either order, or one inside the other).

use super::text::{Message, counts, get, loc_prefix};
use super::{Out, Places, Tests};

struct Block {
    name: String,
    file: String,
    line: Option<u32>,
    message: Message,
}

pub fn parse(lines: &[&str], places: &Places, out: &mut Out) {
    let mut tests: Option<Tests> = None;
    let mut saw_files = false;
    let mut blocks: Vec<Block> = Vec::new();
    let mut current: Option<Block> = None;
    for &line in lines {
        let t = line.trim_start();
        // The summary goes to stdout and the failures to stderr: read from two pipes, the
        // summary may arrive in the middle of a failure, so it ends none (a separator, the
        // next failure or the end of the output does) and none of its lines joins one.
        if t.starts_with("Test Files ") {
            saw_files = true;
            continue;
        }
        if saw_files && (t.starts_with("Start at ") || t.starts_with("Duration ")) {
            continue;
        }
        if saw_files && let Some(rest) = t.strip_prefix("Tests ") {
            let c = counts(rest);
            tests = Some(Tests {
                passed: Some(get(&c, &["passed"])),
                failed: get(&c, &["failed"]),
                skipped: get(&c, &["skipped", "todo"]),
                ..Tests::default()
            });
            continue;
        }
        if let Some(rest) = line.strip_prefix(" FAIL  ") {
            blocks.extend(current.take());
            if blocks.len() < super::KEEP_FAILURES {
                let (file, name) = match rest.split_once(" > ") {
                    Some((f, n)) => (f, n),
                    None => (rest.split(" [").next().unwrap_or(rest), rest),
                };
                current = Some(Block {
                    name: name.trim().to_owned(),
                    file: file.trim().to_owned(),
                    line: None,
                    message: Message::default(),
                });
            }
            continue;
        }
        let Some(b) = current.as_mut() else { continue };
        if let Some(place) = t.strip_prefix("❯ ") {
            if b.line.is_none()
                && let Some((loc, _)) = loc_prefix(place)
            {
                b.line = loc.line;
            }
            b.message.close();
            continue;
        }
        if line.starts_with('⎯') {
            blocks.extend(current.take());
            continue;
        }
        if line.is_empty() && !b.message.is_empty() {
            b.message.close();
        }
        b.message.push(line);
    }
    blocks.extend(current);
    let Some(mut tests) = tests else { return };
    for b in blocks {
        Out::printed_failure(
            &mut tests,
            places,
            b.name,
            (Some(&b.file), b.line),
            &b.message,
        );
    }
    out.tests = Some(tests);
}

#[cfg(test)]
mod tests {
    use super::super::testing::{counts, failures, run};
    use super::parse;

    /// Vitest 4.1 with its colours (it forces them), as captured through a pipe.
    const VITEST: &str = "\n\u{1b}[1m\u{1b}[30m\u{1b}[46m RUN \u{1b}[49m\u{1b}[39m\u{1b}[22m \u{1b}[36mv4.1.12 \u{1b}[39m\u{1b}[90m/repo\u{1b}[39m

 \u{1b}[31m❯\u{1b}[39m src/sum.test.js \u{1b}[2m(\u{1b}[22m\u{1b}[2m5 tests\u{1b}[22m\u{1b}[2m | \u{1b}[22m\u{1b}[31m3 failed\u{1b}[39m\u{1b}[2m | \u{1b}[22m\u{1b}[33m1 skipped\u{1b}[39m\u{1b}[2m)\u{1b}[22m\u{1b}[32m 8\u{1b}[2mms\u{1b}[22m\u{1b}[39m
     \u{1b}[32m✓\u{1b}[39m adds\u{1b}[32m 2\u{1b}[2mms\u{1b}[22m\u{1b}[39m
\u{1b}[31m     \u{1b}[31m×\u{1b}[31m adds wrong\u{1b}[39m\u{1b}[32m 4\u{1b}[2mms\u{1b}[22m\u{1b}[39m

\u{1b}[31m⎯⎯⎯⎯⎯⎯⎯\u{1b}[39m\u{1b}[1m\u{1b}[41m Failed Tests 3 \u{1b}[49m\u{1b}[22m\u{1b}[31m⎯⎯⎯⎯⎯⎯⎯\u{1b}[39m

\u{1b}[41m\u{1b}[1m FAIL \u{1b}[22m\u{1b}[49m src/sum.test.js\u{1b}[2m > \u{1b}[22msum\u{1b}[2m > \u{1b}[22madds wrong
\u{1b}[31m\u{1b}[1mAssertionError\u{1b}[22m: expected 3 to be 4 // Object.is equality\u{1b}[39m

\u{1b}[32m- Expected\u{1b}[39m
\u{1b}[31m+ Received\u{1b}[39m

\u{1b}[32m- 4\u{1b}[39m
\u{1b}[31m+ 3\u{1b}[39m

\u{1b}[36m \u{1b}[2m❯\u{1b}[22m src/sum.test.js:\u{1b}[2m8:23\u{1b}[22m\u{1b}[39m
    \u{1b}[90m  6|\u{1b}[39m   })

\u{1b}[31m\u{1b}[2m⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/3]⎯\u{1b}[22m\u{1b}[39m

\u{1b}[41m\u{1b}[1m FAIL \u{1b}[22m\u{1b}[49m src/sum.test.js\u{1b}[2m > \u{1b}[22mtop level throws
\u{1b}[31m\u{1b}[1mTypeError\u{1b}[22m: boom\u{1b}[39m
\u{1b}[36m \u{1b}[2m❯\u{1b}[22m src/sum.test.js:\u{1b}[2m16:9\u{1b}[22m\u{1b}[39m
    \u{1b}[90m 14|\u{1b}[39m })

\u{1b}[31m\u{1b}[2m⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[3/3]⎯\u{1b}[22m\u{1b}[39m


\u{1b}[2m Test Files \u{1b}[22m \u{1b}[1m\u{1b}[31m1 failed\u{1b}[39m\u{1b}[22m\u{1b}[2m | \u{1b}[22m\u{1b}[1m\u{1b}[32m1 passed\u{1b}[39m\u{1b}[22m\u{1b}[90m (2)\u{1b}[39m
\u{1b}[2m      Tests \u{1b}[22m \u{1b}[1m\u{1b}[31m3 failed\u{1b}[39m\u{1b}[22m\u{1b}[2m | \u{1b}[22m\u{1b}[1m\u{1b}[32m2 passed\u{1b}[39m\u{1b}[22m\u{1b}[2m | \u{1b}[22m\u{1b}[33m1 skipped\u{1b}[39m\u{1b}[90m (6)\u{1b}[39m
\u{1b}[2m   Start at \u{1b}[22m 16:28:42
";

    #[test]
    fn the_summary_read_in_the_middle_of_a_failure_ends_nothing() {
        // As the two pipes were read once under load: stdout's summary between the first
        // failure's error line and its place.
        let summary_at = VITEST.find("\u{1b}[2m Test Files").expect("summary");
        let summary = &VITEST[summary_at..];
        let head = &VITEST[..summary_at];
        let cut = head.find("\n\n\u{1b}[32m- Expected").expect("diff");
        let interleaved = format!("{}\n{summary}{}", &head[..cut], &head[cut..]);
        let out = run(parse, &interleaved);
        assert_eq!(counts(&out), (Some(2), 3, 1));
        assert_eq!(failures(&out), failures(&run(parse, VITEST)));
    }

    #[test]
    fn vitest_gives_each_failure_through_its_colours() {
        let out = run(parse, VITEST);
        assert_eq!(counts(&out), (Some(2), 3, 1));
        let f = failures(&out);
        assert_eq!(
            f,
            vec![
                (
                    "sum > adds wrong".into(),
                    Some("src/sum.test.js".into()),
                    Some(8),
                    "AssertionError: expected 3 to be 4 // Object.is equality".into()
                ),
                (
                    "top level throws".into(),
                    Some("src/sum.test.js".into()),
                    Some(16),
                    "TypeError: boom".into()
                ),
            ]
        );
    }
}
