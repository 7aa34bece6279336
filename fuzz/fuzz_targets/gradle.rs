#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

// The settings file is the build's root; extra parts become the root build script (Groovy)
// and the scripts of the subprojects a seed includes (`app` in the Kotlin DSL, `lib` and
// `tools:codegen` in Groovy), so both DSLs' readers see fuzzed text.
const LAYOUT: common::Layout<'static> = common::Layout {
    main: "settings.gradle",
    extra: &[
        "build.gradle",
        "app/build.gradle.kts",
        "lib/build.gradle",
        "tools/codegen/build.gradle",
    ],
    markers: &["buildSrc/build.gradle.kts"],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::jvm::GRADLE, &LAYOUT, data);
});
