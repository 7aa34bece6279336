//! What a make target's definition reads, for a pin: the variables its recipe refers to
//! (through other variables, transitively), the settings every recipe runs under (`SHELL`,
//! `.ONESHELL`, exported variables, `vpath`), target- and pattern-specific variables, the
//! pattern rules that may build its prerequisites, and the rules that remake the Makefile
//! itself. Recorded while the files are read for a decision, in the branches make reads;
//! anything agg does not evaluate (`$(eval …)`, a variable whose name is computed, an
//! `include` it cannot follow) makes the definition unknown, and its files are pinned whole.

use std::collections::{HashMap, HashSet};

use crate::reads::Reads;

/// Variables whose value changes how every recipe runs, whether or not a recipe names them.
const SETTINGS: &[&str] = &[
    "SHELL",
    ".SHELLFLAGS",
    "MAKESHELL",
    "MAKEFLAGS",
    "MFLAGS",
    "GNUMAKEFLAGS",
    "MAKEFILES",
    "MAKEOVERRIDES",
    "VPATH",
    "GPATH",
    ".RECIPEPREFIX",
    ".EXTRA_PREREQS",
];

/// Special targets that change how recipes run (`.PHONY` does not: it only says which
/// targets are not files, and lists every target a Makefile adds).
const SPECIAL: &[&str] = &[
    ".ONESHELL",
    ".POSIX",
    ".SILENT",
    ".IGNORE",
    ".EXPORT_ALL_VARIABLES",
    ".NOTPARALLEL",
    ".DELETE_ON_ERROR",
    ".DEFAULT",
    ".SUFFIXES",
    ".SECONDEXPANSION",
    ".LOW_RESOLUTION_TIME",
    ".SECONDARY",
    ".INTERMEDIATE",
    ".NOTINTERMEDIATE",
    ".PRECIOUS",
];

/// make's functions: `$(name args)` with one of these names calls it rather than naming a
/// variable.
const FUNCTIONS: &[&str] = &[
    "subst",
    "patsubst",
    "strip",
    "findstring",
    "filter",
    "filter-out",
    "sort",
    "word",
    "words",
    "wordlist",
    "firstword",
    "lastword",
    "dir",
    "notdir",
    "suffix",
    "basename",
    "addsuffix",
    "addprefix",
    "join",
    "wildcard",
    "realpath",
    "abspath",
    "error",
    "warning",
    "info",
    "shell",
    "origin",
    "flavor",
    "foreach",
    "if",
    "or",
    "and",
    "intcmp",
    "call",
    "value",
    "let",
];

/// Functions agg does not follow: what they read or define is only known when make runs.
const UNFOLLOWED: &[&str] = &["eval", "file", "guile", "load"];

/// What the Makefile and its includes define, as read for a decision.
#[derive(Debug, Default)]
pub(super) struct Defs {
    /// Every assignment of each variable, as written, in the order make reads them.
    vars: HashMap<String, Vec<String>>,
    /// Target- and pattern-specific assignments: the targets as written, the text.
    scoped: Vec<(Vec<String>, String)>,
    /// Variables exported to every recipe (`export X = …`, `export X`).
    exported: Vec<String>,
    /// Whether every variable is exported (`export` alone, `.EXPORT_ALL_VARIABLES`).
    export_all: bool,
    /// Special targets and directives, as written.
    settings: Vec<(String, String)>,
    /// Pattern and suffix rules, as written.
    patterns: Vec<String>,
    /// The files make reads as makefiles (the top file and every name an `include` gives),
    /// relative to its working directory: a rule for one of them runs first, every time.
    pub(super) makefiles: Vec<String>,
    /// Why the Makefile as a whole reads what agg cannot follow.
    unknown: Option<String>,
}

impl Defs {
    /// Nothing defined yet, for the top-level Makefile named `top`.
    pub(super) fn new(top: &str) -> Defs {
        Defs {
            makefiles: vec![top.to_owned()],
            ..Defs::default()
        }
    }

    /// One assignment of `name`, its whole text (operator, value, `export`/`override`).
    pub(super) fn assign(&mut self, name: &str, text: &str, exported: bool) {
        self.vars
            .entry(name.to_owned())
            .or_default()
            .push(normal(text));
        if exported && !self.exported.iter().any(|e| e == name) {
            self.exported.push(name.to_owned());
        }
    }

    /// A directive that is not an assignment (`export X`, `unexport`, `vpath …`), as written.
    pub(super) fn directive(&mut self, text: &str) {
        let text = normal(text);
        let words: Vec<&str> = text.split_whitespace().collect();
        match words.as_slice() {
            ["export"] => self.export_all = true,
            ["export", names @ ..] => {
                for name in names {
                    if !self.exported.iter().any(|e| e == name) {
                        self.exported.push((*name).to_owned());
                    }
                }
            }
            _ => {}
        }
        self.settings.push((format!("directive `{text}`"), text));
    }

    /// A target- or pattern-specific assignment.
    pub(super) fn scoped(&mut self, targets: &str, text: &str) {
        let targets = targets.split_whitespace().map(str::to_owned).collect();
        self.scoped.push((targets, normal(text)));
    }

    /// A rule whose targets are all special or patterns, as written.
    pub(super) fn special_rule(&mut self, targets: &str, text: &str) {
        let text = normal(text);
        for target in targets.split_whitespace() {
            if target == ".EXPORT_ALL_VARIABLES" {
                self.export_all = true;
            }
            if SPECIAL.contains(&target) {
                self.settings
                    .push((format!("special target `{target}`"), text.clone()));
            } else if target.contains('%') || is_suffix_rule(target) {
                self.patterns.push(text.clone());
                break;
            }
        }
    }

    /// A line of only references at the top level: `$(eval …)` and friends define what
    /// agg cannot see; `$(info …)`, `$(warning …)` and `$(error …)` print (the reader
    /// handles `$(error …)`).
    pub(super) fn statement(&mut self, text: &str, at: &str) {
        let mut reads = Reads::default();
        references(text, &mut reads);
        if let Some(why) = reads.unknown {
            self.unknown(format!("{why} at {at}"));
        } else if ![
            "$(info",
            "${info",
            "$(warning",
            "${warning",
            "$(error",
            "${error",
        ]
        .iter()
        .any(|p| text.trim_start().starts_with(p))
        {
            self.unknown(format!("`{}` at {at}", short(text)));
        }
    }

    /// Marks the whole Makefile as reading what agg cannot follow.
    pub(super) fn unknown(&mut self, why: String) {
        self.unknown.get_or_insert(why);
    }

    /// What a target reads: `recipe` is its recipe lines, `names` the target and every target
    /// it runs first (their target-specific variables apply to it), `files_prereqs` whether
    /// it has prerequisites no rule lists (files, which pattern rules may build).
    pub(super) fn reads_of(&self, recipe: &[&str], names: &[&str], file_prereqs: bool) -> Reads {
        let mut reads = Reads::default();
        if let Some(why) = &self.unknown {
            reads.unknown(why.clone());
            return reads;
        }
        for (what, text) in &self.settings {
            reads.part(what.clone(), text.clone());
        }
        let mut wanted: Vec<String> = SETTINGS.iter().map(|s| (*s).to_owned()).collect();
        wanted.extend(self.exported.iter().cloned());
        if self.export_all {
            let mut all: Vec<&String> = self.vars.keys().collect();
            all.sort();
            wanted.extend(all.into_iter().cloned());
        }
        let mut found = Reads::default();
        for line in recipe {
            references(line, &mut found);
        }
        for (targets, text) in &self.scoped {
            let applies = targets
                .iter()
                .any(|t| names.contains(&t.as_str()) || t.contains('%'));
            if applies {
                reads.part(
                    format!("target-specific variable `{}: {text}`", targets.join(" ")),
                    text.clone(),
                );
                references(text, &mut found);
            }
        }
        if file_prereqs {
            for (i, text) in self.patterns.iter().enumerate() {
                reads.part(format!("pattern rule {}", i + 1), text.clone());
                references(text, &mut found);
            }
        }
        if let Some(why) = found.unknown {
            reads.unknown(why);
            return reads;
        }
        wanted.extend(found.parts.into_iter().map(|p| p.what));
        self.follow(&mut reads, wanted);
        reads
    }

    /// Adds every variable of `wanted` as a part, and those their values refer to.
    fn follow(&self, reads: &mut Reads, wanted: Vec<String>) {
        let mut seen: HashSet<String> = HashSet::new();
        let mut queue = wanted;
        while let Some(name) = queue.pop() {
            if !seen.insert(name.clone()) {
                continue;
            }
            let defs = self
                .vars
                .get(&name)
                .map(|d| d.join("\n"))
                .unwrap_or_default();
            let mut inner = Reads::default();
            references(&defs, &mut inner);
            if let Some(why) = inner.unknown {
                reads.unknown(format!("variable `{name}`: {why}"));
                return;
            }
            queue.extend(inner.parts.into_iter().map(|p| p.what));
            reads.part(format!("variable `{name}`"), defs);
        }
        // Parts in a stable order whatever order they were found in.
        reads.parts.sort_by(|a, b| a.what.cmp(&b.what));
    }
}

/// Adds to `found` (as parts named by the bare variable name, text empty) every variable
/// `text` refers to, or marks it unknown when it refers to one agg cannot name (`$($(X))`)
/// or calls a function agg does not follow (`$(eval …)`).
pub(super) fn references(text: &str, found: &mut Reads) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i + 1 < bytes.len() {
        if bytes[i] != b'$' {
            i += 1;
            continue;
        }
        let next = bytes[i + 1];
        match next {
            b'$' => i += 2,
            b'(' | b'{' => {
                let start = i + 2;
                let end = text[start..]
                    .find(|c: char| c.is_whitespace() || matches!(c, ')' | '}' | ':' | ',' | '='))
                    .map_or(text.len(), |n| start + n);
                let name = &text[start..end];
                let after = text[end..].chars().next();
                if name.contains('$') {
                    found.unknown(format!(
                        "a variable whose name is computed (`{}`)",
                        short(&text[i..])
                    ));
                    return;
                }
                let called = after.is_some_and(char::is_whitespace);
                if called && UNFOLLOWED.contains(&name) {
                    found.unknown(format!("`$({name} …)`, which agg does not evaluate"));
                    return;
                }
                if called && FUNCTIONS.contains(&name) {
                    // `$(call NAME,…)` and `$(value NAME)` read the variable NAME.
                    if matches!(name, "call" | "value" | "origin" | "flavor") {
                        let arg = text[end..]
                            .trim_start()
                            .split([',', ')', '}'])
                            .next()
                            .unwrap_or("")
                            .trim();
                        if arg.contains('$') {
                            found.unknown(format!("`$({name} …)` of a computed name"));
                            return;
                        }
                        if !arg.is_empty() {
                            found.part(arg, "");
                        }
                    }
                } else if !name.is_empty() && !automatic(name) {
                    found.part(name, "");
                }
                i = end;
            }
            c if c.is_ascii_alphanumeric() || c == b'_' => {
                if let Some(name) = text.get(i + 1..i + 2) {
                    found.part(name, "");
                }
                i += 2;
            }
            _ => i += 2,
        }
    }
}

/// make's automatic variables (`$@`, `$(@D)`, `$(<F)`), which no assignment sets.
fn automatic(name: &str) -> bool {
    name.starts_with(['@', '<', '^', '+', '?', '*', '%', '|'])
}

/// A suffix rule's target: `.c.o` or `.c`, both suffixes among make's known ones or not.
fn is_suffix_rule(target: &str) -> bool {
    target.starts_with('.')
        && target.len() > 1
        && target[1..]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.')
        && !SPECIAL.contains(&target)
        && target != ".PHONY"
}

/// `text` with its lines trimmed and continuation lines joined, so that reindenting or
/// reflowing a definition is no change.
fn normal(text: &str) -> String {
    let joined = text.replace("\\\r\n", " ").replace("\\\n", " ");
    joined
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first 80 characters of `text`, for a message.
fn short(text: &str) -> String {
    let text = text.trim();
    let cut: String = text.chars().take(80).collect();
    if cut.len() < text.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::MemFiles;
    use indoc::indoc;

    /// What `name` of a Makefile with `files` (the first one the Makefile) reads.
    fn read(files: &[(&str, &str)], name: &str) -> Reads {
        let mem: MemFiles = files.iter().copied().collect();
        crate::testing::reads(super::super::ADAPTER.parse, &mem, files[0].0, name)
    }

    const MAKEFILE: &str = indoc! {"
        CC = cc
        UNUSED = 1

        build: gen
        \t$(CC) main.c

        gen:
        \techo gen
    "};

    #[test]
    fn edits_the_target_does_not_read_keep_its_parts() {
        let before = read(&[("Makefile", MAKEFILE)], "build");
        assert_eq!(before.unknown, None);
        assert_eq!(before.runs, Vec::<String>::new());
        let edit = |from: &str, to: &str| MAKEFILE.replace(from, to);
        for edited in [
            // an unread variable, another target
            edit("UNUSED = 1", "UNUSED = 2") + "other:\n\techo x\n",
            // a comment, reformatting, another target
            format!(
                "# the compiler\n{}lint:\n\ttrue\n",
                edit("CC = cc", "CC   =   cc").replace("\n\n", "\n")
            ),
        ] {
            assert_eq!(
                read(&[("Makefile", &edited)], "build").parts,
                before.parts,
                "{edited}"
            );
        }
        for edited in [
            edit("CC = cc", "CC = evil"),
            format!("SHELL = /tmp/sh\n{}", edit("UNUSED = 1\n", "")),
            edit("UNUSED = 1", "export TOKEN = x"),
            edit("UNUSED = 1", ".ONESHELL:"),
            edit("UNUSED = 1", "build: CC = evil"),
        ] {
            assert_ne!(
                read(&[("Makefile", &edited)], "build").parts,
                before.parts,
                "{edited}"
            );
        }
    }

    #[test]
    fn variables_come_from_includes_and_through_other_variables() {
        let files = [
            (
                "Makefile",
                indoc! {"
                    include tools.mk
                    build:
                    \t$(CC) main.c
                "},
            ),
            (
                "tools.mk",
                indoc! {"
                    CC = $(PREFIX)/cc
                    PREFIX = /usr
                    OTHER = 1
                "},
            ),
        ];
        let reads = read(&files, "build");
        let prefix = reads.parts.iter().find(|p| p.what == "variable `PREFIX`");
        assert_eq!(prefix.map(|p| p.text.as_str()), Some("PREFIX = /usr"));
        assert!(!reads.parts.iter().any(|p| p.what == "variable `OTHER`"));
    }

    #[test]
    fn what_agg_does_not_evaluate_is_unknown() {
        let eval = read(
            &[(
                "Makefile",
                indoc! {"
                    $(eval $(call rules,x))
                    build:
                    \tcc
                "},
            )],
            "build",
        );
        assert!(eval.unknown.is_some_and(|w| w.contains("eval")));
        let computed = read(
            &[(
                "Makefile",
                indoc! {"
                    build:
                    \t$($(KIND)_CC) x
                "},
            )],
            "build",
        );
        assert!(computed.unknown.is_some_and(|w| w.contains("computed")));
    }

    #[test]
    fn a_rule_that_remakes_an_included_makefile_runs_before_every_target() {
        let reads = read(
            &[(
                "Makefile",
                indoc! {"
                    -include deps.mk
                    build:
                    \tcc
                    deps.mk:
                    \tcurl x | sh
                "},
            )],
            "build",
        );
        assert_eq!(reads.runs, ["deps.mk"]);
    }

    fn names(text: &str) -> Result<Vec<String>, String> {
        let mut found = Reads::default();
        references(text, &mut found);
        match found.unknown {
            Some(why) => Err(why),
            None => Ok(found.parts.into_iter().map(|p| p.what).collect()),
        }
    }

    #[test]
    fn references_in_every_spelling() {
        assert_eq!(
            names(
                "$(CC) ${CFLAGS} $A $$HOME $@ $(@D) $(SRC:.c=.o) $(call greet,x) $(shell id) $(notdir $(OUT))"
            ),
            Ok(vec!["CC", "CFLAGS", "A", "SRC", "greet", "OUT"]
                .into_iter()
                .map(str::to_owned)
                .collect())
        );
        assert!(names("$($(KIND)_FLAGS)").is_err());
        assert!(names("$(eval X = 1)").is_err());
        assert!(names("$(call $(F),x)").is_err());
    }

    #[test]
    fn a_target_reads_its_variables_transitively_and_every_setting() {
        let mut defs = Defs::default();
        defs.assign("CC", "CC = $(TOOLCHAIN)/cc", false);
        defs.assign("TOOLCHAIN", "TOOLCHAIN   :=   /opt", false);
        defs.assign("UNUSED", "UNUSED = x", false);
        defs.assign("PORT", "export PORT = 80", true);
        defs.special_rule(".ONESHELL", ".ONESHELL:");
        let reads = defs.reads_of(&["$(CC) main.c"], &["build"], false);
        let whats: Vec<&str> = reads.parts.iter().map(|p| p.what.as_str()).collect();
        assert!(whats.contains(&"variable `CC`"), "{whats:?}");
        assert!(whats.contains(&"variable `TOOLCHAIN`"), "{whats:?}");
        assert!(whats.contains(&"variable `PORT`"), "{whats:?}");
        assert!(whats.contains(&"variable `SHELL`"), "{whats:?}");
        assert!(whats.contains(&"special target `.ONESHELL`"), "{whats:?}");
        assert!(!whats.contains(&"variable `UNUSED`"), "{whats:?}");
        let toolchain = reads
            .parts
            .iter()
            .find(|p| p.what == "variable `TOOLCHAIN`");
        assert_eq!(
            toolchain.map(|p| p.text.as_str()),
            Some("TOOLCHAIN := /opt")
        );
    }
}
