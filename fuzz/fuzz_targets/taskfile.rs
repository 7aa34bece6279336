#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

const LAYOUT: common::Layout<'static> = common::Layout {
    main: "Taskfile.yml",
    extra: &[
        "docs/Taskfile.yml",
        "lib/Taskfile.yml",
        "lib/nested/Taskfile.yaml",
        "inc.yml",
        "helpers.yml",
        "tools/Taskfile.yml",
        "Taskfile.dist.yml",
    ],
    markers: &[],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::taskfile::ADAPTER, &LAYOUT, data);
});
