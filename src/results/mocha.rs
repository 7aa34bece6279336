//! Mocha's default (spec) reporter: `N passing (19ms)`, `N pending`, `N failing`, then
//! each failure numbered (`  2) sum` with its title going on over indented lines up to the
//! one ending in `:`), its error and diff, and `at … (path:line:col)` frames.

use super::text::{Message, loc_in_parens, number};
use super::{Out, Places, Tests};

struct Block {
    title: Vec<String>,
    titled: bool,
    file: Option<String>,
    line: Option<u32>,
    message: Message,
}

pub fn parse(lines: &[&str], places: &Places, out: &mut Out) {
    let mut passing: Option<u64> = None;
    let (mut pending, mut failing) = (0, 0);
    let mut blocks: Vec<Block> = Vec::new();
    let mut current: Option<Block> = None;
    let mut after_summary = false;
    for &line in lines {
        let t = line.trim();
        if t.starts_with(|c: char| c.is_ascii_digit())
            && let Some((n, rest)) = t.split_once(' ')
            && let Some(n) = super::text::count(n)
        {
            if rest.starts_with("passing (") {
                blocks.extend(current.take());
                passing = Some(n);
                after_summary = false;
                continue;
            }
            if passing.is_some() && rest == "pending" {
                pending = n;
                continue;
            }
            if passing.is_some() && rest == "failing" {
                failing = n;
                after_summary = true;
                continue;
            }
        }
        if !after_summary {
            continue;
        }
        if let Some((_, rest)) = number(t).filter(|(_, r)| r.starts_with(") ")) {
            blocks.extend(current.take());
            if blocks.len() < super::KEEP_FAILURES {
                let head = &rest[2..];
                current = Some(Block {
                    title: vec![head.trim_end_matches(':').to_owned()],
                    titled: head.ends_with(':'),
                    file: None,
                    line: None,
                    message: Message::default(),
                });
            }
            continue;
        }
        let Some(b) = current.as_mut() else { continue };
        if !b.titled {
            if !t.is_empty() {
                b.title.push(t.trim_end_matches(':').to_owned());
                b.titled = t.ends_with(':');
            }
            continue;
        }
        if let Some(frame) = t.strip_prefix("at ") {
            b.message.close();
            if b.file.is_none()
                && let Some(loc) = loc_in_parens(frame)
                && !loc.path.starts_with("node:")
                && !loc.path.contains("node_modules")
            {
                b.file = Some(loc.path.to_owned());
                b.line = loc.line;
            }
            continue;
        }
        if t == "+ expected - actual" {
            b.message.close();
        }
        b.message.push(t);
    }
    blocks.extend(current);
    let Some(passing) = passing else { return };
    let mut tests = Tests {
        passed: Some(passing),
        failed: failing,
        skipped: pending,
        ..Tests::default()
    };
    for b in blocks {
        Out::printed_failure(
            &mut tests,
            places,
            b.title.join(" "),
            (b.file.as_deref(), b.line),
            &b.message,
        );
    }
    out.tests = Some(tests);
}

#[cfg(test)]
mod tests {
    use super::super::testing::{counts, failures, run};
    use super::parse;

    /// Mocha 12, spec reporter.
    const MOCHA: &str = include_str!("recorded/mocha.txt");

    #[test]
    fn mocha_gives_each_failure_s_full_title_and_frame() {
        let out = run(parse, MOCHA);
        assert_eq!(counts(&out), (Some(1), 3, 1));
        let f = failures(&out);
        assert_eq!(
            f,
            vec![
                (
                    "top level throws".into(),
                    Some("test/sum.test.js".into()),
                    Some(11),
                    "TypeError: boom".into()
                ),
                (
                    "sum adds wrong".into(),
                    Some("test/sum.test.js".into()),
                    Some(5),
                    "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:".into()
                ),
                (
                    "sum nested deep equal".into(),
                    Some("test/sum.test.js".into()),
                    Some(8),
                    "AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:"
                        .into()
                ),
            ]
        );
        let second = &out.tests.as_ref().expect("tests").failures[1];
        assert_eq!(
            second.message.as_deref(),
            Some("AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n3 !== 4")
        );
    }
}
