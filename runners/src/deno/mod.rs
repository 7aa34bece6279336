//! Deno tasks: the `tasks` object of `deno.json` or `deno.jsonc` (deno reads `deno.json` when
//! both are there), each run as `deno task NAME args` from the file's directory. A task is a
//! command string or an object with `command`, `description` and `dependencies`; deno
//! appends the arguments to the command and runs it in its own cross-platform shell.
//!
//! Both files are read as JSON with comments, as deno reads them. A workspace root's members
//! are checked here ([`workspace`]); each member's own file is listed on its own, and its
//! dependencies may name the root's tasks.

mod workspace;

use std::collections::{HashMap, HashSet};

use crate::doc::{self, Dialect, Node, Report, Terms, Value};
use crate::files::{file_name, join, parent};
use crate::model::{Adapter, Parsed, Runner, Source, Task};
use crate::reads::{Purpose, Reads};

/// The deno adapter.
pub const ADAPTER: Adapter = Adapter {
    name: "deno",
    candidate,
    one_per_dir: true,
    admit: None,
    neighbours: None,
    parse,
};

/// deno's configuration files in one directory, in the order deno prefers them.
const CONFIG_FILES: [&str; 2] = ["deno.json", "deno.jsonc"];

/// Said of every mistake that makes deno refuse the configuration as a whole.
const REFUSED: &str = "deno refuses the whole file until it is fixed";

fn candidate(path: &str) -> Option<u8> {
    let name = file_name(path);
    CONFIG_FILES
        .iter()
        .position(|f| *f == name)
        .and_then(|i| u8::try_from(i).ok())
}

fn parse(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    let Some(root) = doc::read_jsonc(src.text, Dialect::Loose)
        .and_then(|root| {
            root.into_table_or("deno's configuration must be an object", Terms::Toml)
                .map_err(|err| err.at(1))
        })
        .or_report(src.path, &mut out)
    else {
        return out;
    };
    let dir = parent(src.path);
    if file_name(src.path) == CONFIG_FILES[0]
        && join(dir, CONFIG_FILES[1]).is_some_and(|p| src.files.exists(&p))
    {
        let message = "deno reads this file and ignores the deno.jsonc beside it";
        out.diag(src.path, None, message);
    }
    if let Some(members) = root.get("workspace") {
        workspace::check_members(src, dir, members, &mut out);
    }
    let Some(tasks) = root.get("tasks") else {
        return out;
    };
    let Some(entries) = tasks
        .table_or("`tasks` must be an object", Terms::Toml)
        .map_err(|err| err.then(REFUSED))
        .or_report(src.path, &mut out)
    else {
        return out;
    };
    for entry in entries {
        if let Some(task) = read_task(src.path, dir, &entry.key, &entry.node, &mut out) {
            out.tasks.push(task);
        }
    }
    check_dependencies(src, dir, &mut out);
    out.name_package(root.get("name").and_then(Node::str));
    if src.purpose == Purpose::Decide {
        for task in &mut out.tasks {
            task.reads = Some(Box::new(reads(&root, tasks, &task.source_name)));
        }
    }
    out
}

/// Keys of a deno configuration that do not change what a task runs.
const NOT_READ: &[&str] = &[
    "tasks",
    "name",
    "version",
    "description",
    "exports",
    "publish",
];

/// What the task `name` reads, for a pin: its entry (without `description`), and every other
/// part of the configuration that changes how deno runs code (`imports`, `compilerOptions`,
/// `nodeModulesDir`, `unstable`, `lock`, …), but not the other tasks, the package's name,
/// version or exports. Its dependencies are its deps.
fn reads(root: &Node, tasks: &Node, name: &str) -> Reads {
    let mut reads = Reads::default();
    let entry = tasks.get(name).map(|node| match node.entries() {
        Some(entries) => Node::new(
            node.line,
            Value::Table(
                entries
                    .iter()
                    .filter(|e| e.key != "description")
                    .cloned()
                    .collect(),
            ),
        ),
        None => node.clone(),
    });
    reads.part(
        "task entry",
        entry.map(|n| n.canonical()).unwrap_or_default(),
    );
    for entry in root.entries().unwrap_or_default() {
        if !NOT_READ.contains(&entry.key.as_str()) {
            reads.part(format!("setting `{}`", entry.key), entry.node.canonical());
        }
    }
    reads
}

/// One entry of `tasks`: a command string, or `{command, description, dependencies}` where
/// every key is optional (a task of dependencies alone runs them and nothing else).
fn read_task(file: &str, dir: &str, name: &str, node: &Node, out: &mut Parsed) -> Option<Task> {
    let line = Some(node.line);
    if name.is_empty() {
        out.diag(
            file,
            line,
            "a task with an empty name cannot be named to run it",
        );
        return None;
    }
    if name.starts_with('-') {
        let message = format!(
            "task `{name}` starts with `-`: `deno task` reads it as an option and cannot run it"
        );
        out.diag(file, line, message);
        return None;
    }
    let argv = vec!["deno".to_owned(), "task".to_owned(), name.to_owned()];
    let mut task = Task::new(Runner::Deno, name, dir, file, argv);
    task.line = line;
    if let Some(command) = node.str() {
        task.script = Some(command.to_owned());
        return Some(task);
    }
    if node.entries().is_none() {
        let message = format!(
            "task `{name}` must be a command string or an object with `command`, not {}; {REFUSED}",
            node.kind()
        );
        out.diag(file, line, message);
        return None;
    }
    let mut problem = |key: &str, what: &str, found: &Node| {
        let expected = format!("`{key}` of task `{name}` must be {what}");
        found
            .mismatch(&expected, Terms::Toml)
            .then(REFUSED)
            .report(file, out);
    };
    // `null` is as good as leaving the key out, for deno as here.
    let given = |key: &str| node.get(key).filter(|n| n.value != Value::Other);
    if let Some(command) = given("command") {
        let Some(command) = command.str() else {
            problem("command", "a string", command);
            return None;
        };
        task.script = Some(command.to_owned());
    }
    if let Some(description) = given("description") {
        let Some(text) = description.str() else {
            problem("description", "a string", description);
            return None;
        };
        let text = text.trim();
        task.description = (!text.is_empty()).then(|| text.to_owned());
    }
    if let Some(deps) = given("dependencies") {
        let names: Option<Vec<&str>> = deps.items().and_then(|i| i.iter().map(Node::str).collect());
        let Some(names) = names else {
            problem("dependencies", "an array of task names", deps);
            return None;
        };
        let mut seen = HashSet::new();
        task.deps = names
            .into_iter()
            .filter(|dep| seen.insert(*dep))
            .map(str::to_owned)
            .collect();
    }
    Some(task)
}

/// Reports dependencies deno would not find (neither here nor, for a workspace member, in
/// the workspace root) and the first cycle among the file's tasks: deno stops on either
/// before running anything.
fn check_dependencies(src: &Source<'_>, dir: &str, out: &mut Parsed) {
    let local: HashMap<&str, usize> = out
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.source_name.as_str(), i))
        .collect();
    let mut root_tasks: Option<HashSet<String>> = None;
    let mut problems = Vec::new();
    for task in &out.tasks {
        for dep in &task.deps {
            if local.contains_key(dep.as_str()) {
                continue;
            }
            let root = root_tasks
                .get_or_insert_with(|| workspace::root_tasks(src.files, dir).unwrap_or_default());
            if !root.contains(dep) {
                problems.push((
                    task.line,
                    format!(
                        "task `{}` depends on `{dep}`, which is not a task here: deno stops with \"Task not found\"",
                        task.source_name
                    ),
                ));
            }
        }
    }
    if let Some(cycle) = first_cycle(&out.tasks, &local) {
        let line = local.get(cycle[0]).and_then(|&i| out.tasks[i].line);
        let path = cycle.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>();
        problems.push((
            line,
            format!(
                "tasks depend on each other in a cycle ({} → `{}`): deno refuses to run them",
                path.join(" → "),
                cycle[0]
            ),
        ));
    }
    for (line, message) in problems {
        out.diag(src.path, line, message);
    }
}

/// The first dependency cycle among `tasks`, as the names along it; one depth-first walk,
/// without recursion, so any number of tasks costs linear time and constant stack.
fn first_cycle<'a>(tasks: &'a [Task], index: &HashMap<&str, usize>) -> Option<Vec<&'a str>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let mut marks = vec![Mark::New; tasks.len()];
    for start in 0..tasks.len() {
        if marks[start] != Mark::New {
            continue;
        }
        // The path from `start`: each task and how many of its deps were already followed.
        let mut stack = vec![(start, 0usize)];
        marks[start] = Mark::Open;
        while let Some(&mut (at, ref mut next)) = stack.last_mut() {
            let Some(dep) = tasks[at].deps.get(*next) else {
                marks[at] = Mark::Done;
                stack.pop();
                continue;
            };
            *next += 1;
            let Some(&to) = index.get(dep.as_str()) else {
                continue;
            };
            match marks[to] {
                Mark::New => {
                    marks[to] = Mark::Open;
                    stack.push((to, 0));
                }
                Mark::Open => {
                    let from = stack.iter().position(|&(i, _)| i == to).unwrap_or(0);
                    let cycle = stack[from..]
                        .iter()
                        .map(|&(i, _)| tasks[i].source_name.as_str())
                        .collect();
                    return Some(cycle);
                }
                Mark::Done => {}
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::MemFiles;
    use crate::testing::{lines, messages, names, parse_one, parse_with, task};
    use indoc::indoc;

    const DENO_JSONC: &str = r#"// The web app's tasks.
{
  "tasks": {
    /* a plain command */
    "dev": "deno run --watch main.ts",
    "build": {
      "description": "Bundle the app",
      "command": "deno bundle main.ts dist/app.js",
      "dependencies": ["check", "check"],
    },
    "check": "deno check main.ts",
    "ci": { "dependencies": ["check", "build"] },
  },
}
"#;

    #[test]
    fn tasks_are_strings_or_objects_with_their_description_and_dependencies() {
        let parsed = parse_one(parse, "deno.jsonc", DENO_JSONC);
        assert_eq!(names(&parsed), ["dev", "build", "check", "ci"]);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let dev = task(&parsed, "dev");
        assert_eq!(dev.argv, ["deno", "task", "dev"]);
        assert_eq!(dev.script.as_deref(), Some("deno run --watch main.ts"));
        assert_eq!(dev.line, Some(5));
        let build = task(&parsed, "build");
        assert_eq!(build.description.as_deref(), Some("Bundle the app"));
        assert_eq!(build.deps, ["check"]);
        assert_eq!(build.line, Some(6));
        let ci = task(&parsed, "ci");
        assert_eq!(ci.script, None);
        assert_eq!(ci.deps, ["check", "build"]);
        assert_eq!(ci.dir, ".");
        assert_eq!(ci.runner, Runner::Deno);
    }

    #[test]
    fn deno_json_wins_over_deno_jsonc_and_says_so() {
        assert_eq!(candidate("deno.json"), Some(0));
        assert_eq!(candidate("apps/api/deno.jsonc"), Some(1));
        assert_eq!(candidate("package.json"), None);
        let files = MemFiles::new()
            .with("deno.json", r#"{"tasks": {"a": "echo a"}}"#)
            .with("deno.jsonc", r#"{"tasks": {"b": "echo b"}}"#);
        let parsed = parse_with(parse, &files, "deno.json");
        assert_eq!(names(&parsed), ["a"]);
        assert_eq!(
            lines(&parsed),
            [(
                None,
                "deno reads this file and ignores the deno.jsonc beside it"
            )]
        );
    }

    #[test]
    fn a_bad_task_costs_a_diagnostic_and_the_others_stay() {
        let text = indoc! {"
            {
             \"tasks\": {
              \"n\": 5,
              \"ok\": \"echo ok\",
              \"c\": {\"command\": [\"echo\"]},
              \"d\": {\"description\": 1},
              \"e\": {\"dependencies\": \"ok\"},
              \"\": \"echo empty\",
              \"-x\": \"echo dash\",
              \"nul\": {\"command\": null}
             }
            }
        "};
        let parsed = parse_one(parse, "deno.json", text);
        assert_eq!(names(&parsed), ["ok", "nul"]);
        let found = lines(&parsed);
        let at: Vec<Option<u32>> = found.iter().map(|(l, _)| *l).collect();
        assert_eq!(at, [Some(3), Some(5), Some(6), Some(7), Some(8), Some(9)]);
        assert!(found[0].1.contains("not a number") && found[0].1.contains(REFUSED));
        assert!(
            found[1]
                .1
                .contains("`command` of task `c` must be a string")
        );
        assert!(found[3].1.contains("an array of task names"));
        assert!(found[5].1.contains("reads it as an option"));
    }

    #[test]
    fn invalid_jsonc_and_deep_nesting_are_one_diagnostic_with_a_line() {
        let parsed = parse_one(
            parse,
            "deno.jsonc",
            indoc! {"
                {
                  \"tasks\": {
                    \"a\": \"x\",
                    \"b\": tru
                  }
                }
            "},
        );
        let found = messages(&parsed);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].1, Some(4));
        assert!(found[0].2.starts_with("invalid JSON: "), "{found:?}");
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let parsed = parse_one(parse, "deno.jsonc", &deep);
        assert!(parsed.tasks.is_empty());
        assert_eq!(parsed.diagnostics.len(), 1);
        let parsed = parse_one(parse, "deno.json", "[]");
        assert_eq!(
            lines(&parsed),
            [(
                Some(1),
                "deno's configuration must be an object, not an array"
            )]
        );
        let parsed = parse_one(parse, "deno.json", "{\"tasks\": [\"a\"]}");
        assert!(
            lines(&parsed)[0]
                .1
                .starts_with("`tasks` must be an object, not an array")
        );
    }

    #[test]
    fn missing_dependencies_and_cycles_are_reported() {
        let text = r#"{"tasks": {
  "a": {"command": "echo a", "dependencies": ["b"]},
  "b": {"dependencies": ["c"]},
  "c": {"dependencies": ["a", "nope"]},
  "d": {"dependencies": ["c"]}
}}"#;
        let parsed = parse_one(parse, "deno.json", text);
        assert_eq!(names(&parsed), ["a", "b", "c", "d"]);
        let found = lines(&parsed);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].0, Some(4));
        assert!(found[0].1.contains("depends on `nope`"), "{found:?}");
        assert_eq!(found[1].0, Some(2));
        assert!(found[1].1.contains("`a` → `b` → `c` → `a`"), "{found:?}");
    }

    #[test]
    fn a_long_chain_of_dependencies_is_walked_without_recursion() {
        use std::fmt::Write as _;
        let count = 50_000;
        let mut text = String::from("{\"tasks\": {\n");
        for i in 0..count {
            let _ = writeln!(text, "\"t{i}\": {{\"dependencies\": [\"t{}\"]}},", i + 1);
        }
        let _ = writeln!(text, "\"t{count}\": {{\"dependencies\": [\"t0\"]}}\n}}}}");
        let parsed = parse_one(parse, "deno.json", &text);
        assert_eq!(parsed.tasks.len(), count + 1);
        assert_eq!(parsed.diagnostics.len(), 1);
        assert!(parsed.diagnostics[0].message.contains("cycle"));
    }

    #[test]
    fn a_member_may_depend_on_the_workspace_roots_tasks() {
        let files = MemFiles::new()
            .with(
                "deno.json",
                r#"{"workspace": ["./packages/*"], "tasks": {"fmt": "deno fmt"}}"#,
            )
            .with(
                "packages/api/deno.json",
                r#"{"tasks": {"serve": {"command": "deno serve main.ts", "dependencies": ["fmt", "gone"]}}}"#,
            );
        let parsed = parse_with(parse, &files, "packages/api/deno.json");
        let serve = task(&parsed, "serve");
        assert_eq!(serve.dir, "packages/api");
        let found = lines(&parsed);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].1.contains("depends on `gone`"), "{found:?}");
    }
}
