//! Where a control server listens, and how a client reaches it.
//!
//! Each server has a *discovery file* in the socket directory ([`super::socket_dir`], mode
//! 0700, the user's alone), named after its repository and pid (`<root hash>-<pid>.sock`).
//! On Linux the server listens on an **abstract** Unix socket, a name that lives in the
//! kernel and not in any directory, and the discovery file holds that name. The reason is
//! the sandbox of agents' runs: Landlock (ABI 6 and later) keeps a sandboxed process from
//! connecting to any abstract socket made outside its sandbox, whatever it knows of the
//! name, whereas a socket file can be connected to by anyone who can reach its path
//! (Landlock does not control connecting to one). So a task an agent started cannot ask
//! agg to stop, or read, the other runs of the server that started it; the person's
//! `agg ps`, `agg logs` and `agg stop` reach it as before. Abstract sockets carry no file
//! permissions, so the server answers only peers with its own uid (`SO_PEERCRED`,
//! [`super::server`]). Elsewhere the discovery file is the socket itself (mode 0600).

use std::io;
use std::path::Path;

/// The longest discovery file read.
#[cfg(target_os = "linux")]
const MAX_NAME_BYTES: u64 = 256;

/// Listens for the server whose discovery file is `file`, and writes that file.
#[cfg(target_os = "linux")]
pub(super) fn listen(file: &Path) -> io::Result<tokio::net::UnixListener> {
    use std::io::Write as _;
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::net::{SocketAddr, UnixListener};

    let name = format!(
        "agg-control-{}-{}-{:016x}",
        nix::unistd::geteuid(),
        std::process::id(),
        fastrand::u64(..)
    );
    let addr = SocketAddr::from_abstract_name(name.as_bytes())?;
    let listener = UnixListener::bind_addr(&addr)?;
    listener.set_nonblocking(true)?;
    let dir = file
        .parent()
        .ok_or_else(|| io::Error::other("a discovery file has a directory"))?;
    // Written beside it and renamed, so a client never reads half a name.
    let mut temporary = tempfile::Builder::new().prefix(".new-").tempfile_in(dir)?;
    temporary.write_all(name.as_bytes())?;
    temporary.persist(file).map_err(|e| e.error)?;
    tokio::net::UnixListener::from_std(listener)
}

/// Listens on the socket file `file` (mode 0600).
#[cfg(not(target_os = "linux"))]
pub(super) fn listen(file: &Path) -> io::Result<tokio::net::UnixListener> {
    use std::os::unix::fs::PermissionsExt as _;
    let _ = std::fs::remove_file(file);
    let listener = tokio::net::UnixListener::bind(file)?;
    std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o600))?;
    Ok(listener)
}

/// Connects to the server whose discovery file is `file`.
#[cfg(target_os = "linux")]
pub fn connect(file: &Path) -> io::Result<std::os::unix::net::UnixStream> {
    use std::os::linux::net::SocketAddrExt;
    use std::os::unix::fs::MetadataExt as _;
    use std::os::unix::net::{SocketAddr, UnixStream};

    let (name, meta) = crate::repo_files::read_regular_with_meta(file, MAX_NAME_BYTES)
        .map_err(io::Error::other)?
        .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))?;
    // Only a file this user wrote names a server: the directory is the user's alone, and
    // this holds even if it were not.
    if meta.uid() != nix::unistd::geteuid().as_raw() {
        return Err(io::Error::other("a discovery file of another user"));
    }
    let addr = SocketAddr::from_abstract_name(&name)?;
    UnixStream::connect_addr(&addr)
}

/// Connects to the socket file `file`.
#[cfg(not(target_os = "linux"))]
pub fn connect(file: &Path) -> io::Result<std::os::unix::net::UnixStream> {
    std::os::unix::net::UnixStream::connect(file)
}
