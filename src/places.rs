//! Where agg keeps files of its own: per-user directories for logs of detached services
//! and for the control sockets of running `agg mcp` servers.

use std::path::PathBuf;

/// The per-user cache directory: `$XDG_CACHE_HOME/agg`, else `~/.cache/agg`, else a
/// directory under the system's temporary directory named after the user id.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("agg");
    }
    if let Some(home) = std::env::var_os("HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(home).join(".cache").join("agg");
    }
    std::env::temp_dir().join(format!("agg-{}", nix::unistd::getuid()))
}

/// Creates `dir` (and its parents) readable by the user only.
pub fn private_dir(dir: &std::path::Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
}
