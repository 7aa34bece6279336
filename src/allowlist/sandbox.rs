//! The sandbox options of allow rules ([`crate::sandbox::Spec`]): which rule's options
//! the runs of a task get, and what a new allow keeps of the rule it replaces or falls
//! under, so re-pinning a task or approving it through the question never drops what the
//! person chose.

use std::cmp::Reverse;
use std::path::Path;

use super::{Allowlist, OnDisk, Rule};
use crate::sandbox::Spec;
use crate::table::Task;

impl Allowlist {
    /// The sandbox options agents' runs of `task` (of the table rooted at `root`) get:
    /// those of the most specific allow rule that matches it and holds (its pin, if any,
    /// compared with what `now` reads); when none holds, of the most specific that matches
    /// at all (a lapsed rule the person is asked about); else the default.
    pub fn sandbox_for(&self, root: &Path, task: &Task, now: &mut OnDisk) -> Spec {
        let paths = super::task_file_paths(root, task);
        let mut matching: Vec<&Rule> = self
            .allow
            .iter()
            .filter(|r| paths.iter().any(|f| r.matches(f, &task.source_name)))
            .collect();
        matching.sort_by_key(|r| specificity(r));
        let holds = |rule: &Rule, now: &mut OnDisk| {
            let alone = Allowlist {
                deny: Vec::new(),
                allow: vec![rule.clone()],
            };
            alone.decide(root, task, now).allowed()
        };
        let chosen = match matching.iter().find(|r| holds(r, now)) {
            Some(rule) => Some(*rule),
            None => matching.first().copied(),
        };
        chosen.and_then(|r| r.sandbox.clone()).unwrap_or_default()
    }
}

/// Most specific first: a task before a file before a directory, a deeper directory
/// before the one around it.
fn specificity(rule: &Rule) -> (Reverse<super::Kind>, Reverse<usize>) {
    let depth = rule.dir.as_ref().map_or(0, |d| d.components().count());
    (Reverse(rule.kind()), Reverse(depth))
}

/// `rule` as an allow writes it: with options of its own, those (the default ones stored as
/// none); without, the options of the rule with the same target it replaces, else of the
/// most specific broader rule it falls under.
pub(super) fn inherit(list: &Allowlist, mut rule: Rule) -> Rule {
    if let Some(spec) = &rule.sandbox {
        if spec.is_default() {
            rule.sandbox = None;
        }
        return rule;
    }
    if let Some(same) = list.allow.iter().find(|r| r.same_target(&rule)) {
        rule.sandbox.clone_from(&same.sandbox);
        return rule;
    }
    let target = rule.dir.as_ref().or(rule.file.as_ref());
    let mut broader: Vec<&Rule> = list
        .allow
        .iter()
        .filter(|r| r.kind() < rule.kind() || (r.dir.is_some() && rule.dir.is_some()))
        .filter(|r| match (&r.dir, &r.file, target) {
            (Some(dir), _, Some(t)) => t.starts_with(dir) && Some(dir) != rule.dir.as_ref(),
            (None, Some(file), _) => rule.task.is_some() && Some(file) == rule.file.as_ref(),
            _ => false,
        })
        .collect();
    broader.sort_by_key(|r| specificity(r));
    rule.sandbox = broader.first().and_then(|r| r.sandbox.clone());
    rule
}

/// Why a rule's sandbox options cannot be used, if they cannot.
pub(super) fn problem(rule: &Rule, allow: bool) -> Option<&'static str> {
    let spec = rule.sandbox.as_ref()?;
    if !allow {
        return Some("a deny rule takes no sandbox options");
    }
    spec.problem()
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn offline() -> Spec {
        Spec {
            offline: true,
            ..Spec::default()
        }
    }

    fn writes(path: &str) -> Spec {
        Spec {
            write: vec![PathBuf::from(path)],
            ..Spec::default()
        }
    }

    #[test]
    fn a_new_allow_keeps_the_options_of_the_rule_it_replaces_or_falls_under() {
        let mut list = Allowlist::default();
        let mut dir = Rule::for_dir(PathBuf::from("/r"));
        dir.sandbox = Some(offline());
        list.allow(dir);
        // Falls under the directory rule: offline too.
        list.allow(Rule::for_task(
            PathBuf::from("/r/Makefile"),
            "build".to_owned(),
            None,
        ));
        assert_eq!(list.allow[1].sandbox, Some(offline()));
        // Options of its own replace them; allowed again without any, it keeps them.
        let mut own = Rule::for_task(PathBuf::from("/r/Makefile"), "build".to_owned(), None);
        own.sandbox = Some(writes("/out"));
        list.allow(own);
        list.allow(Rule::for_task(
            PathBuf::from("/r/Makefile"),
            "build".to_owned(),
            None,
        ));
        assert_eq!(list.allow[1].sandbox, Some(writes("/out")));
        // The default asked for explicitly is stored as no options, not inherited.
        let mut plain = Rule::for_task(PathBuf::from("/r/Makefile"), "build".to_owned(), None);
        plain.sandbox = Some(Spec::default());
        list.allow(plain);
        assert_eq!(list.allow[1].sandbox, None);
        // A rule elsewhere falls under nothing.
        list.allow(Rule::for_file(PathBuf::from("/elsewhere/Makefile"), None));
        assert_eq!(list.allow[2].sandbox, None);
        // A deeper directory falls under the one around it.
        list.allow(Rule::for_dir(PathBuf::from("/r/sub")));
        assert_eq!(list.allow[3].sandbox, Some(offline()));
    }

    /// A make task of `/r/Makefile`, as the table of `/r` lists it.
    fn task(name: &str) -> Task {
        let argv = vec!["make".to_owned(), name.to_owned()];
        let mut t = Task::new(agg_runners::Runner::Make, name, ".", "Makefile", argv);
        t.unique_name = name.to_owned();
        t
    }

    #[test]
    fn the_most_specific_rule_that_holds_gives_the_options() {
        let mut list = Allowlist::default();
        let mut dir = Rule::for_dir(PathBuf::from("/r"));
        dir.sandbox = Some(offline());
        list.allow.push(dir);
        let root = Path::new("/r");
        let sandbox =
            |list: &Allowlist, name: &str| list.sandbox_for(root, &task(name), &mut OnDisk::new());
        assert_eq!(sandbox(&list, "build"), offline());
        let mut build = Rule::for_task(PathBuf::from("/r/Makefile"), "build".to_owned(), None);
        build.sandbox = Some(writes("/out"));
        list.allow.push(build);
        assert_eq!(sandbox(&list, "build"), writes("/out"));
        assert_eq!(sandbox(&list, "test"), offline());
        assert_eq!(sandbox(&Allowlist::default(), "build"), Spec::default());
    }

    #[test]
    fn a_deny_rule_takes_no_sandbox_options() {
        let mut rule = Rule::for_dir(PathBuf::from("/r"));
        rule.sandbox = Some(offline());
        assert_eq!(
            problem(&rule, false),
            Some("a deny rule takes no sandbox options")
        );
        assert_eq!(problem(&rule, true), None);
    }
}
