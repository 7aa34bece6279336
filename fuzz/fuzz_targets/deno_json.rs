#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

// A workspace member: extra parts become the workspace root's configuration above it, a
// configuration in between, and one of its own members, so member checks and the walk up
// to the root both see fuzzed text.
const LAYOUT: common::Layout<'static> = common::Layout {
    main: "packages/api/deno.json",
    extra: &["deno.json", "packages/deno.jsonc", "packages/api/lib/deno.json"],
    markers: &["packages/api/deno.jsonc", "packages/api/docs/README.md"],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::deno::ADAPTER, &LAYOUT, data);
});
