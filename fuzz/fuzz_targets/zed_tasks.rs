#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

// A worktree below the root, so `cwd` is resolved against a directory other than the root.
const LAYOUT: common::Layout<'static> = common::Layout {
    main: "apps/web/.zed/tasks.json",
    extra: &[],
    markers: &[],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::zed::ADAPTER, &LAYOUT, data);
});
