//! The rules of `compat/` files, evaluated: each kind of rule is code, its facts are the file's
//! rows.

use std::cmp::Ordering;

use super::{Level, compare_versions};
use crate::doc::Diagnostic;
use crate::doc::compat::{Authority, Compat, Row, Rule, RuleKind};

/// What one rule says about one fingerprint.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub level: Level,
    pub message: String,
    pub source: String,
}

/// The row for `version`: the most specific one whose key is a prefix of it, part by part
/// (`12` takes 12.4; `10.2` takes 10.2.89 but not 10.20).
fn row_for<'r>(rows: &'r [Row], version: &str) -> Option<&'r Row> {
    let parts: Vec<&str> = version
        .split(|c: char| !c.is_ascii_digit())
        .take_while(|p| !p.is_empty())
        .collect();
    rows.iter()
        .filter(|row| {
            let key: Vec<&str> = row.key.split('.').collect();
            key.len() <= parts.len()
                && key
                    .iter()
                    .zip(&parts)
                    .all(|(k, p)| k.parse::<u64>().ok() == p.parse::<u64>().ok())
        })
        .max_by_key(|row| row.key.split('.').count())
}

/// Applies `rule` to a fingerprint read through `get`; `None` when the fingerprint lacks what
/// the rule needs (the rule does not apply, which is not the same as passing).
pub fn evaluate(rule: &Rule, get: &dyn Fn(&str) -> Option<String>) -> Option<Outcome> {
    match rule.kind {
        RuleKind::MinimumVersion => {
            let (by, key_value) = rule.by.iter().find_map(|f| Some((f, get(f)?)))?;
            let (of, value) = rule.of.iter().find_map(|f| Some((f, get(f)?)))?;
            let row = row_for(&rule.rows, &key_value)?;
            let message = rule
                .message
                .replace("{by}", by)
                .replace("{key}", &key_value)
                .replace("{min}", &row.min)
                .replace("{of}", of)
                .replace("{value}", &value);
            let level = if compare_versions(&value, &row.min) != Ordering::Less {
                Level::Ok
            } else if row.authority == Authority::Documented {
                Level::Violation
            } else {
                Level::Risk
            };
            let message = if level == Level::Ok {
                format!(
                    "{of} {value} meets the minimum {} for {by} {key_value}",
                    row.min
                )
            } else {
                message
            };
            Some(Outcome {
                level,
                message,
                source: row.source.clone(),
            })
        }
    }
}

/// `lore check`'s part: every example must be accepted and every counterexample found in
/// violation, through the same evaluation as a paste.
pub fn check_examples(families: &[Compat]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for family in families {
        for rule in &family.rules {
            for (n, example) in rule.examples.iter().enumerate() {
                let get = |f: &str| example.get(f).cloned();
                match evaluate(rule, &get) {
                    Some(o) if o.level != Level::Violation => {}
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
                if evaluate(rule, &get).map(|o| o.level) != Some(Level::Violation) {
                    out.push(Diagnostic::error(
                        &family.path,
                        0,
                        format!(
                            "rule `{}`: counterexample {} must be a violation but is not",
                            rule.id,
                            n + 1
                        ),
                    ));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(key: &str, min: &str) -> Row {
        Row {
            key: key.into(),
            min: min.into(),
            source: "https://example.com".into(),
            authority: Authority::Documented,
            reviewed_at: chrono::NaiveDate::from_ymd_opt(2026, 12, 1).unwrap(),
            note: String::new(),
        }
    }

    #[test]
    fn the_most_specific_row_whose_key_is_a_prefix() {
        let rows = [
            row("12", "525"),
            row("10.2", "440.33"),
            row("10.1", "418.39"),
        ];
        assert_eq!(row_for(&rows, "12.4.131").unwrap().min, "525");
        assert_eq!(row_for(&rows, "10.2.89").unwrap().min, "440.33");
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
        let rule = Rule {
            id: "r".into(),
            kind: RuleKind::MinimumVersion,
            message: "{by} {key} wants {min}, {of} is {value}".into(),
            of: vec!["driver".into()],
            by: vec!["cuda_runtime".into()],
            rows: vec![reported],
            examples: Vec::new(),
            counterexamples: Vec::new(),
        };
        let get = |f: &str| match f {
            "driver" => Some("470.57.02".to_string()),
            "cuda_runtime" => Some("12.1".to_string()),
            _ => None,
        };
        let outcome = evaluate(&rule, &get).unwrap();
        assert_eq!(outcome.level, Level::Risk);
        assert_eq!(
            outcome.message,
            "cuda_runtime 12.1 wants 525, driver is 470.57.02"
        );
        assert!(evaluate(&rule, &|_: &str| None).is_none());
    }
}
