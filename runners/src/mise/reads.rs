//! What a mise task reads, for a pin: the settings of every config file of its project
//! (`[env]`, `[tools]`, `[vars]`, `[settings]`, `[hooks]`, `[task_config]`, …: everything but
//! `[tasks]`), its own entry in each file that defines or overlays it, a file task's bytes,
//! and the tasks its `run` steps call. Another task's entry is not read.

use crate::doc::{Node, Value, read_toml};
use crate::files::Files;
use crate::model::Task;
use crate::reads::Reads;

/// What `task` reads, given the project's config files (`configs`, highest precedence first).
pub(super) fn reads(task: &Task, configs: &[(String, Node)], files: &dyn Files) -> Reads {
    let mut reads = Reads::default();
    let name = task.source_name.as_str();
    for (path, root) in configs {
        let settings: Vec<_> = root
            .entries()
            .unwrap_or_default()
            .iter()
            .filter(|e| e.key != "tasks")
            .cloned()
            .collect();
        reads.part(
            format!("settings of {path}"),
            Node::new(root.line, Value::Table(settings)).canonical(),
        );
        if let Some(entry) = root.path(&["tasks", name]) {
            reads.part(format!("task entry in {path}"), entry.canonical());
            calls(entry, &mut reads);
        }
    }
    if !configs.iter().any(|(path, _)| *path == task.file_path) {
        let text = files.read(&task.file_path).unwrap_or_default();
        // mise reads an included task file as TOML by its exact name, as `locate` does.
        #[allow(clippy::case_sensitive_file_extension_comparisons)]
        let toml = task.file_path.ends_with(".toml");
        match read_toml(&text).ok().filter(|_| toml) {
            Some(root) => {
                let entry = root.get(name).map(Node::canonical).unwrap_or_default();
                reads.part(format!("task entry in {}", task.file_path), entry);
            }
            None => reads.part(format!("task file {}", task.file_path), text),
        }
    }
    reads
}

/// The tasks a task's `run` steps call (`{ task = "x" }`, `{ tasks = ["x", "y"] }`).
fn calls(entry: &Node, reads: &mut Reads) {
    let steps = entry.get("run").and_then(Node::items).unwrap_or_default();
    for step in steps {
        for key in ["task", "tasks"] {
            for name in step.get(key).and_then(Node::strs).unwrap_or_default() {
                reads.runs(name);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::MemFiles;
    use indoc::indoc;

    const MISE: &str = indoc! {"
        [env]
        PORT = \"8080\"

        [tools]
        node = \"22\"

        [tasks.test]
        run = \"npm test\"
        description = \"Tests\"

        [tasks.lint]
        run = \"eslint .\"
    "};

    fn read(text: &str, name: &str) -> Reads {
        let files = MemFiles::new()
            .with("mise.toml", text)
            .with_executable("mise-tasks/build", "#!/bin/sh\necho build\n");
        crate::testing::reads(super::super::ADAPTER.parse, &files, "mise.toml", name)
    }

    #[test]
    fn a_task_reads_the_settings_its_entry_and_a_file_task_s_bytes() {
        let test = read(MISE, "test");
        let whats: Vec<&str> = test.parts.iter().map(|p| p.what.as_str()).collect();
        assert_eq!(whats, ["settings of mise.toml", "task entry in mise.toml"]);
        assert_eq!(read(&MISE.replace("eslint .", "eslint src"), "test"), test);
        assert_ne!(read(&MISE.replace("\"22\"", "\"23\""), "test"), test);
        assert_ne!(read(&MISE.replace("8080", "9090"), "test"), test);
        let build = read(MISE, "build");
        assert!(
            build
                .parts
                .iter()
                .any(|p| p.what == "task file mise-tasks/build" && p.text.contains("echo build")),
            "{build:?}"
        );
    }
}
