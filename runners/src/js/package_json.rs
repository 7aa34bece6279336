//! `package.json` scripts, run with the package manager that owns the package (npm, pnpm,
//! yarn or bun, see [`detect_manager`](super::manager::detect_manager)) as `<pm> run <script>`.
//!
//! Extra arguments are appended by the engine, not here: npm needs a `--` before them
//! (`npm run test -- --watch`), pnpm, yarn and bun pass them through as they are.

use std::collections::HashMap;

use super::manager::detect;
use crate::doc::{self, Entry, Node, Report, Rest, Terms};
use crate::files::file_name;
use crate::files::parent;
use crate::model::Adapter;
use crate::model::{Hook, HookWhen, Parsed, Runner, Source, Task};
use crate::reads::Purpose;

/// The package.json adapter.
pub const ADAPTER: Adapter = Adapter {
    name: "package_json",
    candidate: |path| (file_name(path) == "package.json").then_some(0),
    one_per_dir: true,
    admit: None,
    neighbours: Some(super::NEIGHBOURS),
    parse,
};

/// The top-level keys read here and by the package manager's detection; the rest of the file
/// (dependencies, mostly) is checked as thoroughly, so that what npm's reader refuses is
/// reported, but not built.
const KEYS: &[&str] = &["name", "scripts", "packageManager", "scripts-info", "ntl"];

fn parse(src: &Source<'_>) -> Parsed {
    let mut parsed = Parsed::default();
    // npm strips a byte order mark before parsing, and so does the reader. Read for a
    // decision, every field is built: a script may name any of them (`$npm_package_*`).
    let read = if src.purpose == Purpose::Decide {
        doc::read_json(src.text, doc::Dialect::Strict)
    } else {
        doc::read_json_keys(src.text, KEYS, Rest::Checked)
    };
    let Some(root) = read
        .and_then(|root| {
            root.into_table_or("package.json should be an object", Terms::Json)
                .map_err(|err| err.at(1))
        })
        .or_report(src.path, &mut parsed)
    else {
        return parsed;
    };
    let package = root.get("name").and_then(Node::str);
    let Some(scripts) = root.get("scripts") else {
        super::nx::from_package_json(src, &mut parsed);
        parsed.name_package(package);
        return parsed;
    };
    let Some(entries) = scripts
        .table_or("`scripts` should be an object", Terms::Json)
        .or_report(src.path, &mut parsed)
    else {
        return parsed;
    };
    let scripts = Scripts::new(entries);

    let dir = parent(src.path);
    let (runner, problem) = detect(dir, Some(&root), src.files);
    if let Some(problem) = problem {
        let line = problem
            .line_key
            .and_then(|k| root.get(k))
            .map(|node| node.line);
        parsed.diag(src.path, line, problem.message);
    }
    let descriptions = Descriptions::new(&root);

    parsed.tasks.reserve(entries.len());
    for Entry {
        key: name, node, ..
    } in entries
    {
        if is_comment(name) {
            continue;
        }
        let line = Some(node.line);
        let Some(command) = node.str() else {
            node.mismatch(&format!("script `{name}` should be a string"), Terms::Json)
                .report(src.path, &mut parsed);
            continue;
        };
        if scripts.is_hook(name) {
            continue;
        }
        let argv = vec![runner.name().to_owned(), "run".to_owned(), name.clone()];
        let mut task = Task::new(runner, name.clone(), dir, src.path, argv);
        task.line = line;
        task.description = descriptions.get(name);
        task.script = Some(command.to_owned());
        if runs_hooks(runner) {
            task.behaviour.hooks = scripts.hooks(name);
        }
        if src.purpose == Purpose::Decide {
            let hooks = scripts.hooks(name);
            let hook_texts: Vec<&str> = hooks.iter().map(|h| h.command.as_str()).collect();
            let is_script = |s: &str| scripts.by_name.contains_key(s) && !scripts.is_hook(s);
            let mut reads = super::reads::reads(&root, command, &hook_texts, &is_script);
            // yarn 1 runs them too, though agg does not claim them for yarn.
            for hook in &hooks {
                reads.part(format!("script `{}`", hook.name), hook.command.clone());
            }
            task.reads = Some(Box::new(reads));
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

/// The scripts by name.
struct Scripts<'a> {
    by_name: HashMap<&'a str, &'a Node>,
}

impl<'a> Scripts<'a> {
    fn new(entries: &'a [Entry]) -> Self {
        Scripts {
            by_name: entries.iter().map(|e| (e.key.as_str(), &e.node)).collect(),
        }
    }

    /// The `pre<name>` and `post<name>` scripts the package manager runs around `name`.
    fn hooks(&self, name: &str) -> Vec<Hook> {
        [("pre", HookWhen::Before), ("post", HookWhen::After)]
            .into_iter()
            .filter_map(|(prefix, when)| {
                let hook = format!("{prefix}{name}");
                let command = self.by_name.get(hook.as_str())?.str()?.to_owned();
                Some(Hook {
                    name: hook,
                    when,
                    command,
                })
            })
            .collect()
    }

    /// Whether `name` is a `pre<x>` or `post<x>` hook of an existing script `<x>`: the
    /// package manager runs it around `<x>`, so it is not a task of its own. `prepare` stays
    /// unless there is a `pare` script.
    fn is_hook(&self, name: &str) -> bool {
        ["pre", "post"].iter().any(|prefix| {
            name.strip_prefix(prefix)
                .is_some_and(|base| !base.is_empty() && self.by_name.contains_key(base))
        })
    }
}

/// Per-script descriptions from the two conventions in real use: `"scripts-info"`
/// (npm-scripts-info) and `"ntl": {"descriptions": ...}` (ntl).
struct Descriptions<'a> {
    maps: Vec<HashMap<&'a str, &'a Node>>,
}

impl<'a> Descriptions<'a> {
    fn new(root: &'a Node) -> Self {
        let scripts_info = root.get("scripts-info").and_then(Node::entries);
        let ntl = root.path(&["ntl", "descriptions"]).and_then(Node::entries);
        Descriptions {
            maps: scripts_info
                .into_iter()
                .chain(ntl)
                .map(|entries| entries.iter().map(|e| (e.key.as_str(), &e.node)).collect())
                .collect(),
        }
    }

    fn get(&self, name: &str) -> Option<String> {
        self.maps.iter().find_map(|m| {
            let text = m.get(name)?.str()?.trim();
            (!text.is_empty()).then(|| text.to_owned())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::manager::detect_manager;
    use super::*;
    use crate::files::MemFiles;
    use crate::testing::{name_list, names};
    use indoc::indoc;

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
            name_list(&parsed),
            "dev, build, preinstall, prepare, prepublishOnly, postcss, test:e2e, build:prod, lint fix, pre"
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
        let text = indoc! {"
            {
              \"config\": {\"scripts\": {\"build\": 1}},
              \"description\": \"\\\"scripts\\\": {\\\"build\\\"\",
              \"scripts\": {
                \"b\\u0075ild\": \"tsc\",
                \"nested\": \"node -e '{\\\"a\\\": 1}'\",
                \"last\": \"x\"
              }
            }"};
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
            indoc! {"
                {\"scripts\": {
                  \"ok\": \"echo ok\",
                  \"num\": 5,
                  \"obj\": {\"cmd\": \"x\"}
                }}"},
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
                indoc! {"
                    {
                      \"packageManager\": \"pnpm@9.1.0+sha512.abcdef\"
                    }"},
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
                indoc! {"
                    {
                      \"packageManager\": \"deno@2.0.0\",
                      \"scripts\": {\"e\": \"f\"}
                    }"},
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
                purpose: crate::reads::Purpose::List,
                path: "package.json",
                text,
                files: &files,
            });
        }
        let parsed = parse(&Source {
            purpose: crate::reads::Purpose::List,
            path: "package.json",
            text: &long,
            files: &files,
        });
        assert_eq!(parsed.tasks.len(), 1);
    }
}
