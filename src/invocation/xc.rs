//! agg's built-in xc executor, used when `xc` itself is not installed.
//!
//! It follows xc's semantics: each script runs under `sh` with `set -e` (or the interpreter
//! its shebang names, from a temp file); inputs come from positional arguments, then the
//! environment, then `Env` defaults; `Env` entries are exported; `Dir` is relative to the
//! README; `Requires` run first, in order or concurrently (`RunDeps: async`), and a
//! `Run: once` task runs at most once per invocation. The whole plan is compiled into one
//! POSIX shell driver, so the job is one process tree that stops as one.

use std::collections::HashSet;
use std::ffi::OsString;
use std::fmt::Write as _;

use agg_runners::{Runner, quote_command};

use super::{InvocationError, RunOptions, is_env_name};
use crate::table::{Table, Task};

/// A compiled plan: run `program args…`; the scripts live in `temp`.
#[derive(Debug)]
pub struct Plan {
    /// `sh`.
    pub program: OsString,
    /// The driver script and the task's extra arguments.
    pub args: Vec<OsString>,
    /// The directory holding the driver and every task's script.
    pub temp: tempfile::TempDir,
}

struct Compiler<'a> {
    table: &'a Table,
    temp: tempfile::TempDir,
    scripts: usize,
    ran_once: HashSet<String>,
    groups: usize,
}

/// Compiles `task` (and, unless skipped, its dependencies) into a driver script.
pub fn compile(table: &Table, task: &Task, opts: &RunOptions) -> Result<Plan, InvocationError> {
    let err = |e: std::io::Error| InvocationError::Xc(format!("cannot write the task script: {e}"));
    if opts.skip_deps {
        run_dir(table, task)?;
    } else {
        check_graph(table, task, &mut Vec::new())?;
    }
    let inputs = inputs(task, opts)?;
    let temp = tempfile::Builder::new()
        .prefix("agg-xc-")
        .tempdir()
        .map_err(err)?;
    let mut c = Compiler {
        table,
        temp,
        scripts: 0,
        ran_once: HashSet::new(),
        groups: 0,
    };
    let mut driver = String::from("set -e\n");
    if !opts.skip_deps {
        c.emit_deps(task, &mut driver).map_err(err)?;
    }
    let main = c.step(task, &inputs, true).map_err(err)?;
    driver.push_str(&main);
    let driver_path = c.temp.path().join("driver.sh");
    std::fs::write(&driver_path, driver).map_err(err)?;
    let mut args: Vec<OsString> = vec![driver_path.into_os_string()];
    args.extend(opts.args.iter().skip(inputs.len()).map(OsString::from));
    Ok(Plan {
        program: "sh".into(),
        args,
        temp: c.temp,
    })
}

/// Splits a `Requires` entry into the task name and the inputs given to it (`greet Joe`).
fn split_dep(dep: &str) -> (&str, Vec<String>) {
    let mut words = dep.split_whitespace();
    let name = words.next().unwrap_or(dep);
    (name, words.map(str::to_owned).collect())
}

/// The task's xc dependency of name `dep`, defined in the same README.
fn find_dep<'a>(table: &'a Table, task: &Task, dep: &str) -> Option<&'a Task> {
    let dep = split_dep(dep).0;
    let same_file = |t: &&Task| t.runner == Runner::Xc && t.file_path == task.file_path;
    table
        .tasks
        .iter()
        .filter(same_file)
        .find(|t| t.source_name == dep)
        .or_else(|| {
            table
                .tasks
                .iter()
                .filter(same_file)
                .find(|t| t.source_name.eq_ignore_ascii_case(dep))
        })
}

/// Reports missing dependencies and cycles before anything runs.
fn check_graph(table: &Table, task: &Task, stack: &mut Vec<String>) -> Result<(), InvocationError> {
    if stack.contains(&task.source_name) {
        stack.push(task.source_name.clone());
        return Err(InvocationError::Xc(format!(
            "dependency cycle in {}: {}",
            task.file_path,
            stack.join(" -> ")
        )));
    }
    stack.push(task.source_name.clone());
    run_dir(table, task)?;
    for dep in &task.deps {
        let Some(d) = find_dep(table, task, dep) else {
            return Err(InvocationError::Xc(format!(
                "task `{}` requires `{}`, which {} does not define",
                task.source_name,
                split_dep(dep).0,
                task.file_path
            )));
        };
        check_graph(table, d, stack)?;
    }
    stack.pop();
    Ok(())
}

/// Where a task runs: its README's directory, or `Dir:` relative to it, which may not leave
/// the repository (`..` and symlinks are resolved before the check).
fn run_dir(table: &Table, task: &Task) -> Result<std::path::PathBuf, InvocationError> {
    let outside = |dir: &str| {
        InvocationError::Xc(format!(
            "task `{}` runs in `{dir}`, which is outside the repository",
            task.source_name
        ))
    };
    let Some(sub) = task.xc.as_ref().and_then(|x| x.dir.as_deref()) else {
        return Ok(table.root.join(&task.dir));
    };
    let rel = agg_runners::join(&task.dir, sub).ok_or_else(|| outside(sub))?;
    let dir = table.root.join(&rel);
    match std::fs::canonicalize(&dir) {
        Ok(real) if !real.starts_with(&table.root) => Err(outside(sub)),
        _ => Ok(dir),
    }
}

/// Input values: positional arguments first, then the environment, then `Env` defaults.
fn inputs(task: &Task, opts: &RunOptions) -> Result<Vec<(String, String)>, InvocationError> {
    let names = task
        .xc
        .as_ref()
        .map(|x| x.inputs.clone())
        .unwrap_or_default();
    let mut values = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let value = opts
            .args
            .get(i)
            .cloned()
            .or_else(|| {
                opts.env
                    .iter()
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| v.clone())
            })
            .or_else(|| std::env::var(name).ok())
            .or_else(|| {
                task.env
                    .iter()
                    .find(|(k, _)| k == name)
                    .map(|(_, v)| v.clone())
            });
        match value {
            Some(v) => values.push((name.clone(), v)),
            None => {
                return Err(InvocationError::Xc(format!(
                    "task `{}` needs input `{name}`: pass it as argument {} or set {name} in the environment",
                    task.source_name,
                    i + 1
                )));
            }
        }
    }
    Ok(values)
}

impl Compiler<'_> {
    fn emit_deps(&mut self, task: &Task, out: &mut String) -> std::io::Result<()> {
        let deps: Vec<(&Task, Vec<String>)> = task
            .deps
            .iter()
            .filter_map(|d| Some((find_dep(self.table, task, d)?, split_dep(d).1)))
            .collect();
        let run_async = task.xc.as_ref().is_some_and(|x| x.run_deps_async) && deps.len() > 1;
        if run_async {
            self.groups += 1;
            let var = format!("agg_pids_{}", self.groups);
            let _ = writeln!(out, "{var}=");
            for (dep, args) in deps {
                let mut body = String::new();
                self.emit_deps(dep, &mut body)?;
                if let Some(step) = self.once_step(dep, &args)? {
                    body.push_str(&step);
                }
                let _ = writeln!(out, "(\n{body}) &\n{var}=\"${var} $!\"");
            }
            let _ = writeln!(
                out,
                "for agg_pid in ${var}; do wait \"$agg_pid\" || exit $?; done"
            );
        } else {
            for (dep, args) in deps {
                self.emit_deps(dep, out)?;
                if let Some(step) = self.once_step(dep, &args)? {
                    out.push_str(&step);
                }
            }
        }
        Ok(())
    }

    /// A dependency's step, or nothing when it is `Run: once` and already ran. Inputs the
    /// `Requires` entry gives (`greet Joe`) come first, then the usual sources.
    fn once_step(&mut self, task: &Task, args: &[String]) -> std::io::Result<Option<String>> {
        let once = task.xc.as_ref().is_some_and(|x| x.run_once);
        if once && !self.ran_once.insert(task.source_name.clone()) {
            return Ok(None);
        }
        let opts = RunOptions {
            args: args.to_vec(),
            ..RunOptions::default()
        };
        // A dependency missing an input runs without it, as xc runs it with an empty value.
        let inputs = inputs(task, &opts).unwrap_or_default();
        self.step(task, &inputs, false).map(Some)
    }

    /// One task's own script, in a subshell with its directory and environment.
    fn step(
        &mut self,
        task: &Task,
        inputs: &[(String, String)],
        main: bool,
    ) -> std::io::Result<String> {
        let Some(spec) = task.xc.as_ref() else {
            return Ok(String::new());
        };
        let Some(script) = spec.script.as_deref() else {
            // A deps-only task: its Requires already ran.
            return Ok(String::new());
        };
        self.scripts += 1;
        let path = self.temp.path().join(format!("task-{}.sh", self.scripts));
        std::fs::write(&path, script)?;
        let path = path.to_string_lossy().into_owned();
        let dir = run_dir(self.table, task).unwrap_or_else(|_| self.table.root.join(&task.dir));
        let mut s = String::from("(\n");
        let _ = writeln!(s, "cd {}", quote_command(&[dir.to_string_lossy()]));
        for (k, v) in task.env.iter().chain(inputs) {
            if is_env_name(k) {
                let _ = writeln!(s, "export {k}={}", quote_command(&[v]));
            }
        }
        let mut cmd: Vec<String> = match spec.interpreter.as_deref() {
            Some(interp) => interp.split_whitespace().map(str::to_owned).collect(),
            None if script.trim_start().starts_with("#!")
                && script.contains("bash")
                && first_line_has_bash(script) =>
            {
                vec!["bash".into(), "-e".into()]
            }
            None => vec!["sh".into(), "-e".into()],
        };
        cmd.push(path);
        let _ = write!(s, "exec {}", quote_command(&cmd));
        if main {
            s.push_str(" \"$@\"");
        }
        s.push_str("\n)\n");
        Ok(s)
    }
}

fn first_line_has_bash(script: &str) -> bool {
    script.trim_start().lines().next().is_some_and(|l| {
        l.split(|c: char| c == '/' || c.is_whitespace())
            .any(|w| w == "bash")
    })
}
