//! Why only the IDE can run a run configuration: the reason a `JetBrains` task shows as not
//! runnable. Each variant carries what the configuration said; `Display` words it once, as
//! `agg describe` and the listing quote it.

use std::fmt;

/// Why agg cannot turn a run configuration into a command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum IdeOnly {
    /// A compound configuration: it starts others together.
    Compound,
    /// A kind agg does not read (`factoryName`, else the type).
    Kind(String),
    /// An IDE macro other than `$PROJECT_DIR$` and `$USER_HOME$` (its name).
    Macro(String),
    /// The working directory leaves the repository (as written).
    DirOutside(String),
    /// The file a configuration names (`package.json`, `Makefile`) leaves the repository.
    FileOutside(&'static str),
    /// An environment variable whose name a shell cannot export.
    BadVariable(String),
    /// A shell script run by a program that is not a POSIX shell.
    NotPosixShell(String),
    /// A required element is missing (its tag).
    NoElement(&'static str),
    /// A required value is missing: what the configuration names no one of.
    NamesNo(&'static str),
    /// A required value is empty: what it has none of.
    HasNo(&'static str),
    /// Docker container settings only the IDE's plugin applies (the setting).
    DockerSettings(&'static str),
    /// A Dockerfile built into an image without a tag.
    Untagged,
    /// A Docker deployment of a kind agg does not read.
    DockerKind(String),
}

impl fmt::Display for IdeOnly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IdeOnly::Compound => f.write_str(
                "a compound configuration starts the configurations it lists together in the IDE; run those one by one",
            ),
            IdeOnly::Kind(kind) => write!(
                f,
                "configurations of type `{kind}` are run by the IDE itself; run it from the IDE"
            ),
            IdeOnly::Macro(name) => write!(
                f,
                "it uses the macro `${name}$`, which only the IDE fills in; run it from the IDE"
            ),
            IdeOnly::DirOutside(dir) => write!(
                f,
                "its working directory `{dir}` is outside the repository; run it from the IDE"
            ),
            IdeOnly::FileOutside(file) => write!(f, "its {file} is outside the repository"),
            IdeOnly::BadVariable(name) => write!(
                f,
                "its environment variable `{name}` is not a name a shell can export"
            ),
            IdeOnly::NotPosixShell(program) => write!(
                f,
                "it runs its script with `{program}`; agg runs shell scripts with a POSIX shell"
            ),
            IdeOnly::NoElement(tag) => write!(f, "it has no <{tag}>"),
            IdeOnly::NamesNo(what) => write!(f, "it names no {what}"),
            IdeOnly::HasNo(what) => write!(f, "it has no {what}"),
            IdeOnly::DockerSettings(setting) => write!(
                f,
                "its container settings (`{setting}`) are applied by the IDE's Docker plugin; run it from the IDE"
            ),
            IdeOnly::Untagged => f.write_str(
                "it builds an image without a tag, which only the IDE then runs; run it from the IDE",
            ),
            IdeOnly::DockerKind(kind) => write!(
                f,
                "a Docker `{kind}` deployment is run by the IDE; run it from the IDE"
            ),
        }
    }
}

impl std::error::Error for IdeOnly {}
