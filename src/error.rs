//! agg's errors, each carrying the context a person needs and the exit code it maps to.
//! They are printed in one place only: [`crate::cli::main`].

use std::path::PathBuf;

/// Everything that can stop an agg command.
#[derive(Debug)]
pub enum Error {
    /// The root to scan is missing or not a directory.
    BadRoot {
        /// The path given.
        path: PathBuf,
        /// Why it cannot be used.
        reason: String,
    },
    /// Writing the output failed for a reason other than a closed pipe.
    Output(std::io::Error),
}

impl Error {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::BadRoot { .. } => 2,
            Error::Output(_) => 1,
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::BadRoot { path, reason } => {
                write!(f, "cannot scan `{}`: {reason}", path.display())
            }
            Error::Output(err) => write!(f, "cannot write output: {err}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(err: std::io::Error) -> Error {
        Error::Output(err)
    }
}
