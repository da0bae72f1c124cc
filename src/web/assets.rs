//! Static files compiled into the binary: one executable, no working-directory surprises. URLs
//! carry a content hash, so browsers may cache them for a year.

use std::sync::LazyLock;

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::hash::{fnv1a, fnv1a_extend};

struct Asset {
    name: &'static str,
    body: &'static [u8],
    mime: &'static str,
}

const ASSETS: &[Asset] = &[
    Asset {
        name: "app.css",
        body: include_bytes!("../../static/app.css"),
        mime: "text/css; charset=utf-8",
    },
    Asset {
        name: "app.js",
        body: include_bytes!("../../static/app.js"),
        mime: "text/javascript; charset=utf-8",
    },
    Asset {
        name: "favicon.svg",
        body: include_bytes!("../../static/favicon.svg"),
        mime: "image/svg+xml",
    },
];

/// A short hash of all assets, appended to their URLs.
static VERSION: LazyLock<String> = LazyLock::new(|| {
    // Stable across builds and platforms.
    let hash = ASSETS
        .iter()
        .fold(fnv1a(b""), |hash, asset| fnv1a_extend(hash, asset.body));
    format!("{:08x}", hash as u32)
});

/// `/static/<name>?v=<hash>`.
pub fn url(name: &str) -> String {
    format!("/static/{name}?v={}", *VERSION)
}

pub async fn serve(Path(name): Path<String>) -> Response {
    match ASSETS.iter().find(|a| a.name == name) {
        Some(asset) => (
            [
                (header::CONTENT_TYPE, asset.mime),
                (header::CACHE_CONTROL, "public, max-age=31536000, immutable"),
            ],
            asset.body,
        )
            .into_response(),
        None => (StatusCode::NOT_FOUND, "no such file").into_response(),
    }
}
