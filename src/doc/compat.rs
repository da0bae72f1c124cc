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

/// Fields a rule may read beyond a stack's vocabulary: the highest CUDA the driver supports, the
/// loaded kernel module, the architectures a framework build carries (`sm_80 sm_86 ...`), the
/// cuDNN a build was compiled against, and the versions of libraries that publish their own GPU
/// floor (FlashAttention, vLLM, Ollama).
const EXTRA_FIELDS: &[&str] = &[
    "driver_cuda",
    "kernel_module",
    "arch_list",
    "cudnn_built",
    "flash_attn",
    "vllm",
    "ollama",
];

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

/// The kinds of rule this build evaluates. Every kind but `equal` and `not-older-than` looks a
/// row up by the value of the first `by` field the fingerprint has: the most specific row whose
/// key is a version prefix of it (`12` takes 12.4), or equal to it for a word (`open`), or `*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RuleKind {
    /// `of` must be at least the row's `min`.
    MinimumVersion,
    /// `of` must be within the row's `min` and `max` (either may be left out); `max` counts at
    /// its own precision (`max: "580"` admits 580.95.05: a last driver branch).
    Range,
    /// `of` must be one of the row's `values` (`open`).
    Member,
    /// `of` must equal `by` as versions (fabric manager and driver).
    Equal,
    /// `of` must not be older than `by`, compared at the precision of `of` (a driver that
    /// supports CUDA 12.2 and a toolkit 12.4.131: 12.2 < 12.4).
    NotOlderThan,
    /// A pair that was reported bad: `of` within the row's `min`..`max` on a `by` the row's key
    /// takes. Never passes silently, never a violation unless the row is documented.
    BadPair,
    /// The `of` field's branch (the row's key) is supported until the end of the row's `ended`
    /// month (`2026-06`); after it the branch gets no more fixes. Judged against today's date.
    /// `by 2026-11` says the branch had ended by then though no source gives the month, so a
    /// finding never states a date nobody published.
    EndOfLife,
}

impl RuleKind {
    pub fn as_str(self) -> &'static str {
        match self {
            RuleKind::MinimumVersion => "minimum-version",
            RuleKind::Range => "range",
            RuleKind::Member => "member",
            RuleKind::Equal => "equal",
            RuleKind::NotOlderThan => "not-older-than",
            RuleKind::BadPair => "bad-pair",
            RuleKind::EndOfLife => "end-of-life",
        }
    }

    /// The kinds that compare two fields of the paste and read no row value.
    pub fn compares_fields(self) -> bool {
        matches!(self, RuleKind::Equal | RuleKind::NotOlderThan)
    }
}

/// What a broken documented row counts as: most rules are violations, but a rule that states a
/// limit (minor-version compatibility cannot JIT newer PTX) is a risk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    #[default]
    Violation,
    Risk,
}

/// When the rule's verdict does not hold as written: every field of `when` is in the paste and
/// matches (`*`: any value; a version: as a prefix; a word: equal), and then a broken rule is
/// `level` instead, with `message` added.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exception {
    pub when: BTreeMap<String, String>,
    pub level: ExceptionLevel,
    pub message: String,
    pub source: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ExceptionLevel {
    Ok,
    Risk,
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
    /// A version prefix of the `by` field (`12` covers 12.0 .. 12.9; `10.2` only 10.2), a word
    /// it must equal (`open`), or `*` for any value.
    pub key: String,
    #[serde(default)]
    pub min: Option<String>,
    #[serde(default)]
    pub max: Option<String>,
    #[serde(default)]
    pub values: Vec<String>,
    /// The month support ends (`YYYY-MM`), for an `end-of-life` rule.
    #[serde(default)]
    pub ended: Option<String>,
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
    /// What a broken documented row counts as (default `violation`).
    #[serde(default)]
    pub severity: Severity,
    /// What the rule says, for a finding (`{by}`, `{key}`, `{min}`, `{max}`, `{values}`, `{ended}`, `{of}`,
    /// `{value}` are filled).
    pub message: String,
    /// The fields to compare against the row's minimum, first present wins.
    pub of: Vec<String>,
    /// The fields whose version picks the row, first present wins.
    pub by: Vec<String>,
    pub rows: Vec<Row>,
    /// Explicit exceptions, tried in order when the rule is broken.
    #[serde(default)]
    pub exceptions: Vec<Exception>,
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
        for exception in &rule.exceptions {
            for field in exception.when.keys() {
                if !known_field(field) {
                    problems.error(
                        0,
                        format!(
                            "rule `{}`: exception field `{field}` is not a field",
                            rule.id
                        ),
                    );
                }
            }
            if exception.when.is_empty() || !exception.source.starts_with("https://") {
                problems.error(
                    0,
                    format!(
                        "rule `{}`: an exception needs `when` and an https source",
                        rule.id
                    ),
                );
            }
        }
        let by_is_version = rule.by.first().is_some_and(|f| {
            matches!(field_kind(f), Some(FieldKind::Version)) || EXTRA_FIELDS.contains(&f.as_str())
        });
        for row in &rule.rows {
            // What a row of this kind must hold, and its name for the complaint.
            let (holds, reads) = match rule.kind {
                RuleKind::MinimumVersion => (row.min.is_some(), "min"),
                RuleKind::Range | RuleKind::BadPair => {
                    (row.min.is_some() || row.max.is_some(), "min or max")
                }
                RuleKind::Member => (!row.values.is_empty(), "values"),
                RuleKind::Equal | RuleKind::NotOlderThan => {
                    (row.key == "*", "one row with key `*`")
                }
                RuleKind::EndOfLife => (row.ended.is_some(), "ended"),
            };
            if !holds {
                problems.error(
                    0,
                    format!(
                        "rule `{}`: row `{}` lacks what a {} rule reads ({reads})",
                        rule.id,
                        row.key,
                        rule.kind.as_str(),
                    ),
                );
            }
            if row.key != "*"
                && by_is_version
                && let Err(why) = check_value(FieldKind::Version, &row.key)
            {
                problems.error(0, format!("rule `{}`: row key {why}", rule.id));
            }
            for (what, value) in [("min", &row.min), ("max", &row.max)] {
                if let Some(value) = value
                    && let Err(why) = check_value(FieldKind::Version, value)
                {
                    problems.error(0, format!("rule `{}`: row {what} {why}", rule.id));
                }
            }
            if let Some(ended) = &row.ended
                && month_end(ended).is_none()
            {
                problems.error(
                    0,
                    format!(
                        "rule `{}`: row `{}` ended `{ended}` is not a month (YYYY-MM, or `by YYYY-MM` when the month is not published)",
                        rule.id, row.key
                    ),
                );
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
                if !known_field(field) && field != "level" && field != "today" {
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

/// The month an `ended` value names: `by 2026-11` (the branch had ended by then, but no page
/// gives the month it did) names 2026-11.
pub fn ended_month(ended: &str) -> &str {
    let ended = ended.trim();
    ended.strip_prefix("by ").unwrap_or(ended).trim()
}

/// The last day of a `YYYY-MM` month (`2026-06` is 2026-06-30), or of an `ended` value's month.
pub fn month_end(month: &str) -> Option<NaiveDate> {
    let (year, month) = ended_month(month).split_once('-')?;
    let (year, month): (i32, u32) = (year.parse().ok()?, month.parse().ok()?);
    let next = if month == 12 {
        NaiveDate::from_ymd_opt(year + 1, 1, 1)?
    } else {
        NaiveDate::from_ymd_opt(year, month + 1, 1)?
    };
    next.pred_opt()
}
