#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

const LAYOUT: common::Layout<'static> = common::Layout {
    main: "docs/README.md",
    extra: &["README.md"],
    markers: &[],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::xc::ADAPTER, &LAYOUT, data);
});
