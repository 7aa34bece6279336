#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

// Extra parts become task files of `grunt.loadTasks('tasks')`, in JavaScript and CoffeeScript.
const LAYOUT: common::Layout<'static> = common::Layout {
    main: "Gruntfile.js",
    extra: &["tasks/a.js", "tasks/b.coffee", "grunt/c.js"],
    markers: &[],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::jscode::GRUNT, &LAYOUT, data);
});
