//! Following `include`, `-include` and `sinclude`: names expanded with the variables known
//! at that point, resolved from make's working directory (the top-level Makefile's), file
//! name patterns matched, cycles and runaway nesting cut off.

use makefile_lossless::Include;

use super::glob::{self, is_glob};
use super::reader::{Prepared, Reader};
use super::text::{FileText, join_continuations};
use super::{MAX_INCLUDE_DEPTH, MAX_INCLUDED_FILES, candidate};
use crate::files::{join, parent, shared_parse};

impl Reader<'_> {
    /// Reads the files one `include` line names, in place, so their variables and rules
    /// count from that point on.
    pub(super) fn include(&mut self, include: &Include, file: &FileText<'_>) {
        let optional = include.is_optional();
        let range = include.text_range();
        let line = file.line(usize::from(range.start()));
        let Some(keyword) = include.keyword_range() else {
            return;
        };
        let args = file
            .text
            .get(usize::from(keyword.end())..usize::from(range.end()))
            .unwrap_or("");
        let args = join_continuations(strip_comment(args));
        let args = args.trim();
        if args.is_empty() {
            return; // the parser reports the missing file name
        }
        // make's working directory is the one includes resolve from, so `$(CURDIR)/x` is `x`.
        let args = if self.vars.raw("CURDIR").is_none() {
            args.replace("$(CURDIR)", ".").replace("${CURDIR}", ".")
        } else {
            args.to_owned()
        };
        let args = args.as_str();
        let Some(words) = self.vars.expand_include(args) else {
            if let Some(defs) = &mut self.defs {
                defs.unknown(format!(
                    "`include {args}` at {}:{line} names files agg cannot evaluate",
                    file.path
                ));
            }
            if !optional {
                self.out.diag(
                    file.path,
                    Some(line),
                    format!(
                        "cannot follow `include {args}`: it uses variables or functions \
                         agg cannot evaluate"
                    ),
                );
            }
            return;
        };
        // Names from `$(wildcard …)` only exist if they matched, so none of them is missing.
        let optional = optional || words.from_wildcard;
        // One diagnostic per line, however many names on it fail.
        let mut problems = Vec::new();
        for word in words.text.split_whitespace() {
            if let Some(defs) = &mut self.defs {
                defs.makefiles.push(word.to_owned());
            }
            let Some(path) = join(&self.cwd, word) else {
                problems.push(format!(
                    "included file `{word}` is outside the repository; not read"
                ));
                continue;
            };
            if is_glob(&path) {
                match self.glob(&path) {
                    Some(found) => {
                        for found in found {
                            self.include_file(&found, file.path, line);
                        }
                    }
                    None => problems.push(format!("include pattern `{word}` matches no file")),
                }
            } else if self.files.exists(&path) {
                self.include_file(&path, file.path, line);
            } else {
                problems.push(format!("included file `{path}` does not exist"));
            }
        }
        if let (false, Some(first)) = (optional, problems.first()) {
            let message = match problems.len() - 1 {
                0 => first.clone(),
                more => format!("{first} (and {more} more on this line)"),
            };
            self.out.diag(file.path, Some(line), message);
        }
    }

    /// The files matching a pattern in its last path component, sorted; `None` when none
    /// match. make expands such patterns in `include` lines itself.
    fn glob(&self, pattern: &str) -> Option<Vec<String>> {
        let dir = parent(pattern);
        let mut found: Vec<String> = glob::entries(self.files, pattern)
            .into_iter()
            .filter_map(|entry| join(dir, &entry))
            .filter(|path| self.files.exists(path))
            .collect();
        found.sort();
        (!found.is_empty()).then_some(found)
    }

    fn include_file(&mut self, path: &str, from: &str, line: u32) {
        if self.chain.iter().any(|p| p == path) {
            self.out.diag(
                from,
                Some(line),
                format!("include cycle: `{path}` is already being read"),
            );
            return;
        }
        if !self.visited.insert(path.to_owned()) {
            return; // read once already; its targets are listed
        }
        if self.chain.len() > MAX_INCLUDE_DEPTH || self.visited.len() > MAX_INCLUDED_FILES {
            if !self.include_limit_hit {
                self.include_limit_hit = true;
                self.out.diag(
                    from,
                    Some(line),
                    format!(
                        "too many included files (over {MAX_INCLUDED_FILES}, or nested over \
                         {MAX_INCLUDE_DEPTH} deep); `{path}` and any further ones not read"
                    ),
                );
            }
            return;
        }
        let text = match self.files.read(path) {
            Ok(text) => text,
            Err(why) => {
                self.out.diag(
                    from,
                    Some(line),
                    format!("cannot read included file `{path}`: {why}"),
                );
                return;
            }
        };
        // A Makefile included from elsewhere is still listed in its own directory.
        if candidate(path).is_none() {
            self.out.consumed.push(path.to_owned());
        }
        self.chain.push(path.to_owned());
        // Services of a monorepo include the same fragment: parsed once for all of them.
        let prepared = shared_parse(self.files, path, &text, || Prepared::of(&text));
        self.read_prepared(path, &text, &prepared);
        self.chain.pop();
    }
}

/// Text up to the first unescaped `#`, which starts a comment in make directives.
fn strip_comment(text: &str) -> &str {
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        match c {
            '\\' => escaped = !escaped,
            '#' if !escaped => return text.get(..i).unwrap_or(text),
            _ => escaped = false,
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::MemFiles;
    use crate::make::tests::{names, one, run};
    use indoc::indoc;

    #[test]
    fn comments_end_include_lines() {
        assert_eq!(strip_comment("a.mk b.mk # c"), "a.mk b.mk ");
        assert_eq!(strip_comment("a\\#b.mk"), "a\\#b.mk");
    }

    #[test]
    fn include_problems_are_reported_on_their_line() {
        let files = MemFiles::new()
            .with(
                "Makefile",
                indoc! {"
                    include missing.mk
                    -include optional.mk
                    sinclude also-optional.mk
                    include $(shell ./configure)
                    -include $(DEPS)
                    include ../outside.mk
                    include loop.mk a.mk a.mk
                    ok:
                    \ttrue
                "},
            )
            .with("loop.mk", "include Makefile\nfrom-loop:\n")
            .with("a.mk", "from-a:\n");
        let parsed = run(&files, "Makefile");
        assert_eq!(names(&parsed), ["from-loop", "from-a", "ok"]);
        let found: Vec<(&str, Option<u32>)> = parsed
            .diagnostics
            .iter()
            .map(|d| (d.file_path.as_str(), d.line))
            .collect();
        assert_eq!(
            found,
            [
                ("Makefile", Some(1)),
                ("Makefile", Some(4)),
                ("Makefile", Some(6)),
                ("loop.mk", Some(1)),
            ]
        );
        assert!(parsed.diagnostics[0].message.contains("missing.mk"));
        assert!(parsed.diagnostics[3].message.contains("cycle"));
        assert_eq!(parsed.consumed, ["loop.mk", "a.mk"]);
    }

    #[test]
    fn include_limits_and_many_missing_names() {
        let mut files = MemFiles::new().with("Makefile", "include d0.mk\nmissing: ; true\n");
        for i in 0..40 {
            files = files.with(
                &format!("d{i}.mk"),
                &format!("t{i}:\ninclude d{}.mk\n", i + 1),
            );
        }
        let parsed = run(&files, "Makefile");
        assert_eq!(
            parsed.tasks.len(),
            MAX_INCLUDE_DEPTH + 1,
            "{:?}",
            names(&parsed)
        );
        assert_eq!(names(&parsed).last(), Some(&"missing"));
        assert_eq!(parsed.diagnostics.len(), 1, "{:?}", parsed.diagnostics);
        assert!(
            parsed.diagnostics[0]
                .message
                .contains("too many included files")
        );

        let parsed = one("NAMES := a b c d\ninclude $(NAMES)\n");
        assert_eq!(parsed.diagnostics.len(), 1);
        assert_eq!(
            parsed.diagnostics[0].message,
            "included file `a` does not exist (and 3 more on this line)"
        );
    }

    #[test]
    fn include_globs_and_wildcard() {
        let files = MemFiles::new()
            .with(
                "Makefile",
                indoc! {"
                    include mk/*.mk
                    include $(wildcard extra/*.mk)
                    include none/*.mk
                "},
            )
            .with("mk/b.mk", "b:\n")
            .with("mk/a.mk", "a:\n")
            .with("mk/.hidden.mk", "hidden:\n")
            .with("mk/readme.txt", "")
            .with("extra/x.mk", "x:\n");
        let parsed = run(&files, "Makefile");
        assert_eq!(names(&parsed), ["a", "b", "x"]);
        assert_eq!(parsed.diagnostics.len(), 1);
        assert_eq!(parsed.diagnostics[0].line, Some(3));
    }

    #[test]
    fn curdir_in_an_include_is_makes_working_directory() {
        let files = MemFiles::new()
            .with(
                "images/base/Makefile",
                indoc! {"
                    include $(CURDIR)/../Makefile.common.in
                    build:
                    \ttrue
                "},
            )
            .with(
                "images/Makefile.common.in",
                indoc! {"
                    push:
                    \ttrue
                "},
            );
        let parsed = run(&files, "images/base/Makefile");
        assert_eq!(names(&parsed), ["push", "build"]);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    }
}
