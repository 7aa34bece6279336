//! What a Gradle build script declares, read from its tokens: the tasks it creates, the
//! existing tasks it configures, the plugins it applies, and for which projects (the script's
//! own, every subproject through `subprojects {}`, all of them through `allprojects {}`, one
//! through `project(":x") {}`).
//!
//! Recognized task declarations: `task x`, `task x(type: T, description: …) {…}`,
//! `task('x')`, `task<T>("x")`, `tasks.register("x")`, `tasks.register<T>("x")`,
//! `tasks.create("x")`, `tasks.create(name: 'x')`, `tasks.register 'x'`,
//! `val x by tasks.registering`/`creating`, and `register("x")`/`create("x")`/`val x by
//! registering` inside a `tasks {}` block. Configured tasks: `tasks.named("x") {…}`,
//! `tasks.getByName("x") {…}`, `tasks.x {…}`, and `x {…}` at the top of a script or a
//! `tasks {}` block. Inside a task's own block, `description`, `group` and `dependsOn` with
//! literal values are read, and `enabled = false` (also `x.enabled = false`) marks a task
//! disabled. A name built at run time (a template, a variable, a loop) is not a name agg
//! can know: the declaration is reported (`unknown`) and lists nothing. The build types an
//! Android project declares in `android { buildTypes { … } }` are read for its variants.

use super::lexer::{Tok, Token, tokenize};

/// Which projects a declaration applies to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Scope {
    /// The project the script belongs to.
    Own,
    /// Every subproject (`subprojects {}`).
    Subprojects,
    /// The project and every subproject (`allprojects {}`).
    All,
    /// One project by path (`project(":app") {}`).
    Project(String),
}

/// A task declared or configured, with what its block says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct TaskDecl {
    pub scope: Scope,
    pub name: String,
    pub line: u32,
    pub description: Option<String>,
    pub group: Option<String>,
    pub deps: Vec<String>,
    /// `enabled = false` or `true`, when the block says so with a literal.
    pub enabled: Option<bool>,
    /// Declared inside a block other than a scope (`if`, `afterEvaluate`, `withType`): it may
    /// never run, so a second declaration of its name is no sure error.
    pub conditional: bool,
}

impl TaskDecl {
    /// A task named at `line` in `scope`, before its block says anything about it.
    fn new(scope: Scope, name: String, line: u32, conditional: bool) -> Self {
        TaskDecl {
            scope,
            name,
            line,
            description: None,
            group: None,
            deps: Vec::new(),
            enabled: None,
            conditional,
        }
    }
}

/// A plugin applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PluginUse {
    pub scope: Scope,
    pub id: String,
    pub line: u32,
}

/// Everything read from one script.
#[derive(Debug, Default)]
pub(super) struct Script {
    pub tasks: Vec<TaskDecl>,
    /// Existing tasks configured (`tasks.named("test") {…}`): they add a description to a
    /// task known otherwise, never a task of their own.
    pub configured: Vec<TaskDecl>,
    pub plugins: Vec<PluginUse>,
    /// Definite errors: line and message.
    pub problems: Vec<(u32, String)>,
    /// Declarations agg cannot read statically (a task named at run time): line and what.
    pub unknown: Vec<(u32, String)>,
    /// Android build types declared with a literal name (`buildTypes { staging {…} }`).
    pub build_types: Vec<String>,
}

/// What a `{` opens.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Plain,
    Scope(Scope),
    Plugins,
    /// `tasks {}` (Kotlin DSL): its statements are task declarations without `tasks.`.
    Tasks,
    /// A task's configuration block: index into `tasks` (`false`) or `configured` (`true`).
    Task(bool, usize),
    /// Android `buildTypes {}`: each block inside it names a build type.
    BuildTypes,
}

struct Frame {
    kind: Kind,
    /// The index of its `}` (or `usize::MAX` when it is never closed).
    end: usize,
    /// The innermost scope frame at or below this one, by index, so that finding the scope
    /// costs one step however deep the nesting.
    scope_at: Option<usize>,
    /// Whether this frame or one below it is not a scope (a declaration here is conditional).
    conditional: bool,
}

/// Methods of the task container that take a block but name no task (`tasks.configureEach {`).
const CONTAINER_METHODS: &[&str] = &[
    "all",
    "configureEach",
    "registering",
    "creating",
    "existing",
    "whenTaskAdded",
    "withType",
];

/// How far (in tokens) a property's value, a `dependsOn` list or a `plugins {}` line is read:
/// longer ones are not the literals agg reads, and the bound keeps nested statements linear.
const MAX_STATEMENT: usize = 512;

/// Generic arguments (`<Copy>`) longer than this are not generic arguments.
const MAX_GENERIC: usize = 64;

pub(super) fn read(text: &str, kotlin: bool) -> Script {
    let (tokens, unclosed) = tokenize(text, kotlin);
    let mut reader = Reader {
        pair: pairs(&tokens),
        t: &tokens,
        frames: Vec::new(),
        pending: None,
        out: Script::default(),
    };
    if let Some(u) = unclosed {
        reader
            .out
            .problems
            .push((u.line, format!("this {} is never closed", u.what)));
    }
    reader.unbalanced();
    reader.run();
    reader.out
}

/// For each bracket token, the index of its partner (`usize::MAX` when it has none).
fn pairs(tokens: &[Token]) -> Vec<usize> {
    let mut pair = vec![usize::MAX; tokens.len()];
    let mut stack: Vec<(usize, char)> = Vec::new();
    let mut open_count = [0usize; 3];
    let slot = |c: char| match c {
        '(' | ')' => 0,
        '[' | ']' => 1,
        _ => 2,
    };
    for (i, token) in tokens.iter().enumerate() {
        let Tok::Punct(c) = token.tok else {
            continue;
        };
        match c {
            '(' | '[' | '{' => {
                stack.push((i, c));
                open_count[slot(c)] += 1;
            }
            ')' | ']' | '}' => {
                let want = match c {
                    ')' => '(',
                    ']' => '[',
                    _ => '{',
                };
                if open_count[slot(c)] == 0 {
                    continue;
                }
                // Unmatched openers above the partner stay unmatched.
                while let Some((at, open)) = stack.pop() {
                    open_count[slot(open)] -= 1;
                    if open == want {
                        pair[at] = i;
                        pair[i] = at;
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    pair
}

struct Reader<'t> {
    t: &'t [Token],
    pair: Vec<usize>,
    frames: Vec<Frame>,
    /// The `{` that opens the block of the declaration just read, and what it is.
    pending: Option<(usize, Kind)>,
    out: Script,
}

impl Reader<'_> {
    /// Reports the first brace that has no partner.
    fn unbalanced(&mut self) {
        if let Some(i) = self
            .t
            .iter()
            .enumerate()
            .position(|(i, t)| (t.is('{') || t.is('}')) && self.pair[i] == usize::MAX)
        {
            let what = if self.t[i].is('{') {
                "this `{` is never closed"
            } else {
                "this `}` closes nothing"
            };
            self.out.problems.push((self.t[i].line, what.to_owned()));
        }
    }

    fn tok(&self, i: usize) -> Option<&Token> {
        self.t.get(i)
    }

    fn ident_at(&self, i: usize, name: &str) -> bool {
        self.tok(i).is_some_and(|t| t.is_ident(name))
    }

    fn punct_at(&self, i: usize, c: char) -> bool {
        self.tok(i).is_some_and(|t| t.is(c))
    }

    fn plain_at(&self, i: usize) -> Option<String> {
        self.tok(i).and_then(|t| t.plain_str()).map(str::to_owned)
    }

    /// Whether token `i` starts a statement.
    fn stmt_start(&self, i: usize) -> bool {
        i == 0
            || self.t[i].nl_before
            || self
                .tok(i - 1)
                .is_some_and(|t| t.is('{') || t.is('}') || t.is(';'))
    }

    /// The innermost scope.
    fn scope(&self) -> Scope {
        self.frames
            .last()
            .and_then(|f| f.scope_at)
            .and_then(|at| match &self.frames[at].kind {
                Kind::Scope(s) => Some(s.clone()),
                _ => None,
            })
            .unwrap_or(Scope::Own)
    }

    fn innermost(&self) -> Option<&Kind> {
        self.frames.last().map(|f| &f.kind)
    }

    /// Whether statements here are project-level (not inside a task or another DSL block
    /// such as `dependencies {}`), where `x {…}` configures task `x`.
    fn project_level(&self) -> bool {
        matches!(self.innermost(), None | Some(Kind::Scope(_) | Kind::Tasks))
    }

    /// Past generic arguments (`<Copy>`) at `i`, if there are any.
    fn skip_generic(&self, i: usize) -> usize {
        if !self.punct_at(i, '<') {
            return i;
        }
        let mut depth = 0usize;
        for j in i..self.t.len().min(i + MAX_GENERIC) {
            if self.t[j].is('<') {
                depth += 1;
            } else if self.t[j].is('>') {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            }
        }
        i
    }

    fn run(&mut self) {
        let mut i = 0;
        while i < self.t.len() {
            let token = &self.t[i];
            if token.is('{') {
                let kind = self.open_kind(i);
                let below = self.frames.last();
                let is_scope = matches!(kind, Kind::Scope(_));
                let scope_at = if is_scope {
                    Some(self.frames.len())
                } else {
                    below.and_then(|f| f.scope_at)
                };
                let conditional = below.is_some_and(|f| f.conditional)
                    || !matches!(kind, Kind::Scope(_) | Kind::Tasks);
                self.frames.push(Frame {
                    kind,
                    end: self.pair[i],
                    scope_at,
                    conditional,
                });
            } else if token.is('}') {
                if self.frames.last().is_some_and(|f| f.end == i) {
                    self.frames.pop();
                }
            } else if token.ident().is_some() {
                self.statement(i);
            }
            i += 1;
        }
    }

    /// What the `{` at `i` opens.
    fn open_kind(&mut self, i: usize) -> Kind {
        if let Some((at, kind)) = self.pending.take()
            && at == i
        {
            return kind;
        }
        let Some(prev) = i.checked_sub(1) else {
            return Kind::Plain;
        };
        let start = self.stmt_start(prev);
        if matches!(self.innermost(), Some(Kind::BuildTypes)) {
            // `staging {`, or Kotlin `create("staging") {` / `getByName("release") {`.
            let name = match self.t[prev].ident() {
                Some(name) if start => Some(name.to_owned()),
                None if self.t[prev].is(')') && prev >= 2 => {
                    let open = self.pair[prev];
                    (open != usize::MAX
                        && open + 2 == prev
                        && open >= 1
                        && self.stmt_start(open - 1))
                    .then(|| self.plain_at(open + 1))
                    .flatten()
                }
                _ => None,
            };
            if let Some(name) = name.filter(|n| !self.out.build_types.contains(n)) {
                self.out.build_types.push(name);
            }
            return Kind::Plain;
        }
        match self.t[prev].ident() {
            Some("buildTypes") if start => return Kind::BuildTypes,
            Some("subprojects") if start => return Kind::Scope(Scope::Subprojects),
            Some("allprojects") if start => return Kind::Scope(Scope::All),
            Some("plugins") if start => return Kind::Plugins,
            Some("tasks") if start && self.project_level() => return Kind::Tasks,
            Some(name) if start && self.project_level() => {
                let name = name.to_owned();
                return self.configure(name, self.t[prev].line);
            }
            _ => {}
        }
        // `project(":app") {`
        if self.t[prev].is(')') {
            let open = self.pair[prev];
            if open != usize::MAX
                && open >= 1
                && self.ident_at(open - 1, "project")
                && self.stmt_start(open - 1)
                && open + 2 == prev
                && let Some(path) = self.plain_at(open + 1)
            {
                return Kind::Scope(Scope::Project(path));
            }
        }
        Kind::Plain
    }

    /// Records a configuration of existing task `name` and returns its block kind.
    fn configure(&mut self, name: String, line: u32) -> Kind {
        self.out
            .configured
            .push(TaskDecl::new(self.scope(), name, line, false));
        Kind::Task(true, self.out.configured.len() - 1)
    }

    /// Reads the statement (or expression) that starts with the identifier at `i`.
    fn statement(&mut self, i: usize) {
        let name = self.t[i].ident().unwrap_or_default();
        let start = self.stmt_start(i);
        let in_tasks = matches!(self.innermost(), Some(Kind::Tasks));
        let after_tasks_dot = i >= 2 && self.t[i - 1].is('.') && self.t[i - 2].is_ident("tasks");
        match name {
            "task" if start => self.task_keyword(i),
            "register" | "create" | "maybeCreate" if after_tasks_dot || (start && in_tasks) => {
                self.register(i);
            }
            "named" | "getByName" if after_tasks_dot || (start && in_tasks) => {
                self.named(i);
            }
            "val" if start => self.delegated(i),
            "apply" => self.apply(i),
            "description" | "group" | "dependsOn" | "setDescription" | "setGroup" | "enabled"
            | "isEnabled" | "setEnabled"
                if start && matches!(self.innermost(), Some(Kind::Task(..))) =>
            {
                self.property(i);
            }
            "enabled" | "isEnabled" if i >= 2 && self.t[i - 1].is('.') => self.member_enabled(i),
            _ if start && matches!(self.innermost(), Some(Kind::Plugins)) => self.plugin_line(i),
            _ if after_tasks_dot
                && self.punct_at(i + 1, '{')
                && !CONTAINER_METHODS.contains(&name)
                && self.pending.as_ref().is_none_or(|(at, _)| *at != i + 1) =>
            {
                // `tasks.test {` (Kotlin DSL accessor).
                let kind = self.configure(name.to_owned(), self.t[i].line);
                self.pending = Some((i + 1, kind));
            }
            _ => {}
        }
    }

    /// `task x …`, `task 'x' …`, `task('x') …`, `task<T>("x") …`.
    fn task_keyword(&mut self, i: usize) {
        let line = self.t[i].line;
        let mut j = self.skip_generic(i + 1);
        if self.tok(j).is_none_or(|t| t.nl_before) {
            // The name is on the same line in every form.
            return;
        }
        let (name, next) = match self.tok(j).map(|t| &t.tok) {
            Some(Tok::Ident(name)) if !self.punct_at(j + 1, '.') && !self.punct_at(j + 1, '=') => {
                (Some(name.clone()), j + 1)
            }
            Some(Tok::Str { value, plain }) => (plain.then(|| value.clone()), j + 1),
            Some(Tok::Punct('(')) => {
                // `task('x', type: Copy)`: the name is the first argument.
                let name = match self.tok(j + 1).map(|t| &t.tok) {
                    Some(Tok::Str { value, plain: true }) => Some(value.clone()),
                    Some(Tok::Ident(n))
                        if self.punct_at(j + 2, ')') || self.punct_at(j + 2, ',') =>
                    {
                        Some(n.clone())
                    }
                    _ => None,
                };
                (name, j)
            }
            _ => return,
        };
        let Some(name) = name else {
            if matches!(
                self.tok(j).map(|t| &t.tok),
                Some(Tok::Str { plain: false, .. })
            ) {
                self.unknown_name(j, line);
            } else if self.punct_at(j, '(')
                && matches!(
                    self.tok(j + 1).map(|t| &t.tok),
                    Some(Tok::Str { plain: false, .. })
                )
            {
                self.unknown_name(j + 1, line);
            }
            return;
        };
        j = next;
        let index = self.declare(name, line);
        self.after_call(j, index);
    }

    /// Records a new task in the current scope and returns its index.
    fn declare(&mut self, name: String, line: u32) -> usize {
        let conditional = self.frames.last().is_some_and(|f| f.conditional);
        self.out
            .tasks
            .push(TaskDecl::new(self.scope(), name, line, conditional));
        self.out.tasks.len() - 1
    }

    /// After a declaration's name at `j`: map arguments in parentheses, then its block.
    fn after_call(&mut self, mut j: usize, index: usize) {
        if self.punct_at(j, '(') && self.pair[j] != usize::MAX {
            let close = self.pair[j];
            self.map_arguments(j, close, index);
            j = close + 1;
        }
        if self.punct_at(j, '{') {
            self.pending = Some((j, Kind::Task(false, index)));
        }
    }

    /// `description: 'd', group: 'g', dependsOn: [...]` inside the parentheses `open..close`.
    fn map_arguments(&mut self, open: usize, close: usize, index: usize) {
        let mut k = open + 1;
        while k < close {
            if self.punct_at(k + 1, ':')
                && let Some(key) = self.t[k].ident()
            {
                let value = self.plain_at(k + 2);
                let task = &mut self.out.tasks[index];
                match key {
                    "description" => task.description = value.or(task.description.take()),
                    "group" => task.group = value.or(task.group.take()),
                    "dependsOn" => {
                        let end = self.argument_end(k + 2, close);
                        let deps = self.names_in(k + 2, end);
                        self.out.tasks[index].deps.extend(deps);
                    }
                    _ => {}
                }
            }
            k = self.skip_nested(k) + 1;
        }
    }

    /// The index past a bracket group starting at `k`, or `k` itself.
    fn skip_nested(&self, k: usize) -> usize {
        if (self.t[k].is('(') || self.t[k].is('[') || self.t[k].is('{'))
            && self.pair[k] != usize::MAX
        {
            self.pair[k]
        } else {
            k
        }
    }

    /// The end (exclusive) of the argument starting at `k`: the next top-level `,` or `limit`.
    fn argument_end(&self, mut k: usize, limit: usize) -> usize {
        let limit = limit.min(k.saturating_add(MAX_STATEMENT));
        while k < limit && !self.t[k].is(',') {
            k = self.skip_nested(k) + 1;
        }
        k.min(limit)
    }

    /// Task names in `from..to`: literal strings, bare names and `tasks.x`/`tasks.named("x")`.
    fn names_in(&self, from: usize, to: usize) -> Vec<String> {
        let to = to.min(from.saturating_add(MAX_STATEMENT));
        let mut names = Vec::new();
        let mut k = from;
        while k < to {
            let token = &self.t[k];
            if let Some(s) = token.plain_str() {
                names.push(s.to_owned());
            } else if let Some(name) = token.ident() {
                let member = k >= 1 && self.t[k - 1].is('.');
                let called = self.punct_at(k + 1, '(') || self.punct_at(k + 1, '.');
                let after_tasks = member && k >= 2 && self.t[k - 2].is_ident("tasks");
                if (!member || after_tasks) && !called && name != "tasks" && name != "it" {
                    names.push(name.to_owned());
                }
            }
            k += 1;
        }
        names.dedup();
        names
    }

    /// `register("x") …` (after `tasks.` or inside `tasks {}`), Groovy `register 'x'`, and
    /// `create(name: 'x')`.
    fn register(&mut self, i: usize) {
        let line = self.t[i].line;
        let j = self.skip_generic(i + 1);
        if let Some(name) = self.plain_at(j) {
            // Groovy command form: `tasks.register 'x', Copy`.
            let index = self.declare(name, line);
            let mut k = j + 1;
            while self.punct_at(k, ',') {
                k += 2;
            }
            self.after_call(k, index);
            return;
        }
        if !self.punct_at(j, '(') {
            return;
        }
        let name = if self.ident_at(j + 1, "name") && self.punct_at(j + 2, ':') {
            self.plain_at(j + 3)
        } else {
            self.plain_at(j + 1)
        };
        if let Some(name) = name {
            let index = self.declare(name, line);
            self.after_call(j, index);
        } else {
            let at = if self.ident_at(j + 1, "name") && self.punct_at(j + 2, ':') {
                j + 3
            } else {
                j + 1
            };
            // A template or a variable; `register()` with nothing is not a declaration.
            if self.tok(at).is_some_and(|t| {
                matches!(t.tok, Tok::Str { plain: false, .. })
                    || (t.ident().is_some()
                        && (self.punct_at(at + 1, ')') || self.punct_at(at + 1, ',')))
            }) {
                self.unknown_name(at, line);
            }
        }
    }

    /// `tasks.named("x") {…}` / `tasks.getByName("x") {…}`.
    fn named(&mut self, i: usize) {
        let j = self.skip_generic(i + 1);
        if !self.punct_at(j, '(') || self.pair[j] == usize::MAX {
            return;
        }
        let Some(name) = self.plain_at(j + 1) else {
            return;
        };
        let mut after = self.pair[j] + 1;
        // `.configure {` on the provider.
        if self.punct_at(after, '.') && self.ident_at(after + 1, "configure") {
            after += 2;
        }
        if self.punct_at(after, '{') {
            let kind = self.configure(name, self.t[i].line);
            self.pending = Some((after, kind));
        }
    }

    /// `val x by tasks.registering …` / `val x by registering` inside `tasks {}`.
    fn delegated(&mut self, i: usize) {
        let Some(name) = self.tok(i + 1).and_then(|t| t.ident()).map(str::to_owned) else {
            return;
        };
        if !self.ident_at(i + 2, "by") {
            return;
        }
        let mut j = i + 3;
        if self.ident_at(j, "tasks") && self.punct_at(j + 1, '.') {
            j += 2;
        } else if !matches!(self.innermost(), Some(Kind::Tasks)) {
            return;
        }
        if !(self.ident_at(j, "registering") || self.ident_at(j, "creating")) {
            return;
        }
        let index = self.declare(name, self.t[i].line);
        self.after_call(j + 1, index);
    }

    /// `apply plugin: 'x'`, `apply(plugin = "x")`, `plugins.apply("x")`,
    /// `pluginManager.apply("x")`.
    fn apply(&mut self, i: usize) {
        let line = self.t[i].line;
        let id = if self.ident_at(i + 1, "plugin") && self.punct_at(i + 2, ':') {
            self.plain_at(i + 3)
        } else if self.punct_at(i + 1, '(')
            && self.ident_at(i + 2, "plugin")
            && self.punct_at(i + 3, '=')
        {
            self.plain_at(i + 4)
        } else if i >= 1 && self.t[i - 1].is('.') && self.punct_at(i + 1, '(') {
            self.plain_at(i + 2)
        } else {
            None
        };
        if let Some(id) = id {
            self.out.plugins.push(PluginUse {
                scope: self.scope(),
                id,
                line,
            });
        }
    }

    /// One line of a `plugins {}` block: `id("x")`, `id 'x'`, `kotlin("jvm")`, `java`,
    /// `` `java-library` ``; not when it ends with `apply false`.
    fn plugin_line(&mut self, i: usize) {
        let name = self.t[i].ident().unwrap_or_default();
        let id = match name {
            "id" if self.punct_at(i + 1, '(') => self.plain_at(i + 2),
            "id" => self.plain_at(i + 1),
            "kotlin" if self.punct_at(i + 1, '(') => self
                .plain_at(i + 2)
                .map(|m| format!("org.jetbrains.kotlin.{m}")),
            // A version catalog's alias names its plugin only in the catalog; the Android
            // plugins go by the accessors their catalogs conventionally give them.
            "alias" if self.punct_at(i + 1, '(') => {
                let close = self.pair[i + 1].min(i + 2 + MAX_GENERIC);
                let path: Vec<&str> = (i + 2..close)
                    .filter_map(|k| self.tok(k).and_then(|t| t.ident()))
                    .collect();
                match path.join(".").to_ascii_lowercase().as_str() {
                    p if p.ends_with("plugins.android.application")
                        || p.ends_with("plugins.androidapplication") =>
                    {
                        Some("com.android.application".to_owned())
                    }
                    p if p.ends_with("plugins.android.library")
                        || p.ends_with("plugins.androidlibrary") =>
                    {
                        Some("com.android.library".to_owned())
                    }
                    _ => None,
                }
            }
            "alias" | "apply" | "version" => None,
            _ if self.punct_at(i + 1, '(') || self.punct_at(i + 1, '.') => None,
            other => Some(other.to_owned()),
        };
        let Some(id) = id else {
            return;
        };
        // The rest of the statement: `version "1.0" apply false`.
        let mut k = i + 1;
        let mut applied = true;
        while let Some(t) = self.tok(k) {
            if t.nl_before || t.is(';') || t.is('}') || k > i + MAX_STATEMENT {
                break;
            }
            if t.is_ident("apply") && self.ident_at(k + 1, "false") {
                applied = false;
            }
            k = self.skip_nested(k) + 1;
        }
        if applied {
            self.out.plugins.push(PluginUse {
                scope: self.scope(),
                id,
                line: self.t[i].line,
            });
        }
    }

    /// `description = "…"`, `description "…"`, `group …`, `dependsOn …` directly inside a
    /// task's block.
    fn property(&mut self, i: usize) {
        let Some(Kind::Task(existing, index)) = self.innermost().cloned() else {
            return;
        };
        let key = self.t[i].ident().unwrap_or_default();
        // The value: after `=`, inside `(…)`, or the command argument.
        let (from, to) = if self.punct_at(i + 1, '=') {
            (i + 2, self.statement_end(i + 2))
        } else if self.punct_at(i + 1, '(') && self.pair[i + 1] != usize::MAX {
            (i + 2, self.pair[i + 1])
        } else {
            (i + 1, self.statement_end(i + 1))
        };
        let value = if to == from + 1 {
            self.plain_at(from)
        } else {
            None
        };
        let deps = if key == "dependsOn" {
            self.names_in(from, to)
        } else {
            Vec::new()
        };
        let list = if existing {
            &mut self.out.configured
        } else {
            &mut self.out.tasks
        };
        let Some(task) = list.get_mut(index) else {
            return;
        };
        let flag = (to == from + 1)
            .then(|| self.t[from].ident())
            .flatten()
            .and_then(|v| v.parse::<bool>().ok());
        match key {
            "enabled" | "isEnabled" | "setEnabled" if flag.is_some() => task.enabled = flag,
            "description" | "setDescription" if value.is_some() => task.description = value,
            "group" | "setGroup" if value.is_some() => task.group = value,
            "dependsOn" => {
                for d in deps {
                    if !task.deps.contains(&d) {
                        task.deps.push(d);
                    }
                }
            }
            _ => {}
        }
    }

    /// `x.enabled = false`, `tasks.x.enabled = false`, `tasks.named("x").get().enabled = …`
    /// at project level: a configuration of `x`.
    fn member_enabled(&mut self, i: usize) {
        if !self.project_level() || !self.punct_at(i + 1, '=') {
            return;
        }
        let Some(flag) = self
            .tok(i + 2)
            .and_then(|t| t.ident())
            .and_then(|v| v.parse::<bool>().ok())
        else {
            return;
        };
        let owner = i - 2;
        // `tasks.getByName("x").enabled = false`, `tasks.named("x").get().enabled = …`.
        let by_call = self.t[owner].is(')').then(|| {
            let mut close = owner;
            // `.get()` on a provider.
            if close >= 3
                && self.punct_at(close - 1, '(')
                && self.ident_at(close - 2, "get")
                && self.punct_at(close - 3, '.')
            {
                close -= 4;
            }
            let open = self
                .pair
                .get(close)
                .copied()
                .filter(|&o| o != usize::MAX && o + 2 == close && o >= 3)?;
            let method = self.t[open - 1].ident()?;
            (matches!(method, "getByName" | "named")
                && self.punct_at(open - 2, '.')
                && self.ident_at(open - 3, "tasks")
                && self.stmt_start(open - 3))
            .then(|| self.plain_at(open + 1))
            .flatten()
        });
        if let Some(name) = by_call.flatten() {
            self.configure(name, self.t[i].line);
            if let Some(last) = self.out.configured.last_mut() {
                last.enabled = Some(flag);
            }
            return;
        }
        let name = match self.t[owner].ident() {
            Some(name) if name != "it" && name != "this" && name != "tasks" => {
                let start = self.stmt_start(owner)
                    || (owner >= 2
                        && self.t[owner - 1].is('.')
                        && self.t[owner - 2].is_ident("tasks")
                        && self.stmt_start(owner - 2));
                start.then(|| name.to_owned())
            }
            _ => None,
        };
        if let Some(name) = name {
            self.configure(name, self.t[i].line);
            if let Some(last) = self.out.configured.last_mut() {
                last.enabled = Some(flag);
            }
        }
    }

    /// Reports a declaration whose task name is built at run time.
    fn unknown_name(&mut self, at: usize, line: u32) {
        let shown = match self.tok(at).map(|t| &t.tok) {
            Some(Tok::Str { value, .. }) if value.contains('$') => format!("\"{value}\""),
            Some(Tok::Str { value, .. }) => format!("\"{value}${{…}}\""),
            Some(Tok::Ident(name)) => name.clone(),
            _ => return,
        };
        self.out.unknown.push((
            line,
            format!(
                "a task named at run time ({shown}): agg reads the script without running it and lists no task for it"
            ),
        ));
    }

    /// The end (exclusive) of the statement whose value starts at `k`: the next line
    /// break, `;` or `}` outside brackets, past a trailing `,` continuing the line.
    fn statement_end(&self, mut k: usize) -> usize {
        let first = k;
        while let Some(t) = self.tok(k) {
            let continued = k > first && self.t[k - 1].is(',');
            if (k > first && t.nl_before && !continued)
                || t.is(';')
                || t.is('}')
                || k > first + MAX_STATEMENT
            {
                break;
            }
            k = self.skip_nested(k).saturating_add(1);
        }
        k.min(self.t.len())
    }
}

#[cfg(test)]
mod tests {
    use super::{Scope, read};
    use indoc::{formatdoc, indoc};

    fn names(text: &str, kotlin: bool) -> Vec<String> {
        read(text, kotlin)
            .tasks
            .into_iter()
            .map(|t| t.name)
            .collect()
    }

    #[test]
    fn groovy_declarations() {
        let text = r#"
task hello {
    description = 'Says hello'
    group 'demo'
    dependsOn 'prep', compileJava
    doLast { description = 'not this' }
}
task copyDocs(type: Copy, description: 'Copy the docs', dependsOn: ['hello', tasks.jar]) {
    from 'docs'
}
task('quoted')
task 'spaced'
tasks.register('registered') {
    description = 'Registered lazily'
}
tasks.register 'command', Exec
tasks.create(name: 'made', type: Zip)
// task commented
def s = 'task inString'
task "${name}Later"
tasks.register("gen${v}")
"#;
        let script = read(text, false);
        let got: Vec<&str> = script.tasks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            got,
            [
                "hello",
                "copyDocs",
                "quoted",
                "spaced",
                "registered",
                "command",
                "made"
            ]
        );
        let hello = &script.tasks[0];
        assert_eq!(hello.line, 2);
        assert_eq!(hello.description.as_deref(), Some("Says hello"));
        assert_eq!(hello.group.as_deref(), Some("demo"));
        assert_eq!(hello.deps, ["prep", "compileJava"]);
        let copy = &script.tasks[1];
        assert_eq!(copy.description.as_deref(), Some("Copy the docs"));
        assert_eq!(copy.deps, ["hello", "jar"]);
        assert_eq!(
            script.tasks[4].description.as_deref(),
            Some("Registered lazily")
        );
        assert!(script.problems.is_empty(), "{:?}", script.problems);
    }

    #[test]
    fn kotlin_declarations() {
        let text = r#"
plugins {
    `java-library`
    application
    kotlin("jvm") version "2.0.0"
    id("org.springframework.boot") version "3.3.0" apply false
    id("com.example.custom")
}
tasks.register("hello") {
    description = "Says hello"; group = "demo"
    dependsOn(tasks.named("jar"), "prep")
}
tasks.register<Copy>("copyDocs")
val fatJar by tasks.registering(Jar::class) {
    description = "Everything in one jar"
}
val other by tasks.creating
tasks {
    register("inside") { group = "x" }
    val alsoInside by registering
    test { description = "Unit tests" }
}
tasks.named<Test>("test") { description = "Runs tests" }
tasks.jar { description = "The jar" }
/* tasks.register("commented") /* nested */ tasks.register("still commented") */
val n = "task x"
tasks.register("gen$n")
"#;
        let script = read(text, true);
        let got: Vec<&str> = script.tasks.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            got,
            [
                "hello",
                "copyDocs",
                "fatJar",
                "other",
                "inside",
                "alsoInside"
            ]
        );
        assert_eq!(script.tasks[0].group.as_deref(), Some("demo"));
        assert_eq!(script.tasks[0].deps, ["jar", "prep"]);
        assert_eq!(
            script.tasks[2].description.as_deref(),
            Some("Everything in one jar")
        );
        let plugins: Vec<&str> = script.plugins.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(
            plugins,
            [
                "java-library",
                "application",
                "org.jetbrains.kotlin.jvm",
                "com.example.custom"
            ]
        );
        let configured: Vec<(&str, Option<&str>)> = script
            .configured
            .iter()
            .map(|c| (c.name.as_str(), c.description.as_deref()))
            .collect();
        assert_eq!(
            configured,
            [
                ("test", Some("Unit tests")),
                ("test", Some("Runs tests")),
                ("jar", Some("The jar"))
            ]
        );
    }

    #[test]
    fn scopes_follow_subprojects_allprojects_and_project_blocks() {
        let text = indoc! {"
            allprojects {
              apply plugin: 'base'
            }
            subprojects {
              apply plugin: 'java'
              task sub
            }
            project(':app') {
              apply(plugin = \"application\")
              task appOnly
            }
            task mine
        "};
        let script = read(text, false);
        // The tasks, then the plugins, each with what it applies to.
        let scopes: Vec<(&str, &Scope)> = script
            .tasks
            .iter()
            .map(|t| (t.name.as_str(), &t.scope))
            .chain(script.plugins.iter().map(|p| (p.id.as_str(), &p.scope)))
            .collect();
        assert_eq!(
            scopes,
            [
                ("sub", &Scope::Subprojects),
                ("appOnly", &Scope::Project(":app".into())),
                ("mine", &Scope::Own),
                ("base", &Scope::All),
                ("java", &Scope::Subprojects),
                ("application", &Scope::Project(":app".into()))
            ]
        );
    }

    #[test]
    fn broken_scripts_report_what_is_definitely_wrong() {
        let script = read(
            indoc! {"
                task a {
                  description = 'x'

                task b
            "},
            false,
        );
        assert_eq!(
            names(
                indoc! {"
                    task a {

                    task b
                "},
                false
            ),
            ["a", "b"]
        );
        assert_eq!(
            script.problems,
            [(1, "this `{` is never closed".to_owned())]
        );
        let script = read(
            indoc! {"
                task a
                }
                task b 'oops
                task c
            "},
            false,
        );
        assert_eq!(
            script.problems,
            [
                (3, "this string is never closed".to_owned()),
                (2, "this `}` closes nothing".to_owned())
            ]
        );
        assert_eq!(
            names(
                indoc! {"
                    task a
                    }
                    task b 'oops
                    task c
                "},
                false
            ),
            ["a", "b", "c"]
        );
    }

    #[test]
    fn hostile_nesting_stays_linear() {
        let deep = format!("{}task x{}", "a {".repeat(100_000), "}".repeat(100_000));
        assert_eq!(names(&deep, false), ["x"]);
        let parens = "(".repeat(100_000);
        assert!(names(&parens, true).is_empty());
        let generics = format!("task{}", "<".repeat(100_000));
        assert!(names(&generics, true).is_empty());
        let declared_deep = format!("{}{}", "task x {".repeat(100_000), "}".repeat(100_000));
        assert_eq!(read(&declared_deep, false).tasks.len(), 100_000);
        let nested = formatdoc! {"
            task a {{
            {}{}
            }}",
            "description = (;".repeat(50_000),
            ")".repeat(50_000)
        };
        assert_eq!(names(&nested, false), ["a"]);
        let plugins = formatdoc! {"
            plugins {{
            {}{}
            }}",
            "id(;".repeat(50_000),
            ")".repeat(50_000)
        };
        assert!(read(&plugins, true).plugins.is_empty());
    }
}
