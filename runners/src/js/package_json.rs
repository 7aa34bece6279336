//! `package.json` scripts, run with the package manager that owns the package (npm, pnpm,
//! yarn or bun, see [`detect_manager`](super::manager::detect_manager)) as `<pm> run <script>`.
//!
//! Extra arguments are appended by the engine, not here: npm needs a `--` before them
//! (`npm run test -- --watch`), pnpm, yarn and bun pass them through as they are.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::manager::detect;
use crate::files::file_name;
use crate::files::parent;
use crate::model::Adapter;
use crate::model::{Hook, HookWhen, Parsed, RawTask, Runner, Source};
use crate::text::LineIndex;

/// The package.json adapter.
pub const ADAPTER: Adapter = Adapter {
    name: "package_json",
    candidate: |path| (file_name(path) == "package.json").then_some(0),
    one_per_dir: true,
    admit: None,
    parse,
};

fn parse(src: &Source<'_>) -> Parsed {
    let mut parsed = Parsed::default();
    // npm strips a byte order mark before parsing; serde_json does not.
    let text = src.text.strip_prefix('\u{feff}').unwrap_or(src.text);
    let root = match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(root)) => root,
        Ok(other) => {
            let message = format!("package.json should be an object, not {}", kind(&other));
            parsed.diag(src.path, Some(1), message);
            return parsed;
        }
        Err(err) => {
            let message = err.to_string();
            // The line travels separately; drop serde_json's position suffix.
            let message = message
                .find(" at line ")
                .map_or(&*message, |i| &message[..i]);
            let line = u32::try_from(err.line()).ok().filter(|&l| l > 0);
            parsed.diag(src.path, line, format!("invalid JSON: {message}"));
            return parsed;
        }
    };
    let package = root.get("name").and_then(Value::as_str);
    let Some(scripts) = root.get("scripts") else {
        super::nx::from_package_json(src, &mut parsed);
        parsed.name_package(package);
        return parsed;
    };
    let keys = KeyOffsets::scan(text);
    let lines = LineIndex::new(text);
    let line_of = |offset: Option<&usize>| offset.map(|&o| lines.line(o));
    let Value::Object(scripts) = scripts else {
        let message = format!("`scripts` should be an object, not {}", kind(scripts));
        parsed.diag(src.path, line_of(keys.top.get("scripts")), message);
        return parsed;
    };

    let dir = parent(src.path);
    let (runner, problem) = detect(dir, Some(&root), src.files);
    if let Some(problem) = problem {
        let line = problem.line_key.and_then(|k| line_of(keys.top.get(k)));
        parsed.diag(src.path, line, problem.message);
    }
    let descriptions = Descriptions::new(&root);

    for (name, value) in scripts {
        if is_comment(name) {
            continue;
        }
        let line = line_of(keys.scripts.get(name.as_str()));
        let Value::String(command) = value else {
            let message = format!("script `{name}` should be a string, not {}", kind(value));
            parsed.diag(src.path, line, message);
            continue;
        };
        if is_hook(name, scripts) {
            continue;
        }
        let argv = vec![runner.name().to_owned(), "run".to_owned(), name.clone()];
        let mut task = RawTask::new(runner, name.clone(), dir, src.path, argv);
        task.line = line;
        task.description = descriptions.get(name);
        task.script = Some(command.clone());
        if runs_hooks(runner) {
            task.behaviour.hooks = hooks(name, scripts);
        }
        parsed.tasks.push(task);
    }
    super::nx::from_package_json(src, &mut parsed);
    parsed.name_package(package);
    parsed
}

/// Whether a `scripts` key is a comment: npm and the JSON-with-comments convention use
/// `"//"` and keys starting with it (`"// build"`) for notes, never as scripts.
fn is_comment(name: &str) -> bool {
    name.starts_with("//")
}

/// Whether the package manager runs `pre<x>` and `post<x>` around `<x>` (yarn 2 and later
/// do not, yarn 1 does; agg cannot tell them apart statically, so yarn's are not claimed).
fn runs_hooks(runner: Runner) -> bool {
    matches!(runner, Runner::Npm | Runner::Pnpm | Runner::Bun)
}

/// The `pre<name>` and `post<name>` scripts the package manager runs around `name`.
fn hooks(name: &str, scripts: &Map<String, Value>) -> Vec<Hook> {
    [("pre", HookWhen::Before), ("post", HookWhen::After)]
        .into_iter()
        .filter_map(|(prefix, when)| {
            let hook = format!("{prefix}{name}");
            let command = scripts.get(&hook)?.as_str()?.to_owned();
            Some(Hook {
                name: hook,
                when,
                command,
            })
        })
        .collect()
}

/// Whether `name` is a `pre<x>` or `post<x>` hook of an existing script `<x>`: the package
/// manager runs it around `<x>`, so it is not a task of its own. `prepare` stays unless
/// there is a `pare` script.
fn is_hook(name: &str, scripts: &Map<String, Value>) -> bool {
    ["pre", "post"].iter().any(|prefix| {
        name.strip_prefix(prefix)
            .is_some_and(|base| !base.is_empty() && scripts.contains_key(base))
    })
}

/// Per-script descriptions from the two conventions in real use: `"scripts-info"`
/// (npm-scripts-info) and `"ntl": {"descriptions": ...}` (ntl).
struct Descriptions<'a> {
    maps: Vec<&'a Map<String, Value>>,
}

impl<'a> Descriptions<'a> {
    fn new(root: &'a Map<String, Value>) -> Self {
        let scripts_info = root.get("scripts-info").and_then(Value::as_object);
        let ntl = root
            .get("ntl")
            .and_then(|n| n.get("descriptions"))
            .and_then(Value::as_object);
        Descriptions {
            maps: scripts_info.into_iter().chain(ntl).collect(),
        }
    }

    fn get(&self, name: &str) -> Option<String> {
        self.maps.iter().find_map(|m| {
            let text = m.get(name)?.as_str()?.trim();
            (!text.is_empty()).then(|| text.to_owned())
        })
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Where the keys of valid JSON text start: the top-level ones and those of the top-level
/// `"scripts"` object, by decoded key (a later duplicate overrides, as in `serde_json`).
#[derive(Debug, Default)]
struct KeyOffsets {
    top: HashMap<String, usize>,
    scripts: HashMap<String, usize>,
}

impl KeyOffsets {
    /// One linear pass over text that `serde_json` has already accepted.
    fn scan(text: &str) -> KeyOffsets {
        let bytes = text.as_bytes();
        let mut out = KeyOffsets::default();
        let mut depth = 0usize;
        // The depth inside the top-level "scripts" object, once it is open.
        let mut scripts_depth = None;
        let mut i = 0;
        while let Some(&b) = bytes.get(i) {
            match b {
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    if scripts_depth == Some(depth) {
                        scripts_depth = None;
                    }
                    depth = depth.saturating_sub(1);
                }
                b'"' => {
                    let end = string_end(bytes, i);
                    let mut next = end + 1;
                    while bytes.get(next).is_some_and(u8::is_ascii_whitespace) {
                        next += 1;
                    }
                    if bytes.get(next) == Some(&b':') {
                        let key = text
                            .get(i..=end)
                            .and_then(|raw| serde_json::from_str::<String>(raw).ok())
                            .unwrap_or_default();
                        if depth == 1 {
                            if key == "scripts" {
                                let mut open = next + 1;
                                while bytes.get(open).is_some_and(u8::is_ascii_whitespace) {
                                    open += 1;
                                }
                                if bytes.get(open) == Some(&b'{') {
                                    scripts_depth = Some(2);
                                }
                            }
                            out.top.insert(key, i);
                        } else if scripts_depth == Some(depth) {
                            out.scripts.insert(key, i);
                        }
                    }
                    i = end;
                }
                _ => {}
            }
            i += 1;
        }
        out
    }
}

/// The index of the quote that closes the string opening at `start`.
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 2,
            b'"' => return i,
            _ => i += 1,
        }
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::super::manager::detect_manager;
    use super::*;
    use crate::files::MemFiles;
    use crate::testing::names;

    fn run(files: &MemFiles, path: &str) -> Parsed {
        crate::testing::parse_with(parse, files, path)
    }

    const NEXT_APP: &str = r#"{
  "name": "web",
  "private": true,
  "scripts": {
    "dev": "next dev",
    "prebuild": "rimraf .next",
    "build": "next build",
    "postbuild": "next-sitemap",
    "preinstall": "npx only-allow pnpm",
    "prepare": "husky",
    "prepublishOnly": "npm run build",
    "postcss": "postcss src -d dist",
    "test:e2e": "playwright test",
    "build:prod": "NODE_ENV=production next build",
    "lint fix": "eslint . --fix",
    "pre": "echo bare pre"
  },
  "scripts-info": {
    "dev": "  Start the dev server  ",
    "build": ""
  },
  "ntl": {
    "descriptions": {
      "dev": "ignored: scripts-info comes first",
      "test:e2e": "End-to-end tests"
    }
  }
}
"#;

    #[test]
    fn scripts_in_file_order_without_their_hooks() {
        let files = MemFiles::new().with("package.json", NEXT_APP);
        let parsed = run(&files, "package.json");
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        assert_eq!(
            names(&parsed),
            [
                "dev",
                "build",
                "preinstall",
                "prepare",
                "prepublishOnly",
                "postcss",
                "test:e2e",
                "build:prod",
                "lint fix",
                "pre"
            ]
        );
        let dev = &parsed.tasks[0];
        assert_eq!(dev.runner, Runner::Npm);
        assert_eq!(dev.argv, ["npm", "run", "dev"]);
        assert_eq!(dev.dir, ".");
        assert_eq!(dev.file_path, "package.json");
        assert_eq!(dev.line, Some(5));
        assert_eq!(dev.script.as_deref(), Some("next dev"));
        assert_eq!(dev.description.as_deref(), Some("Start the dev server"));
        let build = &parsed.tasks[1];
        assert_eq!(build.line, Some(7));
        assert_eq!(build.description, None);
        let e2e = &parsed.tasks[6];
        assert_eq!(e2e.description.as_deref(), Some("End-to-end tests"));
        assert_eq!(e2e.line, Some(13));
        assert_eq!(parsed.tasks[8].argv, ["npm", "run", "lint fix"]);
        assert_eq!(parsed.tasks[8].line, Some(15));
    }

    #[test]
    fn comment_keys_are_not_scripts() {
        let text = r#"{"scripts": {"//": "run build before deploy", "// deploy": ["a", "b"], "build": "tsc", "deploy": "./deploy.sh"}}"#;
        let parsed = run(&MemFiles::new().with("package.json", text), "package.json");
        assert_eq!(names(&parsed), ["build", "deploy"]);
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    }

    #[test]
    fn pre_and_post_scripts_are_hooks_of_their_script() {
        let files = MemFiles::new().with("package.json", NEXT_APP);
        let parsed = run(&files, "package.json");
        let build = crate::testing::task(&parsed, "build");
        assert_eq!(
            build.behaviour.hooks,
            [
                Hook {
                    name: "prebuild".to_owned(),
                    when: HookWhen::Before,
                    command: "rimraf .next".to_owned()
                },
                Hook {
                    name: "postbuild".to_owned(),
                    when: HookWhen::After,
                    command: "next-sitemap".to_owned()
                }
            ]
        );
        assert!(
            crate::testing::task(&parsed, "dev")
                .behaviour
                .hooks
                .is_empty()
        );
    }

    #[test]
    fn lines_come_from_the_scripts_object_only() {
        let text = "{\n  \"config\": {\"scripts\": {\"build\": 1}},\n  \"description\": \"\\\"scripts\\\": {\\\"build\\\"\",\n  \"scripts\": {\n    \"b\\u0075ild\": \"tsc\",\n    \"nested\": \"node -e '{\\\"a\\\": 1}'\",\n    \"last\": \"x\"\n  }\n}";
        let files = MemFiles::new().with("pkg/package.json", text);
        let parsed = run(&files, "pkg/package.json");
        assert_eq!(names(&parsed), ["build", "nested", "last"]);
        let lines: Vec<Option<u32>> = parsed.tasks.iter().map(|t| t.line).collect();
        assert_eq!(lines, [Some(5), Some(6), Some(7)]);
        assert_eq!(parsed.tasks[0].dir, "pkg");
    }

    #[test]
    fn bad_scripts_are_reported_and_skipped() {
        let files = MemFiles::new().with(
            "package.json",
            "{\"scripts\": {\n  \"ok\": \"echo ok\",\n  \"num\": 5,\n  \"obj\": {\"cmd\": \"x\"}\n}}",
        );
        let parsed = run(&files, "package.json");
        assert_eq!(names(&parsed), ["ok"]);
        let got: Vec<(Option<u32>, &str)> = parsed
            .diagnostics
            .iter()
            .map(|d| (d.line, d.message.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (Some(3), "script `num` should be a string, not a number"),
                (Some(4), "script `obj` should be a string, not an object"),
            ]
        );
    }

    #[test]
    fn broken_and_odd_files() {
        let files = MemFiles::new()
            .with(
                "a/package.json",
                "{\n  \"name\": \"a\",\n  \"scripts\": {\n    \"build\": \"tsc\"\n  \n}\n",
            )
            .with("b/package.json", "[1, 2]")
            .with("c/package.json", "{\"name\": \"no-scripts\"}")
            .with("d/package.json", "{\n\"scripts\": [\"build\"]}")
            .with("e/package.json", "")
            .with("f/package.json", "\u{feff}{\"scripts\": {\"x\": \"y\"}}");
        let a = run(&files, "a/package.json");
        assert!(a.tasks.is_empty());
        assert_eq!(a.diagnostics[0].line, Some(7));
        assert_eq!(
            a.diagnostics[0].message,
            "invalid JSON: EOF while parsing an object"
        );
        assert_eq!(
            run(&files, "b/package.json").diagnostics[0].message,
            "package.json should be an object, not an array"
        );
        assert_eq!(run(&files, "c/package.json"), Parsed::default());
        let d = run(&files, "d/package.json");
        assert_eq!(d.diagnostics[0].line, Some(2));
        assert_eq!(
            d.diagnostics[0].message,
            "`scripts` should be an object, not an array"
        );
        assert_eq!(run(&files, "e/package.json").diagnostics.len(), 1);
        assert_eq!(names(&run(&files, "f/package.json")), ["x"]);
    }

    #[test]
    fn nearest_directory_decides_the_manager() {
        let files = MemFiles::new()
            .with(
                "package.json",
                r#"{"private": true, "scripts": {"build": "turbo build"}}"#,
            )
            .with(
                "pnpm-workspace.yaml",
                "packages: ['apps/*', 'packages/*']\n",
            )
            .with("apps/web/package.json", r#"{"scripts": {"dev": "vite"}}"#)
            .with(
                "apps/legacy/package.json",
                r#"{"packageManager": "yarn@4.1.0", "scripts": {"start": "node ."}}"#,
            )
            .with("apps/legacy/src/package.json", r#"{"scripts": {"x": "y"}}"#)
            .with(
                "packages/ui/package.json",
                r#"{"scripts": {"test": "bun test"}}"#,
            )
            .with("packages/ui/bun.lockb", "")
            .with("tools/npm/package.json", "{}")
            .with("tools/npm/package-lock.json", "{}");
        assert_eq!(detect_manager(".", &files), Runner::Pnpm);
        assert_eq!(detect_manager("apps/web", &files), Runner::Pnpm);
        assert_eq!(detect_manager("apps/legacy", &files), Runner::Yarn);
        assert_eq!(detect_manager("apps/legacy/src", &files), Runner::Yarn);
        assert_eq!(detect_manager("packages/ui", &files), Runner::Bun);
        assert_eq!(detect_manager("tools/npm", &files), Runner::Npm);
        assert_eq!(detect_manager("elsewhere", &MemFiles::new()), Runner::Npm);

        let ui = run(&files, "packages/ui/package.json");
        assert_eq!(ui.tasks[0].argv, ["bun", "run", "test"]);
        assert_eq!(ui.tasks[0].runner, Runner::Bun);
        let web = run(&files, "apps/web/package.json");
        assert_eq!(web.tasks[0].argv, ["pnpm", "run", "dev"]);
        let legacy = run(&files, "apps/legacy/package.json");
        assert_eq!(legacy.tasks[0].argv, ["yarn", "run", "start"]);
    }

    #[test]
    fn package_manager_field_beats_lockfiles_in_the_same_directory() {
        let files = MemFiles::new()
            .with(
                "package.json",
                "{\n  \"packageManager\": \"pnpm@9.1.0+sha512.abcdef\"\n}",
            )
            .with("package-lock.json", "{}");
        assert_eq!(detect_manager(".", &files), Runner::Pnpm);
    }

    #[test]
    fn manager_problems_are_reported_where_they_are() {
        let files = MemFiles::new()
            .with("yarn.lock", "")
            .with("package-lock.json", "{}")
            .with("package.json", r#"{"scripts": {"a": "b"}}"#)
            .with("sub/package.json", r#"{"scripts": {"c": "d"}}"#)
            .with(
                "odd/package.json",
                "{\n  \"packageManager\": \"deno@2.0.0\",\n  \"scripts\": {\"e\": \"f\"}\n}",
            );
        let root = run(&files, "package.json");
        assert_eq!(root.tasks[0].argv, ["yarn", "run", "a"]);
        assert_eq!(
            root.diagnostics[0].message,
            "several lockfiles in . (yarn.lock, package-lock.json): using yarn"
        );
        let sub = run(&files, "sub/package.json");
        assert_eq!(sub.tasks[0].runner, Runner::Yarn);
        assert!(sub.diagnostics.is_empty());
        let odd = run(&files, "odd/package.json");
        assert_eq!(odd.tasks[0].runner, Runner::Npm);
        assert_eq!(odd.diagnostics[0].line, Some(2));
        assert_eq!(
            odd.diagnostics[0].message,
            "unknown packageManager `deno@2.0.0`: using npm"
        );
    }

    #[test]
    fn same_manager_lockfiles_are_no_conflict() {
        let files = MemFiles::new()
            .with("pnpm-lock.yaml", "")
            .with("pnpm-workspace.yaml", "")
            .with("package.json", r#"{"scripts": {"a": "b"}}"#);
        let parsed = run(&files, "package.json");
        assert!(parsed.diagnostics.is_empty());
        assert_eq!(parsed.tasks[0].runner, Runner::Pnpm);
    }

    #[test]
    fn hostile_inputs_return() {
        let files = MemFiles::new();
        let long = format!("{{\"scripts\": {{\"a\": \"{}\"}}}}", "x".repeat(20_000_000));
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let unterminated = "{\"scripts\": {\"a\": \"\\";
        for text in [
            long.as_str(),
            deep.as_str(),
            unterminated,
            "{\"scripts\": {\"\\\"\": \"q\"}}",
        ] {
            let _ = parse(&Source {
                path: "package.json",
                text,
                files: &files,
            });
        }
        let parsed = parse(&Source {
            path: "package.json",
            text: &long,
            files: &files,
        });
        assert_eq!(parsed.tasks.len(), 1);
    }
}
