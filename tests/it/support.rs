//! What the integration tests share: library roots in temp dirs, the real binary run once or
//! served on a loopback port, output decoding, URL encoding, and the fixture runbooks.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use tower::ServiceExt;

/// A library root in a temp dir, removed when dropped.
pub struct Root {
    dir: tempfile::TempDir,
}

impl Default for Root {
    fn default() -> Root {
        Root::new()
    }
}

impl Root {
    pub fn new() -> Root {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join("runbooks")).unwrap();
        std::fs::create_dir_all(dir.path().join("incidents")).unwrap();
        Root { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn file(&self, rel: &str, text: impl AsRef<[u8]>) -> &Root {
        let path = self.dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        self
    }

    /// Runs `lore <args> --root <root>` with `stdin` as input.
    pub fn lore(&self, args: &[&str], stdin: &[u8]) -> Output {
        lore_in(self.path(), args, stdin)
    }
}

pub fn lore_in(root: &Path, args: &[&str], stdin: &[u8]) -> Output {
    run_lore(root, args, stdin, false)
}

/// Runs `lore <args> --root <root>` with its standard output already closed by the reader (as
/// `lore match big.log | head -1` does once `head` has its line).
pub fn lore_with_closed_stdout(root: &Path, args: &[&str], stdin: &[u8]) -> Output {
    run_lore(root, args, stdin, true)
}

fn run_lore(root: &Path, args: &[&str], stdin: &[u8], close_stdout: bool) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lore"))
        .args(args)
        .arg("--root")
        .arg(root)
        .env_remove("LORE_ROOT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("lore runs");
    if close_stdout {
        drop(child.stdout.take());
    }
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    output
}

/// `lore serve` on `root` on a free loopback port; killed when dropped.
pub struct Served {
    pub child: std::process::Child,
    pub url: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn serve(root: &Path) -> Served {
    serve_with_stderr(root, Stdio::null())
}

/// [`serve`], with the server's standard error (its log) going to `stderr`.
pub fn serve_with_stderr(root: &Path, stderr: Stdio) -> Served {
    use std::io::BufRead;
    let mut child = Command::new(env!("CARGO_BIN_EXE_lore"))
        .args(["serve", "--addr", "127.0.0.1:0", "--root"])
        .arg(root)
        .env_remove("LORE_TOKEN")
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("lore serve starts");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().expect("piped"))
        .read_line(&mut line)
        .expect("a first line");
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("serve printed no URL: {line:?}"))
        .trim_end_matches('/')
        .to_string();
    Served { child, url }
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

pub fn json(output: &Output) -> serde_json::Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", stdout(output), stderr(output)))
}

pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Two runbooks that share a generic line, one with a window signature.
pub const MISMATCH: &str = r#"---
title: Driver versions differ
summary: Reload the driver.
severity: critical
related: [not-loaded]
signatures:
  - id: api-mismatch
    pattern: 'NVRM: API mismatch: the client (?:''(?P<process>[^'']*)'' \(pid (?P<pid>\d+)\)\s*(?:NVRM:\s*)?)?has the version (?P<client>\d+(?:\.\d+)+), but\s*(?:NVRM:\s*)?this kernel module has\s*(?:NVRM:\s*)?the version (?P<kernel>\d+(?:\.\d+)+)'
    explain: "client {client}, kernel {kernel}"
    lines: 3
    examples:
      - line: "[ 4216.350214] NVRM: API mismatch: the client has the version 535.104.05, but this kernel module has the version 535.86.01.  Please"
        captures: {client: 535.104.05, kernel: 535.86.01}
      - line: |
          [Tue Mar  5 10:12:44 2024] NVRM: API mismatch: the client 'nvidia-smi' (pid 181223)
          [Tue Mar  5 10:12:44 2024] NVRM: has the version 550.54.15, but this kernel module has
          [Tue Mar  5 10:12:44 2024] NVRM: the version 545.23.08.  Please make sure that this
        captures: {process: nvidia-smi, client: 550.54.15, kernel: 545.23.08}
    counterexamples:
      - "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.104.05"
  - id: nvml-mismatch
    pattern: 'Failed to initialize NVML: Driver/library version mismatch'
    examples: ["Failed to initialize NVML: Driver/library version mismatch"]
---
## Fix
Reboot.
"#;

pub const NOT_LOADED: &str = r#"---
title: Driver not loaded
summary: Load the module.
severity: high
signatures:
  - id: smi-cannot-talk
    pattern: 'couldn''t communicate with the NVIDIA driver'
    weight: 0.3
    examples: ["NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver."]
  - id: modprobe-not-found
    pattern: 'modprobe: FATAL: Module (?P<module>nvidia\S*) not found'
    examples: ["modprobe: FATAL: Module nvidia not found in directory /lib/modules/6.8.0-45-generic"]
---
## Fix
Install it.
"#;

pub fn good_root() -> Root {
    let root = Root::new();
    root.file("runbooks/mismatch.md", MISMATCH)
        .file("runbooks/not-loaded.md", NOT_LOADED);
    root
}

/// `text` percent-encoded for a query string or a form body.
pub fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A copy of the repository's own library in a temp dir, for tests that write into it.
pub fn library_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for folder in lore::library::DOCUMENT_FOLDERS {
        std::fs::create_dir_all(dir.path().join(folder)).unwrap();
        for entry in std::fs::read_dir(repo_root().join(folder))
            .unwrap()
            .flatten()
        {
            std::fs::copy(
                entry.path(),
                dir.path().join(folder).join(entry.file_name()),
            )
            .unwrap();
        }
    }
    dir
}

/// A response of the in-process router: status, headers, body as text.
pub struct Reply {
    pub status: StatusCode,
    pub headers: axum::http::HeaderMap,
    pub body: String,
}

impl Reply {
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

/// Sends `request` to the router in process.
pub async fn call(app: &axum::Router, request: Request<Body>) -> Reply {
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let body = String::from_utf8_lossy(&response.into_body().collect().await.unwrap().to_bytes())
        .into_owned();
    Reply {
        status,
        headers,
        body,
    }
}

/// A JSON request to this site (`Host: lore.test`).
pub fn json_request(
    method: &str,
    uri: &str,
    body: serde_json::Value,
) -> axum::http::request::Builder {
    let _ = body;
    Request::builder()
        .method(method)
        .uri(uri)
        .header(header::CONTENT_TYPE, "application/json")
        .header(header::HOST, "lore.test")
}

pub async fn post_json(app: &axum::Router, uri: &str, body: serde_json::Value) -> Reply {
    let request = json_request("POST", uri, body.clone())
        .body(Body::from(body.to_string()))
        .unwrap();
    call(app, request).await
}

/// A same-site form post.
pub async fn form(app: &axum::Router, uri: &str, fields: &[(&str, &str)]) -> Reply {
    let body: String = fields
        .iter()
        .map(|(k, v)| format!("{}={}", urlencode(k), urlencode(v)))
        .collect::<Vec<_>>()
        .join("&");
    let request = Request::post(uri)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .header(header::HOST, "lore.test")
        .header(header::ORIGIN, "http://lore.test")
        .body(Body::from(body))
        .unwrap();
    call(app, request).await
}

/// Whether the tests run as root.
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .and_then(|l| l.split_whitespace().nth(2).map(|u| u == "0"))
        })
        .unwrap_or(false)
}

/// The body of a GET (panics on anything but 200).
pub fn http_get(url: &str) -> String {
    ureq::get(url)
        .call()
        .unwrap_or_else(|e| panic!("GET {url}: {e}"))
        .into_string()
        .unwrap()
}
