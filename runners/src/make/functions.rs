//! make's text functions (`$(findstring …)`, `$(subst …)`, `$(filter …)`, `$(if …)`, …):
//! pure functions of their arguments, so a static reader can evaluate them as make does.
//! Platform probes reach conditions through them (`ifneq ($(findstring MINGW,$(uname_S)),)`,
//! `$(firstword $(subst -, ,$(uname_R)))`); functions that read files, run commands or
//! define things (`shell`, `eval`, `call`, `file`, `foreach`, `value`, `origin`) are not here,
//! and [`super::expand`] keeps failing on them.

/// The functions evaluated here, with the number of arguments make splits them into (the
/// last takes the rest, commas included); `0` for as many as are written.
const TEXT: [(&str, usize); 20] = [
    ("subst", 3),
    ("patsubst", 3),
    ("strip", 1),
    ("findstring", 2),
    ("filter", 2),
    ("filter-out", 2),
    ("sort", 1),
    ("word", 2),
    ("words", 1),
    ("firstword", 1),
    ("lastword", 1),
    ("dir", 1),
    ("notdir", 1),
    ("suffix", 1),
    ("basename", 1),
    ("addprefix", 2),
    ("addsuffix", 2),
    ("if", 3),
    ("and", 0),
    ("or", 0),
];

/// `findstring a,b` as (`findstring`, `a,b`) when `name` calls one of [`TEXT`].
pub(super) fn split_call(name: &str) -> Option<(&str, &str)> {
    let (function, args) = name.split_once([' ', '\t'])?;
    TEXT.iter()
        .any(|(f, _)| *f == function)
        .then_some((function, args.trim_start()))
}

/// How many arguments `function` splits into (`0`: every comma splits).
pub(super) fn arity(function: &str) -> usize {
    TEXT.iter()
        .find(|(f, _)| *f == function)
        .map_or(0, |(_, n)| *n)
}

/// The arguments of a call, split at the commas outside nested references, the last one
/// taking the rest when `arity` is reached.
pub(super) fn split_args(args: &str, arity: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in args.char_indices() {
        match c {
            '(' | '{' => depth += 1,
            ')' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 && (arity == 0 || out.len() + 1 < arity) => {
                out.push(&args[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&args[start..]);
    out
}

/// The work `function` does on these arguments, for the expansion budget: the pairs of
/// words it compares, or the bytes it reads.
pub(super) fn cost(function: &str, args: &[String]) -> usize {
    let bytes = args.iter().map(String::len).sum::<usize>().max(1);
    match function {
        "filter" | "filter-out" | "patsubst" => {
            let words = |i: usize| args.get(i).map_or(0, |a| a.split_whitespace().count());
            words(0)
                .max(1)
                .saturating_mul(words(1).max(1))
                .saturating_add(bytes)
        }
        _ => bytes,
    }
}

/// The result of `function` on its expanded arguments; `None` when make would fail (a
/// missing argument, `$(word 0,…)`).
pub(super) fn apply(function: &str, args: &[String]) -> Option<String> {
    let arg = |i: usize| args.get(i).map_or("", String::as_str);
    let words = |i: usize| arg(i).split_whitespace();
    let join = |items: Vec<String>| items.join(" ");
    Some(match function {
        "subst" => {
            let from = arg(0);
            if from.is_empty() {
                format!("{}{}", arg(2), arg(1))
            } else {
                arg(2).replace(from, arg(1))
            }
        }
        "patsubst" => {
            let (from, to) = (arg(0).trim(), arg(1).trim());
            join(words(2).map(|w| pattern_replace(from, to, w)).collect())
        }
        "strip" => join(words(0).map(str::to_owned).collect()),
        "findstring" => {
            if arg(1).contains(arg(0)) {
                arg(0).to_owned()
            } else {
                String::new()
            }
        }
        "filter" | "filter-out" => {
            let patterns: Vec<&str> = words(0).collect();
            let keep = function == "filter";
            join(
                words(1)
                    .filter(|w| patterns.iter().any(|p| pattern_stem(p, w).is_some()) == keep)
                    .map(str::to_owned)
                    .collect(),
            )
        }
        "sort" => {
            let mut all: Vec<&str> = words(0).collect();
            all.sort_unstable();
            all.dedup();
            all.join(" ")
        }
        "word" => {
            let n: usize = arg(0).trim().parse().ok().filter(|&n| n > 0)?;
            words(1).nth(n - 1).unwrap_or_default().to_owned()
        }
        "words" => words(0).count().to_string(),
        "firstword" => words(0).next().unwrap_or_default().to_owned(),
        "lastword" => words(0).last().unwrap_or_default().to_owned(),
        "dir" => join(
            words(0)
                .map(|w| {
                    w.rfind('/')
                        .map_or_else(|| "./".to_owned(), |i| w[..=i].to_owned())
                })
                .collect(),
        ),
        "notdir" => join(
            words(0)
                .map(|w| w.rsplit('/').next().unwrap_or(w).to_owned())
                .collect(),
        ),
        "suffix" => join(
            words(0)
                .filter_map(|w| {
                    let dot = w.rfind('.')?;
                    (!w[dot..].contains('/')).then(|| w[dot..].to_owned())
                })
                .collect(),
        ),
        "basename" => join(
            words(0)
                .map(|w| match w.rfind('.') {
                    Some(dot) if !w[dot..].contains('/') => w[..dot].to_owned(),
                    _ => w.to_owned(),
                })
                .collect(),
        ),
        "addprefix" => join(words(1).map(|w| format!("{}{w}", arg(0).trim())).collect()),
        "addsuffix" => join(words(1).map(|w| format!("{w}{}", arg(0).trim())).collect()),
        _ => return None,
    })
}

/// What `%` matched when `word` matches `pattern` (the whole word when the pattern has no
/// `%` and equals it).
fn pattern_stem<'w>(pattern: &str, word: &'w str) -> Option<&'w str> {
    match pattern.split_once('%') {
        None => (pattern == word).then_some(""),
        Some((before, after)) => word
            .strip_prefix(before)?
            .strip_suffix(after)
            .filter(|_| word.len() >= before.len() + after.len()),
    }
}

/// `word` rewritten by `$(patsubst from,to,…)`: a word matching `from` becomes `to` with its
/// `%` replaced by the stem; any other word stays.
fn pattern_replace(from: &str, to: &str, word: &str) -> String {
    match pattern_stem(from, word) {
        Some(stem) if from.contains('%') => to.replacen('%', stem, 1),
        Some(_) => to.to_owned(),
        None => word.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(function: &str, args: &[&str]) -> Option<String> {
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        apply(function, &args)
    }

    #[test]
    fn text_functions_answer_as_make() {
        let cases: &[(&str, &[&str], &str)] = &[
            ("findstring", &["MINGW", "MINGW64_NT-10.0"], "MINGW"),
            ("findstring", &["MINGW", "Linux"], ""),
            ("subst", &["-", " ", "6.1.0-13-amd64"], "6.1.0 13 amd64"),
            ("firstword", &["6.1.0 13 amd64"], "6.1.0"),
            ("lastword", &["a b c"], "c"),
            ("patsubst", &["%.c", "%.o", "a.c b.h"], "a.o b.h"),
            ("filter", &["%.c foo", "a.c b.h foo"], "a.c foo"),
            ("filter-out", &["%.c", "a.c b.h"], "b.h"),
            ("strip", &["  a   b "], "a b"),
            ("sort", &["b a b"], "a b"),
            ("word", &["2", "a b c"], "b"),
            ("words", &["a b c"], "3"),
            ("dir", &["src/a.c b.c"], "src/ ./"),
            ("notdir", &["src/a.c b.c"], "a.c b.c"),
            ("suffix", &["src/a.c b"], ".c"),
            ("basename", &["src/a.c b"], "src/a b"),
            ("addprefix", &["lib/", "a b"], "lib/a lib/b"),
            ("addsuffix", &[".o", "a b"], "a.o b.o"),
        ];
        for (function, args, want) in cases {
            assert_eq!(
                call(function, args).as_deref(),
                Some(*want),
                "{function} {args:?}"
            );
        }
        assert_eq!(call("word", &["0", "a"]), None);
    }

    #[test]
    fn arguments_split_at_top_level_commas_only() {
        assert_eq!(split_args("a,$(x,y),b", 0), ["a", "$(x,y)", "b"]);
        assert_eq!(split_args("a,b,c,d", 3), ["a", "b", "c,d"]);
        assert_eq!(split_call("findstring a,b"), Some(("findstring", "a,b")));
        assert_eq!(split_call("call f,x"), None);
    }
}
