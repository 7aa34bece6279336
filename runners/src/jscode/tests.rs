//! gulpfiles and Gruntfiles read as gulp and grunt would register their tasks.

use super::{GRUNT, GULP};
use crate::files::MemFiles;
use crate::model::Parsed;
use crate::testing::{lines, names, parse_one, parse_with, task};
use indoc::indoc;

fn gulp(text: &str) -> Parsed {
    parse_one(GULP.parse, "gulpfile.js", text)
}

fn grunt(text: &str) -> Parsed {
    parse_one(GRUNT.parse, "Gruntfile.js", text)
}

/// The text of an indented block, its common indentation removed.
fn dedent(text: &str) -> String {
    let text = text.strip_prefix('\n').unwrap_or(text);
    let indent = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    text.lines()
        .map(|l| l.get(indent..).unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

fn sorted(parsed: &Parsed) -> Vec<&str> {
    let mut names = names(parsed);
    names.sort_unstable();
    names
}

#[test]
fn gulp_lists_exports_and_task_calls_with_their_compositions() {
    let parsed = gulp(&dedent(
        r"
        const { series, parallel, task } = require('gulp');
        function clean(cb) { cb(); }
        clean.description = 'Remove the build output';
        function css(cb) { cb(); }
        const js = (cb) => cb();
        js.flags = { '--prod': 'Minify the bundle' };
        const build = series(clean, parallel(css, js));
        build.description = 'Build everything';
        const config = { out: 'dist' };
        exports.clean = clean;
        exports.build = build;
        exports.js = js;
        exports.config = config;
        exports.default = build;
        task('lint', function (cb) { cb(); });
        task('watch', series('lint', js));
        // task('commented', x);
        const s = 'task(\'in a string\', x)';
    ",
    ));
    assert_eq!(
        sorted(&parsed),
        ["build", "clean", "default", "js", "lint", "watch"]
    );
    let build = task(&parsed, "build");
    assert_eq!(build.description.as_deref(), Some("Build everything"));
    assert_eq!(build.deps, ["clean", "js"]);
    assert_eq!(build.argv, ["gulp", "build"]);
    assert_eq!(
        build.script.as_deref(),
        Some("series(clean, parallel(css, js))")
    );
    assert_eq!(
        task(&parsed, "default").description.as_deref(),
        Some("Build everything")
    );
    assert_eq!(task(&parsed, "watch").deps, ["lint", "js"]);
    let js = task(&parsed, "js");
    assert_eq!(js.params[0].flags, ["--prod"]);
    assert_eq!(js.params[0].help.as_deref(), Some("Minify the bundle"));
    assert_eq!(task(&parsed, "clean").line, Some(10));
    assert!(lines(&parsed).is_empty());
}

#[test]
fn gulp_reads_es_modules_typescript_and_gulp_3() {
    let esm = parse_one(
        GULP.parse,
        "web/gulpfile.ts",
        &dedent(
            r"
            import gulp from 'gulp';
            import { styles } from './tasks/styles';
            export async function scripts(): Promise<void> {}
            export const build: gulp.TaskFunction = gulp.series(scripts, styles);
            const serve = () => {};
            export { serve, styles as css };
            export default build;
            export const VERSION = '1.0';
        ",
        ),
    );
    assert_eq!(
        sorted(&esm),
        ["build", "css", "default", "scripts", "serve"]
    );
    assert_eq!(task(&esm, "build").dir, "web");
    assert_eq!(task(&esm, "build").deps, ["scripts", "css"]);
    let old = gulp(indoc! {"
        var gulp = require('gulp');
        gulp.task('default', ['lint', 'test'], function () {});
        gulp.task(\"lint\", function () {});
    "});
    assert_eq!(task(&old, "default").deps, ["lint", "test"]);
    let object = gulp(
        "module.exports = { build, clean: wipe, lint() {}, watch: async () => {}, port: 8080 };",
    );
    assert_eq!(sorted(&object), ["build", "clean", "lint", "watch"]);
}

#[test]
fn gulpfile_directories_run_from_the_directory_above() {
    let parsed = parse_one(
        GULP.parse,
        "site/gulpfile.js/index.js",
        "exports.build = require('./build');\n",
    );
    assert_eq!(task(&parsed, "build").dir, "site");
    assert_eq!((GULP.candidate)("site/gulpfile.js/index.js"), Some(0));
    assert_eq!((GULP.candidate)("Gulpfile.js"), Some(0));
    assert_eq!((GULP.candidate)("gulpfile.mjs"), Some(2));
    assert_eq!((GULP.candidate)("src/index.js"), None);
    assert_eq!((GULP.candidate)("gulpfile.js/tasks/build.js"), None);
    // Names that are not ASCII are compared, never cut inside a character.
    assert_eq!((GULP.candidate)("gulpfileé/index.js"), None);
    assert_eq!((GULP.candidate)("é"), None);
}

#[test]
fn grunt_lists_registered_tasks_aliases_and_configured_targets() {
    let parsed = grunt(&dedent(
        r"
        module.exports = function (grunt) {
          grunt.initConfig({
            pkg: grunt.file.readJSON('package.json'),
            concat: { options: { separator: ';' }, dist: { src: ['a.js'] }, extra: {} },
            uglify: { build: {} },
            log: { foo: [1, 2], bar: 'hello' },
            notes: { a: 1 }
          });
          grunt.loadNpmTasks('grunt-contrib-concat');
          grunt.loadNpmTasks('grunt-contrib-uglify');
          grunt.registerTask('default', ['concat', 'uglify:build']);
          grunt.registerTask('hello', 'Say hello.', function () {});
          grunt.registerMultiTask('log', 'Log stuff.', function () {});
          grunt.registerTask('build', 'Build it all.', ['concat']);
          grunt.registerTask('quick', 'concat uglify');
        };
    ",
    ));
    assert_eq!(
        sorted(&parsed),
        [
            "build",
            "concat",
            "concat:dist",
            "concat:extra",
            "default",
            "hello",
            "log",
            "log:bar",
            "log:foo",
            "quick",
            "uglify",
            "uglify:build"
        ]
    );
    let default = task(&parsed, "default");
    assert_eq!(default.deps, ["concat", "uglify:build"]);
    assert_eq!(
        default.description.as_deref(),
        Some(r#"Alias for "concat", "uglify:build" tasks."#)
    );
    assert_eq!(task(&parsed, "quick").deps, ["concat", "uglify"]);
    assert_eq!(
        task(&parsed, "build").description.as_deref(),
        Some("Build it all.")
    );
    assert_eq!(
        task(&parsed, "hello").description.as_deref(),
        Some("Say hello.")
    );
    assert_eq!(
        task(&parsed, "concat").plugin.as_deref(),
        Some("grunt-contrib-concat")
    );
    assert_eq!(task(&parsed, "log:foo").plugin, None);
    assert_eq!(task(&parsed, "concat:dist").argv, ["grunt", "concat:dist"]);
}

#[test]
fn grunt_reads_coffeescript_and_loaded_task_files() {
    let files = MemFiles::new()
        .with(
            "Gruntfile.coffee",
            &dedent(
                r"
                module.exports = (grunt) ->
                  grunt.initConfig
                    pkg: grunt.file.readJSON 'package.json'
                    coffee:
                      options:
                        bare: true
                      compile:
                        files: 'a.js': 'a.coffee'
                      tests:
                        files: 'b.js': 'b.coffee'
                  require('load-grunt-tasks') grunt
                  grunt.loadTasks 'tasks'
                  grunt.registerTask 'default', ['coffee', 'stamp']
                  grunt.registerTask 'check', 'Check it.', ->
                    grunt.log.ok()
            ",
            ),
        )
        .with(
            "tasks/stamp.js",
            indoc! {"
                module.exports = function (grunt) {
                  grunt.registerMultiTask('stamp', 'Stamp files.', function () {});
                };
            "},
        );
    let parsed = parse_with(GRUNT.parse, &files, "Gruntfile.coffee");
    assert_eq!(
        sorted(&parsed),
        [
            "check",
            "coffee",
            "coffee:compile",
            "coffee:tests",
            "default",
            "stamp"
        ]
    );
    assert_eq!(
        task(&parsed, "coffee").plugin.as_deref(),
        Some("load-grunt-tasks")
    );
    assert_eq!(task(&parsed, "stamp").file_path, "tasks/stamp.js");
    assert_eq!(
        task(&parsed, "check").description.as_deref(),
        Some("Check it.")
    );
}

#[test]
fn what_node_cannot_load_is_said_and_the_rest_still_listed() {
    let parsed = gulp(indoc! {"
        exports.a = () => {};
        const s = 'open
        exports.b = () => {};
    "});
    assert_eq!(sorted(&parsed), ["a", "b"]);
    assert_eq!(lines(&parsed)[0].0, Some(2));
    let parsed = grunt("grunt.registerTask('a', function () {});\n/* open");
    assert_eq!(names(&parsed), ["a"]);
    assert_eq!(lines(&parsed)[0].0, Some(2));
}

#[test]
fn hostile_gulpfiles_stay_linear() {
    // A minified file and one a hundred thousand brackets deep are read in one pass each.
    let deep = format!(
        "{}exports.x = 1{}",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    assert!(gulp(&deep).tasks.is_empty());
    let nested = format!(
        "exports.y = series({}'a'{});",
        "series(".repeat(50_000),
        ")".repeat(50_000)
    );
    assert_eq!(names(&gulp(&nested)), ["y"]);
    let minified = "function a(b){return b}exports.a=a;".repeat(20_000);
    assert_eq!(names(&gulp(&minified)), ["a"]);
    let calls = "task(".repeat(100_000);
    assert!(gulp(&calls).tasks.is_empty());
    let keys = format!("grunt.initConfig({{{}}});", "k: { t: {} },".repeat(20_000));
    assert!(!grunt(&keys).tasks.is_empty() || grunt(&keys).tasks.is_empty());
}

#[test]
fn a_getter_with_a_parameter_registers_nothing() {
    // Semantic UI's gulpfile: `gulp.task(name)` looks a task up by a parameter's value.
    let parsed = gulp(indoc! {"
        var gulp = require('gulp');
        var watch = require('./tasks/watch');
        gulp.start = function (name) {
          let task = gulp.task(name);
          if (task) { task(); }
        };
        gulp.task(watch);
        gulp.task('default', watch);
    "});
    assert_eq!(sorted(&parsed), ["default", "watch"]);
}
