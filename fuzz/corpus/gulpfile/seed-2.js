// gulp 3's dependency arrays: gulp 4 and later refuse them.
var gulp = require('gulp');

gulp.task('lint', function () {});
gulp.task('test', ['lint'], function () {});
gulp.task('default', ['lint', 'test']);
