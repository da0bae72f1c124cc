//! What the index holds of a runbook, an incident or a stack: one entry for the whole file and one per
//! section, in plain text.

use crate::doc::compat::Compat;
use crate::doc::markdown::{Section, plain_text};
use crate::doc::{Incident, Runbook, Stack};
use crate::format::first_chars;

/// A document ready to be indexed.
#[derive(Debug, Clone)]
pub struct IndexDoc {
    pub kind: &'static str,
    pub id: String,
    /// Relative path, e.g. `runbooks/gpu-fallen-off-bus.md`.
    pub path: String,
    pub title: String,
    pub aliases: Vec<String>,
    pub tags: Vec<String>,
    /// Shown when a hit has no highlighted text (a hit on the title alone).
    pub summary: String,
    pub severity: String,
    /// `reviewed_at` of a runbook, `started_at` of an incident.
    pub date: Option<String>,
    pub body: String,
    pub sections: Vec<Section>,
    /// Signature example lines, searchable as they appear in logs.
    pub examples: Vec<String>,
    /// Other searchable words (an incident's hosts, services and runbooks).
    pub extra: Vec<String>,
}

impl IndexDoc {
    pub fn from_runbook(runbook: &Runbook) -> IndexDoc {
        let (body, sections) = plain_text(&runbook.body);
        IndexDoc {
            kind: "runbook",
            id: runbook.id.clone(),
            path: runbook.path.to_string_lossy().into_owned(),
            title: runbook.title.clone(),
            aliases: runbook.aliases.clone(),
            tags: runbook.tags.clone(),
            summary: runbook.summary.clone(),
            severity: runbook.severity.as_str().to_string(),
            date: runbook.reviewed_at.map(|d| d.to_string()),
            body,
            sections,
            examples: runbook
                .signatures
                .iter()
                .flat_map(|s| s.examples.iter().map(|e| e.text.clone()))
                .collect(),
            extra: runbook.signatures.iter().map(|s| s.id.clone()).collect(),
        }
    }

    pub fn from_incident(incident: &Incident) -> IndexDoc {
        let (body, sections) = plain_text(&incident.body);
        let summary = sections
            .iter()
            .find(|s| s.anchor == "summary")
            .or(sections.first())
            .map(|s| first_chars(&s.text, 300))
            .unwrap_or_default();
        let mut extra = incident.hosts.clone();
        extra.extend(incident.services.iter().cloned());
        extra.extend(incident.runbooks.iter().cloned());
        extra.extend(incident.authors.iter().cloned());
        IndexDoc {
            kind: "incident",
            id: incident.id.clone(),
            path: incident.path.to_string_lossy().into_owned(),
            title: incident.title.clone(),
            aliases: Vec::new(),
            tags: incident.tags.clone(),
            summary,
            severity: incident
                .severity
                .map(|s| s.as_str().to_lowercase())
                .unwrap_or_default(),
            date: incident.started_at.map(|t| t.to_rfc3339()),
            body,
            sections,
            examples: Vec::new(),
            extra,
        }
    }

    /// A stack: its title, its Result as the summary, and every tested and claimed value, its
    /// verdict, testers and evidence as searchable words (`535.129.03`, `torch 1.13.1`, `bad`).
    pub fn from_stack(stack: &Stack) -> IndexDoc {
        let (body, sections) = plain_text(&stack.body);
        let summary = sections
            .iter()
            .find(|s| s.anchor == "result")
            .or(sections.first())
            .map(|s| first_chars(&s.text, 300))
            .unwrap_or_default();
        let mut extra = vec![stack.verdict.as_str().to_string()];
        for (field, value) in stack.tested.iter().chain(&stack.extends_to) {
            extra.push(format!("{field} {value}"));
        }
        extra.extend(stack.tested_by.iter().cloned());
        extra.extend(stack.evidence.iter().cloned());
        extra.push(stack.workload.clone());
        extra.push(stack.scope.clone());
        IndexDoc {
            kind: "stack",
            id: stack.id.clone(),
            path: stack.path.to_string_lossy().into_owned(),
            title: stack.title.clone(),
            aliases: Vec::new(),
            tags: Vec::new(),
            summary,
            severity: String::new(),
            date: stack.tested_at.map(|d| d.to_string()),
            body,
            sections,
            examples: Vec::new(),
            extra,
        }
    }

    /// A compatibility family: its title, its prose, and every rule's id, message and rows
    /// (keys, bounds, notes and sources) as searchable words, so `R580 Pascal`, `fabric manager`
    /// or `open kernel modules` finds the rule that says so.
    pub fn from_compat(compat: &Compat) -> IndexDoc {
        let (body, sections) = plain_text(&compat.body);
        let summary = sections
            .first()
            .map(|s| first_chars(&s.text, 300))
            .unwrap_or_default();
        let mut extra = Vec::new();
        for rule in &compat.rules {
            extra.push(rule.id.replace('-', " "));
            extra.push(rule.message.clone());
            extra.push(format!("{} {}", rule.by.join(" "), rule.of.join(" ")));
            for row in &rule.rows {
                let mut words = vec![row.key.clone()];
                words.extend(row.min.iter().cloned());
                words.extend(row.max.iter().cloned());
                words.extend(row.values.iter().cloned());
                words.push(row.note.clone());
                words.push(row.source.clone());
                extra.push(words.join(" "));
            }
            for exception in &rule.exceptions {
                extra.push(exception.message.clone());
            }
        }
        IndexDoc {
            kind: "compat",
            id: compat.id.clone(),
            path: compat.path.to_string_lossy().into_owned(),
            title: compat.title.clone(),
            aliases: Vec::new(),
            tags: Vec::new(),
            summary,
            severity: String::new(),
            date: None,
            body,
            sections,
            examples: Vec::new(),
            extra,
        }
    }
}
