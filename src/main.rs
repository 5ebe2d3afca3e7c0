//! The `turnpost` command; everything lives in the library.

fn main() -> std::process::ExitCode {
    turnpost::cli::main()
}
