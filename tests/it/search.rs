//! `lore search` and `lore index` through the binary; the index as a cache (rebuilt when corrupt or
//! of another version); live updates through the watcher; the shipped library's query set.

use std::time::{Duration, Instant};

use lore::search::{SearchIndex, WhenBusy};
use lore::watcher::Watcher;

use crate::support::{Root, good_root, json, repo_root, stdout};

fn ids(value: &serde_json::Value) -> Vec<String> {
    value["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn search_cli_and_json_contract() {
    let root = good_root();
    let out = root.lore(&["search", "--json", "versions", "differ"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let value = json(&out);
    assert_eq!(ids(&value)[0], "mismatch");
    let hit = &value["hits"][0];
    for key in ["kind", "id", "title", "url", "snippet", "score"] {
        assert!(hit.get(key).is_some(), "hit lacks {key}");
    }
    assert_eq!(hit["url"], "/runbooks/mismatch");
    assert!(value["total"].as_u64().unwrap() >= 1);
    assert!(root.path().join(".lore/index/lore-schema-version").exists());
    let out = root.lore(&["search", "zzqqxx"], b"");
    assert_eq!(out.status.code(), Some(1), "no hit is exit 1");
    let text = stdout(&root.lore(&["search", "--limit", "1", "differ"], b""));
    assert!(text.contains("1. mismatch  runbook  critical"), "{text}");
}

#[test]
fn a_changed_file_is_reindexed_and_a_deleted_one_dropped() {
    let root = good_root();
    assert_eq!(
        ids(&json(&root.lore(&["search", "--json", "differ"], b""))),
        ["mismatch"]
    );
    root.file(
        "runbooks/mismatch.md",
        crate::support::MISMATCH.replace("Driver versions differ", "Kernel module out of step"),
    );
    let value = json(&root.lore(&["search", "--json", "step"], b""));
    assert_eq!(ids(&value), ["mismatch"], "the edit is searchable");
    std::fs::remove_file(root.path().join("runbooks/mismatch.md")).unwrap();
    assert_eq!(
        root.lore(&["search", "--json", "step"], b"").status.code(),
        Some(1)
    );
    let out = stdout(&root.lore(&["index"], b""));
    assert!(out.contains("1 file(s) indexed"), "{out}");
}

#[test]
fn a_corrupt_or_foreign_index_is_rebuilt() {
    let root = good_root();
    root.lore(&["index"], b"");
    let dir = root.path().join(".lore/index");
    std::fs::write(dir.join("lore-schema-version"), "0").unwrap();
    let out = stdout(&root.lore(&["index"], b""));
    assert!(
        out.contains("rebuilt the index (the index has schema version 0"),
        "{out}"
    );
    // Now break the tantivy files themselves.
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".store") || name == "meta.json" {
            std::fs::write(entry.path(), b"garbage").unwrap();
        }
    }
    let out = root.lore(&["search", "--json", "differ"], b"");
    assert_eq!(
        ids(&json(&out)),
        ["mismatch"],
        "{}",
        crate::support::stderr(&out)
    );
    std::fs::remove_dir_all(&dir).unwrap();
    let out = stdout(&root.lore(&["index", "--rebuild"], b""));
    assert!(out.contains("2 file(s) indexed"), "{out}");
}

#[test]
fn an_edit_is_searchable_once_the_watcher_fires() {
    let root = good_root();
    let index = std::sync::Arc::new(SearchIndex::open(&root.path().join(".lore/index")).unwrap());
    index.sync(root.path(), false, &mut |_, _| {}).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let watched = index.clone();
    let path = root.path().to_path_buf();
    let _watcher = Watcher::start(root.path(), move |change| {
        // The temp root may be gone when a late event arrives: ignore errors then.
        let synced = if change.full {
            watched.sync(&path, false, &mut |_, _| {}).map(|_| ())
        } else {
            watched.sync_files(&path, &change.files).map(|_| ())
        };
        if synced.is_ok() {
            let _ = tx.send(change);
        }
    })
    .unwrap();
    let started = Instant::now();
    root.file(
        "runbooks/new-cause.md",
        "---\ntitle: Brand new cause\nseverity: low\naliases: [新故障]\n---\n## Fix\nTurn it off and on again.\n",
    );
    rx.recv_timeout(Duration::from_secs(5))
        .expect("the watcher fires");
    let hits = index.search("新故障", 5, None).unwrap().hits;
    assert_eq!(hits[0].id, "new-cause");
    let elapsed = started.elapsed();
    println!("edit to searchable: {elapsed:?}");
    assert!(elapsed < Duration::from_secs(2), "took {elapsed:?}");
}

#[test]
fn an_unwritable_root_still_searches() {
    let root = Root::new();
    root.file("runbooks/mismatch.md", crate::support::MISMATCH);
    // A file where the cache folder should be: the index cannot be created there.
    root.file(".lore", "not a folder");
    let out = root.lore(&["search", "--json", "differ"], b"");
    assert_eq!(ids(&json(&out)), ["mismatch"]);
    assert!(
        crate::support::stderr(&out).contains("built in memory"),
        "{}",
        crate::support::stderr(&out)
    );
}

#[test]
fn a_busy_index_is_searched_as_is_or_rebuilt_in_memory() {
    let root = good_root();
    // The first opener keeps the writer, as a running `lore serve` does.
    let (holder, warning) =
        SearchIndex::open_for_root(root.path(), WhenBusy::SearchAsIs, false, &mut |_, _| {})
            .unwrap();
    assert_eq!(warning, None);
    let (as_is, warning) =
        SearchIndex::open_for_root(root.path(), WhenBusy::SearchAsIs, true, &mut |_, _| {})
            .unwrap();
    assert!(warning.unwrap().contains("as it is"));
    let (in_memory, warning) =
        SearchIndex::open_for_root(root.path(), WhenBusy::BuildInMemory, true, &mut |_, _| {})
            .unwrap();
    assert!(warning.unwrap().contains("built in memory"));
    for index in [&holder, &as_is, &in_memory] {
        assert_eq!(
            index.search("differ", 5, None).unwrap().hits[0].id,
            "mismatch"
        );
    }
}

/// Real operators' questions against the shipped library: success@3 and MRR.
#[test]
fn shipped_library_answers_the_query_set() {
    let index = SearchIndex::in_ram();
    index.sync(&repo_root(), true, &mut |_, _| {}).unwrap();
    let table = std::fs::read_to_string(repo_root().join("tests/data/search-queries.tsv")).unwrap();
    let (mut total, mut zh, mut found, mut found_zh, mut reciprocal) = (0, 0, 0, 0, 0.0);
    let mut misses = Vec::new();
    for line in table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let (query, want) = line.split_once('\t').unwrap();
        let chinese = query.chars().any(lore::search::tokenizer::is_cjk);
        let hits = index.search(query, 3, None).unwrap().hits;
        total += 1;
        zh += usize::from(chinese);
        match hits.iter().position(|h| h.id == want) {
            Some(rank) => {
                found += 1;
                found_zh += usize::from(chinese);
                reciprocal += 1.0 / (rank + 1) as f64;
            }
            None => misses.push(format!(
                "{query:?}: want {want}, got {:?}",
                hits.iter().map(|h| &h.id).collect::<Vec<_>>()
            )),
        }
    }
    println!(
        "search query set: {total} queries ({zh} Chinese), success@3 {found}/{total} = {:.1}% (Chinese {found_zh}/{zh}), MRR@3 {:.3}",
        100.0 * found as f64 / total as f64,
        reciprocal / total as f64
    );
    assert!(
        total >= 40 && zh * 2 >= total - 2,
        "the set must have 40+ queries, half Chinese"
    );
    assert!(
        found * 100 >= total * 95,
        "success@3 below 95%:\n{}",
        misses.join("\n")
    );
}
