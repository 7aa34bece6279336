//! Pyright: the file's path, then `  /abs/a.py:2:12 - error: message` rows whose message
//! goes on over more indented lines, the last ending in its rule (`(reportReturnType)`);
//! `information` rows are not problems.

use super::text::Message;
use super::{Out, Places};
use crate::results::model::Severity;

pub fn parse(lines: &[&str], places: &Places, out: &mut Out) {
    let mut open: Option<(usize, Message)> = None;
    for &line in lines {
        if let Some((loc, sev, msg)) = row(line) {
            close(&mut open, out);
            let Some(severity) = sev else { continue };
            out.problem_at(places, &loc, severity, msg, None);
            open = Some((out.problems.len() - 1, Message::of(msg)));
            continue;
        }
        match &mut open {
            // Continuation lines are indented with two spaces and two no-break spaces.
            Some((_, m))
                if line.starts_with("  ") && line[2..].starts_with(char::is_whitespace) =>
            {
                m.push(line);
            }
            _ => close(&mut open, out),
        }
    }
    close(&mut open, out);
}

/// Ends the open problem: its message, and the rule its last line names.
fn close(open: &mut Option<(usize, Message)>, out: &mut Out) {
    let Some((i, m)) = open.take() else { return };
    let (Some(p), Some(text)) = (out.problems.get_mut(i), m.text()) else {
        return;
    };
    match text.rsplit_once(" (report") {
        Some((msg, rule)) if rule.ends_with(')') && !rule.contains(' ') => {
            msg.clone_into(&mut p.message);
            p.code = Some(format!("report{}", rule.trim_end_matches(')')));
        }
        _ => p.message = text,
    }
}

/// `  /abs/a.py:2:12 - error: message`; the severity is `None` for `information`.
fn row(line: &str) -> Option<(super::text::Loc<'_>, Option<Severity>, &str)> {
    let t = line.strip_prefix("  ")?;
    let (head, rest) = t.split_once(" - ")?;
    let (loc, after) = super::text::loc_prefix(head)?;
    if !after.is_empty() || loc.column.is_none() {
        return None;
    }
    let (sev, msg) = rest.split_once(": ")?;
    let sev = match sev {
        "error" => Some(Severity::Error),
        "warning" => Some(Severity::Warning),
        "information" => None,
        _ => return None,
    };
    Some((loc, sev, msg))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{problems, run};
    use super::parse;

    #[test]
    fn pyright_rows_with_their_rules() {
        // pyright 1.1.414 (PyPI wrapper), `pyright pkg`.
        let out = run(
            parse,
            "/repo/pkg/a.py
  /repo/pkg/a.py:2:12 - error: Type \"int\" is not assignable to return type \"str\"
  \u{a0}\u{a0}\"int\" is not assignable to \"str\" (reportReturnType)
  /repo/pkg/a.py:5:13 - information: Type of \"y\" is \"int\"
  /repo/pkg/a.py:6:7 - warning: Import \"x\" could not be resolved (reportMissingImports)
3 errors, 0 warnings, 1 information 
",
        );
        assert_eq!(
            problems(&out),
            [
                "pkg/a.py:2:12 Error reportReturnType Type \"int\" is not assignable to return type \"str\"",
                "pkg/a.py:6:7 Warning reportMissingImports Import \"x\" could not be resolved",
            ]
        );
        assert_eq!(
            out.problems[0].message,
            "Type \"int\" is not assignable to return type \"str\"\n\"int\" is not assignable to \"str\""
        );
    }
}
