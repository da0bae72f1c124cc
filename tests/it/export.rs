//! `lore export`: each format parses with a real parser, and every exported pattern decides the
//! signature's examples and counterexamples in the target's own regex engine: RE2 (the
//! `google-re2` Python wheel) the way node-problem-detector and Loki run it, and PCRE-style
//! Python `re` for Sigma, whose rules are also loaded by pySigma.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use lore::doc::SignatureSpec;
use lore::export::camel_case;
use lore::library::Library;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::support::{Root, lore_in, repo_root, stderr, stdout};

/// Fails with what to do when python3 cannot import `module`: tests install nothing, test.sh
/// installs `package` before running them.
fn python_module(module: &str, package: &str) {
    let imported = Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        imported,
        "python3 cannot import {module}: run ./test.sh, which installs it (pip install {package})"
    );
}

/// Runs a Python script with `input` as JSON on stdin; its stdout is JSON.
fn python(script: &str, input: &Value) -> Value {
    let mut child = Command::new("python3")
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let data = serde_json::to_vec(input).unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&data));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "python failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "python printed no JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// What lore matches in one example or counterexample: the messages, prefixes stripped, one per
/// line (a syslog `#012` line gives several).
fn messages(text: &str) -> Vec<String> {
    text.lines()
        .flat_map(|raw| {
            lore::signature::normalize::line(raw.as_bytes())
                .text
                .split('\n')
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Each example (expect: true) and counterexample (expect: false) of a signature, as `lines`.
fn samples(sig: &SignatureSpec, lines: impl Fn(&str) -> Vec<String>) -> Vec<Value> {
    let examples = sig
        .examples
        .iter()
        .map(|e| json!({"lines": lines(&e.text), "expect": true}));
    let counter = sig
        .counterexamples
        .iter()
        .map(|c| json!({"lines": lines(c), "expect": false}));
    examples.chain(counter).collect()
}

fn signatures(root: &Path) -> HashMap<String, SignatureSpec> {
    let library = Library::load(root).unwrap();
    library
        .runbooks
        .iter()
        .flat_map(|r| r.signatures.iter().cloned())
        .map(|s| (s.id.clone(), s))
        .collect()
}

/// node-problem-detector's matching, in RE2: each line is pushed into a ring buffer of
/// `buffer` lines, and the rule matches when `pattern + \z` is found in the lines joined by `\n`.
const NPD_RE2: &str = r#"
import json, sys, re2
data = json.load(sys.stdin)
failures = []
for case in data["cases"]:
    try:
        regex = re2.compile(case["pattern"] + r"\z")
    except Exception as e:
        failures.append([case["id"], "does not compile: %s" % e])
        continue
    for sample in case["samples"]:
        ring, hit = [], False
        for line in sample["lines"]:
            ring = (ring + [line])[-data["buffer"]:]
            if regex.search("\n".join(ring)):
                hit = True
        if hit != sample["expect"]:
            failures.append([case["id"], sample])
print(json.dumps({"checked": len(data["cases"]), "failures": failures}))
"#;

/// Loki's `|~`, in RE2: the pattern is searched in each raw line.
const LINE_FILTER_RE2: &str = r#"
import json, sys, re2
data = json.load(sys.stdin)
failures = []
for case in data["cases"]:
    try:
        regex = re2.compile(case["pattern"])
    except Exception as e:
        failures.append([case["id"], "does not compile: %s" % e])
        continue
    for sample in case["samples"]:
        hit = any(regex.search(line) for line in sample["lines"])
        if hit != sample["expect"]:
            failures.append([case["id"], sample])
print(json.dumps({"checked": len(data["cases"]), "failures": failures}))
"#;

#[test]
fn npd_configs_of_this_repository_decide_every_example_in_re2() {
    python_module("re2", "google-re2");
    let root = repo_root();
    let sigs = signatures(&root);
    let by_reason: HashMap<String, &SignatureSpec> =
        sigs.values().map(|s| (camel_case(&s.id), s)).collect();
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("npd");
    let out = lore_in(
        &root,
        &[
            "export",
            "--format",
            "npd",
            "--out",
            out_dir.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let warnings = stderr(&out)
        .lines()
        .filter(|l| l.contains(" skipped for "))
        .count();
    for (file, plugin) in [
        ("lore-kmsg-monitor.json", "kmsg"),
        ("lore-journald-monitor.json", "journald"),
    ] {
        let text = std::fs::read_to_string(out_dir.join(file)).unwrap();
        let config: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(config["plugin"], plugin);
        assert_eq!(config["source"], "lore-monitor");
        let rules = config["rules"].as_array().unwrap();
        assert_eq!(
            rules.len() + warnings,
            sigs.len(),
            "every signature exported or reported"
        );
        let condition = config["conditions"][0]["type"].as_str().unwrap();
        let mut cases = Vec::new();
        for rule in rules {
            let reason = rule["reason"].as_str().unwrap();
            let sig = by_reason[reason];
            match rule["type"].as_str() {
                Some("permanent") => assert_eq!(rule["condition"], condition),
                Some("temporary") => assert!(rule.get("condition").is_none()),
                other => panic!("type {other:?}"),
            }
            let suffix = rule["patternGeneratedMessageSuffix"].as_str().unwrap();
            assert!(
                suffix.starts_with("runbook: http://127.0.0.1:7070/runbooks/"),
                "{suffix}"
            );
            cases.push(json!({
                "id": sig.id,
                "pattern": rule["pattern"],
                "samples": samples(sig, messages),
            }));
        }
        let buffer = config["bufferSize"].as_u64().unwrap();
        let max_lines = sigs.values().map(|s| s.lines).max().unwrap() as u64;
        assert_eq!(buffer, max_lines);
        let result = python(NPD_RE2, &json!({"buffer": buffer, "cases": cases}));
        assert_eq!(result["failures"], json!([]), "{file}");
        assert_eq!(result["checked"], rules.len());
    }
}

/// The pattern inside `count_over_time(<selector> |~ <string> [<window>]) > 0`, unquoted.
fn logql_pattern(expr: &str) -> String {
    let start = expr.find("|~ ").expect("a line filter") + 3;
    let end = expr.rfind(" [").expect("a range");
    let quoted = &expr[start..end];
    if let Some(raw) = quoted.strip_prefix('`') {
        return raw.strip_suffix('`').expect("closing backtick").to_string();
    }
    let inner = quoted
        .strip_prefix('"')
        .and_then(|q| q.strip_suffix('"'))
        .expect("a quoted string");
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => panic!("dangling escape in {quoted}"),
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[test]
fn loki_rules_of_this_repository_decide_every_example_in_re2() {
    python_module("re2", "google-re2");
    let root = repo_root();
    let sigs = signatures(&root);
    let out = lore_in(
        &root,
        &[
            "export",
            "--format",
            "loki",
            "--base-url",
            "https://lore.example.com/",
            "--window",
            "5m",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let doc: serde_yaml_ng::Value = serde_yaml_ng::from_str(&stdout(&out)).unwrap();
    let mut cases = Vec::new();
    let mut backtick = false;
    for group in doc["groups"].as_sequence().unwrap() {
        let runbook = group["name"]
            .as_str()
            .unwrap()
            .strip_prefix("lore-")
            .unwrap();
        for rule in group["rules"].as_sequence().unwrap() {
            let id = rule["labels"]["signature"].as_str().unwrap();
            let sig = &sigs[id];
            assert_eq!(rule["alert"].as_str(), Some(camel_case(id).as_str()));
            assert_eq!(rule["labels"]["runbook"].as_str(), Some(runbook));
            assert!(rule["labels"]["severity"].as_str().is_some());
            assert_eq!(
                rule["annotations"]["runbook_url"].as_str().unwrap(),
                format!("https://lore.example.com/runbooks/{runbook}")
            );
            assert!(rule["annotations"]["summary"].as_str().is_some());
            let expr = rule["expr"].as_str().unwrap();
            assert!(
                expr.starts_with(r#"count_over_time({job=~".+"} |~ "#),
                "{expr}"
            );
            assert!(expr.ends_with(" [5m]) > 0"), "{expr}");
            let pattern = logql_pattern(expr);
            assert_eq!(pattern, sig.pattern, "the pattern survives quoting");
            backtick |= pattern.contains('`');
            // Loki sees raw lines, prefixes and all.
            let raw = |text: &str| text.lines().map(str::to_string).collect::<Vec<_>>();
            cases.push(json!({"id": id, "pattern": pattern, "samples": samples(sig, raw)}));
        }
    }
    assert!(
        backtick,
        "the repository has a pattern with a backtick: quoted, not raw"
    );
    let warnings: Vec<String> = stderr(&out)
        .lines()
        .filter(|l| l.contains(" skipped for loki: "))
        .map(str::to_string)
        .collect();
    assert_eq!(cases.len() + warnings.len(), sigs.len());
    let multi = sigs
        .values()
        .filter(|s| s.lines > 1 || s.when.is_some())
        .count();
    assert_eq!(
        warnings.len(),
        multi,
        "only multi-line signatures and conditions on captures are skipped: {warnings:#?}"
    );
    let result = python(LINE_FILTER_RE2, &json!({"cases": cases}));
    assert_eq!(result["failures"], json!([]));
    assert_eq!(result["checked"], cases.len());
}

/// Whether a Sigma regex keeps to the v2 subset: plain characters, escaped metacharacters and
/// whitespace escapes (`\t`), `.`, `^`, `$`, `* + ? {n,m}`, classes, plain groups and `|`; no
/// `(?`, no `\d`-style classes, no lazy repetition.
fn sigma_subset(pattern: &str) -> Result<(), String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut in_class = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            let next = *chars.get(i + 1).ok_or("a trailing backslash")?;
            // Escaped metacharacters, and the whitespace escapes every engine reads.
            if chars[i + 1..].starts_with(&['x', '0', 'b']) {
                i += 4;
                continue;
            }
            if next.is_alphanumeric() && !matches!(next, 't' | 'n' | 'r' | 'f') {
                return Err(format!("the escape \\{next}"));
            }
            i += 2;
            continue;
        }
        if in_class {
            in_class = c != ']';
        } else if c == '[' {
            in_class = true;
            // A `]` right after `[` or `[^` is a literal in PCRE; the export escapes it anyway.
        } else if c == '(' && chars.get(i + 1) == Some(&'?') {
            return Err("a `(?` group".into());
        } else if matches!(c, '*' | '+' | '?' | '}') && chars.get(i + 1) == Some(&'?') {
            return Err("a lazy repetition".into());
        }
        i += 1;
    }
    Ok(())
}

const SIGMA_CHECK: &str = r#"
import json, re, sys
from sigma.collection import SigmaCollection
data = json.load(sys.stdin)
collection = SigmaCollection.from_yaml(data["yaml"])
errors = [str(e) for e in collection.errors]
failures = []
checked = 0
for rule in collection.rules:
    errors.extend(str(e) for e in rule.errors)
    sid = str(rule.id)
    case = data["cases"][sid]
    item = rule.detection.detections["selection"].detection_items[0]
    regex = item.value[0]
    flags = 0
    for f in regex.flags:
        flags |= {"IGNORECASE": re.I, "MULTILINE": re.M, "DOTALL": re.S}[f.name]
    compiled = re.compile(str(regex.regexp), flags)
    for sample in case["samples"]:
        hit = any(compiled.search(line) for line in sample["lines"])
        if hit != sample["expect"]:
            failures.append([case["id"], sample])
    checked += 1
print(json.dumps({"rules": len(collection.rules), "checked": checked, "errors": errors, "failures": failures}))
"#;

#[test]
fn sigma_rules_of_this_repository_load_in_pysigma_and_decide_every_example() {
    python_module("sigma.collection", "pysigma");
    let root = repo_root();
    let sigs = signatures(&root);
    let out = lore_in(&root, &["export", "--format", "sigma"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let mut cases = BTreeMap::new();
    let mut ids = Vec::new();
    for document in serde_yaml_ng::Deserializer::from_str(&text) {
        let rule = serde_yaml_ng::Value::deserialize(document).unwrap();
        let uuid = rule["id"].as_str().unwrap().to_string();
        assert_eq!(uuid.len(), 36, "{uuid}");
        assert_eq!(&uuid[14..15], "5", "a version 5 UUID: {uuid}");
        let title = rule["title"].as_str().unwrap();
        let id = title
            .rsplit_once(" (")
            .and_then(|(_, rest)| rest.strip_suffix(')'))
            .unwrap();
        let sig = &sigs[id];
        assert_eq!(rule["status"].as_str(), Some("experimental"));
        assert_eq!(rule["logsource"]["product"].as_str(), Some("linux"));
        assert!(rule["description"].as_str().is_some_and(|d| !d.is_empty()));
        assert!(
            rule["references"][0]
                .as_str()
                .unwrap()
                .starts_with("http://127.0.0.1:7070/runbooks/")
        );
        assert!(
            ["critical", "high", "medium", "low", "informational"]
                .contains(&rule["level"].as_str().unwrap())
        );
        assert_eq!(
            rule["falsepositives"].as_sequence().unwrap().len(),
            sig.counterexamples.len().clamp(1, 5)
        );
        let selection = rule["detection"]["selection"].as_mapping().unwrap();
        assert_eq!(selection.len(), 1);
        let (key, value) = selection.iter().next().unwrap();
        assert!(key.as_str().unwrap().starts_with("|re"), "{key:?}");
        let regex = value.as_str().unwrap();
        assert_eq!(sigma_subset(regex), Ok(()), "{id}: {regex}");
        cases.insert(
            uuid.clone(),
            json!({"id": id, "samples": samples(sig, messages)}),
        );
        ids.push(uuid);
    }
    let total = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), total, "ids are unique");
    assert!(
        total > sigs.len() * 3 / 4,
        "most signatures export: {total}"
    );
    let warnings = stderr(&out)
        .lines()
        .filter(|l| l.contains(" skipped for sigma: "))
        .count();
    assert_eq!(total + warnings, sigs.len());

    let result = python(SIGMA_CHECK, &json!({"yaml": text, "cases": cases}));
    assert_eq!(result["errors"], json!([]));
    assert_eq!(result["failures"], json!([]));
    assert_eq!(result["rules"], total);
    assert_eq!(result["checked"], total);

    // Ids depend on the signature id alone: a second export gives the same ones.
    let again = lore_in(&root, &["export", "--format", "sigma"], b"");
    assert_eq!(stdout(&again), text);
}

const AWKWARD: &str = r#"---
title: Patterns the targets cannot all run
summary: Fixture.
severity: high
signatures:
  - id: unicode-letters
    pattern: 'GPU \p{Letter}+ failed'
    examples: ["GPU kaput failed"]
  - id: split-message
    pattern: 'first part\s+(?:NVRM:\s*)?second part'
    lines: 2
    examples:
      - |
        NVRM: first part
        NVRM: second part
  - id: inner-boundary
    pattern: 'x.\b.y'
    examples: ["x a y"]
  - id: plain
    pattern: 'all is fine here'
    examples: ["all is fine here"]
  - id: compared
    pattern: 'used (?P<used>\d+) of (?P<total>\d+)'
    when: used > total
    examples: ["used 9 of 8"]
    counterexamples: ["used 3 of 8"]
---
## Fix
None.
"#;

#[test]
fn what_a_target_cannot_express_is_reported_and_left_out() {
    let root = Root::new();
    root.file("runbooks/awkward.md", AWKWARD);
    // Each target, the signatures it must leave out.
    for (format, skipped) in [
        ("npd", vec!["unicode-letters", "compared"]),
        ("loki", vec!["unicode-letters", "split-message", "compared"]),
        (
            "sigma",
            vec![
                "unicode-letters",
                "split-message",
                "inner-boundary",
                "compared",
            ],
        ),
    ] {
        let out = root.lore(&["export", "--format", format], b"");
        assert_eq!(out.status.code(), Some(0), "{format}: {}", stderr(&out));
        let err = stderr(&out);
        let lines: Vec<&str> = err
            .lines()
            .filter(|l| l.contains(" skipped for "))
            .collect();
        assert_eq!(lines.len(), skipped.len(), "{format}: {err}");
        for (line, id) in lines.iter().zip(&skipped) {
            assert!(
                line.starts_with(&format!(
                    "lore: runbooks/awkward.md: signature {id} skipped for {format}: "
                )),
                "{line}"
            );
        }
        assert!(
            lines
                .last()
                .is_some_and(|l| l.contains(": a condition on its captures (when: used > total)")),
            "{format}: {err}"
        );
        let text = stdout(&out);
        assert!(!text.contains("Letter"), "{format}: never emitted broken");
        assert!(
            !text.contains("used (?P"),
            "{format}: a condition is never dropped silently"
        );
        assert!(
            text.contains("all is fine here"),
            "{format}: the rest is exported"
        );
    }
    // And RE2 itself refuses what was left out, so NPD would not have started with it.
    python_module("re2", "google-re2");
    let result = python(
        r#"
import json, sys, re2
try:
    re2.compile(json.load(sys.stdin))
    print(json.dumps("compiled"))
except Exception as e:
    print(json.dumps("refused"))
"#,
        &json!(r"GPU \p{Letter}+ failed"),
    );
    assert_eq!(result, "refused");
}

#[test]
fn stdout_takes_one_document_and_out_writes_files() {
    let root = crate::support::good_root();
    let out = root.lore(&["export", "--format", "npd"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let config: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(config["plugin"], "kmsg");
    assert_eq!(config["bufferSize"], 3, "the window signature's lines");
    let out = root.lore(&["export", "--format", "npd", "--plugin", "journald"], b"");
    let config: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(config["plugin"], "journald");
    assert_eq!(config["pluginConfig"]["source"], "kernel");

    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("nested/sigma");
    let out = root.lore(
        &[
            "export",
            "--format",
            "sigma",
            "--out",
            target.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    let mut names: Vec<String> = std::fs::read_dir(&target)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "lore-modprobe-not-found.yml",
            "lore-nvml-mismatch.yml",
            "lore-smi-cannot-talk.yml"
        ]
    );
    assert!(stderr(&out).contains("api-mismatch skipped for sigma: a multi-line signature"));

    for args in [
        &["export", "--format", "loki", "--window", "soon"][..],
        &[
            "export",
            "--format",
            "loki",
            "--base-url",
            "lore.example.com",
        ],
        &[
            "export", "--format", "npd", "--plugin", "kmsg", "--plugin", "journald",
        ],
        &["export", "--format", "xml"],
    ] {
        let out = root.lore(args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}
