//! "Start a runbook from this line": a signature pattern that matches a log line and its
//! siblings (other numbers, addresses, pids, versions), and a runbook skeleton around it.

use std::sync::LazyLock;

use regex::Regex;

use super::normalize;

/// Variable parts of a log line, most specific first, with what they become.
static VARIABLE: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        (r"^(?:PCI:)?[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.[0-7])?", r"(?P<pci>(?:PCI:)?[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}(?:\.[0-7])?)"),
        // A user's or a job's own files: where they live says nothing about the cause.
        (r"^/(?:home|tmp|root|mnt|data|scratch|workspace|Users)/[^\s:'\x22,)]+", r"/\S+?"),
        (r"^GPU-[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}", r"GPU-[0-9a-fA-F-]+"),
        (r"^[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}", r"[0-9a-fA-F-]{36}"),
        (r"^\d+(?:\.\d+){2,}", r"\d+(?:\.\d+)+"),
        (r"^0x[0-9a-fA-F]+", r"0x[0-9a-fA-F]+"),
        (r"^\d+\.\d+", r"\d+\.\d+"),
        (r"^[0-9a-fA-F]*\d[0-9a-fA-F]*[a-fA-F][0-9a-fA-F]*\b|^[0-9a-fA-F]*[a-fA-F][0-9a-fA-F]*\d[0-9a-fA-F]*\b", r"[0-9a-fA-F]+"),
        (r"^\d+", r"\d+"),
    ]
    .into_iter()
    .map(|(re, out)| (Regex::new(re).expect("valid"), out))
    .collect()
});

/// A pattern (portable subset) matching `line` with its numbers, addresses, pids and versions
/// generalised; the line's log prefix is left out.
pub fn generalize(line: &str) -> String {
    let text = normalize::line(line.as_bytes()).text;
    let text = text.lines().next().unwrap_or("").trim();
    let mut out = String::new();
    let mut rest = text;
    let mut prev_word = false;
    let mut named_pid = false;
    while !rest.is_empty() {
        let ch = rest.chars().next().expect("not empty");
        if ch.is_whitespace() {
            let n = rest.len() - rest.trim_start().len();
            out.push_str(r"\s+");
            rest = &rest[n..];
            prev_word = false;
            continue;
        }
        // A variable part only at a word start (`sda1` stays literal).
        if !prev_word
            && let Some((m, replacement)) = VARIABLE
                .iter()
                .find_map(|(re, r)| re.find(rest).map(|m| (m, *r)))
        {
            let after_pid =
                out.ends_with("pid=") || out.ends_with(r"pid\s+") || out.ends_with("pid ");
            if after_pid && !named_pid && replacement == r"\d+" {
                out.push_str(r"(?P<pid>\d+)");
                named_pid = true;
            } else if replacement.starts_with("(?P<pci>") && out.contains("(?P<pci>") {
                out.push_str(&replacement[8..replacement.len() - 1]);
            } else {
                out.push_str(replacement);
            }
            rest = &rest[m.end()..];
            prev_word = true;
            continue;
        }
        out.push_str(&regex::escape(&ch.to_string()));
        prev_word = ch.is_alphanumeric() || ch == '_';
        rest = &rest[ch.len_utf8()..];
    }
    // Trailing generic parts make the pattern slower and no more specific.
    while let Some(stripped) = out.strip_suffix(r"\s+") {
        out = stripped.to_string();
    }
    out
}

/// A runbook skeleton whose one signature is the generalised `line`, ready to edit and save as
/// `runbooks/<id>.md`.
pub fn draft_runbook(line: &str) -> (String, String) {
    let pattern = generalize(line);
    let message = normalize::line(line.as_bytes())
        .text
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .to_string();
    let id = suggest_id(&message);
    let quoted_pattern = pattern.replace('\'', "''");
    let quoted_line = line.trim_end().replace('\\', "\\\\").replace('"', "\\\"");
    let title: String = message
        .chars()
        .take(80)
        .collect::<String>()
        .replace('\'', "''");
    let text = format!(
        "---
title: '{title}'
summary: What this means and what to do, in one sentence.
aliases: []
tags: []
severity: medium
action: investigate
related: []
references: []
reviewed_at: {today}
signatures:
  - id: {id}-line
    pattern: '{quoted_pattern}'
    examples:
      - \"{quoted_line}\"
    counterexamples: []
---

## Symptoms

## Diagnosis

## Fix

## Why it happens

## References

## 中文摘要
",
        today = chrono::Local::now().date_naive()
    );
    (id, text)
}

pub fn suggest_id(message: &str) -> String {
    let words: Vec<String> = message
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| {
            w.len() > 2
                && !w
                    .chars()
                    .all(|c| c.is_ascii_digit() || c.is_ascii_hexdigit())
        })
        .take(4)
        .map(str::to_lowercase)
        .collect();
    if words.is_empty() {
        "new-cause".into()
    } else {
        words.join("-")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(line: &str, sibling: &str) {
        let pattern = generalize(line);
        assert!(super::super::portable::check(&pattern).is_ok(), "{pattern}");
        let re = crate::signature::compile::build_regex(&pattern).unwrap();
        let text = normalize::line(line.as_bytes()).text;
        assert!(re.is_match(&text), "{pattern} vs {text}");
        let sibling = normalize::line(sibling.as_bytes()).text;
        assert!(re.is_match(&sibling), "{pattern} vs sibling {sibling}");
    }

    #[test]
    fn numbers_addresses_pids_versions() {
        check(
            "[ 2384.559823] NVRM: Xid (PCI:0000:3b:00): 79, pid=1862, name=python3, GPU has fallen off the bus.",
            "[   12.1] NVRM: Xid (PCI:0000:db:00): 80, pid=99, name=python3, GPU has fallen off the bus.",
        );
        check(
            "NVRM: API mismatch: the client has the version 535.104.05, but this kernel module has the version 535.86.01.",
            "NVRM: API mismatch: the client has the version 550.54.15, but this kernel module has the version 545.23.08.",
        );
        check(
            "mlx5_core 0000:41:00.0: cmd_work_handler:877:(pid 4811): ACCESS_REG(0x805) timeout",
            "mlx5_core 0000:c1:00.1: cmd_work_handler:900:(pid 1): ACCESS_REG(0x80f) timeout",
        );
        check(
            "error at 0xdeadbeef in a.out[400000+1000]",
            "error at 0x1 in a.out[1+2]",
        );
        let pattern = generalize("pid=1862 pid=1");
        assert!(pattern.contains("(?P<pid>"));
    }

    #[test]
    fn a_skeleton_that_checks() {
        let (id, text) =
            draft_runbook("[ 1.0] sd 0:0:0:0: [sda] tag#7 timing out command, waited 180s");
        assert_eq!(id, "sda-tag-timing-out");
        let (runbook, problems) =
            crate::doc::Runbook::parse(std::path::Path::new("runbooks/x.md"), &text);
        assert!(
            problems
                .iter()
                .all(|p| p.level == crate::doc::Level::Warning),
            "{problems:?}"
        );
        assert_eq!(runbook.unwrap().signatures.len(), 1);
    }
}
