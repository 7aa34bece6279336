//! GNU make: the explicit targets of `GNUmakefile`, `makefile` or `Makefile` (whichever make
//! itself would read), including the files they `include`.
//!
//! makefile-lossless gives the structure (rules, assignments, includes, conditionals) and byte
//! ranges, read through an immutable view of its tree (in the mutable one its accessors are
//! quadratic on very long logical lines). Names and recipe lines are sliced from the source
//! text rather than rebuilt by the crate's string accessors; recipe bodies are hollowed out
//! before parsing, since only their text is needed; lines that would make the parser itself
//! hang are blanked first ([`guard`]). Conditionals are evaluated with the variables the
//! Makefile defined so far (undefined is empty, as in make; the environment is not read),
//! `$(wildcard …)` against the repository's files and `$(shell uname …)` with the host's
//! answer; one whose value cannot be known takes every branch that might be read, and the
//! rows that depend on it say so in their script. A `$(error …)` make would reach while
//! reading stops make: agg still lists the targets, not runnable, and says why.
//!
//! The parts: [`reader`] (one file and its includes into rules and targets), [`text`]
//! (comments, help lines, recipes and messages), [`expand`] (variables), [`include`] and
//! [`guard`].

mod expand;
mod functions;
mod glob;
mod guard;
mod include;
mod reader;
mod reads;
mod text;

use std::collections::{HashMap, HashSet};

use crate::files::file_name;
use crate::files::parent;
use crate::model::Adapter;
use crate::model::{Parsed, Source};
use crate::reads::Purpose;
use expand::Vars;
use reads::Defs;

/// The make adapter.
pub const ADAPTER: Adapter = Adapter {
    name: "make",
    candidate,
    one_per_dir: true,
    admit: None,
    neighbours: None,
    parse,
};

/// How many files deep `include` may nest (GNU make has no limit; a cycle would recurse).
const MAX_INCLUDE_DEPTH: usize = 16;
/// How many files one Makefile may pull in, counting nested includes.
const MAX_INCLUDED_FILES: usize = 256;
/// Syntax errors reported per file; the rest are summed up in one more diagnostic.
const MAX_SYNTAX_DIAGNOSTICS: usize = 5;
/// How deep conditionals may nest before their contents are ignored.
const MAX_NESTING: usize = 64;
/// Targets listed per Makefile; beyond that it is generated, not written for people.
const MAX_TASKS: usize = 10_000;
/// Prerequisites kept per rule when working out `deps`.
const MAX_PREREQS: usize = 1_000;
/// `deps` kept per task.
const MAX_DEPS: usize = 256;
/// Bytes of recipe kept per task for `describe`.
const MAX_SCRIPT: usize = 16 * 1024;

fn candidate(path: &str) -> Option<u8> {
    // The order GNU make tries them in when no `-f` is given.
    match file_name(path) {
        "GNUmakefile" => Some(0),
        "makefile" => Some(1),
        "Makefile" => Some(2),
        _ => None,
    }
}

fn parse(src: &Source<'_>) -> Parsed {
    let cwd = parent(src.path);
    let mut reader = Reader {
        files: src.files,
        cwd: cwd.to_owned(),
        vars: Vars::with_files(src.files, cwd),
        rules: Vec::new(),
        out: Parsed::default(),
        chain: vec![src.path.to_owned()],
        visited: HashSet::from([src.path.to_owned()]),
        include_limit_hit: false,
        help: HashMap::new(),
        stop: None,
        unread: Vec::new(),
        undecided: Vec::new(),
        phony: HashSet::new(),
        defs: (src.purpose == Purpose::Decide).then(|| Defs::new(file_name(src.path))),
    };
    reader.read_file(src.path, src.text);
    reader.finish(src.path)
}

use reader::Reader;

#[cfg(test)]
pub(super) mod tests;
