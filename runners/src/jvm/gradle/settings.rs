//! A Gradle settings file: the projects it includes (`include("a", "b:c")`, `include 'a'`)
//! and the directories it moves them to (`project(":a").projectDir = file("libs/a")`).
//! Projects added by code (`file("modules").eachDir { include(it.name) }`) cannot be seen
//! without running Gradle and are not listed.

use super::lexer::tokenize;

/// One included project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Include {
    /// Its path, `:a:b`.
    pub path: String,
    pub line: u32,
}

#[derive(Debug, Default)]
pub(super) struct Settings {
    /// `rootProject.name = "shop"`.
    pub root_name: Option<String>,
    pub includes: Vec<Include>,
    /// `project(":a").projectDir = …`: project path and directory relative to the settings.
    pub dirs: Vec<(String, String)>,
    /// `includeBuild("build-logic")`: directories of included builds, relative to the settings.
    pub included_builds: Vec<String>,
    pub problems: Vec<(u32, String)>,
}

/// A project path as Gradle normalizes it: `a:b` and `:a:b` are both `:a:b`.
pub(super) fn normalize(path: &str) -> Option<String> {
    let parts: Vec<&str> = path.split(':').filter(|p| !p.is_empty()).collect();
    (!parts.is_empty()).then(|| format!(":{}", parts.join(":")))
}

pub(super) fn read(text: &str, kotlin: bool) -> Settings {
    let (t, unclosed) = tokenize(text, kotlin);
    let mut out = Settings::default();
    if let Some(u) = unclosed {
        out.problems
            .push((u.line, format!("this {} is never closed", u.what)));
    }
    let start = |i: usize| i == 0 || t[i].nl_before || t[i - 1].is('{') || t[i - 1].is(';');
    let plain = |i: usize| t.get(i).and_then(|t| t.plain_str());
    let is = |i: usize, c: char| t.get(i).is_some_and(|x| x.is(c));
    let ident = |i: usize, name: &str| t.get(i).is_some_and(|x| x.is_ident(name));
    let mut i = 0;
    while i < t.len() {
        if t[i].is_ident("include") && start(i) {
            let line = t[i].line;
            let push = |s: &str, out: &mut Settings| {
                if let Some(path) = normalize(s) {
                    out.includes.push(Include { path, line });
                }
            };
            if is(i + 1, '(') {
                // Every literal up to the closing parenthesis.
                let mut depth = 0usize;
                let mut j = i + 1;
                while j < t.len() {
                    if t[j].is('(') {
                        depth += 1;
                    } else if t[j].is(')') {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    } else if let Some(s) = plain(j) {
                        push(s, &mut out);
                    }
                    j += 1;
                }
                i = j;
            } else {
                // Groovy command form: `include 'a', 'b'`.
                let mut j = i + 1;
                while let Some(s) = plain(j) {
                    push(s, &mut out);
                    if !is(j + 1, ',') {
                        break;
                    }
                    j += 2;
                }
                i = j;
            }
        } else if t[i].is_ident("rootProject")
            && start(i)
            && is(i + 1, '.')
            && ident(i + 2, "name")
            && is(i + 3, '=')
            && let Some(name) = plain(i + 4)
        {
            out.root_name = Some(name.to_owned());
            i += 4;
        } else if t[i].is_ident("includeBuild") {
            let at = if is(i + 1, '(') { i + 2 } else { i + 1 };
            if let Some(dir) = plain(at) {
                out.included_builds.push(dir.to_owned());
            }
        } else if t[i].is_ident("projectDir")
            && i >= 5
            && is(i - 1, '.')
            && is(i - 2, ')')
            && ident(i - 5, "project")
            && is(i - 4, '(')
            && is(i + 1, '=')
            && let Some(project) = plain(i - 3).and_then(normalize)
        {
            let mut j = i + 2;
            if ident(j, "new") {
                j += 1;
            }
            let dir = if ident(j, "file") && is(j + 1, '(') {
                plain(j + 2)
            } else if ident(j, "File")
                && is(j + 1, '(')
                && (ident(j + 2, "settingsDir") || ident(j + 2, "rootDir"))
                && is(j + 3, ',')
            {
                plain(j + 4)
            } else {
                None
            };
            if let Some(dir) = dir {
                out.dirs.push((project, dir.to_owned()));
            }
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::read;
    use indoc::indoc;

    #[test]
    fn includes_in_both_dsls() {
        let groovy = indoc! {"
            rootProject.name = 'shop'
            include 'core', ':web',
              'libs:util'
            // include 'old'
            include \"gen${x}\"
            project(':web').projectDir = new File(settingsDir, 'frontend')
        "};
        let s = read(groovy, false);
        let paths: Vec<(&str, u32)> = s
            .includes
            .iter()
            .map(|i| (i.path.as_str(), i.line))
            .collect();
        assert_eq!(paths, [(":core", 2), (":web", 2), (":libs:util", 2)]);
        assert_eq!(s.dirs, [(":web".to_owned(), "frontend".to_owned())]);
        let kotlin = indoc! {"
            pluginManagement {
              includeBuild(\"build-logic\")
            }
            include(\":app\", \"lib\")
            include(
              \"a:b\"
            )
            project(\":app\").projectDir = file(\"apps/main\")
        "};
        let s = read(kotlin, true);
        let paths: Vec<&str> = s.includes.iter().map(|i| i.path.as_str()).collect();
        assert_eq!(paths, [":app", ":lib", ":a:b"]);
        assert_eq!(s.dirs, [(":app".to_owned(), "apps/main".to_owned())]);
        assert_eq!(s.included_builds, ["build-logic"]);
        assert!(read("include(", true).includes.is_empty());
    }
}
