//! tox factors: the `-`-separated parts of an environment name (`py312-django5`), the
//! expressions that generate names (`py3{11-13}-{fast,slow}`, `lint,type`), and the
//! factor-conditional lines of a setting (`fast: quickly`, `!pylib,win32: x`, `a-b: y`).
//!
//! The rules are tox 4's: a line whose text before the first `: ` (or a final `:`) is a
//! factor expression applies only to the environments it names; negation with `!`; `,`
//! is "or" and `-` is "and"; a line ending in `\` carries its condition to the next.

use std::collections::HashSet;
use std::sync::LazyLock;

use regex::Regex;

/// The most names one expression expands to, so a hostile product stays small.
const MAX_NAMES: usize = 1024;

/// The lowest and highest Python 3 minor versions an open range (`{12-}`, `{-13}`) covers,
/// as in tox.
const MINOR_MIN: u32 = 11;
const MINOR_MAX: u32 = 15;

/// One factor of a condition, and whether it is negated (`!pylib`).
type Factor = (String, bool);

/// A part of an environment expression tox refuses, with why (its `Display`: the part
/// in backquotes and the reason, as a diagnostic quotes it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Refused {
    /// Braces that do not balance (`py{3`, `a}b`): the part.
    Unbalanced(String),
    /// A name with a part that is not a factor (`run the tests`).
    NotFactor(String),
}

impl Refused {
    /// The refusal of `part`: unbalanced when it holds a brace, else not a factor.
    fn of(part: String) -> Refused {
        if part.contains(['{', '}']) {
            Refused::Unbalanced(part)
        } else {
            Refused::NotFactor(part)
        }
    }
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Unbalanced(part) => write!(f, "`{part}`: its braces do not balance"),
            Refused::NotFactor(part) => write!(
                f,
                "`{part}`: a factor is made of letters, digits, `_`, `.` and inner `-`"
            ),
        }
    }
}

impl std::error::Error for Refused {}

/// A factor as tox accepts it: word characters, dots, glob characters and inner dashes,
/// optionally negated; or empty (`py{,-cov}`).
static FACTOR: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^(?:!?(?:\[!?|[\w.*?\]])(?:\[!?|[\w.*?\]-])*)?$").ok());

fn is_factor(part: &str) -> bool {
    FACTOR.as_ref().is_some_and(|re| re.is_match(part))
}

/// The environment names an expression declares (`[testenv:a,py{311,312}]`, an
/// `env_list` line): commas split, brace groups expand to their product, numeric ranges
/// (`{11-13}`) to their numbers. `Err` names the part tox would refuse.
pub(super) fn env_names(expr: &str) -> Result<Vec<String>, Refused> {
    Ok(groups(expr)?
        .into_iter()
        .map(|group| join(&group))
        .collect())
}

fn join(group: &[Factor]) -> String {
    group
        .iter()
        .map(|(name, _)| name.as_str())
        .collect::<Vec<_>>()
        .join("-")
}

/// Each name an expression declares, split into its factors.
fn groups(expr: &str) -> Result<Vec<Vec<Factor>>, Refused> {
    let mut out = Vec::new();
    for piece in split_commas(expr) {
        let piece = piece.trim();
        let mut variants = vec![String::new()];
        for (i, element) in elements(piece)?.iter().enumerate() {
            let choices: Vec<String> = if i % 2 == 1 {
                element.split(',').flat_map(expand_range).collect()
            } else {
                element.split(',').map(|c| c.trim().to_owned()).collect()
            };
            let mut next = Vec::new();
            for v in &variants {
                for c in &choices {
                    if next.len() < MAX_NAMES {
                        next.push(format!("{v}{c}"));
                    }
                }
            }
            variants = next;
        }
        for variant in variants {
            if out.len() >= MAX_NAMES {
                break;
            }
            if !variant.split('-').all(is_factor) {
                return Err(Refused::of(variant));
            }
            out.push(
                variant
                    .split('-')
                    .map(|f| match f.strip_prefix('!') {
                        Some(name) => (name.to_owned(), true),
                        None => (f.to_owned(), false),
                    })
                    .collect(),
            );
        }
    }
    Ok(out)
}

/// Splits on the commas outside brace groups (`{…}` with at least one character inside).
fn split_commas(expr: &str) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut at = 0;
    let bytes = expr.as_bytes();
    while at < bytes.len() {
        match bytes[at] {
            b'{' => {
                if let Some(close) = expr[at + 1..].find('}').filter(|&c| c > 0) {
                    at += close + 2;
                    continue;
                }
            }
            b',' => {
                pieces.push(&expr[start..at]);
                start = at + 1;
            }
            _ => {}
        }
        at += 1;
    }
    pieces.push(&expr[start..]);
    pieces
}

/// A piece as literal text and brace contents, alternating (`py{311,312}-x` → `py`,
/// `311,312`, `-x`). A brace that does not close is refused, as tox refuses it.
fn elements(piece: &str) -> Result<Vec<&str>, Refused> {
    let mut out = Vec::new();
    let mut rest = piece;
    loop {
        let Some(open) = rest.find('{') else {
            out.push(rest);
            return Ok(out);
        };
        let close = rest[open + 1..]
            .find('}')
            .filter(|&c| c > 0)
            .ok_or_else(|| Refused::of(piece.to_owned()))?;
        out.push(&rest[..open]);
        out.push(&rest[open + 1..open + 1 + close]);
        rest = &rest[open + close + 2..];
    }
}

/// One brace choice, a numeric range expanded (`10-13`, `12-`, `-13`).
fn expand_range(choice: &str) -> Vec<String> {
    let choice = choice.trim();
    let number = |s: &str| {
        (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse::<u32>().ok())
            .flatten()
    };
    let range: Option<Vec<u32>> = match choice.split_once('-') {
        Some((a, b)) => match (number(a), number(b)) {
            (Some(a), Some(b)) if a <= b => Some((a..=b).take(MAX_NAMES).collect()),
            (Some(a), Some(b)) => Some((b..=a).rev().take(MAX_NAMES).collect()),
            (Some(a), None) if b.is_empty() => {
                Some(open_range(a, MINOR_MAX.max(a)).unwrap_or_else(|| vec![a]))
            }
            (None, Some(b)) if a.is_empty() => {
                Some(open_range(MINOR_MIN.min(b), b).unwrap_or_else(|| vec![b]))
            }
            _ => None,
        },
        None => None,
    };
    match range {
        Some(numbers) => numbers.iter().map(u32::to_string).collect(),
        None => vec![choice.to_owned()],
    }
}

fn open_range(first: u32, last: u32) -> Option<Vec<u32>> {
    let v: Vec<u32> = (first..=last).take(MAX_NAMES).collect();
    (!v.is_empty()).then_some(v)
}

/// The factors that hold for an environment: those of its name and the platform's
/// (`linux`, `darwin`, `win32`), as tox adds `sys.platform`.
fn active(env: Option<&str>) -> HashSet<String> {
    let mut set: HashSet<String> = env
        .and_then(|e| groups(e).ok())
        .into_iter()
        .flatten()
        .flatten()
        .map(|(name, _)| name)
        .collect();
    set.insert(
        match std::env::consts::OS {
            "macos" => "darwin",
            "windows" => "win32",
            os => os,
        }
        .to_owned(),
    );
    set
}

/// A line split into its condition (`None` when it has none) and its text.
fn condition(line: &str) -> (Option<Vec<Vec<Factor>>>, &str) {
    let marker = line
        .char_indices()
        .find(|&(i, c)| c == ':' && line[i + 1..].chars().next().is_none_or(char::is_whitespace));
    if let Some((at, _)) = marker
        && let Ok(groups) = groups(line[..at].trim())
    {
        return (Some(groups), line[at + 1..].trim());
    }
    (None, line)
}

/// The lines of `value` that apply to `env` (tox's `filter_for_env`), joined by `\n`.
pub(super) fn filter_for_env(value: &str, env: Option<&str>) -> String {
    let current = active(env);
    let mut kept: Vec<&str> = Vec::new();
    let mut continuation = false;
    let mut skip_next = false;
    for line in value.split('\n') {
        let (factors, content) = condition(line);
        match factors {
            None => {
                if skip_next && !continuation && !content.ends_with('\\') {
                    skip_next = false;
                    continue;
                }
                if !content.is_empty() {
                    kept.push(content);
                    continuation = content.ends_with('\\');
                }
                skip_next = false;
            }
            Some(groups) => {
                let applies = groups.iter().any(|group| {
                    group
                        .iter()
                        .all(|(name, negated)| current.contains(name) ^ negated)
                });
                if applies {
                    kept.push(content);
                    continuation = content.ends_with('\\');
                    skip_next = false;
                } else {
                    skip_next = content.ends_with('\\');
                }
            }
        }
    }
    kept.join("\n")
}

/// The environment names the conditions of `value` mention (`nobyte: …` → `nobyte`,
/// `a-b: …` → `a-b`), each once, negation dropped, with the index of the line that first
/// names it.
pub(super) fn conditional_envs(value: &str) -> Vec<(String, usize)> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for (at, line) in value.split('\n').enumerate() {
        if let (Some(groups), _) = condition(line) {
            for group in groups {
                let name = join(&group);
                if seen.insert(name.clone()) {
                    out.push((name, at));
                }
            }
        }
    }
    out
}

/// The Python an environment's name asks for (`py312`, `pypy3`, `3.13`, `cpython-3.13`),
/// as tox reads it for `base_python`; `None` when there is none or more than one.
pub(super) fn python(env: &str) -> Option<String> {
    let factors: Vec<&str> = env.split('-').collect();
    let mut found = Vec::new();
    let mut i = 0;
    while i < factors.len() {
        let factor = factors[i];
        let pair = factors.get(i + 1).map(|next| format!("{factor}-{next}"));
        i += 1;
        if let Some(spec) = pair.as_deref().and_then(explicit_version) {
            found.push(spec);
            i += 1;
        } else if implementation_factor(factor) {
            found.push(factor.to_owned());
        } else if let Some(spec) = explicit_version(factor) {
            found.push(spec);
        }
    }
    (found.len() == 1).then(|| found.swap_remove(0))
}

/// `py312`, `pypy3`, `cpython3.13t`, … but not a bare `py`.
fn implementation_factor(factor: &str) -> bool {
    static RE: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(
            r"^(?:py|pypy|cpython|jython|graalpy|rustpython|ironpython)(?:[2-9]\.?[0-9]?[0-9]?t?d?)?$",
        )
        .ok()
    });
    factor != "py" && RE.as_ref().is_some_and(|re| re.is_match(factor))
}

/// `3.13`, `cpython-3.13`, `pypy-3.10t` as the spec tox makes of them.
fn explicit_version(text: &str) -> Option<String> {
    static RE: LazyLock<Option<Regex>> =
        LazyLock::new(|| Regex::new(r"^(?:(cpython|pypy)-)?([23]\.[0-9]+)(t?)(d?)$").ok());
    let caps = RE.as_ref()?.captures(text)?;
    let pypy = caps.get(1).is_some_and(|m| m.as_str() == "pypy");
    Some(format!(
        "{}{}{}{}",
        if pypy { "pypy" } else { "" },
        &caps[2],
        &caps[3],
        &caps[4]
    ))
}

#[cfg(test)]
mod tests {
    use super::{conditional_envs, env_names, filter_for_env, python};
    use indoc::indoc;

    #[test]
    fn expressions_expand_to_names() {
        assert_eq!(
            env_names("py{311,312}-django{4, 5}").ok(),
            Some(
                [
                    "py311-django4",
                    "py311-django5",
                    "py312-django4",
                    "py312-django5"
                ]
                .map(str::to_owned)
                .to_vec()
            )
        );
        assert_eq!(
            env_names("lint, type").ok(),
            Some(vec!["lint".to_owned(), "type".to_owned()])
        );
        assert_eq!(
            env_names("py3{12-14}").ok(),
            Some(["py312", "py313", "py314"].map(str::to_owned).to_vec())
        );
        assert_eq!(
            env_names("py3{14-}").ok(),
            Some(["py314", "py315"].map(str::to_owned).to_vec())
        );
        assert!(env_names("py{3").is_err());
        assert!(env_names("run the tests").is_err());
        assert!(env_names(&"{a,b,c,d}".repeat(20)).is_ok_and(|v| (1..=1024).contains(&v.len())));
    }

    #[test]
    fn conditional_lines_apply_to_the_envs_they_name() {
        let value = indoc! {"
            run tests
            fast: quickly
            slow: slowly
            !fast: carefully"};
        assert_eq!(
            filter_for_env(value, Some("py312-fast")),
            "run tests\nquickly"
        );
        assert_eq!(
            filter_for_env(value, Some("py312-slow")),
            indoc! {"
                run tests
                slowly
                carefully"}
        );
        assert_eq!(filter_for_env("a,b: or\na-b: and", Some("b")), "or");
        assert_eq!(filter_for_env("a,b: or\na-b: and", Some("a-b")), "or\nand");
        // A condition carries over a continued line.
        assert_eq!(
            filter_for_env("x: one \\\n  two\nthree", Some("y")),
            "three"
        );
        assert_eq!(
            filter_for_env("x: one \\\n  two\nthree", Some("x")),
            "one \\\n  two\nthree"
        );
        // Text with a colon that is no condition stays.
        assert_eq!(
            filter_for_env("see http://x and {env:A:} b", Some("y")),
            "see http://x and {env:A:} b"
        );
        let found = conditional_envs(indoc! {"
            a
            nobyte: x
            !pylib: y
            p-q,r: z
            nobyte: again"});
        let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["nobyte", "pylib", "p-q", "r"]);
        assert_eq!(found[3].1, 3);
    }

    #[test]
    fn the_python_comes_from_the_name() {
        assert_eq!(python("py312-fast").as_deref(), Some("py312"));
        assert_eq!(python("3.13").as_deref(), Some("3.13"));
        assert_eq!(python("pypy-3.10-lint").as_deref(), Some("pypy3.10"));
        assert_eq!(python("pypy3").as_deref(), Some("pypy3"));
        assert_eq!(python("py-lint"), None);
        assert_eq!(python("docs"), None);
        assert_eq!(python("py311-py312"), None);
    }
}
