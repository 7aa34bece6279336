//! One MCP tool per task (`agg mcp --task-tools[=GLOB]`, the xc model), and the annotations
//! every execution tool carries.
//!
//! Names are `run_<name>` in `[a-z0-9_]`, at most 48 characters, with a hash suffix when
//! truncated; they stay unique even for clients that lowercase tool names and turn every
//! character outside `[a-z_]` into `_`.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::sync::Arc;

use agg_runners::{Param, Runner, Variadic};
use globset::{Glob, GlobMatcher};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use crate::table::{Table, Task};

/// Most per-task tools served unless the user asks for fewer.
pub const DEFAULT_CAP: usize = 40;
const MAX_NAME: usize = 48;

/// Which tasks get their own tool.
#[derive(Debug, Clone)]
pub struct TaskTools {
    glob: Option<GlobMatcher>,
    pattern: String,
    cap: usize,
}

/// One per-task tool and the task it runs.
#[derive(Debug, Clone)]
pub struct TaskTool {
    /// The tool.
    pub tool: Tool,
    /// The task's unique name.
    pub unique_name: String,
}

impl TaskTools {
    /// Per-task tools for the tasks whose unique names match `pattern` (`*` for all).
    pub fn new(pattern: &str, cap: usize) -> Result<TaskTools, String> {
        let glob = if pattern == "*" || pattern.is_empty() {
            None
        } else {
            Some(
                Glob::new(pattern)
                    .map_err(|e| format!("--task-tools: bad glob `{pattern}`: {e}"))?
                    .compile_matcher(),
            )
        };
        Ok(TaskTools {
            glob,
            pattern: pattern.to_owned(),
            cap,
        })
    }

    /// The tasks that get tools, or a message asking to narrow the glob when more than the
    /// cap match.
    pub fn select<'a>(&self, table: &'a Table) -> Result<Vec<&'a Task>, String> {
        let tasks: Vec<&Task> = table
            .tasks
            .iter()
            .filter(|t| {
                self.glob
                    .as_ref()
                    .is_none_or(|g| g.is_match(&t.unique_name))
            })
            .collect();
        if tasks.len() > self.cap {
            return Err(format!(
                "--task-tools={} matches {} tasks, more than the {} tools agg serves per task; narrow the glob (e.g. --task-tools='apps/web/*') — list_tasks and task_start still reach every task",
                self.pattern,
                tasks.len(),
                self.cap
            ));
        }
        Ok(tasks)
    }

    /// The tools for `table`: the first `cap` matches when too many match (with a warning
    /// logged), so a growing repository never takes the server down.
    pub fn tools(&self, table: &Table) -> Vec<TaskTool> {
        let tasks = match self.select(table) {
            Ok(tasks) => tasks,
            Err(message) => {
                tracing::warn!("{message}");
                table
                    .tasks
                    .iter()
                    .filter(|t| {
                        self.glob
                            .as_ref()
                            .is_none_or(|g| g.is_match(&t.unique_name))
                    })
                    .take(self.cap)
                    .collect()
            }
        };
        let names = tool_names(
            &tasks
                .iter()
                .map(|t| t.unique_name.as_str())
                .collect::<Vec<_>>(),
        );
        tasks
            .iter()
            .zip(names)
            .map(|(task, name)| TaskTool {
                tool: Tool::new(name, description(task), Arc::new(input_schema(task)))
                    .with_annotations(annotations(task)),
                unique_name: task.unique_name.clone(),
            })
            .collect()
    }
}

/// Tool names for unique task names, index-aligned.
pub fn tool_names(unique_names: &[&str]) -> Vec<String> {
    let mut taken: HashSet<String> = HashSet::new();
    unique_names
        .iter()
        .map(|name| {
            let clean: String = name
                .to_lowercase()
                .chars()
                .map(|c| {
                    if c.is_ascii_lowercase() || c.is_ascii_digit() {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let mut candidate = fit(&format!("run_{clean}"), name, false);
            if taken.contains(&client_form(&candidate)) {
                candidate = fit(&format!("run_{clean}"), name, true);
            }
            let mut salt = 0u32;
            while taken.contains(&client_form(&candidate)) {
                salt += 1;
                candidate = fit(&format!("run_{clean}"), &format!("{name}#{salt}"), true);
            }
            taken.insert(client_form(&candidate));
            candidate
        })
        .collect()
}

/// The name as the strictest clients see it: lowercased, everything outside `[a-z_]` → `_`.
fn client_form(name: &str) -> String {
    name.to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_lowercase() { c } else { '_' })
        .collect()
}

/// Fits `base` into the length limit; a hash of `key` (letters only, so it survives the
/// client form) is appended when truncating or when asked to.
fn fit(base: &str, key: &str, force_hash: bool) -> String {
    if base.len() <= MAX_NAME && !force_hash {
        return base.to_owned();
    }
    let hash = letters_hash(key);
    let keep = MAX_NAME - hash.len() - 1;
    let head: String = base.chars().take(keep).collect();
    format!("{head}_{hash}")
}

fn letters_hash(key: &str) -> String {
    // FNV-1a: stable across runs and platforms, unlike the std hasher.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in key.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    (0..6)
        .map(|i| {
            let n = u8::try_from((h >> (i * 5)) % 26).unwrap_or(0);
            char::from(b'a' + n)
        })
        .collect()
}

fn description(task: &Task) -> String {
    let mut s = task
        .description
        .clone()
        .unwrap_or_else(|| format!("Run the {} task `{}`.", task.runner, task.source_name));
    let _ = write!(
        s,
        "\nRuns `{}` in {}.",
        task.command,
        if task.dir == "." {
            "the repository root"
        } else {
            &task.dir
        }
    );
    s
}

/// Whether the task does nothing itself and only runs its dependencies.
fn deps_only(task: &Task) -> bool {
    !task.deps.is_empty() && task.script.as_deref().is_none_or(|s| s.trim().is_empty())
}

fn words(name: &str) -> Vec<String> {
    name.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn has_word(name: &str, keys: &[&str]) -> bool {
    words(name).iter().any(|w| {
        keys.iter()
            .any(|k| w == k || (k.len() >= 4 && w.starts_with(k)))
    })
}

const DESTRUCTIVE: &[&str] = &[
    "deploy", "push", "delete", "clean", "drop", "rm", "reset", "publish", "release",
];
const OPEN_WORLD: &[&str] = &["deploy", "publish", "push"];
const SAFE: &[&str] = &["test", "lint", "check", "fmt", "vet"];

/// The hints an execution tool for `task` carries (see the README's table). A destructive
/// word wins over a safe one (`clean-test` is destructive).
pub fn annotations(task: &Task) -> ToolAnnotations {
    let name = &task.source_name;
    let base = ToolAnnotations::with_title(task.unique_name.clone());
    if deps_only(task) {
        return base.read_only(true).destructive(false).open_world(false);
    }
    if has_word(name, DESTRUCTIVE) {
        return base
            .read_only(false)
            .destructive(true)
            .idempotent(false)
            .open_world(has_word(name, OPEN_WORLD));
    }
    if has_word(name, SAFE) {
        return base
            .read_only(false)
            .destructive(false)
            .idempotent(true)
            .open_world(false);
    }
    base.read_only(false)
        .destructive(false)
        .idempotent(false)
        .open_world(false)
}

/// A JSON-Schema property name for a parameter.
fn prop_name(param: &Param) -> String {
    param.name.clone()
}

fn input_schema(task: &Task) -> JsonObject {
    let mut props: BTreeMap<String, Value> = BTreeMap::new();
    let mut required = Vec::new();
    props.insert("wait_ms".into(), json!({"type": "integer", "minimum": 0, "maximum": 600_000, "description": "How long to wait for the task to finish before returning a run_id (default 1000)."}));
    props.insert("async".into(), json!({"type": "boolean", "description": "Start in the background and return at once (wait_ms 0)."}));
    props.insert("output".into(), json!({"type": "string", "enum": ["tail", "full", "stderr", "silent"], "description": "Output mode of the result (default tail)."}));
    props.insert("tail_lines".into(), json!({"type": "integer", "minimum": 1, "description": "Lines for the tail and stderr modes (default 50)."}));
    if !task.deps.is_empty() {
        props.insert("skip_deps".into(), json!({"type": "boolean", "description": format!("Skip the dependencies ({}).", task.deps.join(", "))}));
    }
    for p in &task.params {
        let mut schema = match p.variadic {
            Some(_) => json!({"type": "array", "items": {"type": "string"}}),
            None => json!({"type": "string"}),
        };
        let mut desc = format!("Task parameter `{}`", p.name);
        if let Some(d) = &p.default {
            let _ = write!(desc, " (default: {d})");
        }
        schema["description"] = Value::String(desc);
        if p.variadic == Some(Variadic::OneOrMore) {
            schema["minItems"] = json!(1);
        }
        let name = prop_name(p);
        if p.required && !props.contains_key(&name) {
            required.push(Value::String(name.clone()));
        }
        props.entry(name).or_insert(schema);
    }
    let mut schema = JsonObject::new();
    schema.insert("type".into(), json!("object"));
    schema.insert("properties".into(), json!(props));
    if !required.is_empty() {
        schema.insert("required".into(), Value::Array(required));
    }
    schema
}

/// Positional arguments and environment variables for a task run.
pub type TaskArguments = (Vec<String>, Vec<(String, String)>);

/// Turns a per-task tool call's parameter values into the task's arguments and
/// environment: just parameters are positional, in order (a parameter after an omitted one
/// cannot be given); xc inputs and Taskfile variables go through the environment.
pub fn task_arguments(task: &Task, args: &JsonObject) -> Result<TaskArguments, String> {
    let mut positional = Vec::new();
    let mut env = Vec::new();
    let mut gap: Option<&str> = None;
    for p in &task.params {
        let value = args.get(&prop_name(p));
        let values: Vec<String> = match value {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items.iter().map(scalar).collect::<Result<_, _>>()?,
            Some(v) => vec![scalar(v)?],
        };
        if p.required && values.is_empty() {
            return Err(format!("parameter `{}` is required", p.name));
        }
        match task.runner {
            Runner::Just => {
                if values.is_empty() {
                    gap.get_or_insert(&p.name);
                    continue;
                }
                if let Some(skipped) = gap {
                    return Err(format!(
                        "`{}` comes after `{skipped}`, and just parameters are positional: give `{skipped}` too",
                        p.name
                    ));
                }
                positional.extend(values);
            }
            _ => {
                if !values.is_empty() {
                    env.push((p.name.clone(), values.join(" ")));
                }
            }
        }
    }
    Ok((positional, env))
}

fn scalar(v: &Value) -> Result<String, String> {
    match v {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        Value::Bool(b) => Ok(b.to_string()),
        other => Err(format!("parameter values are strings, not {other}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_sanitized_bounded_and_unique_in_client_form() {
        let long = "apps/web/very-long-directory-name/with/many/levels/build:production";
        let names = tool_names(&["build-m", "Build.M", "test1", "test2", long, "apps/web/dev"]);
        assert_eq!(names[0], "run_build_m");
        assert_eq!(names[5], "run_apps_web_dev");
        for n in &names {
            assert!(n.len() <= MAX_NAME, "{n}");
            assert!(
                n.chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                "{n}"
            );
        }
        let forms: HashSet<String> = names.iter().map(|n| client_form(n)).collect();
        assert_eq!(forms.len(), names.len(), "{names:?}");
        assert!(names[4].starts_with("run_apps_web_very"));
        // Stable: the same input gives the same names.
        assert_eq!(
            names,
            tool_names(&["build-m", "Build.M", "test1", "test2", long, "apps/web/dev"])
        );
    }

    fn task(name: &str, script: Option<&str>, deps: &[&str]) -> Task {
        Task {
            unique_name: name.to_owned(),
            source_name: name.to_owned(),
            runner: Runner::Make,
            command: format!("make {name}"),
            dir: ".".to_owned(),
            file_path: "Makefile".to_owned(),
            line: None,
            description: None,
            runner_available: true,
            params: Vec::new(),
            deps: deps.iter().map(|d| (*d).to_owned()).collect(),
            aliases: Vec::new(),
            group: None,
            argv: Vec::new(),
            script: script.map(str::to_owned),
            env: Vec::new(),
            xc: None,
        }
    }

    #[test]
    fn annotations_follow_the_documented_table() {
        let a = annotations(&task("all", None, &["build", "test"]));
        assert_eq!(a.read_only_hint, Some(true));
        let a = annotations(&task("test-unit", Some("cargo test"), &[]));
        assert_eq!(
            (a.destructive_hint, a.idempotent_hint),
            (Some(false), Some(true))
        );
        let a = annotations(&task("fmt", Some("x"), &[]));
        assert_eq!(a.idempotent_hint, Some(true));
        let a = annotations(&task("deploy-prod", Some("x"), &[]));
        assert_eq!(
            (a.destructive_hint, a.open_world_hint),
            (Some(true), Some(true))
        );
        let a = annotations(&task("clean", Some("rm -rf dist"), &[]));
        assert_eq!(
            (a.destructive_hint, a.open_world_hint),
            (Some(true), Some(false))
        );
        let a = annotations(&task("format", Some("x"), &[]));
        assert_eq!(a.destructive_hint, Some(false), "`format` is not `rm`");
        let a = annotations(&task("dev", Some("vite"), &[]));
        assert_eq!(
            (a.destructive_hint, a.idempotent_hint),
            (Some(false), Some(false))
        );
    }

    #[test]
    fn just_parameters_are_positional_and_others_go_through_the_environment() {
        let mut t = task("deploy", Some("x"), &[]);
        t.runner = Runner::Just;
        t.params = vec![
            Param::required("env"),
            Param {
                default: Some("1".into()),
                required: false,
                ..Param::required("replicas")
            },
            Param {
                variadic: Some(Variadic::ZeroOrMore),
                required: false,
                ..Param::required("flags")
            },
        ];
        let args = json!({"env": "prod", "replicas": 3, "flags": ["-v", "--dry"]});
        let (pos, env) = task_arguments(&t, args.as_object().expect("object")).expect("ok");
        assert_eq!(pos, ["prod", "3", "-v", "--dry"]);
        assert!(env.is_empty());
        let gap = json!({"env": "prod", "flags": ["-v"]});
        assert!(task_arguments(&t, gap.as_object().expect("object")).is_err());
        let missing = json!({});
        assert!(task_arguments(&t, missing.as_object().expect("object")).is_err());
        t.runner = Runner::Xc;
        let (pos, env) = task_arguments(&t, args.as_object().expect("object")).expect("ok");
        assert!(pos.is_empty());
        assert_eq!(env[0], ("env".to_owned(), "prod".to_owned()));
    }
}
