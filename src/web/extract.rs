//! The edge every request crosses before a handler sees it: one extractor for a body (at most
//! [`MAX_PASTE`] bytes, else 413 naming the limit) and one for a document id in the path (an id
//! that cannot name a file is 404). Handlers never read a body or an id any other way, so every
//! route refuses the same input with the same answer.

use std::marker::PhantomData;

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::request::Parts;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use serde::de::DeserializeOwned;

use super::MAX_PASTE;
use super::error::WebError;
use crate::doc::{Incident, Runbook, is_valid_id};

/// A request body of at most [`MAX_PASTE`] bytes (the router's body limit), and its content
/// type. `E` is how a refusal is shown: `PageError` (HTML) or `ApiError` (JSON).
pub struct Body<E> {
    pub bytes: Bytes,
    content_type: String,
    shown_as: PhantomData<E>,
}

impl<E> Body<E> {
    pub fn content_type(&self) -> &str {
        &self.content_type
    }

    /// The body as a paste: refused (415, saying what it is and how to get its text) when it is
    /// not text at all, a compressed file or a binary sent by mistake.
    pub fn paste(&self) -> Result<&[u8], WebError> {
        match crate::signature::normalize::refusal(&self.bytes, "the body") {
            Some(why) => Err(WebError::NotText(why)),
            None => Ok(&self.bytes),
        }
    }

    /// The body as a URL-encoded form; any other content type is refused (400).
    pub fn form<T: DeserializeOwned>(&self) -> Result<T, WebError> {
        let essence = self.content_type.split(';').next().unwrap_or("").trim();
        if !essence.eq_ignore_ascii_case("application/x-www-form-urlencoded") {
            return Err(WebError::BadRequest("the form could not be read".into()));
        }
        serde_urlencoded::from_bytes(&self.bytes)
            .map_err(|_| WebError::BadRequest("the form could not be read".into()))
    }
}

impl<S, E> FromRequest<S> for Body<E>
where
    S: Send + Sync,
    E: From<WebError> + IntoResponse,
{
    type Rejection = E;

    async fn from_request(request: Request, state: &S) -> Result<Body<E>, E> {
        let content_type = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let bytes = Bytes::from_request(request, state)
            .await
            .map_err(|e| match e.status() {
                StatusCode::PAYLOAD_TOO_LARGE => WebError::TooLarge,
                _ => WebError::BadRequest("the request body could not be read".into()),
            })?;
        // The router's limit already holds; this keeps the promise if a route is ever mounted
        // without it.
        if bytes.len() > MAX_PASTE {
            return Err(WebError::TooLarge.into());
        }
        Ok(Body {
            bytes,
            content_type,
            shown_as: PhantomData,
        })
    }
}

/// The kinds of document an id in a path can name; the word is what a 404 says.
pub trait Kind {
    const NOUN: &'static str;
}

impl Kind for Runbook {
    const NOUN: &'static str = "runbook";
}

impl Kind for Incident {
    const NOUN: &'static str = "incident";
}

impl Kind for crate::doc::Stack {
    const NOUN: &'static str = "stack";
}

/// A document id from the path (`/runbooks/{id}`, `/api/incidents/{id}`...). Ids are file names
/// and URL segments: anything else (`..`, `%2F`, upper case) is simply not there, 404.
pub struct Id<K, E> {
    id: String,
    kind: PhantomData<(K, E)>,
}

impl<K: Kind, E> Id<K, E> {
    pub fn as_str(&self) -> &str {
        &self.id
    }

    /// The 404 for this id when no document has it.
    pub fn not_found(&self) -> WebError {
        not_found::<K>(&self.id)
    }
}

fn not_found<K: Kind>(id: &str) -> WebError {
    WebError::NotFound(format!("{} `{id}`", K::NOUN))
}

impl<S, K, E> FromRequestParts<S> for Id<K, E>
where
    S: Send + Sync,
    K: Kind,
    E: From<WebError> + IntoResponse,
{
    type Rejection = E;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Id<K, E>, E> {
        let Path(id) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| not_found::<K>(""))?;
        if !is_valid_id(&id) {
            return Err(not_found::<K>(&id).into());
        }
        Ok(Id {
            id,
            kind: PhantomData,
        })
    }
}
