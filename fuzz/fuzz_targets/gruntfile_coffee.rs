#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

// CoffeeScript's implicit objects and calls without parentheses.
const LAYOUT: common::Layout<'static> = common::Layout {
    main: "Gruntfile.coffee",
    extra: &["tasks/a.coffee", "tasks/b.js"],
    markers: &[],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::jscode::GRUNT, &LAYOUT, data);
});
