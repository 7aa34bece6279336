//! Which package manager runs a package's scripts: the rule the package.json adapter, Nx and
//! Turborepo all follow (`pnpm run build`, `pnpm exec nx run web:build`), in one place below
//! them.

use crate::doc::{self, Node, Rest};
use crate::files::{Files, join, parent};
use crate::model::Runner;

/// Lockfiles and the manager each one belongs to, in the order a tie is broken.
pub(super) const LOCKFILES: [(&str, Runner); 7] = [
    ("bun.lock", Runner::Bun),
    ("bun.lockb", Runner::Bun),
    ("pnpm-lock.yaml", Runner::Pnpm),
    ("pnpm-workspace.yaml", Runner::Pnpm),
    ("yarn.lock", Runner::Yarn),
    ("package-lock.json", Runner::Npm),
    ("npm-shrinkwrap.json", Runner::Npm),
];

/// The package manager that runs the scripts of the package in `dir` (root-relative).
///
/// Walks up from `dir` to the root and stops at the nearest directory that says something:
/// a `packageManager` field in its `package.json` (Corepack's `"pnpm@9.1.0+sha512..."`),
/// which wins, or a lockfile: `bun.lock`/`bun.lockb` for bun, `pnpm-lock.yaml` or
/// `pnpm-workspace.yaml` for pnpm, `yarn.lock` for yarn, `package-lock.json` or
/// `npm-shrinkwrap.json` for npm, tried in that order when a directory holds several.
/// Without any of these, and for a `packageManager` agg does not know, it is npm.
///
/// ```
/// use agg_runners::{MemFiles, Runner, js::manager::detect_manager};
///
/// let files = MemFiles::new()
///     .with("pnpm-lock.yaml", "")
///     .with("apps/web/package.json", "{}")
///     .with("apps/legacy/package.json", r#"{"packageManager": "yarn@4.1.0"}"#);
/// assert_eq!(detect_manager("apps/web", &files), Runner::Pnpm);
/// assert_eq!(detect_manager("apps/legacy", &files), Runner::Yarn);
/// assert_eq!(detect_manager(".", &MemFiles::new()), Runner::Npm);
/// ```
pub fn detect_manager(dir: &str, files: &dyn Files) -> Runner {
    detect(dir, None, files).0
}

/// Something odd about the manager choice in the package's own directory.
pub(crate) struct Problem {
    pub message: String,
    /// The top-level key of the package.json the problem is about, for its line.
    pub line_key: Option<&'static str>,
}

/// [`detect_manager`], with the package's own parsed package.json when the caller has it,
/// and a problem to report when it is about `dir` itself (a parent's problems are reported
/// by the parent's own package.json).
pub(crate) fn detect(
    dir: &str,
    own: Option<&Node>,
    files: &dyn Files,
) -> (Runner, Option<Problem>) {
    let mut current = dir.to_owned();
    loop {
        let is_own = current == dir;
        let manifest = match own.filter(|_| is_own) {
            Some(own) => own
                .get("packageManager")
                .and_then(Node::str)
                .map(str::to_owned),
            None => read_package_manager(&current, files),
        };
        if let Some(spec) = manifest {
            // "pnpm@9.1.0+sha512.…": the name is what comes before the version.
            let name = spec.split('@').next().unwrap_or_default().trim();
            return match Runner::from_name(name).filter(|r| LOCKFILES.iter().any(|(_, l)| l == r)) {
                Some(runner) => (runner, None),
                None => (
                    Runner::Npm,
                    is_own.then(|| Problem {
                        message: format!("unknown packageManager `{spec}`: using npm"),
                        line_key: Some("packageManager"),
                    }),
                ),
            };
        }

        let found: Vec<(&str, Runner)> = LOCKFILES
            .iter()
            .filter(|(name, _)| join(&current, name).is_some_and(|p| files.exists(&p)))
            .copied()
            .collect();
        if let Some(&(_, runner)) = found.first() {
            let problem = found.iter().any(|(_, r)| *r != runner).then(|| {
                let names: Vec<&str> = found.iter().map(|(n, _)| *n).collect();
                Problem {
                    message: format!(
                        "several lockfiles in {current} ({}): using {runner}",
                        names.join(", ")
                    ),
                    line_key: None,
                }
            });
            return (runner, problem.filter(|_| is_own));
        }

        if current == "." {
            return (Runner::Npm, None);
        }
        current = parent(&current).to_owned();
    }
}

/// The `packageManager` string of the package.json in `dir`, if it has a readable one.
fn read_package_manager(dir: &str, files: &dyn Files) -> Option<String> {
    let path = join(dir, "package.json")?;
    if !files.exists(&path) {
        return None;
    }
    let text = files.read(&path).ok()?;
    // A monorepo's root package.json is read once per package below it: skip the parse
    // when the key cannot be there (a key may be spelt with `\u` escapes).
    if !text.contains("packageManager") && !text.contains("\\u") {
        return None;
    }
    // Only the one key is built and the rest of the file skipped, its syntax checked: a
    // broken parent package.json is reported when that file itself is parsed. A repeated key
    // counts with its last value, as there.
    let root = doc::read_json_keys(&text, &["packageManager"], Rest::SyntaxOnly).ok()?;
    root.get("packageManager")
        .and_then(Node::str)
        .map(str::to_owned)
}
