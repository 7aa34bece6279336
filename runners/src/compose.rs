//! Docker Compose files: one task per service (`docker compose -f FILE up SERVICE`), and the
//! whole stack's `up` and `down`.
//!
//! The file is the one `docker compose` picks in a directory (`compose.yaml` first), with the
//! override file it merges by default (`compose.override.yml`, …) passed as a second `-f` so
//! the command means what plain `docker compose up` means there. Services of files pulled in
//! with `include` are listed from the file that defines them. `up` tasks are services: they
//! run until stopped.

use crate::doc::{self, Dialect, Entry, Node, Report, Terms, Value};
use crate::files::{Files, file_name, join, parent};
use crate::model::{Adapter, Parsed, Runner, Source, Task};

/// The Compose adapter.
pub const ADAPTER: Adapter = Adapter {
    name: "compose",
    candidate,
    one_per_dir: true,
    admit: None,
    neighbours: None,
    parse,
};

/// The files `docker compose` looks for in a directory, in its order of preference.
pub const FILE_NAMES: [&str; 4] = [
    "compose.yaml",
    "compose.yml",
    "docker-compose.yml",
    "docker-compose.yaml",
];

/// The override files it merges into the first, in its order of preference (the first found
/// is read).
pub const OVERRIDE_NAMES: [&str; 4] = [
    "compose.override.yml",
    "compose.override.yaml",
    "docker-compose.override.yml",
    "docker-compose.override.yaml",
];

/// How deep `include` may nest.
const MAX_INCLUDE_DEPTH: usize = 16;
/// How many files one stack may pull in through `include`, counting repeats.
const MAX_INCLUDES: usize = 256;

/// Override files are candidates too, ranked after every main file: a directory whose
/// override changes is read again, and one with only an override is reported.
fn candidate(path: &str) -> Option<u8> {
    let name = file_name(path);
    let rank = FILE_NAMES.iter().position(|n| *n == name).or_else(|| {
        OVERRIDE_NAMES
            .iter()
            .position(|n| *n == name)
            .map(|i| i + 4)
    })?;
    u8::try_from(rank).ok()
}

/// One service as read so far.
struct Service {
    name: String,
    file: String,
    line: u32,
    image: Option<String>,
    build: Option<String>,
    extends: Option<String>,
    profiles: Vec<String>,
    depends_on: Vec<String>,
    command: Option<String>,
}

/// Reads the stack: the main file, its includes, then the override.
struct Stack<'a> {
    files: &'a dyn Files,
    services: Vec<Service>,
    consumed: Vec<String>,
    includes: usize,
    parsed: Parsed,
}

fn parse(src: &Source<'_>) -> Parsed {
    let name = file_name(src.path);
    if !FILE_NAMES.contains(&name) {
        let mut parsed = Parsed::default();
        parsed.diag(
            src.path,
            None,
            format!(
                "no {} beside this override file: docker compose reads it only with one",
                FILE_NAMES[0]
            ),
        );
        return parsed;
    }
    let dir = parent(src.path);
    let mut stack = Stack {
        files: src.files,
        services: Vec::new(),
        consumed: Vec::new(),
        includes: 0,
        parsed: Parsed::default(),
    };
    let mut chain = vec![src.path.to_owned()];
    stack.read_file(src.path, src.text, &mut chain, false);
    let mut flags = vec!["-f".to_owned(), name.to_owned()];
    if let Some(over) = OVERRIDE_NAMES
        .iter()
        .filter_map(|n| join(dir, n))
        .find(|p| src.files.exists(p))
    {
        match src.files.read(&over) {
            Ok(text) => stack.read_file(&over, &text, &mut chain, true),
            Err(reason) => stack.parsed.diag(&over, None, reason.to_string()),
        }
        flags.extend(["-f".to_owned(), file_name(&over).to_owned()]);
        stack.consumed.push(over);
    }
    let Stack {
        services,
        consumed,
        mut parsed,
        ..
    } = stack;
    parsed.consumed = consumed;
    parsed.consumed.sort();
    parsed.consumed.dedup();
    let command = |tail: &[&str]| -> Vec<String> {
        let mut argv = vec!["docker".to_owned(), "compose".to_owned()];
        argv.extend(flags.iter().cloned());
        argv.extend(tail.iter().map(|s| (*s).to_owned()));
        argv
    };
    let names: Vec<&str> = services.iter().map(|s| s.name.as_str()).collect();
    for s in &services {
        if s.image.is_none() && s.build.is_none() && s.extends.is_none() {
            let message = format!(
                "service `{}` has neither `image` nor `build`; docker compose refuses it",
                s.name
            );
            parsed.diag(&s.file, Some(s.line), message);
        }
        let mut task = Task::new(
            Runner::Compose,
            s.name.clone(),
            dir,
            s.file.clone(),
            command(&["up", &s.name]),
        );
        task.line = Some(s.line);
        task.description = describe(s);
        for dep in &s.depends_on {
            if !names.contains(&dep.as_str()) {
                let message = format!(
                    "service `{}` depends on `{dep}`, which the stack does not define",
                    s.name
                );
                parsed.diag(&s.file, Some(s.line), message);
            }
        }
        task.deps.clone_from(&s.depends_on);
        task.script.clone_from(&s.command);
        task.behaviour.service = true;
        parsed.tasks.push(task);
    }
    if services.is_empty() {
        return parsed;
    }
    let default: Vec<&str> = services
        .iter()
        .filter(|s| s.profiles.is_empty())
        .map(|s| s.name.as_str())
        .collect();
    for (verb, description, service) in [
        (
            "up",
            if default.is_empty() {
                "start the stack (every service has a profile: none starts without one)".to_owned()
            } else {
                format!("start the stack: {}", default.join(", "))
            },
            true,
        ),
        (
            "down",
            "stop the stack and remove its containers and networks".to_owned(),
            false,
        ),
    ] {
        let name = if names.contains(&verb) {
            format!("stack:{verb}")
        } else {
            verb.to_owned()
        };
        let mut task = Task::new(Runner::Compose, name, dir, src.path, command(&[verb]));
        task.description = Some(description);
        task.behaviour.service = service;
        parsed.tasks.push(task);
    }
    parsed
}

/// `image postgres:16`, `build ./api`, and the profiles, for the description.
fn describe(s: &Service) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(build) = &s.build {
        parts.push(format!("build {build}"));
    }
    if let Some(image) = &s.image {
        parts.push(format!("image {image}"));
    }
    if let Some(extends) = &s.extends {
        parts.push(format!("extends {extends}"));
    }
    if !s.profiles.is_empty() {
        parts.push(format!("profiles: {}", s.profiles.join(", ")));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

impl Stack<'_> {
    /// Reads one file of the stack: its includes first (compose loads them before the
    /// file's own services), then its services. An override merges into known services.
    fn read_file(&mut self, path: &str, text: &str, chain: &mut Vec<String>, merge: bool) {
        let Some(root) = doc::read_yaml(text, Dialect::Strict)
            .map_err(|err| err.prefixed("invalid YAML: "))
            .or_report(path, &mut self.parsed)
        else {
            return;
        };
        match root.value {
            Value::Table(_) => {}
            Value::Null => return,
            _ => {
                let message = format!(
                    "a Compose file is a mapping, not {}",
                    root.kind_in(Terms::Yaml)
                );
                self.parsed.diag(path, Some(1), message);
                return;
            }
        }
        if let Some(entry) = root.entry("include") {
            self.read_includes(path, entry, chain);
        }
        if let Some(services) = root.get("services") {
            match &services.value {
                Value::Null => {}
                Value::Table(entries) => {
                    for entry in entries {
                        self.add_service(path, entry, merge);
                    }
                }
                _ => services
                    .mismatch("`services` is a mapping of service names", Terms::Yaml)
                    .report(path, &mut self.parsed),
            }
        }
    }

    fn read_includes(&mut self, path: &str, entry: &Entry, chain: &mut Vec<String>) {
        let items: Vec<&Node> = match &entry.node.value {
            Value::Arr(items) => items.iter().collect(),
            Value::Null => Vec::new(),
            _ => {
                entry
                    .node
                    .mismatch("`include` is a list", Terms::Yaml)
                    .report(path, &mut self.parsed);
                return;
            }
        };
        let dir = parent(path);
        for item in items {
            let paths: Vec<&str> = match item.value {
                Value::Table(_) => match item.get("path") {
                    Some(p) => match p.items() {
                        Some(paths) => paths.iter().filter_map(Node::scalar).collect(),
                        None => p.scalar().into_iter().collect(),
                    },
                    None => Vec::new(),
                },
                _ => item.scalar().into_iter().collect(),
            };
            // With several paths, the later ones are overrides of the first.
            for (i, rel) in paths.into_iter().enumerate() {
                self.include(path, entry.node.line, dir, rel, i > 0, chain);
            }
        }
    }

    fn include(
        &mut self,
        path: &str,
        line: u32,
        dir: &str,
        rel: &str,
        merge: bool,
        chain: &mut Vec<String>,
    ) {
        let Some(target) = join(dir, rel) else {
            let message = format!("include `{rel}` is outside the repository; not followed");
            self.parsed.diag(path, Some(line), message);
            return;
        };
        if chain.contains(&target) {
            let message =
                format!("include `{rel}` includes itself again; docker compose refuses the cycle");
            self.parsed.diag(path, Some(line), message);
            return;
        }
        if chain.len() > MAX_INCLUDE_DEPTH || self.includes >= MAX_INCLUDES {
            let message = format!("include `{rel}` not followed: includes nest or repeat too much");
            self.parsed.diag(path, Some(line), message);
            return;
        }
        self.includes += 1;
        let text = match self.files.read(&target) {
            Ok(text) => text,
            Err(reason) => {
                let message = format!("include `{rel}` cannot be read: {reason}");
                self.parsed.diag(path, Some(line), message);
                return;
            }
        };
        self.consumed.push(target.clone());
        chain.push(target.clone());
        self.read_file(&target, &text, chain, merge);
        chain.pop();
    }

    fn add_service(&mut self, path: &str, entry: &Entry, merge: bool) {
        let def = &entry.node;
        let scalar = |key: &str| def.get(key).and_then(Node::scalar).map(str::to_owned);
        let build = def.get("build").and_then(|build| match build.value {
            Value::Table(_) => Some(
                build
                    .get("context")
                    .and_then(Node::scalar)
                    .unwrap_or(".")
                    .to_owned(),
            ),
            _ => build.scalar().map(str::to_owned),
        });
        let extends = def.get("extends").and_then(|extends| match extends.value {
            Value::Table(_) => extends
                .get("service")
                .and_then(Node::scalar)
                .map(str::to_owned),
            _ => extends.scalar().map(str::to_owned),
        });
        let profiles: Option<Vec<String>> = def.get("profiles").and_then(|profiles| match profiles
            .items()
        {
            Some(items) => Some(
                items
                    .iter()
                    .filter_map(Node::scalar)
                    .map(str::to_owned)
                    .collect(),
            ),
            None => profiles.scalar().map(|s| vec![s.to_owned()]),
        });
        let depends_on: Vec<String> = match def.get("depends_on").map(|d| &d.value) {
            Some(Value::Arr(items)) => items
                .iter()
                .filter_map(Node::scalar)
                .map(str::to_owned)
                .collect(),
            Some(Value::Table(entries)) => entries.iter().map(|e| e.key.clone()).collect(),
            _ => Vec::new(),
        };
        let command = def
            .get("command")
            .and_then(|command| match command.items() {
                Some(items) => Some(
                    items
                        .iter()
                        .filter_map(Node::scalar)
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
                None => command.scalar().map(str::to_owned),
            });
        if let Some(known) = self.services.iter_mut().find(|s| s.name == entry.key) {
            if !merge {
                let message = format!(
                    "service `{}` is also defined in {} at line {}; docker compose refuses the conflict",
                    entry.key, known.file, known.line
                );
                self.parsed.diag(path, Some(entry.node.line), message);
                return;
            }
            // An override replaces what it sets and adds dependencies.
            known.image = scalar("image").or(known.image.take());
            known.build = build.or(known.build.take());
            known.extends = extends.or(known.extends.take());
            known.profiles = profiles.unwrap_or_else(|| std::mem::take(&mut known.profiles));
            known.command = command.or(known.command.take());
            for dep in depends_on {
                if !known.depends_on.contains(&dep) {
                    known.depends_on.push(dep);
                }
            }
            return;
        }
        if !valid_service_name(&entry.key) {
            let message = format!(
                "service name `{}` must be letters, digits, `.`, `_` and `-`, starting with a letter or digit",
                entry.key
            );
            self.parsed.diag(path, Some(entry.node.line), message);
        }
        self.services.push(Service {
            name: entry.key.clone(),
            file: path.to_owned(),
            line: entry.node.line,
            image: scalar("image"),
            build,
            extends,
            profiles: profiles.unwrap_or_default(),
            depends_on,
            command,
        });
    }
}

/// Compose's rule for service names.
fn valid_service_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::MemFiles;
    use crate::testing::{lines, messages, names, parse_one, parse_with, task};
    use indoc::indoc;

    #[test]
    fn compose_prefers_its_own_names_and_ranks_overrides_last() {
        assert_eq!(candidate("compose.yaml"), Some(0));
        assert_eq!(candidate("deploy/docker-compose.yml"), Some(2));
        assert_eq!(candidate("docker-compose.yaml"), Some(3));
        assert_eq!(candidate("compose.override.yml"), Some(4));
        assert_eq!(candidate("docker-compose.override.yaml"), Some(7));
        assert_eq!(candidate("compose.prod.yaml"), None);
    }

    const STACK: &str = "\
name: shop
x-common: &common
  restart: unless-stopped
services:
  web:
    <<: *common
    build: ./web
    depends_on: [api]
  api:
    build:
      context: ./api
      dockerfile: Dockerfile.dev
    image: shop/api:dev
    depends_on:
      db:
        condition: service_healthy
    command: [\"uvicorn\", \"app:main\", \"--reload\"]
  db:
    image: postgres:16
  adminer:
    image: adminer
    profiles: [debug]
";

    #[test]
    fn services_and_the_stack() {
        let parsed = parse_one(parse, "compose.yaml", STACK);
        assert_eq!(
            names(&parsed),
            ["web", "api", "db", "adminer", "up", "down"]
        );
        assert_eq!(lines(&parsed), []);
        let web = task(&parsed, "web");
        assert_eq!(
            web.argv,
            ["docker", "compose", "-f", "compose.yaml", "up", "web"]
        );
        assert_eq!(web.line, Some(5));
        assert_eq!(web.deps, ["api"]);
        assert!(web.behaviour.service);
        let api = task(&parsed, "api");
        assert_eq!(
            api.description.as_deref(),
            Some("build ./api; image shop/api:dev")
        );
        assert_eq!(api.deps, ["db"]);
        assert_eq!(api.script.as_deref(), Some("uvicorn app:main --reload"));
        assert_eq!(
            task(&parsed, "adminer").description.as_deref(),
            Some("image adminer; profiles: debug")
        );
        let up = task(&parsed, "up");
        assert_eq!(up.argv, ["docker", "compose", "-f", "compose.yaml", "up"]);
        assert_eq!(
            up.description.as_deref(),
            Some("start the stack: web, api, db")
        );
        assert!(up.behaviour.service);
        let down = task(&parsed, "down");
        assert_eq!(
            down.argv,
            ["docker", "compose", "-f", "compose.yaml", "down"]
        );
        assert!(!down.behaviour.service);
    }

    #[test]
    fn the_override_is_passed_and_merged() {
        let files = MemFiles::new()
            .with("app/docker-compose.yml", STACK)
            .with("app/compose.override.yaml", "unused: true\n")
            .with(
                "app/compose.override.yml",
                indoc! {"
                    services:
                      db:
                        image: postgres:17
                        profiles: [data]
                      mail:
                        image: mailhog/mailhog
                "},
            );
        let parsed = parse_with(parse, &files, "app/docker-compose.yml");
        assert_eq!(lines(&parsed), []);
        let db = task(&parsed, "db");
        assert_eq!(
            db.argv,
            [
                "docker",
                "compose",
                "-f",
                "docker-compose.yml",
                "-f",
                "compose.override.yml",
                "up",
                "db"
            ]
        );
        assert_eq!(db.dir, "app");
        assert_eq!(
            db.description.as_deref(),
            Some("image postgres:17; profiles: data")
        );
        let mail = task(&parsed, "mail");
        assert_eq!(mail.file_path, "app/compose.override.yml");
        assert_eq!(mail.line, Some(5));
        assert_eq!(parsed.consumed, ["app/compose.override.yml"]);
        let alone = parse_with(parse, &files, "app/compose.override.yml");
        assert!(alone.tasks.is_empty());
        assert_eq!(alone.diagnostics.len(), 1);
    }

    #[test]
    fn included_services_are_listed_from_their_file() {
        let files = MemFiles::new()
            .with(
                "compose.yaml",
                indoc! {"
                    include:
                      - infra/db.yaml
                      - path: [infra/cache.yaml]
                      - missing.yaml
                      - ../outside.yaml
                    services:
                      app:
                        image: app
                        depends_on: [db, cache]
                "},
            )
            .with(
                "infra/db.yaml",
                indoc! {"
                    include: [../compose.yaml]
                    services:
                      db:
                        image: postgres
                "},
            )
            .with(
                "infra/cache.yaml",
                indoc! {"
                    services:
                      cache:
                        image: redis
                      app:
                        image: other
                "},
            );
        let parsed = parse_with(parse, &files, "compose.yaml");
        assert_eq!(names(&parsed), ["db", "cache", "app", "up", "down"]);
        assert_eq!(task(&parsed, "db").file_path, "infra/db.yaml");
        assert_eq!(task(&parsed, "db").line, Some(3));
        assert_eq!(parsed.consumed, ["infra/cache.yaml", "infra/db.yaml"]);
        assert_eq!(
            messages(&parsed),
            [
                (
                    "infra/db.yaml",
                    Some(1),
                    "include `../compose.yaml` includes itself again; docker compose refuses the cycle"
                ),
                (
                    "compose.yaml",
                    Some(1),
                    "include `missing.yaml` cannot be read: no such file"
                ),
                (
                    "compose.yaml",
                    Some(1),
                    "include `../outside.yaml` is outside the repository; not followed"
                ),
                (
                    "compose.yaml",
                    Some(7),
                    "service `app` is also defined in infra/cache.yaml at line 4; docker compose refuses the conflict"
                ),
            ]
        );
    }

    /// Large real stacks (Sentry's self-hosted one: 142 aliases of 10 anchors) merge a few
    /// anchors into every service; YAML's alias heuristics must not refuse them.
    #[test]
    fn many_services_merging_one_anchor_are_read() {
        let mut text = String::from(indoc! {"
            x-defaults: &defaults
              restart: always
              image: app
            services:
        "});
        for i in 0..300 {
            text.push_str("  svc");
            text.push_str(&i.to_string());
            text.push_str(indoc! {"
                :
                    <<: *defaults
            "});
        }
        let parsed = parse_one(parse, "compose.yaml", &text);
        assert_eq!(lines(&parsed), []);
        assert_eq!(parsed.tasks.len(), 302);
        assert_eq!(
            task(&parsed, "svc299").description.as_deref(),
            Some("image app")
        );
    }

    #[test]
    fn a_service_named_up_leaves_the_stack_task_its_own_name() {
        let parsed = parse_one(
            parse,
            "compose.yaml",
            indoc! {"
                services:
                  up:
                    image: x
                  down:
                    image: y
            "},
        );
        assert_eq!(names(&parsed), ["up", "down", "stack:up", "stack:down"]);
    }

    #[test]
    fn bad_files_name_the_line_and_keep_the_other_services() {
        let text = "\
services:
  ok:
    image: x
    depends_on: [ghost]
  empty:
  -bad:
    image: y
";
        let parsed = parse_one(parse, "compose.yaml", text);
        assert_eq!(names(&parsed), ["ok", "empty", "-bad", "up", "down"]);
        assert_eq!(
            lines(&parsed),
            [
                (
                    Some(6),
                    "service name `-bad` must be letters, digits, `.`, `_` and `-`, starting with a letter or digit"
                ),
                (
                    Some(2),
                    "service `ok` depends on `ghost`, which the stack does not define"
                ),
                (
                    Some(5),
                    "service `empty` has neither `image` nor `build`; docker compose refuses it"
                ),
            ]
        );
        let broken = parse_one(
            parse,
            "compose.yaml",
            indoc! {"
                services:
                  a: {
            "},
        );
        assert!(broken.tasks.is_empty());
        assert!(broken.diagnostics[0].message.starts_with("invalid YAML"));
        assert!(broken.diagnostics[0].line.is_some());
        assert_eq!(
            lines(&parse_one(parse, "compose.yaml", "services: [a]\n")),
            [(
                Some(1),
                "`services` is a mapping of service names, not a list"
            )]
        );
        assert!(parse_one(parse, "compose.yaml", "").tasks.is_empty());
    }
}
