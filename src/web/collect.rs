//! `GET /collect.sh`: the doctor's collector table as a POSIX `sh` script, for nodes without
//! lore (`curl -fsS http://host:7070/collect.sh | sh | curl --data-binary @- http://host:7070/api/match`),
//! and `?view=1`: the same script on a page, with its SHA-256, to read before running it.

use axum::extract::{Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::state::AppState;
use super::views::{CollectPage, Layout, render};

#[derive(Deserialize)]
pub struct Params {
    #[serde(default)]
    view: Option<String>,
}

pub async fn script(State(state): State<AppState>, Query(params): Query<Params>) -> Response {
    let script = crate::doctor::table::script(env!("CARGO_PKG_VERSION"));
    let sha256: String = Sha256::digest(script.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    if params.view.as_deref().is_some_and(|v| v != "0") {
        let mut layout = Layout::new("collect.sh", "");
        layout.read_only = state.read_only;
        return render(&CollectPage {
            layout,
            sha256,
            lines: script.lines().count(),
            steps: crate::doctor::table::COLLECTORS
                .iter()
                .map(|c| {
                    (
                        c.id.to_string(),
                        c.shown.to_string(),
                        c.timeout,
                        [
                            c.guarded.then_some("not after a GPU fell off the bus"),
                            c.root.then_some("root only"),
                            c.python.then_some("with PYTHON only"),
                        ]
                        .into_iter()
                        .flatten()
                        .collect::<Vec<_>>()
                        .join("; "),
                    )
                })
                .collect(),
            script,
        });
    }
    (
        [
            (
                header::CONTENT_TYPE,
                "text/x-shellscript; charset=utf-8".to_string(),
            ),
            (header::CACHE_CONTROL, "no-cache".to_string()),
            (header::HeaderName::from_static("x-content-sha256"), sha256),
        ],
        script,
    )
        .into_response()
}
