//! Hatch environment scripts: `[tool.hatch.envs.<env>.scripts]` in `pyproject.toml`, or
//! `[envs.<env>.scripts]` in `hatch.toml`. A script of the `default` environment runs as
//! `hatch run NAME args`, any other as `hatch run ENV:NAME args`, which is also its name.
//!
//! Scripts an environment inherits from its template are not repeated under its name. When
//! `hatch.toml` has `envs`, hatch ignores `[tool.hatch.envs]`, and so does agg.

use super::Project;
use crate::doc::{self, Node, Report, Terms};
use crate::model::{Parsed, Runner, Source, Task};

pub(super) fn from_pyproject(project: &Project<'_>, root: &Node, out: &mut Parsed) {
    if let Some(envs) = root.path(&["tool", "hatch", "envs"]) {
        // hatch lays hatch.toml's top-level keys over `[tool.hatch]`: its `envs` replace
        // these whole.
        let replaced = project
            .files
            .read(&project.sibling("hatch.toml"))
            .ok()
            .and_then(|text| doc::read_toml(&text).ok())
            .is_some_and(|hatch| hatch.get("envs").is_some());
        if !replaced {
            read_envs(project, envs, out);
        }
    }
}

pub(super) fn parse_hatch_toml(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    let project = Project::of(src);
    match doc::read_toml(src.text) {
        Ok(root) => {
            if let Some(envs) = root.get("envs") {
                read_envs(&project, envs, &mut out);
            }
        }
        Err(err) => out.diag(src.path, err.line, err.message),
    }
    out
}

fn read_envs(project: &Project<'_>, envs: &Node, out: &mut Parsed) {
    let Some(envs) = envs
        .table_or("hatch `envs` must be a table", Terms::Toml)
        .or_report(project.path, out)
    else {
        return;
    };
    for env in envs {
        let Some(scripts) = env.node.get("scripts") else {
            continue;
        };
        let Some(scripts) = scripts
            .table_or(
                &format!("scripts of hatch environment `{}` must be a table", env.key),
                Terms::Toml,
            )
            .or_report(project.path, out)
        else {
            continue;
        };
        for script in scripts {
            let Some(commands) = script.node.strs() else {
                out.diag(
                    project.path,
                    Some(script.node.line),
                    format!(
                        "hatch script `{}` must be a string or an array of strings",
                        script.key
                    ),
                );
                continue;
            };
            let name = if env.key == "default" {
                script.key.clone()
            } else {
                format!("{}:{}", env.key, script.key)
            };
            let mut task = Task::new(
                Runner::Hatch,
                name.clone(),
                project.dir,
                project.path,
                vec!["hatch".to_owned(), "run".to_owned(), name],
            );
            task.line = Some(script.node.line);
            task.script = Some(commands.join("\n"));
            out.tasks.push(task);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::files::MemFiles;
    use crate::testing::{messages, names, parse_with, task};
    use indoc::indoc;

    #[test]
    fn default_and_named_environments() {
        let text = r#"[tool.hatch.envs.default.scripts]
test = "pytest {args}"
cov = ["coverage run -m pytest", "coverage report"]

[tool.hatch.envs.lint]
detached = true
[tool.hatch.envs.lint.scripts]
style = "ruff check {args:.}"
bad = 3
"#;
        let files = MemFiles::new().with("pyproject.toml", text);
        let parsed = parse_with(super::super::PYPROJECT.parse, &files, "pyproject.toml");
        assert_eq!(names(&parsed), ["test", "cov", "lint:style"]);
        assert_eq!(task(&parsed, "test").argv, ["hatch", "run", "test"]);
        assert_eq!(
            task(&parsed, "lint:style").argv,
            ["hatch", "run", "lint:style"]
        );
        assert_eq!(task(&parsed, "lint:style").line, Some(8));
        assert_eq!(
            task(&parsed, "cov").script.as_deref(),
            Some("coverage run -m pytest\ncoverage report")
        );
        assert_eq!(
            messages(&parsed),
            [(
                "pyproject.toml",
                Some(9),
                "hatch script `bad` must be a string or an array of strings"
            )]
        );
    }

    #[test]
    fn hatch_toml_wins_over_pyproject() {
        let files = MemFiles::new()
            .with(
                "pyproject.toml",
                "[tool.hatch.envs.default.scripts]\nold = \"x\"\n",
            )
            .with(
                "hatch.toml",
                indoc! {"
                    [envs.default.scripts]
                    new = \"y\"
                    [envs.docs.scripts]
                    build = \"mkdocs build\"
                "},
            );
        let parsed = parse_with(super::super::PYPROJECT.parse, &files, "pyproject.toml");
        assert!(parsed.tasks.is_empty());
        let parsed = parse_with(super::parse_hatch_toml, &files, "hatch.toml");
        assert_eq!(names(&parsed), ["new", "docs:build"]);
        assert_eq!(parsed.tasks[1].line, Some(4));
        let files = MemFiles::new().with("hatch.toml", "[envs\n");
        let parsed = parse_with(super::parse_hatch_toml, &files, "hatch.toml");
        assert_eq!(parsed.diagnostics.len(), 1);
    }
}
