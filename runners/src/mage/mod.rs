//! mage: the targets of a directory's magefiles, read as mage's own parser finds them,
//! without compiling anything. The magefiles are the Go files of the directory whose build
//! constraints need the `mage` tag, or every Go file of a `magefiles/` directory (which mage
//! prefers to tagged files beside it). A target is an exported function, or an exported
//! method of a `type X mg.Namespace` (`x:target`), whose parameters are an optional leading
//! `context.Context` and then `string`, `int`, `float64`, `bool` or `time.Duration` values
//! (a pointer to one is an optional `-name=value` flag), and which returns nothing or an
//! `error`. Names are listed as `mage -l` lists them (`somePig`, `build:docs`); the doc
//! comment's first sentence is the description; `var Aliases` and `var Default` are read.

mod constraint;
mod lexer;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::ops::Range;

use crate::files::{file_name, join, parent, place};
use crate::model::{Adapter, Param, Parsed, Passing, Runner, Source, Task, Variadic};
use lexer::{Tok, Token, tokenize};

/// Go files of one directory read as magefiles, at most.
const MAX_FILES: usize = 256;

/// Magefiles: `magefile*.go` (which brings every tagged Go file of its directory with it) and
/// the Go files of a `magefiles/` directory.
pub const ADAPTER: Adapter = Adapter {
    name: "magefile",
    candidate,
    one_per_dir: true,
    admit: None,
    neighbours: None,
    parse,
};

fn candidate(path: &str) -> Option<u8> {
    let (dir_name, name, below_root) = place(path);
    named(dir_name, name, below_root)
}

/// [`candidate`] of the file `name` in the directory named `dir_name` (`below_root`: that
/// directory is not the root itself).
// Go reads only `.go` files, in lower case.
#[allow(clippy::case_sensitive_file_extension_comparisons)]
fn named(dir_name: &str, name: &str, below_root: bool) -> Option<u8> {
    if !name.ends_with(".go") || name.ends_with("_test.go") {
        return None;
    }
    if is_folder(dir_name, below_root) {
        return Some(u8::from(name != "magefile.go"));
    }
    name.starts_with("magefile").then_some(0)
}

/// Whether the file `name`, in a directory named `dir_name` below the root, is a file only
/// the mage adapter takes, though its extension is Go's.
pub(crate) fn is_magefile(dir_name: &str, name: &str) -> bool {
    named(dir_name, name, true).is_some()
}

fn in_folder(path: &str) -> bool {
    let (dir_name, _, below_root) = place(path);
    is_folder(dir_name, below_root)
}

/// Whether a directory named `dir_name` (`below_root`: not the root itself) is mage's
/// `magefiles` folder.
fn is_folder(dir_name: &str, below_root: bool) -> bool {
    below_root && dir_name == "magefiles"
}

/// One target as mage's parser sees it.
struct Target {
    name: String,
    line: u32,
    file: String,
    /// The function's own name, and its namespace's, as written (`Build`, `Site`).
    func: String,
    namespace: Option<String>,
    doc: String,
    params: Vec<Param>,
}

/// What the magefiles of one directory declare besides their targets.
#[derive(Default)]
struct Package {
    targets: Vec<Target>,
    namespaces: Vec<String>,
    /// `var Default = X`: the target's written name and where.
    default: Option<(String, String, u32)>,
    /// `var Aliases`: alias → written target, with the file and line.
    aliases: Vec<(String, String, String, u32)>,
    /// The first `// mage:import` comment: its file and line.
    imports: Option<(String, u32)>,
}

// Go reads only `.go` files, in lower case.
#[allow(clippy::case_sensitive_file_extension_comparisons)]
fn parse(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    let dir = parent(src.path);
    let folder = in_folder(src.path);
    let run_dir = if folder { parent(dir) } else { dir };
    if !folder
        && let Some(magefiles) = join(dir, "magefiles")
        && src
            .files
            .read_dir(&magefiles)
            .iter()
            .any(|n| n.ends_with(".go"))
    {
        out.diag(
            src.path,
            None,
            "mage reads the `magefiles/` directory beside this file instead of this directory's magefiles",
        );
        return out;
    }
    let mut names: Vec<String> = src
        .files
        .siblings(src.path)
        .into_iter()
        .filter(|n| n.ends_with(".go") && !n.ends_with("_test.go"))
        .collect();
    names.push(file_name(src.path).to_owned());
    names.sort();
    names.dedup();
    if names.len() > MAX_FILES {
        out.diag(
            src.path,
            None,
            format!("more than {MAX_FILES} Go files here; the rest are not read"),
        );
        names.truncate(MAX_FILES);
    }
    let mut package = Package::default();
    for name in &names {
        let Some(path) = join(dir, name) else {
            continue;
        };
        let text = if path == src.path {
            src.text.to_owned()
        } else {
            match src.files.read(&path) {
                Ok(text) => text,
                Err(_) => continue,
            }
        };
        if !constraint::is_magefile(name, &text, folder) {
            continue;
        }
        if path != src.path {
            out.consumed.push(path.clone());
        }
        let (tokens, unclosed) = tokenize(&text);
        if let Some(line) = unclosed {
            out.diag(
                &path,
                Some(line),
                "unclosed string or comment: Go cannot compile this file, so mage would run nothing",
            );
        }
        read_file(&tokens, &path, &mut package);
    }
    tasks(&package, src.path, run_dir, &mut out);
    out
}

/// `Name` as `mage -l` prints it: its first letter lowercased.
fn lower_first(name: &str) -> String {
    let mut chars = name.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_lowercase().chain(chars).collect())
}

fn exported(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase)
}

/// Turns what the files declare into rows.
fn tasks(package: &Package, path: &str, run_dir: &str, out: &mut Parsed) {
    let targets: Vec<&Target> = package
        .targets
        .iter()
        .filter(|t| {
            t.namespace
                .as_ref()
                .is_none_or(|ns| package.namespaces.contains(ns))
        })
        .collect();
    // mage refuses a package whose targets differ only in case.
    let mut by_lower: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for t in &targets {
        by_lower
            .entry(t.name.to_lowercase())
            .or_default()
            .push(&t.name);
    }
    let conflicts: Vec<String> = by_lower
        .values()
        .filter(|names| names.len() > 1)
        .map(|names| names.join(", "))
        .collect();
    let refusal = (!conflicts.is_empty()).then(|| {
        format!(
            "mage refuses the magefiles: targets must differ in more than case ({})",
            conflicts.join("; ")
        )
    });
    if let Some(reason) = &refusal {
        out.diag(path, None, reason.clone());
    }
    let find = |written: &str| -> Option<&Target> {
        let (ns, func) = match written.split_once('.') {
            Some((ns, func)) => (Some(ns), func),
            None => (None, written),
        };
        targets
            .iter()
            .find(|t| t.func == func && t.namespace.as_deref() == ns)
            .copied()
    };
    if let Some((file, line)) = &package.imports {
        out.diag(
            file,
            Some(*line),
            "targets imported with `// mage:import` live in another package and are not listed",
        );
    }
    // A name with a package in front (`deps.Test`, `mage.NS.Deploy`) may be an imported
    // target, which agg does not read: not reported.
    let imported = |written: &str| {
        package.imports.is_some()
            && written
                .split_once('.')
                .is_some_and(|(first, _)| !package.namespaces.iter().any(|ns| ns == first))
    };
    let mut aliases: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (alias, written, file, line) in &package.aliases {
        match find(written) {
            Some(t) => aliases.entry(&t.name).or_default().push(alias.clone()),
            None if imported(written) => {}
            None => out.diag(
                file,
                Some(*line),
                format!("alias `{alias}` names `{written}`, which is not a mage target"),
            ),
        }
    }
    let default = package.default.as_ref().and_then(|(written, file, line)| {
        let found = find(written).map(|t| t.name.clone());
        if found.is_none() && !imported(written) {
            out.diag(
                file,
                Some(*line),
                format!("`var Default = {written}` names no mage target"),
            );
        }
        found
    });
    for t in targets {
        let mut task = Task::new(
            Runner::Mage,
            &t.name,
            run_dir,
            &t.file,
            vec!["mage".to_owned(), t.name.clone()],
        );
        task.line = Some(t.line);
        task.description = synopsis(&t.doc, &t.func);
        task.params.clone_from(&t.params);
        task.aliases = aliases.remove(t.name.as_str()).unwrap_or_default();
        let mut script = t.doc.trim().to_owned();
        if default.as_deref() == Some(t.name.as_str()) {
            script.push_str(if script.is_empty() { "" } else { "\n" });
            script.push_str("(the default target: `mage` alone runs it)");
        }
        task.script = (!script.is_empty()).then_some(script);
        task.behaviour.not_runnable.clone_from(&refusal);
        out.tasks.push(task);
    }
}

/// The first sentence of a doc comment, as go/doc's `Synopsis` takes it, without a leading
/// repeat of the function's name (as mage prints it).
fn synopsis(doc: &str, func: &str) -> Option<String> {
    let text = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    let bytes = text.as_bytes();
    let mut end = text.len();
    for (i, &c) in bytes.iter().enumerate() {
        if c == b'.' && bytes.get(i + 1).is_none_or(|&n| n == b' ') {
            // `A. Smith` is not a sentence's end: a period after one capital letter.
            let single_capital =
                i >= 1 && bytes[i - 1].is_ascii_uppercase() && (i == 1 || bytes[i - 2] == b' ');
            if !single_capital {
                end = i + 1;
                break;
            }
        }
    }
    let sentence = &text[..end];
    let sentence = match sentence.split_once(' ') {
        Some((first, rest)) if first.eq_ignore_ascii_case(func) => rest,
        _ if sentence.eq_ignore_ascii_case(func) => "",
        _ => sentence,
    };
    (!sentence.is_empty()).then(|| sentence.to_owned())
}

/// Reads one magefile's top-level declarations.
fn read_file(tokens: &[Token], path: &str, package: &mut Package) {
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(t) = tokens.get(i) {
        match &t.tok {
            Tok::Punct('{' | '(' | '[') => depth += 1,
            Tok::Punct('}' | ')' | ']') => depth = depth.saturating_sub(1),
            Tok::Comment(text) if text.trim_start().starts_with("mage:import") => {
                package.imports.get_or_insert((path.to_owned(), t.line));
            }
            Tok::Ident(word) if depth == 0 => match word.as_str() {
                "func" => {
                    if let Some((target, next)) = function(tokens, i, path) {
                        package.targets.extend(target);
                        i = next;
                        continue;
                    }
                }
                "type" => i = types(tokens, i + 1, package),
                "var" => i = vars(tokens, i + 1, path, package),
                _ => {}
            },
            _ => {}
        }
        i += 1;
    }
}

/// The index of the closer matching the opener at `open`, or the end.
fn closer(tokens: &[Token], open: usize) -> usize {
    let mut depth = 0usize;
    for (j, t) in tokens.iter().enumerate().skip(open) {
        match t.tok {
            Tok::Punct('{' | '(' | '[') => depth += 1,
            Tok::Punct('}' | ')' | ']') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return j;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

/// A `func` declaration at `i`: the target it declares (if it is one) and the index after
/// its signature (its body is skipped by the caller's bracket count).
fn function(tokens: &[Token], i: usize, path: &str) -> Option<(Option<Target>, usize)> {
    let mut j = i + 1;
    let mut namespace = None;
    if tokens.get(j)?.is('(') {
        let close = closer(tokens, j);
        namespace = tokens[j + 1..close.min(tokens.len())]
            .iter()
            .rev()
            .find_map(Token::ident)
            .map(str::to_owned);
        j = close + 1;
    }
    let func = tokens.get(j)?.ident()?.to_owned();
    if !tokens.get(j + 1)?.is('(') {
        return None;
    }
    let params_close = closer(tokens, j + 1);
    let params = params(&tokens[j + 2..params_close.min(tokens.len())]);
    // The results: everything up to the body's `{` (or the line's end for a declaration
    // without one).
    let mut k = params_close + 1;
    let sig_line = tokens.get(params_close).map_or(0, |t| t.line);
    let mut results = Vec::new();
    while let Some(t) = tokens.get(k) {
        if t.is('{') || t.line != sig_line {
            break;
        }
        if let Some(word) = t.ident() {
            results.push(word);
        }
        k += 1;
    }
    let returns_ok = results.is_empty()
        || results == ["error"]
        || results.ends_with(&["error"]) && results.len() == 2;
    let next = k;
    if !exported(&func) || namespace.as_deref().is_some_and(|ns| !exported(ns)) || !returns_ok {
        return Some((None, next));
    }
    let Some(params) = params else {
        return Some((None, next));
    };
    let name = match &namespace {
        // mage lowercases a namespaced target whole (`TemplateName`), a plain one's first letter.
        Some(ns) => format!("{ns}:{func}").to_lowercase(),
        None => lower_first(&func),
    };
    Some((
        Some(Target {
            name,
            line: tokens[i].line,
            file: path.to_owned(),
            func,
            namespace,
            doc: doc_comment(tokens, i),
            params,
        }),
        next,
    ))
}

/// The `//` comment lines right above the token at `i`.
fn doc_comment(tokens: &[Token], i: usize) -> String {
    let mut lines = Vec::new();
    let mut want = tokens[i].line;
    for t in tokens[..i].iter().rev() {
        match &t.tok {
            Tok::Comment(text) if t.line + 1 == want => {
                lines.push(text.strip_prefix(' ').unwrap_or(text).to_owned());
                want = t.line;
            }
            _ => break,
        }
    }
    lines.reverse();
    lines.join("\n")
}

/// A target's parameters, or `None` when one has a type mage does not pass.
fn params(tokens: &[Token]) -> Option<Vec<Param>> {
    let mut parts: Vec<Range<usize>> = Vec::new();
    let mut start = 0;
    let mut depth = 0usize;
    for (j, t) in tokens.iter().enumerate() {
        match t.tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => depth = depth.saturating_sub(1),
            Tok::Punct(',') if depth == 0 => {
                parts.push(start..j);
                start = j + 1;
            }
            _ => {}
        }
    }
    if start < tokens.len() {
        parts.push(start..tokens.len());
    }
    // `a, b string`: names without a type take the next part's.
    let mut typed: Vec<(String, String)> = Vec::new();
    let mut pending: Vec<String> = Vec::new();
    for part in parts {
        let words = &tokens[part];
        let name = words.first().and_then(Token::ident).map(str::to_owned);
        if words.len() == 1 {
            pending.extend(name);
            continue;
        }
        let name = name?;
        let ty: String = words[1..]
            .iter()
            .map(|t| match &t.tok {
                Tok::Ident(w) => w.clone(),
                Tok::Punct(c) => c.to_string(),
                _ => String::new(),
            })
            .collect();
        for waiting in pending.drain(..) {
            typed.push((waiting, ty.clone()));
        }
        typed.push((name, ty));
    }
    if !pending.is_empty() {
        // Types alone (`func X(string)`): mage needs names to pass values.
        return None;
    }
    let mut out = Vec::new();
    for (k, (name, ty)) in typed.into_iter().enumerate() {
        if k == 0 && ty == "context.Context" {
            continue;
        }
        let (base, optional, variadic) = if let Some(inner) = ty.strip_prefix('*') {
            (inner, true, false)
        } else if let Some(inner) = ty.strip_prefix("...") {
            (inner, false, true)
        } else {
            (ty.as_str(), false, false)
        };
        if !matches!(
            base,
            "string" | "int" | "float64" | "bool" | "time.Duration"
        ) {
            return None;
        }
        let kind = match base {
            "bool" if optional => Some("boolean".to_owned()),
            "string" => None,
            other => Some(other.to_owned()),
        };
        out.push(Param {
            flags: if optional {
                vec![format!("-{}", name.to_lowercase())]
            } else {
                Vec::new()
            },
            name,
            required: !optional && !variadic,
            variadic: variadic.then_some(Variadic::ZeroOrMore),
            kind,
            // mage takes a target's arguments after its name, in order (`mage deploy
            // staging 3`); an optional one keeps the environment until its flag form is
            // checked against mage itself.
            passing: if optional {
                Passing::Environment
            } else {
                Passing::Positional
            },
            ..Param::default()
        });
    }
    Some(out)
}

/// `type X mg.Namespace` or a `type ( … )` group, from the token after `type`; returns the
/// index to go on from.
fn types(tokens: &[Token], i: usize, package: &mut Package) -> usize {
    // A group is read whole and skipped; a single spec is looked at and the caller goes on
    // from its name, counting the brackets of what follows (`struct {…}`).
    let (range, next) = if tokens.get(i).is_some_and(|t| t.is('(')) {
        let close = closer(tokens, i);
        (i + 1..close, close + 1)
    } else {
        (i..i + 4, i + 1)
    };
    let words: Vec<&Token> = tokens
        .get(range.start..range.end.min(tokens.len()))
        .unwrap_or_default()
        .iter()
        .collect();
    for (k, w) in words.iter().enumerate() {
        let is_ns = words.get(k + 1).is_some_and(|t| t.ident() == Some("mg"))
            && words.get(k + 2).is_some_and(|t| t.is('.'))
            && words
                .get(k + 3)
                .is_some_and(|t| t.ident() == Some("Namespace"));
        if is_ns && let Some(name) = w.ident().filter(|n| exported(n)) {
            package.namespaces.push(name.to_owned());
        }
    }
    next.saturating_sub(1)
}

/// `var Default = X`, `var Aliases = map[string]interface{}{…}`, or a `var ( … )` group,
/// from the token after `var`; returns the index to go on from.
fn vars(tokens: &[Token], at: usize, path: &str, package: &mut Package) -> usize {
    let (start, end) = if tokens.get(at).is_some_and(|t| t.is('(')) {
        (at + 1, closer(tokens, at))
    } else {
        (at, tokens.len())
    };
    let mut j = start;
    while j < end {
        let Some(word) = tokens.get(j).and_then(Token::ident) else {
            break;
        };
        let line = tokens[j].line;
        // `Name [Type] = value`
        let mut eq = j + 1;
        while tokens.get(eq).is_some_and(|t| !t.is('=') && t.line == line) {
            eq += 1;
        }
        if !tokens.get(eq).is_some_and(|t| t.is('=')) {
            break;
        }
        let value_start = eq + 1;
        let mut v = value_start;
        let mut last_line = line;
        // The value: to its line's end, brackets and a line ending in `.` or `,` carrying on.
        while v < end {
            let t = &tokens[v];
            if t.is(';')
                || v > value_start
                    && t.line != last_line
                    && !tokens[v - 1].is('.')
                    && !tokens[v - 1].is(',')
            {
                break;
            }
            if t.is('{') || t.is('(') || t.is('[') {
                let c = closer(tokens, v);
                last_line = tokens.get(c).map_or(last_line, |t| t.line);
                v = c + 1;
                continue;
            }
            last_line = t.line;
            v += 1;
        }
        let value = &tokens[value_start..v.min(tokens.len())];
        match word {
            "Default" => {
                let written: String = value
                    .iter()
                    .map(|t| match &t.tok {
                        Tok::Ident(w) => w.clone(),
                        Tok::Punct('.') => ".".to_owned(),
                        _ => " ".to_owned(),
                    })
                    .collect();
                package.default = Some((written, path.to_owned(), line));
            }
            "Aliases" => aliases(value, path, package),
            _ => {}
        }
        if end == tokens.len() {
            return v.saturating_sub(1);
        }
        j = v;
    }
    end
}

/// The entries of `var Aliases`'s map literal: `"i": Install`, `"ds": Docs.Site`.
fn aliases(value: &[Token], path: &str, package: &mut Package) {
    let Some(open) = value.iter().rposition(|t| t.is('{')) else {
        return;
    };
    let body = &value[open + 1..];
    for entry in body.split(|t| t.is(',')) {
        let [key, colon, target @ ..] = entry else {
            continue;
        };
        let (Tok::Str(alias), true) = (&key.tok, colon.is(':')) else {
            continue;
        };
        let written: String = target
            .iter()
            .filter_map(|t| match &t.tok {
                Tok::Ident(w) => Some(w.clone()),
                Tok::Punct('.') => Some(".".to_owned()),
                _ => None,
            })
            .collect();
        if !written.is_empty() {
            package
                .aliases
                .push((alias.clone(), written, path.to_owned(), key.line));
        }
    }
}
