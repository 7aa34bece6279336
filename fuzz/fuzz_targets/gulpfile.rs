#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

// A gulpfile split into a directory, so the task directory is the one above it.
const LAYOUT: common::Layout<'static> = common::Layout {
    main: "site/gulpfile.js/index.js",
    extra: &[],
    markers: &[],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::jscode::GULP, &LAYOUT, data);
});
