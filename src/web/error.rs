//! One error type for handlers, one place that turns it into a response. Internal detail is
//! logged, never sent: the client gets a status and a sentence it can act on.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

#[derive(Debug)]
pub enum WebError {
    NotFound(String),
    BadRequest(String),
    TooLarge,
    Internal(anyhow::Error),
}

impl WebError {
    fn status(&self) -> StatusCode {
        match self {
            WebError::NotFound(_) => StatusCode::NOT_FOUND,
            WebError::BadRequest(_) => StatusCode::BAD_REQUEST,
            WebError::TooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            WebError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// What the client is told.
    pub fn message(&self) -> String {
        match self {
            WebError::NotFound(what) => format!("{what} was not found"),
            WebError::BadRequest(why) => why.clone(),
            WebError::TooLarge => format!(
                "the paste is larger than {} MiB; send the end of the log instead, e.g. `dmesg | tail -c 30000000`",
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
        let body = serde_json::json!({ "error": self.message() });
        (self.status(), axum::Json(body)).into_response()
    }

    /// As an HTML page.
    pub fn page(self) -> Response {
        self.log();
        let status = self.status();
        let page = super::views::ErrorPage::new(status.as_u16(), self.message());
        (status, super::views::render(&page)).into_response()
    }
}

impl<E: Into<anyhow::Error>> From<E> for WebError {
    fn from(e: E) -> WebError {
        WebError::Internal(e.into())
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
