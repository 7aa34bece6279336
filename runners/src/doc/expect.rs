//! Accessors that say what is wrong: a value of the kind an adapter expects, or the
//! diagnostic for one that is not (`` `scripts` should be an object, not an array ``), which
//! [`Report::or_report`] records. One place words a type mismatch (ripgrep's `convert`
//! helpers do this for its flags), so that an adapter reads as its happy path and every
//! message keeps one shape: what was expected, then what the file holds, in its format's
//! words ([`Terms`]).

use super::{Entry, Node, ParseError, Terms};
use crate::model::Parsed;

impl ParseError {
    /// Records it as a diagnostic of `path`.
    pub fn report(self, path: &str, out: &mut Parsed) {
        out.diag(path, self.line, self.message);
    }

    /// The same error at `line` (a file whose top level is of the wrong kind is reported at
    /// its first line).
    #[must_use]
    pub fn at(self, line: u32) -> ParseError {
        ParseError {
            line: Some(line),
            ..self
        }
    }

    /// The same error with what follows from it after its message (`…; deno refuses to run
    /// any task`).
    #[must_use]
    pub fn then(self, consequence: &str) -> ParseError {
        ParseError {
            message: format!("{}; {consequence}", self.message),
            ..self
        }
    }

    /// The same error with `prefix` before its message (`invalid YAML: `).
    #[must_use]
    pub fn prefixed(self, prefix: &str) -> ParseError {
        ParseError {
            message: format!("{prefix}{}", self.message),
            ..self
        }
    }
}

impl Node {
    /// The diagnostic for this value where `expected` says what should have been
    /// (`` `tasks` should be a table ``): `expected, not a string`, at this value's line.
    pub fn mismatch(&self, expected: &str, terms: Terms) -> ParseError {
        ParseError {
            message: format!("{expected}, not {}", self.kind_in(terms)),
            line: Some(self.line),
        }
    }

    /// The entries, when this is a table; else [`Node::mismatch`].
    pub fn table_or(&self, expected: &str, terms: Terms) -> Result<&[Entry], ParseError> {
        self.entries().ok_or_else(|| self.mismatch(expected, terms))
    }

    /// The items, when this is an array; else [`Node::mismatch`].
    pub fn array_or(&self, expected: &str, terms: Terms) -> Result<&[Node], ParseError> {
        self.items().ok_or_else(|| self.mismatch(expected, terms))
    }

    /// This value, when it is a table; else [`Node::mismatch`] (a document's top level).
    pub fn into_table_or(self, expected: &str, terms: Terms) -> Result<Node, ParseError> {
        if self.is_table() {
            Ok(self)
        } else {
            Err(self.mismatch(expected, terms))
        }
    }
}

/// Recording what went wrong as a diagnostic of the file being read.
pub(crate) trait Report<T> {
    /// The value, or `None` with the error recorded as a diagnostic of `path`.
    fn or_report(self, path: &str, out: &mut Parsed) -> Option<T>;
}

impl<T> Report<T> for Result<T, ParseError> {
    fn or_report(self, path: &str, out: &mut Parsed) -> Option<T> {
        self.map_err(|err| err.report(path, out)).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::Report;
    use crate::doc::{Dialect, Terms, read_jsonc, read_toml};
    use crate::model::Parsed;
    use indoc::indoc;

    #[test]
    fn a_value_of_the_wrong_kind_is_one_diagnostic_at_its_line_in_its_formats_words() {
        let root = read_jsonc(
            indoc! {"
                {
                  \"scripts\": [1],
                  \"tasks\": {}
                }"},
            Dialect::Strict,
        )
        .expect("valid");
        let mut out = Parsed::default();
        let scripts = root.get("scripts").expect("scripts");
        assert!(
            scripts
                .table_or("`scripts` should be an object", Terms::Json)
                .or_report("package.json", &mut out)
                .is_none()
        );
        let tasks = root.get("tasks").expect("tasks");
        assert!(
            tasks
                .array_or("`tasks` must be an array", Terms::Toml)
                .or_report("a", &mut out)
                .is_none()
        );
        assert_eq!(
            tasks
                .table_or("unused", Terms::Json)
                .or_report("a", &mut out)
                .map(<[_]>::len),
            Some(0)
        );
        let said: Vec<(&str, Option<u32>, &str)> = out
            .diagnostics
            .iter()
            .map(|d| (d.file_path.as_str(), d.line, d.message.as_str()))
            .collect();
        assert_eq!(
            said,
            [
                (
                    "package.json",
                    Some(2),
                    "`scripts` should be an object, not an array"
                ),
                ("a", Some(3), "`tasks` must be an array, not a table"),
            ]
        );
    }

    #[test]
    fn a_read_error_keeps_its_line_and_a_top_level_mismatch_may_name_the_first() {
        let mut out = Parsed::default();
        assert!(read_toml("a = ").or_report("x.toml", &mut out).is_none());
        assert!(out.diagnostics[0].line.is_some());
        let top = read_jsonc(
            indoc! {"


                [1]"},
            Dialect::Strict,
        )
        .and_then(|r| {
            r.into_table_or("f should be an object", Terms::Json)
                .map_err(|e| e.at(1))
        })
        .map_err(|e| e.prefixed("bad: "));
        assert_eq!(
            top.map(|_| ()),
            Err(crate::doc::ParseError {
                message: "bad: f should be an object, not an array".to_owned(),
                line: Some(1)
            })
        );
    }
}
