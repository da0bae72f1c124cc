//! node-problem-detector system-log-monitor configs: one per log watcher plugin (`kmsg` reads
//! `/dev/kmsg`, `journald` the journal's kernel messages).
//!
//! What NPD matches is the message alone: the kmsg watcher drops the record header and the
//! journald watcher hands over the `MESSAGE` field, the same text lore's patterns are written
//! for (prefixes stripped). NPD keeps the last `bufferSize` messages joined by `\n` and compiles
//! each rule as `pattern + \z`, so a rule fires when its pattern ends in the newest line. The
//! exported pattern is therefore `(?:P).*`: the group keeps a top-level `|` of `P` away from the
//! `\z`, and `.*` (which does not cross a newline) lets the match end anywhere in the newest line.
//! Multi-line signatures use the same buffer: `bufferSize` is the largest `lines` window. (A
//! one-line pattern could then match across buffered lines through `\s` or a negated class;
//! the integration test replays every example and counterexample through this buffer in RE2.)

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

use super::{
    Export, ExportError, File, Format, NpdPlugin, Options, Skips, camel_case, has_line_anchor,
    parse_portable, runbook_url,
};
use crate::doc::{Runbook, Severity};

/// The node condition that critical causes set (they need a reboot or a repair, so they stay
/// until the node is fixed); other causes raise events only.
const CONDITION: &str = "KnownCriticalProblem";
const CONDITION_OK_REASON: &str = "NoKnownCriticalProblem";
const SOURCE: &str = "lore-monitor";

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Config {
    plugin: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    plugin_config: Option<BTreeMap<&'static str, &'static str>>,
    log_path: &'static str,
    lookback: &'static str,
    buffer_size: usize,
    source: &'static str,
    conditions: Vec<Condition>,
    rules: Vec<Rule>,
}

#[derive(Serialize)]
struct Condition {
    #[serde(rename = "type")]
    kind: &'static str,
    reason: &'static str,
    message: &'static str,
}

#[derive(Serialize, Clone)]
#[serde(rename_all = "camelCase")]
struct Rule {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    condition: Option<&'static str>,
    reason: String,
    pattern: String,
    pattern_generated_message_suffix: String,
}

/// The file a plugin's config is written to.
pub fn file_name(plugin: NpdPlugin) -> &'static str {
    match plugin {
        NpdPlugin::Kmsg => "lore-kmsg-monitor.json",
        NpdPlugin::Journald => "lore-journald-monitor.json",
        NpdPlugin::Doctor => "lore-doctor-plugin.json",
    }
}

/// The node condition `lore doctor --npd` sets while it finds something to act on.
const DOCTOR_CONDITION: &str = "GPUNodeProblem";

/// A custom-plugin-monitor config: NPD runs `lore doctor --npd` every ten minutes; exit 1 sets
/// the condition with the doctor's one line as its message, exit 0 clears it, 2 is unknown.
fn doctor_config(options: &Options) -> serde_json::Value {
    serde_json::json!({
        "plugin": "custom",
        "pluginConfig": {
            "invoke_interval": "10m",
            "timeout": "75s",
            "max_output_length": 80,
            "concurrency": 1
        },
        "source": "lore-doctor",
        "conditions": [{
            "type": DOCTOR_CONDITION,
            "reason": "LoreDoctorFoundNothing",
            "message": "lore doctor found nothing to act on"
        }],
        "rules": [{
            "type": "permanent",
            "condition": DOCTOR_CONDITION,
            "reason": "LoreDoctorFoundProblem",
            "path": options.lore_bin,
            "args": ["--root", options.lore_root, "doctor", "--npd", "--budget", "60s"],
            "timeout": "75s"
        }]
    })
}

/// The pattern NPD is given for a signature's pattern `P` (NPD itself appends `\z`).
fn npd_pattern(pattern: &str, ast: &regex_syntax::ast::Ast) -> String {
    if has_line_anchor(ast) {
        // `^`/`$` meant the message's start and end; in NPD's buffer each message is a line.
        format!("(?m:{pattern}).*")
    } else {
        format!("(?:{pattern}).*")
    }
}

pub(super) fn export(runbooks: &[Runbook], options: &Options) -> Result<Export, ExportError> {
    let mut skips = Skips::new(Format::Npd);
    let mut rules = Vec::new();
    let mut reasons = HashSet::new();
    let mut buffer_size = 1;
    for runbook in runbooks {
        let url = runbook_url(&options.base_url, runbook);
        for sig in &runbook.signatures {
            if skips.conditioned(runbook, sig, "node-problem-detector's log monitor") {
                continue;
            }
            let ast = match parse_portable(&sig.pattern) {
                Ok(ast) => ast,
                Err(why) => {
                    skips.skip(runbook, sig, why);
                    continue;
                }
            };
            let reason = camel_case(&sig.id);
            if !reasons.insert(reason.clone()) {
                skips.skip(
                    runbook,
                    sig,
                    format!("its reason {reason} is already taken by another signature"),
                );
                continue;
            }
            buffer_size = buffer_size.max(sig.lines);
            let permanent = runbook.severity == Severity::Critical;
            rules.push(Rule {
                kind: if permanent { "permanent" } else { "temporary" },
                condition: permanent.then_some(CONDITION),
                reason,
                pattern: npd_pattern(&sig.pattern, &ast),
                pattern_generated_message_suffix: format!("runbook: {url}"),
            });
        }
    }
    let mut files = Vec::new();
    for &plugin in &options.plugins {
        let watcher = |name, plugin_config, log_path| Config {
            plugin: name,
            plugin_config,
            log_path,
            lookback: "5m",
            buffer_size,
            source: SOURCE,
            conditions: vec![Condition {
                kind: CONDITION,
                reason: CONDITION_OK_REASON,
                message: "no critical problem from the lore runbooks",
            }],
            rules: rules.clone(),
        };
        let contents = match plugin {
            NpdPlugin::Kmsg => serde_json::to_string_pretty(&watcher("kmsg", None, "/dev/kmsg")),
            NpdPlugin::Journald => serde_json::to_string_pretty(&watcher(
                "journald",
                Some(BTreeMap::from([("source", "kernel")])),
                "/var/log/journal",
            )),
            NpdPlugin::Doctor => serde_json::to_string_pretty(&doctor_config(options)),
        };
        let mut contents = contents.map_err(|e| ExportError::Serialize {
            format: "npd",
            message: e.to_string(),
        })?;
        contents.push('\n');
        files.push(File {
            name: file_name(plugin).to_string(),
            contents,
        });
    }
    // The doctor plugin alone exports no signature.
    let watchers = options.plugins.iter().any(|p| *p != NpdPlugin::Doctor);
    Ok(Export {
        files,
        warnings: if watchers { skips.list } else { Vec::new() },
        exported: if watchers { rules.len() } else { 0 },
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests_support::runbook;
    use super::*;

    #[test]
    fn the_doctor_plugin_runs_lore_doctor() {
        let options = Options {
            plugins: vec![NpdPlugin::Doctor],
            lore_root: "/srv/lore".into(),
            ..Options::default()
        };
        let out = super::super::export(&[], Format::Npd, &options).unwrap();
        assert_eq!(out.files[0].name, "lore-doctor-plugin.json");
        let config: serde_json::Value = serde_json::from_str(&out.files[0].contents).unwrap();
        assert_eq!(config["plugin"], "custom");
        assert_eq!(config["pluginConfig"]["max_output_length"], 80);
        let rule = &config["rules"][0];
        assert_eq!(rule["type"], "permanent");
        assert_eq!(rule["condition"], config["conditions"][0]["type"]);
        assert_eq!(
            rule["args"],
            serde_json::json!(["--root", "/srv/lore", "doctor", "--npd", "--budget", "60s"])
        );
        assert_eq!(out.exported, 0);
    }

    #[test]
    fn config_shape() {
        let rb = runbook(
            "gpu-fallen-off-bus",
            Severity::Critical,
            &[("fallen-off-bus-xid", r"NVRM: Xid \(.*\): 79\b|GPU lost", 1)],
        );
        let out = super::super::export(&[rb], Format::Npd, &Options::default()).unwrap();
        assert!(out.warnings.is_empty());
        assert_eq!(out.exported, 1);
        let names: Vec<&str> = out.files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            names,
            ["lore-kmsg-monitor.json", "lore-journald-monitor.json"]
        );
        let kmsg: serde_json::Value = serde_json::from_str(&out.files[0].contents).unwrap();
        assert_eq!(kmsg["plugin"], "kmsg");
        assert_eq!(kmsg["logPath"], "/dev/kmsg");
        assert_eq!(kmsg["bufferSize"], 1);
        assert_eq!(kmsg["conditions"][0]["type"], CONDITION);
        let rule = &kmsg["rules"][0];
        assert_eq!(rule["type"], "permanent");
        assert_eq!(rule["condition"], CONDITION);
        assert_eq!(rule["reason"], "FallenOffBusXid");
        assert_eq!(rule["pattern"], r"(?:NVRM: Xid \(.*\): 79\b|GPU lost).*");
        assert_eq!(
            rule["patternGeneratedMessageSuffix"],
            "runbook: http://127.0.0.1:7070/runbooks/gpu-fallen-off-bus"
        );
        let journald: serde_json::Value = serde_json::from_str(&out.files[1].contents).unwrap();
        assert_eq!(journald["plugin"], "journald");
        assert_eq!(journald["pluginConfig"]["source"], "kernel");
    }

    #[test]
    fn temporary_rules_and_buffer_for_windows() {
        let rb = runbook(
            "api-mismatch",
            Severity::High,
            &[("split", r"(?m)^a\s+b$", 3), ("one", "x", 1)],
        );
        let out = super::super::export(&[rb], Format::Npd, &Options::default()).unwrap();
        let kmsg: serde_json::Value = serde_json::from_str(&out.files[0].contents).unwrap();
        assert_eq!(kmsg["bufferSize"], 3);
        assert_eq!(kmsg["rules"][0]["type"], "temporary");
        assert!(kmsg["rules"][0].get("condition").is_none());
        assert_eq!(kmsg["rules"][0]["pattern"], r"(?m:(?m)^a\s+b$).*");
    }

    #[test]
    fn what_re2_lacks_is_skipped_and_said() {
        let rb = runbook(
            "r",
            Severity::Low,
            &[("letters", r"\p{Letter}+ failed", 1), ("ok", "fine", 1)],
        );
        let out = super::super::export(&[rb], Format::Npd, &Options::default()).unwrap();
        assert_eq!(out.exported, 1);
        assert_eq!(out.warnings.len(), 1);
        let line = out.warnings[0].to_string();
        assert!(
            line.starts_with("runbooks/r.md: signature letters skipped for npd: RE2 lacks"),
            "{line}"
        );
        assert!(!out.files[0].contents.contains("Letter"));
    }
}
