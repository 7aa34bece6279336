#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

const LAYOUT: common::Layout<'static> = common::Layout {
    main: "pyproject.toml",
    extra: &[
        "tasks/extra.toml",
        "poe_tasks.yaml",
        "hatch.toml",
        "sub/pyproject.toml",
    ],
    markers: &["uv.lock", "poetry.lock", "tox.ini"],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::python::PYPROJECT, &LAYOUT, data);
});
