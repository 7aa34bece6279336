//! Run configurations read as the IDE would run them.

use super::ADAPTER;
use crate::files::MemFiles;
use crate::model::Parsed;
use crate::testing::{lines, names, parse_with, task};
use indoc::{formatdoc, indoc};

fn config(body: &str) -> String {
    formatdoc! {"
        <component name=\"ProjectRunConfigurationManager\">
        {body}
        </component>
    "}
}

fn parse(files: &MemFiles, path: &str) -> Parsed {
    parse_with(ADAPTER.parse, files, path)
}

fn one(path: &str, body: &str) -> Parsed {
    parse(&MemFiles::new().with(path, &config(body)), path)
}

/// The shell line a configuration runs.
fn line(parsed: &Parsed, name: &str) -> String {
    let t = task(parsed, name);
    assert_eq!(
        t.argv.first().map(String::as_str),
        Some("sh"),
        "{name}: {:?}",
        t.behaviour
    );
    t.argv[2].clone()
}

#[test]
fn commands_of_each_kind_are_built_as_the_ide_runs_them() {
    let files = MemFiles::new()
        .with("gradlew", "#!/bin/sh\n")
        .with(".run/Shell.run.xml", &config(r#"<configuration default="false" name="Seed" type="ShConfigurationType" folderName="db">
    <option name="SCRIPT_TEXT" value="./seed.sh --fresh &amp;&amp; echo done" />
    <option name="INDEPENDENT_SCRIPT_WORKING_DIRECTORY" value="true" />
    <option name="SCRIPT_WORKING_DIRECTORY" value="$PROJECT_DIR$/db" />
    <option name="EXECUTE_SCRIPT_FILE" value="false" />
    <envs><env name="DB" value="local" /></envs>
  </configuration>"#))
        .with(".run/File.run.xml", &config(r#"<configuration name="Lint" type="ShConfigurationType">
    <option name="SCRIPT_PATH" value="$PROJECT_DIR$/scripts/lint.sh" />
    <option name="SCRIPT_OPTIONS" value="--all" />
    <option name="INTERPRETER_PATH" value="/bin/bash" />
    <option name="EXECUTE_SCRIPT_FILE" value="true" />
  </configuration>"#))
        .with(".run/npm.run.xml", &config(r#"<configuration name="dev" type="js.build_tools.npm">
    <package-json value="$PROJECT_DIR$/web/package.json" />
    <command value="run" />
    <scripts><script value="dev" /></scripts>
    <arguments value="--port 3000" />
    <node-interpreter value="project" />
  </configuration>"#))
        .with(".run/gradle.run.xml", &config(r#"<configuration name="app [build]" type="GradleRunConfiguration" factoryName="Gradle">
    <ExternalSystemSettings>
      <option name="externalProjectPath" value="$PROJECT_DIR$" />
      <option name="scriptParameters" value="--info" />
      <option name="taskNames"><list><option value="clean" /><option value="build" /></list></option>
    </ExternalSystemSettings>
  </configuration>"#))
        .with(".run/maven.run.xml", &config(r#"<configuration name="install" type="MavenRunConfiguration" factoryName="Maven">
    <MavenSettings><option name="myRunnerParameters"><MavenRunnerParameters>
      <option name="goals"><list><option value="clean" /><option value="install" /></list></option>
      <option name="profilesMap"><map><entry key="dev" value="true" /><entry key="slow" value="false" /></map></option>
      <option name="workingDirPath" value="$PROJECT_DIR$/server" />
    </MavenRunnerParameters></option></MavenSettings>
  </configuration>"#))
        .with(".run/python.run.xml", &config(r#"<configuration name="serve" type="PythonConfigurationType" factoryName="Python">
    <option name="SDK_HOME" value="$PROJECT_DIR$/.venv/bin/python" />
    <option name="WORKING_DIRECTORY" value="$PROJECT_DIR$" />
    <option name="SCRIPT_NAME" value="http.server" />
    <option name="PARAMETERS" value="8000" />
    <option name="MODULE_MODE" value="true" />
    <envs><env name="PYTHONUNBUFFERED" value="1" /></envs>
  </configuration>"#))
        .with(".run/cargo.run.xml", &config(r#"<configuration name="Run cli" type="CargoCommandRunConfiguration" factoryName="Cargo Command">
    <option name="command" value="run --package cli --bin cli" />
    <option name="workingDirectory" value="file://$PROJECT_DIR$" />
  </configuration>"#))
        .with(".run/make.run.xml", &config(r#"<configuration name="docs" type="MAKEFILE_TARGET_RUN_CONFIGURATION" factoryName="Makefile">
    <makefile filename="$PROJECT_DIR$/docs/Makefile" target="html" workingDirectory="" arguments="-j2" />
  </configuration>"#))
        .with(".run/compose.run.xml", &config(r#"<configuration name="stack" type="docker-deploy" factoryName="docker-compose.yml" server-name="Docker">
    <deployment type="docker-compose.yml"><settings>
      <option name="services"><list><option value="db" /></list></option>
      <option name="sourceFilePath" value="compose.yaml" />
    </settings></deployment>
  </configuration>"#));
    let shell = parse(&files, ".run/Shell.run.xml");
    assert_eq!(
        line(&shell, "Seed"),
        r#"cd db || exit; export DB=local; ./seed.sh --fresh && echo done "$@""#
    );
    assert_eq!(task(&shell, "Seed").group.as_deref(), Some("db"));
    assert_eq!(task(&shell, "Seed").dir, ".");
    assert_eq!(
        line(&parse(&files, ".run/File.run.xml"), "Lint"),
        r#"bash ./scripts/lint.sh --all "$@""#
    );
    assert_eq!(
        line(&parse(&files, ".run/npm.run.xml"), "dev"),
        r#"cd web || exit; npm run dev --port 3000 "$@""#
    );
    assert_eq!(
        line(&parse(&files, ".run/gradle.run.xml"), "app [build]"),
        r#"./gradlew clean build --info "$@""#
    );
    assert_eq!(
        line(&parse(&files, ".run/maven.run.xml"), "install"),
        r#"cd server || exit; mvn -P 'dev,!slow' clean install "$@""#
    );
    assert_eq!(
        line(&parse(&files, ".run/python.run.xml"), "serve"),
        r#"export PYTHONUNBUFFERED=1; ./.venv/bin/python -m http.server 8000 "$@""#
    );
    assert_eq!(
        line(&parse(&files, ".run/cargo.run.xml"), "Run cli"),
        r#"cargo run --package cli --bin cli "$@""#
    );
    assert_eq!(
        line(&parse(&files, ".run/make.run.xml"), "docs"),
        r#"cd docs || exit; make -f Makefile html -j2 "$@""#
    );
    assert_eq!(
        line(&parse(&files, ".run/compose.run.xml"), "stack"),
        r#"docker compose -f compose.yaml up db "$@""#
    );
}

#[test]
fn what_only_the_ide_can_run_is_listed_with_the_reason() {
    let parsed = one(
        ".idea/runConfigurations/App.xml",
        r#"<configuration name="App" type="Application" factoryName="Application">
    <option name="MAIN_CLASS_NAME" value="com.acme.Main" />
  </configuration>
  <configuration name="Current file" type="PythonConfigurationType" factoryName="Python">
    <option name="SCRIPT_NAME" value="$FilePath$" />
  </configuration>
  <configuration default="true" type="Application" factoryName="Application" />
  <configuration name="All" type="CompoundRunConfiguration"><toRun name="App" type="Application" /></configuration>
  <configuration name="PS" type="ShConfigurationType">
    <option name="SCRIPT_PATH" value="$PROJECT_DIR$/x.ps1" />
    <option name="INTERPRETER_PATH" value="powershell.exe" />
  </configuration>"#,
    );
    assert_eq!(names(&parsed), ["App", "Current file", "All", "PS"]);
    for t in &parsed.tasks {
        assert!(t.argv.is_empty(), "{}", t.source_name);
        assert!(t.behaviour.not_runnable.is_some(), "{}", t.source_name);
    }
    assert!(
        task(&parsed, "App")
            .behaviour
            .not_runnable
            .as_deref()
            .is_some_and(|r| r.contains("Application"))
    );
    assert!(
        task(&parsed, "Current file")
            .behaviour
            .not_runnable
            .as_deref()
            .is_some_and(|r| r.contains("$FilePath$"))
    );
    assert_eq!(task(&parsed, "App").dir, ".");
}

#[test]
fn bad_files_are_said_at_their_line_and_dtds_are_refused() {
    let bomb = indoc! {"
        <?xml version=\"1.0\"?>
        <!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;&lol;\">]>
        <component><configuration name=\"&lol2;\" type=\"ShConfigurationType\"/></component>"};
    let parsed = parse(
        &MemFiles::new().with(".run/x.run.xml", bomb),
        ".run/x.run.xml",
    );
    assert!(parsed.tasks.is_empty());
    assert_eq!(lines(&parsed)[0].0, Some(2));
    let broken = parse(
        &MemFiles::new().with(
            ".run/y.run.xml",
            indoc! {"
                <component>
                <configuration name=\"a\">
                </component>"},
        ),
        ".run/y.run.xml",
    );
    assert!(broken.tasks.is_empty());
    assert!(lines(&broken)[0].1.starts_with("invalid XML"));
    let outside = one(
        ".run/z.run.xml",
        r#"<configuration name="z" type="ShConfigurationType"><option name="SCRIPT_TEXT" value="ls" /><option name="SCRIPT_WORKING_DIRECTORY" value="$PROJECT_DIR$/../.." /></configuration>"#,
    );
    assert!(task(&outside, "z").behaviour.not_runnable.is_some());
    assert_eq!((ADAPTER.candidate)("app/.run/a.run.xml"), Some(0));
    assert_eq!((ADAPTER.candidate)(".run/notes.xml"), None);
    assert_eq!((ADAPTER.candidate)(".idea/workspace.xml"), None);
}
