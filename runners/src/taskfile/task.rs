//! One entry of a Taskfile's `tasks:` mapping, read into the fields agg lists.
//!
//! A task is a mapping, or one of go-task's short forms: a single command (`build: go
//! build ./...`) or a list of commands. A badly typed field is reported and left out; the
//! task itself is still listed.

use crate::doc::{Entry, Node, Terms, Value};
use crate::model::Passing;
use crate::model::{Diagnostic, Param};

/// A task as one Taskfile defines it, its name still relative to that file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct TaskDef {
    /// The key under `tasks:`.
    pub name: String,
    /// The key's line.
    pub line: u32,
    /// `internal: true`: callable from other tasks, never listed.
    pub internal: bool,
    /// `desc`, or the first paragraph of `summary`.
    pub description: Option<String>,
    /// `aliases`, as written.
    pub aliases: Vec<String>,
    /// `deps` task names, as written (relative to this file; a leading `:` means the root).
    pub deps: Vec<String>,
    /// The commands, one per line (`task: x` and `defer: ...` for the non-shell kinds).
    pub script: Option<String>,
    /// `requires: {vars: [...]}`.
    pub params: Vec<Param>,
    /// The task's own `env`.
    pub env: Vec<(String, String)>,
    /// `prompt`: the questions go-task asks before running it.
    pub prompt: Vec<String>,
    /// `interactive: true`.
    pub interactive: bool,
    /// Its own `method` (when not empty) and the line of the key.
    pub method: Option<(String, u32)>,
    /// Why go-task refuses to load the file for this task, and the line: a command it
    /// cannot read (`invalid keys in command`).
    pub refusal: Option<(u32, String)>,
}

/// The `method` values go-task accepts, at the top of a Taskfile or in a task.
pub(super) const METHODS: [&str; 3] = ["checksum", "timestamp", "none"];

/// Reads one `tasks:` entry. Problems go to `diags`, named after `file`.
pub(super) fn read(file: &str, entry: &Entry, diags: &mut Vec<Diagnostic>) -> TaskDef {
    let mut def = TaskDef {
        name: entry.key.clone(),
        line: entry.node.line,
        internal: false,
        description: None,
        aliases: Vec::new(),
        deps: Vec::new(),
        script: None,
        params: Vec::new(),
        env: Vec::new(),
        prompt: Vec::new(),
        interactive: false,
        method: None,
        refusal: None,
    };
    let mut bad = |field: &str, want: &str, got: &Node| {
        diags.push(Diagnostic::new(
            file,
            Some(entry.node.line),
            format!(
                "task `{}`: `{field}` should be {want}, not {}",
                entry.key,
                got.kind_in(Terms::Yaml)
            ),
        ));
    };
    let fields = &entry.node;
    match &fields.value {
        Value::Table(_) => {}
        Value::Arr(items) => {
            def.refusal = items.iter().find_map(|c| refused(c, entry.node.line));
            def.script = join_cmds(items.iter().filter_map(command));
            return def;
        }
        // `build: go build ./...`; go-task reads any scalar as that one command.
        _ => {
            def.script = fields.scalar().map(|s| s.trim_end_matches('\n').to_owned());
            return def;
        }
    }

    def.internal = fields
        .get("internal")
        .is_some_and(Node::is_true_or_text_true);
    def.interactive = fields
        .get("interactive")
        .is_some_and(Node::is_true_or_text_true);
    def.prompt = prompts(fields, &mut bad);
    def.description = text_field(fields, "desc", &mut bad)
        .or_else(|| text_field(fields, "summary", &mut bad).and_then(|s| first_paragraph(&s)));
    def.aliases = aliases(fields, &mut bad);
    def.deps = deps(fields, &mut bad);
    read_commands(fields, &mut def, &mut bad);
    if let Some(method) = fields.entry("method")
        && let Some(value) = method.node.scalar().filter(|m| !m.is_empty())
    {
        def.method = Some((value.to_owned(), method.node.line));
    }
    def.params = required_vars(fields, &mut bad);
    def.env = env(fields, &mut bad);
    def
}

/// A field of the wrong kind: its name, what it should be and what it is.
type Bad<'b> = dyn FnMut(&str, &str, &Node) + 'b;

/// `prompt:`, one text or a list: the questions go-task asks before running.
fn prompts(fields: &Node, bad: &mut Bad<'_>) -> Vec<String> {
    let Some(node) = fields.get("prompt") else {
        return Vec::new();
    };
    match &node.value {
        Value::Null => Vec::new(),
        Value::Arr(items) => items
            .iter()
            .filter_map(scalar_string)
            .filter(|p| !p.trim().is_empty())
            .collect(),
        Value::Table(_) => {
            bad("prompt", "text or a list", node);
            Vec::new()
        }
        _ => scalar_string(node).into_iter().collect(),
    }
}

/// A field that should be a list (`aliases:`, `deps:`), named `field` in a diagnostic:
/// its items as `item` reads them; absent or null is empty, anything else is reported.
fn list<T>(
    node: Option<&Node>,
    field: &str,
    bad: &mut Bad<'_>,
    item: impl FnMut(&Node) -> Option<T>,
) -> Vec<T> {
    match node.map(|n| (n, &n.value)) {
        None | Some((_, Value::Null)) => Vec::new(),
        Some((_, Value::Arr(items))) => items.iter().filter_map(item).collect(),
        Some((node, _)) => {
            bad(field, "a list", node);
            Vec::new()
        }
    }
}

/// `aliases:`, the other names a task answers to.
fn aliases(fields: &Node, bad: &mut Bad<'_>) -> Vec<String> {
    list(fields.get("aliases"), "aliases", bad, scalar_string)
}

/// `deps:`, names or `{task: name}` mappings: the tasks go-task runs first.
fn deps(fields: &Node, bad: &mut Bad<'_>) -> Vec<String> {
    list(fields.get("deps"), "deps", bad, |dep| match dep.value {
        Value::Table(_) => dep.get("task").and_then(scalar_string),
        _ => scalar_string(dep),
    })
}

/// The script of `cmds:` (or of a single `cmd:` when there is no list), and the refusal of
/// a command agg will not run.
fn read_commands(fields: &Node, def: &mut TaskDef, bad: &mut Bad<'_>) {
    match fields.get("cmds") {
        None => {}
        Some(cmds) => match &cmds.value {
            Value::Null => {}
            Value::Arr(items) => {
                def.refusal = items.iter().find_map(|c| refused(c, cmds.line));
                def.script = join_cmds(items.iter().filter_map(command));
            }
            _ => bad("cmds", "a list", cmds),
        },
    }
    if fields.get("cmds").is_none_or(Node::is_null)
        && let Some(cmd) = fields.get("cmd")
    {
        def.refusal = refused(cmd, cmd.line);
        def.script = command(cmd).filter(|s| !s.is_empty());
    }
}

/// `requires: vars:`, names or `{name: …}` mappings: the variables a run must be given,
/// as `NAME=value` arguments.
fn required_vars(fields: &Node, bad: &mut Bad<'_>) -> Vec<Param> {
    let Some(requires) = fields.get("requires") else {
        return Vec::new();
    };
    match (&requires.value, requires.get("vars")) {
        (Value::Null, _) | (Value::Table(_), None) => Vec::new(),
        (Value::Table(_), Some(vars)) => list(Some(vars), "requires.vars", bad, |var| {
            let name = match var.value {
                Value::Table(_) => var.get("name").and_then(scalar_string),
                _ => scalar_string(var),
            };
            name.map(|name| Param::required(name).passed(Passing::Assignment))
        }),
        _ => {
            bad("requires", "a mapping", requires);
            Vec::new()
        }
    }
}

/// `env:`, the variables the task's commands see.
fn env(fields: &Node, bad: &mut Bad<'_>) -> Vec<(String, String)> {
    let Some(env) = fields.get("env") else {
        return Vec::new();
    };
    match &env.value {
        Value::Null => Vec::new(),
        Value::Table(vars) => vars
            .iter()
            .filter_map(|var| Some((var.key.clone(), env_value(&var.node)?)))
            .collect(),
        _ => {
            bad("env", "a mapping", env);
            Vec::new()
        }
    }
}

/// A scalar field as trimmed text; `None` when absent or empty.
fn text_field(fields: &Node, key: &str, bad: &mut Bad<'_>) -> Option<String> {
    let node = fields.get(key)?;
    match node.value {
        Value::Null => None,
        Value::Arr(_) | Value::Table(_) => {
            bad(key, "text", node);
            None
        }
        _ => Some(node.scalar()?.trim().to_owned()).filter(|s| !s.is_empty()),
    }
}

/// The first paragraph of a `summary`, its lines joined by spaces: the short form a table
/// row can show.
fn first_paragraph(summary: &str) -> Option<String> {
    let lines: Vec<&str> = summary
        .lines()
        .map(str::trim)
        .skip_while(|l| l.is_empty())
        .take_while(|l| !l.is_empty())
        .collect();
    Some(lines.join(" ")).filter(|s| !s.is_empty())
}

fn scalar_string(node: &Node) -> Option<String> {
    node.scalar().map(str::to_owned)
}

/// One entry of `cmds` as a line of text: a shell command as written, `task: name` for a
/// call to another task, `defer: ...` for a deferred one.
fn command(node: &Node) -> Option<String> {
    let text = match node.value {
        Value::Table(_) => {
            if let Some(cmd) = node.get("cmd") {
                cmd.scalar()?.to_owned()
            } else if let Some(task) = node.get("task") {
                format!("task: {}", task.scalar()?)
            } else if let Some(deferred) = node.get("defer") {
                let inner = match deferred.value {
                    Value::Table(_) => match (deferred.get("cmd"), deferred.get("task")) {
                        (Some(cmd), _) => cmd.scalar()?.to_owned(),
                        (None, Some(task)) => format!("task: {}", task.scalar()?),
                        (None, None) => return None,
                    },
                    _ => deferred.scalar()?.to_owned(),
                };
                format!("defer: {inner}")
            } else {
                return None;
            }
        }
        _ => node.scalar()?.to_owned(),
    };
    Some(text.trim_end_matches('\n').to_owned())
}

/// Why go-task refuses a command as written, at the line it points at (that of the
/// command's first key, else `line`): a mapping needs a non-empty `cmd` or `task`, or a
/// `defer`; a list is no command at all.
fn refused(node: &Node, line: u32) -> Option<(u32, String)> {
    match &node.value {
        Value::Table(entries) => {
            let filled = |key: &str| {
                node.get(key)
                    .is_some_and(|v| v.scalar().is_some_and(|s| !s.is_empty()))
            };
            let deferred = node.get("defer").is_some_and(|d| !d.is_null());
            if filled("cmd") || filled("task") || deferred {
                return None;
            }
            let at = entries.first().map_or(line, |e| e.node.line);
            Some((at, "invalid keys in command".to_owned()))
        }
        Value::Arr(_) => Some((line, "cannot unmarshal !!seq into command".to_owned())),
        _ => None,
    }
}

fn join_cmds(cmds: impl Iterator<Item = String>) -> Option<String> {
    let lines: Vec<String> = cmds.collect();
    Some(lines.join("\n")).filter(|s| !s.is_empty())
}

/// An `env` value as text: scalars as written, `{sh: cmd}` as `$(cmd)`, null as empty.
fn env_value(node: &Node) -> Option<String> {
    match node.value {
        Value::Null => Some(String::new()),
        Value::Table(_) => Some(format!("$({})", node.get("sh")?.scalar()?)),
        Value::Arr(_) => None,
        _ => scalar_string(node),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::{self, Dialect};
    use indoc::indoc;

    /// Reads every task of a `tasks:` mapping.
    fn tasks(yaml: &str) -> (Vec<TaskDef>, Vec<Diagnostic>) {
        let root = doc::read_yaml(yaml, Dialect::Strict).expect("valid YAML");
        let entries = root.get("tasks").and_then(Node::entries).expect("tasks");
        let mut diags = Vec::new();
        let defs = entries
            .iter()
            .map(|e| read("Taskfile.yml", e, &mut diags))
            .collect();
        (defs, diags)
    }

    #[test]
    fn short_forms_are_commands() {
        let (defs, diags) = tasks(indoc! {"
            version: '3'
            tasks:
              build: go build ./...
              lint:
                - golangci-lint run
                - go vet ./...
              noop: ~
              five: 5
        "});
        assert!(diags.is_empty());
        assert_eq!(defs[0].script.as_deref(), Some("go build ./..."));
        assert_eq!(defs[0].line, 3);
        assert_eq!(
            defs[1].script.as_deref(),
            Some("golangci-lint run\ngo vet ./...")
        );
        assert_eq!(defs[2].script, None);
        assert_eq!(defs[3].script.as_deref(), Some("5"));
    }

    #[test]
    fn go_task_style_task() {
        let yaml = r#"
version: '3'
tasks:
  test:
    desc: Runs test suite
    aliases: [t]
    deps: [install, {task: generate, vars: {X: 1}}]
    cmds:
      - go test {{catLines .GO_PACKAGES}}
      - cmd: echo done
        silent: true
      - task: lint
        vars: {FIX: true}
      - defer: rm -rf tmp
      - defer: {task: cleanup}
      - |
        if [ -n "$CI" ]; then
          echo ci
        fi
    requires:
      vars: [GOOS, {name: ENV, enum: [dev, prod]}]
    env:
      CGO_ENABLED: 0
      VERSION: {sh: git describe --tags}
      EMPTY:
    internal: false
"#;
        let (defs, diags) = tasks(yaml);
        assert!(diags.is_empty(), "{diags:?}");
        let t = &defs[0];
        assert_eq!(t.description.as_deref(), Some("Runs test suite"));
        assert_eq!(t.aliases, ["t"]);
        assert_eq!(t.deps, ["install", "generate"]);
        assert_eq!(
            t.script.as_deref(),
            Some(indoc! {"
                go test {{catLines .GO_PACKAGES}}
                echo done
                task: lint
                defer: rm -rf tmp
                defer: task: cleanup
                if [ -n \"$CI\" ]; then
                  echo ci
                fi"})
        );
        assert_eq!(
            t.params,
            [
                Param::required("GOOS").passed(Passing::Assignment),
                Param::required("ENV").passed(Passing::Assignment)
            ]
        );
        assert_eq!(
            t.env,
            [
                ("CGO_ENABLED".to_owned(), "0".to_owned()),
                ("VERSION".to_owned(), "$(git describe --tags)".to_owned()),
                ("EMPTY".to_owned(), String::new()),
            ]
        );
        assert!(!t.internal);
    }

    #[test]
    fn summary_is_the_fallback_description() {
        let yaml = indoc! {"
            tasks:
              release:
                summary: |
                  Cut a release
                  and tag it.

                  Needs GITHUB_TOKEN.
              both:
                desc: '  Short  '
                summary: Long
              blank:
                desc: ''
        "};
        let (defs, _) = tasks(yaml);
        assert_eq!(
            defs[0].description.as_deref(),
            Some("Cut a release and tag it.")
        );
        assert_eq!(defs[1].description.as_deref(), Some("Short"));
        assert_eq!(defs[2].description, None);
    }

    #[test]
    fn single_cmd_field_and_internal() {
        let (defs, _) = tasks(indoc! {"
            tasks:
              helper:
                internal: true
                cmd: echo helping
        "});
        assert!(defs[0].internal);
        assert_eq!(defs[0].script.as_deref(), Some("echo helping"));
    }

    #[test]
    fn wrong_field_types_are_reported_and_skipped() {
        let (defs, diags) = tasks(indoc! {"
            tasks:
              a:
                desc: [not, text]
                deps: 5
                cmds: 3
                aliases: {x: y}
                env: [A]
                requires: {vars: X}
              b: echo fine
        "});
        assert_eq!(defs.len(), 2);
        assert_eq!(defs[1].script.as_deref(), Some("echo fine"));
        let messages: Vec<&str> = diags.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "task `a`: `desc` should be text, not a list",
                "task `a`: `aliases` should be a list, not a mapping",
                "task `a`: `deps` should be a list, not a number",
                "task `a`: `cmds` should be a list, not a number",
                "task `a`: `requires.vars` should be a list, not a string",
                "task `a`: `env` should be a mapping, not a list",
            ]
        );
        assert!(diags.iter().all(|d| d.line == Some(2)));
    }

    #[test]
    fn merged_defaults_apply() {
        let yaml = indoc! {"
            x-defaults: &defaults
              desc: Shared description
              deps: [setup]
            tasks:
              one:
                <<: *defaults
                cmds: [echo one]
              two:
                <<: *defaults
                desc: Own
        "};
        let (defs, _) = tasks(yaml);
        assert_eq!(defs[0].description.as_deref(), Some("Shared description"));
        assert_eq!(defs[0].deps, ["setup"]);
        assert_eq!(defs[1].description.as_deref(), Some("Own"));
    }
}
