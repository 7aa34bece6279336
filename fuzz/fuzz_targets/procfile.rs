#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

const LAYOUT: common::Layout<'static> = common::Layout {
    main: "Procfile",
    extra: &["bin/dev", "Gemfile", "requirements.txt", ".overmind.env"],
    markers: &[],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::procfile::ADAPTER, &LAYOUT, data);
});
