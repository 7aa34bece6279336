//! File name patterns as make expands them (`include mk/*.mk`, `$(wildcard po/Makefile)`):
//! `*` and `?` within the last path component, matched against the repository's files
//! through the adapter's [`Files`] view.

use crate::files::{Files, file_name, join, parent};

/// Whether a path holds a pattern make would expand.
pub(super) fn is_glob(path: &str) -> bool {
    path.contains(['*', '?'])
}

/// The names in `pattern`'s directory (root-relative) that its last component matches,
/// hidden ones only when the pattern starts with a dot, as in the shell. A pattern in a
/// directory component matches nothing.
pub(super) fn entries(files: &dyn Files, pattern: &str) -> Vec<String> {
    let dir = parent(pattern);
    let name = file_name(pattern);
    if is_glob(dir) {
        return Vec::new();
    }
    files
        .read_dir(dir)
        .into_iter()
        .filter(|entry| (name.starts_with('.') || !entry.starts_with('.')) && matches(name, entry))
        .collect()
}

/// `$(wildcard PATTERNS)` run in make's directory `cwd`: the words of `patterns` that name an
/// existing file or directory, patterns replaced by what they match (sorted), each as
/// written, relative to `cwd`.
pub(super) fn wildcard(files: &dyn Files, cwd: &str, patterns: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in patterns.split_whitespace() {
        let Some(path) = join(cwd, word) else {
            continue;
        };
        if is_glob(word) {
            let mut found = entries(files, &path);
            found.sort();
            let dir = word.rsplit_once('/').map(|(dir, _)| dir);
            out.extend(found.into_iter().map(|entry| match dir {
                Some(dir) => format!("{dir}/{entry}"),
                None => entry,
            }));
        } else if files.exists(&path) || !files.read_dir(&path).is_empty() {
            out.push(word.to_owned());
        }
    }
    out
}

/// Shell-style matching of `*` and `?` against one file name, without backtracking blowup
/// (the classic two-pointer algorithm: linear for a single `*`, bounded by the product of
/// lengths otherwise).
pub(super) fn matches(pattern: &str, name: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        match p.get(pi) {
            Some('*') => {
                star = Some((pi, ni));
                pi += 1;
            }
            Some(&c) if c == '?' || Some(&c) == n.get(ni) => {
                pi += 1;
                ni += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    pi = sp + 1;
                    ni = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    p.get(pi..)
        .is_some_and(|rest| rest.iter().all(|&c| c == '*'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::MemFiles;

    #[test]
    fn patterns_match_like_the_shell() {
        assert!(matches("*.mk", "common.mk"));
        assert!(matches("a?c*", "abcdef"));
        assert!(!matches("*.mk", "common.mkx"));
        assert!(matches("*a*b*", "xxaxxbxx"));
        assert!(!matches("a*", ""));
        assert!(matches("*", ""));
    }

    #[test]
    fn wildcard_answers_from_makes_directory() {
        let files = MemFiles::new()
            .with("sub/po/Makefile", "")
            .with("sub/src/b.c", "")
            .with("sub/src/a.c", "")
            .with("sub/src/.hidden.c", "")
            .with("top.c", "");
        let found = wildcard(
            &files,
            "sub",
            "po/Makefile src/*.c missing ../top.c src ../*/x",
        );
        assert_eq!(
            found,
            ["po/Makefile", "src/a.c", "src/b.c", "../top.c", "src"]
        );
        assert!(wildcard(&files, "sub", "../../outside").is_empty());
    }
}
