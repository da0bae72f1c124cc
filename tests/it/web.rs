//! The router through `oneshot` (every route, bad input, security), and the real binary serving
//! on 127.0.0.1 (TCP, reload on file change, clean shutdown).

use std::process::Command;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use tower::ServiceExt;

use lore::web::{AppState, router};

use crate::support::{Root, good_root, urlencode};

fn state(root: &Root) -> AppState {
    AppState::load(root.path(), false).expect("state loads")
}

async fn send(
    app: &axum::Router,
    request: Request<Body>,
) -> (StatusCode, axum::http::HeaderMap, String) {
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    (
        status,
        headers,
        String::from_utf8_lossy(&bytes).into_owned(),
    )
}

async fn get(app: &axum::Router, uri: &str) -> (StatusCode, axum::http::HeaderMap, String) {
    send(app, Request::get(uri).body(Body::empty()).unwrap()).await
}

async fn post(
    app: &axum::Router,
    uri: &str,
    content_type: &str,
    body: impl Into<Body>,
) -> (StatusCode, String) {
    let request = Request::post(uri)
        .header(header::CONTENT_TYPE, content_type)
        .body(body.into())
        .unwrap();
    let (status, _, body) = send(app, request).await;
    (status, body)
}

const API: &str = "[ 4216.350214] NVRM: API mismatch: the client has the version 535.104.05, but this kernel module has the version 535.86.01.  Please";

fn fixture() -> Root {
    let root = good_root();
    root.file(
        "incidents/2026-04-03-mismatch.md",
        "---\ntitle: 驱动版本不匹配事故\nseverity: SEV2\nstatus: final\nstarted_at: 2026-04-03T14:02:00+08:00\ndetected_at: 2026-04-03T14:05:00+08:00\nresolved_at: 2026-04-03T16:10:00+08:00\nhosts: [gpu-a100-07]\nrunbooks: [mismatch]\ntags: [driver]\naction_items:\n  - {title: Hold the driver packages, owner: ops, status: open, due: 2020-01-01}\n---\n## Summary\n\n凌晨驱动升级后 NVML 不可用。\n",
    )
    .file(
        "runbooks/hostile.md",
        "---\ntitle: '<script>alert(1)</script> hostile'\nsummary: '<img src=x onerror=alert(1)>'\nseverity: low\ntags: [security]\n---\n## Fix\n\n<script>alert('body')</script>\n\n[click](javascript:alert(1))\n",
    );
    root
}

#[tokio::test]
async fn pages() {
    let root = fixture();
    let app = router(state(&root));
    let (status, headers, body) = get(&app, "/").await;
    assert_eq!(status, StatusCode::OK);
    assert!(body.contains("Paste an error, get the runbook."));
    assert!(
        headers[header::CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap()
            .contains("script-src 'self'")
    );
    assert_eq!(headers[header::X_CONTENT_TYPE_OPTIONS], "nosniff");
    for uri in [
        "/runbooks",
        "/runbooks?tag=driver",
        "/runbooks?severity=critical",
        "/runbooks?tag=nope&severity=bogus",
        "/incidents",
        "/incidents?tag=driver",
        "/tags/driver",
        "/search",
        "/search?q=",
    ] {
        let (status, _, _) = get(&app, uri).await;
        assert_eq!(status, StatusCode::OK, "{uri}");
    }
    let (_, _, body) = get(&app, "/runbooks/mismatch").await;
    assert!(body.contains("<h1>Driver versions differ</h1>"), "{body}");
    assert!(body.contains("id=\"fix\""), "heading anchors");
    assert!(body.contains("api-mismatch"), "signatures are listed");
    assert!(
        body.contains("驱动版本不匹配事故"),
        "incidents citing the runbook"
    );
    assert!(
        body.contains("Driver not loaded"),
        "related runbooks by title"
    );
    let (_, _, body) = get(&app, "/incidents/2026-04-03-mismatch").await;
    assert!(body.contains("2 h 08 min"), "time to resolve is computed");
    assert!(body.contains("3 min"), "time to detect is computed");
    assert!(body.contains("overdue"), "overdue action items are marked");
    let (_, _, body) = get(&app, "/runbooks?severity=critical").await;
    assert!(body.contains("Driver versions differ") && !body.contains("Driver not loaded"));
}

#[tokio::test]
async fn unknown_ids_and_path_tricks_are_404() {
    let app = router(state(&fixture()));
    for uri in [
        "/runbooks/nope",
        "/runbooks/..%2F..%2Fetc%2Fpasswd",
        "/runbooks/../Cargo.toml",
        "/incidents/nope",
        "/incidents/%2e%2e",
        "/tags/nope",
        "/static/../Cargo.toml",
        "/static/..%2Fsrc%2Fmain.rs",
        "/static/nope.css",
        "/nowhere",
        "/runbooks/mismatch.md",
    ] {
        let (status, _, body) = get(&app, uri).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{uri}");
        assert!(!body.contains("fn main"), "{uri} leaked a file");
    }
    let (status, headers, body) = get(&app, "/api/runbooks/nope").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(headers[header::CONTENT_TYPE], "application/json");
    assert!(body.contains("\"error\""));
    let (status, _, _) = get(&app, "/api/nowhere").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn markdown_and_front_matter_cannot_inject_script() {
    let app = router(state(&fixture()));
    for uri in [
        "/runbooks/hostile",
        "/runbooks",
        "/tags/security",
        "/search?q=hostile",
    ] {
        let (_, _, body) = get(&app, uri).await;
        assert!(!body.contains("<script>alert"), "{uri}: {body}");
        assert!(!body.contains("<img src=x"), "{uri}");
        assert!(!body.contains("href=\"javascript:"), "{uri}");
    }
}

#[tokio::test]
async fn match_form_shows_causes_in_context() {
    let app = router(state(&fixture()));
    let paste = format!(
        "boot line one\nboot line two\n{API}\nFailed to initialize NVML: Driver/library version mismatch\nsomething else failed here\n"
    );
    let form = format!("text={}", urlencode(&paste));
    let (status, body) = post(&app, "/match", "application/x-www-form-urlencoded", form).await;
    assert_eq!(status, StatusCode::OK);
    assert!(body.contains("1 known cause"), "{body}");
    assert!(body.contains("Driver versions differ"));
    assert!(body.contains("hit-line"), "matched lines are highlighted");
    assert!(
        body.contains("boot line two"),
        "lines around a hit are shown"
    );
    assert!(body.contains(">535.86.01<"), "captured values");
    assert!(
        body.contains("client 535.104.05, kernel 535.86.01"),
        "explain text"
    );
    assert!(body.contains("Reboot."), "the runbook's Fix inline");
    assert!(
        body.contains("once, last 2026-04-03 on gpu-a100-07"),
        "past incidents"
    );
    assert!(
        body.contains("start a runbook from this line"),
        "unexplained lines"
    );
    assert!(body.contains("/runbooks/draft?line="));
    let (status, body) = post(&app, "/match", "application/x-www-form-urlencoded", "text=").await;
    assert_eq!(status, StatusCode::OK);
    assert!(body.contains("No known cause"));
    let (status, body) = post(&app, "/match", "application/json", "{}").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(body.contains("paste the log into the text box"));
}

#[tokio::test]
async fn draft_from_a_line() {
    let app = router(state(&fixture()));
    let (status, _, body) = get(&app, "/runbooks/draft?line=%5B%201.0%5D%20mlx5_core%200000%3A41%3A00.0%3A%20firmware%20error%20detected%20pid%3D1234").await;
    assert_eq!(status, StatusCode::OK);
    assert!(body.contains("signatures:"), "{body}");
    assert!(body.contains("pci") && body.contains("mlx5_core"), "{body}");
    let (status, _, _) = get(&app, "/runbooks/draft").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn api_match_takes_plain_text_curl_forms_and_json() {
    let app = router(state(&fixture()));
    let paste = format!("{API}\n");
    for content_type in [
        "text/plain",
        "application/x-www-form-urlencoded",
        "application/octet-stream",
    ] {
        let (status, body) = post(&app, "/api/match", content_type, paste.clone()).await;
        assert_eq!(status, StatusCode::OK, "{content_type}");
        let value: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(value["causes"][0]["runbook"], "mismatch", "{content_type}");
        assert_eq!(
            value["causes"][0]["hits"][0]["captures"]["kernel"],
            "535.86.01"
        );
    }
    let json = serde_json::json!({ "text": paste }).to_string();
    let (status, body) = post(&app, "/api/match", "application/json", json).await;
    assert_eq!(status, StatusCode::OK);
    assert!(body.contains("\"runbook\":\"mismatch\""));
    let (status, body) = post(&app, "/api/match", "application/json", "{not json").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(body.contains("expected JSON like"), "{body}");
    let (status, body) = post(&app, "/api/match", "text/plain", vec![0xff, 0xfe, 0, 1, 2]).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "binary input is just a paste with no cause: {body}"
    );
    // A body that is not text at all (a compressed log sent as it is) is refused, saying so.
    let mut gz = vec![0x1f, 0x8b, 8, 0];
    gz.extend(std::iter::repeat_n(b'x', 400));
    for uri in ["/api/match", "/api/env"] {
        let (status, body) = post(&app, uri, "application/octet-stream", gz.clone()).await;
        assert_eq!(status, StatusCode::UNSUPPORTED_MEDIA_TYPE, "{uri}");
        assert!(
            body.contains("the body is gzip-compressed data, not text: decompress it first"),
            "{uri}: {body}"
        );
    }
    let (status, body) = post(&app, "/api/match?top=0", "text/plain", paste.clone()).await;
    assert_eq!(status, StatusCode::OK);
    assert!(body.contains("\"causes\":[]"));
}

#[tokio::test]
async fn pastes_over_32_mib_get_413_with_a_reason() {
    let app = router(state(&fixture()));
    let big = vec![b'x'; (32 << 20) + 1];
    let (status, body) = post(&app, "/api/match", "text/plain", big.clone()).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(body.contains("larger than 32 MiB"), "{body}");
    let mut form = b"text=".to_vec();
    form.extend_from_slice(&big);
    let (status, body) = post(&app, "/match", "application/x-www-form-urlencoded", form).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(body.contains("larger than 32 MiB"));
    let huge = vec![b'x'; (32 << 20) * 3 + 10];
    let (status, _) = post(&app, "/api/match", "text/plain", huge).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
}

/// Every route that takes a body refused an oversized one differently (400, 422, even 200):
/// now each answers 413 and names the limit, and nothing is written.
#[tokio::test]
async fn every_body_over_32_mib_is_413_naming_the_limit() {
    let root = fixture();
    let app = router(state(&root));
    let filler = "x".repeat(33 << 20);
    let form = axum::body::Bytes::from(format!("title=big&text=a&paste=a&body={filler}"));
    let json = axum::body::Bytes::from(format!("{{\"title\": \"big\", \"body\": \"{filler}\"}}"));
    let raw = axum::body::Bytes::from(filler);
    let form_type = "application/x-www-form-urlencoded";
    let routes = [
        ("POST", "/match", form_type, &form),
        ("POST", "/api/match", "text/plain", &raw),
        ("POST", "/api/match", "application/json", &json),
        ("POST", "/incidents", form_type, &form),
        ("POST", "/incidents/new", form_type, &form),
        ("POST", "/incidents/2026-04-03-mismatch", form_type, &form),
        ("POST", "/api/incidents", "application/json", &json),
        (
            "PUT",
            "/api/incidents/2026-04-03-mismatch",
            "application/json",
            &json,
        ),
        ("POST", "/api/preview", "application/json", &json),
    ];
    let before = std::fs::read_dir(root.path().join("incidents"))
        .unwrap()
        .count();
    for (method, uri, content_type, body) in routes {
        let request = Request::builder()
            .method(method)
            .uri(uri)
            .header(header::CONTENT_TYPE, content_type)
            .header(header::HOST, "lore.test")
            .header(header::IF_MATCH, "*")
            .body(Body::from(body.clone()))
            .unwrap();
        let (status, _, reply) = send(&app, request).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE, "{method} {uri}");
        assert!(
            reply.contains("larger than 32 MiB"),
            "{method} {uri}: {reply}"
        );
    }
    let after = std::fs::read_dir(root.path().join("incidents"))
        .unwrap()
        .count();
    assert_eq!(before, after, "nothing was written");
}

/// A postmortem over the library's 4 MiB document limit used to be saved and then never
/// loaded (404 afterwards): now it is refused with 422 before anything is written.
#[tokio::test]
async fn a_postmortem_over_the_document_limit_is_422_and_not_written() {
    let root = fixture();
    let app = router(state(&root));
    let path = root.path().join("incidents/2026-04-03-mismatch.md");
    let original = std::fs::read(&path).unwrap();
    let body = "word ".repeat((4 << 20) / 5 + 10);
    let json = serde_json::json!({"title": "too long", "body": body}).to_string();
    let form = format!("title=too+long&body={}", body.replace(' ', "+"));
    let requests = [
        ("POST", "/api/incidents", "application/json", json.clone()),
        (
            "PUT",
            "/api/incidents/2026-04-03-mismatch",
            "application/json",
            json,
        ),
        (
            "POST",
            "/incidents",
            "application/x-www-form-urlencoded",
            form.clone(),
        ),
        (
            "POST",
            "/incidents/2026-04-03-mismatch",
            "application/x-www-form-urlencoded",
            format!("{form}&etag=*"),
        ),
    ];
    for (method, uri, content_type, body) in requests {
        let request = Request::builder()
            .method(method)
            .uri(uri)
            .header(header::CONTENT_TYPE, content_type)
            .header(header::HOST, "lore.test")
            .header(header::IF_MATCH, "*")
            .body(Body::from(body))
            .unwrap();
        let (status, _, reply) = send(&app, request).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{method} {uri}");
        assert!(reply.contains("4 MiB"), "{method} {uri}");
    }
    let names: Vec<_> = std::fs::read_dir(root.path().join("incidents"))
        .unwrap()
        .collect();
    assert_eq!(names.len(), 1, "no new file");
    assert_eq!(
        std::fs::read(&path).unwrap(),
        original,
        "the edit wrote nothing"
    );
}

#[tokio::test]
async fn api_search_and_lists() {
    let app = router(state(&fixture()));
    let (status, _, body) = get(
        &app,
        "/api/search?q=%E9%A9%B1%E5%8A%A8%E7%89%88%E6%9C%AC&limit=5",
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    let value: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(value["hits"][0]["id"], "2026-04-03-mismatch");
    assert!(
        value["hits"][0]["snippet"]
            .as_str()
            .unwrap()
            .contains("<b>")
    );
    assert!(value["total"].as_u64().unwrap() >= 1);
    let (status, _, _) = get(&app, "/api/search?q=x&kind=bogus").await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let long = "a".repeat(3000);
    let (status, _, _) = get(&app, &format!("/api/search?q={long}")).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _, body) = get(&app, "/api/search?q=NVRM%3A%20Xid%20%22unclosed").await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (_, _, body) = get(&app, "/api/runbooks").await;
    let value: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(value["total"], 3);
    let (_, _, body) = get(&app, "/api/runbooks/mismatch").await;
    let value: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(value["signatures"][0]["id"], "api-mismatch");
    assert_eq!(value["incidents"][0]["id"], "2026-04-03-mismatch");
    let (_, _, body) = get(&app, "/api/incidents").await;
    assert!(body.contains("\"minutes_to_resolve\":128"), "{body}");
    let (_, _, body) = get(&app, "/api/incidents/2026-04-03-mismatch").await;
    assert!(body.contains("\"body\""));
    let (_, _, body) = get(&app, "/healthz").await;
    assert!(body.contains("\"status\":\"ok\"") && body.contains("\"runbooks\":3"));
}

#[tokio::test]
async fn static_assets_are_cached_and_compressed() {
    let app = router(state(&fixture()));
    let (status, headers, body) = get(&app, "/static/app.css").await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        headers[header::CACHE_CONTROL]
            .to_str()
            .unwrap()
            .contains("immutable")
    );
    assert!(
        headers[header::CONTENT_TYPE]
            .to_str()
            .unwrap()
            .starts_with("text/css")
    );
    assert!(body.contains("prefers-color-scheme: dark") && body.contains("@media print"));
    let request = Request::get("/runbooks/mismatch")
        .header(header::ACCEPT_ENCODING, "gzip")
        .body(Body::empty())
        .unwrap();
    let (_, headers, _) = send(&app, request).await;
    assert_eq!(headers[header::CONTENT_ENCODING], "gzip");
}

#[tokio::test]
async fn a_reload_shows_new_files() {
    let root = fixture();
    let state = state(&root);
    let app = router(state.clone());
    root.file(
        "runbooks/brand-new.md",
        "---\ntitle: Brand new\nseverity: low\n---\n## Fix\nx\n",
    );
    state
        .reload(Some(&["runbooks/brand-new.md".to_string()]))
        .unwrap();
    let (status, _, _) = get(&app, "/runbooks/brand-new").await;
    assert_eq!(status, StatusCode::OK);
    let (_, _, body) = get(&app, "/api/search?q=Brand").await;
    assert!(body.contains("brand-new"));
}

/// The real binary on 127.0.0.1: TCP, reload after an edit on disk, clean exit on SIGTERM.
#[test]
fn real_server_on_loopback() {
    let root = fixture();
    let mut served = crate::support::serve(root.path());
    let url = served.url.clone();
    let health = ureq::get(&format!("{url}/healthz"))
        .call()
        .unwrap()
        .into_string()
        .unwrap();
    assert!(health.contains("\"status\":\"ok\""));
    let report = ureq::post(&format!("{url}/api/match"))
        .send_string(&format!("{API}\n"))
        .unwrap()
        .into_string()
        .unwrap();
    assert!(report.contains("\"runbook\":\"mismatch\""));
    // An edit on disk shows up without a restart.
    root.file(
        "runbooks/appeared.md",
        "---\ntitle: Appeared while serving\nseverity: low\n---\n## Fix\nx\n",
    );
    let started = Instant::now();
    loop {
        match ureq::get(&format!("{url}/runbooks/appeared")).call() {
            Ok(response) if response.status() == 200 => break,
            _ if started.elapsed() > Duration::from_secs(5) => {
                panic!("the new runbook never appeared")
            }
            _ => std::thread::sleep(Duration::from_millis(50)),
        }
    }
    let searched = ureq::get(&format!("{url}/api/search?q=Appeared"))
        .call()
        .unwrap()
        .into_string()
        .unwrap();
    assert!(searched.contains("\"id\":\"appeared\""), "{searched}");
    // SIGTERM: a clean shutdown.
    let _ = Command::new("kill")
        .arg("-TERM")
        .arg(served.child.id().to_string())
        .status();
    let status = served.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}

#[test]
fn refuses_a_public_address_without_protection() {
    let root = fixture();
    let out = Command::new(env!("CARGO_BIN_EXE_lore"))
        .args(["serve", "--addr", "0.0.0.0:0", "--root"])
        .arg(root.path())
        .env_remove("LORE_TOKEN")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("LORE_TOKEN"));
}

/// `lore serve` warms each snapshot: afterwards every signature's regex is compiled, and a
/// paste is answered as before.
#[test]
fn a_warmed_snapshot_has_every_regex_compiled_and_answers_the_same() {
    let root = good_root();
    let state = state(&root);
    let snapshot = state.snapshot();
    let paste = b"NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n";
    let causes = || -> Vec<String> {
        let report = snapshot.matcher.match_bytes(paste, None);
        report.causes.iter().map(|c| c.runbook.clone()).collect()
    };
    let before = causes();
    snapshot.warm();
    assert!(snapshot.matcher.engine.sigs.iter().all(|s| s.compiled()));
    let after = causes();
    assert_eq!(before, after);
}
