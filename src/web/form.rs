//! The codec between request bodies and postmortems being written: a URL-encoded form (the page's fields,
//! `datetime-local` times with an offset, lists typed as text, rows in parallel fields) and a JSON
//! object (front-matter keys, kept when unknown). The handlers in `write.rs` only call it.

use chrono::{DateTime, FixedOffset, Local};

use super::error::WebError;
use crate::doc::incident::KNOWN_KEYS;
use crate::postmortem::{self, Postmortem, PostmortemAction, TimelineRow};

/// The server's current UTC offset, as the default for times typed without one.
pub fn local_offset() -> FixedOffset {
    *Local::now().offset()
}

/// Splits an RFC 3339 time into the `datetime-local` value and its offset.
pub fn to_local_input(text: &str) -> (String, String) {
    match DateTime::parse_from_rfc3339(text) {
        Ok(t) => (
            t.format("%Y-%m-%dT%H:%M").to_string(),
            t.offset().to_string(),
        ),
        Err(_) => (text.to_string(), String::new()),
    }
}

fn list(text: &str) -> Vec<String> {
    text.split([',', '\n', ';'])
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// What a postmortem form sent: the postmortem, the etag an edit is based on, and the token.
pub struct Submitted {
    pub postmortem: Postmortem,
    pub etag: Option<String>,
    pub token: Option<String>,
}

/// The postmortem a form describes. Field names follow the front matter (DESIGN §6).
pub fn from_form(fields: &[(String, String)]) -> Submitted {
    let get = |name: &str| {
        fields
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or("")
    };
    let all = |name: &str| {
        fields
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
            .collect::<Vec<_>>()
    };
    let offset = get("offset").trim().to_string();
    let time = |name: &str| {
        let value = get(name).trim();
        if value.is_empty() {
            return String::new();
        }
        // datetime-local gives 2026-04-03T14:02; with the form's offset it is RFC 3339.
        if value.len() == 16 && value.as_bytes().get(10) == Some(&b'T') {
            let offset = if offset.is_empty() {
                local_offset().to_string()
            } else {
                offset.clone()
            };
            format!("{value}:00{offset}")
        } else {
            value.to_string()
        }
    };
    let titles = all("action_title");
    let owners = all("action_owner");
    let statuses = all("action_status");
    let dues = all("action_due");
    let action_items = titles
        .iter()
        .enumerate()
        .map(|(i, title)| PostmortemAction {
            title: title.trim().to_string(),
            owner: owners
                .get(i)
                .cloned()
                .unwrap_or_default()
                .trim()
                .to_string(),
            status: statuses.get(i).cloned().unwrap_or_default(),
            due: dues.get(i).cloned().unwrap_or_default().trim().to_string(),
        })
        .filter(|a| !a.title.is_empty() || !a.owner.is_empty() || !a.due.is_empty())
        .collect();
    let times = all("timeline_time");
    let texts = all("timeline_text");
    let timeline = texts
        .iter()
        .enumerate()
        .map(|(i, text)| TimelineRow {
            time: times.get(i).cloned().unwrap_or_default().trim().to_string(),
            text: text.trim().to_string(),
        })
        .filter(|r| !r.text.is_empty() || !r.time.is_empty())
        .collect();
    let pm = Postmortem {
        title: get("title").trim().to_string(),
        status: get("status").to_string(),
        severity: get("severity").to_string(),
        started_at: time("started_at"),
        detected_at: time("detected_at"),
        mitigated_at: time("mitigated_at"),
        resolved_at: time("resolved_at"),
        hosts: list(get("hosts")),
        services: list(get("services")),
        runbooks: all("runbooks")
            .into_iter()
            .filter(|r| !r.is_empty())
            .collect(),
        tags: list(get("tags")),
        authors: list(get("authors")),
        lang: get("lang").trim().to_string(),
        action_items,
        timeline,
        body: get("body").replace("\r\n", "\n"),
        extra: Default::default(),
    };
    let etag = Some(get("etag").to_string()).filter(|e| !e.is_empty());
    let token = Some(get("token").to_string()).filter(|t| !t.is_empty());
    Submitted {
        postmortem: pm,
        etag,
        token,
    }
}

/// A JSON object of front-matter keys plus `body` as a postmortem; keys lore does not know are kept.
pub fn from_json(body: &[u8]) -> Result<Postmortem, WebError> {
    let value: serde_json::Value = serde_json::from_slice(body).map_err(|e| {
        WebError::BadRequest(format!(
            "expected a JSON object of front-matter keys and \"body\": {e}"
        ))
    })?;
    let serde_json::Value::Object(mut object) = value else {
        return Err(WebError::BadRequest("expected a JSON object".into()));
    };
    object.remove("id");
    object.remove("etag");
    let mut extra = serde_yaml_ng::Mapping::new();
    let mut known = serde_json::Map::new();
    for (key, value) in object {
        // The front-matter keys and the two the API adds (rows of the timeline, the body).
        if KNOWN_KEYS.contains(&key.as_str()) || key == "timeline" || key == "body" {
            known.insert(key, value);
        } else if let Ok(yaml) = serde_yaml_ng::to_value(&value) {
            extra.insert(serde_yaml_ng::Value::String(key), yaml);
        }
    }
    let mut pm: Postmortem = serde_json::from_value(serde_json::Value::Object(known))
        .map_err(|e| WebError::BadRequest(format!("a field has the wrong type: {e}")))?;
    pm.extra = extra;
    if pm.body.trim().is_empty() {
        pm.body = postmortem::template_body();
    }
    Ok(pm)
}
