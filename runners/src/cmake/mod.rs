//! CMake: the presets of `CMakePresets.json` and `CMakeUserPresets.json` (configure, build,
//! test, package and workflow presets, each run with the command CMake gives it) and the
//! custom targets (`add_custom_target`) of the project's `CMakeLists.txt` files, built with
//! `cmake --build DIR --target NAME`.
//!
//! One project is one directory with presets, or a `CMakeLists.txt` whose parent directory
//! has none (a subdirectory's file belongs to the project that `add_subdirectory`s it). Its
//! tasks run from that directory. A custom target is built in the binary directory of the
//! first listed configure preset that names one, and in `build` (what `cmake -B build`
//! makes) when there is none.

mod condition;
mod lists;
mod presets;
mod syntax;
#[cfg(test)]
mod tests;

use presets::{Kind, Presets, step_kind, tidy};

use crate::doc::Node;
use crate::files::{file_name, join, parent};
use crate::model::{Adapter, Parsed, Runner, Source, Task};

/// The CMake adapter.
pub const ADAPTER: Adapter = Adapter {
    name: "cmake",
    candidate,
    one_per_dir: true,
    admit: None,
    neighbours: None,
    parse,
};

/// The build directory of custom targets when no configure preset names one.
pub const DEFAULT_BINARY_DIR: &str = "build";

/// The files of a project's directory, best first: the presets file read first is the one
/// that pulls in the others.
const FILE_NAMES: [&str; 3] = [
    "CMakePresets.json",
    "CMakeUserPresets.json",
    "CMakeLists.txt",
];

fn candidate(path: &str) -> Option<u8> {
    let name = file_name(path);
    // The name's first letter turns nearly every path away at once.
    if !name.starts_with('C') {
        return None;
    }
    FILE_NAMES
        .iter()
        .position(|n| *n == name)
        .and_then(|i| u8::try_from(i).ok())
}

fn parse(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    let dir = parent(src.path);
    let is_lists = file_name(src.path) == "CMakeLists.txt";
    if is_lists
        && dir != "."
        && join(parent(dir), "CMakeLists.txt").is_some_and(|p| src.files.exists(&p))
    {
        // Part of the project above, which reads it through `add_subdirectory`.
        return out;
    }
    let presets = if is_lists {
        Presets::default()
    } else {
        presets::read(src.files, dir, src.path, src.text, &mut out)
    };
    let mut tasks = preset_tasks(&presets, dir, &mut out);
    let lists_path = join(dir, "CMakeLists.txt").unwrap_or_default();
    let project = if is_lists {
        Some(lists::read(src.files, src.path, src.text, &mut out))
    } else if src.files.exists(&lists_path) {
        match src.files.read(&lists_path) {
            Ok(text) => {
                out.consumed.push(lists_path.clone());
                Some(lists::read(src.files, &lists_path, &text, &mut out))
            }
            Err(reason) => {
                out.diag(&lists_path, None, reason.to_string());
                None
            }
        }
    } else {
        None
    };
    if let Some(project) = project {
        tasks.extend(target_tasks(&presets, &project, dir));
    }
    out.consumed.sort();
    out.consumed.dedup();
    out.consumed.retain(|c| c != src.path);
    out.tasks = tasks;
    out
}

/// The command that runs a preset of `kind`.
fn preset_argv(kind: Kind, name: &str) -> Vec<String> {
    let words: &[&str] = match kind {
        Kind::Configure => &["cmake", "--preset"],
        Kind::Build => &["cmake", "--build", "--preset"],
        Kind::Test => &["ctest", "--preset"],
        Kind::Package => &["cpack", "--preset"],
        Kind::Workflow => &["cmake", "--workflow", "--preset"],
    };
    let mut argv: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
    argv.push(name.to_owned());
    argv
}

/// The task name of a preset: its kind, a colon and its name (a configure and a build
/// preset are often both called `release`).
fn task_name(kind: Kind, name: &str) -> String {
    format!("{}:{name}", kind.word())
}

fn preset_tasks(presets: &Presets, dir: &str, out: &mut Parsed) -> Vec<Task> {
    let mut tasks = Vec::new();
    for (i, preset) in presets.list.iter().enumerate() {
        if preset.hidden || presets.is_cyclic(i) || !presets.enabled(i) {
            continue;
        }
        let mut task = Task::new(
            Runner::Cmake,
            task_name(preset.kind, &preset.name),
            dir,
            preset.file.clone(),
            preset_argv(preset.kind, &preset.name),
        );
        task.line = Some(preset.line);
        task.description = match (&preset.display_name, &preset.description) {
            (Some(shown), Some(long)) if shown != long => Some(format!("{shown}: {long}")),
            (Some(text), _) | (None, Some(text)) => Some(text.clone()),
            (None, None) => None,
        };
        let mut lines = Vec::new();
        if preset.kind == Kind::Workflow {
            if !workflow_steps(presets, i, &mut task, &mut lines, out) {
                continue;
            }
        } else if preset.kind == Kind::Configure {
            configure_lines(presets, i, &mut lines);
        } else {
            let Some(configure) = presets.field(i, "configurePreset").and_then(Node::str) else {
                let message = format!(
                    "{} preset `{}` names no `configurePreset`; CMake refuses it",
                    preset.kind.word(),
                    preset.name
                );
                out.diag(&preset.file, Some(preset.line), message);
                continue;
            };
            if let Some(why) = presets.refusal(i, Kind::Configure, configure, false) {
                let message = format!(
                    "{} preset `{}` uses configure preset `{configure}`, which is {why}; CMake refuses it",
                    preset.kind.word(),
                    preset.name
                );
                out.diag(&preset.file, Some(preset.line), message);
                continue;
            }
            task.deps.push(task_name(Kind::Configure, configure));
            lines.push(format!("configurePreset: {configure}"));
            for key in ["configuration", "jobs"] {
                if let Some(value) = presets.field(i, key).and_then(Node::scalar) {
                    lines.push(format!("{key}: {value}"));
                }
            }
            if let Some(targets) = presets.field(i, "targets") {
                let names: Vec<String> = targets
                    .str()
                    .map(|t| vec![t.to_owned()])
                    .or_else(|| {
                        targets.items().map(|items| {
                            items
                                .iter()
                                .filter_map(|t| t.str().map(str::to_owned))
                                .collect()
                        })
                    })
                    .unwrap_or_default();
                if !names.is_empty() {
                    lines.push(format!("targets: {}", names.join(", ")));
                }
            }
        }
        if !lines.is_empty() {
            task.script = Some(lines.join("\n"));
        }
        tasks.push(task);
    }
    tasks
}

/// What `describe` shows of a configure preset: generator, binary directory, toolchain and
/// cache variables, inherited ones included.
fn configure_lines(presets: &Presets, i: usize, lines: &mut Vec<String>) {
    for key in ["generator", "binaryDir", "toolchainFile", "installDir"] {
        let value = presets
            .expanded(i, key)
            .map(|v| if key == "generator" { v } else { tidy(&v) })
            .or_else(|| presets.field(i, key).and_then(Node::str).map(str::to_owned));
        if let Some(value) = value {
            lines.push(format!("{key}: {value}"));
        }
    }
    for (name, value) in presets.map(i, "cacheVariables") {
        if let Some(value) = value {
            lines.push(format!("-D{name}={value}"));
        }
    }
}

/// A workflow's steps become its dependencies (`configure:x`, `build:x`, …), in order. A
/// workflow CMake would refuse is reported and not listed.
fn workflow_steps(
    presets: &Presets,
    i: usize,
    task: &mut Task,
    lines: &mut Vec<String>,
    out: &mut Parsed,
) -> bool {
    let preset = &presets.list[i];
    let refuse = |out: &mut Parsed, why: String| {
        out.diag(
            &preset.file,
            Some(preset.line),
            format!("workflow preset `{}` {why}; CMake refuses it", preset.name),
        );
        false
    };
    let Some(steps) = presets.field(i, "steps").and_then(|n| n.items()) else {
        return refuse(out, "has no `steps` array".to_owned());
    };
    for (n, step) in steps.iter().enumerate() {
        let kind_word = step.get("type").and_then(|t| t.str()).unwrap_or_default();
        let name = step.get("name").and_then(|t| t.str()).unwrap_or_default();
        let Some(kind) = step_kind(kind_word) else {
            return refuse(out, format!("has a step of type `{kind_word}`"));
        };
        if (n == 0) != (kind == Kind::Configure) {
            return refuse(out, "must start with its one configure step".to_owned());
        }
        if let Some(why) = presets.refusal(i, kind, name, false) {
            return refuse(
                out,
                format!("runs {kind_word} preset `{name}`, which is {why}"),
            );
        }
        task.deps.push(task_name(kind, name));
        lines.push(format!("{kind_word} {name}"));
    }
    if steps.is_empty() {
        return refuse(out, "has no steps".to_owned());
    }
    true
}

/// The binary directory custom targets are built in, relative to the project directory,
/// and the configure preset that makes it (if any).
fn binary_dir(presets: &Presets) -> (String, Option<String>) {
    presets
        .list
        .iter()
        .enumerate()
        .filter(|(i, p)| {
            p.kind == Kind::Configure && !p.hidden && !presets.is_cyclic(*i) && presets.enabled(*i)
        })
        .find_map(|(i, p)| {
            Some((
                tidy(&presets.expanded(i, "binaryDir")?),
                Some(p.name.clone()),
            ))
        })
        .unwrap_or_else(|| (DEFAULT_BINARY_DIR.to_owned(), None))
}

fn target_tasks(presets: &Presets, project: &lists::Project, dir: &str) -> Vec<Task> {
    let (binary_dir, configure) = binary_dir(presets);
    let names: std::collections::HashSet<&str> =
        project.targets.iter().map(|t| t.name.as_str()).collect();
    project
        .targets
        .iter()
        .map(|target| {
            let argv = ["cmake", "--build", &binary_dir, "--target", &target.name]
                .map(str::to_owned)
                .to_vec();
            let mut task = Task::new(
                Runner::Cmake,
                target.name.clone(),
                dir,
                target.file.clone(),
                argv,
            );
            task.line = Some(target.line);
            task.description.clone_from(&target.comment);
            if let Some(configure) = &configure {
                task.deps.push(task_name(Kind::Configure, configure));
            }
            for dep in &target.depends {
                if names.contains(&dep.as_str()) && !task.deps.contains(dep) && *dep != target.name
                {
                    task.deps.push(dep.clone());
                }
            }
            let note = target.note.as_ref().map(|note| {
                format!("# agg did not evaluate {note}; CMake may not define this target")
            });
            let lines: Vec<&str> = note
                .iter()
                .chain(&target.commands)
                .map(String::as_str)
                .collect();
            if !lines.is_empty() {
                task.script = Some(lines.join("\n"));
            }
            task.behaviour.interactive = target.uses_terminal;
            task
        })
        .collect()
}
