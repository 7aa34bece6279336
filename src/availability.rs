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
                if runner == Runner::Compose {
                    return compose_program().map(ComposeProgram::binary);
                }
                runner
                    .binaries()
                    .iter()
                    .find_map(|bin| which::which(bin).ok().map(|p| (*bin, p)))
            });
        }
        Availability { found }
    }

    /// Whether `task`'s program can run: its runner is on `PATH` (or agg runs it itself), or
    /// the task names a program inside the project (`.venv/bin/poe`) that exists under `root`.
    pub fn available_for(&self, root: &Path, task: &RawTask) -> bool {
        self.available(task.runner) || project_program(root, &task.dir, task.runner).is_some()
    }

    /// Whether tasks of `runner` can run: its binary is installed, or agg runs them itself
    /// (xc).
    pub fn available(&self, runner: Runner) -> bool {
        runner.descriptor().runs_without_binary || self.binary(runner).is_some()
    }

    /// The installed binary for `runner`: its name (`go-task` where a distribution renamed
    /// `task`, `gmake` where only that is installed) and path.
    pub fn binary(&self, runner: Runner) -> Option<(&'static str, &PathBuf)> {
        self.found
            .get(&runner)
            .and_then(Option::as_ref)
            .map(|(name, path)| (*name, path))
    }
}

/// How a person installs a runner.
pub fn install_hint(runner: Runner) -> &'static str {
    runner.descriptor().install_hint
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

/// Where Docker looks for CLI plugins, after `$DOCKER_CONFIG/cli-plugins` (by default
/// `~/.docker/cli-plugins`).
const DOCKER_PLUGIN_DIRS: [&str; 5] = [
    "/usr/local/lib/docker/cli-plugins",
    "/usr/local/libexec/docker/cli-plugins",
    "/usr/lib/docker/cli-plugins",
    "/usr/libexec/docker/cli-plugins",
    "/Applications/Docker.app/Contents/Resources/cli-plugins",
];

/// What runs a Compose task here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ComposeProgram {
    /// `docker` (its path), with the Compose plugin installed: `docker compose …`.
    Plugin(PathBuf),
    /// The standalone `docker-compose` (its path): `docker-compose …`.
    Standalone(PathBuf),
}

impl ComposeProgram {
    fn binary(self) -> (&'static str, PathBuf) {
        match self {
            ComposeProgram::Plugin(path) => ("docker", path),
            ComposeProgram::Standalone(path) => ("docker-compose", path),
        }
    }
}

/// `docker compose` works only when Docker's Compose plugin is installed, which a `docker` on
/// `PATH` does not tell: the plugin is looked for where Docker looks for it, on disk (docker
/// is never run for it). Without the plugin, a standalone `docker-compose` on `PATH` runs the
/// same commands.
pub fn compose_program() -> Option<ComposeProgram> {
    if let Ok(docker) = which::which("docker") {
        let config = std::env::var_os("DOCKER_CONFIG")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".docker")));
        let user = config.map(|c| c.join("cli-plugins"));
        let plugin = user
            .into_iter()
            .chain(DOCKER_PLUGIN_DIRS.iter().map(PathBuf::from))
            .any(|dir| is_executable(&dir.join("docker-compose")));
        if plugin {
            return Some(ComposeProgram::Plugin(docker));
        }
    }
    which::which("docker-compose")
        .ok()
        .map(ComposeProgram::Standalone)
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}
