//! Reading a Makefile and the files it includes into rules, then merging them into
//! targets: the adapter's machinery.
use std::collections::{HashMap, HashSet};

use makefile_lossless::{
    Conditional, ConditionalBranch, ConditionalItem, ConditionalKind, ErrorInfo, Makefile,
    MakefileItem, Parse, ParseErrorKind, Rule, VariableDefinition,
};
use rowan::ast::AstNode;

use super::expand::Vars;
use super::reads::Defs;
use super::text::{
    FileText, bounded_lines, branch_items, conditional_recipes, help_lines, join_continuations,
    line_doc, listable, push_recipe, strip_target_prefix, syntax_message,
};
use super::{
    MAX_DEPS, MAX_NESTING, MAX_PREREQS, MAX_SCRIPT, MAX_SYNTAX_DIAGNOSTICS, MAX_TASKS, guard,
};
use crate::files::Files;
use crate::model::{Parsed, Runner, Task};

/// One rule as read, before rules for the same target are merged.
pub(super) struct RuleDef {
    /// Listable target names (variables expanded, special and pattern targets dropped).
    pub(super) targets: Vec<String>,
    /// Normal prerequisites, variables expanded; unresolvable ones are dropped.
    pub(super) prereqs: Vec<String>,
    /// Whether some prerequisites could not be expanded (`$(patsubst …)`): the rule is not
    /// an empty `FORCE:`-style target even though [`RuleDef::prereqs`] may be empty.
    pub(super) unresolved_prereqs: bool,
    /// Whether every target as written is special (`.PHONY: …`), so its prerequisites do
    /// not count as uses of a target.
    pub(super) special_only: bool,
    pub(super) file_path: String,
    pub(super) line: u32,
    /// The `## text` comment on the rule line.
    pub(super) inline_doc: Option<String>,
    /// The comment block above the rule.
    pub(super) doc_above: Option<String>,
    pub(super) recipe: Vec<String>,
    pub(super) double_colon: bool,
    /// The undecided conditional the rule, or a variable in its target names, depends on.
    pub(super) note: Option<String>,
}

/// Reads one top-level Makefile and everything it includes.
pub(super) struct Reader<'f> {
    pub(super) files: &'f dyn Files,
    /// The top-level Makefile's directory: make runs there, so includes resolve from it and
    /// every target is invoked from it.
    pub(super) cwd: String,
    pub(super) vars: Vars<'f>,
    pub(super) rules: Vec<RuleDef>,
    pub(super) out: Parsed,
    /// The files being read, outermost first, to spot include cycles.
    pub(super) chain: Vec<String>,
    /// Every file read so far; a file included twice is read once.
    pub(super) visited: HashSet<String>,
    /// Whether the include limits were reported already.
    pub(super) include_limit_hit: bool,
    /// Descriptions from `## target: text` help lines, first one per target.
    pub(super) help: HashMap<String, String>,
    /// Why make stops while reading (a `$(error …)` it reaches, a line it refuses), if it
    /// does: the file, the line and make's message.
    pub(super) stop: Option<(String, u32, String)>,
    /// Lines of branches make does not read (file, first line, line past the end).
    pub(super) unread: Vec<(String, u32, u32)>,
    /// Lines of branches under a conditional agg could not evaluate, with its note.
    pub(super) undecided: Vec<((String, u32, u32), String)>,
    /// Targets declared `.PHONY`: never left out as empty `FORCE:`-style targets.
    pub(super) phony: HashSet<String>,
    /// What the files define, recorded when they are read for a decision.
    pub(super) defs: Option<Defs>,
}

/// A Makefile's text as the parser reads it, and the parser's tree of it: what reading a
/// file starts from, the same for every file that includes it.
pub(super) struct Prepared {
    guarded: guard::Guarded,
    parse: Parse<Makefile>,
}

impl Prepared {
    pub(super) fn of(text: &str) -> Prepared {
        let guarded = guard::guard(text);
        let parse = Makefile::parse(guarded.parse_text(text));
        Prepared { guarded, parse }
    }
}

impl Reader<'_> {
    pub(super) fn read_file(&mut self, path: &str, text: &str) {
        self.read_prepared(path, text, &Prepared::of(text));
    }

    /// [`Reader::read_file`], from the file's text already prepared.
    pub(super) fn read_prepared(&mut self, path: &str, text: &str, prepared: &Prepared) {
        let Prepared { guarded, parse } = prepared;
        let fatal = self.problems(path, &guarded.skipped, parse.errors());
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
            self.refused_lines(&file, text, &fatal);
            return;
        };
        // Items are pulled lazily and dropped once read. Each level of conditionals carries
        // the note of the undecided conditional it is read under, if any.
        // An included file is read under the conditional of its `include` line.
        let outer = self.vars.context.clone();
        let mut stack: Vec<Frame<'_>> = vec![(Box::new(tree.items()), outer.clone())];
        while let Some((items, _)) = stack.last_mut() {
            let Some(item) = items.next() else {
                stack.pop();
                continue;
            };
            let context = stack.iter().rev().find_map(|(_, note)| note.clone());
            self.vars.context.clone_from(&context);
            // Items inside conditionals are read next, before what follows, so assignments
            // apply in file order.
            let mut nested = Vec::new();
            match item {
                MakefileItem::Rule(rule) => self.rule(&rule, &file, &mut nested, context),
                MakefileItem::Variable(var) => self.variable(&var),
                MakefileItem::Include(include) => self.include(&include, &file),
                MakefileItem::Conditional(cond) => nested.push(cond),
                MakefileItem::Vpath(_) | MakefileItem::Load(_) | MakefileItem::Directive(_) => {
                    if let (Some(defs), MakefileItem::Vpath(_) | MakefileItem::Load(_)) =
                        (&mut self.defs, &item)
                    {
                        defs.directive(file.slice(item.syntax().text_range()));
                    }
                }
                MakefileItem::ExpressionStatement(stmt) => {
                    if let Some(defs) = &mut self.defs {
                        let at = format!(
                            "{}:{}",
                            file.path,
                            file.line(stmt.syntax().text_range().start().into())
                        );
                        defs.statement(file.slice(stmt.syntax().text_range()), &at);
                    }
                    self.statement(
                        file.slice(stmt.syntax().text_range()),
                        &file,
                        stmt.syntax().text_range().start().into(),
                        context.as_deref(),
                    );
                }
                _ => {}
            }
            if stack.len() >= MAX_NESTING {
                continue;
            }
            // Branches are chosen now, with the variables defined so far, as make does; the
            // first conditional is read first.
            for cond in nested.iter().rev() {
                let (branches, undecided) = self.taken_branches(cond);
                let note = undecided.then(|| condition_note(&file, cond));
                self.note_branches(&file, cond, &branches, note.as_ref());
                stack.push((
                    Box::new(branches.into_iter().flat_map(|b| branch_items(&b))),
                    note,
                ));
            }
        }
        self.vars.context = outer;
        self.refused_lines(&file, text, &fatal);
    }

    /// Remembers which lines of `cond` make skips and which it may or may not read, for
    /// [`Reader::refused_lines`].
    fn note_branches(
        &mut self,
        file: &FileText<'_>,
        cond: &Conditional,
        taken: &[ConditionalBranch],
        note: Option<&String>,
    ) {
        for branch in cond.branches() {
            let range = branch.text_range();
            let lines = (
                file.path.to_owned(),
                file.line(range.start().into()),
                file.line(range.end().into())
                    .saturating_add(u32::from(usize::from(range.end()) >= file.text.len())),
            );
            if !taken.contains(&branch) {
                self.unread.push(lines);
            } else if let Some(note) = note {
                self.undecided.push((lines, note.clone()));
            }
        }
    }

    /// A line of only references: `$(error …)` stops make where make reads it; agg lists
    /// the targets anyway, not runnable. Under a condition agg could not evaluate, make
    /// may or may not stop.
    fn statement(&mut self, text: &str, file: &FileText<'_>, offset: usize, context: Option<&str>) {
        let text = join_continuations(text);
        let text = text.trim();
        let Some(args) = ["$(error ", "${error "]
            .iter()
            .find_map(|open| text.strip_prefix(open))
        else {
            return;
        };
        let args = args.strip_suffix([')', '}']).unwrap_or(args).trim();
        let message = self.vars.expand(args).unwrap_or_else(|| args.to_owned());
        let line = file.line(offset);
        if let Some(note) = context {
            self.out.diag(
                file.path,
                Some(line),
                format!("make may stop here, depending on {note}: {message}"),
            );
        } else {
            self.out
                .diag(file.path, Some(line), format!("make stops here: {message}"));
            if self.stop.is_none() {
                self.stop = Some((
                    file.path.to_owned(),
                    line,
                    format!("make stops at {}:{line}: {message}", file.path),
                ));
            }
        }
    }

    /// Reports lines the guard skipped and the parser's syntax errors, in line order, the
    /// first few only: one broken construct often yields many errors.
    /// Lines make itself refuses while reading (a missing separator, an unterminated
    /// reference) are not reported here but returned, with make's own words: whether make
    /// reaches them depends on the conditionals around them, known once the file is read.
    pub(super) fn problems(
        &mut self,
        path: &str,
        skipped: &[(u32, guard::Reason)],
        errors: &[ErrorInfo],
    ) -> Vec<(u32, &'static str)> {
        let mut fatal = Vec::new();
        let mut all: Vec<(Option<u32>, String)> = Vec::new();
        for &(line, reason) in skipped {
            match reason.make_stops() {
                Some(words) => fatal.push((line, words)),
                None => all.push((Some(line), reason.message())),
            }
        }
        for e in errors {
            let line = u32::try_from(e.line).ok().filter(|&l| l > 0);
            match (line, e.kind()) {
                (Some(line), ParseErrorKind::MissingSeparator) => {
                    fatal.push((line, guard::MISSING_SEPARATOR));
                }
                _ => all.push((line, syntax_message(e))),
            }
        }
        fatal.sort_unstable();
        fatal.dedup_by_key(|(line, _)| *line);
        all.sort_by_key(|(line, _)| line.unwrap_or(u32::MAX));
        let more = all.len().saturating_sub(MAX_SYNTAX_DIAGNOSTICS);
        for (line, message) in all.into_iter().take(MAX_SYNTAX_DIAGNOSTICS) {
            self.out.diag(path, line, message);
        }
        if more > 0 {
            self.out
                .diag(path, None, format!("{more} more syntax problems not shown"));
        }
        fatal
    }

    /// Reports the lines make refuses in one file, now that it is known which branches make
    /// reads: a line in a branch make skips is no error to make; the first one make reaches
    /// stops it, and every target is then listed not runnable with make's message; one
    /// under a conditional agg could not evaluate may stop it.
    fn refused_lines(
        &mut self,
        file: &FileText<'_>,
        original: &str,
        fatal: &[(u32, &'static str)],
    ) {
        if fatal.is_empty() {
            return;
        }
        // The guard blanked these lines in `file`; make's hint reads the original.
        let lines: Vec<&str> = original.split('\n').collect();
        let mut reported = 0;
        for &(line, words) in fatal {
            let within = |&(ref path, start, end): &(String, u32, u32)| {
                *path == file.path && start < line && line < end
            };
            if self.unread.iter().any(within) {
                continue;
            }
            let note = self
                .undecided
                .iter()
                .find(|(range, _)| within(range))
                .map(|(_, note)| note.clone());
            // GNU make's own hint for a recipe indented with spaces.
            let indented = lines
                .get(usize::try_from(line).unwrap_or(usize::MAX).wrapping_sub(1))
                .is_some_and(|l| l.starts_with("        ") && words == guard::MISSING_SEPARATOR);
            let message = if indented {
                "*** missing separator (did you mean TAB instead of 8 spaces?).  Stop."
            } else {
                words
            };
            if reported < MAX_SYNTAX_DIAGNOSTICS {
                let said = match &note {
                    Some(note) => format!("make may stop here, depending on {note}: {message}"),
                    None => format!("make stops here: {message}"),
                };
                self.out.diag(file.path, Some(line), said);
            }
            reported += 1;
            let earlier = self
                .stop
                .as_ref()
                .is_none_or(|(path, at, _)| path == file.path && line < *at);
            if note.is_none() && earlier {
                self.stop = Some((
                    file.path.to_owned(),
                    line,
                    format!("make stops at {}:{line}: {message}", file.path),
                ));
            }
        }
        if reported > MAX_SYNTAX_DIAGNOSTICS {
            let more = reported - MAX_SYNTAX_DIAGNOSTICS;
            self.out.diag(
                file.path,
                None,
                format!("{more} more lines make refuses not shown"),
            );
        }
    }

    pub(super) fn rule(
        &mut self,
        rule: &Rule,
        file: &FileText<'_>,
        nested: &mut Vec<Conditional>,
        context: Option<String>,
    ) {
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
        if let Some(assignment) = rule.scoped_assignment() {
            if let Some(defs) = &mut self.defs {
                let targets: Vec<&str> = rule.target_ranges().map(|r| file.slice(r)).collect();
                defs.scoped(
                    &targets.join(" "),
                    file.slice(assignment.syntax().text_range()),
                );
            }
            return;
        }
        if let Some(defs) = &mut self.defs {
            let raw: Vec<&str> = rule.target_ranges().map(|r| file.slice(r)).collect();
            if raw.iter().any(|t| t.starts_with('.') || t.contains('%')) {
                defs.special_rule(&raw.join(" "), file.slice(rule.text_range()));
            }
        }

        let start = usize::from(rule.text_range().start());
        let mut after_targets = start;
        let mut targets = Vec::new();
        let mut special_only = true;
        let mut phony = false;
        let mut note = context;
        for range in rule.target_ranges() {
            after_targets = usize::from(range.end());
            let raw = file.slice(range);
            special_only &= raw.split_whitespace().all(super::text::is_special);
            phony |= raw.trim() == ".PHONY";
            if let Some(names) = self.vars.expand(raw) {
                if note.is_none() {
                    note = self.vars.note_of_last().map(str::to_owned);
                }
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
        if phony {
            self.phony.extend(prereqs.iter().cloned());
        }

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
            note,
        });
    }

    /// The branches of `cond` make would read: the first whose condition holds, or the
    /// `else`. A condition whose value cannot be known statically (a function call, a
    /// variable set by `!=`, one of make's own variables) takes its branch and the later ones
    /// too, so nothing make might read is lost.
    /// Also says whether a condition could not be known.
    pub(super) fn taken_branches(&mut self, cond: &Conditional) -> (Vec<ConditionalBranch>, bool) {
        let mut taken = Vec::new();
        let mut undecided = false;
        for branch in cond.branches() {
            match self.holds(&branch) {
                Some(true) => {
                    taken.push(branch);
                    break;
                }
                Some(false) => {}
                None => {
                    undecided = true;
                    taken.push(branch);
                }
            }
        }
        (taken, undecided)
    }

    /// Whether a branch's condition holds; `None` when it cannot be known. A plain `else`
    /// always holds (it is reached only when no earlier branch did).
    pub(super) fn holds(&mut self, branch: &ConditionalBranch) -> Option<bool> {
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
    pub(super) fn recipe_prefix(&self) -> char {
        self.vars
            .raw(".RECIPEPREFIX")
            .and_then(|v| v.chars().next())
            .unwrap_or('\t')
    }

    pub(super) fn variable(&mut self, var: &VariableDefinition) {
        if let Some(defs) = &mut self.defs {
            record(defs, var);
        }
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
    pub(super) fn finish(mut self, top: &str) -> Parsed {
        if self.vars.exhausted {
            self.out.diag(
                top,
                None,
                "too many variable expansions; some targets named with variables are not listed",
            );
        }
        let (mut order, index, capped) = targets(&self.rules);
        if capped {
            self.out.diag(
                top,
                None,
                format!("more than {MAX_TASKS} targets; only the first {MAX_TASKS} are listed"),
            );
        }
        for target in &mut order {
            target.description = self.description(target);
        }
        let forced = self.forced(&order);
        let listed = |name: &str| index.contains_key(name) && !forced.contains(name);
        let tasks = order
            .iter()
            .filter(|t| !forced.contains(t.name))
            .map(|target| self.task(target, &index, &listed))
            .collect();
        self.out.tasks = tasks;
        self.out
    }

    /// The rules of `target`, in file order.
    fn rules_of<'r>(&'r self, target: &'r Target<'_>) -> impl Iterator<Item = &'r RuleDef> {
        target.rules.iter().filter_map(|&r| self.rules.get(r))
    }

    /// The rules whose recipes `target` runs.
    fn recipes_of<'r>(&'r self, target: &'r Target<'_>) -> impl Iterator<Item = &'r RuleDef> {
        target.recipes.iter().filter_map(|&r| self.rules.get(r))
    }

    /// A target's description: a `## text` on a rule line, else a `## target: text` help
    /// line anywhere in the file (the `make help` convention), else the first comment block
    /// above a rule, without a leading `target:`.
    fn description(&self, target: &Target<'_>) -> Option<String> {
        self.rules_of(target)
            .find_map(|r| r.inline_doc.clone())
            .or_else(|| self.help.get(target.name).cloned())
            .or_else(|| {
                self.rules_of(target).find_map(|r| {
                    r.doc_above
                        .as_deref()
                        .map(|d| strip_target_prefix(d, target.name).to_owned())
                })
            })
    }

    /// The `FORCE:`-style targets left out: empty, not phony, and only there to be depended
    /// on by a real rule (not by `.PHONY:` and friends). Phony and double-colon targets are
    /// run, even empty (`all:`, `precheck::` that templates extend).
    fn forced<'t>(&self, order: &[Target<'t>]) -> HashSet<&'t str> {
        let used: HashSet<&str> = self
            .rules
            .iter()
            .filter(|r| !r.special_only)
            .flat_map(|r| r.prereqs.iter().map(String::as_str))
            .collect();
        order
            .iter()
            .filter(|t| {
                used.contains(t.name)
                    && !self.phony.contains(t.name)
                    && t.rules.iter().all(|&r| {
                        self.rules.get(r).is_none_or(|r| {
                            r.prereqs.is_empty()
                                && !r.unresolved_prereqs
                                && r.recipe.is_empty()
                                && !r.double_colon
                        })
                    })
            })
            .map(|t| t.name)
            .collect()
    }

    /// The task row of a listed target. `index` holds every target's name, `listed` says
    /// which are tasks.
    fn task(
        &self,
        target: &Target<'_>,
        index: &HashMap<&str, usize>,
        listed: &dyn Fn(&str) -> bool,
    ) -> Task {
        // Defined where the recipe that runs is; a target without one, at its first rule.
        let defined = self.recipes_of(target).next().unwrap_or(target.first);
        let mut task = Task::new(
            Runner::Make,
            target.name,
            self.cwd.clone(),
            defined.file_path.clone(),
            vec!["make".to_owned(), target.name.to_owned()],
        );
        task.line = Some(defined.line);
        task.behaviour.not_runnable = self.stop.as_ref().map(|(_, _, why)| why.clone());
        task.description.clone_from(&target.description);
        task.deps = self.deps(target, listed);
        let script = self.script(target);
        task.script = (!script.is_empty()).then_some(script);
        if let Some(defs) = &self.defs {
            let recipe: Vec<&str> = self
                .recipes_of(target)
                .flat_map(|r| r.recipe.iter().map(String::as_str))
                .collect();
            let file_prereqs = self.rules_of(target).any(|r| {
                r.unresolved_prereqs || r.prereqs.iter().any(|p| !index.contains_key(p.as_str()))
            });
            let mut reads = defs.reads_of(&recipe, &[target.name], file_prereqs);
            // A rule that remakes a makefile runs before anything else, every time.
            for makefile in &defs.makefiles {
                if makefile != target.name && listed(makefile) {
                    reads.runs(makefile.clone());
                }
            }
            task.reads = Some(Box::new(reads));
        }
        task
    }

    /// The listed prerequisites of `target` over all its rules, each once, at most
    /// [`MAX_DEPS`].
    fn deps(&self, target: &Target<'_>, listed: &dyn Fn(&str) -> bool) -> Vec<String> {
        let mut deps: Vec<String> = Vec::new();
        let mut seen = HashSet::new();
        'rules: for rule in self.rules_of(target) {
            for dep in &rule.prereqs {
                if dep != target.name && listed(dep) && seen.insert(dep.as_str()) {
                    deps.push(dep.clone());
                    if deps.len() >= MAX_DEPS {
                        break 'rules;
                    }
                }
            }
        }
        deps
    }

    /// The recipe `target` runs, bounded. A target that exists only under a condition agg
    /// could not evaluate, or whose recipe does, says so above its recipe: make may read
    /// another branch.
    fn script(&self, target: &Target<'_>) -> String {
        let mut notes: Vec<&str> = Vec::new();
        let conditional = self.rules_of(target).all(|r| r.note.is_some());
        for rule in self
            .rules_of(target)
            .filter(|r| conditional || !r.recipe.is_empty())
        {
            if let Some(note) = rule.note.as_deref().filter(|n| !notes.contains(n)) {
                notes.push(note);
            }
        }
        let notes: Vec<String> = notes
            .iter()
            .map(|note| {
                format!("# agg did not evaluate {note}; make may read this rule differently")
            })
            .collect();
        bounded_lines(
            notes.iter().map(String::as_str).chain(
                self.recipes_of(target)
                    .flat_map(|r| r.recipe.iter().map(String::as_str)),
            ),
            MAX_SCRIPT,
        )
    }
}

/// Records one variable definition for a decision: an assignment under its name, anything
/// else (`export X`, `undefine X`, a name agg cannot evaluate) as a directive or as what makes
/// the definition unknown.
fn record(defs: &mut Defs, var: &VariableDefinition) {
    let text = var.syntax().text().to_string();
    match var.name() {
        Some(name) if name.contains(['$', ' ', '\t']) => {
            defs.unknown(format!(
                "a variable whose name is computed (`{}`)",
                name.trim()
            ));
        }
        Some(name) if var.assignment_operator().is_some() || var.is_define() => {
            defs.assign(&name, &text, var.is_export());
        }
        _ => defs.directive(&text),
    }
}

/// One level of items being read, with the note of the undecided conditional it is in.
type Frame<'t> = (Box<dyn Iterator<Item = MakefileItem> + 't>, Option<String>);

/// Names a conditional for a note: its first line, cut short, and where it is.
fn condition_note(file: &FileText<'_>, cond: &Conditional) -> String {
    /// Characters of the condition kept in the note.
    const MAX_SHOWN: usize = 120;
    let line = file.line(usize::from(cond.text_range().start()));
    let text = usize::try_from(line)
        .ok()
        .and_then(|l| l.checked_sub(1))
        .and_then(|i| file.lines.get(i))
        .map_or("", |l| l.trim());
    let shown: String = text.chars().take(MAX_SHOWN).collect();
    let more = if shown.len() < text.len() { "…" } else { "" };
    format!("`{shown}{more}` ({}:{line})", file.path)
}

/// The targets of `rules` in the order they first appear, each with every rule that names
/// it; the index of each name in that order; and whether [`MAX_TASKS`] cut the list.
fn targets(rules: &[RuleDef]) -> (Vec<Target<'_>>, HashMap<&str, usize>, bool) {
    let mut order: Vec<Target<'_>> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut capped = false;
    for (i, rule) in rules.iter().enumerate() {
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
    (order, index, capped)
}

/// A target with every rule that mentions it, in file order.
pub(super) struct Target<'r> {
    pub(super) name: &'r str,
    /// The first rule: where the target is reported as defined.
    pub(super) first: &'r RuleDef,
    pub(super) rules: Vec<usize>,
    pub(super) description: Option<String>,
    /// The rules whose recipes run.
    pub(super) recipes: Vec<usize>,
}
