//! What a just recipe reads, for a pin: its attributes and line (parameters, defaults,
//! dependencies and their arguments), every setting of its module (`set shell`, `set
//! dotenv-load` and the `.env` file it loads), the variables its `{{…}}`s, defaults and
//! dependency arguments refer to (transitively), and every exported variable. Which
//! parameters it splices into its lines unquoted is said too: only plain words are data for
//! those.

use crate::files::{Files, join};
use crate::reads::Reads;

use super::parser::{Def, DefKind, Recipe};

/// Settings that make just load a `.env` file, and the one that names it.
const DOTENV: &[&str] = &[
    "dotenv-load",
    "dotenv-filename",
    "dotenv-path",
    "dotenv-required",
];

/// What `recipe` reads, given `defs`, every setting and assignment of its module; `dir` is
/// the justfile's directory, where just looks for `.env`.
pub(super) fn reads(recipe: &Recipe, defs: &[Def], files: &dyn Files, dir: &str) -> Reads {
    let mut reads = Reads::default();
    reads.part("recipe line", recipe.header.clone());
    let mut export_all = false;
    let mut dotenv = None;
    for def in defs.iter().filter(|d| d.kind == DefKind::Setting) {
        reads.part(format!("setting `{}`", def.name), def.text.clone());
        let off = def.text.ends_with(":= false");
        if def.name == "export" && !off {
            export_all = true;
        }
        if DOTENV.contains(&def.name.as_str()) && !off {
            dotenv = Some(dotenv_file(def).unwrap_or_else(|| ".env".to_owned()));
        }
    }
    if let Some(name) = dotenv {
        let text = join(dir, &name)
            .and_then(|path| files.read(&path).ok())
            .unwrap_or_default();
        reads.part(format!("dotenv file `{name}`"), text);
    }
    let params: Vec<&str> = recipe.params.iter().map(|p| p.name.as_str()).collect();
    let mut wanted: Vec<String> = Vec::new();
    for def in defs {
        if def.kind == DefKind::Exported
            || def.kind == DefKind::Unexport
            || (export_all && def.kind == DefKind::Assignment)
        {
            wanted.push(def.name.clone());
        }
    }
    let mut spliced: Vec<String> = Vec::new();
    for line in &recipe.body {
        for expr in interpolations(line) {
            let names = identifiers(expr);
            let quoted_only = is_quote_call(expr);
            for name in names {
                if params.contains(&name) {
                    if !quoted_only && !spliced.iter().any(|s| s == name) {
                        spliced.push(name.to_owned());
                    }
                } else {
                    wanted.push(name.to_owned());
                }
            }
        }
    }
    // Defaults and dependency arguments are expressions too; a parameter passed on to a
    // dependency may be spliced there.
    for name in identifiers(&recipe.header) {
        if params.contains(&name) {
            if dependency_arguments(&recipe.header).contains(&name)
                && !spliced.iter().any(|s| s == name)
            {
                spliced.push(name.to_owned());
            }
        } else {
            wanted.push(name.to_owned());
        }
    }
    follow(&mut reads, defs, wanted);
    reads.spliced = spliced;
    reads
}

/// The file a `set dotenv-filename := '…'` or `set dotenv-path := '…'` names.
fn dotenv_file(def: &Def) -> Option<String> {
    if !matches!(def.name.as_str(), "dotenv-filename" | "dotenv-path") {
        return None;
    }
    let value = def.text.rsplit_once(":=")?.1.trim();
    super::parser::cook(value)
}

/// Adds the assignments of every name in `wanted`, and of the names they refer to.
fn follow(reads: &mut Reads, defs: &[Def], mut wanted: Vec<String>) {
    let mut seen: Vec<String> = Vec::new();
    while let Some(name) = wanted.pop() {
        if seen.contains(&name) {
            continue;
        }
        seen.push(name.clone());
        let texts: Vec<&str> = defs
            .iter()
            .filter(|d| d.kind != DefKind::Setting && d.name == name)
            .map(|d| d.text.as_str())
            .collect();
        if texts.is_empty() {
            // A function's name or a variable of the environment: nothing in the file.
            continue;
        }
        for text in &texts {
            let value = text.split_once(":=").map_or(*text, |(_, v)| v);
            wanted.extend(identifiers(value).into_iter().map(str::to_owned));
        }
        reads.part(format!("variable `{name}`"), texts.join("\n"));
    }
    reads.parts.sort_by(|a, b| a.what.cmp(&b.what));
}

/// The expressions between `{{` and `}}` in a recipe line (`{{{{` is a literal `{{`).
fn interpolations(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(open) = rest.find("{{") {
        if rest[open..].starts_with("{{{{") {
            rest = &rest[open + 4..];
            continue;
        }
        let after = &rest[open + 2..];
        let Some(close) = after.find("}}") else {
            break;
        };
        out.push(&after[..close]);
        rest = &after[close + 2..];
    }
    out
}

/// The names an expression refers to: identifiers outside string literals that are not
/// called as functions and are not `if`/`else`.
fn identifiers(expr: &str) -> Vec<&str> {
    let bytes = expr.as_bytes();
    let mut out: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if matches!(b, b'\'' | b'"' | b'`') {
            let close = expr[i + 1..]
                .find(char::from(b))
                .map_or(bytes.len(), |n| i + 1 + n);
            i = close + 1;
            continue;
        }
        if b.is_ascii_alphabetic() || b == b'_' {
            let start = i;
            while i < bytes.len()
                && (bytes[i].is_ascii_alphanumeric() || matches!(bytes[i], b'_' | b'-'))
            {
                i += 1;
            }
            let name = &expr[start..i];
            let called = expr[i..].trim_start().starts_with('(');
            if !called && !matches!(name, "if" | "else") && !out.contains(&name) {
                out.push(name);
            }
            continue;
        }
        i += 1;
    }
    out
}

/// Whether an interpolation only quotes one name for the shell (`{{ quote(x) }}`).
fn is_quote_call(expr: &str) -> bool {
    let compact: String = expr.chars().filter(|c| !c.is_whitespace()).collect();
    compact
        .strip_prefix("quote(")
        .and_then(|rest| rest.strip_suffix(')'))
        .is_some_and(|inner| {
            inner
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
        })
}

/// The names among a recipe line's dependency arguments (after its `:`).
fn dependency_arguments(header: &str) -> Vec<&str> {
    let line = header.rsplit_once("] ").map_or(header, |(_, line)| line);
    line.split_once(" :")
        .or_else(|| line.split_once(':'))
        .map(|(_, deps)| identifiers(deps))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::MemFiles;
    use indoc::indoc;

    fn read(text: &str, name: &str) -> Reads {
        let files = MemFiles::new()
            .with("justfile", text)
            .with(".env", "TOKEN=1\n");
        crate::testing::reads(super::super::ADAPTER.parse, &files, "justfile", name)
    }

    const JUSTFILE: &str = indoc! {"
        set shell := ['bash', '-c']
        flags := '-O2 ' + opt
        opt := 'x'
        unused := 'y'

        # build it
        [group('dev')]
        build target='all': (gen target)
            cc {{flags}} {{target}}

        gen what:
            echo {{quote(what)}}

        lint:
            true
    "};

    #[test]
    fn a_recipe_reads_its_settings_line_and_variables_transitively() {
        let build = read(JUSTFILE, "build");
        let whats: Vec<&str> = build.parts.iter().map(|p| p.what.as_str()).collect();
        assert_eq!(
            whats,
            [
                "recipe line",
                "setting `shell`",
                "variable `flags`",
                "variable `opt`"
            ]
        );
        assert_eq!(build.spliced, ["target"]);
        assert_eq!(read(JUSTFILE, "gen").spliced, Vec::<String>::new());
    }

    #[test]
    fn unrelated_edits_keep_and_related_ones_change_what_it_reads() {
        let before = read(JUSTFILE, "build");
        for edited in [
            JUSTFILE.replace("unused := 'y'", "unused := 'z'"),
            JUSTFILE.replace(
                indoc! {"
                    lint:
                        true"},
                indoc! {"
                    lint:
                        false"},
            ),
            JUSTFILE.replace("# build it", "# build everything"),
            JUSTFILE.replace("opt := 'x'", "opt   :=   'x'   # the option"),
        ] {
            assert_eq!(read(&edited, "build"), before, "{edited}");
        }
        for edited in [
            JUSTFILE.replace("opt := 'x'", "opt := 'evil'"),
            JUSTFILE.replace("set shell := ['bash', '-c']", "set shell := ['sh', '-c']"),
            JUSTFILE.replace("[group('dev')]", "[group('dev')]\n[no-cd]"),
            JUSTFILE.replace("unused := 'y'", "export unused := 'y'"),
            format!("set dotenv-load\n{JUSTFILE}"),
        ] {
            assert_ne!(read(&edited, "build"), before, "{edited}");
        }
    }

    #[test]
    fn the_dotenv_file_is_read_when_a_setting_loads_it() {
        let reads = read(&format!("set dotenv-load\n{JUSTFILE}"), "lint");
        let dotenv = reads.parts.iter().find(|p| p.what == "dotenv file `.env`");
        assert_eq!(dotenv.map(|p| p.text.as_str()), Some("TOKEN=1\n"));
    }
}
