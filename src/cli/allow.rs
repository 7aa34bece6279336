//! `agg allow`, `agg deny` and `agg allowlist`: the human side of the MCP permission model.
//!
//! Every change goes through [`allowlist::Store`], the same calls the MCP server makes
//! when the user answers a question in the agent's client. Rules quote task names,
//! commands and paths from the repository: they are printed in their [`visible`] form.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::allowlist::{self, Change, OnDisk, Pin, Rule, RuleState, Store, StoreError};
use crate::error::Error;
use crate::sandbox::Spec;
use crate::terminal_text;

/// What `agg allow` / `agg deny` applies to: one task, a task file or a directory.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("target").required(true).args(["name", "file", "dir"])))]
pub struct RuleArgs {
    /// A task's unique name (matched afterwards by its file and source name). An allowed
    /// task is pinned: the allow lapses when its definition changes.
    pub name: Option<String>,
    /// Every task defined in this file.
    #[arg(long)]
    pub file: Option<PathBuf>,
    /// With `allow --file`: only while the file's content stays exactly as it is now.
    #[arg(long, conflicts_with_all = ["name", "dir"])]
    pub pin: bool,
    /// Agents may also add any arguments to the task (or to every task of the file or
    /// directory). Without it, an argument the runner could read as its own option, a target
    /// or code is asked about.
    #[arg(long)]
    pub any_args: bool,
    /// Every task defined in a file under this directory.
    #[arg(long)]
    pub dir: Option<PathBuf>,
    /// The repository root, for resolving NAME.
    #[arg(long, default_value = ".")]
    pub root: PathBuf,
    /// The sandbox of agents' runs of what the rule allows.
    #[command(flatten)]
    pub sandbox: SandboxArgs,
}

/// `agg allow`'s sandbox options: how agents' runs of what a rule allows are contained.
/// None: the rule keeps the options it had, or takes those of the broader rule it falls
/// under, or the default policy.
#[derive(Debug, Default, clap::Args)]
#[allow(clippy::struct_excessive_bools)]
#[command(next_help_heading = "Sandbox of agents' runs")]
pub struct SandboxArgs {
    /// No network: TCP connections and listening sockets fail, and so does every socket
    /// but a Unix one.
    #[arg(long)]
    pub offline: bool,
    /// Refused, with the reason: agg found no sound way to keep only the host's loopback
    /// reachable (docs/permissions.md says why).
    #[arg(long)]
    pub loopback: bool,
    /// Also writable (repeatable): a directory or file; a directory that does not exist yet
    /// is created when a run starts. Never agg's own files.
    #[arg(long, value_name = "PATH")]
    pub write: Vec<PathBuf>,
    /// A secret path made readable (repeatable), e.g. `~/.aws/config`.
    #[arg(long, value_name = "PATH")]
    pub read_secret: Vec<PathBuf>,
    /// Agents' runs are not sandboxed at all: they may read and write anything you can.
    #[arg(long, conflicts_with_all = ["offline", "write", "read_secret", "default_sandbox"])]
    pub no_sandbox: bool,
    /// Back to the default sandbox, dropping options given before.
    #[arg(long, conflicts_with_all = ["offline", "write", "read_secret"])]
    pub default_sandbox: bool,
}

impl SandboxArgs {
    fn given(&self) -> bool {
        self.offline
            || self.loopback
            || !self.write.is_empty()
            || !self.read_secret.is_empty()
            || self.no_sandbox
            || self.default_sandbox
    }

    /// The options as the rule stores them (`None`: none given); paths resolved from the
    /// current directory; `own` is agg's own directories, never writable.
    fn spec(&self, own: &[PathBuf]) -> Result<Option<Spec>, Error> {
        if !self.given() {
            return Ok(None);
        }
        if self.loopback {
            return Err(Error::Allowlist(
                crate::sandbox::LOOPBACK_REFUSED.to_owned(),
            ));
        }
        let cwd = std::env::current_dir().map_err(|e| {
            Error::Allowlist(format!(
                "the current directory: {}",
                crate::repo_files::io_reason(&e)
            ))
        })?;
        let resolve = |paths: &[PathBuf]| -> Vec<PathBuf> {
            paths
                .iter()
                .map(|p| crate::sandbox::resolve(p, &cwd))
                .collect()
        };
        let write = resolve(&self.write);
        let own: Vec<PathBuf> = own
            .iter()
            .map(|d| crate::sandbox::layout::real(d))
            .collect();
        if let Some((path, dir)) = write
            .iter()
            .find_map(|p| own.iter().find(|d| p.starts_with(d)).map(|d| (p, d)))
        {
            return Err(Error::Allowlist(format!(
                "{} is in {}, which is agg's own: a task may never rewrite the rules that let it run",
                path.display(),
                dir.display()
            )));
        }
        Ok(Some(Spec {
            no_sandbox: self.no_sandbox,
            offline: self.offline,
            loopback: false,
            write,
            read_secret: resolve(&self.read_secret),
        }))
    }
}

/// Options of `agg allowlist`.
#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

fn store_error(err: StoreError) -> Error {
    match err {
        StoreError::Corrupt { .. } => Error::Allowlist(format!(
            "{err}\n  agg never overwrites an allowlist it cannot read: fix the file or move it aside, then try again"
        )),
        other => Error::Allowlist(other.to_string()),
    }
}

fn canonical(path: &Path) -> Result<PathBuf, Error> {
    std::fs::canonicalize(path).map_err(|e| {
        Error::Allowlist(format!(
            "{}: {}",
            path.display(),
            crate::repo_files::io_reason(&e)
        ))
    })
}

/// Applies the change and returns the rule's target (pin unset) for the report.
fn apply(store: &Store, args: &RuleArgs, allow: bool) -> Result<(Change, Rule), Error> {
    let sandbox = if allow {
        args.sandbox
            .spec(&crate::sandbox::own_dirs(Some(store.path())))?
    } else {
        None
    };
    // One write: the rule goes in with its options, so no run ever sees it without them.
    let allow_rule = |mut rule: Rule| {
        rule.any_args = args.any_args;
        rule.sandbox.clone_from(&sandbox);
        store.update(|list| list.allow(rule))
    };
    if let Some(name) = &args.name {
        let table = super::load_table(&args.root)?;
        let task = super::find_task(&table, name)?;
        let file = table.root.join(&task.file_path);
        let change = if allow {
            let pin = OnDisk::new()
                .current(&table.root, task)
                .task_pin
                .clone()
                .map_err(|reason| StoreError::Unpinnable {
                    task: task.unique_name.clone(),
                    reason: reason.to_string(),
                })
                .map_err(store_error)?;
            allow_rule(Rule::for_task(
                file.clone(),
                task.source_name.clone(),
                Some(pin),
            ))
        } else {
            store.deny_task(&table.root, task)
        };
        let target = Rule::for_task(file, task.source_name.clone(), None);
        return Ok((change.map_err(store_error)?, target));
    }
    if let Some(file) = &args.file {
        let file = canonical(file)?;
        if !file.is_file() {
            return Err(Error::Allowlist(format!(
                "{} is not a file",
                file.display()
            )));
        }
        let change = if allow {
            let pin = if args.pin {
                Some(file_pin(&args.root, &file)?)
            } else {
                None
            };
            allow_rule(Rule::for_file(file.clone(), pin))
        } else {
            store.deny_file(&file)
        };
        return Ok((change.map_err(store_error)?, Rule::for_file(file, None)));
    }
    let dir = canonical(args.dir.as_ref().unwrap_or(&args.root))?;
    let change = if allow {
        allow_rule(Rule::for_dir(dir.clone()))
    } else {
        store.deny_dir(&dir)
    };
    Ok((change.map_err(store_error)?, Rule::for_dir(dir)))
}

/// The pin of the absolute `file` as it is now: with what it pulls in when it defines a
/// task of the repository at `root`, else its bytes alone.
fn file_pin(root: &Path, file: &Path) -> Result<Pin, Error> {
    let table = super::load_table(root)?;
    if let Some(task) = table
        .tasks
        .iter()
        .find(|t| allowlist::defined_in(&table.root, t, file))
    {
        return OnDisk::new()
            .current(&table.root, task)
            .file_pin
            .clone()
            .map_err(|reason| Error::Allowlist(reason.to_string()));
    }
    let content = crate::repo_files::read_regular(file, crate::repo_files::MAX_TASK_FILE_BYTES)
        .map_err(|reason| Error::Allowlist(format!("{}: {reason}", file.display())))?;
    let sha256 = crate::repo_files::sha256_hex(&content);
    Ok(Pin::file(
        &content,
        vec![allowlist::pin::PinnedFile {
            path: file.to_path_buf(),
            sha256,
        }],
    ))
}

pub(super) fn change(args: &RuleArgs, allow: bool) -> Result<ExitCode, Error> {
    if !allow && args.any_args {
        return Err(Error::Allowlist(
            "--any-args is for `agg allow NAME`: a deny rule refuses the task whatever its arguments"
                .to_owned(),
        ));
    }
    if !allow && args.sandbox.given() {
        return Err(Error::Allowlist(
            "the sandbox options are for `agg allow`: a denied task does not run at all".to_owned(),
        ));
    }
    if !allow && args.pin {
        return Err(Error::Allowlist(
            "--pin is for `agg allow --file`: a deny rule applies whatever the file says"
                .to_owned(),
        ));
    }
    let store = Store::open_default().map_err(store_error)?;
    let (change, target) = apply(&store, args, allow)?;
    // Read back what is in force now, for an exact report.
    let list = store.load().map_err(store_error)?;
    let written = if allow { &list.allow } else { &list.deny };
    let rule = written
        .iter()
        .find(|r| r.same_target(&target))
        .unwrap_or(&target);
    let mut out = anstream::stdout().lock();
    let verb = if allow { "allowed" } else { "denied" };
    match change {
        Change::Added => writeln!(out, "{verb}: {}", terminal_text::line(&rule.describe())),
        Change::Updated => writeln!(
            out,
            "{verb} (replacing the earlier rule for it): {}",
            terminal_text::line(&rule.describe())
        ),
        Change::Unchanged => writeln!(
            out,
            "already {verb}: {}",
            terminal_text::line(&rule.describe())
        ),
    }
    .map_err(Error::Output)?;
    if let Some(pin) = &rule.pin {
        let lines = if pin.lines == 1 { "line" } else { "lines" };
        match (&pin.command, &pin.dir) {
            (Some(command), Some(dir)) => writeln!(
                out,
                "  pinned to `{}` in {} ({} recipe {lines}); it lapses when the task or a file it reads changes",
                terminal_text::line(command),
                terminal_text::line(&dir.to_string_lossy()),
                pin.lines,
            ).map_err(Error::Output)?,
            _ => writeln!(
                out,
                "  pinned to the file's content ({} {lines}); it lapses on any edit of the file or of a file it reads",
                pin.lines
            ).map_err(Error::Output)?,
        }
        write_covers(&mut out, pin)?;
    }
    if rule.any_args {
        writeln!(
            out,
            "  agents may add any arguments to it (the runner reads some as its own options: that can run anything)"
        )
        .map_err(Error::Output)?;
    }
    if allow {
        write_sandbox(&mut out, rule)?;
    }
    if allow
        && let Some(file) = &rule.file
        && let Some(by) = list.denied_by(file, rule.task.as_deref().unwrap_or(""))
    {
        // A broader deny still wins; say so rather than let the user wonder.
        writeln!(
            out,
            "note: still denied by {} (deny wins over allow)",
            terminal_text::line(&by)
        )
        .map_err(Error::Output)?;
    }
    let path = terminal_text::line(&store.path().to_string_lossy()).into_owned();
    writeln!(out, "allowlist: {path}").map_err(Error::Output)?;
    Ok(ExitCode::SUCCESS)
}

/// The rule's sandbox, one line: loud when the person turned it off.
fn write_sandbox(out: &mut impl Write, rule: &Rule) -> Result<(), Error> {
    const LOUD: anstyle::Style = anstyle::AnsiColor::Red.on_default().bold();
    match &rule.sandbox {
        Some(spec) if spec.no_sandbox => writeln!(out, "        {LOUD}{}{LOUD:#}", spec.words()),
        Some(spec) => writeln!(
            out,
            "        sandbox: {}",
            terminal_text::line(&spec.words())
        ),
        None => Ok(()),
    }
    .map_err(Error::Output)
}

/// The files a pin covers, one line.
fn write_covers(out: &mut impl Write, pin: &Pin) -> Result<(), Error> {
    let covers = pin.covers();
    if covers.is_empty() {
        return Ok(());
    }
    writeln!(out, "        covers: {}", terminal_text::line(&covers)).map_err(Error::Output)
}

pub(super) fn show(args: &ShowArgs) -> Result<ExitCode, Error> {
    let store = Store::open_default().map_err(store_error)?;
    let list = store.load().map_err(store_error)?;
    let states = allowlist::audit(&list);
    if args.json {
        let allow: Vec<serde_json::Value> = list
            .allow
            .iter()
            .zip(&states)
            .map(|(rule, state)| {
                let mut value = serde_json::to_value(rule).unwrap_or_default();
                if let Some(map) = value.as_object_mut() {
                    map.insert("state".to_owned(), state.name().into());
                    if let Some(detail) = state.detail() {
                        map.insert("change".to_owned(), detail.into());
                    }
                }
                value
            })
            .collect();
        let value = serde_json::json!({"path": store.path(), "deny": list.deny, "allow": allow});
        return super::print_json(&value);
    }
    let mut out = anstream::stdout().lock();
    let path = terminal_text::line(&store.path().to_string_lossy()).into_owned();
    writeln!(out, "allowlist: {path}").map_err(Error::Output)?;
    if list.deny.is_empty() && list.allow.is_empty() {
        writeln!(
            out,
            "  (empty: agents may list tasks but run none; `agg allow NAME` allows one)"
        )
        .map_err(Error::Output)?;
    }
    for rule in &list.deny {
        writeln!(
            out,
            "  deny  {:<9} {}",
            rule.kind().name(),
            terminal_text::line(&rule.describe())
        )
        .map_err(Error::Output)?;
    }
    for (rule, state) in list.allow.iter().zip(&states) {
        writeln!(
            out,
            "  allow {:<9} {}",
            rule.kind().name(),
            terminal_text::line(&rule.describe())
        )
        .map_err(Error::Output)?;
        if let Some(pin) = &rule.pin {
            write_covers(&mut out, pin)?;
        }
        write_sandbox(&mut out, rule)?;
        match state {
            RuleState::Lapsed(change) => writeln!(
                out,
                "        lapsed: {}; agents may not run it until you allow it again",
                terminal_text::line(change)
            ).map_err(Error::Output)?,
            RuleState::Missing(why) => writeln!(out, "        lapsed: {}", terminal_text::line(why)).map_err(Error::Output)?,
            RuleState::Unpinned if rule.task.is_some() => writeln!(
                out,
                "        unpinned (written before pins): allows whatever the task says; `agg allow` it again to pin it"
            ).map_err(Error::Output)?,
            RuleState::Unpinned | RuleState::Holds => {}
        }
    }
    Ok(ExitCode::SUCCESS)
}
