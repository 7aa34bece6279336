//! Tools a script of ours installs under `.tools/` for the tests that need them (the MCP
//! hosts, the client matrix): where they are, and whether the test can use them.

use std::path::{Path, PathBuf};

/// `.tools/NAME` in the checkout, or the folder the variable `var` names.
pub fn tools_folder(var: &str, name: &str) -> PathBuf {
    std::env::var_os(var).map_or_else(
        || {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(".tools")
                .join(name)
        },
        PathBuf::from,
    )
}

/// What `script` installs, for a test that needs it.
pub struct Installed<'a> {
    /// What the tools are, in messages: "MCP hosts".
    pub what: &'a str,
    /// The variable that names another folder for them: `AGG_HOSTS`.
    pub var: &'a str,
    /// Their folder under `.tools/`: `hosts`.
    pub folder: &'a str,
    /// The script that installs them: `scripts/hosts.sh`.
    pub script: &'a str,
}

impl Installed<'_> {
    /// Their folder when `ready` finds them in it; otherwise none, after saying that the
    /// test skips (under `AGG_REQUIRE_RUNNERS` the test fails instead).
    pub fn folder(&self, ready: impl Fn(&Path) -> bool) -> Option<PathBuf> {
        let dir = tools_folder(self.var, self.folder);
        if ready(&dir) {
            return Some(dir);
        }
        assert!(
            std::env::var_os("AGG_REQUIRE_RUNNERS").is_none(),
            "the {} are required (AGG_REQUIRE_RUNNERS is set) but {} has none; run {}",
            self.what,
            dir.display(),
            self.script
        );
        super::skipped(&format!(
            "{} not installed in {} ({} installs them)",
            self.what,
            dir.display(),
            self.script
        ));
        None
    }
}
