//! Assertions on what one agg run printed, each naming the stream and the words it looks
//! for, and showing the whole stream when they fail.

use crate::test::Output;

/// `out.stderr_says("no task named")` in place of an `assert!` on `contains`.
pub trait Says {
    /// Asserts that stdout contains `part`.
    fn stdout_says(&self, part: &str) -> &Self;
    /// Asserts that stderr contains `part`.
    fn stderr_says(&self, part: &str) -> &Self;
    /// Asserts that stdout does not contain `part`.
    fn stdout_omits(&self, part: &str) -> &Self;
    /// Asserts that stderr does not contain `part`.
    fn stderr_omits(&self, part: &str) -> &Self;
}

/// One method of [`Says`]: its name, the field of [`Output`] it reads, and whether the
/// words must be there.
macro_rules! check {
    ($method:ident, $stream:ident, $wanted:literal) => {
        #[track_caller]
        fn $method(&self, part: &str) -> &Self {
            expect(stringify!($stream), &self.$stream, part, $wanted);
            self
        }
    };
}

impl Says for Output {
    check!(stdout_says, stdout, true);
    check!(stderr_says, stderr, true);
    check!(stdout_omits, stdout, false);
    check!(stderr_omits, stderr, false);
}

/// Asserts that `text`, the stream named `stream`, contains `part` or (`wanted` false) not.
#[track_caller]
fn expect(stream: &str, text: &str, part: &str, wanted: bool) {
    let verb = if wanted { "lacks" } else { "has" };
    assert!(
        text.contains(part) == wanted,
        "{stream} {verb} {part:?}:\n{text}"
    );
}
