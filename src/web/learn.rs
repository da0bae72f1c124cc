//! `POST /api/runbooks/{id}/signatures`: a line of a paste becomes a signature of a runbook (see
//! `learn`). With `?dry_run=1` it only drafts and checks; otherwise it passes the write check,
//! saves (honouring `If-Match`), commits when `--git-commit` is on, and reloads so the next paste
//! already matches it.

use axum::Json;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::error::{ApiError, WebError};
use super::extract::{Body, Id};
use super::guard::{self, Write};
use super::state::AppState;
use crate::doc::Runbook;
use crate::learn::{self, LearnError, Request};
use crate::postmortem::Problem;

#[derive(serde::Deserialize)]
pub struct LearnParams {
    #[serde(default)]
    dry_run: Option<String>,
}

/// The request body: the learn request, and optionally the paste to show what the draft matches.
#[derive(serde::Deserialize)]
struct LearnBody {
    #[serde(flatten)]
    request: Request,
    #[serde(default)]
    paste: Option<String>,
}

fn invalid(reasons: Vec<String>) -> WebError {
    WebError::Invalid(
        reasons
            .into_iter()
            .map(|message| Problem {
                field: "signature".into(),
                message,
            })
            .collect(),
    )
}

pub async fn api_learn(
    State(state): State<AppState>,
    id: Id<Runbook, ApiError>,
    Query(params): Query<LearnParams>,
    headers: HeaderMap,
    body: Body<ApiError>,
) -> Result<Response, ApiError> {
    let dry_run = params
        .dry_run
        .as_deref()
        .is_some_and(|v| !matches!(v, "0" | "false" | "no"));
    let write = if dry_run {
        Write::Preview
    } else {
        Write::Save { form_token: None }
    };
    guard::check(&state, &headers, write)?;
    if state.snapshot().library.runbook(id.as_str()).is_none() {
        return Err(id.not_found().into());
    }
    let input: LearnBody = serde_json::from_slice(&body.bytes).map_err(|e| {
        WebError::BadRequest(format!(
            "expected {{\"line\": \"...\", \"pattern\": \"optional\", \"id\": \"optional\"}}: {e}"
        ))
    })?;
    let if_match = headers
        .get(header::IF_MATCH)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let runbook_id = id.as_str().to_string();
    let state2 = state.clone();
    let response = tokio::task::spawn_blocking(move || -> Result<Response, WebError> {
        let state = state2;
        let snapshot = state.snapshot();
        let library = &snapshot.library;
        let runbook = library
            .runbook(&runbook_id)
            .ok_or_else(|| WebError::NotFound(format!("runbook `{runbook_id}`")))?;
        let draft =
            learn::draft(library, runbook, &input.request).map_err(|why| invalid(vec![why]))?;
        let matches = input
            .paste
            .as_deref()
            .map(|paste| learn::matches_in(runbook, &draft, paste))
            .unwrap_or_default();
        if dry_run {
            let problems = learn::validate(&state.root, library, runbook, &draft);
            let etag = library.etag(&runbook.path).map(str::to_string);
            return Ok(Json(serde_json::json!({
                "runbook": runbook.id,
                "signature": draft,
                "valid": problems.is_empty(),
                "problems": problems,
                "matches": matches,
                "etag": etag,
            }))
            .into_response());
        }
        let saved = learn::save(&state.root, library, &draft, if_match.as_deref()).map_err(
            |e| match e {
                LearnError::NotFound => WebError::NotFound(format!("runbook `{runbook_id}`")),
                LearnError::Invalid(reasons) => invalid(reasons),
                LearnError::Conflict { etag, current } => WebError::Conflict { etag, current },
                LearnError::Io(e) => WebError::Internal(e.into()),
            },
        )?;
        if state.git_commit {
            let message = format!("Teach {}: {}", saved.runbook, saved.signature.id);
            if let Err(e) =
                crate::postmortem::commit_to_git(&state.root, &saved.path, &message, None)
            {
                tracing::warn!(error = %e, file = saved.path, "saved, but the git commit failed");
            }
        }
        state.reload(Some(std::slice::from_ref(&saved.path)))?;
        let response = (
            StatusCode::CREATED,
            Json(serde_json::json!({
                "runbook": saved.runbook,
                "path": saved.path,
                "etag": saved.etag,
                "signature": saved.signature,
                "matches": matches,
                "url": format!("/runbooks/{}", saved.runbook),
            })),
        )
            .into_response();
        Ok(super::with_etag(response, Some(&saved.etag)))
    })
    .await
    .map_err(WebError::from)??;
    Ok(response)
}
