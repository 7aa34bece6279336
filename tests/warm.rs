//! The warm listing (the last scan kept in agg's cache, checked with `stat` and brought up to
//! date) against a cold one. A generated repository is edited step by step, from a fixed
//! seed, in every way a repository changes: task files added, removed and edited, rewritten
//! at the same size with their modification time put back, rewritten twice within one clock
//! tick; included files and parent manifests edited; lockfiles appearing and going; ignore
//! files created, edited and removed; directories created, removed, renamed and swapped;
//! execute bits; symlinks; times set forward and back; files force-added to git's index under
//! an ignore rule; the cache itself (the scan's record, its flat checks, the named table)
//! truncated, corrupted, put back as an earlier step left it, or left by another repository
//! at the same path. After every step `agg list --json` is compared with `agg list --json
//! --no-cache`, byte for byte, from one agg and from two listing at once.

use std::fmt::Write as _;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use tempfile::TempDir;

/// The settling margin the warm scans use here (see `AGG_TEST_SETTLE_MS`): long enough for
/// Linux's coarse file-time clock, short enough that stamps settle between steps.
const SETTLE_MS: u64 = 150;

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % (n.max(1) as u64)).unwrap_or(0)
    }

    fn pick<T: Clone>(&mut self, items: &[T]) -> Option<T> {
        (!items.is_empty()).then(|| items[self.below(items.len())].clone())
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// The generated repository, its cache directory, and the generator that edits it.
struct Repo {
    _dir: TempDir,
    root: PathBuf,
    cache: TempDir,
    rng: Rng,
    /// Numbers new names, so that every task name is new.
    serial: usize,
    /// Cache damages done so far: they damage in turn the scan cache, the named table and
    /// the checks kept with the scan.
    damages: usize,
    /// A copy of each kind of cache file as an earlier step left it, put back by a later
    /// damage.
    earlier: std::collections::HashMap<&'static str, Vec<u8>>,
}

/// The kinds of task file the steps write.
const KINDS: &[&str] = &[
    "Makefile",
    "justfile",
    "package.json",
    "Taskfile.yml",
    "pyproject.toml",
    "script",
    "mise",
    "vscode",
];

impl Repo {
    /// A generated repository (see [`Repo::generate`]).
    fn new(seed: u64) -> Repo {
        let mut repo = Repo::bare(seed);
        repo.generate();
        repo
    }

    /// An empty git repository.
    fn bare(seed: u64) -> Repo {
        let dir = tempfile::tempdir().expect("repo");
        let root = fs::canonicalize(dir.path()).expect("root");
        git(&root, &["init", "-q"]);
        Repo {
            _dir: dir,
            root,
            cache: tempfile::tempdir().expect("cache"),
            rng: Rng(seed),
            damages: 0,
            serial: 0,
            earlier: std::collections::HashMap::new(),
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// Writes a file, creating directories; an edit in a tree the steps made strange (a
    /// dangling symlink where a directory was) may fail, and is then no edit.
    fn write(&self, rel: &str, text: &str) {
        let path = self.path(rel);
        if let Some(parent) = path.parent() {
            let _ = fs::create_dir_all(parent);
        }
        let _ = fs::write(path, text);
    }

    fn name(&mut self) -> String {
        self.serial += 1;
        format!("t{:03}", self.serial)
    }

    /// Writes an executable file (best effort, as [`Repo::write`]).
    fn executable(&self, rel: &str, text: &str) {
        self.write(rel, text);
        let _ = fs::set_permissions(self.path(rel), fs::Permissions::from_mode(0o755));
    }

    /// A root with a few shared files, then packages of every kind.
    fn generate(&mut self) {
        self.write(".gitignore", "dist/\nignored-*/\n*.log\n");
        self.write("common.mk", "lint: ## Lint everything\n\t@true\n");
        self.write(
            "Makefile",
            "include common.mk\nbuild: ## Build everything\n\t@true\n",
        );
        self.write(
            "package.json",
            r#"{"name": "root", "packageManager": "pnpm@9.0.0", "scripts": {"dev": "vite"}}"#,
        );
        self.write("shared.just", "shared:\n    true\n");
        for i in 0..12 {
            let dir = format!("packages/p{i}");
            let kind = KINDS[i % KINDS.len()];
            self.add(&dir, kind);
            if i % 3 == 0 {
                self.add(&format!("{dir}/nested/deep"), "Makefile");
            }
        }
        self.add("dist", "Makefile");
        self.add("ignored-a", "package.json");
        self.write("packages/p1/.gitignore", "generated/\n");
        self.add("packages/p1/generated", "Makefile");
    }

    /// Writes a task file of `kind` in `dir` (its own name where a kind has several per
    /// directory); returns its path.
    fn add(&mut self, dir: &str, kind: &str) -> String {
        let n = self.name();
        let at = |file: &str| {
            if dir.is_empty() {
                file.to_owned()
            } else {
                format!("{dir}/{file}")
            }
        };
        match kind {
            "Makefile" => {
                let depth = dir.split('/').filter(|p| !p.is_empty()).count();
                let include = if self.rng.chance(50) {
                    format!("include {}common.mk\n", "../".repeat(depth))
                } else {
                    String::new()
                };
                let rel = at("Makefile");
                self.write(&rel, &format!("{include}{n}: ## Task {n}\n\t@echo {n}\n"));
                rel
            }
            "justfile" => {
                let depth = dir.split('/').filter(|p| !p.is_empty()).count();
                let rel = at("justfile");
                self.write(
                    &rel,
                    &format!(
                        "import '{}shared.just'\n\n# Task {n}\n{n}:\n    echo {n}\n",
                        "../".repeat(depth)
                    ),
                );
                rel
            }
            "package.json" => {
                let rel = at("package.json");
                self.write(
                    &rel,
                    &format!(
                        r#"{{"name": "pkg-{n}", "scripts": {{"{n}": "echo {n}", "test": "true"}}}}"#
                    ),
                );
                rel
            }
            "Taskfile.yml" => {
                let rel = at("Taskfile.yml");
                self.write(
                    &rel,
                    &format!(
                        "version: '3'\ntasks:\n  {n}:\n    desc: Task {n}\n    cmds: [echo {n}]\n"
                    ),
                );
                rel
            }
            "pyproject.toml" => {
                let rel = at("pyproject.toml");
                self.write(
                    &rel,
                    &format!(
                        "[project]\nname = \"py-{n}\"\n[tool.poe.tasks]\n{n} = \"echo {n}\"\n"
                    ),
                );
                rel
            }
            "script" => {
                let rel = at(&format!("scripts/{n}.sh"));
                self.executable(&rel, &format!("#!/bin/sh\n# Task {n}\necho {n}\n"));
                rel
            }
            "mise" => {
                self.write(
                    &at("mise.toml"),
                    &format!("[tasks.{n}]\nrun = \"echo {n}\"\n"),
                );
                let rel = at(&format!("mise-tasks/{n}"));
                self.executable(&rel, "#!/bin/sh\n#MISE description=\"a file task\"\necho\n");
                rel
            }
            _ => {
                let rel = at(".vscode/tasks.json");
                self.write(
                    &rel,
                    &format!(r#"{{"version": "2.0.0", "tasks": [{{"label": "{n}", "type": "shell", "command": "echo {n}"}}]}}"#),
                );
                rel
            }
        }
    }

    /// Every file under the root (not in `.git`), root-relative.
    fn files(&self) -> Vec<String> {
        self.entries(false)
    }

    /// Every directory under the root (not `.git`), root-relative.
    fn dirs(&self) -> Vec<String> {
        self.entries(true)
    }

    fn entries(&self, dirs: bool) -> Vec<String> {
        let mut found = Vec::new();
        let mut stack = vec![self.root.clone()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if entry.file_name() == ".git" {
                    continue;
                }
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let rel = path
                    .strip_prefix(&self.root)
                    .expect("under the root")
                    .to_string_lossy()
                    .into_owned();
                if kind.is_dir() {
                    stack.push(path);
                    if dirs {
                        found.push(rel);
                    }
                } else if !dirs {
                    found.push(rel);
                }
            }
        }
        found.sort();
        found
    }

    /// One random edit; says what it did.
    fn edit(&mut self) -> String {
        let files = self.files();
        let dirs = self.dirs();
        let file = self.rng.pick(&files).unwrap_or_default();
        let dir = self.rng.pick(&dirs).unwrap_or_default();
        match self.rng.below(23) {
            0 | 1 => {
                let kind = self.rng.pick(KINDS).unwrap_or("Makefile");
                let rel = self.add(&dir, kind);
                format!("added {rel}")
            }
            2 => {
                let _ = fs::remove_file(self.path(&file));
                format!("removed {file}")
            }
            3 | 4 => {
                let n = self.name();
                let json = Path::new(&file).extension().is_some_and(|e| e == "json");
                let extra = if json {
                    String::new()
                } else {
                    format!("\n{n}: ## Added {n}\n\t@true\n")
                };
                let mut text = fs::read_to_string(self.path(&file)).unwrap_or_default();
                if extra.is_empty() {
                    text = text.replacen("\"test\"", &format!("\"{n}\""), 1);
                } else {
                    text.push_str(&extra);
                }
                let _ = fs::write(self.path(&file), text);
                format!("edited {file}")
            }
            5 | 6 => self.same_size_rewrite(&file),
            7 => {
                let n = self.name();
                self.write(
                    "common.mk",
                    &format!("lint: ## Lint\n\t@true\n{n}: ## Shared {n}\n\t@true\n"),
                );
                self.write("shared.just", &format!("{n}:\n    true\n"));
                "edited the included common.mk and shared.just".to_owned()
            }
            8 => {
                let manager = self
                    .rng
                    .pick(&["npm@10.0.0", "yarn@4.0.0", "pnpm@9.0.0"])
                    .unwrap_or_default();
                self.write(
                    "package.json",
                    &format!(r#"{{"name": "root", "packageManager": "{manager}", "scripts": {{"dev": "vite"}}}}"#),
                );
                format!("root package.json now says {manager}")
            }
            9 => {
                let lock = self
                    .rng
                    .pick(&[
                        "pnpm-lock.yaml",
                        "yarn.lock",
                        "bun.lock",
                        "package-lock.json",
                        "poetry.lock",
                    ])
                    .unwrap_or_default();
                let rel = if dir.is_empty() {
                    lock.to_owned()
                } else {
                    format!("{dir}/{lock}")
                };
                if self.path(&rel).exists() {
                    let _ = fs::remove_file(self.path(&rel));
                    format!("removed {rel}")
                } else {
                    self.write(&rel, "");
                    format!("added {rel}")
                }
            }
            10 | 11 => self.ignore_edit(&dir),
            12 => {
                let n = self.name();
                let base = if dir.is_empty() {
                    n.clone()
                } else {
                    format!("{dir}/{n}")
                };
                for kind in ["Makefile", "package.json", "script"] {
                    let sub = format!("{base}/{kind}-dir");
                    self.add(&sub, kind);
                }
                format!("created {base} with task files")
            }
            13 => {
                if dir.is_empty() || dir.starts_with(".git") {
                    return "nothing (no directory to remove)".to_owned();
                }
                let _ = fs::remove_dir_all(self.path(&dir));
                format!("removed {dir} and everything in it")
            }
            14 => self.rename(&dirs),
            15 => {
                let path = self.path(&file);
                let Ok(meta) = fs::symlink_metadata(&path) else {
                    return "nothing (no file)".to_owned();
                };
                let mode = meta.permissions().mode() ^ 0o111;
                let _ = fs::set_permissions(&path, fs::Permissions::from_mode(mode));
                format!("toggled the execute bits of {file}")
            }
            16 => self.symlink(&files, &dirs),
            17 => {
                let when = match self.rng.below(3) {
                    0 => SystemTime::now() + Duration::from_secs(3600 * 24 * 365),
                    1 => SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000),
                    _ => SystemTime::now(),
                };
                let target = if self.rng.chance(50) { &file } else { &dir };
                let set = fs::File::open(self.path(target)).and_then(|f| f.set_modified(when));
                format!(
                    "set the modification time of {target} ({})",
                    if set.is_ok() { "done" } else { "failed" }
                )
            }
            18 => {
                let target = self
                    .rng
                    .pick(&[
                        "dist/Makefile",
                        "ignored-a/package.json",
                        "packages/p1/generated/Makefile",
                    ])
                    .unwrap_or_default();
                if !self.path(target).exists() {
                    self.write(target, "forced: ## Tracked under an ignore rule\n\t@true\n");
                }
                git(&self.root, &["add", "-f", target]);
                format!("git add -f {target}")
            }
            19 => {
                git(&self.root, &["add", "-A"]);
                git(
                    &self.root,
                    &[
                        "-c",
                        "user.name=t",
                        "-c",
                        "user.email=t@example.org",
                        "commit",
                        "-q",
                        "--allow-empty",
                        "-m",
                        "step",
                    ],
                );
                "git add -A and commit".to_owned()
            }
            20 => self.damage_cache(),
            21 if !dir.is_empty() => {
                // A new entry, and the directory's modification time put back: only its
                // change time tells.
                let meta = fs::metadata(self.path(&dir));
                let rel = self.add(&dir, "Makefile");
                let put_back = meta
                    .and_then(|m| m.modified())
                    .and_then(|m| fs::File::open(self.path(&dir)).and_then(|f| f.set_modified(m)));
                format!("wrote {rel}, the directory's modification time put back: {put_back:?}")
            }
            _ => {
                let n = self.name();
                let rel = if dir.is_empty() {
                    format!("{n}.txt")
                } else {
                    format!("{dir}/{n}.txt")
                };
                self.write(&rel, "not a task file\n");
                format!("added the unrelated {rel}")
            }
        }
    }

    /// Replaces one target's name by another of the same length and puts the modification
    /// time back, as a checkout or `cp -p` does: only the change time tells.
    fn same_size_rewrite(&mut self, file: &str) -> String {
        let path = self.path(file);
        let (Ok(text), Ok(meta)) = (fs::read_to_string(&path), fs::metadata(&path)) else {
            return "nothing (no text file)".to_owned();
        };
        let Some(at) = text
            .find('t')
            .filter(|&i| text[i..].len() > 4 && text.is_char_boundary(i + 4))
        else {
            return format!("nothing ({file} has no name to change)");
        };
        let n = self.name();
        let mut new = text.clone();
        new.replace_range(at..at + 4, &n[..4]);
        let _ = fs::write(&path, &new);
        let put_back = meta.modified().and_then(|m| {
            fs::File::options()
                .append(true)
                .open(&path)
                .and_then(|f| f.set_modified(m))
        });
        assert_eq!(new.len(), text.len());
        format!("rewrote {file} at the same size, modification time put back: {put_back:?}")
    }

    fn ignore_edit(&mut self, dir: &str) -> String {
        let rel = if dir.is_empty() {
            ".gitignore".to_owned()
        } else {
            format!("{dir}/.gitignore")
        };
        let pattern = self
            .rng
            .pick(&[
                "nested/",
                "scripts/",
                "Makefile",
                "*.json",
                "mise-tasks/",
                "!Makefile",
                "deep",
            ])
            .unwrap_or_default();
        match self.rng.below(3) {
            0 if self.path(&rel).exists() => {
                let _ = fs::remove_file(self.path(&rel));
                format!("removed {rel}")
            }
            _ => {
                let mut text = fs::read_to_string(self.path(&rel)).unwrap_or_default();
                let _ = writeln!(text, "{pattern}");
                self.write(&rel, &text);
                format!("added `{pattern}` to {rel}")
            }
        }
    }

    fn rename(&mut self, dirs: &[String]) -> String {
        let movable: Vec<String> = dirs.iter().filter(|d| !d.is_empty()).cloned().collect();
        let (Some(a), Some(b)) = (self.rng.pick(&movable), self.rng.pick(&movable)) else {
            return "nothing (no directories)".to_owned();
        };
        if a == b || b.starts_with(&format!("{a}/")) || a.starts_with(&format!("{b}/")) {
            let n = self.name();
            let to = format!("{}/{n}", parent_of(&a));
            let _ = fs::rename(self.path(&a), self.path(to.trim_start_matches("./")));
            return format!("renamed {a} to {to}");
        }
        let swap = format!("{}.swap", self.name());
        let swap = self.path(&swap);
        let _ = fs::rename(self.path(&a), &swap);
        let _ = fs::rename(self.path(&b), self.path(&a));
        let _ = fs::rename(&swap, self.path(&b));
        format!("swapped {a} and {b}")
    }

    fn symlink(&mut self, files: &[String], dirs: &[String]) -> String {
        let n = self.name();
        if self.rng.chance(50) {
            let Some(target) = self.rng.pick(files) else {
                return "nothing".to_owned();
            };
            let dir = self.rng.pick(dirs).unwrap_or_default();
            let link = if dir.is_empty() {
                "Makefile".to_owned()
            } else {
                format!("{dir}/Makefile")
            };
            let _ = fs::remove_file(self.path(&link));
            let _ = std::os::unix::fs::symlink(self.path(&target), self.path(&link));
            format!("{link} is now a symlink to {target}")
        } else {
            let Some(target) = self.rng.pick(dirs) else {
                return "nothing".to_owned();
            };
            let link = format!("linked-{n}");
            let _ = std::os::unix::fs::symlink(self.path(&target), self.path(&link));
            format!("{link} is a symlink to the directory {target}")
        }
    }

    fn cache_files(&self) -> Vec<PathBuf> {
        self.files_of("scan-cache")
    }

    fn files_of(&self, kind: &str) -> Vec<PathBuf> {
        fs::read_dir(self.cache.path().join("agg").join(kind))
            .map(|d| {
                d.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "bin"))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn damage_cache(&mut self) -> String {
        self.damages += 1;
        let kind = ["scan-cache", "table-cache", "scan-checks"][self.damages % 3];
        let Some(file) = self.files_of(kind).into_iter().next() else {
            return format!("nothing (no {kind} yet)");
        };
        let mut bytes = fs::read(&file).expect("cache");
        let earlier = self.earlier.insert(kind, bytes.clone());
        match self.rng.below(5) {
            4 => {
                let Some(earlier) = earlier else {
                    return format!("nothing (no earlier {kind} kept)");
                };
                fs::write(&file, earlier).expect("write");
                format!("put back the {kind} of an earlier step")
            }
            0 => {
                bytes.truncate(bytes.len() / 2);
                fs::write(&file, bytes).expect("write");
                format!("truncated the {kind}")
            }
            1 => {
                let at = self.rng.below(bytes.len());
                bytes[at] ^= 0x5a;
                fs::write(&file, bytes).expect("write");
                format!("flipped a byte of the {kind} at {at}")
            }
            2 => {
                fs::write(&file, b"not a cache at all").expect("write");
                format!("replaced the {kind} with garbage")
            }
            _ => {
                fs::write(&file, []).expect("write");
                format!("emptied the {kind}")
            }
        }
    }

    fn agg(&self, cold: bool) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agg"));
        cmd.args(["list", "--json"])
            .current_dir(&self.root)
            .env("XDG_STATE_HOME", self.cache.path())
            .env("AGG_TEST_SETTLE_MS", SETTLE_MS.to_string())
            .env("NO_COLOR", "1")
            .env_remove("AGG_NO_CACHE")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if cold {
            cmd.arg("--no-cache");
        }
        cmd
    }

    /// `agg list --json`, from the cache (`cold`: without it), as printed.
    fn listing(&self, cold: bool) -> String {
        let out = self.agg(cold).output().expect("run agg");
        assert!(
            out.status.success(),
            "agg failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("UTF-8")
    }

    /// `agg graph --json`, from the cache (`cold`: without it): the manifests the workspace
    /// graph reads are kept in the cache too.
    fn graph(&self, cold: bool) -> String {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agg"));
        cmd.args(["graph", "--json"])
            .current_dir(&self.root)
            .env("XDG_STATE_HOME", self.cache.path())
            .env("AGG_TEST_SETTLE_MS", SETTLE_MS.to_string())
            .env_remove("AGG_NO_CACHE")
            .stdin(Stdio::null());
        if cold {
            cmd.env("AGG_NO_CACHE", "1");
        }
        let out = cmd.output().expect("run agg graph");
        assert!(
            out.status.success(),
            "agg graph failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("UTF-8")
    }

    /// `processes` warm listings at once.
    fn warm_listings(&self, processes: usize) -> Vec<String> {
        let children: Vec<_> = (0..processes)
            .map(|_| self.agg(false).spawn().expect("spawn agg"))
            .collect();
        children
            .into_iter()
            .map(|child| {
                let out = child.wait_with_output().expect("agg");
                assert!(
                    out.status.success(),
                    "agg failed: {}",
                    String::from_utf8_lossy(&out.stderr)
                );
                String::from_utf8(out.stdout).expect("UTF-8")
            })
            .collect()
    }

    /// Replaces the whole repository by another one at the same path.
    fn replace(&mut self) {
        for entry in fs::read_dir(&self.root).expect("root").flatten() {
            let path = entry.path();
            if path.is_dir() && !path.is_symlink() {
                fs::remove_dir_all(&path).expect("rm");
            } else {
                fs::remove_file(&path).expect("rm");
            }
        }
        git(&self.root, &["init", "-q"]);
        self.generate();
    }
}

fn parent_of(rel: &str) -> &str {
    rel.rsplit_once('/').map_or(".", |(p, _)| p)
}

/// Runs git (the test's own tool) with no user or system configuration.
fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Where two listings first differ, for the failure message.
fn difference(warm: &str, cold: &str) -> String {
    let at = warm
        .bytes()
        .zip(cold.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or(warm.len().min(cold.len()));
    let from = at.saturating_sub(300);
    let show = |s: &str| {
        s.get(from..(at + 300).min(s.len()))
            .unwrap_or("")
            .to_owned()
    };
    format!("warm: …{}…\ncold: …{}…", show(warm), show(cold))
}

/// Edits the repository `steps` times from `seed`, listing after each edit with `processes`
/// agg processes at once, each warm listing compared with a cold one.
fn warm_matches_cold(seed: u64, steps: usize, processes: usize) {
    let mut repo = Repo::new(seed);
    let mut history = Vec::new();
    for step in 0..steps {
        let what = if step > 0 && step % 97 == 0 {
            repo.replace();
            "replaced the repository by another at the same path".to_owned()
        } else {
            repo.edit()
        };
        history.push(what);
        // Now and then a pause, so that stamps settle and are trusted.
        if step % 7 == 0 {
            std::thread::sleep(Duration::from_millis(SETTLE_MS + 50));
        }
        let warm = repo.warm_listings(processes);
        let cold = repo.listing(true);
        for listing in &warm {
            assert!(
                *listing == cold,
                "step {step} (seed {seed:#x}): the warm listing differs from the cold one\n{}\nsteps:\n{}",
                difference(listing, &cold),
                history.join("\n")
            );
        }
        if step % 5 == 0 {
            let (warm, cold) = (repo.graph(false), repo.graph(true));
            assert!(
                warm == cold,
                "step {step} (seed {seed:#x}): the warm graph differs from the cold one\n{}\nsteps:\n{}",
                difference(&warm, &cold),
                history.join("\n")
            );
        }
        // A rewrite within the same clock tick as the scan just cached: the same size, the
        // same times; only the scan's start time tells it was not settled.
        if step % 11 == 5 {
            let files = repo.files();
            if let Some(file) = repo.rng.pick(&files) {
                history.push(repo.same_size_rewrite(&file));
                let warm = repo.listing(false);
                let cold = repo.listing(true);
                assert!(
                    warm == cold,
                    "step {step} (seed {seed:#x}), an immediate same-size rewrite of {file}\n{}\nsteps:\n{}",
                    difference(&warm, &cold),
                    history.join("\n")
                );
            }
        }
    }
    assert!(
        !repo.cache_files().is_empty(),
        "the warm listings wrote no cache"
    );
}

#[test]
fn warm_listings_match_cold_ones_through_hundreds_of_edits() {
    require!("git");
    warm_matches_cold(0x5eed_0040, 300, 1);
}

#[test]
fn two_processes_listing_at_once_both_match_the_cold_listing() {
    require!("git");
    warm_matches_cold(0x5eed_0041, 150, 2);
}

/// A listing by another build of agg (another executable) ignores the cache the first one
/// wrote, and writes its own.
#[test]
fn a_cache_of_another_build_is_ignored() {
    require!("git");
    let repo = Repo::new(7);
    let first = repo.listing(false);
    let [cache] = &repo.cache_files()[..] else {
        panic!("one cache file expected");
    };
    let written = fs::read(cache).expect("cache");
    let other = tempfile::tempdir().expect("dir");
    let copy = other.path().join("agg");
    fs::copy(env!("CARGO_BIN_EXE_agg"), &copy).expect("copy agg");
    let out = Command::new(&copy)
        .args(["list", "--json"])
        .current_dir(&repo.root)
        .env("XDG_STATE_HOME", repo.cache.path())
        .env("AGG_LOG", "agg=debug")
        .output()
        .expect("run the copy");
    assert_eq!(String::from_utf8_lossy(&out.stdout), first);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("scan cache: none usable"), "{stderr}");
    assert_ne!(
        fs::read(cache).expect("cache"),
        written,
        "the copy kept the first build's cache"
    );
}

/// With nothing changed, a listing checks every directory and every parse (their flat
/// stamps, without decoding the walk's records), reads the named table kept with them
/// instead of decoding the parses and naming the tasks, and writes nothing.
#[test]
fn an_unchanged_repository_is_answered_from_the_cache_alone() {
    require!("git");
    let repo = Repo::new(9);
    let cold = repo.listing(true);
    assert_eq!(repo.listing(false), cold);
    std::thread::sleep(Duration::from_millis(SETTLE_MS + 50));
    // Once more, so that every stamp was taken well before the cache's scan began.
    assert_eq!(repo.listing(false), cold);
    let [cache] = &repo.cache_files()[..] else {
        panic!("one cache file expected");
    };
    let [named] = &repo.files_of("table-cache")[..] else {
        panic!("one named table expected");
    };
    let before = fs::read(cache).expect("cache");
    let named_before = fs::read(named).expect("named table");
    let out = repo
        .agg(false)
        .env("AGG_LOG", "agg=debug")
        .output()
        .expect("agg");
    assert_eq!(String::from_utf8_lossy(&out.stdout), cold);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Answered by the flat checks alone: the scan's record not even read.
    assert!(stderr.contains("every check held ("), "{stderr}");
    assert!(stderr.contains("; nothing changed"), "{stderr}");
    assert!(!stderr.contains("bytes read in"), "{stderr}");
    assert!(stderr.contains("named table: "), "{stderr}");
    assert!(!stderr.contains("of another scan"), "{stderr}");
    assert!(!stderr.contains("parsed again"), "{stderr}");
    assert_eq!(
        fs::read(cache).expect("cache"),
        before,
        "rewritten though nothing changed"
    );
    assert_eq!(
        fs::read(named).expect("named table"),
        named_before,
        "named table rewritten though nothing changed"
    );
}

/// A cache directory that is a symlink, or that others may write, is neither read nor written
/// through: whoever planted it cannot feed agg a listing.
#[test]
fn a_cache_directory_others_control_is_not_used() {
    require!("git");
    let repo = Repo::new(11);
    let cold = repo.listing(true);
    // A cache written by this very agg, then moved where another user could reach it.
    assert_eq!(repo.listing(false), cold);
    let own = repo.cache.path().join("agg/scan-cache");
    let elsewhere = tempfile::tempdir().expect("dir");
    let planted = elsewhere.path().join("scan-cache");
    fs::rename(&own, &planted).expect("move the cache away");
    std::os::unix::fs::symlink(&planted, &own).expect("symlink");
    let before: Vec<Vec<u8>> = fs::read_dir(&planted)
        .expect("planted")
        .flatten()
        .map(|e| fs::read(e.path()).expect("read"))
        .collect();
    let out = repo
        .agg(false)
        .env("AGG_LOG", "agg=debug")
        .output()
        .expect("agg");
    assert_eq!(String::from_utf8_lossy(&out.stdout), cold);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("scan cache: none usable"), "{stderr}");
    let after: Vec<Vec<u8>> = fs::read_dir(&planted)
        .expect("planted")
        .flatten()
        .map(|e| fs::read(e.path()).expect("read"))
        .collect();
    assert_eq!(before, after, "written through the symlink");
    // A cache file others may write is not read, and a directory of agg's own left wider is
    // narrowed back to 0700 before anything is kept in it again.
    fs::remove_file(&own).expect("rm symlink");
    fs::rename(&planted, &own).expect("move back");
    fs::set_permissions(&own, fs::Permissions::from_mode(0o777)).expect("chmod");
    for entry in fs::read_dir(&own).expect("cache dir").flatten() {
        fs::set_permissions(entry.path(), fs::Permissions::from_mode(0o666)).expect("chmod");
    }
    let out = repo
        .agg(false)
        .env("AGG_LOG", "agg=debug")
        .output()
        .expect("agg");
    assert_eq!(String::from_utf8_lossy(&out.stdout), cold);
    assert!(String::from_utf8_lossy(&out.stderr).contains("scan cache: none usable"));
    let mode = fs::metadata(&own).expect("cache dir").permissions().mode() & 0o777;
    assert_eq!(mode, 0o700, "the cache directory is agg's own again");
}

/// What no stamp of the cache vouches for is asked again every time, even when every
/// directory and file the scan entered is unchanged: here a mise configuration appearing in
/// a directory the walk does not enter (`.config/` is ignored, yet mise reads it), which
/// changes the stamp of no directory the cache keeps.
#[test]
fn a_file_appearing_where_the_walk_does_not_go_is_still_seen() {
    require!("git");
    let repo = Repo::new(13);
    repo.write(".gitignore", "dist/\nignored-*/\n*.log\n.config/\n");
    repo.write("mise.toml", "[tasks.hi]\nrun = \"echo hi\"\n");
    fs::create_dir_all(repo.path(".config/other")).expect("mkdir");
    // Twice, with a pause, so that the second listing's stamps are settled and trusted.
    let _ = repo.listing(false);
    std::thread::sleep(Duration::from_millis(SETTLE_MS + 50));
    let _ = repo.listing(false);
    std::thread::sleep(Duration::from_millis(SETTLE_MS + 50));
    let out = repo
        .agg(false)
        .env("AGG_LOG", "agg=debug")
        .output()
        .expect("agg");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("every check held ("), "{stderr}");
    repo.write(
        ".config/mise/config.toml",
        "[tasks.lint]\nrun = \"echo lint\"\n",
    );
    let (warm, cold) = (repo.listing(false), repo.listing(true));
    assert!(cold.contains("\"lint\""), "{cold}");
    assert!(warm == cold, "{}", difference(&warm, &cold));
}

/// A whole walk answers whether a lockfile is there for the directories it entered (the
/// package-manager lookups of thousands of packages cost no `stat`); what it cannot vouch
/// for, a lockfile that is a symlink, a FIFO or a directory, is asked of the file system, so
/// every listing, cold and warm, reads as it did when each was asked.
#[test]
fn lockfiles_the_walk_saw_and_those_it_cannot_vouch_for() {
    require!("git");
    let repo = Repo::bare(15);
    repo.write(
        "package.json",
        r#"{"name": "root", "scripts": {"r": "true"}}"#,
    );
    for package in ["linked", "fifo", "directory", "npm", "pnpm", "none"] {
        repo.write(
            &format!("{package}/package.json"),
            &format!(r#"{{"name": "{package}", "scripts": {{"t": "true"}}}}"#),
        );
    }
    repo.write("yarn.real", "");
    std::os::unix::fs::symlink("../yarn.real", repo.path("linked/yarn.lock")).expect("symlink");
    nix::unistd::mkfifo(
        &repo.path("fifo/pnpm-lock.yaml"),
        nix::sys::stat::Mode::from_bits_truncate(0o644),
    )
    .expect("mkfifo");
    fs::create_dir(repo.path("directory/bun.lock")).expect("mkdir");
    repo.write("npm/package-lock.json", "{}");
    repo.write("pnpm/pnpm-lock.yaml", "lockfileVersion: '9.0'\n");
    let cold = repo.listing(true);
    let table: serde_json::Value = serde_json::from_str(&cold).expect("JSON");
    let runner_of = |name: &str| {
        table["tasks"]
            .as_array()
            .expect("tasks")
            .iter()
            .find(|t| t["unique_name"] == name)
            .map(|t| t["runner"].as_str().unwrap_or_default().to_owned())
    };
    for (task, runner) in [
        ("linked/t", "yarn"),
        ("fifo/t", "npm"),
        ("directory/t", "npm"),
        ("npm/t", "npm"),
        ("pnpm/t", "pnpm"),
        ("none/t", "npm"),
    ] {
        assert_eq!(runner_of(task).as_deref(), Some(runner), "{task}: {cold}");
    }
    // Warm, written then read back after its stamps settle: the same listing.
    assert_eq!(repo.listing(false), cold);
    std::thread::sleep(Duration::from_millis(SETTLE_MS + 50));
    assert_eq!(repo.listing(false), cold);
    assert_eq!(repo.listing(false), cold);
}
