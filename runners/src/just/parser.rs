//! The justfile parser: one file's text to the items listing needs (recipes, aliases,
//! imports, modules, the duplicate-recipes setting), skipping assignments and settings.
//!
//! It follows just's grammar closely enough to find item boundaries exactly, and recovers
//! from a bad item at the next unindented line, so one mistake never hides later recipes.

use super::attributes::{self, ItemKind, Written};
use super::lexer::{Body, Error, Kind, Lexer, Token};
use crate::model::Passing;
use crate::model::{Param, Variadic};
use crate::text::LineIndex;

/// Bits for just's operating-system attributes.
pub(super) mod os {
    pub const ANDROID: u16 = 1;
    pub const DRAGONFLY: u16 = 1 << 1;
    pub const FREEBSD: u16 = 1 << 2;
    pub const LINUX: u16 = 1 << 3;
    pub const MACOS: u16 = 1 << 4;
    pub const NETBSD: u16 = 1 << 5;
    pub const OPENBSD: u16 = 1 << 6;
    pub const UNIX: u16 = 1 << 7;
    pub const WINDOWS: u16 = 1 << 8;

    /// The bit of an attribute name, or 0 when it is not an OS attribute.
    pub fn bit(name: &str) -> u16 {
        match name {
            "android" => ANDROID,
            "dragonfly" => DRAGONFLY,
            "freebsd" => FREEBSD,
            "linux" => LINUX,
            "macos" => MACOS,
            "netbsd" => NETBSD,
            "openbsd" => OPENBSD,
            "unix" => UNIX,
            "windows" => WINDOWS,
            _ => 0,
        }
    }
}

/// A recipe as written in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Recipe {
    pub name: String,
    pub line: u32,
    pub params: Vec<Param>,
    /// Dependency names as written (`dep`, `mod::dep`), prior and subsequent ones in order.
    pub deps: Vec<String>,
    pub description: Option<String>,
    pub private: bool,
    pub group: Option<String>,
    /// The question `[confirm]` or `[confirm('prompt')]` makes just ask, as just prints it.
    pub confirm: Option<String>,
    /// OS attribute bits; 0 when the recipe runs everywhere.
    pub os: u16,
    /// Body lines, dedented.
    pub body: Vec<String>,
    /// Its attributes and its line (name, parameters and their defaults, dependencies and
    /// their arguments), each token once with single spaces: what else a pin holds of it.
    pub header: String,
}

/// A setting, an assignment or an `unexport`, as a pin holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Def {
    /// What it is.
    pub kind: DefKind,
    /// The setting's or variable's name.
    pub name: String,
    /// Its tokens with single spaces.
    pub text: String,
}

/// The kinds of [`Def`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DefKind {
    /// `set name …`.
    Setting,
    /// `name := …`, `eager name := …`.
    Assignment,
    /// `export name := …`.
    Exported,
    /// `unexport name`.
    Unexport,
}

/// An `alias name := target`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Alias {
    pub name: String,
    /// The target path as written, `::`-joined.
    pub target: String,
    pub line: u32,
    pub private: bool,
}

/// A `mod [?] name ['path']` declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Module {
    pub name: String,
    pub path: Option<String>,
    pub optional: bool,
    /// Declared `[private] mod`: just hides all of its recipes.
    pub private: bool,
    pub line: u32,
}

/// The items of a file that listing cares about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Item {
    Recipe(Recipe),
    Alias(Alias),
    Import {
        path: String,
        optional: bool,
        line: u32,
    },
    Module(Module),
    /// `set allow-duplicate-recipes` (without `:= false`).
    AllowDuplicateRecipes,
}

/// A parsed file: its items in order and the problems found, by 1-based line.
#[derive(Debug, Default)]
pub(super) struct Ast {
    pub items: Vec<Item>,
    pub errors: Vec<(u32, String)>,
    /// The first error for which just refuses the whole justfile, with its line (also in
    /// `errors`).
    pub refused: Option<(u32, String)>,
    /// Settings, assignments and `unexport`s, in order.
    pub defs: Vec<Def>,
}

/// How many errors one file reports before it only says there are more.
const MAX_ERRORS: usize = 100;

/// One attribute: its name and positional string arguments (cooked).
#[derive(Debug, Clone)]
struct Attribute {
    name: String,
    args: Vec<String>,
}

/// What a recipe's attributes say about how it is listed and run: `[private]`, `[doc]`, the
/// first `[group]`, `[confirm]` (just's own question when it gives none) and the OS ones.
fn apply_attributes(attributes: &[Attribute], recipe: &mut Recipe) {
    for attribute in attributes {
        match attribute.name.as_str() {
            "private" => recipe.private = true,
            "doc" => recipe.description = attribute.args.first().cloned(),
            "group" => {
                if recipe.group.is_none() {
                    recipe.group = attribute.args.first().cloned();
                }
            }
            "confirm" => {
                recipe.confirm = Some(
                    attribute
                        .args
                        .first()
                        .cloned()
                        .unwrap_or_else(|| format!("Run recipe `{}`?", recipe.name)),
                );
            }
            other => recipe.os |= os::bit(other),
        }
    }
}

/// Parses one justfile.
pub(super) fn parse(text: &str) -> Ast {
    let mut parser = Parser {
        src: text,
        lexer: Lexer::new(text),
        lines: LineIndex::new(text),
        ast: Ast::default(),
        attributes: Vec::new(),
        comment: None,
    };
    parser.run();
    parser.ast
}

struct Parser<'a> {
    src: &'a str,
    lexer: Lexer<'a>,
    lines: LineIndex,
    ast: Ast,
    /// Attributes waiting for the item they belong to, with the line of the first.
    attributes: Vec<(u32, Attribute)>,
    /// The comment on the line just above, a candidate doc comment.
    comment: Option<String>,
}

impl<'a> Parser<'a> {
    fn error(&mut self, offset: usize, message: impl Into<String>) {
        let line = self.lines.line(offset);
        self.error_at_line(line, message.into());
    }

    /// Records an error; past [`MAX_ERRORS`] only notes that more were found, so a file
    /// of garbage yields a readable report.
    fn error_at_line(&mut self, line: u32, message: String) {
        match self.ast.errors.len().cmp(&MAX_ERRORS) {
            std::cmp::Ordering::Less => self.ast.errors.push((line, message)),
            std::cmp::Ordering::Equal => self.ast.errors.push((
                line,
                "too many errors; later ones are not reported".to_owned(),
            )),
            std::cmp::Ordering::Greater => {}
        }
    }

    /// Records an error for which just refuses the whole justfile.
    fn refuse(&mut self, line: u32, message: String) {
        if self.ast.refused.is_none() {
            self.ast.refused = Some((line, message.clone()));
        }
        self.error_at_line(line, message);
    }

    /// The waiting attributes as just's checks see them.
    fn written(&self) -> Vec<Written<'_>> {
        self.attributes
            .iter()
            .map(|(line, a)| Written {
                name: &a.name,
                args: a.args.len(),
                line: *line,
            })
            .collect()
    }

    /// Checks the waiting attributes against the item they precede, as just does.
    fn check_item(&mut self, item: ItemKind, name: &str, line: u32) {
        if let Some((at, message)) = attributes::check(&self.written(), item, name, line) {
            self.refuse(at, message);
        }
    }

    fn text(&self, token: Token) -> &'a str {
        self.src.get(token.start..token.end).unwrap_or_default()
    }

    fn run(&mut self) {
        while !self.lexer.at_eof() {
            if self.lexer.at_indented_line() {
                let at = self.lexer.pos();
                self.error(at, "indented line outside a recipe body");
                self.lexer.skip_indented();
                self.drop_attributes();
                self.comment = None;
                continue;
            }
            let start = self.lexer.pos();
            let result = self
                .lexer
                .logical_line()
                .and_then(|tokens| self.item(&tokens, start));
            if let Err(error) = result {
                self.error(error.offset, error.message);
                self.attributes.clear();
                self.comment = None;
                self.lexer.recover(start);
            }
        }
        self.drop_attributes();
    }

    /// Reports attributes that no item claimed (just's words).
    fn drop_attributes(&mut self) {
        if let Some(&(line, _)) = self.attributes.first() {
            let count = self.attributes.len();
            let message = if count == 1 {
                "extraneous attribute".to_owned()
            } else {
                "extraneous attributes".to_owned()
            };
            self.refuse(line, message);
        }
        self.attributes.clear();
    }

    fn take_attributes(&mut self) -> Vec<Attribute> {
        std::mem::take(&mut self.attributes)
            .into_iter()
            .map(|(_, a)| a)
            .collect()
    }

    /// Handles one logical line; `start` is where it begins.
    fn item(&mut self, tokens: &[Token], start: usize) -> Result<(), Error> {
        let kind = |i: usize| tokens.get(i).map(|t| t.kind);
        let src = self.src;
        let word = |i: usize| {
            tokens
                .get(i)
                .filter(|t| t.kind == Kind::Ident)
                .map(|t| src.get(t.start..t.end).unwrap_or_default())
        };
        match kind(0) {
            None => {
                self.drop_attributes();
                self.comment = None;
                return Ok(());
            }
            Some(Kind::Comment) if tokens.len() == 1 => {
                self.drop_attributes();
                let token = tokens.first().copied();
                let text = token.map(|t| self.text(t)).unwrap_or_default();
                // A `#!` on the very first line is the file's shebang, never a doc comment.
                let shebang = token.is_some_and(|t| t.start == 0) && text.starts_with("#!");
                self.comment =
                    (!shebang).then(|| text.get(1..).unwrap_or_default().trim().to_owned());
                return Ok(());
            }
            Some(Kind::LBracket) => {
                let line = self.lines.line(start);
                for attribute in self.attributes(tokens)? {
                    self.attributes.push((line, attribute));
                }
                return Ok(());
            }
            _ => {}
        }
        let after_name = kind(2);
        let starts_recipe = kind(0) == Some(Kind::Ident)
            || (kind(0) == Some(Kind::At) && kind(1) == Some(Kind::Ident));
        let line = self.lines.line(start);
        let item = match (word(0), kind(1)) {
            (Some("alias"), Some(Kind::Ident)) if after_name == Some(Kind::ColonEq) => {
                Some(self.alias(tokens, start)?)
            }
            (Some(first @ ("export" | "eager")), Some(Kind::Ident))
                if after_name == Some(Kind::ColonEq) =>
            {
                let name = word(1).unwrap_or_default();
                self.check_item(ItemKind::Assignment, name, line);
                let kind = if first == "export" {
                    DefKind::Exported
                } else {
                    DefKind::Assignment
                };
                self.def(kind, name, tokens);
                None
            }
            (Some("import"), Some(Kind::Question | Kind::Str)) => Some(self.import(tokens, start)?),
            (Some("mod"), Some(Kind::Question | Kind::Ident)) => Some(self.module(tokens, start)?),
            (Some("set"), Some(Kind::Ident))
                if matches!(after_name, None | Some(Kind::ColonEq | Kind::Comment)) =>
            {
                self.check_item(ItemKind::Setting, word(1).unwrap_or_default(), line);
                self.def(DefKind::Setting, word(1).unwrap_or_default(), tokens);
                self.set(tokens)
            }
            (Some(name), Some(Kind::ColonEq)) => {
                self.check_item(ItemKind::Assignment, name, line);
                self.def(DefKind::Assignment, name, tokens);
                None
            }
            (Some("unexport"), Some(Kind::Ident)) => {
                self.check_item(ItemKind::Unexport, word(1).unwrap_or_default(), line);
                self.def(DefKind::Unexport, word(1).unwrap_or_default(), tokens);
                None
            }
            _ if starts_recipe => Some(self.recipe(tokens)?),
            _ => {
                let at = tokens.first().map_or(start, |t| t.start);
                return Err(Error::new(
                    at,
                    "expected a recipe, alias, assignment, setting, import or module",
                ));
            }
        };
        // Assignments and settings may carry attributes (`[private] x := …`); drop them quietly.
        self.attributes.clear();
        self.comment = None;
        if let Some(item) = item {
            self.ast.items.push(item);
        }
        Ok(())
    }

    /// Records a setting, an assignment or an `unexport` for pins.
    fn def(&mut self, kind: DefKind, name: &str, tokens: &[Token]) {
        let text = self.words(tokens);
        self.ast.defs.push(Def {
            kind,
            name: name.to_owned(),
            text,
        });
    }

    /// The tokens of a line, comments left out, with single spaces.
    fn words(&self, tokens: &[Token]) -> String {
        tokens
            .iter()
            .filter(|t| t.kind != Kind::Comment)
            .map(|&t| self.text(t))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Parses `[a, b('x'), c: 'y']` lines into attributes.
    fn attributes(&self, tokens: &[Token]) -> Result<Vec<Attribute>, Error> {
        let mut out = Vec::new();
        let mut i = 1;
        loop {
            let Some(&name) = tokens.get(i).filter(|t| t.kind == Kind::Ident) else {
                return Err(self.expected(tokens, i, "an attribute name"));
            };
            let mut attribute = Attribute {
                name: self.text(name).to_owned(),
                args: Vec::new(),
            };
            i += 1;
            match tokens.get(i).map(|t| t.kind) {
                Some(Kind::Colon) => {
                    let end = self.value_end(tokens, i + 1)?;
                    if let Some(&t) = tokens.get(i + 1) {
                        attribute
                            .args
                            .push(self.cooked(t).unwrap_or_else(|| self.text(t).to_owned()));
                    }
                    i = end;
                }
                Some(Kind::LParen) => {
                    let close = self.matching_paren(tokens, i)?;
                    let mut j = i + 1;
                    while let Some(&t) = tokens.get(j).filter(|_| j < close) {
                        let keyword = tokens.get(j + 1).is_some_and(|n| n.kind == Kind::Eq);
                        if keyword {
                            j = self.value_end(tokens, j + 2)?;
                            continue;
                        }
                        if t.kind != Kind::Comma {
                            let end = self.value_end(tokens, j)?;
                            attribute
                                .args
                                .push(self.cooked(t).unwrap_or_else(|| self.span(tokens, j, end)));
                            j = end;
                            continue;
                        }
                        j += 1;
                    }
                    i = close + 1;
                }
                _ => {}
            }
            out.push(attribute);
            match tokens.get(i).map(|t| t.kind) {
                Some(Kind::Comma) => i += 1,
                Some(Kind::RBracket) => {
                    i += 1;
                    break;
                }
                _ => return Err(self.expected(tokens, i, "`,` or `]`")),
            }
        }
        self.end_of_line(tokens, i)?;
        Ok(out)
    }

    /// An error naming what was expected at token `i`.
    fn expected(&self, tokens: &[Token], i: usize, what: &str) -> Error {
        match tokens.get(i) {
            Some(&t) => Error::new(
                t.start,
                format!("expected {what}, found `{}`", self.text(t)),
            ),
            None => Error::new(
                tokens.last().map_or(0, |t| t.end),
                format!("expected {what} before the end of the line"),
            ),
        }
    }

    /// Checks that nothing but a comment follows token `i - 1`.
    fn end_of_line(&self, tokens: &[Token], i: usize) -> Result<(), Error> {
        match tokens.get(i) {
            None => Ok(()),
            Some(t) if t.kind == Kind::Comment && i + 1 == tokens.len() => Ok(()),
            Some(_) => Err(self.expected(tokens, i, "the end of the line")),
        }
    }

    /// The index of the `)` matching the `(` at `open`.
    fn matching_paren(&self, tokens: &[Token], open: usize) -> Result<usize, Error> {
        let mut depth = 0usize;
        for (j, t) in tokens.iter().enumerate().skip(open) {
            match t.kind {
                Kind::LParen => depth += 1,
                Kind::RParen => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Ok(j);
                    }
                }
                _ => {}
            }
        }
        Err(self.expected(tokens, tokens.len(), "`)`"))
    }

    /// The index just past the value starting at token `i`: a string, a format string, a
    /// variable, a call `f(…)` or a parenthesised expression.
    fn value_end(&self, tokens: &[Token], i: usize) -> Result<usize, Error> {
        match tokens.get(i).map(|t| t.kind) {
            Some(Kind::FmtOpen) => {
                let mut depth = 0usize;
                for (j, t) in tokens.iter().enumerate().skip(i) {
                    match t.kind {
                        Kind::FmtOpen => depth += 1,
                        Kind::FmtClose => {
                            depth = depth.saturating_sub(1);
                            if depth == 0 {
                                return Ok(j + 1);
                            }
                        }
                        _ => {}
                    }
                }
                Err(self.expected(tokens, tokens.len(), "the end of the format string"))
            }
            Some(Kind::Ident) if tokens.get(i + 1).map(|t| t.kind) == Some(Kind::LParen) => {
                Ok(self.matching_paren(tokens, i + 1)? + 1)
            }
            Some(Kind::Ident | Kind::Str) => Ok(i + 1),
            Some(Kind::LParen) => Ok(self.matching_paren(tokens, i)? + 1),
            _ => Err(self.expected(tokens, i, "a value")),
        }
    }

    /// The source text of tokens `from..to`.
    fn span(&self, tokens: &[Token], from: usize, to: usize) -> String {
        let start = tokens.get(from).map_or(0, |t| t.start);
        let end = to
            .checked_sub(1)
            .and_then(|j| tokens.get(j))
            .map_or(start, |t| t.end);
        self.src.get(start..end).unwrap_or_default().to_owned()
    }

    /// The value of a plain string literal token; `None` for anything else (backticks,
    /// `x`/`f` strings, names).
    fn cooked(&self, token: Token) -> Option<String> {
        if token.kind != Kind::Str {
            return None;
        }
        cook(self.text(token))
    }

    fn alias(&mut self, tokens: &[Token], start: usize) -> Result<Item, Error> {
        let name = tokens
            .get(1)
            .map(|&t| self.text(t).to_owned())
            .unwrap_or_default();
        let (target, end) = self.path(tokens, 3)?;
        self.end_of_line(tokens, end)?;
        self.check_item(ItemKind::Alias, &name, self.lines.line(start));
        let attributes = self.take_attributes();
        let private = name.starts_with('_') || attributes.iter().any(|a| a.name == "private");
        Ok(Item::Alias(Alias {
            name,
            target,
            line: self.lines.line(start),
            private,
        }))
    }

    /// Reads `a::b::c` from token `i`; returns it and the index after it.
    fn path(&self, tokens: &[Token], mut i: usize) -> Result<(String, usize), Error> {
        let mut path = String::new();
        loop {
            let Some(&t) = tokens.get(i).filter(|t| t.kind == Kind::Ident) else {
                return Err(self.expected(tokens, i, "a recipe name"));
            };
            path.push_str(self.text(t));
            i += 1;
            if tokens.get(i).map(|t| t.kind) != Some(Kind::ColonColon) {
                return Ok((path, i));
            }
            path.push_str("::");
            i += 1;
        }
    }

    fn import(&mut self, tokens: &[Token], start: usize) -> Result<Item, Error> {
        let optional = tokens.get(1).map(|t| t.kind) == Some(Kind::Question);
        let i = 1 + usize::from(optional);
        let path = tokens
            .get(i)
            .and_then(|&t| self.cooked(t))
            .ok_or_else(|| self.expected(tokens, i, "a quoted path"))?;
        self.end_of_line(tokens, i + 1)?;
        let written = tokens.get(i).map(|&t| self.text(t)).unwrap_or_default();
        self.check_item(ItemKind::Import, written, self.lines.line(start));
        self.attributes.clear();
        Ok(Item::Import {
            path,
            optional,
            line: self.lines.line(start),
        })
    }

    fn module(&mut self, tokens: &[Token], start: usize) -> Result<Item, Error> {
        let optional = tokens.get(1).map(|t| t.kind) == Some(Kind::Question);
        let mut i = 1 + usize::from(optional);
        let Some(&name) = tokens.get(i).filter(|t| t.kind == Kind::Ident) else {
            return Err(self.expected(tokens, i, "a module name"));
        };
        i += 1;
        let path = match tokens.get(i) {
            Some(&t) if t.kind == Kind::Str => {
                i += 1;
                Some(
                    self.cooked(t)
                        .ok_or_else(|| Error::new(t.start, "expected a quoted path"))?,
                )
            }
            _ => None,
        };
        self.end_of_line(tokens, i)?;
        self.check_item(ItemKind::Module, self.text(name), self.lines.line(start));
        let attributes = self.take_attributes();
        Ok(Item::Module(Module {
            name: self.text(name).to_owned(),
            path,
            optional,
            private: attributes.iter().any(|a| a.name == "private"),
            line: self.lines.line(start),
        }))
    }

    fn set(&self, tokens: &[Token]) -> Option<Item> {
        if tokens.get(1).map(|&t| self.text(t)) != Some("allow-duplicate-recipes") {
            return None;
        }
        let assigned = tokens.get(2).is_some_and(|t| t.kind == Kind::ColonEq);
        let value = tokens.get(3).filter(|_| assigned);
        match value.map(|&t| self.text(t)) {
            None | Some("true") => Some(Item::AllowDuplicateRecipes),
            Some(_) => None,
        }
    }

    /// Parses `[@]name params… : deps… [&& deps…]` and the body below it.
    fn recipe(&mut self, tokens: &[Token]) -> Result<Item, Error> {
        let mut i = usize::from(tokens.first().map(|t| t.kind) == Some(Kind::At));
        let Some(&name) = tokens.get(i).filter(|t| t.kind == Kind::Ident) else {
            return Err(self.expected(tokens, i, "a recipe name"));
        };
        let line = self.lines.line(name.start);
        i += 1;
        let params = self.parameters(tokens, &mut i, name)?;
        i += 1;
        let deps = self.dependencies(tokens, &mut i)?;
        self.end_of_line(tokens, i)?;

        self.check_item(ItemKind::Recipe, self.text(name), line);
        let comment = self.comment.take();
        let body = self.lexer.body();
        let Body { lines, errors } = body;
        for error in errors {
            self.error(error.offset, error.message);
        }
        let script = lines.first().is_some_and(|l| l.starts_with("#!"));
        let written = self.written();
        let together = attributes::check_recipe(&written, self.text(name), script);
        drop(written);
        if let Some(message) = together {
            self.refuse(line, message);
        }
        let attributes = self.take_attributes();
        let header = self.header(&attributes, tokens);
        let mut recipe = Recipe {
            name: self.text(name).to_owned(),
            line,
            params,
            deps,
            description: comment,
            private: self.text(name).starts_with('_'),
            group: None,
            confirm: None,
            os: 0,
            body: lines.into_iter().map(str::to_owned).collect(),
            header,
        };
        apply_attributes(&attributes, &mut recipe);
        recipe.description = recipe
            .description
            .map(|d| d.trim().to_owned())
            .filter(|d| !d.is_empty());
        Ok(Item::Recipe(recipe))
    }

    /// What a pin holds of a recipe besides its body: the attributes that change what runs
    /// (`[doc]`, `[group]` and `[private]` change how it is listed, not that) and its line.
    fn header(&self, attributes: &[Attribute], tokens: &[Token]) -> String {
        let mut header: Vec<String> = attributes
            .iter()
            .filter(|a| !matches!(a.name.as_str(), "doc" | "group" | "private"))
            .map(|a| format!("[{}({})]", a.name, a.args.join(", ")))
            .collect();
        header.push(self.words(tokens));
        header.join(" ")
    }

    /// The parameters of recipe `name`, from token `*i` up to the `:` (left at `*i`).
    fn parameters(
        &self,
        tokens: &[Token],
        i: &mut usize,
        name: Token,
    ) -> Result<Vec<Param>, Error> {
        let mut params = Vec::new();
        while tokens.get(*i).map(|t| t.kind) != Some(Kind::Colon) {
            let variadic = match tokens.get(*i).map(|t| t.kind) {
                Some(Kind::Plus) => Some(Variadic::OneOrMore),
                Some(Kind::Star) => Some(Variadic::ZeroOrMore),
                _ => None,
            };
            *i += usize::from(variadic.is_some());
            let exported = tokens.get(*i).map(|t| t.kind) == Some(Kind::Dollar);
            *i += usize::from(exported);
            let Some(&param) = tokens.get(*i).filter(|t| t.kind == Kind::Ident) else {
                return Err(match tokens.get(*i) {
                    None => Error::new(
                        tokens.last().map_or(name.end, |t| t.end),
                        format!(
                            "recipe `{}` has no `:` after its name and parameters",
                            self.text(name)
                        ),
                    ),
                    Some(_) => self.expected(tokens, *i, "a parameter or `:`"),
                });
            };
            *i += 1;
            let mut default = None;
            if tokens.get(*i).map(|t| t.kind) == Some(Kind::Eq) {
                let end = self.value_end(tokens, *i + 1)?;
                default = Some(
                    tokens
                        .get(*i + 1)
                        .filter(|_| end == *i + 2)
                        .and_then(|&t| self.cooked(t))
                        .unwrap_or_else(|| self.span(tokens, *i + 1, end)),
                );
                *i = end;
            }
            params.push(Param {
                name: self.text(param).to_owned(),
                required: default.is_none() && variadic != Some(Variadic::ZeroOrMore),
                default,
                variadic,
                exported,
                passing: Passing::Positional,
                ..Param::default()
            });
        }
        Ok(params)
    }

    /// The dependencies after a recipe's `:`, from token `*i` to the end of the line or a
    /// comment (left at `*i`): names, `(name args…)` calls, and those after `&&`.
    fn dependencies(&self, tokens: &[Token], i: &mut usize) -> Result<Vec<String>, Error> {
        let mut deps = Vec::new();
        let mut subsequent = false;
        loop {
            match tokens.get(*i).map(|t| t.kind) {
                None | Some(Kind::Comment) => break,
                Some(Kind::Ident) => {
                    let (dep, end) = self.path(tokens, *i)?;
                    deps.push(dep);
                    *i = end;
                }
                Some(Kind::LParen) => {
                    let close = self.matching_paren(tokens, *i)?;
                    let (dep, _) = self.path(tokens, *i + 1)?;
                    deps.push(dep);
                    *i = close + 1;
                }
                Some(Kind::AndAnd) if !subsequent => {
                    subsequent = true;
                    *i += 1;
                }
                _ => return Err(self.expected(tokens, *i, "a dependency")),
            }
        }
        Ok(deps)
    }
}

/// The value of a string literal as written (`'…'`, `"…"`, `'''…'''`, `"""…"""`); `None`
/// for backticks and prefixed strings, whose value is only known when just runs.
pub(super) fn cook(text: &str) -> Option<String> {
    let (quote, triple) = if text.starts_with("'''") || text.starts_with("\"\"\"") {
        (text.get(..1)?, true)
    } else {
        (text.get(..1)?, false)
    };
    if quote != "'" && quote != "\"" {
        return None;
    }
    let delimiter_len = if triple { 3 } else { 1 };
    let inner = text.get(delimiter_len..text.len().checked_sub(delimiter_len)?)?;
    let value = if quote == "\"" {
        unescape(inner)
    } else {
        inner.to_owned()
    };
    Some(if triple { unindent(&value) } else { value })
}

/// Resolves just's escapes in a double-quoted string.
fn unescape(inner: &str) -> String {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('"') => out.push('"'),
            Some('\\') | None => out.push('\\'),
            Some('\n') => {
                // An escaped newline joins the lines and drops the next line's indentation.
                let rest = chars.as_str().trim_start_matches([' ', '\t']);
                chars = rest.chars();
            }
            Some('u') => {
                let rest = chars.as_str();
                let decoded = rest
                    .strip_prefix('{')
                    .and_then(|r| r.split_once('}'))
                    .and_then(|(hex, after)| {
                        let c = u32::from_str_radix(hex, 16).ok().and_then(char::from_u32)?;
                        Some((c, after))
                    });
                if let Some((c, after)) = decoded {
                    out.push(c);
                    chars = after.chars();
                } else {
                    out.push_str("\\u");
                }
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    out
}

/// Dedents a triple-quoted string the way just does: drops a leading newline and the
/// common indentation of the non-blank lines.
fn unindent(text: &str) -> String {
    let text = text
        .strip_prefix("\r\n")
        .or_else(|| text.strip_prefix('\n'))
        .unwrap_or(text);
    let common = text
        .split('\n')
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches([' ', '\t']).len())
        .min()
        .unwrap_or(0);
    text.split('\n')
        .map(|l| {
            l.get(common..)
                .unwrap_or_else(|| l.trim_start_matches([' ', '\t']))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use indoc::indoc;

    fn recipes(text: &str) -> Vec<Recipe> {
        parse(text)
            .items
            .into_iter()
            .filter_map(|item| match item {
                Item::Recipe(r) => Some(r),
                _ => None,
            })
            .collect()
    }

    fn recipe(text: &str, name: &str) -> Recipe {
        recipes(text)
            .into_iter()
            .find(|r| r.name == name)
            .unwrap_or_else(|| panic!("no recipe {name}"))
    }

    fn param(
        name: &str,
        default: Option<&str>,
        variadic: Option<Variadic>,
        exported: bool,
    ) -> Param {
        Param {
            name: name.to_owned(),
            default: default.map(str::to_owned),
            required: default.is_none() && variadic != Some(Variadic::ZeroOrMore),
            variadic,
            exported,
            passing: Passing::Positional,
            ..Param::default()
        }
    }

    #[test]
    fn parameters_of_every_kind() {
        let text = concat!(
            "VERSION := '1.0'\n",
            "release plain $exp single='s' double=\"d\\tq\" var=VERSION expr=(VERSION + \"-rc\") \\\n",
            "    call=env('HOME', '/') tick=`date +%s` fmt=f'v{{VERSION}}' tilde=x'~/bin' *rest:\n",
            "  echo\n",
            "one +$files='a.txt':\n",
            "two *$args:\n",
            "three +items:\n",
        );
        let release = recipe(text, "release");
        assert_eq!(
            release.params,
            vec![
                param("plain", None, None, false),
                param("exp", None, None, true),
                param("single", Some("s"), None, false),
                param("double", Some("d\tq"), None, false),
                param("var", Some("VERSION"), None, false),
                param("expr", Some("(VERSION + \"-rc\")"), None, false),
                param("call", Some("env('HOME', '/')"), None, false),
                param("tick", Some("`date +%s`"), None, false),
                param("fmt", Some("f'v{{VERSION}}'"), None, false),
                param("tilde", Some("x'~/bin'"), None, false),
                param("rest", None, Some(Variadic::ZeroOrMore), false),
            ]
        );
        assert_eq!(
            recipe(text, "one").params,
            vec![param(
                "files",
                Some("a.txt"),
                Some(Variadic::OneOrMore),
                true
            )]
        );
        assert_eq!(
            recipe(text, "two").params,
            vec![param("args", None, Some(Variadic::ZeroOrMore), true)]
        );
        let three = recipe(text, "three").params;
        assert!(three[0].required);
        assert_eq!(three[0].variadic, Some(Variadic::OneOrMore));
    }

    #[test]
    fn dependencies_keep_order_and_drop_arguments() {
        let text = "all: clean (build 'release' VERSION + \"x\") tools::fmt && (notify \"done\") publish # go\n";
        assert_eq!(
            recipe(text, "all").deps,
            vec!["clean", "build", "tools::fmt", "notify", "publish"]
        );
    }

    #[test]
    fn doc_comments_follow_just_rules() {
        let text = concat!(
            "#!/usr/bin/env just --justfile\n",
            "first:\n",
            "# not a doc: a blank line follows\n",
            "\n",
            "plain:\n",
            "# the first of two lines\n",
            "#   the doc comment   \n",
            "[group('g')]\n",
            "[private]\n",
            "attributed:\n",
            "# ignored\n",
            "[doc(\"from the attribute\")]\n",
            "overridden:\n",
            "# hidden by an empty doc attribute\n",
            "[doc]\n",
            "suppressed:\n",
            "#!not the first line\n",
            "bang:\n",
            "after: # a trailing comment documents nothing\n",
            "next:\n",
        );
        let doc = |name: &str| recipe(text, name).description;
        assert_eq!(doc("first"), None);
        assert_eq!(doc("plain"), None);
        assert_eq!(doc("attributed").as_deref(), Some("the doc comment"));
        assert_eq!(doc("overridden").as_deref(), Some("from the attribute"));
        assert_eq!(doc("suppressed"), None);
        assert_eq!(doc("bang").as_deref(), Some("!not the first line"));
        assert_eq!(doc("next"), None);
    }

    #[test]
    fn attributes_in_every_form() {
        let text = indoc! {"
            [private, no-exit-message]
            [group: 'ci']
            [group(\"second\")]
            [confirm('Sure?'), script('python3'), linux, windows]
            [arg('x', long='ex', help=\"an x\"), metadata('a', 'b')]
            [working-directory: 'sub', extension: '.py', positional-arguments, parallel, default]
            run x:
              print(1)
            _underscored:
        "};
        let run = recipe(text, "run");
        assert!(run.private);
        assert_eq!(run.group.as_deref(), Some("ci"));
        assert_eq!(run.os, os::LINUX | os::WINDOWS);
        assert!(recipe(text, "_underscored").private);
        let ast = parse(text);
        assert!(ast.errors.is_empty(), "{:?}", ast.errors);
        assert_eq!(ast.refused, None);
    }

    /// Attributes just rejects: the justfile, then the line and message `just --summary` 1.59
    /// gives.
    const REJECTED_ATTRIBUTES: [(&str, u32, &str); 14] = [
        (
            indoc! {"
                [private]

                foo:
                  echo
            "},
            1,
            "extraneous attribute",
        ),
        (
            indoc! {"
                [private, unix]
                # c
                foo:
                  echo
            "},
            1,
            "extraneous attributes",
        ),
        (
            indoc! {"
                [foo]
                foo:
                  echo
            "},
            1,
            "unknown attribute `foo`",
        ),
        (
            indoc! {"
                [private('x')]
                foo:
                  echo
            "},
            1,
            "attribute `private` got 1 argument but takes 0 arguments",
        ),
        (
            indoc! {"
                [group]
                foo:
                  echo
            "},
            1,
            "attribute `group` got 0 arguments but takes 1 argument",
        ),
        (
            indoc! {"
                [doc('a', 'b')]
                foo:
                  echo
            "},
            1,
            "attribute `doc` got 2 arguments but takes at most 1 argument",
        ),
        (
            indoc! {"
                [metadata]
                foo:
                  echo
            "},
            1,
            "attribute `metadata` got 0 arguments but takes at least 1 argument",
        ),
        (
            indoc! {"
                [private]
                [private]
                foo:
                  echo
            "},
            2,
            "attribute `private` first used on line 1 is duplicated on line 2",
        ),
        (
            indoc! {"
                [no-cd]
                alias f := foo
                foo:
                  echo
            "},
            2,
            "alias `f` has invalid attribute `no-cd`",
        ),
        (
            indoc! {"
                [confirm]
                x := '1'
                foo:
                  echo
            "},
            2,
            "assignment `x` has invalid attribute `confirm`",
        ),
        (
            indoc! {"
                [private]
                set shell := ['bash']
                foo:
                  echo
            "},
            2,
            "setting `shell` has invalid attribute `private`",
        ),
        (
            indoc! {"
                [private]
                import 'x.just'
                foo:
                  echo
            "},
            2,
            "import `'x.just'` has invalid attribute `private`",
        ),
        (
            indoc! {"
                [no-cd, working-directory('x')]
                foo:
                  echo
            "},
            2,
            "recipe `foo` has both `[no-cd]` and `[working-directory]` attributes",
        ),
        (
            indoc! {"
                [extension('.sh')]
                foo:
                  echo
            "},
            2,
            "shell recipe `foo` has script recipe attribute `extension`",
        ),
    ];

    #[test]
    fn attributes_just_rejects_are_refusals_in_its_words() {
        for (text, line, message) in REJECTED_ATTRIBUTES {
            let ast = parse(text);
            assert_eq!(
                ast.refused,
                Some((line, message.to_owned())),
                "{text:?}: {:?}",
                ast.errors
            );
        }
        // What just accepts: repeatable attributes, OS attributes anywhere, `[private]`
        // on assignments, script attributes on a `#!` recipe.
        let fine = indoc! {"
            [group('a')]
            [group('b')]
            foo:
              echo
            [private]
            export x := '1'
            [linux]
            alias f := foo
            [extension('.sh')]
            sh:
              #!/bin/sh
              echo
            [doc('m'), group('g'), private]
            mod? m
        "};
        let ast = parse(fine);
        assert_eq!(ast.refused, None, "{:?}", ast.errors);
    }

    #[test]
    fn non_recipe_items_are_skipped() {
        let text = concat!(
            "set dotenv-load\n",
            "set shell := [\"bash\", \"-uc\"]\n",
            "set windows-shell := [\n  \"pwsh.exe\",\n  \"-c\",\n]\n",
            "export RUST_LOG := \"info\"\n",
            "unexport PAGER\n",
            "eager x := `date`\n",
            "[private]\n",
            "y := if os() == \"linux\" {\n  \"l\"\n} else {\n  'o'\n}\n",
            "z := '''\n  not-a-recipe:\n'''\n",
            "w := ```\n  fake: dep\n```\n",
            "v := \"a\" + \\\n  \"b:\"\n",
            "u := (\n  'p' /\n  'q'\n)\n",
            "real:\n",
        );
        let ast = parse(text);
        assert!(ast.errors.is_empty(), "{:?}", ast.errors);
        assert_eq!(ast.items.len(), 1);
        assert_eq!(recipe(text, "real").line, 28);
    }

    #[test]
    fn keywords_can_name_recipes() {
        let text = indoc! {"
            import:
            mod:
            set:
            alias:
            export:
        "};
        let names: Vec<String> = recipes(text).into_iter().map(|r| r.name).collect();
        assert_eq!(names, vec!["import", "mod", "set", "alias", "export"]);
    }

    #[test]
    fn imports_modules_aliases_and_settings() {
        let text = indoc! {"
            import 'a.just'
            import? \"b.just\" # optional
            mod tools
            [private]
            mod? extra 'x/extra.just'
            alias t := tools::test
            [private]
            alias p := t
            set allow-duplicate-recipes := false
            set allow-duplicate-recipes
        "};
        assert_eq!(
            parse(text).items,
            vec![
                Item::Import {
                    path: "a.just".into(),
                    optional: false,
                    line: 1
                },
                Item::Import {
                    path: "b.just".into(),
                    optional: true,
                    line: 2
                },
                Item::Module(Module {
                    name: "tools".into(),
                    path: None,
                    optional: false,
                    private: false,
                    line: 3
                }),
                Item::Module(Module {
                    name: "extra".into(),
                    path: Some("x/extra.just".into()),
                    optional: true,
                    private: true,
                    line: 5
                }),
                Item::Alias(Alias {
                    name: "t".into(),
                    target: "tools::test".into(),
                    line: 6,
                    private: false
                }),
                Item::Alias(Alias {
                    name: "p".into(),
                    target: "t".into(),
                    line: 8,
                    private: true
                }),
                Item::AllowDuplicateRecipes,
            ]
        );
    }

    #[test]
    fn bodies_keep_their_text() {
        let text = indoc! {"
            lookalike:
                echo start
                other: dep

                [not-an-attribute]
                alias x := y


            py:
            \t#!/usr/bin/env python3
            \tif True:
            \t    print('{{ \"x\" }}')
        "};
        assert_eq!(
            recipe(text, "lookalike").body,
            vec![
                "echo start",
                "other: dep",
                "",
                "[not-an-attribute]",
                "alias x := y"
            ]
        );
        assert_eq!(
            recipe(text, "py").body,
            vec![
                "#!/usr/bin/env python3",
                "if True:",
                "    print('{{ \"x\" }}')"
            ]
        );
        assert_eq!(recipes(text).len(), 2);
    }

    #[test]
    fn mistakes_are_reported_with_lines_and_parsing_resumes() {
        let text = indoc! {"
            ok1:
            old = \"assignment syntax\"
            no-colon a b
              echo skipped body
            [private] same-line:
            quote: (dep \"unterminated)
              echo more
            ok2:
              echo
            # comment ends the body
              echo orphan
            [group('x')]

            ok3:
        "};
        let ast = parse(text);
        let lines: Vec<u32> = ast.errors.iter().map(|e| e.0).collect();
        assert_eq!(lines, vec![2, 3, 5, 6, 11, 12], "{:?}", ast.errors);
        let names: Vec<String> = recipes(text).into_iter().map(|r| r.name).collect();
        assert_eq!(names, vec!["ok1", "ok2", "ok3"]);
        assert_eq!(
            ast.errors[1].1,
            "recipe `no-colon` has no `:` after its name and parameters"
        );
    }

    #[test]
    fn a_flood_of_errors_is_capped() {
        let text = "'\n".repeat(500) + "ok:\n";
        let ast = parse(&text);
        assert_eq!(ast.errors.len(), MAX_ERRORS + 1);
        assert_eq!(recipes(&text).len(), 1);
    }

    #[test]
    fn strings_are_cooked_like_just() {
        assert_eq!(cook("'raw\\n'").as_deref(), Some("raw\\n"));
        assert_eq!(
            cook(r#""a\tb\"c\\d\u{41}""#).as_deref(),
            Some("a\tb\"c\\dA")
        );
        assert_eq!(
            cook("\"joined \\\n   line\"").as_deref(),
            Some("joined line")
        );
        assert_eq!(
            cook(indoc! {"
                '''
                  foo
                    bar
                '''"})
            .as_deref(),
            Some(indoc! {"
                foo
                  bar
            "})
        );
        assert_eq!(cook("`cmd`"), None);
    }
}
