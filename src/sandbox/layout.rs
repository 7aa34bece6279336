//! Where a sandboxed run may read and write, as paths: the default policy's lists (the
//! secrets, the runners' caches, the devices), the repository root, the temp dir, agg's own
//! directories and the rule's extra paths, resolved once from agg's own environment (never
//! the task's) into two sets of [`Mark`]s, one for reading and one for writing.
//!
//! A mark says "this tree is allowed" or "this tree is not"; the nearest mark above a path
//! decides. [`super::tree`] turns marks into the allow-only rules Landlock takes, and
//! [`super::seatbelt`] into a Seatbelt profile.

use std::path::{Path, PathBuf};

use super::Spec;

/// Secrets under the home directory: never readable (nor writable) unless a rule says
/// `--read-secret`. Browser profiles hold cookies and saved passwords.
pub const SECRETS: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".kube",
    ".docker/config.json",
    ".netrc",
    ".git-credentials",
    ".config/gh",
    ".password-store",
    // Browser profiles.
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
    ".config/microsoft-edge",
    ".config/vivaldi",
    ".config/opera",
    "snap/firefox",
    "snap/chromium",
    ".var/app/org.mozilla.firefox",
    ".var/app/com.google.Chrome",
    "Library/Application Support/Google/Chrome",
    "Library/Application Support/Firefox",
    "Library/Application Support/BraveSoftware",
    "Library/Application Support/Microsoft Edge",
    "Library/Safari",
    "Library/Cookies",
    "Library/Keychains",
];

/// One cache runners write to: where it is by default (under the home directory), and the
/// environment variable that moves it, if any.
#[derive(Debug, Clone, Copy)]
pub struct Cache {
    /// The tool it belongs to, for the documentation.
    pub tool: &'static str,
    /// Its default place, relative to the home directory.
    pub default: &'static str,
    /// The variable that overrides the place (absolute), and the part below it that is
    /// the cache (`CARGO_HOME` → `registry`).
    pub env: Option<(&'static str, &'static str)>,
}

/// The caches runners write to: one documented list (docs/permissions.md renders it).
/// The XDG cache directory covers pip, uv, Poetry, PDM, yarn 1, pnpm's metadata, Deno, Go's
/// build cache, ccache and sccache at their default places.
pub const CACHES: &[Cache] = &[
    Cache {
        tool: "XDG cache (pip, uv, Poetry, PDM, yarn, Deno, go build, ccache, sccache…)",
        default: ".cache",
        env: Some(("XDG_CACHE_HOME", "")),
    },
    Cache {
        tool: "npm",
        default: ".npm",
        env: Some(("npm_config_cache", "")),
    },
    Cache {
        tool: "pnpm store",
        default: ".local/share/pnpm/store",
        env: Some(("PNPM_STORE_DIR", "")),
    },
    Cache {
        tool: "pnpm store (older)",
        default: ".pnpm-store",
        env: None,
    },
    Cache {
        tool: "yarn berry",
        default: ".yarn/berry/cache",
        env: Some(("YARN_CACHE_FOLDER", "")),
    },
    Cache {
        tool: "bun",
        default: ".bun/install/cache",
        env: Some(("BUN_INSTALL_CACHE_DIR", "")),
    },
    Cache {
        tool: "cargo registry",
        default: ".cargo/registry",
        env: Some(("CARGO_HOME", "registry")),
    },
    Cache {
        tool: "cargo git",
        default: ".cargo/git",
        env: Some(("CARGO_HOME", "git")),
    },
    Cache {
        tool: "rustup downloads",
        default: ".rustup/downloads",
        env: Some(("RUSTUP_HOME", "downloads")),
    },
    Cache {
        tool: "rustup temp",
        default: ".rustup/tmp",
        env: Some(("RUSTUP_HOME", "tmp")),
    },
    Cache {
        tool: "pip",
        default: ".cache/pip",
        env: Some(("PIP_CACHE_DIR", "")),
    },
    Cache {
        tool: "uv",
        default: ".cache/uv",
        env: Some(("UV_CACHE_DIR", "")),
    },
    Cache {
        tool: "Poetry",
        default: ".cache/pypoetry",
        env: Some(("POETRY_CACHE_DIR", "")),
    },
    Cache {
        tool: "PDM",
        default: ".cache/pdm",
        env: Some(("PDM_CACHE_DIR", "")),
    },
    Cache {
        tool: "Maven",
        default: ".m2/repository",
        env: None,
    },
    Cache {
        tool: "Gradle caches",
        default: ".gradle/caches",
        env: Some(("GRADLE_USER_HOME", "caches")),
    },
    Cache {
        tool: "Gradle wrapper",
        default: ".gradle/wrapper",
        env: Some(("GRADLE_USER_HOME", "wrapper")),
    },
    Cache {
        tool: "Gradle daemon",
        default: ".gradle/daemon",
        env: Some(("GRADLE_USER_HOME", "daemon")),
    },
    Cache {
        tool: "Gradle native",
        default: ".gradle/native",
        env: Some(("GRADLE_USER_HOME", "native")),
    },
    Cache {
        tool: "Go modules",
        default: "go/pkg/mod",
        env: Some(("GOMODCACHE", "")),
    },
    Cache {
        tool: "Go build",
        default: ".cache/go-build",
        env: Some(("GOCACHE", "")),
    },
    Cache {
        tool: "Deno",
        default: ".cache/deno",
        env: Some(("DENO_DIR", "")),
    },
    Cache {
        tool: "ccache",
        default: ".ccache",
        env: Some(("CCACHE_DIR", "")),
    },
    Cache {
        tool: "sccache",
        default: ".cache/sccache",
        env: Some(("SCCACHE_DIR", "")),
    },
    Cache {
        tool: "macOS caches",
        default: "Library/Caches",
        env: None,
    },
];

/// Devices every run may read and write (`/dev/tty` is the run's controlling terminal,
/// if it has one). Nothing else under `/dev` is readable: not the terminals of other
/// sessions (`/dev/pts`), not disks.
pub const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
];

/// Device directories every run may write: shared memory, a temp dir of its own kind.
pub const DEVICE_DIRS: &[&str] = &["/dev/shm"];

/// One mark: the tree at `path` is allowed (`on`) or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mark {
    /// Absolute and resolved.
    pub path: PathBuf,
    /// Allowed or not.
    pub on: bool,
}

/// Everything a policy is made of, resolved: what [`super::Policy`] holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// The repository root (writable).
    pub root: PathBuf,
    /// The temp dir (writable): agg's own `TMPDIR`, else `/tmp`.
    pub temp: PathBuf,
    /// The home directory, when there is one.
    pub home: Option<PathBuf>,
    /// The caches of [`CACHES`], where this environment puts them.
    pub caches: Vec<PathBuf>,
    /// The secrets of [`SECRETS`] under the home directory.
    pub secrets: Vec<PathBuf>,
    /// agg's own directories: never writable.
    pub own: Vec<PathBuf>,
    /// The rule's extra writable paths, as stored (never resolved again).
    pub write: Vec<PathBuf>,
    /// The rule's readable secrets, as stored.
    pub read_secret: Vec<PathBuf>,
    /// No network.
    pub offline: bool,
    /// The terminal devices a person's run inherits as its standard streams (`agg run
    /// --sandbox` at a terminal): reopening them (`/dev/stdout`) grants nothing it does not
    /// hold already.
    pub terminals: Vec<PathBuf>,
}

impl Layout {
    /// The layout of a run in the repository at `root` under `spec`, with agg's own
    /// directories `own`, from agg's environment.
    pub fn new(root: &Path, spec: &Spec, own: &[PathBuf]) -> Layout {
        let env = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
        };
        let home = env("HOME").map(|h| real(&h));
        let mut caches = Vec::new();
        for cache in CACHES {
            let moved = cache.env.and_then(|(name, below)| {
                env(name).map(|p| if below.is_empty() { p } else { p.join(below) })
            });
            let place = moved.or_else(|| home.as_ref().map(|h| h.join(cache.default)));
            if let Some(place) = place.map(|p| real(&p))
                // A variable pointing at `/` or at the home directory would make it writable.
                && !home.as_ref().is_some_and(|h| h.starts_with(&place))
                && place.parent().is_some()
                && !caches.contains(&place)
            {
                caches.push(place);
            }
        }
        let secrets = home
            .iter()
            .flat_map(|h| SECRETS.iter().map(move |s| real(&h.join(s))))
            .collect();
        let mut own_dirs: Vec<PathBuf> = Vec::new();
        for dir in own.iter().filter(|d| d.is_absolute()).map(|d| real(d)) {
            if !own_dirs.contains(&dir) {
                own_dirs.push(dir);
            }
        }
        Layout {
            root: real(root),
            temp: real(&std::env::temp_dir()),
            home,
            caches,
            secrets,
            own: own_dirs,
            write: spec.write.clone(),
            read_secret: spec.read_secret.clone(),
            offline: spec.offline,
            terminals: Vec::new(),
        }
    }

    /// What may be read: everything but the secrets (and `/dev` but its listed devices);
    /// the rule's `--read-secret` paths after all.
    pub fn read_marks(&self) -> Vec<Mark> {
        let mut marks = vec![on("/"), off("/dev")];
        marks.extend(devices().map(|d| on(&d)));
        marks.extend(self.terminals.iter().map(on));
        marks.extend(self.secrets.iter().map(off));
        marks.extend(self.read_secret.iter().map(on));
        settle(marks, &[])
    }

    /// What may be written: the repository, the temp dir, the caches, the devices and the
    /// rule's `--write` paths; never agg's own directories, and no secret unless a
    /// `--write` names it (or a path in it).
    pub fn write_marks(&self) -> Vec<Mark> {
        let mut marks = vec![off("/")];
        marks.extend(self.secrets.iter().map(off));
        marks.extend(
            [&self.root, &self.temp]
                .into_iter()
                .chain(&self.caches)
                .map(on),
        );
        marks.extend(devices().map(|d| on(&d)));
        marks.extend(self.terminals.iter().map(on));
        marks.extend(self.write.iter().map(on));
        settle(marks, &self.own)
    }

    /// Whether `path` is one of agg's own directories or inside one.
    pub fn is_own(&self, path: &Path) -> bool {
        self.own.iter().any(|o| path.starts_with(o))
    }
}

/// The devices and device directories of the policy, resolved.
fn devices() -> impl Iterator<Item = PathBuf> {
    DEVICES
        .iter()
        .map(PathBuf::from)
        .chain(DEVICE_DIRS.iter().map(|d| real(Path::new(d))))
}

fn on(path: impl AsRef<Path>) -> Mark {
    Mark {
        path: path.as_ref().to_path_buf(),
        on: true,
    }
}

fn off(path: impl AsRef<Path>) -> Mark {
    Mark {
        path: path.as_ref().to_path_buf(),
        on: false,
    }
}

/// One mark per path, the later one winning (the list is written from the general to the
/// particular), then `hard` off marks that nothing inside them can turn on.
fn settle(marks: Vec<Mark>, hard: &[PathBuf]) -> Vec<Mark> {
    let mut out: Vec<Mark> = Vec::with_capacity(marks.len() + hard.len());
    for mark in marks {
        if hard.iter().any(|h| mark.path.starts_with(h)) {
            continue;
        }
        match out.iter_mut().find(|m| m.path == mark.path) {
            Some(existing) => existing.on = mark.on,
            None => out.push(mark),
        }
    }
    out.extend(hard.iter().map(off));
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out.dedup_by(|a, b| a.path == b.path);
    out
}

/// Whether the nearest of `marks` above `path` (itself included) allows it.
pub fn allowed(marks: &[Mark], path: &Path) -> bool {
    marks
        .iter()
        .filter(|m| path.starts_with(&m.path))
        .max_by_key(|m| m.path.components().count())
        .is_some_and(|m| m.on)
}

/// `path` resolved through symlinks as far as it exists, the rest appended as written:
/// where a rule on it would land.
pub fn real(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest = Vec::new();
    loop {
        if let Ok(resolved) = std::fs::canonicalize(&existing) {
            let mut out = resolved;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return out;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent.to_path_buf();
            }
            _ => return path.to_path_buf(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(own: &[&str], write: &[&str]) -> Layout {
        Layout {
            root: PathBuf::from("/work/repo"),
            temp: PathBuf::from("/tmp"),
            home: Some(PathBuf::from("/home/u")),
            caches: vec![PathBuf::from("/home/u/.cache")],
            secrets: vec![PathBuf::from("/home/u/.ssh"), PathBuf::from("/home/u/.aws")],
            own: own.iter().map(PathBuf::from).collect(),
            write: write.iter().map(PathBuf::from).collect(),
            read_secret: vec![PathBuf::from("/home/u/.aws/config")],
            offline: false,
            terminals: Vec::new(),
        }
    }

    /// Each row: a path, and whether the policy lets a run read it and write it.
    #[test]
    fn the_nearest_mark_decides() {
        let l = layout(
            &["/home/u/.local/state/agg", "/home/u/.config/agg"],
            &[
                "/home/u/.config",
                "/home/u/.config/agg/x",
                "/home/u/.ssh/known_hosts",
            ],
        );
        let read = l.read_marks();
        let write = l.write_marks();
        for (path, may_read, may_write) in [
            ("/work/repo/src/main.rs", true, true),
            ("/work/sibling/file", true, false),
            ("/home/u/.bashrc", true, false),
            ("/home/u/.ssh/id_ed25519", false, false),
            ("/home/u/.ssh/known_hosts", false, true),
            ("/home/u/.aws/credentials", false, false),
            ("/home/u/.aws/config", true, false),
            ("/home/u/.cache/pip/x", true, true),
            ("/home/u/.cache/new/x", true, true),
            ("/home/u/.local/state/agg/history", true, false),
            ("/home/u/.config/agg/allowlist.toml", true, false),
            ("/home/u/.config/agg/x/y", true, false),
            ("/home/u/.config/other", true, true),
            ("/dev/null", true, true),
            ("/dev/sda", false, false),
            ("/dev/pts/0", false, false),
            ("/tmp/x", true, true),
            ("/etc/passwd", true, false),
        ] {
            assert_eq!(allowed(&read, Path::new(path)), may_read, "read {path}");
            assert_eq!(allowed(&write, Path::new(path)), may_write, "write {path}");
        }
    }

    /// docs/permissions.md lists exactly these secrets, caches and devices.
    #[test]
    fn the_documented_lists_are_the_lists() {
        let doc = include_str!("../../docs/permissions.md");
        for secret in SECRETS {
            assert!(doc.contains(&format!("`~/{secret}`")), "{secret}");
        }
        for cache in CACHES {
            assert!(doc.contains(&format!("`~/{}`", cache.default)), "{cache:?}");
            if let Some((var, _)) = cache.env {
                assert!(doc.contains(&format!("`{var}`")), "{var}");
            }
        }
        for device in DEVICES.iter().chain(DEVICE_DIRS) {
            assert!(doc.contains(&format!("`{device}`")), "{device}");
        }
    }

    #[test]
    fn a_missing_tail_is_kept_as_written() {
        let dir = tempfile::tempdir().expect("dir");
        let real_dir = std::fs::canonicalize(dir.path()).expect("real");
        std::os::unix::fs::symlink(&real_dir, real_dir.join("link")).expect("link");
        assert_eq!(
            real(&real_dir.join("link/missing/deeper")),
            real_dir.join("missing/deeper")
        );
    }
}
