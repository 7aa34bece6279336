//! One entry of a Taskfile's `includes:` mapping: where it points and how its tasks are
//! renamed, hidden or excluded.
//!
//! Paths may use go-task templates; only what is knowable without running anything is
//! resolved (`{{.TASKFILE_DIR}}`, `{{.ROOT_DIR}}` and the including file's plain `vars`).

use std::collections::HashMap;

use crate::doc::{Node, Terms, Value};
use crate::files::relative;

/// What an include says, before its path is resolved.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct Include {
    /// The path as written (a file or a directory, relative to the including file).
    pub taskfile: String,
    /// `optional: true`: a missing file is not an error.
    pub optional: bool,
    /// `internal: true`: none of its tasks are listed.
    pub internal: bool,
    /// `flatten: true`: its tasks keep their own names, without the namespace.
    pub flatten: bool,
    /// Other namespaces its tasks answer to.
    pub aliases: Vec<String>,
    /// Its task names (relative to it) that are left out.
    pub excludes: Vec<String>,
    /// `checksum`: the SHA-256 (hex) the included file must have, and the line of the key.
    pub checksum: Option<(String, u32)>,
}

/// Why an include's value is not one go-task reads; its `Display` follows the include's
/// name in a diagnostic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum BadInclude {
    /// A mapping without a `taskfile:` path.
    NoPath,
    /// Neither a path nor a mapping: what it is instead.
    Kind(&'static str),
}

impl std::fmt::Display for BadInclude {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BadInclude::NoPath => f.write_str("has no `taskfile` path"),
            BadInclude::Kind(kind) => write!(f, "should be a path or a mapping, not {kind}"),
        }
    }
}

impl std::error::Error for BadInclude {}

/// A template of an include path that cannot be resolved without running go-task, as
/// written (`{{.GIT}}`, or an unclosed `{{.X`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Unresolved(pub String);

impl std::fmt::Display for Unresolved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Unresolved {}

/// Reads an include's value: a path, or a mapping with `taskfile:` and options.
pub(super) fn read(value: &Node) -> Result<Include, BadInclude> {
    match value.value {
        Value::Table(_) => {
            let taskfile = value
                .get("taskfile")
                .and_then(Node::scalar)
                .ok_or(BadInclude::NoPath)?;
            let flag = |key| value.get(key).is_some_and(Node::is_true_or_text_true);
            let names = |key| match value.get(key) {
                Some(node) => match node.items() {
                    Some(items) => items
                        .iter()
                        .filter_map(|n| n.scalar().map(str::to_owned))
                        .collect(),
                    None => node.scalar().map(str::to_owned).into_iter().collect(),
                },
                None => Vec::new(),
            };
            Ok(Include {
                taskfile: taskfile.to_owned(),
                optional: flag("optional"),
                internal: flag("internal"),
                flatten: flag("flatten"),
                aliases: names("aliases"),
                excludes: names("excludes"),
                checksum: value.entry("checksum").and_then(|entry| {
                    let sum = entry.node.scalar().filter(|s| !s.is_empty())?;
                    Some((sum.to_owned(), entry.node.line))
                }),
            })
        }
        _ => match value.scalar() {
            Some(path) => Ok(Include {
                taskfile: path.to_owned(),
                ..Include::default()
            }),
            None => Err(BadInclude::Kind(value.kind_in(Terms::Yaml))),
        },
    }
}

/// Whether go-task would fetch this include over the network (remote Taskfiles).
pub(super) fn is_remote(path: &str) -> bool {
    path.contains("://") || path.starts_with("git@")
}

/// The variables an include path may use: the including file's top-level `vars` that are
/// plain values (a `sh:` var or one built from other templates needs go-task to compute).
pub(super) fn static_vars(file: &Node) -> HashMap<String, String> {
    let Some(vars) = file.get("vars").and_then(Node::entries) else {
        return HashMap::new();
    };
    vars.iter()
        .filter_map(|v| {
            let text = v.node.scalar()?;
            (!text.contains("{{")).then(|| (v.key.clone(), text.to_owned()))
        })
        .collect()
}

/// Expands the `{{.NAME}}` templates of an include path.
///
/// `dir` is the including file's directory and `root_dir` the root Taskfile's, both
/// root-relative. go-task's `TASKFILE_DIR` and `ROOT_DIR` are absolute; here they become
/// paths relative to `dir`, so the result can still go through [`crate::files::join`]. Returns
/// the first template that cannot be resolved as the error.
pub(super) fn expand(
    path: &str,
    vars: &HashMap<String, String>,
    dir: &str,
    root_dir: &str,
) -> Result<String, Unresolved> {
    let mut out = String::with_capacity(path.len());
    let mut rest = path;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            return Err(Unresolved(rest[start..].to_owned()));
        };
        let inner = after[..end].trim();
        let value = match inner.strip_prefix('.') {
            Some("TASKFILE_DIR") => ".".to_owned(),
            Some("ROOT_DIR") => relative(dir, root_dir),
            Some(name) => vars
                .get(name)
                .cloned()
                .ok_or_else(|| Unresolved(format!("{{{{{}}}}}", after[..end].trim())))?,
            None => match inner {
                // go-task's platform functions, as the Go runtime names the platform.
                "OS" | "OS | lower" => go_os().to_owned(),
                "ARCH" | "ARCH | lower" => go_arch().to_owned(),
                _ => return Err(Unresolved(format!("{{{{{}}}}}", after[..end].trim()))),
            },
        };
        out.push_str(&value);
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

/// `runtime.GOOS` of the platform agg runs on: what `{{OS}}` gives go-task here.
pub(super) fn go_os() -> &'static str {
    match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    }
}

/// `runtime.GOARCH` of the platform agg runs on: what `{{ARCH}}` gives go-task here.
fn go_arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "x86" => "386",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doc::{self, Dialect};
    use indoc::indoc;

    #[test]
    fn short_and_long_forms() {
        assert_eq!(
            read(&Node::new(1, Value::Str("./docs".into()))),
            Ok(Include {
                taskfile: "./docs".into(),
                ..Include::default()
            })
        );
        let long = doc::read_yaml(
            indoc! {"
                taskfile: ./lib/Taskfile.yml
                dir: ./lib
                optional: true
                internal: true
                flatten: true
                aliases: [l, li]
                excludes: [secret]
                vars: {X: 1}
                checksum: abc
            "},
            Dialect::Strict,
        )
        .unwrap();
        assert_eq!(
            read(&long),
            Ok(Include {
                taskfile: "./lib/Taskfile.yml".into(),
                optional: true,
                internal: true,
                flatten: true,
                aliases: vec!["l".into(), "li".into()],
                excludes: vec!["secret".into()],
                checksum: Some(("abc".into(), 9)),
            })
        );
        assert_eq!(
            read(&doc::read_yaml("dir: ./x\n", Dialect::Strict).unwrap())
                .map_err(|e| e.to_string()),
            Err("has no `taskfile` path".to_owned())
        );
        assert_eq!(
            read(&Node::new(1, Value::Arr(vec![]))).map_err(|e| e.to_string()),
            Err("should be a path or a mapping, not a list".to_owned())
        );
    }

    #[test]
    fn remote_includes_are_recognized() {
        assert!(is_remote("https://taskfile.dev/Taskfile.yml"));
        assert!(is_remote(
            "https://github.com/go-task/task.git//taskfile/testdata?ref=main"
        ));
        assert!(is_remote(
            "git@github.com:go-task/task.git//Taskfile.yml?ref=v3"
        ));
        assert!(!is_remote("./docs/Taskfile.yml"));
    }

    #[test]
    fn templates_resolve_what_is_static() {
        let file = doc::read_yaml(
            indoc! {"
                vars:
                  DOCS: ./docs
                  GIT: {sh: git rev-parse HEAD}
                  BUILT: '{{.DOCS}}/x'
            "},
            Dialect::Strict,
        )
        .unwrap();
        let vars = static_vars(&file);
        assert_eq!(vars.len(), 1);
        assert_eq!(
            expand("{{.DOCS}}/Taskfile.yml", &vars, ".", "."),
            Ok("./docs/Taskfile.yml".into())
        );
        assert_eq!(
            expand("{{ .TASKFILE_DIR }}/lib", &vars, "a/b", "."),
            Ok("./lib".into())
        );
        assert_eq!(
            expand("{{.ROOT_DIR}}/shared", &vars, "a/b", "."),
            Ok("../../shared".into())
        );
        assert_eq!(
            expand("{{.ROOT_DIR}}/shared", &vars, "a/b", "a/c"),
            Ok("../c/shared".into())
        );
        assert_eq!(
            expand("./{{.GIT}}/x", &vars, ".", "."),
            Err(Unresolved("{{.GIT}}".into()))
        );
        assert_eq!(
            expand("./Taskfile_{{OS}}.yml", &vars, ".", "."),
            Ok(format!("./Taskfile_{}.yml", go_os()))
        );
        assert_eq!(
            expand("./{{exec}}.yml", &vars, ".", "."),
            Err(Unresolved("{{exec}}".into()))
        );
        assert_eq!(
            expand("./{{.X", &vars, ".", "."),
            Err(Unresolved("{{.X".into()))
        );
    }
}
