#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

const LAYOUT: common::Layout<'static> = common::Layout {
    main: "justfile",
    extra: &[
        "common.just",
        "inc.just",
        "m.just",
        "m/mod.just",
        "m/justfile",
        "sub/justfile",
        "sub/mod.just",
        "tools/mod.just",
        "docs/tasks.just",
        "x.just",
    ],
    markers: &[],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::just::ADAPTER, &LAYOUT, data);
});
