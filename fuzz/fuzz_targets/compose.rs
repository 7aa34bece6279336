#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

// Extra parts become the override file and files an `include` may name (the seeds include
// `infra/db.yaml` and `other.yaml`, and `compose.yaml` itself for a cycle).
const LAYOUT: common::Layout<'static> = common::Layout {
    main: "compose.yaml",
    extra: &[
        "compose.override.yml",
        "infra/db.yaml",
        "other.yaml",
        "infra/nested/more.yaml",
    ],
    markers: &[],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::compose::ADAPTER, &LAYOUT, data);
});
