//! Deno workspaces: a root configuration's `workspace` lists member directories (paths or
//! globs), each with its own `deno.json`, `deno.jsonc` or `package.json` and its own tasks.
//! The root's members are checked here, and a member finds the root whose tasks its
//! dependencies may also name.

use std::collections::HashSet;

use globset::GlobBuilder;

use super::CONFIG_FILES;
use crate::doc::{self, Dialect, Node, Terms};
use crate::files::{Files, join, parent};
use crate::model::{Parsed, Source};

/// The files that make a directory a member deno accepts.
const MEMBER_FILES: [&str; 3] = ["deno.json", "deno.jsonc", "package.json"];

/// The member patterns of `workspace`: an array, or `{ "members": [...] }`.
fn patterns(workspace: &Node) -> Option<Vec<&Node>> {
    let items = workspace
        .items()
        .or_else(|| workspace.get("members").and_then(Node::items))?;
    Some(items.iter().collect())
}

/// Whether `pattern` holds glob characters.
fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '[', '{'])
}

/// Checks a root's members: a member directory that is missing (deno warns and skips it),
/// or that holds none of deno's configuration files nor a `package.json` (deno then refuses
/// to run any task of the workspace). Glob members are not checked.
pub(super) fn check_members(src: &Source<'_>, dir: &str, workspace: &Node, out: &mut Parsed) {
    let Some(members) = patterns(workspace) else {
        workspace
            .mismatch(
                "`workspace` must be an array of member directories",
                Terms::Toml,
            )
            .report(src.path, out);
        return;
    };
    let mut seen = HashSet::new();
    for member in members {
        let Some(rel) = member.str() else {
            member
                .mismatch("a workspace member must be a path", Terms::Toml)
                .report(src.path, out);
            continue;
        };
        if is_glob(rel) {
            continue;
        }
        let Some(path) = join(dir, rel) else {
            let message = format!("workspace member `{rel}` is outside the repository");
            out.diag(src.path, Some(member.line), message);
            continue;
        };
        if !seen.insert(path.clone()) {
            continue;
        }
        let entries = src.files.read_dir(&path);
        if entries.is_empty() {
            let message = format!("workspace member `{rel}` does not exist; deno skips it");
            out.diag(src.path, Some(member.line), message);
        } else if !entries.iter().any(|e| MEMBER_FILES.contains(&e.as_str())) {
            let message = format!(
                "workspace member `{rel}` has no deno.json, deno.jsonc or package.json: deno refuses to run any task of this workspace"
            );
            out.diag(src.path, Some(member.line), message);
        }
    }
}

/// The task names of the workspace root `dir` belongs to: the nearest configuration above
/// `dir` that has a `workspace` listing it. `None` when `dir` is no member of any.
pub(super) fn root_tasks(files: &dyn Files, dir: &str) -> Option<HashSet<String>> {
    let mut at = dir;
    while at != "." {
        at = parent(at);
        let Some(path) = CONFIG_FILES
            .iter()
            .filter_map(|f| join(at, f))
            .find(|p| files.exists(p))
        else {
            continue;
        };
        let Some(root) = files
            .read(&path)
            .ok()
            .and_then(|t| doc::read_jsonc(&t, Dialect::Loose).ok())
        else {
            continue;
        };
        let Some(workspace) = root.get("workspace") else {
            continue;
        };
        let listed = patterns(workspace)
            .unwrap_or_default()
            .into_iter()
            .filter_map(Node::str)
            .any(|rel| lists(at, rel, dir));
        if !listed {
            return None;
        }
        let names = root
            .get("tasks")
            .and_then(Node::entries)
            .unwrap_or_default()
            .iter()
            .map(|e| e.key.clone())
            .collect();
        return Some(names);
    }
    None
}

/// Whether member pattern `rel` of the root in `root_dir` names directory `dir`.
fn lists(root_dir: &str, rel: &str, dir: &str) -> bool {
    let Some(pattern) = join(root_dir, rel) else {
        return false;
    };
    if !is_glob(rel) {
        return pattern == dir;
    }
    GlobBuilder::new(&pattern)
        .literal_separator(true)
        .build()
        .is_ok_and(|glob| glob.compile_matcher().is_match(dir))
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::*;
    use crate::files::MemFiles;
    use crate::testing::{lines, parse_with};
    use indoc::indoc;

    #[test]
    fn members_that_deno_would_skip_or_refuse_are_reported() {
        let files = MemFiles::new()
            .with(
                "deno.json",
                indoc! {"
                    {
                      \"workspace\": [
                        \"./api\",
                        \"./web\",
                        \"./gone\",
                        \"./docs\",
                        \"./libs/*\",
                        7
                      ]
                    }
                "},
            )
            .with("api/deno.jsonc", "{}")
            .with("web/package.json", "{}")
            .with("docs/README.md", "# Docs");
        let parsed = parse_with(parse, &files, "deno.json");
        let found = lines(&parsed);
        assert_eq!(found.len(), 3, "{found:?}");
        assert_eq!(
            found[0],
            (
                Some(5),
                "workspace member `./gone` does not exist; deno skips it"
            )
        );
        // Each array item is reported at its own line.
        assert_eq!(found[1].0, Some(6));
        assert!(found[1].1.contains("deno refuses to run any task"));
        assert_eq!(found[2].0, Some(8));
    }

    #[test]
    fn the_workspace_object_form_lists_members_too() {
        let files = MemFiles::new()
            .with(
                "deno.jsonc",
                r#"{"workspace": {"members": ["a"]}, "tasks": {"r": "x"}}"#,
            )
            .with("a/deno.json", "{}");
        assert_eq!(
            root_tasks(&files, "a"),
            Some(HashSet::from(["r".to_owned()]))
        );
        let bad = MemFiles::new().with("deno.json", r#"{"workspace": "a"}"#);
        let parsed = parse_with(parse, &bad, "deno.json");
        assert!(lines(&parsed)[0].1.contains("must be an array"));
    }

    #[test]
    fn a_directory_the_root_does_not_list_is_no_member() {
        let files = MemFiles::new()
            .with(
                "deno.json",
                r#"{"workspace": ["./packages/*"], "tasks": {"r": "x"}}"#,
            )
            .with("packages/a/deno.json", "{}")
            .with("tools/deno.json", "{}");
        assert!(root_tasks(&files, "packages/a").is_some());
        assert!(root_tasks(&files, "packages/a/deep").is_none());
        assert!(root_tasks(&files, "tools").is_none());
        assert!(root_tasks(&files, ".").is_none());
    }
}
