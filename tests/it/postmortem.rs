//! Writing postmortems: create, edit, conflicts, validation, id races, CSRF, token, read-only,
//! unknown keys, the paste-to-postmortem prefill, `lore new incident`, git commits, and a crash.

use std::process::Command;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode, header};

use lore::library::Library;
use lore::web::{AppState, router};

use crate::support::{Root, call, form, good_root, json_request, post_json, stdout};

fn incident_files(root: &Root) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root.path().join("incidents"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Every file in incidents/ parses without an error.
fn all_parse(root: &Root) {
    let library = Library::load(root.path()).unwrap();
    let errors: Vec<String> = library
        .diagnostics
        .iter()
        .filter(|d| d.level == lore::doc::Level::Error)
        .map(|d| d.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

fn app(root: &Root) -> (axum::Router, AppState) {
    let state = AppState::load(root.path(), false).unwrap();
    (router(state.clone()), state)
}

#[tokio::test]
async fn create_read_search_edit_and_conflict() {
    let root = good_root();
    let (app, _) = app(&root);
    let postmortem = serde_json::json!({
        "title": "Quokka outage: driver upgrade left nodes without NVML",
        "severity": "SEV2",
        "started_at": "2026-04-03T14:02:00+08:00",
        "detected_at": "2026-04-03T14:05:00+08:00",
        "runbooks": ["mismatch"],
        "hosts": ["gpu-a100-07"],
        "reviewer": "alice",
        "action_items": [{"title": "Hold the driver packages", "owner": "ops", "due": "2026-04-17"}],
        "body": "## Summary\n\nNodes lost NVML.\n"
    });
    let created = post_json(&app, "/api/incidents", postmortem).await;
    assert_eq!(created.status, StatusCode::CREATED, "{}", created.body);
    let id = created.json()["id"].as_str().unwrap().to_string();
    assert_eq!(
        id,
        "2026-04-03-quokka-outage-driver-upgrade-left-nodes-without-nvml"
    );
    assert_eq!(
        created.headers[header::LOCATION],
        format!("/incidents/{id}")
    );
    let etag = created.json()["etag"].as_str().unwrap().to_string();
    all_parse(&root);
    // Searchable at once, and readable.
    let found = call(
        &app,
        Request::get("/api/search?q=quokka")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(found.json()["hits"][0]["id"], id.as_str());
    let page = call(
        &app,
        Request::get(format!("/incidents/{id}"))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(page.status, StatusCode::OK);
    let got = call(
        &app,
        Request::get(format!("/api/incidents/{id}"))
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(got.json()["etag"], etag.as_str());
    // Edit with the right etag: unknown keys survive even though the edit does not send them.
    let edit = serde_json::json!({"title": "Quokka outage (final)", "status": "final", "started_at": "2026-04-03T14:02:00+08:00", "body": "## Summary\n\nDone.\n"});
    let request = json_request("PUT", &format!("/api/incidents/{id}"), edit.clone())
        .header(header::IF_MATCH, &etag)
        .body(Body::from(edit.to_string()))
        .unwrap();
    let updated = call(&app, request).await;
    assert_eq!(updated.status, StatusCode::OK, "{}", updated.body);
    let text = std::fs::read_to_string(root.path().join(format!("incidents/{id}.md"))).unwrap();
    assert!(text.contains("reviewer: alice"), "{text}");
    assert!(text.contains("title: Quokka outage (final)"));
    // The old etag is stale now: 412, and nothing changes.
    let stale = serde_json::json!({"title": "Lost update", "body": "x"});
    let request = json_request("PUT", &format!("/api/incidents/{id}"), stale.clone())
        .header(header::IF_MATCH, &etag)
        .body(Body::from(stale.to_string()))
        .unwrap();
    let refused = call(&app, request).await;
    assert_eq!(refused.status, StatusCode::PRECONDITION_FAILED);
    assert!(
        refused.json()["etag"].as_str().is_some(),
        "the current etag comes back to merge against"
    );
    assert_eq!(
        std::fs::read_to_string(root.path().join(format!("incidents/{id}.md"))).unwrap(),
        text
    );
    // Without If-Match: 428.
    let request = json_request("PUT", &format!("/api/incidents/{id}"), stale.clone())
        .body(Body::from(stale.to_string()))
        .unwrap();
    assert_eq!(
        call(&app, request).await.status,
        StatusCode::PRECONDITION_REQUIRED
    );
}

#[tokio::test]
async fn a_stale_form_edit_keeps_the_users_text() {
    let root = good_root();
    let (app, _) = app(&root);
    let created = post_json(
        &app,
        "/api/incidents",
        serde_json::json!({"title": "Form edit", "started_at": "2026-04-03T14:02:00+08:00"}),
    )
    .await;
    let id = created.json()["id"].as_str().unwrap().to_string();
    let old_etag = created.json()["etag"].as_str().unwrap().to_string();
    // Someone else saves first.
    let edit = serde_json::json!({"title": "Changed by someone else", "started_at": "2026-04-03T14:02:00+08:00"});
    let request = json_request("PUT", &format!("/api/incidents/{id}"), edit.clone())
        .header(header::IF_MATCH, &old_etag)
        .body(Body::from(edit.to_string()))
        .unwrap();
    assert_eq!(call(&app, request).await.status, StatusCode::OK);
    let mine = "My careful root-cause analysis, which must not be lost.";
    let reply = form(
        &app,
        &format!("/incidents/{id}"),
        &[
            ("title", "Form edit"),
            ("etag", &old_etag),
            ("body", mine),
            ("offset", "+08:00"),
        ],
    )
    .await;
    assert_eq!(reply.status, StatusCode::PRECONDITION_FAILED);
    assert!(reply.body.contains(mine), "the user's text is in the form");
    assert!(
        reply.body.contains("Changed by someone else"),
        "the current version is shown to merge with"
    );
    // The form now carries the current etag: saving again works.
    let current = reply
        .body
        .split("name=\"etag\" value=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .replace("&#34;", "\"")
        .replace("&quot;", "\"");
    let reply = form(
        &app,
        &format!("/incidents/{id}"),
        &[
            ("title", "Form edit, merged"),
            ("etag", &current),
            ("body", mine),
        ],
    )
    .await;
    assert_eq!(reply.status, StatusCode::SEE_OTHER, "{}", reply.body);
    assert!(
        std::fs::read_to_string(root.path().join(format!("incidents/{id}.md")))
            .unwrap()
            .contains(mine)
    );
}

#[tokio::test]
async fn validation_reports_every_problem_and_writes_nothing() {
    let root = good_root();
    let (app, _) = app(&root);
    let before = incident_files(&root);
    let reply = post_json(
        &app,
        "/api/incidents",
        serde_json::json!({"title": "", "started_at": "2026-04-03T14:02:00+08:00", "resolved_at": "2026-04-03T13:00:00+08:00", "runbooks": ["no-such-runbook"], "severity": "P0"}),
    )
    .await;
    assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY);
    let fields: Vec<String> = reply.json()["problems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["field"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(fields, ["title", "severity", "resolved_at", "runbooks"]);
    assert_eq!(incident_files(&root), before, "nothing written");
    let reply = form(&app, "/incidents", &[("title", ""), ("body", "kept text")]).await;
    assert_eq!(reply.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(reply.body.contains("Nothing was saved") && reply.body.contains("kept text"));
    let reply = post_json(
        &app,
        "/api/incidents",
        serde_json::json!(["not", "an", "object"]),
    )
    .await;
    assert_eq!(reply.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn thirty_saves_with_one_title_make_thirty_files() {
    let root = good_root();
    let (app, _) = app(&root);
    let saves = (0..30).map(|n| {
        let app = app.clone();
        tokio::spawn(async move {
            let body = serde_json::json!({"title": "Same title", "started_at": "2026-05-01T10:00:00+08:00", "body": format!("save {n}")});
            post_json(&app, "/api/incidents", body).await
        })
    });
    let mut ids = Vec::new();
    for save in saves {
        let reply = save.await.unwrap();
        assert_eq!(reply.status, StatusCode::CREATED, "{}", reply.body);
        ids.push(reply.json()["id"].as_str().unwrap().to_string());
    }
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 30);
    let files: Vec<String> = incident_files(&root)
        .into_iter()
        .filter(|f| f.starts_with("2026-05-01-same-title"))
        .collect();
    assert_eq!(files.len(), 30);
    all_parse(&root);
    let bodies: std::collections::HashSet<String> = files
        .iter()
        .map(|f| std::fs::read_to_string(root.path().join("incidents").join(f)).unwrap())
        .filter_map(|t| t.lines().last().map(str::to_string))
        .collect();
    assert_eq!(bodies.len(), 30, "no save overwrote another");
}

#[tokio::test]
async fn csrf_token_and_read_only() {
    let root = good_root();
    let (app, _) = app(&root);
    let body = serde_json::json!({"title": "x"}).to_string();
    let evil = Request::post("/api/incidents")
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::HOST, "lore.test")
        .header(header::ORIGIN, "http://evil.example")
        .body(Body::from(body.clone()))
        .unwrap();
    let reply = call(&app, evil).await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    assert!(reply.body.contains("cross-site"));
    let evil_form = Request::post("/incidents")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(header::HOST, "lore.test")
        .header(header::REFERER, "https://evil.example/page")
        .body(Body::from("title=x"))
        .unwrap();
    assert_eq!(call(&app, evil_form).await.status, StatusCode::FORBIDDEN);

    let mut state = AppState::load(root.path(), false).unwrap();
    state.token = Some(Arc::from("s3cret"));
    let app = router(state);
    let reply = post_json(
        &app,
        "/api/incidents",
        serde_json::json!({"title": "needs a token"}),
    )
    .await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);
    let with = Request::post("/api/incidents")
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::AUTHORIZATION, "Bearer s3cret")
        .body(Body::from(
            serde_json::json!({"title": "with a token"}).to_string(),
        ))
        .unwrap();
    assert_eq!(call(&app, with).await.status, StatusCode::CREATED);
    let reply = form(
        &app,
        "/incidents",
        &[("title", "form token"), ("token", "s3cret")],
    )
    .await;
    assert_eq!(reply.status, StatusCode::SEE_OTHER);
    let reply = form(
        &app,
        "/incidents",
        &[("title", "wrong token"), ("token", "guess")],
    )
    .await;
    assert_eq!(reply.status, StatusCode::UNAUTHORIZED);

    let app = router(AppState::load(root.path(), true).unwrap());
    let reply = post_json(
        &app,
        "/api/incidents",
        serde_json::json!({"title": "read only"}),
    )
    .await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    assert!(reply.body.contains("read-only"));
    let reply = call(
        &app,
        Request::get("/incidents/new").body(Body::empty()).unwrap(),
    )
    .await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
}

/// With `LORE_TOKEN` set, `POST /incidents/new` swallowed every refusal of the write check so the
/// form could be shown without the token, a cross-site one included; and the preview ran the
/// check on a doctored copy of the state. Each now says which checks apply to it.
#[tokio::test]
async fn prefill_and_preview_refuse_cross_site_requests_whatever_the_token() {
    let root = good_root();
    let mut state = AppState::load(root.path(), false).unwrap();
    state.token = Some(Arc::from("s3cret"));
    let app = router(state);
    let request = |uri: &str, content_type: &str, body: &str, origin: &str| {
        Request::post(uri)
            .header(header::CONTENT_TYPE, content_type)
            .header(header::HOST, "lore.test")
            .header(header::ORIGIN, origin)
            .body(Body::from(body.to_string()))
            .unwrap()
    };
    let form_type = "application/x-www-form-urlencoded";
    let reply = call(
        &app,
        request(
            "/incidents/new",
            form_type,
            "paste=x",
            "http://evil.example",
        ),
    )
    .await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN, "{}", reply.body);
    let reply = call(
        &app,
        request("/incidents/new", form_type, "paste=x", "http://lore.test"),
    )
    .await;
    assert_eq!(
        reply.status,
        StatusCode::OK,
        "no token needed to see the form"
    );
    let preview = r#"{"body": "hello"}"#;
    let reply = call(
        &app,
        request(
            "/api/preview",
            "application/json",
            preview,
            "http://evil.example",
        ),
    )
    .await;
    assert_eq!(reply.status, StatusCode::FORBIDDEN);
    let reply = call(
        &app,
        request(
            "/api/preview",
            "application/json",
            preview,
            "http://lore.test",
        ),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK, "no token needed to preview");
    let read_only = router(AppState::load(root.path(), true).unwrap());
    let reply = call(
        &read_only,
        request(
            "/api/preview",
            "application/json",
            preview,
            "http://lore.test",
        ),
    )
    .await;
    assert_eq!(
        reply.status,
        StatusCode::OK,
        "previews work on a read-only server"
    );
    let reply = call(
        &read_only,
        request("/incidents/new", form_type, "paste=x", "http://lore.test"),
    )
    .await;
    assert_eq!(
        reply.status,
        StatusCode::FORBIDDEN,
        "no form on a read-only server"
    );
}

#[tokio::test]
async fn unknown_keys_survive_a_form_edit() {
    let root = good_root();
    root.file(
        "incidents/2026-01-02-kept.md",
        "---\ntitle: Kept keys\nstatus: draft\nstarted_at: 2026-01-02T10:00:00+08:00\nreviewer: alice\njira: OPS-1234\n---\n## Summary\n\nx\n",
    );
    let (app, _) = app(&root);
    let page = call(
        &app,
        Request::get("/incidents/2026-01-02-kept/edit")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(page.status, StatusCode::OK);
    let etag = page
        .body
        .split("name=\"etag\" value=\"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap()
        .replace("&#34;", "\"");
    let reply = form(
        &app,
        "/incidents/2026-01-02-kept",
        &[
            ("title", "Kept keys, edited"),
            ("etag", &etag),
            ("body", "## Summary\n\ny\n"),
            ("started_at", "2026-01-02T10:00"),
            ("offset", "+08:00"),
        ],
    )
    .await;
    assert_eq!(reply.status, StatusCode::SEE_OTHER, "{}", reply.body);
    let text = std::fs::read_to_string(root.path().join("incidents/2026-01-02-kept.md")).unwrap();
    assert!(
        text.contains("reviewer: alice") && text.contains("jira: OPS-1234"),
        "{text}"
    );
    assert!(
        text.contains("started_at: 2026-01-02T10:00:00+08:00"),
        "{text}"
    );
}

const JOURNAL: &str = "Nov 29 03:17:40 gpu-a100-07 kernel: [ 4216.350214] NVRM: API mismatch: the client has the version 535.104.05, but this kernel module has the version 535.86.01.  Please\n\
Nov 29 03:18:02 gpu-a100-07 nvidia-persistenced[2211]: Failed to initialize NVML: Driver/library version mismatch\n\
Nov 29 03:18:09 gpu-a100-08 kernel: something odd failed here\n";

const DMESG: &str = "[    5.118204] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.104.05\n\
[ 4216.350214] NVRM: API mismatch: the client has the version 535.104.05, but this kernel module has the version 535.86.01.  Please\n";

#[tokio::test]
async fn a_postmortem_from_a_paste_is_prefilled() {
    let root = good_root();
    let (app, _) = app(&root);
    let reply = form(&app, "/incidents/new", &[("paste", JOURNAL)]).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    let body = &reply.body;
    assert!(
        body.contains("value=\"gpu-a100-07, gpu-a100-08\""),
        "hosts from the journal headers"
    );
    assert!(
        body.contains("<option value=\"mismatch\" selected>"),
        "the matched runbook is picked"
    );
    assert!(
        body.contains("value=\"2026-11-29 03:17:40\"") || body.contains("-11-29 03:17:40\""),
        "timeline rows from timestamps"
    );
    assert!(
        body.contains("NVRM: API mismatch"),
        "the paste goes into the log block and the rows"
    );
    assert!(body.contains("```log"));
    let reply = form(&app, "/incidents/new", &[("paste", DMESG)]).await;
    assert!(
        reply.body.contains("+4216.4 s after boot"),
        "dmesg uptimes stay offsets without a boot time"
    );
}

#[test]
fn lore_new_incident_from_a_log() {
    let root = good_root();
    root.file("journal.txt", JOURNAL);
    let log = root.path().join("journal.txt");
    let out = root.lore(
        &[
            "new",
            "incident",
            "--title",
            "From the CLI",
            "--from-log",
            log.to_str().unwrap(),
            "--author",
            "ops",
        ],
        b"",
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        crate::support::stderr(&out)
    );
    let path = stdout(&out).trim().to_string();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(
        text.contains("title: From the CLI")
            && text.contains("- mismatch")
            && text.contains("gpu-a100-07"),
        "{text}"
    );
    all_parse(&root);
    let out = root.lore(
        &["new", "incident", "--title", "Bad", "--runbook", "nope"],
        b"",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(crate::support::stderr(&out).contains("there is no runbook `nope`"));
}

#[tokio::test]
async fn each_save_is_a_commit_when_asked() {
    let root = good_root();
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(root.path())
            .args(args)
            .output()
            .unwrap()
    };
    git(&["init", "-q"]);
    git(&["-c", "user.name=t", "-c", "user.email=t@t", "add", "."]);
    git(&[
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-qm",
        "start",
    ]);
    let mut state = AppState::load(root.path(), false).unwrap();
    state.git_commit = true;
    let app = router(state);
    let reply = post_json(
        &app,
        "/api/incidents",
        serde_json::json!({"title": "Committed", "authors": ["Wang Lei"]}),
    )
    .await;
    assert_eq!(reply.status, StatusCode::CREATED);
    let log = String::from_utf8_lossy(&git(&["log", "-1", "--format=%an|%s"]).stdout).into_owned();
    assert_eq!(log.trim(), "Wang Lei|Add postmortem: Committed");
}

/// kill -9 while saves are in flight: every file left in incidents/ is whole and parses.
#[test]
fn a_crash_leaves_only_whole_files() {
    let root = good_root();
    let mut served = crate::support::serve(root.path());
    let url = served.url.clone();
    let big_body = "word ".repeat(200_000);
    let writers: Vec<_> = (0..4)
        .map(|t| {
            let url = url.clone();
            let body = big_body.clone();
            std::thread::spawn(move || {
                for n in 0..1000 {
                    let postmortem =
                        serde_json::json!({"title": format!("Crash test {t} {n}"), "body": body});
                    if ureq::post(&format!("{url}/api/incidents"))
                        .send_json(postmortem)
                        .is_err()
                    {
                        break;
                    }
                }
            })
        })
        .collect();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let _ = Command::new("kill")
        .arg("-9")
        .arg(served.child.id().to_string())
        .status();
    let _ = served.child.wait();
    for writer in writers {
        writer.join().unwrap();
    }
    let saved = incident_files(&root).len();
    assert!(saved > 1, "some saves happened before the kill ({saved})");
    all_parse(&root);
}
