//! "Start a postmortem from this paste": the causes lore found become the runbooks, the hosts in
//! journal headers become the hosts, the interesting timestamped lines become timeline rows, and
//! the paste goes into a `log` block.

use std::sync::LazyLock;

use chrono::{DateTime, Datelike, FixedOffset, Local, NaiveDateTime, TimeDelta};
use regex::Regex;

use super::{Postmortem, TimelineRow};
use crate::doc::Severity;
use crate::format::chars_prefix;
use crate::signature::Report;
use crate::signature::normalize;

/// A paste larger than this keeps only the lines around what matched.
const MAX_LOG: usize = 256 << 10;
const MAX_ROWS: usize = 40;

static JOURNAL_HOST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}(?:\.\d+)?|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?) ([A-Za-z0-9][\w.\-]*) [\w.\-/@()]+(?:\[\d+\])?: ").expect("valid")
});
static ISO: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:[.,]\d+)?(Z|[+-]\d{2}:?\d{2})?")
        .expect("valid")
});
static SYSLOG: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^([A-Z][a-z]{2}) ([ \d]\d) (\d{2}:\d{2}:\d{2})").expect("valid"));
static DMESG_T: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ([A-Z][a-z]{2}) +(\d{1,2}) (\d{2}:\d{2}:\d{2}) (\d{4})\]").expect("valid")
});
static UPTIME: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\[ *(\d+)\.(\d+)\]").expect("valid"));

/// When a line happened, as far as its prefix says.
#[derive(Debug, Clone, Copy, PartialEq)]
enum When {
    /// A wall-clock time (with the offset if the log gave one).
    At(NaiveDateTime, Option<FixedOffset>),
    /// Seconds since boot (a dmesg stamp).
    Uptime(f64),
}

fn when(line: &str, year: i32) -> (Option<When>, Option<f64>) {
    let uptime = UPTIME
        .captures(line)
        .and_then(|c| format!("{}.{}", &c[1], &c[2]).parse::<f64>().ok());
    if let Some(c) = ISO.captures(line) {
        let at =
            NaiveDateTime::parse_from_str(&format!("{} {}", &c[1], &c[2]), "%Y-%m-%d %H:%M:%S")
                .ok();
        let offset = c.get(3).and_then(|o| parse_offset(o.as_str()));
        return (at.map(|a| When::At(a, offset)), uptime);
    }
    if let Some(c) = SYSLOG.captures(line) {
        let at = NaiveDateTime::parse_from_str(
            &format!("{year} {} {} {}", &c[1], c[2].trim(), &c[3]),
            "%Y %b %d %H:%M:%S",
        )
        .ok();
        return (at.map(|a| When::At(a, None)), uptime);
    }
    if let Some(c) = DMESG_T.captures(line) {
        let at = NaiveDateTime::parse_from_str(
            &format!("{} {} {} {}", &c[4], &c[1], &c[2], &c[3]),
            "%Y %b %d %H:%M:%S",
        )
        .ok();
        return (at.map(|a| When::At(a, None)), uptime);
    }
    (uptime.map(When::Uptime), uptime)
}

fn parse_offset(text: &str) -> Option<FixedOffset> {
    if text == "Z" {
        return FixedOffset::east_opt(0);
    }
    let sign = if text.starts_with('-') { -1 } else { 1 };
    let digits: String = text.chars().filter(char::is_ascii_digit).collect();
    let hours: i32 = digits.get(..2)?.parse().ok()?;
    let minutes: i32 = digits.get(2..4).unwrap_or("0").parse().ok()?;
    FixedOffset::east_opt(sign * (hours * 3600 + minutes * 60))
}

fn format_at(at: NaiveDateTime, offset: Option<FixedOffset>) -> String {
    match offset {
        Some(o) => format!("{} {}", at.format("%Y-%m-%d %H:%M:%S"), o),
        None => at.format("%Y-%m-%d %H:%M:%S").to_string(),
    }
}

/// Timeline rows for the given lines (number, original text) of a log: wall-clock times as
/// they are; dmesg uptimes converted when some line gives both a wall clock and an uptime (the
/// boot time is then known), otherwise kept as `+<seconds> s` after boot.
pub fn timeline_rows_from_log(lines: &[(u64, String)], year: i32) -> Vec<TimelineRow> {
    let parsed: Vec<(Option<When>, Option<f64>)> =
        lines.iter().map(|(_, l)| when(l, year)).collect();
    let boot = parsed.iter().find_map(|(w, up)| match (w, up) {
        (Some(When::At(at, offset)), Some(up)) => {
            Some((*at - TimeDelta::milliseconds((up * 1000.0) as i64), *offset))
        }
        _ => None,
    });
    let mut rows = Vec::new();
    for ((_, line), (w, _)) in lines.iter().zip(parsed) {
        let time = match (w, boot) {
            (Some(When::At(at, offset)), _) => format_at(at, offset),
            (Some(When::Uptime(up)), Some((boot, offset))) => {
                format_at(boot + TimeDelta::milliseconds((up * 1000.0) as i64), offset)
            }
            (Some(When::Uptime(up)), None) => format!("+{up:.1} s after boot"),
            (None, _) => continue,
        };
        let message = normalize::line(line.as_bytes()).text;
        let text = chars_prefix(message.trim(), 200).to_string();
        if !rows
            .iter()
            .any(|r: &TimelineRow| r.time == time && r.text == text)
        {
            rows.push(TimelineRow { time, text });
        }
    }
    rows
}

/// A postmortem from a paste and the report lore made of it.
pub fn from_paste(paste: &[u8], report: &Report) -> Postmortem {
    let mut postmortem = Postmortem::new();
    let year = Local::now().year();
    let causes: Vec<_> = report
        .causes
        .iter()
        .filter(|c| c.severity > Severity::Info)
        .take(5)
        .collect();
    postmortem.runbooks = causes.iter().map(|c| c.runbook.clone()).collect();
    let text = String::from_utf8_lossy(paste);
    let mut hosts: Vec<String> = Vec::new();
    for line in text.lines().take(200_000) {
        if let Some(c) = JOURNAL_HOST.captures(line.trim_start_matches('\u{feff}')) {
            let host = c[1].to_string();
            if !hosts.contains(&host) && hosts.len() < 20 {
                hosts.push(host);
            }
        }
    }
    postmortem.hosts = hosts;
    if let Some(top) = causes.first() {
        postmortem.title = match postmortem.hosts.first() {
            Some(host) => format!("{} on {host}", top.title),
            None => top.title.clone(),
        };
        postmortem.severity = match top.severity {
            Severity::Critical => "SEV2",
            Severity::High => "SEV3",
            _ => "SEV4",
        }
        .into();
        postmortem.tags = vec!["from-paste".into()];
    }
    // The interesting lines: what matched and what looked like an error.
    let mut wanted: Vec<(u64, String)> = report
        .causes
        .iter()
        .flat_map(|c| {
            c.hits
                .iter()
                .map(|h| (h.line, h.text.lines().next().unwrap_or("").to_string()))
        })
        .chain(report.unexplained.iter().map(|u| (u.line, u.text.clone())))
        .collect();
    wanted.sort_by_key(|(n, _)| *n);
    wanted.dedup_by_key(|(n, _)| *n);
    let mut rows = timeline_rows_from_log(&wanted, year);
    rows.truncate(MAX_ROWS);
    if let Some(first) = rows.iter().find_map(|r| {
        DateTime::parse_from_str(&r.time, "%Y-%m-%d %H:%M:%S %:z")
            .ok()
            .or_else(|| {
                NaiveDateTime::parse_from_str(&r.time, "%Y-%m-%d %H:%M:%S")
                    .ok()
                    .and_then(|n| {
                        n.and_local_timezone(Local)
                            .single()
                            .map(|t| t.fixed_offset())
                    })
            })
    }) {
        postmortem.started_at = first.to_rfc3339();
    }
    postmortem.timeline = rows;
    let summary: String = causes
        .iter()
        .map(|c| {
            format!(
                "- [{}](/runbooks/{}) ({}): {}\n",
                c.title,
                c.runbook,
                c.severity.as_str(),
                c.summary
            )
        })
        .collect();
    let log = log_excerpt(&text, report);
    let fence = if log.contains("```") { "````" } else { "```" };
    let summary_block = if summary.is_empty() {
        "What happened, in two or three sentences.\n".to_string()
    } else {
        format!(
            "What happened, in two or three sentences.\n\nlore matched the pasted log to:\n\n{summary}"
        )
    };
    postmortem.body = postmortem
        .body
        .replace("## Summary\n\nWhat happened, in two or three sentences.\n", &format!("## Summary\n\n{summary_block}"))
        .replace(
            "## Supporting information\n\n",
            &format!("## Supporting information\n\nThe log this postmortem was started from:\n\n{fence}log\n{}\n{fence}\n", log.trim_end()),
        );
    postmortem
}

/// The paste, or when it is large the lines around what matched, with gaps marked.
fn log_excerpt(text: &str, report: &Report) -> String {
    if text.len() <= MAX_LOG {
        return text.to_string();
    }
    let mut keep: Vec<u64> = report
        .causes
        .iter()
        .flat_map(|c| {
            c.hits
                .iter()
                .flat_map(|h| h.line.saturating_sub(5)..=h.last_line + 5)
        })
        .chain(
            report
                .unexplained
                .iter()
                .flat_map(|u| u.line.saturating_sub(2)..=u.line + 2),
        )
        .collect();
    keep.sort_unstable();
    keep.dedup();
    let mut out = String::new();
    let mut last = 0u64;
    for (n, line) in text.lines().enumerate() {
        let n = n as u64 + 1;
        if keep.binary_search(&n).is_ok() {
            if n > last + 1 {
                out.push_str(&format!("… {} line(s) left out …\n", n - last - 1));
            }
            out.push_str(line);
            out.push('\n');
            last = n;
            if out.len() > MAX_LOG {
                out.push_str("… the rest left out …\n");
                break;
            }
        }
    }
    out
}
