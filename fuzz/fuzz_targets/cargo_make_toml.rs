#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

const LAYOUT: common::Layout<'static> = common::Layout {
    main: "Makefile.toml",
    extra: &["tasks/common.toml", "other.toml", "Cargo.toml"],
    markers: &[],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::cargo_make::ADAPTER, &LAYOUT, data);
});
