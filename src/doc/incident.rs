//! An incident postmortem: what happened, when, to which hosts, and which runbooks were the cause.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::{DateTime, FixedOffset, NaiveDate, TimeDelta};
use serde::{Deserialize, Serialize};
use serde_yaml_ng::{Mapping, Value};

use super::frontmatter::{Opened, open, scalar_string};
use super::runbook::near_miss;
use super::{Diagnostic, Problems, log_blocks};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum IncidentSeverity {
    #[serde(rename = "SEV1")]
    Sev1,
    #[serde(rename = "SEV2")]
    Sev2,
    #[serde(rename = "SEV3")]
    Sev3,
    #[serde(rename = "SEV4")]
    Sev4,
}

impl IncidentSeverity {
    pub const ALL: [IncidentSeverity; 4] = [Self::Sev1, Self::Sev2, Self::Sev3, Self::Sev4];

    pub fn parse(text: &str) -> Option<IncidentSeverity> {
        Self::ALL
            .into_iter()
            .find(|s| s.as_str().eq_ignore_ascii_case(text.trim()))
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Sev1 => "SEV1",
            Self::Sev2 => "SEV2",
            Self::Sev3 => "SEV3",
            Self::Sev4 => "SEV4",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IncidentStatus {
    Draft,
    InReview,
    Final,
}

impl IncidentStatus {
    pub const ALL: [IncidentStatus; 3] = [Self::Draft, Self::InReview, Self::Final];

    pub fn parse(text: &str) -> Option<IncidentStatus> {
        Self::ALL.into_iter().find(|s| s.as_str() == text.trim())
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "draft",
            Self::InReview => "in-review",
            Self::Final => "final",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActionItem {
    pub title: String,
    pub owner: Option<String>,
    pub status: String,
    pub due: Option<NaiveDate>,
}

/// Serialized only into the parse cache (`.lore/documents.cache`); the API has its own views.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Incident {
    pub id: String,
    pub path: PathBuf,
    pub title: String,
    pub status: IncidentStatus,
    pub severity: Option<IncidentSeverity>,
    pub started_at: Option<DateTime<FixedOffset>>,
    pub detected_at: Option<DateTime<FixedOffset>>,
    pub mitigated_at: Option<DateTime<FixedOffset>>,
    pub resolved_at: Option<DateTime<FixedOffset>>,
    pub hosts: Vec<String>,
    pub services: Vec<String>,
    pub runbooks: Vec<String>,
    pub tags: Vec<String>,
    pub authors: Vec<String>,
    pub lang: Option<String>,
    pub action_items: Vec<ActionItem>,
    pub body: String,
    pub body_line: usize,
    pub extra: Mapping,
    pub key_lines: BTreeMap<String, usize>,
}

/// The front-matter keys of an incident (DESIGN §2); any other key is kept as it is.
pub const KNOWN_KEYS: &[&str] = &[
    "id",
    "title",
    "status",
    "severity",
    "started_at",
    "detected_at",
    "mitigated_at",
    "resolved_at",
    "hosts",
    "services",
    "runbooks",
    "tags",
    "authors",
    "lang",
    "action_items",
];

/// Parses `2026-04-03T14:02:00+08:00`, `2026-04-03 14:02+08:00` or a bare date (midnight UTC).
pub fn parse_time(text: &str) -> Option<DateTime<FixedOffset>> {
    let text = text.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Some(t);
    }
    for format in [
        "%Y-%m-%d %H:%M:%S%:z",
        "%Y-%m-%d %H:%M%:z",
        "%Y-%m-%dT%H:%M%:z",
    ] {
        if let Ok(t) = DateTime::parse_from_str(text, format) {
            return Some(t);
        }
    }
    let date = NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()?;
    Some(date.and_hms_opt(0, 0, 0)?.and_utc().fixed_offset())
}

impl Incident {
    pub fn parse(path: &Path, text: &str) -> (Option<Incident>, Vec<Diagnostic>) {
        let mut problems = Problems::new(path);
        let incident = parse_inner(path, text, &mut problems);
        (incident, problems.list)
    }

    /// The fenced `log` blocks of the body, as the matcher scans them.
    pub fn logs(&self) -> Vec<String> {
        log_blocks(&self.body)
    }

    pub fn time_to_detect(&self) -> Option<TimeDelta> {
        Some(self.detected_at? - self.started_at?)
    }

    pub fn time_to_mitigate(&self) -> Option<TimeDelta> {
        Some(self.mitigated_at? - self.started_at?)
    }

    pub fn time_to_resolve(&self) -> Option<TimeDelta> {
        Some(self.resolved_at? - self.started_at?)
    }
}

fn parse_inner(path: &Path, text: &str, problems: &mut Problems) -> Option<Incident> {
    let Opened {
        split,
        mut fm,
        key_lines,
        id,
    } = open(
        path,
        text,
        KNOWN_KEYS,
        "incident",
        "2026-04-03-a100-pcie-aspm",
        problems,
    )?;
    let title = fm.take_string("title", problems).unwrap_or_else(|| {
        problems
            .error(fm.line_of_key("title"), "`title` is missing")
            .hint = Some("add `title: <what happened>`".into());
        id.clone()
    });
    let status = match fm.take_string("status", problems) {
        None => IncidentStatus::Draft,
        Some(text) => IncidentStatus::parse(&text).unwrap_or_else(|| {
            problems
                .error(fm.line_of_key("status"), format!("unknown status `{text}`"))
                .hint = Some("use draft, in-review or final".into());
            IncidentStatus::Draft
        }),
    };
    let severity = fm.take_string("severity", problems).and_then(|text| {
        let parsed = IncidentSeverity::parse(&text);
        if parsed.is_none() {
            problems
                .error(
                    fm.line_of_key("severity"),
                    format!("unknown incident severity `{text}`"),
                )
                .hint = Some("use SEV1 (worst) to SEV4".into());
        }
        parsed
    });
    let mut time = |key: &str, problems: &mut Problems| {
        let text = fm.take_string(key, problems)?;
        let parsed = parse_time(&text);
        if parsed.is_none() {
            problems
                .error(
                    fm.line_of_key(key),
                    format!("`{key}: {text}` is not a time"),
                )
                .hint = Some("use RFC 3339 with the offset, e.g. 2026-04-03T14:02:00+08:00".into());
        }
        parsed
    };
    let started_at = time("started_at", problems);
    let detected_at = time("detected_at", problems);
    let mitigated_at = time("mitigated_at", problems);
    let resolved_at = time("resolved_at", problems);
    if let Some(start) = started_at {
        for (key, t) in [
            ("detected_at", detected_at),
            ("mitigated_at", mitigated_at),
            ("resolved_at", resolved_at),
        ] {
            if let Some(t) = t.filter(|t| *t < start) {
                problems
                    .error(
                        fm.line_of_key(key),
                        format!("`{key}` ({t}) is before `started_at` ({start})"),
                    )
                    .hint = Some("check the date and the offset (+08:00 vs Z)".into());
            }
        }
    }
    let hosts = fm.take_list("hosts", problems);
    let services = fm.take_list("services", problems);
    let runbooks = fm.take_list("runbooks", problems);
    let tags = fm.take_list("tags", problems);
    let authors = fm.take_list("authors", problems);
    let lang = fm.take_string("lang", problems);
    let action_items = match fm.take("action_items") {
        None => Vec::new(),
        Some(Value::Sequence(items)) => items
            .iter()
            .filter_map(|item| {
                let parsed = parse_action_item(item);
                if parsed.is_none() {
                    problems
                        .error(
                            fm.line_of_key("action_items"),
                            "an action item needs at least a `title`",
                        )
                        .hint = Some(
                        "write `- {title: ..., owner: ..., status: open, due: 2026-04-17}`".into(),
                    );
                }
                parsed
            })
            .collect(),
        Some(_) => {
            problems.error(
                fm.line_of_key("action_items"),
                "`action_items` must be a list",
            );
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
    Some(Incident {
        id,
        path: path.to_path_buf(),
        title,
        status,
        severity,
        started_at,
        detected_at,
        mitigated_at,
        resolved_at,
        hosts,
        services,
        runbooks,
        tags,
        authors,
        lang,
        action_items,
        body: split.body.to_string(),
        body_line: split.body_line,
        extra: std::mem::take(&mut fm.map),
        key_lines,
    })
}

fn parse_action_item(item: &Value) -> Option<ActionItem> {
    match item {
        Value::Mapping(map) => {
            let get = |k: &str| map.get(k).and_then(scalar_string);
            Some(ActionItem {
                title: get("title")?,
                owner: get("owner"),
                status: get("status").unwrap_or_else(|| "open".into()),
                due: get("due").and_then(|d| NaiveDate::parse_from_str(&d, "%Y-%m-%d").ok()),
            })
        }
        other => scalar_string(other).map(|title| ActionItem {
            title,
            owner: None,
            status: "open".into(),
            due: None,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (Option<Incident>, Vec<Diagnostic>) {
        Incident::parse(Path::new("incidents/2026-04-03-x.md"), text)
    }

    #[test]
    fn good_incident_and_durations() {
        let (incident, problems) = parse(
            "---
title: 掉卡
status: final
severity: SEV2
started_at: 2026-04-03T14:02:00+08:00
detected_at: 2026-04-03T14:05:00+08:00
resolved_at: 2026-04-03T06:10:00Z
runbooks: [pcie-link-instability]
lang: zh
reviewer: someone
action_items:
  - {title: Pin ASPM off, owner: ops, status: open, due: 2026-04-17}
---
## Supporting information
```log
NVRM: Xid (PCI:0000:3b:00): 79
```
",
        );
        assert!(problems.is_empty(), "{problems:?}");
        let incident = incident.unwrap();
        assert_eq!(incident.id, "2026-04-03-x");
        assert_eq!(incident.severity, Some(IncidentSeverity::Sev2));
        assert_eq!(incident.time_to_detect(), Some(TimeDelta::minutes(3)));
        assert_eq!(
            incident.time_to_resolve(),
            Some(TimeDelta::minutes(8)),
            "offsets count"
        );
        assert_eq!(
            incident.action_items[0].due,
            NaiveDate::from_ymd_opt(2026, 4, 17)
        );
        assert_eq!(incident.logs().len(), 1);
        assert!(incident.extra.contains_key("reviewer"));
    }

    #[test]
    fn time_before_start_is_an_error() {
        let (_, problems) = parse(
            "---\ntitle: t\nstarted_at: 2026-04-03T14:02:00+08:00\nmitigated_at: 2026-04-03T13:00:00+08:00\n---\n",
        );
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert_eq!(problems[0].line, 4);
        assert!(problems[0].message.contains("before `started_at`"));
    }

    #[test]
    fn times() {
        assert!(parse_time("2026-04-03T14:02:00+08:00").is_some());
        assert!(parse_time("2026-04-03 14:02+08:00").is_some());
        assert!(parse_time("2026-04-03").is_some());
        assert!(parse_time("yesterday").is_none());
    }
}
