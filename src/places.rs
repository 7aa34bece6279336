//! Where agg keeps files of its own: per-user directories for its config, for logs of
//! detached services and the run history, and for the control sockets of running `agg mcp`
//! servers. None is in the cache directory, which sandboxed runs may write; the sandbox
//! keeps them all out of a task's reach.

use std::path::PathBuf;

/// The per-user directory of agg's state (run history, logs of detached services):
/// `$XDG_STATE_HOME/agg`, else `~/.local/state/agg`, else a directory under the system's
/// temporary directory named after the user id. Not in the cache directory: runs may write
/// there, and never here.
pub fn state_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("XDG_STATE_HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir).join("agg");
    }
    if let Some(home) = std::env::var_os("HOME").filter(|d| !d.is_empty()) {
        return PathBuf::from(home).join(".local/state/agg");
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

/// The per-user config directory: `$XDG_CONFIG_HOME/agg`, else `~/.config/agg`.
pub fn config_dir() -> Option<PathBuf> {
    std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))
        .map(|config| config.join("agg"))
}

/// The directory of the control sockets of running `agg mcp` servers:
/// `$XDG_RUNTIME_DIR/agg`, else `run/` in the state directory.
pub fn socket_dir() -> PathBuf {
    match std::env::var_os("XDG_RUNTIME_DIR").filter(|d| !d.is_empty()) {
        Some(dir) => PathBuf::from(dir).join("agg"),
        None => state_dir().join("run"),
    }
}
