//! Assertions on what one agg run printed, each naming the stream and the words it looks
//! for, and showing both streams whole when they fail.

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
    /// Asserts that stdout starts with `part`.
    fn stdout_starts_with(&self, part: &str) -> &Self;
}

/// One method of [`Says`]: its name, the field of [`Output`] it reads, the `str` test it
/// makes, whether that must hold, and what the failure says.
macro_rules! check {
    ($method:ident, $stream:ident, $test:ident, $wanted:literal, $fails:literal) => {
        #[track_caller]
        fn $method(&self, part: &str) -> &Self {
            assert!(
                self.$stream.$test(part) == $wanted,
                concat!(
                    stringify!($stream),
                    " ",
                    $fails,
                    " {:?}\n--- stdout\n{}\n--- stderr\n{}"
                ),
                part,
                self.stdout,
                self.stderr
            );
            self
        }
    };
}

impl Says for Output {
    check!(stdout_says, stdout, contains, true, "lacks");
    check!(stderr_says, stderr, contains, true, "lacks");
    check!(stdout_omits, stdout, contains, false, "has");
    check!(stderr_omits, stderr, contains, false, "has");
    check!(
        stdout_starts_with,
        stdout,
        starts_with,
        true,
        "does not start with"
    );
}
