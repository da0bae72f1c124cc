//! Writing postmortems over HTTP: the form (new, from a paste, edit), the JSON API (POST, PUT with
//! If-Match), the live preview, and the protection every write goes through (read-only, token,
//! same-origin).

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use chrono::{DateTime, FixedOffset, Local};

use super::error::{ApiError, PageError, WebError};
use super::extract::{Body, Id};
use super::run_match;
use super::state::AppState;
use super::views::{IncidentForm, Layout, render};
use crate::doc::incident::KNOWN_KEYS;
use crate::doc::markdown::to_html;
use crate::doc::{Incident, IncidentSeverity, IncidentStatus};
use crate::library::INCIDENTS;
use crate::postmortem::{self, ActionDraft, Draft, SaveError, Saved, TimelineRow};

/// Refuses a write unless the server is writable, the token (if any) is given, and the request
/// comes from this site (an `Origin`, or failing that a `Referer`, naming another host is CSRF).
pub fn check_write(
    state: &AppState,
    headers: &HeaderMap,
    form_token: Option<&str>,
) -> Result<(), WebError> {
    if state.read_only {
        return Err(WebError::Forbidden(
            "this lore is read-only: writes are refused".into(),
        ));
    }
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("");
    let origin = headers
        .get(header::ORIGIN)
        .or_else(|| headers.get(header::REFERER))
        .and_then(|o| o.to_str().ok());
    if let Some(origin) = origin
        && origin != "null"
    {
        let origin_host = origin
            .split("://")
            .nth(1)
            .unwrap_or("")
            .split('/')
            .next()
            .unwrap_or("");
        if origin_host != host {
            return Err(WebError::Forbidden(format!(
                "cross-site request refused: {origin} is not {host}"
            )));
        }
    }
    if headers
        .get("sec-fetch-site")
        .is_some_and(|v| v == "cross-site")
    {
        return Err(WebError::Forbidden("cross-site request refused".into()));
    }
    if let Some(token) = &state.token {
        let bearer = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        let given = bearer.or(form_token).unwrap_or("");
        if !constant_time_eq(given.as_bytes(), token.as_bytes()) {
            return Err(WebError::Forbidden("a valid LORE_TOKEN is needed to write (Authorization: Bearer ..., or the token field)".into()));
        }
    }
    Ok(())
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The server's current UTC offset, as the default for times typed without one.
fn local_offset() -> FixedOffset {
    *Local::now().offset()
}

/// Splits an RFC 3339 time into the `datetime-local` value and its offset.
fn to_local_input(text: &str) -> (String, String) {
    match DateTime::parse_from_rfc3339(text) {
        Ok(t) => (
            t.format("%Y-%m-%dT%H:%M").to_string(),
            t.offset().to_string(),
        ),
        Err(_) => (text.to_string(), String::new()),
    }
}

fn list(text: &str) -> Vec<String> {
    text.split([',', '\n', ';'])
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The draft a form describes. Field names follow the front matter (DESIGN §6).
fn draft_from_form(fields: &[(String, String)]) -> (Draft, Option<String>, Option<String>) {
    let get = |name: &str| {
        fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    };
    let all = |name: &str| {
        fields
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .collect::<Vec<_>>()
    };
    let offset = get("offset").trim().to_string();
    let time = |name: &str| {
        let value = get(name).trim();
        if value.is_empty() {
            return String::new();
        }
        // datetime-local gives 2026-04-03T14:02; with the form's offset it is RFC 3339.
        if value.len() == 16 && value.as_bytes().get(10) == Some(&b'T') {
            let offset = if offset.is_empty() {
                local_offset().to_string()
            } else {
                offset.clone()
            };
            format!("{value}:00{offset}")
        } else {
            value.to_string()
        }
    };
    let titles = all("action_title");
    let owners = all("action_owner");
    let statuses = all("action_status");
    let dues = all("action_due");
    let action_items = titles
        .iter()
        .enumerate()
        .map(|(i, title)| ActionDraft {
            title: title.trim().to_string(),
            owner: owners
                .get(i)
                .cloned()
                .unwrap_or_default()
                .trim()
                .to_string(),
            status: statuses.get(i).cloned().unwrap_or_default(),
            due: dues.get(i).cloned().unwrap_or_default().trim().to_string(),
        })
        .filter(|a| !a.title.is_empty() || !a.owner.is_empty() || !a.due.is_empty())
        .collect();
    let times = all("timeline_time");
    let texts = all("timeline_text");
    let timeline = texts
        .iter()
        .enumerate()
        .map(|(i, text)| TimelineRow {
            time: times.get(i).cloned().unwrap_or_default().trim().to_string(),
            text: text.trim().to_string(),
        })
        .filter(|r| !r.text.is_empty() || !r.time.is_empty())
        .collect();
    let draft = Draft {
        title: get("title").trim().to_string(),
        status: get("status").to_string(),
        severity: get("severity").to_string(),
        started_at: time("started_at"),
        detected_at: time("detected_at"),
        mitigated_at: time("mitigated_at"),
        resolved_at: time("resolved_at"),
        hosts: list(get("hosts")),
        services: list(get("services")),
        runbooks: all("runbooks")
            .into_iter()
            .filter(|r| !r.is_empty())
            .collect(),
        tags: list(get("tags")),
        authors: list(get("authors")),
        lang: get("lang").trim().to_string(),
        action_items,
        timeline,
        body: get("body").replace("\r\n", "\n"),
        extra: Default::default(),
    };
    let etag = Some(get("etag").to_string()).filter(|e| !e.is_empty());
    let token = Some(get("token").to_string()).filter(|t| !t.is_empty());
    (draft, etag, token)
}

/// The form page for a draft, with problems or a conflict to show.
fn form_page(
    state: &AppState,
    draft: &Draft,
    edit: Option<(&str, &str)>,
    notice: Notice,
) -> IncidentForm {
    let snapshot = state.snapshot();
    let mut runbooks: Vec<(String, String, bool)> = snapshot
        .library
        .runbooks
        .iter()
        .map(|r| {
            (
                r.id.clone(),
                r.title.clone(),
                draft.runbooks.contains(&r.id),
            )
        })
        .collect();
    runbooks.sort_by_key(|r| r.1.to_lowercase());
    let offset = [
        &draft.started_at,
        &draft.detected_at,
        &draft.mitigated_at,
        &draft.resolved_at,
    ]
    .iter()
    .find_map(|t| {
        DateTime::parse_from_rfc3339(t)
            .ok()
            .map(|t| t.offset().to_string())
    })
    .unwrap_or_else(|| local_offset().to_string());
    let mut timeline = draft.timeline.clone();
    timeline.extend((0..3).map(|_| TimelineRow::default()));
    let mut action_items = draft.action_items.clone();
    action_items.extend((0..2).map(|_| ActionDraft::default()));
    let (problems, conflict) = match notice {
        Notice::None => (Vec::new(), None),
        Notice::Problems(p) => (
            p.into_iter()
                .map(|p| format!("{}: {}", p.field, p.message))
                .collect(),
            None,
        ),
        Notice::Conflict(current) => (Vec::new(), Some(current)),
    };
    let mut layout = Layout::new(
        match edit {
            Some(_) => format!("Edit — {}", draft.title),
            None => "New postmortem".to_string(),
        },
        "incidents",
    );
    layout.read_only = state.read_only;
    IncidentForm {
        layout,
        action: match edit {
            Some((id, _)) => format!("/incidents/{id}"),
            None => "/incidents".to_string(),
        },
        id: edit.map(|(id, _)| id.to_string()).unwrap_or_default(),
        etag: edit.map(|(_, etag)| etag.to_string()).unwrap_or_default(),
        title: draft.title.clone(),
        statuses: IncidentStatus::ALL
            .iter()
            .map(|s| (s.as_str().to_string(), s.as_str() == draft.status))
            .collect(),
        severities: IncidentSeverity::ALL
            .iter()
            .map(|s| {
                (
                    s.as_str().to_string(),
                    s.as_str().eq_ignore_ascii_case(&draft.severity),
                )
            })
            .collect(),
        started_at: to_local_input(&draft.started_at).0,
        detected_at: to_local_input(&draft.detected_at).0,
        mitigated_at: to_local_input(&draft.mitigated_at).0,
        resolved_at: to_local_input(&draft.resolved_at).0,
        offset,
        hosts: draft.hosts.join(", "),
        services: draft.services.join(", "),
        tags: draft.tags.join(", "),
        authors: draft.authors.join(", "),
        lang: draft.lang.clone(),
        runbooks,
        action_items: action_items
            .into_iter()
            .map(|a| {
                let status = if a.status.is_empty() {
                    "open".to_string()
                } else {
                    a.status
                };
                (a.title, a.owner, status, a.due)
            })
            .collect(),
        timeline: timeline.into_iter().map(|r| (r.time, r.text)).collect(),
        body: draft.body.clone(),
        preview_html: to_html(&postmortem::merge_timeline(&draft.body, &draft.timeline)),
        problems,
        conflict,
        token_needed: state.token.is_some(),
    }
}

enum Notice {
    None,
    Problems(Vec<postmortem::Problem>),
    Conflict(String),
}

pub async fn new_form(State(state): State<AppState>) -> Result<Response, PageError> {
    check_readable_write(&state)?;
    Ok(render(&form_page(
        &state,
        &Draft::new(),
        None,
        Notice::None,
    )))
}

/// Writes are refused on a read-only server before a form is even shown.
fn check_readable_write(state: &AppState) -> Result<(), WebError> {
    if state.read_only {
        return Err(WebError::Forbidden(
            "this lore is read-only: postmortems cannot be written here".into(),
        ));
    }
    Ok(())
}

/// "Start a postmortem from this paste": the match page posts the paste here.
pub async fn new_from_paste(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Body<PageError>,
) -> Result<Response, PageError> {
    let fields: Vec<(String, String)> = body.form()?;
    let token = fields
        .iter()
        .find(|(k, _)| k == "token")
        .map(|(_, v)| v.as_str());
    check_write(&state, &headers, token).or_else(|e| match e {
        // Without a token the form can still be shown; saving will ask for it.
        WebError::Forbidden(_) if state.token.is_some() && !state.read_only => Ok(()),
        e => Err(e),
    })?;
    let paste = fields
        .iter()
        .find(|(k, _)| k == "paste")
        .map(|(_, v)| v.clone())
        .unwrap_or_default();
    let snapshot = state.snapshot();
    let (report, paste) = run_match(&snapshot, paste.into_bytes(), None).await?;
    let draft = postmortem::from_paste(&paste, &report);
    Ok(render(&form_page(&state, &draft, None, Notice::None)))
}

pub async fn create(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Body<PageError>,
) -> Result<Response, PageError> {
    let fields: Vec<(String, String)> = body.form()?;
    let (draft, _, token) = draft_from_form(&fields);
    check_write(&state, &headers, token.as_deref())?;
    match save(&state, None, draft.clone(), "").await {
        Ok(saved) => Ok(Redirect::to(&format!("/incidents/{}", saved.id)).into_response()),
        Err(WebError::Invalid(problems)) => Ok((
            StatusCode::UNPROCESSABLE_ENTITY,
            render(&form_page(&state, &draft, None, Notice::Problems(problems))),
        )
            .into_response()),
        Err(e) => Err(e.into()),
    }
}

pub async fn edit_form(
    State(state): State<AppState>,
    id: Id<Incident, PageError>,
) -> Result<Response, PageError> {
    check_readable_write(&state)?;
    let (draft, etag) = current(&state, &id)?;
    Ok(render(&form_page(
        &state,
        &draft,
        Some((id.as_str(), &etag)),
        Notice::None,
    )))
}

/// The incident as a draft, and the etag of its file.
fn current(state: &AppState, id: &Id<Incident, PageError>) -> Result<(Draft, String), WebError> {
    let snapshot = state.snapshot();
    let incident = snapshot
        .library
        .incident(id.as_str())
        .ok_or_else(|| id.not_found())?;
    let bytes = std::fs::read(state.root.join(&incident.path)).map_err(|_| id.not_found())?;
    Ok((Draft::from_incident(incident), postmortem::etag(&bytes)))
}

pub async fn update(
    State(state): State<AppState>,
    id: Id<Incident, PageError>,
    headers: HeaderMap,
    body: Body<PageError>,
) -> Result<Response, PageError> {
    let id = id.as_str();
    let fields: Vec<(String, String)> = body.form()?;
    let (draft, etag, token) = draft_from_form(&fields);
    check_write(&state, &headers, token.as_deref())?;
    let etag = etag.unwrap_or_default();
    match save(&state, Some(id), draft.clone(), &etag).await {
        Ok(saved) => Ok(Redirect::to(&format!("/incidents/{}", saved.id)).into_response()),
        Err(WebError::Invalid(problems)) => Ok((
            StatusCode::UNPROCESSABLE_ENTITY,
            render(&form_page(
                &state,
                &draft,
                Some((id, &etag)),
                Notice::Problems(problems),
            )),
        )
            .into_response()),
        Err(WebError::Conflict { etag: now }) => {
            // The user keeps every word they typed; the current version is shown to merge with.
            let current =
                std::fs::read_to_string(state.root.join(INCIDENTS).join(format!("{id}.md")))
                    .unwrap_or_default();
            Ok((
                StatusCode::PRECONDITION_FAILED,
                render(&form_page(
                    &state,
                    &draft,
                    Some((id, &now)),
                    Notice::Conflict(current),
                )),
            )
                .into_response())
        }
        Err(e) => Err(e.into()),
    }
}

/// Saves (new when `id` is `None`), then makes the change visible at once: index and snapshot.
async fn save(
    state: &AppState,
    id: Option<&str>,
    draft: Draft,
    etag: &str,
) -> Result<Saved, WebError> {
    let state = state.clone();
    let id = id.map(str::to_string);
    let etag = etag.to_string();
    tokio::task::spawn_blocking(move || {
        let snapshot = state.snapshot();
        let result = match &id {
            None => postmortem::save_new(&state.root, &snapshot.library, &draft),
            Some(id) => postmortem::save_edit(&state.root, &snapshot.library, id, &draft, &etag),
        };
        let saved = result.map_err(|e| match e {
            SaveError::Invalid(problems) => WebError::Invalid(problems),
            SaveError::Conflict { etag, .. } => WebError::Conflict { etag },
            SaveError::NotFound => {
                WebError::NotFound(format!("incident `{}`", id.clone().unwrap_or_default()))
            }
            SaveError::Io(e) => WebError::Internal(e.into()),
        })?;
        if state.git_commit {
            let verb = if id.is_some() { "Update" } else { "Add" };
            let message = format!("{verb} postmortem: {}", draft.title);
            if let Err(e) = postmortem::commit_to_git(
                &state.root,
                &saved.rel,
                &message,
                draft.authors.first().map(String::as_str),
            ) {
                tracing::warn!(error = %e, file = saved.rel, "saved, but the git commit failed");
            }
        }
        state.reload(Some(std::slice::from_ref(&saved.rel)))?;
        Ok(saved)
    })
    .await?
}

/// `POST /api/preview`: Markdown (and timeline rows) to the HTML the page will show.
pub async fn preview(
    headers: HeaderMap,
    State(state): State<AppState>,
    body: Body<ApiError>,
) -> Result<Response, ApiError> {
    // Read-only servers may preview; only the origin matters here.
    let mut probe = state.clone();
    probe.read_only = false;
    probe.token = None;
    check_write(&probe, &headers, None)?;
    #[derive(serde::Deserialize)]
    struct Preview {
        #[serde(default)]
        body: String,
        #[serde(default)]
        timeline: Vec<TimelineRow>,
    }
    let input: Preview = serde_json::from_slice(&body.bytes)
        .map_err(|e| WebError::BadRequest(format!("expected {{\"body\": \"...\"}}: {e}")))?;
    let html = to_html(&postmortem::merge_timeline(&input.body, &input.timeline));
    Ok(Json(serde_json::json!({ "html": html })).into_response())
}

/// A JSON object of front-matter keys plus `body` as a draft; keys lore does not know are kept.
fn draft_from_json(body: &[u8]) -> Result<Draft, WebError> {
    let value: serde_json::Value = serde_json::from_slice(body).map_err(|e| {
        WebError::BadRequest(format!(
            "expected a JSON object of front-matter keys and \"body\": {e}"
        ))
    })?;
    let serde_json::Value::Object(mut object) = value else {
        return Err(WebError::BadRequest("expected a JSON object".into()));
    };
    object.remove("id");
    object.remove("etag");
    let mut extra = serde_yaml_ng::Mapping::new();
    let mut known = serde_json::Map::new();
    for (key, value) in object {
        // The front-matter keys and the two the API adds (rows of the timeline, the body).
        if KNOWN_KEYS.contains(&key.as_str()) || key == "timeline" || key == "body" {
            known.insert(key, value);
        } else if let Ok(yaml) = serde_yaml_ng::to_value(&value) {
            extra.insert(serde_yaml_ng::Value::String(key), yaml);
        }
    }
    let mut draft: Draft = serde_json::from_value(serde_json::Value::Object(known))
        .map_err(|e| WebError::BadRequest(format!("a field has the wrong type: {e}")))?;
    draft.extra = extra;
    if draft.body.trim().is_empty() {
        draft.body = postmortem::template_body();
    }
    Ok(draft)
}

fn saved_json(saved: &Saved, status: StatusCode) -> Response {
    let (incident, _) = crate::doc::Incident::parse(std::path::Path::new(&saved.rel), &saved.text);
    let mut value = serde_json::json!({ "id": saved.id, "etag": saved.etag, "url": format!("/incidents/{}", saved.id), "path": saved.rel });
    if let Some(incident) = incident {
        value["title"] = serde_json::json!(incident.title);
        value["status"] = serde_json::json!(incident.status);
        value["severity"] = serde_json::json!(incident.severity);
        value["started_at"] = serde_json::json!(incident.started_at);
        value["runbooks"] = serde_json::json!(incident.runbooks);
        value["hosts"] = serde_json::json!(incident.hosts);
        value["body"] = serde_json::json!(incident.body);
    }
    let mut response = (status, Json(value)).into_response();
    if let Ok(location) = HeaderValue::from_str(&format!("/incidents/{}", saved.id)) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    if let Ok(etag) = HeaderValue::from_str(&saved.etag) {
        response.headers_mut().insert(header::ETAG, etag);
    }
    response
}

/// `POST /api/incidents`: 201 with `Location` and the stored document.
pub async fn api_create(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Body<ApiError>,
) -> Result<Response, ApiError> {
    check_write(&state, &headers, None)?;
    let draft = draft_from_json(&body.bytes)?;
    let saved = save(&state, None, draft, "").await?;
    Ok(saved_json(&saved, StatusCode::CREATED))
}

/// `PUT /api/incidents/{id}` with `If-Match: <etag>`: 412 if the file changed since.
pub async fn api_update(
    State(state): State<AppState>,
    id: Id<Incident, ApiError>,
    headers: HeaderMap,
    body: Body<ApiError>,
) -> Result<Response, ApiError> {
    check_write(&state, &headers, None)?;
    if state.snapshot().library.incident(id.as_str()).is_none() {
        return Err(id.not_found().into());
    }
    let if_match = headers
        .get(header::IF_MATCH)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .ok_or(WebError::PreconditionRequired)?;
    let draft = draft_from_json(&body.bytes)?;
    let saved = save(&state, Some(id.as_str()), draft, &if_match).await?;
    Ok(saved_json(&saved, StatusCode::OK))
}
