//! What the benchmarks share: timing whole runs of the real binary.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The wall time of each of `runs` runs of `lore <command> --json --root <root>` with `paste` on
/// standard input (process start to exit), sorted.
pub fn timed_runs(command: &str, root: &Path, paste: &[u8], runs: usize) -> Vec<Duration> {
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let started = Instant::now();
        let mut child = Command::new(env!("CARGO_BIN_EXE_lore"))
            .args([command, "--json", "--root"])
            .arg(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .expect("lore");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(paste)
            .expect("write");
        child.wait().expect("wait");
        times.push(started.elapsed());
    }
    times.sort();
    times
}
