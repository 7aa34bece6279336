#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

// Extra parts become the directory's other Go files, tagged or not as their text says.
const LAYOUT: common::Layout<'static> = common::Layout {
    main: "magefile.go",
    extra: &["release.go", "helpers.go", "magefile_linux.go"],
    markers: &[],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::mage::ADAPTER, &LAYOUT, data);
});
