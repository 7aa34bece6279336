//! The `agg` binary: everything lives in the library; this only hands over.

/// mimalloc instead of the system allocator: listing a large repository allocates and frees
/// millions of small strings across the walk's threads, where glibc's allocator spends a fifth
/// of the user time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    // First, before any thread: `agg __watch`, the watchdog of a job's process group.
    if let Some(code) = agg::engine::watchdog::run_if_asked() {
        return code;
    }
    agg::cli::main()
}
