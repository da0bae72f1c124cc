//! A stack: one combination of OS, kernel, GPU, driver, CUDA and framework that a team ran, with
//! its verdict and the evidence for it. What ran (`tested:`) is kept apart from what the team
//! believes beyond it (`extends_to:`, always shown as not tested).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};
use serde_yaml_ng::{Mapping, Value};

use super::frontmatter::{Opened, open, scalar_string};
use super::{Diagnostic, Problems, is_valid_id};

/// What the team concluded about a stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    Good,
    Degraded,
    Bad,
}

impl Verdict {
    pub const ALL: [Verdict; 3] = [Verdict::Good, Verdict::Degraded, Verdict::Bad];

    pub fn parse(text: &str) -> Option<Verdict> {
        Self::ALL
            .into_iter()
            .find(|v| v.as_str().eq_ignore_ascii_case(text.trim()))
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Good => "good",
            Verdict::Degraded => "degraded",
            Verdict::Bad => "bad",
        }
    }
}

/// How a field's value must look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// Free text (`Rocky Linux 9.2`, `A100-SXM4-80GB`, `5.14.0-284.11.1.el9_2`).
    Text,
    /// Starts with a dotted number (`535.129.03`, `12.2`, `2.14.3`); written as a quoted string
    /// in YAML, since `3.10` unquoted is the number 3.1.
    Version,
    /// `<package> <version>` (`torch 2.2.1+cu121`).
    Framework,
    /// `open` or `proprietary`.
    Flavor,
}

/// The closed vocabulary of `tested:` and `extends_to:`, in the order pages show it.
pub const FIELDS: &[(&str, FieldKind, &str)] = &[
    ("os", FieldKind::Text, "operating system and release"),
    ("kernel", FieldKind::Text, "kernel release (uname -r)"),
    ("gpu", FieldKind::Text, "GPU model"),
    ("cc", FieldKind::Version, "compute capability"),
    ("driver", FieldKind::Version, "NVIDIA driver"),
    (
        "driver_flavor",
        FieldKind::Flavor,
        "open or proprietary kernel modules",
    ),
    ("cuda_toolkit", FieldKind::Version, "CUDA toolkit (nvcc)"),
    (
        "cuda_runtime",
        FieldKind::Version,
        "CUDA runtime the framework was built with",
    ),
    ("framework", FieldKind::Framework, "framework and version"),
    ("cudnn", FieldKind::Version, "cuDNN"),
    ("nccl", FieldKind::Version, "NCCL"),
    (
        "fabric_manager",
        FieldKind::Version,
        "NVIDIA Fabric Manager",
    ),
    (
        "container_toolkit",
        FieldKind::Version,
        "NVIDIA Container Toolkit",
    ),
    (
        "cuda_compat",
        FieldKind::Version,
        "cuda-compat (forward compatibility) package",
    ),
    ("python", FieldKind::Version, "Python"),
];

/// The kind of a vocabulary field, `None` when `key` is not one.
pub fn field_kind(key: &str) -> Option<FieldKind> {
    FIELDS
        .iter()
        .find(|(k, _, _)| *k == key)
        .map(|(_, kind, _)| *kind)
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Stack {
    pub id: String,
    /// Relative to the root: `stacks/<id>.md`.
    pub path: PathBuf,
    pub title: String,
    pub verdict: Verdict,
    pub tested_at: Option<NaiveDate>,
    pub tested_by: Vec<String>,
    /// What ran on it (`ResNet-50 DDP, 16 GPUs over 2 nodes`).
    pub workload: String,
    /// Where the verdict holds (`train-a pilot partition`).
    pub scope: String,
    /// Incident ids (checked to exist) and links.
    pub evidence: Vec<String>,
    /// Exactly what ran, in [`FIELDS`] order.
    pub tested: Vec<(String, String)>,
    /// The team's claim beyond what ran: never shown as tested.
    pub extends_to: Vec<(String, String)>,
    pub body: String,
    pub body_line: usize,
    pub extra: Mapping,
    pub key_lines: BTreeMap<String, usize>,
}

pub const KNOWN_KEYS: &[&str] = &[
    "id",
    "title",
    "verdict",
    "tested_at",
    "tested_by",
    "workload",
    "scope",
    "evidence",
    "tested",
    "extends_to",
];

impl Stack {
    pub fn parse(path: &Path, text: &str) -> (Option<Stack>, Vec<Diagnostic>) {
        let mut problems = Problems::new(path);
        let stack = parse_inner(path, text, &mut problems);
        (stack, problems.list)
    }

    /// A tested field's value.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.tested
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Evidence entries that name incidents (not links).
    pub fn incident_evidence(&self) -> impl Iterator<Item = &str> {
        self.evidence
            .iter()
            .map(String::as_str)
            .filter(|e| !e.contains("://"))
    }
}

/// Whether `value` looks right for a field of `kind`; the reason when not.
pub fn check_value(kind: FieldKind, value: &str) -> Result<(), String> {
    let dotted = |v: &str| {
        let number: String = v
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        !number.is_empty()
            && !number.starts_with('.')
            && !number.contains("..")
            && number.split('.').all(|p| p.is_empty() || p.len() <= 6)
    };
    match kind {
        FieldKind::Text if value.trim().is_empty() => Err("is empty".into()),
        FieldKind::Text => Ok(()),
        FieldKind::Version if dotted(value.trim()) => Ok(()),
        FieldKind::Version => Err(format!(
            "`{value}` is not a version: it must start with a number like 535.129.03"
        )),
        FieldKind::Framework => {
            let mut parts = value.split_whitespace();
            match (parts.next(), parts.next(), parts.next()) {
                (Some(name), Some(version), None)
                    if name
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
                        && dotted(version) =>
                {
                    Ok(())
                }
                _ => Err(format!(
                    "`{value}` is not `<package> <version>` like `torch 2.2.1+cu121`"
                )),
            }
        }
        FieldKind::Flavor if matches!(value.trim(), "open" | "proprietary") => Ok(()),
        FieldKind::Flavor => Err(format!("`{value}` is neither `open` nor `proprietary`")),
    }
}

/// The `tested:` or `extends_to:` mapping, checked against the vocabulary.
fn fields(
    key: &str,
    value: Option<Value>,
    line: usize,
    problems: &mut Problems,
) -> Vec<(String, String)> {
    let map = match value {
        None => return Vec::new(),
        Some(Value::Mapping(map)) => map,
        Some(_) => {
            problems
                .error(line, format!("`{key}` must be a mapping of field: value"))
                .hint = Some(format!(
                "write `{key}:` then lines like `  driver: \"535.129.03\"`"
            ));
            return Vec::new();
        }
    };
    let mut out = Vec::new();
    for (k, v) in map {
        let Some(name) = k.as_str().map(str::to_string) else {
            problems.error(line, format!("`{key}` has a key that is not text"));
            continue;
        };
        let Some(kind) = field_kind(&name) else {
            problems
                .error(line, format!("`{key}.{name}` is not a stack field"))
                .hint = Some(format!(
                "use one of {}",
                FIELDS.iter().map(|f| f.0).collect::<Vec<_>>().join(", ")
            ));
            continue;
        };
        if kind == FieldKind::Version && matches!(v, Value::Number(_)) {
            problems
                .error(
                    line,
                    format!("`{key}.{name}` is a YAML number; versions must be quoted"),
                )
                .hint = Some(format!(
                "write `{name}: \"{}\"` (unquoted, 3.10 would read as 3.1)",
                scalar_string(&v).unwrap_or_default()
            ));
            continue;
        }
        let Some(text) = scalar_string(&v) else {
            problems.error(line, format!("`{key}.{name}` must be a single text value"));
            continue;
        };
        if let Err(why) = check_value(kind, &text) {
            problems.error(line, format!("`{key}.{name}` {why}"));
            continue;
        }
        out.push((name, text.trim().to_string()));
    }
    out.sort_by_key(|(k, _)| FIELDS.iter().position(|f| f.0 == k));
    out
}

fn parse_inner(path: &Path, text: &str, problems: &mut Problems) -> Option<Stack> {
    let Opened {
        split,
        mut fm,
        key_lines,
        id,
    } = open(
        path,
        text,
        KNOWN_KEYS,
        "stack",
        "rocky92-535-a100-nccl",
        problems,
    )?;
    let title = fm.take_string("title", problems).unwrap_or_else(|| {
        problems
            .error(fm.line_of_key("title"), "`title` is missing")
            .hint = Some("add `title: <the stack in a few words>`".into());
        id.clone()
    });
    let verdict = fm.take_choice(
        "verdict",
        &["good", "degraded", "bad"],
        Verdict::parse,
        Verdict::Degraded,
        problems,
    );
    let tested_at = fm.take_date("tested_at", "2025-11-07", problems);
    let tested_by = fm.take_list("tested_by", problems);
    let workload = fm.take_string("workload", problems).unwrap_or_default();
    let scope = fm.take_string("scope", problems).unwrap_or_default();
    let evidence = fm.take_list("evidence", problems);
    for e in &evidence {
        if !e.contains("://") && !is_valid_id(e) {
            problems
                .error(
                    fm.line_of_key("evidence"),
                    format!("evidence `{e}` is neither an incident id nor a link"),
                )
                .hint = Some("list incident ids (2025-10-20-...) and https:// links".into());
        }
    }
    let tested_line = fm.line_of_key("tested");
    let tested = fields("tested", fm.take("tested"), tested_line, problems);
    if tested.is_empty() {
        problems
            .error(tested_line, "`tested` names nothing that ran")
            .hint = Some("list at least the driver, GPU and framework that ran".into());
    }
    let extends_line = fm.line_of_key("extends_to");
    let extends_to = fields("extends_to", fm.take("extends_to"), extends_line, problems);
    if !split.body.contains("## Result") {
        problems
            .warning(split.body_line, "the body has no `## Result` section")
            .hint = Some("say what was measured; then How it was tested, and Workaround".into());
    }
    Some(Stack {
        id,
        path: path.to_path_buf(),
        title,
        verdict,
        tested_at,
        tested_by,
        workload,
        scope,
        evidence,
        tested,
        extends_to,
        body: split.body.to_string(),
        body_line: split.body_line,
        extra: std::mem::take(&mut fm.map),
        key_lines,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> (Option<Stack>, Vec<Diagnostic>) {
        Stack::parse(Path::new("stacks/s.md"), text)
    }

    const GOOD: &str = "---\ntitle: Rocky 9.2 + 525 on A100\nverdict: good\ntested_at: 2025-11-04\ntested_by: [chen.jing]\nworkload: ResNet-50, 16 GPUs\nevidence: [2025-10-20-rocky92-driver535-allreduce-latency, https://example.com/x]\ntested:\n  framework: torch 1.13.1+cu117\n  driver: \"525.147.05\"\n  os: Rocky Linux 9.2\n  nccl: \"2.14.3\"\nextends_to:\n  driver: \"525.x\"\n---\n## Result\nFine.\n";

    #[test]
    fn reads_a_stack_in_vocabulary_order() {
        let (stack, problems) = parse(GOOD);
        assert!(problems.is_empty(), "{problems:?}");
        let stack = stack.unwrap();
        assert_eq!(stack.verdict, Verdict::Good);
        let keys: Vec<&str> = stack.tested.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["os", "driver", "framework", "nccl"]);
        assert_eq!(stack.get("driver"), Some("525.147.05"));
        assert_eq!(
            stack.incident_evidence().collect::<Vec<_>>(),
            ["2025-10-20-rocky92-driver535-allreduce-latency"]
        );
        assert_eq!(
            stack.extends_to,
            [("driver".to_string(), "525.x".to_string())]
        );
    }

    #[test]
    fn every_problem_is_reported() {
        let text = "---\ntitle: t\nverdict: fine\ntested:\n  driver: 535.129\n  python: \"three\"\n  framework: torch\n  driver_flavor: closed\n  gpu_count: 8\nevidence: [not an id]\n---\nno result\n";
        let (stack, problems) = parse(text);
        assert!(stack.is_some(), "a stack with problems still parses");
        let all = problems
            .iter()
            .map(|d| d.message.clone())
            .collect::<Vec<_>>()
            .join("\n");
        for expected in [
            "unknown verdict `fine`",
            "`tested.driver` is a YAML number",
            "`tested.python` `three` is not a version",
            "`tested.framework` `torch` is not `<package> <version>`",
            "`tested.driver_flavor` `closed` is neither",
            "`tested.gpu_count` is not a stack field",
            "evidence `not an id` is neither",
            "no `## Result` section",
        ] {
            assert!(all.contains(expected), "missing {expected:?} in\n{all}");
        }
    }

    #[test]
    fn versions_must_start_with_a_number() {
        for ok in ["535.129.03", "12.2", "2.14.3+cuda11.7", "3.10", "8.0"] {
            assert!(check_value(FieldKind::Version, ok).is_ok(), "{ok}");
        }
        for bad in ["", "v535", ".5", "latest", "1..2"] {
            assert!(check_value(FieldKind::Version, bad).is_err(), "{bad}");
        }
    }
}
