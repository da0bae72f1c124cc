//! What the postmortems add up to: incidents per month by cause and by severity, how long
//! detection, mitigation and resolution take, open action items, and coverage gaps.

use std::collections::BTreeMap;

use chrono::{NaiveDate, TimeDelta};
use serde::Serialize;

use crate::doc::Incident;
use crate::library::Library;
use crate::signature::Matcher;

#[derive(Debug, Clone, Serialize)]
pub struct Stats {
    pub incidents: usize,
    /// `YYYY-MM` → cause (first runbook, or `unclassified`) → count.
    pub by_cause: BTreeMap<String, BTreeMap<String, usize>>,
    /// `YYYY-MM` → severity → count.
    pub by_severity: BTreeMap<String, BTreeMap<String, usize>>,
    pub durations: Vec<Durations>,
    pub open_actions: Vec<OpenAction>,
    pub unclaimed_incidents: Vec<String>,
    pub runbooks_never_hit: Vec<String>,
    pub runbooks_stale: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Durations {
    pub measure: &'static str,
    pub formula: &'static str,
    pub incidents: usize,
    pub median_minutes: Option<f64>,
    pub p90_minutes: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct OpenAction {
    pub incident: String,
    pub incident_title: String,
    pub title: String,
    pub owner: Option<String>,
    pub status: String,
    pub due: Option<NaiveDate>,
    pub overdue: bool,
}

/// Median: the middle of the sorted values (mean of the two middle ones for an even count).
pub fn median(sorted: &[f64]) -> Option<f64> {
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(sorted[n / 2]),
        _ => Some((sorted[n / 2 - 1] + sorted[n / 2]) / 2.0),
    }
}

/// p90 by nearest rank: the value at rank ⌈0.9 n⌉ (1-based) of the sorted values.
pub fn p90(sorted: &[f64]) -> Option<f64> {
    let n = sorted.len();
    (n > 0).then(|| sorted[((0.9 * n as f64).ceil() as usize).clamp(1, n) - 1])
}

pub fn stats(library: &Library, matcher: &Matcher, today: NaiveDate) -> Stats {
    let incidents = &library.incidents;
    let mut by_cause: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    let mut by_severity: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for incident in incidents {
        let Some(start) = incident.started_at else {
            continue;
        };
        let month = start.format("%Y-%m").to_string();
        let cause = incident
            .runbooks
            .first()
            .cloned()
            .unwrap_or_else(|| "unclassified".into());
        *by_cause
            .entry(month.clone())
            .or_default()
            .entry(cause)
            .or_default() += 1;
        let severity = incident
            .severity
            .map_or("unknown", |s| s.as_str())
            .to_string();
        *by_severity
            .entry(month)
            .or_default()
            .entry(severity)
            .or_default() += 1;
    }
    let measure =
        |name: &'static str, formula: &'static str, f: fn(&Incident) -> Option<TimeDelta>| {
            let mut minutes: Vec<f64> = incidents
                .iter()
                .filter_map(f)
                .map(|d| d.num_seconds() as f64 / 60.0)
                .collect();
            minutes.sort_by(f64::total_cmp);
            Durations {
                measure: name,
                formula,
                incidents: minutes.len(),
                median_minutes: median(&minutes),
                p90_minutes: p90(&minutes),
            }
        };
    let durations = vec![
        measure(
            "time to detect",
            "detected_at − started_at",
            Incident::time_to_detect,
        ),
        measure(
            "time to mitigate",
            "mitigated_at − started_at",
            Incident::time_to_mitigate,
        ),
        measure(
            "time to resolve",
            "resolved_at − started_at",
            Incident::time_to_resolve,
        ),
    ];
    let mut open_actions: Vec<OpenAction> = incidents
        .iter()
        .flat_map(|i| {
            i.action_items
                .iter()
                .filter(|a| a.status != "done" && a.status != "wontfix")
                .map(move |a| OpenAction {
                    incident: i.id.clone(),
                    incident_title: i.title.clone(),
                    title: a.title.clone(),
                    owner: a.owner.clone(),
                    status: a.status.clone(),
                    due: a.due,
                    overdue: a.due.is_some_and(|d| d < today),
                })
        })
        .collect();
    // Overdue first, then by due date (undated last).
    open_actions.sort_by(|a, b| {
        b.overdue
            .cmp(&a.overdue)
            .then_with(|| a.due.is_none().cmp(&b.due.is_none()))
            .then_with(|| a.due.cmp(&b.due))
            .then_with(|| a.incident.cmp(&b.incident))
    });
    let links = matcher.link_all_incidents();
    let runbooks_never_hit = library
        .runbooks
        .iter()
        .enumerate()
        .filter(|(r, _)| links.get(*r).is_none_or(Vec::is_empty))
        .map(|(_, runbook)| runbook.id.clone())
        .collect();
    let year_ago = today - TimeDelta::days(365);
    let runbooks_stale = library
        .runbooks
        .iter()
        .filter(|r| r.reviewed_at.is_none_or(|d| d < year_ago))
        .map(|r| r.id.clone())
        .collect();
    Stats {
        incidents: incidents.len(),
        by_cause,
        by_severity,
        durations,
        open_actions,
        unclaimed_incidents: incidents
            .iter()
            .filter(|i| i.runbooks.is_empty())
            .map(|i| i.id.clone())
            .collect(),
        runbooks_never_hit,
        runbooks_stale,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_p90() {
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[3.0]), Some(3.0));
        assert_eq!(median(&[1.0, 3.0]), Some(2.0));
        assert_eq!(median(&[1.0, 2.0, 9.0]), Some(2.0));
        let ten: Vec<f64> = (1..=10).map(f64::from).collect();
        assert_eq!(p90(&ten), Some(9.0));
        assert_eq!(p90(&[5.0]), Some(5.0));
        let twenty: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(p90(&twenty), Some(18.0));
    }
}
