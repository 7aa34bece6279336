//! Node.js's test runner (`node --test`), in both of its reporters. spec (the default at a
//! terminal): `ℹ tests 4`, `ℹ pass 1`, `ℹ fail 2`, `ℹ skipped 1`, `ℹ todo 0`, then
//! `✖ failing tests:` with `test at file:line:col`, `✖ name (1.05ms)` and the error. TAP
//! (the default elsewhere before Node.js 23): `not ok 2 - name` with a YAML block holding
//! `location:`, `error:` and, for a suite, `type: 'suite'`; `# tests 4`, `# pass 1`, ….

use super::text::{Printed, loc_prefix};
use super::{Out, Places, Tests};

#[derive(Default)]
struct Counts {
    tests: Option<u64>,
    pass: u64,
    fail: u64,
    skipped: u64,
    todo: u64,
    cancelled: u64,
}

struct Block {
    failure: Printed,
    /// TAP's `type: 'suite'`: a suite fails with its tests, and is not a failure of its own.
    suite: bool,
}

pub fn parse(lines: &[&str], places: &Places, out: &mut Out) {
    let mut reader = Reader::default();
    for &line in lines {
        reader.read(line);
    }
    reader.finish(places, out);
}

/// What the lines read so far say: the counts, the failures, and where in the output the
/// next line falls.
#[derive(Default)]
struct Reader {
    counts: Counts,
    blocks: Vec<Block>,
    current: Option<Block>,
    /// After spec's `✖ failing tests:`.
    failing_section: bool,
    /// The `test at FILE:LINE:COL` of the spec failure that comes next.
    place: Option<(String, Option<u32>)>,
    /// In a TAP YAML block: the indentation of its keys.
    yaml: Option<usize>,
    /// Whether a TAP `error: |-` goes on.
    error_text: bool,
}

impl Reader {
    fn read(&mut self, line: &str) {
        let t = line.trim_start();
        if self.count(line, t) {
            return;
        }
        if t == "✖ failing tests:" {
            self.blocks.extend(self.current.take());
            self.failing_section = true;
        } else if self.failing_section {
            self.spec_failure(line, t);
        } else {
            self.tap(line, t);
        }
    }

    /// A summary line of either reporter (`ℹ pass 1`, `# fail 2`); whether it was one.
    fn count(&mut self, line: &str, t: &str) -> bool {
        let Some((key, n)) = t
            .strip_prefix("ℹ ")
            .or_else(|| t.strip_prefix("# "))
            .filter(|_| line == t)
            .and_then(|r| r.split_once(' '))
            .and_then(|(k, v)| Some((k, super::text::count(v)?)))
        else {
            return false;
        };
        let c = &mut self.counts;
        match key {
            "tests" => c.tests = Some(n),
            "pass" => c.pass = n,
            "fail" => c.fail = n,
            "skipped" => c.skipped = n,
            "todo" => c.todo = n,
            "cancelled" => c.cancelled = n,
            _ => {}
        }
        true
    }

    /// A line of spec's failing-tests section: a failure's place, its title, or its error.
    fn spec_failure(&mut self, line: &str, t: &str) {
        if let Some(at) = t.strip_prefix("test at ") {
            self.blocks.extend(self.current.take());
            self.place = loc_prefix(at).map(|(l, _)| (l.path.to_owned(), l.line));
            return;
        }
        if let Some(title) = t.strip_prefix("✖ ").filter(|_| line == t) {
            self.blocks.extend(self.current.take());
            let (file, line_no) = self
                .place
                .take()
                .map_or((None, None), |(f, l)| (Some(f), l));
            self.current = Some(Block {
                failure: Printed {
                    file,
                    line: line_no,
                    ..Printed::named(strip_duration(title))
                },
                suite: false,
            });
            return;
        }
        if let Some(b) = self.current.as_mut() {
            if t.starts_with("at ") || t.ends_with('{') {
                b.failure.message.close();
            } else {
                b.failure.message.push(t);
            }
        }
    }

    /// A TAP line: `not ok` opens a failure, `ok` or a subtest closes it, and the failure's
    /// YAML block says where it is, what it said and whether it is a suite.
    fn tap(&mut self, line: &str, t: &str) {
        if let Some(rest) = t.strip_prefix("not ok ") {
            self.blocks.extend(self.current.take());
            let name = rest.split_once(" - ").map_or(rest, |(_, n)| n);
            let name = name.split(" # ").next().unwrap_or(name);
            self.current = Some(Block {
                failure: Printed::named(name),
                suite: false,
            });
            self.yaml = None;
            return;
        }
        if t.starts_with("ok ") || t.starts_with("# Subtest:") {
            self.blocks.extend(self.current.take());
            return;
        }
        let Some(b) = self.current.as_mut() else {
            return;
        };
        let indent = line.len() - t.len();
        if t == "---" {
            self.yaml = Some(indent);
            return;
        }
        if t == "..." {
            self.yaml = None;
            return;
        }
        let Some(key_indent) = self.yaml else { return };
        if self.error_text && indent > key_indent {
            b.failure.message.push(t);
            return;
        }
        self.error_text = false;
        if let Some(v) = t.strip_prefix("location: ") {
            if let Some((loc, _)) = loc_prefix(v.trim_matches('\'')) {
                b.failure.file = Some(loc.path.to_owned());
                b.failure.line = loc.line;
            }
        } else if let Some(v) = t.strip_prefix("error: ") {
            if v.starts_with('|') {
                self.error_text = true;
            } else {
                b.failure.message.push(v.trim_matches('\''));
            }
        } else if t == "type: 'suite'" {
            b.suite = true;
        }
    }

    /// The tests, when a summary was read: the counts and every failure that is not a
    /// suite.
    fn finish(mut self, places: &Places, out: &mut Out) {
        self.blocks.extend(self.current);
        let c = self.counts;
        let Some(_) = c.tests else { return };
        let tests = Tests {
            passed: Some(c.pass),
            failed: c.fail + c.cancelled,
            skipped: c.skipped + c.todo,
            ..Tests::default()
        };
        let failures = self.blocks.into_iter().filter(|b| !b.suite);
        out.tests_with(tests, places, failures.map(|b| b.failure));
    }
}

/// `adds wrong (1.057978ms)` as `adds wrong`.
fn strip_duration(title: &str) -> &str {
    match title.rsplit_once(" (") {
        Some((name, d)) if d.ends_with("ms)") => name,
        _ => title,
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{counts, failures, run};
    use super::parse;

    /// `node --test --test-reporter=spec` (Node.js 20).
    const SPEC: &str = include_str!("recorded/node-test-spec.txt");

    /// `node --test` through a pipe (TAP, Node.js 20).
    const TAP: &str = include_str!("recorded/node-test-tap.txt");

    #[test]
    fn both_reporters_give_the_same_failures() {
        for (reporter, output) in [("spec", SPEC), ("tap", TAP)] {
            let out = run(parse, output);
            assert_eq!(counts(&out), (Some(1), 2, 1), "{reporter}");
            let f = failures(&out);
            assert_eq!(f.len(), 2, "{reporter}: {f:?}");
            assert_eq!(
                (f[0].0.as_str(), f[0].1.as_deref(), f[0].2),
                ("adds wrong", Some("test/sum.test.js"), Some(6)),
                "{reporter}"
            );
            assert_eq!(
                (f[1].0.as_str(), f[1].2),
                ("top level throws", Some(9)),
                "{reporter}"
            );
            assert!(f[1].3.contains("boom"), "{reporter}: {f:?}");
        }
    }
}
