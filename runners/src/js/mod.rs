//! The JavaScript runners: `package.json` scripts, Turborepo tasks (`turbo.json`,
//! `turbo.jsonc`) and Nx targets (`project.json`, and the `nx` key of `package.json`, which
//! the package.json adapter hands to [`nx::from_package_json`]).
//!
//! All three run through the package's or workspace's package manager, chosen by one rule
//! ([`manager::detect_manager`]): `pnpm run build`, `pnpm exec turbo run build`, `npx nx run
//! web:build`. Nothing here runs JavaScript: every file is read as JSON.

pub mod manager;
pub mod nx;
pub mod package_json;
mod reads;
mod turbo;

use crate::doc::{self, Dialect, Node};
use crate::files::{Files, file_name, join, parent};
use crate::model::{Adapter, Neighbours, Runner};

/// `turbo.json`, or `turbo.jsonc` when there is no `turbo.json`.
pub const TURBO: Adapter = Adapter {
    name: "turbo.json",
    candidate: |path| match file_name(path) {
        "turbo.json" => Some(0),
        "turbo.jsonc" => Some(1),
        _ => None,
    },
    one_per_dir: true,
    admit: None,
    neighbours: Some(NEIGHBOURS),
    parse: turbo::parse,
};

/// Nx `project.json`.
pub const NX_PROJECT: Adapter = Adapter {
    name: "project.json",
    candidate: |path| (file_name(path) == "project.json").then_some(0),
    one_per_dir: true,
    admit: None,
    neighbours: Some(NEIGHBOURS),
    parse: nx::parse_project_json,
};

/// Files whose appearance or edit changes how the files of this module below them are read:
/// the Nx workspace and its `targetDefaults`, the root Turborepo configuration a package's
/// `turbo.json` extends, a package's name, and the lockfiles that say which package manager
/// runs the scripts.
const MARKERS: [&str; 4 + manager::LOCKFILES.len()] = {
    let own = ["nx.json", "turbo.json", "turbo.jsonc", "package.json"];
    let mut all = [""; 4 + manager::LOCKFILES.len()];
    let mut i = 0;
    while i < own.len() {
        all[i] = own[i];
        i += 1;
    }
    let mut j = 0;
    while j < manager::LOCKFILES.len() {
        all[i + j] = manager::LOCKFILES[j].0;
        j += 1;
    }
    all
};

/// Every file of the three formats reads the [`MARKERS`] in its directory or above it.
const NEIGHBOURS: Neighbours = Neighbours {
    markers: &MARKERS,
    read_by: |_| true,
};

/// The argv that runs `program` (a package's binary: `turbo`, `nx`) with `args` through the
/// package manager `manager`, the way each documents it: `npx`, `pnpm exec`, `yarn <bin>`
/// and `bun x` all find the workspace's own `node_modules/.bin` first.
fn through_manager(manager: Runner, program: &str, args: &[&str]) -> Vec<String> {
    let launcher: &[&str] = match manager {
        Runner::Pnpm => &["pnpm", "exec"],
        Runner::Yarn => &["yarn"],
        Runner::Bun => &["bun", "x"],
        _ => &["npx"],
    };
    launcher
        .iter()
        .chain(std::iter::once(&program))
        .chain(args)
        .map(|s| (*s).to_owned())
        .collect()
}

/// The nearest directory at or above `dir` (root-relative) that holds one of `names`, with
/// the name found there.
fn nearest<'n>(dir: &str, names: &[&'n str], files: &dyn Files) -> Option<(String, &'n str)> {
    let mut current = dir.to_owned();
    loop {
        if let Some(name) = names
            .iter()
            .find(|name| join(&current, name).is_some_and(|p| files.exists(&p)))
        {
            return Some((current, name));
        }
        if current == "." {
            return None;
        }
        current = String::from(parent(&current));
    }
}

/// The file `name` in `dir`, parsed, when it is there and valid (its own problems are
/// reported when it is read as a task file, or do not matter here).
fn read_json(dir: &str, name: &str, files: &dyn Files) -> Option<Node> {
    let path = join(dir, name)?;
    let text = files.read(&path).ok()?;
    doc::read_jsonc(&text, Dialect::Strict).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_manager_launches_the_workspace_binary_its_own_way() {
        let cases = [
            (Runner::Npm, "npx turbo run build"),
            (Runner::Pnpm, "pnpm exec turbo run build"),
            (Runner::Yarn, "yarn turbo run build"),
            (Runner::Bun, "bun x turbo run build"),
        ];
        for (manager, expected) in cases {
            assert_eq!(
                through_manager(manager, "turbo", &["run", "build"]).join(" "),
                expected
            );
        }
    }

    #[test]
    fn nearest_walks_up_to_the_root() {
        let files = crate::files::MemFiles::new()
            .with("nx.json", "{}")
            .with("apps/web/turbo.json", "{}");
        assert_eq!(
            nearest("apps/web/src", &["turbo.json"], &files),
            Some(("apps/web".to_owned(), "turbo.json"))
        );
        assert_eq!(
            nearest("apps/web", &["nx.json"], &files),
            Some((".".to_owned(), "nx.json"))
        );
        assert_eq!(nearest("apps", &["turbo.jsonc"], &files), None);
    }
}
