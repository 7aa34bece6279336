#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

const LAYOUT: common::Layout<'static> = common::Layout {
    main: "tasks/__init__.py",
    extra: &["tasks/docs.py", "tasks/docs/__init__.py", "tasks/release.py", "tasks.py"],
    markers: &[],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::invoke::ADAPTER, &LAYOUT, data);
});
