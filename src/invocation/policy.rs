//! What an agent may add to a task it was allowed to run: which arguments are data the
//! runner passes on, and which environment variables are refused outright.
//!
//! An allow covers exactly what the person saw. An argument the runner could read as its
//! own option, target or variable (`make build deploy`, `cargo b --config …`), one past a
//! just recipe's parameters (another recipe), or one a shell would expand (`$(id)` into a
//! just or go-task line) changes what runs, so it needs the person's approval (or a rule
//! written for it, `agg allow NAME --any-args`). Variables that load or redirect code are
//! never taken from an agent. A person at a terminal (`agg run`) is not restricted.

use agg_runners::{Arguments, Runner};

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
const OPTION: &str = "it starts with `-`, which the runner may read as its own option";
const RUNNER_READS: &str = "the runner reads it as its own option, target or variable";
const TOO_MANY: &str =
    "it is more than the recipe's parameters, so the runner would run it as another recipe";
const UNDECLARED_VAR: &str = "it sets a variable the task does not declare as a parameter";
const OTHER_TASK: &str = "it fills the wildcard with the name of another task";

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

/// The arguments among `args` (as an agent gave them for `task`) that a plain allow does
/// not cover, in order. `is_task` tells whether a name is another task of the same runner
/// in the same directory (for go-task wildcards).
pub fn unvetted(task: &Task, args: &[String], is_task: &dyn Fn(&str) -> bool) -> Vec<Unvetted> {
    let flag = |arg: &String, why| Unvetted {
        arg: arg.clone(),
        why,
    };
    let mut out = Vec::new();
    let mut rest = args;
    if task.runner == Runner::Task {
        let stars = task.source_name.matches('*').count();
        let (fills, after) = rest.split_at(stars.min(rest.len()));
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
        rest = &after[vars..];
    }
    match task.runner.descriptor().arguments {
        Arguments::Separated => {
            out.extend(
                rest.iter()
                    .filter(|a| !plain(a))
                    .map(|a| flag(a, NOT_PLAIN)),
            );
        }
        Arguments::Appended => {
            for arg in rest {
                if declared_option(task, arg) {
                    continue;
                }
                if arg.starts_with('-') {
                    out.push(flag(arg, OPTION));
                } else if !plain(arg) {
                    out.push(flag(arg, NOT_PLAIN));
                }
            }
        }
        Arguments::Parameters => {
            let variadic = task.params.iter().any(|p| p.variadic.is_some());
            for (i, arg) in rest.iter().enumerate() {
                if i >= task.params.len() && !variadic {
                    out.push(flag(arg, TOO_MANY));
                } else if arg.starts_with('-') {
                    out.push(flag(arg, OPTION));
                } else if !plain(arg) {
                    out.push(flag(arg, NOT_PLAIN));
                }
            }
        }
        Arguments::Options => {
            let mut i = 0;
            while let Some(arg) = rest.get(i) {
                i += 1;
                // make `NAME=value` and act `--input NAME=value` for a parameter the task
                // declares, with a plain value, are data.
                if task.runner == Runner::Make && declared_assignment(task, arg) {
                    continue;
                }
                if task.runner == Runner::Act
                    && arg == "--input"
                    && rest.get(i).is_some_and(|v| declared_assignment(task, v))
                {
                    i += 1;
                    continue;
                }
                out.push(flag(arg, RUNNER_READS));
            }
        }
    }
    out
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
    fn just_takes_no_more_than_its_parameters_and_nothing_a_shell_expands() {
        let build = task(Runner::Just, "build", &[]);
        assert_eq!(flagged(&build, &["deploy"]), ["deploy"]);
        let test = task(Runner::Just, "test", &["filter"]);
        assert!(flagged(&test, &["unit"]).is_empty());
        assert_eq!(flagged(&test, &["$(id)"]), ["$(id)"]);
        assert_eq!(flagged(&test, &["a", "deploy"]), ["deploy"]);
        let mut all = task(Runner::Just, "all", &["rest"]);
        all.params[0].variadic = Some(Variadic::ZeroOrMore);
        assert!(flagged(&all, &["a", "b", "c"]).is_empty());
    }

    #[test]
    fn go_task_wildcards_never_name_another_task() {
        let greet = task(Runner::Task, "greet:*", &["MATCH"]);
        assert_eq!(flagged(&greet, &["secret"]), ["secret"]);
        assert!(flagged(&greet, &["bob", "x"]).is_empty());
        assert_eq!(flagged(&greet, &["bob", "LOUD=1"]), ["LOUD=1"]);
        let vars = task(Runner::Task, "greet", &["NAME"]);
        assert!(flagged(&vars, &["NAME=Bob", "--", "-v"]).is_empty());
        assert_eq!(flagged(&vars, &["NAME=$(id)"]), ["NAME=$(id)"]);
    }

    #[test]
    fn passed_on_arguments_are_data_unless_a_shell_or_the_runner_could_read_them() {
        let npm = task(Runner::Npm, "test", &[]);
        assert!(flagged(&npm, &["--watch", "src/a.test.ts"]).is_empty());
        assert_eq!(flagged(&npm, &["`id`"]), ["`id`"]);
        let pnpm = task(Runner::Pnpm, "test", &[]);
        assert_eq!(flagged(&pnpm, &["--filter"]), ["--filter"]);
        let mut poe = task(Runner::Poe, "serve", &["port"]);
        poe.params[0].flags = vec!["-p".to_owned(), "--listen".to_owned()];
        assert!(flagged(&poe, &["--listen", "8000"]).is_empty());
        assert!(flagged(&poe, &["-p", "8000", "--listen=9000"]).is_empty());
        assert_eq!(flagged(&poe, &["--port", "8000"]), ["--port"]);
        assert_eq!(flagged(&poe, &["--listen=$(id)"]), ["--listen=$(id)"]);
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
