//! Matching benchmark: throughput over a generated 100 MB log with the shipped signatures plus
//! 1,000 and 2,000 generated ones, next to ripgrep on the same patterns and file; the end-to-end
//! time of a 64 KiB paste through the real binary (start-up included); peak RSS over the file and
//! over 2 GB on standard input.
//!
//! Run: `cargo bench --bench match`. Data comes from `benches/synth_logs.py` (or
//! `$LORE_SYNTH`) and is kept in `target/bench-data/`. ripgrep and GNU time are used when present.

mod common;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use lore::library::Library;
use lore::signature::Matcher;

const RUNS: usize = 3;

fn main() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let data = repo.join("target/bench-data");
    fs::create_dir_all(&data).expect("bench data dir");
    let log = data.join("big.log");
    generate(&log, &["--bytes", "100M", "--seed", "1"]);
    let rust = data.join("p2000-rust.txt");
    let rg = data.join("p2000-rg.txt");
    generate(
        &rust,
        &["--patterns", "2000", "--seed", "1", "--dialect", "rust"],
    );
    generate(
        &rg,
        &["--patterns", "2000", "--seed", "1", "--dialect", "rg"],
    );
    let rust_patterns: Vec<String> = lines(&rust);
    let rg_patterns: Vec<String> = lines(&rg);
    let size = fs::metadata(&log).expect("log").len() as f64 / 1e6;
    println!("log: {} ({size:.1} MB)", log.display());

    for generated in [0usize, 1000, 2000] {
        let root = tempfile::tempdir().expect("temp root");
        let shipped = copy_runbooks(&repo.join("runbooks"), &root.path().join("runbooks"));
        write_generated(root.path(), &rust_patterns[..generated]);
        let started = Instant::now();
        let library = Library::load(root.path()).expect("library");
        let matcher = library.matcher();
        let setup = started.elapsed();
        let total = matcher.signature_count();
        let mut best = Duration::MAX;
        let (mut found, mut looked_at) = (0, 0);
        for _ in 0..RUNS {
            let (elapsed, hits, looked) = scan_file(&matcher, &log);
            best = best.min(elapsed);
            (found, looked_at) = (hits, looked);
        }
        println!(
            "lore  {total:>5} signatures ({shipped} shipped + {generated} generated): {:>7.0} MB/s  ({:.3} s, {found} hit lines, {looked_at} lines looked at; setup {:.1} ms)",
            size / best.as_secs_f64(),
            best.as_secs_f64(),
            setup.as_secs_f64() * 1e3
        );
        let mut rg_file_patterns: Vec<String> = shipped_patterns(&library);
        rg_file_patterns.extend(rg_patterns[..generated].iter().cloned());
        let rg_list = data.join(format!("rg-{generated}.txt"));
        fs::write(&rg_list, rg_file_patterns.join("\n") + "\n").expect("rg patterns");
        match ripgrep(&rg_list, &log) {
            Some((elapsed, count)) => println!(
                "rg    {:>5} patterns:                            {:>7.0} MB/s  ({:.3} s, {count} lines)",
                rg_file_patterns.len(),
                size / elapsed.as_secs_f64(),
                elapsed.as_secs_f64()
            ),
            None => {
                println!("rg    not installed (apt-get install ripgrep) or refused the patterns")
            }
        }
        if generated == 2000 {
            paste(root.path(), &log);
        }
        if generated == 1000 {
            peak_rss(root.path(), &log);
        }
    }
}

fn generate(out: &Path, args: &[&str]) {
    if out.exists() {
        return;
    }
    let tool = std::env::var("LORE_SYNTH").unwrap_or_else(|_| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/benches/synth_logs.py").to_string()
    });
    let status = Command::new("python3")
        .arg(&tool)
        .args(args)
        .arg("--out")
        .arg(out)
        .status()
        .unwrap_or_else(|e| panic!("running {tool}: {e}"));
    assert!(
        status.success(),
        "{tool} failed; set LORE_SYNTH to the generator"
    );
}

fn lines(path: &Path) -> Vec<String> {
    fs::read_to_string(path)
        .expect("patterns")
        .lines()
        .map(str::to_string)
        .collect()
}

fn copy_runbooks(from: &Path, to: &Path) -> usize {
    fs::create_dir_all(to).expect("runbooks dir");
    let mut n = 0;
    for entry in fs::read_dir(from).expect("repo runbooks").flatten() {
        fs::copy(entry.path(), to.join(entry.file_name())).expect("copy");
        n += 1;
    }
    n
}

/// The generated patterns as ten runbooks of signatures.
fn write_generated(root: &Path, patterns: &[String]) {
    for (n, group) in patterns
        .chunks(patterns.len().div_ceil(10).max(1))
        .enumerate()
    {
        let mut text = format!(
            "---\ntitle: Generated {n}\nsummary: generated\nseverity: medium\nsignatures:\n"
        );
        for (i, p) in group.iter().enumerate() {
            text.push_str(&format!(
                "  - id: gen-{n}-{i}\n    pattern: '{}'\n",
                p.replace('\'', "''")
            ));
        }
        text.push_str("---\n");
        fs::write(root.join(format!("runbooks/generated-{n}.md")), text).expect("write");
    }
}

fn shipped_patterns(library: &Library) -> Vec<String> {
    let named = regex::Regex::new(r"\(\?P<\w+>").expect("valid");
    library
        .runbooks
        .iter()
        .filter(|r| !r.id.starts_with("generated-"))
        .flat_map(|r| r.signatures.iter())
        // ripgrep refuses `\n` (it matches line by line): window patterns get a space there.
        .map(|s| named.replace_all(&s.pattern, "(?:").replace("\\n", " "))
        .collect()
}

/// Reads the file as `lore match` does (2 MiB pieces, read on a thread of its own and scanned
/// where they were read); returns the time, the hit lines and the lines looked at closely (a
/// signature whose literal is common raises these long before the hits move).
fn scan_file(matcher: &Matcher, path: &Path) -> (Duration, u64, u64) {
    let started = Instant::now();
    let file = fs::File::open(path).expect("log");
    let mut scanner = matcher.scanner();
    scanner.size_hint(file.metadata().expect("size").len());
    lore::pieces::each_piece(file, |piece| {
        Ok::<_, std::io::Error>(scanner.feed_owned(piece, lore::pieces::HEAD))
    })
    .expect("read");
    let out = scanner.finish();
    let elapsed = started.elapsed();
    (
        elapsed,
        out.sigs.iter().map(|s| s.count).sum(),
        out.looked_at,
    )
}

fn ripgrep(patterns: &Path, log: &Path) -> Option<(Duration, String)> {
    let mut best = Duration::MAX;
    let mut count = String::new();
    for _ in 0..RUNS {
        let started = Instant::now();
        let out = Command::new("rg")
            .arg("-c")
            .arg("-f")
            .arg(patterns)
            .arg(log)
            .output()
            .ok()?;
        best = best.min(started.elapsed());
        if !out.status.success() {
            eprintln!(
                "rg: {}",
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .next()
                    .unwrap_or("")
            );
            return None;
        }
        count = String::from_utf8_lossy(&out.stdout).trim().to_string();
    }
    Some((best, count))
}

/// A 64 KiB paste through the real binary: start-up, library load, scan and JSON output.
fn paste(root: &Path, log: &Path) {
    let mut text = fs::read(log).expect("log");
    text.truncate((64 << 10) - 400);
    text.extend_from_slice(b"\n[ 4216.350214] NVRM: API mismatch: the client has the version 535.104.05, but this kernel module has the version 535.86.01.\n[ 4300.1] NVRM: Xid (PCI:0000:3b:00): 79, pid=1862, name=python3, GPU has fallen off the bus.\n");
    let times = common::timed_runs("match", root, &text, 11);
    println!(
        "paste {} KiB end to end (process start to exit), median of 11: {:.1} ms (min {:.1})",
        text.len() >> 10,
        times[5].as_secs_f64() * 1e3,
        times[0].as_secs_f64() * 1e3
    );
}

/// Peak resident memory of `lore match` over the whole file (GNU time's %M).
fn peak_rss(root: &Path, log: &Path) {
    // `lore match` under GNU time, which prints the peak RSS last on standard error.
    let timed = || {
        let mut command = Command::new("/usr/bin/time");
        command
            .args(["-f", "%M"])
            .arg(env!("CARGO_BIN_EXE_lore"))
            .args(["match", "--json", "--root"])
            .arg(root);
        command
    };
    report_rss("the 100 MB file", rss_of(timed().arg(log), None));
    // The goal's case: 2 GB on standard input (the log twenty times), no size known up front.
    report_rss(
        "2 GB on standard input",
        rss_of(&mut timed(), Some((log, 20))),
    );
}

/// Peak resident memory (KiB, GNU time's %M) of `command`, fed `times` copies of a file.
fn rss_of(command: &mut Command, feed: Option<(&Path, usize)>) -> Option<u64> {
    let mut child = command
        .stdin(if feed.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    if let Some((path, times)) = feed {
        let bytes = fs::read(path).ok()?;
        let mut stdin = child.stdin.take()?;
        for _ in 0..times {
            stdin.write_all(&bytes).ok()?;
        }
    }
    let out = child.wait_with_output().ok()?;
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .last()
        .and_then(|l| l.trim().parse::<u64>().ok())
}

fn report_rss(what: &str, kb: Option<u64>) {
    match kb {
        Some(kb) => println!(
            "peak RSS of `lore match` over {what}: {:.1} MiB",
            kb as f64 / 1024.0
        ),
        None => println!("peak RSS over {what}: /usr/bin/time missing or its output unreadable"),
    }
}
