//! The web UI and HTTP API (axum + askama). Only this module knows HTTP: it turns requests into
//! calls on the library, the matcher and the search index, and their values into pages and JSON.

mod api;
mod assets;
mod collect;
mod error;
mod extract;
mod form;
mod guard;
mod learn;
mod pages;
mod stacks;
mod state;
mod stats;
mod views;
mod write;

pub use state::{AppState, Snapshot};

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{HeaderValue, header};
use axum::routing::{get, post};
use tower_http::compression::CompressionLayer;
use tower_http::set_header::SetResponseHeaderLayer;

use crate::search::SearchResults;
use crate::signature::Report;
use error::WebError;

/// `?q=&limit=&kind=`, for the search page and `/api/search` alike.
#[derive(serde::Deserialize)]
pub(crate) struct SearchParams {
    #[serde(default)]
    q: String,
    limit: Option<usize>,
    kind: Option<String>,
}

/// Largest request body accepted, on every route (DESIGN §6): a paste, a form, a postmortem.
pub const MAX_PASTE: usize = 32 << 20;

const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'";

/// All routes, without binding anything (tests call it with `oneshot`).
pub fn router(state: AppState) -> Router {
    let api = Router::new()
        .route("/match", post(api::match_log))
        .route("/search", get(api::search))
        .route("/runbooks", get(api::runbooks))
        .route("/runbooks/{id}", get(api::runbook))
        .route("/runbooks/{id}/signatures", post(learn::api_learn))
        .route("/stacks", get(stacks::api_list))
        .route("/env", post(stacks::api_env))
        .route("/stacks/{id}", get(stacks::api_one))
        .route("/incidents", get(api::incidents).post(write::api_create))
        .route("/incidents/{id}", get(api::incident).put(write::api_update))
        .route("/preview", post(write::preview))
        .route("/stats", get(stats::api))
        .fallback(api::not_found);
    Router::new()
        .route("/", get(pages::home))
        .route("/search", get(pages::search))
        .route("/match", post(pages::match_paste))
        .route("/runbooks", get(pages::runbooks))
        .route("/runbooks/draft", get(pages::draft))
        .route("/runbooks/{id}", get(pages::runbook))
        .route("/incidents", get(pages::incidents).post(write::create))
        .route(
            "/incidents/new",
            get(write::new_form).post(write::new_from_paste),
        )
        .route("/incidents/{id}", get(pages::incident).post(write::update))
        .route("/incidents/{id}/edit", get(write::edit_form))
        .route("/stats", get(stats::page))
        .route("/tags/{tag}", get(pages::tag))
        .route("/stacks", get(stacks::page_list).post(stacks::record))
        .route("/stacks/{id}", get(stacks::page))
        .route("/compat/{family}", get(stacks::compat_page))
        .route("/healthz", get(api::healthz))
        .route("/collect.sh", get(collect::script))
        .route("/static/{name}", get(assets::serve))
        .nest("/api", api)
        .fallback(pages::not_found)
        .with_state(state)
        // Every body is read through `extract::Body`, which answers 413 beyond this.
        .layer(DefaultBodyLimit::max(MAX_PASTE))
        .layer(CompressionLayer::new())
        .layer(SetResponseHeaderLayer::if_not_present(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CSP),
        ))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::REFERRER_POLICY,
            HeaderValue::from_static("no-referrer"),
        ))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::X_FRAME_OPTIONS,
            HeaderValue::from_static("DENY"),
        ))
}

/// Matching is CPU work: it runs off the async threads. Returns the report and the paste back.
/// `response` with an `ETag` header, when there is an etag.
fn with_etag(
    mut response: axum::response::Response,
    etag: Option<&str>,
) -> axum::response::Response {
    if let Some(value) = etag.and_then(|e| axum::http::HeaderValue::from_str(e).ok()) {
        response
            .headers_mut()
            .insert(axum::http::header::ETAG, value);
    }
    response
}

/// Whether a match also reads the paste's environment (the prefilled postmortem form does not
/// show it).
#[derive(Clone, Copy, PartialEq)]
enum Environment {
    Read,
    Skip,
}

async fn run_match(
    snapshot: &Arc<Snapshot>,
    text: Vec<u8>,
    top: Option<usize>,
    environment: Environment,
) -> Result<(Report, Option<crate::env::Assessment>, Vec<u8>), WebError> {
    let snapshot = snapshot.clone();
    let result = tokio::task::spawn_blocking(move || {
        let report = snapshot.matcher.match_bytes(&text, top);
        let environment = (environment == Environment::Read)
            .then(|| {
                crate::env::of_paste(
                    &text,
                    &snapshot.library.stacks,
                    &snapshot.library.compat,
                    chrono::Local::now().date_naive(),
                )
            })
            .flatten();
        (report, environment, text)
    })
    .await?;
    Ok(result)
}

async fn run_search(
    state: &AppState,
    query: String,
    limit: usize,
    kind: Option<String>,
) -> Result<SearchResults, WebError> {
    let index = state.search.clone();
    let results = tokio::task::spawn_blocking(move || {
        index.search(&query, limit.clamp(1, 100), kind.as_deref())
    })
    .await??;
    Ok(results)
}

/// Serves until Ctrl-C or SIGTERM; `ready` gets the bound address (the URL is printed from it).
pub async fn serve(
    state: AppState,
    addr: SocketAddr,
    ready: impl FnOnce(SocketAddr),
) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {addr}: {e}"))?;
    ready(listener.local_addr()?);
    axum::serve(listener, router(state))
        .with_graceful_shutdown(shutdown())
        .await?;
    Ok(())
}

async fn shutdown() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down");
}
