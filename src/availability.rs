//! Which runners are installed: one `PATH` lookup per runner binary, never one per task
//! and never a process.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agg_runners::{RawTask, Runner};

/// The result of looking up each runner once.
#[derive(Debug, Clone, Default)]
pub struct Availability {
    found: BTreeMap<Runner, Option<(&'static str, PathBuf)>>,
}

impl Availability {
    /// Looks up the binaries of the given runners on `PATH`.
    pub fn detect(runners: impl IntoIterator<Item = Runner>) -> Availability {
        let mut found = BTreeMap::new();
        for runner in runners {
            found.entry(runner).or_insert_with(|| {
                runner
                    .binaries()
                    .iter()
                    .find_map(|bin| which::which(bin).ok().map(|p| (*bin, p)))
            });
        }
        Availability { found }
    }

    /// Whether `task`'s program can run: its runner is on `PATH`, or the task names a
    /// program inside the project (`.venv/bin/poe`) that exists under `root`.
    pub fn available_for(&self, root: &Path, task: &RawTask) -> bool {
        self.available(task.runner) || project_program(root, &task.dir, task.runner).is_some()
    }

    /// Whether tasks of `runner` can run. xc tasks always can: agg executes them itself
    /// when `xc` is not installed.
    pub fn available(&self, runner: Runner) -> bool {
        runner == Runner::Xc || self.binary(runner).is_some()
    }

    /// The installed binary for `runner`: its name (`go-task` where a distribution renamed
    /// `task`) and path.
    pub fn binary(&self, runner: Runner) -> Option<(&'static str, &PathBuf)> {
        self.found
            .get(&runner)
            .and_then(Option::as_ref)
            .map(|(name, path)| (*name, path))
    }
}

/// How a person installs a runner.
pub fn install_hint(runner: Runner) -> &'static str {
    match runner {
        Runner::Make => {
            "install GNU make: `apt install make`, `brew install make` or `xcode-select --install`"
        }
        Runner::Npm => {
            "install Node.js, which ships npm: https://nodejs.org or `brew install node`"
        }
        Runner::Pnpm => "`npm install -g pnpm` or `corepack enable pnpm`",
        Runner::Yarn => "`npm install -g yarn` or `corepack enable yarn`",
        Runner::Bun => "`npm install -g bun` or `brew install oven-sh/bun/bun`",
        Runner::Cargo => "install Rust with rustup: https://rustup.rs",
        Runner::Just => "`cargo install just`, `brew install just` or `pipx install rust-just`",
        Runner::Task => {
            "`brew install go-task`, `npm install -g @go-task/cli` or `pipx install go-task-bin`"
        }
        Runner::Xc => {
            "`go install github.com/joerdav/xc/cmd/xc@latest` (optional: agg runs xc tasks itself)"
        }
        Runner::Poe => {
            "`pipx install poethepoet`, `uv tool install poethepoet` or add it to the project's `.venv`"
        }
        Runner::Pdm => "`pipx install pdm` or `uv tool install pdm`",
        Runner::Hatch => "`pipx install hatch`, `uv tool install hatch` or `brew install hatch`",
        Runner::Uv => "`pipx install uv`, `brew install uv` or https://docs.astral.sh/uv/",
        Runner::Poetry => "`pipx install poetry` or `uv tool install poetry`",
        Runner::Tox => "`pipx install tox` or `uv tool install tox`",
        Runner::Nox => "`pipx install nox` or `uv tool install nox`",
    }
}

/// The runner's program inside the project (`.venv/bin/poe` in the task's directory), when
/// it is there and executable: the relative path as shown in commands, and the full path.
pub fn project_program(root: &Path, dir: &str, runner: Runner) -> Option<(&'static str, PathBuf)> {
    use std::os::unix::fs::PermissionsExt;
    runner.project_binaries().iter().find_map(|rel| {
        let path = root.join(dir).join(rel);
        let meta = std::fs::metadata(&path).ok()?;
        (meta.is_file() && meta.permissions().mode() & 0o111 != 0).then_some((*rel, path))
    })
}
