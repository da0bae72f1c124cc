use std::path::Path;

use super::*;
use crate::doc::{Incident, Runbook};

fn runbook(id: &str, front: &str, body: &str) -> IndexDoc {
    let severity = if front.contains("severity:") {
        ""
    } else {
        "\nseverity: high"
    };
    let text = format!("---\n{front}{severity}\n---\n{body}");
    let (runbook, problems) = Runbook::parse(Path::new(&format!("runbooks/{id}.md")), &text);
    assert!(
        problems
            .iter()
            .all(|p| p.level == crate::doc::Level::Warning),
        "{problems:?}"
    );
    IndexDoc::from_runbook(&runbook.unwrap())
}

fn fixture() -> SearchIndex {
    let docs = vec![
        runbook(
            "gpu-fallen-off-bus",
            "title: GPU fell off the PCIe bus\nsummary: The driver lost the GPU; power-cycle the node.\naliases: [掉卡, GPU lost]\ntags: [pcie, hardware]\nseverity: critical",
            "## Symptoms\n\n`nvidia-smi` shows ERR! and dmesg says NVRM: Xid 79.\n\n## Fix\n\nReseat the card and check the riser.\n\n## 中文摘要\n\nGPU 掉卡：驱动无法通过 PCIe 访问显卡，需要重启节点。\n",
        ),
        runbook(
            "driver-version-mismatch",
            "title: Driver and kernel module versions differ\nsummary: Reload the driver.\naliases: [驱动版本不匹配]\ntags: [driver]",
            "## Symptoms\n\nNVRM: API mismatch: the client has the version 535.104.05, but this kernel module has the version 535.86.01.\nAlso /dev/nvidia-uvm may vanish.\n\n## Fix\n\nReboot the node.\n\n## 中文摘要\n\n驱动版本不匹配，重启即可。\n",
        ),
        runbook(
            "cuda-out-of-memory",
            "title: CUDA out of memory\nsummary: The process asked for more GPU memory than is free.\naliases: [显存不足, OOM]\ntags: [cuda]",
            "## Symptoms\n\nRuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB.\n\n## Fix\n\nLower the batch size.\n\n## 中文摘要\n\n显存不足时减小 batch size。\n",
        ),
        runbook(
            "memory-leak-notes",
            "title: Notes on host memory\nsummary: Out-of-band notes, memory of the host.\ntags: [host]",
            "## Notes\n\nThe host ran out of swap; the memory was fine.\n",
        ),
        {
            let text = "---\ntitle: 清明前一天 A100 全部掉卡\nseverity: SEV2\ntags: [pcie]\nstarted_at: 2026-04-04T09:00:00+08:00\nhosts: [gpu-a100-23]\n---\n## Summary\n\n八张 A100 从总线上消失。\n";
            let (incident, _) = Incident::parse(Path::new("incidents/2026-04-04-aspm.md"), text);
            IndexDoc::from_incident(&incident.unwrap())
        },
    ];
    let index = SearchIndex::in_ram();
    index.index_documents(&docs).unwrap();
    index
}

fn ids(index: &SearchIndex, query: &str) -> Vec<String> {
    index
        .search(query, 10, None)
        .unwrap()
        .hits
        .into_iter()
        .map(|h| h.id)
        .collect()
}

fn check(index: &SearchIndex, query: &str, first: &str) {
    let got = ids(index, query);
    assert_eq!(
        got.first().map(String::as_str),
        Some(first),
        "{query:?} gave {got:?}"
    );
}

#[test]
fn chinese_queries() {
    let index = fixture();
    check(&index, "驱动版本不匹配", "driver-version-mismatch");
    check(&index, "版本不匹配", "driver-version-mismatch");
    check(&index, "显存不足", "cuda-out-of-memory");
    let got = ids(&index, "掉卡");
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(
        got.contains(&"gpu-fallen-off-bus".to_string())
            && got.contains(&"2026-04-04-aspm".to_string())
    );
}

#[test]
fn english_and_identifiers() {
    check(&fixture(), "fell off the bus", "gpu-fallen-off-bus");
    let index = fixture();
    for query in [
        "535.104.05",
        "535.86.01",
        "API mismatch",
        "nvidia-uvm",
        "/dev/nvidia-uvm",
        "NVRM: API",
    ] {
        check(&index, query, "driver-version-mismatch");
    }
    check(&index, "nvidia-smi ERR!", "gpu-fallen-off-bus");
    check(&index, "Xid 79", "gpu-fallen-off-bus");
    check(&index, "gpu-a100-23", "2026-04-04-aspm");
}

#[test]
fn phrases_must_match_in_order() {
    let index = fixture();
    assert_eq!(ids(&index, "\"out of memory\""), ["cuda-out-of-memory"]);
    assert!(ids(&index, "\"memory out of\"").is_empty());
}

#[test]
fn prefix_for_search_as_you_type() {
    let index = fixture();
    check(&index, "alloca", "cuda-out-of-memory");
    check(&index, "Resea", "gpu-fallen-off-bus");
    assert!(
        ids(&index, "alloca ").is_empty(),
        "a finished word is not a prefix"
    );
}

#[test]
fn typos_in_long_latin_words_only() {
    let index = fixture();
    check(&index, "mismach", "driver-version-mismatch");
    check(&index, "Reseet", "gpu-fallen-off-bus");
    check(&index, "rebot ", "driver-version-mismatch");
    assert!(
        ids(&index, "nodr ").is_empty(),
        "below five letters a typo is not forgiven"
    );
    assert!(
        ids(&index, "显存不够")
            .iter()
            .all(|id| id != "driver-version-mismatch")
    );
}

#[test]
fn filters() {
    let index = fixture();
    assert_eq!(ids(&index, "kind:incident"), ["2026-04-04-aspm"]);
    assert_eq!(ids(&index, "掉卡 kind:runbook"), ["gpu-fallen-off-bus"]);
    let mut pcie = ids(&index, "tag:pcie");
    pcie.sort();
    assert_eq!(pcie, ["2026-04-04-aspm", "gpu-fallen-off-bus"]);
    assert_eq!(ids(&index, "severity:critical"), ["gpu-fallen-off-bus"]);
    assert_eq!(ids(&index, "severity:sev2"), ["2026-04-04-aspm"]);
    let got = index.search("掉卡", 10, Some("incident")).unwrap();
    assert_eq!(got.hits.len(), 1);
}

#[test]
fn snippets_highlight_and_link_to_sections() {
    let index = fixture();
    let hit = &index.search("Reseat riser", 5, None).unwrap().hits[0];
    assert_eq!(hit.url, "/runbooks/gpu-fallen-off-bus#fix");
    assert_eq!(hit.section.as_deref(), Some("Fix"));
    assert!(hit.snippet.contains("<b>Reseat</b>"), "{}", hit.snippet);
    let hit = &index.search("驱动无法", 5, None).unwrap().hits[0];
    assert!(
        hit.snippet.contains("<b>驱动无法</b>"),
        "overlapping bigrams highlight as one: {}",
        hit.snippet
    );
}

#[test]
fn title_only_hits_show_the_summary() {
    let index = fixture();
    let hit = &index.search("Notes", 5, None).unwrap().hits[0];
    assert_eq!(hit.id, "memory-leak-notes");
    let hit = &index.search("versions differ", 5, None).unwrap().hits[0];
    assert_eq!(hit.id, "driver-version-mismatch");
    assert_eq!(
        hit.snippet, "Reload the driver.",
        "no body text matched, so the summary stands in"
    );
}

#[test]
fn user_text_is_never_a_syntax_error() {
    let index = fixture();
    for query in [
        "NVRM: Xid",
        "\"unclosed",
        "a:b:c",
        "(",
        "*",
        "~",
        "kind:",
        "+-!",
        "🙂",
        "",
        "   ",
        "tag:nope",
        "\"\"",
    ] {
        assert!(index.search(query, 10, None).is_ok(), "{query:?}");
    }
    assert!(ids(&index, "").is_empty());
}
