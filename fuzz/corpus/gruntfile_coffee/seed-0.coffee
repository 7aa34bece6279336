# A CoffeeScript Gruntfile, as older projects write them.
module.exports = (grunt) ->
  grunt.initConfig
    pkg: grunt.file.readJSON 'package.json'
    coffee:
      options:
        bare: true
      compile:
        files: 'lib/app.js': 'src/app.coffee'
  grunt.loadNpmTasks 'grunt-contrib-coffee'
  grunt.registerTask 'default', ['coffee']
  grunt.registerTask 'check', 'Check the sources.', ->
    grunt.log.ok 'checked'
