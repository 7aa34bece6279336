#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

// Marker parts make the Gradle and Maven wrappers present.
const LAYOUT: common::Layout<'static> = common::Layout {
    main: "app/.run/build.run.xml",
    extra: &[],
    markers: &["app/gradlew", "app/mvnw"],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::jetbrains::ADAPTER, &LAYOUT, data);
});
