//! `if()` conditions of a `CMakeLists.txt` that agg can decide without running CMake: the
//! platform variables (`WIN32`, `APPLE`, `UNIX`, `MSVC`, `LINUX`, …), `CMAKE_SYSTEM_NAME`
//! compared with `STREQUAL` or `MATCHES`, constants, and `NOT`, `AND`, `OR` and parentheses
//! over them, answered for the host agg runs on (a native build: a cross-compiling
//! toolchain file would answer for its target). Anything else is undecided, and the targets
//! under it are listed with a note.

use std::collections::HashMap;

use super::syntax::Arg;

/// The host's answer for a platform variable, or `None` for a name that is not one.
fn platform(name: &str) -> Option<bool> {
    let linux = cfg!(target_os = "linux");
    let apple = cfg!(target_os = "macos");
    let windows = cfg!(windows);
    Some(match name {
        "WIN32" | "CMAKE_HOST_WIN32" => windows,
        "UNIX" | "CMAKE_HOST_UNIX" => cfg!(unix),
        "APPLE" | "CMAKE_HOST_APPLE" => apple,
        "LINUX" | "CMAKE_HOST_LINUX" => linux,
        "BSD" | "CMAKE_HOST_BSD" => cfg!(any(
            target_os = "freebsd",
            target_os = "openbsd",
            target_os = "netbsd",
            target_os = "dragonfly"
        )),
        // Compilers and environments that exist only on Windows or only for other targets.
        "MSVC" | "MINGW" | "MSYS" | "CYGWIN" | "BORLAND" | "WATCOM" | "WINCE" | "WINDOWS_PHONE"
        | "WINDOWS_STORE" => windows && name == "MSVC",
        "IOS" | "ANDROID" | "XCODE" => false,
        _ => return None,
    })
}

/// `CMAKE_SYSTEM_NAME` (and the host's) as CMake sets it on this host.
fn system_name() -> &'static str {
    if cfg!(target_os = "linux") {
        "Linux"
    } else if cfg!(target_os = "macos") {
        "Darwin"
    } else if cfg!(windows) {
        "Windows"
    } else if cfg!(target_os = "freebsd") {
        "FreeBSD"
    } else {
        ""
    }
}

/// A constant's truth (`1`, `ON`, `NO`, `x-NOTFOUND`, …), or `None` for a word that is not one.
fn constant(text: &str) -> Option<bool> {
    let upper = text.to_ascii_uppercase();
    match upper.as_str() {
        "1" | "ON" | "YES" | "TRUE" | "Y" => Some(true),
        "0" | "OFF" | "NO" | "FALSE" | "N" | "IGNORE" | "NOTFOUND" | "" => Some(false),
        _ if upper.ends_with("-NOTFOUND") => Some(false),
        _ if text.parse::<f64>().is_ok() => Some(text.parse::<f64>().is_ok_and(|n| n != 0.0)),
        _ => None,
    }
}

/// The value an operand of `STREQUAL`/`MATCHES` stands for, when agg knows it: a quoted
/// string with `${CMAKE_SYSTEM_NAME}` in it, or the variable named bare.
fn operand(arg: &Arg) -> Option<String> {
    let vars = known_variables();
    if arg.quoted || arg.text.contains("${") {
        let mut text = arg.text.clone();
        for (name, value) in &vars {
            text = text.replace(&format!("${{{name}}}"), value);
        }
        return (!text.contains("${")).then_some(text);
    }
    // A bare word is a variable's value when it names one; else the word itself.
    Some(
        vars.get(arg.text.as_str())
            .map_or_else(|| arg.text.clone(), |v| (*v).to_owned()),
    )
}

fn known_variables() -> HashMap<&'static str, &'static str> {
    HashMap::from([
        ("CMAKE_SYSTEM_NAME", system_name()),
        ("CMAKE_HOST_SYSTEM_NAME", system_name()),
    ])
}

/// Whether an operand may be a variable agg does not know (a bare word that names none of
/// the known ones, a `${…}` left over): a comparison of it is undecided.
fn unknown_operand(arg: &Arg) -> bool {
    if arg.quoted || arg.text.contains("${") {
        return operand(arg).is_none();
    }
    !known_variables().contains_key(arg.text.as_str()) && constant(&arg.text).is_none()
}

/// The condition `args` (of `if`/`elseif`) on this host: `Some` when agg can decide it.
pub(super) fn evaluate(args: &[Arg]) -> Option<bool> {
    let mut at = 0;
    let value = or(args, &mut at)?;
    (at == args.len()).then_some(value).flatten()
}

fn keyword(arg: Option<&Arg>, word: &str) -> bool {
    arg.is_some_and(|a| !a.quoted && a.text == word)
}

/// `a AND b OR c`: CMake reads `AND` and `OR` left to right, with no precedence between
/// them. The outer `Option` is a parse failure; the inner one an undecided value.
#[allow(clippy::option_option)]
fn or(args: &[Arg], at: &mut usize) -> Option<Option<bool>> {
    let mut value = not(args, at)?;
    loop {
        let op = if keyword(args.get(*at), "AND") {
            true
        } else if keyword(args.get(*at), "OR") {
            false
        } else {
            return Some(value);
        };
        *at += 1;
        let right = not(args, at)?;
        value = if op {
            match (value, right) {
                (Some(false), _) | (_, Some(false)) => Some(false),
                (Some(true), Some(true)) => Some(true),
                _ => None,
            }
        } else {
            match (value, right) {
                (Some(true), _) | (_, Some(true)) => Some(true),
                (Some(false), Some(false)) => Some(false),
                _ => None,
            }
        };
    }
}

#[allow(clippy::option_option)]
fn not(args: &[Arg], at: &mut usize) -> Option<Option<bool>> {
    if keyword(args.get(*at), "NOT") {
        *at += 1;
        return not(args, at).map(|v| v.map(|b| !b));
    }
    test(args, at)
}

#[allow(clippy::option_option)]
fn test(args: &[Arg], at: &mut usize) -> Option<Option<bool>> {
    let first = args.get(*at)?;
    if keyword(Some(first), "(") {
        *at += 1;
        let value = or(args, at)?;
        if !keyword(args.get(*at), ")") {
            return None;
        }
        *at += 1;
        return Some(value);
    }
    // Unary tests (`DEFINED x`, `EXISTS f`, `TARGET t`, `COMMAND c`, …) agg cannot answer.
    if !first.quoted
        && matches!(
            first.text.as_str(),
            "DEFINED"
                | "EXISTS"
                | "TARGET"
                | "COMMAND"
                | "POLICY"
                | "TEST"
                | "IS_DIRECTORY"
                | "IS_ABSOLUTE"
                | "IS_SYMLINK"
                | "IS_READABLE"
                | "IS_WRITABLE"
                | "IS_EXECUTABLE"
        )
    {
        args.get(*at + 1)?;
        *at += 2;
        return Some(None);
    }
    if let Some(op) = args.get(*at + 1).filter(|a| !a.quoted) {
        let binary = op.text.as_str();
        if binary == "STREQUAL" || binary == "MATCHES" {
            let right = args.get(*at + 2)?;
            *at += 3;
            if unknown_operand(first) || unknown_operand(right) {
                return Some(None);
            }
            let (Some(left), Some(right)) = (operand(first), operand(right)) else {
                return Some(None);
            };
            return Some(if binary == "STREQUAL" {
                Some(left == right)
            } else {
                regex::Regex::new(&right).ok().map(|r| r.is_match(&left))
            });
        }
        if !matches!(op.text.as_str(), "AND" | "OR" | ")")
            && op.text.chars().all(|c| c.is_ascii_uppercase() || c == '_')
        {
            // Another binary test (`VERSION_LESS`, `EQUAL`, `IN_LIST`, …): undecided.
            args.get(*at + 2)?;
            *at += 3;
            return Some(None);
        }
    }
    *at += 1;
    if first.quoted {
        // A quoted string is true only when it is a true constant.
        return Some(
            constant(&first.text)
                .or(Some(false))
                .filter(|_| !first.text.contains("${")),
        );
    }
    Some(constant(&first.text).or_else(|| platform(&first.text)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<Arg> {
        let source = format!("if({text})\n");
        let (commands, error) = super::super::syntax::commands(&source);
        assert!(error.is_none(), "{text}");
        commands
            .into_iter()
            .next()
            .map(|c| c.args)
            .unwrap_or_default()
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn platform_conditions_are_answered_for_linux() {
        for (text, want) in [
            ("WIN32", Some(false)),
            ("NOT WIN32", Some(true)),
            ("APPLE", Some(false)),
            ("UNIX", Some(true)),
            ("UNIX AND NOT APPLE", Some(true)),
            ("MSVC", Some(false)),
            ("WIN32 OR APPLE", Some(false)),
            ("(WIN32 OR APPLE) AND UNIX", Some(false)),
            ("NOT (WIN32 OR APPLE)", Some(true)),
            ("CMAKE_SYSTEM_NAME STREQUAL \"Linux\"", Some(true)),
            ("\"${CMAKE_SYSTEM_NAME}\" STREQUAL \"Windows\"", Some(false)),
            ("${CMAKE_SYSTEM_NAME} MATCHES \"BSD$\"", Some(false)),
            ("CMAKE_SYSTEM_NAME MATCHES \"Lin\"", Some(true)),
            ("ON", Some(true)),
            ("0", Some(false)),
            ("WIN32 AND BUILD_DOCS", Some(false)),
            ("UNIX OR BUILD_DOCS", Some(true)),
            ("BUILD_DOCS", None),
            ("UNIX AND BUILD_DOCS", None),
            ("NOT TARGET docs", None),
            ("EXISTS ${CMAKE_SOURCE_DIR}/x", None),
            ("MY_OS STREQUAL \"Linux\"", None),
            ("CMAKE_VERSION VERSION_LESS 3.20", None),
            ("WIN32 AND", None),
            ("NOT", None),
            ("UNIX WIN32", None),
        ] {
            assert_eq!(evaluate(&args(text)), want, "if({text})");
        }
    }
}
