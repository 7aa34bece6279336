//! The JUnit XML reports a run wrote, found where its command or its runner's configuration
//! names them, never by searching the tree: `pytest --junitxml=PATH` (on the command line or
//! in `addopts` of pytest.ini, pyproject.toml, setup.cfg or tox.ini), jest-junit (in the
//! command or package.json, at `JEST_JUNIT_OUTPUT_DIR`/`JEST_JUNIT_OUTPUT_NAME` or its
//! `outputDirectory`/`outputName`, else `junit.xml`), Vitest's `--outputFile` with its junit
//! reporter, `node --test-reporter=junit --test-reporter-destination=PATH`, Maven's
//! `target/surefire-reports` and `target/failsafe-reports`, and Gradle's
//! `build/test-results/*` (in the run's directory and its modules one and two levels down).
//!
//! Only a report written since the run started counts. Each is read the way agg reads
//! anything it did not write: inside the repository (a symlink out of it is refused),
//! opened without blocking (a FIFO answers at once and is refused), a regular file of at
//! most [`MAX_REPORT_BYTES`], at most [`MAX_REPORTS`] of them.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::junit::{self, Naming};
use super::{Places, Scope, Tests};

/// Bytes one report may have.
pub const MAX_REPORT_BYTES: u64 = 8 * 1024 * 1024;
/// Reports one run reads at most.
pub const MAX_REPORTS: usize = 200;
/// Entries of one report directory looked at.
const MAX_DIR_ENTRIES: usize = 1_000;
/// Bytes of a runner's configuration file read to find a report's path.
const MAX_CONFIG_BYTES: u64 = 1024 * 1024;

/// The tests one runner's reports hold.
#[derive(Debug)]
pub struct Report {
    /// The runner whose output the report replaces, if agg reads that output too.
    pub runner: Option<&'static str>,
    /// Its tests.
    pub tests: Tests,
}

/// Where to look, and how names are written there.
struct Wanted {
    runner: Option<&'static str>,
    naming: Naming,
    /// Files, or directories of `TEST-*.xml` files.
    files: Vec<PathBuf>,
    dirs: Vec<PathBuf>,
}

/// Every report the run wrote, one per runner.
pub fn read(scope: &Scope, places: &Places) -> Vec<Report> {
    let mut out = Vec::new();
    let mut budget = MAX_REPORTS;
    for wanted in wanted(scope) {
        let mut files = wanted.files.clone();
        for dir in &wanted.dirs {
            files.extend(report_files(dir));
        }
        let mut tests: Option<Tests> = None;
        for file in files {
            if budget == 0 {
                break;
            }
            let Some(text) = read_report(&file, scope) else {
                continue;
            };
            budget -= 1;
            let module = module_of(&file);
            match junit::parse(&text, wanted.naming, &module, places) {
                Ok(t) => {
                    let acc = tests.get_or_insert_with(|| Tests {
                        passed: Some(0),
                        ..Tests::default()
                    });
                    acc.passed = Some(acc.passed.unwrap_or(0) + t.passed.unwrap_or(0));
                    acc.failed += t.failed;
                    acc.skipped += t.skipped;
                    for f in t.failures {
                        super::Out::failure(acc, f);
                    }
                }
                Err(why) => tracing::debug!("{}: not read as JUnit XML: {why}", file.display()),
            }
        }
        if let Some(tests) = tests {
            out.push(Report {
                runner: wanted.runner,
                tests,
            });
        }
    }
    out
}

impl Wanted {
    /// One report file of `runner`, named as that runner names tests.
    fn file(runner: &'static str, naming: Naming, file: PathBuf) -> Wanted {
        Wanted {
            runner: Some(runner),
            naming,
            files: vec![file],
            dirs: vec![],
        }
    }

    /// The `TEST-*.xml` files in `dirs`, named as Java names tests.
    fn java(dirs: Vec<PathBuf>) -> Wanted {
        Wanted {
            runner: None,
            naming: Naming::Java,
            files: vec![],
            dirs,
        }
    }
}

/// Where the command and configuration say reports go, runner by runner.
fn wanted(scope: &Scope) -> Vec<Wanted> {
    let words = words(&scope.command);
    let cwd = &scope.cwd;
    let mut out = Vec::new();
    let has = |w: &str| {
        words
            .iter()
            .any(|x| x == w || x.ends_with(&format!("/{w}")))
    };
    if let Some(p) = pytest_report(&words, cwd) {
        out.push(Wanted::file("pytest", Naming::Pytest, cwd.join(p)));
    }
    if let Some(p) = jest_junit_report(scope) {
        out.push(Wanted::file("jest", Naming::Plain, cwd.join(p)));
    }
    // Vitest: `--reporter=junit --outputFile=PATH` or `--outputFile.junit=PATH`.
    if let Some(p) = flag_value(&words, "--outputFile.junit").or_else(|| {
        (has("vitest")
            && words
                .iter()
                .any(|w| w == "--reporter=junit" || w == "junit"))
        .then(|| flag_value(&words, "--outputFile"))
        .flatten()
    }) {
        out.push(Wanted::file("vitest", Naming::Plain, cwd.join(p)));
    }
    // node --test: each --test-reporter pairs with the --test-reporter-destination at its rank.
    let reporters: Vec<String> = all_values(&words, "--test-reporter");
    let destinations: Vec<String> = all_values(&words, "--test-reporter-destination");
    for (r, d) in reporters.iter().zip(&destinations) {
        if r == "junit" && d != "stdout" && d != "stderr" {
            out.push(Wanted::file("node", Naming::Plain, cwd.join(d)));
        }
    }
    // Maven and Gradle: their report directories, here and in modules below.
    if has("mvn") || has("mvnw") {
        let dirs = modules(cwd)
            .into_iter()
            .flat_map(|m| {
                [
                    m.join("target/surefire-reports"),
                    m.join("target/failsafe-reports"),
                ]
            })
            .collect();
        out.push(Wanted::java(dirs));
    }
    if has("gradle") || has("gradlew") {
        let dirs = modules(cwd)
            .into_iter()
            .flat_map(|m| subdirs(&m.join("build/test-results")))
            .collect();
        out.push(Wanted::java(dirs));
    }
    out
}

/// pytest's `--junitxml` (or `--junit-xml`): on the command line, else in `addopts` of its
/// configuration files in the run's directory.
fn pytest_report(words: &[String], cwd: &Path) -> Option<String> {
    flag_value(words, "--junitxml")
        .or_else(|| flag_value(words, "--junit-xml"))
        .or_else(|| {
            ["pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini"]
                .iter()
                .find_map(|f| {
                    let text = config(&cwd.join(f))?;
                    let w = self::words(&text);
                    flag_value(&w, "--junitxml").or_else(|| flag_value(&w, "--junit-xml"))
                })
        })
}

/// Where jest-junit writes, when the command or package.json names it: its environment
/// variables (the run's, then agg's), else its package.json settings, else `./junit.xml`.
fn jest_junit_report(scope: &Scope) -> Option<String> {
    let package = config(&scope.cwd.join("package.json"));
    let jest_junit = scope.command.contains("jest-junit")
        || package
            .as_deref()
            .is_some_and(|p| p.contains("\"jest-junit\""));
    if !jest_junit {
        return None;
    }
    let env = |k: &str| {
        scope
            .env
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var(k).ok())
    };
    let conf: Option<serde_json::Value> = package
        .as_deref()
        .and_then(|p| serde_json::from_str::<serde_json::Value>(p).ok())
        .and_then(|v| v.get("jest-junit").cloned());
    let conf_str = |k: &str| {
        conf.as_ref()
            .and_then(|c| c.get(k))
            .and_then(|v| v.as_str())
            .map(str::to_owned)
    };
    let file = env("JEST_JUNIT_OUTPUT_FILE")
        .or_else(|| conf_str("outputFile"))
        .unwrap_or_else(|| {
            let dir = env("JEST_JUNIT_OUTPUT_DIR")
                .or_else(|| conf_str("outputDirectory"))
                .unwrap_or_else(|| ".".into());
            let name = env("JEST_JUNIT_OUTPUT_NAME")
                .or_else(|| conf_str("outputName"))
                .unwrap_or_else(|| "junit.xml".into());
            format!("{dir}/{name}")
        });
    Some(file)
}

/// The command's words, quotes removed (shlex, else split on whitespace).
fn words(text: &str) -> Vec<String> {
    text.lines().flat_map(shlex_split).take(10_000).collect()
}

fn shlex_split(line: &str) -> Vec<String> {
    shlex::split(line).unwrap_or_else(|| line.split_whitespace().map(str::to_owned).collect())
}

/// The value of `--flag=VALUE` or `--flag VALUE` (the first).
fn flag_value(words: &[String], flag: &str) -> Option<String> {
    all_values(words, flag).into_iter().next()
}

fn all_values(words: &[String], flag: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate() {
        if let Some(v) = w.strip_prefix(flag).and_then(|r| r.strip_prefix('=')) {
            out.push(v.trim_matches(['"', '\'', ',']).to_owned());
        } else if w == flag
            && let Some(v) = words.get(i + 1)
        {
            out.push(v.trim_matches(['"', '\'', ',']).to_owned());
        }
    }
    out
}

/// The run's directory and the directories one and two levels below it (a multi-module
/// build's modules), bounded.
fn modules(cwd: &Path) -> Vec<PathBuf> {
    let mut out = vec![cwd.to_path_buf()];
    for child in subdirs(cwd) {
        out.extend(subdirs(&child));
        out.push(child);
    }
    out.truncate(MAX_DIR_ENTRIES);
    out
}

/// The directories in `dir` (symlinks not followed; hidden ones, `node_modules` and build
/// outputs skipped), at most [`MAX_DIR_ENTRIES`].
fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .take(MAX_DIR_ENTRIES)
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| {
            let n = e.file_name();
            let n = n.to_string_lossy();
            !n.starts_with('.')
                && n != "node_modules"
                && n != "target"
                && n != "build"
                && n != "src"
        })
        .map(|e| e.path())
        .collect()
}

/// The `TEST-*.xml` files of a report directory.
fn report_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .take(MAX_DIR_ENTRIES)
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("TEST-") && super::text::has_ext(n, &["xml"]))
        })
        .collect();
    files.sort();
    files
}

/// A module's directory from one of its report files: the directory above `target/…` or
/// `build/test-results/…`.
fn module_of(file: &Path) -> PathBuf {
    file.ancestors()
        .find(|a| a.file_name().is_some_and(|n| n == "target" || n == "build"))
        .and_then(Path::parent)
        .or_else(|| file.parent())
        .unwrap_or(file)
        .to_path_buf()
}

/// A runner's configuration file, bounded, when present.
fn config(path: &Path) -> Option<String> {
    let bytes = crate::repo_files::read_regular_if_present(path, MAX_CONFIG_BYTES).ok()??;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// A report's text: inside the repository, regular, bounded, written since the run started.
fn read_report(path: &Path, scope: &Scope) -> Option<String> {
    let canonical = std::fs::canonicalize(path).ok()?;
    let root = std::fs::canonicalize(&scope.root).unwrap_or_else(|_| scope.root.clone());
    if !canonical.starts_with(&root) {
        tracing::debug!(
            "{}: a report outside the repository is not read",
            path.display()
        );
        return None;
    }
    let meta = std::fs::metadata(&canonical).ok()?;
    let since = scope
        .started
        .checked_sub(Duration::from_secs(2))
        .unwrap_or(SystemTime::UNIX_EPOCH);
    if !meta.is_file() || meta.modified().ok()? < since {
        return None;
    }
    match crate::repo_files::read_regular(&canonical, MAX_REPORT_BYTES) {
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Err(why) => {
            tracing::debug!("{}: report not read: {why}", path.display());
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(root: &Path, command: &str) -> Scope {
        Scope {
            root: root.to_path_buf(),
            cwd: root.to_path_buf(),
            command: command.to_owned(),
            env: Vec::new(),
            started: SystemTime::now() - Duration::from_secs(1),
        }
    }

    const REPORT: &str = r#"<testsuite><testcase classname="a" name="x"><failure message="boom"/></testcase><testcase classname="a" name="y"/></testsuite>"#;

    #[test]
    fn the_report_the_command_names_is_read() {
        let dir = tempfile::tempdir().expect("tmp");
        let root = dir.path();
        std::fs::write(root.join("out.xml"), REPORT).expect("write");
        let s = scope(root, "pytest -q --junitxml=out.xml tests");
        let r = read(&s, &Places::new(root, root));
        assert_eq!(r.len(), 1);
        assert_eq!(
            (r[0].runner, r[0].tests.failed, r[0].tests.passed),
            (Some("pytest"), 1, Some(1))
        );
        // Written before the run: not this run's.
        let old = Scope {
            started: SystemTime::now() + Duration::from_secs(60),
            ..s
        };
        assert!(read(&old, &Places::new(root, root)).is_empty());
    }

    #[test]
    fn hostile_report_files_are_refused_without_hanging() {
        let dir = tempfile::tempdir().expect("tmp");
        let root = dir.path();
        let outside = tempfile::tempdir().expect("tmp");
        std::fs::write(outside.path().join("secret.xml"), REPORT).expect("write");
        std::os::unix::fs::symlink(outside.path().join("secret.xml"), root.join("link.xml"))
            .expect("symlink");
        nix::unistd::mkfifo(&root.join("fifo.xml"), nix::sys::stat::Mode::S_IRWXU).expect("fifo");
        let big = std::fs::File::create(root.join("big.xml")).expect("create");
        big.set_len(MAX_REPORT_BYTES + 1).expect("sparse");
        for name in ["link.xml", "fifo.xml", "big.xml", "missing.xml"] {
            let s = scope(root, &format!("pytest --junitxml {name}"));
            assert!(read(&s, &Places::new(root, root)).is_empty(), "{name}");
        }
    }

    #[test]
    fn maven_reports_are_read_in_every_module() {
        let dir = tempfile::tempdir().expect("tmp");
        let root = dir.path();
        for module in ["core", "web"] {
            let reports = root.join(module).join("target/surefire-reports");
            std::fs::create_dir_all(&reports).expect("mkdir");
            std::fs::write(reports.join(format!("TEST-{module}.xml")), REPORT).expect("write");
        }
        let r = read(&scope(root, "mvn test"), &Places::new(root, root));
        assert_eq!(r[0].tests.failed, 2);
        assert_eq!(r[0].tests.passed, Some(2));
    }
}
