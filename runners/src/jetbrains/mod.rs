//! `JetBrains` run configurations shared with the project: `.run/*.run.xml` and
//! `.idea/runConfigurations/*.xml`, read with roxmltree (no DTD). The kinds that run a
//! command — shell script, npm, Gradle, Maven, Python, Cargo, Makefile, Docker — become the
//! command the IDE would run, in the configuration's working directory with its environment;
//! the others (Application, `JUnit`, a framework's server, …) are listed as not runnable, with
//! the reason, as are configurations that use a macro only the IDE fills in (`$FilePath$`,
//! `$Prompt$`). `$PROJECT_DIR$` is the directory holding `.run` or `.idea`.

use std::fmt::Write as _;

use roxmltree::Node;

use crate::doc::{self, Report};
use crate::files::{file_name, join, parent, relative};
use crate::model::{Adapter, Parsed, Runner, Source, Task};
use crate::text::{LineIndex, quote_command};

mod ide_only;

use ide_only::IdeOnly;

/// `.run/NAME.run.xml` and `.idea/runConfigurations/NAME.xml`.
// The IDE writes these names in lower case and finds no other.
#[allow(clippy::case_sensitive_file_extension_comparisons)]
pub const ADAPTER: Adapter = Adapter {
    name: "run configuration",
    candidate: |path| {
        let dir = parent(path);
        let shared = file_name(dir) == ".run" && path.ends_with(".run.xml");
        let idea = file_name(dir) == "runConfigurations"
            && file_name(parent(dir)) == ".idea"
            && path.ends_with(".xml");
        (shared || idea).then_some(0)
    },
    one_per_dir: false,
    admit: None,
    neighbours: None,
    parse,
};

/// The shells agg hands a shell-script configuration's interpreter to.
const POSIX_SHELLS: [&str; 5] = ["sh", "bash", "zsh", "dash", "ksh"];

/// What one configuration runs: its directory (root-relative), its environment, and its
/// command as a shell line; or why only the IDE can run it.
struct Command {
    dir: String,
    env: Vec<(String, String)>,
    line: String,
}

type Built = Result<Command, IdeOnly>;

fn parse(src: &Source<'_>) -> Parsed {
    let mut out = Parsed::default();
    let Some(doc) = doc::read_xml(src.text, "a run configuration").or_report(src.path, &mut out)
    else {
        return out;
    };
    let project = if file_name(parent(src.path)) == ".run" {
        parent(parent(src.path))
    } else {
        parent(parent(parent(src.path)))
    };
    let lines = LineIndex::new(src.text);
    let root = doc.root_element();
    let configurations: Vec<Node<'_, '_>> = if root.has_tag_name("configuration") {
        vec![root]
    } else {
        root.descendants()
            .filter(|n| {
                n.has_tag_name("configuration")
                    && n.parent_element()
                        .is_some_and(|p| p.has_tag_name("component"))
            })
            .collect()
    };
    if configurations.is_empty() {
        out.diag(
            src.path,
            Some(lines.line(root.range().start)),
            "no <configuration> in this file",
        );
    }
    for config in configurations {
        if config.attribute("default") == Some("true") {
            continue;
        }
        let line = lines.line(config.range().start);
        let Some(name) = config.attribute("name").filter(|n| !n.trim().is_empty()) else {
            out.diag(
                src.path,
                Some(line),
                "a <configuration> without a `name` is skipped",
            );
            continue;
        };
        let kind = config.attribute("type").unwrap_or_default();
        let mut task = Task::new(Runner::Jetbrains, name, project, src.path, Vec::new());
        task.line = Some(line);
        task.group = config.attribute("folderName").map(str::to_owned);
        let label = label(kind, config);
        let ctx = Context { project, src };
        match ctx.build(kind, config) {
            Ok(command) => {
                task.description = Some(summary(label, &command.line));
                task.script = Some(command.line.clone());
                task.env.clone_from(&command.env);
                let mut line = String::new();
                if command.dir != project {
                    let _ = write!(
                        line,
                        "cd {} || exit; ",
                        quote_command(&[relative(project, &command.dir)])
                    );
                }
                for (key, value) in &command.env {
                    let _ = write!(line, "export {key}={}; ", quote_command(&[value]));
                }
                line.push_str(&command.line);
                line.push_str(" \"$@\"");
                task.argv = vec!["sh".to_owned(), "-c".to_owned(), line, "sh".to_owned()];
            }
            Err(reason) => {
                task.description = Some(format!("{label} run configuration"));
                task.behaviour.not_runnable = Some(reason.to_string());
            }
        }
        out.tasks.push(task);
    }
    out
}

/// What a configuration is, as the IDE names its kind.
fn label<'a>(kind: &'a str, config: Node<'a, '_>) -> &'a str {
    match kind {
        "ShConfigurationType" => "Shell Script",
        "js.build_tools.npm" => "npm",
        "GradleRunConfiguration" => "Gradle",
        "MavenRunConfiguration" => "Maven",
        "PythonConfigurationType" => "Python",
        "CargoCommandRunConfiguration" => "Cargo",
        "MAKEFILE_TARGET_RUN_CONFIGURATION" => "Makefile",
        "docker-deploy" => "Docker",
        other => config.attribute("factoryName").unwrap_or(other),
    }
}

/// The description of a runnable configuration: its kind and its command, cut to one
/// line of a listing.
fn summary(label: &str, line: &str) -> String {
    const MAX: usize = 160;
    let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut = match line.char_indices().nth(MAX) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    };
    format!("{label}: {cut}")
}

/// The `value` of `<option name="NAME" value="…"/>` among `node`'s children.
fn option<'a>(node: Node<'a, '_>, name: &str) -> Option<&'a str> {
    node.children()
        .find(|n| n.has_tag_name("option") && n.attribute("name") == Some(name))
        .and_then(|n| n.attribute("value"))
}

/// The `<option name="NAME">` element among `node`'s descendants.
fn option_node<'a, 'i>(node: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    node.descendants()
        .find(|n| n.has_tag_name("option") && n.attribute("name") == Some(name))
}

/// The `value`s of the `<option value="…"/>` items of a `<list>` (or `<set>`) under `node`.
fn list_values<'a>(node: Node<'a, '_>) -> Vec<&'a str> {
    node.descendants()
        .filter(|n| n.has_tag_name("option") && n.attribute("name").is_none())
        .filter_map(|n| n.attribute("value"))
        .collect()
}

/// The `<envs><env name value/></envs>` of a configuration.
fn envs(config: Node<'_, '_>) -> Vec<(String, String)> {
    config
        .children()
        .filter(|n| n.has_tag_name("envs"))
        .flat_map(|envs| envs.children().filter(|n| n.has_tag_name("env")))
        .filter_map(|env| {
            Some((
                env.attribute("name")?.to_owned(),
                env.attribute("value")?.to_owned(),
            ))
        })
        .filter(|(k, _)| !k.is_empty())
        .collect()
}

fn nonempty(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|v| !v.is_empty())
}

struct Context<'s> {
    project: &'s str,
    src: &'s Source<'s>,
}

impl Context<'_> {
    fn build(&self, kind: &str, config: Node<'_, '_>) -> Built {
        match kind {
            "ShConfigurationType" => self.shell(config),
            "js.build_tools.npm" => self.npm(config),
            "GradleRunConfiguration" => self.gradle(config),
            "MavenRunConfiguration" => self.maven(config),
            "PythonConfigurationType" => self.python(config),
            "CargoCommandRunConfiguration" => self.cargo(config),
            "MAKEFILE_TARGET_RUN_CONFIGURATION" => self.make(config),
            "docker-deploy" => self.docker(config),
            "CompoundRunConfiguration" => Err(IdeOnly::Compound),
            other => Err(IdeOnly::Kind(
                config.attribute("factoryName").unwrap_or(other).to_owned(),
            )),
        }
    }

    /// A macro-bearing text made concrete: `$PROJECT_DIR$` as a path relative to `from`,
    /// `$USER_HOME$` as `$HOME`; any other macro needs the IDE.
    fn expand(&self, text: &str, from: &str) -> Result<String, IdeOnly> {
        let mut out = String::new();
        let mut rest = text;
        while let Some(at) = rest.find('$') {
            out.push_str(&rest[..at]);
            let after = &rest[at + 1..];
            let Some(end) = after.find('$') else {
                out.push('$');
                rest = after;
                continue;
            };
            let name = &after[..end];
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                // A shell variable (`$HOME/x`), not a macro.
                out.push('$');
                rest = after;
                continue;
            }
            match name {
                "PROJECT_DIR" => out.push_str(&relative(from, self.project)),
                "USER_HOME" => out.push_str("$HOME"),
                other => {
                    return Err(IdeOnly::Macro(other.to_owned()));
                }
            }
            rest = &after[end + 1..];
        }
        out.push_str(rest);
        Ok(out)
    }

    /// A path option as a root-relative directory (`$PROJECT_DIR$/web`, a relative path, or
    /// `file://$PROJECT_DIR$` as Cargo writes it); empty means the project.
    fn dir(&self, value: Option<&str>) -> Result<String, IdeOnly> {
        let Some(value) = nonempty(value) else {
            return Ok(self.project.to_owned());
        };
        let value = value.strip_prefix("file://").unwrap_or(value);
        let rel = self.expand(value, self.project)?;
        join(self.project, &rel).ok_or_else(|| IdeOnly::DirOutside(value.to_owned()))
    }

    fn words(&self, text: Option<&str>, from: &str) -> Result<String, IdeOnly> {
        nonempty(text).map_or(Ok(String::new()), |t| {
            self.expand(t, from).map(|t| format!(" {t}"))
        })
    }

    fn command(&self, dir: String, env: Vec<(String, String)>, line: String) -> Built {
        let env = env
            .into_iter()
            .map(|(k, v)| Ok((k, self.expand(&v, &dir)?)))
            .collect::<Result<Vec<_>, IdeOnly>>()?;
        if let Some((bad, _)) = env.iter().find(|(k, _)| {
            k.starts_with(|c: char| c.is_ascii_digit())
                || !k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }) {
            return Err(IdeOnly::BadVariable(bad.clone()));
        }
        Ok(Command { dir, env, line })
    }

    fn shell(&self, config: Node<'_, '_>) -> Built {
        let dir = self.dir(option(config, "SCRIPT_WORKING_DIRECTORY"))?;
        let text = nonempty(option(config, "SCRIPT_TEXT"));
        let path = nonempty(option(config, "SCRIPT_PATH"));
        let run_file = match option(config, "EXECUTE_SCRIPT_FILE") {
            Some(v) => v == "true",
            None => text.is_none(),
        };
        let line = if run_file {
            let path = path.ok_or(IdeOnly::NamesNo("script to run"))?;
            let script = self.expand(path, &dir)?;
            let interpreter = nonempty(option(config, "INTERPRETER_PATH"));
            let mut line = match interpreter {
                None => quote_command(&[script]),
                Some(program) => {
                    let name = program.rsplit('/').next().unwrap_or(program);
                    if !POSIX_SHELLS.contains(&name) {
                        return Err(IdeOnly::NotPosixShell(program.to_owned()));
                    }
                    format!(
                        "{name}{} {}",
                        self.words(option(config, "INTERPRETER_OPTIONS"), &dir)?,
                        quote_command(&[script])
                    )
                }
            };
            line.push_str(&self.words(option(config, "SCRIPT_OPTIONS"), &dir)?);
            line
        } else {
            self.expand(text.ok_or(IdeOnly::HasNo("script text"))?, &dir)?
        };
        self.command(dir, envs(config), line)
    }

    fn npm(&self, config: Node<'_, '_>) -> Built {
        let value = |tag: &str| {
            config
                .children()
                .find(|n| n.has_tag_name(tag))
                .and_then(|n| n.attribute("value"))
        };
        let package = nonempty(value("package-json")).unwrap_or("$PROJECT_DIR$/package.json");
        let package = self.expand(package, self.project)?;
        let file = join(self.project, &package).ok_or(IdeOnly::FileOutside("package.json"))?;
        let dir = parent(&file).to_owned();
        let manager = match nonempty(value("package-manager")) {
            Some(pm) if pm.contains("yarn") => "yarn",
            Some(pm) if pm.contains("pnpm") => "pnpm",
            _ => "npm",
        };
        let command = nonempty(value("command")).unwrap_or("run");
        let scripts: Vec<&str> = config
            .descendants()
            .filter(|n| n.has_tag_name("script"))
            .filter_map(|n| n.attribute("value"))
            .collect();
        let mut line = format!("{manager} {}", quote_command(&[command]));
        if !scripts.is_empty() {
            line.push(' ');
            line.push_str(&quote_command(&scripts));
        }
        line.push_str(&self.words(value("arguments"), &dir)?);
        self.command(dir, envs(config), line)
    }

    /// `./gradlew` or `./mvnw` when the directory has the wrapper, else the tool.
    fn wrapper(&self, dir: &str, wrapper: &str, tool: &str) -> String {
        if join(dir, wrapper).is_some_and(|p| self.src.files.exists(&p)) {
            format!("./{wrapper}")
        } else {
            tool.to_owned()
        }
    }

    fn gradle(&self, config: Node<'_, '_>) -> Built {
        let settings = config
            .children()
            .find(|n| n.has_tag_name("ExternalSystemSettings"))
            .ok_or(IdeOnly::NoElement("ExternalSystemSettings"))?;
        let dir = self.dir(option(settings, "externalProjectPath"))?;
        let tasks = option_node(settings, "taskNames")
            .map(list_values)
            .unwrap_or_default();
        let mut line = self.wrapper(&dir, "gradlew", "gradle");
        if !tasks.is_empty() {
            line.push(' ');
            line.push_str(&quote_command(&tasks));
        }
        line.push_str(&self.words(option(settings, "scriptParameters"), &dir)?);
        let env = settings
            .descendants()
            .filter(|n| n.has_tag_name("entry"))
            .filter_map(|e| {
                Some((
                    e.attribute("key")?.to_owned(),
                    e.attribute("value")?.to_owned(),
                ))
            })
            .collect();
        self.command(dir, env, line)
    }

    fn maven(&self, config: Node<'_, '_>) -> Built {
        let params = config
            .descendants()
            .find(|n| n.has_tag_name("MavenRunnerParameters"))
            .ok_or(IdeOnly::NoElement("MavenRunnerParameters"))?;
        let dir = self.dir(option(params, "workingDirPath"))?;
        let goals = option_node(params, "goals")
            .map(list_values)
            .unwrap_or_default();
        let mut profiles: Vec<String> = option_node(params, "profiles")
            .map(list_values)
            .unwrap_or_default()
            .into_iter()
            .map(str::to_owned)
            .collect();
        if let Some(map) = option_node(params, "profilesMap") {
            for entry in map.descendants().filter(|n| n.has_tag_name("entry")) {
                let Some(key) = entry.attribute("key") else {
                    continue;
                };
                profiles.push(if entry.attribute("value") == Some("false") {
                    format!("!{key}")
                } else {
                    key.to_owned()
                });
            }
        }
        let mut line = self.wrapper(&dir, "mvnw", "mvn");
        if let Some(pom) = nonempty(option(params, "pomFileName")).filter(|p| *p != "pom.xml") {
            let _ = write!(line, " -f {}", quote_command(&[pom]));
        }
        if !profiles.is_empty() {
            let _ = write!(line, " -P {}", quote_command(&[profiles.join(",")]));
        }
        if !goals.is_empty() {
            line.push(' ');
            line.push_str(&quote_command(&goals));
        }
        line.push_str(&self.words(option(params, "cmdOptions"), &dir)?);
        self.command(dir, Vec::new(), line)
    }

    fn python(&self, config: Node<'_, '_>) -> Built {
        let dir = self.dir(option(config, "WORKING_DIRECTORY"))?;
        let target =
            nonempty(option(config, "SCRIPT_NAME")).ok_or(IdeOnly::NamesNo("script or module"))?;
        let module = option(config, "MODULE_MODE") == Some("true");
        let python = match nonempty(option(config, "SDK_HOME")) {
            Some(sdk) if sdk.contains("$PROJECT_DIR$") => quote_command(&[self.expand(sdk, &dir)?]),
            _ => "python3".to_owned(),
        };
        let mut line = python;
        line.push_str(&self.words(option(config, "INTERPRETER_OPTIONS"), &dir)?);
        if module {
            let _ = write!(line, " -m {}", quote_command(&[target]));
        } else {
            let _ = write!(line, " {}", quote_command(&[self.expand(target, &dir)?]));
        }
        line.push_str(&self.words(option(config, "PARAMETERS"), &dir)?);
        self.command(dir, envs(config), line)
    }

    fn cargo(&self, config: Node<'_, '_>) -> Built {
        let dir = self.dir(option(config, "workingDirectory"))?;
        let command = nonempty(option(config, "command")).ok_or(IdeOnly::HasNo("cargo command"))?;
        let line = format!("cargo {}", self.expand(command, &dir)?);
        self.command(dir, envs(config), line)
    }

    fn make(&self, config: Node<'_, '_>) -> Built {
        let makefile = config
            .children()
            .find(|n| n.has_tag_name("makefile"))
            .ok_or(IdeOnly::NoElement("makefile"))?;
        let file = nonempty(makefile.attribute("filename"))
            .map(|f| self.expand(f, self.project))
            .transpose()?
            .map(|f| join(self.project, &f).ok_or(IdeOnly::FileOutside("Makefile")))
            .transpose()?;
        let dir = match nonempty(makefile.attribute("workingDirectory")) {
            Some(wd) => self.dir(Some(wd))?,
            None => file.as_deref().map_or(self.project, parent).to_owned(),
        };
        let mut line = "make".to_owned();
        if let Some(file) = &file {
            let _ = write!(line, " -f {}", quote_command(&[relative(&dir, file)]));
        }
        if let Some(target) = nonempty(makefile.attribute("target")) {
            let _ = write!(line, " {}", quote_command(&[target]));
        }
        line.push_str(&self.words(makefile.attribute("arguments"), &dir)?);
        self.command(dir, envs(config), line)
    }

    fn docker(&self, config: Node<'_, '_>) -> Built {
        let deployment = config
            .children()
            .find(|n| n.has_tag_name("deployment"))
            .ok_or(IdeOnly::NoElement("deployment"))?;
        let settings = deployment
            .children()
            .find(|n| n.has_tag_name("settings"))
            .ok_or(IdeOnly::NoElement("settings"))?;
        let kind = deployment.attribute("type").unwrap_or_default();
        let source = nonempty(option(settings, "sourceFilePath"));
        let dir = self.project.to_owned();
        for bound in ["portBindings", "volumeBindings", "envVars"] {
            if option_node(settings, bound).is_some_and(|n| {
                n.descendants().any(|d| {
                    d.has_tag_name("DockerPortBindingImpl")
                        || d.has_tag_name("DockerVolumeBindingImpl")
                        || d.has_tag_name("DockerEnvVarImpl")
                })
            }) {
                return Err(IdeOnly::DockerSettings(bound));
            }
        }
        let run_options = self.words(option(settings, "runCliOptions"), &dir)?;
        let name = nonempty(option(settings, "containerName"))
            .map(|n| format!(" --name {}", quote_command(&[n])))
            .unwrap_or_default();
        let command = self.words(option(settings, "command"), &dir)?;
        let line = match kind {
            "docker-compose.yml" => {
                let file = source.ok_or(IdeOnly::NamesNo("compose file"))?;
                let services = option_node(settings, "services")
                    .map(list_values)
                    .unwrap_or_default();
                let mut line = format!(
                    "docker compose -f {} up",
                    quote_command(&[self.expand(file, &dir)?])
                );
                if !services.is_empty() {
                    line.push(' ');
                    line.push_str(&quote_command(&services));
                }
                line
            }
            "docker-image" => {
                let image =
                    nonempty(option(settings, "imageTag")).ok_or(IdeOnly::NamesNo("image"))?;
                format!(
                    "docker run{name}{run_options} {}{command}",
                    quote_command(&[image])
                )
            }
            "dockerfile" => {
                let file = source.ok_or(IdeOnly::NamesNo("Dockerfile"))?;
                let file = self.expand(file, &dir)?;
                let tag = nonempty(option(settings, "imageTag")).ok_or(IdeOnly::Untagged)?;
                let context = nonempty(option(settings, "contextFolderPath"))
                    .map_or(Ok(".".to_owned()), |c| self.expand(c, &dir))?;
                format!(
                    "docker build{} -t {tag} -f {} {} && docker run{name}{run_options} {tag}{command}",
                    self.words(option(settings, "buildCliOptions"), &dir)?,
                    quote_command(&[file]),
                    quote_command(&[context]),
                    tag = quote_command(&[tag]),
                )
            }
            other => {
                return Err(IdeOnly::DockerKind(other.to_owned()));
            }
        };
        self.command(dir, Vec::new(), line)
    }
}

#[cfg(test)]
mod tests;
