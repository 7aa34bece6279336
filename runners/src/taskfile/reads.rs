//! What a go-task task reads, for a pin: its own entry (every key but `desc`, `summary`
//! and `label`, read as values so reformatting is no change), the settings of its Taskfile
//! and of every Taskfile that includes it (`env`, `dotenv` and the files it loads, `set`,
//! `shopt`, `silent`, `output`, `method`, `run`…), the include entries that bring it in,
//! the `vars` its templates name (transitively), and the tasks its commands call (`task:`).
//! A template that reads variables by a computed name (`{{index . $name}}`) is unknown.

use crate::doc::{Entry, Node, Value};
use crate::files::{Files, join, parent};
use crate::reads::Reads;

/// Keys of a task that change how it is listed, not what runs.
const DESCRIPTIVE: &[&str] = &["desc", "summary", "label"];

/// What a task entry reads of itself: the entry, and the variable names its templates use.
pub(super) fn task_reads(entry: &Entry) -> (Reads, Vec<String>) {
    let mut reads = Reads::default();
    let node = match &entry.node.value {
        Value::Table(entries) => Node::new(
            entry.node.line,
            Value::Table(
                entries
                    .iter()
                    .filter(|e| !DESCRIPTIVE.contains(&e.key.as_str()))
                    .cloned()
                    .collect(),
            ),
        ),
        _ => entry.node.clone(),
    };
    let text = node.canonical();
    let names = template_names(&text, &mut reads);
    reads.part("task entry", text);
    for call in calls(&entry.node) {
        reads.runs(call);
    }
    (reads, names)
}

/// The tasks a task's `cmds` call (`- task: name`), as written.
fn calls(node: &Node) -> Vec<String> {
    node.get("cmds")
        .and_then(Node::items)
        .unwrap_or_default()
        .iter()
        .filter_map(|cmd| cmd.get("task").and_then(Node::scalar).map(str::to_owned))
        .collect()
}

/// Adds what the Taskfile `file` at `path` gives a task of it (directly or through an
/// include) that uses the variables `names`: its settings, the variables among `names` it
/// defines (and those their values name), and the files its `dotenv` loads. The root Taskfile
/// (`root`) is the only one whose `dotenv` go-task reads.
pub(super) fn file_reads(
    reads: &mut Reads,
    path: &str,
    file: &Node,
    names: &[String],
    files: &dyn Files,
    root: bool,
) {
    let Some(entries) = file.entries() else {
        return;
    };
    for entry in entries {
        if matches!(entry.key.as_str(), "tasks" | "includes" | "vars") {
            continue;
        }
        reads.part(
            format!("setting `{}` of {path}", entry.key),
            entry.node.canonical(),
        );
        if entry.key == "env" {
            let names = template_names(&entry.node.canonical(), reads);
            follow(reads, path, file, names);
        }
    }
    if root && let Some(dotenv) = file.get("dotenv").and_then(Node::strs) {
        for name in dotenv {
            let text = join(parent(path), name)
                .and_then(|p| files.read(&p).ok())
                .unwrap_or_default();
            reads.part(format!("dotenv file `{name}`"), text);
        }
    }
    follow(reads, path, file, names.to_vec());
}

/// The include entry `ns` of the Taskfile at `path` that brings a task in, and the variables
/// its templates name.
pub(super) fn include_reads(reads: &mut Reads, path: &str, entry: &Entry) -> Vec<String> {
    let text = entry.node.canonical();
    let names = template_names(&text, reads);
    reads.part(format!("include `{}` of {path}", entry.key), text);
    names
}

/// Adds the `vars` of `file` named in `wanted`, and those their values name.
fn follow(reads: &mut Reads, path: &str, file: &Node, mut wanted: Vec<String>) {
    let vars = file.get("vars");
    let mut seen: Vec<String> = Vec::new();
    while let Some(name) = wanted.pop() {
        if seen.contains(&name) {
            continue;
        }
        seen.push(name.clone());
        let Some(value) = vars.and_then(|v| v.get(&name)) else {
            continue;
        };
        let text = value.canonical();
        wanted.extend(template_names(&text, reads));
        reads.part(format!("variable `{name}` of {path}"), text);
    }
}

/// The variable names the go-task templates (`{{…}}`) in `text` use (`.NAME`, and `NAME` in
/// `requires`/`vars` keys are values, not templates); a template that reads a variable by a
/// computed name makes `reads` unknown.
fn template_names(text: &str, reads: &mut Reads) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("{{") {
        let after = &rest[open + 2..];
        let close = after.find("}}").unwrap_or(after.len());
        let template = &after[..close];
        let bytes = template.as_bytes();
        for (i, b) in bytes.iter().enumerate() {
            if *b != b'.' {
                continue;
            }
            let name: String = template[i + 1..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let prev = i.checked_sub(1).map(|j| bytes[j]);
            let member = prev.is_some_and(|p| p.is_ascii_alphanumeric() || p == b'_' || p == b')');
            if member {
                continue;
            }
            if name.is_empty() {
                reads.unknown(format!(
                    "a template reads variables by a computed name (`{{{{{}}}}}`)",
                    template.trim()
                ));
            } else if !names.contains(&name) {
                names.push(name);
            }
        }
        rest = after.get(close + 2..).unwrap_or("");
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::MemFiles;
    use indoc::indoc;

    const TASKFILE: &str = indoc! {"
        version: '3'
        vars:
          GREETING: hello {{.WHO}}
          WHO: world
          UNUSED: x
        includes:
          lib: ./lib
        tasks:
          greet:
            desc: Greets
            cmds:
              - echo {{.GREETING}}
              - task: lib:helper
          other:
            cmds: [echo other]
    "};
    const LIB: &str = indoc! {"
        version: '3'
        tasks:
          helper:
            cmds: [echo help]
    "};

    fn read(taskfile: &str, lib: &str, name: &str) -> Reads {
        let files = MemFiles::new()
            .with("Taskfile.yml", taskfile)
            .with("lib/Taskfile.yml", lib)
            .with(".env", "TOKEN=1\n");
        crate::testing::reads(super::super::ADAPTER.parse, &files, "Taskfile.yml", name)
    }

    #[test]
    fn a_task_reads_its_entry_the_variables_it_names_and_the_tasks_it_calls() {
        let greet = read(TASKFILE, LIB, "greet");
        let whats: Vec<&str> = greet.parts.iter().map(|p| p.what.as_str()).collect();
        assert_eq!(
            whats,
            [
                "task entry",
                "setting `version` of Taskfile.yml",
                "variable `GREETING` of Taskfile.yml",
                "variable `WHO` of Taskfile.yml",
            ]
        );
        assert_eq!(greet.runs, ["lib:helper"]);
        let helper = read(TASKFILE, LIB, "lib:helper");
        assert!(
            helper
                .parts
                .iter()
                .any(|p| p.what == "include `lib` of Taskfile.yml"),
            "{helper:?}"
        );
    }

    #[test]
    fn unrelated_edits_keep_and_related_ones_change_what_it_reads() {
        let before = read(TASKFILE, LIB, "greet");
        for edited in [
            TASKFILE.replace("UNUSED: x", "UNUSED: y"),
            TASKFILE.replace("echo other", "echo changed"),
            TASKFILE.replace("desc: Greets", "desc: Says hello"),
            TASKFILE.replace(
                "cmds: [echo other]",
                indoc! {"
                    cmds:
                          - echo other"},
            ),
        ] {
            assert_eq!(read(&edited, LIB, "greet"), before, "{edited}");
        }
        for edited in [
            TASKFILE.replace("WHO: world", "WHO: $(id)"),
            TASKFILE.replace(
                "version: '3'\n",
                indoc! {"
                    version: '3'
                    env:
                      TOKEN: x
                "},
            ),
            TASKFILE.replace("version: '3'\n", "version: '3'\nset: [x]\n"),
            TASKFILE.replace("version: '3'\n", "version: '3'\ndotenv: ['.env']\n"),
        ] {
            assert_ne!(read(&edited, LIB, "greet"), before, "{edited}");
        }
        let helper = read(TASKFILE, LIB, "lib:helper");
        let moved = TASKFILE.replace(
            "lib: ./lib",
            indoc! {"
                lib:
                    taskfile: ./lib
                    dir: /tmp"},
        );
        assert_ne!(read(&moved, LIB, "lib:helper"), helper);
    }

    fn names(text: &str) -> Result<Vec<String>, String> {
        let mut reads = Reads::default();
        let found = template_names(text, &mut reads);
        reads.unknown.map_or(Ok(found), Err)
    }

    #[test]
    fn template_names_in_every_form() {
        assert_eq!(
            names("echo {{.GREETING}} {{ .NAME | upper }} {{index .MATCH 0}} {{.A}}{{.B.c}}"),
            Ok(vec!["GREETING", "NAME", "MATCH", "A", "B"]
                .into_iter()
                .map(str::to_owned)
                .collect())
        );
        assert!(names("{{index . \"X\"}}").is_err());
        assert_eq!(names("no templates, a.b and 1.5"), Ok(Vec::new()));
    }
}
