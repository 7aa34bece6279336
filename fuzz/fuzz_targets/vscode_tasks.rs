#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

// A workspace folder below the root, so relative paths between the folder, `options.cwd`
// and the root are exercised.
const LAYOUT: common::Layout<'static> = common::Layout {
    main: "apps/web/.vscode/tasks.json",
    extra: &[],
    markers: &["apps/web/package.json"],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::vscode::ADAPTER, &LAYOUT, data);
});
