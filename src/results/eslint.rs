//! ESLint. stylish (its default): a file's path alone on a line, then
//! `  1:7  warning  message  rule` rows; unix (`-f unix`, the `eslint-formatter-unix`
//! package since ESLint 9): `/path/a.js:1:7: message [Warning/rule]`.

use super::text::number;
use super::{Out, Places};
use crate::results::model::{Problem, Severity};

pub fn parse(lines: &[&str], places: &Places, out: &mut Out) {
    let mut file: Option<&str> = None;
    for &line in lines {
        if let Some(p) = unix(line) {
            let (path, l, c, message, severity, code) = p;
            out.problem(Problem {
                file: places.file(path),
                line: Some(l),
                column: Some(c),
                severity,
                message: message.to_owned(),
                code: code.map(str::to_owned),
            });
            continue;
        }
        if !line.starts_with(' ')
            && !line.contains(' ')
            && !line.contains(':')
            && (line.contains('/') || line.contains('.'))
        {
            file = Some(line);
            continue;
        }
        let Some(f) = file else { continue };
        if line.is_empty() {
            file = None;
            continue;
        }
        if let Some((l, c, severity, message, rule)) = stylish_row(line) {
            out.problem(Problem {
                file: places.file(f),
                line: Some(l),
                column: Some(c),
                severity,
                message: message.to_owned(),
                code: rule.map(str::to_owned),
            });
        }
    }
}

/// `  3:10  error    'x' is not defined              no-undef`.
fn stylish_row(line: &str) -> Option<(u32, u32, Severity, &str, Option<&str>)> {
    let t = line.strip_prefix("  ")?.trim_start();
    let (l, rest) = number(t)?;
    let (c, rest) = number(rest.strip_prefix(':')?)?;
    let rest = rest.trim_start();
    let (severity, rest) = if let Some(r) = rest.strip_prefix("error") {
        (Severity::Error, r)
    } else {
        (Severity::Warning, rest.strip_prefix("warning")?)
    };
    let rest = rest.strip_prefix(' ')?.trim();
    match rest.rsplit_once("  ") {
        Some((m, rule))
            if rule
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-/@_".contains(&b)) =>
        {
            Some((l, c, severity, m.trim_end(), Some(rule)))
        }
        _ => Some((l, c, severity, rest, None)),
    }
}

type Unix<'a> = (&'a str, u32, u32, &'a str, Severity, Option<&'a str>);

/// `/path/a.js:1:7: message [Warning/rule]`.
fn unix(line: &str) -> Option<Unix<'_>> {
    let (loc, rest) = super::text::loc_prefix(line)?;
    let rest = rest.strip_prefix(": ")?;
    let (message, tag) = rest.rsplit_once(" [")?;
    let tag = tag.strip_suffix(']')?;
    let (sev, rule) = match tag.split_once('/') {
        Some((s, r)) => (s, Some(r)),
        None => (tag, None),
    };
    let severity = match sev {
        "Error" => Severity::Error,
        "Warning" => Severity::Warning,
        _ => return None,
    };
    Some((loc.path, loc.line?, loc.column?, message, severity, rule))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{problems, run};
    use super::parse;

    #[test]
    fn stylish_and_unix_give_the_same_problems() {
        // ESLint 10, `eslint src` and `eslint -f unix src`.
        let stylish = "
/repo/src/a.js
  1:7   warning  'unused' is assigned a value but never used  no-unused-vars
  3:10  error    'undefinedThing' is not defined              no-undef
  5:7   error    Expected '===' and instead saw '=='          eqeqeq

/repo/src/b.js
  2:10  error  Parsing error: Unexpected token ;

✖ 4 problems (3 errors, 1 warning)
";
        let unix = "/repo/src/a.js:1:7: 'unused' is assigned a value but never used. [Warning/no-unused-vars]
/repo/src/a.js:3:10: 'undefinedThing' is not defined. [Error/no-undef]
/repo/src/a.js:5:7: Expected '===' and instead saw '=='. [Error/eqeqeq]
/repo/src/b.js:2:10: Parsing error: Unexpected token ; [Error]

4 problems
";
        let want = [
            "src/a.js:1:7 Warning no-unused-vars 'unused' is assigned a value but never used",
            "src/a.js:3:10 Error no-undef 'undefinedThing' is not defined",
            "src/a.js:5:7 Error eqeqeq Expected '===' and instead saw '=='",
            "src/b.js:2:10 Error - Parsing error: Unexpected token ;",
        ];
        assert_eq!(problems(&run(parse, stylish)), want);
        // unix keeps the message's final period, which stylish drops.
        let unix: Vec<String> = problems(&run(parse, unix))
            .iter()
            .map(|p| {
                p.replace("used.", "used")
                    .replace("defined.", "defined")
                    .replace("'=='.", "'=='")
            })
            .collect();
        assert_eq!(unix, want);
    }
}
