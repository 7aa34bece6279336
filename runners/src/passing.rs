//! How a parameter's value reaches its task: the [`Passing`] an adapter sets on each
//! parameter it reads (with [`Passing::declared`] for runners that take declared options),
//! and [`arguments`], which turns a run's values into the arguments and environment the
//! runner takes.
//!
//! Each adapter knows how its runner takes a value (just: positional; go-task: `NAME=value`;
//! poe: the option it declares; act: `--input NAME=value`), so it says so on each [`Param`]
//! it returns; whoever runs the task reads the passing and never the runner.

use crate::model::{Param, Passing, Task};

impl Passing {
    /// How a runner that reads its options the way Python's `argparse` does (poe, invoke)
    /// takes `param`: by the first long option it declares (else its first), a `boolean` one
    /// as a flag alone, one without options before every option.
    pub fn declared(param: &Param) -> Passing {
        let flag = param
            .flags
            .iter()
            .find(|f| f.starts_with("--"))
            .or(param.flags.first());
        match flag {
            None => Passing::Leading,
            Some(flag) if param.kind.as_deref() == Some("boolean") => Passing::Toggle {
                flag: flag.clone(),
                default: param.default.as_deref().is_some_and(truthy),
            },
            Some(flag) => Passing::Option {
                flag: flag.clone(),
                words: param.variadic.is_some(),
            },
        }
    }
}

/// A boolean value as poe and invoke read one.
pub(crate) fn truthy(value: &str) -> bool {
    matches!(
        value.trim().to_ascii_lowercase().as_str(),
        "true" | "t" | "1" | "yes" | "y" | "on"
    )
}

/// The arguments (to go before any others the caller adds) and the environment that pass
/// `values`, given as (`name`, `value`) for the task's [`Task::params`], each the way its
/// [`Passing`] says. Values of no parameter are left out.
pub fn arguments(task: &Task, values: &[(String, String)]) -> (Vec<String>, Vec<(String, String)>) {
    let mut leading = Vec::new();
    let mut args = Vec::new();
    let mut env = Vec::new();
    for param in &task.params {
        let Some((_, value)) = values.iter().find(|(name, _)| *name == param.name) else {
            continue;
        };
        let words = |split: bool| -> Vec<String> {
            if split {
                value.split_whitespace().map(str::to_owned).collect()
            } else {
                vec![value.clone()]
            }
        };
        match &param.passing {
            Passing::Environment => env.push((param.name.clone(), value.clone())),
            Passing::Positional | Passing::Wildcard => args.push(value.clone()),
            Passing::Assignment => args.push(format!("{}={value}", param.name)),
            Passing::Leading => leading.extend(words(param.variadic.is_some())),
            Passing::Option { flag, words: split } => {
                args.push(flag.clone());
                args.extend(words(*split));
            }
            Passing::Switch { flag } => {
                if value == "true" {
                    args.push(flag.clone());
                }
            }
            Passing::Toggle { flag, default } => {
                if truthy(value) != *default {
                    args.push(flag.clone());
                }
            }
            Passing::Input => {
                args.push("--input".to_owned());
                args.push(format!("{}={value}", param.name));
            }
            // Filled in below, all in one argument.
            Passing::Bracket => {}
        }
    }
    if task.params.iter().any(|p| p.passing == Passing::Bracket) {
        leading.extend(bracketed(task, values));
    }
    leading.extend(args);
    (leading, env)
}

/// The task's name with every value of its [`Passing::Bracket`] parameters in brackets, in
/// their order (`deploy[prod,v2]`): a missing one empty, a comma escaped as rake reads it.
fn bracketed(task: &Task, values: &[(String, String)]) -> Option<String> {
    let mut filled: Vec<String> = task
        .params
        .iter()
        .filter(|p| p.passing == Passing::Bracket)
        .map(|p| {
            values
                .iter()
                .find(|(name, _)| *name == p.name)
                .map_or_else(String::new, |(_, v)| v.replace(',', "\\,"))
        })
        .collect();
    while filled.last().is_some_and(String::is_empty) {
        filled.pop();
    }
    (!filled.is_empty()).then(|| format!("{}[{}]", task.source_name, filled.join(",")))
}

#[cfg(test)]
mod tests {
    use super::arguments;
    use crate::model::{Param, Passing, Runner, Task, Variadic};

    fn values(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    /// Each passing, in one task: environment apart; leading and bracketed values first,
    /// then the others in the order of the parameters; values of no parameter left out.
    #[test]
    fn each_passing_puts_the_value_where_its_runner_reads_it() {
        let mut task = Task::new(Runner::Rake, "deploy", ".", "Rakefile", Vec::new());
        let flag = |f: &str| f.to_owned();
        task.params = vec![
            Param::required("NAME").passed(Passing::Assignment),
            Param::required("pos").passed(Passing::Positional),
            Param::required("out").passed(Passing::Option {
                flag: flag("--out"),
                words: false,
            }),
            Param::required("force").passed(Passing::Switch {
                flag: flag("--force"),
            }),
            Param::required("quiet").passed(Passing::Toggle {
                flag: flag("--no-quiet"),
                default: true,
            }),
            Param::required("target").passed(Passing::Input),
            Param::required("TOKEN"),
            Param {
                variadic: Some(Variadic::ZeroOrMore),
                ..Param::required("files").passed(Passing::Leading)
            },
            Param::required("env").passed(Passing::Bracket),
            Param::required("tag").passed(Passing::Bracket),
        ];
        let (args, env) = arguments(
            &task,
            &values(&[
                ("NAME", "Bob"),
                ("pos", "p"),
                ("out", "a b"),
                ("force", "true"),
                ("quiet", "off"),
                ("target", "web"),
                ("TOKEN", "t"),
                ("files", "x y"),
                ("tag", "v,2"),
                ("stray", "s"),
            ]),
        );
        assert_eq!(
            args,
            [
                "x",
                "y",
                "deploy[,v\\,2]",
                "NAME=Bob",
                "p",
                "--out",
                "a b",
                "--force",
                "--no-quiet",
                "--input",
                "target=web"
            ]
        );
        assert_eq!(env, values(&[("TOKEN", "t")]));
        // A switch only for the exact `true`; a toggle only away from its default.
        let (args, _) = arguments(&task, &values(&[("force", "yes"), ("quiet", "yes")]));
        assert!(args.is_empty(), "{args:?}");
    }

    #[test]
    fn a_declared_option_is_passed_by_its_first_long_flag() {
        let mut p = Param::required("who");
        assert_eq!(Passing::declared(&p), Passing::Leading);
        p.flags = vec!["-w".to_owned(), "--person".to_owned()];
        p.variadic = Some(Variadic::OneOrMore);
        assert_eq!(
            Passing::declared(&p),
            Passing::Option {
                flag: "--person".to_owned(),
                words: true
            }
        );
        p.kind = Some("boolean".to_owned());
        p.default = Some("Yes".to_owned());
        assert_eq!(
            Passing::declared(&p),
            Passing::Toggle {
                flag: "--person".to_owned(),
                default: true
            }
        );
    }
}
