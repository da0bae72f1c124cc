//! The stacks a team tested: `/stacks` (a matrix of every stack by its fields, each row coloured
//! by its verdict, filterable by GPU, driver and framework), `/stacks/{id}`, and their JSON.

use axum::Json;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::error::{ApiError, PageError};
use super::extract::Id;
use super::state::AppState;
use super::views::{Layout, StackPage, StackRow, StacksPage, TagCount, render};
use crate::doc::Stack;
use crate::doc::markdown::to_html;
use crate::doc::stack::FIELDS;

/// The fields a list can be narrowed by.
const FILTERS: [&str; 3] = ["gpu", "driver", "framework"];

#[derive(Deserialize, Default)]
pub struct StackParams {
    gpu: Option<String>,
    driver: Option<String>,
    framework: Option<String>,
}

impl StackParams {
    fn get(&self, field: &str) -> Option<&str> {
        match field {
            "gpu" => self.gpu.as_deref(),
            "driver" => self.driver.as_deref(),
            "framework" => self.framework.as_deref(),
            _ => None,
        }
        .filter(|v| !v.is_empty())
    }

    fn keeps(&self, stack: &Stack) -> bool {
        FILTERS
            .iter()
            .all(|f| self.get(f).is_none_or(|want| stack.get(f) == Some(want)))
    }
}

fn label(field: &str) -> &'static str {
    FIELDS
        .iter()
        .find(|(k, _, _)| *k == field)
        .map_or("", |(_, _, label)| label)
}

/// Stacks in the order a reader wants them: bad first (what to avoid), then degraded, then good;
/// newest test first within each.
fn ordered(stacks: &[Stack]) -> Vec<&Stack> {
    let mut list: Vec<&Stack> = stacks.iter().collect();
    list.sort_by(|a, b| {
        b.verdict
            .cmp(&a.verdict)
            .then_with(|| b.tested_at.cmp(&a.tested_at))
            .then_with(|| a.id.cmp(&b.id))
    });
    list
}

pub async fn page_list(
    State(state): State<AppState>,
    Query(params): Query<StackParams>,
) -> Response {
    let snapshot = state.snapshot();
    let stacks = &snapshot.library.stacks;
    // Columns: the fields any stack has, in the vocabulary's order.
    let columns: Vec<(String, String)> = FIELDS
        .iter()
        .filter(|(k, _, _)| stacks.iter().any(|s| s.get(k).is_some()))
        .map(|(k, _, label)| (k.to_string(), label.to_string()))
        .collect();
    let filters: Vec<(String, String, Vec<TagCount>)> = FILTERS
        .iter()
        .map(|f| {
            let mut values: Vec<TagCount> = Vec::new();
            for value in stacks.iter().filter_map(|s| s.get(f)) {
                match values.iter_mut().find(|v| v.tag == value) {
                    Some(v) => v.count += 1,
                    None => values.push(TagCount {
                        tag: value.to_string(),
                        count: 1,
                        selected: params.get(f) == Some(value),
                    }),
                }
            }
            values.sort_by(|a, b| a.tag.cmp(&b.tag));
            (f.to_string(), label(f).to_string(), values)
        })
        .filter(|(_, _, values)| !values.is_empty())
        .collect();
    let rows = ordered(stacks)
        .into_iter()
        .filter(|s| params.keeps(s))
        .map(|s| StackRow {
            id: s.id.clone(),
            title: s.title.clone(),
            verdict: s.verdict.as_str().to_string(),
            tested_at: s.tested_at.map(|d| d.to_string()).unwrap_or_default(),
            cells: columns
                .iter()
                .map(|(k, _)| s.get(k).unwrap_or("").to_string())
                .collect(),
        })
        .collect();
    let mut layout = Layout::new("Stacks", "stacks");
    layout.read_only = state.read_only;
    render(&StacksPage {
        layout,
        rows,
        columns,
        filters,
        filtered: FILTERS.iter().any(|f| params.get(f).is_some()),
        total: stacks.len(),
        families: snapshot
            .library
            .compat
            .iter()
            .map(|c| (c.id.clone(), c.title.clone()))
            .collect(),
    })
}

pub async fn page(
    State(state): State<AppState>,
    id: Id<Stack, PageError>,
) -> Result<Response, PageError> {
    let snapshot = state.snapshot();
    let stack = snapshot
        .library
        .stack(id.as_str())
        .ok_or_else(|| id.not_found())?;
    let fields = |list: &[(String, String)]| -> Vec<(String, String, String)> {
        list.iter()
            .map(|(k, v)| (k.clone(), label(k).to_string(), v.clone()))
            .collect()
    };
    let mut layout = Layout::new(stack.title.clone(), "stacks");
    layout.read_only = state.read_only;
    Ok(render(&StackPage {
        layout,
        id: stack.id.clone(),
        title: stack.title.clone(),
        verdict: stack.verdict.as_str().to_string(),
        tested_at: stack.tested_at.map(|d| d.to_string()).unwrap_or_default(),
        tested_by: stack.tested_by.join(", "),
        workload: stack.workload.clone(),
        scope: stack.scope.clone(),
        evidence: stack
            .evidence
            .iter()
            .map(|e| {
                if e.contains("://") {
                    (e.clone(), e.clone())
                } else {
                    let title = snapshot
                        .library
                        .incident(e)
                        .map_or_else(|| e.clone(), |i| i.title.clone());
                    (format!("/incidents/{e}"), title)
                }
            })
            .collect(),
        tested: fields(&stack.tested),
        extends_to: fields(&stack.extends_to),
        body_html: to_html(&stack.body),
        path: stack.path.display().to_string(),
    }))
}

fn json(stack: &Stack, with_body: bool) -> serde_json::Value {
    let object = |list: &[(String, String)]| -> serde_json::Map<String, serde_json::Value> {
        list.iter()
            .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
            .collect()
    };
    let mut value = serde_json::json!({
        "id": stack.id,
        "title": stack.title,
        "verdict": stack.verdict,
        "tested_at": stack.tested_at,
        "tested_by": stack.tested_by,
        "workload": stack.workload,
        "scope": stack.scope,
        "evidence": stack.evidence,
        "tested": object(&stack.tested),
        "extends_to": object(&stack.extends_to),
        "url": format!("/stacks/{}", stack.id),
        "path": stack.path,
    });
    if with_body {
        value["body"] = serde_json::json!(stack.body);
    }
    value
}

/// `POST /api/env`: the body is a paste (as for `/api/match`); the answer is `lore env --json`'s
/// object, even when the paste shows fewer than two versions.
pub async fn api_env(
    State(state): State<AppState>,
    body: super::extract::Body<ApiError>,
) -> Result<Response, ApiError> {
    let snapshot = state.snapshot();
    let bytes = body.paste()?.to_vec();
    let assessment = tokio::task::spawn_blocking(move || {
        let fp = crate::env::fingerprint::of(&bytes);
        crate::env::assess(
            &fp,
            &snapshot.library.stacks,
            &snapshot.library.compat,
            chrono::Local::now().date_naive(),
        )
    })
    .await
    .map_err(super::error::WebError::from)?;
    Ok(Json(assessment).into_response())
}

/// `/compat/{family}`: a compatibility family's rules with their rows and sources, and its text.
pub async fn compat_page(
    State(state): State<AppState>,
    axum::extract::Path(family): axum::extract::Path<String>,
) -> Result<Response, PageError> {
    let snapshot = state.snapshot();
    let compat = snapshot
        .library
        .compat
        .iter()
        .find(|c| c.id == family && crate::doc::is_valid_id(&family))
        .ok_or_else(|| super::error::WebError::NotFound(format!("compat family `{family}`")))?;
    let mut layout = Layout::new(compat.title.clone(), "stacks");
    layout.read_only = state.read_only;
    Ok(render(&super::views::CompatPage {
        layout,
        id: compat.id.clone(),
        title: compat.title.clone(),
        rules: compat
            .rules
            .iter()
            .map(|r| super::views::CompatRuleView {
                id: r.id.clone(),
                reads: format!(
                    "{}: the row is picked by {}; it judges {}{}",
                    r.kind.as_str(),
                    r.by.join(" or "),
                    r.of.join(" or "),
                    if r.severity == crate::doc::compat::Severity::Risk {
                        " (a broken row is a risk)"
                    } else {
                        ""
                    }
                ),
                exceptions: r
                    .exceptions
                    .iter()
                    .map(|e| {
                        (
                            e.when
                                .iter()
                                .map(|(k, v)| format!("{k}: {v}"))
                                .collect::<Vec<_>>()
                                .join(", "),
                            format!("{:?}", e.level).to_lowercase(),
                            e.message.clone(),
                            e.source.clone(),
                        )
                    })
                    .collect(),
                rows: r
                    .rows
                    .iter()
                    .map(|row| {
                        (
                            row.key.clone(),
                            requirement(r.kind, row),
                            format!("{:?}", row.authority).to_lowercase(),
                            row.reviewed_at.to_string(),
                            row.source.clone(),
                            row.note.clone(),
                        )
                    })
                    .collect(),
            })
            .collect(),
        body_html: to_html(&compat.body),
        path: compat.path.display().to_string(),
    }))
}

/// What a row asks of the paste, in words a reader checks against the source.
fn requirement(kind: crate::doc::compat::RuleKind, row: &crate::doc::compat::Row) -> String {
    use crate::doc::compat::RuleKind;
    let range = match (&row.min, &row.max) {
        // `max` counts at its own precision: 390 .. 390 is every 390.x.
        (Some(min), Some(max)) if min == max => format!("{min}.x"),
        (Some(min), Some(max)) => format!("{min} .. {max}"),
        (Some(min), None) => format!("≥ {min}"),
        (None, Some(max)) => format!("≤ {max}"),
        (None, None) => String::new(),
    };
    match kind {
        RuleKind::MinimumVersion | RuleKind::Range => range,
        RuleKind::Member => format!("one of {}", row.values.join(", ")),
        RuleKind::Equal => "equal".into(),
        RuleKind::NotOlderThan => "not older".into(),
        RuleKind::BadPair => format!("bad: {range}"),
        RuleKind::EndOfLife => format!(
            "supported until {}",
            row.ended.as_deref().unwrap_or_default()
        ),
    }
}

#[derive(Deserialize)]
pub struct RecordForm {
    #[serde(default)]
    title: String,
    #[serde(default)]
    verdict: String,
    #[serde(default)]
    paste: String,
    #[serde(default)]
    token: Option<String>,
}

/// `POST /stacks` (the Environment panel's "record this stack as tested"): writes
/// `stacks/<id>.md` from the paste, through the same guard as postmortems, then shows it.
pub async fn record(
    State(state): State<AppState>,
    headers: axum::http::HeaderMap,
    body: super::extract::Body<PageError>,
) -> Result<Response, PageError> {
    let form: RecordForm = body.form()?;
    super::guard::check(
        &state,
        &headers,
        super::guard::Write::Save {
            form_token: form.token.as_deref(),
        },
    )?;
    let invalid = |message: String| {
        super::error::WebError::Invalid(vec![crate::postmortem::Problem {
            field: "stack".into(),
            message,
        }])
    };
    let title = form.title.trim().to_string();
    if title.is_empty() {
        return Err(invalid("give the stack a title".into()).into());
    }
    let verdict = crate::doc::Verdict::parse(&form.verdict)
        .ok_or_else(|| invalid("the verdict is good, degraded or bad".into()))?;
    let state2 = state.clone();
    let rel = tokio::task::spawn_blocking(move || {
        let state = state2;
        let rel =
            crate::env::record_stack(&state.root, form.paste.as_bytes(), &title, verdict, None)
                .map_err(|e| match e {
                    crate::env::RecordError::Io(e) => super::error::WebError::Internal(e.into()),
                    other => invalid(other.to_string()),
                })?;
        if state.git_commit
            && let Err(e) = crate::postmortem::commit_to_git(
                &state.root,
                &rel,
                &format!("Record stack: {title}"),
                None,
            )
        {
            tracing::warn!(error = %e, file = rel, "saved, but the git commit failed");
        }
        state.reload(Some(std::slice::from_ref(&rel)))?;
        Ok::<String, super::error::WebError>(rel)
    })
    .await
    .map_err(super::error::WebError::from)??;
    let id = rel
        .trim_start_matches("stacks/")
        .trim_end_matches(".md")
        .to_string();
    Ok(axum::response::Redirect::to(&format!("/stacks/{id}")).into_response())
}

pub async fn api_list(
    State(state): State<AppState>,
    Query(params): Query<StackParams>,
) -> Response {
    let snapshot = state.snapshot();
    let list: Vec<serde_json::Value> = ordered(&snapshot.library.stacks)
        .into_iter()
        .filter(|s| params.keeps(s))
        .map(|s| json(s, false))
        .collect();
    Json(serde_json::json!({ "stacks": list, "total": list.len() })).into_response()
}

pub async fn api_one(
    State(state): State<AppState>,
    id: Id<Stack, ApiError>,
) -> Result<Response, ApiError> {
    let snapshot = state.snapshot();
    let stack = snapshot
        .library
        .stack(id.as_str())
        .ok_or_else(|| id.not_found())?;
    let etag = snapshot.library.etag(&stack.path).map(str::to_string);
    let mut value = json(stack, true);
    value["etag"] = serde_json::json!(etag);
    Ok(super::with_etag(
        Json(value).into_response(),
        etag.as_deref(),
    ))
}
