//! Sigma rules: one per signature, for SIEMs and `sigma convert`. Each pattern is rewritten into
//! Sigma's regex subset (`sigma_regex`); what cannot be rewritten exactly is reported and
//! skipped. The rewrite is then run over the signature's examples and counterexamples, and a
//! pattern whose verdicts would change is skipped too. Each rule's id is a UUIDv5 of its
//! signature id.

use serde::Serialize;

use super::sigma_regex::{SigmaRegex, to_sigma};
use super::{Export, ExportError, File, Format, Options, Skips, parse_portable, runbook_url};
use crate::doc::{Runbook, Severity, SignatureSpec};
use crate::format::cut;
use crate::signature::normalize;

#[derive(Serialize)]
struct Rule {
    title: String,
    id: String,
    status: &'static str,
    description: String,
    references: Vec<String>,
    author: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    date: Option<String>,
    logsource: LogSource,
    detection: Detection,
    falsepositives: Vec<String>,
    level: &'static str,
}

#[derive(Serialize)]
struct LogSource {
    product: &'static str,
}

#[derive(Serialize)]
struct Detection {
    selection: std::collections::BTreeMap<String, String>,
    condition: &'static str,
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Critical => "critical",
        Severity::High => "high",
        Severity::Medium => "medium",
        Severity::Low => "low",
        Severity::Info => "informational",
    }
}

/// The file a signature's rule is written to.
pub fn file_name(signature_id: &str) -> String {
    format!("lore-{signature_id}.yml")
}

pub(super) fn export(runbooks: &[Runbook], options: &Options) -> Result<Export, ExportError> {
    let mut skips = Skips::new(Format::Sigma);
    let mut files = Vec::new();
    for runbook in runbooks {
        let url = runbook_url(&options.base_url, runbook);
        for sig in &runbook.signatures {
            if skips.conditioned(runbook, sig, "a Sigma rule") {
                continue;
            }
            if sig.lines > 1 {
                skips.skip(
                    runbook,
                    sig,
                    format!(
                        "a multi-line signature (lines: {}); a Sigma rule matches one event",
                        sig.lines
                    ),
                );
                continue;
            }
            let regex = match parse_portable(&sig.pattern)
                .and_then(|ast| to_sigma(&ast))
                .and_then(|regex| same_verdicts(sig, &regex).map(|()| regex))
            {
                Ok(regex) => regex,
                Err(why) => {
                    skips.skip(runbook, sig, why);
                    continue;
                }
            };
            let mut references = vec![url.clone()];
            references.extend(runbook.references.iter().cloned());
            let mut falsepositives: Vec<String> = sig
                .counterexamples
                .iter()
                .take(5)
                .map(|c| format!("lines like: {}", shorten(c, 200)))
                .collect();
            if falsepositives.is_empty() {
                falsepositives.push("unknown".into());
            }
            let rule = Rule {
                title: format!("{} ({})", runbook.title, sig.id),
                id: rule_id(&sig.id),
                status: "experimental",
                description: format!(
                    "{} Signature {} of the lore runbook {}.",
                    runbook.summary, sig.id, runbook.id
                ),
                references,
                author: "lore export",
                date: runbook
                    .reviewed_at
                    .map(|d| d.format("%Y-%m-%d").to_string()),
                logsource: LogSource { product: "linux" },
                detection: Detection {
                    selection: [(regex.key(), regex.pattern)].into(),
                    condition: "selection",
                },
                falsepositives,
                level: level(runbook.severity),
            };
            let contents = serde_yaml_ng::to_string(&rule).map_err(|e| ExportError::Serialize {
                format: "sigma",
                message: e.to_string(),
            })?;
            files.push(File {
                name: file_name(&sig.id),
                contents,
            });
        }
    }
    Ok(Export {
        exported: files.len(),
        files,
        warnings: skips.list,
    })
}

fn shorten(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or("").trim();
    let short = cut(line, max);
    if short.len() == line.len() {
        line.to_string()
    } else {
        format!("{short}…")
    }
}

/// Runs the rewrite over the signature's examples and counterexamples as lore sees them
/// (prefixes stripped): it must say yes and no exactly where the original does.
fn same_verdicts(sig: &SignatureSpec, regex: &SigmaRegex) -> Result<(), String> {
    let mut flags = String::new();
    if !regex.flags.is_empty() {
        flags = format!("(?{})", regex.flags);
    }
    let rewritten = regex::Regex::new(&format!("{flags}{}", regex.pattern))
        .map_err(|e| format!("the rewrite for Sigma does not compile: {e}"))?;
    let original =
        regex::Regex::new(&sig.pattern).map_err(|e| format!("pattern does not compile: {e}"))?;
    let texts = sig
        .examples
        .iter()
        .map(|e| e.text.as_str())
        .chain(sig.counterexamples.iter().map(String::as_str));
    for text in texts {
        for raw in text.lines() {
            let message = normalize::line(raw.as_bytes()).text;
            for segment in message.split('\n') {
                if original.is_match(segment) != rewritten.is_match(segment) {
                    return Err(format!(
                        "its rewrite into Sigma's regex subset ({}) decides {:?} differently",
                        regex.pattern,
                        shorten(raw, 80)
                    ));
                }
            }
        }
    }
    Ok(())
}

/// A rule's id: a name-based UUID (RFC 4122 version 5) in RFC 4122's URL namespace, named
/// `lore:signature:<id>`, so it depends on the signature id alone and never changes.
fn rule_id(signature_id: &str) -> String {
    let name = format!("lore:signature:{signature_id}");
    uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, name.as_bytes()).to_string()
}

#[cfg(test)]
mod tests {
    use super::super::tests_support::runbook;
    use super::*;

    #[test]
    fn rule_shape_and_stable_id() {
        let mut rb = runbook(
            "gpu-fallen-off-bus",
            Severity::Critical,
            &[
                ("fallen-off-bus-xid", r"(?i)fallen off the bus\b", 1),
                ("window", r"a\s+b", 3),
            ],
        );
        rb.signatures[0].examples[0].text = "[ 1.0] GPU has fallen off the bus.".into();
        let out = super::super::export(&[rb], Format::Sigma, &Options::default()).unwrap();
        assert_eq!(out.exported, 1);
        assert_eq!(out.warnings.len(), 1, "the window signature");
        assert_eq!(out.files[0].name, "lore-fallen-off-bus-xid.yml");
        let doc: serde_yaml_ng::Value = serde_yaml_ng::from_str(&out.files[0].contents).unwrap();
        assert_eq!(
            doc["id"].as_str(),
            Some(rule_id("fallen-off-bus-xid").as_str())
        );
        assert_eq!(doc["level"].as_str(), Some("critical"));
        assert_eq!(doc["logsource"]["product"].as_str(), Some("linux"));
        assert_eq!(
            doc["detection"]["selection"]["|re|i"].as_str(),
            Some("fallen off the bus([^A-Za-z0-9_]|$)")
        );
        assert_eq!(doc["detection"]["condition"].as_str(), Some("selection"));
        assert_eq!(
            doc["references"][0].as_str(),
            Some("http://127.0.0.1:7070/runbooks/gpu-fallen-off-bus")
        );
        assert_eq!(
            doc["falsepositives"][0].as_str(),
            Some("lines like: not this")
        );
    }

    #[test]
    fn a_rewrite_that_changes_a_verdict_is_skipped() {
        // Rust's `\w` takes non-ASCII letters; the rewrite does not.
        let mut rb = runbook("r", Severity::Low, &[("s", r"user \w+ failed", 1)]);
        rb.signatures[0].examples[0].text = "user 李 failed".into();
        let out = super::super::export(&[rb], Format::Sigma, &Options::default()).unwrap();
        assert_eq!(out.exported, 0);
        assert!(
            out.warnings[0].message.contains("differently"),
            "{:?}",
            out.warnings
        );
    }

    #[test]
    fn rule_ids_are_the_uuids_lore_always_gave() {
        // Given before the id came from the `uuid` crate (a hand-written SHA-1 then), and
        // equal to Python's uuid.uuid5(NAMESPACE_URL, "lore:signature:fallen-off-bus-xid").
        assert_eq!(
            rule_id("fallen-off-bus-xid"),
            "b3bfdcc9-c8be-5ead-baff-011c7cf37d8e"
        );
        // Python's uuid.uuid5(NAMESPACE_DNS, "python.org"): the crate is RFC 4122's version 5.
        assert_eq!(
            uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_DNS, b"python.org").to_string(),
            "886313e1-3b8a-5372-9b90-0c9aee199e5d"
        );
    }
}
