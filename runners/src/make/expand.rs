//! Make variables as far as a static reader can know them: simple and recursive assignments,
//! expanded in target names, prerequisites, include paths and conditions.
//!
//! A variable the Makefile never defines is empty, as in make. Two functions are decided
//! without running anything: `$(wildcard …)` tests the repository's files, and the platform
//! probes `$(shell uname)`, `$(shell uname -s)` and `$(shell uname -m)` have the host's
//! answer. Anything else that needs evaluation (other functions, substitution references,
//! automatic variables, `!=`, make's own variables) makes an expansion fail, so the caller
//! can skip the word instead of listing a wrong name.

use std::collections::HashMap;

use super::functions;
use super::glob;
use crate::files::Files;

/// How deep variable references may nest before we give up (also stops `A = $(A)`).
const MAX_DEPTH: usize = 16;
/// The longest expansion we produce for one word; target names are short.
const MAX_LEN: usize = 64 * 1024;
/// Bytes all expansions of one Makefile (with its includes) may scan or copy, so a file with
/// millions of references to a large variable stays linear.
const WORK_BUDGET: usize = 64 * 1024 * 1024;

/// The variables defined so far while reading a Makefile and its includes, in order.
pub(super) struct Vars<'f> {
    /// `None` marks a variable whose value we cannot know (`!=`, `define`, an unresolvable
    /// `:=`): expanding it fails rather than guessing.
    values: HashMap<String, Option<String>>,
    /// Variables last assigned inside a conditional agg could not evaluate, with a note that
    /// names it: a name built from one may not be make's.
    notes: HashMap<String, String>,
    /// The note of the undecided conditional being read, if any: assignments record it.
    pub(super) context: Option<String>,
    /// Variables the last expansion read, for [`Vars::note_of_last`].
    used: Vec<String>,
    /// The repository and make's working directory in it, for `$(wildcard …)`.
    files: Option<(&'f dyn Files, String)>,
    work_left: usize,
    /// Set once the work budget ran out, so the caller can say so once.
    pub(super) exhausted: bool,
}

/// A word expanded for an `include` line.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct IncludeWords {
    /// The expanded text, to split into file names.
    pub(super) text: String,
    /// Whether `$(wildcard …)` produced (part of) it: such names only exist if they matched.
    pub(super) from_wildcard: bool,
}

impl<'f> Vars<'f> {
    /// Variables with no repository to test `$(wildcard …)` against (it fails).
    #[cfg(test)]
    pub(super) fn new() -> Vars<'f> {
        Vars {
            values: HashMap::new(),
            notes: HashMap::new(),
            context: None,
            used: Vec::new(),
            files: None,
            work_left: WORK_BUDGET,
            exhausted: false,
        }
    }

    /// Variables whose `$(wildcard …)` looks at `files` from make's directory `cwd`.
    pub(super) fn with_files(files: &'f dyn Files, cwd: &str) -> Vars<'f> {
        Vars {
            values: HashMap::new(),
            notes: HashMap::new(),
            context: None,
            used: Vec::new(),
            files: Some((files, cwd.to_owned())),
            work_left: WORK_BUDGET,
            exhausted: false,
        }
    }

    /// The note of an undecided conditional that a variable the last expansion read was
    /// assigned under, if any.
    pub(super) fn note_of_last(&self) -> Option<&str> {
        self.used
            .iter()
            .find_map(|name| self.notes.get(name))
            .map(String::as_str)
    }

    /// Records one assignment `name op value` (`op` as written: `=`, `:=`, `?=`, `+=`, …).
    pub(super) fn assign(&mut self, name: &str, op: &str, value: &str) {
        let value = value.trim();
        // Under an undecided conditional the value may not be make's; an assignment outside
        // one replaces the value (`=`, `:=`) and with it the doubt.
        match (&self.context, op) {
            (Some(note), _) => {
                self.notes.insert(name.to_owned(), note.clone());
            }
            (None, "=" | ":=" | "::=" | ":::=") => {
                self.notes.remove(name);
            }
            _ => {}
        }
        match op {
            "=" => {
                self.values.insert(name.to_owned(), Some(value.to_owned()));
            }
            ":=" | "::=" | ":::=" => {
                // Simply expanded: the value is fixed now, with the variables defined so far.
                let fixed = self.expand(value);
                if let Some(note) = self.note_of_last().map(str::to_owned) {
                    self.notes.entry(name.to_owned()).or_insert(note);
                }
                self.values.insert(name.to_owned(), fixed);
            }
            "?=" => {
                self.values
                    .entry(name.to_owned())
                    .or_insert_with(|| Some(value.to_owned()));
            }
            "+=" => {
                let new = match self.values.get(name) {
                    None => Some(value.to_owned()),
                    Some(None) => None,
                    Some(Some(old)) if old.is_empty() => Some(value.to_owned()),
                    Some(Some(old)) => Some(format!("{old} {value}")),
                };
                self.values.insert(name.to_owned(), new);
            }
            // `UNAME != uname -s`: the shell's answer, when it is a platform probe.
            "!=" => {
                let answer = platform_probe(value);
                self.values.insert(name.to_owned(), answer);
            }
            _ => self.unknown(name),
        }
    }

    /// Marks a variable as defined with a value we cannot know.
    pub(super) fn unknown(&mut self, name: &str) {
        self.values.insert(name.to_owned(), None);
    }

    /// Forgets a variable (`undefine`).
    pub(super) fn undefine(&mut self, name: &str) {
        self.values.remove(name);
    }

    /// The value of a variable, unexpanded, when known.
    pub(super) fn raw(&self, name: &str) -> Option<&str> {
        self.values.get(name)?.as_deref()
    }

    /// Expands every variable reference in `text`; `None` when any of them cannot be
    /// resolved.
    /// Variables the Makefile never defined are empty, as in make; `None` when a value cannot
    /// be known (a function call other than `wildcard` and the platform probes, a variable set
    /// by `!=`, one of make's own variables such as `MAKECMDGOALS`).
    pub(super) fn expand(&mut self, text: &str) -> Option<String> {
        self.used.clear();
        if !text.contains('$') {
            return Some(text.to_owned());
        }
        self.run(text, None, true)
    }

    /// Expands `text` as a conditional's argument (as [`Vars::expand`]).
    pub(super) fn expand_condition(&mut self, text: &str) -> Option<String> {
        self.used.clear();
        self.run(text, None, true)
    }

    fn run(
        &mut self,
        text: &str,
        wildcard: Option<&mut bool>,
        undefined_empty: bool,
    ) -> Option<String> {
        let mut out = String::new();
        let ok = Expander {
            vars: &self.values,
            work_left: &mut self.work_left,
            wildcard,
            files: self.files.as_ref().map(|(f, cwd)| (*f, cwd.as_str())),
            undefined_empty,
            used: &mut self.used,
        }
        .expand_into(text, 0, &mut out)
        .is_some();
        self.note_exhaustion();
        ok.then_some(out)
    }

    /// Whether `ifdef name` holds: `Some(true)` when the variable has a non-empty value,
    /// `Some(false)` when it is undefined or empty, `None` when its value is unknown.
    pub(super) fn is_defined(&self, name: &str) -> Option<bool> {
        match self.values.get(name) {
            Some(Some(value)) => Some(!value.trim().is_empty()),
            Some(None) => None,
            None if is_make_variable(name) => None,
            None => Some(false),
        }
    }

    /// Like [`Vars::expand`], but also reads `$(wildcard PATTERN…)` as its patterns, which the
    /// include code then matches against the files that exist.
    /// A variable never defined fails here: include paths often come from the environment
    /// (`include $(TOPDIR)/rules.mk`), and saying so beats reading the wrong file.
    pub(super) fn expand_include(&mut self, text: &str) -> Option<IncludeWords> {
        self.used.clear();
        let mut from_wildcard = false;
        let text = self.run(text, Some(&mut from_wildcard), false)?;
        Some(IncludeWords {
            text,
            from_wildcard,
        })
    }

    fn note_exhaustion(&mut self) {
        if self.work_left == 0 {
            self.exhausted = true;
        }
    }
}

struct Expander<'a> {
    vars: &'a HashMap<String, Option<String>>,
    work_left: &'a mut usize,
    /// `Some` in `include` lines: `$(wildcard …)` gives its patterns, which the include code
    /// matches; set to true when one was expanded.
    wildcard: Option<&'a mut bool>,
    /// The repository and make's directory in it, to evaluate `$(wildcard …)` elsewhere.
    files: Option<(&'a dyn Files, &'a str)>,
    /// Whether a variable the Makefile never defines expands to nothing, as make does
    /// (make's own variables still fail: their values depend on the run).
    undefined_empty: bool,
    /// The variables read, in order.
    used: &'a mut Vec<String>,
}

impl Expander<'_> {
    fn spend(&mut self, bytes: usize) -> Option<()> {
        if let Some(left) = self.work_left.checked_sub(bytes.max(1)) {
            *self.work_left = left;
            Some(())
        } else {
            *self.work_left = 0;
            None
        }
    }

    fn push(&mut self, out: &mut String, chunk: &str) -> Option<()> {
        if out.len() + chunk.len() > MAX_LEN {
            return None;
        }
        self.spend(chunk.len())?;
        out.push_str(chunk);
        Some(())
    }

    fn expand_into(&mut self, text: &str, depth: usize, out: &mut String) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        let mut rest = text;
        loop {
            // Never look further than the output may grow, so a huge value costs at most
            // MAX_LEN per reference.
            let window = floor_char_boundary(rest, MAX_LEN.saturating_sub(out.len()) + 1);
            let Some(dollar) = rest[..window].find('$') else {
                return self.push(out, rest);
            };
            self.push(out, &rest[..dollar])?;
            let after = &rest[dollar + 1..];
            let mut chars = after.chars();
            let (name, consumed) = match chars.next()? {
                open @ ('(' | '{') => {
                    let close = if open == '(' { ')' } else { '}' };
                    let end = matching_close(after, open, close)?;
                    (&after[1..end], end + 1)
                }
                c => (&after[..c.len_utf8()], c.len_utf8()),
            };
            self.spend(consumed)?;
            if let Some(args) = name.strip_prefix("wildcard ") {
                if let Some(flag) = self.wildcard.as_deref_mut() {
                    *flag = true;
                    self.expand_into(args.trim(), depth + 1, out)?;
                } else {
                    let (files, cwd) = self.files?;
                    let mut patterns = String::new();
                    self.expand_into(args.trim(), depth + 1, &mut patterns)?;
                    let found = glob::wildcard(files, cwd, &patterns);
                    self.push(out, &found.join(" "))?;
                }
            } else if let Some(command) = name.strip_prefix("shell ") {
                self.push(out, &platform_probe(command)?)?;
            } else if let Some((function, args)) = functions::split_call(name) {
                self.call(function, args, depth, out)?;
            } else {
                // A computed name (`$(ARCH_MAP_$(shell uname -m))`) is expanded first; what
                // it names is then read like any variable.
                let computed;
                let name = if name.contains('$') {
                    let mut expanded = String::new();
                    self.expand_into(name, depth + 1, &mut expanded)?;
                    computed = expanded;
                    computed.as_str()
                } else {
                    name
                };
                // Other functions, substitution references (`$(SRC:.c=.o)`) and `$$` need
                // evaluation we do not do.
                if name.is_empty() || name.contains(|c: char| " \t,:=$(){}#".contains(c)) {
                    return None;
                }
                if self.used.len() < MAX_DEPTH * 4 {
                    self.used.push(name.to_owned());
                }
                let value = match self.vars.get(name) {
                    Some(value) => value.as_deref()?,
                    None if self.undefined_empty && !is_make_variable(name) => host_variable(name),
                    None => return None,
                };
                self.expand_into(value, depth + 1, out)?;
            }
            rest = &after[consumed..];
        }
    }
}

impl Expander<'_> {
    /// One of make's text functions ([`functions::TEXT`]), its arguments expanded first;
    /// `$(if …)`, `$(and …)` and `$(or …)` expand only the arguments make would.
    fn call(&mut self, function: &str, args: &str, depth: usize, out: &mut String) -> Option<()> {
        let raw = functions::split_args(args, functions::arity(function));
        let mut expanded = Vec::with_capacity(raw.len());
        let lazy = matches!(function, "if" | "and" | "or");
        for (i, arg) in raw.iter().enumerate() {
            let mut value = String::new();
            self.expand_into(arg, depth + 1, &mut value)?;
            let value = if function == "if" || lazy {
                value.trim().to_owned()
            } else {
                value
            };
            let decided = match function {
                "if" if i == 0 => Some(if value.is_empty() { 2 } else { 1 }),
                "and" if value.is_empty() => Some(usize::MAX),
                "or" if !value.is_empty() => return self.push(out, &value),
                _ => None,
            };
            if let Some(next) = decided {
                if function == "and" {
                    return Some(());
                }
                // `$(if c,then,else)`: only the branch taken is expanded.
                let Some(branch) = raw.get(next) else {
                    return Some(());
                };
                let mut value = String::new();
                self.expand_into(branch, depth + 1, &mut value)?;
                return self.push(out, &value);
            }
            expanded.push(value);
        }
        if function == "and" {
            return self.push(out, expanded.last().map_or("", String::as_str));
        }
        if function == "or" {
            return Some(());
        }
        self.spend(functions::cost(function, &expanded))?;
        let result = functions::apply(function, &expanded)?;
        self.push(out, &result)
    }
}

/// Variables make itself sets or takes from the run (the command line, the goals, the
/// platform, the rule being run): a static reader cannot know their values.
fn is_make_variable(name: &str) -> bool {
    name.starts_with("MAKE")
        || name.starts_with('.')
        || name.starts_with(['@', '<', '^', '+', '?', '*', '%', '|'])
        || matches!(name, "CURDIR" | "SHELL" | "VPATH" | "SUFFIXES")
}

/// The value of a variable the Makefile never defines: empty, except `$(OS)`, which is
/// `Windows_NT` in every Windows environment (the probe Makefiles test it for).
fn host_variable(name: &str) -> &'static str {
    if name == "OS" && cfg!(windows) {
        "Windows_NT"
    } else {
        ""
    }
}

/// The host's answer to a `$(shell …)` platform probe, in the forms Makefiles write it:
/// `uname`, `uname -s`, `uname -m`, `uname -p`, `uname -o` (and their long options), with
/// errors sent to `/dev/null`, with a fallback (`uname -s 2>/dev/null || echo not`: uname
/// answers, so the fallback never runs), wrapped in `sh -c '…'` (git, redis, hiredis, lua),
/// and piped through `tr` to change case. `None` for any other command, or a host whose
/// answer agg does not know.
pub(super) fn platform_probe(command: &str) -> Option<String> {
    let command = unwrap_shell(command.trim());
    // The first alternative answers on every host that has uname; the others never run.
    let first = command.split("||").next()?;
    let mut stages = first.split('|');
    let words: Vec<&str> = stages
        .next()?
        .split_whitespace()
        .filter(|w| !matches!(*w, "2>/dev/null" | "2>" | "/dev/null" | "2>&1"))
        .collect();
    let mut answer = uname_answer(&words)?;
    for stage in stages {
        answer = change_case(stage, &answer)?;
    }
    Some(answer)
}

/// The command inside `sh -c '…'` (or `bash -c "…"`), else the command itself.
fn unwrap_shell(command: &str) -> &str {
    let Some(rest) = ["sh -c ", "/bin/sh -c ", "bash -c ", "/bin/bash -c "]
        .iter()
        .find_map(|shell| command.strip_prefix(shell))
    else {
        return command;
    };
    let rest = rest.trim();
    ['\'', '"']
        .iter()
        .find_map(|&q| rest.strip_prefix(q)?.strip_suffix(q))
        .unwrap_or(command)
}

/// What `uname` with these words prints here: the fields asked for, in uname's own order.
fn uname_answer(words: &[&str]) -> Option<String> {
    let (program, flags) = words.split_first()?;
    if !matches!(*program, "uname" | "/bin/uname" | "/usr/bin/uname") {
        return None;
    }
    let mut wanted = [false; 4];
    for flag in flags {
        let letters = match *flag {
            "--kernel-name" => "s",
            "--machine" => "m",
            "--processor" => "p",
            "--operating-system" => "o",
            short => short
                .strip_prefix('-')
                .filter(|l| !l.is_empty() && !l.starts_with('-'))?,
        };
        for letter in letters.chars() {
            wanted["smpo".find(letter)?] = true;
        }
    }
    if !wanted.contains(&true) {
        wanted[0] = true;
    }
    let fields = [host_uname(), host_machine(), host_processor(), host_os()];
    let mut out = Vec::new();
    for (want, field) in wanted.iter().zip(fields) {
        if *want {
            out.push(field?);
        }
    }
    Some(out.join(" "))
}

/// `tr '[:upper:]' '[:lower:]'` (or `tr A-Z a-z`, and the other way round) applied to
/// `text`; `None` for any other filter.
fn change_case(stage: &str, text: &str) -> Option<String> {
    let words: Vec<String> = stage
        .split_whitespace()
        .map(|w| w.trim_matches(['\'', '"']).to_owned())
        .collect();
    match words
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["tr", "[:upper:]" | "A-Z", "[:lower:]" | "a-z"] => Some(text.to_ascii_lowercase()),
        ["tr", "[:lower:]" | "a-z", "[:upper:]" | "A-Z"] => Some(text.to_ascii_uppercase()),
        _ => None,
    }
}

/// What `uname -s` prints on this host.
pub(super) fn host_uname() -> Option<&'static str> {
    Some(match std::env::consts::OS {
        "linux" | "android" => "Linux",
        "macos" | "ios" => "Darwin",
        "freebsd" => "FreeBSD",
        "netbsd" => "NetBSD",
        "openbsd" => "OpenBSD",
        "dragonfly" => "DragonFly",
        "solaris" | "illumos" => "SunOS",
        // MSYS, Cygwin and WSL each answer differently on Windows.
        _ => return None,
    })
}

/// What `uname -m` prints on this host.
fn host_machine() -> Option<&'static str> {
    Some(match (std::env::consts::ARCH, std::env::consts::OS) {
        ("aarch64", "macos") => "arm64",
        (_, "windows") => return None,
        ("x86_64", _) => "x86_64",
        ("aarch64", _) => "aarch64",
        ("x86", _) => "i686",
        ("riscv64", _) => "riscv64",
        ("s390x", _) => "s390x",
        ("loongarch64", _) => "loongarch64",
        _ => return None,
    })
}

/// What `uname -p` prints on this host: `unknown` from GNU coreutils and busybox on Linux
/// (Fedora's patched coreutils prints the machine instead), `i386` or `arm` on macOS.
fn host_processor() -> Option<&'static str> {
    Some(match (std::env::consts::OS, std::env::consts::ARCH) {
        ("linux", _) => "unknown",
        ("macos", "aarch64") => "arm",
        ("macos", _) => "i386",
        ("freebsd" | "netbsd" | "openbsd" | "dragonfly", _) => host_machine()?,
        _ => return None,
    })
}

/// What `uname -o` prints on this host.
fn host_os() -> Option<&'static str> {
    Some(match std::env::consts::OS {
        "linux" => "GNU/Linux",
        "android" => "Android",
        _ => host_uname()?,
    })
}

/// The byte index of the `close` that ends a reference opened at `text[0] == open`, counting
/// nested pairs of the same kind, as make does.
fn matching_close(text: &str, open: char, close: char) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in text.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// The largest char boundary of `s` at or below `at`.
fn floor_char_boundary(s: &str, at: usize) -> usize {
    if at >= s.len() {
        return s.len();
    }
    (0..=at).rev().find(|&i| s.is_char_boundary(i)).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(defs: &[(&str, &str, &str)]) -> Vars<'static> {
        let mut v = Vars::new();
        for (name, op, value) in defs {
            v.assign(name, op, value);
        }
        v
    }

    #[test]
    fn simple_and_recursive_variables_expand() {
        let mut v = vars(&[
            ("BIN", ":=", "app"),
            ("OUT", "=", "build/$(BIN)"),
            ("EXE", "=", "${OUT}.exe"),
        ]);
        assert_eq!(v.expand("$(BIN)").as_deref(), Some("app"));
        assert_eq!(v.expand("$(EXE)").as_deref(), Some("build/app.exe"));
        assert_eq!(v.expand("plain").as_deref(), Some("plain"));
    }

    #[test]
    fn recursive_variables_see_later_definitions() {
        let mut v = vars(&[("A", "=", "$(B)"), ("B", "=", "late")]);
        assert_eq!(v.expand("$(A)").as_deref(), Some("late"));
        // `:=` fixes the value when it is defined: B was not defined yet, so empty.
        let mut v = vars(&[("A", ":=", "$(B)"), ("B", "=", "late")]);
        assert_eq!(v.expand("$(A)").as_deref(), Some(""));
    }

    #[test]
    fn conditional_and_append_assignments() {
        let mut v = vars(&[
            ("A", "?=", "first"),
            ("A", "?=", "second"),
            ("L", "+=", "x"),
            ("L", "+=", "y"),
        ]);
        assert_eq!(v.expand("$(A)").as_deref(), Some("first"));
        assert_eq!(v.expand("$(L)").as_deref(), Some("x y"));
    }

    #[test]
    fn anything_needing_evaluation_fails() {
        let mut v = vars(&[("SRC", "=", "a.c"), ("S", "!=", "ls")]);
        for text in [
            "$(wildcard *.c)",
            "$(SRC:.c=.o)",
            "$@",
            "$$HOME",
            "$(S)",
            "$(CURDIR)",
            "$(MAKECMDGOALS)",
            "$(shell ./configure)",
            "$(",
            "$",
        ] {
            assert_eq!(v.expand(text), None, "{text}");
        }
        // Undefined is empty, as in make.
        assert_eq!(v.expand("a$(UNDEFINED)b").as_deref(), Some("ab"));
    }

    #[test]
    fn self_reference_and_blowup_are_bounded() {
        let mut v = vars(&[("A", "=", "$(A)")]);
        assert_eq!(v.expand("$(A)"), None);
        let mut defs = vec![("V0".to_owned(), "x".repeat(1000))];
        for i in 1..30 {
            defs.push((format!("V{i}"), format!("$(V{p})$(V{p})", p = i - 1)));
        }
        let mut v = Vars::new();
        for (name, value) in &defs {
            v.assign(name, "=", value);
        }
        assert_eq!(v.expand("$(V29)"), None);
    }

    #[test]
    fn work_budget_runs_out_instead_of_hanging() {
        let mut v = vars(&[("BIG", "=", &"x".repeat(60_000))]);
        let mut last = None;
        for _ in 0..2_000 {
            last = v.expand("$(BIG)");
        }
        assert_eq!(last, None);
        assert!(v.exhausted);
    }

    #[test]
    fn include_expansion_reads_wildcard_patterns() {
        let mut v = vars(&[("DIR", ":=", "mk")]);
        let words = v
            .expand_include("$(wildcard $(DIR)/*.mk) extra.mk")
            .unwrap();
        assert_eq!(words.text, "mk/*.mk extra.mk");
        assert!(words.from_wildcard);
        assert_eq!(v.expand("$(wildcard *.mk)"), None);
    }

    #[test]
    fn undefine_and_unknown() {
        let mut v = vars(&[("A", "=", "a")]);
        v.undefine("A");
        assert_eq!(v.expand("$(A)").as_deref(), Some(""));
        v.assign("B", "=", "b");
        v.unknown("B");
        assert_eq!(v.expand("$(B)"), None);
        assert_eq!(v.raw("B"), None);
    }
}
