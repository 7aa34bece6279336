//! `CMakePresets.json` and `CMakeUserPresets.json` (cmake-presets(7)): the files and what
//! they `include`, every preset of the five kinds, `inherits` resolved the way CMake resolves
//! it (the preset's own field, else the first parent's, maps merged key by key), `condition`
//! evaluated where it can be without the environment, and the macros of `binaryDir`
//! expanded. What CMake would refuse is a diagnostic naming the file and line.

use std::collections::{BTreeMap, HashMap};

use crate::doc::{self, Dialect, Node, Report, Terms};
use crate::files::{Files, join, parent, relative};
use crate::model::Parsed;

/// How many presets files one project may pull in through `include`.
const MAX_FILES: usize = 64;
/// Conditions nested deeper than this are undecided (and the preset listed).
const MAX_CONDITION_DEPTH: usize = 32;
/// Bound on macro expansion inside macro values (`$env{A}` naming `$env{B}` …).
const MAX_EXPANSION: usize = 8;
/// How many macros one string may expand, counting those inside macro values.
const MAX_MACROS: usize = 256;
/// The longest expansion kept; anything longer is no path anyone wrote.
const MAX_EXPANDED_LEN: usize = 4_096;
/// The longest `matches` regular expression compiled, in bytes of its compiled program.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// The five kinds of preset, each with its array's key and the prefix of its task names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Kind {
    Configure,
    Build,
    Test,
    Package,
    Workflow,
}

impl Kind {
    pub(super) const ALL: [Kind; 5] = [
        Kind::Configure,
        Kind::Build,
        Kind::Test,
        Kind::Package,
        Kind::Workflow,
    ];

    fn key(self) -> &'static str {
        match self {
            Kind::Configure => "configurePresets",
            Kind::Build => "buildPresets",
            Kind::Test => "testPresets",
            Kind::Package => "packagePresets",
            Kind::Workflow => "workflowPresets",
        }
    }

    /// The word a workflow step's `type` uses, and the prefix of the task's name.
    pub(super) fn word(self) -> &'static str {
        match self {
            Kind::Configure => "configure",
            Kind::Build => "build",
            Kind::Test => "test",
            Kind::Package => "package",
            Kind::Workflow => "workflow",
        }
    }

    fn from_word(word: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.word() == word)
    }
}

/// One preset as written.
pub(super) struct Preset {
    pub kind: Kind,
    pub name: String,
    pub file: String,
    pub line: u32,
    pub hidden: bool,
    pub inherits: Vec<String>,
    pub display_name: Option<String>,
    pub description: Option<String>,
    node: Node,
}

/// Every preset of one project, in file order (`CMakePresets.json`, what it includes, then
/// `CMakeUserPresets.json`).
#[derive(Default)]
pub(super) struct Presets {
    pub list: Vec<Preset>,
    /// Index of each preset by kind and name.
    by_name: HashMap<(Kind, String), usize>,
    /// Presets caught in an `inherits` cycle: CMake refuses them.
    cyclic: Vec<bool>,
    /// The project directory (root-relative), for `${sourceDir}` and relative paths.
    dir: String,
    /// The project directory's own name (`${sourceDirName}`), when known.
    dir_name: Option<String>,
    /// Which file includes which (`CMakeUserPresets.json` includes `CMakePresets.json`): a
    /// preset may use only presets of its own file and of the files it reaches this way.
    includes: Vec<(String, String)>,
}

/// Reads the presets files of the project in `dir`: `first` (already read, with `text`) and,
/// when `first` is `CMakePresets.json`, the `CMakeUserPresets.json` beside it. Every other
/// file read is added to `out.consumed`.
pub(super) fn read(
    files: &dyn Files,
    dir: &str,
    first: &str,
    text: &str,
    out: &mut Parsed,
) -> Presets {
    let dir_name = if dir == "." {
        files.root_name()
    } else {
        Some(crate::files::file_name(dir).to_owned())
    };
    let mut loader = Loader {
        files,
        presets: Presets {
            dir: dir.to_owned(),
            dir_name,
            ..Presets::default()
        },
        seen: Vec::new(),
    };
    let user = join(dir, "CMakeUserPresets.json").unwrap_or_default();
    let main = join(dir, "CMakePresets.json").unwrap_or_default();
    if first == main {
        loader.load(first, text, &mut Vec::new(), out);
        if files.exists(&user) {
            loader.presets.includes.push((user.clone(), main.clone()));
            loader.read_and_load(&user, None, &mut Vec::new(), out);
        }
    } else {
        // `CMakeUserPresets.json` alone, or beside a `CMakePresets.json` it includes
        // implicitly.
        if files.exists(&main) {
            loader
                .presets
                .includes
                .push((first.to_owned(), main.clone()));
            loader.read_and_load(&main, None, &mut Vec::new(), out);
        }
        loader.load(first, text, &mut Vec::new(), out);
    }
    for file in loader.seen.iter().filter(|f| f.as_str() != first) {
        out.consumed.push(file.clone());
    }
    let mut presets = loader.presets;
    presets.find_cycles(out);
    presets
}

struct Loader<'a> {
    files: &'a dyn Files,
    presets: Presets,
    /// Every file read, in order.
    seen: Vec<String>,
}

impl Loader<'_> {
    fn read_and_load(
        &mut self,
        path: &str,
        from: Option<(&str, u32)>,
        chain: &mut Vec<String>,
        out: &mut Parsed,
    ) {
        match self.files.read(path) {
            Ok(text) => self.load(path, &text, chain, out),
            Err(reason) => match from {
                Some((file, line)) => out.diag(
                    file,
                    Some(line),
                    format!("cannot read included `{path}`: {reason}"),
                ),
                None => out.diag(path, None, reason.to_string()),
            },
        }
    }

    fn load(&mut self, path: &str, text: &str, chain: &mut Vec<String>, out: &mut Parsed) {
        if self.seen.iter().any(|s| s == path) {
            // A file included twice (a diamond) is read once; its presets are there already.
            return;
        }
        self.seen.push(path.to_owned());
        let Some(root) = doc::read_jsonc(text, Dialect::Loose)
            .and_then(|root| root.into_table_or("a presets file must be an object", Terms::Toml))
            .or_report(path, out)
        else {
            return;
        };
        match root.get("version") {
            None => out.diag(
                path,
                Some(1),
                "no `version`: CMake refuses a presets file without one",
            ),
            Some(v) if !matches!(v.scalar().map(str::parse::<u32>), Some(Ok(1..))) => {
                out.diag(
                    path,
                    Some(v.line),
                    "`version` must be a positive whole number",
                );
            }
            Some(_) => {}
        }
        for kind in Kind::ALL {
            let Some(list) = root.get(kind.key()) else {
                continue;
            };
            let Some(items) = list.items() else {
                list.mismatch(&format!("`{}` must be an array", kind.key()), Terms::Toml)
                    .report(path, out);
                continue;
            };
            for item in items {
                self.preset(kind, path, item, out);
            }
        }
        chain.push(path.to_owned());
        if let Some(include) = root.get("include") {
            self.includes(path, include, chain, out);
        }
        chain.pop();
    }

    fn includes(&mut self, path: &str, include: &Node, chain: &mut Vec<String>, out: &mut Parsed) {
        let Some(items) = include
            .array_or("`include` must be an array of paths", Terms::Toml)
            .or_report(path, out)
        else {
            return;
        };
        for item in items {
            let Some(name) = item.str() else {
                item.mismatch("an `include` entry must be a path", Terms::Toml)
                    .report(path, out);
                continue;
            };
            let Some(target) = include_target(name, &self.presets.dir, parent(path)) else {
                out.diag(
                    path,
                    Some(item.line),
                    format!("`{name}` is outside the repository or uses the environment; not read"),
                );
                continue;
            };
            if chain.contains(&target) {
                out.diag(
                    path,
                    Some(item.line),
                    format!(
                        "`{name}` includes itself through {}; CMake refuses the cycle",
                        chain.join(" → ")
                    ),
                );
                continue;
            }
            if self.seen.len() >= MAX_FILES {
                out.diag(
                    path,
                    Some(item.line),
                    format!(
                        "more than {MAX_FILES} presets files; `{name}` and later ones not read"
                    ),
                );
                return;
            }
            self.presets
                .includes
                .push((path.to_owned(), target.clone()));
            if !self.files.exists(&target) {
                out.diag(
                    path,
                    Some(item.line),
                    format!("included `{name}` does not exist; CMake refuses the presets"),
                );
                continue;
            }
            self.read_and_load(&target, Some((path, item.line)), chain, out);
        }
    }

    fn preset(&mut self, kind: Kind, path: &str, item: &Node, out: &mut Parsed) {
        if item.entries().is_none() {
            item.mismatch(
                &format!("a {} preset must be an object", kind.word()),
                Terms::Toml,
            )
            .report(path, out);
            return;
        }
        let Some(name_node) = item.get("name") else {
            let line = item
                .entries()
                .and_then(<[_]>::first)
                .map_or(item.line, |e| e.node.line);
            out.diag(
                path,
                Some(line),
                format!("a {} preset without a `name`", kind.word()),
            );
            return;
        };
        let line = name_node.line;
        let Some(name) = name_node.str().filter(|n| !n.is_empty()) else {
            out.diag(
                path,
                Some(line),
                "a preset's `name` must be a non-empty string",
            );
            return;
        };
        let key = (kind, name.to_owned());
        if let Some(&other) = self.presets.by_name.get(&key) {
            let first = &self.presets.list[other];
            out.diag(path, Some(line), format!("a second {} preset `{name}` (the first is in {} line {}); CMake refuses duplicates", kind.word(), first.file, first.line));
            return;
        }
        let inherits = match item.get("inherits") {
            None => Vec::new(),
            Some(node) => {
                if let Some(s) = node.str() {
                    vec![s.to_owned()]
                } else if let Some(items) = node.items() {
                    items
                        .iter()
                        .filter_map(|i| i.str().map(str::to_owned))
                        .collect()
                } else {
                    out.diag(
                        path,
                        Some(node.line),
                        format!("`inherits` of `{name}` must be a name or an array of names"),
                    );
                    Vec::new()
                }
            }
        };
        let text = |key: &str| item.get(key).and_then(Node::str).map(str::to_owned);
        self.presets.by_name.insert(key, self.presets.list.len());
        self.presets.list.push(Preset {
            kind,
            name: name.to_owned(),
            file: path.to_owned(),
            line,
            hidden: item.get("hidden").is_some_and(Node::is_true),
            inherits,
            display_name: text("displayName"),
            description: text("description"),
            node: item.clone(),
        });
    }
}

/// The root-relative path an `include` entry names: relative to the including file's
/// directory, or starting with the macros format version 7 allows there (`${sourceDir}`,
/// `${sourceParentDir}`, `${fileDir}`). A path using the environment, or leaving the
/// repository, is not followed.
fn include_target(path: &str, source_dir: &str, file_dir: &str) -> Option<String> {
    if path.contains("$env{") || path.contains("$penv{") || path.contains("$vendor{") {
        return None;
    }
    let path = path.replace("${dollar}", "$");
    for (name, base, prefix) in [
        ("${sourceDir}", source_dir, ""),
        ("${sourceParentDir}", source_dir, "../"),
        ("${fileDir}", file_dir, ""),
    ] {
        if let Some(rest) = path.strip_prefix(name) {
            return join(base, &format!("{prefix}{}", rest.trim_start_matches('/')));
        }
    }
    if path.contains("${") {
        return None;
    }
    join(file_dir, &path)
}

impl Presets {
    /// The preset of `kind` named `name`.
    pub(super) fn get(&self, kind: Kind, name: &str) -> Option<usize> {
        self.by_name.get(&(kind, name.to_owned())).copied()
    }

    /// Whether presets of file `from` may use those of file `to`: the same file, or one it
    /// includes, directly or not.
    pub(super) fn reaches(&self, from: &str, to: &str) -> bool {
        let mut seen = vec![from];
        let mut next = 0;
        while let Some(&file) = seen.get(next) {
            if file == to {
                return true;
            }
            next += 1;
            for (a, b) in &self.includes {
                if a == file && !seen.contains(&b.as_str()) {
                    seen.push(b);
                }
            }
        }
        false
    }

    /// Why preset `user` may not use `used` (of `kind`, named `name`), if it may not: it
    /// does not exist, is hidden where that is refused, or sits in a file `user`'s file does
    /// not reach.
    pub(super) fn refusal(
        &self,
        user: usize,
        kind: Kind,
        name: &str,
        hidden_ok: bool,
    ) -> Option<String> {
        let Some(used) = self.get(kind, name) else {
            return Some(format!("no {} preset", kind.word()));
        };
        let (from, to) = (&self.list[user].file, &self.list[used].file);
        if !hidden_ok && self.list[used].hidden {
            Some("a hidden preset".to_owned())
        } else if !self.reaches(from, to) {
            Some(format!("in {to}, which {from} does not include"))
        } else {
            None
        }
    }

    /// Whether preset `i` sits in an `inherits` cycle.
    pub(super) fn is_cyclic(&self, i: usize) -> bool {
        self.cyclic.get(i).copied().unwrap_or(false)
    }

    /// Marks the presets caught in an `inherits` cycle, and reports parents that do not exist.
    fn find_cycles(&mut self, out: &mut Parsed) {
        self.cyclic = vec![false; self.list.len()];
        for (i, preset) in self.list.iter().enumerate() {
            for parent in &preset.inherits {
                if let Some(why) = self.refusal(i, preset.kind, parent, true) {
                    out.diag(
                        &preset.file,
                        Some(preset.line),
                        format!(
                            "{} preset `{}` inherits `{parent}`, which is {why}; CMake refuses it",
                            preset.kind.word(),
                            preset.name
                        ),
                    );
                }
            }
        }
        for start in 0..self.list.len() {
            // Every preset reachable along `inherits`, each once; reaching `start` again is a
            // cycle.
            let mut stack = vec![start];
            let mut visited = vec![false; self.list.len()];
            while let Some(i) = stack.pop() {
                for parent in &self.list[i].inherits {
                    let Some(p) = self.get(self.list[i].kind, parent) else {
                        continue;
                    };
                    if p == start {
                        self.cyclic[start] = true;
                    } else if !visited[p] {
                        visited[p] = true;
                        stack.push(p);
                    }
                }
            }
            if self.cyclic[start] {
                let preset = &self.list[start];
                out.diag(
                    &preset.file,
                    Some(preset.line),
                    format!(
                        "{} preset `{}` inherits from itself through `inherits`; CMake refuses it",
                        preset.kind.word(),
                        preset.name
                    ),
                );
            }
        }
    }

    /// Preset `i` and its ancestors, in the order CMake looks for an inherited field: the
    /// preset itself, then each parent's line depth first, in `inherits` order. Each preset
    /// comes once, so a diamond of many levels costs as much as its size.
    fn lineage(&self, i: usize) -> Vec<usize> {
        let mut order = Vec::new();
        let mut seen = vec![false; self.list.len()];
        let mut stack = vec![i];
        while let Some(p) = stack.pop() {
            if seen.get(p).copied().unwrap_or(true) {
                continue;
            }
            seen[p] = true;
            order.push(p);
            if self.is_cyclic(p) {
                continue;
            }
            let preset = &self.list[p];
            let parents = preset
                .inherits
                .iter()
                .filter_map(|n| self.get(preset.kind, n));
            let parents: Vec<usize> = parents.collect();
            stack.extend(parents.into_iter().rev());
        }
        order
    }

    /// The value of `key` for preset `i`: its own, else the first parent's (in `inherits`
    /// order, depth first), the way CMake inherits every field but the name, `hidden`,
    /// `inherits`, `displayName` and `description`.
    pub(super) fn field(&self, i: usize, key: &str) -> Option<&Node> {
        self.lineage(i)
            .into_iter()
            .find_map(|p| self.list[p].node.get(key))
    }

    /// A map field (`cacheVariables`, `environment`) merged over the inheritance: a key
    /// takes the value nearest the preset. Values are shown as text (`{"type": "BOOL",
    /// "value": "ON"}` as `ON`); `null`, which unsets, is `None`.
    pub(super) fn map(&self, i: usize, key: &str) -> BTreeMap<String, Option<String>> {
        let mut merged = BTreeMap::new();
        for p in self.lineage(i) {
            let Some(entries) = self.list[p].node.get(key).and_then(Node::entries) else {
                continue;
            };
            for entry in entries {
                let value = entry
                    .node
                    .scalar()
                    .or_else(|| entry.node.get("value").and_then(Node::scalar));
                merged
                    .entry(entry.key.clone())
                    .or_insert(value.map(str::to_owned));
            }
        }
        merged
    }

    /// A string field with its macros expanded, or `None` when it is absent or depends on
    /// something only known when CMake runs.
    pub(super) fn expanded(&self, i: usize, key: &str) -> Option<String> {
        let raw = self.field(i, key)?.str()?;
        self.expand(i, raw, 0, &mut MAX_MACROS.clone())
    }

    /// Expands the preset macros in `text` for preset `i`. `${sourceDir}` is `.` and
    /// `${sourceParentDir}` is `..`: paths come out relative to the project directory, where
    /// every command runs.
    fn expand(&self, i: usize, text: &str, depth: usize, budget: &mut usize) -> Option<String> {
        let preset = self.list.get(i)?;
        let mut out = String::with_capacity(text.len());
        let mut rest = text;
        while let Some(at) = rest.find('$') {
            out.push_str(&rest[..at]);
            rest = &rest[at..];
            let (namespace, body_start) = if rest.starts_with("${") {
                ("", 2)
            } else if rest.starts_with("$env{") {
                ("env", 5)
            } else if rest.starts_with("$penv{") {
                ("penv", 6)
            } else if rest.starts_with("$vendor{") {
                ("vendor", 8)
            } else {
                out.push('$');
                rest = &rest[1..];
                continue;
            };
            // Each value may name more macros: a budget keeps `$env{A}` naming `$env{B}`
            // twice, and so on, from growing without end.
            *budget = budget.checked_sub(1)?;
            let close = rest.find('}')?;
            let name = rest.get(body_start..close)?;
            rest = &rest[close + 1..];
            let value = match (namespace, name) {
                ("", "sourceDir") => ".".to_owned(),
                ("", "sourceParentDir") => "..".to_owned(),
                ("", "sourceDirName") => self.dir_name.clone()?,
                ("", "presetName") => preset.name.clone(),
                ("", "generator") => {
                    let generator = self.field(i, "generator")?.str()?.to_owned();
                    if depth >= MAX_EXPANSION {
                        return None;
                    }
                    self.expand(i, &generator, depth + 1, budget)?
                }
                ("", "hostSystemName") => host_system_name().to_owned(),
                ("", "fileDir") => relative(&self.dir, parent(&preset.file)),
                ("", "dollar") => "$".to_owned(),
                ("", "pathListSep") => ":".to_owned(),
                ("env", var) => {
                    if depth >= MAX_EXPANSION {
                        return None;
                    }
                    // The preset's own `environment` only: the listing does not depend on the
                    // shell it runs in.
                    let value = self.map(i, "environment").remove(var)??;
                    self.expand(i, &value, depth + 1, budget)?
                }
                _ => return None,
            };
            out.push_str(&value);
            if out.len() > MAX_EXPANDED_LEN {
                return None;
            }
        }
        out.push_str(rest);
        Some(out)
    }

    /// Whether preset `i` is enabled on this host: its `condition` (its own or inherited)
    /// holds, or cannot be decided without running CMake (then it is listed).
    pub(super) fn enabled(&self, i: usize) -> bool {
        self.field(i, "condition")
            .is_none_or(|c| self.condition(i, c, 0) != Some(false))
    }

    fn condition(&self, i: usize, node: &Node, depth: usize) -> Option<bool> {
        if let Some(b) = bool_of(node) {
            return Some(b);
        }
        if depth > MAX_CONDITION_DEPTH {
            return None;
        }
        let text = |key: &str| {
            node.get(key)
                .and_then(Node::str)
                .and_then(|s| self.expand(i, s, 0, &mut MAX_MACROS.clone()))
        };
        let kind = node.get("type").and_then(Node::str)?;
        match kind {
            "const" => node.get("value").and_then(bool_of),
            "equals" | "notEquals" => {
                let same = text("lhs")? == text("rhs")?;
                Some(same == (kind == "equals"))
            }
            "inList" | "notInList" => {
                let string = text("string")?;
                let mut found = false;
                for item in node.get("list")?.items()? {
                    if self.expand(i, item.str()?, 0, &mut MAX_MACROS.clone())? == string {
                        found = true;
                    }
                }
                Some(found == (kind == "inList"))
            }
            "matches" | "notMatches" => {
                let string = text("string")?;
                let pattern = node.get("regex")?.str()?;
                let regex = regex::RegexBuilder::new(pattern)
                    .size_limit(REGEX_SIZE_LIMIT)
                    .build()
                    .ok()?;
                Some(regex.is_match(&string) == (kind == "matches"))
            }
            "anyOf" | "allOf" => {
                let any = kind == "anyOf";
                let mut unknown = false;
                for c in node.get("conditions")?.items()? {
                    match self.condition(i, c, depth + 1) {
                        Some(v) if v == any => return Some(any),
                        Some(_) => {}
                        None => unknown = true,
                    }
                }
                if unknown { None } else { Some(!any) }
            }
            "not" => self
                .condition(i, node.get("condition")?, depth + 1)
                .map(|b| !b),
            _ => None,
        }
    }
}

/// A condition's boolean shorthand (`true`, `false`; `null` is true).
fn bool_of(node: &Node) -> Option<bool> {
    match &node.value {
        doc::Value::Bool(b) => Some(*b),
        doc::Value::Other => Some(true),
        _ => None,
    }
}

/// `${hostSystemName}`: what CMake's `CMAKE_HOST_SYSTEM_NAME` says on this host.
fn host_system_name() -> &'static str {
    match std::env::consts::OS {
        "macos" => "Darwin",
        "windows" => "Windows",
        "freebsd" => "FreeBSD",
        "netbsd" => "NetBSD",
        "openbsd" => "OpenBSD",
        _ => "Linux",
    }
}

/// Tidies a path relative to the project directory: `./build//x/` → `build/x`, `a/../b` →
/// `b`; leading `..` are kept, an absolute path stays absolute.
pub(super) fn tidy(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." if parts.last().is_some_and(|p| *p != "..") => {
                parts.pop();
            }
            ".." if absolute => {}
            p => parts.push(p),
        }
    }
    match (absolute, parts.is_empty()) {
        (true, _) => format!("/{}", parts.join("/")),
        (false, true) => ".".to_owned(),
        (false, false) => parts.join("/"),
    }
}

/// The kind a workflow step's `type` names.
pub(super) fn step_kind(word: &str) -> Option<Kind> {
    Kind::from_word(word).filter(|k| *k != Kind::Workflow)
}
