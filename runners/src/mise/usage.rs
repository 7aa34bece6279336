//! A task's parameters from its usage spec (the KDL of `usage = '''…'''` and of a file
//! task's `#USAGE` lines) and from the older Tera calls in a `run` script
//! (`{{arg(name="x")}}`, `{{option(name="x")}}`, `{{flag(name="x")}}`).
//!
//! Only the top-level `arg` and `flag` nodes matter here; children (`{ choices … }`), `cmd`
//! nodes and comments are skipped. A positional argument keeps its name (`file` for
//! `arg "<file>"`); a flag is named as it is typed (`--force`, or `-f` when it has no long
//! form), so the table shows how each value reaches the task. A flag that takes no value is a
//! switch: its default is `false`, and a value of `true` passes the flag alone.

use crate::model::Passing;
use crate::model::{Param, Variadic};

/// The parameters a usage spec declares, in order.
pub(super) fn params(spec: &str) -> Vec<Param> {
    let mut out: Vec<Param> = Vec::new();
    for node in nodes(spec) {
        let param = match node.name.as_str() {
            "arg" => node.args.first().and_then(|s| arg(s, &node.props)),
            "flag" | "option" => node.args.first().and_then(|s| flag(s, &node.props)),
            _ => None,
        };
        if let Some(param) = param
            && !out.iter().any(|p| p.name == param.name)
        {
            out.push(passed(param));
        }
    }
    out
}

/// `param` with its passing, as mise takes it: a flag is named as typed (`--force`); one
/// that defaults to `false` is a switch given alone, another an option with its value
/// (`--out v`); an `arg` is positional.
fn passed(param: Param) -> Param {
    let passing = if !param.name.starts_with('-') {
        Passing::Positional
    } else if param.default.as_deref() == Some("false") {
        Passing::Switch {
            flag: param.name.clone(),
        }
    } else {
        Passing::Option {
            flag: param.name.clone(),
            words: false,
        }
    };
    param.passed(passing)
}

/// `arg "<name>"`, `arg "[name]"`, `arg "<files>..."`.
fn arg(spec: &str, props: &[(String, String)]) -> Option<Param> {
    let spec = spec.trim();
    let (spec, dots) = match spec.strip_suffix("...") {
        Some(s) => (s.trim_end(), true),
        None => (spec, false),
    };
    let (name, required) = if let Some(inner) = spec.strip_prefix('<') {
        (inner.strip_suffix('>')?, true)
    } else if let Some(inner) = spec.strip_prefix('[') {
        (inner.strip_suffix(']')?, false)
    } else {
        (spec, true)
    };
    let name = name.trim();
    if name.is_empty() {
        return None;
    }
    let default = prop(props, "default").map(str::to_owned);
    let required = match prop(props, "required") {
        Some(value) => is_true(value),
        None => required && default.is_none(),
    };
    let variadic = (dots || prop(props, "var").is_some_and(is_true)).then_some(if required {
        Variadic::OneOrMore
    } else {
        Variadic::ZeroOrMore
    });
    Some(Param {
        name: name.to_owned(),
        default,
        required,
        variadic,
        exported: false,
        ..Param::default()
    })
}

/// `flag "-f --force"`, `flag "--out <file>"`.
fn flag(spec: &str, props: &[(String, String)]) -> Option<Param> {
    let mut long = None;
    let mut short = None;
    let mut takes_value = false;
    for word in spec.split([' ', ',']).filter(|w| !w.is_empty()) {
        if word.starts_with('<') || word.starts_with('[') {
            takes_value = true;
        } else if word.starts_with("--") && word.len() > 2 {
            long.get_or_insert(word);
        } else if word.starts_with('-') && word.len() > 1 {
            short.get_or_insert(word);
        }
    }
    let name = long.or(short)?;
    let default = if takes_value {
        prop(props, "default").map(str::to_owned)
    } else {
        Some("false".to_owned())
    };
    Some(Param {
        name: name.to_owned(),
        default,
        required: prop(props, "required").is_some_and(is_true),
        variadic: prop(props, "var")
            .is_some_and(is_true)
            .then_some(Variadic::ZeroOrMore),
        exported: false,
        ..Param::default()
    })
}

fn prop<'p>(props: &'p [(String, String)], key: &str) -> Option<&'p str> {
    props
        .iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
}

fn is_true(value: &str) -> bool {
    matches!(value, "#true" | "true")
}

/// One top-level KDL node: its name, its arguments and its `key=value` properties.
#[derive(Debug, Default)]
struct Node {
    name: String,
    args: Vec<String>,
    props: Vec<(String, String)>,
}

/// The top-level nodes of a KDL document, read leniently: what is not understood is skipped.
fn nodes(text: &str) -> Vec<Node> {
    let mut out = Vec::new();
    let mut current: Option<Node> = None;
    let mut depth = 0usize;
    let mut pending_key: Option<String> = None;
    for token in tokens(text) {
        match token {
            Token::Open => depth += 1,
            Token::Close => depth = depth.saturating_sub(1),
            Token::End if depth == 0 => {
                out.extend(current.take());
                pending_key = None;
            }
            Token::Eq if depth == 0 => {
                // `key=value`: the word before was the key, not an argument.
                if let Some(node) = &mut current {
                    pending_key = node.args.pop();
                }
            }
            Token::Word(word) | Token::Str(word) if depth == 0 => match &mut current {
                None => {
                    current = Some(Node {
                        name: word,
                        ..Node::default()
                    });
                }
                Some(node) => match pending_key.take() {
                    Some(key) => node.props.push((key, word)),
                    None => node.args.push(word),
                },
            },
            // Inside a node's children, or an `=` and a node end that close nothing.
            Token::Word(_) | Token::Str(_) | Token::End | Token::Eq => {}
        }
    }
    out.extend(current);
    out
}

#[derive(Debug, PartialEq)]
enum Token {
    Word(String),
    Str(String),
    Eq,
    Open,
    Close,
    /// A newline or `;` ending a node.
    End,
}

/// KDL tokens: bare words, quoted strings (escapes kept simple), `=`, braces and node ends;
/// `//` and `/* */` comments and `\` line continuations are dropped.
fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\n' | ';' => out.push(Token::End),
            '{' => out.push(Token::Open),
            '}' => out.push(Token::Close),
            '=' => out.push(Token::Eq),
            '\\' => {
                // A line continuation: the node goes on.
                while chars.next_if(|c| *c != '\n').is_some() {}
                chars.next();
            }
            '/' if chars.peek() == Some(&'/') => while chars.next_if(|c| *c != '\n').is_some() {},
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut last = ' ';
                for c in chars.by_ref() {
                    if last == '*' && c == '/' {
                        break;
                    }
                    last = c;
                }
            }
            '"' => {
                let mut s = String::new();
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' => match chars.next() {
                            Some('n') => s.push('\n'),
                            Some('t') => s.push('\t'),
                            Some(other) => s.push(other),
                            None => break,
                        },
                        other => s.push(other),
                    }
                }
                out.push(Token::Str(s));
            }
            c if c.is_whitespace() => {}
            c => {
                let mut word = String::from(c);
                while let Some(c) = chars
                    .next_if(|c| !c.is_whitespace() && !matches!(c, '=' | '{' | '}' | ';' | '"'))
                {
                    word.push(c);
                }
                out.push(Token::Word(word));
            }
        }
    }
    out
}

/// Parameters named by Tera calls in a `run` script: `{{arg(name="file")}}`,
/// `{{option(name="out")}}`, `{{flag(name="force")}}` (mise's older way to declare them).
pub(super) fn tera_params(script: &str) -> Vec<Param> {
    let mut out: Vec<Param> = Vec::new();
    let mut rest = script;
    while let Some(open) = rest.find("{{") {
        let inner = &rest[open + 2..];
        let Some(close) = inner.find("}}") else {
            break;
        };
        let expr = inner[..close].trim();
        rest = &inner[close + 2..];
        let Some((call, args)) = expr.split_once('(') else {
            continue;
        };
        let Some(name) = named(args, "name") else {
            continue;
        };
        let default = named(args, "default");
        let param = match call.trim() {
            "arg" => Param {
                required: default.is_none(),
                variadic: named_bool(args, "var").then_some(Variadic::ZeroOrMore),
                name,
                default,
                exported: false,
                ..Param::default()
            },
            "option" => Param {
                name: format!("--{name}"),
                default,
                required: false,
                variadic: None,
                exported: false,
                ..Param::default()
            },
            "flag" => Param {
                name: format!("--{name}"),
                default: Some("false".to_owned()),
                required: false,
                variadic: None,
                exported: false,
                ..Param::default()
            },
            _ => continue,
        };
        if !out.iter().any(|p| p.name == param.name) {
            out.push(passed(param));
        }
    }
    out
}

/// The string value of `key="…"` in a Tera call's arguments.
fn named(args: &str, key: &str) -> Option<String> {
    args.split(',').find_map(|part| {
        let (k, v) = part.split_once('=')?;
        if k.trim() != key {
            return None;
        }
        let v = v.trim().trim_end_matches(')').trim();
        let v = v
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .or_else(|| v.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))?;
        Some(v.to_owned())
    })
}

fn named_bool(args: &str, key: &str) -> bool {
    args.split(',').any(|part| {
        part.split_once('=')
            .is_some_and(|(k, v)| k.trim() == key && v.trim().trim_end_matches(')') == "true")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(params: &[Param]) -> Vec<&str> {
        params.iter().map(|p| p.name.as_str()).collect()
    }

    #[test]
    fn args_and_flags_become_params() {
        let spec = r#"
            arg "<env>" help="Where to deploy" {
                choices "staging" "prod"
            }
            arg "[region]" default="eu-west-1"
            arg "<files>..." help="files"
            flag "-f --force" help="Skip checks"
            flag "-o --out <file>" default="dist"
            flag "-v"  // verbose
            /* arg "<hidden>" */
            cmd "sub" { arg "<inner>" }
        "#;
        let params = params(spec);
        assert_eq!(
            names(&params),
            ["env", "region", "files", "--force", "--out", "-v"]
        );
        assert!(params[0].required);
        assert_eq!(params[1].default.as_deref(), Some("eu-west-1"));
        assert!(!params[1].required);
        assert_eq!(params[2].variadic, Some(Variadic::OneOrMore));
        assert_eq!(params[3].default.as_deref(), Some("false"));
        assert_eq!(params[4].default.as_deref(), Some("dist"));
        let passing: Vec<&Passing> = params.iter().map(|p| &p.passing).collect();
        let switch = |flag: &str| Passing::Switch {
            flag: flag.to_owned(),
        };
        let out = Passing::Option {
            flag: "--out".to_owned(),
            words: false,
        };
        assert_eq!(
            passing,
            [
                &Passing::Positional,
                &Passing::Positional,
                &Passing::Positional,
                &switch("--force"),
                &out,
                &switch("-v")
            ]
        );
    }

    #[test]
    fn properties_override_the_brackets() {
        let params = params(
            "arg \"<a>\" required=#false\narg \"[b]\" var=#true; flag \"--x\" required=true",
        );
        assert!(!params[0].required);
        assert_eq!(params[1].variadic, Some(Variadic::ZeroOrMore));
        assert!(params[2].required);
    }

    #[test]
    fn junk_is_skipped_without_panicking() {
        for spec in [
            "arg",
            "arg \"<\"",
            "flag \"\"",
            "\"",
            "{{{",
            "}}}",
            "arg \"<x>\" =",
            "a\\",
            "/*",
        ] {
            let _ = params(spec);
        }
        assert!(params("arg \"<>\"").is_empty());
    }

    #[test]
    fn tera_calls_declare_params() {
        let run = r#"echo {{arg(name="file", default="a.txt")}} {{ option(name="out") }} {{flag(name='force')}} {{ env.HOME }} {{arg(name="file")}}"#;
        let params = tera_params(run);
        assert_eq!(names(&params), ["file", "--out", "--force"]);
        assert!(!params[0].required);
        assert_eq!(params[2].default.as_deref(), Some("false"));
        assert_eq!(params[0].passing, Passing::Positional);
        assert!(matches!(&params[1].passing, Passing::Option { flag, .. } if flag == "--out"));
        assert!(matches!(&params[2].passing, Passing::Switch { flag } if flag == "--force"));
        assert!(tera_params("{{arg(").is_empty());
    }
}
