//! View structs for the templates: small, borrowed-free, already formatted. Templates never see
//! domain or tantivy types. The builders that turn domain values (a report, a runbook, an
//! incident) into these views are here too, below the structs; handlers only pick and render.

use askama::Template;
use axum::response::{Html, IntoResponse, Response};

use super::assets;
use super::state::Snapshot;
use crate::doc::markdown::{plain_text, section_markdown, to_html};
use crate::doc::{Incident, IncidentSeverity, Runbook};
use crate::format::{self, day, duration, human_bytes, minute, url_component};
use crate::signature::normalize;
use crate::signature::{IncidentRef, Report};

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
    /// `(id, title)` of every runbook, for the picker of "add the line to a runbook".
    pub runbooks: Vec<(String, String)>,
    /// What the paste says about its environment, when it shows at least two versions.
    pub environment: Option<EnvironmentView>,
    /// Writes need `LORE_TOKEN`: the record form asks for it.
    pub token_needed: bool,
    /// A `lore doctor` bundle's checks and skipped steps.
    pub doctor: Option<DoctorView>,
}

/// A check on the page: `(level, id, message, evidence (line, text), runbook or "")`.
pub type CheckRow = (String, String, String, Vec<(u64, String)>, String);

pub struct DoctorView {
    /// Failed first.
    pub checks: Vec<CheckRow>,
    /// `(id, why)` of every step that did not run to its end.
    pub skipped: Vec<(String, String)>,
    pub steps: usize,
}

impl DoctorView {
    pub fn of(doctor: &crate::doctor::BundleChecks) -> DoctorView {
        DoctorView {
            checks: doctor
                .checks
                .iter()
                .map(|c| {
                    (
                        c.level.as_str().to_string(),
                        c.id.to_string(),
                        c.message.clone(),
                        c.evidence
                            .iter()
                            .map(|e| (e.line, e.text.clone()))
                            .collect(),
                        c.runbook.unwrap_or_default().to_string(),
                    )
                })
                .collect(),
            skipped: doctor
                .collected
                .iter()
                .filter(|s| !s.ran())
                .map(|s| (s.id.clone(), s.why_not()))
                .collect(),
            steps: doctor.collected.len(),
        }
    }
}

pub struct EnvironmentView {
    pub verdict: String,
    /// `(field, value, line, source)`.
    pub fields: Vec<(String, String, u64, String)>,
    /// `(field, "a (line n, source) vs b (...)")`.
    pub conflicts: Vec<(String, String)>,
    /// `(level, message, source)`, the worst first.
    pub findings: Vec<(String, String, String)>,
    /// `(id, title, verdict, match, differences as "field: here vs there")`.
    pub stacks: Vec<(String, String, String, String, Vec<String>)>,
}

/// The Environment panel of a match.
pub(super) fn environment_view(a: &crate::env::Assessment) -> EnvironmentView {
    let level = |l: crate::env::Level| {
        serde_json::to_value(l)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    };
    let mut findings: Vec<&crate::env::Finding> = a.findings.iter().collect();
    findings.sort_by_key(|f| std::cmp::Reverse(f.level));
    EnvironmentView {
        verdict: level(a.verdict),
        fields: a
            .fingerprint
            .iter()
            .map(|(k, f)| (k.clone(), f.value.clone(), f.line, f.source.to_string()))
            .collect(),
        conflicts: a
            .conflicts
            .iter()
            .map(|c| {
                let values: Vec<String> = c
                    .values
                    .iter()
                    .map(|v| format!("{} (line {}, {})", v.value, v.line, v.source))
                    .collect();
                (c.field.clone(), values.join(" vs "))
            })
            .collect(),
        findings: findings
            .into_iter()
            .map(|f| (level(f.level), f.message.clone(), f.source.clone()))
            .collect(),
        stacks: a
            .stacks
            .iter()
            .map(|s| {
                (
                    s.id.clone(),
                    s.title.clone(),
                    s.verdict.as_str().to_string(),
                    s.kind.to_string(),
                    std::iter::once(s.summary())
                        .chain(s.differences.iter().map(|d| {
                            if d.paste.is_empty() {
                                format!("{}: not in the paste, {} there", d.field, d.stack)
                            } else {
                                format!("{}: {} here, {} there", d.field, d.paste, d.stack)
                            }
                        }))
                        .collect(),
                )
            })
            .collect(),
    }
}

#[derive(Template)]
#[template(path = "stacks.html")]
pub struct StacksPage {
    pub layout: Layout,
    pub rows: Vec<StackRow>,
    /// `(field, label)` of each column: the fields any stack has.
    pub columns: Vec<(String, String)>,
    /// `(field, label, values)` to narrow the list by.
    pub filters: Vec<(String, String, Vec<TagCount>)>,
    pub filtered: bool,
    pub total: usize,
    /// `(id, title)` of each compatibility family.
    pub families: Vec<(String, String)>,
}

pub struct StackRow {
    pub id: String,
    pub title: String,
    pub verdict: String,
    pub tested_at: String,
    /// One per column; empty when the stack does not name that field.
    pub cells: Vec<String>,
}

#[derive(Template)]
#[template(path = "collect.html")]
pub struct CollectPage {
    pub layout: Layout,
    pub sha256: String,
    pub lines: usize,
    /// `(id, command, timeout in seconds, conditions)`.
    pub steps: Vec<(String, String, u32, String)>,
    pub script: String,
}

#[derive(Template)]
#[template(path = "compat.html")]
pub struct CompatPage {
    pub layout: Layout,
    pub id: String,
    pub title: String,
    pub rules: Vec<CompatRuleView>,
    pub body_html: String,
    pub path: String,
}

pub struct CompatRuleView {
    pub id: String,
    /// Which fields pick the row and which are compared.
    pub reads: String,
    /// `(key, requirement, authority, reviewed_at, source, note)`.
    pub rows: Vec<(String, String, String, String, String, String)>,
    /// `(when, level, message, source)` of each exception.
    pub exceptions: Vec<(String, String, String, String)>,
}

#[derive(Template)]
#[template(path = "stack.html")]
pub struct StackPage {
    pub layout: Layout,
    pub id: String,
    pub title: String,
    pub verdict: String,
    pub tested_at: String,
    pub tested_by: String,
    pub workload: String,
    pub scope: String,
    /// `(href, label)`: an incident's page and title, or a link.
    pub evidence: Vec<(String, String)>,
    /// `(field, label, value)`.
    pub tested: Vec<(String, String, String)>,
    pub extends_to: Vec<(String, String, String)>,
    pub body_html: String,
    pub path: String,
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
    /// The signature's `when:`, or empty.
    pub when: String,
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

// Builders: domain values to the views above.

/// Lines around each hit, the Fix of each runbook, past incidents, unexplained lines.
pub(super) fn match_page(snapshot: &Snapshot, report: &Report, paste: &[u8]) -> MatchPage {
    let lines = LineIndex::new(paste);
    let causes = report
        .causes
        .iter()
        .enumerate()
        .map(|(n, cause)| {
            let runbook = snapshot.library.runbook(&cause.runbook);
            let fix_html = runbook
                .and_then(|r| section_markdown(&r.body, "fix"))
                .map(to_html)
                .unwrap_or_default();
            // The first hit of each signature, its lines shown once in one block with every
            // hit marked; the rest as a list.
            let mut shown_sigs: Vec<&str> = Vec::new();
            let mut hits = Vec::new();
            let mut more = Vec::new();
            for hit in &cause.hits {
                if hits.len() < 6 && !shown_sigs.contains(&hit.signature.as_str()) {
                    shown_sigs.push(&hit.signature);
                    hits.push(HitView {
                        line: hit.line,
                        last_line: hit.last_line,
                        signature: hit.signature.clone(),
                        captures: hit
                            .captures
                            .iter()
                            .map(|(k, v)| (k.clone(), v.clone()))
                            .collect(),
                        explain: hit.explain.clone().unwrap_or_default(),
                    });
                } else if more.len() < 50 {
                    more.push((hit.line, first_line(&hit.text)));
                }
            }
            let mut context: Vec<ContextLine> = Vec::new();
            let mut spans: Vec<(u64, u64)> = hits.iter().map(|h| (h.line, h.last_line)).collect();
            spans.sort_unstable();
            for (first, last) in spans {
                for line in lines.context(first, last, 2) {
                    match context.iter_mut().find(|c| c.number == line.number) {
                        Some(existing) => existing.hit |= line.hit,
                        None => context.push(line),
                    }
                }
            }
            context.sort_by_key(|c| c.number);
            // Every hit inside the block is marked, listed above it or not.
            for line in &mut context {
                line.hit |= cause
                    .hits
                    .iter()
                    .any(|h| (h.line..=h.last_line).contains(&line.number));
            }
            let mut with_gaps: Vec<ContextLine> = Vec::with_capacity(context.len());
            for line in context {
                if with_gaps.last().is_some_and(|p| p.number + 1 < line.number) {
                    with_gaps.push(ContextLine {
                        number: 0,
                        text: "…".into(),
                        hit: false,
                    });
                }
                with_gaps.push(line);
            }
            let listed = (hits.len() + more.len()) as u64;
            CauseView {
                rank: n + 1,
                id: cause.runbook.clone(),
                title: cause.title.clone(),
                summary: cause.summary.clone(),
                severity: cause.severity.as_str().to_string(),
                score_percent: (cause.score * 100.0).round() as u32,
                action: cause.action.clone().unwrap_or_default(),
                hits,
                context: with_gaps,
                more,
                hidden: cause.hit_count.saturating_sub(listed),
                hit_count: cause.hit_count,
                fix_html,
                seen: seen(&cause.incidents),
                incidents: cause.incidents.iter().take(5).map(past_incident).collect(),
            }
        })
        .collect();
    let similar = report
        .similar
        .iter()
        .map(|s| SimilarView {
            id: s.runbook.clone(),
            title: s.title.clone(),
            summary: s.summary.clone(),
            severity: s.severity.as_str().to_string(),
            score_percent: (s.score * 100.0).round() as u32,
            lines: s.lines.iter().map(|l| (l.line, l.text.clone())).collect(),
            fix_html: snapshot
                .library
                .runbook(&s.runbook)
                .and_then(|r| section_markdown(&r.body, "fix"))
                .map(to_html)
                .unwrap_or_default(),
        })
        .collect();
    let unexplained = report
        .unexplained
        .iter()
        .map(|u| UnexplainedView {
            line: u.line,
            text: u.text.clone(),
            count: u.count,
            draft_url: format!("/runbooks/draft?line={}", url_component(&u.text)),
        })
        .collect();
    let shown = &paste[..paste.len().min(200_000)];
    let mut layout = Layout::new("Match", "match");
    layout.query = String::new();
    MatchPage {
        layout,
        causes,
        similar,
        unexplained,
        unexplained_total: report.unexplained_total,
        stats: format!(
            "{} line(s), {} scanned in {:.1} ms",
            report.stats.lines,
            human_bytes(report.stats.bytes),
            report.stats.elapsed_ms
        ),
        paste: clean_block(shown),
        paste_full: String::from_utf8_lossy(&paste[..paste.len().min(2 << 20)]).into_owned(),
        read_only: false,
        runbooks: {
            let mut all: Vec<(String, String)> = snapshot
                .library
                .runbooks
                .iter()
                .map(|r| (r.id.clone(), r.title.clone()))
                .collect();
            all.sort();
            all
        },
        environment: None,
        doctor: None,
        token_needed: false,
    }
}

/// How often a cause was seen before: see [`crate::format::seen`].
fn seen(incidents: &[IncidentRef]) -> String {
    let Some(last) = incidents.first() else {
        return String::new();
    };
    format::seen(
        incidents.len(),
        last.started_at.as_deref(),
        last.hosts.first().map(String::as_str),
    )
}

pub(super) fn past_incident(i: &IncidentRef) -> PastIncident {
    PastIncident {
        id: i.id.clone(),
        title: i.title.clone(),
        date: i
            .started_at
            .as_deref()
            .map(|t| day(t).to_string())
            .unwrap_or_default(),
        hosts: i.hosts.join(", "),
    }
}

/// Byte offsets of the lines of a paste, to show lines around a hit.
struct LineIndex<'a> {
    text: &'a [u8],
    starts: Vec<usize>,
}

impl<'a> LineIndex<'a> {
    fn new(text: &'a [u8]) -> LineIndex<'a> {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text).map(|p| p + 1));
        LineIndex { text, starts }
    }

    fn line(&self, number: u64) -> Option<String> {
        let i = usize::try_from(number).ok()?.checked_sub(1)?;
        let start = *self.starts.get(i)?;
        if start >= self.text.len() && i > 0 {
            return None;
        }
        let end = self.starts.get(i + 1).map_or(self.text.len(), |e| e - 1);
        let end = end.max(start);
        Some(normalize::line(&self.text[start..end]).shown)
    }

    fn context(&self, first: u64, last: u64, around: u64) -> Vec<ContextLine> {
        (first.saturating_sub(around).max(1)..=last + around)
            .filter_map(|n| {
                self.line(n).map(|text| ContextLine {
                    number: n,
                    text,
                    hit: (first..=last).contains(&n),
                })
            })
            .collect()
    }
}

fn clean_block(bytes: &[u8]) -> String {
    normalize::block(bytes)
}

fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").to_string()
}

pub(super) fn runbook_row(snapshot: &Snapshot, r: &Runbook) -> RunbookRow {
    RunbookRow {
        id: r.id.clone(),
        title: r.title.clone(),
        summary: r.summary.clone(),
        severity: r.severity.as_str().to_string(),
        tags: r.tags.clone(),
        signatures: r.signatures.len(),
        incidents: snapshot.matcher.incidents_of(&r.id).len(),
    }
}

pub(super) fn tag_counts(
    snapshot: &Snapshot,
    selected: Option<&str>,
    limit: usize,
) -> Vec<TagCount> {
    let mut tags: Vec<(&String, &usize)> = snapshot.tags.iter().collect();
    tags.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
    tags.into_iter()
        .take(limit)
        .map(|(tag, count)| TagCount {
            tag: tag.clone(),
            count: *count,
            selected: selected == Some(tag.as_str()),
        })
        .collect()
}

pub(super) fn incident_row(i: &Incident) -> IncidentRow {
    IncidentRow {
        id: i.id.clone(),
        title: i.title.clone(),
        date: i.started_at.map(minute).unwrap_or_default(),
        severity: i.severity.map_or("—", IncidentSeverity::as_str).to_string(),
        status: i.status.as_str().to_string(),
        hosts: i.hosts.join(", "),
        resolve: i.time_to_resolve().map(duration).unwrap_or_default(),
    }
}

/// The `##` headings of a document, as links to their anchors.
pub(super) fn toc(markdown: &str) -> Vec<Link> {
    let (_, sections) = plain_text(markdown);
    sections
        .iter()
        .filter(|s| s.level == 2)
        .map(|s| Link {
            href: format!("#{}", s.anchor),
            text: s.heading.clone(),
        })
        .collect()
}

/// A link to a runbook by its title (its id if it does not exist).
pub(super) fn runbook_link(snapshot: &Snapshot, id: &str) -> Link {
    Link {
        href: format!("/runbooks/{id}"),
        text: snapshot
            .library
            .runbook(id)
            .map_or_else(|| id.to_string(), |r| r.title.clone()),
    }
}
