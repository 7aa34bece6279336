//! The text around rules: syntax messages, listable names, comments and `## target:` help
//! lines, recipe lines and continuations.

use makefile_lossless::{
    Conditional, ConditionalBranch, ConditionalItem, ErrorInfo, MakefileItem, ParseErrorKind,
    TextRange,
};

use super::MAX_NESTING;
use crate::text::{LineIndex, is_divider};

pub(super) fn syntax_message(error: &ErrorInfo) -> String {
    match error.kind() {
        // GNU make's own words for it, with the usual cause.
        ParseErrorKind::MissingSeparator => "make syntax error: missing separator (recipe lines \
                                             start with a tab; other lines need `:` or `=`)"
            .to_owned(),
        _ => format!("make syntax error: {}", error.message),
    }
}

/// Whether a target name is something a person would run: not a special target (`.PHONY`,
/// `.c.o` suffix rules), not a pattern, not left with unexpanded references. A name that
/// merely starts with a dot (`.stamp`, `.make-prerequisites`, `.git/hooks/pre-commit`) is a
/// file target like any other: make lists it and runs it.
pub(super) fn listable(name: &str) -> bool {
    !name.is_empty() && !is_special(name) && !name.contains(['%', '$'])
}

/// make's special targets, which configure make rather than name something to build.
const SPECIAL_TARGETS: [&str; 18] = [
    ".PHONY",
    ".SUFFIXES",
    ".DEFAULT",
    ".PRECIOUS",
    ".INTERMEDIATE",
    ".NOTINTERMEDIATE",
    ".SECONDARY",
    ".SECONDEXPANSION",
    ".DELETE_ON_ERROR",
    ".IGNORE",
    ".LOW_RESOLUTION_TIME",
    ".SILENT",
    ".EXPORT_ALL_VARIABLES",
    ".NOTPARALLEL",
    ".ONESHELL",
    ".POSIX",
    ".WAIT",
    ".MAKE",
];

/// The suffixes make knows before a Makefile adds any (`make -p`'s `.SUFFIXES`): a target
/// made of one or two of them (`.c.o`, `.c`) is an old-style suffix rule, not a file.
const DEFAULT_SUFFIXES: [&str; 37] = [
    "out", "a", "ln", "o", "c", "cc", "C", "cpp", "p", "f", "F", "m", "r", "y", "l", "ym", "yl",
    "s", "S", "mod", "sym", "def", "h", "info", "dvi", "tex", "texinfo", "texi", "txinfo", "w",
    "ch", "web", "sh", "elc", "el", "cxx", "cp",
];

/// Whether `name` is one of make's special targets or a suffix rule (`.c.o`): something that
/// configures make, never run by name.
pub(super) fn is_special(name: &str) -> bool {
    if SPECIAL_TARGETS.contains(&name) {
        return true;
    }
    let Some(suffixes) = name.strip_prefix('.') else {
        return false;
    };
    let parts: Vec<&str> = suffixes.split('.').collect();
    parts.len() <= 2 && parts.iter().all(|p| DEFAULT_SUFFIXES.contains(p))
}

/// The items of one branch of a conditional, lazily.
pub(super) fn branch_items(
    branch: &ConditionalBranch,
) -> impl Iterator<Item = MakefileItem> + use<> {
    branch.items().filter_map(|item| match item {
        ConditionalItem::Item(item) => Some(item),
        _ => None,
    })
}

/// Recipe lines of a rule inside a conditional in its body, from every branch.
pub(super) fn conditional_recipes(
    cond: &Conditional,
    file: &FileText<'_>,
    prefix: char,
    out: &mut Vec<String>,
    depth: usize,
) {
    if depth > MAX_NESTING {
        return;
    }
    for branch in cond.branches() {
        for item in branch.items() {
            match item {
                ConditionalItem::Recipe(line) => {
                    push_recipe(out, file.slice(line.text_range()), prefix);
                }
                ConditionalItem::Item(MakefileItem::Conditional(inner)) => {
                    conditional_recipes(&inner, file, prefix, out, depth + 1);
                }
                _ => {}
            }
        }
    }
}

/// Adds one recipe line as the shell gets it: without the recipe prefix (or the `;` of an
/// inline recipe), with the prefix also removed from continuation lines as make does.
pub(super) fn push_recipe(out: &mut Vec<String>, raw: &str, prefix: char) {
    let raw = raw.strip_suffix('\n').unwrap_or(raw);
    let raw = raw.strip_suffix('\r').unwrap_or(raw);
    let body = match raw.strip_prefix(';') {
        Some(inline) => inline.trim_start(),
        None => raw.strip_prefix(prefix).unwrap_or(raw),
    };
    let mut text = String::with_capacity(body.len());
    for (i, line) in body.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if i > 0 {
            text.push('\n');
            text.push_str(line.strip_prefix(prefix).unwrap_or(line));
        } else {
            text.push_str(line);
        }
    }
    if !text.trim().is_empty() {
        out.push(text);
    }
}

/// The `## text` comment on a rule line, given the text after the targets. make reads the
/// first unescaped `#` outside variable references as a comment, unless a `;` (an inline
/// recipe, which goes to the shell as is) comes first.
pub(super) fn line_doc(rest: &str) -> Option<String> {
    let mut depth = 0usize;
    let mut chars = rest.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' => {
                // An escaped character, or a line continuation: the header goes on.
                chars.next();
            }
            '\n' => return None,
            '$' if matches!(chars.peek(), Some((_, '(' | '{'))) => {
                chars.next();
                depth += 1;
            }
            ')' | '}' if depth > 0 => depth -= 1,
            ';' if depth == 0 => return None,
            '#' if depth == 0 => {
                let comment = rest.get(i + 1..)?;
                let comment = comment.split('\n').next().unwrap_or(comment);
                let text = comment.strip_prefix('#')?.trim_start_matches('#').trim();
                return (!text.is_empty()).then(|| text.to_owned());
            }
            _ => {}
        }
    }
    None
}

/// The text of one comment line without its `#`s and the space after them; `None` for
/// empty lines, rulers such as `#######` or `# -----`, and section banners such as
/// `# ===== Testing =====`.
pub(super) fn comment_text(line: &str) -> Option<&str> {
    let text = line.trim_start_matches('#');
    let text = text.strip_prefix(' ').unwrap_or(text).trim_end();
    (!is_divider(text)).then_some(text)
}

/// A description without the `target:` its comment starts with (`# build: Builds it`).
pub(super) fn strip_target_prefix<'d>(doc: &'d str, target: &str) -> &'d str {
    doc.strip_prefix(target)
        .and_then(|rest| rest.strip_prefix(':'))
        .map(str::trim)
        .filter(|rest| !rest.is_empty())
        .unwrap_or(doc)
}

/// `## target: text` help lines (the `make help` convention, read with `awk '/^## /'` or
/// `sed -n 's/^## //p'`): target name and text, for every such line of a file.
pub(super) fn help_lines(text: &str) -> impl Iterator<Item = (&str, &str)> {
    text.lines().filter_map(|line| {
        let rest = line
            .strip_prefix("##")?
            .trim_start_matches('#')
            .trim_start();
        let (name, text) = rest.split_once(':')?;
        let text = text.trim();
        let valid = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-./+".contains(c));
        (valid && !text.is_empty()).then_some((name, text))
    })
}

pub(super) fn is_phony_line(line: &str) -> bool {
    line.strip_prefix(".PHONY")
        .is_some_and(|rest| rest.trim_start().starts_with(':'))
}

/// Joins backslash-continued lines with a space, as make does outside recipes.
pub(super) fn join_continuations(text: &str) -> String {
    if !text.contains('\\') {
        return text.to_owned();
    }
    text.replace("\\\r\n", " ").replace("\\\n", " ")
}

/// Lines joined with newlines, stopping with a `…` line once `max` bytes are reached, so a
/// huge recipe shared by many targets is not copied whole for each.
pub(super) fn bounded_lines<'a>(lines: impl Iterator<Item = &'a str>, max: usize) -> String {
    let mut out = String::new();
    for line in lines {
        let sep = usize::from(!out.is_empty());
        if out.len() + sep + line.len() > max {
            if sep == 1 {
                out.push('\n');
            }
            // As much of this line as fits, cut at a character boundary.
            let mut room = max.saturating_sub(out.len());
            while !line.is_char_boundary(room) {
                room -= 1;
            }
            out.push_str(line.get(..room).unwrap_or_default());
            out.push('…');
            break;
        }
        if sep == 1 {
            out.push('\n');
        }
        out.push_str(line);
    }
    out
}

/// One file's text with the helpers to turn tree ranges into text and lines.
pub(super) struct FileText<'t> {
    pub(super) path: &'t str,
    pub(super) text: &'t str,
    pub(super) index: LineIndex,
    /// Physical lines without their line endings.
    pub(super) lines: Vec<&'t str>,
}

impl<'t> FileText<'t> {
    pub(super) fn new(path: &'t str, text: &'t str) -> FileText<'t> {
        FileText {
            path,
            text,
            index: LineIndex::new(text),
            lines: text
                .split('\n')
                .map(|l| l.strip_suffix('\r').unwrap_or(l))
                .collect(),
        }
    }

    pub(super) fn slice(&self, range: TextRange) -> &'t str {
        self.text
            .get(usize::from(range.start())..usize::from(range.end()))
            .unwrap_or("")
    }

    pub(super) fn line(&self, offset: usize) -> u32 {
        self.index.line(offset)
    }

    /// The `#` comment block directly above 1-based line `line`: contiguous comment lines,
    /// ending at a blank line or anything else. A `.PHONY:` line between the block and the
    /// rule is skipped, since declaring the target phony right above it is common.
    pub(super) fn doc_above(&self, line: u32) -> Option<String> {
        let mut i = usize::try_from(line).ok()?.checked_sub(1)?;
        let mut block = Vec::new();
        while let Some(prev) = i.checked_sub(1) {
            i = prev;
            let text = self.lines.get(i)?.trim_start_matches(' ');
            if text.starts_with('#') {
                block.push(text);
            } else if !(block.is_empty() && is_phony_line(text)) {
                break;
            }
        }
        let words: Vec<&str> = block.iter().rev().filter_map(|l| comment_text(l)).collect();
        (!words.is_empty()).then(|| words.join(" "))
    }
}
