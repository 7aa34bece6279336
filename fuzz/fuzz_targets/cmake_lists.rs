#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

// Extra parts become what `add_subdirectory(sub)` and `include(cmake/x.cmake)` read (the
// seeds name both, and the top file again for a cycle).
const LAYOUT: common::Layout<'static> = common::Layout {
    main: "CMakeLists.txt",
    extra: &["sub/CMakeLists.txt", "cmake/x.cmake", "sub/deeper/CMakeLists.txt"],
    markers: &[],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::cmake::ADAPTER, &LAYOUT, data);
});
