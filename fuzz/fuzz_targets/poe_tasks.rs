#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

// The main file is YAML: the TOML reader is fuzzed through `pyproject`, and the includes
// here are TOML, YAML and JSON.
const LAYOUT: common::Layout<'static> = common::Layout {
    main: "poe_tasks.yaml",
    extra: &["tasks/extra.toml", "extra.yaml", "extra.json", "pyproject.toml"],
    markers: &[],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::python::POE_TASKS, &LAYOUT, data);
});
