//! `lore env` benchmark: the wall time of a whole run (process start to exit: start-up, library
//! load, the fingerprint, the rules, the output) on a 64 KiB paste, against the goal of 50 ms.
//! The paste is the public environment pastes of `eval/env` one after another, cut at 64 KiB: a
//! worst case, dense with version lines of every format, so most of the readers' rules fire.
//! A short paste (one collect_env) and an empty one are timed too, for the fixed costs.
//!
//! Run: `cargo bench --bench env`.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

const RUNS: usize = 31;

fn dense_paste(repo: &Path, limit: usize) -> Vec<u8> {
    let mut logs: Vec<PathBuf> = fs::read_dir(repo.join("eval/env"))
        .expect("eval/env")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    logs.sort();
    let mut paste = Vec::new();
    for log in logs {
        paste.extend_from_slice(&fs::read(&log).expect("log"));
        paste.push(b'\n');
        if paste.len() >= limit {
            break;
        }
    }
    paste.truncate(limit);
    paste
}

/// Median and minimum of `RUNS` runs of `lore env --json` with `paste` on standard input.
fn time(repo: &Path, paste: &[u8]) -> (Duration, Duration) {
    let times = common::timed_runs("env", repo, paste, RUNS);
    (times[RUNS / 2], times[0])
}

fn main() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // One run first, so the library's document cache is written and every run below reads it.
    time(&repo, b"");
    let short = fs::read(
        repo.join("eval/env")
            .join("vllm-16307-p100x8-v073-no-kernel-image.log"),
    )
    .unwrap_or_default();
    for (name, paste) in [
        ("empty paste", Vec::new()),
        ("one collect_env", short),
        ("64 KiB of eval/env pastes", dense_paste(&repo, 64 << 10)),
    ] {
        let (median, min) = time(&repo, &paste);
        println!(
            "lore env, {name} ({} bytes), end to end, median of {RUNS}: {:.1} ms (min {:.1})",
            paste.len(),
            median.as_secs_f64() * 1e3,
            min.as_secs_f64() * 1e3
        );
    }
}
