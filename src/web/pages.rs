//! HTML pages. Each handler takes the current snapshot, builds a view struct, renders it.

use std::collections::BTreeMap;

use axum::extract::{Query, State};
use axum::response::Response;
use chrono::{DateTime, FixedOffset, Local, TimeDelta};
use serde::Deserialize;

use super::error::{PageError, WebError};
use super::extract::{Body, Id};
use super::state::{AppState, Snapshot};
use super::views::*;
use super::{SearchParams, run_match, run_search};
use crate::doc::markdown::{plain_text, section_markdown, to_html};
use crate::doc::{Incident, IncidentSeverity, Runbook, Severity};
use crate::format::{human_bytes, url_component};
use crate::signature::draft::draft_runbook;
use crate::signature::normalize;
use crate::signature::{IncidentRef, Report};

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
pub struct PasteForm {
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
    let snapshot = state.snapshot();
    let text = form.text;
    let (report, text) = run_match(&snapshot, text.into_bytes(), None).await?;
    let mut page = match_page(&snapshot, &report, &text);
    page.read_only = state.read_only;
    Ok(render(&page))
}

/// Lines around each hit, the Fix of each runbook, past incidents, unexplained lines.
fn match_page(snapshot: &Snapshot, report: &Report, paste: &[u8]) -> MatchPage {
    let lines = LineIndex::new(paste);
    let causes = report
        .causes
        .iter()
        .enumerate()
        .map(|(n, cause)| {
            let runbook = snapshot.library.runbook(&cause.runbook);
            let fix_html = runbook
                .and_then(|r| section_markdown(&r.body, "fix"))
                .map(to_html)
                .unwrap_or_default();
            // The first hit of each signature, its lines shown once in one block with every
            // hit marked; the rest as a list.
            let mut shown_sigs: Vec<&str> = Vec::new();
            let mut hits = Vec::new();
            let mut more = Vec::new();
            for hit in &cause.hits {
                if hits.len() < 6 && !shown_sigs.contains(&hit.signature.as_str()) {
                    shown_sigs.push(&hit.signature);
                    hits.push(HitView {
                        line: hit.line,
                        last_line: hit.last_line,
                        signature: hit.signature.clone(),
                        captures: hit
                            .captures
                            .iter()
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect(),
                        explain: hit.explain.clone().unwrap_or_default(),
                    });
                } else if more.len() < 50 {
                    more.push((hit.line, first_line(&hit.text)));
                }
            }
            let mut context: Vec<ContextLine> = Vec::new();
            let mut spans: Vec<(u64, u64)> = hits.iter().map(|h| (h.line, h.last_line)).collect();
            spans.sort_unstable();
            for (first, last) in spans {
                for line in lines.context(first, last, 2) {
                    match context.iter_mut().find(|c| c.number == line.number) {
                        Some(existing) => existing.hit |= line.hit,
                        None => context.push(line),
                    }
                }
            }
            context.sort_by_key(|c| c.number);
            // Every hit inside the block is marked, listed above it or not.
            for line in &mut context {
                line.hit |= cause
                    .hits
                    .iter()
                    .any(|h| (h.line..=h.last_line).contains(&line.number));
            }
            let mut with_gaps: Vec<ContextLine> = Vec::with_capacity(context.len());
            for line in context {
                if with_gaps.last().is_some_and(|p| p.number + 1 < line.number) {
                    with_gaps.push(ContextLine {
                        number: 0,
                        text: "…".into(),
                        hit: false,
                    });
                }
                with_gaps.push(line);
            }
            let listed = (hits.len() + more.len()) as u64;
            CauseView {
                rank: n + 1,
                id: cause.runbook.clone(),
                title: cause.title.clone(),
                summary: cause.summary.clone(),
                severity: cause.severity.as_str().to_string(),
                score_percent: (cause.score * 100.0).round() as u32,
                action: cause.action.clone().unwrap_or_default(),
                hits,
                context: with_gaps,
                more,
                hidden: cause.hit_count.saturating_sub(listed),
                hit_count: cause.hit_count,
                fix_html,
                seen: seen(&cause.incidents),
                incidents: cause.incidents.iter().take(5).map(past_incident).collect(),
            }
        })
        .collect();
    let similar = report
        .similar
        .iter()
        .map(|s| SimilarView {
            id: s.runbook.clone(),
            title: s.title.clone(),
            summary: s.summary.clone(),
            severity: s.severity.as_str().to_string(),
            score_percent: (s.score * 100.0).round() as u32,
            lines: s.lines.iter().map(|l| (l.line, l.text.clone())).collect(),
            fix_html: snapshot
                .library
                .runbook(&s.runbook)
                .and_then(|r| section_markdown(&r.body, "fix"))
                .map(to_html)
                .unwrap_or_default(),
        })
        .collect();
    let unexplained = report
        .unexplained
        .iter()
        .map(|u| UnexplainedView {
            line: u.line,
            text: u.text.clone(),
            count: u.count,
            draft_url: format!("/runbooks/draft?line={}", url_component(&u.text)),
        })
        .collect();
    let shown = &paste[..paste.len().min(200_000)];
    let mut layout = Layout::new("Match", "match");
    layout.query = String::new();
    MatchPage {
        layout,
        causes,
        similar,
        unexplained,
        unexplained_total: report.unexplained_total,
        stats: format!(
            "{} line(s), {} scanned in {:.1} ms",
            report.stats.lines,
            human_bytes(report.stats.bytes),
            report.stats.elapsed_ms
        ),
        paste: clean_block(shown),
        paste_full: String::from_utf8_lossy(&paste[..paste.len().min(2 << 20)]).into_owned(),
        read_only: false,
    }
}

/// "3 times, last 2026-04-03 on gpu-a100-07".
fn seen(incidents: &[IncidentRef]) -> String {
    let Some(last) = incidents.first() else {
        return String::new();
    };
    let times = match incidents.len() {
        1 => "once".to_string(),
        n => format!("{n} times"),
    };
    let when = last
        .started_at
        .as_deref()
        .map(|t| t.get(..10).unwrap_or(t))
        .unwrap_or("?");
    match last.hosts.first() {
        Some(host) => format!("{times}, last {when} on {host}"),
        None => format!("{times}, last {when}"),
    }
}

fn past_incident(i: &IncidentRef) -> PastIncident {
    PastIncident {
        id: i.id.clone(),
        title: i.title.clone(),
        date: i
            .started_at
            .as_deref()
            .map(|t| t.get(..10).unwrap_or(t).to_string())
            .unwrap_or_default(),
        hosts: i.hosts.join(", "),
    }
}

/// Byte offsets of the lines of a paste, to show lines around a hit.
struct LineIndex<'a> {
    text: &'a [u8],
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    fn new(text: &'a [u8]) -> LineIndex<'a> {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text).map(|p| p + 1));
        LineIndex { text, starts }
    }

    fn line(&self, number: u64) -> Option<String> {
        let i = usize::try_from(number).ok()?.checked_sub(1)?;
        let start = *self.starts.get(i)?;
        if start >= self.text.len() && i > 0 {
            return None;
        }
        let end = self.starts.get(i + 1).map_or(self.text.len(), |e| e - 1);
        let end = end.max(start);
        Some(normalize::line(&self.text[start..end]).shown)
    }

    fn context(&self, first: u64, last: u64, around: u64) -> Vec<ContextLine> {
        (first.saturating_sub(around).max(1)..=last + around)
            .filter_map(|n| {
                self.line(n).map(|text| ContextLine {
                    number: n,
                    text,
                    hit: (first..=last).contains(&n),
                })
            })
            .collect()
    }
}

fn clean_block(bytes: &[u8]) -> String {
    normalize::block(bytes)
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").to_string()
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

fn runbook_row(snapshot: &Snapshot, r: &Runbook) -> RunbookRow {
    RunbookRow {
        id: r.id.clone(),
        title: r.title.clone(),
        summary: r.summary.clone(),
        severity: r.severity.as_str().to_string(),
        tags: r.tags.clone(),
        signatures: r.signatures.len(),
        incidents: snapshot.matcher.incidents_of(&r.id).len(),
    }
}

fn tag_counts(snapshot: &Snapshot, selected: Option<&str>, limit: usize) -> Vec<TagCount> {
    let mut tags: Vec<(&String, &usize)> = snapshot.tags.iter().collect();
    tags.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
    tags.into_iter()
        .take(limit)
        .map(|(tag, count)| TagCount {
            tag: tag.clone(),
            count: *count,
            selected: selected == Some(tag.as_str()),
        })
        .collect()
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
    let line: String = params.line.chars().take(4000).collect();
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

fn incident_row(i: &Incident) -> IncidentRow {
    IncidentRow {
        id: i.id.clone(),
        title: i.title.clone(),
        date: i
            .started_at
            .map(|t| t.format("%Y-%m-%d %H:%M").to_string())
            .unwrap_or_default(),
        severity: i.severity.map_or("—", IncidentSeverity::as_str).to_string(),
        status: i.status.as_str().to_string(),
        hosts: i.hosts.join(", "),
        resolve: i.time_to_resolve().map(duration).unwrap_or_default(),
    }
}

/// `2 h 08 min`, `45 min`, `3 d 2 h`.
pub fn duration(d: TimeDelta) -> String {
    let minutes = d.num_minutes();
    if minutes < 60 {
        format!("{minutes} min")
    } else if minutes < 48 * 60 {
        format!("{} h {:02} min", minutes / 60, minutes % 60)
    } else {
        format!("{} d {} h", minutes / 1440, (minutes % 1440) / 60)
    }
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
            (
                label.to_string(),
                t.format("%Y-%m-%d %H:%M %:z").to_string(),
                since,
            )
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

/// The `##` headings of a document, as links to their anchors.
fn toc(markdown: &str) -> Vec<Link> {
    let (_, sections) = plain_text(markdown);
    sections
        .iter()
        .filter(|s| s.level == 2)
        .map(|s| Link {
            href: format!("#{}", s.anchor),
            text: s.heading.clone(),
        })
        .collect()
}

/// A link to a runbook by its title (its id if it does not exist).
fn runbook_link(snapshot: &Snapshot, id: &str) -> Link {
    Link {
        href: format!("/runbooks/{id}"),
        text: snapshot
            .library
            .runbook(id)
            .map_or_else(|| id.to_string(), |r| r.title.clone()),
    }
}
