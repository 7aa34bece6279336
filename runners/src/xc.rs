//! xc-style Markdown tasks: the tasks section of a `README.md`, one task per heading in it.
//!
//! Follows xc's documented task syntax (<https://xcfile.dev/task-syntax/>): a tasks heading
//! (named `Tasks`, or marked by `<!-- xc-heading -->`), tasks one level below it, attribute
//! lines (`Requires:`, `Env:`, `Inputs:`, `Dir:`, `Run:`, `RunDeps:`) and one code block as the
//! script. The Markdown is read with pulldown-cmark, so headings, code blocks and line endings
//! mean what the Markdown spec says, not what xc's line scanner happens to see.

use std::borrow::Cow;
use std::collections::HashMap;
use std::collections::hash_map::Entry;

use pulldown_cmark::{CodeBlockKind, Event, OffsetIter, Options, Parser, Tag};

use crate::{Adapter, file_name};
use crate::{LineIndex, Param, Parsed, RawTask, Runner, Source, XcSpec, parent};

/// The xc adapter: `README.md` files whose tasks section lists xc tasks.
pub const ADAPTER: Adapter = Adapter {
    name: "xc",
    candidate,
    one_per_dir: true,
    parse,
};

fn candidate(path: &str) -> Option<u8> {
    (file_name(path) == "README.md").then_some(0)
}

fn parse(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    // Most READMEs are prose: skip the Markdown parser unless a tasks section is possible.
    if !may_hold_tasks(src.text) {
        return out;
    }
    let text = normalize_newlines(src.text);
    let mut blocks = Blocks::new(&text);

    let mut marked = false;
    let root = loop {
        match blocks.next_block(false) {
            None => return out,
            Some(Block::Heading { level, text, .. }) => {
                if marked || trim_marks(&text).eq_ignore_ascii_case("tasks") {
                    break level;
                }
                marked = false;
            }
            Some(Block::Marker) => marked = true,
            Some(_) => marked = false,
        }
    };

    let mut ctx = Ctx {
        path: src.path,
        dir: parent(src.path),
        lines: LineIndex::new(&text),
        seen: HashMap::new(),
        out: &mut out,
        refused: None,
    };
    let mut current: Option<Draft> = None;
    while let Some(block) = blocks.next_block(current.is_some()) {
        match block {
            Block::Heading { level, .. } if level <= root => break,
            Block::Heading {
                level,
                text,
                offset,
            } if level == root + 1 => {
                if let Some(done) = current.take() {
                    ctx.finish(done);
                }
                current = Some(Draft::new(trim_marks(&text), ctx.lines.line(offset)));
            }
            Block::Paragraph(lines) => {
                if let Some(task) = current.as_mut() {
                    task.paragraph(&lines, &mut ctx);
                }
            }
            Block::Code(code) => {
                if let Some(task) = current.as_mut() {
                    task.code(&code, &text, &mut ctx);
                }
            }
            // Deeper headings belong to the task body (as in xc); the rest is not xc syntax.
            Block::Heading { .. } | Block::Marker | Block::Other => {}
        }
    }
    if let Some(done) = current {
        ctx.finish(done);
    }
    // xc stops at its first parse error and runs nothing from the file: neither does agg.
    if let Some((line, why)) = ctx.refused.take() {
        ctx.diag(
            line,
            format!("xc refuses this file (xc parse error: {why}); none of its tasks are listed"),
        );
        ctx.out.tasks.clear();
    }
    out
}

/// What one task's body said so far.
struct Draft {
    name: String,
    line: u32,
    paragraphs: Vec<String>,
    script: Option<String>,
    deps: Vec<String>,
    env: Vec<(String, String)>,
    inputs: Vec<String>,
    dir: Option<String>,
    run_once: bool,
    run_deps_async: bool,
    interactive: bool,
}

impl Draft {
    fn new(name: &str, line: u32) -> Draft {
        Draft {
            name: name.to_owned(),
            line,
            paragraphs: Vec::new(),
            script: None,
            deps: Vec::new(),
            env: Vec::new(),
            inputs: Vec::new(),
            dir: None,
            run_once: false,
            run_deps_async: false,
            interactive: false,
        }
    }

    /// Splits a paragraph into attribute lines and description text; xc reads attributes
    /// line by line, so one paragraph may mix both.
    fn paragraph(&mut self, lines: &[Line], ctx: &mut Ctx<'_>) {
        let mut desc = String::new();
        let mut sep = "";
        for l in lines {
            if let Some((attr, value)) = attribute(&l.text) {
                self.attribute(attr, value, ctx.lines.line(l.offset), ctx);
                continue;
            }
            let t = l.text.trim();
            if t.is_empty() {
                continue;
            }
            desc.push_str(sep);
            desc.push_str(t);
            sep = if l.hard_break { "\n" } else { " " };
        }
        if !desc.is_empty() {
            self.paragraphs.push(desc);
        }
    }

    fn attribute(&mut self, attr: Attr, value: &str, line: u32, ctx: &mut Ctx<'_>) {
        match attr {
            Attr::Requires => self.deps.extend(list(value)),
            Attr::Inputs => self.inputs.extend(list(value)),
            Attr::Env => {
                for entry in list(value) {
                    match entry.split_once('=') {
                        Some((k, v)) if !trim_marks(k).is_empty() => {
                            self.env
                                .push((trim_marks(k).to_owned(), trim_marks(v).to_owned()));
                        }
                        _ => ctx.diag(
                            line,
                            format!(
                                "xc task `{}`: Env entry `{entry}` is not KEY=value; ignored",
                                self.name
                            ),
                        ),
                    }
                }
            }
            Attr::Dir => {
                // An empty `Dir:` counts as given (xc refuses a second one); it is dropped
                // when the task is finished.
                if self.dir.is_some() {
                    ctx.refuse(
                        line,
                        format!("directory appears more than once for {}", self.name),
                    );
                } else {
                    self.dir = Some(trim_marks(value).to_owned());
                }
            }
            Attr::Run => match trim_marks(value).to_ascii_lowercase().as_str() {
                "once" => self.run_once = true,
                "always" => self.run_once = false,
                _ => ctx.refuse(
                    line,
                    format!(
                        "run contains invalid behaviour \"{}\" should be (always, once): {}",
                        trim_marks(value),
                        self.name
                    ),
                ),
            },
            Attr::RunDeps => match trim_marks(value).to_ascii_lowercase().as_str() {
                "async" => self.run_deps_async = true,
                "sync" => self.run_deps_async = false,
                _ => ctx.refuse(
                    line,
                    format!(
                        "runDeps contains invalid behaviour \"{}\" should be (sync, async): {}",
                        trim_marks(value),
                        self.name
                    ),
                ),
            },
            // xc runs an interactive task with the terminal passed straight through.
            Attr::Interactive => self.interactive = trim_marks(value) == "true",
            // Only changes how xc shows a task; agg lists every task.
            Attr::Hidden => {}
        }
    }

    fn code(&mut self, code: &Code, text: &str, ctx: &mut Ctx<'_>) {
        let line = ctx.lines.line(code.range.start);
        if code.fenced && !fence_closed(text.get(code.range.clone()).unwrap_or_default()) {
            ctx.refuse(
                line,
                format!("command block in task {} was not ended", self.name),
            );
        }
        let body = code.text.trim_end_matches('\n');
        // xc ignores an empty block: a later one can still be the script.
        if body.trim().is_empty() {
            return;
        }
        if self.script.is_some() {
            ctx.refuse(
                line,
                format!("command block already exists for task {}", self.name),
            );
            return;
        }
        self.script = Some(body.to_owned());
    }
}

/// The per-file state tasks are finished against.
struct Ctx<'a> {
    path: &'a str,
    dir: &'a str,
    lines: LineIndex,
    /// Task names seen so far, lowercased (xc looks tasks up case-insensitively), with lines.
    seen: HashMap<String, (String, u32)>,
    out: &'a mut Parsed,
    /// The first error for which xc refuses the whole file, in xc's words, with its line.
    refused: Option<(u32, String)>,
}

impl Ctx<'_> {
    fn diag(&mut self, line: u32, message: String) {
        self.out.diag(self.path, Some(line), message);
    }

    /// Records an error for which xc refuses the whole file (the first one counts).
    fn refuse(&mut self, line: u32, why: String) {
        if self.refused.is_none() {
            self.refused = Some((line, why));
        }
    }

    fn finish(&mut self, d: Draft) {
        if d.name.is_empty() {
            self.diag(d.line, "xc task heading has no name; skipped".to_owned());
            return;
        }
        if d.script.is_none() && d.deps.is_empty() {
            self.refuse(
                d.line,
                format!("task {} has no commands or required tasks", d.name),
            );
            return;
        }
        if d.name.contains(char::is_whitespace) {
            // xc splits `Requires` entries and its command line on spaces: such a heading is
            // a plan's step, not a task anyone can name.
            self.diag(
                d.line,
                format!(
                    "`{}` is not an xc task name (names hold no spaces); skipped",
                    d.name
                ),
            );
            return;
        }
        match self.seen.entry(d.name.to_lowercase()) {
            Entry::Occupied(first) => {
                let (first_name, first_line) = first.get();
                let message = if *first_name == d.name {
                    format!(
                        "xc task `{}` is defined again (first on line {first_line}); keeping the first",
                        d.name
                    )
                } else {
                    format!(
                        "xc task `{}` clashes with `{first_name}` on line {first_line} (xc matches \
                         names case-insensitively); keeping the first",
                        d.name
                    )
                };
                self.diag(d.line, message);
                return;
            }
            Entry::Vacant(slot) => {
                slot.insert((d.name.clone(), d.line));
            }
        }

        // xc hands inputs over as environment variables, so an Env entry of the same name
        // is the input's default; the last entry wins, as in a process environment.
        let env_values: HashMap<&str, &str> = d
            .env
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let params = d
            .inputs
            .iter()
            .map(|name| {
                let default = env_values.get(name.as_str()).map(|v| (*v).to_owned());
                Param {
                    name: name.clone(),
                    required: default.is_none(),
                    default,
                    variadic: None,
                    exported: false,
                }
            })
            .collect();
        let description = d.paragraphs.join("\n\n");

        let argv = vec!["xc".to_owned(), d.name.clone()];
        let mut task = RawTask::new(Runner::Xc, d.name, self.dir, self.path, argv);
        task.line = Some(d.line);
        task.description = (!description.is_empty()).then_some(description);
        task.params = params;
        task.deps = d.deps;
        task.env = d.env;
        task.script.clone_from(&d.script);
        task.behaviour.interactive = d.interactive;
        task.xc = Some(XcSpec {
            interpreter: d.script.as_deref().and_then(interpreter),
            script: d.script,
            inputs: d.inputs,
            dir: d.dir.filter(|dir| !dir.is_empty()),
            run_once: d.run_once,
            run_deps_async: d.run_deps_async,
        });
        self.out.tasks.push(task);
    }
}

/// The attribute keys xc knows (`doc/content/task-syntax`, `parser/parsemd`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Attr {
    Requires,
    Env,
    Inputs,
    Dir,
    Run,
    RunDeps,
    Interactive,
    Hidden,
}

/// Reads `Key: value` the way xc does: the key is what precedes the first `:`, with `*`, `_`
/// and backticks around it ignored and case ignored.
fn attribute(line: &str) -> Option<(Attr, &str)> {
    let (key, value) = line.split_once(':')?;
    let key = trim_marks(key);
    // Keeps a long prose line with a colon from being lowercased for nothing.
    if key.len() > "rundependencies".len() {
        return None;
    }
    let attr = match key.to_ascii_lowercase().as_str() {
        "requires" | "req" => Attr::Requires,
        "env" | "environment" => Attr::Env,
        "inputs" => Attr::Inputs,
        "dir" | "directory" => Attr::Dir,
        "run" => Attr::Run,
        "rundeps" | "rundependencies" => Attr::RunDeps,
        "interactive" => Attr::Interactive,
        "hidden" => Attr::Hidden,
        _ => return None,
    };
    Some((attr, value))
}

/// A comma-separated attribute value, each entry trimmed like xc trims it; empty entries
/// (a trailing comma) are dropped rather than becoming a task named "".
fn list(value: &str) -> impl Iterator<Item = String> + '_ {
    value
        .split(',')
        .map(trim_marks)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
}

/// Trims whitespace and the emphasis/code marks xc ignores around keys and values.
fn trim_marks(s: &str) -> &str {
    s.trim_matches(|c: char| c.is_whitespace() || matches!(c, '_' | '*' | '`'))
}

/// The interpreter a shebang names, unless it is `sh` or `bash`.
///
/// `/usr/bin/env` (and its `-S` flag) is dropped, as xc does, so `#!/usr/bin/env python3 -u`
/// gives `python3 -u`; a direct path stays as written (`/usr/bin/python3`). The executor runs
/// the first word with the other words, then the script file, as arguments.
fn interpreter(script: &str) -> Option<String> {
    let first = script.trim_start().lines().next()?;
    let mut words = first.strip_prefix("#!")?.split_whitespace().peekable();
    if words.peek().is_some_and(|w| base_name(w) == "env") {
        words.next();
        while words.peek().is_some_and(|w| w.starts_with('-')) {
            words.next();
        }
    }
    let words: Vec<&str> = words.collect();
    match words.first() {
        None => None,
        Some(program) if matches!(base_name(program), "sh" | "bash") => None,
        Some(_) => Some(words.join(" ")),
    }
}

fn base_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Whether the source of a fenced block ends with a closing fence (Markdown lets an
/// unclosed fence swallow the rest of the file, which xc rejects).
fn fence_closed(raw: &str) -> bool {
    let raw = raw.trim_end();
    let Some((first, rest)) = raw.split_once('\n') else {
        return false;
    };
    let open = first.trim_start();
    let Some(fence) = open.chars().next() else {
        return false;
    };
    let width = open.len() - open.trim_start_matches(fence).len();
    let last = rest.rsplit('\n').next().unwrap_or(rest).trim();
    last.len() >= width && last.chars().all(|c| c == fence)
}

/// A cheap, linear pre-check: a tasks section needs the `xc-heading` marker, or the word
/// `tasks` on an ATX heading line (`## Tasks`) or on a line above a setext underline.
/// Prose that merely mentions tasks is rejected without running the Markdown parser.
fn may_hold_tasks(text: &str) -> bool {
    if find_ignore_case(text, "xc-heading").is_some() {
        return true;
    }
    let is_break = |c: char| c == '\n' || c == '\r';
    let mut rest = text;
    while let Some(at) = find_ignore_case(rest, "tasks") {
        let start = rest[..at].rfind(is_break).map_or(0, |i| i + 1);
        let end = rest[at..].find(is_break).map_or(rest.len(), |i| at + i);
        let after = &rest[end..];
        let after = after
            .strip_prefix("\r\n")
            .or_else(|| after.strip_prefix(is_break))
            .unwrap_or(after);
        let next = &after[..after.find(is_break).unwrap_or(after.len())];
        if rest[start..end].trim_start().starts_with('#') || is_setext_underline(next) {
            return true;
        }
        rest = &rest[end..];
    }
    false
}

fn is_setext_underline(line: &str) -> bool {
    let line = line.trim();
    !line.is_empty() && (line.bytes().all(|b| b == b'=') || line.bytes().all(|b| b == b'-'))
}

/// ASCII case-insensitive substring search, linear in `hay`.
fn find_ignore_case(hay: &str, needle: &str) -> Option<usize> {
    let (hay, needle) = (hay.as_bytes(), needle.as_bytes());
    let (&first, rest) = needle.split_first()?;
    hay.iter().enumerate().position(|(i, b)| {
        b.eq_ignore_ascii_case(&first)
            && hay
                .get(i + 1..i + needle.len())
                .is_some_and(|w| w.eq_ignore_ascii_case(rest))
    })
}

/// CRLF and lone CR become LF, and a BOM goes, so scripts carry no `\r` and [`LineIndex`]
/// counts the same lines the Markdown parser does.
fn normalize_newlines(text: &str) -> Cow<'_, str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.contains('\r') {
        Cow::Owned(text.replace("\r\n", "\n").replace('\r', "\n"))
    } else {
        Cow::Borrowed(text)
    }
}

/// One line of a paragraph, rendered as plain text with code spans kept in backticks.
struct Line {
    text: String,
    offset: usize,
    /// The line ended in a hard break (two spaces or `\`) rather than a soft wrap.
    hard_break: bool,
}

struct Code {
    text: String,
    range: std::ops::Range<usize>,
    fenced: bool,
}

/// A top-level Markdown block; only these are xc syntax (a heading inside a list or block
/// quote is not a task, and xc reads neither).
enum Block {
    Heading {
        level: u8,
        text: String,
        offset: usize,
    },
    Paragraph(Vec<Line>),
    Code(Code),
    /// An HTML block holding just `<!-- xc-heading -->`: the next heading is the tasks heading.
    Marker,
    Other,
}

struct Blocks<'a> {
    events: OffsetIter<'a>,
}

impl<'a> Blocks<'a> {
    fn new(text: &'a str) -> Blocks<'a> {
        let options =
            Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
        Blocks {
            events: Parser::new_ext(text, options).into_offset_iter(),
        }
    }

    /// The next top-level block; paragraphs are only rendered when `want_text` is set, so
    /// the prose before the tasks section costs no allocations.
    fn next_block(&mut self, want_text: bool) -> Option<Block> {
        let (event, range) = self.events.next()?;
        let Event::Start(tag) = event else {
            return Some(Block::Other);
        };
        Some(match tag {
            Tag::Heading { level, .. } => {
                let lines = self.inline(range.start);
                let text = lines
                    .iter()
                    .map(|l| l.text.trim())
                    .collect::<Vec<_>>()
                    .join(" ");
                Block::Heading {
                    level: level as u8,
                    text,
                    offset: range.start,
                }
            }
            Tag::Paragraph if want_text => Block::Paragraph(self.inline(range.start)),
            Tag::CodeBlock(kind) => Block::Code(Code {
                text: self.leaf_text(),
                range,
                fenced: matches!(kind, CodeBlockKind::Fenced(_)),
            }),
            Tag::HtmlBlock => {
                let html = self.leaf_text();
                let inner = html
                    .trim()
                    .strip_prefix("<!--")
                    .and_then(|s| s.strip_suffix("-->"));
                if inner.is_some_and(|s| s.trim().eq_ignore_ascii_case("xc-heading")) {
                    Block::Marker
                } else {
                    Block::Other
                }
            }
            _ => {
                self.skip();
                Block::Other
            }
        })
    }

    /// Renders inline content up to the end of the current block, split at line breaks.
    fn inline(&mut self, start: usize) -> Vec<Line> {
        let mut lines = vec![Line {
            text: String::new(),
            offset: start,
            hard_break: false,
        }];
        let mut depth = 0usize;
        for (event, range) in self.events.by_ref() {
            let Some(line) = lines.last_mut() else { break };
            match event {
                Event::Start(_) => depth += 1,
                Event::End(_) if depth == 0 => break,
                Event::End(_) => depth -= 1,
                Event::Text(t) => line.text.push_str(&t),
                Event::Code(c) => {
                    line.text.push('`');
                    line.text.push_str(&c);
                    line.text.push('`');
                }
                Event::SoftBreak | Event::HardBreak => {
                    line.hard_break = matches!(event, Event::HardBreak);
                    lines.push(Line {
                        text: String::new(),
                        offset: range.end,
                        hard_break: false,
                    });
                }
                _ => {}
            }
        }
        lines
    }

    /// The text of a leaf block (code or HTML) up to its end.
    fn leaf_text(&mut self) -> String {
        let mut text = String::new();
        for (event, _) in self.events.by_ref() {
            match event {
                Event::Text(t) | Event::Html(t) => text.push_str(&t),
                Event::End(_) => break,
                _ => {}
            }
        }
        text
    }

    /// Skips to the end of the current block, whatever it nests.
    fn skip(&mut self) {
        let mut depth = 0usize;
        for (event, _) in self.events.by_ref() {
            match event {
                Event::Start(_) => depth += 1,
                Event::End(_) if depth == 0 => return,
                Event::End(_) => depth -= 1,
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemFiles;
    use crate::testing::{names, task};

    fn run(path: &str, text: &str) -> Parsed {
        let files = MemFiles::new().with(path, text);
        parse(&Source {
            path,
            text,
            files: &files,
        })
    }

    fn spec(t: &RawTask) -> &XcSpec {
        t.xc.as_ref().expect("xc spec")
    }

    fn messages(p: &Parsed) -> Vec<(Option<u32>, &str)> {
        p.diagnostics
            .iter()
            .map(|d| (d.line, d.message.as_str()))
            .collect()
    }

    #[test]
    fn only_readme_md_is_a_candidate() {
        assert_eq!(candidate("README.md"), Some(0));
        assert_eq!(candidate("apps/web/README.md"), Some(0));
        assert_eq!(candidate("readme.md"), None);
        assert_eq!(candidate("README.org"), None);
        assert_eq!(candidate("docs/README.markdown"), None);
    }

    /// The tasks section of xc's own README (github.com/joerdav/xc).
    #[test]
    fn xc_own_readme() {
        let text = "# xc - Simple, Convenient, Markdown defined task runner.\n\n\
`xc` is a task runner designed to maximise convenience, and minimise complexity.\n\n\
# Example\n\n\
Take the `tag` task in the README.md:\n\n\
````\n## tag\n\nDeploys a new tag for the repo.\n\nRequires: test\n\n```\ngit tag v0.0.1\n```\n````\n\n\
# Tasks for this project:\n\n\
## Tasks\n\n\
### test\n\nTest the project.\n\n```\ngo test ./...\n```\n\n\
### build\n\nBuilds the `xc` binary.\n\n```\ngo build ./cmd/xc\n```\n\n\
### tag\nDeploys a new tag for the repo.\n\nRequires: test\n```\n\
export VERSION=`git rev-list --count HEAD`\n\
echo Adding git tag with version v0.0.${VERSION}\n\
git tag v0.0.${VERSION}\n\
git push origin v0.0.${VERSION}\n```\n\n\
### update-nix\nUpdates nix flake.\n```\nsh ./update-nix.sh\n```\n";
        let p = run("README.md", text);
        assert_eq!(names(&p), ["test", "build", "tag", "update-nix"]);
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);

        let first = task(&p, "test");
        assert_eq!(first.argv, ["xc", "test"]);
        assert_eq!(first.dir, ".");
        assert_eq!(first.file_path, "README.md");
        assert_eq!(first.runner, Runner::Xc);
        assert_eq!(first.line, Some(25));
        assert_eq!(first.description.as_deref(), Some("Test the project."));
        assert_eq!(first.script.as_deref(), Some("go test ./..."));

        let build = task(&p, "build");
        assert_eq!(
            build.description.as_deref(),
            Some("Builds the `xc` binary.")
        );

        let tag = task(&p, "tag");
        assert_eq!(tag.deps, ["test"]);
        assert_eq!(
            tag.description.as_deref(),
            Some("Deploys a new tag for the repo.")
        );
        assert!(
            tag.script
                .as_deref()
                .unwrap()
                .starts_with("export VERSION=`git rev-list --count HEAD`\n")
        );
        assert_eq!(spec(tag).script, tag.script);
        assert_eq!(spec(tag).interpreter, None);

        let nix = task(&p, "update-nix");
        assert_eq!(nix.description.as_deref(), Some("Updates nix flake."));
        assert_eq!(nix.script.as_deref(), Some("sh ./update-nix.sh"));
    }

    /// xc's parser test file: setext title and setext `Tasks`, Dir, Env, Inputs, a
    /// commandless task, and a section that ends at the next H2.
    #[test]
    fn xc_example_with_setext_headings() {
        let text = "My Readme\n==\n\nHere is a readme.\n\n## Subtitle\nSub text\n\nTasks\n---\n\n\
### list\n\nLists files\n\n```\nls\n```\n### list2\n\nLists files\n\nDirectory: ./somefolder\n\n\
```\nls\n```\n\n### hello\n\nPrint a message\n\nRequires: list, list2\n\nEnv: `somevar=val`\n\
Inputs: FOO, BAR\n\n```\necho \"Hello, world!\"\necho \"Hello, world2!\"\n```\n\n\
### all-lists\n\nAn example of a commandless task.\n\nRequires: list, list2\n\n\n\
## Out Of Scope\n\n\n### something\n\nPrint a message\n\nRequires: list, list2\n\n\
```\necho \"Hello, world!\"\n```\n";
        let p = run("README.md", text);
        assert_eq!(names(&p), ["list", "list2", "hello", "all-lists"]);
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        assert_eq!(task(&p, "list").line, Some(12));
        assert_eq!(spec(task(&p, "list2")).dir.as_deref(), Some("./somefolder"));

        let hello = task(&p, "hello");
        assert_eq!(hello.description.as_deref(), Some("Print a message"));
        assert_eq!(hello.deps, ["list", "list2"]);
        assert_eq!(hello.env, [("somevar".to_owned(), "val".to_owned())]);
        assert_eq!(spec(hello).inputs, ["FOO", "BAR"]);
        assert_eq!(
            hello.params,
            [Param::required("FOO"), Param::required("BAR")]
        );
        assert_eq!(
            hello.script.as_deref(),
            Some("echo \"Hello, world!\"\necho \"Hello, world2!\"")
        );

        let all = task(&p, "all-lists");
        assert_eq!(all.script, None);
        assert_eq!(spec(all).script, None);
        assert_eq!(all.deps, ["list", "list2"]);
    }

    /// xc's `till-eof.md`: the last task has no script, only async deps, and ends the file.
    #[test]
    fn deps_only_task_at_end_of_file_runs_deps_async() {
        let text = "# My readme\n\n## Tasks\n\n### generate-templ\n\n```bash\n\
go run -mod=mod github.com/a-h/templ/cmd/templ generate\ngo mod tidy\n```\n\n\
### generate-translations\n\n```bash\ngo run ./i18n/generate\n```\n\n\
### generate-all\n\nRequires: generate-templ, generate-translations\nRunDeps: async\n";
        let p = run("README.md", text);
        assert_eq!(
            names(&p),
            ["generate-templ", "generate-translations", "generate-all"]
        );
        let all = task(&p, "generate-all");
        assert_eq!(all.deps, ["generate-templ", "generate-translations"]);
        assert!(spec(all).run_deps_async);
        assert_eq!(all.description, None);
        assert!(!spec(task(&p, "generate-templ")).run_deps_async);
        assert_eq!(
            task(&p, "generate-templ").script.as_deref(),
            Some("go run -mod=mod github.com/a-h/templ/cmd/templ generate\ngo mod tidy")
        );
    }

    /// xc's `marked-heading-next-line.md`: the marker picks a differently named heading.
    #[test]
    fn xc_heading_marker_picks_the_next_heading() {
        let text = "# Tasks with a marked header\n\n\
You can use `<!-- xc-heading -->` to specify a header for tasks\nwithout using a `--heading` flag.\n\n\
<!-- xc-heading -->\n## Getting Started\n\n### hello\n\nPrint a message\n\n\
```\necho \"Hello, world!\"\n```\n\n## Out of Scope\n\n### something\n\n\
```\necho \"xc cannot execute this task.\"\n```\n";
        let p = run("docs/README.md", text);
        assert_eq!(names(&p), ["hello"]);
        let hello = task(&p, "hello");
        assert_eq!(hello.dir, "docs");
        assert_eq!(hello.file_path, "docs/README.md");
        assert_eq!(hello.line, Some(9));
        assert_eq!(hello.description.as_deref(), Some("Print a message"));
    }

    #[test]
    fn marker_with_a_blank_line_before_the_heading_still_counts() {
        let text = "# Project\n\n<!--   xc-heading   -->\n\n# Development\n\n## up\n\n```\ndocker compose up\n```\n";
        let p = run("README.md", text);
        assert_eq!(names(&p), ["up"]);
        // Only an HTML block that is just the marker counts, not a mention of it.
        let text = "# Project\n\nWrite `<!-- xc-heading -->` above it.\n\n## Development\n\n### up\n\n```\nup\n```\n";
        assert!(run("README.md", text).tasks.is_empty());
    }

    /// xc itself skips a `## Tasks` heading right under the title; agg must not.
    #[test]
    fn tasks_heading_right_under_the_title() {
        let text = "# Project\n## Tasks\n### build\n```\ncargo build\n```\n### test\n```\ncargo test\n```\n";
        let p = run("README.md", text);
        assert_eq!(names(&p), ["build", "test"]);
        assert_eq!(task(&p, "build").line, Some(3));
        assert_eq!(task(&p, "test").line, Some(7));
    }

    #[test]
    fn tasks_heading_at_any_level_and_case_with_closing_hashes() {
        let text = "# TASKS #\n\n## `build` ##\n\n```sh\nmake\n```\n\n# Next H1 Heading\n\n## not-a-task\n\n```\nno\n```\n";
        let p = run("README.md", text);
        assert_eq!(names(&p), ["build"]);
        assert_eq!(task(&p, "build").argv, ["xc", "build"]);

        let text = "Project\n=======\n\n#### tasks\n\n##### deploy\n\nRequires: build\n";
        assert_eq!(names(&run("README.md", text)), ["deploy"]);
    }

    #[test]
    fn only_the_first_tasks_section_counts() {
        let text = "## Tasks\n### a\n```\na\n```\n## Tasks\n### b\n```\nb\n```\n";
        assert_eq!(names(&run("README.md", text)), ["a"]);
    }

    #[test]
    fn readme_without_tasks_section_is_silent() {
        let text = "# Widget\n\nA library for widgets. It schedules tasks on a thread pool.\n\n\
## Usage\n\n```rust\nlet w = Widget::new();\n```\n\n### Options\n\nRequires: nothing.\n";
        let p = run("README.md", text);
        assert!(p.tasks.is_empty());
        assert!(p.diagnostics.is_empty());
        assert_eq!(run("README.md", "").tasks, []);
        // A "Tasks" heading inside a list or quote is not a tasks section.
        let p = run("README.md", "> ## Tasks\n> ### a\n> ```\n> a\n> ```\n");
        assert!(p.tasks.is_empty() && p.diagnostics.is_empty());
    }

    #[test]
    fn prose_tasks_section_without_subheadings_is_silent() {
        let text = "# Roadmap\n\n## Tasks\n\n- [ ] write docs\n- [x] ship it\n\nSee issues.\n\n## License\n\nMIT\n";
        let p = run("README.md", text);
        assert!(p.tasks.is_empty());
        assert!(p.diagnostics.is_empty());
    }

    #[test]
    fn attribute_keys_are_case_insensitive_and_may_be_wrapped() {
        let text = "## Tasks\n### deploy\nShips it.\n**Requires**: build, `lint`\n_Env_: STAGE=prod, `REGION=eu`\n\
`Dir`: infra\nRUN: once\nrunDependencies: _async_\n\n**Inputs:** TAG\n\n\
```\n./deploy.sh \"$TAG\"\n```\n";
        let p = run("README.md", text);
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        let t = task(&p, "deploy");
        assert_eq!(t.description.as_deref(), Some("Ships it."));
        assert_eq!(t.deps, ["build", "lint"]);
        assert_eq!(
            t.env,
            [
                ("STAGE".to_owned(), "prod".to_owned()),
                ("REGION".to_owned(), "eu".to_owned())
            ]
        );
        let x = spec(t);
        assert_eq!(x.dir.as_deref(), Some("infra"));
        assert!(x.run_once);
        assert!(x.run_deps_async);
        assert_eq!(x.inputs, ["TAG"]);
        assert_eq!(t.params, [Param::required("TAG")]);
    }

    /// The Env and Inputs docs: repeated Env lines, comma lists, and an Env default
    /// making an input optional.
    #[test]
    fn env_lines_accumulate_and_give_inputs_defaults() {
        let text = "## Tasks\n### Task1\nEnv: ENVIRONMENT=PRODUCTION\nEnv: VERSION=1.2\n```\necho $ENVIRONMENT\n```\n\
### greet\n\nInputs: NAME, GREETING\nEnvironment: NAME=World, URL=http://x?a=b\n\n```\necho \"$GREETING, $NAME.\"\n```\n";
        let p = run("README.md", text);
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        assert_eq!(
            task(&p, "Task1").env,
            [
                ("ENVIRONMENT".to_owned(), "PRODUCTION".to_owned()),
                ("VERSION".to_owned(), "1.2".to_owned())
            ]
        );
        let greet = task(&p, "greet");
        assert_eq!(
            greet.env[1],
            ("URL".to_owned(), "http://x?a=b".to_owned()),
            "only the first `=` splits, and `:` in a value is kept"
        );
        assert_eq!(
            greet.params,
            [
                Param {
                    name: "NAME".to_owned(),
                    default: Some("World".to_owned()),
                    required: false,
                    variadic: None,
                    exported: false,
                },
                Param::required("GREETING"),
            ]
        );
        assert_eq!(greet.description, None);
    }

    #[test]
    fn bad_attribute_values_are_reported_as_xc_reports_them() {
        let env = "## Tasks\n\n### setup\n\nEnv: JUSTAKEY, OK=1\n\n```\n./setup\n```\n";
        let p = run("README.md", env);
        assert_eq!(names(&p), ["setup"]);
        assert_eq!(
            messages(&p),
            [(
                Some(5),
                "xc task `setup`: Env entry `JUSTAKEY` is not KEY=value; ignored"
            )]
        );
        assert_eq!(task(&p, "setup").env, [("OK".to_owned(), "1".to_owned())]);
        for (attr, why) in [
            (
                "Run: sometimes",
                "run contains invalid behaviour \"sometimes\" should be (always, once): setup",
            ),
            (
                "RunDeps: parallel",
                "runDeps contains invalid behaviour \"parallel\" should be (sync, async): setup",
            ),
            (
                "Dir: a\nDir: b",
                "directory appears more than once for setup",
            ),
        ] {
            let text = format!("## Tasks\n### setup\n{attr}\n```\n./setup\n```\n");
            let p = run("README.md", &text);
            assert!(names(&p).is_empty(), "{attr}");
            assert_eq!(p.diagnostics.len(), 1, "{attr}");
            assert!(
                p.diagnostics[0].message.contains(why),
                "{:?}",
                p.diagnostics
            );
        }
    }

    #[test]
    fn a_task_with_nothing_to_run_makes_xc_refuse_the_file() {
        // xc's own commandless-task test, plus an empty code block (xc ignores those).
        let text =
            "\n# Tasks\n## atask\n## another\nJust words.\n\n```\n\n```\n## ok\nreq: atask\n";
        let p = run("README.md", text);
        assert!(names(&p).is_empty());
        assert_eq!(
            messages(&p),
            [(
                Some(3),
                "xc refuses this file (xc parse error: task atask has no commands or required tasks); none of its tasks are listed"
            )]
        );
    }

    #[test]
    fn a_second_code_block_makes_xc_refuse_the_file() {
        let text = "## Tasks\n### lint\n```\nx\n```\n### fmt\n```\ngofmt -w .\n```\nThen check:\n```console\n$ git diff\n```\n";
        let p = run("README.md", text);
        assert!(names(&p).is_empty());
        assert_eq!(
            messages(&p),
            [(
                Some(11),
                "xc refuses this file (xc parse error: command block already exists for task fmt); none of its tasks are listed"
            )]
        );
    }

    #[test]
    fn plan_style_headings_are_not_tasks() {
        let text = "# Plan\n## Tasks\n### Task 1: Install SQLite\n```bash\napt-get install sqlite3\n```\n### Task 2: Create the schema\n```bash\nsqlite3 db < schema.sql\n```\n";
        let p = run("README.md", text);
        assert!(names(&p).is_empty());
        assert_eq!(
            messages(&p),
            [
                (
                    Some(3),
                    "`Task 1: Install SQLite` is not an xc task name (names hold no spaces); skipped"
                ),
                (
                    Some(7),
                    "`Task 2: Create the schema` is not an xc task name (names hold no spaces); skipped"
                ),
            ]
        );
    }

    #[test]
    fn duplicate_names_keep_the_first_case_insensitively() {
        let text = "## Tasks\n### build\n```\none\n```\n### build\n```\ntwo\n```\n### Build\n```\nthree\n```\n";
        let p = run("README.md", text);
        assert_eq!(names(&p), ["build"]);
        assert_eq!(task(&p, "build").script.as_deref(), Some("one"));
        assert_eq!(
            messages(&p),
            [
                (
                    Some(6),
                    "xc task `build` is defined again (first on line 2); keeping the first"
                ),
                (
                    Some(10),
                    "xc task `Build` clashes with `build` on line 2 (xc matches names \
                     case-insensitively); keeping the first"
                ),
            ]
        );
    }

    #[test]
    fn shebang_picks_an_interpreter_unless_it_is_a_shell() {
        assert_eq!(
            interpreter("#!/usr/bin/env python3\nprint(1)").as_deref(),
            Some("python3")
        );
        assert_eq!(
            interpreter("#!/usr/bin/python3\nprint(1)").as_deref(),
            Some("/usr/bin/python3")
        );
        assert_eq!(
            interpreter("#!/usr/bin/env -S deno run --allow-read\n").as_deref(),
            Some("deno run --allow-read")
        );
        assert_eq!(
            interpreter("#! /usr/bin/env node\n").as_deref(),
            Some("node")
        );
        assert_eq!(interpreter("#!/bin/bash\nset -e"), None);
        assert_eq!(interpreter("#!/usr/bin/env bash\n"), None);
        assert_eq!(interpreter("#!/bin/sh -eu\n"), None);
        assert_eq!(interpreter("#!\n"), None);
        assert_eq!(interpreter("echo '#!/usr/bin/python3'"), None);
        assert_eq!(interpreter("#!/bin/zsh\n").as_deref(), Some("/bin/zsh"));

        let text = "## Tasks\n### python-task\n```\n#!/usr/bin/env python\nprint(\"foo\")\n```\n";
        let p = run("README.md", text);
        let t = task(&p, "python-task");
        assert_eq!(spec(t).interpreter.as_deref(), Some("python"));
        assert_eq!(
            spec(t).script.as_deref(),
            Some("#!/usr/bin/env python\nprint(\"foo\")")
        );
    }

    /// xc's `indented.md`: indented code blocks are scripts too.
    #[test]
    fn indented_code_blocks_are_scripts() {
        let text = "# My readme\n\n## Tasks\n\n### list\n\nLists files\n\n    ls\n\n### greet\n\n\
Print a message\n\n\techo \"Hello, world!\"\n\techo \"Hello, world2!\"\n";
        let p = run("README.md", text);
        assert_eq!(task(&p, "list").script.as_deref(), Some("ls"));
        assert_eq!(
            task(&p, "greet").script.as_deref(),
            Some("echo \"Hello, world!\"\necho \"Hello, world2!\"")
        );
        assert_eq!(
            task(&p, "greet").description.as_deref(),
            Some("Print a message")
        );
    }

    #[test]
    fn crlf_and_bom_are_handled() {
        let text = "\u{feff}# Project\r\n\r\nTasks\r\n-----\r\n\r\n### build\r\nBuilds it.\r\nRequires: gen\r\n\
\r\n```\r\ngo build ./...\r\ngo vet ./...\r\n```\r\n\r\n### gen\r\n```\r\ngo generate\r\n```\r\n";
        let p = run("README.md", text);
        assert_eq!(names(&p), ["build", "gen"]);
        let b = task(&p, "build");
        assert_eq!(b.line, Some(6));
        assert_eq!(b.description.as_deref(), Some("Builds it."));
        assert_eq!(b.deps, ["gen"]);
        assert_eq!(b.script.as_deref(), Some("go build ./...\ngo vet ./..."));
        assert_eq!(task(&p, "gen").line, Some(15));
    }

    #[test]
    fn deeper_subsections_belong_to_the_task_body() {
        let text = "## Tasks\n\n### release\n\nCuts a release.\n\n#### Notes\n\nNeeds a clean tree.\n\
Requires: test\n\n```\n./release.sh\n```\n\n#### Example output\n\nNothing much.\n\n### test\n\n```\ngo test\n```\n";
        let p = run("README.md", text);
        assert_eq!(names(&p), ["release", "test"]);
        let t = task(&p, "release");
        assert_eq!(t.deps, ["test"]);
        assert_eq!(t.script.as_deref(), Some("./release.sh"));
        assert_eq!(
            t.description.as_deref(),
            Some("Cuts a release.\n\nNeeds a clean tree.\n\nNothing much.")
        );
        // A deeper heading before the first task is not a task either.
        let text = "## Tasks\n#### About\nRun these with xc.\n### a\n```\na\n```\n";
        let p = run("README.md", text);
        assert_eq!(names(&p), ["a"]);
        assert!(p.diagnostics.is_empty());
    }

    #[test]
    fn descriptions_skip_lists_quotes_comments_and_keep_breaks() {
        let text = "## Tasks\n### lint\n<!-- keep in sync with CI -->\nRuns **all** the [linters](https://x).  \nTakes a while.\n\n\
- Requires: not-an-attribute\n- a bullet\n\n> Note: slow.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n\
Unknown: key stays prose.\n```\nmake lint\n```\n";
        let p = run("README.md", text);
        let t = task(&p, "lint");
        assert_eq!(
            t.description.as_deref(),
            Some("Runs all the linters.\nTakes a while.\n\nUnknown: key stays prose.")
        );
        assert!(t.deps.is_empty());
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
    }

    #[test]
    fn interactive_and_hidden_are_attributes_not_prose() {
        let text =
            "## Tasks\n### configure\ninteractive: true\nhidden: true\n```\n./configure\n```\n";
        let p = run("README.md", text);
        let t = task(&p, "configure");
        assert_eq!(t.description, None);
        assert!(t.behaviour.interactive);
    }

    #[test]
    fn an_unclosed_fence_makes_xc_refuse_the_file() {
        let text = "## Tasks\n### a\n````\necho a\n### b\n```\n";
        let p = run("README.md", text);
        assert!(names(&p).is_empty());
        assert_eq!(
            messages(&p),
            [(
                Some(3),
                "xc refuses this file (xc parse error: command block in task a was not ended); none of its tasks are listed"
            )]
        );
        assert!(fence_closed("```sh\nx\n```"));
        assert!(fence_closed("~~~~\nx\n~~~~~  "));
        assert!(!fence_closed("````\nx\n```"));
        assert!(!fence_closed("```"));
    }

    #[test]
    fn empty_heading_and_empty_list_entries() {
        let text = "## Tasks\n###\n```\nx\n```\n### `*deploy*`\nRequires: build, , \nInputs: ,\n```\nx\n```\n";
        let p = run("README.md", text);
        assert_eq!(names(&p), ["deploy"]);
        assert_eq!(task(&p, "deploy").deps, ["build"]);
        assert!(task(&p, "deploy").params.is_empty());
        assert_eq!(
            messages(&p),
            [(Some(2), "xc task heading has no name; skipped")]
        );
    }

    #[test]
    fn requires_keeps_arguments_as_written() {
        // xc splits each Requires entry with shlex: `greet Joe` runs greet with input Joe.
        let text = "## Tasks\n### greet\nInputs: NAME\n```\necho $NAME\n```\n### hi\nRequires: greet Joe\n";
        let p = run("README.md", text);
        assert_eq!(task(&p, "hi").deps, ["greet Joe"]);
    }

    #[test]
    fn hostile_inputs_do_not_panic_or_hang() {
        let deep = format!("## Tasks\n### a\n{}x\n```\na\n```\n", ">".repeat(50_000));
        let _ = run("README.md", &deep);
        let nested = format!("## Tasks\n### a\n{}\n", "- ".repeat(20_000));
        let _ = run("README.md", &nested);
        let long = format!("## Tasks\n### a\nRequires: {}\n", "b, ".repeat(500_000));
        let p = run("README.md", &long);
        assert_eq!(task(&p, "a").deps.len(), 500_000);
        let inputs = format!(
            "## Tasks\n### a\nInputs: {}\nEnv: {}\n```\nx\n```\n",
            "I, ".repeat(200_000),
            "I=1, ".repeat(200_000)
        );
        let p = run("README.md", &inputs);
        assert_eq!(task(&p, "a").params.len(), 200_000);
        let line = format!("tasks {}", "word *x_ `y` [z](w) ".repeat(200_000));
        assert!(run("README.md", &line).tasks.is_empty());
        for junk in [
            "#",
            "```",
            "<!-- xc-heading -->",
            "<!-- xc-heading -->\n",
            "Tasks\n---",
            "\r\r\n",
        ] {
            let _ = run("README.md", junk);
        }
    }

    #[test]
    fn case_insensitive_search() {
        assert_eq!(find_ignore_case("The TaSkS section", "tasks"), Some(4));
        assert_eq!(find_ignore_case("tasks", "tasks"), Some(0));
        assert_eq!(find_ignore_case("task", "tasks"), None);
        assert_eq!(find_ignore_case("ééé", "tasks"), None);
    }

    #[test]
    fn pre_check_only_passes_possible_tasks_headings() {
        assert!(may_hold_tasks("# Project\n\n## Tasks\n"));
        assert!(may_hold_tasks("   ### **TASKS** ###"));
        assert!(may_hold_tasks("Intro\r\n\r\nTasks\r\n-----\r\n"));
        assert!(may_hold_tasks("Old Mac\rTasks\r===\r"));
        assert!(may_hold_tasks("[Tasks](#tasks)\n---\n"));
        assert!(may_hold_tasks("text\n<!-- XC-HEADING -->\n## Dev\n"));
        assert!(!may_hold_tasks(
            "Runs tasks on a pool.\nTasks are cheap.\n\n---\n"
        ));
        assert!(!may_hold_tasks("## Usage\nSpawn tasks.\n"));
        assert!(!may_hold_tasks(""));
    }
}
