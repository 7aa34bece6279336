//! Which runners are installed: one `PATH` lookup per runner binary, never one per task
//! and never a process.

use std::collections::BTreeMap;
use std::path::PathBuf;

use agg_runners::Runner;

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
    }
}
