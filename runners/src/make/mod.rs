//! GNU make: the explicit targets of `GNUmakefile`, `makefile` or `Makefile` (whichever make
//! itself would read), including the files they `include`.
//!
//! makefile-lossless gives the structure (rules, assignments, includes, conditionals) and byte
//! ranges, read through an immutable view of its tree (in the mutable one its accessors are
//! quadratic on very long logical lines). Names and recipe lines are sliced from the source
//! text rather than rebuilt by the crate's string accessors; recipe bodies are hollowed out
//! before parsing, since only their text is needed; lines that would make the parser itself
//! hang are blanked first ([`guard`]). Conditionals are evaluated with the variables the
//! Makefile defined so far (undefined is empty, as in make; the environment is not read);
//! one whose value cannot be known takes every branch that might be read.

mod expand;
mod guard;
mod include;

use std::collections::{HashMap, HashSet};

use makefile_lossless::{
    Conditional, ConditionalBranch, ConditionalItem, ConditionalKind, ErrorInfo, Makefile,
    MakefileItem, ParseErrorKind, Rule, TextRange, VariableDefinition,
};
use rowan::ast::AstNode;

use crate::{Adapter, file_name};
use crate::{Files, LineIndex, Parsed, RawTask, Runner, Source, parent};
use expand::Vars;

/// The make adapter.
pub const ADAPTER: Adapter = Adapter {
    name: "make",
    candidate,
    one_per_dir: true,
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
    let mut reader = Reader {
        files: src.files,
        cwd: parent(src.path).to_owned(),
        vars: Vars::new(),
        rules: Vec::new(),
        out: Parsed::default(),
        chain: vec![src.path.to_owned()],
        visited: HashSet::from([src.path.to_owned()]),
        include_limit_hit: false,
        help: HashMap::new(),
    };
    reader.read_file(src.path, src.text);
    reader.finish(src.path)
}

/// One rule as read, before rules for the same target are merged.
struct RuleDef {
    /// Listable target names (variables expanded, special and pattern targets dropped).
    targets: Vec<String>,
    /// Normal prerequisites, variables expanded; unresolvable ones are dropped.
    prereqs: Vec<String>,
    /// Whether some prerequisites could not be expanded (`$(patsubst …)`): the rule is not
    /// an empty `FORCE:`-style target even though [`RuleDef::prereqs`] may be empty.
    unresolved_prereqs: bool,
    /// Whether every target as written is special (`.PHONY: …`), so its prerequisites do
    /// not count as uses of a target.
    special_only: bool,
    file_path: String,
    line: u32,
    /// The `## text` comment on the rule line.
    inline_doc: Option<String>,
    /// The comment block above the rule.
    doc_above: Option<String>,
    recipe: Vec<String>,
    double_colon: bool,
}

/// Reads one top-level Makefile and everything it includes.
struct Reader<'f> {
    files: &'f dyn Files,
    /// The top-level Makefile's directory: make runs there, so includes resolve from it and
    /// every target is invoked from it.
    cwd: String,
    vars: Vars,
    rules: Vec<RuleDef>,
    out: Parsed,
    /// The files being read, outermost first, to spot include cycles.
    chain: Vec<String>,
    /// Every file read so far; a file included twice is read once.
    visited: HashSet<String>,
    /// Whether the include limits were reported already.
    include_limit_hit: bool,
    /// Descriptions from `## target: text` help lines, first one per target.
    help: HashMap<String, String>,
}

/// One file's text with the helpers to turn tree ranges into text and lines.
struct FileText<'t> {
    path: &'t str,
    text: &'t str,
    index: LineIndex,
    /// Physical lines without their line endings.
    lines: Vec<&'t str>,
}

impl<'t> FileText<'t> {
    fn new(path: &'t str, text: &'t str) -> FileText<'t> {
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

    fn slice(&self, range: TextRange) -> &'t str {
        self.text
            .get(usize::from(range.start())..usize::from(range.end()))
            .unwrap_or("")
    }

    fn line(&self, offset: usize) -> u32 {
        self.index.line(offset)
    }

    /// The `#` comment block directly above 1-based line `line`: contiguous comment lines,
    /// ending at a blank line or anything else. A `.PHONY:` line between the block and the
    /// rule is skipped, since declaring the target phony right above it is common.
    fn doc_above(&self, line: u32) -> Option<String> {
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

impl Reader<'_> {
    fn read_file(&mut self, path: &str, text: &str) {
        let guarded = guard::guard(text);
        let parse = Makefile::parse(guarded.parse_text(text));
        self.problems(path, &guarded.skipped, parse.errors());
        let file = FileText::new(path, guarded.text(text));
        for (name, doc) in help_lines(file.text) {
            self.help
                .entry(name.to_owned())
                .or_insert_with(|| doc.to_owned());
        }
        // An immutable view of the tree: in the mutable one `parse.tree()` gives, creating a
        // node costs a step per sibling still alive, which makes accessors such as
        // `VariableDefinition::name` quadratic in a long continued line.
        let Some(tree) = Makefile::cast(rowan::SyntaxNode::new_root(parse.green().clone())) else {
            return;
        };
        // Items are pulled lazily and dropped once read.
        let mut stack: Vec<Box<dyn Iterator<Item = MakefileItem> + '_>> =
            vec![Box::new(tree.items())];
        while let Some(items) = stack.last_mut() {
            let Some(item) = items.next() else {
                stack.pop();
                continue;
            };
            // Items inside conditionals are read next, before what follows, so assignments
            // apply in file order.
            let mut nested = Vec::new();
            match item {
                MakefileItem::Rule(rule) => self.rule(&rule, &file, &mut nested),
                MakefileItem::Variable(var) => self.variable(&var),
                MakefileItem::Include(include) => self.include(&include, &file),
                MakefileItem::Conditional(cond) => nested.push(cond),
                _ => {}
            }
            if !nested.is_empty() && stack.len() < MAX_NESTING {
                // Branches are chosen now, with the variables defined so far, as make does.
                let branches: Vec<ConditionalBranch> = nested
                    .iter()
                    .flat_map(|cond| self.taken_branches(cond))
                    .collect();
                stack.push(Box::new(
                    branches.into_iter().flat_map(|b| branch_items(&b)),
                ));
            }
        }
    }

    /// Reports lines the guard skipped and the parser's syntax errors, in line order, the
    /// first few only: one broken construct often yields many errors.
    fn problems(&mut self, path: &str, skipped: &[(u32, guard::Reason)], errors: &[ErrorInfo]) {
        let mut all: Vec<(Option<u32>, String)> = skipped
            .iter()
            .map(|&(line, reason)| (Some(line), reason.message()))
            .chain(errors.iter().map(|e| {
                let line = u32::try_from(e.line).ok().filter(|&l| l > 0);
                (line, syntax_message(e))
            }))
            .collect();
        all.sort_by_key(|(line, _)| line.unwrap_or(u32::MAX));
        let more = all.len().saturating_sub(MAX_SYNTAX_DIAGNOSTICS);
        for (line, message) in all.into_iter().take(MAX_SYNTAX_DIAGNOSTICS) {
            self.out.diag(path, line, message);
        }
        if more > 0 {
            self.out
                .diag(path, None, format!("{more} more syntax problems not shown"));
        }
    }

    fn rule(&mut self, rule: &Rule, file: &FileText<'_>, nested: &mut Vec<Conditional>) {
        // The body holds recipe lines, possibly inside conditionals; other items in such a
        // conditional (assignments, further rules) are read as ordinary items.
        let prefix = self.recipe_prefix();
        let mut recipe = Vec::new();
        for item in rule.body_items() {
            match item {
                ConditionalItem::Recipe(line) => {
                    push_recipe(&mut recipe, file.slice(line.text_range()), prefix);
                }
                ConditionalItem::Item(MakefileItem::Conditional(cond)) => {
                    conditional_recipes(&cond, file, prefix, &mut recipe, 0);
                    nested.push(cond);
                }
                _ => {}
            }
        }
        // A line the parser could not read as a rule, or `target: VAR = value`, which sets a
        // variable for an existing target and defines no rule.
        let Some(operator) = rule.operator() else {
            return;
        };
        if rule.scoped_assignment().is_some() {
            return;
        }

        let start = usize::from(rule.text_range().start());
        let mut after_targets = start;
        let mut targets = Vec::new();
        let mut special_only = true;
        for range in rule.target_ranges() {
            after_targets = usize::from(range.end());
            let raw = file.slice(range);
            special_only &= raw.starts_with('.');
            if let Some(names) = self.vars.expand(raw) {
                targets.extend(
                    names
                        .split_whitespace()
                        .filter(|n| listable(n))
                        .map(str::to_owned),
                );
            }
        }
        let mut prereqs = Vec::new();
        let mut unresolved_prereqs = false;
        for range in rule.prerequisite_ranges() {
            if prereqs.len() >= MAX_PREREQS {
                break;
            }
            match self.vars.expand(file.slice(range)) {
                Some(names) => prereqs.extend(names.split_whitespace().map(str::to_owned)),
                None => unresolved_prereqs = true,
            }
        }
        prereqs.truncate(MAX_PREREQS);

        let line = file.line(start);
        let inline_doc = file.text.get(after_targets..).and_then(line_doc);
        let doc_above = if inline_doc.is_none() {
            file.doc_above(line)
        } else {
            None
        };
        self.rules.push(RuleDef {
            targets,
            prereqs,
            unresolved_prereqs,
            special_only,
            file_path: file.path.to_owned(),
            line,
            inline_doc,
            doc_above,
            recipe,
            double_colon: operator.is_double_colon(),
        });
    }

    /// The branches of `cond` make would read: the first whose condition holds, or the
    /// `else`. A condition whose value cannot be known statically (a function call, a
    /// variable set by `!=`, one of make's own variables) takes its branch and the later ones
    /// too, so nothing make might read is lost.
    fn taken_branches(&mut self, cond: &Conditional) -> Vec<ConditionalBranch> {
        let mut taken = Vec::new();
        for branch in cond.branches() {
            match self.holds(&branch) {
                Some(true) => {
                    taken.push(branch);
                    break;
                }
                Some(false) => {}
                None => taken.push(branch),
            }
        }
        taken
    }

    /// Whether a branch's condition holds; `None` when it cannot be known. A plain `else`
    /// always holds (it is reached only when no earlier branch did).
    fn holds(&mut self, branch: &ConditionalBranch) -> Option<bool> {
        if branch.is_else() {
            return Some(true);
        }
        match branch.conditional_kind()? {
            kind @ (ConditionalKind::Ifdef | ConditionalKind::Ifndef) => {
                let name = self.vars.expand_condition(&branch.condition()?)?;
                let defined = self.vars.is_defined(name.trim())?;
                Some(defined == (kind == ConditionalKind::Ifdef))
            }
            kind @ (ConditionalKind::Ifeq | ConditionalKind::Ifneq) => {
                let (a, b) = branch.ifeq_args()?;
                let a = self.vars.expand_condition(&a)?;
                let b = self.vars.expand_condition(&b)?;
                Some((a.trim() == b.trim()) == (kind == ConditionalKind::Ifeq))
            }
            _ => None,
        }
    }

    /// The character that starts recipe lines: a tab unless `.RECIPEPREFIX` says otherwise.
    fn recipe_prefix(&self) -> char {
        self.vars
            .raw(".RECIPEPREFIX")
            .and_then(|v| v.chars().next())
            .unwrap_or('\t')
    }

    fn variable(&mut self, var: &VariableDefinition) {
        let Some(name) = var.name() else {
            return;
        };
        if var.is_undefine() {
            self.vars.undefine(&name);
            return;
        }
        // A computed name (`$(X)_FLAGS = …`) sets a variable we cannot name.
        if name.contains(['$', ' ', '\t']) {
            return;
        }
        if var.is_define() {
            self.vars.unknown(&name);
            return;
        }
        // `export FOO` with no value changes nothing we read.
        let Some(op) = var.assignment_operator() else {
            return;
        };
        let value = var.raw_value().unwrap_or_default();
        self.vars.assign(&name, &op, &join_continuations(&value));
    }

    /// Merges rules per target and turns them into tasks.
    fn finish(mut self, top: &str) -> Parsed {
        if self.vars.exhausted {
            self.out.diag(
                top,
                None,
                "too many variable expansions; some targets named with variables are not listed",
            );
        }
        // Prerequisites of real rules (not `.PHONY:` and friends), to spot `FORCE:`-style
        // empty targets that only exist to be depended on.
        let used: HashSet<&str> = self
            .rules
            .iter()
            .filter(|r| !r.special_only)
            .flat_map(|r| r.prereqs.iter().map(String::as_str))
            .collect();

        let mut order: Vec<Target<'_>> = Vec::new();
        let mut index: HashMap<&str, usize> = HashMap::new();
        let mut capped = false;
        for (i, rule) in self.rules.iter().enumerate() {
            for name in &rule.targets {
                let slot = match index.get(name.as_str()) {
                    Some(&slot) => slot,
                    None if order.len() >= MAX_TASKS => {
                        capped = true;
                        continue;
                    }
                    None => {
                        index.insert(name, order.len());
                        order.push(Target {
                            name,
                            first: rule,
                            rules: Vec::new(),
                            description: None,
                            recipes: Vec::new(),
                        });
                        order.len() - 1
                    }
                };
                let Some(target) = order.get_mut(slot) else {
                    continue;
                };
                target.rules.push(i);
                if !rule.recipe.is_empty() {
                    // Double-colon rules each run their own recipe; for ordinary rules the
                    // last recipe wins, as make warns ("overriding recipe for target").
                    if !rule.double_colon {
                        target.recipes.clear();
                    }
                    target.recipes.push(i);
                }
            }
        }
        if capped {
            self.out.diag(
                top,
                None,
                format!("more than {MAX_TASKS} targets; only the first {MAX_TASKS} are listed"),
            );
        }

        // The description: a `## text` on a rule line, else a `## target: text` help line
        // anywhere in the file (the `make help` convention), else the first comment block
        // above a rule, without a leading `target:`.
        for target in &mut order {
            let rules = || target.rules.iter().filter_map(|&r| self.rules.get(r));
            target.description = rules()
                .find_map(|r| r.inline_doc.clone())
                .or_else(|| self.help.get(target.name).cloned())
                .or_else(|| {
                    rules().find_map(|r| {
                        r.doc_above
                            .as_deref()
                            .map(|d| strip_target_prefix(d, target.name).to_owned())
                    })
                });
        }

        let forced: HashSet<&str> = order
            .iter()
            .filter(|t| {
                used.contains(t.name)
                    && t.rules.iter().all(|&r| {
                        self.rules.get(r).is_none_or(|r| {
                            r.prereqs.is_empty() && !r.unresolved_prereqs && r.recipe.is_empty()
                        })
                    })
            })
            .map(|t| t.name)
            .collect();
        let listed = |name: &str| index.contains_key(name) && !forced.contains(name);

        let mut tasks = Vec::with_capacity(order.len());
        for target in &order {
            if forced.contains(target.name) {
                continue;
            }
            let mut deps: Vec<String> = Vec::new();
            let mut seen = HashSet::new();
            'rules: for rule in target.rules.iter().filter_map(|&r| self.rules.get(r)) {
                for dep in &rule.prereqs {
                    if dep != target.name && listed(dep) && seen.insert(dep.as_str()) {
                        deps.push(dep.clone());
                        if deps.len() >= MAX_DEPS {
                            break 'rules;
                        }
                    }
                }
            }
            let script = bounded_lines(
                target
                    .recipes
                    .iter()
                    .filter_map(|&r| self.rules.get(r))
                    .flat_map(|r| r.recipe.iter().map(String::as_str)),
                MAX_SCRIPT,
            );
            let mut task = RawTask::new(
                Runner::Make,
                target.name,
                self.cwd.clone(),
                target.first.file_path.clone(),
                vec!["make".to_owned(), target.name.to_owned()],
            );
            task.line = Some(target.first.line);
            task.description.clone_from(&target.description);
            task.deps = deps;
            task.script = (!script.is_empty()).then_some(script);
            tasks.push(task);
        }
        self.out.tasks = tasks;
        self.out
    }
}

/// A target with every rule that mentions it, in file order.
struct Target<'r> {
    name: &'r str,
    /// The first rule: where the target is reported as defined.
    first: &'r RuleDef,
    rules: Vec<usize>,
    description: Option<String>,
    /// The rules whose recipes run.
    recipes: Vec<usize>,
}

fn syntax_message(error: &ErrorInfo) -> String {
    match error.kind() {
        // GNU make's own words for it, with the usual cause.
        ParseErrorKind::MissingSeparator => "make syntax error: missing separator (recipe lines \
                                             start with a tab; other lines need `:` or `=`)"
            .to_owned(),
        _ => format!("make syntax error: {}", error.message),
    }
}

/// Whether a target name is something a person would run: not a special target (`.PHONY`,
/// `.c.o` suffix rules), not a pattern, not left with unexpanded references.
fn listable(name: &str) -> bool {
    !name.is_empty() && !name.starts_with('.') && !name.contains(['%', '$'])
}

/// The items of one branch of a conditional, lazily.
fn branch_items(branch: &ConditionalBranch) -> impl Iterator<Item = MakefileItem> + use<> {
    branch.items().filter_map(|item| match item {
        ConditionalItem::Item(item) => Some(item),
        _ => None,
    })
}

/// Recipe lines of a rule inside a conditional in its body, from every branch.
fn conditional_recipes(
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
fn push_recipe(out: &mut Vec<String>, raw: &str, prefix: char) {
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
fn line_doc(rest: &str) -> Option<String> {
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
/// empty lines and rulers such as `#######` or `# -----`.
fn comment_text(line: &str) -> Option<&str> {
    let text = line.trim_start_matches('#');
    let text = text.strip_prefix(' ').unwrap_or(text).trim_end();
    let ruler = text.chars().all(|c| "#-=*~_+ \t".contains(c));
    (!ruler).then_some(text)
}

/// A description without the `target:` its comment starts with (`# build: Builds it`).
fn strip_target_prefix<'d>(doc: &'d str, target: &str) -> &'d str {
    doc.strip_prefix(target)
        .and_then(|rest| rest.strip_prefix(':'))
        .map(str::trim)
        .filter(|rest| !rest.is_empty())
        .unwrap_or(doc)
}

/// `## target: text` help lines (the `make help` convention, read with `awk '/^## /'` or
/// `sed -n 's/^## //p'`): target name and text, for every such line of a file.
fn help_lines(text: &str) -> impl Iterator<Item = (&str, &str)> {
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

fn is_phony_line(line: &str) -> bool {
    line.strip_prefix(".PHONY")
        .is_some_and(|rest| rest.trim_start().starts_with(':'))
}

/// Joins backslash-continued lines with a space, as make does outside recipes.
fn join_continuations(text: &str) -> String {
    if !text.contains('\\') {
        return text.to_owned();
    }
    text.replace("\\\r\n", " ").replace("\\\n", " ")
}

/// Lines joined with newlines, stopping with a `…` line once `max` bytes are reached, so a
/// huge recipe shared by many targets is not copied whole for each.
fn bounded_lines<'a>(lines: impl Iterator<Item = &'a str>, max: usize) -> String {
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

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::MemFiles;
    pub(super) use crate::testing::names;
    use crate::testing::task;

    pub(super) fn run(files: &MemFiles, path: &str) -> Parsed {
        crate::testing::parse_with(parse, files, path)
    }

    pub(super) fn one(text: &str) -> Parsed {
        run(&MemFiles::new().with("Makefile", text), "Makefile")
    }

    #[test]
    fn candidates_rank_like_make() {
        assert_eq!(candidate("GNUmakefile"), Some(0));
        assert_eq!(candidate("sub/makefile"), Some(1));
        assert_eq!(candidate("a/b/Makefile"), Some(2));
        assert_eq!(candidate("common.mk"), None);
        assert_eq!(candidate("Makefile.am"), None);
        assert_eq!(candidate("MAKEFILE"), None);
    }

    #[test]
    fn self_documenting_makefile() {
        let parsed = one(concat!(
            ".DEFAULT_GOAL := help\n",
            ".PHONY: help build test\n",
            "\n",
            "help: ## Show this help\n",
            "\t@grep -E '^[a-zA-Z_-]+:.*?## .*$$' $(MAKEFILE_LIST) | awk 'BEGIN {FS = \":.*?## \"}; {printf \"%-20s %s\\n\", $$1, $$2}'\n",
            "\n",
            "build: ## Build the binary\n",
            "\tcargo build --release\n",
            "\n",
            "test: build ## Run the tests\n",
            "\tcargo test\n",
        ));
        assert_eq!(names(&parsed), ["help", "build", "test"]);
        let help = task(&parsed, "help");
        assert_eq!(help.description.as_deref(), Some("Show this help"));
        assert_eq!(help.line, Some(4));
        assert_eq!(help.argv, ["make", "help"]);
        assert_eq!(help.dir, ".");
        assert_eq!(help.file_path, "Makefile");
        assert!(
            help.script
                .as_deref()
                .unwrap()
                .starts_with("@grep -E '^[a-zA-Z_-]+:")
        );
        let test = task(&parsed, "test");
        assert_eq!(test.description.as_deref(), Some("Run the tests"));
        assert_eq!(test.deps, ["build"]);
        assert_eq!(test.script.as_deref(), Some("cargo test"));
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    }

    #[test]
    fn comment_block_above_describes_the_rule() {
        let parsed = one(concat!(
            "# Makefile for the demo project\n",
            "# Copyright nobody\n",
            "\n",
            "# Build everything\n",
            "# from scratch.\n",
            "all: build\n",
            "\n",
            "##########\n",
            "# Build  #\n",
            "##########\n",
            "\n",
            "# Compile the binary\n",
            ".PHONY: build\n",
            "build:\n",
            "\tcc -o app main.c\n",
            "CC = cc\n",
            "lint:\n",
            "\ttrue\n",
            "# Doc above ## wins? no: the line comment does\n",
            "fmt: ## Format the code\n",
            "\ttrue\n",
        ));
        assert_eq!(
            task(&parsed, "all").description.as_deref(),
            Some("Build everything from scratch.")
        );
        assert_eq!(
            task(&parsed, "build").description.as_deref(),
            Some("Compile the binary")
        );
        assert_eq!(task(&parsed, "lint").description, None);
        assert_eq!(
            task(&parsed, "fmt").description.as_deref(),
            Some("Format the code")
        );
    }

    #[test]
    fn single_hash_on_the_rule_line_is_not_a_description() {
        let parsed =
            one("clean: # TODO also remove dist\n\trm -rf build\nx: ; echo ## not a comment\n");
        assert_eq!(task(&parsed, "clean").description, None);
        let x = task(&parsed, "x");
        assert_eq!(x.description, None);
        assert_eq!(x.script.as_deref(), Some("echo ## not a comment"));
    }

    #[test]
    fn variables_special_and_pattern_targets() {
        let parsed = one(concat!(
            "BIN := app\n",
            "OUT = build/$(BIN)\n",
            "SRC = $(wildcard src/*.c)\n",
            "OBJ := $(SRC:.c=.o)\n",
            "export FOO=bar\n",
            ".DEFAULT_GOAL := all\n",
            ".PHONY: all clean\n",
            ".SUFFIXES:\n",
            ".c.o:\n\t$(CC) -c $<\n",
            "all: $(BIN)\n",
            "$(BIN): $(OBJ)\n\t$(CC) -o $@ $^\n",
            "$(OUT).tar: $(BIN)\n\ttar cf $@ $<\n",
            "%.o: %.c\n\t$(CC) -c $<\n",
            "$(obj)/%.o: %.c\n\ttrue\n",
            "$(OBJ): config.h\n",
            "clean:\n\trm -f $(BIN) $(OBJ)\n",
        ));
        assert_eq!(names(&parsed), ["all", "app", "build/app.tar", "clean"]);
        assert_eq!(task(&parsed, "all").deps, ["app"]);
        assert_eq!(task(&parsed, "build/app.tar").deps, ["app"]);
        assert_eq!(
            task(&parsed, "app").script.as_deref(),
            Some("$(CC) -o $@ $^")
        );
    }

    #[test]
    fn target_specific_variables_are_not_tasks() {
        let parsed = one(concat!(
            "debug: CFLAGS += -O0 -g\n",
            "debug: export RUST_LOG = debug\n",
            "release: CFLAGS = -O2\n",
            "debug release: build\n",
            "build:\n\tcc $(CFLAGS) main.c\n",
        ));
        assert_eq!(names(&parsed), ["debug", "release", "build"]);
        assert_eq!(task(&parsed, "debug").line, Some(4));
        assert!(!names(&parsed).iter().any(|n| n.contains("CFLAGS")));
    }

    #[test]
    fn multiple_targets_double_colon_and_repeated_rules() {
        let parsed = one(concat!(
            "install uninstall: check\n\t./tool $@\n",
            "check:\n\ttrue\n",
            "clean::\n\trm -rf build\n",
            "clean::\n\trm -rf dist\n",
            "all: a\n",
            "all: b ## Build all\n",
            "a:\n\techo a\n",
            "b:\n\techo b\n",
            "a:\n\techo A\n",
        ));
        assert_eq!(
            names(&parsed),
            ["install", "uninstall", "check", "clean", "all", "a", "b"]
        );
        assert_eq!(
            task(&parsed, "uninstall").script.as_deref(),
            Some("./tool $@")
        );
        assert_eq!(task(&parsed, "uninstall").deps, ["check"]);
        assert_eq!(
            task(&parsed, "clean").script.as_deref(),
            Some("rm -rf build\nrm -rf dist")
        );
        let all = task(&parsed, "all");
        assert_eq!(all.line, Some(9));
        assert_eq!(all.deps, ["a", "b"]);
        assert_eq!(all.description.as_deref(), Some("Build all"));
        // make keeps the last recipe of an ordinary rule (and warns).
        assert_eq!(task(&parsed, "a").script.as_deref(), Some("echo A"));
        assert_eq!(task(&parsed, "a").line, Some(11));
    }

    #[test]
    fn deps_are_listed_targets_without_order_only() {
        let parsed = one(concat!(
            "build: main.c lib.c gen | outdir\n\tcc main.c\n",
            "gen:\n\t./gen.sh\n",
            "outdir:\n\tmkdir -p out\n",
        ));
        assert_eq!(task(&parsed, "build").deps, ["gen"]);
    }

    #[test]
    fn force_style_empty_targets_are_not_listed() {
        let parsed = one(concat!(
            ".PHONY: FORCE placeholder\n",
            "version.h: FORCE\n\t./mkversion > $@\n",
            "FORCE:\n",
            "placeholder:\n",
        ));
        assert_eq!(names(&parsed), ["version.h", "placeholder"]);
        assert!(task(&parsed, "version.h").deps.is_empty());
    }

    #[test]
    fn conditionals_are_evaluated_like_make() {
        let parsed = one(concat!(
            "ifeq ($(OS),Windows_NT)\n",
            "EXE := app.exe\n",
            "# Windows only\n",
            "installer:\n\tmakensis app.nsi\n",
            "package: installer\n",
            "else ifdef MACOS\n",
            "EXE := app\n",
            "package:\n\t./bundle.sh\n",
            "else\n",
            "EXE := app\n",
            "package:\n\ttar czf app.tgz app\n",
            "endif\n",
            "$(EXE): main.c\n\tcc -o $@ main.c\n",
            "test:\n",
            "ifdef VERBOSE\n",
            "\tcargo test -- --nocapture\n",
            "else\n",
            "\tcargo test\n",
            "endif\n",
        ));
        assert_eq!(names(&parsed), ["package", "app", "test"]);
        assert!(task(&parsed, "package").deps.is_empty());
        // Recipe lines of every branch are shown: they are text, not rules.
        assert_eq!(
            task(&parsed, "test").script.as_deref(),
            Some("cargo test -- --nocapture\ncargo test")
        );
    }

    #[test]
    fn conditionals_on_the_environment_see_it_empty() {
        let parsed = one(concat!(
            "ifneq ($(CIRCLE_JOB),)\n",
            "DIR := test-results\n",
            "endif\n",
            "$(DIR):\n\tmkdir -p $@\n",
            "MODE ?= debug\n",
            "ifeq ($(MODE),debug)\n",
            "debug-only:\n\ttrue\n",
            "else\n",
            "release-only:\n\ttrue\n",
            "endif\n",
            "ifndef MODE\n",
            "never:\n\ttrue\n",
            "endif\n",
            "ifdef MODE\n",
            "always:\n\ttrue\n",
            "endif\n",
        ));
        assert_eq!(names(&parsed), ["debug-only", "always"]);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    }

    #[test]
    fn conditionals_that_cannot_be_known_keep_every_branch() {
        let parsed = one(concat!(
            "ifeq ($(shell uname),Darwin)\n",
            "mac:\n\ttrue\n",
            "else\n",
            "linux:\n\ttrue\n",
            "endif\n",
            "ifneq ($(filter release,$(MAKECMDGOALS)),)\n",
            "stamp:\n\ttrue\n",
            "endif\n",
            "ifdef MAKE_RESTARTS\n",
            "restarted:\n\ttrue\n",
            "endif\n",
        ));
        assert_eq!(names(&parsed), ["mac", "linux", "stamp", "restarted"]);
    }

    #[test]
    fn rules_inside_a_conditional_in_a_recipe_body() {
        let parsed = one("X = 1\na:\n\techo a\nifdef X\nb:\n\techo b\nendif\nifdef Y\nc:\nendif\n");
        assert_eq!(names(&parsed), ["a", "b"]);
        assert_eq!(task(&parsed, "a").script.as_deref(), Some("echo a"));
        assert_eq!(task(&parsed, "b").script.as_deref(), Some("echo b"));
    }

    #[test]
    fn targets_stay_listed_when_their_prerequisites_cannot_be_expanded() {
        let parsed = one(concat!(
            "SRCS := $(wildcard cmd/*)\n",
            "BINS := $(patsubst cmd/%,bin/%,$(SRCS))\n",
            "all: $(BINS)\n",
            "install: all\n",
            "\tcp bin/* /usr/local/bin\n",
            ".PHONY: all install\n",
        ));
        assert_eq!(names(&parsed), ["all", "install"]);
        assert_eq!(task(&parsed, "install").deps, ["all"]);
    }

    #[test]
    fn help_lines_name_their_target() {
        let parsed = one(concat!(
            "## build: Builds the binary.\n",
            "build:\n\tgo build\n",
            "test:\n",
            "## test: Runs the tests.\n",
            "\tgo test ./...\n",
            "lint: ## Inline wins\n\ttrue\n",
            "## lint: Help line loses\n",
            "\n",
            "# fmt: Formats the code\n",
            "fmt:\n\tgofmt -w .\n",
            "## Note: not a target\n",
            "clean:\n\trm -rf bin\n",
            "help:\n\t@sed -n 's/^## //p' $(MAKEFILE_LIST)\n",
        ));
        assert_eq!(
            task(&parsed, "build").description.as_deref(),
            Some("Builds the binary.")
        );
        assert_eq!(
            task(&parsed, "test").description.as_deref(),
            Some("Runs the tests.")
        );
        assert_eq!(
            task(&parsed, "lint").description.as_deref(),
            Some("Inline wins")
        );
        assert_eq!(
            task(&parsed, "fmt").description.as_deref(),
            Some("Formats the code")
        );
        assert_eq!(
            task(&parsed, "clean").description.as_deref(),
            Some("Note: not a target")
        );
    }

    #[test]
    fn an_escaped_hash_inside_shell_is_no_unclosed_parenthesis() {
        let parsed = one(concat!(
            "V = $(shell head -n 1 .golangci.yml | tr -d '\\# ')\n",
            "W = $(shell echo a#b)\n",
            "lint:\n\tgolangci-lint run\n",
        ));
        assert_eq!(names(&parsed), ["lint"]);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    }

    #[test]
    fn define_blocks_hold_no_rules() {
        let parsed = one(concat!(
            "define PROGRAM_template\n",
            "$(1): $$($(1)_OBJS)\n",
            "notatarget: x\n",
            "\techo nope\n",
            "endef\n",
            "$(foreach prog,$(PROGRAMS),$(eval $(call PROGRAM_template,$(prog))))\n",
            "real:\n\techo yes\n",
        ));
        assert_eq!(names(&parsed), ["real"]);
    }

    #[test]
    fn crlf_line_endings() {
        let parsed = one(
            "# Build it\r\nbuild: gen ## Build\r\n\tcc -o app \\\r\n\t  main.c\r\n\r\n# Generate\r\ngen:\r\n\t./gen.sh\r\n",
        );
        let build = task(&parsed, "build");
        assert_eq!(build.description.as_deref(), Some("Build"));
        assert_eq!(build.script.as_deref(), Some("cc -o app \\\n  main.c"));
        assert_eq!(build.deps, ["gen"]);
        assert_eq!(
            task(&parsed, "gen").description.as_deref(),
            Some("Generate")
        );
        assert_eq!(task(&parsed, "gen").line, Some(7));
    }

    /// Found by fuzzing: 64 KB of `\\` and `(\` continuation lines took 2.4 s in
    /// makefile-lossless's error recovery, growing superlinearly.
    #[test]
    fn lines_without_a_separator_are_skipped_before_the_parser_sees_them() {
        let text = String::from_utf8_lossy(include_bytes!(
            "../../../fixtures/fuzz-regressions/make/backslash-pair-lines-inside-an-open-paren"
        ))
        .into_owned();
        let parsed = one(&text);
        assert!(parsed.tasks.is_empty());
        assert!(
            parsed.diagnostics[0].message.contains("missing separator"),
            "{:?}",
            parsed.diagnostics
        );
        let guarded = guard::guard(&text);
        assert!(!guarded.skipped.is_empty());
        let guarded = guarded.text.expect("rewritten");
        assert_eq!(guarded.len(), text.len(), "offsets are kept");
        assert!(guarded.trim().is_empty(), "every line was blanked");
    }

    /// Found by fuzzing: rule lines ending in `\\\\` followed by `(\\` continuation lines made
    /// the parser search the rest of the file for each unclosed `(` (64 KB: 0.3 s, 256 KB: 3.7 s).
    #[test]
    fn unclosed_parentheses_are_skipped_before_the_parser_sees_them() {
        let text = String::from_utf8_lossy(include_bytes!(
            "../../../fixtures/fuzz-regressions/make/rule-ending-in-backslash-pair-then-open-paren"
        ))
        .into_owned();
        let skipped = guard::guard(&text).skipped;
        assert!(skipped.len() > 1000, "{}", skipped.len());
        let parsed = one(&text);
        assert!(
            parsed
                .diagnostics
                .iter()
                .any(|d| d.message.contains("line skipped"))
        );
    }

    /// Found by fuzzing: one variable definition continued over thousands of lines made
    /// `VariableDefinition::name` quadratic in the mutable tree (64 KB: 1.3 s, 256 KB: 20 s);
    /// the tree is read immutably now. Both inputs, repeated to 256 KB, still read right.
    #[test]
    fn variable_definitions_continued_over_thousands_of_lines() {
        let grown = |bytes: &[u8]| {
            let text = String::from_utf8_lossy(bytes).into_owned();
            text.repeat(4)
        };
        let define = grown(include_bytes!(
            "../../../fixtures/fuzz-regressions/make/define-line-continued-into-an-assignment"
        ));
        let parsed = one(&define);
        assert!(parsed.tasks.is_empty());
        assert!(
            parsed.diagnostics[0].message.contains("missing `endef`"),
            "{:?}",
            parsed.diagnostics
        );
        let dollars = grown(include_bytes!(
            "../../../fixtures/fuzz-regressions/make/one-long-line-of-dollar-assignments"
        ));
        let parsed = one(&dollars);
        assert!(parsed.tasks.is_empty());

        // A value continued over 20,000 lines still names the target after it.
        let long = format!(
            "BIN := app{}\n$(BIN): ## Build it\n\tcc -o $@\n",
            " \\\n".repeat(20_000)
        );
        let parsed = one(&long);
        assert_eq!(names(&parsed), ["app"]);
        let app = task(&parsed, "app");
        assert_eq!(app.line, Some(20_002));
        assert_eq!(app.description.as_deref(), Some("Build it"));
        assert_eq!(app.script.as_deref(), Some("cc -o $@"));
    }

    #[test]
    fn recipe_prefix_and_inline_recipes() {
        let parsed = one(".RECIPEPREFIX = >\nfoo:\n>echo hi\nbar: ; @echo inline\n");
        assert_eq!(task(&parsed, "foo").script.as_deref(), Some("echo hi"));
        assert_eq!(task(&parsed, "bar").script.as_deref(), Some("@echo inline"));
    }

    #[test]
    fn includes_belong_to_the_including_directory() {
        let files = MemFiles::new()
            .with(
                "svc/Makefile",
                "BIN := svc\ninclude mk/common.mk\n-include $(DEPS)\nall: lint $(BIN)\n",
            )
            .with(
                "svc/mk/common.mk",
                "# Lint the code\nlint:\n\tgolangci-lint run\n$(BIN):\n\tgo build -o $(BIN)\ninclude mk/more.mk\n",
            )
            .with("svc/mk/more.mk", "TOOL = fmt\n$(TOOL): ## Format\n\tgofmt -w .\n");
        let parsed = run(&files, "svc/Makefile");
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        assert_eq!(names(&parsed), ["lint", "svc", "fmt", "all"]);
        let lint = task(&parsed, "lint");
        assert_eq!(lint.dir, "svc");
        assert_eq!(lint.file_path, "svc/mk/common.mk");
        assert_eq!(lint.line, Some(2));
        assert_eq!(lint.description.as_deref(), Some("Lint the code"));
        // Nested includes resolve from make's working directory, not the including file.
        assert_eq!(task(&parsed, "fmt").file_path, "svc/mk/more.mk");
        assert_eq!(task(&parsed, "all").deps, ["lint", "svc"]);
        assert_eq!(parsed.consumed, ["svc/mk/common.mk", "svc/mk/more.mk"]);
    }

    #[test]
    fn an_included_makefile_stays_listed_on_its_own() {
        let files = MemFiles::new()
            .with("Makefile", "root:\n")
            .with("sub/Makefile", "include ../Makefile\nsub:\n");
        let parsed = run(&files, "sub/Makefile");
        assert_eq!(names(&parsed), ["root", "sub"]);
        assert!(parsed.consumed.is_empty());
    }

    #[test]
    fn broken_makefile_keeps_its_good_rules() {
        let parsed = one(concat!(
            "good1:\n\techo 1\n",
            "this line is garbage\n",
            "  so is this one\n",
            "bad: $(unclosed\n",
            "good2: good1 ## After the garbage\n\techo 2\n",
            "endif\n",
            "else\n",
            "more garbage\n",
            "even more\n",
            "good3:\n\techo 3\n",
        ));
        assert!(names(&parsed).contains(&"good1"));
        assert!(names(&parsed).contains(&"good2"));
        assert!(names(&parsed).contains(&"good3"));
        assert!(!names(&parsed).iter().any(|n| n.contains("garbage")));
        let good2 = task(&parsed, "good2");
        assert_eq!(good2.description.as_deref(), Some("After the garbage"));
        assert_eq!(good2.deps, ["good1"]);
        assert_eq!(parsed.diagnostics.len(), MAX_SYNTAX_DIAGNOSTICS + 1);
        assert_eq!(parsed.diagnostics[0].line, Some(3));
        assert!(
            parsed.diagnostics[0]
                .message
                .starts_with("make syntax error")
                || parsed.diagnostics[0]
                    .message
                    .starts_with("line skipped: missing separator"),
            "{:?}",
            parsed.diagnostics[0]
        );
        assert_eq!(parsed.diagnostics[5].line, None);
    }

    #[test]
    fn unterminated_define_swallows_the_rest_like_make() {
        let parsed = one("before:\ndefine X\nafter:\n");
        assert_eq!(names(&parsed), ["before"]);
        assert_eq!(parsed.diagnostics.len(), 1);
    }

    #[test]
    fn odd_inputs_do_not_panic() {
        for text in [
            "",
            "\n\n\n",
            ":",
            "::=",
            "$(",
            "${}:",
            "\t\techo orphan recipe\n",
            "a:\\",
            "a: b \\\n",
            "ifeq (\nendif\nendif\nelse\n",
            "define\n",
            "include\n",
            "-include\n",
            "a b c :: d | e | f ; g\n",
            "é: ü ## ünïcode\n\techo ✓\n",
            "\u{feff}all:\n",
            "a:\r",
            "#\\\nb:\n",
            "x = $(x)\n$(x):\n",
            ".RECIPEPREFIX =\na:\n\tb\n",
        ] {
            let _ = one(text);
        }
    }

    #[test]
    fn long_lines_stay_fast_enough_to_finish() {
        let many = "x ".repeat(200_000);
        let parsed = one(&format!("all: {many}\nx:\n\techo x\n"));
        assert_eq!(task(&parsed, "all").deps, ["x"]);
        // So many targets before the `:` looks like garbage to the guard: skipped, said so.
        let parsed = one(&format!("{many}: y\nok:\n"));
        assert_eq!(names(&parsed), ["ok"]);
        assert_eq!(parsed.diagnostics.len(), 1);
        let parsed = one(&format!("{}\nok:\n", ") ".repeat(200_000)));
        assert_eq!(names(&parsed), ["ok"]);
        let recipe = "\techo hi\n".repeat(100_000);
        let parsed = one(&format!("big:\n{recipe}"));
        assert!(
            task(&parsed, "big")
                .script
                .as_deref()
                .unwrap()
                .ends_with('…')
        );
        let _ = one(&format!("include {many}\n"));
    }

    #[test]
    fn helpers() {
        assert_eq!(line_doc(": a b ## Doc text"), Some("Doc text".to_owned()));
        assert_eq!(line_doc(": $(X#) ## Doc"), Some("Doc".to_owned()));
        assert_eq!(line_doc(": a\\#b ## Doc"), Some("Doc".to_owned()));
        assert_eq!(line_doc(": a ##"), None);
        assert_eq!(comment_text("## -------"), None);
        assert_eq!(comment_text("##   indented"), Some("  indented"));
        assert_eq!(bounded_lines(["ab", "cd"].into_iter(), 4), "ab\nc…");
        assert_eq!(bounded_lines(["ab", "cd"].into_iter(), 5), "ab\ncd");
        assert_eq!(bounded_lines(["abcdef"].into_iter(), 4), "abcd…");
        assert_eq!(bounded_lines(["aé"].into_iter(), 2), "a…");
    }
}
