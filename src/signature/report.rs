//! What a match answers: the report and its parts, as `lore match --json` and `/api/match` give
//! them (docs/cli.md). Plain data; `rank.rs` fills it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use crate::doc::Severity;

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub causes: Vec<Cause>,
    pub unexplained: Vec<Unexplained>,
    /// Likely causes no signature matched: the unexplained lines (and a short paste as a whole)
    /// compared with what the runbooks say. Never a runbook already in `causes`.
    pub similar: Vec<SimilarCause>,
    /// All unexplained lines, including repeats and those past the cap.
    pub unexplained_total: u64,
    pub stats: Stats,
}

#[derive(Debug, Clone, Serialize)]
pub struct Cause {
    pub runbook: String,
    pub title: String,
    pub summary: String,
    pub severity: Severity,
    pub score: f64,
    pub hits: Vec<HitReport>,
    /// Matched lines in all, including those not listed in `hits`.
    pub hit_count: u64,
    pub path: PathBuf,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub action: Option<String>,
    pub incidents: Vec<IncidentRef>,
}

#[derive(Debug, Clone, Serialize)]
pub struct HitReport {
    pub signature: String,
    pub line: u64,
    /// Last line of a multi-line match (equal to `line` for one line).
    pub last_line: u64,
    pub text: String,
    pub captures: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct IncidentRef {
    pub id: String,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    pub hosts: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SimilarCause {
    pub runbook: String,
    pub title: String,
    pub summary: String,
    pub severity: Severity,
    /// Confidence, 0..1 (see `search::similar`).
    pub score: f64,
    /// The lines that led to it.
    pub lines: Vec<SimilarLine>,
    pub path: PathBuf,
    /// What the confidence rests on (for tuning it; not part of the JSON).
    #[serde(skip)]
    pub evidence: crate::search::similar::Evidence,
}

#[derive(Debug, Clone, Serialize)]
pub struct SimilarLine {
    pub line: u64,
    pub text: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Unexplained {
    pub line: u64,
    pub text: String,
    pub count: u64,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Stats {
    pub bytes: u64,
    pub lines: u64,
    pub elapsed_ms: f64,
}
