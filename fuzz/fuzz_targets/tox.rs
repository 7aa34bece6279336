#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

// tox.ini is the main file; an extra part becomes the `pyproject.toml` whose `[tool.tox]`
// (or `legacy_tox_ini`) the pyproject target reads.
const LAYOUT: common::Layout<'static> = common::Layout {
    main: "tox.ini",
    extra: &["pyproject.toml", "tox.toml"],
    markers: &[],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::python::TOX, &LAYOUT, data);
});
