//! gcc and clang: `main.c:5:20: error: message [-Wflag]` (`fatal error:` too, and
//! `warning:`); the flag in brackets is the code. `note:` lines explain the diagnostic
//! before them and are not problems of their own. A linker's `main.c:(.text+0x15):
//! undefined reference to 'foo'` is an error of that file. Python, Go and Rust files are
//! left to their own tools' modules, which print the same shape.

use super::text::{loc_prefix, severity_prefix};
use super::{Out, Places};
use crate::results::model::{Problem, Severity};

/// Extensions whose `file:line:col: error:` lines other modules read.
const OTHERS: &[&str] = &["py", "pyi", "go", "rs", "java"];

pub fn parse(lines: &[&str], places: &Places, out: &mut Out) {
    for &line in lines {
        if let Some((file, message)) = undefined_reference(line) {
            out.problem(Problem {
                file: places.file(file),
                line: None,
                column: None,
                severity: Severity::Error,
                message: message.to_owned(),
                code: None,
            });
            continue;
        }
        let Some((loc, rest)) = loc_prefix(line) else {
            continue;
        };
        if loc.column.is_none() || super::text::has_ext(loc.path, OTHERS) {
            continue;
        }
        let Some(rest) = rest.strip_prefix(": ") else {
            continue;
        };
        let Some((severity, msg)) = severity_prefix(rest, &["error: ", "fatal error: "]) else {
            continue;
        };
        let (message, code) = match msg.rsplit_once(" [") {
            Some((m, flag)) if flag.ends_with(']') && flag.starts_with('-') => (
                m,
                Some(
                    flag.trim_end_matches(']')
                        .split(',')
                        .next()
                        .unwrap_or(flag)
                        .to_owned(),
                ),
            ),
            _ => (msg, None),
        };
        out.problem_at(places, &loc, severity, message, code);
    }
}

/// `main.c:(.text+0x15): undefined reference to 'foo'`.
fn undefined_reference(line: &str) -> Option<(&str, &str)> {
    let (file, rest) = line.split_once(":(")?;
    let (_, msg) = rest.split_once("): ")?;
    (msg.starts_with("undefined reference to ") && !file.contains(' ')).then_some((file, msg))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{problems, run};
    use super::parse;

    /// `gcc -Wall -c main.c` (gcc 12).
    const GCC: &str = "main.c: In function ‘main’:
main.c:4:13: warning: initialization of ‘int’ from ‘char *’ makes integer from pointer without a cast [-Wint-conversion]
    4 |     int x = \"a\";
      |             ^~~
main.c:5:20: error: ‘y’ undeclared (first use in this function)
    5 |     printf(\"%d\\n\", y)
      |                    ^
main.c:5:20: note: each undeclared identifier is reported only once for each function it appears in
main.c:5:22: error: expected ‘;’ before ‘return’
main.c:4:9: warning: unused variable ‘x’ [-Wunused-variable]
main.c:3:9: warning: unused variable ‘unused’ [-Wunused-variable]
/usr/bin/ld: main.o: in function `main':
main.c:(.text+0x15): undefined reference to `foo'
collect2: error: ld returned 1 exit status
";

    #[test]
    fn gcc_errors_and_warnings_with_their_flags() {
        assert_eq!(
            problems(&run(parse, GCC)),
            [
                "main.c:4:13 Warning -Wint-conversion initialization of ‘int’ from ‘char *’ makes integer from pointer without a cast",
                "main.c:5:20 Error - ‘y’ undeclared (first use in this function)",
                "main.c:5:22 Error - expected ‘;’ before ‘return’",
                "main.c:4:9 Warning -Wunused-variable unused variable ‘x’",
                "main.c:3:9 Warning -Wunused-variable unused variable ‘unused’",
                "main.c:0:0 Error - undefined reference to `foo'",
            ]
        );
        // clang's shape is the same.
        assert_eq!(
            problems(&run(
                parse,
                "src/a.cpp:3:10: fatal error: 'missing.h' file not found\n"
            )),
            ["src/a.cpp:3:10 Error - 'missing.h' file not found"]
        );
    }
}
