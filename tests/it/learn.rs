//! Teaching a runbook a new wording: `POST /api/runbooks/{id}/signatures` (every status of its
//! contract), `lore learn`, and a crash in the middle of saves.

use std::process::Command;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};

use lore::library::Library;
use lore::web::{AppState, router};

use crate::support::{call, json_request, library_copy, lore_in, post_json, stderr, stdout};

/// A line no shipped signature explains, with a pid the draft turns into a capture.
const LINE: &str = "[ 4301.2] nvkms: flip queue wedged on head 2, modeset failed, pid=4411";
const RUNBOOK: &str = "gpu-hang-timeout";
const URL: &str = "/api/runbooks/gpu-hang-timeout/signatures";

fn app(root: &std::path::Path) -> axum::Router {
    router(AppState::load(root, false).unwrap())
}

fn runbook_file(root: &std::path::Path) -> String {
    std::fs::read_to_string(root.join("runbooks/gpu-hang-timeout.md")).unwrap()
}

async fn etag(app: &axum::Router) -> String {
    let reply = call(
        app,
        Request::get("/api/runbooks/gpu-hang-timeout")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);
    let etag = reply.json()["etag"].as_str().unwrap().to_string();
    assert_eq!(
        reply.headers.get(header::ETAG).unwrap().to_str().unwrap(),
        etag,
        "the header and the body carry the same etag"
    );
    etag
}

#[tokio::test]
async fn a_dry_run_drafts_and_writes_nothing() {
    let root = library_copy();
    let app = app(root.path());
    let before = runbook_file(root.path());
    let reply = post_json(
        &app,
        &format!("{URL}?dry_run=1"),
        serde_json::json!({"line": LINE, "paste": format!("boot ok\n{LINE}\n")}),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    let body = reply.json();
    assert_eq!(body["valid"], true, "{body}");
    assert_eq!(body["signature"]["captures"]["pid"], "4411");
    assert_eq!(body["matches"][0]["line"], 2);
    let pattern = body["signature"]["pattern"].as_str().unwrap();
    assert!(
        !pattern.contains("4301"),
        "the prefix is left out: {pattern}"
    );
    assert_eq!(runbook_file(root.path()), before);
}

#[tokio::test]
async fn a_saved_line_is_live_at_once_and_lore_check_passes() {
    let root = library_copy();
    let app = app(root.path());
    let etag = etag(&app).await;
    let before = runbook_file(root.path());
    let request = json_request("POST", URL, serde_json::json!({}))
        .header(header::IF_MATCH, &etag)
        .body(Body::from(
            serde_json::json!({"line": LINE, "id": "nvkms-flip-queue-wedged"}).to_string(),
        ))
        .unwrap();
    let reply = call(&app, request).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    let body = reply.json();
    assert_eq!(body["signature"]["id"], "nvkms-flip-queue-wedged");
    assert_ne!(body["etag"], etag.as_str());
    let after = runbook_file(root.path());
    assert_eq!(body["etag"], lore::hash::etag(after.as_bytes()).as_str());
    // Only the list grew: everything before the new item and the whole body are as they were.
    let at = after.find("  - id: \"nvkms-flip-queue-wedged\"").unwrap();
    assert_eq!(&after[..at], &before[..at]);
    assert!(after.ends_with(&before[before.rfind("\n---\n").unwrap()..]));

    // The next paste sees it, with its capture.
    let reply = call(
        &app,
        Request::post("/api/match")
            .body(Body::from(format!("{LINE}\n")))
            .unwrap(),
    )
    .await;
    let report = reply.json();
    assert_eq!(report["causes"][0]["runbook"], RUNBOOK, "{report}");
    assert_eq!(report["causes"][0]["hits"][0]["captures"]["pid"], "4411");
    // The runbook shows it with its example.
    let reply = call(
        &app,
        Request::get("/api/runbooks/gpu-hang-timeout")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    let sigs = reply.json()["signatures"].clone();
    let added = sigs
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "nvkms-flip-queue-wedged")
        .expect("listed");
    assert_eq!(added["examples"][0]["text"], LINE);
    let page = call(
        &app,
        Request::get("/runbooks/gpu-hang-timeout")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert!(page.body.contains("nvkms-flip-queue-wedged"));
    let check = lore_in(root.path(), &["check"], b"");
    assert!(check.status.success(), "{}", stderr(&check));
}

#[tokio::test]
async fn every_refusal_has_its_status_and_writes_nothing() {
    let root = library_copy();
    let before = runbook_file(root.path());
    let app = app(root.path());
    // 404: no such runbook.
    let reply = post_json(
        &app,
        "/api/runbooks/no-such-runbook/signatures",
        serde_json::json!({ "line": LINE }),
    )
    .await;
    assert_eq!(reply.status, StatusCode::NOT_FOUND);
    // 422: too generic, with every reason.
    let reply = post_json(
        &app,
        URL,
        serde_json::json!({"line": "RuntimeError: CUDA error: out of memory", "pattern": "out of memory"}),
    )
    .await;
    assert_eq!(
        reply.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        reply.body
    );
    let problems = reply.json()["problems"].to_string();
    assert!(problems.contains("cuda-out-of-memory"), "{problems}");
    // 422: a pattern that does not compile.
    let reply = post_json(
        &app,
        URL,
        serde_json::json!({"line": LINE, "pattern": "(unclosed"}),
    )
    .await;
    assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY);
    // 400: not the JSON the route takes.
    let reply = call(
        &app,
        json_request("POST", URL, serde_json::json!({}))
            .body(Body::from("line=x"))
            .unwrap(),
    )
    .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
    // 412: a stale If-Match, with the current text to merge with.
    let request = json_request("POST", URL, serde_json::json!({}))
        .header(header::IF_MATCH, "\"0000000000000000\"")
        .body(Body::from(serde_json::json!({ "line": LINE }).to_string()))
        .unwrap();
    let reply = call(&app, request).await;
    assert_eq!(reply.status, StatusCode::PRECONDITION_FAILED);
    assert_eq!(reply.json()["current"], before.as_str());
    // 403: cross-site.
    let request = json_request("POST", URL, serde_json::json!({}))
        .header(header::ORIGIN, "http://evil.example")
        .body(Body::from(serde_json::json!({ "line": LINE }).to_string()))
        .unwrap();
    assert_eq!(call(&app, request).await.status, StatusCode::FORBIDDEN);
    // 403: read-only (a dry run still works there).
    let read_only = router(AppState::load(root.path(), true).unwrap());
    let reply = post_json(&read_only, URL, serde_json::json!({ "line": LINE })).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    assert!(reply.body.contains("read-only"));
    let reply = post_json(
        &read_only,
        &format!("{URL}?dry_run=1"),
        serde_json::json!({ "line": LINE }),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);
    // 401 without the token when one is set; 201 with it.
    let mut state = AppState::load(root.path(), false).unwrap();
    state.token = Some(Arc::from("s3cret"));
    let guarded = router(state);
    let reply = post_json(&guarded, URL, serde_json::json!({ "line": LINE })).await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        reply.headers.get(header::WWW_AUTHENTICATE).unwrap(),
        "Bearer"
    );
    assert_eq!(runbook_file(root.path()), before, "nothing was written");
    let request = json_request("POST", URL, serde_json::json!({}))
        .header(header::AUTHORIZATION, "Bearer s3cret")
        .body(Body::from(serde_json::json!({ "line": LINE }).to_string()))
        .unwrap();
    assert_eq!(call(&guarded, request).await.status, StatusCode::CREATED);
}

#[tokio::test]
async fn serve_git_commit_commits_the_runbook() {
    let root = library_copy();
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(root.path())
            .args(args)
            .output()
            .unwrap()
    };
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&[
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-qm",
        "library",
    ]);
    let mut state = AppState::load(root.path(), false).unwrap();
    state.git_commit = true;
    let app = router(state);
    let reply = post_json(&app, URL, serde_json::json!({ "line": LINE })).await;
    assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
    let log = String::from_utf8_lossy(&git(&["log", "-1", "--format=%s"]).stdout).into_owned();
    assert!(log.starts_with("Teach gpu-hang-timeout: "), "{log}");
    let status = String::from_utf8_lossy(&git(&["status", "--porcelain"]).stdout).into_owned();
    assert!(!status.contains("runbooks/"), "committed: {status}");
}

#[test]
fn lore_learn_on_the_command_line() {
    let root = library_copy();
    let before = runbook_file(root.path());
    let dry = lore_in(
        root.path(),
        &["learn", RUNBOOK, "--line", LINE, "--dry-run"],
        b"",
    );
    assert!(dry.status.success(), "{}", stderr(&dry));
    assert!(
        stdout(&dry).contains("capture:   pid=4411"),
        "{}",
        stdout(&dry)
    );
    assert_eq!(runbook_file(root.path()), before);
    let refused = lore_in(
        root.path(),
        &["learn", RUNBOOK, "--line", LINE, "--pattern", "failed"],
        b"",
    );
    assert_eq!(refused.status.code(), Some(1));
    assert!(stderr(&refused).contains("nothing was written"));
    let unknown = lore_in(root.path(), &["learn", "nope", "--line", LINE], b"");
    assert_eq!(unknown.status.code(), Some(2));
    let saved = lore_in(
        root.path(),
        &["learn", RUNBOOK, "--line", LINE, "--id", "nvkms-wedged"],
        b"",
    );
    assert!(saved.status.success(), "{}", stderr(&saved));
    assert!(runbook_file(root.path()).contains("nvkms-wedged"));
    let matched = lore_in(root.path(), &["match", "--json"], LINE.as_bytes());
    assert!(stdout(&matched).contains("\"runbook\":\"gpu-hang-timeout\""));
    let check = lore_in(root.path(), &["check"], b"");
    assert!(check.status.success(), "{}", stderr(&check));
}

/// kill -9 while signatures are being added: every runbook left is whole and parses, and every
/// signature in it is one that was asked for.
#[test]
fn a_crash_while_learning_leaves_every_runbook_whole() {
    let root = library_copy();
    let mut served = crate::support::serve(root.path());
    let url = served.url.clone();
    let writers: Vec<_> = (0..3)
        .map(|t| {
            let url = url.clone();
            std::thread::spawn(move || {
                for n in 0..2000u32 {
                    // Letters, not digits: each line must draft a pattern of its own.
                    let word: String = format!("{t}{n:05}")
                        .chars()
                        .map(|c| (b'a' + c.to_digit(10).unwrap() as u8) as char)
                        .collect();
                    let line = format!("nvkms: flip queue wedged in phase {word}, modeset failed");
                    let reply = ureq::post(&format!(
                        "{url}/api/runbooks/{}/signatures",
                        ["gpu-hang-timeout", "gpu-gsp-error", "nvlink-error"][t]
                    ))
                    .send_json(serde_json::json!({ "line": line }));
                    if let Err(ureq::Error::Transport(_)) = reply {
                        break;
                    }
                }
            })
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(2500));
    let _ = Command::new("kill")
        .arg("-9")
        .arg(served.child.id().to_string())
        .status();
    let _ = served.child.wait();
    for writer in writers {
        writer.join().unwrap();
    }
    let library = Library::load(root.path()).unwrap();
    let errors: Vec<String> = library
        .diagnostics
        .iter()
        .filter(|d| d.level == lore::doc::Level::Error)
        .map(|d| d.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let learned: usize = library
        .runbooks
        .iter()
        .flat_map(|r| r.signatures.iter())
        .filter(|s| s.pattern.contains("flip\\s+queue\\s+wedged"))
        .count();
    assert!(
        learned > 1,
        "some saves happened before the kill ({learned})"
    );
    let check = lore_in(root.path(), &["check"], b"");
    assert!(check.status.success(), "{}", stderr(&check));
}
