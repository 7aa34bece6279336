//! Everything known about one task, for `agg describe` and MCP `describe_task`: the row,
//! what it runs, its environment and xc details, what running it involves beyond its
//! command, the program that would run it and its run history (both looked up by the
//! caller, so this module never touches `PATH` or the store); and its text rendering, shared by both, in which everything the
//! task file wrote is shown through [`crate::terminal_text`].

use std::io::{self, Write};

use agg_runners::{Behaviour, XcSpec};
use anstyle::Style;
use schemars::JsonSchema;
use serde::Serialize;

use crate::history::{Run, Summary};
use crate::table::Task;
use crate::terminal_text;

/// Everything known about one task: the row plus what it runs (`agg describe`,
/// MCP `describe_task`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct TaskDetail {
    /// The table row.
    #[serde(flatten)]
    pub task: Task,
    /// What the task does, as written in its file (recipe, script, alias expansion).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub script: Option<String>,
    /// Environment the task sets.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<EnvVar>,
    /// xc execution details: inputs, dir, run-once, async deps, interpreter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub xc: Option<XcSpec>,
    /// The program that runs it, as found on PATH now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runner_path: Option<String>,
    /// What running it involves beyond its command.
    #[serde(flatten)]
    pub behaviour: Behaviour,
    /// How its last run ended and how long it usually takes, when it has run before.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub history: Option<Summary>,
    /// The package it belongs to in the workspace graph, with what that package depends on
    /// and what depends on it (two when its directory is a package of two ecosystems).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub packages: Vec<crate::graph::PackageOf>,
    /// The sandbox an agent's run of it gets, in words (looked up by the caller in the
    /// person's allowlist).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
}

/// One environment variable a task sets.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EnvVar {
    /// The name.
    pub name: String,
    /// The value as written.
    pub value: String,
}

/// The detail of `task`; `runner_path` is the program that would run it, as
/// the caller found it on `PATH`.
pub fn of(task: &Task, runner_path: Option<String>) -> TaskDetail {
    TaskDetail {
        task: task.clone(),
        script: task.script.clone(),
        env: task
            .env
            .iter()
            .map(|(name, value)| EnvVar {
                name: name.clone(),
                value: value.clone(),
            })
            .collect(),
        xc: task.xc.as_deref().cloned(),
        runner_path,
        behaviour: task.behaviour.clone(),
        history: None,
        packages: Vec::new(),
        sandbox: None,
    }
}

const KEY: Style = Style::new().bold();
const DIM: Style = Style::new().dimmed();

/// The column a field's value starts at (`  ` + a 12-wide key + ` `): a description's
/// later lines are indented to it, so they never pass for a field of their own.
const VALUE_INDENT: &str = "               ";

/// Writes the human description of a task: its name, where and how it runs, its shape
/// (parameters, deps), its package, its environment, what running it involves, its history
/// and its script. Every value is one line: what the task file wrote is escaped, newlines
/// included.
pub fn write(out: &mut impl Write, d: &TaskDetail) -> io::Result<()> {
    let t = &d.task;
    writeln!(
        out,
        "{KEY}{}{KEY:#}  {DIM}{}: {}{DIM:#}",
        terminal_text::line(&t.unique_name),
        t.runner,
        terminal_text::line(&t.source_name)
    )?;
    write_description(out, t)?;
    write_location(out, d)?;
    write_shape(out, t)?;
    for p in &d.packages {
        write_package(out, p)?;
    }
    write_environment(out, d)?;
    write_behaviour(out, &d.behaviour)?;
    if let Some(h) = &d.history {
        write_history(out, h)?;
    }
    if let Some(sandbox) = &d.sandbox {
        field(out, "sandbox", sandbox)?;
    }
    if let Some(script) = &d.script {
        writeln!(out, "  {KEY}script{KEY:#}")?;
        for line in script.lines() {
            writeln!(out, "    {}", terminal_text::text(line))?;
        }
    }
    Ok(())
}

/// One field: its key in a 12-wide column, its value escaped to one line.
fn field(out: &mut dyn Write, key: &str, value: &str) -> io::Result<()> {
    writeln!(
        out,
        "  {KEY}{key:<12}{KEY:#} {}",
        terminal_text::line(value)
    )
}

/// The description, its later lines indented to the values' column.
fn write_description(out: &mut dyn Write, t: &Task) -> io::Result<()> {
    if let Some(desc) = &t.description {
        let mut lines = desc.lines();
        let first = terminal_text::text(lines.next().unwrap_or_default());
        writeln!(out, "  {KEY}{:<12}{KEY:#} {first}", "description")?;
        for more in lines {
            writeln!(out, "{VALUE_INDENT}{}", terminal_text::text(more))?;
        }
    }
    Ok(())
}

/// What runs, where, where it is defined and the program that runs it (or how to install
/// it).
fn write_location(out: &mut dyn Write, d: &TaskDetail) -> io::Result<()> {
    let t = &d.task;
    match &d.behaviour.not_runnable {
        Some(reason) => field(out, "not runnable", reason)?,
        None => field(out, "command", &t.command)?,
    }
    field(out, "dir", &t.dir)?;
    let at = match t.line {
        Some(line) => format!("{}:{line}", t.file_path),
        None => t.file_path.clone(),
    };
    field(out, "defined at", &at)?;
    let runner = match &d.runner_path {
        Some(path) => format!("{} ({path})", t.runner),
        None if t.runner_available => format!("{} (built in)", t.runner),
        None => format!(
            "{} — not installed: {}",
            t.runner,
            crate::availability::install_hint(t.runner)
        ),
    };
    field(out, "runner", &runner)
}

/// Its group, plugin, whether the build disables it, its parameters, deps and aliases.
fn write_shape(out: &mut dyn Write, t: &Task) -> io::Result<()> {
    if let Some(group) = &t.group {
        field(out, "group", group)?;
    }
    if let Some(plugin) = &t.plugin {
        field(
            out,
            "from plugin",
            &format!("{plugin} (no script of the build declares it)"),
        )?;
    }
    if t.disabled {
        field(
            out,
            "disabled",
            "yes: the build sets `enabled = false`; the runner skips it when run",
        )?;
    }
    if !t.params.is_empty() {
        let params: Vec<String> = t.params.iter().map(param_text).collect();
        field(out, "params", &params.join(", "))?;
    }
    if !t.deps.is_empty() {
        field(out, "deps", &t.deps.join(", "))?;
    }
    if !t.aliases.is_empty() {
        field(out, "aliases", &t.aliases.join(", "))?;
    }
    Ok(())
}

/// One parameter in words: marks, name, default, then its flags, kind, whether it is
/// required and its help in parentheses (`+$files=a (-f, path, required, what to lint)`).
fn param_text(p: &agg_runners::Param) -> String {
    let mut s = param_marks(p).to_owned();
    s.push_str(&p.name);
    if let Some(default) = &p.default {
        s.push('=');
        s.push_str(default);
    }
    let mut notes: Vec<String> = Vec::new();
    if !p.flags.is_empty() {
        notes.push(p.flags.join("/"));
    }
    if let Some(kind) = &p.kind {
        notes.push(kind.clone());
    }
    if p.required {
        notes.push("required".to_owned());
    }
    if let Some(help) = &p.help {
        notes.push(help.clone());
    }
    if !notes.is_empty() {
        s.push_str(" (");
        s.push_str(&notes.join(", "));
        s.push(')');
    }
    s
}

/// The workspace package the task belongs to, what it depends on and what uses it.
fn write_package(out: &mut dyn Write, p: &crate::graph::PackageOf) -> io::Result<()> {
    let workspace = p
        .workspace
        .as_deref()
        .map_or_else(String::new, |w| format!(", workspace {w}"));
    field(
        out,
        "package",
        &format!("{} ({}, {}{workspace})", p.name, p.ecosystem, p.dir),
    )?;
    let list = |names: &[String]| {
        if names.is_empty() {
            "nothing in the repository".to_owned()
        } else {
            names.join(", ")
        }
    };
    field(out, "depends on", &list(&p.depends_on))?;
    field(out, "used by", &list(&p.used_by))
}

/// The variables it sets, and xc's execution details.
fn write_environment(out: &mut dyn Write, d: &TaskDetail) -> io::Result<()> {
    for var in &d.env {
        field(out, "env", &format!("{}={}", var.name, var.value))?;
    }
    if let Some(xc) = &d.xc {
        if let Some(dir) = &xc.dir {
            field(out, "runs in", dir)?;
        }
        if xc.run_once {
            field(out, "run", "once")?;
        }
        if xc.run_deps_async {
            field(out, "deps run", "concurrently")?;
        }
        if let Some(interp) = &xc.interpreter {
            field(out, "interpreter", interp)?;
        }
    }
    Ok(())
}

/// What running it involves beyond its command: questions, a terminal, a service that
/// keeps running, hooks the runner adds.
fn write_behaviour(out: &mut dyn Write, b: &Behaviour) -> io::Result<()> {
    for question in &b.confirm {
        field(
            out,
            "asks first",
            &format!("{question} (runs only if answered yes)"),
        )?;
    }
    if b.interactive {
        field(out, "interactive", "yes: expects a terminal")?;
    }
    if b.service {
        field(
            out,
            "service",
            "yes: keeps running until stopped (`task_start` returns a run id)",
        )?;
    }
    for hook in &b.hooks {
        let when = match hook.when {
            agg_runners::HookWhen::Before => "before",
            agg_runners::HookWhen::After => "after",
        };
        field(
            out,
            "also runs",
            &format!("{} ({when}): {}", hook.name, hook.command),
        )?;
    }
    Ok(())
}

/// How its last run ended and how long it usually takes.
fn write_history(out: &mut dyn Write, h: &Summary) -> io::Result<()> {
    field(out, "last run", &last_run(&h.last))?;
    let of = if h.passed > 0 {
        format!(
            "of {} passed runs",
            h.passed.min(crate::history::TYPICAL_OF)
        )
    } else {
        format!(
            "of {} runs, none passed",
            h.runs.min(crate::history::TYPICAL_OF)
        )
    };
    field(
        out,
        "typical",
        &format!("{} ({of})", crate::human::duration(h.typical_ms)),
    )
}

/// How a run ended, when and who ran it: `passed in 0.3s, 5m ago (agg run)`.
pub fn last_run(run: &Run) -> String {
    let took = crate::human::duration(run.duration_ms);
    let how = if run.stopped {
        format!("stopped by agg after {took}")
    } else if run.passed() {
        format!("passed in {took}")
    } else {
        let badge = run.badge();
        let ended = badge.trim_start_matches("✗ ");
        format!("failed ({ended}) after {took}")
    };
    format!(
        "{how}, {} ({})",
        crate::human::ago(run.started),
        run.via.as_str()
    )
}

/// The marks in front of a parameter's name, as `just --list` writes them and as both the
/// listing and `agg describe` show them: `+` one or more values, `*` zero or more, `$`
/// exported to the environment (`+$files`).
pub fn param_marks(p: &agg_runners::Param) -> &'static str {
    match (p.variadic, p.exported) {
        (Some(agg_runners::Variadic::OneOrMore), false) => "+",
        (Some(agg_runners::Variadic::OneOrMore), true) => "+$",
        (Some(agg_runners::Variadic::ZeroOrMore), false) => "*",
        (Some(agg_runners::Variadic::ZeroOrMore), true) => "*$",
        (None, true) => "$",
        (None, false) => "",
    }
}
