// The gulp documentation's own shapes: exported functions, a composition, a
// description and flags, and task() calls.
const { series, parallel, task, src, dest } = require('gulp');

function clean(cb) {
  // task('not-a-task', x) in a comment is not a task
  cb();
}
clean.description = 'Remove the build output';

function css(cb) {
  cb();
}

const javascript = (cb) => cb();
javascript.description = 'Bundle the scripts';
javascript.flags = { '--prod': 'Minify the bundle' };

const build = series(clean, parallel(css, javascript));
build.description = 'Build everything';

const settings = { out: 'dist', pattern: /task\('x'\)/ };

task('lint', function (cb) {
  cb();
});
task('watch', series('lint', javascript));

exports.clean = clean;
exports.build = build;
exports.javascript = javascript;
exports.settings = settings;
exports.default = build;
