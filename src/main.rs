use std::process::ExitCode;

// Start-up parses hundreds of patterns and YAML documents: lots of small allocations.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    lore::cli::main()
}
