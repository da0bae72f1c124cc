//! Stacks: the list (matrix, filters), one stack's page, the JSON, and `lore check` on them.

use axum::body::Body;
use axum::http::{Request, StatusCode, header};

use lore::web::{AppState, router};

use crate::support::{call, library_copy, lore_in, stdout};

fn get(uri: &str) -> Request<Body> {
    Request::get(uri).body(Body::empty()).unwrap()
}

#[tokio::test]
async fn the_list_page_and_its_filters() {
    let root = library_copy();
    let app = router(AppState::load(root.path(), false).unwrap());
    let reply = call(&app, get("/stacks")).await;
    assert_eq!(reply.status, StatusCode::OK);
    for text in [
        "rocky92-535-a100-ib",
        "rocky92-525-a100-ib",
        "verdict-row-bad",
        "535.129.03",
        "torch 1.13.1",
    ] {
        assert!(reply.body.contains(text), "{text} missing");
    }
    // Bad first: what to avoid comes before what works.
    assert!(
        reply.body.find("rocky92-535-a100-ib").unwrap()
            < reply.body.find("rocky92-525-a100-ib").unwrap()
    );
    let filtered = call(&app, get("/stacks?driver=525.147.05")).await;
    assert!(filtered.body.contains("rocky92-525-a100-ib"));
    assert!(
        !filtered
            .body
            .contains("href=\"/stacks/rocky92-535-a100-ib\"")
    );
    let none = call(&app, get("/stacks?gpu=H100")).await;
    assert!(none.body.contains("No stack matches these filters"));
}

#[tokio::test]
async fn one_stack_says_what_ran_and_what_is_only_believed() {
    let root = library_copy();
    std::fs::write(
        root.path().join("stacks/claimed.md"),
        "---\ntitle: A claim\nverdict: good\ntested:\n  driver: \"550.54.15\"\nextends_to:\n  driver: \"550.x\"\n---\n## Result\nRan.\n<script>alert(1)</script>\n",
    )
    .unwrap();
    let app = router(AppState::load(root.path(), false).unwrap());
    let page = call(&app, get("/stacks/claimed")).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("Believed to extend to"));
    assert!(page.body.contains("not tested"));
    assert!(
        !page.body.contains("<script>alert"),
        "HTML in Markdown is not run"
    );
    let bad = call(&app, get("/stacks/rocky92-535-a100-ib")).await;
    assert!(
        bad.body
            .contains("/incidents/2025-10-20-rocky92-driver535-allreduce-latency")
    );
    assert_eq!(
        call(&app, get("/stacks/no-such")).await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        call(&app, get("/stacks/..%2Fetc")).await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn the_json() {
    let root = library_copy();
    let app = router(AppState::load(root.path(), false).unwrap());
    let list = call(&app, get("/api/stacks?gpu=A100")).await.json();
    assert!(list["total"].as_u64().unwrap() >= 4, "{list}");
    assert_eq!(list["stacks"][0]["verdict"], "bad");
    let one = call(&app, get("/api/stacks/rocky92-525-a100-ib")).await;
    assert_eq!(one.status, StatusCode::OK);
    let body = one.json();
    assert_eq!(body["tested"]["driver"], "525.147.05");
    assert_eq!(
        one.headers.get(header::ETAG).unwrap().to_str().unwrap(),
        body["etag"].as_str().unwrap()
    );
    assert!(body["body"].as_str().unwrap().contains("## Result"));
    let missing = call(&app, get("/api/stacks/nope")).await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert!(missing.json()["error"].as_str().unwrap().contains("stack"));
}

#[test]
fn lore_check_reads_stacks() {
    let root = library_copy();
    let ok = lore_in(root.path(), &["check"], b"");
    assert!(ok.status.success(), "{}", stdout(&ok));
    assert!(
        stdout(&ok).contains(" stack(s): 0 error(s)"),
        "{}",
        stdout(&ok)
    );
    std::fs::write(
        root.path().join("stacks/broken.md"),
        "---\ntitle: t\nverdict: fine\ntested:\n  python: 3.10\n---\n",
    )
    .unwrap();
    let broken = lore_in(root.path(), &["check"], b"");
    assert_eq!(broken.status.code(), Some(1));
    let out = stdout(&broken);
    assert!(
        out.contains("stacks/broken.md:3: error: unknown verdict `fine`"),
        "{out}"
    );
    assert!(out.contains("`tested.python` is a YAML number"), "{out}");
}

#[tokio::test]
async fn stacks_are_found_by_their_versions() {
    let root = library_copy();
    let app = router(AppState::load(root.path(), false).unwrap());
    let reply = call(&app, get("/api/search?q=535.129.03&kind=stack")).await;
    assert_eq!(reply.status, StatusCode::OK, "{}", reply.body);
    let hits = reply.json();
    assert_eq!(hits["hits"][0]["id"], "rocky92-535-a100-ib", "{hits}");
    assert!(
        hits["hits"][0]["url"]
            .as_str()
            .unwrap()
            .starts_with("/stacks/rocky92-535-a100-ib")
    );
    let page = call(&app, get("/search?q=torch+1.13.1+525.147.05")).await;
    assert!(
        page.body.contains("/stacks/rocky92-525-a100-ib"),
        "{}",
        page.body
    );
    let bad_kind = call(&app, get("/api/search?q=x&kind=stacks")).await;
    assert_eq!(bad_kind.status, StatusCode::BAD_REQUEST);
}

/// `lore env` on the operator's outage: the half-finished upgrade is a violation, and a paste of
/// the bad 535 stack is recognised as exactly that stack.
#[test]
fn lore_env_judges_a_paste() {
    let root = library_copy();
    let outage = "[ 4216.350214] NVRM: API mismatch: the client has the version 535.104.05, but this kernel module has the version 535.86.01.\n";
    let out = lore_in(root.path(), &["env", "--json"], outage.as_bytes());
    assert_eq!(out.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["verdict"], "violation");
    assert_eq!(report["fingerprint"]["driver"]["value"], "535.104.05");
    assert_eq!(report["fingerprint"]["kernel_module"]["value"], "535.86.01");
    assert_eq!(report["fingerprint"]["kernel_module"]["line"], 1);
    assert_eq!(report["findings"][0]["rule"], "driver-equals-kernel-module");

    let bad_stack = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.129.03  Thu Oct 19 18:56:32 UTC 2023\n\
PRETTY_NAME=\"Rocky Linux 9.2 (Blue Onyx)\"\n\
Linux gpu-a100-23 5.14.0-284.11.1.el9_2.x86_64 #1 SMP PREEMPT_DYNAMIC x86_64 GNU/Linux\n\
| NVIDIA-SMI 535.129.03   Driver Version: 535.129.03   CUDA Version: 12.2     |\n\
|   0  NVIDIA A100-SXM4-80GB  On   | 00000000:07:00.0 Off |    0 |\n\
torch 1.13.1\nCUDA used to build PyTorch: 11.7\nnvidia-nccl-cu11 2.14.3\n";
    let out = lore_in(root.path(), &["env", "--json"], bad_stack.as_bytes());
    assert_eq!(out.status.code(), Some(1), "a stack recorded bad fails");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["stacks"][0]["id"], "rocky92-535-a100-ib");
    assert_eq!(report["stacks"][0]["match"], "exact");
    assert_eq!(report["fingerprint"]["driver_cuda"]["value"], "12.2");
    assert!(report["fingerprint"].get("cuda_toolkit").is_none());

    let good = bad_stack.replace("535.129.03", "525.147.05");
    let out = lore_in(root.path(), &["env"], good.as_bytes());
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("exact"), "{}", stdout(&out));
    let strict = lore_in(
        root.path(),
        &["env", "--strict"],
        b"Driver Version: 580.95.05\n",
    );
    assert_eq!(strict.status.code(), Some(1), "untested under --strict");
    let empty = lore_in(root.path(), &["env", "--json"], b"hello\n");
    let report: serde_json::Value = serde_json::from_slice(&empty.stdout).unwrap();
    assert_eq!(report["verdict"], "unknown");
    assert!(
        report["findings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("nvidia-smi")
    );
}

/// compat/ rules: lore env applies them, lore check runs their examples.
#[test]
fn compat_rules_are_applied_and_checked() {
    let root = library_copy();
    let old_driver = "Driver Version: 470.57.02\nCUDA used to build PyTorch: 12.1\n";
    let out = lore_in(root.path(), &["env", "--json"], old_driver.as_bytes());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["verdict"], "violation", "{report}");
    assert!(report.to_string().contains("cuda-runtime-minimum-driver"));
    // Legal by minor-version compatibility: nvcc 12.4 on a driver whose nvidia-smi says 12.2.
    let legal = "| NVIDIA-SMI 535.129.03   Driver Version: 535.129.03   CUDA Version: 12.2 |\nCuda compilation tools, release 12.4, V12.4.131\n";
    let out = lore_in(root.path(), &["env", "--json"], legal.as_bytes());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_ne!(report["verdict"], "violation", "{report}");
    // ... but a risk: that driver cannot JIT the PTX nvcc 12.4 emits.
    assert_eq!(report["verdict"], "risk", "{report}");
    assert!(report.to_string().contains("toolkit-newer-than-driver"));
    // The other families: a Pascal GPU on a driver past its last branch, on open modules.
    let pascal = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  590.44.01  Release Build
| NVIDIA-SMI 590.44.01   Driver Version: 590.44.01   CUDA Version: 13.1 |
|   0  Tesla P100-PCIE-16GB  Off  | 00000000:3B:00.0 Off |   0 |
";
    let out = lore_in(root.path(), &["env", "--json"], pascal.as_bytes());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["fingerprint"]["cc"]["value"], "6.0", "{report}");
    let broken: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["level"] == "violation")
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    assert!(broken.contains(&"open-modules-need-turing"), "{report}");
    assert!(broken.contains(&"last-branch-for-generation"), "{report}");
    // A printed architecture list that lacks the GPU's.
    let arch = "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation.
The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90.
";
    let out = lore_in(root.path(), &["env", "--json"], arch.as_bytes());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "framework-arch-list" && f["level"] == "violation"),
        "{report}"
    );
    // Compatibility families are searchable.
    let found = lore_in(
        root.path(),
        &["search", "--json", "--kind", "compat", "Pascal", "R580"],
        b"",
    );
    let hits: serde_json::Value = serde_json::from_slice(&found.stdout).unwrap();
    assert_eq!(hits["hits"][0]["id"], "kernel-modules", "{hits}");
    assert!(
        hits["hits"][0]["url"]
            .as_str()
            .unwrap()
            .starts_with("/compat/kernel-modules"),
        "{hits}"
    );
    // A rule whose counterexample passes is a lore check error.
    let text = std::fs::read_to_string(root.path().join("compat/cuda-driver.md")).unwrap();
    std::fs::write(
        root.path().join("compat/cuda-driver.md"),
        text.replace(
            "{driver: \"470.57.02\", cuda_runtime: \"12.1\"}",
            "{driver: \"570.57.02\", cuda_runtime: \"12.1\"}",
        ),
    )
    .unwrap();
    let check = lore_in(root.path(), &["check"], b"");
    assert_eq!(check.status.code(), Some(1));
    assert!(
        stdout(&check).contains("counterexample 1 must be broken but is ok"),
        "{}",
        stdout(&check)
    );
}

/// A paste that shows its environment gets an `environment` in the match JSON and a panel on the
/// match page; a log without versions gets neither.
#[tokio::test]
async fn a_match_reports_the_environment_it_sees() {
    let root = library_copy();
    let app = router(AppState::load(root.path(), false).unwrap());
    let paste = "| NVIDIA-SMI 535.129.03   Driver Version: 535.129.03   CUDA Version: 12.2 |\n\
NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.86.01  Wed Jul 26 23:01:50 UTC 2023\n\
[ 4216.350214] NVRM: API mismatch: the client has the version 535.129.03, but this kernel module has the version 535.86.01.\n";
    let reply = call(
        &app,
        Request::post("/api/match").body(Body::from(paste)).unwrap(),
    )
    .await;
    let report = reply.json();
    assert_eq!(report["causes"][0]["runbook"], "driver-version-mismatch");
    assert_eq!(report["environment"]["verdict"], "violation", "{report}");
    let quiet = call(
        &app,
        Request::post("/api/match")
            .body(Body::from("GPU has fallen off the bus\n"))
            .unwrap(),
    )
    .await
    .json();
    assert!(quiet.get("environment").is_none(), "{quiet}");
    let page = call(
        &app,
        Request::post("/match")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(format!(
                "text={}",
                crate::support::urlencode(paste)
            )))
            .unwrap(),
    )
    .await;
    assert!(page.body.contains("id=\"environment\""), "{}", page.body);
    assert!(page.body.contains("kernel_module"));
    let cli = lore_in(root.path(), &["match", "--json"], paste.as_bytes());
    let report: serde_json::Value = serde_json::from_slice(&cli.stdout).unwrap();
    assert_eq!(
        report["environment"]["fingerprint"]["kernel_module"]["value"],
        "535.86.01"
    );
}

#[tokio::test]
async fn api_env_and_the_compat_page() {
    let root = library_copy();
    let app = router(AppState::load(root.path(), false).unwrap());
    let reply = call(
        &app,
        Request::post("/api/env")
            .body(Body::from(
                "Driver Version: 470.57.02\nCUDA used to build PyTorch: 12.1\n",
            ))
            .unwrap(),
    )
    .await;
    assert_eq!(reply.status, StatusCode::OK);
    let env = reply.json();
    assert_eq!(env["verdict"], "violation", "{env}");
    let empty = call(
        &app,
        Request::post("/api/env").body(Body::from("hello")).unwrap(),
    )
    .await
    .json();
    assert_eq!(empty["verdict"], "unknown");
    let page = call(&app, get("/compat/cuda-driver")).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.body.contains("cuda-runtime-minimum-driver"));
    assert!(page.body.contains("450.80.02"));
    assert!(page.body.contains("minor-version-compatibility.html"));
    assert_eq!(
        call(&app, get("/compat/nope")).await.status,
        StatusCode::NOT_FOUND
    );
    assert!(
        call(&app, get("/stacks"))
            .await
            .body
            .contains("/compat/cuda-driver")
    );
}

#[test]
fn every_gpu_of_a_mixed_machine_is_judged() {
    let root = library_copy();
    // Open modules on a Turing card beside a Pascal one: the second GPU breaks the rule.
    let mixed = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build
GPU 0: NVIDIA GeForce RTX 2060 (UUID: GPU-1b2c3d4e-0000-1111-2222-333344445555)
GPU 1: NVIDIA GeForce GTX 1070 Ti (UUID: GPU-9a8b7c6d-0000-1111-2222-333344445555)
";
    let out = lore_in(root.path(), &["env", "--json"], mixed.as_bytes());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["fingerprint"]["gpu"]["value"], "GeForce RTX 2060");
    let open = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["rule"] == "open-modules-need-turing" && f["level"] == "violation")
        .unwrap_or_else(|| panic!("{report}"));
    assert!(
        open["message"]
            .as_str()
            .unwrap()
            .starts_with("GeForce GTX 1070 Ti (line 3, compute capability 6.1)"),
        "{open}"
    );
    // Two GPUs of one architecture say nothing twice.
    let same = mixed.replace("GTX 1070 Ti", "RTX 2080");
    let out = lore_in(root.path(), &["env", "--json"], same.as_bytes());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_ne!(report["verdict"], "violation", "{report}");
    assert!(!report.to_string().contains("RTX 2080 (line"), "{report}");
}

#[test]
fn lore_new_stack_records_a_paste() {
    let root = library_copy();
    let paste = root.path().join("paste.txt");
    std::fs::write(
        &paste,
        "| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4 |\n|   0  NVIDIA H100 80GB HBM3  On   | 00000000:18:00.0 Off |    0 |\nPyTorch version: 2.3.0+cu121\n",
    )
    .unwrap();
    let from = paste.to_str().unwrap();
    let out = lore_in(
        root.path(),
        &[
            "new",
            "stack",
            "--from",
            from,
            "--title",
            "H100 pilot",
            "--verdict",
            "good",
        ],
        b"",
    );
    assert!(out.status.success(), "{}", crate::support::stderr(&out));
    let text = std::fs::read_to_string(root.path().join("stacks/h100-pilot.md")).unwrap();
    assert!(text.contains("driver: \"550.54.15\""), "{text}");
    assert!(text.contains("framework: \"torch 2.3.0+cu121\""), "{text}");
    assert!(
        !text.contains("driver_cuda"),
        "only the stack vocabulary is recorded"
    );
    let check = lore_in(root.path(), &["check"], b"");
    assert!(check.status.success(), "{}", stdout(&check));
    let again = lore_in(
        root.path(),
        &["new", "stack", "--from", from, "--title", "H100 pilot"],
        b"",
    );
    assert_eq!(again.status.code(), Some(1), "never over an existing stack");
    let nothing = lore_in(
        root.path(),
        &["new", "stack", "--from", "-", "--title", "x"],
        b"no versions here\n",
    );
    assert_eq!(nothing.status.code(), Some(1));
}

/// "Record this stack as tested" from the match page: the same guard as postmortems, then the
/// stack's page.
#[tokio::test]
async fn a_stack_is_recorded_from_the_match_page() {
    let root = library_copy();
    let paste = "| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4 |\nPyTorch version: 2.3.0+cu121\n";
    let form = |title: &str, origin: &str| {
        Request::post("/stacks")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header(header::HOST, "lore.test")
            .header(header::ORIGIN, origin)
            .body(Body::from(format!(
                "title={}&verdict=good&paste={}",
                crate::support::urlencode(title),
                crate::support::urlencode(paste)
            )))
            .unwrap()
    };
    let app = router(AppState::load(root.path(), false).unwrap());
    let page = call(
        &app,
        Request::post("/match")
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(format!(
                "text={}",
                crate::support::urlencode(paste)
            )))
            .unwrap(),
    )
    .await;
    assert!(page.body.contains("Record this stack as tested"));
    let evil = call(&app, form("H100 pilot", "http://evil.example")).await;
    assert_eq!(evil.status, StatusCode::FORBIDDEN);
    let saved = call(&app, form("H100 pilot", "http://lore.test")).await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.body);
    assert_eq!(
        saved.headers.get(header::LOCATION).unwrap(),
        "/stacks/h100-pilot"
    );
    let shown = call(&app, get("/stacks/h100-pilot")).await;
    assert!(shown.body.contains("550.54.15"), "live at once");
    let again = call(&app, form("H100 pilot", "http://lore.test")).await;
    assert_eq!(
        again.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "never over a stack"
    );
    let read_only = router(AppState::load(root.path(), true).unwrap());
    assert_eq!(
        call(&read_only, form("Other", "http://lore.test"))
            .await
            .status,
        StatusCode::FORBIDDEN
    );
}

/// The nearest good stack is summed up by what differs: the operator's "nearest good stack
/// differs only in driver".
#[test]
fn lore_env_names_the_one_field_a_near_stack_differs_in() {
    let root = library_copy();
    let paste = "PRETTY_NAME=\"Rocky Linux 9.2 (Blue Onyx)\"\n\
| NVIDIA-SMI 535.129.03   Driver Version: 535.129.03   CUDA Version: 12.2 |\n\
|   0  NVIDIA A100-SXM4-80GB  On   | 00000000:07:00.0 Off |   0 |\n";
    let out = lore_in(root.path(), &["env"], paste.as_bytes());
    let text = stdout(&out);
    assert!(
        text.contains("differs only in driver: 535.129.03 here, 525.147.05 there"),
        "{text}"
    );
    assert!(text.contains("not in the paste: kernel ("), "{text}");
    // A paste that agrees with no recorded stack on anything gets none listed as near.
    let laptop = "| NVIDIA-SMI 580.82.09   Driver Version: 580.82.09   CUDA Version: 13.0 |\n\
|   0  NVIDIA GeForce GTX 950M  Off  | 00000000:01:00.0 Off |  N/A |\n";
    let out = lore_in(root.path(), &["env", "--json"], laptop.as_bytes());
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["stacks"], serde_json::json!([]), "{report}");
}
