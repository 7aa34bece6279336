//! Which directories a workspace's member patterns name: `packages/*`, `crates/**`,
//! `!packages/legacy`, `./apps/web/`, as npm, pnpm, Yarn, Cargo, uv, deno and Composer write
//! them. Patterns are matched against the directories of manifests the scan found, never by
//! listing the disk.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// Member patterns, compiled once.
pub(crate) struct Members {
    include: GlobSet,
    exclude: GlobSet,
}

/// A pattern as a path relative to the workspace root, without `./` or a trailing `/`.
fn normalize(pattern: &str) -> String {
    let mut p = pattern.trim();
    while let Some(rest) = p.strip_prefix("./") {
        p = rest;
    }
    let p = p.trim_end_matches('/');
    if p.is_empty() {
        ".".to_owned()
    } else {
        p.to_owned()
    }
}

impl Members {
    /// Compiles `patterns` (a leading `!` excludes) and `excluded` (always exclusions).
    /// Returns the patterns that are not valid globs beside the set.
    pub(crate) fn new<'p>(
        patterns: impl IntoIterator<Item = &'p str>,
        excluded: impl IntoIterator<Item = &'p str>,
    ) -> (Members, Vec<String>) {
        let mut include = GlobSetBuilder::new();
        let mut exclude = GlobSetBuilder::new();
        let mut bad = Vec::new();
        let mut add =
            |set: &mut GlobSetBuilder, pattern: &str| match GlobBuilder::new(&normalize(pattern))
                .literal_separator(true)
                .build()
            {
                Ok(glob) => {
                    set.add(glob);
                }
                Err(_) => bad.push(pattern.to_owned()),
            };
        for p in patterns {
            match p.trim().strip_prefix('!') {
                Some(negated) => add(&mut exclude, negated),
                None => add(&mut include, p),
            }
        }
        for p in excluded {
            add(&mut exclude, p);
        }
        let build = |b: GlobSetBuilder| b.build().unwrap_or_else(|_| GlobSet::empty());
        (
            Members {
                include: build(include),
                exclude: build(exclude),
            },
            bad,
        )
    }

    /// Whether the directory `dir` (root-relative) is a member of the workspace at `root`.
    pub(crate) fn contains(&self, root: &str, dir: &str) -> bool {
        let Some(rel) = below(root, dir) else {
            return false;
        };
        self.include.is_match(rel) && !self.exclude.is_match(rel)
    }
}

/// `dir` relative to `root` (`.` for the root itself), when it is inside it.
pub(crate) fn below<'d>(root: &str, dir: &'d str) -> Option<&'d str> {
    if root == "." {
        return Some(dir);
    }
    if dir == root {
        return Some(".");
    }
    dir.strip_prefix(root)?.strip_prefix('/')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_match_directories_as_the_tools_do() {
        let (m, bad) = Members::new(["packages/*", "./apps/web/", "!packages/legacy"], []);
        assert!(bad.is_empty());
        assert!(m.contains(".", "packages/core"));
        assert!(
            !m.contains(".", "packages/core/nested"),
            "* stays in one level"
        );
        assert!(!m.contains(".", "packages/legacy"));
        assert!(m.contains(".", "apps/web"));
        assert!(!m.contains(".", "apps/api"));
        let (m, _) = Members::new(["crates/**"], ["crates/skip"]);
        assert!(m.contains("rust", "rust/crates/a/b"));
        assert!(!m.contains("rust", "rust/crates/skip"));
        assert!(
            !m.contains("rust", "crates/a"),
            "outside the workspace root"
        );
        let (_, bad) = Members::new(["packages/[z-a]"], []);
        assert_eq!(bad, ["packages/[z-a]"]);
    }
}
