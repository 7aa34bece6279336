//! One task as its body is read: attributes, code block, and the checks xc makes.
use std::collections::HashMap;
use std::collections::hash_map::Entry;

use crate::model::{Param, Runner, Task, XcSpec};

use super::attributes::{Attr, attribute, interpreter, list, trim_marks};
use super::context::Ctx;
use super::markdown::{Code, Line, fence_closed};

/// What one task's body said so far.
pub(super) struct Draft {
    pub(super) name: String,
    pub(super) line: u32,
    pub(super) paragraphs: Vec<String>,
    pub(super) script: Option<String>,
    pub(super) deps: Vec<String>,
    pub(super) env: Vec<(String, String)>,
    pub(super) inputs: Vec<String>,
    pub(super) dir: Option<String>,
    pub(super) run_once: bool,
    pub(super) run_deps_async: bool,
    pub(super) interactive: bool,
}

impl Draft {
    pub(super) fn new(name: &str, line: u32) -> Draft {
        Draft {
            name: name.to_owned(),
            line,
            paragraphs: Vec::new(),
            script: None,
            deps: Vec::new(),
            env: Vec::new(),
            inputs: Vec::new(),
            dir: None,
            run_once: false,
            run_deps_async: false,
            interactive: false,
        }
    }

    /// Splits a paragraph into attribute lines and description text; xc reads attributes
    /// line by line, so one paragraph may mix both.
    pub(super) fn paragraph(&mut self, lines: &[Line], ctx: &mut Ctx<'_>) {
        let mut desc = String::new();
        let mut sep = "";
        for l in lines {
            if let Some((attr, value)) = attribute(&l.text) {
                self.attribute(attr, value, ctx.lines.line(l.offset), ctx);
                continue;
            }
            let t = l.text.trim();
            if t.is_empty() {
                continue;
            }
            desc.push_str(sep);
            desc.push_str(t);
            sep = if l.hard_break { "\n" } else { " " };
        }
        if !desc.is_empty() {
            self.paragraphs.push(desc);
        }
    }

    pub(super) fn attribute(&mut self, attr: Attr, value: &str, line: u32, ctx: &mut Ctx<'_>) {
        match attr {
            Attr::Requires => self.deps.extend(list(value)),
            Attr::Inputs => self.inputs.extend(list(value)),
            Attr::Env => {
                for entry in list(value) {
                    match entry.split_once('=') {
                        Some((k, v)) if !trim_marks(k).is_empty() => {
                            self.env
                                .push((trim_marks(k).to_owned(), trim_marks(v).to_owned()));
                        }
                        _ => ctx.diag(
                            line,
                            format!(
                                "xc task `{}`: Env entry `{entry}` is not KEY=value; ignored",
                                self.name
                            ),
                        ),
                    }
                }
            }
            Attr::Dir => {
                // An empty `Dir:` counts as given (xc refuses a second one); it is dropped
                // when the task is finished.
                if self.dir.is_some() {
                    ctx.refuse(
                        line,
                        format!("directory appears more than once for {}", self.name),
                    );
                } else {
                    self.dir = Some(trim_marks(value).to_owned());
                }
            }
            Attr::Run => match trim_marks(value).to_ascii_lowercase().as_str() {
                "once" => self.run_once = true,
                "always" => self.run_once = false,
                _ => ctx.refuse(
                    line,
                    format!(
                        "run contains invalid behaviour \"{}\" should be (always, once): {}",
                        trim_marks(value),
                        self.name
                    ),
                ),
            },
            Attr::RunDeps => match trim_marks(value).to_ascii_lowercase().as_str() {
                "async" => self.run_deps_async = true,
                "sync" => self.run_deps_async = false,
                _ => ctx.refuse(
                    line,
                    format!(
                        "runDeps contains invalid behaviour \"{}\" should be (sync, async): {}",
                        trim_marks(value),
                        self.name
                    ),
                ),
            },
            // xc runs an interactive task with the terminal passed straight through.
            Attr::Interactive => self.interactive = trim_marks(value) == "true",
            // Only changes how xc shows a task; agg lists every task.
            Attr::Hidden => {}
        }
    }

    pub(super) fn code(&mut self, code: &Code, text: &str, ctx: &mut Ctx<'_>) {
        let line = ctx.lines.line(code.range.start);
        if code.fenced && !fence_closed(text.get(code.range.clone()).unwrap_or_default()) {
            ctx.refuse(
                line,
                format!("command block in task {} was not ended", self.name),
            );
        }
        let body = code.text.trim_end_matches('\n');
        // xc ignores an empty block: a later one can still be the script.
        if body.trim().is_empty() {
            return;
        }
        if self.script.is_some() {
            ctx.refuse(
                line,
                format!("command block already exists for task {}", self.name),
            );
            return;
        }
        self.script = Some(body.to_owned());
    }
}

impl Draft {
    /// Turns the finished body into a task of `ctx`'s file, or a diagnostic.
    pub(super) fn finish(self, ctx: &mut Ctx<'_>) {
        if self.name.is_empty() {
            ctx.diag(self.line, "xc task heading has no name; skipped".to_owned());
            return;
        }
        if self.script.is_none() && self.deps.is_empty() {
            ctx.refuse(
                self.line,
                format!("task {} has no commands or required tasks", self.name),
            );
            return;
        }
        if self.name.contains(char::is_whitespace) {
            // xc splits `Requires` entries and its command line on spaces: such a heading is
            // a plan's step, not a task anyone can name.
            ctx.diag(
                self.line,
                format!(
                    "`{}` is not an xc task name (names hold no spaces); skipped",
                    self.name
                ),
            );
            return;
        }
        match ctx.seen.entry(self.name.to_lowercase()) {
            Entry::Occupied(first) => {
                let (first_name, first_line) = first.get();
                let message = if *first_name == self.name {
                    format!(
                        "xc task `{}` is defined again (first on line {first_line}); keeping the first",
                        self.name
                    )
                } else {
                    format!(
                        "xc task `{}` clashes with `{first_name}` on line {first_line} (xc matches \
                         names case-insensitively); keeping the first",
                        self.name
                    )
                };
                ctx.diag(self.line, message);
                return;
            }
            Entry::Vacant(slot) => {
                slot.insert((self.name.clone(), self.line));
            }
        }

        // xc hands inputs over as environment variables, so an Env entry of the same name
        // is the input's default; the last entry wins, as in a process environment.
        let env_values: HashMap<&str, &str> = self
            .env
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let params = self
            .inputs
            .iter()
            .map(|name| {
                let default = env_values.get(name.as_str()).map(|v| (*v).to_owned());
                Param {
                    name: name.clone(),
                    required: default.is_none(),
                    default,
                    variadic: None,
                    exported: false,
                    ..Param::default()
                }
            })
            .collect();
        let description = self.paragraphs.join("\n\n");

        let argv = vec!["xc".to_owned(), self.name.clone()];
        let mut task = Task::new(Runner::Xc, self.name, ctx.dir, ctx.path, argv);
        task.line = Some(self.line);
        task.description = (!description.is_empty()).then_some(description);
        task.params = params;
        task.deps = self.deps;
        task.env = self.env;
        task.script.clone_from(&self.script);
        task.behaviour.interactive = self.interactive;
        task.xc = Some(Box::new(XcSpec {
            interpreter: self.script.as_deref().and_then(interpreter),
            script: self.script,
            inputs: self.inputs,
            dir: self.dir.filter(|dir| !dir.is_empty()),
            run_once: self.run_once,
            run_deps_async: self.run_deps_async,
        }));
        ctx.out.tasks.push(task);
    }
}
