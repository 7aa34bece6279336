//! Composer scripts: the `scripts` object of `composer.json`, each run as
//! `composer run-script NAME -- args` from the file's directory. A script is one command or
//! an array of them; each is a shell command (`@php` and `@putenv` included), a reference to
//! another script (`@name`, a dependency), `@composer`, a PHP static method
//! (`Vendor\\Class::method`) or a Symfony Console command class, told apart the way
//! Composer's event dispatcher does. Composer's event hooks (`post-install-cmd`, …) run
//! around Composer's own commands and are not listed.

use std::collections::{HashMap, HashSet};

use crate::doc::{self, Dialect, Entry, Node, Report, Terms};
use crate::files::{file_name, parent};
use crate::model::{Adapter, Parsed, Runner, Source, Task};
use crate::reads::{Purpose, Reads};

/// The composer adapter.
pub const ADAPTER: Adapter = Adapter {
    name: "composer",
    candidate,
    one_per_dir: true,
    admit: None,
    neighbours: None,
    parse,
};

/// Every event Composer dispatches (Composer 2.8: `ScriptEvents`, `PackageEvents`,
/// `InstallerEvents`, `PluginEvents`). A script under one of these names is a hook Composer
/// runs itself, not a task.
pub const EVENTS: &[&str] = &[
    // Command events.
    "pre-install-cmd",
    "post-install-cmd",
    "pre-update-cmd",
    "post-update-cmd",
    "pre-status-cmd",
    "post-status-cmd",
    "pre-archive-cmd",
    "post-archive-cmd",
    "pre-autoload-dump",
    "post-autoload-dump",
    "post-root-package-install",
    "post-create-project-cmd",
    // Installer events.
    "pre-operations-exec",
    // Package events.
    "pre-package-install",
    "post-package-install",
    "pre-package-update",
    "post-package-update",
    "pre-package-uninstall",
    "post-package-uninstall",
    // Plugin events.
    "init",
    "command",
    "pre-file-download",
    "post-file-download",
    "pre-command-run",
    "pre-pool-create",
];

/// The callback that lifts Composer's `process-timeout` for the rest of a script.
const DISABLE_TIMEOUT: &str = "Composer\\Config::disableProcessTimeout";

/// Script names Composer keeps for its own `@composer`, `@php` and `@putenv`.
const RESERVED: [&str; 3] = ["composer", "php", "putenv"];

/// `composer.json`, except the manifests of installed packages under a `vendor/` directory
/// (Composer's default `vendor-dir`): Composer runs the scripts of the root package only.
fn candidate(path: &str) -> Option<u8> {
    // The name first: it turns away nearly every path of a walk at once.
    if file_name(path) != "composer.json" {
        return None;
    }
    let in_vendor = path.split('/').rev().skip(1).any(|part| part == "vendor");
    (!in_vendor).then_some(0)
}

fn parse(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    let Some(root) = doc::read_json(src.text, Dialect::Loose)
        .and_then(|root| {
            root.into_table_or("composer.json must be an object", Terms::Toml)
                .map_err(|err| err.at(1))
        })
        .or_report(src.path, &mut out)
    else {
        return out;
    };
    let Some(scripts) = root.get("scripts") else {
        return out;
    };
    let Some(entries) = scripts
        .table_or("`scripts` must be an object", Terms::Toml)
        .or_report(src.path, &mut out)
    else {
        return out;
    };
    let dir = parent(src.path);
    for entry in entries {
        if EVENTS.contains(&entry.key.as_str()) {
            continue;
        }
        if RESERVED.contains(&entry.key.as_str()) {
            let message = format!(
                "Composer reserves the name `{}` for `@{}` and warns that it is deprecated as a script name",
                entry.key, entry.key
            );
            out.diag(src.path, Some(entry.node.line), message);
        }
        if let Some(task) = read_script(src.path, dir, &entry.key, &entry.node, &mut out) {
            out.tasks.push(task);
        }
    }
    let defined: HashSet<&str> = entries.iter().map(|e| e.key.as_str()).collect();
    for task in &out.tasks {
        for dep in task.deps.iter().filter(|d| !defined.contains(d.as_str())) {
            let message = format!(
                "script `{}` refers to `@{dep}`, which is not a script here: Composer warns and skips it",
                task.source_name
            );
            out.diagnostics
                .push(crate::model::Diagnostic::new(src.path, task.line, message));
        }
    }
    let index: HashMap<String, usize> = out
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.source_name.clone(), i))
        .collect();
    describe(src.path, &root, &index, &mut out);
    alias(src.path, &root, &index, &mut out);
    out.name_package(root.get("name").and_then(Node::str));
    if src.purpose == Purpose::Decide {
        for task in &mut out.tasks {
            let mut reads = Reads::default();
            let entry = scripts.get(&task.source_name).map(Node::canonical);
            reads.part("script entry", entry.unwrap_or_default());
            // `process-timeout`, `bin-dir`, `vendor-dir`…: how Composer runs every script.
            let config = root.get("config").map(Node::canonical);
            reads.part("setting `config`", config.unwrap_or_default());
            task.reads = Some(Box::new(reads));
        }
    }
    out
}

/// One entry of `scripts`: a command or an array of commands.
fn read_script(file: &str, dir: &str, name: &str, node: &Node, out: &mut Parsed) -> Option<Task> {
    let commands: Vec<&str> = if let Some(command) = node.str() {
        vec![command]
    } else if let Some(items) = node.items() {
        let mut commands = Vec::with_capacity(items.len());
        for item in items {
            if let Some(command) = item.str() {
                commands.push(command);
            } else {
                item.mismatch(
                    &format!("a command of script `{name}` must be a string"),
                    Terms::Toml,
                )
                .report(file, out);
            }
        }
        commands
    } else if let Some(entries) = node.entries() {
        let mut task = new_task(file, dir, name, node);
        task.script = Some(flex_commands(file, name, entries, out));
        return Some(task);
    } else {
        node.mismatch(
            &format!("script `{name}` must be a command or an array of commands"),
            Terms::Toml,
        )
        .report(file, out);
        return None;
    };
    let mut task = new_task(file, dir, name, node);
    let mut lines = Vec::with_capacity(commands.len());
    let mut seen = HashSet::new();
    for command in commands {
        let kind = Command::of(command);
        match kind {
            Command::Script(other) => {
                if seen.insert(other) {
                    task.deps.push(other.to_owned());
                }
            }
            Command::Shell => {
                if let Some((key, value)) = command
                    .strip_prefix("@putenv ")
                    .and_then(|rest| rest.split_once('='))
                {
                    task.env.push((key.to_owned(), value.to_owned()));
                }
            }
            // Composer kills a script after `process-timeout` (300 s) unless it calls this:
            // a script that does is meant to keep running (a server, a watcher).
            Command::Callback if command == DISABLE_TIMEOUT => task.behaviour.service = true,
            Command::Composer | Command::Callback | Command::ConsoleClass => {}
        }
        lines.push(kind.show(command));
    }
    task.script = Some(lines.join("\n"));
    Some(task)
}

fn new_task(file: &str, dir: &str, name: &str, node: &Node) -> Task {
    let argv = vec![
        "composer".to_owned(),
        "run-script".to_owned(),
        name.to_owned(),
    ];
    let mut task = Task::new(Runner::Composer, name, dir, file, argv);
    task.line = Some(node.line);
    task
}

/// Symfony Flex's form of a script (`"auto-scripts": {"cache:clear": "symfony-cmd"}`): each
/// key is a command and its value says how Flex runs it (`symfony-cmd` through
/// `bin/console`, `php-script` through PHP, `script` through the shell). Flex, a Composer
/// plugin installed with the project, runs these; Composer alone does not understand them.
fn flex_commands(file: &str, name: &str, entries: &[Entry], out: &mut Parsed) -> String {
    let mut lines = Vec::with_capacity(entries.len());
    for entry in entries {
        let Some(kind) = entry.node.str() else {
            entry.node.mismatch(&format!("`{}` in script `{name}` must name how Symfony Flex runs it (`symfony-cmd`, `php-script` or `script`)", entry.key), Terms::Toml).report(file, out);
            continue;
        };
        lines.push(format!("{}  ({kind}, run by Symfony Flex)", entry.key));
    }
    lines.join("\n")
}

/// What one command of a script is, decided as Composer's `EventDispatcher` decides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Command<'a> {
    /// `@name args`: runs script `name`, with `args` before the caller's.
    Script(&'a str),
    /// `@composer args`: Composer itself, with the PHP that runs Composer.
    Composer,
    /// `Vendor\\Class::method`: a static method called inside Composer's process.
    Callback,
    /// `Vendor\\Console\\SomeCommand`: a Symfony Console command class run inside Composer.
    ConsoleClass,
    /// Anything else, `@php` and `@putenv` included: a shell command (the caller's arguments
    /// are appended to it, except to `@putenv`).
    Shell,
}

impl<'a> Command<'a> {
    fn of(command: &'a str) -> Command<'a> {
        if let Some(rest) = command.strip_prefix('@')
            && !command.starts_with("@php ")
            && !command.starts_with("@putenv ")
        {
            let name = rest.split(' ').next().unwrap_or(rest);
            return if name == "composer" && rest.len() > name.len() {
                Command::Composer
            } else {
                Command::Script(name)
            };
        }
        if !command.contains(' ') && command.contains("::") {
            return Command::Callback;
        }
        if command.contains('\\') && !command.contains(' ') && command.ends_with("Command") {
            return Command::ConsoleClass;
        }
        Command::Shell
    }

    /// The command as `describe` shows it: as written, with what a bare class name does.
    fn show(self, command: &str) -> String {
        match self {
            Command::Callback => format!("{command}  (PHP static method, called inside Composer)"),
            Command::ConsoleClass => {
                format!("{command}  (Symfony Console command, run inside Composer)")
            }
            Command::Script(_) | Command::Composer | Command::Shell => command.to_owned(),
        }
    }
}

/// `scripts-descriptions`: a description per script.
fn describe(file: &str, root: &Node, index: &HashMap<String, usize>, out: &mut Parsed) {
    let Some(descriptions) = root.get("scripts-descriptions") else {
        return;
    };
    let Some(entries) = descriptions
        .table_or("`scripts-descriptions` must be an object", Terms::Toml)
        .or_report(file, out)
    else {
        return;
    };
    for entry in entries {
        let Some(text) = entry.node.str() else {
            let message = format!(
                "the description of `{}` must be a string, not {}: Composer stops with a type error",
                entry.key,
                entry.node.kind()
            );
            out.diag(file, Some(entry.node.line), message);
            continue;
        };
        let Some(task) = index.get(&entry.key).and_then(|&i| out.tasks.get_mut(i)) else {
            if !EVENTS.contains(&entry.key.as_str()) {
                let message = format!("a description for `{}`, which is not a script", entry.key);
                out.diag(file, Some(entry.node.line), message);
            }
            continue;
        };
        let text = text.trim();
        task.description = (!text.is_empty()).then(|| text.to_owned());
    }
}

/// `scripts-aliases` (Composer 2.7): other command names per script, as in `composer stan`.
fn alias(file: &str, root: &Node, index: &HashMap<String, usize>, out: &mut Parsed) {
    let Some(aliases) = root.get("scripts-aliases") else {
        return;
    };
    let Some(entries) = aliases
        .table_or("`scripts-aliases` must be an object", Terms::Toml)
        .or_report(file, out)
    else {
        return;
    };
    for entry in entries {
        let names: Option<Vec<&str>> = entry
            .node
            .items()
            .and_then(|items| items.iter().map(Node::str).collect());
        let Some(names) = names else {
            entry
                .node
                .mismatch(
                    &format!("the aliases of `{}` must be an array of names", entry.key),
                    Terms::Toml,
                )
                .report(file, out);
            continue;
        };
        let Some(task) = index.get(&entry.key).and_then(|&i| out.tasks.get_mut(i)) else {
            if !EVENTS.contains(&entry.key.as_str()) {
                let message = format!("aliases for `{}`, which is not a script", entry.key);
                out.diag(file, Some(entry.node.line), message);
            }
            continue;
        };
        let mut seen = HashSet::new();
        task.aliases = names
            .into_iter()
            .filter(|name| seen.insert(*name))
            .map(str::to_owned)
            .collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use indoc::indoc;

    #[test]
    fn a_script_reads_its_entry_and_the_config_only() {
        let json = r#"{"name": "a/b", "version": "1.0.0", "require": {"php": ">=8"}, "config": {"process-timeout": 300}, "scripts": {"test": ["@lint", "phpunit"], "lint": "phpcs"}}"#;
        let read = |text: &str| {
            let files = crate::files::MemFiles::new().with("composer.json", text);
            crate::testing::reads(parse, &files, "composer.json", "test")
        };
        let before = read(json);
        assert_eq!(
            read(&json.replace("1.0.0", "1.1.0").replace(">=8", ">=8.2")),
            before
        );
        assert_eq!(read(&json.replace("phpcs", "phpcs -q")), before);
        assert_ne!(read(&json.replace("300", "0")), before);
        assert_ne!(
            read(&json.replace("\"phpunit\"", "\"phpunit --x\"")),
            before
        );
    }
    use crate::testing::{lines, names, parse_one, task};

    const COMPOSER_JSON: &str = r#"{
    "name": "acme/shop",
    "scripts": {
        "post-install-cmd": ["@cache-clear"],
        "post-autoload-dump": "Acme\\Build\\Hooks::dumped",
        "cache-clear": "@php bin/console cache:clear",
        "test": [
            "@putenv XDEBUG_MODE=coverage",
            "@lint",
            "phpunit --colors=always"
        ],
        "lint": "phpcs src tests",
        "setup": ["@composer install --no-progress", "Acme\\Build\\Setup::run"],
        "serve": "Acme\\Console\\ServeCommand"
    },
    "scripts-descriptions": {
        "test": "Run the test suite with coverage"
    },
    "scripts-aliases": {
        "lint": ["cs", "phpcs"]
    }
}
"#;

    #[test]
    fn scripts_are_listed_and_event_hooks_hidden() {
        let parsed = parse_one(parse, "composer.json", COMPOSER_JSON);
        assert_eq!(
            names(&parsed),
            ["cache-clear", "test", "lint", "setup", "serve"]
        );
        assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
        let test = task(&parsed, "test");
        assert_eq!(test.argv, ["composer", "run-script", "test"]);
        assert_eq!(test.line, Some(7));
        assert_eq!(
            test.description.as_deref(),
            Some("Run the test suite with coverage")
        );
        assert_eq!(test.deps, ["lint"]);
        assert_eq!(
            test.env,
            [("XDEBUG_MODE".to_owned(), "coverage".to_owned())]
        );
        assert_eq!(
            test.script.as_deref(),
            Some(indoc! {"
                @putenv XDEBUG_MODE=coverage
                @lint
                phpunit --colors=always"})
        );
        assert_eq!(task(&parsed, "lint").aliases, ["cs", "phpcs"]);
        assert!(!test.behaviour.service);
    }

    #[test]
    fn a_script_that_lifts_the_process_timeout_is_a_service() {
        let text = r#"{"scripts": {"dev": ["Composer\\Config::disableProcessTimeout", "php -S localhost:8000 -t public"]}}"#;
        let parsed = parse_one(parse, "composer.json", text);
        assert!(task(&parsed, "dev").behaviour.service);
    }

    #[test]
    fn commands_are_told_apart_as_composer_does() {
        assert_eq!(Command::of("@lint --strict"), Command::Script("lint"));
        assert_eq!(Command::of("@php bin/console"), Command::Shell);
        assert_eq!(Command::of("@putenv A=1"), Command::Shell);
        assert_eq!(Command::of("@composer install"), Command::Composer);
        assert_eq!(Command::of("@composer"), Command::Script("composer"));
        assert_eq!(Command::of("Acme\\Hooks::run"), Command::Callback);
        assert_eq!(Command::of("Acme\\ServeCommand"), Command::ConsoleClass);
        assert_eq!(Command::of("echo a::b"), Command::Shell);
        let parsed = parse_one(parse, "composer.json", COMPOSER_JSON);
        let setup = task(&parsed, "setup");
        assert!(setup.deps.is_empty());
        assert_eq!(
            setup.script.as_deref(),
            Some(
                "@composer install --no-progress\nAcme\\Build\\Setup::run  (PHP static method, called inside Composer)"
            )
        );
        assert!(
            task(&parsed, "serve")
                .script
                .as_deref()
                .is_some_and(|s| s.ends_with("(Symfony Console command, run inside Composer)"))
        );
    }

    #[test]
    fn bad_entries_cost_a_diagnostic_each_and_the_rest_stays() {
        let text = indoc! {"
            {
              \"scripts\": {
                \"n\": 5,
                \"ok\": \"echo ok\",
                \"mixed\": [\"echo a\", {\"x\": 1}],
                \"ref\": \"@missing arg\"
              },
              \"scripts-descriptions\": {\"ok\": 1, \"post-install-cmd\": \"x\"},
              \"scripts-aliases\": {\"gone\": [\"g\"], \"ok\": \"o\"}
            }
        "};
        let parsed = parse_one(parse, "composer.json", text);
        assert_eq!(names(&parsed), ["ok", "mixed", "ref"]);
        assert_eq!(task(&parsed, "mixed").script.as_deref(), Some("echo a"));
        let found = lines(&parsed);
        let at: Vec<Option<u32>> = found.iter().map(|(l, _)| *l).collect();
        assert_eq!(
            at,
            [Some(3), Some(5), Some(6), Some(8), Some(9), Some(9)],
            "{found:?}"
        );
        assert!(found[2].1.contains("`@missing`"));
    }

    #[test]
    fn many_scripts_references_and_descriptions_are_matched_by_name_not_by_search() {
        use std::fmt::Write as _;
        let count = 50_000;
        let mut text = String::from("{\"scripts\": {\n");
        for i in 0..count {
            let _ = writeln!(
                text,
                "\"s{i}\": [\"@s{}\", \"@s{i}\", \"echo {i}\"],",
                i + 1
            );
        }
        text.push_str("\"last\": \"echo\"},\n\"scripts-descriptions\": {\n");
        for i in 0..count {
            let _ = writeln!(text, "\"s{i}\": \"Step {i}\",");
        }
        text.push_str("\"last\": \"The end\"}}\n");
        let parsed = parse_one(parse, "composer.json", &text);
        assert_eq!(parsed.tasks.len(), count + 1);
        // Only the last step refers to a script that is not there.
        assert_eq!(
            parsed.diagnostics.len(),
            1,
            "{:?}",
            parsed.diagnostics.first()
        );
        assert_eq!(task(&parsed, "s7").description.as_deref(), Some("Step 7"));
        assert_eq!(task(&parsed, "s7").deps, ["s8", "s7"]);
    }

    #[test]
    fn symfony_flex_auto_scripts_are_a_task_whose_commands_flex_runs() {
        let text = indoc! {"
            {\"scripts\": {
            \"auto-scripts\": {
              \"cache:clear\": \"symfony-cmd\",
              \"assets:install %PUBLIC_DIR%\": \"symfony-cmd\",
              \"x\": 1
            },
            \"post-install-cmd\": [\"@auto-scripts\"]}}"};
        let parsed = parse_one(parse, "composer.json", text);
        assert_eq!(names(&parsed), ["auto-scripts"]);
        let auto = task(&parsed, "auto-scripts");
        assert_eq!(auto.line, Some(2));
        assert_eq!(
            auto.script.as_deref(),
            Some(
                "cache:clear  (symfony-cmd, run by Symfony Flex)\nassets:install %PUBLIC_DIR%  (symfony-cmd, run by Symfony Flex)"
            )
        );
        assert_eq!(lines(&parsed).len(), 1);
        assert_eq!(lines(&parsed)[0].0, Some(5));
    }

    #[test]
    fn reserved_names_are_listed_with_a_warning() {
        let parsed = parse_one(
            parse,
            "composer.json",
            "{\"scripts\": {\n\"php\": \"php -v\"}}",
        );
        assert_eq!(names(&parsed), ["php"]);
        let found = lines(&parsed);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, Some(2));
        assert!(found[0].1.contains("reserves the name `php`"));
    }

    #[test]
    fn invalid_json_is_one_diagnostic_with_its_line() {
        let parsed = parse_one(
            parse,
            "composer.json",
            indoc! {"
                {
                  \"scripts\": {
                    // no comments in composer.json
                  }
                }
            "},
        );
        let found = lines(&parsed);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, Some(3));
        assert!(found[0].1.starts_with("invalid JSON"));
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert_eq!(
            parse_one(parse, "composer.json", &deep).diagnostics.len(),
            1
        );
        let parsed = parse_one(parse, "composer.json", "{\"scripts\": []}");
        assert_eq!(
            lines(&parsed),
            [(Some(1), "`scripts` must be an object, not an array")]
        );
    }

    #[test]
    fn installed_packages_manifests_are_not_read() {
        assert_eq!(candidate("composer.json"), Some(0));
        assert_eq!(candidate("packages/billing/composer.json"), Some(0));
        assert_eq!(candidate("vendor/acme/log/composer.json"), None);
        assert_eq!(candidate("app/vendor/x/y/composer.json"), None);
        assert_eq!(candidate("vendor.json"), None);
    }
}
