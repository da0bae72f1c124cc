//! A bundle: plain text, one section per collector, each opened by a marker line
//! (`### lore-collect id=driver.proc cmd="cat /proc/driver/nvidia/version" rc=0 ms=2`, or
//! `skipped=timeout|no-root|not-found|guard|budget why="..."`). The first line names the bundle.
//! Signatures ignore marker lines; the fingerprint and the checks read the sections. A bundle
//! saved today and pasted next week gives the same answer.

use std::collections::BTreeMap;

use serde::Serialize;

use super::table::MARKER;

/// One collector's part of a bundle.
#[derive(Debug, Clone, Serialize)]
pub struct Section {
    pub id: String,
    pub cmd: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rc: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ms: Option<u64>,
    /// `timeout`, `no-root`, `not-found`, `guard` or `budget` when the step did not run to its end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// What the collector itself said about the step (`### lore-collect note ...` lines: "systemd
    /// is not running here"), kept apart from the command's output.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// 1-based line of the bundle where the output starts (the marker is the line before).
    pub line: u64,
    #[serde(skip)]
    pub text: String,
}

impl Section {
    /// The output's lines with their line numbers in the bundle.
    pub fn lines(&self) -> impl Iterator<Item = (u64, &str)> {
        self.text
            .lines()
            .enumerate()
            .map(move |(i, l)| (self.line + i as u64, l))
    }

    /// What the step said about itself when it gave no answer: the collector's first note, else
    /// the first line of its output.
    pub fn complaint(&self) -> Option<&str> {
        self.notes
            .first()
            .map(String::as_str)
            .or_else(|| self.text.lines().find(|l| !l.trim().is_empty()))
    }

    /// Why the step gave no answer: `timeout: no answer within 10s`, or `exit 1: cat: ...`.
    pub fn why_not(&self) -> String {
        match (&self.skipped, &self.why) {
            (Some(kind), Some(why)) => format!("{kind}: {why}"),
            (Some(kind), None) => kind.clone(),
            (None, _) => format!(
                "exit {}: {}",
                self.rc.unwrap_or(-1),
                self.complaint().unwrap_or_default()
            ),
        }
    }

    /// The step ran to its end and succeeded: its output can be trusted as an answer (a step
    /// that failed still has its output in the bundle, for the signatures).
    /// An empty output with a failing status is an answer too: `lsmod | grep nvidia` that finds
    /// nothing (unless the collector noted why it could not run it).
    pub fn ran(&self) -> bool {
        self.skipped.is_none()
            && (self.rc.unwrap_or(0) == 0 || (self.text.trim().is_empty() && self.notes.is_empty()))
    }
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Bundle {
    /// The first line's fields: `lore`, `via`, `host`, `date`, `root`, `sysroot`.
    pub header: BTreeMap<String, String>,
    pub sections: Vec<Section>,
}

impl Bundle {
    pub fn section(&self, id: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.id == id)
    }

    /// The text of line `n` of the bundle (a section's output line), empty when there is none.
    pub fn line(&self, n: u64) -> &str {
        self.sections
            .iter()
            .flat_map(|s| s.lines())
            .find(|(l, _)| *l == n)
            .map_or("", |(_, t)| t)
    }

    /// The output of a step that ran (empty when it did not).
    pub fn text(&self, id: &str) -> &str {
        self.section(id)
            .filter(|s| s.ran())
            .map_or("", |s| s.text.as_str())
    }
}

/// Whether `bytes` start like a bundle.
pub fn is_bundle(bytes: &[u8]) -> bool {
    let start = &bytes[..bytes.len().min(256)];
    let start = start.strip_prefix(b"\xef\xbb\xbf").unwrap_or(start);
    start.starts_with(MARKER.as_bytes())
        && String::from_utf8_lossy(start)
            .lines()
            .next()
            .is_some_and(|l| l.contains(" bundle="))
}

/// A line the collector writes about a step (not the step's output).
pub const NOTE: &str = "### lore-collect note ";

/// Whether a line is a marker or a note (which signatures must not read).
pub fn is_marker(line: &[u8]) -> bool {
    line.starts_with(MARKER.as_bytes())
}

/// The `key=value` and `key="quoted value"` fields of a marker line.
pub fn marker_fields(line: &str) -> BTreeMap<String, String> {
    let mut fields = BTreeMap::new();
    let rest = line.strip_prefix(MARKER).unwrap_or(line);
    let mut chars = rest.char_indices().peekable();
    while let Some(&(start, c)) = chars.peek() {
        if c == ' ' {
            chars.next();
            continue;
        }
        // The key, up to `=`.
        let mut key_end = start;
        while let Some(&(i, c)) = chars.peek() {
            if c == '=' || c == ' ' {
                key_end = i;
                break;
            }
            chars.next();
            key_end = i + c.len_utf8();
        }
        let key = rest[start..key_end].to_string();
        if chars.peek().map(|&(_, c)| c) != Some('=') {
            if !key.is_empty() {
                fields.insert(key, String::new());
            }
            continue;
        }
        chars.next();
        let mut value = String::new();
        if chars.peek().map(|&(_, c)| c) == Some('"') {
            chars.next();
            while let Some((_, c)) = chars.next() {
                match c {
                    '\\' => {
                        if let Some((_, escaped)) = chars.next() {
                            value.push(escaped);
                        }
                    }
                    '"' => break,
                    c => value.push(c),
                }
            }
        } else {
            while let Some(&(_, c)) = chars.peek() {
                if c == ' ' {
                    break;
                }
                value.push(c);
                chars.next();
            }
        }
        fields.insert(key, value);
    }
    fields
}

/// Reads a bundle; `None` when the text is not one.
pub fn parse(text: &str) -> Option<Bundle> {
    if !is_bundle(text.as_bytes()) {
        return None;
    }
    let mut bundle = Bundle::default();
    let mut current: Option<Section> = None;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_start_matches('\u{feff}');
        let number = n as u64 + 1;
        if let Some(note) = line.strip_prefix(NOTE) {
            if let Some(section) = current.as_mut() {
                section.notes.push(note.trim().to_string());
                // Keep line numbers: the note's line counts as output, empty.
                section.text.push('\n');
            }
            continue;
        }
        if line.starts_with(MARKER) {
            let fields = marker_fields(line);
            if n == 0 || fields.contains_key("bundle") {
                bundle.header = fields;
                continue;
            }
            if let Some(done) = current.take() {
                bundle.sections.push(done);
            }
            current = Some(Section {
                id: fields.get("id").cloned().unwrap_or_default(),
                cmd: fields.get("cmd").cloned().unwrap_or_default(),
                rc: fields.get("rc").and_then(|v| v.parse().ok()),
                ms: fields.get("ms").and_then(|v| v.parse().ok()),
                skipped: fields.get("skipped").cloned(),
                why: fields.get("why").cloned(),
                notes: Vec::new(),
                line: number + 1,
                text: String::new(),
            });
        } else if let Some(section) = current.as_mut() {
            section.text.push_str(line);
            section.text.push('\n');
        }
    }
    if let Some(done) = current.take() {
        bundle.sections.push(done);
    }
    Some(bundle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_and_sections() {
        let text = "### lore-collect bundle=1 lore=0.1.0 via=doctor host=\"gpu-7\" date=\"2026-12-01T03:00:00Z\"\n\
### lore-collect id=driver.proc cmd=\"cat /proc/driver/nvidia/version\" rc=0 ms=2\n\
NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.86.01  Wed Jul 26 23:01:50 UTC 2023\n\
GCC version:  gcc version 11.4.0\n\
### lore-collect id=smi.summary cmd=\"nvidia-smi\" skipped=timeout why=\"no answer within 10s \\\"really\\\"\" ms=10000\n";
        assert!(is_bundle(text.as_bytes()));
        assert!(!is_bundle(b"### lore-collect id=x\n"));
        let bundle = parse(text).unwrap();
        assert_eq!(bundle.header["host"], "gpu-7");
        assert_eq!(bundle.sections.len(), 2);
        let proc = bundle.section("driver.proc").unwrap();
        assert_eq!(proc.rc, Some(0));
        assert_eq!(proc.line, 3);
        assert_eq!(
            proc.lines().nth(1).unwrap(),
            (4, "GCC version:  gcc version 11.4.0")
        );
        let smi = bundle.section("smi.summary").unwrap();
        assert_eq!(smi.skipped.as_deref(), Some("timeout"));
        assert_eq!(smi.why.as_deref(), Some("no answer within 10s \"really\""));
        assert_eq!(bundle.text("smi.summary"), "");
    }
}
