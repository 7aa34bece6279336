//! What a failed sandboxed run was denied: access errors in its output (the messages of
//! shells, coreutils, Python, Node, Go, Java, Ruby, compilers and package managers, which
//! name the path), kept when the path is one the run's rules did not grant. The model is
//! told the path and, for a path it could read but not write, the `agg allow NAME --write
//! PATH` a person could run; never a way around the sandbox.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;
use schemars::JsonSchema;
use serde::Serialize;

use super::Grants;

/// The most denied paths one result names.
pub const MAX_DENIED: usize = 5;
/// Lines around an access error searched for its path (npm and cargo print it on a line
/// of its own near the error).
pub const NEAR: usize = 3;

/// One path a run was refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Denied {
    /// The path, resolved through symlinks (where the write really went).
    pub path: String,
    /// It is one of the secrets the policy keeps unreadable.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub secret: bool,
    /// What a person could run to let this task write there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow: Option<String>,
}

/// Whether a line of output reports an access refused.
pub fn is_denial(line: &[u8]) -> bool {
    const MARKS: &[&[u8]] = &[
        b"permission denied",
        b"operation not permitted",
        b"eacces",
        b"eperm",
        b"accessdeniedexception",
        b"access is denied",
        b"os error 13",
        b"errno 13",
    ];
    let lower = line.to_ascii_lowercase();
    MARKS
        .iter()
        .any(|m| memchr::memmem::find(&lower, m).is_some())
}

/// An absolute path on a line: after a space, a quote (coreutils' `‘’` too), a bracket,
/// `=`, `,` or `:`.
static PATH: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r#"(?:^|[\s'"`‘“(\[=,:])(/[^\s'"`‘’“”,;:()\[\]]+)"#).ok());

/// The absolute path on `line` nearest to where it says access was refused.
fn nearest_path(line: &str) -> Option<&str> {
    let lower = line.to_ascii_lowercase();
    let at = [
        "permission denied",
        "not permitted",
        "eacces",
        "eperm",
        "denied",
    ]
    .iter()
    .find_map(|m| lower.find(m))
    .unwrap_or(0);
    PATH.as_ref()?
        .captures_iter(line)
        .filter_map(|c| c.get(1))
        .map(|m| (m.as_str().trim_end_matches('.'), m.start().abs_diff(at)))
        .filter(|(p, _)| p.len() > 1 && !p.starts_with("//"))
        .min_by_key(|(_, distance)| *distance)
        .map(|(p, _)| p)
}

/// The paths a run's output says it was refused: for each line that reports a refusal, the
/// path on it nearest to the words, else the nearest path on the lines around it
/// (`lines` is a window: `marked[i]` says whether `lines[i]` is a refusal).
pub fn paths(lines: &[String], marked: &[bool]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for (i, _) in marked.iter().enumerate().filter(|(_, m)| **m) {
        let around = (1..=NEAR).flat_map(|d| [i.checked_sub(d), Some(i + d)]);
        let found = std::iter::once(Some(i))
            .chain(around)
            .flatten()
            .filter_map(|j| lines.get(j))
            .find_map(|l| nearest_path(l));
        if let Some(path) = found.map(PathBuf::from)
            && !out.contains(&path)
        {
            out.push(path);
        }
    }
    out
}

/// Of `paths`, those the run's rules kept out, as the result names them; `task` is the
/// task's unique name, for the `agg allow` a person could run.
pub fn kept_out(paths: &[PathBuf], grants: &Grants, task: &str) -> Vec<Denied> {
    let mut out: Vec<Denied> = Vec::new();
    for path in paths {
        let real = super::layout::real(path);
        if ["/proc", "/sys", "/dev"]
            .iter()
            .any(|p| real.starts_with(p))
            || grants.may_write(&real)
            || out.iter().any(|d| Path::new(&d.path) == real)
        {
            continue;
        }
        let secret = !grants.may_read(&real);
        let allow = (!secret).then(|| {
            let target = first_missing(&real).to_string_lossy().into_owned();
            agg_runners::quote_command(&[
                "agg".to_owned(),
                "allow".to_owned(),
                task.to_owned(),
                "--write".to_owned(),
                target,
            ])
        });
        out.push(Denied {
            path: real.to_string_lossy().into_owned(),
            secret,
            allow,
        });
        if out.len() == MAX_DENIED {
            break;
        }
    }
    out
}

/// `path` itself when it exists, else its first component that does not (`--write` creates
/// a missing path as a directory).
fn first_missing(path: &Path) -> PathBuf {
    let mut candidate = path.to_path_buf();
    while let Some(parent) = candidate.parent() {
        if std::fs::symlink_metadata(parent).is_ok() {
            return candidate;
        }
        candidate = parent.to_path_buf();
    }
    path.to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each row: what a tool printed when refused, and the path it names.
    #[test]
    fn the_path_of_each_kind_of_message() {
        for (text, path) in [
            (
                "bash: line 1: /home/u/.bashrc: Permission denied",
                "/home/u/.bashrc",
            ),
            (
                "sh: 1: cannot create /home/u/.bashrc: Permission denied",
                "/home/u/.bashrc",
            ),
            (
                "touch: cannot touch '/etc/agg-x': Permission denied",
                "/etc/agg-x",
            ),
            (
                "mkdir: cannot create directory ‘/opt/x’: Permission denied",
                "/opt/x",
            ),
            (
                "cat: /home/u/.ssh/id_ed25519: Permission denied",
                "/home/u/.ssh/id_ed25519",
            ),
            (
                "PermissionError: [Errno 13] Permission denied: '/home/u/.aws/credentials'",
                "/home/u/.aws/credentials",
            ),
            (
                "Error: EACCES: permission denied, open '/home/u/.bashrc'",
                "/home/u/.bashrc",
            ),
            ("open /srv/out.txt: permission denied", "/srv/out.txt"),
            (
                "java.io.FileNotFoundException: /srv/out.txt (Permission denied)",
                "/srv/out.txt",
            ),
            (
                "java.nio.file.AccessDeniedException: /srv/out.txt",
                "/srv/out.txt",
            ),
            (
                "/usr/bin/ld: cannot open output file /srv/app: Permission denied",
                "/srv/app",
            ),
            (
                "Errno::EACCES: Permission denied @ rb_sysopen - /srv/out.txt",
                "/srv/out.txt",
            ),
            ("make: /srv/x.sh: Permission denied", "/srv/x.sh"),
        ] {
            assert!(is_denial(text.as_bytes()), "{text}");
            assert_eq!(
                paths(&[text.to_owned()], &[true]),
                vec![PathBuf::from(path)],
                "{text}"
            );
        }
        assert!(!is_denial(b"error: expected `;`, found `}`"));
    }

    #[test]
    fn a_path_on_a_line_near_the_error() {
        let npm = [
            "npm error code EACCES",
            "npm error syscall mkdir",
            "npm error path /home/u/.npm/_cacache",
            "npm error errno -13",
        ]
        .map(str::to_owned);
        let marked: Vec<bool> = npm.iter().map(|l| is_denial(l.as_bytes())).collect();
        assert_eq!(
            paths(&npm, &marked),
            vec![PathBuf::from("/home/u/.npm/_cacache")]
        );
        let cargo = [
            "error: failed to write `/srv/target/x`",
            "",
            "Caused by:",
            "  Permission denied (os error 13)",
        ]
        .map(str::to_owned);
        assert_eq!(
            paths(&cargo, &[false, false, false, true]),
            vec![PathBuf::from("/srv/target/x")]
        );
    }

    #[test]
    fn only_what_the_rules_kept_out_is_named() {
        let grants = Grants {
            read: vec![PathBuf::from("/etc"), PathBuf::from("/work")],
            write: vec![PathBuf::from("/work/repo")],
        };
        let denied = kept_out(
            &[
                PathBuf::from("/work/repo/locked"),
                PathBuf::from("/etc/agg-nowhere/x"),
                PathBuf::from("/secret/key"),
                PathBuf::from("/proc/1/environ"),
            ],
            &grants,
            "build",
        );
        assert_eq!(
            denied,
            vec![
                Denied {
                    path: "/etc/agg-nowhere/x".to_owned(),
                    secret: false,
                    allow: Some("agg allow build --write /etc/agg-nowhere".to_owned()),
                },
                Denied {
                    path: "/secret/key".to_owned(),
                    secret: true,
                    allow: None,
                },
            ]
        );
    }
}
