//! What a person chose for the sandbox of one allow rule (`agg allow NAME --offline`,
//! `--write PATH`, `--read-secret PATH`, `--no-sandbox`): the part of a rule the policy of a
//! run is built from ([`super::Policy`]). Stored in the allowlist as the rule's `sandbox`
//! table; no options at all is the default policy.

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The sandbox options of one allow rule.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// The person's explicit opt-out: agents' runs of what the rule allows are not
    /// sandboxed at all (`agg allow NAME --no-sandbox`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_sandbox: bool,
    /// No network: TCP connections and listening sockets fail, and so does any socket
    /// other than a Unix or netlink one (`--offline`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub offline: bool,
    /// Never accepted: agg cannot keep only the host's loopback reachable soundly
    /// (docs/permissions.md says why). Read so that a hand-written `loopback` is an error
    /// that says so rather than an unknown field.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub loopback: bool,
    /// More paths the run may write (`--write PATH`), absolute, resolved when allowed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub write: Vec<PathBuf>,
    /// Secret paths the run may read after all (`--read-secret PATH`), absolute.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub read_secret: Vec<PathBuf>,
}

/// Why `--loopback` is refused, as `agg allow` and the allowlist's checks say it.
pub const LOOPBACK_REFUSED: &str = "--loopback is not offered: agg found no sound way to keep the host's 127.0.0.1 and ::1 reachable while every other address is cut off (Landlock filters TCP by port only, and a seccomp check of connect's address can be raced); use --offline, or no option for the network on (docs/permissions.md, \"Why there is no --loopback\")";

impl Spec {
    /// Whether the rule asks for nothing: the default policy.
    pub fn is_default(&self) -> bool {
        *self == Spec::default()
    }

    /// The policy's name, as results and `agg allowlist` show it: `none` (not sandboxed),
    /// `offline`, or `default`.
    pub fn name(&self) -> &'static str {
        if self.no_sandbox {
            "none"
        } else if self.offline {
            "offline"
        } else {
            "default"
        }
    }

    /// Why the options cannot be used, if they cannot (a hand-edited allowlist).
    pub fn problem(&self) -> Option<&'static str> {
        if self.loopback {
            return Some(LOOPBACK_REFUSED);
        }
        if self.no_sandbox
            && (self.offline || !self.write.is_empty() || !self.read_secret.is_empty())
        {
            return Some("`no_sandbox` takes no other sandbox option");
        }
        if self
            .write
            .iter()
            .chain(&self.read_secret)
            .any(|p| !p.is_absolute())
        {
            return Some("sandbox paths are absolute");
        }
        None
    }

    /// The options in words, for `agg allowlist` and `agg allow`: empty for the default.
    pub fn words(&self) -> String {
        if self.no_sandbox {
            return "NOT SANDBOXED: agents' runs may read and write anything you can".to_owned();
        }
        let mut parts = Vec::new();
        if self.offline {
            parts.push("offline".to_owned());
        }
        if !self.write.is_empty() {
            parts.push(format!("also writes {}", joined(&self.write)));
        }
        if !self.read_secret.is_empty() {
            parts.push(format!("may read {}", joined(&self.read_secret)));
        }
        parts.join("; ")
    }
}

fn joined(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `path` made absolute against `cwd`, `.` and `..` taken out by name, and resolved through
/// symlinks as far as it exists: what `--write PATH` stores, so a later run never follows a
/// link the repository may have planted since.
pub fn resolve(path: &Path, cwd: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    };
    super::layout::real(&lexical(&joined))
}

/// `path` with `.` and `..` components taken out by name.
fn lexical(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_problems() {
        let mut spec = Spec::default();
        assert!(spec.is_default());
        assert_eq!(spec.name(), "default");
        spec.offline = true;
        assert_eq!(spec.name(), "offline");
        assert_eq!(spec.words(), "offline");
        spec.no_sandbox = true;
        assert_eq!(spec.name(), "none");
        assert_eq!(
            spec.problem(),
            Some("`no_sandbox` takes no other sandbox option")
        );
        let relative = Spec {
            write: vec![PathBuf::from("out")],
            ..Spec::default()
        };
        assert_eq!(relative.problem(), Some("sandbox paths are absolute"));
        let loopback = Spec {
            loopback: true,
            ..Spec::default()
        };
        assert_eq!(loopback.problem(), Some(LOOPBACK_REFUSED));
    }

    #[test]
    fn a_path_is_stored_absolute_and_resolved() {
        let dir = tempfile::tempdir().expect("dir");
        let real = std::fs::canonicalize(dir.path()).expect("real");
        std::fs::create_dir(real.join("target")).expect("mkdir");
        std::os::unix::fs::symlink(real.join("target"), real.join("link")).expect("link");
        assert_eq!(
            resolve(Path::new("link/../link/new"), &real),
            real.join("target/new")
        );
        assert_eq!(
            resolve(&real.join("./link"), Path::new("/")),
            real.join("target")
        );
    }
}
