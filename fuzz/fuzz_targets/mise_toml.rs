#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

// The extra parts land on the project's other config files (merged by precedence) and on the
// TOML task files an include or a task directory holds.
const LAYOUT: common::Layout<'static> = common::Layout {
    main: "mise.toml",
    extra: &[
        "mise.local.toml",
        ".config/mise/config.toml",
        ".mise/conf.d/10-ci.toml",
        "tasks.toml",
        "mise-tasks/more.toml",
    ],
    markers: &[],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::mise::ADAPTER, &LAYOUT, data);
});
