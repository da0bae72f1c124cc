//! Writing postmortems over HTTP: the form (new, from a paste, edit), the JSON API (POST, PUT with
//! If-Match) and the live preview. Each handler passes `guard::check` first, decodes its body
//! with `form`, and leaves files to `postmortem`: it reads and writes none itself.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Redirect, Response};
use chrono::DateTime;

use super::error::{ApiError, PageError, WebError};
use super::extract::{Body, Id};
use super::form::{self, Submitted, local_offset, to_local_input};
use super::guard::{self, Write};
use super::run_match;
use super::state::AppState;
use super::views::{IncidentForm, Layout, render};
use crate::doc::markdown::to_html;
use crate::doc::{Incident, IncidentSeverity, IncidentStatus};
use crate::postmortem::{self, Postmortem, PostmortemAction, SaveError, Saved, TimelineRow};

/// The form page for a postmortem, with problems or a conflict to show.
fn form_page(
    state: &AppState,
    pm: &Postmortem,
    edit: Option<(&str, &str)>,
    notice: Notice,
) -> IncidentForm {
    let snapshot = state.snapshot();
    let mut runbooks: Vec<(String, String, bool)> = snapshot
        .library
        .runbooks
        .iter()
        .map(|r| (r.id.clone(), r.title.clone(), pm.runbooks.contains(&r.id)))
        .collect();
    runbooks.sort_by_key(|r| r.1.to_lowercase());
    let offset = [
        &pm.started_at,
        &pm.detected_at,
        &pm.mitigated_at,
        &pm.resolved_at,
    ]
    .iter()
    .find_map(|t| {
        DateTime::parse_from_rfc3339(t)
            .ok()
            .map(|t| t.offset().to_string())
    })
    .unwrap_or_else(|| local_offset().to_string());
    let mut timeline = pm.timeline.clone();
    timeline.extend((0..3).map(|_| TimelineRow::default()));
    let mut action_items = pm.action_items.clone();
    action_items.extend((0..2).map(|_| PostmortemAction::default()));
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
            Some(_) => format!("Edit — {}", pm.title),
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
        title: pm.title.clone(),
        statuses: IncidentStatus::ALL
            .iter()
            .map(|s| (s.as_str().to_string(), s.as_str() == pm.status))
            .collect(),
        severities: IncidentSeverity::ALL
            .iter()
            .map(|s| {
                (
                    s.as_str().to_string(),
                    s.as_str().eq_ignore_ascii_case(&pm.severity),
                )
            })
            .collect(),
        started_at: to_local_input(&pm.started_at).0,
        detected_at: to_local_input(&pm.detected_at).0,
        mitigated_at: to_local_input(&pm.mitigated_at).0,
        resolved_at: to_local_input(&pm.resolved_at).0,
        offset,
        hosts: pm.hosts.join(", "),
        services: pm.services.join(", "),
        tags: pm.tags.join(", "),
        authors: pm.authors.join(", "),
        lang: pm.lang.clone(),
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
        body: pm.body.clone(),
        preview_html: to_html(&postmortem::merge_timeline(&pm.body, &pm.timeline)),
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

pub async fn new_form(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, PageError> {
    guard::check(&state, &headers, Write::ShowForm)?;
    Ok(render(&form_page(
        &state,
        &Postmortem::new(),
        None,
        Notice::None,
    )))
}

/// "Start a postmortem from this paste": the match page posts the paste here.
pub async fn new_from_paste(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Body<PageError>,
) -> Result<Response, PageError> {
    guard::check(&state, &headers, Write::Prefill)?;
    let fields: Vec<(String, String)> = body.form()?;
    let paste = fields
        .iter()
        .find(|(k, _)| k == "paste")
        .map(|(_, v)| v.clone())
        .unwrap_or_default();
    let snapshot = state.snapshot();
    let (report, _, paste) = run_match(
        &snapshot,
        paste.into_bytes(),
        None,
        super::Environment::Skip,
    )
    .await?;
    let pm = postmortem::from_paste(&paste, &report);
    Ok(render(&form_page(&state, &pm, None, Notice::None)))
}

pub async fn create(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Body<PageError>,
) -> Result<Response, PageError> {
    let Submitted {
        postmortem: pm,
        token,
        ..
    } = form::from_form(&body.form::<Vec<_>>()?);
    let form_token = token.as_deref();
    guard::check(&state, &headers, Write::Save { form_token })?;
    match save(&state, None, pm.clone(), "").await {
        Ok(saved) => Ok(Redirect::to(&format!("/incidents/{}", saved.id)).into_response()),
        Err(WebError::Invalid(problems)) => Ok((
            StatusCode::UNPROCESSABLE_ENTITY,
            render(&form_page(&state, &pm, None, Notice::Problems(problems))),
        )
            .into_response()),
        Err(e) => Err(e.into()),
    }
}

pub async fn edit_form(
    State(state): State<AppState>,
    id: Id<Incident, PageError>,
    headers: HeaderMap,
) -> Result<Response, PageError> {
    guard::check(&state, &headers, Write::ShowForm)?;
    let snapshot = state.snapshot();
    let incident = snapshot
        .library
        .incident(id.as_str())
        .ok_or_else(|| id.not_found())?;
    let pm = Postmortem::from_incident(incident);
    let etag = postmortem::current(&state.root, incident)
        .map_err(|_| id.not_found())?
        .etag;
    Ok(render(&form_page(
        &state,
        &pm,
        Some((id.as_str(), &etag)),
        Notice::None,
    )))
}

pub async fn update(
    State(state): State<AppState>,
    id: Id<Incident, PageError>,
    headers: HeaderMap,
    body: Body<PageError>,
) -> Result<Response, PageError> {
    let id = id.as_str();
    let Submitted {
        postmortem: pm,
        etag,
        token,
    } = form::from_form(&body.form::<Vec<_>>()?);
    let form_token = token.as_deref();
    guard::check(&state, &headers, Write::Save { form_token })?;
    let etag = etag.unwrap_or_default();
    match save(&state, Some(id), pm.clone(), &etag).await {
        Ok(saved) => Ok(Redirect::to(&format!("/incidents/{}", saved.id)).into_response()),
        Err(WebError::Invalid(problems)) => Ok((
            StatusCode::UNPROCESSABLE_ENTITY,
            render(&form_page(
                &state,
                &pm,
                Some((id, &etag)),
                Notice::Problems(problems),
            )),
        )
            .into_response()),
        Err(WebError::Conflict { etag: now, current }) => {
            // The user keeps every word they typed; the current version is shown to merge with.
            Ok((
                StatusCode::PRECONDITION_FAILED,
                render(&form_page(
                    &state,
                    &pm,
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
    pm: Postmortem,
    etag: &str,
) -> Result<Saved, WebError> {
    let state = state.clone();
    let id = id.map(str::to_string);
    let etag = etag.to_string();
    tokio::task::spawn_blocking(move || {
        let snapshot = state.snapshot();
        let result = match &id {
            None => postmortem::save_new(&state.root, &snapshot.library, &pm),
            Some(id) => postmortem::save_edit(&state.root, &snapshot.library, id, &pm, &etag),
        };
        let saved = result.map_err(|e| match e {
            SaveError::NotFound => {
                WebError::NotFound(format!("incident `{}`", id.clone().unwrap_or_default()))
            }
            e => WebError::from(e),
        })?;
        if state.git_commit {
            let verb = if id.is_some() { "Update" } else { "Add" };
            let message = format!("{verb} postmortem: {}", pm.title);
            if let Err(e) = postmortem::commit_to_git(
                &state.root,
                &saved.rel,
                &message,
                pm.authors.first().map(String::as_str),
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
    guard::check(&state, &headers, Write::Preview)?;
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
    super::with_etag(response, Some(&saved.etag))
}

/// `POST /api/incidents`: 201 with `Location` and the stored document.
pub async fn api_create(
    State(state): State<AppState>,
    headers: HeaderMap,
    body: Body<ApiError>,
) -> Result<Response, ApiError> {
    guard::check(&state, &headers, Write::Save { form_token: None })?;
    let pm = form::from_json(&body.bytes)?;
    let saved = save(&state, None, pm, "").await?;
    Ok(saved_json(&saved, StatusCode::CREATED))
}

/// `PUT /api/incidents/{id}` with `If-Match: <etag>`: 412 if the file changed since.
pub async fn api_update(
    State(state): State<AppState>,
    id: Id<Incident, ApiError>,
    headers: HeaderMap,
    body: Body<ApiError>,
) -> Result<Response, ApiError> {
    guard::check(&state, &headers, Write::Save { form_token: None })?;
    if state.snapshot().library.incident(id.as_str()).is_none() {
        return Err(id.not_found().into());
    }
    let if_match = headers
        .get(header::IF_MATCH)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .ok_or(WebError::PreconditionRequired)?;
    let pm = form::from_json(&body.bytes)?;
    let saved = save(&state, Some(id.as_str()), pm, &if_match).await?;
    Ok(saved_json(&saved, StatusCode::OK))
}
