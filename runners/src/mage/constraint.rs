//! Which Go files of a directory are magefiles: Go's build constraints (`//go:build`, the
//! older `// +build` lines, and `_GOOS`/`_GOARCH` file name suffixes) evaluated for the host
//! with and without the `mage` tag, as mage asks `go list` to.

/// The operating systems and architectures Go knows as file name suffixes.
const GOOS: [&str; 17] = [
    "aix",
    "android",
    "darwin",
    "dragonfly",
    "freebsd",
    "hurd",
    "illumos",
    "ios",
    "js",
    "linux",
    "nacl",
    "netbsd",
    "openbsd",
    "plan9",
    "solaris",
    "wasip1",
    "windows",
];
const GOARCH: [&str; 14] = [
    "386", "amd64", "arm", "arm64", "loong64", "mips", "mips64", "mips64le", "mipsle", "ppc64",
    "ppc64le", "riscv64", "s390x", "wasm",
];

/// Constraints longer than this are not evaluated (the file is not a magefile).
const MAX_EXPR: usize = 512;

fn host_os() -> &'static str {
    if cfg!(target_os = "macos") {
        "darwin"
    } else if cfg!(windows) {
        "windows"
    } else {
        "linux"
    }
}

fn host_arch() -> &'static str {
    if cfg!(target_arch = "aarch64") {
        "arm64"
    } else if cfg!(target_arch = "x86") {
        "386"
    } else {
        "amd64"
    }
}

/// Whether the file `name` holding `text` is one of the directory's magefiles: in a
/// `magefiles/` directory (`folder`), any Go file the host builds with the `mage` tag;
/// elsewhere, one the host builds with the tag and not without it.
pub(super) fn is_magefile(name: &str, text: &str, folder: bool) -> bool {
    if !name_fits_host(name) {
        return false;
    }
    let Some(expr) = constraint(text) else {
        return folder;
    };
    let with = eval(&expr, true).unwrap_or(false);
    if folder {
        return with;
    }
    with && !eval(&expr, false).unwrap_or(true)
}

/// Whether the `_GOOS`, `_GOARCH` or `_GOOS_GOARCH` suffix of `name`, if any, is the host's.
fn name_fits_host(name: &str) -> bool {
    let stem = name.strip_suffix(".go").unwrap_or(name);
    let parts: Vec<&str> = stem.split('_').collect();
    let n = parts.len();
    let last = parts[n - 1];
    let before = if n >= 3 { Some(parts[n - 2]) } else { None };
    if n >= 2 && GOARCH.contains(&last) {
        if let Some(os) = before.filter(|os| GOOS.contains(os)) {
            return os == host_os() && last == host_arch();
        }
        return last == host_arch();
    }
    if n >= 2 && GOOS.contains(&last) {
        return last == host_os();
    }
    true
}

/// The file's build constraint as one expression: its `//go:build` line, else its
/// `// +build` lines (spaces are OR, commas AND, lines AND) rewritten in the same syntax.
/// Only the comments before the `package` clause count.
fn constraint(text: &str) -> Option<String> {
    let mut plus: Vec<String> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with("package ") || line == "package" {
            break;
        }
        if let Some(expr) = line.strip_prefix("//go:build") {
            return Some(expr.trim().to_owned());
        }
        if let Some(rest) = line.strip_prefix("// +build") {
            let ors: Vec<String> = rest
                .split_whitespace()
                .map(|option| format!("({})", option.split(',').collect::<Vec<_>>().join(" && ")))
                .collect();
            if !ors.is_empty() {
                plus.push(format!("({})", ors.join(" || ")));
            }
        }
        if !line.is_empty() && !line.starts_with("//") && !line.starts_with("/*") {
            break;
        }
    }
    (!plus.is_empty()).then(|| plus.join(" && "))
}

/// Evaluates a constraint for the host, with or without the `mage` tag; `None` when it is
/// not a constraint Go would accept.
fn eval(expr: &str, mage: bool) -> Option<bool> {
    if expr.len() > MAX_EXPR {
        return None;
    }
    let tokens = lex(expr)?;
    let mut p = Parser {
        tokens: &tokens,
        at: 0,
        mage,
    };
    let value = p.or(0)?;
    (p.at == tokens.len()).then_some(value)
}

#[derive(Debug, PartialEq)]
enum T {
    Tag(String),
    Not,
    And,
    Or,
    Open,
    Close,
}

fn lex(expr: &str) -> Option<Vec<T>> {
    let b = expr.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b' ' | b'\t' => i += 1,
            b'!' => {
                out.push(T::Not);
                i += 1;
            }
            b'(' => {
                out.push(T::Open);
                i += 1;
            }
            b')' => {
                out.push(T::Close);
                i += 1;
            }
            b'&' if b.get(i + 1) == Some(&b'&') => {
                out.push(T::And);
                i += 2;
            }
            b'|' if b.get(i + 1) == Some(&b'|') => {
                out.push(T::Or);
                i += 2;
            }
            c if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.')
                {
                    i += 1;
                }
                out.push(T::Tag(expr[start..i].to_owned()));
            }
            _ => return None,
        }
    }
    Some(out)
}

/// Go's constraint grammar, recursive with a depth bound.
struct Parser<'a> {
    tokens: &'a [T],
    at: usize,
    mage: bool,
}

impl Parser<'_> {
    fn or(&mut self, depth: usize) -> Option<bool> {
        let mut value = self.and(depth)?;
        while self.tokens.get(self.at) == Some(&T::Or) {
            self.at += 1;
            value |= self.and(depth)?;
        }
        Some(value)
    }

    fn and(&mut self, depth: usize) -> Option<bool> {
        let mut value = self.not(depth)?;
        while self.tokens.get(self.at) == Some(&T::And) {
            self.at += 1;
            value &= self.not(depth)?;
        }
        Some(value)
    }

    fn not(&mut self, depth: usize) -> Option<bool> {
        if depth > 32 {
            return None;
        }
        match self.tokens.get(self.at)? {
            T::Not => {
                self.at += 1;
                self.not(depth + 1).map(|v| !v)
            }
            T::Open => {
                self.at += 1;
                let value = self.or(depth + 1)?;
                (self.tokens.get(self.at) == Some(&T::Close)).then_some(())?;
                self.at += 1;
                Some(value)
            }
            T::Tag(tag) => {
                self.at += 1;
                Some(self.has(tag))
            }
            _ => None,
        }
    }

    fn has(&self, tag: &str) -> bool {
        match tag {
            "mage" => self.mage,
            "unix" => host_os() != "windows",
            "gc" => true,
            t if t.starts_with("go1.") => true,
            t => t == host_os() || t == host_arch(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use indoc::formatdoc;

    #[test]
    fn only_files_that_need_the_mage_tag_are_magefiles() {
        let file = |constraint: &str| {
            formatdoc! {"
                {constraint}

                package main
            "}
        };
        assert!(is_magefile("magefile.go", &file("//go:build mage"), false));
        assert!(is_magefile("m.go", &file("// +build mage"), false));
        assert!(is_magefile(
            "m.go",
            &file("//go:build mage && (linux || darwin)"),
            false
        ));
        assert!(!is_magefile("m.go", &file("//go:build !mage"), false));
        assert!(!is_magefile("main.go", &file(""), false));
        assert!(!is_magefile("m.go", &file("//go:build ignore"), false));
        assert!(!is_magefile(
            "m.go",
            &file("//go:build mage && windows"),
            false
        ));
        // A `magefiles/` directory takes untagged files, not ignored ones.
        assert!(is_magefile("helpers.go", &file(""), true));
        assert!(!is_magefile("gen.go", &file("//go:build ignore"), true));
        // The constraint must come before `package`.
        assert!(!is_magefile(
            "m.go",
            "package main\n//go:build mage\n",
            false
        ));
        assert!(!is_magefile(
            "magefile_windows.go",
            &file("//go:build mage"),
            false
        ));
        assert!(!is_magefile("m.go", &file("//go:build mage &&"), false));
    }
}
