//! `/stats` and `/api/stats`: the numbers from `postmortem::stats`, and two SVG charts drawn on
//! the server with plotters (no JavaScript needed to see them).

use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use plotters::prelude::*;
use std::collections::BTreeMap;

use super::state::AppState;
use super::views::{Layout, StatsPage, render};
use crate::format::duration;
use crate::postmortem::{self, Stats};

const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 111, 235),
    RGBColor(196, 50, 10),
    RGBColor(46, 160, 67),
    RGBColor(181, 71, 8),
    RGBColor(130, 80, 223),
    RGBColor(59, 110, 194),
    RGBColor(219, 97, 162),
    RGBColor(102, 112, 133),
    RGBColor(0, 150, 150),
    RGBColor(150, 120, 0),
];

fn current(state: &AppState) -> (Stats, std::sync::Arc<super::state::Snapshot>) {
    let snapshot = state.snapshot();
    let stats = postmortem::stats(
        &snapshot.library,
        &snapshot.matcher,
        chrono::Local::now().date_naive(),
    );
    (stats, snapshot)
}

pub async fn api(State(state): State<AppState>) -> Response {
    let (stats, _) = current(&state);
    Json(stats).into_response()
}

pub async fn page(State(state): State<AppState>) -> Response {
    let (stats, snapshot) = current(&state);
    let title = |id: &str| {
        snapshot
            .library
            .runbook(id)
            .map_or_else(|| id.to_string(), |r| r.title.clone())
    };
    let minutes = |m: Option<f64>| {
        m.map(|m| duration(chrono::TimeDelta::seconds((m * 60.0) as i64)))
            .unwrap_or_else(|| "—".into())
    };
    let page = StatsPage {
        layout: Layout::new("Stats", "stats"),
        incidents: stats.incidents,
        by_cause_svg: stacked_bars(&stats.by_cause),
        by_severity_svg: stacked_bars(&stats.by_severity),
        durations: stats
            .durations
            .iter()
            .map(|d| {
                (
                    d.measure.to_string(),
                    d.incidents,
                    minutes(d.median_minutes),
                    minutes(d.p90_minutes),
                )
            })
            .collect(),
        actions: stats
            .open_actions
            .iter()
            .map(|a| {
                (
                    a.incident.clone(),
                    a.incident_title.clone(),
                    a.title.clone(),
                    a.owner.clone().unwrap_or_default(),
                    a.due.map(|d| d.to_string()).unwrap_or_default(),
                    a.status.clone(),
                    a.overdue,
                )
            })
            .collect(),
        unclaimed: stats
            .unclaimed_incidents
            .iter()
            .filter_map(|id| snapshot.library.incident(id))
            .map(|i| (i.id.clone(), i.title.clone(), i.tags.join(", ")))
            .collect(),
        never_hit: stats
            .runbooks_never_hit
            .iter()
            .map(|id| (id.clone(), title(id)))
            .collect(),
        stale: stats
            .runbooks_stale
            .iter()
            .filter_map(|id| snapshot.library.runbook(id))
            .map(|r| {
                (
                    r.id.clone(),
                    r.title.clone(),
                    r.reviewed_at
                        .map_or_else(|| "never".into(), |d| d.to_string()),
                )
            })
            .collect(),
    };
    render(&page)
}

/// Months along x, one stacked bar each, a colour per series, a legend.
fn stacked_bars(data: &BTreeMap<String, BTreeMap<String, usize>>) -> String {
    let mut svg = String::new();
    if data.is_empty() {
        return "<p class=\"empty\">No incidents with a start time yet.</p>".into();
    }
    let months: Vec<&String> = data.keys().collect();
    let mut series: Vec<String> = data.values().flat_map(|m| m.keys().cloned()).collect();
    series.sort();
    series.dedup();
    let max = data
        .values()
        .map(|m| m.values().sum::<usize>())
        .max()
        .unwrap_or(1)
        .max(1);
    {
        let root = SVGBackend::with_string(&mut svg, (640, 320)).into_drawing_area();
        let _ = root.fill(&WHITE);
        let chart = ChartBuilder::on(&root)
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(36)
            .build_cartesian_2d(0f64..months.len() as f64, 0u32..(max as u32 + 1));
        let Ok(mut chart) = chart else {
            return String::new();
        };
        let labels: Vec<String> = months.iter().map(|m| m.to_string()).collect();
        let _ = chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(months.len().min(12))
            .x_label_formatter(&|x| labels.get(*x as usize).cloned().unwrap_or_default())
            .y_labels(max + 2)
            .y_label_formatter(&|y| format!("{y}"))
            .label_style(("sans-serif", 12))
            .draw();
        for (s, name) in series.iter().enumerate() {
            let color = PALETTE[s % PALETTE.len()];
            let bars: Vec<Rectangle<(f64, u32)>> = months
                .iter()
                .enumerate()
                .filter_map(|(x, month)| {
                    let counts = &data[*month];
                    let below: usize = series[..s]
                        .iter()
                        .map(|n| counts.get(n).copied().unwrap_or(0))
                        .sum();
                    let here = counts.get(name).copied().unwrap_or(0);
                    (here > 0).then(|| {
                        Rectangle::new(
                            [
                                (x as f64 + 0.15, below as u32),
                                (x as f64 + 0.85, (below + here) as u32),
                            ],
                            color.filled(),
                        )
                    })
                })
                .collect();
            if let Ok(drawn) = chart.draw_series(bars) {
                drawn.label(name.clone()).legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled())
                });
            }
        }
        let _ = chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK.mix(0.2))
            .label_font(("sans-serif", 11))
            .position(SeriesLabelPosition::UpperLeft)
            .draw();
        let _ = root.present();
    }
    svg
}
