//! `lore doctor`: gather a broken node's evidence in one go, in bounded time, and answer it.
//!
//! One collector table (`table.rs`) feeds two front ends: the native runner (`run.rs`) and the
//! POSIX script `lore serve` offers as `/collect.sh`. Both print a bundle (`bundle.rs`): plain
//! text with a marker line per step, which is also a paste. The answer reads the bundle only, so
//! a bundle saved at 3 a.m. and pasted next week gives the same answer: the built-in checks
//! (`checks.rs`), the signature causes and similar causes of the whole bundle, and its
//! environment (fingerprint, compatibility rules, recorded stacks).

pub mod bundle;
pub mod checks;
pub mod redact;
pub mod run;
pub mod table;

use serde::Serialize;

pub use bundle::{Bundle, Section};
pub use checks::{Check, CheckLevel};

use crate::library::Library;
use crate::signature::Report;

/// What the doctor answers.
#[derive(Debug, Clone, Serialize)]
pub struct Answer {
    /// Every step: what ran (with its exit code and time) and what was skipped, and why.
    pub collected: Vec<Section>,
    /// Failed checks first.
    pub checks: Vec<Check>,
    pub causes: Vec<crate::signature::Cause>,
    pub similar: Vec<crate::signature::SimilarCause>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub environment: Option<crate::env::Assessment>,
    pub unexplained: Vec<crate::signature::Unexplained>,
}

impl Answer {
    /// A failed check, or a signature cause of high or critical severity, or an environment
    /// violation: something an operator must act on.
    pub fn has_problem(&self) -> bool {
        self.checks.iter().any(|c| c.level == CheckLevel::Fail)
            || self.causes.iter().any(|c| {
                matches!(
                    c.severity,
                    crate::doc::Severity::High | crate::doc::Severity::Critical
                )
            })
            || self
                .environment
                .as_ref()
                .is_some_and(crate::env::Assessment::is_bad)
    }

    /// The node-problem-detector line: at most 80 characters, the worst thing first.
    pub fn npd_line(&self) -> String {
        let line = if let Some(c) = self.checks.iter().find(|c| c.level == CheckLevel::Fail) {
            format!(
                "{}: {}",
                c.runbook.unwrap_or(c.id),
                c.message.split(':').next().unwrap_or_default()
            )
        } else if let Some(c) = self.causes.iter().find(|c| {
            matches!(
                c.severity,
                crate::doc::Severity::High | crate::doc::Severity::Critical
            )
        }) {
            format!("{}: {}", c.runbook, c.title)
        } else if let Some(e) = self.environment.as_ref().filter(|e| e.is_bad()) {
            let finding = e
                .findings
                .iter()
                .find(|f| f.level == crate::env::Level::Violation)
                .map_or("stack recorded bad".to_string(), |f| f.rule.clone());
            format!("environment: {finding}")
        } else {
            let passed = self
                .checks
                .iter()
                .filter(|c| c.level == CheckLevel::Ok)
                .count();
            format!("ok: {passed} checks passed, no known cause")
        };
        crate::format::chars_prefix(&line, 80).to_string()
    }
}

/// Answers a bundle (or any paste: without markers the checks have nothing to read and say so)
/// with the library's signatures, rules and stacks.
pub fn answer(text: &[u8], library: &Library) -> Answer {
    let started = std::time::Instant::now();
    let fp = crate::env::fingerprint::of(text);
    let BundleChecks { collected, checks } = checks_of(text, &fp).unwrap_or(BundleChecks {
        collected: Vec::new(),
        checks: Vec::new(),
    });
    let matcher = library.matcher();
    let mut scanner = matcher.scanner();
    scanner.feed(text);
    let report: Report = matcher.report(scanner.finish(), None, started);
    let environment = crate::env::of_fingerprint(
        &fp,
        &library.stacks,
        &library.compat,
        chrono::Local::now().date_naive(),
    );
    Answer {
        collected,
        checks,
        causes: report.causes,
        similar: report.similar,
        environment,
        unexplained: report.unexplained,
    }
}

/// The doctor's part of an answer to a paste that is a bundle: its steps and its checks;
/// `None` for any other paste. Used by `lore match`, `/api/match` and the match page, so a bundle
/// pasted anywhere gets the same checks as `lore doctor`.
pub fn bundle_checks(text: &[u8]) -> Option<BundleChecks> {
    if !bundle::is_bundle(text) {
        return None;
    }
    checks_of(text, &crate::env::fingerprint::of(text))
}

/// The steps and checks of a bundle whose fingerprint `fp` is already read.
fn checks_of(text: &[u8], fp: &crate::env::Fingerprint) -> Option<BundleChecks> {
    let string = String::from_utf8_lossy(text);
    let bundle = bundle::parse(&string)?;
    let checks = checks::run(&bundle, fp);
    Some(BundleChecks {
        collected: bundle.sections,
        checks,
    })
}

#[derive(Debug, Clone, Serialize)]
pub struct BundleChecks {
    pub collected: Vec<Section>,
    pub checks: Vec<Check>,
}

/// What differs between this node's bundle and a healthy node's: each step whose outcome or
/// output differs, with up to `per_section` lines only here (`+`) and only there (`-`).
pub fn diff(here: &Bundle, healthy: &Bundle, per_section: usize) -> Vec<SectionDiff> {
    let mut out = Vec::new();
    let ids: Vec<&str> = here
        .sections
        .iter()
        .chain(&healthy.sections)
        .map(|s| s.id.as_str())
        .fold(Vec::new(), |mut ids, id| {
            if !ids.contains(&id) {
                ids.push(id);
            }
            ids
        });
    // Lines that differ on every node (timestamps, counters) say nothing: compare them without
    // their digits.
    let shape = |l: &str| -> String {
        l.chars()
            .map(|c| if c.is_ascii_digit() { '0' } else { c })
            .collect::<String>()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    for id in ids {
        let (a, b) = (here.section(id), healthy.section(id));
        let outcome = |s: Option<&Section>| match s {
            None => "not collected".to_string(),
            Some(s) => match &s.skipped {
                Some(k) => format!("skipped={k}"),
                None => format!("rc={}", s.rc.map_or("?".into(), |r| r.to_string())),
            },
        };
        let (oa, ob) = (outcome(a), outcome(b));
        let (ta, tb) = (
            a.map_or("", |s| s.text.as_str()),
            b.map_or("", |s| s.text.as_str()),
        );
        let versions = id != "kernel.log" && id != "kernel.previous" && id != "smi.memory";
        let (only_here, only_there): (Vec<String>, Vec<String>) = if versions {
            let set_b: std::collections::HashSet<String> = tb.lines().map(shape).collect();
            let set_a: std::collections::HashSet<String> = ta.lines().map(shape).collect();
            (
                ta.lines()
                    .filter(|l| !l.trim().is_empty() && !set_b.contains(&shape(l)))
                    .map(|l| l.trim_end().to_string())
                    .collect(),
                tb.lines()
                    .filter(|l| !l.trim().is_empty() && !set_a.contains(&shape(l)))
                    .map(|l| l.trim_end().to_string())
                    .collect(),
            )
        } else {
            (Vec::new(), Vec::new())
        };
        if oa == ob && only_here.is_empty() && only_there.is_empty() {
            continue;
        }
        out.push(SectionDiff {
            id: id.to_string(),
            here: oa,
            healthy: ob,
            only_here_total: only_here.len(),
            only_healthy_total: only_there.len(),
            only_here: only_here.into_iter().take(per_section).collect(),
            only_healthy: only_there.into_iter().take(per_section).collect(),
        });
    }
    out
}

#[derive(Debug, Clone, Serialize)]
pub struct SectionDiff {
    pub id: String,
    /// `rc=0`, `skipped=timeout`, `not collected`.
    pub here: String,
    pub healthy: String,
    pub only_here: Vec<String>,
    pub only_healthy: Vec<String>,
    pub only_here_total: usize,
    pub only_healthy_total: usize,
}
