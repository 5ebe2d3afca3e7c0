//! The `turnpost` command; everything lives in the library.

// jemalloc instead of glibc's malloc: under load, glibc's malloc and free take about a
// fifth of the server's CPU time (perf, benches/http_load.rs), much of it consolidating
// and unlinking free chunks across the worker threads.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> std::process::ExitCode {
    // Before anything connects to PostgreSQL (see the function).
    turnpost::store::keep_libcrypto_through_exit();
    turnpost::cli::main()
}
