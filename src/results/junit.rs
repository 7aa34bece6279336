//! JUnit XML, as Maven Surefire, Gradle, pytest (`--junitxml`), jest-junit, Vitest's and
//! Node.js's `junit` reporters write it: `<testcase>` elements (in `<testsuite>`s, in an
//! optional `<testsuites>`), failed when they hold `<failure>` or `<error>`, skipped with
//! `<skipped>`. Read with roxmltree, which refuses a DTD (no entity can expand) and here a
//! tree past [`MAX_NODES`] nodes.

use std::path::Path;

use super::text::{Message, loc_in_parens, loc_prefix};
use super::{Out, Places, Tests};
use crate::results::model::Failure;

/// Nodes a report may have (a Surefire report of 2,000 tests has about 20,000).
pub const MAX_NODES: u32 = 1_000_000;

/// How a report's test names are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Naming {
    /// pytest: `classname` is the dotted module and class: names become node ids.
    Pytest,
    /// Surefire, Gradle: `classname` is a Java class under `src/test/java` (or `kotlin`).
    Java,
    /// Anything else: the `name`, with a path-like `classname` as the file.
    Plain,
}

/// The tests of one report, or why it could not be read.
pub fn parse(
    text: &str,
    naming: Naming,
    module: &Path,
    places: &Places,
) -> Result<Tests, roxmltree::Error> {
    let options = roxmltree::ParsingOptions {
        allow_dtd: false,
        nodes_limit: MAX_NODES,
        ..roxmltree::ParsingOptions::default()
    };
    let doc = roxmltree::Document::parse_with_options(text, options)?;
    let mut tests = Tests {
        passed: Some(0),
        ..Tests::default()
    };
    for case in doc.descendants().filter(|n| n.has_tag_name("testcase")) {
        let failure = case
            .children()
            .find(|c| c.has_tag_name("failure") || c.has_tag_name("error"));
        let skipped = case.children().any(|c| c.has_tag_name("skipped"));
        match (failure, skipped) {
            (Some(f), _) => {
                tests.failed += 1;
                Out::failure(&mut tests, failure_of(case, f, naming, module, places));
            }
            (None, true) => tests.skipped += 1,
            (None, false) => tests.passed = tests.passed.map(|p| p + 1),
        }
    }
    Ok(tests)
}

fn failure_of(
    case: roxmltree::Node<'_, '_>,
    f: roxmltree::Node<'_, '_>,
    naming: Naming,
    module: &Path,
    places: &Places,
) -> Failure {
    let name = case.attribute("name").unwrap_or("").to_owned();
    let class = case.attribute("classname").unwrap_or("");
    let body = f.text().unwrap_or("");
    let mut file = case.attribute("file").map(str::to_owned);
    let mut line = case.attribute("line").and_then(|l| l.parse::<u32>().ok());
    let full = match naming {
        Naming::Pytest => match pytest_file(class, places) {
            Some((path, classes)) => {
                file.get_or_insert(path.clone());
                let mut id = vec![path];
                id.extend(classes);
                id.push(name.clone());
                id.join("::")
            }
            None => format!("{class}::{name}"),
        },
        Naming::Java => {
            let simple = class.rsplit('.').next().unwrap_or(class);
            if file.is_none() {
                file = java_file(class, module);
            }
            // The frame of the test method: `at shop.MainTest.testB(MainTest.java:12)`.
            line = line.or_else(|| {
                body.lines()
                    .map(str::trim)
                    .filter(|l| l.starts_with(&format!("at {class}.")))
                    .find_map(|l| {
                        loc_in_parens(l)
                            .filter(|loc| loc.path.starts_with(simple))
                            .and_then(|loc| loc.line)
                    })
            });
            if class.is_empty() {
                name.clone()
            } else {
                format!("{class}.{name}")
            }
        }
        Naming::Plain => {
            if file.is_none()
                && (class.contains('/')
                    || super::text::has_ext(class, &["js", "ts", "mjs", "cjs", "jsx", "tsx"]))
            {
                file = Some(class.to_owned());
            }
            name.clone()
        }
    };
    // Where the report names no line, the first line of the failure text at the file.
    if line.is_none()
        && let Some(f) = &file
    {
        let base = Path::new(f)
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(f);
        line = body.lines().find_map(|l| {
            let l = l.trim().trim_start_matches("at ");
            let loc = loc_prefix(l)
                .map(|(loc, _)| loc)
                .or_else(|| loc_in_parens(l))?;
            (loc.path.ends_with(base)).then_some(loc.line).flatten()
        });
    }
    let mut message = Message::default();
    match f.attribute("message").filter(|m| !m.trim().is_empty()) {
        Some(m) => m.lines().for_each(|l| message.push(l)),
        None => body
            .lines()
            .take_while(|l| !l.trim_start().starts_with("at "))
            .for_each(|l| message.push(l)),
    }
    Failure {
        name: full,
        file: file.map(|f| places.file(&f)),
        line,
        message: message.text(),
    }
}

/// pytest's `tests.test_orders.TestCart` as `tests/test_orders.py` and `["TestCart"]`: the
/// longest prefix that names a module file.
fn pytest_file(class: &str, places: &Places) -> Option<(String, Vec<String>)> {
    let parts: Vec<&str> = class.split('.').collect();
    (1..=parts.len()).rev().find_map(|i| {
        let path = format!("{}.py", parts[..i].join("/"));
        places
            .cwd()
            .join(&path)
            .is_file()
            .then(|| (path, parts[i..].iter().map(|s| (*s).to_owned()).collect()))
    })
}

/// The source of a Java or Kotlin test class in a Maven or Gradle module.
fn java_file(class: &str, module: &Path) -> Option<String> {
    let rel = class.split('$').next().unwrap_or(class).replace('.', "/");
    [
        "src/test/java",
        "src/test/kotlin",
        "src/integrationTest/java",
    ]
    .iter()
    .flat_map(|dir| [format!("{dir}/{rel}.java"), format!("{dir}/{rel}.kt")])
    .map(|p| module.join(p))
    .find(|p| p.is_file())
    .map(|p| p.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places(root: &Path) -> Places {
        Places::new(root, root)
    }

    /// Surefire 3 (`TEST-shop.MainTest.xml`), trimmed of its properties.
    const SUREFIRE: &str = include_str!("recorded/surefire.xml");

    #[test]
    fn surefire_reports_name_the_class_its_source_and_the_failing_line() {
        let dir = tempfile::tempdir().expect("tmp");
        let root = dir.path();
        std::fs::create_dir_all(root.join("src/test/java/shop")).expect("mkdir");
        std::fs::write(root.join("src/test/java/shop/MainTest.java"), "").expect("write");
        let t = parse(SUREFIRE, Naming::Java, root, &places(root)).expect("parsed");
        assert_eq!((t.passed, t.failed, t.skipped), (Some(1), 1, 1));
        let f = &t.failures[0];
        assert_eq!(f.name, "shop.MainTest.refunds");
        assert_eq!(f.file.as_deref(), Some("src/test/java/shop/MainTest.java"));
        assert_eq!(f.line, Some(12));
        assert_eq!(f.message.as_deref(), Some("expected: <4> but was: <3>"));
    }

    #[test]
    fn pytest_reports_give_node_ids() {
        let dir = tempfile::tempdir().expect("tmp");
        let root = dir.path();
        std::fs::create_dir_all(root.join("tests")).expect("mkdir");
        std::fs::write(root.join("tests/test_orders.py"), "").expect("write");
        // pytest 9.2 `--junitxml` (xunit2).
        let xml = r#"<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest" errors="1" failures="1" skipped="1" tests="4"><testcase classname="tests.test_orders.TestCart" name="test_total" time="0.001"><failure message="AssertionError: total is wrong&#10;assert 3 == 4&#10; +  where 3 = sum([1, 2])">self = &lt;test_orders.TestCart object at 0x7f&gt;

&gt;       assert sum(items) == 4, "total is wrong"
E       AssertionError: total is wrong

tests/test_orders.py:19: AssertionError</failure></testcase><testcase classname="tests.test_orders" name="test_err" time="0.001"><error message="failed on setup with &quot;RuntimeError: db down&quot;">tests/test_orders.py:27: RuntimeError</error></testcase><testcase classname="tests.test_orders" name="test_ok" time="0.001" /><testcase classname="tests.test_orders" name="test_skip" time="0.000"><skipped type="pytest.skip" message="later">tests/test_orders.py:12: later</skipped></testcase></testsuite></testsuites>"#;
        let t = parse(xml, Naming::Pytest, root, &places(root)).expect("parsed");
        assert_eq!((t.passed, t.failed, t.skipped), (Some(1), 2, 1));
        assert_eq!(
            t.failures[0].name,
            "tests/test_orders.py::TestCart::test_total"
        );
        assert_eq!(t.failures[0].line, Some(19));
        assert_eq!(t.failures[1].name, "tests/test_orders.py::test_err");
        assert_eq!(t.failures[1].line, Some(27));
    }

    #[test]
    fn a_dtd_is_refused_before_any_entity_grows() {
        let bomb = r#"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><testsuite><testcase name="&lol2;"/></testsuite>"#;
        let dir = tempfile::tempdir().expect("tmp");
        assert!(parse(bomb, Naming::Plain, dir.path(), &places(dir.path())).is_err());
    }
}
