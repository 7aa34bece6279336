//! javac: `src/Main.java:5: error: cannot find symbol`, the source line, a caret under the
//! column, then indented detail (`  symbol:   variable x`); a lint warning names its
//! category (`warning: [rawtypes] found raw type: List`). Maven's compiler plugin prints
//! `[ERROR] /abs/Main.java:[5,17] cannot find symbol`; Gradle prints javac's own lines.

use super::text::{Message, number, severity_prefix};
use super::{Out, Places};
use crate::results::model::{Problem, Severity};

/// After a diagnostic: 0 the source line, 1 the caret, 2 detail lines.
struct Open {
    index: usize,
    step: u8,
    message: Message,
}

pub fn parse(lines: &[&str], places: &Places, out: &mut Out) {
    let mut open: Option<Open> = None;
    for &line in lines {
        if let Some((file, l, c, severity, msg)) = maven(line) {
            close(&mut open, out);
            out.problem(Problem {
                file: places.file(file),
                line: Some(l),
                column: Some(c),
                severity,
                message: msg.to_owned(),
                code: None,
            });
            continue;
        }
        if let Some((file, l, severity, msg)) = javac(line) {
            close(&mut open, out);
            let (code, message) = match msg.strip_prefix('[').and_then(|r| r.split_once("] ")) {
                Some((code, m)) => (Some(code.to_owned()), m),
                None => (None, msg),
            };
            out.problem(Problem {
                file: places.file(file),
                line: Some(l),
                column: None,
                severity,
                message: message.to_owned(),
                code,
            });
            open = Some(Open {
                index: out.problems.len() - 1,
                step: 0,
                message: Message::of(message),
            });
            continue;
        }
        let Some(o) = open.as_mut() else { continue };
        match o.step {
            0 => o.step = 1,
            1 => {
                if let Some(col) = line.find('^')
                    && line[..col].trim().is_empty()
                    && let Some(p) = out.problems.get_mut(o.index)
                {
                    p.column = u32::try_from(col + 1).ok();
                }
                o.step = 2;
            }
            _ if line.starts_with("  ") => o.message.push(line),
            _ => close(&mut open, out),
        }
    }
    close(&mut open, out);
}

fn close(open: &mut Option<Open>, out: &mut Out) {
    if let Some(o) = open.take()
        && let (Some(p), Some(text)) = (out.problems.get_mut(o.index), o.message.text())
    {
        p.message = text;
    }
}

/// `src/Main.java:5: error: message`.
fn javac(line: &str) -> Option<(&str, u32, Severity, &str)> {
    let (file, rest) = line.split_once(".java:")?;
    let (l, rest) = number(rest)?;
    let rest = rest.strip_prefix(": ")?;
    let (severity, msg) = severity_prefix(rest, &["error: "])?;
    (!file.contains(' ')).then_some((&line[..file.len() + 5], l, severity, msg))
}

/// `[ERROR] /abs/Main.java:[5,17] message`.
fn maven(line: &str) -> Option<(&str, u32, u32, Severity, &str)> {
    let (severity, rest) = if let Some(r) = line.strip_prefix("[ERROR] ") {
        (Severity::Error, r)
    } else {
        (Severity::Warning, line.strip_prefix("[WARNING] ")?)
    };
    let (file, place) = rest.split_once(".java:[")?;
    let (l, place) = number(place)?;
    let (c, place) = number(place.strip_prefix(',')?)?;
    let msg = place.strip_prefix("] ")?;
    Some((&rest[..file.len() + 5], l, c, severity, msg))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{problems, run};
    use super::parse;

    #[test]
    fn javac_and_maven_lines_with_columns_from_the_caret() {
        // javac 17, `javac -Xlint:all -d out src/Main.java`.
        let out = run(
            parse,
            "src/Main.java:4: warning: [rawtypes] found raw type: List
        List raw = new ArrayList();
        ^
  missing type arguments for generic class List<E>
  where E is a type-variable:
    E extends Object declared in interface List
src/Main.java:5: error: cannot find symbol
        int y = x + 1;
                ^
  symbol:   variable x
  location: class Main
src/Main.java:6: error: incompatible types: int cannot be converted to String
        String s = 5;
                   ^
2 errors
1 warning
",
        );
        assert_eq!(
            problems(&out),
            [
                "src/Main.java:4:9 Warning rawtypes found raw type: List",
                "src/Main.java:5:17 Error - cannot find symbol",
                "src/Main.java:6:20 Error - incompatible types: int cannot be converted to String",
            ]
        );
        assert_eq!(
            out.problems[1].message,
            "cannot find symbol\nsymbol:   variable x\nlocation: class Main"
        );
        let maven = run(
            parse,
            "[ERROR] /repo/src/main/java/shop/Main.java:[5,17] cannot find symbol\n",
        );
        assert_eq!(
            problems(&maven),
            ["src/main/java/shop/Main.java:5:17 Error - cannot find symbol"]
        );
    }
}
