//! mypy: `pkg/a.py:2: error: message  [code]` (`:2:12:` with `--show-column-numbers`);
//! `note:` lines explain the error before them and are not problems of their own.

use super::text::{loc_prefix, severity_prefix};
use super::{Out, Places};

pub fn parse(lines: &[&str], places: &Places, out: &mut Out) {
    for &line in lines {
        let Some((loc, rest)) = loc_prefix(line) else {
            continue;
        };
        if !super::text::has_ext(loc.path, &["py", "pyi"]) {
            continue;
        }
        let Some(rest) = rest.strip_prefix(": ") else {
            continue;
        };
        let Some((severity, msg)) = severity_prefix(rest, &["error: "]) else {
            continue;
        };
        let (message, code) = match msg.rsplit_once("  [") {
            Some((m, c)) if c.ends_with(']') => (m, Some(c.trim_end_matches(']').to_owned())),
            _ => (msg, None),
        };
        out.problem_at(places, &loc, severity, message, code);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::{problems, run};
    use super::parse;

    #[test]
    fn mypy_errors_with_and_without_columns() {
        // mypy 2.4: `mypy pkg` and `mypy --show-column-numbers pkg`.
        let plain = "pkg/a.py:2: error: Incompatible return value type (got \"int\", expected \"str\")  [return-value]
pkg/a.py:5: note: Revealed type is \"int\"
pkg/a.py:6: error: Argument 1 to \"f\" has incompatible type \"str\"; expected \"int\"  [arg-type]
Found 2 errors in 1 file (checked 1 source file)
";
        assert_eq!(
            problems(&run(parse, plain)),
            [
                "pkg/a.py:2:0 Error return-value Incompatible return value type (got \"int\", expected \"str\")",
                "pkg/a.py:6:0 Error arg-type Argument 1 to \"f\" has incompatible type \"str\"; expected \"int\"",
            ]
        );
        let columns = "pkg/a.py:2:12: error: Incompatible return value type (got \"int\", expected \"str\")  [return-value]\n";
        assert_eq!(
            problems(&run(parse, columns)),
            [
                "pkg/a.py:2:12 Error return-value Incompatible return value type (got \"int\", expected \"str\")"
            ]
        );
    }
}
