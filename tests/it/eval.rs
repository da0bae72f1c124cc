//! The shipped library against real-shaped logs: `eval/match/<runbook>/*.log` must each put that
//! runbook in the top 3; `eval/healthy/*.log` must produce no cause above `info`; every Xid code
//! must find exactly the runbook that owns it. Run with `--nocapture` to see the figures.

use std::fs;
use std::path::Path;

use lore::doc::Severity;
use lore::library::Library;
use lore::signature::Matcher;

use crate::repo_root;

fn matcher() -> Matcher {
    let library = Library::load(&repo_root()).expect("repository library");
    Matcher::new(&library)
}

fn logs(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out: Vec<_> = fs::read_dir(dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "log"))
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// Figures for one evaluation folder (`eval/<name>/<expected runbook>/*.log`); the cases not in
/// the top 3.
fn evaluate(matcher: &Matcher, name: &str) -> (usize, Vec<String>) {
    let root = repo_root().join("eval").join(name);
    let mut dirs: Vec<_> = fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("eval/{name}: {e}"))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let (mut total, mut top1, mut top3, mut reciprocal) = (0, 0, 0, 0.0);
    let mut misses = Vec::new();
    for dir in &dirs {
        let expected = dir.file_name().unwrap().to_str().unwrap();
        assert!(
            matcher.engine.runbooks.iter().any(|(id, _)| id == expected),
            "eval/{name}/{expected} names no runbook"
        );
        for log in logs(dir) {
            let report = matcher.match_bytes(&fs::read(&log).unwrap(), None);
            let rank = report.causes.iter().position(|c| c.runbook == expected);
            total += 1;
            if rank == Some(0) {
                top1 += 1;
            }
            match rank {
                Some(r) if r < 3 => {
                    top3 += 1;
                    reciprocal += 1.0 / (r + 1) as f64;
                }
                _ => {
                    let got: Vec<&str> = report
                        .causes
                        .iter()
                        .take(3)
                        .map(|c| c.runbook.as_str())
                        .collect();
                    misses.push(format!(
                        "{}: got {got:?} (rank {rank:?})",
                        log.strip_prefix(&root).unwrap().display()
                    ));
                }
            }
        }
    }
    println!(
        "eval/{name}: {total} cases over {} runbooks, top-1 {top1} ({:.1}%), top-3 {top3} ({:.1}%), MRR@3 {:.3}",
        dirs.len(),
        100.0 * top1 as f64 / total.max(1) as f64,
        100.0 * top3 as f64 / total.max(1) as f64,
        reciprocal / total.max(1) as f64
    );
    (total, misses)
}

/// Cases written with the runbooks: every one must put its runbook in the top 3.
#[test]
fn eval_cases_find_their_runbook_in_the_top_3() {
    let (total, misses) = evaluate(&matcher(), "match");
    assert!(total >= 100, "the evaluation set has {total} cases");
    assert!(
        misses.is_empty(),
        "not in the top 3:\n{}",
        misses.join("\n")
    );
}

/// Logs users posted publicly (eval/real/*/SOURCES.md gives each one's address): at least 90%
/// must put the runbook of the thread's real resolution in the top 3.
#[test]
fn real_public_logs_find_their_runbook() {
    let (total, misses) = evaluate(&matcher(), "real");
    assert!(total >= 60, "only {total} real cases");
    assert!(
        misses.len() * 10 <= total,
        "{} of {total} real cases missed:\n{}",
        misses.len(),
        misses.join("\n")
    );
}

#[test]
fn healthy_logs_raise_nothing_above_info() {
    let matcher = matcher();
    let mut files = logs(&repo_root().join("eval/healthy"));
    files.extend(logs(&repo_root().join("eval/real-healthy")));
    assert!(files.len() >= 10, "only {} healthy logs", files.len());
    let mut alarms = Vec::new();
    for log in &files {
        let report = matcher.match_bytes(&fs::read(log).unwrap(), None);
        for cause in report.causes.iter().filter(|c| c.severity > Severity::Info) {
            alarms.push(format!(
                "{}: {} ({}) on line {}: {}",
                log.file_name().unwrap().to_string_lossy(),
                cause.runbook,
                cause.severity.as_str(),
                cause.hits[0].line,
                cause.hits[0].text
            ));
        }
    }
    println!(
        "eval/healthy: {} logs, {} alarms above info",
        files.len(),
        alarms.len()
    );
    assert!(
        alarms.is_empty(),
        "healthy logs raised:\n{}",
        alarms.join("\n")
    );
}

#[test]
fn every_xid_code_finds_the_runbook_that_owns_it() {
    let matcher = matcher();
    let table = fs::read_to_string(repo_root().join("tests/data/xid-codes.tsv")).unwrap();
    let mut wrong = Vec::new();
    for row in table.lines().skip(1) {
        let (code, owner) = row.split_once('\t').unwrap();
        let forms = [
            format!(
                "[ 2384.559823] NVRM: Xid (PCI:0000:3b:00): {code}, pid=1234, name=python3, detail text"
            ),
            format!(
                "Feb 01 14:25:31 gpu07 kernel: NVRM: Xid (PCI:0000:3b:00): {code}, detail text"
            ),
            format!("NVRM: Xid (PCI:0000:3b:00): {code}, pid='<unknown>', name=<unknown>, detail"),
            format!(
                "[Sun Feb 23 16:24:18 2025] NVRM: Xid (PCI:0009:01:00 GPU-I:01 GPU-CI:00): {code}, pid=99, name=a.out, detail"
            ),
            format!("NVRM: Xid (0000:01:00): {code}, 0005 00000000 0000502d"),
        ];
        for line in forms {
            let report = matcher.match_bytes(line.as_bytes(), None);
            let found: Vec<&str> = report.causes.iter().map(|c| c.runbook.as_str()).collect();
            if found != [owner] {
                wrong.push(format!(
                    "Xid {code}: want [{owner}], got {found:?} for {line}"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
