#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;

// project.json is the main file; extra parts become nx.json (its `targetDefaults`) and the
// package.json beside it (its name).
const PROJECT: common::Layout<'static> = common::Layout {
    main: "apps/api/project.json",
    extra: &["nx.json", "apps/api/package.json", "package.json"],
    markers: &["pnpm-lock.yaml"],
};

// The same bytes as a package.json of the workspace, whose `nx` key and scripts the
// package.json adapter hands to the Nx reader.
const PACKAGE: common::Layout<'static> = common::Layout {
    main: "apps/web/package.json",
    extra: &["nx.json", "package.json"],
    markers: &["yarn.lock"],
};

fuzz_target!(|data: &[u8]| {
    common::run(&agg_runners::js::NX_PROJECT, &PROJECT, data);
    common::run(&agg_runners::js::package_json::ADAPTER, &PACKAGE, data);
});
