use std::path::Path;

use super::*;
use crate::doc::Runbook;

fn runbook(id: &str, severity: &str, signatures: &str) -> Runbook {
    let text = format!(
        "---\ntitle: {id}\nsummary: s\nseverity: {severity}\nsignatures:\n{signatures}---\n## Fix\n"
    );
    let (runbook, problems) = Runbook::parse(Path::new(&format!("runbooks/{id}.md")), &text);
    assert!(problems.is_empty(), "{problems:?}");
    runbook.unwrap()
}

/// The runbooks these tests match against.
fn library() -> Vec<Runbook> {
    let runbooks = vec![
        runbook(
            "mismatch",
            "critical",
            r#"  - id: api-mismatch
    pattern: 'NVRM: API mismatch: the client (?:''(?P<proc>[^'']*)'' \(pid \d+\)\s*(?:NVRM:\s*)?)?has the version (?P<client>\d+(?:\.\d+)+), but\s*(?:NVRM:\s*)?this kernel module has\s*(?:NVRM:\s*)?the version (?P<kernel>\d+(?:\.\d+)+)'
    lines: 3
  - id: nvml-mismatch
    pattern: 'Driver/library version mismatch'
  - id: cannot-talk
    pattern: 'couldn''t communicate with the NVIDIA driver'
    weight: 0.3
"#,
        ),
        runbook(
            "not-loaded",
            "high",
            r#"  - id: not-loaded-smi
    pattern: 'couldn''t communicate with the NVIDIA driver'
    weight: 0.3
  - id: modprobe-missing
    pattern: 'modprobe: FATAL: Module (?P<module>\S+) not found'
"#,
        ),
        runbook(
            "fallen",
            "critical",
            r#"  - id: xid79
    pattern: 'NVRM: Xid \(PCI:(?P<pci>[0-9a-f:]+)\): (?P<xid>79)\b'
  - id: no-literal
    pattern: '^\d+ \w+ \d+$'
"#,
        ),
    ];
    runbooks
}

const LOG: &str = "[    5.1] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.104.05
[ 4216.3] NVRM: API mismatch: the client 'nvidia-smi' (pid 181223)
[ 4216.3] NVRM: has the version 550.54.15, but this kernel module has
[ 4216.3] NVRM: the version 545.23.08.  Please make sure that this
NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.
Failed to initialize NVML: Driver/library version mismatch
Nov 29 03:17:00 gpu07 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=x, GPU has fallen off the bus.
some unknown failure 0x1
some unknown failure 0x2
12 words 34
";

type Seen = (Vec<(String, u64, Vec<(String, String)>)>, Vec<(u64, u64)>);

fn scan(matcher: &Matcher, input: &[u8], chunk: usize, max_line: usize) -> Seen {
    let mut scanner = Scanner::with_sizes(&matcher.engine, chunk, max_line);
    for piece in input.chunks(chunk.max(1)) {
        scanner.feed(piece);
    }
    seen(matcher, scanner.finish())
}

/// What a scan found, in a form two scans can be compared by.
fn seen(matcher: &Matcher, out: ScanOutput) -> Seen {
    let mut hits = Vec::new();
    for (s, h) in out.sigs.iter().enumerate() {
        for hit in &h.hits {
            hits.push((
                matcher.engine.sigs[s].id.clone(),
                hit.line,
                hit.captures.clone(),
            ));
        }
    }
    hits.sort();
    (
        hits,
        out.unexplained.iter().map(|u| (u.line, u.count)).collect(),
    )
}

#[test]
fn same_result_whatever_the_chunk_size() {
    let matcher = Matcher::new(&library(), &[], &Default::default());
    let whole = scan(&matcher, LOG.as_bytes(), 1 << 20, 1 << 20);
    let ids: Vec<&str> = whole.0.iter().map(|h| h.0.as_str()).collect();
    assert_eq!(
        ids,
        [
            "api-mismatch",
            "cannot-talk",
            "no-literal",
            "not-loaded-smi",
            "nvml-mismatch",
            "xid79"
        ]
    );
    assert_eq!(
        whole.0[0].1, 2,
        "a window hit is reported at its first line"
    );
    assert_eq!(
        whole.0[0].2,
        [
            ("proc".to_string(), "nvidia-smi".to_string()),
            ("client".to_string(), "550.54.15".to_string()),
            ("kernel".to_string(), "545.23.08".to_string())
        ]
    );
    assert_eq!(
        whole.1,
        [(8, 2)],
        "unexplained lines are deduplicated by shape"
    );
    for chunk in [1, 2, 3, 7, 16, 33, 64, 100, 257] {
        assert_eq!(
            scan(&matcher, LOG.as_bytes(), chunk, 1 << 20),
            whole,
            "chunk {chunk}"
        );
    }
}

#[test]
fn a_window_match_explains_all_its_lines() {
    let matcher = Matcher::new(&library(), &[], &Default::default());
    let report = matcher.match_bytes(LOG.as_bytes(), None);
    assert!(
        report
            .unexplained
            .iter()
            .all(|u| !(2..=4).contains(&u.line)),
        "{:?}",
        report.unexplained
    );
}

#[test]
fn the_cause_that_explains_more_ranks_first() {
    let matcher = Matcher::new(&library(), &[], &Default::default());
    let input = "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\nmodprobe: FATAL: Module nvidia not found in directory /lib/modules/6.8.0\n";
    let report = matcher.match_bytes(input.as_bytes(), None);
    let ranked: Vec<&str> = report.causes.iter().map(|c| c.runbook.as_str()).collect();
    assert_eq!(ranked, ["not-loaded", "mismatch"]);
    assert!(report.causes[0].score > report.causes[1].score);
    assert!(
        report.causes[1].score < 0.3,
        "a shared generic line alone is weak evidence"
    );
}

#[test]
fn lines_longer_than_the_limit_are_scanned_in_pieces() {
    let matcher = Matcher::new(&library(), &[], &Default::default());
    let mut input = "x".repeat(5000).into_bytes();
    input.extend_from_slice(
        b" Driver/library version mismatch\nFailed again: Driver/library version mismatch\n",
    );
    let (hits, _) = scan(&matcher, &input, 512, 1024);
    let lines: Vec<u64> = hits
        .iter()
        .filter(|h| h.0 == "nvml-mismatch")
        .map(|h| h.1)
        .collect();
    assert_eq!(
        lines,
        [1, 2],
        "the cut line keeps its number and the next line still counts"
    );
}

#[test]
fn empty_and_binary_input() {
    let matcher = Matcher::new(&library(), &[], &Default::default());
    let report = matcher.match_bytes(b"", None);
    assert!(report.causes.is_empty());
    assert_eq!(report.stats.lines, 0);
    let binary: Vec<u8> = (0..=255u8).cycle().take(100_000).collect();
    let report = matcher.match_bytes(&binary, None);
    assert!(report.causes.is_empty());
    assert_eq!(report.stats.bytes, 100_000);
}

#[test]
fn a_bad_pattern_is_skipped_and_the_rest_work() {
    let mut library = library();
    library.push(runbook(
        "broken",
        "high",
        "  - id: bad\n    pattern: 'unclosed (group'\n  - id: lookahead\n    pattern: 'a(?=b)'\n  - id: fine\n    pattern: 'totally fine marker'\n",
    ));
    let matcher = Matcher::new(&library, &[], &Default::default());
    assert_eq!(matcher.engine.problems.len(), 2);
    let report = matcher.match_bytes(
        b"totally fine marker\nGPU: NVRM: Xid (PCI:0000:3b:00): 79, x\n",
        None,
    );
    let ids: Vec<&str> = report.causes.iter().map(|c| c.runbook.as_str()).collect();
    assert_eq!(ids, ["fallen", "broken"]);
}

/// A family of signatures that share their required literal and differ in another: each line
/// finds exactly the members whose regex matches it, as if every regex had been tried (the other
/// literals only rule out members that cannot match), in any case of the text.
#[test]
fn a_family_sharing_a_literal_finds_exactly_its_matching_members() {
    let mut signatures = String::new();
    for xid in [13, 31, 43, 48, 61, 62, 63, 64, 74, 79, 92, 94, 95] {
        signatures.push_str(&format!(
            "  - id: xid-{xid}\n    pattern: 'NVRM: Xid \\(PCI:(?P<pci>[0-9a-f:.]+)\\): {xid}, pid='\n"
        ));
    }
    signatures.push_str(
        "  - id: xid-any\n    pattern: 'NVRM: Xid \\(PCI:(?P<pci>[0-9a-f:.]+)\\): \\d+, pid'\n",
    );
    let runbooks = vec![runbook("xid", "high", &signatures)];
    let matcher = Matcher::new(&runbooks, &[], &PatternCache::default());
    let log = "[ 1.0] NVRM: Xid (PCI:0000:3b:00): 79, pid=1862, name=python3\n\
               [ 2.0] nvrm: xid (pci:0000:3b:00): 13, PID=1\n\
               [ 3.0] NVRM: Xid (PCI:0000:5e:00): 94, pid=7\n";
    let report = matcher.match_bytes(log.as_bytes(), None);
    let mut found: Vec<(u64, String)> = report
        .causes
        .iter()
        .flat_map(|c| c.hits.iter().map(|h| (h.line, h.signature.clone())))
        .collect();
    found.sort();
    let expected: Vec<(u64, String)> =
        [(1, "xid-79"), (1, "xid-any"), (3, "xid-94"), (3, "xid-any")]
            .iter()
            .map(|(l, s)| (*l, s.to_string()))
            .collect();
    assert_eq!(found, expected);
}

/// A large input goes another way: the prefilter adapted to its start, both cores, each half's
/// lines numbered on its own and renumbered. The answer must be the one the small-input path
/// gives, line numbers and all.
#[test]
fn a_large_input_on_both_cores_gives_the_same_answer() {
    let matcher = Matcher::new(&library(), &[], &Default::default());
    // Over 8 MiB, so that the scanner treats it as large from its size alone; lines of quiet
    // text between copies of the log, so that the halves split at different places.
    let mut input = Vec::new();
    let mut n = 0;
    while input.len() < 9 << 20 {
        input.extend_from_slice(LOG.as_bytes());
        for i in 0..(n % 7) * 40 {
            input.extend_from_slice(format!("usb 1-{i}: new device number {n}\n").as_bytes());
        }
        n += 1;
    }
    let summary = |out: &ScanOutput| {
        let hits: Vec<(u64, Vec<u64>)> = out
            .sigs
            .iter()
            .map(|s| (s.count, s.hits.iter().map(|h| h.line).collect()))
            .collect();
        let unexplained: Vec<(u64, u64)> =
            out.unexplained.iter().map(|u| (u.line, u.count)).collect();
        (hits, unexplained, out.unexplained_total, out.lines)
    };
    let full = |large: bool| {
        let mut scanner = matcher.scanner();
        if large {
            scanner.size_hint(input.len() as u64);
        }
        // Pieces of an odd size, as a pipe delivers them.
        for piece in input.chunks(777_777) {
            scanner.feed(piece);
        }
        summary(&scanner.finish())
    };
    let large = full(true);
    assert_eq!(large, full(false));
    // As `lore match` reads: pieces read ahead and scanned where they were read.
    let mut scanner = matcher.scanner();
    scanner.size_hint(input.len() as u64);
    crate::pieces::each_piece(std::io::Cursor::new(input.clone()), |piece| {
        Ok::<_, std::io::Error>(scanner.feed_owned(piece, crate::pieces::HEAD))
    })
    .unwrap();
    let owned = summary(&scanner.finish());
    assert_eq!(owned.0, large.0);
    assert_eq!(owned.3, large.3);
    assert!(large.0.iter().any(|(count, _)| *count > 100), "{large:?}");
    assert_eq!(
        large.3,
        input.iter().filter(|&&b| b == b'\n').count() as u64
    );
}

/// A start-up whose pattern cache already holds every pattern keeps no copy of it, also when two
/// signatures share a pattern (as two runbooks here do): copying it was a tenth of a paste's CPU.
#[test]
fn an_exact_cache_is_not_copied_even_with_shared_patterns() {
    let runbooks = library();
    let first = compile::Engine::with_cache(&runbooks, &PatternCache::default());
    assert!(first.cache.is_dirty());
    let stored = PatternCache::parse(first.cache.to_bytes());
    assert!(
        stored.len() < first.sigs.len(),
        "the test library shares a pattern"
    );
    let second = compile::Engine::with_cache(&runbooks, &stored);
    assert!(second.cache.is_empty() && !second.cache.is_dirty());
    assert_eq!(second.sigs.len(), first.sigs.len());
}

/// Buffers handed over whole (`feed_owned`, as `lore match` reads) give the answer `feed` gives,
/// whether the kept lines fit in the room before the data (the buffer is scanned in place) or not
/// (it is copied).
#[test]
fn handed_over_buffers_give_the_same_answer() {
    let matcher = Matcher::new(&library(), &[], &Default::default());
    let whole = scan(&matcher, LOG.as_bytes(), 1 << 20, 1 << 20);
    for chunk in [1, 2, 7, 33, 100, 257] {
        for head in [0, 8, 64, 4096] {
            let mut scanner = Scanner::with_sizes(&matcher.engine, chunk, 1 << 20);
            for piece in LOG.as_bytes().chunks(chunk) {
                let mut buf = vec![b'#'; head];
                buf.extend_from_slice(piece);
                scanner.feed_owned(buf, head);
            }
            assert_eq!(
                seen(&matcher, scanner.finish()),
                whole,
                "chunk {chunk}, head {head}"
            );
        }
    }
}

#[test]
fn lines_looked_at_are_those_holding_a_literal() {
    let matcher = Matcher::new(&library(), &[], &Default::default());
    let mut scanner = matcher.scanner();
    // A literal of a signature, an error word, nothing, a literal again.
    scanner.feed(b"NVRM: Xid (PCI:0000:3b:00): 79, x\nsomething failed\nall quiet here\nDriver/library version mismatch\n");
    let out = scanner.finish();
    assert_eq!(out.looked_at, 3);
    let mut quiet = matcher.scanner();
    quiet.feed(&b"usb 1-2: new high-speed USB device number 7 using xhci_hcd\n".repeat(1000));
    assert_eq!(quiet.finish().looked_at, 0);
}

#[test]
fn digit_and_word_classes_are_ascii_as_in_re2() {
    use super::compile::{ascii_classes, build_regex};
    // Outside and inside brackets, negated or not; `\s` and an escaped backslash stay.
    assert_eq!(
        ascii_classes(r"v\d+[\w.-]*\D\W[^\d]\s\\d"),
        r"v[[:digit:]]+[[:word:].-]*[^[:digit:]][^[:word:]][^[:digit:]]\s\\d"
    );
    assert_eq!(ascii_classes(r"no classes \s+(x)"), r"no classes \s+(x)");
    // A pattern that does not parse is left for the regex crate to report.
    assert_eq!(ascii_classes(r"(\d"), r"(\d");
    assert!(build_regex(r"(\d").is_err());
    let re = build_regex(r"(?i)^gpu (?P<n>\d+) (?P<w>\w+)$").unwrap();
    let caps = re.captures("GPU 12 Tesla_T4").unwrap();
    assert_eq!(
        (caps.name("n"), caps.name("w")),
        (Some("12"), Some("Tesla_T4"))
    );
    assert_eq!(re.capture_names().collect::<Vec<_>>(), ["n", "w"]);
    // Arabic-Indic digits and CJK letters are no longer `\d` and `\w`; `\s` keeps U+3000.
    assert!(!build_regex(r"^\d+$").unwrap().is_match("٣٤"));
    assert!(!build_regex(r"^\w+$").unwrap().is_match("已杀死"));
    assert!(build_regex(r"^a\sb$").unwrap().is_match("a\u{3000}b"));
}

/// A signature with `when:` fires only on a match whose captures satisfy it: on one line (the
/// first satisfying match counts, not just the first match), across a window, and in the
/// fallback pass of patterns without a literal. A `when:` that reads a capture the pattern does
/// not have, or is not a comparison, is a problem of that signature alone.
#[test]
fn a_condition_on_captures_decides_whether_a_match_is_a_hit() {
    let mut library = library();
    library.push(runbook(
        "compare",
        "high",
        r#"  - id: used-above-total
    pattern: 'used (?P<used>\d+) of (?P<total>\d+)'
    when: used > total
  - id: fewer-allocatable
    pattern: 'capacity: (?P<capacity>\d+)\n[^\n]*\n\s*allocatable: (?P<allocatable>\d+)'
    lines: 3
    when: allocatable < capacity
  - id: halved
    pattern: '^(?P<a>[\d.]+) (?P<b>[\d.]+)$'
    when: a < 0.5 * b
  - id: reads-unknown
    pattern: 'gpus (?P<n>\d+) ready'
    when: n < m
  - id: not-a-comparison
    pattern: 'gpus (?P<n>\d+) gone'
    when: n
"#,
    ));
    let matcher = Matcher::new(&library, &[], &Default::default());
    let problems: Vec<&str> = matcher
        .engine
        .problems
        .iter()
        .map(|p| p.message.as_str())
        .collect();
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(problems[0].contains("reads `m`, which the pattern does not capture"));
    assert!(problems[1].contains("no comparison"));
    let hits = |log: &str| -> Vec<(String, u64)> {
        let report = matcher.match_bytes(log.as_bytes(), None);
        let mut out: Vec<(String, u64)> = report
            .causes
            .iter()
            .flat_map(|c| c.hits.iter().map(|h| (h.signature.clone(), h.line)))
            .collect();
        out.sort();
        out
    };
    assert!(
        hits("used 3 of 8\ncapacity: 8\nx\nallocatable: 8\n1.0 1.5\ngpus 3 ready\n").is_empty()
    );
    assert_eq!(
        hits("used 3 of 8, used 9 of 8\nfiller\ncapacity: 8\nx\nallocatable: 6\n2.0 13.15\n"),
        [
            ("fewer-allocatable".to_string(), 3),
            ("halved".to_string(), 6),
            ("used-above-total".to_string(), 1)
        ]
    );
    // Pieces of any size give the same hits: a window waiting for its lines is judged once they
    // arrive.
    let log = b"used 3 of 8, used 9 of 8\nfiller\ncapacity: 8\nx\nallocatable: 6\n2.0 13.15\n";
    let whole = scan(&matcher, log, 1 << 20, 1 << 20);
    for chunk in [1, 2, 7, 16] {
        assert_eq!(scan(&matcher, log, chunk, 1 << 20), whole, "chunk {chunk}");
    }
    let report = matcher.match_bytes(b"used 3 of 8, used 9 of 8\n", None);
    let hit = &report.causes[0].hits[0];
    assert_eq!(
        hit.captures.get("used").map(String::as_str),
        Some("9"),
        "the captures are those of the match that satisfied the condition"
    );
}

/// A line is evidence once per runbook: a second signature of the same runbook on the same line
/// (a retyped wording matching the message it paraphrases) does not raise the score; on a line of
/// its own it does.
#[test]
fn a_line_counts_once_per_runbook() {
    let one = vec![runbook(
        "fm",
        "high",
        "  - id: fm-real\n    pattern: 'fabric manager service failed to start'\n",
    )];
    let two = vec![runbook(
        "fm",
        "high",
        "  - id: fm-real\n    pattern: 'fabric manager service failed to start'\n  - id: fm-retyped\n    pattern: 'fabric manager (?:service )?failed'\n",
    )];
    let score = |library: &[Runbook], log: &[u8]| {
        Matcher::new(library, &[], &Default::default())
            .match_bytes(log, None)
            .causes[0]
            .score
    };
    let line = b"fabric manager service failed to start\n";
    assert_eq!(score(&one, line), score(&two, line));
    let lines = b"fabric manager service failed to start\nour fabric manager failed again\n";
    assert!(score(&two, lines) > score(&one, lines));
}
