//! GitHub Actions workflows (`.github/workflows/*.yml`), one task per job, run locally with
//! act: `act EVENT -W .github/workflows/FILE -j JOB`.
//!
//! Each job is named `workflow/job` (the workflow is the file's stem). Its description is
//! the job's `name` after the workflow's; `needs` become dependencies; the inputs of the
//! event act is told to simulate (`workflow_dispatch`, or `workflow_call` for a reusable
//! workflow) become parameters, given to act as `--input name=value`. Only the repository
//! root's `.github/workflows/` is read, as GitHub reads it.

use crate::doc::{self, Dialect, Entry, Node, Report, Terms, Value};
use crate::files::file_name;
use crate::model::Passing;
use crate::model::{Adapter, Param, Parsed, Runner, Source, Task};

/// The GitHub Actions adapter.
pub const ADAPTER: Adapter = Adapter {
    name: "github-actions",
    candidate,
    one_per_dir: false,
    admit: None,
    neighbours: None,
    parse,
};

/// Where GitHub reads workflows from: directly in this directory of the repository root.
pub const WORKFLOWS_DIR: &str = ".github/workflows/";

/// The events act is told to simulate, in order of preference, when the workflow has them.
/// `workflow_dispatch` first: running a job by hand is what it stands for, and it is the
/// event whose inputs `--input` fills. Otherwise the workflow's first trigger.
pub const EVENT_PREFERENCE: [&str; 3] = ["workflow_dispatch", "push", "pull_request"];

fn candidate(path: &str) -> Option<u8> {
    let name = path.strip_prefix(WORKFLOWS_DIR)?;
    let stem = workflow_stem(name)?;
    (!name.contains('/') && !stem.is_empty()).then_some(0)
}

/// `ci` for `ci.yml` or `ci.yaml`.
fn workflow_stem(name: &str) -> Option<&str> {
    name.strip_suffix(".yml")
        .or_else(|| name.strip_suffix(".yaml"))
}

fn parse(src: &Source<'_>) -> Parsed {
    let mut parsed = Parsed::default();
    let Some(root) = doc::read_yaml(src.text, Dialect::Strict)
        .map_err(|err| err.prefixed("invalid YAML: "))
        .or_report(src.path, &mut parsed)
    else {
        return parsed;
    };
    if !root.is_table() {
        let message = if root.is_null() {
            "empty workflow: GitHub needs `on` and `jobs`".to_owned()
        } else {
            format!("a workflow is a mapping, not {}", root.kind_in(Terms::Yaml))
        };
        parsed.diag(src.path, Some(1), message);
        return parsed;
    }
    let stem = workflow_stem(file_name(src.path)).unwrap_or(src.path);
    let workflow_name = root.get("name").and_then(Node::scalar);
    let (event, inputs) = if let Some(on) = root.entry("on") {
        choose_event(src.path, on, &mut parsed)
    } else {
        parsed.diag(
            src.path,
            Some(1),
            "no `on`: GitHub runs this workflow on no event; act is told `push`",
        );
        ("push".to_owned(), Vec::new())
    };
    let jobs = match root.get("jobs").map(|jobs| (jobs, jobs.entries())) {
        Some((_, Some(jobs))) => jobs,
        Some((jobs, None)) => {
            jobs.mismatch("`jobs` is a mapping of job ids", Terms::Yaml)
                .report(src.path, &mut parsed);
            return parsed;
        }
        None => {
            parsed.diag(
                src.path,
                Some(1),
                "no `jobs`: the workflow defines nothing to run",
            );
            return parsed;
        }
    };
    let ids: Vec<&str> = jobs.iter().map(|j| j.key.as_str()).collect();
    for (i, job) in jobs.iter().enumerate() {
        if ids[..i].contains(&job.key.as_str()) {
            let message = format!(
                "job `{}` is defined twice; GitHub refuses the workflow",
                job.key
            );
            parsed.diag(src.path, Some(job.node.line), message);
            continue;
        }
        if !valid_job_id(&job.key) {
            let message = format!(
                "job id `{}` must start with a letter or `_` and hold only letters, digits, `-` and `_`",
                job.key
            );
            parsed.diag(src.path, Some(job.node.line), message);
        }
        let task = job_task(
            src.path,
            stem,
            workflow_name,
            &event,
            &inputs,
            job,
            &ids,
            &mut parsed,
        );
        parsed.tasks.push(task);
    }
    parsed
}

/// The event act simulates and that event's inputs, read from `on`.
fn choose_event(path: &str, on: &Entry, parsed: &mut Parsed) -> (String, Vec<Param>) {
    let triggers: Vec<(&str, Option<&Node>)> = match &on.node.value {
        Value::Table(entries) => entries
            .iter()
            .map(|e| (e.key.as_str(), Some(&e.node)))
            .collect(),
        Value::Arr(items) => items
            .iter()
            .filter_map(Node::scalar)
            .map(|s| (s, None))
            .collect(),
        _ => on
            .node
            .scalar()
            .map(|s| vec![(s, None)])
            .unwrap_or_default(),
    };
    let chosen = EVENT_PREFERENCE
        .iter()
        .find_map(|want| triggers.iter().find(|(name, _)| name == want))
        .or_else(|| triggers.first());
    let Some((event, config)) = chosen else {
        let message = format!(
            "`on` names no event (it is {}); act is told `push`",
            on.node.kind_in(Terms::Yaml)
        );
        parsed.diag(path, Some(on.node.line), message);
        return ("push".to_owned(), Vec::new());
    };
    let inputs = match (*event, config) {
        ("workflow_dispatch" | "workflow_call", Some(config)) => read_inputs(path, config, parsed),
        _ => Vec::new(),
    };
    ((*event).to_owned(), inputs)
}

/// `inputs:` of a `workflow_dispatch` or `workflow_call` trigger, as parameters.
fn read_inputs(path: &str, config: &Node, parsed: &mut Parsed) -> Vec<Param> {
    let Some(entry) = config.entry("inputs") else {
        return Vec::new();
    };
    let Some(inputs) = entry.node.entries() else {
        if !entry.node.is_null() {
            entry
                .node
                .mismatch("`inputs` is a mapping", Terms::Yaml)
                .report(path, parsed);
        }
        return Vec::new();
    };
    inputs
        .iter()
        .map(|input| {
            let default = input
                .node
                .get("default")
                .and_then(Node::scalar)
                .map(str::to_owned);
            let required = input
                .node
                .get("required")
                .is_some_and(Node::is_true_or_text_true);
            Param {
                required: required && default.is_none(),
                default,
                passing: Passing::Input,
                ..Param::required(input.key.clone())
            }
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn job_task(
    path: &str,
    stem: &str,
    workflow_name: Option<&str>,
    event: &str,
    inputs: &[Param],
    job: &Entry,
    ids: &[&str],
    parsed: &mut Parsed,
) -> Task {
    let argv = vec![
        "act".to_owned(),
        event.to_owned(),
        "-W".to_owned(),
        path.to_owned(),
        "-j".to_owned(),
        job.key.clone(),
    ];
    let mut task = Task::new(Runner::Act, format!("{stem}/{}", job.key), ".", path, argv);
    task.line = Some(job.node.line);
    let job_name = job.node.get("name").and_then(Node::scalar);
    task.description = match (workflow_name, job_name) {
        (Some(w), Some(j)) => Some(format!("{w} / {j}")),
        (w, j) => w.or(j).map(str::to_owned),
    };
    task.params = inputs.to_vec();
    let needs: Vec<&str> = match job.node.get("needs") {
        Some(needs) => match needs.items() {
            Some(items) => items.iter().filter_map(Node::scalar).collect(),
            None => needs.scalar().into_iter().collect(),
        },
        None => Vec::new(),
    };
    for need in needs {
        if !ids.contains(&need) {
            let message = format!(
                "job `{}` needs `{need}`, which this workflow does not define",
                job.key
            );
            parsed.diag(path, Some(job.node.line), message);
        }
        task.deps.push(format!("{stem}/{need}"));
    }
    task.script = steps_summary(&job.node);
    task
}

/// What the job does, one line per step (`run:` first line, or `uses:`), or the reusable
/// workflow it calls: shown by `describe`.
fn steps_summary(job: &Node) -> Option<String> {
    if let Some(uses) = job.get("uses").and_then(Node::scalar) {
        return Some(format!("uses: {uses}"));
    }
    let steps = job.get("steps").and_then(Node::items)?;
    let lines: Vec<String> = steps
        .iter()
        .filter_map(|step| {
            let what = if let Some(run) = step.get("run").and_then(Node::scalar) {
                let first = run
                    .lines()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or_default();
                let more = if run.trim().lines().nth(1).is_some() {
                    " …"
                } else {
                    ""
                };
                format!("run: {}{more}", first.trim())
            } else {
                format!("uses: {}", step.get("uses").and_then(Node::scalar)?)
            };
            Some(match step.get("name").and_then(Node::scalar) {
                Some(name) => format!("- {name} ({what})"),
                None => format!("- {what}"),
            })
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// GitHub's rule for job ids.
fn valid_job_id(id: &str) -> bool {
    let mut chars = id.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{lines, names, params, parse_one, task};
    use indoc::{formatdoc, indoc};

    const CI: &str = ".github/workflows/ci.yml";

    #[test]
    fn only_workflows_of_the_root_workflows_directory_are_read() {
        assert_eq!(candidate(".github/workflows/ci.yml"), Some(0));
        assert_eq!(candidate(".github/workflows/release.yaml"), Some(0));
        assert_eq!(candidate(".github/workflows/nested/ci.yml"), None);
        assert_eq!(candidate(".github/workflows/.yml"), None);
        assert_eq!(candidate(".github/workflows/README.md"), None);
        assert_eq!(candidate("vendor/x/.github/workflows/ci.yml"), None);
        assert_eq!(candidate(".github/dependabot.yml"), None);
    }

    #[test]
    fn jobs_become_tasks_with_names_needs_and_steps() {
        let text = "\
name: CI
on:
  push:
    branches: [main]
  pull_request:
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - name: Clippy
        run: |
          cargo clippy -- -D warnings
          cargo fmt --check
  test:
    name: Test (${{ matrix.os }})
    needs: lint
    runs-on: ${{ matrix.os }}
    steps:
      - run: cargo test
  release:
    needs: [lint, test]
    uses: ./.github/workflows/release.yml
";
        let parsed = parse_one(parse, CI, text);
        assert_eq!(names(&parsed), ["ci/lint", "ci/test", "ci/release"]);
        assert_eq!(lines(&parsed), []);
        let test = task(&parsed, "ci/test");
        assert_eq!(test.argv, ["act", "push", "-W", CI, "-j", "test"]);
        assert_eq!(test.dir, ".");
        assert_eq!(test.line, Some(15));
        assert_eq!(
            test.description.as_deref(),
            Some("CI / Test (${{ matrix.os }})")
        );
        assert_eq!(test.deps, ["ci/lint"]);
        let lint = task(&parsed, "ci/lint");
        assert_eq!(lint.description.as_deref(), Some("CI"));
        assert_eq!(
            lint.script.as_deref(),
            Some("- uses: actions/checkout@v4\n- Clippy (run: cargo clippy -- -D warnings …)")
        );
        let release = task(&parsed, "ci/release");
        assert_eq!(release.deps, ["ci/lint", "ci/test"]);
        assert_eq!(
            release.script.as_deref(),
            Some("uses: ./.github/workflows/release.yml")
        );
    }

    #[test]
    fn the_event_is_workflow_dispatch_then_push_then_pull_request_then_the_first() {
        let event = |on: &str| {
            let text = formatdoc! {"
                on: {on}
                jobs:
                  j:
                    runs-on: x
            "};
            let parsed = parse_one(parse, CI, &text);
            format!("{}{:?}", parsed.tasks[0].argv[1], lines(&parsed))
        };
        assert_eq!(event("push"), "push[]");
        assert_eq!(event("[pull_request, push]"), "push[]");
        assert_eq!(event("[schedule, pull_request]"), "pull_request[]");
        assert_eq!(event("{release: {types: [published]}}"), "release[]");
        assert_eq!(
            event("{push: null, workflow_dispatch: null}"),
            "workflow_dispatch[]"
        );
        assert_eq!(
            event("[]"),
            "push[(Some(1), \"`on` names no event (it is a list); act is told `push`\")]"
        );
    }

    #[test]
    fn dispatch_inputs_are_parameters() {
        let text = "\
on:
  workflow_dispatch:
    inputs:
      environment:
        description: Where to deploy
        required: true
        type: choice
        options: [staging, production]
      dry-run:
        type: boolean
        default: true
      tag:
        required: true
        default: latest
  push:
jobs:
  deploy:
    runs-on: ubuntu-latest
";
        let parsed = parse_one(parse, ".github/workflows/deploy.yaml", text);
        let deploy = task(&parsed, "deploy/deploy");
        assert_eq!(deploy.argv[1], "workflow_dispatch");
        assert_eq!(
            params(deploy),
            [
                ("environment", None, true),
                ("dry-run", Some("true"), false),
                ("tag", Some("latest"), false)
            ]
        );
    }

    #[test]
    fn a_reusable_workflow_takes_its_call_inputs() {
        let text = indoc::indoc! {"
            on:
              workflow_call:
                inputs:
                  target:
                    type: string
                    required: true
            jobs:
              build:
                runs-on: x
        "};
        let parsed = parse_one(parse, ".github/workflows/build.yml", text);
        let build = task(&parsed, "build/build");
        assert_eq!(build.argv[1], "workflow_call");
        assert_eq!(
            build.params,
            [Param::required("target").passed(Passing::Input)]
        );
    }

    #[test]
    fn bad_workflows_name_the_line_and_keep_the_other_jobs() {
        let text = "\
on: push
jobs:
  good:
    runs-on: x
  bad id:
    needs: missing
  good:
    runs-on: y
";
        let parsed = parse_one(parse, CI, text);
        assert_eq!(names(&parsed), ["ci/good", "ci/bad id"]);
        assert_eq!(
            lines(&parsed),
            [
                (
                    Some(5),
                    "job id `bad id` must start with a letter or `_` and hold only letters, digits, `-` and `_`"
                ),
                (
                    Some(5),
                    "job `bad id` needs `missing`, which this workflow does not define"
                ),
                (
                    Some(7),
                    "job `good` is defined twice; GitHub refuses the workflow"
                ),
            ]
        );
        let broken = parse_one(
            parse,
            CI,
            indoc! {"
                on: push
                jobs:
                  a: [
            "},
        );
        assert!(broken.tasks.is_empty());
        assert_eq!(broken.diagnostics.len(), 1);
        assert!(broken.diagnostics[0].message.starts_with("invalid YAML"));
        assert!(broken.diagnostics[0].line.is_some());
        assert_eq!(
            lines(&parse_one(parse, CI, "")),
            [(Some(1), "empty workflow: GitHub needs `on` and `jobs`")]
        );
        assert_eq!(
            lines(&parse_one(parse, CI, "on: push\njobs: [a]\n")),
            [(Some(2), "`jobs` is a mapping of job ids, not a list")]
        );
        assert_eq!(
            lines(&parse_one(parse, CI, "- a\n")),
            [(Some(1), "a workflow is a mapping, not a list")]
        );
        let no_on = parse_one(
            parse,
            CI,
            indoc! {"
                jobs:
                  a:
                    runs-on: x
            "},
        );
        assert_eq!(no_on.tasks[0].argv[1], "push");
        assert_eq!(
            lines(&no_on),
            [(
                Some(1),
                "no `on`: GitHub runs this workflow on no event; act is told `push`"
            )]
        );
    }
}
