#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

const LAYOUT: common::Layout<'static> = common::Layout {
    main: "composer.json",
    extra: &[],
    markers: &[],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::composer::ADAPTER, &LAYOUT, data);
});
