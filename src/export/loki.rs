//! Loki ruler rules: one group per runbook, one alert per signature. Each alert counts the lines
//! its pattern matches (`count_over_time` over a LogQL `|~` line filter) and fires when there is
//! any, labelled with the runbook's severity and linking to the runbook.
//!
//! A line filter sees one log line, as stored (prefixes included), so multi-line signatures are
//! skipped; lore's patterns are unanchored and written against the message, which they still
//! find inside the whole line.

use serde::Serialize;

use super::{
    Export, ExportError, File, Format, Options, Skips, camel_case, parse_portable, runbook_url,
};
use crate::doc::Runbook;

const FILE_NAME: &str = "lore-rules.yaml";

#[derive(Serialize)]
struct RuleFile {
    groups: Vec<Group>,
}

#[derive(Serialize)]
struct Group {
    name: String,
    rules: Vec<Rule>,
}

#[derive(Serialize)]
struct Rule {
    alert: String,
    expr: String,
    labels: Labels,
    annotations: Annotations,
}

#[derive(Serialize)]
struct Labels {
    severity: &'static str,
    runbook: String,
    signature: String,
}

#[derive(Serialize)]
struct Annotations {
    summary: String,
    description: String,
    runbook_url: String,
}

/// A LogQL string holding `text` exactly: a raw backtick string, or a double-quoted one if the
/// text has a backtick (a raw string cannot hold one).
fn logql_string(text: &str) -> String {
    if !text.contains('`') {
        return format!("`{text}`");
    }
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '\\' => out.push_str(r"\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str(r"\n"),
            '\t' => out.push_str(r"\t"),
            '\r' => out.push_str(r"\r"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `5m`, `1h30m`, `30s`: a Prometheus duration.
fn valid_duration(text: &str) -> bool {
    let mut rest = text;
    if rest.is_empty() {
        return false;
    }
    while !rest.is_empty() {
        let digits = rest.chars().take_while(char::is_ascii_digit).count();
        if digits == 0 {
            return false;
        }
        rest = &rest[digits..];
        let unit = ["ms", "s", "m", "h", "d", "w", "y"]
            .into_iter()
            .find(|u| rest.starts_with(u));
        match unit {
            Some(u) => rest = &rest[u.len()..],
            None => return false,
        }
    }
    true
}

fn valid_selector(text: &str) -> bool {
    let t = text.trim();
    t.len() > 2 && t.starts_with('{') && t.ends_with('}') && t.contains('=')
}

pub(super) fn export(runbooks: &[Runbook], options: &Options) -> Result<Export, ExportError> {
    if !valid_duration(&options.window) {
        return Err(ExportError::Window(options.window.clone()));
    }
    if !valid_selector(&options.selector) {
        return Err(ExportError::Selector(options.selector.clone()));
    }
    let mut skips = Skips::new(Format::Loki);
    let mut groups = Vec::new();
    let mut exported = 0;
    for runbook in runbooks {
        let url = runbook_url(&options.base_url, runbook);
        let mut rules = Vec::new();
        for sig in &runbook.signatures {
            if skips.conditioned(runbook, sig, "a LogQL line filter") {
                continue;
            }
            if sig.lines > 1 {
                skips.skip(
                    runbook,
                    sig,
                    format!(
                        "a multi-line signature (lines: {}); a LogQL line filter sees one line at a time",
                        sig.lines
                    ),
                );
                continue;
            }
            if let Err(why) = parse_portable(&sig.pattern) {
                skips.skip(runbook, sig, why);
                continue;
            }
            let expr = format!(
                "count_over_time({} |~ {} [{}]) > 0",
                options.selector.trim(),
                logql_string(&sig.pattern),
                options.window
            );
            rules.push(Rule {
                alert: camel_case(&sig.id),
                expr,
                labels: Labels {
                    severity: runbook.severity.as_str(),
                    runbook: runbook.id.clone(),
                    signature: sig.id.clone(),
                },
                annotations: Annotations {
                    summary: runbook.title.clone(),
                    description: runbook.summary.clone(),
                    runbook_url: url.clone(),
                },
            });
        }
        exported += rules.len();
        if !rules.is_empty() {
            groups.push(Group {
                name: format!("lore-{}", runbook.id),
                rules,
            });
        }
    }
    let contents =
        serde_yaml_ng::to_string(&RuleFile { groups }).map_err(|e| ExportError::Serialize {
            format: "loki",
            message: e.to_string(),
        })?;
    Ok(Export {
        files: vec![File {
            name: FILE_NAME.into(),
            contents,
        }],
        warnings: skips.list,
        exported,
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests_support::runbook;
    use super::*;
    use crate::doc::Severity;

    fn export_one(pattern: &str, lines: usize, options: &Options) -> Export {
        let rb = runbook(
            "nvml-mismatch",
            Severity::High,
            &[("nvml-version", pattern, lines)],
        );
        super::super::export(&[rb], Format::Loki, options).unwrap()
    }

    #[test]
    fn rule_file_shape() {
        let options = Options {
            base_url: "https://lore.example.com/".into(),
            window: "5m".into(),
            ..Options::default()
        };
        let out = export_one(r#"Failed to initialize NVML: "(?P<e>\w+)""#, 1, &options);
        assert_eq!(out.exported, 1);
        let doc: serde_yaml_ng::Value = serde_yaml_ng::from_str(&out.files[0].contents).unwrap();
        let group = &doc["groups"][0];
        assert_eq!(group["name"].as_str(), Some("lore-nvml-mismatch"));
        let rule = &group["rules"][0];
        assert_eq!(rule["alert"].as_str(), Some("NvmlVersion"));
        assert_eq!(
            rule["expr"].as_str(),
            Some(
                r#"count_over_time({job=~".+"} |~ `Failed to initialize NVML: "(?P<e>\w+)"` [5m]) > 0"#
            )
        );
        assert_eq!(rule["labels"]["severity"].as_str(), Some("high"));
        assert_eq!(
            rule["annotations"]["runbook_url"].as_str(),
            Some("https://lore.example.com/runbooks/nvml-mismatch")
        );
        assert_eq!(
            rule["annotations"]["summary"].as_str(),
            Some("Title of nvml-mismatch")
        );
    }

    #[test]
    fn backticks_use_a_quoted_string() {
        assert_eq!(logql_string(r"a\d"), r"`a\d`");
        assert_eq!(
            logql_string(r#"file `nvidia-smi` "x\.y""#),
            r#""file `nvidia-smi` \"x\\.y\"""#
        );
    }

    #[test]
    fn multi_line_signatures_are_skipped() {
        let out = export_one(r"a\s+b", 3, &Options::default());
        assert_eq!(out.exported, 0);
        assert!(out.warnings[0].message.contains("multi-line"));
        let doc: serde_yaml_ng::Value = serde_yaml_ng::from_str(&out.files[0].contents).unwrap();
        assert_eq!(doc["groups"].as_sequence().map(Vec::len), Some(0));
    }

    #[test]
    fn options_are_checked() {
        for window in ["10m", "1h30m", "30s", "500ms"] {
            assert!(valid_duration(window), "{window}");
        }
        for window in ["", "10", "m", "ten minutes", "5m "] {
            assert!(!valid_duration(window), "{window}");
        }
        let rb = runbook("r", Severity::Low, &[("s", "x", 1)]);
        let bad = Options {
            window: "soon".into(),
            ..Options::default()
        };
        assert!(super::super::export(std::slice::from_ref(&rb), Format::Loki, &bad).is_err());
        let bad = Options {
            selector: "job".into(),
            ..Options::default()
        };
        assert!(super::super::export(&[rb], Format::Loki, &bad).is_err());
    }
}
