//! Procfiles (Heroku's format, run locally by foreman, honcho or overmind): `Procfile` and
//! `Procfile.<name>` (`Procfile.dev`, which Rails' `bin/dev` starts with `foreman start -f
//! Procfile.dev`). Each `name: command` line is a process, listed as a service that runs
//! alone (`web`; `dev:web` for `Procfile.dev`), and the file itself is one more row that
//! starts every process (`Procfile`, `Procfile.dev`).
//!
//! The tool is the one the repository uses, read from its files: what `bin/dev` starts, an
//! `.overmind.env`, foreman in the `Gemfile`, honcho in the Python requirements; foreman
//! (Heroku's own) otherwise. foreman and honcho take the same words (`start -f FILE NAME`),
//! so either runs the other's rows; overmind's are `overmind start -f FILE -l NAME`.

use std::collections::HashSet;

use crate::files::{Files, file_name, join, parent};
use crate::model::{Adapter, Parsed, Runner, Source, Task};

/// The Procfile adapter.
pub const ADAPTER: Adapter = Adapter {
    name: "procfile",
    candidate,
    one_per_dir: false,
    admit: None,
    neighbours: None,
    parse,
};

/// Processes listed per Procfile.
const MAX_PROCESSES: usize = 1_000;
/// Bytes of a file read to tell which tool the repository uses.
const MAX_PROBE: usize = 64 * 1024;

fn candidate(path: &str) -> Option<u8> {
    let name = file_name(path);
    if name == "Procfile" {
        return Some(0);
    }
    let suffix = name.strip_prefix("Procfile.")?;
    // `Procfile.dev`, `Procfile.test`; not a backup or a template (`Procfile.orig`, `.example`).
    let known = suffix
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    (known
        && !suffix.is_empty()
        && !matches!(suffix, "orig" | "bak" | "example" | "sample" | "template"))
    .then_some(1)
}

/// The program that starts a Procfile's processes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tool {
    Foreman,
    Honcho,
    Overmind,
}

impl Tool {
    fn program(self) -> &'static str {
        match self {
            Tool::Foreman => "foreman",
            Tool::Honcho => "honcho",
            Tool::Overmind => "overmind",
        }
    }

    /// The words that start `process` (every one, when `None`) of `file`.
    fn argv(self, file: &str, process: Option<&str>) -> Vec<String> {
        let mut argv = vec![self.program().to_owned(), "start".to_owned()];
        if file != "Procfile" {
            argv.extend(["-f".to_owned(), file.to_owned()]);
        }
        if let Some(process) = process {
            if self == Tool::Overmind {
                argv.push("-l".to_owned());
            }
            argv.push(process.to_owned());
        }
        argv
    }
}

fn parse(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    let dir = parent(src.path);
    let file = file_name(src.path);
    let tool = tool_of(src.files, dir, file);
    let prefix = file
        .strip_prefix("Procfile.")
        .map_or(String::new(), |s| format!("{s}:"));
    let mut seen = HashSet::new();
    let mut processes = Vec::new();
    for (i, line) in src.text.lines().enumerate() {
        let line_no = u32::try_from(i + 1).unwrap_or(u32::MAX);
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let Some((name, command)) = process_line(line) else {
            out.diag(
                src.path,
                Some(line_no),
                "not a process: a Procfile line is `name: command`",
            );
            continue;
        };
        if !seen.insert(name) {
            out.diag(
                src.path,
                Some(line_no),
                format!("process `{name}` is defined twice; honcho refuses the file, foreman runs the last"),
            );
            continue;
        }
        if processes.len() >= MAX_PROCESSES {
            out.diag(
                src.path,
                None,
                format!("more than {MAX_PROCESSES} processes; the rest are not listed"),
            );
            break;
        }
        let source_name = format!("{prefix}{name}");
        let mut task = Task::new(
            Runner::Procfile,
            &source_name,
            dir,
            src.path,
            tool.argv(file, Some(name)),
        );
        task.line = Some(line_no);
        task.script = Some(command.to_owned());
        // Heroku's `release` process runs once, before the others; every other one serves.
        task.behaviour.service = name != "release";
        processes.push(name);
        out.tasks.push(task);
    }
    if !processes.is_empty() {
        let mut all = Task::new(Runner::Procfile, file, dir, src.path, tool.argv(file, None));
        all.line = Some(1);
        all.description = Some(format!("every process: {}", processes.join(", ")));
        all.behaviour.service = true;
        all.script = Some(
            src.text
                .lines()
                .filter(|l| process_line(l).is_some())
                .collect::<Vec<_>>()
                .join("\n"),
        );
        out.tasks.push(all);
    }
    out
}

/// `name: command`, as foreman and honcho read a line: a name of letters, digits, `_` and
/// `-`, a colon, and a command.
fn process_line(line: &str) -> Option<(&str, &str)> {
    let (name, command) = line.split_once(':')?;
    // A leading `-` would make the name an option of foreman or honcho (`-f`, `--help`).
    let valid = !name.is_empty()
        && !name.starts_with('-')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let command = command.trim();
    (valid && !command.is_empty()).then_some((name, command))
}

/// Which tool the repository starts its Procfiles with: what `bin/dev` runs (beside the
/// Procfile or at the root), an `.overmind.env`, foreman in a `Gemfile`, honcho in Python's
/// requirements; foreman otherwise.
fn tool_of(files: &dyn Files, dir: &str, file: &str) -> Tool {
    let read = |path: &str| -> Option<String> {
        let text = files.read(path).ok()?;
        Some(text.chars().take(MAX_PROBE).collect())
    };
    let mut dirs = vec![dir];
    let mut up = dir;
    while up != "." {
        up = parent(up);
        dirs.push(up);
    }
    for d in dirs {
        let at = |name: &str| join(d, name).and_then(|p| read(&p));
        if let Some(dev) = at("bin/dev") {
            // The line that names this file, else the script as a whole.
            let relevant = dev
                .lines()
                .find(|l| l.contains(file))
                .unwrap_or(&dev)
                .to_owned();
            for (word, tool) in [
                ("overmind", Tool::Overmind),
                ("honcho", Tool::Honcho),
                ("foreman", Tool::Foreman),
            ] {
                if relevant.contains(word) || dev.contains(&format!("exec {word}")) {
                    return tool;
                }
            }
        }
        if join(d, ".overmind.env").is_some_and(|p| files.exists(&p)) {
            return Tool::Overmind;
        }
        if at("Gemfile").is_some_and(|g| g.contains("\"foreman\"") || g.contains("'foreman'")) {
            return Tool::Foreman;
        }
        for python in [
            "requirements.txt",
            "requirements-dev.txt",
            "pyproject.toml",
            "Pipfile",
        ] {
            if at(python).is_some_and(|t| t.contains("honcho")) {
                return Tool::Honcho;
            }
        }
    }
    Tool::Foreman
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::MemFiles;
    use crate::testing::{lines, names, parse_one, parse_with, task};
    use indoc::indoc;

    const PROCFILE: &str = indoc! {"
        web: bundle exec puma -C config/puma.rb
        worker: bundle exec sidekiq
        # a comment
        release: bin/rails db:migrate
    "};

    #[test]
    fn each_process_is_a_service_and_the_file_starts_them_all() {
        let parsed = parse_one(parse, "Procfile", PROCFILE);
        assert_eq!(names(&parsed), ["web", "worker", "release", "Procfile"]);
        let web = task(&parsed, "web");
        assert_eq!(web.argv, ["foreman", "start", "web"]);
        assert!(web.behaviour.service);
        assert_eq!(
            web.script.as_deref(),
            Some("bundle exec puma -C config/puma.rb")
        );
        assert!(!task(&parsed, "release").behaviour.service);
        let all = task(&parsed, "Procfile");
        assert_eq!(all.argv, ["foreman", "start"]);
        assert_eq!(
            all.description.as_deref(),
            Some("every process: web, worker, release")
        );
    }

    #[test]
    fn the_repository_s_tool_runs_them() {
        let rails = MemFiles::new()
            .with(
                "Procfile.dev",
                "web: bin/rails server\ncss: bin/rails tailwindcss:watch\n",
            )
            .with(
                "bin/dev",
                "#!/usr/bin/env sh\nexec foreman start -f Procfile.dev \"$@\"\n",
            );
        let parsed = parse_with(parse, &rails, "Procfile.dev");
        assert_eq!(names(&parsed), ["dev:web", "dev:css", "Procfile.dev"]);
        assert_eq!(
            task(&parsed, "Procfile.dev").argv,
            ["foreman", "start", "-f", "Procfile.dev"]
        );
        assert_eq!(
            task(&parsed, "dev:css").argv,
            ["foreman", "start", "-f", "Procfile.dev", "css"]
        );
        let overmind = rails
            .clone()
            .with("bin/dev", "#!/bin/sh\novermind start -f Procfile.dev\n");
        let parsed = parse_with(parse, &overmind, "Procfile.dev");
        assert_eq!(
            task(&parsed, "dev:web").argv,
            ["overmind", "start", "-f", "Procfile.dev", "-l", "web"]
        );
        let python = MemFiles::new()
            .with("app/Procfile", "web: gunicorn app:app\n")
            .with("requirements-dev.txt", "honcho==2.0\n");
        let parsed = parse_with(parse, &python, "app/Procfile");
        assert_eq!(task(&parsed, "web").argv, ["honcho", "start", "web"]);
        assert_eq!(task(&parsed, "web").dir, "app");
    }

    #[test]
    fn bad_lines_are_reported_and_the_rest_listed() {
        let parsed = parse_one(
            parse,
            "Procfile",
            indoc! {"
                web: a
                not a process
                web: b
                bad name: c
                empty:
                -f: rm -rf /
                --help: x
            "},
        );
        // A name that would be the tool's option (`foreman start -f`) is no process.
        assert_eq!(names(&parsed), ["web", "Procfile"]);
        assert_eq!(lines(&parsed).len(), 6, "{:?}", lines(&parsed));
        assert!(
            parse_one(parse, "Procfile", "# only a comment\n")
                .tasks
                .is_empty()
        );
    }

    #[test]
    fn candidates() {
        assert_eq!(candidate("Procfile"), Some(0));
        assert_eq!(candidate("a/Procfile.dev"), Some(1));
        assert_eq!(candidate("Procfile.example"), None);
        assert_eq!(candidate("Procfile."), None);
        assert_eq!(candidate("procfile"), None);
    }
}
