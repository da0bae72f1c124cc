//! View structs for the templates: small, borrowed-free, already formatted. Templates never see
//! domain or tantivy types.

use askama::Template;
use axum::response::{Html, IntoResponse, Response};

use super::assets;

/// What every page's frame needs.
pub struct Layout {
    pub title: String,
    pub css: String,
    pub js: String,
    pub favicon: String,
    pub nav: &'static str,
    pub query: String,
    pub read_only: bool,
}

impl Layout {
    pub fn new(title: impl Into<String>, nav: &'static str) -> Layout {
        Layout {
            title: title.into(),
            css: assets::url("app.css"),
            js: assets::url("app.js"),
            favicon: assets::url("favicon.svg"),
            nav,
            query: String::new(),
            read_only: false,
        }
    }
}

/// Renders a page; a template error (a bug) becomes a plain 500.
pub fn render<T: Template>(page: &T) -> Response {
    match page.render() {
        Ok(html) => Html(html).into_response(),
        Err(e) => {
            tracing::error!(error = %e, "template failed");
            (
                axum::http::StatusCode::INTERNAL_SERVER_ERROR,
                "page could not be rendered",
            )
                .into_response()
        }
    }
}

#[derive(Template)]
#[template(path = "error.html")]
pub struct ErrorPage {
    pub layout: Layout,
    pub status: u16,
    pub message: String,
}

impl ErrorPage {
    pub fn new(status: u16, message: String) -> ErrorPage {
        ErrorPage {
            layout: Layout::new(format!("{status}"), ""),
            status,
            message,
        }
    }
}

pub struct TagCount {
    pub tag: String,
    pub count: usize,
    pub selected: bool,
}

pub struct RunbookRow {
    pub id: String,
    pub title: String,
    pub summary: String,
    pub severity: String,
    pub tags: Vec<String>,
    pub signatures: usize,
    pub incidents: usize,
}

pub struct IncidentRow {
    pub id: String,
    pub title: String,
    pub date: String,
    pub severity: String,
    pub status: String,
    pub hosts: String,
    pub resolve: String,
}

#[derive(Template)]
#[template(path = "home.html")]
pub struct HomePage {
    pub layout: Layout,
    pub runbooks: usize,
    pub incidents: usize,
    pub signatures: usize,
    pub recent: Vec<IncidentRow>,
    pub tags: Vec<TagCount>,
    pub example: &'static str,
}

pub struct SearchRow {
    pub kind: String,
    pub title: String,
    pub url: String,
    pub snippet_html: String,
    pub section: String,
    pub severity: String,
}

#[derive(Template)]
#[template(path = "search.html")]
pub struct SearchPage {
    pub layout: Layout,
    pub query: String,
    pub rows: Vec<SearchRow>,
    pub total: usize,
    pub elapsed: String,
}

pub struct ContextLine {
    pub number: u64,
    pub text: String,
    pub hit: bool,
}

pub struct HitView {
    /// First line of the match, and its last (equal for one line).
    pub line: u64,
    pub last_line: u64,
    pub signature: String,
    pub captures: Vec<(String, String)>,
    pub explain: String,
}

/// One runbook the similar tier suggests.
pub struct SimilarView {
    pub id: String,
    pub title: String,
    pub summary: String,
    pub severity: String,
    pub score_percent: u32,
    /// (line number, text) of the lines that led to it.
    pub lines: Vec<(u64, String)>,
    pub fix_html: String,
}

pub struct PastIncident {
    pub id: String,
    pub title: String,
    pub date: String,
    pub hosts: String,
}

pub struct CauseView {
    pub rank: usize,
    pub id: String,
    pub title: String,
    pub summary: String,
    pub severity: String,
    pub score_percent: u32,
    pub action: String,
    pub hits: Vec<HitView>,
    /// The lines of the hits shown, with context, once: every hit line marked; a line with
    /// number 0 stands for a gap.
    pub context: Vec<ContextLine>,
    /// Other matching lines, briefly: (line number, text).
    pub more: Vec<(u64, String)>,
    pub hidden: u64,
    pub hit_count: u64,
    pub fix_html: String,
    pub seen: String,
    pub incidents: Vec<PastIncident>,
}

pub struct UnexplainedView {
    pub line: u64,
    pub text: String,
    pub count: u64,
    pub draft_url: String,
}

#[derive(Template)]
#[template(path = "match.html")]
pub struct MatchPage {
    pub layout: Layout,
    pub causes: Vec<CauseView>,
    pub similar: Vec<SimilarView>,
    pub unexplained: Vec<UnexplainedView>,
    pub unexplained_total: u64,
    pub stats: String,
    pub paste: String,
    /// The paste for "start a postmortem" (up to 2 MiB).
    pub paste_full: String,
    pub read_only: bool,
}

#[derive(Template)]
#[template(path = "runbooks.html")]
pub struct RunbooksPage {
    pub layout: Layout,
    pub rows: Vec<RunbookRow>,
    pub tags: Vec<TagCount>,
    pub severities: Vec<TagCount>,
    pub filtered: bool,
}

pub struct SignatureView {
    pub id: String,
    pub pattern: String,
    pub explain: String,
    pub lines: usize,
    pub weight: String,
    pub examples: Vec<String>,
    pub counterexamples: Vec<String>,
}

pub struct Link {
    pub href: String,
    pub text: String,
}

#[derive(Template)]
#[template(path = "runbook.html")]
pub struct RunbookPage {
    pub layout: Layout,
    pub id: String,
    pub title: String,
    pub summary: String,
    pub severity: String,
    pub action: String,
    pub tags: Vec<String>,
    pub aliases: Vec<String>,
    pub reviewed: String,
    pub path: String,
    pub body_html: String,
    pub toc: Vec<Link>,
    pub signatures: Vec<SignatureView>,
    pub related: Vec<Link>,
    pub references: Vec<String>,
    pub incidents: Vec<PastIncident>,
}

#[derive(Template)]
#[template(path = "incidents.html")]
pub struct IncidentsPage {
    pub layout: Layout,
    pub rows: Vec<IncidentRow>,
    pub tags: Vec<TagCount>,
    pub filtered: bool,
}

pub struct ActionItemView {
    pub title: String,
    pub owner: String,
    pub status: String,
    pub due: String,
    pub overdue: bool,
}

#[derive(Template)]
#[template(path = "incident.html")]
pub struct IncidentPage {
    pub layout: Layout,
    pub id: String,
    pub title: String,
    pub severity: String,
    pub status: String,
    pub lang: String,
    /// (label, time, duration since start)
    pub times: Vec<(String, String, String)>,
    pub hosts: Vec<String>,
    pub services: Vec<String>,
    pub runbooks: Vec<Link>,
    pub tags: Vec<String>,
    pub authors: String,
    pub action_items: Vec<ActionItemView>,
    pub body_html: String,
    pub toc: Vec<Link>,
    pub path: String,
}

#[derive(Template)]
#[template(path = "tag.html")]
pub struct TagPage {
    pub layout: Layout,
    pub tag: String,
    pub runbooks: Vec<RunbookRow>,
    pub incidents: Vec<IncidentRow>,
}

#[derive(Template)]
#[template(path = "draft.html")]
pub struct DraftPage {
    pub layout: Layout,
    pub id: String,
    pub line: String,
    pub text: String,
}

#[derive(Template)]
#[template(path = "incident_form.html")]
pub struct IncidentForm {
    pub layout: Layout,
    /// Where the form posts.
    pub action: String,
    /// Empty for a new postmortem.
    pub id: String,
    pub etag: String,
    pub title: String,
    pub statuses: Vec<(String, bool)>,
    pub severities: Vec<(String, bool)>,
    pub started_at: String,
    pub detected_at: String,
    pub mitigated_at: String,
    pub resolved_at: String,
    pub offset: String,
    pub hosts: String,
    pub services: String,
    pub tags: String,
    pub authors: String,
    pub lang: String,
    /// (id, title, selected)
    pub runbooks: Vec<(String, String, bool)>,
    /// (title, owner, status, due)
    pub action_items: Vec<(String, String, String, String)>,
    /// (time, text)
    pub timeline: Vec<(String, String)>,
    pub body: String,
    pub preview_html: String,
    pub problems: Vec<String>,
    /// The current file, when an edit was based on an older version.
    pub conflict: Option<String>,
    pub token_needed: bool,
}

#[derive(Template)]
#[template(path = "stats.html")]
pub struct StatsPage {
    pub layout: Layout,
    pub incidents: usize,
    pub by_cause_svg: String,
    pub by_severity_svg: String,
    /// (measure, n, median, p90)
    pub durations: Vec<(String, usize, String, String)>,
    /// (incident id, incident title, item, owner, due, status, overdue)
    pub actions: Vec<(String, String, String, String, String, String, bool)>,
    /// Incidents no runbook claims: (id, title, tags)
    pub unclaimed: Vec<(String, String, String)>,
    /// Runbooks no incident hit: (id, title)
    pub never_hit: Vec<(String, String)>,
    /// Runbooks not reviewed in a year: (id, title, reviewed)
    pub stale: Vec<(String, String, String)>,
}
