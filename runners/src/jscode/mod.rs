//! Build files written as code: gulpfiles and Gruntfiles, in JavaScript, TypeScript or
//! (Gruntfiles) CoffeeScript. They are tokenized ([`lexer`]), their brackets paired
//! ([`code`]), and the registrations gulp and grunt would make are read from the tokens
//! ([`gulp`], [`grunt`]). A CoffeeScript gulpfile is not read. Nothing is run: a task whose name is computed while the file runs
//! cannot be listed, and a file that only code could make sense of lists what its literal
//! registrations say.

mod code;
mod grunt;
mod gulp;
mod lexer;
#[cfg(test)]
mod tests;

use crate::files::{file_name, parent, place};
use crate::model::{Adapter, Parsed, Source};
use code::Code;
use lexer::{Lang, Unclosed, tokenize};

/// The names gulp-cli looks for, in its order of preference within one directory.
const GULPFILES: [&str; 8] = [
    "gulpfile.js",
    "gulpfile.cjs",
    "gulpfile.mjs",
    "gulpfile.babel.js",
    "gulpfile.esm.js",
    "gulpfile.ts",
    "gulpfile.cts",
    "gulpfile.mts",
];

/// The entry points of a `gulpfile.js/` directory.
const GULP_INDEXES: [&str; 4] = ["index.js", "index.cjs", "index.mjs", "index.ts"];

/// The names grunt-cli looks for, in its order of preference within one directory.
const GRUNTFILES: [&str; 6] = [
    "Gruntfile.js",
    "gruntfile.js",
    "Gruntfile.cjs",
    "gruntfile.cjs",
    "Gruntfile.coffee",
    "gruntfile.coffee",
];

/// Gulpfiles: `gulpfile.js` and its other extensions (`Gulpfile.js` too), and the
/// `index.js` of a `gulpfile.js/` directory.
pub const GULP: Adapter = Adapter {
    name: "gulpfile",
    candidate: gulp_candidate,
    one_per_dir: true,
    admit: None,
    neighbours: None,
    parse: parse_gulp,
};

/// Gruntfiles: `Gruntfile.js` or `Gruntfile.coffee` (either capitalisation).
pub const GRUNT: Adapter = Adapter {
    name: "Gruntfile",
    candidate: |path| grunt_named(file_name(path)),
    one_per_dir: true,
    admit: None,
    neighbours: None,
    parse: parse_grunt,
};

fn gulp_candidate(path: &str) -> Option<u8> {
    let (dir_name, name, below_root) = place(path);
    gulp_named(dir_name, name, below_root)
}

/// [`gulp_candidate`] of the file `name` in the directory named `dir_name` (`below_root`:
/// that directory is not the root itself).
fn gulp_named(dir_name: &str, name: &str, below_root: bool) -> Option<u8> {
    if dir_name
        .get(..9)
        .is_some_and(|p| p.eq_ignore_ascii_case("gulpfile."))
        && GULPFILES.contains(&dir_name.to_ascii_lowercase().as_str())
        && below_root
    {
        return GULP_INDEXES
            .iter()
            .position(|n| *n == name)
            .and_then(|i| u8::try_from(i).ok());
    }
    // gulp-cli finds `Gulpfile.js` as well as `gulpfile.js`. Most paths asked are source
    // files, so this compares without allocating.
    let rest = name.strip_prefix('g').or_else(|| name.strip_prefix('G'))?;
    GULPFILES
        .iter()
        .position(|n| n[1..] == *rest)
        .and_then(|i| u8::try_from(i).ok())
}

fn grunt_named(name: &str) -> Option<u8> {
    GRUNTFILES
        .iter()
        .position(|n| *n == name)
        .and_then(|i| u8::try_from(i).ok())
}

/// Whether the file `name`, in a directory named `dir_name` below the root, is a file only
/// the gulp and grunt adapters take, though its extension (`.js`, `.ts`) is that of a
/// source file.
pub(crate) fn is_build_file(dir_name: &str, name: &str) -> bool {
    gulp_named(dir_name, name, true).is_some() || grunt_named(name).is_some()
}

/// The directory gulp runs a gulpfile's tasks from: the gulpfile's, or for
/// `gulpfile.js/index.js` the directory holding `gulpfile.js/`.
fn gulp_dir(path: &str) -> &str {
    let dir = parent(path);
    if GULP_INDEXES.contains(&file_name(path))
        && file_name(dir).to_ascii_lowercase().starts_with("gulpfile.")
    {
        parent(dir)
    } else {
        dir
    }
}

fn lang_of(path: &str) -> Lang {
    if path.ends_with(".coffee") {
        Lang::Coffee
    } else {
        Lang::Js
    }
}

/// Reads the file's tokens, reporting what it leaves open (the runner's own loader would
/// refuse the file, so the tasks read before it are all agg can say).
fn code_of(src: &Source<'_>, out: &mut Parsed) -> (Code, Lang) {
    let lang = lang_of(src.path);
    let (tokens, unclosed) = tokenize(src.text, lang);
    if let Some(Unclosed { line, what }) = unclosed {
        out.diag(
            src.path,
            Some(line),
            format!(
                "unclosed {what}: node cannot load this file as written; agg lists what it read"
            ),
        );
    }
    (Code::new(tokens), lang)
}

fn parse_gulp(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    let (code, _) = code_of(src, &mut out);
    gulp::tasks(&code, src.path, gulp_dir(src.path), &mut out);
    out
}

fn parse_grunt(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    let (code, lang) = code_of(src, &mut out);
    grunt::tasks(&code, lang, src.path, parent(src.path), src.files, &mut out);
    out
}
