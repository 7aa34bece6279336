#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

const LAYOUT: common::Layout<'static> = common::Layout {
    main: "apps/web/package.json",
    extra: &["package.json", "apps/package.json"],
    markers: &["apps/web/pnpm-lock.yaml", "yarn.lock", "apps/web/bun.lockb"],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::js::package_json::ADAPTER, &LAYOUT, data);
});
