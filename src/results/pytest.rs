//! pytest: the final `==== 5 failed, 3 passed, 2 skipped in 0.13s ====` line (or `-q`'s
//! bare `5 failed, 3 passed in 0.13s`), the `short test summary info` lines
//! (`FAILED tests/test_a.py::test_b - …`, `ERROR …`) naming each failed test by node id, and
//! the `FAILURES`/`ERRORS` sections whose `____ title ____` blocks hold the `E   ` lines (the
//! assertion and its values) and the `file.py:7: AssertionError` place. Errors count as
//! failures, expected failures as skipped and unexpected passes as passed, as pytest's own
//! JUnit report counts them.

use super::text::{Message, counts, get, loc_prefix};
use super::{Out, Places, Tests};
use crate::results::model::Failure;

#[derive(Default)]
struct Block {
    title: String,
    message: Message,
    /// Places of the block's traceback, in order (the first few and the last).
    places: Vec<(String, u32)>,
}

pub fn parse(lines: &[&str], places: &Places, out: &mut Out) {
    let mut reader = Reader::default();
    for &line in lines {
        reader.read(line);
    }
    reader.blocks.extend(reader.current.take());
    let Some(mut tests) = reader.tests else {
        return;
    };
    name_failures(&mut tests, &reader.summary, &reader.blocks, places);
    out.tests = Some(tests);
}

/// What the lines read so far say.
#[derive(Default)]
struct Reader {
    /// The final counts.
    tests: Option<Tests>,
    /// The short summary's node ids, with the reason it gives.
    summary: Vec<(String, Option<String>)>,
    /// The `FAILURES`/`ERRORS` sections' blocks.
    blocks: Vec<Block>,
    /// Whether the lines are in one of those sections.
    in_sections: bool,
    /// The block being read.
    current: Option<Block>,
}

impl Reader {
    fn read(&mut self, line: &str) {
        if let Some(inner) = banner(line) {
            self.blocks.extend(self.current.take());
            self.in_sections = matches!(inner, "FAILURES" | "ERRORS");
            if let Some(t) = final_counts(inner) {
                self.tests = Some(t);
            }
            return;
        }
        if !line.starts_with(' ')
            && let Some(t) = final_counts(line)
            && line.contains(" in ")
        {
            self.tests = Some(t);
            return;
        }
        if let Some(rest) = line
            .strip_prefix("FAILED ")
            .or_else(|| line.strip_prefix("ERROR "))
        {
            let (id, why) = match rest.split_once(" - ") {
                Some((id, why)) => (id, Some(why.to_owned())),
                None => (rest, None),
            };
            if (id.contains("::") || super::text::has_ext(id, &["py"]))
                && self.summary.len() < super::KEEP_FAILURES
            {
                self.summary.push((id.trim().to_owned(), why));
            }
            return;
        }
        if self.in_sections {
            self.section(line);
        }
    }

    /// A line of a `FAILURES`/`ERRORS` section: a block's title, an `E   ` line of its
    /// message, or a place in its traceback.
    fn section(&mut self, line: &str) {
        if let Some(title) = block_title(line) {
            self.blocks.extend(self.current.take());
            if self.blocks.len() < super::KEEP_FAILURES {
                self.current = Some(Block {
                    title: title.to_owned(),
                    ..Block::default()
                });
            }
            return;
        }
        let Some(block) = self.current.as_mut() else {
            return;
        };
        if let Some(e) = line
            .strip_prefix('E')
            .filter(|r| r.is_empty() || r.starts_with(' '))
        {
            block.message.push(e);
        } else if let Some((loc, rest)) = loc_prefix(line)
            && rest.starts_with(": ")
            && super::text::has_ext(loc.path, &["py"])
            && block.places.len() < 16
        {
            block
                .places
                .push((loc.path.to_owned(), loc.line.unwrap_or(0)));
        }
    }
}

/// Adds each failure to `tests`: the short summary's node ids, each with the place and
/// message of its block; without a summary (`-rN`), the blocks alone.
fn name_failures(
    tests: &mut Tests,
    summary: &[(String, Option<String>)],
    blocks: &[Block],
    places: &Places,
) {
    let mut used = vec![false; blocks.len()];
    for (id, why) in summary {
        let found = blocks
            .iter()
            .enumerate()
            .find(|(i, b)| !used[*i] && title_matches(&b.title, id));
        let (file, line, message) = match found {
            Some((i, b)) => {
                used[i] = true;
                let test_file = id.split("::").next().unwrap_or(id);
                let place = b
                    .places
                    .iter()
                    .find(|(f, _)| f == test_file)
                    .or_else(|| b.places.last());
                (
                    Some(place.map_or(test_file, |(f, _)| f.as_str())),
                    place.map(|(_, l)| *l),
                    b.message.text().or_else(|| why.clone()),
                )
            }
            None => (id.split("::").next(), None, why.clone()),
        };
        Out::failure(
            tests,
            Failure {
                name: id.clone(),
                file: file.map(|f| places.file(f)),
                line,
                message,
            },
        );
    }
    if !summary.is_empty() {
        return;
    }
    for b in blocks {
        let place = b.places.last();
        Out::failure(
            tests,
            Failure {
                name: b.title.clone(),
                file: place.map(|(f, _)| places.file(f)),
                line: place.map(|(_, l)| *l),
                message: b.message.text(),
            },
        );
    }
}

/// The text inside a `==== text ====` banner.
fn banner(line: &str) -> Option<&str> {
    let inner = line
        .strip_prefix("==")?
        .trim_start_matches('=')
        .trim_end_matches('=');
    (line.ends_with("==") && !inner.trim().is_empty()).then(|| inner.trim())
}

/// pytest's final counts line, inside or outside its banner.
fn final_counts(text: &str) -> Option<Tests> {
    let (head, tail) = text.rsplit_once(" in ")?;
    if !tail.trim_start().starts_with(|c: char| c.is_ascii_digit()) || !tail.contains('s') {
        return None;
    }
    let c = counts(head);
    let known = [
        "passed",
        "failed",
        "skipped",
        "xfailed",
        "xpassed",
        "error",
        "errors",
        "deselected",
        "warning",
        "warnings",
        "rerun",
    ];
    if c.is_empty() && !head.starts_with("no tests ran") {
        return None;
    }
    if !c.iter().all(|(_, w)| known.contains(&w.as_str())) {
        return None;
    }
    Some(Tests {
        passed: Some(get(&c, &["passed", "xpassed"])),
        failed: get(&c, &["failed", "error", "errors"]),
        skipped: get(&c, &["skipped", "xfailed"]),
        ..Tests::default()
    })
}

/// The title of a `____ title ____` block.
fn block_title(line: &str) -> Option<&str> {
    let inner = line.strip_prefix("___")?.trim_start_matches('_');
    let inner = inner.strip_suffix("___")?.trim_end_matches('_').trim();
    (!inner.is_empty()).then_some(inner)
}

/// Whether a block titled `TestCart.test_total` (or `ERROR at setup of test_err`) is the
/// test with node id `tests/test_a.py::TestCart::test_total`.
fn title_matches(title: &str, id: &str) -> bool {
    let title = [
        "ERROR at setup of ",
        "ERROR at teardown of ",
        "ERROR collecting ",
    ]
    .iter()
    .find_map(|p| title.strip_prefix(p))
    .unwrap_or(title);
    if title == id {
        return true;
    }
    let parts: Vec<&str> = id.split("::").skip(1).collect();
    !parts.is_empty() && parts.join(".") == title
}

#[cfg(test)]
mod tests {
    use super::super::testing::{counts, failures, run};
    use super::parse;

    /// pytest 9.2 on a project with failures, an error in a fixture, a skip, an expected
    /// failure and unittest cases.
    const PYTEST: &str = include_str!("recorded/pytest.txt");

    #[test]
    fn pytest_names_each_failure_by_node_id_with_its_place_and_assertion() {
        let out = run(parse, PYTEST);
        assert_eq!(counts(&out), (Some(3), 6, 3));
        let f = failures(&out);
        let want = [
            (
                "tests/test_orders.py::test_refund",
                "tests/test_orders.py",
                7,
                "assert 10.1 == 10.01",
            ),
            (
                "tests/test_orders.py::TestCart::test_total",
                "tests/test_orders.py",
                19,
                "AssertionError: total is wrong",
            ),
            (
                "tests/test_orders.py::TestCart::test_param[2]",
                "tests/test_orders.py",
                23,
                "assert 2 == 1",
            ),
            (
                "tests/test_unit.py::T::test_eq",
                "tests/test_unit.py",
                5,
                "AssertionError: Lists differ: [1, 2] != [1, 3]",
            ),
            (
                "tests/test_unit.py::T::test_raise",
                "tests/test_unit.py",
                9,
                "KeyError: 'k'",
            ),
            (
                "tests/test_orders.py::test_err",
                "tests/test_orders.py",
                27,
                "RuntimeError: db down",
            ),
        ];
        assert_eq!(f.len(), want.len(), "{f:?}");
        for (got, (name, file, line, msg)) in f.iter().zip(want) {
            assert_eq!(
                (got.0.as_str(), got.1.as_deref(), got.2, got.3.as_str()),
                (name, Some(file), Some(line), msg)
            );
        }
    }

    #[test]
    fn quiet_and_passing_runs_give_counts() {
        let out = run(
            parse,
            "....                                     [100%]\n4 passed in 0.01s\n",
        );
        assert_eq!(counts(&out), (Some(4), 0, 0));
        let out = run(
            parse,
            "============================ 12 passed, 1 warning in 1.20s ============================\n",
        );
        assert_eq!(counts(&out), (Some(12), 0, 0));
        assert!(run(parse, "Done in 0.5s\n").tests.is_none());
        assert!(run(parse, "built 3 targets in 2s\n").tests.is_none());
    }
}
