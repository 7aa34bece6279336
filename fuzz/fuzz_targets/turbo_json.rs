#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

// A package's turbo.json is the main file, so an input with `"extends": ["//"]` reads the
// root turbo.json and the package.json beside it (extra parts); one without is a root
// configuration itself.
const LAYOUT: common::Layout<'static> = common::Layout {
    main: "apps/web/turbo.json",
    extra: &["turbo.json", "apps/web/package.json", "package.json"],
    markers: &["pnpm-lock.yaml", "apps/web/turbo.jsonc"],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::js::TURBO, &LAYOUT, data);
});
