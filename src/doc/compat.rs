//! A compatibility family (`compat/<family>.md`): what vendors publish, as data. Each rule is of a
//! fixed kind evaluated in Rust (`env::compat`); each row of its table carries its source, its
//! authority and when it was last checked against that source. Examples and counterexamples are
//! fingerprints `lore check` runs through the rule, like a signature's example lines.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use super::frontmatter::split_front_matter;
use super::stack::{FieldKind, check_value, field_kind};
use super::{Diagnostic, Problems, is_valid_id};

/// Fields a rule may read beyond a stack's vocabulary.
const EXTRA_FIELDS: &[&str] = &["driver_cuda", "kernel_module"];

/// Facts older than this are warned about: vendors' tables move.
pub const REVIEW_DAYS: i64 = 180;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Compat {
    pub id: String,
    pub path: PathBuf,
    pub title: String,
    pub rules: Vec<Rule>,
    pub body: String,
}

/// The kinds of rule this build evaluates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RuleKind {
    /// `of` must be at least the row's `min`, the row looked up by the version in the first of
    /// the `by` fields the fingerprint has (the most specific row whose key is a prefix of it).
    MinimumVersion,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Authority {
    /// The vendor's documentation says so.
    Documented,
    /// Public issue threads say so; never a violation, only a risk.
    Reported,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    /// A version prefix of the `by` field (`12` covers 12.0 .. 12.9; `10.2` only 10.2).
    pub key: String,
    pub min: String,
    pub source: String,
    pub authority: Authority,
    pub reviewed_at: NaiveDate,
    #[serde(default)]
    pub note: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    pub id: String,
    pub kind: RuleKind,
    /// What the rule says, for a finding (`{by}`, `{key}`, `{min}`, `{of}`, `{value}` are filled).
    pub message: String,
    /// The fields to compare against the row's minimum, first present wins.
    pub of: Vec<String>,
    /// The fields whose version picks the row, first present wins.
    pub by: Vec<String>,
    pub rows: Vec<Row>,
    /// Fingerprints (field: value) the rule must accept.
    #[serde(default)]
    pub examples: Vec<BTreeMap<String, String>>,
    /// Fingerprints the rule must find in violation.
    #[serde(default)]
    pub counterexamples: Vec<BTreeMap<String, String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Front {
    #[serde(default)]
    id: Option<String>,
    title: String,
    rules: Vec<Rule>,
}

impl Compat {
    pub fn parse(path: &Path, text: &str) -> (Option<Compat>, Vec<Diagnostic>) {
        let mut problems = Problems::new(path);
        let compat = parse_inner(path, text, &mut problems);
        (compat, problems.list)
    }
}

fn known_field(name: &str) -> bool {
    field_kind(name).is_some() || EXTRA_FIELDS.contains(&name)
}

fn parse_inner(path: &Path, text: &str, problems: &mut Problems) -> Option<Compat> {
    let split = match split_front_matter(text) {
        Ok(split) => split,
        Err((line, message, hint)) => {
            problems.error(line, message).hint = Some(hint);
            return None;
        }
    };
    let front: Front = match serde_yaml_ng::from_str(split.yaml) {
        Ok(front) => front,
        Err(e) => {
            let line = e.location().map_or(0, |l| l.line() + split.yaml_line - 1);
            problems.error(line, format!("compat front matter: {e}")).hint = Some(
                "keys: title, rules (each: id, kind, message, of, by, rows, examples, counterexamples)"
                    .into(),
            );
            return None;
        }
    };
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default()
        .to_string();
    let id = front.id.unwrap_or(stem);
    if !is_valid_id(&id) {
        problems.error(1, format!("`{id}` is not a valid compat family id"));
    }
    let today = chrono::Local::now().date_naive();
    for rule in &front.rules {
        for field in rule.of.iter().chain(&rule.by) {
            if !known_field(field) {
                problems.error(0, format!("rule `{}`: `{field}` is not a field", rule.id));
            }
        }
        if rule.of.is_empty() || rule.by.is_empty() || rule.rows.is_empty() {
            problems.error(0, format!("rule `{}` needs `of`, `by` and rows", rule.id));
        }
        for row in &rule.rows {
            for (what, value) in [("key", &row.key), ("min", &row.min)] {
                if let Err(why) = check_value(FieldKind::Version, value) {
                    problems.error(0, format!("rule `{}`: row {what} {why}", rule.id));
                }
            }
            if !row.source.starts_with("https://") {
                problems.error(
                    0,
                    format!("rule `{}`: row `{}` has no https source", rule.id, row.key),
                );
            }
            if (today - row.reviewed_at).num_days() > REVIEW_DAYS {
                problems
                    .warning(
                        0,
                        format!(
                            "rule `{}`: row `{}` was last checked against its source on {}",
                            rule.id, row.key, row.reviewed_at
                        ),
                    )
                    .hint = Some(format!(
                    "re-check it and update reviewed_at (facts older than {REVIEW_DAYS} days are flagged)"
                ));
            }
        }
        for example in rule.examples.iter().chain(&rule.counterexamples) {
            for field in example.keys() {
                if !known_field(field) {
                    problems.error(
                        0,
                        format!("rule `{}`: example field `{field}` is not a field", rule.id),
                    );
                }
            }
        }
    }
    Some(Compat {
        id,
        path: path.to_path_buf(),
        title: front.title,
        rules: front.rules,
        body: split.body.to_string(),
    })
}
