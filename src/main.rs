use std::process::ExitCode;

fn main() -> ExitCode {
    lore::cli::main()
}
