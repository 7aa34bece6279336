//! The Python ecosystem: Poe the Poet tasks, PDM scripts, Hatch environment scripts,
//! console scripts (run through uv or Poetry), tox environments and nox sessions.
//!
//! One `pyproject.toml` can hold the tasks of five runners, and the scan hands each file to
//! one adapter, so [`PYPROJECT`] reads the file once and gives each runner's module its
//! part. The runners' own files (`poe_tasks.toml`, `hatch.toml`, `tox.ini`/`tox.toml`,
//! `noxfile.py`) have an adapter each. Nothing here runs Python: a noxfile is read as text.

mod hatch;
mod nox;
mod pdm;
mod poe;
mod scripts;
mod tox;

use crate::doc::{self, Node, Report};
use crate::files::file_name;
use crate::files::{Files, join, parent};
use crate::model::{Adapter, Neighbours};
use crate::model::{Parsed, Source};
use crate::reads::Purpose;

/// `pyproject.toml`: `[tool.poe]`, `[tool.pdm.scripts]`, `[tool.hatch.envs]`,
/// `[project.scripts]`, `[tool.poetry.scripts]` and `[tool.tox]`.
pub const PYPROJECT: Adapter = Adapter {
    name: "pyproject.toml",
    candidate: |path| (file_name(path) == "pyproject.toml").then_some(0),
    one_per_dir: true,
    admit: None,
    neighbours: Some(NEIGHBOURS),
    parse: parse_pyproject,
};

/// `poe_tasks.toml`, `.yaml`, `.yml` or `.json`, read when `pyproject.toml` has no
/// `[tool.poe]` (poe's own order).
pub const POE_TASKS: Adapter = Adapter {
    name: "poe_tasks",
    candidate: |path| match file_name(path) {
        "poe_tasks.toml" => Some(0),
        "poe_tasks.yaml" => Some(1),
        "poe_tasks.yml" => Some(2),
        "poe_tasks.json" => Some(3),
        _ => None,
    },
    one_per_dir: true,
    admit: None,
    neighbours: Some(NEIGHBOURS),
    parse: poe::parse_tasks_file,
};

/// `hatch.toml`: `[envs.<env>.scripts]`.
pub const HATCH_TOML: Adapter = Adapter {
    name: "hatch.toml",
    candidate: |path| (file_name(path) == "hatch.toml").then_some(0),
    one_per_dir: true,
    admit: None,
    neighbours: None,
    parse: hatch::parse_hatch_toml,
};

/// `tox.ini`, or `tox.toml` when there is no `tox.ini` (tox's own order).
pub const TOX: Adapter = Adapter {
    name: "tox",
    candidate: |path| match file_name(path) {
        "tox.ini" => Some(0),
        "tox.toml" => Some(1),
        _ => None,
    },
    one_per_dir: true,
    admit: None,
    // `tox.toml` yields to a `[tool.tox]` table of `pyproject.toml`; `tox.ini` to nothing.
    neighbours: Some(Neighbours {
        read_by: |path| file_name(path) == "tox.toml",
        ..NEIGHBOURS
    }),
    parse: tox::parse_file,
};

/// `noxfile.py`, read as text.
pub const NOX: Adapter = Adapter {
    name: "noxfile.py",
    candidate: |path| (file_name(path) == "noxfile.py").then_some(0),
    one_per_dir: true,
    admit: None,
    neighbours: None,
    parse: nox::parse,
};

/// Files whose appearance or edit changes how the Python task files in their directory (and,
/// for a uv workspace's `uv.lock`, below it) are read: which runner runs console scripts,
/// which of two configuration files a runner reads.
const MARKERS: &[&str] = &[
    "pyproject.toml",
    "uv.lock",
    "poetry.lock",
    "pdm.lock",
    "hatch.toml",
    "tox.ini",
    "tox.toml",
];

/// The [`MARKERS`], read by every file of a format.
const NEIGHBOURS: Neighbours = Neighbours {
    markers: MARKERS,
    read_by: |_| true,
};

fn parse_pyproject(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    let Some(root) = doc::read_toml(src.text).or_report(src.path, &mut out) else {
        return out;
    };
    let project = Project::of(src);
    poe::from_pyproject(&project, &root, &mut out);
    pdm::from_pyproject(&project, &root, &mut out);
    hatch::from_pyproject(&project, &root, &mut out);
    scripts::from_pyproject(&project, &root, &mut out);
    tox::from_pyproject(&project, &root, &mut out);
    let name = root
        .path(&["project", "name"])
        .or_else(|| root.path(&["tool", "poetry", "name"]))
        .and_then(Node::str);
    out.name_package(name);
    out
}

/// The file being read and where it sits.
pub(crate) struct Project<'a> {
    /// The file, root-relative.
    pub path: &'a str,
    /// Its directory: where the runner is invoked.
    pub dir: &'a str,
    /// The rest of the repository.
    pub files: &'a dyn Files,
    /// Why the file is read: for a decision, tasks say what they read.
    pub purpose: Purpose,
}

impl<'a> Project<'a> {
    /// The project of the file `src` reads.
    pub fn of(src: &Source<'a>) -> Self {
        Project {
            path: src.path,
            dir: parent(src.path),
            files: src.files,
            purpose: src.purpose,
        }
    }

    /// The root-relative path of `name` in the project's directory.
    pub fn sibling(&self, name: &str) -> String {
        join(self.dir, name).unwrap_or_else(|| name.to_owned())
    }

    /// Whether `name` exists in the project's directory.
    pub fn has(&self, name: &str) -> bool {
        self.files.exists(&self.sibling(name))
    }

    /// The project's `pyproject.toml`, when it is there and valid TOML.
    pub fn pyproject(&self) -> Option<Node> {
        let text = self.files.read(&self.sibling("pyproject.toml")).ok()?;
        doc::read_toml(&text).ok()
    }

    /// Whether `tool` reads its settings from `pyproject.toml` rather than this file,
    /// because that file has a `[tool.<tool>]` table; if so, says so in `out`.
    pub fn yields_to_pyproject(&self, tool: &str, out: &mut Parsed) -> bool {
        let yields = self
            .pyproject()
            .is_some_and(|p| p.path(&["tool", tool]).is_some());
        if yields {
            out.diag(
                self.path,
                None,
                format!(
                    "{tool} ignores this file because pyproject.toml next to it has a [tool.{tool}] table"
                ),
            );
        }
        yields
    }
}

/// The task name a `deps`/`composite`/`sequence` entry refers to: its first word.
pub(crate) fn first_word(command: &str) -> Option<String> {
    command.split_whitespace().next().map(str::to_owned)
}
