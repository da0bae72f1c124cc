//! Writing postmortems: one from a form, a JSON body, the command line or a pasted log;
//! validated against the library; rendered to Markdown with front matter (unknown keys kept);
//! saved under an id that never collides, atomically, so no word is lost and no file is ever
//! half-written.

mod prefill;
mod save;
mod stats;

pub use prefill::from_paste;
pub use save::{Current, SaveError, Saved, commit_to_git, current, etag, save_edit, save_new};
pub use stats::{Durations, OpenAction, Stats, median, p90, stats};

use std::collections::BTreeMap;

use chrono::{DateTime, FixedOffset, NaiveDate};
use serde::{Deserialize, Serialize};
use serde_yaml_ng::{Mapping, Value};

use crate::doc::incident::{KNOWN_KEYS, parse_time};
use crate::doc::markdown::slug;
use crate::doc::{Incident, IncidentSeverity, IncidentStatus};
use crate::format::chars_prefix;
use crate::library::Library;

/// One problem with a postmortem, for a 422: which field, and what to do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub field: String,
    pub message: String,
}

/// An action item as the form and the API carry it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PostmortemAction {
    pub title: String,
    #[serde(default)]
    pub owner: String,
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub due: String,
}

/// A timeline row: when (as typed, e.g. `2026-04-03 14:02 +08:00` or `+35 s`) and what.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimelineRow {
    pub time: String,
    pub text: String,
}

/// A postmortem being written: every field as text, as the user gave it. Nothing here is
/// trusted until [`Postmortem::validate`] says so.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Postmortem {
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub severity: String,
    #[serde(default)]
    pub started_at: String,
    #[serde(default)]
    pub detected_at: String,
    #[serde(default)]
    pub mitigated_at: String,
    #[serde(default)]
    pub resolved_at: String,
    #[serde(default)]
    pub hosts: Vec<String>,
    #[serde(default)]
    pub services: Vec<String>,
    #[serde(default)]
    pub runbooks: Vec<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub authors: Vec<String>,
    #[serde(default)]
    pub lang: String,
    #[serde(default)]
    pub action_items: Vec<PostmortemAction>,
    /// Rows for the `## Timeline` section; merged into the body when rendered.
    #[serde(default)]
    pub timeline: Vec<TimelineRow>,
    #[serde(default)]
    pub body: String,
    /// Front-matter keys lore does not know, kept as they were.
    #[serde(skip)]
    pub extra: Mapping,
}

/// The sections of a postmortem (DESIGN §2), with a line of guidance each.
pub fn template_body() -> String {
    "## Summary\n\nWhat happened, in two or three sentences.\n\n\
     ## Impact\n\nWho and what was affected, for how long (jobs, GPUs, users).\n\n\
     ## Timeline\n\n\
     ## Root cause\n\n\
     ## Trigger\n\n\
     ## Resolution\n\n\
     ## Lessons learned\n\n### Went well\n\n### Went wrong\n\n### Where we got lucky\n\n\
     ## Supporting information\n\n"
        .to_string()
}

impl Postmortem {
    /// A fresh postmortem with the template's sections and sensible defaults.
    pub fn new() -> Postmortem {
        Postmortem {
            status: "draft".into(),
            severity: "SEV3".into(),
            body: template_body(),
            ..Postmortem::default()
        }
    }

    /// The postmortem of an existing incident, for editing: timeline rows taken out of the body.
    pub fn from_incident(incident: &Incident) -> Postmortem {
        let time = |t: Option<DateTime<FixedOffset>>| t.map(|t| t.to_rfc3339()).unwrap_or_default();
        let (body, timeline) = split_timeline(&incident.body);
        Postmortem {
            title: incident.title.clone(),
            status: incident.status.as_str().into(),
            severity: incident
                .severity
                .map(|s| s.as_str().to_string())
                .unwrap_or_default(),
            started_at: time(incident.started_at),
            detected_at: time(incident.detected_at),
            mitigated_at: time(incident.mitigated_at),
            resolved_at: time(incident.resolved_at),
            hosts: incident.hosts.clone(),
            services: incident.services.clone(),
            runbooks: incident.runbooks.clone(),
            tags: incident.tags.clone(),
            authors: incident.authors.clone(),
            lang: incident.lang.clone().unwrap_or_default(),
            action_items: incident
                .action_items
                .iter()
                .map(|a| PostmortemAction {
                    title: a.title.clone(),
                    owner: a.owner.clone().unwrap_or_default(),
                    status: a.status.clone(),
                    due: a.due.map(|d| d.to_string()).unwrap_or_default(),
                })
                .collect(),
            timeline,
            body,
            extra: incident.extra.clone(),
        }
    }

    /// Every problem at once; empty means it can be saved.
    pub fn validate(&self, library: &Library) -> Vec<Problem> {
        let mut problems = Vec::new();
        let mut problem = |field: &str, message: String| {
            problems.push(Problem {
                field: field.into(),
                message,
            })
        };
        if self.title.trim().is_empty() {
            problem("title", "a title is required".into());
        } else if self.title.chars().count() > 300 {
            problem("title", "the title is longer than 300 characters".into());
        }
        if !self.status.is_empty() && IncidentStatus::parse(&self.status).is_none() {
            problem(
                "status",
                format!(
                    "unknown status `{}`: use draft, in-review or final",
                    self.status
                ),
            );
        }
        if !self.severity.is_empty() && IncidentSeverity::parse(&self.severity).is_none() {
            problem(
                "severity",
                format!(
                    "unknown severity `{}`: use SEV1 (worst) to SEV4",
                    self.severity
                ),
            );
        }
        let mut times = BTreeMap::new();
        for (field, text) in [
            ("started_at", &self.started_at),
            ("detected_at", &self.detected_at),
            ("mitigated_at", &self.mitigated_at),
            ("resolved_at", &self.resolved_at),
        ] {
            if text.trim().is_empty() {
                continue;
            }
            match parse_time(text) {
                Some(t) => {
                    times.insert(field, t);
                }
                None => problem(
                    field,
                    format!("`{text}` is not a time: use 2026-04-03T14:02:00+08:00"),
                ),
            }
        }
        if let Some(start) = times.get("started_at") {
            for field in ["detected_at", "mitigated_at", "resolved_at"] {
                if let Some(t) = times.get(field).filter(|t| *t < start) {
                    problem(
                        field,
                        format!("{field} ({t}) is before started_at ({start})"),
                    );
                }
            }
        }
        for id in &self.runbooks {
            if library.runbook(id).is_none() {
                problem("runbooks", format!("there is no runbook `{id}`"));
            }
        }
        for (n, item) in self.action_items.iter().enumerate() {
            if item.title.trim().is_empty() && (!item.owner.is_empty() || !item.due.is_empty()) {
                problem(
                    "action_items",
                    format!("action item {} has no title", n + 1),
                );
            }
            if !item.due.trim().is_empty()
                && NaiveDate::parse_from_str(item.due.trim(), "%Y-%m-%d").is_err()
            {
                problem(
                    "action_items",
                    format!(
                        "action item {}: due `{}` is not a date (2026-04-17)",
                        n + 1,
                        item.due
                    ),
                );
            }
            if !item.status.is_empty()
                && !["open", "in-progress", "done", "wontfix"].contains(&item.status.as_str())
            {
                problem(
                    "action_items",
                    format!(
                        "action item {}: status is open, in-progress, done or wontfix",
                        n + 1
                    ),
                );
            }
        }
        for key in self.extra.keys().filter_map(Value::as_str) {
            if KNOWN_KEYS.contains(&key) {
                problem(key, format!("`{key}` is given twice"));
            }
        }
        problems
    }

    /// The date an id starts with: the incident's start, else today.
    pub fn date(&self) -> NaiveDate {
        parse_time(&self.started_at)
            .map(|t| t.date_naive())
            .unwrap_or_else(|| chrono::Local::now().date_naive())
    }

    /// `<date>-<slug of the title>`, before any collision suffix.
    pub fn base_id(&self) -> String {
        let mut words = slug(&ascii_only(&self.title));
        if words == "section" || words.is_empty() {
            words = "incident".into();
        }
        let mut words = chars_prefix(&words, 60).to_string();
        while words.ends_with('-') {
            words.pop();
        }
        format!("{}-{words}", self.date())
    }

    /// The file: YAML front matter (known keys in the DESIGN order, then unknown keys as they
    /// were) and the body with the timeline rows in its `## Timeline` section.
    pub fn render(&self) -> String {
        let mut map = Mapping::new();
        let mut put = |key: &str, value: Value| {
            map.insert(Value::String(key.into()), value);
        };
        let text = |s: &str| Value::String(s.trim().to_string());
        let list = |items: &[String]| {
            Value::Sequence(
                items
                    .iter()
                    .map(|s| s.trim())
                    .filter(|s| !s.is_empty())
                    .map(|s| Value::String(s.into()))
                    .collect(),
            )
        };
        put("title", text(&self.title));
        put(
            "status",
            text(if self.status.is_empty() {
                "draft"
            } else {
                &self.status
            }),
        );
        if !self.severity.trim().is_empty() {
            put("severity", text(&self.severity.to_uppercase()));
        }
        for (key, value) in [
            ("started_at", &self.started_at),
            ("detected_at", &self.detected_at),
            ("mitigated_at", &self.mitigated_at),
            ("resolved_at", &self.resolved_at),
        ] {
            if let Some(t) = parse_time(value) {
                put(key, Value::String(t.to_rfc3339()));
            }
        }
        put("hosts", list(&self.hosts));
        put("services", list(&self.services));
        put("runbooks", list(&self.runbooks));
        put("tags", list(&self.tags));
        put("authors", list(&self.authors));
        if !self.lang.trim().is_empty() {
            put("lang", text(&self.lang));
        }
        let items: Vec<Value> = self
            .action_items
            .iter()
            .filter(|a| !a.title.trim().is_empty())
            .map(|a| {
                let mut item = Mapping::new();
                item.insert("title".into(), text(&a.title));
                if !a.owner.trim().is_empty() {
                    item.insert("owner".into(), text(&a.owner));
                }
                item.insert(
                    "status".into(),
                    text(if a.status.is_empty() {
                        "open"
                    } else {
                        &a.status
                    }),
                );
                if !a.due.trim().is_empty() {
                    item.insert("due".into(), text(&a.due));
                }
                Value::Mapping(item)
            })
            .collect();
        put("action_items", Value::Sequence(items));
        for (key, value) in &self.extra {
            if key.as_str().is_some_and(|k| !KNOWN_KEYS.contains(&k)) {
                map.insert(key.clone(), value.clone());
            }
        }
        let yaml = serde_yaml_ng::to_string(&map).unwrap_or_default();
        let body = merge_timeline(&self.body, &self.timeline);
        format!(
            "---\n{yaml}---\n{}{}",
            if body.starts_with('\n') { "" } else { "\n" },
            body.trim_end().to_string() + "\n"
        )
    }
}

fn ascii_only(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' })
        .collect()
}

/// `- <time> — <text>` rows of a `## Timeline` section, and the body with that section emptied.
/// Lines that are not rows stay rows (time empty), so nothing the user wrote is dropped.
fn split_timeline(body: &str) -> (String, Vec<TimelineRow>) {
    let mut out = String::new();
    let mut rows = Vec::new();
    let mut inside = false;
    for line in body.split_inclusive('\n') {
        let trimmed = line.trim();
        if trimmed.starts_with("## ") || trimmed == "##" {
            inside = trimmed
                .trim_start_matches('#')
                .trim()
                .eq_ignore_ascii_case("timeline");
            out.push_str(line);
            if inside {
                out.push('\n');
            }
            continue;
        }
        if inside {
            if trimmed.is_empty() {
                continue;
            }
            let item = trimmed
                .strip_prefix("- ")
                .or_else(|| trimmed.strip_prefix("* "))
                .unwrap_or(trimmed);
            let (time, text) = match item.split_once(" — ").or_else(|| item.split_once(" - ")) {
                Some((time, text)) if looks_like_time(time) => {
                    (time.trim().to_string(), text.trim().to_string())
                }
                _ => (String::new(), item.to_string()),
            };
            rows.push(TimelineRow { time, text });
        } else {
            out.push_str(line);
        }
    }
    (out, rows)
}

fn looks_like_time(text: &str) -> bool {
    let t = text.trim();
    t.chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit() || c == '+' || c == '[')
        && t.chars().filter(|c| c.is_ascii_digit()).count() >= 2
        && t.len() <= 40
}

/// The body with the rows as the content of `## Timeline` (the section is added before
/// `## Root cause`, or at the end, if the body has none).
pub fn merge_timeline(body: &str, rows: &[TimelineRow]) -> String {
    let rows: Vec<&TimelineRow> = rows
        .iter()
        .filter(|r| !r.time.trim().is_empty() || !r.text.trim().is_empty())
        .collect();
    let lines: String = rows
        .iter()
        .map(|r| match (r.time.trim(), r.text.trim()) {
            ("", text) => format!("- {text}\n"),
            (time, text) => format!("- {time} — {text}\n"),
        })
        .collect();
    let (base, existing) = split_timeline(body);
    // Rows already in the body's section (typed straight into the Markdown) are kept too.
    let mut all = String::new();
    for r in &existing {
        let line = match r.time.as_str() {
            "" => format!("- {}\n", r.text),
            time => format!("- {time} — {}\n", r.text),
        };
        if !lines.contains(&line) {
            all.push_str(&line);
        }
    }
    all.push_str(&lines);
    if all.is_empty() {
        return base;
    }
    if let Some(at) = find_heading(&base, "timeline") {
        let after = base[at..].find('\n').map_or(base.len(), |n| at + n + 1);
        let mut out = String::with_capacity(base.len() + all.len() + 2);
        out.push_str(&base[..after]);
        if !out.ends_with("\n\n") {
            out.push('\n');
        }
        out.push_str(&all);
        out.push('\n');
        out.push_str(base[after..].trim_start_matches('\n'));
        return out;
    }
    let section = format!("## Timeline\n\n{all}\n");
    match find_heading(&base, "root cause") {
        Some(at) => format!("{}{section}{}", &base[..at], &base[at..]),
        None => format!("{}\n\n{section}", base.trim_end()),
    }
}

fn find_heading(body: &str, name: &str) -> Option<usize> {
    let mut offset = 0;
    for line in body.split_inclusive('\n') {
        let t = line.trim();
        if t.starts_with("## ") && t[3..].trim().eq_ignore_ascii_case(name) {
            return Some(offset);
        }
        offset += line.len();
    }
    None
}

#[cfg(test)]
mod tests;
