#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

const LAYOUT: common::Layout<'static> = common::Layout {
    main: "Makefile",
    extra: &[
        "inc.mk",
        "common.mk",
        "config.mk",
        "rules.mk",
        "sub/inc.mk",
        "sub/Makefile",
        "Makefile.inc",
        ".env",
    ],
    markers: &[],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::make::ADAPTER, &LAYOUT, data);
});
