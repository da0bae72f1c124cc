//! One error type for handlers, one place that turns it into a response. Internal detail is
//! logged, never sent: the client gets a status and a sentence it can act on.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

#[derive(Debug)]
pub enum WebError {
    NotFound(String),
    BadRequest(String),
    /// Writes refused: read-only server, or a cross-site request.
    Forbidden(String),
    /// A write without the right `LORE_TOKEN`.
    Unauthorized(String),
    /// Validation problems; nothing was written.
    Invalid(Vec<crate::postmortem::Problem>),
    /// The document changed since the version the edit was based on.
    Conflict {
        etag: String,
        /// The current text of the document, for a form to show next to the user's.
        current: String,
    },
    /// A PUT without `If-Match`.
    PreconditionRequired,
    TooLarge,
    /// A paste that is not text (a compressed file, a binary): the sentence says what it is and
    /// how to get its text.
    NotText(String),
    Internal(anyhow::Error),
}

impl WebError {
    fn status(&self) -> StatusCode {
        match self {
            WebError::NotFound(_) => StatusCode::NOT_FOUND,
            WebError::BadRequest(_) => StatusCode::BAD_REQUEST,
            WebError::Forbidden(_) => StatusCode::FORBIDDEN,
            WebError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            WebError::Invalid(_) => StatusCode::UNPROCESSABLE_ENTITY,
            WebError::Conflict { .. } => StatusCode::PRECONDITION_FAILED,
            WebError::PreconditionRequired => StatusCode::PRECONDITION_REQUIRED,
            WebError::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            WebError::NotText(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            WebError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// What the client is told.
    pub fn message(&self) -> String {
        match self {
            WebError::NotFound(what) => format!("{what} was not found"),
            WebError::BadRequest(why) | WebError::NotText(why) => why.clone(),
            WebError::Forbidden(why) | WebError::Unauthorized(why) => why.clone(),
            WebError::Invalid(problems) => format!(
                "nothing was saved: {}",
                problems.iter().map(|p| format!("{}: {}", p.field, p.message)).collect::<Vec<_>>().join("; ")
            ),
            WebError::Conflict { .. } => {
                "the document was changed by someone else since you loaded it; nothing was saved — merge your text with the current version".to_string()
            }
            WebError::PreconditionRequired => {
                "send If-Match with the etag of the version you edited (GET it first)".to_string()
            }
            WebError::TooLarge => format!(
                "the request body is larger than {} MiB, the most lore accepts; for a log, send its end instead, e.g. `dmesg | tail -c 30000000`",
                super::MAX_PASTE >> 20
            ),
            WebError::Internal(_) => {
                "something went wrong on the server; it has been logged".to_string()
            }
        }
    }

    fn log(&self) {
        if let WebError::Internal(e) = self {
            tracing::error!(error = format!("{e:#}"), "request failed");
        }
    }

    /// As JSON, for `/api`.
    pub fn json(self) -> Response {
        self.log();
        let mut body = serde_json::json!({ "error": self.message() });
        match &self {
            WebError::Invalid(problems) => body["problems"] = serde_json::json!(problems),
            WebError::Conflict { etag, current } => {
                body["etag"] = serde_json::json!(etag);
                body["current"] = serde_json::json!(current);
            }
            _ => {}
        }
        self.challenge((self.status(), axum::Json(body)).into_response())
    }

    /// As an HTML page.
    pub fn page(self) -> Response {
        self.log();
        let status = self.status();
        let page = super::views::ErrorPage::new(status.as_u16(), self.message());
        self.challenge((status, super::views::render(&page)).into_response())
    }

    /// A 401 names the scheme that would succeed (RFC 9110 §11.6.1).
    fn challenge(&self, mut response: Response) -> Response {
        if let WebError::Unauthorized(_) = self {
            response.headers_mut().insert(
                axum::http::header::WWW_AUTHENTICATE,
                axum::http::HeaderValue::from_static("Bearer"),
            );
        }
        response
    }
}

// Only the failures a handler can meet convert with `?`, each into what it means for the client;
// anything else must be mapped where it happens, never turned into a 500 by accident.

/// A blocking task (matching, search, a save) panicked or was cancelled: a bug, logged.
impl From<tokio::task::JoinError> for WebError {
    fn from(e: tokio::task::JoinError) -> WebError {
        WebError::Internal(e.into())
    }
}

/// The library root could not be read while reloading after a save.
impl From<crate::library::LibraryError> for WebError {
    fn from(e: crate::library::LibraryError) -> WebError {
        WebError::Internal(e.into())
    }
}

/// The search index failed (busy, or broken): not the user's doing.
impl From<crate::search::SearchError> for WebError {
    fn from(e: crate::search::SearchError) -> WebError {
        WebError::Internal(e.into())
    }
}

/// A save that did not happen, as the client should hear it: problems are 422, a stale etag 412.
/// `NotFound` carries no id; a handler that knows it maps that case itself.
impl From<crate::postmortem::SaveError> for WebError {
    fn from(e: crate::postmortem::SaveError) -> WebError {
        use crate::postmortem::SaveError;
        match e {
            SaveError::Invalid(problems) => WebError::Invalid(problems),
            SaveError::Conflict { current, etag } => WebError::Conflict { etag, current },
            SaveError::NotFound => WebError::NotFound("the incident".into()),
            SaveError::Io(e) => WebError::Internal(e.into()),
        }
    }
}

/// An HTML handler's error.
pub struct PageError(pub WebError);

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        self.0.page()
    }
}

impl<E: Into<WebError>> From<E> for PageError {
    fn from(e: E) -> PageError {
        PageError(e.into())
    }
}

/// An API handler's error.
pub struct ApiError(pub WebError);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        self.0.json()
    }
}

impl<E: Into<WebError>> From<E> for ApiError {
    fn from(e: E) -> ApiError {
        ApiError(e.into())
    }
}
