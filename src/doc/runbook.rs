//! A runbook: one known cause, its log signatures, and the Markdown that explains the fix.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use serde_yaml_ng::{Mapping, Value};

use super::frontmatter::{FrontMatter, Opened, open, scalar_string};
use super::{Diagnostic, Problems, is_valid_id};

/// How much a cause hurts; ordered so that `Critical` is the greatest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Low,
    Medium,
    High,
    Critical,
}

impl Severity {
    pub const ALL: [Severity; 5] = [
        Severity::Critical,
        Severity::High,
        Severity::Medium,
        Severity::Low,
        Severity::Info,
    ];

    pub fn parse(text: &str) -> Option<Severity> {
        Severity::ALL
            .into_iter()
            .find(|s| s.as_str().eq_ignore_ascii_case(text.trim()))
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
            Severity::Critical => "critical",
        }
    }
}

/// One example line of a signature, with the captures it must produce.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Example {
    pub text: String,
    pub captures: BTreeMap<String, String>,
}

/// A signature as written in the runbook; compiling it is `signature`'s job.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SignatureSpec {
    pub id: String,
    pub pattern: String,
    pub explain: Option<String>,
    /// How many consecutive lines one match may span (1 = a single line).
    pub lines: usize,
    /// How much a hit counts when ranking, in (0, 1]; generic symptoms use less than 1.
    pub weight: f64,
    /// A comparison of the numbers in the named captures that a match must satisfy
    /// (`allocatable < capacity`); checked when the library is compiled.
    #[serde(default)]
    pub when: Option<String>,
    pub examples: Vec<Example>,
    pub counterexamples: Vec<String>,
    /// Line of the signature's `id:` in the file, for diagnostics.
    pub line: usize,
}

/// Serialized only into the parse cache (`.lore/documents.cache`); the API has its own views.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Runbook {
    pub id: String,
    /// Path relative to the library root, e.g. `runbooks/driver-version-mismatch.md`.
    pub path: PathBuf,
    pub title: String,
    pub summary: String,
    pub aliases: Vec<String>,
    pub tags: Vec<String>,
    pub severity: Severity,
    pub action: Option<String>,
    pub related: Vec<String>,
    pub references: Vec<String>,
    pub reviewed_at: Option<NaiveDate>,
    pub signatures: Vec<SignatureSpec>,
    pub body: String,
    pub body_line: usize,
    /// Front-matter keys lore does not know, kept as they were.
    pub extra: Mapping,
    /// Line of each top-level key, for diagnostics found later (e.g. a `related` id that is missing).
    pub key_lines: BTreeMap<String, usize>,
}

const MAX_WINDOW: usize = 16;

const KNOWN_KEYS: &[&str] = &[
    "id",
    "title",
    "summary",
    "aliases",
    "tags",
    "severity",
    "action",
    "related",
    "references",
    "reviewed_at",
    "signatures",
];
const SIGNATURE_KEYS: &[&str] = &[
    "id",
    "pattern",
    "explain",
    "lines",
    "weight",
    "when",
    "examples",
    "counterexamples",
];

impl Runbook {
    /// Parses a runbook; `path` is relative to the root and gives the default id. Returns the runbook
    /// whenever the front matter could be read at all (fields with problems fall back to defaults), and
    /// every problem found.
    pub fn parse(path: &Path, text: &str) -> (Option<Runbook>, Vec<Diagnostic>) {
        let mut problems = Problems::new(path);
        let runbook = parse_inner(path, text, &mut problems);
        (runbook, problems.list)
    }
}

fn parse_inner(path: &Path, text: &str, problems: &mut Problems) -> Option<Runbook> {
    let Opened {
        split,
        mut fm,
        key_lines,
        id,
    } = open(
        path,
        text,
        KNOWN_KEYS,
        "runbook",
        "gpu-fallen-off-bus",
        problems,
    )?;
    let title = fm.take_string("title", problems).unwrap_or_else(|| {
        problems
            .error(fm.line_of_key("title"), "`title` is missing")
            .hint = Some("add `title: <what is wrong, in a few words>`".into());
        id.clone()
    });
    let summary = fm.take_string("summary", problems).unwrap_or_else(|| {
        problems
            .warning(fm.line_of_key("summary"), "`summary` is missing")
            .hint = Some("add one sentence that is shown next to a match".into());
        String::new()
    });
    let severity = fm.take_choice(
        "severity",
        &["critical", "high", "medium", "low", "info"],
        Severity::parse,
        Severity::Medium,
        problems,
    );
    let reviewed_at = fm.take_date("reviewed_at", "2026-11-29", problems);
    let aliases = fm.take_list("aliases", problems);
    let tags = fm.take_list("tags", problems);
    let action = fm.take_string("action", problems);
    let related = fm.take_list("related", problems);
    let references = fm.take_list("references", problems);
    let signatures = match fm.take("signatures") {
        None => Vec::new(),
        Some(Value::Sequence(items)) => {
            let mut line = fm.line_of_key("signatures");
            items
                .iter()
                .filter_map(|item| parse_signature(item, &fm, &mut line, problems))
                .collect()
        }
        Some(_) => {
            problems
                .error(fm.line_of_key("signatures"), "`signatures` must be a list")
                .hint = Some("each item starts with `- id: ...` and has a `pattern:`".into());
            Vec::new()
        }
    };
    for key in fm.map.keys().filter_map(Value::as_str) {
        if let Some(known) = near_miss(key, KNOWN_KEYS) {
            problems
                .warning(
                    fm.line_of_key(key),
                    format!("unknown key `{key}` is kept but not used"),
                )
                .hint = Some(format!("did you mean `{known}`?"));
        }
    }
    Some(Runbook {
        id,
        path: path.to_path_buf(),
        title,
        summary,
        aliases,
        tags,
        severity,
        action,
        related,
        references,
        reviewed_at,
        signatures,
        body: split.body.to_string(),
        body_line: split.body_line,
        extra: std::mem::take(&mut fm.map),
        key_lines,
    })
}

fn parse_signature(
    item: &Value,
    fm: &FrontMatter<'_>,
    line: &mut usize,
    problems: &mut Problems,
) -> Option<SignatureSpec> {
    let Value::Mapping(map) = item else {
        problems
            .error(*line + 1, "a signature must be a mapping")
            .hint =
            Some("write `- id: my-signature` and, indented below it, `pattern: '...'`".into());
        return None;
    };
    let get = |key: &str| map.get(key).filter(|v| !v.is_null());
    let id = get("id").and_then(scalar_string);
    let here = match &id {
        Some(id) => fm.line_of(&format!("id: {id}"), *line + 1),
        None => fm.line_of("pattern:", *line + 1),
    };
    *line = here;
    let Some(id) = id else {
        problems.error(here, "a signature has no `id`").hint =
            Some("add `id: <unique-name>`; ids are unique across the library".into());
        return None;
    };
    if !is_valid_id(&id) {
        problems
            .error(here, format!("signature id `{id}` is not valid"))
            .hint = Some("use lowercase letters, digits and `-`".into());
    }
    let Some(pattern) = get("pattern").and_then(scalar_string) else {
        problems
            .error(here, format!("signature `{id}` has no `pattern`"))
            .hint = Some("add `pattern: '<regex>'` in single quotes".into());
        return None;
    };
    let explain = get("explain").and_then(scalar_string);
    let lines = match get("lines") {
        None => 1,
        Some(v) => match v.as_u64() {
            Some(n) if (1..=MAX_WINDOW as u64).contains(&n) => n as usize,
            _ => {
                problems
                    .error(
                        fm.line_of("lines:", here),
                        format!("signature `{id}`: `lines` must be 1..={MAX_WINDOW}"),
                    )
                    .hint =
                    Some("`lines` is how many consecutive log lines one match may span".into());
                1
            }
        },
    };
    let weight = match get("weight") {
        None => 1.0,
        Some(v) => match v.as_f64() {
            Some(w) if w > 0.0 && w <= 1.0 => w,
            _ => {
                problems
                    .error(
                        fm.line_of("weight:", here),
                        format!("signature `{id}`: `weight` must be in (0, 1]"),
                    )
                    .hint = Some("use e.g. 0.3 for a generic symptom many causes share".into());
                1.0
            }
        },
    };
    let when = match get("when") {
        None => None,
        Some(v) => match scalar_string(v) {
            Some(text) => Some(text),
            None => {
                problems
                    .error(
                        fm.line_of("when:", here),
                        format!("signature `{id}`: `when` must be one comparison"),
                    )
                    .hint = Some("write e.g. `when: allocatable < capacity`".into());
                // Without its condition the signature would fire where it must not.
                return None;
            }
        },
    };
    let mut examples = Vec::new();
    if let Some(value) = get("examples") {
        match value {
            Value::Sequence(items) => {
                for item in items {
                    match parse_example(item) {
                        Some(example) => examples.push(example),
                        None => {
                            problems
                                .error(fm.line_of("examples:", here), format!("signature `{id}`: an example is neither a string nor `{{line, captures}}`"))
                                .hint = Some("write `- \"the log line\"` or `- line: \"...\"` with `captures: {name: value}`".into());
                        }
                    }
                }
            }
            _ => {
                problems.error(
                    fm.line_of("examples:", here),
                    format!("signature `{id}`: `examples` must be a list"),
                );
            }
        }
    }
    let counterexamples = match get("counterexamples") {
        None => Vec::new(),
        Some(Value::Sequence(items)) => items
            .iter()
            .filter_map(|item| match item {
                Value::Mapping(m) => m.get("line").and_then(scalar_string),
                other => scalar_string(other),
            })
            .collect(),
        Some(_) => {
            problems.error(
                fm.line_of("counterexamples:", here),
                format!("signature `{id}`: `counterexamples` must be a list"),
            );
            Vec::new()
        }
    };
    for key in map.keys().filter_map(Value::as_str) {
        if !SIGNATURE_KEYS.contains(&key) {
            let diagnostic = problems.warning(
                fm.line_of(&format!("{key}:"), here),
                format!("signature `{id}`: unknown key `{key}` is ignored"),
            );
            diagnostic.hint =
                near_miss(key, SIGNATURE_KEYS).map(|k| format!("did you mean `{k}`?"));
        }
    }
    Some(SignatureSpec {
        id,
        pattern,
        explain,
        lines,
        weight,
        when,
        examples,
        counterexamples,
        line: here,
    })
}

fn parse_example(item: &Value) -> Option<Example> {
    match item {
        Value::Mapping(map) => {
            let text = map.get("line").and_then(scalar_string)?;
            let mut captures = BTreeMap::new();
            if let Some(Value::Mapping(caps)) = map.get("captures") {
                for (k, v) in caps {
                    captures.insert(scalar_string(k)?, scalar_string(v)?);
                }
            }
            Some(Example { text, captures })
        }
        other => scalar_string(other).map(|text| Example {
            text,
            captures: BTreeMap::new(),
        }),
    }
}

/// A known key within two edits of `key` (but not `key` itself): likely a typo worth a warning.
pub(crate) fn near_miss<'k>(key: &str, known: &[&'k str]) -> Option<&'k str> {
    if known.contains(&key) {
        return None;
    }
    known
        .iter()
        .copied()
        .find(|k| edit_distance(k, key) <= 2 && k.len() > 3)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (Option<Runbook>, Vec<Diagnostic>) {
        Runbook::parse(Path::new("runbooks/x-y.md"), text)
    }

    const GOOD: &str = "---
title: Something broke
summary: One line.
aliases: [掉卡]
severity: high
owner: team-gpu
signatures:
  - id: sig-a
    pattern: 'NVRM: Xid (?P<xid>\\d+)'
    explain: 'code {xid}'
    examples:
      - 'NVRM: Xid 79'
      - line: 'NVRM: Xid 48'
        captures: {xid: 48}
    counterexamples: ['NVRM: loading']
  - id: sig-b
    pattern: 'fallen off'
    lines: 2
    weight: 0.3
---
## Symptoms
";

    #[test]
    fn good_runbook() {
        let (runbook, problems) = parse(GOOD);
        assert!(problems.is_empty(), "{problems:?}");
        let runbook = runbook.unwrap();
        assert_eq!(runbook.id, "x-y");
        assert_eq!(runbook.severity, Severity::High);
        assert_eq!(runbook.aliases, vec!["掉卡"]);
        assert_eq!(runbook.signatures.len(), 2);
        assert_eq!(runbook.signatures[0].examples[1].captures["xid"], "48");
        assert_eq!(runbook.signatures[1].lines, 2);
        assert_eq!(runbook.signatures[1].weight, 0.3);
        assert_eq!(runbook.signatures[1].line, 16);
        assert!(runbook.extra.contains_key("owner"), "unknown keys are kept");
        assert_eq!(runbook.body, "## Symptoms\n");
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let text = "---
title: t
severity: urgent
signatures:
  - id: a
  - pattern: 'x'
  - id: b
    pattern: 'y'
    lines: 99
    exmaples: []
---
";
        let (runbook, problems) = parse(text);
        assert!(runbook.is_some(), "a runbook with bad fields still loads");
        let messages: Vec<String> = problems.iter().map(|d| d.to_string()).collect();
        assert!(
            messages
                .iter()
                .any(|m| m.contains(":3: error: unknown severity `urgent`")),
            "{messages:#?}"
        );
        assert!(
            messages
                .iter()
                .any(|m| m.contains(":5: error: signature `a` has no `pattern`")),
            "{messages:#?}"
        );
        assert!(
            messages
                .iter()
                .any(|m| m.contains(":6: error: a signature has no `id`")),
            "{messages:#?}"
        );
        assert!(
            messages
                .iter()
                .any(|m| m.contains(":9: error: signature `b`: `lines`")),
            "{messages:#?}"
        );
        assert!(
            messages
                .iter()
                .any(|m| m.contains(":10: warning") && m.contains("did you mean `examples`")),
            "{messages:#?}"
        );
    }

    #[test]
    fn broken_yaml_is_one_error_with_a_hint() {
        let (runbook, problems) = parse("---\ntitle: NVRM: Xid\n---\n");
        assert!(runbook.is_none());
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].line, 2);
        assert!(problems[0].hint.as_deref().unwrap().contains("quote"));
    }

    #[test]
    fn typo_in_top_level_key_warns() {
        let (_, problems) = parse("---\ntitle: t\nseverity: low\nsumary: x\n---\n");
        assert!(
            problems
                .iter()
                .any(|d| d.message.contains("sumary") && d.line == 4),
            "{problems:?}"
        );
    }
}
