//! Pins: what a task (or a whole file) said when the user allowed it.
//!
//! A pin is a sha256 fingerprint plus the few facts a person needs to see what changed
//! (runner, command, directory, deps, line count, the parts or files it covers). A task's
//! fingerprint covers what runs: its own facts, every part of its files its definition reads
//! as the adapter reports it ([`Definition`]: a variable, a setting, a hook, a config value,
//! and the definitions of the tasks it runs first), read from disk when the decision is made
//! ([`super::Current`]). An edit elsewhere in the file keeps it; an edit of anything it reads
//! changes the fingerprint, the allow lapses, and [`Pin::changes`] names what changed. Where
//! the adapter cannot tell what a definition reads, the files are pinned whole, and a lapse
//! says why. A file pin (`agg allow --file F --pin`) is the file's bytes.

use std::path::{Path, PathBuf};

use agg_runners::{Behaviour, Param, XcSpec, quote_command};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::repo_files::sha256_hex;
use crate::table::Task;

/// Bumped when the fingerprinted facts change shape, so an old pin lapses, saying so, instead
/// of matching something it never saw. 3: what the definition reads, not whole files.
pub const FINGERPRINT_VERSION: u32 = 3;

/// What a task or file looked like when it was allowed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Pin {
    /// The fingerprint's version ([`FINGERPRINT_VERSION`]; absent before 3).
    #[serde(default)]
    pub version: u32,
    /// sha256 of everything pinned: for a task its runner, argv, directory, deps,
    /// parameters (with defaults), recipe text, environment, hooks, xc settings and what its
    /// definition reads (`reads`, or the bytes of every file in `files`); for a file its
    /// bytes and those of `files`.
    pub sha256: String,
    /// Lines of the recipe text (task) or of the file (file) when pinned.
    pub lines: usize,
    /// The runner, for task pins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner: Option<String>,
    /// The command, for task pins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// The absolute directory the task ran in, for task pins.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<PathBuf>,
    /// The deps' names, for task pins.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deps: Vec<String>,
    /// sha256 of the recipe text alone, for task pins: tells a changed recipe from a
    /// changed environment.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_sha256: Option<String>,
    /// Each part of its files the task's definition reads, with the sha256 of its text
    /// (task pins whose adapter says what they read).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reads: Vec<PinnedPart>,
    /// Why the task's files are pinned whole rather than what it reads (task pins only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub whole: Option<String>,
    /// Every file pinned whole (the task file first, then what it pulls in), with the
    /// sha256 of its bytes; for a task pinned by what it reads, the files read, without
    /// their bytes (`sha256` empty).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<PinnedFile>,
}

/// One file a pin covers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PinnedFile {
    /// The file's absolute path.
    pub path: PathBuf,
    /// sha256 of its bytes, or `unreadable…` when it could not be read; empty when only what
    /// the task reads of it is pinned.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub sha256: String,
}

/// One part of its files a task's definition reads, as pinned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PinnedPart {
    /// What it is: ``variable `CC` ``, ``hook `pretest` ``, ``dep `build` ``.
    pub what: String,
    /// sha256 of its text.
    pub sha256: String,
}

/// What a task's pin covers beyond its own facts, as its files say it now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Definition {
    /// Exactly these parts (the task's own, then those of the tasks it runs).
    Reads(Vec<PinnedPart>),
    /// Every file read for the task, whole, and why.
    Whole(Unfollowed),
}

/// Why agg cannot tell which parts of its files a task reads, so that an allow of it pins
/// the files whole. Its `Display` is the reason the pin keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unfollowed {
    /// agg does not follow what this runner's tasks read.
    Runner(agg_runners::Runner),
    /// The adapter found something it cannot follow, in its words.
    Unknown(String),
    /// The task runs more than this many other tasks.
    TooMany(usize),
    /// A task it runs cannot be followed.
    Runs {
        /// That task's name in the file.
        task: String,
        /// Why it cannot be followed.
        why: Box<Unfollowed>,
    },
}

impl std::fmt::Display for Unfollowed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unfollowed::Runner(runner) => {
                write!(f, "agg does not follow what {} tasks read", runner.name())
            }
            Unfollowed::Unknown(why) => f.write_str(why),
            Unfollowed::TooMany(most) => write!(f, "it runs more than {most} other tasks"),
            Unfollowed::Runs { task, why } => write!(f, "it runs `{task}`, and {why}"),
        }
    }
}

impl std::error::Error for Unfollowed {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Unfollowed::Runs { why, .. } => Some(&**why),
            _ => None,
        }
    }
}

/// The facts a task pin hashes. Field order is part of the fingerprint.
#[derive(Serialize)]
struct Fingerprinted<'a> {
    version: u32,
    runner: &'a str,
    argv: &'a [String],
    dir: &'a Path,
    deps: &'a [String],
    params: &'a [Param],
    script: Option<&'a str>,
    env: &'a [(String, String)],
    xc: Option<&'a XcSpec>,
    behaviour: &'a Behaviour,
    reads: &'a [PinnedPart],
    files: &'a [PinnedFile],
}

/// The absolute directory a task of the table rooted at `root` runs in.
pub fn task_dir(root: &Path, task: &Task) -> PathBuf {
    dir_of(root, &task.dir)
}

fn dir_of(root: &Path, dir: &str) -> PathBuf {
    if dir == "." || dir.is_empty() {
        root.to_path_buf()
    } else {
        root.join(dir)
    }
}

/// The files read, as a pin records them: absolute paths under `root`.
pub fn pinned_files(root: &Path, read: &[(String, String)]) -> Vec<PinnedFile> {
    read.iter()
        .map(|(rel, sha256)| PinnedFile {
            path: crate::repo_files::abs_path(root, rel),
            sha256: sha256.clone(),
        })
        .collect()
}

/// The fingerprint of `task`'s own facts and what it reads (`reads`, or `files` whole), as
/// a pin and the tasks that run it first hash it.
pub fn fingerprint(root: &Path, task: &Task, reads: &[PinnedPart], files: &[PinnedFile]) -> String {
    let dir = dir_of(root, &task.dir);
    let facts = Fingerprinted {
        version: FINGERPRINT_VERSION,
        runner: task.runner.name(),
        argv: &task.argv,
        dir: &dir,
        deps: &task.deps,
        params: &task.params,
        script: task.script.as_deref(),
        env: &task.env,
        xc: task.xc.as_deref(),
        behaviour: &task.behaviour,
        reads,
        files,
    };
    // Serialising plain strings, paths and derived structs cannot fail; an empty body
    // would still give a fingerprint that no real task matches.
    sha256_hex(&serde_json::to_vec(&facts).unwrap_or_default())
}

impl Pin {
    /// Pins `task` as its file, read now from the repository at the absolute `root`, defines
    /// it: `files` are the files read to find it, `definition` what it reads of them. `task`
    /// is what the adapter returned, not a table row, whose program the table may have
    /// rewritten.
    pub fn task(root: &Path, task: &Task, files: Vec<PinnedFile>, definition: Definition) -> Pin {
        let (reads, whole, files) = match definition {
            Definition::Reads(reads) => {
                // Which files the parts come from, for a person; their bytes are not pinned.
                let files = files
                    .into_iter()
                    .map(|f| PinnedFile {
                        path: f.path,
                        sha256: String::new(),
                    })
                    .collect();
                (reads, None, files)
            }
            Definition::Whole(why) => (Vec::new(), Some(why.to_string()), files),
        };
        let hashed: &[PinnedFile] = if whole.is_some() { &files } else { &[] };
        let script = task.script.as_deref();
        Pin {
            version: FINGERPRINT_VERSION,
            sha256: fingerprint(root, task, &reads, hashed),
            lines: script.map_or(0, |s| s.lines().count()),
            runner: Some(task.runner.name().to_owned()),
            command: Some(quote_command(&task.argv)),
            dir: Some(dir_of(root, &task.dir)),
            deps: task.deps.clone(),
            text_sha256: Some(sha256_hex(script.unwrap_or("").as_bytes())),
            reads,
            whole,
            files,
        }
    }

    /// Pins a file's content, and the other `files` it pulls in.
    pub fn file(content: &[u8], files: Vec<PinnedFile>) -> Pin {
        let mut body = sha256_hex(content);
        for f in &files {
            body.push('\n');
            body.push_str(&f.path.to_string_lossy());
            body.push('\0');
            body.push_str(&f.sha256);
        }
        Pin {
            version: FINGERPRINT_VERSION,
            sha256: if files.is_empty() {
                sha256_hex(content)
            } else {
                sha256_hex(body.as_bytes())
            },
            lines: memchr::memchr_iter(b'\n', content).count()
                + usize::from(!content.is_empty() && !content.ends_with(b"\n")),
            runner: None,
            command: None,
            dir: None,
            deps: Vec::new(),
            text_sha256: None,
            reads: Vec::new(),
            whole: None,
            files,
        }
    }

    /// Whether this pins a task (rather than a file's content).
    pub fn is_task(&self) -> bool {
        self.command.is_some()
    }

    /// The files that changed from this pin to `now`, in words.
    fn changed_files(&self, now: &Pin) -> Vec<String> {
        let mut out = Vec::new();
        for before in &self.files {
            match now.files.iter().find(|f| f.path == before.path) {
                Some(after) if after.sha256 == before.sha256 => {}
                Some(_) => out.push(format!("{} changed", before.path.display())),
                None => out.push(format!("{} is no longer read", before.path.display())),
            }
        }
        for after in &now.files {
            if !self.files.iter().any(|f| f.path == after.path) {
                out.push(format!("{} is now read too", after.path.display()));
            }
        }
        out
    }

    /// The parts that changed from this pin to `now`, in words. A dep that came or went is
    /// said by the deps themselves.
    fn changed_parts(&self, now: &Pin) -> Vec<String> {
        let mut out = Vec::new();
        let dep = |what: &str| what.starts_with("dep `");
        for before in &self.reads {
            match now.reads.iter().find(|p| p.what == before.what) {
                Some(after) if after.sha256 == before.sha256 => {}
                Some(_) => out.push(format!("{} changed", before.what)),
                None if dep(&before.what) => {}
                None => out.push(format!("{} is no longer read", before.what)),
            }
        }
        for after in &now.reads {
            if !dep(&after.what) && !self.reads.iter().any(|p| p.what == after.what) {
                out.push(format!("{} is now read", after.what));
            }
        }
        out
    }

    /// A short summary of what changed from this pin to `now`, or `None` when nothing did.
    pub fn changes(&self, now: &Pin) -> Option<String> {
        if self.sha256 == now.sha256 {
            return None;
        }
        if self.version < FINGERPRINT_VERSION {
            return Some(format!(
                "pinned by an earlier agg, whose pins {}; allow it again",
                if self.files.is_empty() {
                    "did not cover the files the task reads"
                } else {
                    "held whole files rather than what the task reads"
                }
            ));
        }
        if !self.is_task() {
            let mut parts = vec![format!(
                "file content changed ({})",
                lines(self.lines, now.lines)
            )];
            parts.extend(self.changed_files(now).into_iter().skip(1));
            return Some(parts.join("; "));
        }
        let mut parts = self.changed_facts(now);
        match (&self.whole, &now.whole) {
            (None, None) => parts.extend(self.changed_parts(now)),
            (Some(_), None) => {
                if parts.is_empty() {
                    parts.push(
                        "agg now follows what the task reads; allow it again to pin that"
                            .to_owned(),
                    );
                }
            }
            (None, Some(why)) => parts.push(format!(
                "agg can no longer tell what the task reads ({why}), so its files are pinned whole"
            )),
            (Some(_), Some(why)) => {
                // The task file itself changed whenever its facts did: name it only when
                // nothing else says why.
                let own = self
                    .files
                    .first()
                    .map(|f| format!("{} changed", f.path.display()));
                for change in self.changed_files(now) {
                    if Some(&change) != own.as_ref() {
                        parts.push(change);
                    } else if parts.is_empty() {
                        parts.push(format!(
                            "{change} outside the task; its files are pinned whole because {why}"
                        ));
                    }
                }
            }
        }
        if parts.is_empty() {
            parts.push("parameters, environment, hooks or runner settings changed".to_owned());
        }
        Some(parts.join("; "))
    }

    /// The task's own facts that changed, in words.
    fn changed_facts(&self, now: &Pin) -> Vec<String> {
        let mut parts = Vec::new();
        if self.runner != now.runner {
            parts.push(format!(
                "runner {} → {}",
                self.runner.as_deref().unwrap_or("?"),
                now.runner.as_deref().unwrap_or("?")
            ));
        }
        if self.command != now.command {
            parts.push(format!(
                "command `{}` → `{}`",
                self.command.as_deref().unwrap_or(""),
                now.command.as_deref().unwrap_or("")
            ));
        }
        if self.dir != now.dir {
            let show = |d: Option<&PathBuf>| d.map_or(String::new(), |d| d.display().to_string());
            parts.push(format!(
                "directory {} → {}",
                show(self.dir.as_ref()),
                show(now.dir.as_ref())
            ));
        }
        if self.deps != now.deps {
            let show = |d: &[String]| {
                if d.is_empty() {
                    "(none)".to_owned()
                } else {
                    d.join(", ")
                }
            };
            parts.push(format!("deps {} → {}", show(&self.deps), show(&now.deps)));
        }
        if self.text_sha256 != now.text_sha256 {
            parts.push(format!(
                "recipe text changed ({})",
                lines(self.lines, now.lines)
            ));
        }
        parts
    }

    /// What the pin covers, for a person: the parts a task reads that are there (those it
    /// would read if they were added, such as an unset `SHELL`, counted), then the files,
    /// whole or read from.
    pub fn covers(&self) -> String {
        let absent = sha256_hex(b"");
        let (unset, set): (Vec<&PinnedPart>, Vec<&PinnedPart>) =
            self.reads.iter().partition(|p| p.sha256 == absent);
        let mut words: Vec<String> = Vec::new();
        // A task's pin always holds its own definition (its recipe or script); a pin of its
        // files whole says so by naming only the files.
        if self.is_task() && self.whole.is_none() {
            words.push("its own definition".to_owned());
        }
        words.extend(set.iter().map(|p| p.what.clone()));
        if !unset.is_empty() {
            words.push(format!("{} more it would read if set", unset.len()));
        }
        let files: Vec<String> = self
            .files
            .iter()
            .map(|f| f.path.display().to_string())
            .collect();
        match (words.is_empty(), files.is_empty()) {
            (_, true) => words.join(", "),
            (true, false) => files.join(", "),
            (false, false) => format!("{} (in {})", words.join(", "), files.join(", ")),
        }
    }
}

fn lines(before: usize, after: usize) -> String {
    let unit = |n: usize| if n == 1 { "line" } else { "lines" };
    if before == after {
        format!("{after} {}", unit(after))
    } else {
        format!("{before} → {after} {}", unit(after))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_pins_count_lines_with_or_without_a_final_newline() {
        let file = |content: &[u8]| {
            let sha256 = sha256_hex(content);
            Pin::file(
                content,
                vec![PinnedFile {
                    path: PathBuf::from("/repo/Makefile"),
                    sha256,
                }],
            )
        };
        assert_eq!(file(b"").lines, 0);
        assert_eq!(file(b"a\nb\n").lines, 2);
        assert_eq!(file(b"a\nb").lines, 2);
        let summary = file(b"a\n").changes(&file(b"a\nb\nc\n"));
        assert_eq!(
            summary.as_deref(),
            Some("file content changed (1 → 3 lines)")
        );
        assert_eq!(file(b"x").changes(&file(b"x")), None);
    }

    fn part(what: &str, text: &str) -> PinnedPart {
        PinnedPart {
            what: what.to_owned(),
            sha256: sha256_hex(text.as_bytes()),
        }
    }

    fn pinned(reads: Vec<PinnedPart>) -> Pin {
        let task = Task::new(
            agg_runners::Runner::Make,
            "build",
            ".",
            "Makefile",
            vec!["make".into(), "build".into()],
        );
        Pin::task(Path::new("/r"), &task, Vec::new(), Definition::Reads(reads))
    }

    #[test]
    fn a_task_pin_names_the_part_that_changed_appeared_or_went() {
        let before = pinned(vec![
            part("variable `CC`", "cc"),
            part("setting `SHELL`", ""),
        ]);
        let after = pinned(vec![
            part("variable `CC`", "evil"),
            part("variable `CFLAGS`", "-O2"),
        ]);
        assert_eq!(
            before.changes(&after).as_deref(),
            Some(
                "variable `CC` changed; setting `SHELL` is no longer read; variable `CFLAGS` is now read"
            )
        );
        assert_eq!(before.changes(&before.clone()), None);
    }

    #[test]
    fn a_pin_of_an_earlier_version_lapses_saying_so() {
        let mut old = pinned(Vec::new());
        old.version = 2;
        old.sha256 = "old".to_owned();
        old.files = vec![PinnedFile {
            path: PathBuf::from("/r/Makefile"),
            sha256: "x".to_owned(),
        }];
        let summary = old.changes(&pinned(Vec::new())).expect("lapsed");
        assert!(summary.starts_with("pinned by an earlier agg"), "{summary}");
    }
}
