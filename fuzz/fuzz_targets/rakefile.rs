#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

const LAYOUT: common::Layout<'static> = common::Layout {
    main: "Rakefile",
    extra: &["rakelib/a.rake", "tasks/b.rake", "lib/tasks/c.rake", "other.rake"],
    markers: &[],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::rake::ADAPTER, &LAYOUT, data);
});
