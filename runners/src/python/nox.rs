//! nox sessions: functions of `noxfile.py` decorated with `@nox.session` or `@session`, read
//! as text and never run. A session is named by the decorator's `name=` or else by its
//! function, described by its docstring's first line, and runs as `nox -s NAME`.
//!
//! Sessions a noxfile builds at run time (in a loop, through a helper) cannot be seen
//! without running it, so they are simply not listed.

use crate::files::parent;
use crate::model::{Parsed, Runner, Source, Task};
use crate::text::open_brackets;

/// A decorator's text longer than this is not a session decorator agg reads.
const MAX_DECORATOR: usize = 4096;

pub(super) fn parse(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    let dir = parent(src.path);
    let lines: Vec<&str> = src.text.lines().collect();
    let mut i = 0;
    // The pending session decorator: its line and its `name=`, if any.
    let mut pending: Option<(u32, Option<String>)> = None;
    while i < lines.len() {
        let line_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let line = lines[i].trim_start();
        if let Some(rest) = session_decorator(line) {
            // Gather the decorator's arguments up to the closing parenthesis.
            let mut text = rest.to_owned();
            while open_brackets(&text) > 0 && i + 1 < lines.len() && text.len() < MAX_DECORATOR {
                i += 1;
                text.push('\n');
                text.push_str(lines[i]);
            }
            if open_brackets(&text) > 0 {
                out.diag(
                    src.path,
                    Some(line_no),
                    "the session decorator's parentheses are never closed",
                );
                return out;
            }
            pending = match keyword(&text, "name") {
                Name::Literal(name) => Some((line_no, Some(name))),
                Name::Absent => Some((line_no, None)),
                // `name=f"…"` or a variable: only running the file would tell.
                Name::Computed => None,
            };
        } else if let Some(rest) = line
            .strip_prefix("def ")
            .or_else(|| line.strip_prefix("async def "))
        {
            if let Some((decorator_line, name)) = pending.take() {
                let function: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let name = name.unwrap_or(function);
                // Skip the rest of a signature spread over several lines.
                while !lines[i].trim_end().ends_with(':') && i + 1 < lines.len() {
                    i += 1;
                }
                let mut task = Task::new(
                    Runner::Nox,
                    name.clone(),
                    dir,
                    src.path,
                    vec!["nox".to_owned(), "-s".to_owned(), name],
                );
                task.line = Some(decorator_line);
                task.description = docstring(lines.get(i + 1..).unwrap_or_default());
                out.tasks.push(task);
            }
        } else if line.starts_with('@') {
            // Another decorator (`@nox.parametrize(…)`): skip its arguments.
            let mut text = line.to_owned();
            while open_brackets(&text) > 0 && i + 1 < lines.len() && text.len() < MAX_DECORATOR {
                i += 1;
                text.push('\n');
                text.push_str(lines[i]);
            }
        } else if !line.is_empty()
            && !line.starts_with('#')
            && let Some((decorator_line, _)) = pending.take()
        {
            out.diag(
                src.path,
                Some(decorator_line),
                "a session decorator must be followed by a function",
            );
        }
        i += 1;
    }
    out
}

/// The argument text after `@nox.session`/`@session`, when `line` is such a decorator.
fn session_decorator(line: &str) -> Option<&str> {
    let rest = line
        .strip_prefix("@nox.session")
        .or_else(|| line.strip_prefix("@session"))?;
    let rest = rest.trim_start();
    (rest.is_empty() || rest.starts_with('(') || rest.starts_with('#')).then_some(rest)
}

/// What a decorator says about a keyword argument.
enum Name {
    Literal(String),
    Computed,
    Absent,
}

/// The string literal given to keyword `key` (`name="lint"`).
fn keyword(text: &str, key: &str) -> Name {
    let mut rest = text;
    while let Some(at) = rest.find(key) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + key.len()..].trim_start();
        rest = &rest[at + key.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        let Some(value) = after.strip_prefix('=') else {
            continue;
        };
        let value = value.trim_start();
        let value = value
            .strip_prefix(['r', 'u'])
            .filter(|v| v.starts_with(['"', '\'']))
            .unwrap_or(value);
        let Some(quote) = value.chars().next().filter(|c| *c == '"' || *c == '\'') else {
            return Name::Computed;
        };
        let body = &value[1..];
        return body
            .find(quote)
            .map_or(Name::Computed, |end| Name::Literal(body[..end].to_owned()));
    }
    Name::Absent
}

/// The first line of the docstring that opens a function body.
fn docstring(body: &[&str]) -> Option<String> {
    let first = body.iter().map(|l| l.trim()).find(|l| !l.is_empty())?;
    let first = first.strip_prefix(['r', 'R']).unwrap_or(first);
    let (quote, text) = ["\"\"\"", "'''", "\"", "'"]
        .iter()
        .find_map(|q| first.strip_prefix(q).map(|rest| (*q, rest)))?;
    let text = match text.find(quote) {
        Some(end) => &text[..end],
        None => text,
    };
    let text = if text.trim().is_empty() && quote.len() == 3 {
        // `"""` alone on its line: the summary is on the next line.
        body.iter()
            .map(|l| l.trim())
            .skip_while(|l| !l.starts_with(quote) && !l.starts_with(&format!("r{quote}")))
            .nth(1)
            .map(|l| l.split(quote).next().unwrap_or(l))
            .unwrap_or_default()
    } else {
        text
    };
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

#[cfg(test)]
mod tests {
    use crate::files::MemFiles;
    use crate::testing::{messages, names, parse_with, task};
    use indoc::indoc;

    const NOXFILE: &str = r#"import nox
from nox import session

nox.options.sessions = ["tests"]


@nox.session(python=["3.11", "3.12"])
def tests(session):
    """Run the test suite.

    More words.
    """
    session.install("pytest")
    session.run("pytest", *session.posargs)


@nox.session(
    name="lint-all",  # a comment (with a parenthesis
    python=False,
)
def lint(session: nox.Session) -> None:
    '''Lint everything'''
    session.run("ruff", "check")


@session
@nox.parametrize(
    "django",
    ["4", "5"],
)
def django(
    session,
    django,
):
    """
    Against each Django.
    """


@nox.session
async def quiet(session):
    pass


for v in ["a", "b"]:
    @nox.session(name=f"gen-{v}")
    def gen(session):
        pass

def helper():
    """Not a session."""
"#;

    #[test]
    fn decorated_functions_are_sessions() {
        let files = MemFiles::new().with("noxfile.py", NOXFILE);
        let parsed = parse_with(super::parse, &files, "noxfile.py");
        assert_eq!(names(&parsed), ["tests", "lint-all", "django", "quiet"]);
        let tests = task(&parsed, "tests");
        assert_eq!(tests.argv, ["nox", "-s", "tests"]);
        assert_eq!(tests.line, Some(7));
        assert_eq!(tests.description.as_deref(), Some("Run the test suite."));
        assert_eq!(
            task(&parsed, "lint-all").description.as_deref(),
            Some("Lint everything")
        );
        assert_eq!(
            task(&parsed, "django").description.as_deref(),
            Some("Against each Django.")
        );
        assert_eq!(task(&parsed, "quiet").description, None);
        assert!(parsed.diagnostics.is_empty(), "{:?}", messages(&parsed));
    }

    #[test]
    fn broken_decorators_are_reported() {
        let files = MemFiles::new()
            .with(
                "a/noxfile.py",
                indoc! {"
                    @nox.session
                    x = 1
                    @nox.session
                    def ok(s):
                        pass
                "},
            )
            .with(
                "b/noxfile.py",
                indoc! {"
                    @nox.session(
                      name='x',
                "},
            );
        let parsed = parse_with(super::parse, &files, "a/noxfile.py");
        assert_eq!(names(&parsed), ["ok"]);
        assert_eq!(parsed.tasks[0].dir, "a");
        assert_eq!(
            messages(&parsed),
            [(
                "a/noxfile.py",
                Some(1),
                "a session decorator must be followed by a function"
            )]
        );
        let parsed = parse_with(super::parse, &files, "b/noxfile.py");
        assert!(parsed.tasks.is_empty());
        assert_eq!(parsed.diagnostics[0].line, Some(1));
    }
}
