// The grunt documentation's sample Gruntfile, with a local task directory.
module.exports = function (grunt) {
  grunt.initConfig({
    pkg: grunt.file.readJSON('package.json'),
    concat: {
      options: { separator: ';' },
      dist: { src: ['src/**/*.js'], dest: 'dist/<%= pkg.name %>.js' },
    },
    uglify: {
      dist: { files: { 'dist/app.min.js': ['<%= concat.dist.dest %>'] } },
    },
    stamp: {
      options: { by: 'ci' },
      release: { files: ['dist/*.js'] },
      nightly: { files: ['dist/*.js'] },
    },
  });

  grunt.loadNpmTasks('grunt-contrib-concat');
  grunt.loadNpmTasks('grunt-contrib-uglify');
  grunt.loadTasks('tasks');

  grunt.registerTask('default', ['concat', 'uglify']);
  grunt.registerTask('release', 'Build and stamp a release.', ['default', 'stamp:release']);
  grunt.registerTask('hello', 'Say hello.', function (name) {
    grunt.log.writeln('hello ' + (name || 'world'));
  });
  grunt.registerTask('quick', 'concat');
};
