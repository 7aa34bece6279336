//! The TypeScript compiler: `src/a.ts(1,7): error TS2322: message` (its plain form, when
//! not at a terminal) or `src/a.ts:1:7 - error TS2322: message` (`--pretty`); the lines
//! indented under a plain diagnostic go on with its message.

use super::text::{Message, number};
use super::{Out, Places};
use crate::results::model::{Problem, Severity};

pub fn parse(lines: &[&str], places: &Places, out: &mut Out) {
    let mut open: Option<(usize, Message)> = None;
    for &line in lines {
        let is_plain = plain(line).is_some();
        if let Some((file, l, c, sev, code, msg)) = plain(line).or_else(|| pretty(line)) {
            close(&mut open, out);
            out.problem(Problem {
                file: places.file(file),
                line: Some(l),
                column: Some(c),
                severity: sev,
                message: msg.to_owned(),
                code: Some(code.to_owned()),
            });
            // Only the plain form indents an elaboration under its diagnostic; the pretty
            // form indents related places and code frames instead.
            open = is_plain.then(|| (out.problems.len() - 1, Message::of(msg)));
            continue;
        }
        match &mut open {
            Some((_, m)) if line.starts_with("  ") && !line.trim().is_empty() => m.push(line),
            _ => close(&mut open, out),
        }
    }
    close(&mut open, out);
}

fn close(open: &mut Option<(usize, Message)>, out: &mut Out) {
    if let Some((i, m)) = open.take()
        && let (Some(p), Some(text)) = (out.problems.get_mut(i), m.text())
    {
        p.message = text;
    }
}

type Diag<'a> = (&'a str, u32, u32, Severity, &'a str, &'a str);

/// `file(line,col): error TSnnnn: message`.
fn plain(line: &str) -> Option<Diag<'_>> {
    let (head, rest) = line.split_once("): ")?;
    let (file, lc) = head.rsplit_once('(')?;
    let (l, c) = lc.split_once(',')?;
    let (sev, code, msg) = tail(rest)?;
    Some((file, number(l)?.0, number(c)?.0, sev, code, msg))
}

/// `file:line:col - error TSnnnn: message`.
fn pretty(line: &str) -> Option<Diag<'_>> {
    let (head, rest) = line.split_once(" - ")?;
    let (loc, after) = super::text::loc_prefix(head)?;
    if !after.is_empty() {
        return None;
    }
    let (sev, code, msg) = tail(rest)?;
    Some((loc.path, loc.line?, loc.column?, sev, code, msg))
}

/// `error TS2322: message`.
fn tail(rest: &str) -> Option<(Severity, &str, &str)> {
    let (sev, rest) = if let Some(r) = rest.strip_prefix("error ") {
        (Severity::Error, r)
    } else {
        (Severity::Warning, rest.strip_prefix("warning ")?)
    };
    let (code, msg) = rest.split_once(": ")?;
    (code.starts_with("TS") && code[2..].bytes().all(|b| b.is_ascii_digit()))
        .then_some((sev, code, msg))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{problems, run};
    use super::parse;

    #[test]
    fn both_of_tsc_s_forms_give_the_same_problems() {
        // tsc 5.9, `tsc -p .` through a pipe and with `--pretty` (colours removed).
        let plain = "src/a.ts(1,7): error TS2322: Type 'string' is not assignable to type 'number'.
src/a.ts(2,34): error TS2551: Property 'lenght' does not exist on type 'string'. Did you mean 'length'?
src/a.ts(3,3): error TS2345: Argument of type 'number' is not assignable to parameter of type 'string'.
";
        let pretty = "\u{1b}[96msrc/a.ts\u{1b}[0m:\u{1b}[93m1\u{1b}[0m:\u{1b}[93m7\u{1b}[0m - \u{1b}[91merror\u{1b}[0m\u{1b}[90m TS2322: \u{1b}[0mType 'string' is not assignable to type 'number'.

\u{1b}[7m1\u{1b}[0m const n: number = \"one\";
\u{1b}[7m \u{1b}[0m \u{1b}[91m      ~\u{1b}[0m

\u{1b}[96msrc/a.ts\u{1b}[0m:\u{1b}[93m2\u{1b}[0m:\u{1b}[93m34\u{1b}[0m - \u{1b}[91merror\u{1b}[0m\u{1b}[90m TS2551: \u{1b}[0mProperty 'lenght' does not exist on type 'string'. Did you mean 'length'?

  \u{1b}[96mnode_modules/typescript/lib/lib.es5.d.ts\u{1b}[0m:\u{1b}[93m517\u{1b}[0m:\u{1b}[93m14\u{1b}[0m
    'length' is declared here.

\u{1b}[96msrc/a.ts\u{1b}[0m:\u{1b}[93m3\u{1b}[0m:\u{1b}[93m3\u{1b}[0m - \u{1b}[91merror\u{1b}[0m\u{1b}[90m TS2345: \u{1b}[0mArgument of type 'number' is not assignable to parameter of type 'string'.

Found 3 errors in the same file, starting at: src/a.ts:1
";
        let want = [
            "src/a.ts:1:7 Error TS2322 Type 'string' is not assignable to type 'number'.",
            "src/a.ts:2:34 Error TS2551 Property 'lenght' does not exist on type 'string'. Did you mean 'length'?",
            "src/a.ts:3:3 Error TS2345 Argument of type 'number' is not assignable to parameter of type 'string'.",
        ];
        assert_eq!(problems(&run(parse, plain)), want);
        assert_eq!(problems(&run(parse, pretty)), want);
        let elaborated = run(
            parse,
            "src/b.ts(4,5): error TS2322: Type '{ a: string; }' is not assignable to type 'T'.\n  Types of property 'a' are incompatible.\n    Type 'string' is not assignable to type 'number'.\n",
        );
        assert_eq!(elaborated.problems[0].message.lines().count(), 3);
    }
}
