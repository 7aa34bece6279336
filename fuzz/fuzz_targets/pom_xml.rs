#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

// pom.xml is the reactor root; extra parts become the POMs of the modules a seed names
// (`core`, `web`, `web/client`), so module lists, cycles and broken modules are reached.
const LAYOUT: common::Layout<'static> = common::Layout {
    main: "pom.xml",
    extra: &["core/pom.xml", "web/pom.xml", "web/client/pom.xml"],
    markers: &[],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::jvm::MAVEN, &LAYOUT, data);
});
