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

impl Says for Output {
    #[track_caller]
    fn stdout_says(&self, part: &str) -> &Self {
        assert!(
            self.stdout.contains(part),
            "stdout lacks {part:?}:\n{}",
            self.stdout
        );
        self
    }

    #[track_caller]
    fn stderr_says(&self, part: &str) -> &Self {
        assert!(
            self.stderr.contains(part),
            "stderr lacks {part:?}:\n{}",
            self.stderr
        );
        self
    }

    #[track_caller]
    fn stdout_omits(&self, part: &str) -> &Self {
        assert!(
            !self.stdout.contains(part),
            "stdout has {part:?}:\n{}",
            self.stdout
        );
        self
    }

    #[track_caller]
    fn stderr_omits(&self, part: &str) -> &Self {
        assert!(
            !self.stderr.contains(part),
            "stderr has {part:?}:\n{}",
            self.stderr
        );
        self
    }
}
