//! The JSON API (DESIGN §5-6): match, search, runbooks, incidents, health.

use axum::Json;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use super::error::{ApiError, WebError};
use super::extract::{Body, Id};
use super::state::AppState;
use super::{SearchParams, run_match, run_search};
use crate::doc::{ActionItem, Example, Incident, Runbook};
use crate::signature::IncidentRef;

#[derive(Deserialize)]
pub struct MatchParams {
    top: Option<usize>,
}

#[derive(Deserialize)]
struct MatchJson {
    text: String,
    top: Option<usize>,
}

/// `POST /api/match`: the body is the log (any content type: `curl --data-binary` sends a form
/// type), or JSON `{"text": ...}` when the content type says JSON.
pub async fn match_log(
    State(state): State<AppState>,
    Query(params): Query<MatchParams>,
    body: Body<ApiError>,
) -> Result<Response, ApiError> {
    let (text, top) = if body.content_type().starts_with("application/json") {
        let parsed: MatchJson = serde_json::from_slice(&body.bytes).map_err(|e| {
            WebError::BadRequest(format!("expected JSON like {{\"text\": \"...\"}}: {e}"))
        })?;
        (parsed.text.into_bytes(), parsed.top.or(params.top))
    } else {
        (body.paste()?.to_vec(), params.top)
    };
    let snapshot = state.snapshot();
    let doctor = crate::doctor::bundle_checks(&text);
    let (report, environment, _) =
        run_match(&snapshot, text, top, super::Environment::Read).await?;
    let mut value =
        serde_json::to_value(&report).map_err(|e| WebError::Internal(anyhow::Error::new(e)))?;
    if let Some(doctor) = doctor {
        value["checks"] = serde_json::to_value(&doctor.checks)
            .map_err(|e| WebError::Internal(anyhow::Error::new(e)))?;
        value["collected"] = serde_json::to_value(&doctor.collected)
            .map_err(|e| WebError::Internal(anyhow::Error::new(e)))?;
    }
    if let Some(environment) = environment {
        value["environment"] = serde_json::to_value(&environment)
            .map_err(|e| WebError::Internal(anyhow::Error::new(e)))?;
    }
    Ok(Json(value).into_response())
}

pub async fn search(
    State(state): State<AppState>,
    Query(params): Query<SearchParams>,
) -> Result<Response, ApiError> {
    if params.q.len() > 2000 {
        return Err(WebError::BadRequest("the query is longer than 2000 bytes".into()).into());
    }
    let kind = params.kind.filter(|k| !k.is_empty());
    if let Some(k) = &kind
        && !["runbook", "incident", "stack", "compat"].contains(&k.as_str())
    {
        return Err(WebError::BadRequest(
            "kind is `runbook`, `incident`, `stack` or `compat`".into(),
        )
        .into());
    }
    let results = run_search(&state, params.q, params.limit.unwrap_or(10), kind).await?;
    Ok(Json(results).into_response())
}

#[derive(Serialize)]
struct RunbookSummary<'a> {
    id: &'a str,
    title: &'a str,
    summary: &'a str,
    severity: &'a str,
    tags: &'a [String],
    url: String,
    path: String,
    signatures: usize,
}

fn summary(r: &Runbook) -> RunbookSummary<'_> {
    RunbookSummary {
        id: &r.id,
        title: &r.title,
        summary: &r.summary,
        severity: r.severity.as_str(),
        tags: &r.tags,
        url: format!("/runbooks/{}", r.id),
        path: r.path.display().to_string(),
        signatures: r.signatures.len(),
    }
}

pub async fn runbooks(State(state): State<AppState>) -> Response {
    let snapshot = state.snapshot();
    let list: Vec<RunbookSummary<'_>> = snapshot.library.runbooks.iter().map(summary).collect();
    Json(serde_json::json!({ "runbooks": list, "total": list.len() })).into_response()
}

#[derive(Serialize)]
struct SignatureJson<'a> {
    id: &'a str,
    pattern: &'a str,
    explain: Option<&'a str>,
    lines: usize,
    weight: f64,
    when: Option<&'a str>,
    examples: &'a [Example],
    counterexamples: &'a [String],
}

pub async fn runbook(
    State(state): State<AppState>,
    id: Id<Runbook, ApiError>,
) -> Result<Response, ApiError> {
    let snapshot = state.snapshot();
    let r = snapshot
        .library
        .runbook(id.as_str())
        .ok_or_else(|| id.not_found())?;
    let signatures: Vec<SignatureJson<'_>> = r
        .signatures
        .iter()
        .map(|s| SignatureJson {
            id: &s.id,
            pattern: &s.pattern,
            explain: s.explain.as_deref(),
            lines: s.lines,
            weight: s.weight,
            when: s.when.as_deref(),
            examples: &s.examples,
            counterexamples: &s.counterexamples,
        })
        .collect();
    let incidents: Vec<IncidentRef> = snapshot.matcher.incidents_of(&r.id);
    let etag = snapshot.library.etag(&r.path).map(str::to_string);
    let response = Json(serde_json::json!({
        "id": r.id,
        "title": r.title,
        "summary": r.summary,
        "aliases": r.aliases,
        "tags": r.tags,
        "severity": r.severity,
        "action": r.action,
        "related": r.related,
        "references": r.references,
        "reviewed_at": r.reviewed_at,
        "path": r.path,
        "url": format!("/runbooks/{}", r.id),
        "signatures": signatures,
        "body": r.body,
        "incidents": incidents,
        "etag": etag,
    }))
    .into_response();
    let response = super::with_etag(response, etag.as_deref());
    Ok(response)
}

fn incident_json(i: &Incident, with_body: bool) -> serde_json::Value {
    let minutes = |d: Option<chrono::TimeDelta>| d.map(|d| d.num_minutes());
    let mut value = serde_json::json!({
        "id": i.id,
        "title": i.title,
        "status": i.status,
        "severity": i.severity,
        "started_at": i.started_at,
        "detected_at": i.detected_at,
        "mitigated_at": i.mitigated_at,
        "resolved_at": i.resolved_at,
        "minutes_to_detect": minutes(i.time_to_detect()),
        "minutes_to_mitigate": minutes(i.time_to_mitigate()),
        "minutes_to_resolve": minutes(i.time_to_resolve()),
        "hosts": i.hosts,
        "services": i.services,
        "runbooks": i.runbooks,
        "tags": i.tags,
        "authors": i.authors,
        "lang": i.lang,
        "action_items": i.action_items.iter().collect::<Vec<&ActionItem>>(),
        "url": format!("/incidents/{}", i.id),
        "path": i.path,
    });
    if with_body {
        value["body"] = serde_json::Value::String(i.body.clone());
    }
    value
}

pub async fn incidents(State(state): State<AppState>) -> Response {
    let snapshot = state.snapshot();
    let mut list: Vec<&Incident> = snapshot.library.incidents.iter().collect();
    list.sort_by_key(|i| std::cmp::Reverse(i.started_at));
    let list: Vec<serde_json::Value> = list.into_iter().map(|i| incident_json(i, false)).collect();
    Json(serde_json::json!({ "incidents": list, "total": list.len() })).into_response()
}

pub async fn incident(
    State(state): State<AppState>,
    id: Id<Incident, ApiError>,
) -> Result<Response, ApiError> {
    let snapshot = state.snapshot();
    let i = snapshot
        .library
        .incident(id.as_str())
        .ok_or_else(|| id.not_found())?;
    // The etag of the file as it is now: what a PUT must send back in If-Match.
    let etag = crate::postmortem::current(&state.root, i)
        .ok()
        .map(|c| c.etag);
    let mut value = incident_json(i, true);
    value["etag"] = serde_json::json!(etag);
    Ok(super::with_etag(
        Json(value).into_response(),
        etag.as_deref(),
    ))
}

pub async fn healthz(State(state): State<AppState>) -> Response {
    let snapshot = state.snapshot();
    let problems = snapshot.library.error_count();
    Json(serde_json::json!({
        "status": "ok",
        "runbooks": snapshot.library.runbooks.len(),
        "incidents": snapshot.library.incidents.len(),
        "signatures": snapshot.matcher.engine.sigs.len(),
        "library_problems": problems,
        "indexed_files": state.search.len(),
        "read_only": state.read_only,
    }))
    .into_response()
}

pub async fn not_found() -> Response {
    WebError::NotFound("this API route".into()).json()
}
