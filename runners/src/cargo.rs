//! Cargo aliases: the `[alias]` table of `.cargo/config.toml` or the legacy `.cargo/config`,
//! each alias a task run as `cargo <alias>` from the directory that holds `.cargo/`.
//!
//! The document tree gives every alias key its line, and its comments (the block above the
//! key, or one after the value) the description. Aliases cargo would never run (shadowed by a
//! built-in command, empty, mistyped) are reported instead of listed.

use crate::doc::{self, Comments, Node};
use crate::files::file_name;
use crate::files::{Files, join, parent};
use crate::model::Adapter;
use crate::model::{Parsed, Runner, Source, Task};
use crate::reads::{Purpose, Reads};
use crate::text::quote_command;

/// The cargo adapter.
pub const ADAPTER: Adapter = Adapter {
    name: "cargo config",
    candidate,
    one_per_dir: true,
    admit: None,
    neighbours: None,
    parse,
};

/// Cargo's built-in commands (`cargo --list`, cargo 1.95), which always win over a
/// user-defined alias of the same name: cargo warns "user-defined alias `x` is ignored,
/// because it is shadowed by a built-in command". The built-in *aliases* `b`, `c`, `d`, `r`,
/// `t` and `rm` are not here: cargo looks up the user's `alias.<name>` first and only falls
/// back to its own alias table, so a user alias `t = "nextest run"` replaces `cargo t`
/// (cargo's `aliased_command`; checked with cargo 1.95: `b = "version"` makes `cargo b`
/// print the version).
const BUILTIN_COMMANDS: &[&str] = &[
    "add",
    "bench",
    "build",
    "check",
    "clean",
    "config",
    "doc",
    "fetch",
    "fix",
    "generate-lockfile",
    "git-checkout",
    "help",
    "info",
    "init",
    "install",
    "locate-project",
    "login",
    "logout",
    "metadata",
    "new",
    "owner",
    "package",
    "pkgid",
    "publish",
    "read-manifest",
    "remove",
    "report",
    "run",
    "rustc",
    "rustdoc",
    "search",
    "test",
    "tree",
    "uninstall",
    "update",
    "vendor",
    "verify-project",
    "version",
    "yank",
];

fn candidate(path: &str) -> Option<u8> {
    if file_name(parent(path)) != ".cargo" {
        return None;
    }
    // When both exist cargo reads `config` and warns that `config.toml` is ignored.
    match file_name(path) {
        "config" => Some(0),
        "config.toml" => Some(1),
        _ => None,
    }
}

fn parse(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    let cargo_dir = parent(src.path);
    let dir = parent(cargo_dir);
    if file_name(src.path) == "config" {
        let ignored = if cargo_dir == "." {
            "config.toml".to_owned()
        } else {
            format!("{cargo_dir}/config.toml")
        };
        if src.files.exists(&ignored) {
            out.diag(
                &ignored,
                None,
                "cargo ignores this file because `.cargo/config` exists next to it",
            );
        }
    }

    let root = match doc::read_toml(src.text) {
        Ok(root) => root,
        Err(error) => {
            out.diag(src.path, error.line, error.message);
            return out;
        }
    };
    let Some(alias) = root.get("alias") else {
        return out;
    };
    let Some(entries) = alias.entries() else {
        out.diag(
            src.path,
            Some(alias.line),
            "`alias` must be a table of aliases",
        );
        return out;
    };

    let comments = Comments::new(src.text);
    for entry in entries {
        let name = entry.key.as_str();
        let line = entry.node.line;
        let words = match expansion(&entry.node) {
            Ok(words) => words,
            Err(problem) => {
                out.diag(src.path, Some(line), format!("alias `{name}` {problem}"));
                continue;
            }
        };
        if BUILTIN_COMMANDS.contains(&name) {
            out.diag(
                src.path,
                Some(line),
                format!(
                    "alias `{name}` is shadowed by the built-in cargo command and is never used"
                ),
            );
            continue;
        }
        let mut task = Task::new(
            Runner::Cargo,
            name,
            dir,
            src.path,
            vec!["cargo".to_owned(), name.to_owned()],
        );
        task.line = Some(line);
        task.description = comments.of(entry, "alias");
        task.script = Some(match entry.node.str() {
            Some(_) => words.join(" "),
            None => quote_command(&words),
        });
        if src.purpose == Purpose::Decide {
            task.reads = Some(Box::new(alias_reads(&root, &words, entries)));
        }
        out.tasks.push(task);
    }
    if !out.tasks.is_empty() {
        out.name_package(package_name(src.files, dir).as_deref());
    }
    out
}

/// What an alias expanding to `words` reads of its config file, for a pin: every table but
/// `[alias]` (`[build]` can name a `rustc-wrapper`, `[env]` sets the environment, `[target]`
/// a runner), and the alias its first word names, which cargo expands in turn. Other aliases
/// are not read.
fn alias_reads(root: &Node, words: &[String], aliases: &[doc::Entry]) -> Reads {
    let mut reads = Reads::default();
    for entry in root.entries().unwrap_or_default() {
        if entry.key != "alias" {
            reads.part(format!("setting `[{}]`", entry.key), entry.node.canonical());
        }
    }
    if let Some(first) = words.first()
        && aliases.iter().any(|a| a.key == *first)
    {
        reads.runs(first.clone());
    }
    reads
}

/// `[package].name` of the `Cargo.toml` beside `.cargo/`, when there is one (a virtual
/// workspace's manifest has none): the package the aliases belong to.
fn package_name(files: &dyn Files, dir: &str) -> Option<String> {
    let text = files.read(&join(dir, "Cargo.toml")?).ok()?;
    let manifest = doc::read_toml(&text).ok()?;
    manifest
        .path(&["package", "name"])
        .and_then(Node::str)
        .map(str::to_owned)
}

/// Why cargo cannot run an alias; its `Display` follows the alias's name in a diagnostic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BadAlias {
    /// An array with an item that is not a string.
    NotAllStrings,
    /// Neither a string nor an array.
    NotStringOrArray,
    /// No words at all.
    Empty,
}

impl std::fmt::Display for BadAlias {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BadAlias::NotAllStrings => "must be an array of strings only",
            BadAlias::NotStringOrArray => "must be a string or an array of strings",
            BadAlias::Empty => "is empty, so cargo cannot run it",
        })
    }
}

impl std::error::Error for BadAlias {}

/// The words an alias expands to, as cargo reads them: a string split on whitespace, or an
/// array of strings taken as they are.
fn expansion(value: &Node) -> Result<Vec<String>, BadAlias> {
    let words: Vec<String> = match (value.str(), value.items()) {
        (Some(s), _) => s.split_whitespace().map(str::to_owned).collect(),
        (None, Some(items)) => items
            .iter()
            .map(|item| item.str().map(str::to_owned).ok_or(BadAlias::NotAllStrings))
            .collect::<Result<_, _>>()?,
        (None, None) => return Err(BadAlias::NotStringOrArray),
    };
    if words.is_empty() {
        // cargo: "subcommand is required, but `alias.x` is empty".
        return Err(BadAlias::Empty);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;
    use indoc::indoc;

    #[test]
    fn an_alias_reads_the_config_s_other_tables_and_the_alias_it_expands_to() {
        let config = indoc! {"
            [alias]
            b = \"build\"
            br = \"b --release\"
            t = \"test\"

            [build]
            jobs = 2
        "};
        let read = |text: &str, name: &str| {
            let files = crate::files::MemFiles::new().with(".cargo/config.toml", text);
            crate::testing::reads(parse, &files, ".cargo/config.toml", name)
        };
        let br = read(config, "br");
        assert_eq!(br.runs, ["b"]);
        let whats: Vec<&str> = br.parts.iter().map(|p| p.what.as_str()).collect();
        assert_eq!(whats, ["setting `[build]`"]);
        assert_eq!(
            read(&config.replace("\"test\"", "\"test --all\""), "br"),
            br
        );
        let wrapped = config.replace("jobs = 2", "jobs = 2\nrustc-wrapper = \"./x.sh\"");
        assert_ne!(read(&wrapped, "br"), br);
    }
    use crate::files::MemFiles;
    use crate::testing::names;

    fn run(files: &MemFiles, path: &str) -> Parsed {
        crate::testing::parse_with(parse, files, path)
    }

    fn one(text: &str) -> Parsed {
        crate::testing::parse_one(parse, ".cargo/config.toml", text)
    }

    use crate::files::Files;

    #[test]
    fn candidates_live_in_dot_cargo() {
        assert_eq!(candidate(".cargo/config"), Some(0));
        assert_eq!(candidate(".cargo/config.toml"), Some(1));
        assert_eq!(candidate("crates/x/.cargo/config.toml"), Some(1));
        assert_eq!(candidate("config.toml"), None);
        assert_eq!(candidate("cargo/config.toml"), None);
        assert_eq!(candidate(".cargo/credentials.toml"), None);
        assert_eq!(candidate("Cargo.toml"), None);
    }

    #[test]
    fn string_and_array_aliases_in_file_order() {
        let parsed = one(indoc! {"
            [build]
            rustflags = [\"-D\", \"warnings\"]

            [alias]
            # Lint everything, warnings are errors
            lint = \"clippy --all-targets --  -D warnings\"
            xtask = [\"run\", \"--package\", \"xtask\", \"--\"]
            \"quoted-name\" = \"test --doc\"
            cov = [
                \"llvm-cov\",
                \"--html\",
            ] # Coverage report
            with-space = [\"run\", \"--\", \"two words\"]
        "});
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        assert_eq!(
            names(&parsed),
            ["lint", "xtask", "quoted-name", "cov", "with-space"]
        );
        let lint = &parsed.tasks[0];
        assert_eq!(lint.argv, ["cargo", "lint"]);
        assert_eq!(lint.dir, ".");
        assert_eq!(lint.file_path, ".cargo/config.toml");
        assert_eq!(lint.line, Some(6));
        assert_eq!(lint.runner, Runner::Cargo);
        assert_eq!(
            lint.script.as_deref(),
            Some("clippy --all-targets -- -D warnings")
        );
        assert_eq!(
            lint.description.as_deref(),
            Some("Lint everything, warnings are errors")
        );
        assert_eq!(
            parsed.tasks[1].script.as_deref(),
            Some("run --package xtask --")
        );
        assert_eq!(parsed.tasks[1].description, None);
        assert_eq!(parsed.tasks[2].line, Some(8));
        assert_eq!(
            parsed.tasks[3].description.as_deref(),
            Some("Coverage report")
        );
        assert_eq!(parsed.tasks[3].line, Some(9));
        assert_eq!(
            parsed.tasks[4].script.as_deref(),
            Some("run -- 'two words'")
        );
    }

    #[test]
    fn dotted_and_inline_alias_tables() {
        let parsed = one(indoc! {"
            alias.ci = \"check --workspace\"
            # Tests
            alias . t = \"nextest run\"
        "});
        assert_eq!(names(&parsed), ["ci", "t"]);
        assert_eq!(parsed.tasks[1].line, Some(3));
        assert_eq!(parsed.tasks[1].description.as_deref(), Some("Tests"));
        let parsed = one("# Not about br\nalias = { br = \"build --release\" } # Release build\n");
        assert_eq!(names(&parsed), ["br"]);
        assert_eq!(parsed.tasks[0].line, Some(2));
        assert_eq!(parsed.tasks[0].description, None);
    }

    #[test]
    fn built_in_commands_shadow_aliases_but_built_in_aliases_do_not() {
        let parsed = one(indoc! {"
            [alias]
            build = \"build --release\"
            test = \"nextest run\"
            b = \"build --release\"
            t = \"nextest run\"
            rm = \"remove\"
        "});
        assert_eq!(names(&parsed), ["b", "t", "rm"]);
        let messages: Vec<(Option<u32>, &str)> = parsed
            .diagnostics
            .iter()
            .map(|d| (d.line, d.message.as_str()))
            .collect();
        assert_eq!(
            messages,
            [
                (
                    Some(2),
                    "alias `build` is shadowed by the built-in cargo command and is never used"
                ),
                (
                    Some(3),
                    "alias `test` is shadowed by the built-in cargo command and is never used"
                ),
            ]
        );
    }

    #[test]
    fn bad_values_are_reported_on_their_line() {
        let parsed = one(indoc! {"
            [alias]
            num = 5
            mixed = [\"run\", 3]
            empty = \"  \"
            none = []
            table = { a = 1 }
            ok = \"run\"
        "});
        assert_eq!(names(&parsed), ["ok"]);
        let lines: Vec<Option<u32>> = parsed.diagnostics.iter().map(|d| d.line).collect();
        assert_eq!(lines, [Some(2), Some(3), Some(4), Some(5), Some(6)]);
        assert!(parsed.diagnostics[0].message.contains("string or an array"));
        let parsed = one("alias = \"oops\"\n");
        assert!(parsed.tasks.is_empty());
        assert_eq!(parsed.diagnostics[0].line, Some(1));
    }

    #[test]
    fn invalid_toml_gives_one_diagnostic_and_no_tasks() {
        let parsed = one(indoc! {"
            [alias]
            ok = \"run\"
            broken = \"unterminated
        "});
        assert!(parsed.tasks.is_empty());
        assert_eq!(parsed.diagnostics.len(), 1);
        assert_eq!(parsed.diagnostics[0].line, Some(3));
        assert!(parsed.diagnostics[0].message.starts_with("invalid TOML"));
        let parsed = one(indoc! {"
            [alias]
            a = \"x\"
            [alias]
        "});
        assert!(parsed.tasks.is_empty());
        assert_eq!(parsed.diagnostics.len(), 1);
    }

    #[test]
    fn nested_dot_cargo_and_legacy_config() {
        let files = MemFiles::new()
            .with("tools/.cargo/config", "[alias]\nold = \"run --bin old\"\n")
            .with(
                "tools/.cargo/config.toml",
                "[alias]\nnew = \"run --bin new\"\n",
            );
        let parsed = run(&files, "tools/.cargo/config");
        assert_eq!(names(&parsed), ["old"]);
        assert_eq!(parsed.tasks[0].dir, "tools");
        assert_eq!(parsed.tasks[0].file_path, "tools/.cargo/config");
        assert_eq!(parsed.diagnostics.len(), 1);
        assert_eq!(parsed.diagnostics[0].file_path, "tools/.cargo/config.toml");
        assert!(files.exists("tools/.cargo/config.toml"));
    }

    #[test]
    fn crlf_and_comments() {
        let parsed = one(indoc! {"
            [alias]\r
            # --------\r
            # Run the app\r
            #\r
            r = \"run --release\"\r
        "});
        assert_eq!(parsed.tasks[0].description.as_deref(), Some("Run the app"));
        assert_eq!(parsed.tasks[0].line, Some(5));
    }

    #[test]
    fn odd_inputs_do_not_panic() {
        for text in [
            "",
            "alias",
            "[alias]",
            "[alias]\n\"\" = \"run\"\n",
            "[alias.x]\ny = 1\n",
            "[[alias]]\nx = 1\n",
            "alias.x.y = \"z\"\n",
            &format!("[alias]\nx = {}1{}\n", "[".repeat(5000), "]".repeat(5000)),
            &format!("x = {}\n", "{a=".repeat(5000)),
        ] {
            let _ = one(text);
        }
    }
}
