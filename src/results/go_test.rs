//! `go test`, in its three forms. Plain: `--- FAIL: TestX (0.00s)` per failed test (indented
//! for subtests) with its `file_test.go:13: message` lines under it, and `FAIL\tpkg` or
//! `ok  \tpkg` per package; passing tests are not named, so `passed` stays unknown. `-v`:
//! `=== RUN` before each test's own lines and `--- PASS`/`--- FAIL`/`--- SKIP` for every test.
//! `-json`: one event per line (`{"Action":"fail","Package":…,"Test":…}`), counted by action,
//! with the `output` events carrying the same lines. File names are the package's own, so
//! they are read against the package's directory (from the module's `go.mod`).

use serde::Deserialize;

use super::text::{Message, number};
use super::{Out, Places, Tests};
use crate::results::model::Failure;

struct Failed {
    name: String,
    package: Option<String>,
    file: Option<String>,
    line: Option<u32>,
    message: Message,
}

#[derive(Deserialize)]
#[serde(rename_all = "PascalCase")]
struct Event {
    action: String,
    #[serde(default)]
    package: Option<String>,
    #[serde(default)]
    test: Option<String>,
    #[serde(default)]
    output: Option<String>,
}

#[derive(Default)]
struct State {
    failed: Vec<Failed>,
    /// Messages seen for a test before its verdict (`-v`, `-json`), by test name.
    pending: Vec<(String, Option<String>, Option<u32>, Message)>,
    current: Option<String>,
    /// Failures not yet given their package (plain and `-v` name it after them).
    unassigned: usize,
    passed: u64,
    failed_n: u64,
    skipped: u64,
    verbose: bool,
    seen: bool,
}

pub fn parse(lines: &[&str], places: &Places, out: &mut Out) {
    let mut s = State::default();
    for &line in lines {
        if line.starts_with("{\"Time\"") || line.starts_with("{\"Action\"") {
            if let Ok(ev) = serde_json::from_str::<Event>(line) {
                s.seen = true;
                s.verbose = true;
                json_event(&mut s, ev);
            }
            continue;
        }
        human_line(&mut s, line, None);
    }
    if !s.seen {
        return;
    }
    let mut tests = Tests {
        passed: s.verbose.then_some(s.passed),
        failed: s.failed_n,
        skipped: s.skipped,
        ..Tests::default()
    };
    for f in s.failed {
        let base = f.package.as_deref().and_then(|p| places.go_package_dir(p));
        let base = base
            .as_deref()
            .and_then(|b| b.strip_prefix(places.cwd()).ok());
        Out::failure(
            &mut tests,
            Failure {
                name: f.name,
                file: f.file.map(|p| places.file_in(&p, base)),
                line: f.line,
                message: f.message.text(),
            },
        );
    }
    out.tests = Some(tests);
}

fn json_event(s: &mut State, ev: Event) {
    match (ev.action.as_str(), ev.test) {
        ("run", Some(t)) => s.current = Some(t),
        ("output", Some(t)) => {
            if let Some(text) = ev.output {
                let text = text.trim_end_matches('\n');
                // The verdict lines are counted from their own events.
                if !text.trim_start().starts_with("--- ") && !text.starts_with("=== ") {
                    s.current = Some(t);
                    message_line(s, text);
                }
            }
        }
        ("pass", Some(_)) => s.passed += 1,
        ("skip", Some(_)) => s.skipped += 1,
        ("fail", Some(t)) => {
            s.failed_n += 1;
            record(s, &t, ev.package);
        }
        _ => {}
    }
}

fn human_line(s: &mut State, line: &str, _package: Option<&str>) {
    let t = line.trim_start();
    if let Some(rest) = t
        .strip_prefix("=== RUN   ")
        .or_else(|| t.strip_prefix("=== CONT  "))
    {
        s.verbose = true;
        s.current = Some(rest.trim().to_owned());
        return;
    }
    if let Some(rest) = t.strip_prefix("--- ") {
        let Some((verdict, rest)) = rest.split_once(": ") else {
            return;
        };
        let name = rest.split(" (").next().unwrap_or(rest).trim().to_owned();
        s.seen = true;
        match verdict {
            "PASS" => s.passed += 1,
            "SKIP" => s.skipped += 1,
            "FAIL" => {
                s.failed_n += 1;
                record(s, &name, None);
                s.current = Some(name);
            }
            _ => {}
        }
        return;
    }
    if let Some(pkg) = t
        .strip_prefix("FAIL\t")
        .or_else(|| t.strip_prefix("ok  \t"))
    {
        s.seen = true;
        let pkg = pkg.split(['\t', ' ']).next().unwrap_or(pkg);
        let n = s.failed.len();
        for f in &mut s.failed[n - s.unassigned..] {
            f.package = Some(pkg.to_owned());
        }
        s.unassigned = 0;
        s.current = None;
        return;
    }
    if line.starts_with(' ') || line.starts_with('\t') {
        message_line(s, line);
    }
}

/// A line of a test's own output: `    file_test.go:13: message`, or its continuation.
fn message_line(s: &mut State, line: &str) {
    let Some(test) = s.current.clone() else {
        return;
    };
    let t = line.trim_start();
    let (file, line_no, text) = match go_place(t) {
        Some((f, l, rest)) => (Some(f), Some(l), rest),
        None => (None, None, t),
    };
    // The failure already recorded (plain: lines follow the verdict), else a pending one.
    if let Some(f) = s.failed.iter_mut().rev().find(|f| f.name == test) {
        if f.file.is_none() {
            f.file = file.map(str::to_owned);
            f.line = line_no;
        }
        f.message.push(text);
        return;
    }
    if let Some(p) = s.pending.iter_mut().find(|p| p.0 == test) {
        if p.1.is_none() {
            p.1 = file.map(str::to_owned);
            p.2 = line_no;
        }
        p.3.push(text);
    } else if s.pending.len() < super::KEEP_FAILURES {
        s.pending
            .push((test, file.map(str::to_owned), line_no, Message::of(text)));
    }
}

fn record(s: &mut State, name: &str, package: Option<String>) {
    if s.failed
        .iter()
        .any(|f| f.name == name && (package.is_none() || f.package == package))
    {
        return;
    }
    if s.failed.len() >= super::KEEP_FAILURES {
        return;
    }
    let (file, line, message) = match s.pending.iter().position(|p| p.0 == name) {
        Some(i) => {
            let p = s.pending.swap_remove(i);
            (p.1, p.2, p.3)
        }
        None => (None, None, Message::default()),
    };
    if package.is_none() {
        s.unassigned += 1;
    }
    s.failed.push(Failed {
        name: name.to_owned(),
        package,
        file,
        line,
        message,
    });
}

/// `sum_test.go:13: rest`.
fn go_place(t: &str) -> Option<(&str, u32, &str)> {
    let (file, rest) = t.split_once(".go:")?;
    if file.contains(' ') {
        return None;
    }
    let (n, rest) = number(rest)?;
    let rest = rest.strip_prefix(": ").or_else(|| rest.strip_prefix(':'))?;
    Some((&t[..file.len() + 3], n, rest))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{counts, failures, run_in};
    use super::parse;

    fn run(output: &str) -> super::Out {
        let dir = tempfile::tempdir().expect("tmp");
        std::fs::write(
            dir.path().join("go.mod"),
            "module example.com/shop\n\ngo 1.19\n",
        )
        .expect("go.mod");
        run_in(parse, output, dir.path())
    }

    /// `go test ./...` (Go 1.19).
    const PLAIN: &str = "ok  \texample.com/shop/other\t0.005s
--- FAIL: TestWrong (0.00s)
    sum_test.go:13: Sum(1, 2) = 3, want 4
--- FAIL: TestTable (0.00s)
    --- FAIL: TestTable/two (0.00s)
        sum_test.go:21: got 4
            want 5
FAIL
FAIL\texample.com/shop/sum\t0.003s
FAIL
";

    /// `go test -v ./...`.
    const VERBOSE: &str = "=== RUN   TestOK
--- PASS: TestOK (0.00s)
PASS
ok  \texample.com/shop/other\t0.002s
=== RUN   TestSum
--- PASS: TestSum (0.00s)
=== RUN   TestWrong
    sum_test.go:13: Sum(1, 2) = 3, want 4
--- FAIL: TestWrong (0.00s)
=== RUN   TestTable
=== RUN   TestTable/one
=== RUN   TestTable/two
    sum_test.go:21: got 4
        want 5
--- FAIL: TestTable (0.00s)
    --- PASS: TestTable/one (0.00s)
    --- FAIL: TestTable/two (0.00s)
=== RUN   TestSkip
    sum_test.go:27: later
--- SKIP: TestSkip (0.00s)
FAIL
FAIL\texample.com/shop/sum\t0.002s
FAIL
";

    /// `go test -json ./...`, the events of the failing package.
    const JSON: &str = include_str!("recorded/go-test.json");

    #[test]
    fn every_form_of_go_test_names_the_same_failures() {
        let wrong = (
            "TestWrong".to_owned(),
            Some("sum/sum_test.go".to_owned()),
            Some(13),
            "Sum(1, 2) = 3, want 4".to_owned(),
        );
        let out = run(PLAIN);
        assert_eq!(counts(&out), (None, 3, 0));
        let f = failures(&out);
        assert_eq!(f[0], wrong);
        assert_eq!(f[2].0, "TestTable/two");
        assert_eq!(f[2].2, Some(21));
        let msg = out.tests.as_ref().expect("tests").failures[2]
            .message
            .clone();
        assert_eq!(msg.as_deref(), Some("got 4\nwant 5"));
        let out = run(VERBOSE);
        assert_eq!(counts(&out), (Some(3), 3, 1));
        let f = failures(&out);
        assert_eq!(f[0], wrong);
        assert_eq!((f[2].0.as_str(), f[2].2), ("TestTable/two", Some(21)));
        let out = run(JSON);
        assert_eq!(counts(&out), (Some(1), 1, 1));
        assert_eq!(failures(&out)[0].1.as_deref(), Some("sum/sum_test.go"));
    }
}
