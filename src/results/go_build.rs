//! The Go toolchain's compile and vet diagnostics: after a `# package` line,
//! `bad/bad.go:5:9: undefined: y` (`vet: ` in front for vet's own type errors). They have
//! no severity word: every one fails the build (or `go vet`), so each is an error. Lines of
//! a test's own output (`    sum_test.go:13: …`) are indented and have no column.

use super::text::loc_prefix;
use super::{Out, Places};
use crate::results::model::Severity;

pub fn parse(lines: &[&str], places: &Places, out: &mut Out) {
    let mut in_package = false;
    for &line in lines {
        if line.starts_with("# ") {
            in_package = true;
            continue;
        }
        let t = line.strip_prefix("vet: ").unwrap_or(line);
        let Some((loc, rest)) = loc_prefix(t) else {
            in_package = in_package && !line.is_empty();
            continue;
        };
        let Some(message) = rest.strip_prefix(": ") else {
            continue;
        };
        if !super::text::has_ext(loc.path, &["go"]) || loc.column.is_none() || !in_package {
            continue;
        }
        out.problem_at(places, &loc, Severity::Error, message, None);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{problems, run};
    use super::parse;

    #[test]
    fn go_build_and_vet_lines_are_errors() {
        // Go 1.19: `go build ./bad` and `go vet ./vetme`.
        let out = run(
            parse,
            "# example.com/shop/bad
bad/bad.go:4:2: x declared but not used
bad/bad.go:5:9: undefined: y
# example.com/shop/vetme
vetme/v.go:6:2: fmt.Printf format %d has arg s of wrong type string
",
        );
        assert_eq!(
            problems(&out),
            [
                "bad/bad.go:4:2 Error - x declared but not used",
                "bad/bad.go:5:9 Error - undefined: y",
                "vetme/v.go:6:2 Error - fmt.Printf format %d has arg s of wrong type string",
            ]
        );
        assert!(
            run(parse, "    sum_test.go:13: Sum(1, 2) = 3, want 4\n")
                .problems
                .is_empty()
        );
    }
}
