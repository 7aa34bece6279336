//! A linear pre-pass that keeps pathological lines away from makefile-lossless.
//!
//! makefile-lossless 0.4.8 looks ahead over the rest of a logical line at every token it
//! cannot place, re-lexes a logical line per continuation line in some error paths, scans
//! the rest of the file for `.RECIPEPREFIX` at every tab-indented line outside a rule, and
//! recurses once per nested `$(`. Ordinary Makefiles never trip these, but a crafted or
//! generated one could hang agg or overflow its stack. Lines that would are blanked (byte
//! offsets and line numbers kept) and reported instead.

/// Bytes a non-recipe line may run before its first `:` or `=`.
const MAX_HEAD: usize = 512;
/// Parentheses and braces one logical line may nest.
const MAX_PARENS: usize = 64;
/// Bytes the parser may rescan for tab-indented lines outside rules (about a tenth of a
/// second); a normal Makefile uses a tiny fraction of it.
const INDENT_SCAN_BUDGET: usize = 1 << 30;

/// Why a line was blanked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reason {
    /// Longer than [`MAX_HEAD`] bytes without a rule target or variable name before its
    /// first `:` or `=` in that span.
    LongWithoutOperator,
    /// More than [`MAX_PARENS`] nested parentheses or braces.
    DeeplyNested,
    /// One tab-indented line outside a rule too many for this file's size.
    IndentedOutsideRules,
    /// No `:` or `=` and no directive: make itself rejects it ("missing separator"), and
    /// runs of such lines with continuations send the parser into quadratic error recovery.
    NoSeparator,
    /// More `(` than `)`: make stops at it ("unterminated variable reference").
    UnclosedParen,
}

/// make's message for a line it cannot read as anything.
pub(super) const MISSING_SEPARATOR: &str = "*** missing separator.  Stop.";

impl Reason {
    /// make's own message when make itself stops at such a line (`None`: make reads it,
    /// and only agg skips it).
    pub(super) fn make_stops(self) -> Option<&'static str> {
        match self {
            Reason::NoSeparator => Some(MISSING_SEPARATOR),
            Reason::UnclosedParen => Some("*** unterminated variable reference.  Stop."),
            _ => None,
        }
    }

    pub(super) fn message(self) -> String {
        match self {
            Reason::LongWithoutOperator => format!(
                "line skipped: it runs over {MAX_HEAD} bytes without a target or variable \
                 name followed by `:` or `=`"
            ),
            Reason::DeeplyNested => {
                format!("line skipped: parentheses nested more than {MAX_PARENS} deep")
            }
            Reason::UnclosedParen => {
                "line skipped: unclosed parenthesis (make stops here: unterminated reference)"
                    .to_owned()
            }
            Reason::NoSeparator => {
                "line skipped: missing separator (not a rule, a variable or a directive)".to_owned()
            }
            Reason::IndentedOutsideRules => {
                "line skipped: too many tab-indented lines outside rules in a file this large"
                    .to_owned()
            }
        }
    }
}

/// What the pre-pass makes of one file.
#[derive(Debug, Default)]
pub(super) struct Guarded {
    /// The text with pathological lines blanked (`None`: the original is fine). Names and
    /// recipes are sliced from it.
    pub text: Option<String>,
    /// What the parser reads: [`Guarded::text`] with the body of every recipe line hollowed
    /// out as well (`None`: the original is fine; a blanked line is blanked here too).
    /// Offsets and line numbers are those of the original, so the parser's ranges slice
    /// `text`.
    pub parse_text: Option<String>,
    /// The 1-based first line of every blanked logical line, and why.
    pub skipped: Vec<(u32, Reason)>,
}

impl Guarded {
    /// The text to slice, given the original.
    pub fn text<'a>(&'a self, original: &'a str) -> &'a str {
        self.text.as_deref().unwrap_or(original)
    }

    /// The text to parse, given the original.
    pub fn parse_text<'a>(&'a self, original: &'a str) -> &'a str {
        self.parse_text.as_deref().unwrap_or(original)
    }
}

/// Runs the pre-pass over one file.
///
/// Besides blanking pathological lines, it hollows out recipe lines for the parser: their
/// text is sliced from the file, never read from the tree, yet the parser spends most of
/// its time in them (it builds a node per variable reference in every recipe). Each keeps
/// its indentation, its first character (so the parser still sees a recipe line), tabs,
/// backslashes (so continuations stay continuations) and line endings; everything else
/// becomes a space. A file that changes `.RECIPEPREFIX` is parsed as written.
pub(super) fn guard(text: &str) -> Guarded {
    let hollow_recipes = !text.contains(".RECIPEPREFIX");
    let mut kept = Rewrite::default();
    let mut parsed = Rewrite::default();
    let mut skipped = Vec::new();
    let mut line_no = 1u32;
    let mut start = 0;
    let mut state = State::default();
    while start < text.len() {
        let (end, physical) = logical_line_end(text, start);
        let line = text.get(start..end).unwrap_or("");
        if let Some(reason) = state.check(line, text.len() - start) {
            skipped.push((line_no, reason));
            // Keep the newlines so every later offset and line number stays the same.
            let blank = || line.bytes().map(|b| if b == b'\n' { '\n' } else { ' ' });
            kept.replace(text, start, end, blank());
            parsed.replace(text, start, end, blank());
        } else if hollow_recipes && state.in_rule && line.starts_with('\t') {
            parsed.replace(text, start, end, hollowed(line));
        } else if !state.in_rule && is_indented_expression(line) {
            // `\t$(error …)` outside a rule is a statement to make, which skips the
            // indentation there; makefile-lossless reads it as a stray recipe line.
            parsed.replace(text, start, end, untabbed(line));
        }
        line_no = line_no.saturating_add(physical);
        start = end + 1;
    }
    Guarded {
        text: kept.finish(text),
        parse_text: parsed.finish(text),
        skipped,
    }
}

/// A copy of a text with some spans replaced, made only once a span is.
#[derive(Debug, Default)]
struct Rewrite {
    buf: Option<String>,
    /// Bytes of the original already copied into `buf`.
    copied: usize,
}

impl Rewrite {
    /// Replaces `text[start..end]` (after everything replaced so far) with `with`, which
    /// must be as long in bytes.
    fn replace(&mut self, text: &str, start: usize, end: usize, with: impl Iterator<Item = char>) {
        let buf = self
            .buf
            .get_or_insert_with(|| String::with_capacity(text.len()));
        buf.push_str(text.get(self.copied..start).unwrap_or(""));
        buf.extend(with);
        self.copied = end;
    }

    fn finish(mut self, text: &str) -> Option<String> {
        let mut buf = self.buf.take()?;
        buf.push_str(text.get(self.copied..).unwrap_or(""));
        Some(buf)
    }
}

/// Whether a tab-indented line holds only references (`\t$(error …)`, `\t$(info …)`).
fn is_indented_expression(line: &str) -> bool {
    line.starts_with('\t') && line.trim_start_matches([' ', '\t']).starts_with('$')
}

/// A line with its leading tabs turned into spaces.
fn untabbed(line: &str) -> impl Iterator<Item = char> + '_ {
    let indent = line.len() - line.trim_start_matches([' ', '\t']).len();
    line.char_indices()
        .map(move |(i, c)| if i < indent { ' ' } else { c })
}

/// A recipe line as the parser needs to see it: every byte a space except the leading
/// indentation, the first other character, tabs, backslashes and line endings.
fn hollowed(line: &str) -> impl Iterator<Item = char> + '_ {
    let body = line.len() - line.trim_start_matches([' ', '\t']).len();
    line.char_indices().flat_map(move |(i, c)| {
        let keep = i <= body || matches!(c, '\\' | '\t' | '\n' | '\r');
        let (c, n) = if keep { (c, 1) } else { (' ', c.len_utf8()) };
        std::iter::repeat_n(c, n)
    })
}

/// What the pre-pass tracks between lines, approximating make's own reading.
#[derive(Debug, Default)]
struct State {
    /// After a rule line, tab-indented lines are its recipe.
    in_rule: bool,
    /// Inside `define … endef`, lines are a variable's text, not parsed.
    define_depth: usize,
    /// Bytes the parser will rescan for tab-indented lines outside rules.
    indent_scan: usize,
}

impl State {
    /// Whether to blank `line`, whose start is `rest` bytes from the end of the text.
    fn check(&mut self, line: &str, rest: usize) -> Option<Reason> {
        let word = first_word(line);
        // With a custom `.RECIPEPREFIX`, a rule's recipe lines need not start with a tab.
        let after_rule = self.in_rule;
        if self.define_depth > 0 {
            match word {
                "endef" => self.define_depth -= 1,
                "define" => self.define_depth += 1,
                _ => {}
            }
            return too_deep(line).then_some(Reason::DeeplyNested);
        }
        if line.starts_with('\t') {
            if !self.in_rule {
                self.indent_scan = self.indent_scan.saturating_add(rest);
                if self.indent_scan > INDENT_SCAN_BUDGET {
                    return Some(Reason::IndentedOutsideRules);
                }
            }
            return too_deep(line).then_some(Reason::DeeplyNested);
        }
        let code = line.trim_start_matches(' ');
        if code.is_empty() || code.starts_with('#') {
            return None;
        }
        if matches!(
            word,
            "ifeq" | "ifneq" | "ifdef" | "ifndef" | "else" | "endif"
        ) {
            // Conditionals inside a recipe keep it going.
            if too_deep(line) {
                return Some(Reason::DeeplyNested);
            }
            return (line.len() > MAX_HEAD).then_some(Reason::LongWithoutOperator);
        }
        self.in_rule = false;
        if word == "define" || defines_after_modifiers(code) {
            self.define_depth += 1;
        }
        if line.len() > MAX_HEAD && !named_operator_within(line, MAX_HEAD) {
            return Some(Reason::LongWithoutOperator);
        }
        if too_deep(line) {
            return Some(Reason::DeeplyNested);
        }
        if unbalanced_open(code) {
            return Some(Reason::UnclosedParen);
        }
        if !after_rule
            && !code.contains([':', '='])
            && !code.starts_with('$')
            && !matches!(
                word,
                "include"
                    | "-include"
                    | "sinclude"
                    | "export"
                    | "unexport"
                    | "override"
                    | "vpath"
                    | "undefine"
                    | "private"
                    | "load"
                    | "-load"
                    | "define"
                    | "endef"
            )
        {
            return Some(Reason::NoSeparator);
        }
        self.in_rule = is_rule_line(line);
        None
    }
}

/// Whether a line opens more parentheses than it closes (outside comments): make rejects
/// it, and makefile-lossless searches the rest of the file for the closing one, once per
/// such line. As in make, `\#` is a literal `#` and a `#` inside a reference
/// (`$(shell … '#' …)`) starts no comment.
fn unbalanced_open(code: &str) -> bool {
    let mut depth = 0i64;
    let mut bytes = code.bytes().peekable();
    while let Some(b) = bytes.next() {
        match b {
            b'\\' if bytes.peek() == Some(&b'#') => {
                bytes.next();
            }
            b'#' if depth <= 0 => break,
            b'(' => depth += 1,
            b')' => depth -= 1,
            _ => {}
        }
    }
    depth > 0
}

/// The first word of a line, as make directives are recognised.
fn first_word(line: &str) -> &str {
    let code = line.trim_start_matches([' ', '\t']);
    let end = code
        .find(|c: char| c.is_whitespace() || c == '(' || c == '#')
        .unwrap_or(code.len());
    code.get(..end).unwrap_or("")
}

/// `export define X`, `override define X` and the like.
fn defines_after_modifiers(code: &str) -> bool {
    let mut words = code.split_whitespace();
    let mut word = words.next();
    while matches!(word, Some("export" | "override" | "private")) {
        word = words.next();
    }
    word == Some("define") && !code.starts_with("define")
}

/// Whether a `:` or `=` comes within `limit` bytes with something other than blanks and
/// line continuations before it: a rule target or variable name.
fn named_operator_within(line: &str, limit: usize) -> bool {
    let head = line.as_bytes().get(..=limit).unwrap_or(line.as_bytes());
    let Some(op) = head.iter().position(|&b| b == b':' || b == b'=') else {
        return false;
    };
    head.get(..op)
        .is_some_and(|name| name.iter().any(|b| !b" \t\r\n\\".contains(b)))
}

/// Whether a logical line (not a recipe) is a rule: its first `:` outside references comes
/// before any `=`, is not part of `:=` or `::=`, and is not followed by an assignment
/// (`target: VAR = value` sets a variable and starts no recipe).
fn is_rule_line(line: &str) -> bool {
    let mut colon = None;
    let mut depth = 0usize;
    for (i, b) in line.bytes().enumerate() {
        match b {
            b'(' | b'{' => depth += 1,
            b')' | b'}' => depth = depth.saturating_sub(1),
            b'#' | b';' if depth == 0 => break,
            b'=' if depth == 0 => return false,
            b':' if depth == 0 && colon.is_none() => {
                let after = line.as_bytes().get(i + 1..).unwrap_or_default();
                if after.starts_with(b"=") || after.starts_with(b":=") {
                    return false;
                }
                colon = Some(i);
            }
            _ => {}
        }
    }
    colon.is_some()
}

fn too_deep(line: &str) -> bool {
    let mut depth = 0usize;
    for b in line.bytes() {
        match b {
            b'(' | b'{' => {
                depth += 1;
                if depth > MAX_PARENS {
                    return true;
                }
            }
            b')' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// The end (exclusive, at the newline or the end of text) of the logical line starting at
/// `start`, joining lines that end in an odd number of backslashes, and how many physical
/// lines it spans.
fn logical_line_end(text: &str, start: usize) -> (usize, u32) {
    let bytes = text.as_bytes();
    let mut physical = 1u32;
    let mut from = start;
    loop {
        let Some(nl) = bytes
            .get(from..)
            .and_then(|rest| rest.iter().position(|&b| b == b'\n'))
            .map(|i| from + i)
        else {
            return (text.len(), physical);
        };
        let before = bytes.get(from..nl).unwrap_or_default();
        let before = before.strip_suffix(b"\r").unwrap_or(before);
        let backslashes = before.iter().rev().take_while(|&&b| b == b'\\').count();
        if backslashes % 2 == 0 {
            return (nl, physical);
        }
        physical = physical.saturating_add(1);
        from = nl + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use indoc::{formatdoc, indoc};

    /// The blanked text and what was skipped.
    fn blanked(text: &str) -> (Option<String>, Vec<(u32, Reason)>) {
        let guarded = guard(text);
        (guarded.text, guarded.skipped)
    }

    #[test]
    fn recipe_lines_are_hollowed_for_the_parser_only() {
        let text = concat!(
            "X = $(Y) # kept\n",
            "all: dep ## Build\n",
            "\t@echo $(X) \\\n",
            "\t  && büld\r\n",
            "\n",
            "\t  echo 'still the recipe'\n",
            "ifdef A\n",
            "\techo a\n",
            "endif\n",
            "B = 1\n",
            "\tC = 2\n",
        );
        let guarded = guard(text);
        assert_eq!(guarded.text, None, "nothing blanked");
        assert!(guarded.skipped.is_empty());
        let parse = guarded.parse_text.clone().expect("recipes hollowed");
        assert_eq!(parse.len(), text.len());
        let lines: Vec<&str> = parse.split('\n').collect();
        assert_eq!(lines[0], "X = $(Y) # kept");
        assert_eq!(lines[1], "all: dep ## Build");
        assert_eq!(lines[2], format!("\t@{}\\", " ".repeat(10)));
        assert_eq!(lines[3], format!("\t{}\r", " ".repeat(10)));
        assert_eq!(lines[5], format!("\t  e{}", " ".repeat(22)));
        assert_eq!(lines[7], format!("\te{}", " ".repeat(5)));
        assert_eq!(lines[8], "endif");
        // After an assignment, an indented line is not a recipe.
        assert_eq!(lines[10], "\tC = 2");
        assert_eq!(guarded.parse_text(text), parse);
        assert_eq!(guarded.text(text), text);
        // A custom recipe prefix is left to the parser.
        let custom = indoc! {"
            .RECIPEPREFIX = >
            all:
            \techo
        "};
        assert!(guard(custom).parse_text.is_none());
    }

    #[test]
    fn ordinary_makefiles_pass_untouched() {
        let text = concat!(
            "OBJS = $(patsubst %.c,%.o,$(wildcard src/*.c)) \\\n",
            "  extra.o\n",
            "all: $(OBJS) ## Build\n",
            "\t$(CC) -o app $(OBJS) $(foreach d,$(DIRS),-I$(d))\n",
            "# a comment with ) ) ) ( (\n",
        );
        assert_eq!(blanked(text), (None, vec![]));
        let long_rule = format!("all: {}\n", "dep ".repeat(10_000));
        assert_eq!(blanked(&long_rule), (None, vec![]));
        let long_recipe = formatdoc! {"
            all:
            \techo {}
        ", ") ".repeat(10_000)};
        assert_eq!(blanked(&long_recipe), (None, vec![]));
    }

    #[test]
    fn long_lines_without_an_operator_are_blanked_in_place() {
        let garbage = ") é ".repeat(1_000);
        let text = format!("a:\n{garbage}\\\n  more\r\nb: c\n");
        let (out, skipped) = blanked(&text);
        let out = out.unwrap();
        assert_eq!(out.len(), text.len());
        assert_eq!(skipped, [(2, Reason::LongWithoutOperator)]);
        let lines: Vec<&str> = out.split('\n').collect();
        assert_eq!(lines[0], "a:");
        assert!(lines[1].trim().is_empty());
        assert!(lines[2].trim().is_empty());
        assert_eq!(lines[3], "b: c");
    }

    #[test]
    fn deep_nesting_is_blanked_even_in_recipes() {
        let deep = "$(".repeat(100);
        let text = formatdoc! {"
            x: {deep}
            ok:
            \techo {deep}
        "};
        let (out, skipped) = blanked(&text);
        assert_eq!(
            skipped,
            [(1, Reason::DeeplyNested), (3, Reason::DeeplyNested)]
        );
        assert!(out.unwrap().contains("ok:\n"));
    }

    #[test]
    fn lines_without_a_name_before_the_operator_are_blanked_when_long() {
        let text = format!("ifdef A\n:\\\n{}\nok:\n", " :\\\n".repeat(300));
        let (out, skipped) = blanked(&text);
        assert_eq!(skipped, [(2, Reason::LongWithoutOperator)]);
        assert!(out.unwrap().ends_with("ok:\n"));
    }

    #[test]
    fn indented_lines_outside_rules_are_budgeted() {
        // Recipes and indented assignments in conditionals are fine in normal files.
        let text = indoc! {"
            ifdef A
            \tCFLAGS += -O2
            endif
            all:
            \techo
            ifdef B
            \techo b
            endif
        "};
        assert_eq!(blanked(text), (None, vec![]));
        let mut state = State::default();
        assert_eq!(state.check("\tX = 1", INDENT_SCAN_BUDGET), None);
        assert_eq!(
            state.check("\tX = 1", 10),
            Some(Reason::IndentedOutsideRules)
        );
        state.check("all:", 10);
        assert_eq!(state.check("\techo", INDENT_SCAN_BUDGET), None);
    }

    #[test]
    fn define_bodies_are_not_checked_for_length() {
        let body = ") ".repeat(1_000);
        let text = formatdoc! {"
            define T
            {body}
            endef
            export define U
            {body}
            endef
        "};
        assert_eq!(blanked(&text), (None, vec![]));
        assert!(is_rule_line("$(X:a=b): c"));
        assert!(!is_rule_line("X := a"));
        assert!(!is_rule_line("X = a:b"));
        assert!(!is_rule_line("X ::= a"));
        assert!(!is_rule_line("debug: CFLAGS += -g"));
        assert!(is_rule_line("a: b ; x=1"));
        assert!(is_rule_line("a:: b # x=1"));
    }

    #[test]
    fn continuation_chains_count_as_one_line() {
        let text = format!("{}: x\nnext:\n", "\\\n".repeat(600));
        let (out, skipped) = blanked(&text);
        assert_eq!(skipped, [(1, Reason::LongWithoutOperator)]);
        assert!(out.unwrap().ends_with("next:\n"));
        assert_eq!(logical_line_end("a\\\\\nb", 0), (3, 1));
    }
}
