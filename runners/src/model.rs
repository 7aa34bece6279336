//! The data every adapter produces: raw tasks (before naming) and diagnostics.
//!
//! Paths are root-relative strings with `/` separators; `"."` is the root itself.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A task runner agg knows how to list and run.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Runner {
    /// GNU make.
    Make,
    /// npm scripts.
    Npm,
    /// pnpm scripts.
    Pnpm,
    /// yarn scripts.
    Yarn,
    /// bun scripts.
    Bun,
    /// Cargo aliases.
    Cargo,
    /// just recipes.
    Just,
    /// go-task (Taskfile v3).
    Task,
    /// xc-style Markdown tasks.
    Xc,
    /// Poe the Poet tasks (`[tool.poe.tasks]`, `poe_tasks.toml`).
    Poe,
    /// PDM scripts (`[tool.pdm.scripts]`).
    Pdm,
    /// Hatch environment scripts (`[tool.hatch.envs.<env>.scripts]`, `hatch.toml`).
    Hatch,
    /// Console scripts of a uv project, run with `uv run`.
    Uv,
    /// Console scripts of a Poetry project, run with `poetry run`.
    Poetry,
    /// tox environments.
    Tox,
    /// nox sessions.
    Nox,
}

impl Runner {
    /// Every runner, in the order tables group them.
    pub const ALL: [Runner; 16] = [
        Runner::Make,
        Runner::Npm,
        Runner::Pnpm,
        Runner::Yarn,
        Runner::Bun,
        Runner::Cargo,
        Runner::Just,
        Runner::Task,
        Runner::Xc,
        Runner::Poe,
        Runner::Pdm,
        Runner::Hatch,
        Runner::Uv,
        Runner::Poetry,
        Runner::Tox,
        Runner::Nox,
    ];

    /// The runner's name as used in JSON and on the command line (`make`, `npm`, …).
    pub fn name(self) -> &'static str {
        match self {
            Runner::Make => "make",
            Runner::Npm => "npm",
            Runner::Pnpm => "pnpm",
            Runner::Yarn => "yarn",
            Runner::Bun => "bun",
            Runner::Cargo => "cargo",
            Runner::Just => "just",
            Runner::Task => "task",
            Runner::Xc => "xc",
            Runner::Poe => "poe",
            Runner::Pdm => "pdm",
            Runner::Hatch => "hatch",
            Runner::Uv => "uv",
            Runner::Poetry => "poetry",
            Runner::Tox => "tox",
            Runner::Nox => "nox",
        }
    }

    /// The suffix (after a `-`) used when two runners define the same name in one
    /// directory: one letter for the first nine runners, the runner's name for later ones.
    pub fn suffix(self) -> &'static str {
        match self {
            Runner::Make => "m",
            Runner::Npm => "n",
            Runner::Pnpm => "p",
            Runner::Yarn => "y",
            Runner::Bun => "b",
            Runner::Cargo => "c",
            Runner::Just => "j",
            Runner::Task => "t",
            Runner::Xc => "x",
            other => other.name(),
        }
    }

    /// Parses a runner name as printed by [`Runner::name`].
    pub fn from_name(name: &str) -> Option<Runner> {
        Runner::ALL.into_iter().find(|r| r.name() == name)
    }

    /// Executables that provide this runner, in order of preference.
    pub fn binaries(self) -> &'static [&'static str] {
        match self {
            Runner::Make => &["make", "gmake"],
            Runner::Npm => &["npm"],
            Runner::Pnpm => &["pnpm"],
            Runner::Yarn => &["yarn"],
            Runner::Bun => &["bun"],
            Runner::Cargo => &["cargo"],
            Runner::Just => &["just"],
            Runner::Task => &["task", "go-task"],
            Runner::Xc => &["xc"],
            Runner::Poe => &["poe"],
            Runner::Pdm => &["pdm"],
            Runner::Hatch => &["hatch"],
            Runner::Uv => &["uv"],
            Runner::Poetry => &["poetry"],
            Runner::Tox => &["tox"],
            Runner::Nox => &["nox"],
        }
    }
}

impl Runner {
    /// Executables inside the project (relative to the task's directory) that count as this
    /// runner being installed, preferred over `PATH`: the project's own virtualenv.
    pub fn project_binaries(self) -> &'static [&'static str] {
        match self {
            Runner::Poe => &[".venv/bin/poe"],
            _ => &[],
        }
    }
}

impl std::fmt::Display for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How a variadic parameter repeats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Variadic {
    /// `*name`: zero or more values.
    ZeroOrMore,
    /// `+name`: one or more values.
    OneOrMore,
}

/// A parameter a task accepts (just parameters, xc inputs, Taskfile required vars).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Param {
    /// The parameter's name.
    pub name: String,
    /// The default value as written in the file, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    /// Whether a value must be given.
    pub required: bool,
    /// Set for variadic parameters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub variadic: Option<Variadic>,
    /// just `$name`: the value is also exported as an environment variable.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub exported: bool,
}

impl Param {
    /// A required, plain parameter.
    pub fn required(name: impl Into<String>) -> Param {
        Param {
            name: name.into(),
            default: None,
            required: true,
            variadic: None,
            exported: false,
        }
    }
}

/// What the built-in xc executor needs beyond the common fields.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct XcSpec {
    /// The script body of the task's code block, without the fences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
    /// The interpreter named by a shebang line, when it is not `sh` or `bash`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interpreter: Option<String>,
    /// `Inputs:` names, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<String>,
    /// `Dir:` as written, relative to the README's directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
    /// `Run: once`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub run_once: bool,
    /// `RunDeps: async`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub run_deps_async: bool,
}

/// One task as an adapter found it, before the table gives it a unique name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawTask {
    /// The name the runner itself knows the task by (`build`, `ns:task`, `mod::recipe`).
    pub source_name: String,
    /// Which runner runs it.
    pub runner: Runner,
    /// The directory the task belongs to and is invoked from, relative to the root.
    pub dir: String,
    /// The file that defines the task, relative to the root.
    pub file_path: String,
    /// The 1-based line of the definition, when known.
    pub line: Option<u32>,
    /// A human description from the file, if it gives one.
    pub description: Option<String>,
    /// The argv agg executes, program first (`["make", "build"]`).
    pub argv: Vec<String>,
    /// Parameters the task takes.
    pub params: Vec<Param>,
    /// Tasks this one depends on, by source name.
    pub deps: Vec<String>,
    /// Other names the runner accepts for this task.
    pub aliases: Vec<String>,
    /// just `[group]`.
    pub group: Option<String>,
    /// What the task does, as written in the file: a script body, recipe lines, an alias
    /// expansion. Shown by `describe`.
    pub script: Option<String>,
    /// Environment the task sets (`KEY`, `value`).
    pub env: Vec<(String, String)>,
    /// xc execution details (only for [`Runner::Xc`]).
    pub xc: Option<XcSpec>,
}

impl RawTask {
    /// A task with the given identity and everything optional left empty.
    pub fn new(
        runner: Runner,
        source_name: impl Into<String>,
        dir: impl Into<String>,
        file_path: impl Into<String>,
        argv: Vec<String>,
    ) -> RawTask {
        RawTask {
            source_name: source_name.into(),
            runner,
            dir: dir.into(),
            file_path: file_path.into(),
            line: None,
            description: None,
            argv,
            params: Vec::new(),
            deps: Vec::new(),
            aliases: Vec::new(),
            group: None,
            script: None,
            env: Vec::new(),
            xc: None,
        }
    }
}

/// A problem with one file: it could not be read, or part of it could not be understood.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Diagnostic {
    /// The file, relative to the root.
    pub file_path: String,
    /// The 1-based line, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// What is wrong, in one sentence.
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic for `file_path`, optionally at `line`.
    pub fn new(
        file_path: impl Into<String>,
        line: Option<u32>,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            file_path: file_path.into(),
            line,
            message: message.into(),
        }
    }
}

/// Everything one adapter call found in one task file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    /// The tasks, in file order.
    pub tasks: Vec<RawTask>,
    /// Problems found; they never stop the other tasks from being listed.
    pub diagnostics: Vec<Diagnostic>,
    /// Other files this one pulled in (includes, imports, modules), relative to the root.
    /// They belong to this file and are not listed again on their own.
    pub consumed: Vec<String>,
}

impl Parsed {
    /// Records a diagnostic.
    pub fn diag(&mut self, file_path: &str, line: Option<u32>, message: impl Into<String>) {
        self.diagnostics
            .push(Diagnostic::new(file_path, line, message));
    }
}
