//! HTML pages. Each handler takes the current snapshot, builds a view struct (with the builders
//! in `views.rs`), renders it.

use std::collections::BTreeMap;

use axum::extract::{Query, State};
use axum::response::Response;
use chrono::{DateTime, FixedOffset, Local};
use serde::Deserialize;

use super::error::{PageError, WebError};
use super::extract::{Body, Id};
use super::state::AppState;
use super::views::*;
use super::{SearchParams, run_match, run_search};
use crate::doc::{Incident, IncidentSeverity, Runbook, Severity};
use crate::format::{chars_prefix, duration, minute_with_offset};
use crate::signature::draft::draft_runbook;

const EXAMPLE: &str = "[ 4216.350214] NVRM: API mismatch: the client has the version 535.104.05, but this kernel module has the version 535.86.01.\nFailed to initialize NVML: Driver/library version mismatch";

pub async fn home(State(state): State<AppState>) -> Response {
    let snapshot = state.snapshot();
    let library = &snapshot.library;
    let mut recent: Vec<&Incident> = library.incidents.iter().collect();
    recent.sort_by_key(|i| std::cmp::Reverse(i.started_at));
    let mut layout = Layout::new("Paste an error, get the runbook", "home");
    layout.read_only = state.read_only;
    render(&HomePage {
        layout,
        runbooks: library.runbooks.len(),
        incidents: library.incidents.len(),
        signatures: snapshot.matcher.engine.sigs.len(),
        recent: recent.into_iter().take(6).map(incident_row).collect(),
        tags: tag_counts(&snapshot, None, 24),
        example: EXAMPLE,
    })
}

pub async fn search(
    State(state): State<AppState>,
    Query(params): Query<SearchParams>,
) -> Result<Response, PageError> {
    let mut layout = Layout::new(
        if params.q.is_empty() {
            "Search".to_string()
        } else {
            format!("{} — search", params.q)
        },
        "search",
    );
    layout.query = params.q.clone();
    let (rows, total, elapsed) = if params.q.trim().is_empty() {
        (Vec::new(), 0, String::new())
    } else {
        let results = run_search(
            &state,
            params.q.clone(),
            params.limit.unwrap_or(20),
            params.kind,
        )
        .await?;
        let rows = results
            .hits
            .into_iter()
            .map(|h| SearchRow {
                kind: h.kind,
                title: h.title,
                url: h.url,
                snippet_html: h.snippet,
                section: h.section.unwrap_or_default(),
                severity: h.severity,
            })
            .collect();
        (rows, results.total, format!("{:.1} ms", results.elapsed_ms))
    };
    Ok(render(&SearchPage {
        layout,
        query: params.q,
        rows,
        total,
        elapsed,
    }))
}

#[derive(Deserialize)]
struct PasteForm {
    #[serde(default)]
    text: String,
}

pub async fn match_paste(
    State(state): State<AppState>,
    body: Body<PageError>,
) -> Result<Response, PageError> {
    let form: PasteForm = body.form().map_err(|_| {
        WebError::BadRequest("the form could not be read; paste the log into the text box".into())
    })?;
    if let Some(why) = crate::signature::normalize::refusal(form.text.as_bytes(), "the paste") {
        return Err(WebError::NotText(why).into());
    }
    let snapshot = state.snapshot();
    let text = form.text;
    let doctor = crate::doctor::bundle_checks(text.as_bytes());
    let (report, environment, text) =
        run_match(&snapshot, text.into_bytes(), None, super::Environment::Read).await?;
    let mut page = match_page(&snapshot, &report, &text);
    page.environment = environment.as_ref().map(environment_view);
    page.doctor = doctor.as_ref().map(super::views::DoctorView::of);
    page.token_needed = state.token.is_some();
    page.read_only = state.read_only;
    Ok(render(&page))
}

#[derive(Deserialize)]
pub struct ListParams {
    tag: Option<String>,
    severity: Option<String>,
}

pub async fn runbooks(State(state): State<AppState>, Query(params): Query<ListParams>) -> Response {
    let snapshot = state.snapshot();
    let tag = params
        .tag
        .map(|t| t.to_lowercase())
        .filter(|t| !t.is_empty());
    let severity = params.severity.as_deref().and_then(Severity::parse);
    let mut list: Vec<&Runbook> = snapshot
        .library
        .runbooks
        .iter()
        .filter(|r| {
            tag.as_ref()
                .is_none_or(|t| r.tags.iter().any(|x| x.eq_ignore_ascii_case(t)))
        })
        .filter(|r| severity.is_none_or(|s| r.severity == s))
        .collect();
    list.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then_with(|| a.title.cmp(&b.title))
    });
    let mut severities: Vec<TagCount> = Severity::ALL
        .iter()
        .map(|s| TagCount {
            tag: s.as_str().to_string(),
            count: snapshot
                .library
                .runbooks
                .iter()
                .filter(|r| r.severity == *s)
                .count(),
            selected: severity == Some(*s),
        })
        .collect();
    severities.retain(|s| s.count > 0);
    let mut layout = Layout::new("Runbooks", "runbooks");
    layout.read_only = state.read_only;
    render(&RunbooksPage {
        layout,
        rows: list
            .into_iter()
            .map(|r| runbook_row(&snapshot, r))
            .collect(),
        tags: tag_counts(&snapshot, tag.as_deref(), 60),
        severities,
        filtered: tag.is_some() || severity.is_some(),
    })
}

pub async fn runbook(
    State(state): State<AppState>,
    id: Id<Runbook, PageError>,
) -> Result<Response, PageError> {
    let snapshot = state.snapshot();
    let runbook = snapshot
        .library
        .runbook(id.as_str())
        .ok_or_else(|| id.not_found())?;
    let body = &runbook.body;
    let mut layout = Layout::new(runbook.title.clone(), "runbooks");
    layout.read_only = state.read_only;
    let page = RunbookPage {
        layout,
        id: runbook.id.clone(),
        title: runbook.title.clone(),
        summary: runbook.summary.clone(),
        severity: runbook.severity.as_str().to_string(),
        action: runbook.action.clone().unwrap_or_default(),
        tags: runbook.tags.clone(),
        aliases: runbook.aliases.clone(),
        reviewed: runbook
            .reviewed_at
            .map(|d| d.to_string())
            .unwrap_or_default(),
        path: runbook.path.display().to_string(),
        body_html: snapshot
            .runbook_html
            .get(&runbook.id)
            .cloned()
            .unwrap_or_default(),
        toc: toc(body),
        signatures: runbook
            .signatures
            .iter()
            .map(|s| SignatureView {
                id: s.id.clone(),
                pattern: s.pattern.clone(),
                when: s.when.clone().unwrap_or_default(),
                explain: s.explain.clone().unwrap_or_default(),
                lines: s.lines,
                weight: if s.weight < 1.0 {
                    format!("{}", s.weight)
                } else {
                    String::new()
                },
                examples: s.examples.iter().map(|e| e.text.clone()).collect(),
                counterexamples: s.counterexamples.clone(),
            })
            .collect(),
        related: runbook
            .related
            .iter()
            .map(|id| runbook_link(&snapshot, id))
            .collect(),
        references: runbook.references.clone(),
        incidents: snapshot
            .matcher
            .incidents_of(&runbook.id)
            .iter()
            .map(past_incident)
            .collect(),
    };
    Ok(render(&page))
}

#[derive(Deserialize)]
pub struct DraftParams {
    #[serde(default)]
    line: String,
}

pub async fn draft(Query(params): Query<DraftParams>) -> Result<Response, PageError> {
    let line = chars_prefix(&params.line, 4000).to_string();
    if line.trim().is_empty() {
        return Err(WebError::BadRequest("give the log line as ?line=".into()).into());
    }
    let (id, text) = draft_runbook(&line);
    Ok(render(&DraftPage {
        layout: Layout::new("New runbook", "runbooks"),
        id,
        line,
        text,
    }))
}

pub async fn incidents(
    State(state): State<AppState>,
    Query(params): Query<ListParams>,
) -> Response {
    let snapshot = state.snapshot();
    let tag = params
        .tag
        .map(|t| t.to_lowercase())
        .filter(|t| !t.is_empty());
    let mut list: Vec<&Incident> = snapshot
        .library
        .incidents
        .iter()
        .filter(|i| {
            tag.as_ref()
                .is_none_or(|t| i.tags.iter().any(|x| x.eq_ignore_ascii_case(t)))
        })
        .collect();
    list.sort_by(|a, b| {
        b.started_at
            .cmp(&a.started_at)
            .then_with(|| b.id.cmp(&a.id))
    });
    let mut tags: BTreeMap<String, usize> = BTreeMap::new();
    for t in snapshot
        .library
        .incidents
        .iter()
        .flat_map(|i| i.tags.iter())
    {
        *tags.entry(t.to_lowercase()).or_default() += 1;
    }
    let mut layout = Layout::new("Incidents", "incidents");
    layout.read_only = state.read_only;
    render(&IncidentsPage {
        layout,
        rows: list.into_iter().map(incident_row).collect(),
        tags: tags
            .into_iter()
            .map(|(t, count)| TagCount {
                selected: tag.as_deref() == Some(t.as_str()),
                tag: t,
                count,
            })
            .collect(),
        filtered: tag.is_some(),
    })
}

pub async fn incident(
    State(state): State<AppState>,
    id: Id<Incident, PageError>,
) -> Result<Response, PageError> {
    let snapshot = state.snapshot();
    let incident = snapshot
        .library
        .incident(id.as_str())
        .ok_or_else(|| id.not_found())?;
    let body = &incident.body;
    let start = incident.started_at;
    let time = |label: &str, at: Option<DateTime<FixedOffset>>| {
        at.map(|t| {
            let since = match start {
                Some(s) if label != "Started" => duration(t - s),
                _ => String::new(),
            };
            (label.to_string(), minute_with_offset(t), since)
        })
    };
    let times = [
        time("Started", incident.started_at),
        time("Detected", incident.detected_at),
        time("Mitigated", incident.mitigated_at),
        time("Resolved", incident.resolved_at),
    ]
    .into_iter()
    .flatten()
    .collect();
    let today = Local::now().date_naive();
    let mut layout = Layout::new(incident.title.clone(), "incidents");
    layout.read_only = state.read_only;
    let page = IncidentPage {
        layout,
        id: incident.id.clone(),
        title: incident.title.clone(),
        severity: incident
            .severity
            .map_or("—", IncidentSeverity::as_str)
            .to_string(),
        status: incident.status.as_str().to_string(),
        lang: incident.lang.clone().unwrap_or_default(),
        times,
        hosts: incident.hosts.clone(),
        services: incident.services.clone(),
        runbooks: incident
            .runbooks
            .iter()
            .map(|id| runbook_link(&snapshot, id))
            .collect(),
        tags: incident.tags.clone(),
        authors: incident.authors.join(", "),
        action_items: incident
            .action_items
            .iter()
            .map(|a| ActionItemView {
                title: a.title.clone(),
                owner: a.owner.clone().unwrap_or_default(),
                status: a.status.clone(),
                due: a.due.map(|d| d.to_string()).unwrap_or_default(),
                overdue: a.status != "done" && a.due.is_some_and(|d| d < today),
            })
            .collect(),
        body_html: snapshot
            .incident_html
            .get(&incident.id)
            .cloned()
            .unwrap_or_default(),
        toc: toc(body),
        path: incident.path.display().to_string(),
    };
    Ok(render(&page))
}

pub async fn tag(
    State(state): State<AppState>,
    axum::extract::Path(tag): axum::extract::Path<String>,
) -> Result<Response, PageError> {
    let snapshot = state.snapshot();
    let tag = tag.to_lowercase();
    if tag.is_empty() || tag.len() > 100 || tag.contains(['/', '\\']) {
        return Err(WebError::NotFound(format!("tag `{tag}`")).into());
    }
    let runbooks: Vec<RunbookRow> = snapshot
        .library
        .runbooks
        .iter()
        .filter(|r| r.tags.iter().any(|t| t.eq_ignore_ascii_case(&tag)))
        .map(|r| runbook_row(&snapshot, r))
        .collect();
    let incidents: Vec<IncidentRow> = snapshot
        .library
        .incidents
        .iter()
        .filter(|i| i.tags.iter().any(|t| t.eq_ignore_ascii_case(&tag)))
        .map(incident_row)
        .collect();
    if runbooks.is_empty() && incidents.is_empty() {
        return Err(WebError::NotFound(format!("tag `{tag}`")).into());
    }
    Ok(render(&TagPage {
        layout: Layout::new(format!("Tag {tag}"), ""),
        tag,
        runbooks,
        incidents,
    }))
}

pub async fn not_found() -> Response {
    WebError::NotFound("this page".into()).page()
}
