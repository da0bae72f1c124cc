use std::path::Path;

use super::prefill::timeline_rows_from_log;
use super::*;
use crate::doc::Runbook;

fn library() -> Library {
    let (runbook, _) = Runbook::parse(
        Path::new("runbooks/driver-version-mismatch.md"),
        "---\ntitle: Driver versions differ\nseverity: critical\nsignatures:\n  - id: api\n    pattern: 'NVRM: API mismatch'\n---\n",
    );
    Library::from_documents(
        Path::new("."),
        vec![runbook.unwrap()],
        Vec::new(),
        Vec::new(),
    )
}

fn postmortem() -> Postmortem {
    Postmortem {
        title: "GPUs lost after a driver upgrade".into(),
        started_at: "2026-04-03T14:02:00+08:00".into(),
        detected_at: "2026-04-03T14:05:00+08:00".into(),
        runbooks: vec!["driver-version-mismatch".into()],
        hosts: vec!["gpu-a100-07".into()],
        action_items: vec![PostmortemAction {
            title: "Hold packages".into(),
            owner: "ops".into(),
            status: "open".into(),
            due: "2026-04-17".into(),
        }],
        timeline: vec![TimelineRow {
            time: "2026-04-03 14:02 +08:00".into(),
            text: "alerts".into(),
        }],
        ..Postmortem::new()
    }
}

#[test]
fn validation_reports_every_problem() {
    let mut d = postmortem();
    d.title = " ".into();
    d.severity = "P1".into();
    d.resolved_at = "2026-04-03T13:00:00+08:00".into();
    d.mitigated_at = "soon".into();
    d.runbooks.push("nope".into());
    d.action_items.push(PostmortemAction {
        title: "x".into(),
        due: "tomorrow".into(),
        ..PostmortemAction::default()
    });
    let fields: Vec<String> = d
        .validate(&library())
        .into_iter()
        .map(|p| p.field)
        .collect();
    assert_eq!(
        fields,
        [
            "title",
            "severity",
            "mitigated_at",
            "resolved_at",
            "runbooks",
            "action_items"
        ]
    );
    assert!(postmortem().validate(&library()).is_empty());
}

#[test]
fn renders_a_file_that_parses_back() {
    let mut d = postmortem();
    d.extra.insert("reviewer".into(), "alice".into());
    let text = d.render();
    assert!(
        text.starts_with("---\ntitle: GPUs lost after a driver upgrade\n"),
        "{text}"
    );
    let (incident, problems) = Incident::parse(Path::new("incidents/x.md"), &text);
    assert!(problems.is_empty(), "{problems:?}\n{text}");
    let incident = incident.unwrap();
    assert_eq!(incident.runbooks, ["driver-version-mismatch"]);
    assert_eq!(
        incident.extra.get("reviewer").and_then(|v| v.as_str()),
        Some("alice")
    );
    assert!(
        incident
            .body
            .contains("## Timeline\n\n- 2026-04-03 14:02 +08:00 — alerts\n"),
        "{}",
        incident.body
    );
    // And back into a postmortem: the same rows, the same body.
    let again = Postmortem::from_incident(&incident);
    assert_eq!(again.timeline, d.timeline);
    assert_eq!(again.render(), text);
}

#[test]
fn ids() {
    assert_eq!(
        postmortem().base_id(),
        "2026-04-03-gpus-lost-after-a-driver-upgrade"
    );
    let mut d = postmortem();
    d.title = "驱动版本不匹配".into();
    assert_eq!(d.base_id(), "2026-04-03-incident");
}

#[test]
fn timeline_lines_that_are_not_rows_are_kept() {
    let body = "## Summary\nx\n## Timeline\n\n- 2026-04-03 14:02 +08:00 — first\nfree text line\n- 14:30 — second\n## Root cause\ny\n";
    let (rest, rows) = split_timeline(body);
    assert_eq!(rows.len(), 3);
    assert_eq!(
        rows[1],
        TimelineRow {
            time: String::new(),
            text: "free text line".into()
        }
    );
    assert_eq!(rows[2].time, "14:30");
    let merged = merge_timeline(&rest, &rows);
    assert!(merged.contains("- free text line\n"), "{merged}");
    assert!(merged.contains("## Root cause\ny"), "{merged}");
}

#[test]
fn uptimes_become_wall_clock_when_the_boot_time_is_known() {
    let lines = vec![
        (1, "[   10.000000] NVRM: loading".to_string()),
        (
            2,
            "Nov 29 03:17:40 gpu07 kernel: [ 4216.000000] NVRM: API mismatch".to_string(),
        ),
        (3, "[ 4220.500000] NVRM: Xid 79".to_string()),
    ];
    let rows = timeline_rows_from_log(&lines, 2026);
    let times: Vec<&str> = rows.iter().map(|r| r.time.as_str()).collect();
    assert_eq!(
        times,
        [
            "2026-11-29 02:07:34",
            "2026-11-29 03:17:40",
            "2026-11-29 03:17:44"
        ]
    );
    let rows = timeline_rows_from_log(&[(1, "[ 4220.5] NVRM: Xid 79".to_string())], 2026);
    assert_eq!(rows[0].time, "+4220.5 s after boot");
    assert_eq!(rows[0].text, "NVRM: Xid 79");
}
