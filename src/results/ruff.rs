//! Ruff. full (its default): a `F401 [*] message` line, then ` --> a.py:1:8`; concise
//! (and releases before 0.12): `a.py:1:8: F401 [*] message`.
//! Ruff has no warnings: every violation fails the check.

use super::text::loc_prefix;
use super::{Out, Places};
use crate::results::model::Severity;

pub fn parse(lines: &[&str], places: &Places, out: &mut Out) {
    let mut header: Option<(&str, &str)> = None;
    for &line in lines {
        if let Some((code, msg)) = coded(line) {
            header = Some((code, msg));
            continue;
        }
        if let Some(place) = line.trim_start().strip_prefix("--> ") {
            if let Some((code, message)) = header.take()
                && let Some((loc, _)) = loc_prefix(place)
            {
                push(out, places, &loc, code, message);
            }
            continue;
        }
        header = None;
        if let Some((loc, rest)) = loc_prefix(line)
            && loc.column.is_some()
            && let Some(rest) = rest.strip_prefix(": ")
        {
            if let Some((code, msg)) = coded(rest) {
                push(out, places, &loc, code, msg);
            } else if rest.starts_with("SyntaxError: ") && super::text::has_ext(loc.path, &["py"]) {
                push(out, places, &loc, "", rest);
            }
        }
    }
}

fn push(out: &mut Out, places: &Places, loc: &super::text::Loc<'_>, code: &str, message: &str) {
    out.problem_at(
        places,
        loc,
        Severity::Error,
        message,
        (!code.is_empty()).then(|| code.to_owned()),
    );
}

/// `F401 [*] message`: a rule code (letters then digits) and the message.
fn coded(s: &str) -> Option<(&str, &str)> {
    let (code, rest) = s.split_once(' ')?;
    let letters = code.bytes().take_while(u8::is_ascii_uppercase).count();
    let digits = code.len() - letters;
    if letters == 0
        || letters > 4
        || digits == 0
        || !code[letters..].bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    Some((code, rest.strip_prefix("[*] ").unwrap_or(rest)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{problems, run};
    use super::parse;

    #[test]
    fn full_and_concise_give_the_same_problems() {
        // ruff 0.17, `ruff check --select E,F` and `--output-format concise`.
        let full = "F401 [*] `os` imported but unused
 --> a.py:1:8
  |
1 | import os
  |        ^^
2 | import sys, json
  |
help: Remove unused import: `os`

E711 Comparison to `None` should be `cond is None`
 --> a.py:5:13
  |
5 |     if x == None:
  |             ^^^^
  |
note: This is an unsafe fix and may change runtime behavior

F821 Undefined name `undefined_name`
 --> a.py:6:16
  |

Found 3 errors.
[*] 1 fixable with `--fix` (1 unsafe fix available with `--fix --unsafe-fixes`).
";
        let concise = "a.py:1:8: F401 [*] `os` imported but unused
a.py:5:13: E711 Comparison to `None` should be `cond is None`
a.py:6:16: F821 Undefined name `undefined_name`
Found 3 errors.
";
        let want = [
            "a.py:1:8 Error F401 `os` imported but unused",
            "a.py:5:13 Error E711 Comparison to `None` should be `cond is None`",
            "a.py:6:16 Error F821 Undefined name `undefined_name`",
        ];
        assert_eq!(problems(&run(parse, full)), want);
        assert_eq!(problems(&run(parse, concise)), want);
    }
}
