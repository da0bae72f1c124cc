//! The rules of `compat/` files, evaluated: each kind of rule is code, its facts are the file's
//! rows.

use std::cmp::Ordering;

use chrono::NaiveDate;

use super::{Level, compare_versions};
use crate::doc::Diagnostic;
use crate::doc::compat::{
    Authority, Compat, ExceptionLevel, Row, Rule, RuleKind, Severity, ended_month, month_end,
};

/// What one rule says about one fingerprint.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub level: Level,
    pub message: String,
    pub source: String,
}

/// Whether a row's key takes `value`: `*` takes anything; a version key takes the values it is a
/// prefix of, part by part (`12` takes 12.4; `10.2` takes 10.2.89 but not 10.20); a word key
/// (`open`) takes the same word in any case.
fn key_takes(key: &str, value: &str) -> bool {
    if key == "*" {
        return true;
    }
    let is_version = key
        .split('.')
        .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    if !is_version {
        return key.eq_ignore_ascii_case(value.trim());
    }
    let parts: Vec<&str> = value
        .split(|c: char| !c.is_ascii_digit())
        .take_while(|p| !p.is_empty())
        .collect();
    let key: Vec<&str> = key.split('.').collect();
    key.len() <= parts.len()
        && key
            .iter()
            .zip(&parts)
            .all(|(k, p)| k.parse::<u64>().ok() == p.parse::<u64>().ok())
}

/// The row for `value`: the most specific one whose key takes it.
fn row_for<'r>(rows: &'r [Row], value: &str) -> Option<&'r Row> {
    rows.iter()
        .filter(|row| key_takes(&row.key, value))
        .max_by_key(|row| {
            if row.key == "*" {
                0
            } else {
                row.key.split('.').count()
            }
        })
}

/// The minimum of rule `rule` in `families` for the key `value` (the driver a CUDA release needs,
/// for `cuda-runtime-minimum-driver`).
pub fn minimum_of(families: &[Compat], rule: &str, value: &str) -> Option<String> {
    families
        .iter()
        .flat_map(|f| &f.rules)
        .find(|r| r.id == rule)
        .and_then(|r| row_for(&r.rows, value))
        .and_then(|row| row.min.clone())
}

/// `value` truncated to as many dotted parts as `like` has (`580.95.05` like `580` is `580`).
fn at_precision_of(value: &str, like: &str) -> String {
    let n = like.split('.').count();
    value.split('.').take(n).collect::<Vec<_>>().join(".")
}

/// Applies `rule` to a fingerprint read through `get`; `None` when the fingerprint lacks what
/// the rule needs (the rule does not apply, which is not the same as passing).
pub fn evaluate(
    rule: &Rule,
    get: &dyn Fn(&str) -> Option<String>,
    today: NaiveDate,
) -> Option<Outcome> {
    let (by, key_value) = rule.by.iter().find_map(|f| Some((f, get(f)?)))?;
    let (of, value) = rule.of.iter().find_map(|f| Some((f, get(f)?)))?;
    let row = row_for(&rule.rows, &key_value)?;
    let min = row.min.clone().unwrap_or_default();
    let max = row.max.clone().unwrap_or_default();
    // A driver held against a branch (`max: "470"`, R470) is held by its branch: its major
    // number rounded down to the branch grid of fives. Windows numbers a branch's later releases
    // past the branch (R470's Kepler updates are 471 to 474, R580's are 581 and 582, R390's 391),
    // which the bare number would take for a later branch.
    let branch = |v: &str, m: &str| match (of.as_str(), m.contains('.')) {
        ("driver" | "kernel_module", false) => v
            .split('.')
            .next()
            .and_then(|major| major.parse::<u32>().ok())
            .map_or_else(
                || at_precision_of(v, m),
                |major| (major - major % 5).to_string(),
            ),
        _ => at_precision_of(v, m),
    };
    let within = |v: &str| {
        row.min
            .as_deref()
            .is_none_or(|m| compare_versions(v, m) != Ordering::Less)
            && row
                .max
                .as_deref()
                .is_none_or(|m| compare_versions(&branch(v, m), m) != Ordering::Greater)
    };
    let holds = match rule.kind {
        RuleKind::MinimumVersion | RuleKind::Range => within(&value),
        RuleKind::Member => row
            .values
            .iter()
            .any(|x| x.eq_ignore_ascii_case(value.trim())),
        RuleKind::Equal => compare_versions(&value, &key_value) == Ordering::Equal,
        RuleKind::NotOlderThan => {
            compare_versions(&value, &at_precision_of(&key_value, &value)) != Ordering::Less
        }
        RuleKind::BadPair => !within(&value),
        RuleKind::EndOfLife => row
            .ended
            .as_deref()
            .and_then(month_end)
            .is_none_or(|end| today <= end),
    };
    let fill = |text: &str| {
        text.replace("{by}", by)
            .replace("{key}", &key_value)
            .replace("{min}", &min)
            .replace("{max}", &max)
            .replace("{values}", &row.values.join(", "))
            .replace("{ended}", row.ended.as_deref().unwrap_or_default())
            .replace("{of}", of)
            .replace("{value}", &value)
    };
    if holds {
        let message = match rule.kind {
            RuleKind::MinimumVersion => {
                format!("{of} {value} meets the minimum {min} for {by} {key_value}")
            }
            // Say which range: beside another rule's finding on the same pair (cuDNN's major
            // is right, its minor too old) a bare "within what it allows" reads as a contradiction.
            RuleKind::Range => {
                let range = match (min.is_empty(), max.is_empty()) {
                    (false, true) => format!("{min} or later"),
                    (true, false) if branch(&value, &max) != at_precision_of(&value, &max) => {
                        format!("on branch R{max} or earlier")
                    }
                    (true, false) => format!("{max} or earlier"),
                    _ if min == max => format!("{min}.x"),
                    _ => format!("within {min} to {max}"),
                };
                format!("{of} {value} is {range}, as {by} {key_value} requires")
            }
            RuleKind::Member => format!("{of} {value} is allowed for {by} {key_value}"),
            RuleKind::Equal => format!("{of} {value} equals {by} {key_value}"),
            RuleKind::NotOlderThan => format!("{of} {value} is not older than {by} {key_value}"),
            RuleKind::BadPair => {
                format!("{of} {value} on {by} {key_value} is not a pair reported bad")
            }
            RuleKind::EndOfLife => format!(
                "{of} {value}: branch {} is supported until {}",
                row.key,
                row.ended.as_deref().map(ended_month).unwrap_or_default()
            ),
        };
        return Some(Outcome {
            level: Level::Ok,
            message,
            source: row.source.clone(),
        });
    }
    let mut level = match (row.authority, rule.severity) {
        (Authority::Documented, Severity::Violation) => Level::Violation,
        _ => Level::Risk,
    };
    let mut message = fill(&rule.message);
    let mut source = row.source.clone();
    // An explicit exception: forward compatibility, say, makes a newer CUDA legal on an older
    // branch, within its own limits.
    if let Some(exception) = rule.exceptions.iter().find(|e| {
        e.when
            .iter()
            .all(|(field, want)| get(field).is_some_and(|have| key_takes(want, &have)))
    }) {
        level = match exception.level {
            ExceptionLevel::Ok => Level::Ok,
            ExceptionLevel::Risk => Level::Risk.min(level),
        };
        message = format!("{message}; but {}", fill(&exception.message));
        source = exception.source.clone();
    }
    Some(Outcome {
        level,
        message,
        source,
    })
}

/// `lore check`'s part: every example must pass (`ok`, or no row of the rule takes it: a Volta
/// GPU on a proprietary module is not judged by "Blackwell needs open") and every
/// counterexample must not
/// (a violation, or a risk when the rule only states a risk), through the same evaluation as a
/// paste. A counterexample's `level` key, when given, names the exact level it must get; an
/// example's `today` key (`2026-12-01`) fixes the date an end-of-life rule is judged on, so that
/// the example keeps its meaning after the date passes.
pub fn check_examples(families: &[Compat]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let on = |example: &std::collections::BTreeMap<String, String>| {
        example
            .get("today")
            .and_then(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok())
            .unwrap_or_else(today)
    };
    for family in families {
        for rule in &family.rules {
            for (n, example) in rule.examples.iter().enumerate() {
                let get = |f: &str| example.get(f).cloned();
                match evaluate(rule, &get, on(example)) {
                    Some(o) if o.level == Level::Ok => {}
                    None if rule
                        .by
                        .iter()
                        .chain(&rule.of)
                        .any(|f| example.contains_key(f)) => {}
                    got => out.push(Diagnostic::error(
                        &family.path,
                        0,
                        format!(
                            "rule `{}`: example {} must pass but {}",
                            rule.id,
                            n + 1,
                            got.map_or("the rule does not apply to it".into(), |o| o.message)
                        ),
                    )),
                }
            }
            for (n, example) in rule.counterexamples.iter().enumerate() {
                let get = |f: &str| example.get(f).cloned();
                let got = evaluate(rule, &get, on(example)).map(|o| o.level);
                let fits = match example.get("level").map(String::as_str) {
                    Some("violation") => got == Some(Level::Violation),
                    Some("risk") => got == Some(Level::Risk),
                    Some("ok") => got == Some(Level::Ok),
                    Some(_) => false,
                    None => got.is_some_and(|l| l >= Level::Risk),
                };
                if !fits {
                    out.push(Diagnostic::error(
                        &family.path,
                        0,
                        format!(
                            "rule `{}`: counterexample {} must be {} but is {}",
                            rule.id,
                            n + 1,
                            example.get("level").map_or("broken", String::as_str),
                            got.map_or("not judged (the rule does not apply)".into(), |l| {
                                format!("{l:?}").to_lowercase()
                            })
                        ),
                    ));
                }
            }
        }
    }
    out
}

fn today() -> NaiveDate {
    chrono::Local::now().date_naive()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(key: &str, min: &str) -> Row {
        Row {
            key: key.into(),
            min: Some(min.into()),
            max: None,
            values: Vec::new(),
            ended: None,
            source: "https://example.com".into(),
            authority: Authority::Documented,
            reviewed_at: chrono::NaiveDate::from_ymd_opt(2026, 12, 1).unwrap(),
            note: String::new(),
        }
    }

    #[test]
    fn a_branch_ends_after_its_last_month() {
        let mut ended = row("535", "0");
        ended.min = None;
        ended.ended = Some("2026-06".into());
        let mut rule = rule(RuleKind::EndOfLife, "driver", "driver", vec![ended]);
        rule.severity = Severity::Risk;
        rule.message = "{of} {value} ended {ended}".into();
        let get = |f: &str| (f == "driver").then(|| "535.104.05".to_string());
        let on = |d: u32, m: u32| NaiveDate::from_ymd_opt(2026, m, d).unwrap();
        assert_eq!(evaluate(&rule, &get, on(30, 6)).unwrap().level, Level::Ok);
        let late = evaluate(&rule, &get, on(1, 7)).unwrap();
        assert_eq!(late.level, Level::Risk);
        assert_eq!(late.message, "driver 535.104.05 ended 2026-06");
        // A branch without a row is not judged.
        let other = |f: &str| (f == "driver").then(|| "590.44.01".to_string());
        assert!(evaluate(&rule, &other, on(1, 7)).is_none());
        assert_eq!(month_end("2024-02"), NaiveDate::from_ymd_opt(2024, 2, 29));
        assert_eq!(month_end("2026-12"), NaiveDate::from_ymd_opt(2026, 12, 31));
        assert_eq!(month_end("June 2026"), None);
        // A branch known to have ended by a month, with no published month, says so.
        let mut by = row("410", "0");
        by.min = None;
        by.ended = Some("by 2026-11".into());
        let mut unpublished = self::rule(RuleKind::EndOfLife, "driver", "driver", vec![by]);
        unpublished.severity = Severity::Risk;
        unpublished.message = "{of} {value}: support ended {ended}".into();
        let old = |f: &str| (f == "driver").then(|| "410.104".to_string());
        let found = evaluate(&unpublished, &old, on(1, 12)).unwrap();
        assert_eq!(found.level, Level::Risk);
        assert_eq!(found.message, "driver 410.104: support ended by 2026-11");
        let earlier = evaluate(&unpublished, &old, on(30, 11)).unwrap();
        assert_eq!(
            earlier.message,
            "driver 410.104: branch 410 is supported until 2026-11"
        );
    }

    #[test]
    fn the_most_specific_row_whose_key_is_a_prefix() {
        let rows = [
            row("12", "525"),
            row("10.2", "440.33"),
            row("10.1", "418.39"),
        ];
        assert_eq!(
            row_for(&rows, "12.4.131").unwrap().min.as_deref(),
            Some("525")
        );
        assert_eq!(
            row_for(&rows, "10.2.89").unwrap().min.as_deref(),
            Some("440.33")
        );
        assert!(
            row_for(&rows, "10.20").is_none(),
            "10.2 is not a prefix of 10.20"
        );
        assert!(row_for(&rows, "11.8").is_none(), "no row, no judgement");
    }

    #[test]
    fn a_reported_row_is_a_risk_never_a_violation() {
        let mut reported = row("12", "525");
        reported.authority = Authority::Reported;
        let mut rule = rule(
            RuleKind::MinimumVersion,
            "driver",
            "cuda_runtime",
            vec![reported],
        );
        rule.message = "{by} {key} wants {min}, {of} is {value}".into();
        let get = |f: &str| match f {
            "driver" => Some("470.57.02".to_string()),
            "cuda_runtime" => Some("12.1".to_string()),
            _ => None,
        };
        let outcome = evaluate(&rule, &get, today()).unwrap();
        assert_eq!(outcome.level, Level::Risk);
        assert_eq!(
            outcome.message,
            "cuda_runtime 12.1 wants 525, driver is 470.57.02"
        );
        assert!(evaluate(&rule, &|_: &str| None, today()).is_none());
    }

    fn rule(kind: RuleKind, of: &str, by: &str, rows: Vec<Row>) -> Rule {
        Rule {
            id: "r".into(),
            kind,
            severity: Severity::Violation,
            message: "{of} {value} / {by} {key}".into(),
            of: vec![of.into()],
            by: vec![by.into()],
            rows,
            exceptions: Vec::new(),
            examples: Vec::new(),
            counterexamples: Vec::new(),
        }
    }

    fn judge(rule: &Rule, pairs: &[(&str, &str)]) -> Option<Level> {
        let get = |f: &str| {
            pairs
                .iter()
                .find(|(k, _)| *k == f)
                .map(|(_, v)| v.to_string())
        };
        evaluate(rule, &get, today()).map(|o| o.level)
    }

    #[test]
    fn every_kind_of_rule() {
        // A last branch: 580.95.05 is within R580, 590.44.01 is not.
        let mut last = row("6", "0");
        last.min = None;
        last.max = Some("580".into());
        let range = rule(RuleKind::Range, "driver", "cc", vec![last]);
        assert_eq!(
            judge(&range, &[("cc", "6.1"), ("driver", "580.95.05")]),
            Some(Level::Ok)
        );
        assert_eq!(
            judge(&range, &[("cc", "6.1"), ("driver", "590.44.01")]),
            Some(Level::Violation)
        );
        assert_eq!(
            judge(&range, &[("cc", "7.5"), ("driver", "590.44.01")]),
            None
        );
        // A word key, and membership.
        let mut open = row("10", "0");
        open.min = None;
        open.values = vec!["open".into()];
        let member = rule(RuleKind::Member, "driver_flavor", "cc", vec![open]);
        assert_eq!(
            judge(&member, &[("cc", "10.0"), ("driver_flavor", "Open")]),
            Some(Level::Ok)
        );
        assert_eq!(
            judge(&member, &[("cc", "10.0"), ("driver_flavor", "proprietary")]),
            Some(Level::Violation)
        );
        let mut turing = row("open", "7.5");
        turing.key = "open".into();
        let word = rule(RuleKind::Range, "cc", "driver_flavor", vec![turing]);
        assert_eq!(
            judge(&word, &[("driver_flavor", "open"), ("cc", "7.0")]),
            Some(Level::Violation)
        );
        // Two fields of the paste.
        let mut any = row("*", "0");
        any.min = None;
        let equal = rule(
            RuleKind::Equal,
            "fabric_manager",
            "driver",
            vec![any.clone()],
        );
        assert_eq!(
            judge(
                &equal,
                &[("fabric_manager", "535.129.03"), ("driver", "535.129.03")]
            ),
            Some(Level::Ok)
        );
        assert_eq!(
            judge(
                &equal,
                &[("fabric_manager", "530.30.02"), ("driver", "530.41.03")]
            ),
            Some(Level::Violation)
        );
        let mut newer = rule(
            RuleKind::NotOlderThan,
            "driver_cuda",
            "cuda_toolkit",
            vec![any],
        );
        newer.severity = Severity::Risk;
        assert_eq!(
            judge(
                &newer,
                &[("driver_cuda", "12.2"), ("cuda_toolkit", "12.4.131")]
            ),
            Some(Level::Risk)
        );
        assert_eq!(
            judge(
                &newer,
                &[("driver_cuda", "12.4"), ("cuda_toolkit", "12.4.131")]
            ),
            Some(Level::Ok)
        );
        // A reported pair is a risk, and only on the kernel the row names.
        let mut pair = row("6.3", "530.30.02");
        pair.max = Some("530.30.02".into());
        pair.authority = Authority::Reported;
        let bad = rule(RuleKind::BadPair, "driver", "kernel", vec![pair]);
        assert_eq!(
            judge(
                &bad,
                &[("kernel", "6.3.1-arch2-1"), ("driver", "530.30.02")]
            ),
            Some(Level::Risk)
        );
        assert_eq!(
            judge(
                &bad,
                &[("kernel", "6.3.1-arch2-1"), ("driver", "535.54.03")]
            ),
            Some(Level::Ok)
        );
        assert_eq!(
            judge(&bad, &[("kernel", "6.30.1"), ("driver", "530.30.02")]),
            None
        );
    }

    #[test]
    fn an_exception_softens_a_broken_rule() {
        let mut minimum = rule(
            RuleKind::MinimumVersion,
            "driver",
            "cuda_runtime",
            vec![row("12", "525")],
        );
        minimum.exceptions.push(crate::doc::compat::Exception {
            when: [("cuda_compat".to_string(), "*".to_string())].into(),
            level: ExceptionLevel::Risk,
            message: "forward compatibility".into(),
            source: "https://example.com/fc".into(),
        });
        assert_eq!(
            judge(
                &minimum,
                &[("driver", "470.57.02"), ("cuda_runtime", "12.1")]
            ),
            Some(Level::Violation)
        );
        let get = |f: &str| match f {
            "driver" => Some("470.57.02".to_string()),
            "cuda_runtime" | "cuda_compat" => Some("12.1".to_string()),
            _ => None,
        };
        let outcome = evaluate(&minimum, &get, today()).unwrap();
        assert_eq!(outcome.level, Level::Risk);
        assert!(outcome.message.ends_with("but forward compatibility"));
        assert_eq!(outcome.source, "https://example.com/fc");
    }
}
