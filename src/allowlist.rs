//! The user's allowlist: which tasks agents may run through `agg mcp`.
//!
//! Deny by default. The file lives outside every repository, in the user's config
//! directory (`$XDG_CONFIG_HOME/agg/allowlist.toml`, or `$AGG_ALLOWLIST`), so a repository
//! can never grant itself permission; an allowlist that resolves to a path inside the
//! served root is ignored. Entries match a task by its file and source name, never by its
//! unique name, so a new runner suffix never changes a permission.
//!
//! Precedence: deny > directory > file > task. Any matching deny entry wins; otherwise the
//! broadest matching allow entry is reported as the reason.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::table::Task;

/// The environment variable that overrides the allowlist's location.
pub const ENV_OVERRIDE: &str = "AGG_ALLOWLIST";

/// One rule. Paths are absolute and canonical.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Rule {
    /// A directory: every task defined in a file under it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<PathBuf>,
    /// A task file: every task it defines (or, with `task`, just that one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<PathBuf>,
    /// A task's source name within `file`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
}

impl Rule {
    fn matches(&self, file: &Path, source_name: &str) -> bool {
        if let Some(dir) = &self.dir {
            return file.starts_with(dir);
        }
        match (&self.file, &self.task) {
            (Some(f), Some(t)) => f == file && t == source_name,
            (Some(f), None) => f == file,
            _ => false,
        }
    }

    fn kind(&self) -> &'static str {
        match (&self.dir, &self.task) {
            (Some(_), _) => "directory",
            (None, Some(_)) => "task",
            (None, None) => "file",
        }
    }

    fn describe(&self) -> String {
        match (&self.dir, &self.file, &self.task) {
            (Some(d), _, _) => format!("dir {}", d.display()),
            (None, Some(f), Some(t)) => format!("task {t} in {}", f.display()),
            (None, Some(f), None) => format!("file {}", f.display()),
            _ => "(empty rule)".to_owned(),
        }
    }
}

/// The allowlist file's contents.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Allowlist {
    /// Never run these, whatever else allows them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deny: Vec<Rule>,
    /// Run these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<Rule>,
}

/// The answer for one task.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// A rule allows it.
    Allowed(String),
    /// A deny rule refuses it.
    Denied(String),
    /// Nothing mentions it: denied by default.
    NotListed,
}

impl Decision {
    /// Whether the task may run.
    pub fn allowed(&self) -> bool {
        matches!(self, Decision::Allowed(_))
    }
}

impl Allowlist {
    /// Decides for a task whose definition is the absolute `file`.
    pub fn decide(&self, file: &Path, source_name: &str) -> Decision {
        if let Some(rule) = self.deny.iter().find(|r| r.matches(file, source_name)) {
            return Decision::Denied(rule.describe());
        }
        let rank = |r: &Rule| match r.kind() {
            "directory" => 0,
            "file" => 1,
            _ => 2,
        };
        self.allow
            .iter()
            .filter(|r| r.matches(file, source_name))
            .min_by_key(|r| rank(r))
            .map_or(Decision::NotListed, |r| Decision::Allowed(r.describe()))
    }

    /// Adds an allow rule, dropping an identical deny rule. Returns false when it was
    /// already there.
    pub fn allow(&mut self, rule: Rule) -> bool {
        self.deny.retain(|r| *r != rule);
        if self.allow.contains(&rule) {
            return false;
        }
        self.allow.push(rule);
        true
    }

    /// Adds a deny rule, dropping an identical allow rule. Returns false when it was
    /// already there.
    pub fn deny(&mut self, rule: Rule) -> bool {
        self.allow.retain(|r| *r != rule);
        if self.deny.contains(&rule) {
            return false;
        }
        self.deny.push(rule);
        true
    }

    /// Every rule, for display: `(allow|deny, kind, what)`.
    pub fn rules(&self) -> Vec<(&'static str, &'static str, String)> {
        self.deny
            .iter()
            .map(|r| ("deny", r.kind(), r.describe()))
            .chain(self.allow.iter().map(|r| ("allow", r.kind(), r.describe())))
            .collect()
    }
}

/// Where the allowlist lives: `$AGG_ALLOWLIST`, else `$XDG_CONFIG_HOME/agg/allowlist.toml`,
/// else `~/.config/agg/allowlist.toml`.
pub fn default_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(ENV_OVERRIDE).filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let config = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(config.join("agg").join("allowlist.toml"))
}

/// Reads the allowlist at `path`; a missing file is an empty list.
pub fn load(path: &Path) -> Result<Allowlist, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => toml::from_str(&text).map_err(|e| {
            let line = e
                .span()
                .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
            match line {
                Some(line) => format!("{}:{line}: {}", path.display(), e.message()),
                None => format!("{}: {}", path.display(), e.message()),
            }
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Allowlist::default()),
        Err(e) => Err(format!(
            "{}: {}",
            path.display(),
            crate::repo_files::io_reason(&e)
        )),
    }
}

/// Writes the allowlist atomically, creating its directory.
pub fn save(path: &Path, list: &Allowlist) -> Result<(), String> {
    let io =
        |e: std::io::Error| format!("{}: {}", path.display(), crate::repo_files::io_reason(&e));
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let body = toml::to_string_pretty(list).map_err(|e| e.to_string())?;
    let text = format!(
        "# agg allowlist: the tasks agents may run through `agg mcp`.\n\
         # Precedence: deny > dir > file > task. Edit with `agg allow` and `agg deny`.\n\n{body}"
    );
    let tmp = path.with_extension("toml.tmp");
    std::fs::write(&tmp, text).map_err(io)?;
    std::fs::rename(&tmp, path).map_err(io)
}

/// An allowlist that re-reads its file whenever the file changes.
#[derive(Debug)]
pub struct LiveAllowlist {
    path: Option<PathBuf>,
    root: PathBuf,
    stamp: Option<(SystemTime, u64)>,
    list: Allowlist,
    problem: Option<String>,
}

impl LiveAllowlist {
    /// Watches the allowlist at `path` for tasks under `root`.
    pub fn new(path: Option<PathBuf>, root: &Path) -> LiveAllowlist {
        let mut live = LiveAllowlist {
            path,
            root: root.to_path_buf(),
            stamp: None,
            list: Allowlist::default(),
            problem: None,
        };
        live.refresh();
        live
    }

    /// Re-reads the file if it changed since the last read.
    pub fn refresh(&mut self) {
        let Some(path) = self.path.clone() else {
            self.problem = Some("no config directory: set XDG_CONFIG_HOME or HOME".to_owned());
            return;
        };
        let stamp = std::fs::metadata(&path)
            .ok()
            .map(|m| (m.modified().unwrap_or(SystemTime::UNIX_EPOCH), m.len()));
        if stamp == self.stamp && self.stamp.is_some() {
            return;
        }
        self.stamp = stamp;
        let inside_repo = std::fs::canonicalize(path.parent().unwrap_or(&path))
            .is_ok_and(|p| p.starts_with(&self.root));
        if inside_repo {
            self.list = Allowlist::default();
            self.problem = Some(format!(
                "{} is inside the repository, which cannot grant itself permission; ignored",
                path.display()
            ));
            return;
        }
        match load(&path) {
            Ok(list) => {
                self.list = list;
                self.problem = None;
            }
            Err(e) => {
                self.list = Allowlist::default();
                self.problem = Some(e);
            }
        }
    }

    /// The decision for a task of the table rooted at `root`.
    pub fn decide(&mut self, task: &Task) -> Decision {
        self.refresh();
        let file = self.root.join(&task.file_path);
        self.list.decide(&file, &task.source_name)
    }

    /// Why the allowlist could not be used, if it could not.
    pub fn problem(&self) -> Option<&str> {
        self.problem.as_deref()
    }

    /// The file's path.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(dir: Option<&str>, file: Option<&str>, task: Option<&str>) -> Rule {
        Rule {
            dir: dir.map(PathBuf::from),
            file: file.map(PathBuf::from),
            task: task.map(str::to_owned),
        }
    }

    /// Every combination of the four kinds of entry, each matching or not, against the
    /// precedence deny > directory > file > task.
    #[test]
    fn precedence_is_deny_then_directory_then_file_then_task() {
        let file = Path::new("/repo/web/Makefile");
        for mask in 0u8..16 {
            let mut list = Allowlist::default();
            let deny = mask & 1 != 0;
            let dir = mask & 2 != 0;
            let whole_file = mask & 4 != 0;
            let task = mask & 8 != 0;
            if deny {
                list.deny
                    .push(rule(None, Some("/repo/web/Makefile"), Some("build")));
            }
            if task {
                list.allow
                    .push(rule(None, Some("/repo/web/Makefile"), Some("build")));
            }
            if whole_file {
                list.allow
                    .push(rule(None, Some("/repo/web/Makefile"), None));
            }
            if dir {
                list.allow.push(rule(Some("/repo"), None, None));
            }
            // Identical allow and deny rules cannot coexist through the API, but a
            // hand-edited file can hold both: deny still wins.
            let decision = list.decide(file, "build");
            let expected = if deny {
                Decision::Denied("task build in /repo/web/Makefile".to_owned())
            } else if dir {
                Decision::Allowed("dir /repo".to_owned())
            } else if whole_file {
                Decision::Allowed("file /repo/web/Makefile".to_owned())
            } else if task {
                Decision::Allowed("task build in /repo/web/Makefile".to_owned())
            } else {
                Decision::NotListed
            };
            assert_eq!(decision, expected, "mask {mask:04b}");
            // Other tasks of the same file follow only the file and dir rules.
            let other = list.decide(file, "deploy");
            assert_eq!(other.allowed(), dir || whole_file, "mask {mask:04b}");
        }
    }

    #[test]
    fn directory_rules_do_not_match_sibling_prefixes() {
        let mut list = Allowlist::default();
        list.allow(rule(Some("/repo/app"), None, None));
        assert!(list.decide(Path::new("/repo/app/Makefile"), "x").allowed());
        assert!(
            !list
                .decide(Path::new("/repo/application/Makefile"), "x")
                .allowed()
        );
        list.deny(rule(Some("/repo/app/secret"), None, None));
        assert!(
            !list
                .decide(Path::new("/repo/app/secret/Makefile"), "x")
                .allowed()
        );
    }

    #[test]
    fn allow_and_deny_replace_their_exact_opposite() {
        let mut list = Allowlist::default();
        let r = rule(None, Some("/r/Makefile"), Some("build"));
        assert!(list.deny(r.clone()));
        assert!(list.allow(r.clone()));
        assert!(list.deny.is_empty());
        assert!(!list.allow(r));
    }

    #[test]
    fn the_file_round_trips() {
        let dir = tempfile::tempdir().expect("tmp");
        let path = dir.path().join("agg/allowlist.toml");
        let mut list = Allowlist::default();
        list.allow(rule(None, Some("/r/Makefile"), Some("build")));
        list.deny(rule(Some("/r/infra"), None, None));
        save(&path, &list).expect("save");
        assert_eq!(load(&path).expect("load"), list);
        std::fs::write(&path, "allow = 3\n").expect("write");
        assert!(load(&path).expect_err("bad").contains("allowlist.toml:1"));
    }
}
