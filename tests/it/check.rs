//! `lore check`: every problem at once, with file and line; exit codes.

use crate::support::{Root, good_root, json, stdout};

#[test]
fn a_good_library_passes() {
    let root = good_root();
    let out = root.lore(&["check"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("2 runbooks, 4 signatures, 0 incident(s), 0 stack(s): 0 error(s)"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn every_problem_is_reported_with_its_line() {
    let root = good_root();
    root.file("runbooks/no-close.md", "---\ntitle: x\nseverity: low\n")
        .file("runbooks/bad-yaml.md", "---\ntitle: NVRM: Xid\n---\n")
        .file(
            "runbooks/bad-sigs.md",
            r#"---
title: Bad signatures
severity: high
related: [mismatch, nowhere]
signatures:
  - id: unclosed
    pattern: 'NVRM: (unclosed'
  - id: lookaround
    pattern: 'NVRM: (?=x)'
  - id: not-portable
    pattern: '(?<name>NVRM: Xid)'
  - id: wrong-capture
    pattern: 'NVRM: Xid (?P<xid>\d+)'
    examples:
      - line: "NVRM: Xid 79"
        captures: {xid: "48"}
      - "this does not match"
    counterexamples: ["NVRM: Xid 13"]
  - id: nvml-mismatch
    pattern: 'Driver/library'
  - id: huge
    pattern: '\p{L}{1000}\p{L}{1000}\p{L}{1000}'
  - id: compares-unknown
    pattern: 'gpus (?P<n>\d+) ready'
    when: n < m
  - id: compares-mapping
    pattern: 'gpus (?P<n>\d+) gone'
    when: {n: 3}
  - id: compares-false
    pattern: 'used (?P<used>\d+) of (?P<total>\d+)'
    when: used > total
    examples: ["used 3 of 8"]
---
"#,
        )
        .file("incidents/2026-01-01-x.md", "---\ntitle: x\nrunbooks: [missing-runbook]\nstarted_at: 2026-01-01T10:00:00Z\nresolved_at: 2026-01-01T09:00:00Z\n---\n")
        .file("runbooks/binary.md", b"---\ntitle: \xff\xfe\n---\n");
    let out = root.lore(&["check"], b"");
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    for expected in [
        "runbooks/no-close.md:1: error: the front matter is never closed",
        "runbooks/bad-yaml.md:2: error: YAML",
        "runbooks/bad-sigs.md:4: error: related runbook `nowhere` does not exist",
        "runbooks/bad-sigs.md:6: error: signature `unclosed`: pattern does not compile",
        "runbooks/bad-sigs.md:8: error: signature `lookaround`: pattern does not compile",
        "runbooks/bad-sigs.md:10: error: signature `not-portable`: pattern uses syntax outside the portable subset",
        "runbooks/bad-sigs.md:12: error: signature `wrong-capture`: example 1: capture `xid` is `79` but should be `48`",
        "runbooks/bad-sigs.md:12: error: signature `wrong-capture`: example 2 does not match",
        "runbooks/bad-sigs.md:12: error: signature `wrong-capture`: counterexample 1 matches",
        "runbooks/mismatch.md:21: error: signature id `nvml-mismatch` is used twice",
        "runbooks/bad-sigs.md:21: error: signature `huge`: pattern cannot be compiled",
        "runbooks/bad-sigs.md:23: error: signature `compares-unknown`: `when: n < m` reads `m`, which the pattern does not capture",
        "runbooks/bad-sigs.md:28: error: signature `compares-mapping`: `when` must be one comparison",
        "runbooks/bad-sigs.md:29: error: signature `compares-false`: example 1 does not match",
        "runbooks/binary.md:2: error: the file is not valid UTF-8",
        "incidents/2026-01-01-x.md:3: error: runbook `missing-runbook` does not exist",
        "incidents/2026-01-01-x.md:5: error: `resolved_at`",
    ] {
        assert!(text.contains(expected), "missing {expected:?} in:\n{text}");
    }
    assert!(
        text.contains("hint: did you forget the closing `---`"),
        "{text}"
    );
}

/// A signature whose only literals are words ordinary logs carry would send a busy log's lines to
/// its regex one by one: `lore check` says so (a warning: the library still loads and matches).
#[test]
fn a_signature_on_commonplace_words_is_a_warning() {
    let root = good_root();
    root.file(
        "runbooks/bridge.md",
        r#"---
title: A bridge port that left forwarding
severity: low
signatures:
  - id: bridge-port-state
    pattern: 'docker0: port \d+\((?P<veth>\w+)\) entered (?P<state>\w+) state'
    examples: ["docker0: port 3(veth1a2b3c4) entered disabled state"]
  - id: bridge-port-flapping
    pattern: 'docker0: port \d+\((?P<veth>\w+)\) entered disabled state .* flapping'
    examples: ["docker0: port 3(veth1a2b3c4) entered disabled state after 3 changes: flapping"]
---
"#,
    );
    let out = root.lore(&["check"], b"");
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let warning = text
        .lines()
        .find(|l| l.contains("bridge-port-state"))
        .unwrap_or_else(|| panic!("no warning in:\n{text}"));
    assert!(
        warning.starts_with("runbooks/bridge.md:5: warning:"),
        "{warning}"
    );
    assert!(warning.contains("of ordinary log lines"), "{warning}");
    assert!(warning.contains("docker0: port"), "{warning}");
    // A second required phrase that ordinary lines lack makes the same literal selective.
    assert!(!text.contains("bridge-port-flapping"), "{text}");
}

#[test]
fn json_output() {
    let root = good_root();
    root.file("runbooks/bad.md", "---\ntitle: t\nseverity: urgent\n---\n");
    let out = root.lore(&["check", "--json"], b"");
    assert_eq!(out.status.code(), Some(1));
    let value = json(&out);
    assert_eq!(value["ok"], false);
    let problems = value["problems"].as_array().unwrap();
    let severity = problems
        .iter()
        .find(|p| p["message"].as_str().unwrap().contains("severity"))
        .unwrap();
    assert_eq!(severity["path"], "runbooks/bad.md");
    assert_eq!(severity["line"], 3);
    assert_eq!(severity["level"], "error");
}

#[test]
fn an_unreadable_root_is_exit_2() {
    let root = Root::new();
    let missing = root.path().join("nope");
    let out = crate::support::lore_in(&missing, &["check"], b"");
    assert_eq!(out.status.code(), Some(2));
}
