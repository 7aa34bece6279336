#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

// Extra parts become the user's presets file, files an `include` may name (the seeds include
// `cmake/a.json` and `cmake/b.json`, and `CMakePresets.json` itself for a cycle) and the
// project's `CMakeLists.txt`.
const LAYOUT: common::Layout<'static> = common::Layout {
    main: "CMakePresets.json",
    extra: &[
        "CMakeUserPresets.json",
        "cmake/a.json",
        "cmake/b.json",
        "CMakeLists.txt",
    ],
    markers: &[],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::cmake::ADAPTER, &LAYOUT, data);
});
