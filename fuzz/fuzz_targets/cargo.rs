#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

const LAYOUT: common::Layout<'static> = common::Layout {
    main: ".cargo/config.toml",
    extra: &[
        ".cargo/config",
        ".cargo/inc.toml",
        "other.toml",
        "sub/.cargo/config.toml",
        "Cargo.toml",
    ],
    markers: &[],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::cargo::ADAPTER, &LAYOUT, data);
});
