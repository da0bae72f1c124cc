//! `lore match`: input shapes, prefixes, output contract, ranking, exit codes.

use crate::support::{MISMATCH, good_root, json, stderr, stdout};

const API: &str = "NVRM: API mismatch: the client has the version 535.104.05, but this kernel module has the version 535.86.01.  Please";

fn causes(value: &serde_json::Value) -> Vec<String> {
    value["causes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["runbook"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_log_prefix_is_stripped() {
    let root = good_root();
    let prefixes = [
        "[ 4216.350214] ",
        "[4216.350214] ",
        "[Sun Feb 23 16:24:18 2025] ",
        "[  130.456250] [ T1946] ",
        "Nov 29 03:17:41 gpu-a100-07 kernel: ",
        "Nov 29 03:17:41 gpu-a100-07 kernel: [ 4216.350214] ",
        "2026-11-29T03:17:41+0800 gpu-a100-07 kernel: ",
        "Sun 2026-11-29 03:17:41 CST gpu-a100-07 kernel: ",
        "2026-11-29T03:17:41.123456789Z ",
        "2026-11-29T03:17:41.123456789Z stderr F ",
        "<3>[ 4216.350214] ",
    ];
    for prefix in prefixes {
        let line = format!("{prefix}{API}\n");
        let out = root.lore(&["match", "--json"], line.as_bytes());
        assert_eq!(out.status.code(), Some(0), "{prefix:?}: {}", stderr(&out));
        let report = json(&out);
        let hit = &report["causes"][0]["hits"][0];
        assert_eq!(hit["captures"]["kernel"], "535.86.01", "{prefix:?}");
        assert_eq!(
            hit["text"],
            line.trim_end(),
            "the original line is kept for display"
        );
    }
}

#[test]
fn syslog_escapes_split_a_traceback() {
    let root = good_root();
    let line = "Nov 29 03:18:02 gpu07 python[4412]: Traceback (most recent call last):#012  File \"t.py\", line 3#012pynvml: Failed to initialize NVML: Driver/library version mismatch\n";
    let report = json(&root.lore(&["match", "--json"], line.as_bytes()));
    assert_eq!(causes(&report), ["mismatch"]);
    assert_eq!(report["causes"][0]["hits"][0]["signature"], "nvml-mismatch");
}

#[test]
fn crlf_ansi_nul_and_invalid_utf8() {
    let root = good_root();
    let mut input = Vec::new();
    input.extend_from_slice(b"\x1b[1;31m[ 4216.350214] NVRM: API mismatch: the client has the version 535.104.05, but this kernel module has the version 535.86.01.\x1b[0m\r\n");
    input.extend_from_slice(b"bad bytes \xff\xfe\xfd here\r\n");
    input.extend_from_slice(b"Failed to initialize NVML: Driver/\0library version mismatch\r\n");
    let out = root.lore(&["match", "--json"], &input);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = json(&out);
    let hits = report["causes"][0]["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 2, "{hits:?}");
    assert_eq!(
        hits[0]["captures"]["kernel"], "535.86.01",
        "CR and colours are gone"
    );
    assert!(!hits[0]["text"].as_str().unwrap().contains('\x1b'));
    assert_eq!(hits[1]["line"], 3);
    assert_eq!(report["stats"]["lines"], 3);
}

/// Pseudo-random bytes, as compressed data and binaries look.
fn noise(n: usize) -> Vec<u8> {
    let mut x: u32 = 7;
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            (x >> 16) as u8
        })
        .collect()
}

#[test]
fn a_compressed_or_binary_input_is_refused_saying_how_to_get_its_text() {
    let root = good_root();
    let mut gz = vec![0x1f, 0x8b, 8, 0];
    gz.extend(noise(2000));
    let out = root.lore(&["match"], &gz);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains(
            "standard input is gzip-compressed data, not text: decompress it first (`zcat`"
        ),
        "{}",
        stderr(&out)
    );
    assert!(out.stdout.is_empty(), "no report of a binary's lines");
    for command in ["match", "env"] {
        let out = root.lore(&[command, "-"], &noise(100_000));
        assert_eq!(out.status.code(), Some(2), "{command}");
        assert!(
            stderr(&out).contains("is binary data, not text"),
            "{command}: {}",
            stderr(&out)
        );
    }
    let mut journal = b"LPKSHHRH".to_vec();
    journal.extend(noise(500));
    let out = root.lore(&["env"], &journal);
    assert!(
        stderr(&out).contains("journalctl --file FILE"),
        "{}",
        stderr(&out)
    );
    // A log with stray bytes, and one in a legacy encoding, are still logs.
    let mut gbk = b"[ 4216.350214] NVRM: API mismatch: the client has the version 535.104.05, but this kernel module has the version 535.86.01.\n".to_vec();
    gbk.extend(b"\xb6\xce\xb4\xed\xce\xf3 (\xba\xcb\xd0\xc4\xd2\xd1\xd7\xaa\xb4\xa2)\n".repeat(30));
    assert_eq!(root.lore(&["match"], &gbk).status.code(), Some(0));
}

#[test]
fn a_ten_megabyte_line_does_not_hide_what_follows() {
    let root = good_root();
    let mut input = vec![b'A'; 10 << 20];
    input.extend_from_slice(b"\nFailed to initialize NVML: Driver/library version mismatch\n");
    let report = json(&root.lore(&["match", "--json"], &input));
    assert_eq!(report["causes"][0]["hits"][0]["line"], 2);
    let text = report["causes"][0]["hits"][0]["text"].as_str().unwrap();
    assert!(text.len() < 200);
}

#[test]
fn empty_input_finds_nothing_and_exits_1() {
    let root = good_root();
    let out = root.lore(&["match"], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("no known cause"), "{}", stdout(&out));
    let out = root.lore(&["match", "--json"], b"");
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json(&out)["causes"].as_array().unwrap().len(), 0);
}

#[test]
fn a_missing_file_is_an_error_exit_2() {
    let root = good_root();
    let out = root.lore(&["match", "/nonexistent/dmesg.txt"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("opening /nonexistent/dmesg.txt"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn reads_a_file_argument_and_dash() {
    let root = good_root();
    root.file("dmesg.txt", format!("{API}\n"));
    let file = root.path().join("dmesg.txt");
    let out = root.lore(&["match", file.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0));
    let out = root.lore(&["match", "-"], format!("{API}\n").as_bytes());
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_window_signature_spans_wrapped_lines() {
    let root = good_root();
    let input = "[ 1.0] NVRM: API mismatch: the client 'nvidia-smi' (pid 181223)\n[ 1.0] unrelated line in between? no: wrapped lines are consecutive\n";
    assert_eq!(
        root.lore(&["match"], input.as_bytes()).status.code(),
        Some(1)
    );
    let input = "[ 1.0] NVRM: API mismatch: the client 'nvidia-smi' (pid 181223)\n[ 1.0] NVRM: has the version 550.54.15, but this kernel module has\n[ 1.0] NVRM: the version 545.23.08.  Please make sure that this\n";
    let report = json(&root.lore(&["match", "--json"], input.as_bytes()));
    let hit = &report["causes"][0]["hits"][0];
    assert_eq!(hit["line"], 1);
    assert_eq!(hit["last_line"], 3);
    assert_eq!(hit["captures"]["pid"], "181223");
    assert_eq!(hit["explain"], "client 550.54.15, kernel 545.23.08");
    assert_eq!(hit["text"].as_str().unwrap().lines().count(), 3);
}

#[test]
fn two_causes_ranked_with_the_json_contract() {
    let root = good_root();
    let input = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n\
                 modprobe: FATAL: Module nvidia not found in directory /lib/modules/6.8.0\n\
                 NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n\
                 Failed to initialize NVML: Driver/library version mismatch\n\
                 something else failed badly\n";
    let out = root.lore(&["match", "--json"], input.as_bytes());
    let report = json(&out);
    assert_eq!(causes(&report), ["mismatch", "not-loaded"]);
    let first = &report["causes"][0];
    for key in [
        "runbook",
        "title",
        "summary",
        "severity",
        "score",
        "hits",
        "incidents",
    ] {
        assert!(first.get(key).is_some(), "cause lacks {key}");
    }
    let hit = &first["hits"][0];
    for key in ["signature", "line", "text", "captures"] {
        assert!(hit.get(key).is_some(), "hit lacks {key}");
    }
    assert_eq!(report["unexplained"][0]["line"], 5);
    assert_eq!(
        report["unexplained"][0]["text"],
        "something else failed badly"
    );
    for key in ["bytes", "lines", "elapsed_ms"] {
        assert!(report["stats"].get(key).is_some());
    }
    let top = json(&root.lore(&["match", "--json", "--top", "1"], input.as_bytes()));
    assert_eq!(causes(&top), ["mismatch"]);
}

#[test]
fn human_output_names_cause_lines_captures_and_runbook() {
    let root = good_root();
    let out = root.lore(&["match"], format!("junk\n{API}\n").as_bytes());
    let text = stdout(&out);
    assert!(text.contains("1. mismatch  critical"), "{text}");
    assert!(text.contains("line     2"), "{text}");
    assert!(
        text.contains("client=535.104.05 kernel=535.86.01"),
        "{text}"
    );
    assert!(
        text.contains("→ client 535.104.05, kernel 535.86.01"),
        "{text}"
    );
    assert!(text.contains("runbook: runbooks/mismatch.md"), "{text}");
    assert!(
        !text.contains('\x1b'),
        "no colour when stdout is not a terminal"
    );
}

#[test]
fn incidents_citing_the_runbook_or_hitting_it_are_attached() {
    let root = good_root();
    root.file(
        "incidents/2026-04-03-cited.md",
        "---\ntitle: Cited\nstarted_at: 2026-04-03T14:02:00+08:00\nrunbooks: [mismatch]\nhosts: [gpu-a100-07]\n---\n",
    )
    .file(
        "incidents/2026-05-01-by-log.md",
        "---\ntitle: By log\nstarted_at: 2026-05-01T01:00:00+08:00\n---\n## Supporting information\n```log\nFailed to initialize NVML: Driver/library version mismatch\n```\n",
    )
    .file("incidents/2026-06-01-other.md", "---\ntitle: Other\n---\nnothing\n");
    let report = json(&root.lore(&["match", "--json"], format!("{API}\n").as_bytes()));
    let incidents: Vec<&str> = report["causes"][0]["incidents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        incidents,
        ["2026-05-01-by-log", "2026-04-03-cited"],
        "newest first"
    );
}

#[test]
fn a_broken_runbook_beside_good_ones_does_not_stop_matching() {
    let root = good_root();
    root.file("runbooks/broken.md", "---\ntitle: [unclosed\n---\n")
        .file(
            "runbooks/bad-regex.md",
            "---\ntitle: t\nseverity: low\nsignatures:\n  - id: bad\n    pattern: '(unclosed'\n---\n",
        );
    let out = root.lore(&["match", "--json"], format!("{API}\n").as_bytes());
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(causes(&json(&out)), ["mismatch"]);
    assert!(
        stderr(&out).contains("run `lore check`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_pattern_cache_is_written_and_a_broken_one_is_ignored() {
    let root = good_root();
    let input = format!("{API}\n");
    let first = json(&root.lore(&["match", "--json"], input.as_bytes()));
    let cache = root.path().join(".lore/patterns.cache");
    assert!(
        cache.exists(),
        "match leaves its pattern analyses for the next start"
    );
    let second = json(&root.lore(&["match", "--json"], input.as_bytes()));
    assert_eq!(first["causes"], second["causes"]);
    std::fs::write(&cache, b"lore-pattern-cache 2\n\xff\xff\xff\xffgarbage").unwrap();
    let third = json(&root.lore(&["match", "--json"], input.as_bytes()));
    assert_eq!(first["causes"], third["causes"]);
    // A changed pattern is analysed again, not taken from the cache.
    root.file(
        "runbooks/mismatch.md",
        MISMATCH.replace(
            "Driver/library version mismatch'",
            "Driver/library version MISMATCH'",
        ),
    );
    let out = root.lore(
        &["match", "--json"],
        b"Failed to initialize NVML: Driver/library version mismatch\n",
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "the old pattern no longer matches"
    );
}

/// A regression test: `lore match big.log | head -1` printed `lore: Broken pipe (os error 32)`
/// and exited 2. A closed standard output ends the job like finishing it, with no message.
#[test]
fn a_closed_pipe_is_the_end_of_the_job_not_an_error() {
    let log = "[ 4216.350214] NVRM: API mismatch: the client has the version 535.104.05, but this kernel module has the version 535.86.01.  Please\n".repeat(200);
    for (args, stdin, code) in [
        (vec!["match"], log.as_bytes(), 0),
        (vec!["match", "--json"], log.as_bytes(), 0),
        (vec!["match"], &b"all quiet\n"[..], 1),
        (vec!["check"], &b""[..], 0),
        (vec!["check", "--json"], &b""[..], 0),
        (vec!["export", "--format", "sigma"], &b""[..], 0),
        (vec!["search", "fallen off the bus"], &b""[..], 0),
    ] {
        let out =
            crate::support::lore_with_closed_stdout(&crate::support::repo_root(), &args, stdin);
        assert_eq!(
            out.status.code(),
            Some(code),
            "lore {args:?}: {}",
            crate::support::stderr(&out)
        );
        assert!(
            !crate::support::stderr(&out).contains("Broken pipe")
                && !crate::support::stderr(&out).contains("panicked"),
            "lore {args:?}: {}",
            crate::support::stderr(&out)
        );
    }
}

/// The similar tier's index is kept in `.lore/similar.cache` for the next start-up, answers as
/// a freshly built one does, and is built anew when a runbook changes.
#[test]
fn the_kept_similar_index_follows_the_runbooks() {
    let root = crate::support::library_copy();
    let paste =
        b"zorbulate quenching failure on the flux capacitor\nmodule refused the frobnicator\n";
    let similar = |out: &std::process::Output| -> Vec<String> {
        let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        value["similar"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["runbook"].as_str().unwrap().to_string())
            .collect()
    };
    let first = crate::support::lore_in(root.path(), &["match", "--json"], paste);
    assert!(root.path().join(".lore/similar.cache").is_file());
    let second = crate::support::lore_in(root.path(), &["match", "--json"], paste);
    assert_eq!(
        similar(&first),
        similar(&second),
        "the kept index answers alike"
    );
    assert!(!similar(&second).contains(&"nouveau-conflict".to_string()));
    // Teach one runbook the words: the next start-up must know them.
    let path = root.path().join("runbooks/nouveau-conflict.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let taught = text.replacen(
        "aliases:\n",
        "aliases:\n  - zorbulate quenching failure on the flux capacitor frobnicator\n",
        1,
    );
    assert_ne!(text, taught);
    std::fs::write(&path, taught).unwrap();
    let third = crate::support::lore_in(root.path(), &["match", "--json"], paste);
    assert_eq!(
        similar(&third).first().map(String::as_str),
        Some("nouveau-conflict"),
        "{}",
        String::from_utf8_lossy(&third.stdout)
    );
}

/// The shipped signatures' literals are rare in ordinary log lines: on the benchmark's generated
/// log (driver banners, USB, NVMe, mlx5, systemd, with a failure line now and then) the literal
/// search stops at about one line in nine, nearly all of them driver banners that say "NVRM". A
/// signature whose chosen literal is an everyday word (`full`) or a line every boot prints
/// (`nvidia-uvm: Loaded the UVM driver`) raised that to one in six and cut the scan's speed by
/// a third without changing one hit; this catches such a signature before the benchmark does.
#[test]
fn ordinary_log_lines_rarely_stop_the_literal_search() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("generated.log");
    let status = std::process::Command::new("python3")
        .arg(crate::support::repo_root().join("benches/synth_logs.py"))
        .args(["--bytes", "4M", "--seed", "7", "--out"])
        .arg(&log)
        .status()
        .expect("python3 runs the benchmark's generator");
    assert!(status.success());
    let root = crate::support::library_copy();
    let library = lore::library::Library::load(root.path()).unwrap();
    let matcher = library.matcher();
    let mut scanner = matcher.scanner();
    scanner.feed(&std::fs::read(&log).unwrap());
    let out = scanner.finish();
    let share = out.looked_at as f64 / out.lines as f64;
    println!(
        "{} of {} lines looked at ({:.1}%)",
        out.looked_at,
        out.lines,
        100.0 * share
    );
    assert!(
        share < 0.13,
        "{} of {} generated log lines ({:.1}%) held a literal: a signature's literal is common in \
         ordinary lines (`cargo bench --bench match` prints the same count)",
        out.looked_at,
        out.lines,
        100.0 * share
    );
}

/// The two lines the project's founding outage was told in, typed from memory: the paraphrased API
/// mismatch first, the module that would not load next, with the shipped library.
#[test]
fn the_operators_two_lines_get_their_runbooks_in_order() {
    let library = crate::support::library_copy();
    let out = crate::support::lore_in(
        library.path(),
        &["match", "--json"],
        b"NVRM: API mismatch: client driver version 535.104.05 and kernel module version 535.86.01\nnvidia-modprobe: failed to load module nvidia\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report = json(&out);
    let mut answers = causes(&report);
    answers.extend(
        report["similar"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| s["runbook"].as_str().unwrap().to_string()),
    );
    assert_eq!(answers[0], "driver-version-mismatch", "{answers:?}");
    assert!(
        answers[..answers.len().min(3)].contains(&"driver-not-loaded".to_string()),
        "{answers:?}"
    );
}

/// A short paste read as a whole by the similar tier shows each of its lines as what led to the
/// suggestion, not only its first; and the confidence of a list reads in order.
#[test]
fn a_short_paste_read_whole_shows_each_of_its_lines() {
    let library = crate::support::library_copy();
    let out = crate::support::lore_in(
        library.path(),
        &["match", "--json"],
        b"training runs inside docker\nshared memory in the container is too small for the dataloader workers\nthe workers exit with SIGBUS\n",
    );
    let report = json(&out);
    let similar = report["similar"].as_array().expect("a similar list");
    let first = similar.first().expect("a likely cause");
    assert_eq!(first["runbook"], "docker-shm-too-small", "{report}");
    let mut lines: Vec<u64> = first["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["line"].as_u64().unwrap())
        .collect();
    lines.sort_unstable();
    // No line looks like an error, so none is looked up alone: all three led to it as parts of
    // the whole. (With "killed with a bus error" on line 3, that line alone is the closer match
    // and is shown alone.)
    assert_eq!(lines, [1, 2, 3], "{report}");
    let scores: Vec<f64> = similar
        .iter()
        .map(|s| s["score"].as_f64().unwrap())
        .collect();
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{scores:?}");
}
