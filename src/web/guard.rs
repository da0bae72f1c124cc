//! Who may write. Every route that writes, or shows a form that will write, calls [`check`] and
//! says what it is about to do; that decides which of the checks of docs/http.md it must pass, in
//! their order: the server is writable, the request comes from this site, and it carries the
//! token when `LORE_TOKEN` is set. No route runs a check of its own or ignores a refusal.

use axum::http::{HeaderMap, header};

use super::error::WebError;
use super::state::AppState;

/// What a request is about to do.
#[derive(Debug, Clone, Copy)]
pub enum Write<'a> {
    /// Saving a postmortem or a signature: all three checks. The token comes from `Authorization: Bearer`, or
    /// from the form's `token` field when there is one.
    Save { form_token: Option<&'a str> },
    /// Showing the empty or the edit form (a `GET`): the server must be writable.
    ShowForm,
    /// Showing a form prefilled from a posted paste: writable and same site. The token is not
    /// needed yet; saving the form asks for it.
    Prefill,
    /// Rendering a preview writes nothing: same site only, so previews work on a read-only
    /// server and without the token.
    Preview,
}

/// Refuses the request (403) unless it may do `write`.
pub fn check(state: &AppState, headers: &HeaderMap, write: Write<'_>) -> Result<(), WebError> {
    let (writable, same_site) = match write {
        Write::Save { .. } | Write::Prefill => (true, true),
        Write::ShowForm => (true, false),
        Write::Preview => (false, true),
    };
    if writable && state.read_only {
        return Err(WebError::Forbidden(
            "this lore is read-only: writes are refused".into(),
        ));
    }
    if same_site {
        check_same_site(headers)?;
    }
    if let Write::Save { form_token } = write {
        check_token(state, headers, form_token)?;
    }
    Ok(())
}

/// An `Origin` (or failing that a `Referer`) naming another host than `Host` is CSRF, and so is
/// `Sec-Fetch-Site: cross-site`. `Origin: null` and requests with neither header (`curl`) pass.
fn check_same_site(headers: &HeaderMap) -> Result<(), WebError> {
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
    Ok(())
}

fn check_token(
    state: &AppState,
    headers: &HeaderMap,
    form_token: Option<&str>,
) -> Result<(), WebError> {
    let Some(token) = &state.token else {
        return Ok(());
    };
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    let given = bearer.or(form_token).unwrap_or("");
    if !constant_time_eq(given.as_bytes(), token.as_bytes()) {
        return Err(WebError::Unauthorized(
            "a valid LORE_TOKEN is needed to write (Authorization: Bearer ..., or the token field)"
                .into(),
        ));
    }
    Ok(())
}

fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}
