//! Which runners are installed: one `PATH` lookup per runner binary (and per program a task
//! starts its runner through, `pnpm` of `pnpm exec turbo`), never one per task and never a
//! process. A runner's own binary inside the project (`.venv/bin/poe`,
//! `node_modules/.bin/turbo`) counts too, found in the task's directory or the nearest one
//! above it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use agg_runners::{Runner, Task};

/// The result of looking up each runner once.
#[derive(Debug, Clone, Default)]
pub struct Availability {
    found: BTreeMap<Runner, Option<(&'static str, PathBuf)>>,
    /// Programs tasks start their runner through, and whether each is on `PATH`.
    launchers: BTreeMap<String, bool>,
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
        Availability {
            found,
            launchers: BTreeMap::new(),
        }
    }

    /// Also looks up the programs tasks start their runner through (see [`launcher`]).
    #[must_use]
    pub fn with_launchers<'a>(mut self, names: impl IntoIterator<Item = &'a str>) -> Availability {
        for name in names {
            if !self.launchers.contains_key(name) {
                self.launchers
                    .insert(name.to_owned(), which::which(name).is_ok());
            }
        }
        self
    }

    /// Whether `task` can run: its runner is on `PATH` (or agg runs it itself) or inside the
    /// project (`in_project`: `.venv/bin/poe`, `node_modules/.bin/turbo` here or above, see
    /// [`project_program`]), and the program it starts the runner through, if any, is on
    /// `PATH` (looked up by [`Availability::with_launchers`]).
    pub fn available_with(&self, task: &Task, in_project: bool) -> bool {
        let runner = self.available(task.runner) || in_project;
        runner
            && launcher(task.runner, &task.argv)
                .is_none_or(|name| self.launchers.get(name).copied().unwrap_or(false))
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

/// The runner's program inside the project (`.venv/bin/poe`, `node_modules/.bin/turbo`), in
/// the task's directory or the nearest directory above it up to `root`, when it is there and
/// executable: its path relative to the task's directory, as shown in commands
/// (`../../node_modules/.bin/turbo`), and the full path.
pub fn project_program(root: &Path, dir: &str, runner: Runner) -> Option<(String, PathBuf)> {
    use std::os::unix::fs::PermissionsExt;
    let rels = runner.project_binaries();
    if rels.is_empty() {
        return None;
    }
    let mut at = if dir == "." { "" } else { dir };
    let mut up = String::new();
    loop {
        let found = rels.iter().find_map(|rel| {
            let path = root.join(at).join(rel);
            let meta = std::fs::metadata(&path).ok()?;
            (meta.is_file() && meta.permissions().mode() & 0o111 != 0)
                .then(|| (format!("{up}{rel}"), path))
        });
        if found.is_some() || at.is_empty() {
            return found;
        }
        at = at.rfind('/').map_or("", |i| &at[..i]);
        up.push_str("../");
    }
}

/// The project's own program that replaces the first word of `argv` (`poe` becomes
/// `.venv/bin/poe`): only when that word is one of the runner's binaries, so a task that
/// starts its runner through another program (`pnpm exec turbo run build`) keeps its command.
pub fn program_override(
    root: &Path,
    dir: &str,
    runner: Runner,
    argv: &[String],
) -> Option<(String, PathBuf)> {
    overrides(runner, argv)
        .then(|| project_program(root, dir, runner))
        .flatten()
}

/// Whether the project's own program would replace the first word of `argv` (see
/// [`program_override`]).
pub fn overrides(runner: Runner, argv: &[String]) -> bool {
    argv.first()
        .is_some_and(|first| runner.binaries().contains(&first.as_str()))
}

/// The program a task starts its runner through: the first word of its command when that is
/// a bare name and not one of the runner's own binaries (`pnpm` of `pnpm exec turbo run
/// build`, `npx` of `npx nx run web:build`).
pub fn launcher(runner: Runner, argv: &[String]) -> Option<&str> {
    let first = argv.first()?;
    (!first.contains('/') && !runner.binaries().contains(&first.as_str())).then_some(first)
}

/// Where the runner itself is for a task in `dir`: its program inside the project, else its
/// first binary on `PATH`.
pub fn runner_path(root: &Path, dir: &str, runner: Runner) -> Option<PathBuf> {
    project_program(root, dir, runner)
        .map(|(_, path)| path)
        .or_else(|| {
            runner
                .binaries()
                .iter()
                .find_map(|bin| which::which(bin).ok())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn only_a_foreign_bare_first_word_is_a_launcher() {
        let turbo = strings(&["pnpm", "exec", "turbo", "run", "build"]);
        assert_eq!(launcher(Runner::Turbo, &turbo), Some("pnpm"));
        assert_eq!(launcher(Runner::Poe, &strings(&["poe", "x"])), None);
        assert_eq!(launcher(Runner::GoTask, &strings(&["go-task", "x"])), None);
        assert_eq!(
            launcher(Runner::Poe, &strings(&[".venv/bin/poe", "x"])),
            None
        );
    }

    #[test]
    fn the_nearest_project_binary_up_the_tree_counts_and_replaces_only_the_runner() {
        use std::os::unix::fs::PermissionsExt;
        let root = tempfile::tempdir().expect("tempdir");
        let bin = root.path().join("node_modules/.bin");
        std::fs::create_dir_all(&bin).expect("mkdir");
        std::fs::create_dir_all(root.path().join("apps/web")).expect("mkdir");
        let turbo = bin.join("turbo");
        std::fs::write(&turbo, "#!/bin/sh\n").expect("write");
        std::fs::set_permissions(&turbo, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let (rel, path) = project_program(root.path(), "apps/web", Runner::Turbo).expect("found");
        assert_eq!(rel, "../../node_modules/.bin/turbo");
        assert_eq!(path, root.path().join("node_modules/.bin/turbo"));
        assert_eq!(
            project_program(root.path(), ".", Runner::Turbo).map(|(rel, _)| rel),
            Some("node_modules/.bin/turbo".to_owned())
        );
        assert!(project_program(root.path(), "apps/web", Runner::Nx).is_none());
        let through_pnpm = strings(&["pnpm", "exec", "turbo", "run", "build"]);
        assert!(program_override(root.path(), ".", Runner::Turbo, &through_pnpm).is_none());
        let direct = strings(&["turbo", "run", "build"]);
        assert!(program_override(root.path(), ".", Runner::Turbo, &direct).is_some());
    }
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
