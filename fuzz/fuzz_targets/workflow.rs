#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

// A workflow reads no other file.
const LAYOUT: common::Layout<'static> = common::Layout {
    main: ".github/workflows/ci.yml",
    extra: &[],
    markers: &[],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::act::ADAPTER, &LAYOUT, data);
});
