//! The `pi-shake` binary: everything lives in the library.

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(pi_shake::run(std::env::args_os()))
}
