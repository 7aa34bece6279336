//! The policy as a Seatbelt profile, for `sandbox-exec -p` on macOS, as Codex runs its
//! commands. Built from the same [`Layout`] as Landlock's rules, as text, so it is checked
//! on every platform; macOS itself cannot run here.
//!
//! Seatbelt has exceptions (`require-not`), so nothing is split: reads are allowed on `/`
//! except the secrets and `/dev` (but its listed devices), writes on the writable trees
//! except agg's own directories and the secrets. Every rule only allows, on top of
//! `(deny default)`, so no rule's place in the profile changes what it means.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::layout::{DEVICE_DIRS, DEVICES, Layout};

/// The profile of `layout`.
pub fn profile(layout: &Layout) -> String {
    let mut p = String::from(
        "(version 1)\n\
         (deny default)\n\
         ; processes of the run, and what every program needs to start and talk to the system\n\
         (allow process-exec process-fork)\n\
         (allow process-info* (target same-sandbox))\n\
         (allow signal (target same-sandbox))\n\
         (allow sysctl-read)\n\
         (allow mach-lookup)\n\
         (allow ipc-posix-sem ipc-posix-shm)\n\
         (allow iokit-open)\n\
         (allow pseudo-tty)\n\
         (allow file-ioctl (literal \"/dev/tty\"))\n",
    );
    let secrets: Vec<&PathBuf> = layout
        .secrets
        .iter()
        .filter(|s| !layout.read_secret.iter().any(|r| s.starts_with(r)))
        .collect();
    p.push_str("; reads: everything but the secrets and the devices not listed\n");
    let _ = writeln!(
        p,
        "(allow file-read* (require-all (subpath \"/\") (require-not (subpath \"/dev\")){}))",
        excluding(&secrets)
    );
    let devices: Vec<PathBuf> = DEVICES
        .iter()
        .chain(DEVICE_DIRS)
        .map(PathBuf::from)
        .collect();
    let _ = writeln!(
        p,
        "(allow file-read* file-write-data {})",
        devices
            .iter()
            .map(|d| filter(
                if DEVICE_DIRS.contains(&d.to_str().unwrap_or_default()) {
                    "subpath"
                } else {
                    "literal"
                },
                d
            ))
            .collect::<Vec<_>>()
            .join(" ")
    );
    if !layout.read_secret.is_empty() {
        let _ = writeln!(p, "(allow file-read* {})", subpaths(&layout.read_secret));
    }
    p.push_str("; writes: the repository, the temp dir, the caches; never agg's own files\n");
    let writable: Vec<PathBuf> = [&layout.root, &layout.temp]
        .into_iter()
        .chain(&layout.caches)
        .cloned()
        .chain(DEVICE_DIRS.iter().map(PathBuf::from))
        .collect();
    let kept_out: Vec<&PathBuf> = layout.own.iter().chain(secrets.iter().copied()).collect();
    let _ = writeln!(
        p,
        "(allow file-write* (require-all (require-any {}){}))",
        subpaths(&writable),
        excluding(&kept_out)
    );
    if !layout.write.is_empty() {
        let own: Vec<&PathBuf> = layout.own.iter().collect();
        let _ = writeln!(
            p,
            "(allow file-write* (require-all (require-any {}){}))",
            subpaths(&layout.write),
            excluding(&own)
        );
    }
    if layout.offline {
        p.push_str("; network: off, but for local (Unix) sockets\n");
        p.push_str("(allow system-socket)\n");
        p.push_str("(allow network-outbound (remote unix-socket))\n");
        p.push_str("(allow network-bind (local unix-socket))\n");
    } else {
        p.push_str("; network: on\n");
        p.push_str("(allow system-socket)\n");
        p.push_str("(allow network*)\n");
    }
    p
}

fn subpaths(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|path| filter("subpath", path))
        .collect::<Vec<_>>()
        .join(" ")
}

fn excluding(paths: &[&PathBuf]) -> String {
    paths.iter().fold(String::new(), |mut out, path| {
        let _ = write!(out, " (require-not {})", filter("subpath", path));
        out
    })
}

fn filter(kind: &str, path: &Path) -> String {
    format!("({kind} {})", quoted(&path.to_string_lossy()))
}

/// A string literal of the profile language: backslashes and quotes escaped.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(offline: bool) -> Layout {
        Layout {
            root: PathBuf::from("/Users/u/src/app"),
            temp: PathBuf::from("/private/var/folders/xy/T"),
            home: Some(PathBuf::from("/Users/u")),
            caches: vec![PathBuf::from("/Users/u/Library/Caches")],
            secrets: vec![
                PathBuf::from("/Users/u/.ssh"),
                PathBuf::from("/Users/u/.aws"),
            ],
            own: vec![
                PathBuf::from("/Users/u/Library/Caches/agg"),
                PathBuf::from("/Users/u/.config/agg"),
            ],
            write: vec![PathBuf::from("/Users/u/out \"q\"")],
            read_secret: vec![PathBuf::from("/Users/u/.aws")],
            offline,
            terminals: Vec::new(),
        }
    }

    #[test]
    fn the_profile_reads_all_but_secrets_and_writes_only_the_policy() {
        let p = profile(&layout(false));
        assert!(p.starts_with("(version 1)\n(deny default)\n"), "{p}");
        assert!(
            p.contains(
                "(allow file-read* (require-all (subpath \"/\") (require-not (subpath \"/dev\")) (require-not (subpath \"/Users/u/.ssh\"))))"
            ),
            "{p}"
        );
        // `--read-secret ~/.aws` lifts that secret.
        assert!(
            p.contains("(allow file-read* (subpath \"/Users/u/.aws\"))"),
            "{p}"
        );
        assert!(
            p.contains(
                "(allow file-write* (require-all (require-any (subpath \"/Users/u/src/app\") (subpath \"/private/var/folders/xy/T\") (subpath \"/Users/u/Library/Caches\") (subpath \"/dev/shm\")) (require-not (subpath \"/Users/u/Library/Caches/agg\")) (require-not (subpath \"/Users/u/.config/agg\")) (require-not (subpath \"/Users/u/.ssh\"))))"
            ),
            "{p}"
        );
        // A --write path, quoted, still never agg's own directories.
        assert!(
            p.contains(
                "(allow file-write* (require-all (require-any (subpath \"/Users/u/out \\\"q\\\"\")) (require-not (subpath \"/Users/u/Library/Caches/agg\")) (require-not (subpath \"/Users/u/.config/agg\"))))"
            ),
            "{p}"
        );
        assert!(p.contains("(literal \"/dev/null\")"), "{p}");
        assert!(p.ends_with("(allow network*)\n"), "{p}");
        assert_eq!(p.matches('(').count(), p.matches(')').count(), "{p}");
    }

    #[test]
    fn offline_keeps_only_unix_sockets() {
        let p = profile(&layout(true));
        assert!(!p.contains("(allow network*)"), "{p}");
        assert!(
            p.contains("(allow network-outbound (remote unix-socket))"),
            "{p}"
        );
    }
}
