//! What an agent may add to a task it was allowed to run: which arguments are data the
//! runner passes on, and which environment variables are refused outright.
//!
//! An allow covers exactly what the person saw. An argument is data when the runner hands
//! it to the task exactly as given (quoted for its shell, or as argv), which the runner's
//! descriptor says after checking it with the runner itself ([`ArgumentData`]): then any
//! printable value passes, spaces, quotes and `$( )` included, and only what the runner
//! itself still reads (yarn's `--`, go-task's `{{…}}`) needs approval. An argument the runner
//! reads as its own option, target or variable (`make build deploy`, `cargo b --config …`),
//! one past a just recipe's parameters (another recipe), or one the runner splices into code
//! (`{{name}}` in a just recipe line) changes what runs, so it needs the person's approval
//! (or a rule written for it, `agg allow NAME --any-args`). Variables that load or redirect
//! code are never taken from an agent. A person at a terminal (`agg run`) is not restricted.

use agg_runners::{ArgumentData, Arguments, Runner};

use crate::table::Task;

/// One argument an agent added that a plain allow does not cover.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unvetted {
    /// The argument as given.
    pub arg: String,
    /// Why it needs approval, in words.
    pub why: &'static str,
}

/// Characters no shell, template or runner expands: an argument made only of these is data
/// wherever the runner puts it.
fn plain(arg: &str) -> bool {
    !arg.is_empty()
        && arg
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./:@%+,=-".contains(&b))
}

const NOT_PLAIN: &str = "it holds characters a shell or the runner's templates could expand";
const SPLICED: &str =
    "the runner splices it into the recipe's code, where a shell would expand those characters";
const OPTION: &str = "it starts with `-`, which the runner may read as its own option";
const RUNNER_READS: &str = "the runner reads it as its own option, target or variable";
const TOO_MANY: &str =
    "it is more than the recipe's parameters, so the runner would run it as another recipe";
const UNDECLARED_VAR: &str = "it sets a variable the task does not declare as a parameter";
const OTHER_TASK: &str = "it fills the wildcard with the name of another task";
const INVISIBLE: &str = "it holds characters a terminal does not show as themselves";

/// Whether `arg` names a declared parameter the way the runner takes it (one of the flags a
/// poe arg declares, alone or as `--flag=value` with a plain value; `--force` for a mise
/// flag): the name comes from the task file, not the agent.
fn declared_option(task: &Task, arg: &str) -> bool {
    task.params.iter().any(|p| {
        p.name == arg
            || p.flags.iter().any(|f| f == arg)
            || arg.split_once('=').is_some_and(|(flag, value)| {
                p.flags.iter().any(|f| f == flag) && (value.is_empty() || plain(value))
            })
    })
}

/// `NAME=value` setting a declared parameter to a plain value.
fn declared_assignment(task: &Task, arg: &str) -> bool {
    arg.split_once('=').is_some_and(|(name, value)| {
        task.params.iter().any(|p| p.name == name) && (value.is_empty() || plain(value))
    })
}

/// Whether the runner splices values of the parameter `name` into code: as the task's
/// definition says when it was read for a decision, else (not known) yes.
fn spliced(task: &Task, name: &str) -> bool {
    task.reads
        .as_deref()
        .is_none_or(|reads| reads.spliced.iter().any(|s| s == name))
}

/// Why `arg`, passed on by a runner whose descriptor says `data`, is not data, if it is not.
fn not_data(data: ArgumentData, arg: &str) -> Option<&'static str> {
    match data {
        ArgumentData::Verbatim(reads) => reads
            .iter()
            .find(|syntax| syntax.in_arg(arg))
            .map(|syntax| syntax.why()),
        ArgumentData::Plain => (!plain(arg)).then_some(NOT_PLAIN),
    }
}

/// The arguments among `args` (as an agent gave them for `task`, as its files define it now)
/// that a plain allow does not cover, in order. `is_task` tells whether a name is another
/// task of the same runner in the same file (for go-task wildcards). Arguments holding
/// control characters are refused before this ([`control_character`]).
pub fn unvetted(task: &Task, args: &[String], is_task: &dyn Fn(&str) -> bool) -> Vec<Unvetted> {
    let descriptor = task.runner.descriptor();
    let mut out = Vec::new();
    let rest = if task.runner == Runner::GoTask {
        go_task_leading(task, args, is_task, &mut out)
    } else {
        args
    };
    // What a terminal would not show is never data without a question that shows it.
    let (hidden, rest): (Vec<&String>, Vec<&String>) = rest
        .iter()
        .partition(|a| crate::terminal_text::has_invisible(a));
    out.extend(hidden.into_iter().map(|a| flag(a, INVISIBLE)));
    match descriptor.arguments {
        Arguments::Separated => {
            out.extend(
                rest.into_iter()
                    .filter_map(|a| not_data(descriptor.data, a).map(|why| flag(a, why))),
            );
        }
        Arguments::Appended => appended(task, descriptor.data, rest, &mut out),
        Arguments::Parameters => parameters(task, descriptor.data, rest, &mut out),
        Arguments::Options => options(task, &rest, &mut out),
    }
    out
}

/// `arg`, needing approval because of `why`.
fn flag(arg: &str, why: &'static str) -> Unvetted {
    Unvetted {
        arg: arg.to_owned(),
        why,
    }
}

/// go-task's leading arguments: the values that fill a wildcard name's `*`s (plain, and not
/// making the name of another task), then `NAME=value` variables (declared parameters);
/// what follows is returned.
fn go_task_leading<'a>(
    task: &Task,
    args: &'a [String],
    is_task: &dyn Fn(&str) -> bool,
    out: &mut Vec<Unvetted>,
) -> &'a [String] {
    let stars = task.source_name.matches('*').count();
    let (fills, after) = args.split_at(stars.min(args.len()));
    let mut filled = String::new();
    let mut parts = task.source_name.split('*');
    filled.push_str(parts.next().unwrap_or_default());
    for (part, value) in parts.zip(fills) {
        filled.push_str(value);
        filled.push_str(part);
    }
    for value in fills {
        if !plain(value) {
            out.push(flag(value, NOT_PLAIN));
        }
    }
    if fills.len() == stars && stars > 0 && is_task(&filled) {
        out.extend(fills.iter().map(|v| flag(v, OTHER_TASK)));
    }
    let vars = after.iter().take_while(|a| super::is_assignment(a)).count();
    for var in &after[..vars] {
        if !declared_assignment(task, var) {
            out.push(flag(var, UNDECLARED_VAR));
        }
    }
    &after[vars..]
}

/// Arguments a runner appends to the task's command ([`Arguments::Appended`]): declared
/// options are data unless their value is spliced into code and not plain; anything else
/// must be data as the descriptor says, and not a word a spliced positional parameter or
/// the runner's own options would take.
fn appended(task: &Task, data: ArgumentData, rest: Vec<&String>, out: &mut Vec<Unvetted>) {
    // A positional parameter the runner splices in (a poe `positional` arg) takes the
    // words that are not options.
    let positional_spliced = task
        .params
        .iter()
        .any(|p| p.flags.is_empty() && spliced(task, &p.name));
    let mut options = rest.into_iter().peekable();
    while let Some(arg) = options.next() {
        if declared_option(task, arg) {
            // A declared option's value, when it follows as its own word, is what
            // the runner splices in.
            if let Some(param) = task.params.iter().find(|p| p.flags.contains(arg))
                && spliced(task, &param.name)
                && param.kind.as_deref() != Some("boolean")
                && let Some(value) = options.next_if(|v| !v.starts_with('-'))
                && !plain(value)
            {
                out.push(flag(value, SPLICED));
            }
            continue;
        }
        // `--flag=value` for a declared option whose value the runner splices in.
        let spliced_value = arg.split_once('=').is_some_and(|(f, _)| {
            task.params
                .iter()
                .any(|p| p.flags.iter().any(|x| x == f) && spliced(task, &p.name))
        });
        if spliced_value {
            out.push(flag(arg, SPLICED));
            continue;
        }
        match not_data(data, arg) {
            Some(why) => out.push(flag(arg, why)),
            None if positional_spliced && !arg.starts_with('-') && !plain(arg) => {
                out.push(flag(arg, SPLICED));
            }
            None if data == ArgumentData::Plain && arg.starts_with('-') => {
                out.push(flag(arg, OPTION));
            }
            None => {}
        }
    }
}

/// Arguments that fill the recipe's parameters in order ([`Arguments::Parameters`]): one
/// past them is another recipe, a spliced parameter's value must be plain, and any other
/// must be data as the descriptor says.
fn parameters(task: &Task, data: ArgumentData, rest: Vec<&String>, out: &mut Vec<Unvetted>) {
    let variadic = task.params.iter().position(|p| p.variadic.is_some());
    for (i, arg) in rest.into_iter().enumerate() {
        let param = task.params.get(variadic.map_or(i, |v| i.min(v)));
        match param {
            None => out.push(flag(arg, TOO_MANY)),
            Some(p) if spliced(task, &p.name) && !plain(arg) => {
                out.push(flag(arg, SPLICED));
            }
            Some(_) => {
                if let Some(why) = not_data(data, arg) {
                    out.push(flag(arg, why));
                } else if data == ArgumentData::Plain && arg.starts_with('-') {
                    // Not checked with the runner: it may read it as its own option.
                    out.push(flag(arg, OPTION));
                }
            }
        }
    }
}

/// Arguments the runner reads as its own ([`Arguments::Options`]): each needs approval,
/// except make's `NAME=value` and act's `--input NAME=value` for a declared parameter with
/// a plain value.
fn options(task: &Task, rest: &[&String], out: &mut Vec<Unvetted>) {
    let mut i = 0;
    while let Some(arg) = rest.get(i) {
        i += 1;
        if task.runner == Runner::Make && declared_assignment(task, arg) {
            continue;
        }
        if task.runner == Runner::Act
            && arg.as_str() == "--input"
            && rest.get(i).is_some_and(|v| declared_assignment(task, v))
        {
            i += 1;
            continue;
        }
        out.push(flag(arg, RUNNER_READS));
    }
}

/// The first argument holding a control character (a newline, a tab, ESC, NUL), with its
/// index: no runner takes one as data a person could check, so it is refused, never asked.
pub fn control_character(args: &[String]) -> Option<usize> {
    args.iter()
        .position(|a| crate::terminal_text::has_control(a))
}

/// Names refused outright: each loads or redirects code (a library, an interpreter's
/// options, the shell, the program search path, the runner's own settings).
pub const REFUSED_NAMES: &[&str] = &[
    "PATH",
    "HOME",
    "SHELL",
    "ENV",
    "BASH_ENV",
    "IFS",
    "CDPATH",
    "PROMPT_COMMAND",
    "PS4",
    "SHELLOPTS",
    "BASHOPTS",
    "GLOBIGNORE",
    "ZDOTDIR",
    "MAKEFLAGS",
    "MAKEFILES",
    "MFLAGS",
    "GNUMAKEFLAGS",
    "MAKESHELL",
    "CC",
    "CXX",
    "CPP",
    "LD",
    "AR",
    "AS",
    "RUSTC",
    "RUSTDOC",
    "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER",
    "RUSTFLAGS",
    "RUSTDOCFLAGS",
    "PERL5OPT",
    "PERL5LIB",
    "PERLLIB",
    "RUBYOPT",
    "RUBYLIB",
    "JAVA_HOME",
    "JAVA_TOOL_OPTIONS",
    "CLASSPATH",
    "GOFLAGS",
    "GOROOT",
    "GOTOOLCHAIN",
    "GCONV_PATH",
    "GLIBC_TUNABLES",
    "EDITOR",
    "VISUAL",
    "PAGER",
    "BROWSER",
    "LESSOPEN",
    "LESSCLOSE",
    "SSH_ASKPASS",
    "SUDO_ASKPASS",
    "COMPOSER",
    "VIRTUAL_ENV",
];

/// Name prefixes refused outright (compared in upper case).
pub const REFUSED_PREFIXES: &[&str] = &[
    "LD_",
    "DYLD_",
    "PYTHON",
    "NODE_",
    "NPM_CONFIG_",
    "YARN_",
    "PNPM_",
    "BUN_",
    "DENO_",
    "CARGO_",
    "GIT_",
    "XDG_",
    "AGG_",
    "JUST_",
    "TASK_",
    "MISE_",
    "TOX_",
    "NOX_",
    "PIP_",
    "UV_",
    "POETRY_",
    "PDM_",
    "HATCH_",
    "POE_",
    "TURBO_",
    "NX_",
    "COMPOSER_",
    "GRADLE_",
    "MAVEN_",
    "CMAKE_",
    "DOCKER_",
    "COMPOSE_",
    "_JAVA_",
    "JDK_JAVA_",
];

/// Name suffixes refused outright (compared in upper case): interpreters' and tools'
/// options (`NODE_OPTIONS`, `MAVEN_OPTS`, `GRADLE_OPTS`, `JAVA_TOOL_OPTIONS`).
pub const REFUSED_SUFFIXES: &[&str] = &["_OPTIONS", "_OPTS"];

/// Why an agent may never set the environment variable `name`, when it may not.
pub fn refused_env(name: &str) -> Option<String> {
    let upper = name.to_ascii_uppercase();
    if let Some(exact) = REFUSED_NAMES.iter().find(|n| **n == upper) {
        return Some(format!("`{exact}` changes which program or code runs"));
    }
    if let Some(prefix) = REFUSED_PREFIXES.iter().find(|p| upper.starts_with(**p)) {
        return Some(format!(
            "variables starting with `{prefix}` load code or change a runner's settings"
        ));
    }
    REFUSED_SUFFIXES
        .iter()
        .find(|s| upper.ends_with(**s))
        .map(|s| format!("variables ending in `{s}` pass options to an interpreter or a tool"))
}

#[cfg(test)]
mod tests {
    use agg_runners::Variadic;

    use super::super::tests::task;
    use super::*;

    fn args(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    fn flagged(task: &Task, given: &[&str]) -> Vec<String> {
        unvetted(task, &args(given), &|name| name == "greet:secret")
            .into_iter()
            .map(|u| u.arg)
            .collect()
    }

    #[test]
    fn make_and_cargo_read_every_argument_themselves() {
        let build = task(Runner::Make, "build", &["VERSION"]);
        assert_eq!(
            flagged(&build, &["deploy", "-f", "x.mk", "SHELL=/tmp/x"]),
            ["deploy", "-f", "x.mk", "SHELL=/tmp/x"]
        );
        assert!(flagged(&build, &["VERSION=1.2"]).is_empty());
        assert_eq!(
            flagged(&build, &["VERSION=$(shell id)"]),
            ["VERSION=$(shell id)"]
        );
        let alias = task(Runner::Cargo, "b", &[]);
        assert_eq!(flagged(&alias, &["--release"]), ["--release"]);
    }

    #[test]
    fn just_takes_no_more_than_its_parameters_and_a_spliced_one_only_plain() {
        let build = task(Runner::Just, "build", &[]);
        assert_eq!(flagged(&build, &["deploy"]), ["deploy"]);
        let mut test = task(Runner::Just, "test", &["filter"]);
        assert!(flagged(&test, &["unit"]).is_empty());
        // Without what the recipe reads, a value counts as spliced into its lines.
        assert_eq!(flagged(&test, &["$(id)"]), ["$(id)"]);
        assert_eq!(flagged(&test, &["a", "deploy"]), ["deploy"]);
        // Read for a decision: `$filter` or `"$1"`, never `{{filter}}`, takes any value.
        test.reads = Some(Box::default());
        assert!(flagged(&test, &["$(id) a b"]).is_empty());
        assert!(flagged(&test, &["--set"]).is_empty());
        let mut spliced = test.clone();
        spliced.reads = Some(Box::new(agg_runners::Reads {
            spliced: vec!["filter".to_owned()],
            ..agg_runners::Reads::default()
        }));
        assert_eq!(flagged(&spliced, &["a b"]), ["a b"]);
        let mut all = task(Runner::Just, "all", &["rest"]);
        all.params[0].variadic = Some(Variadic::ZeroOrMore);
        assert!(flagged(&all, &["a", "b", "c"]).is_empty());
    }

    #[test]
    fn go_task_wildcards_never_name_another_task() {
        let greet = task(Runner::GoTask, "greet:*", &["MATCH"]);
        assert_eq!(flagged(&greet, &["secret"]), ["secret"]);
        assert!(flagged(&greet, &["bob", "x"]).is_empty());
        assert_eq!(flagged(&greet, &["bob", "LOUD=1"]), ["LOUD=1"]);
        let vars = task(Runner::GoTask, "greet", &["NAME"]);
        assert!(flagged(&vars, &["NAME=Bob", "--", "-v"]).is_empty());
        assert_eq!(flagged(&vars, &["NAME=$(id)"]), ["NAME=$(id)"]);
        // `CLI_ARGS` is quoted, but go-task evaluates templates in it.
        assert!(flagged(&vars, &["a b", "$(id)"]).is_empty());
        assert_eq!(flagged(&vars, &["{{.SECRET}}"]), ["{{.SECRET}}"]);
    }

    #[test]
    fn passed_on_arguments_are_data_unless_the_runner_reads_them() {
        let npm = task(Runner::Npm, "test", &[]);
        let data = [
            "--watch",
            "a b",
            "`id`",
            "$(id)",
            "it's",
            "x=y:z@w,v/u",
            "é ☃",
            "--",
        ];
        assert!(flagged(&npm, &data).is_empty());
        let pnpm = task(Runner::Pnpm, "test", &[]);
        assert!(flagged(&pnpm, &["--filter", "-C", "/tmp"]).is_empty());
        for runner in [Runner::Yarn, Runner::Bun, Runner::Poetry, Runner::Hatch] {
            assert_eq!(flagged(&task(runner, "t", &[]), &["a", "--", "b"]), ["--"]);
        }
        let pdm = task(Runner::Pdm, "t", &[]);
        assert_eq!(flagged(&pdm, &["${HOME}", "$HOME"]), ["${HOME}"]);
        let hatch = task(Runner::Hatch, "t", &[]);
        assert_eq!(flagged(&hatch, &["{env:HOME}", "a"]), ["{env:HOME}"]);
        // Runners agg has not checked keep to plain words.
        let xc = task(Runner::Xc, "t", &[]);
        assert_eq!(flagged(&xc, &["a b", "-v", "ok"]), ["a b", "-v"]);
        let mut poe = task(Runner::Poe, "serve", &["port"]);
        poe.params[0].flags = vec!["-p".to_owned(), "--listen".to_owned()];
        assert!(flagged(&poe, &["--listen", "8000"]).is_empty());
        assert!(flagged(&poe, &["-p", "8000", "--listen=9000"]).is_empty());
        assert!(flagged(&poe, &["--port", "8000"]).is_empty());
        // poe splits a declared option's value into words and globs it.
        assert_eq!(flagged(&poe, &["--listen=$(id)"]), ["--listen=$(id)"]);
        assert_eq!(flagged(&poe, &["--listen", "a b*"]), ["a b*"]);
        let mut positional = task(Runner::Poe, "greet", &["name"]);
        positional.params[0].flags.clear();
        assert_eq!(flagged(&positional, &["bob", "a b"]), ["a b"]);
    }

    #[test]
    fn hidden_characters_are_never_data() {
        let npm = task(Runner::Npm, "test", &[]);
        assert_eq!(flagged(&npm, &["ok", "txt\u{202e}exe"]), ["txt\u{202e}exe"]);
        assert_eq!(control_character(&args(&["ok", "a\nb"])), Some(1));
        assert_eq!(control_character(&args(&["ok", "tab\tbed"])), Some(1));
        assert_eq!(control_character(&args(&["ok", "é ☃"])), None);
    }

    #[test]
    fn variables_that_load_code_are_refused() {
        for name in [
            "LD_PRELOAD",
            "PATH",
            "NODE_OPTIONS",
            "npm_config_script_shell",
            "MAKEFLAGS",
            "MAKEFILES",
            "RUSTC_WRAPPER",
            "MAVEN_OPTS",
            "PYTHONPATH",
            "BASH_ENV",
            "AGG_ALLOWLIST",
        ] {
            assert!(refused_env(name).is_some(), "{name}");
        }
        for name in ["CI", "RUST_LOG", "DEBUG", "PORT"] {
            assert!(refused_env(name).is_none(), "{name}");
        }
    }
}
