//! The manual names only what agg accepts: every `agg …` command line in the README and
//! `docs/` uses a subcommand that exists and flags its `--help` lists.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The Markdown pages of the manual.
fn pages() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![root.join("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .collect();
    docs.sort();
    pages.extend(docs);
    pages
}

/// The command lines of a page that start with `agg `: each line of a code block, and each
/// inline code span, with the page's line number.
fn command_lines(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut fenced = false;
    for (index, line) in text.lines().enumerate() {
        let number = index + 1;
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            let line = line.trim_start().trim_start_matches("$ ");
            if line.starts_with("agg ") {
                found.push((number, line.to_owned()));
            }
            continue;
        }
        for (i, span) in line.split('`').enumerate() {
            if i % 2 == 1 && span.starts_with("agg ") {
                found.push((number, span.to_owned()));
            }
        }
    }
    found
}

/// What one command line claims: its subcommand (empty for `agg` itself) and the flags
/// given to agg (not those after `--` or a comment, nor placeholders such as `--ready-*`).
fn claims(line: &str, subcommands: &[String]) -> (String, Vec<String>) {
    let words = line.split_whitespace().skip(1);
    let mut subcommand = String::new();
    // Global flags (`agg -C DIR list`) may come before the subcommand.
    let mut flags = Vec::new();
    for word in words {
        if word == "--" || word.starts_with('#') || word == "|" || word == "&&" {
            break;
        }
        if subcommand.is_empty() && subcommands.iter().any(|s| s == word) {
            word.clone_into(&mut subcommand);
            if subcommand == "help" {
                break;
            }
            continue;
        }
        if let Some(flag) = flag_of(word) {
            flags.push(flag);
        }
    }
    (subcommand, flags)
}

/// The flag a word names, without its value (`--root=DIR` → `--root`), or `None` when the
/// word is not a flag or is a placeholder (`--ready-*`, `--flag`, `-…`).
fn flag_of(word: &str) -> Option<String> {
    let word = word.trim_end_matches([',', '.', ';', ')', ']', '`', '\'', '"']);
    let word = word.trim_start_matches(['[', '(', '\'', '"']);
    if !word.starts_with('-') || word == "-" || word.contains('*') || word.contains('…') {
        return None;
    }
    let name = word.split('=').next().unwrap_or(word);
    let long = name.starts_with("--") && name.len() > 2;
    let short = !name.starts_with("--") && name.len() == 2;
    let plain = name
        .trim_start_matches('-')
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '-');
    (plain && (long || short)).then(|| name.to_owned())
}

/// The help text of `agg [subcommand]`.
fn help(subcommand: &str) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_agg"));
    if !subcommand.is_empty() {
        command.arg(subcommand);
    }
    let out = command.arg("--help").output().expect("agg --help");
    assert!(out.status.success(), "agg {subcommand} --help failed");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The subcommands `agg --help` lists, with their aliases.
fn subcommands(top: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut in_commands = false;
    for line in top.lines() {
        if line.starts_with("Commands:") {
            in_commands = true;
            continue;
        }
        if in_commands {
            if !line.starts_with("  ") {
                break;
            }
            // A description continued on the next line is indented further.
            if line.starts_with("   ") {
                continue;
            }
            if let Some(name) = line.split_whitespace().next() {
                names.push(name.to_owned());
            }
            if let Some(alias) = line.split("[alias: ").nth(1) {
                names.extend(alias.trim_end_matches(']').split(", ").map(str::to_owned));
            }
        }
    }
    names
}

#[test]
fn every_flag_the_manual_names_is_accepted() {
    let top = help("");
    let subcommands = subcommands(&top);
    assert!(
        subcommands.iter().any(|s| s == "list") && subcommands.iter().any(|s| s == "run"),
        "agg --help lists no subcommands:\n{top}"
    );
    let mut helps: BTreeMap<String, String> = BTreeMap::new();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).expect("read page");
        let name = page.file_name().unwrap_or_default().to_string_lossy();
        for (line, command) in command_lines(&text) {
            let (subcommand, flags) = claims(&command, &subcommands);
            let help = helps
                .entry(subcommand.clone())
                .or_insert_with(|| help(&subcommand));
            // Global flags are accepted before the subcommand and listed by `agg --help`.
            for flag in flags {
                checked += 1;
                let listed = |text: &str| {
                    text.split(|c: char| c.is_whitespace() || c == ',' || c == '=' || c == '[')
                        .any(|word| word == flag)
                };
                if !listed(help) && !listed(&top) {
                    wrong.push(format!(
                        "{name}:{line}: `agg {subcommand}` has no {flag}: {command}"
                    ));
                }
            }
        }
    }
    assert!(checked > 20, "only {checked} flags found in the manual");
    assert!(
        wrong.is_empty(),
        "the manual names flags agg does not accept:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn every_subcommand_says_what_it_does() {
    let top = help("");
    for subcommand in subcommands(&top) {
        if subcommand == "help" {
            continue;
        }
        let text = help(&subcommand);
        let first = text.lines().next().unwrap_or_default();
        assert!(
            first.split_whitespace().count() >= 3,
            "`agg {subcommand} --help` does not say what it does: {first:?}"
        );
    }
}

#[test]
fn every_page_is_linked_from_the_readme() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).expect("README");
    for page in pages().into_iter().skip(1) {
        let name = page.file_name().unwrap_or_default().to_string_lossy();
        assert!(
            readme.contains(&format!("(docs/{name})")),
            "README.md does not link docs/{name}"
        );
    }
}

/// Every module of both crates is named in docs/architecture.md's index, so a newcomer finds
/// each one there with what it holds.
#[test]
fn every_module_is_in_the_architecture_index() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("docs/architecture.md")).expect("architecture.md");
    let index = text
        .split("## Every module")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("an `## Every module` section");
    let mut missing = Vec::new();
    let mut dirs = vec![root.join("src"), root.join("runners/src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("read dir").flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path
                    .strip_prefix(root)
                    .expect("inside the crate")
                    .to_string_lossy()
                    .into_owned();
                if !index.contains(&format!("`{rel}`")) {
                    missing.push(rel);
                }
            }
        }
    }
    missing.sort();
    assert!(
        missing.is_empty(),
        "modules missing from docs/architecture.md's `## Every module`: {missing:?}"
    );
}
