//! Browser tests: headless Chromium driven over WebDriver (chromedriver) against the real
//! `lore serve` on the repository's own library. Screenshots go to `target/screenshots/`.
//! `./test.sh` installs Debian's `chromium` and `chromium-driver` when they are missing.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

use crate::support::{library_copy, repo_root};

const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

struct Killed(Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn find(program: &str) -> PathBuf {
    for dir in ["/usr/bin", "/usr/local/bin", "/usr/lib/chromium"] {
        let path = PathBuf::from(dir).join(program);
        if path.exists() {
            return path;
        }
    }
    panic!(
        "{program} is not installed: run ./test.sh, which installs chromium and chromium-driver"
    );
}

struct Browser {
    _driver: Killed,
    base: String,
    session: String,
}

impl Browser {
    fn start() -> Browser {
        let port = free_port();
        let driver = Killed(
            Command::new(find("chromedriver"))
                .arg(format!("--port={port}"))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("chromedriver starts"),
        );
        let base = format!("http://127.0.0.1:{port}");
        let started = Instant::now();
        while ureq::get(&format!("{base}/status")).call().is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "chromedriver did not come up"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let profile = tempfile::tempdir().unwrap().keep();
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": find("chromium").to_string_lossy(),
                "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                         "--disable-background-networking", "--disable-component-update", "--disable-sync",
                         "--disable-dev-shm-usage", "--hide-scrollbars", "--window-size=1280,1000",
                         format!("--user-data-dir={}", profile.display())]
            }
        }}});
        let response: Value = ureq::post(&format!("{base}/session"))
            .send_json(capabilities)
            .expect("a session")
            .into_json()
            .unwrap();
        let session = response["value"]["sessionId"]
            .as_str()
            .expect("session id")
            .to_string();
        Browser {
            _driver: driver,
            base,
            session,
        }
    }

    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}/session/{}{path}", self.base, self.session);
        let request = ureq::request(method, &url);
        let response = match body {
            Some(body) => request.send_json(body),
            None => request.call(),
        };
        match response {
            Ok(r) => r.into_json::<Value>().unwrap()["value"].clone(),
            Err(ureq::Error::Status(code, r)) => panic!(
                "webdriver {method} {path}: {code} {}",
                r.into_string().unwrap_or_default()
            ),
            Err(e) => panic!("webdriver {method} {path}: {e}"),
        }
    }

    fn go(&self, url: &str) {
        self.call("POST", "/url", Some(json!({ "url": url })));
    }

    fn try_find(&self, css: &str) -> Option<String> {
        let url = format!("{}/session/{}/element", self.base, self.session);
        let response = ureq::post(&url)
            .send_json(json!({"using": "css selector", "value": css}))
            .ok()?;
        let value: Value = response.into_json().ok()?;
        value["value"][ELEMENT].as_str().map(str::to_string)
    }

    /// Waits up to 10 s for an element.
    fn wait(&self, css: &str) -> String {
        let started = Instant::now();
        loop {
            if let Some(id) = self.try_find(css) {
                return id;
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "no element {css} on the page"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn text(&self, element: &str) -> String {
        self.call("GET", &format!("/element/{element}/text"), None)
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    fn type_into(&self, element: &str, text: &str) {
        self.call(
            "POST",
            &format!("/element/{element}/value"),
            Some(json!({ "text": text })),
        );
    }

    fn click(&self, element: &str) {
        self.call(
            "POST",
            &format!("/element/{element}/click"),
            Some(json!({})),
        );
    }

    fn script(&self, script: &str, args: Value) -> Value {
        self.call(
            "POST",
            "/execute/sync",
            Some(json!({ "script": script, "args": args })),
        )
    }

    fn url(&self) -> String {
        self.call("GET", "/url", None)
            .as_str()
            .unwrap_or_default()
            .to_string()
    }

    fn size(&self, width: u32, height: u32) {
        self.call(
            "POST",
            "/window/rect",
            Some(json!({ "width": width, "height": height })),
        );
    }

    fn screenshot(&self, name: &str) {
        let data = self.call("GET", "/screenshot", None);
        let png = base64::engine::general_purpose::STANDARD
            .decode(data.as_str().unwrap())
            .unwrap();
        let dir = repo_root().join("target/screenshots");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{name}.png")), png).unwrap();
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = ureq::delete(&format!("{}/session/{}", self.base, self.session)).call();
    }
}

/// One browser, four journeys: paste a log and see the cause; search in Chinese and see the
/// highlighted hit; open a runbook; write a postmortem through the form and find it in search.
#[test]
fn a_person_in_a_browser() {
    let library = library_copy();
    let server = crate::support::serve(library.path());
    let url = server.url.clone();
    let browser = Browser::start();

    // 1. Paste a log, see the cause.
    browser.go(&format!("{url}/"));
    browser.screenshot("home");
    let paste = "[ 4216.350214] NVRM: API mismatch: the client has the version 535.104.05, but this kernel module has the version 535.86.01.  Please make sure that this kernel module and all NVIDIA driver components have the same version.\n\
                 [ 4216.350901] nvidia-uvm: Loaded the UVM driver, major device number 508.\n\
                 Failed to initialize NVML: Driver/library version mismatch\n\
                 [ 4300.1] NVRM: Xid (PCI:0000:3b:00): 79, pid=1862, name=python3, GPU has fallen off the bus.\n\
                 [ 4301.2] something strange failed at 0x7f3a";
    let area = browser.wait("textarea[name=text]");
    // Set the value directly (typing 500 characters key by key is slow) and submit as a person would.
    browser.script(
        "arguments[0].value = arguments[1];",
        json!([{ ELEMENT: area }, paste]),
    );
    browser.click(&browser.wait(".paste-form button[type=submit]"));
    let first = browser.wait("article.cause h2");
    assert!(browser.url().ends_with("/match"));
    let title = browser.text(&first);
    assert!(
        title.contains("NVIDIA user-space driver and loaded kernel module versions differ"),
        "{title}"
    );
    let causes = browser.script("return Array.from(document.querySelectorAll('article.cause h2')).map(e => e.textContent.trim());", json!([]));
    assert!(
        causes.to_string().contains("fell off the PCIe bus"),
        "{causes}"
    );
    let captures = browser.text(&browser.wait("article.cause .cap"));
    assert!(captures.contains("535.104.05"), "{captures}");
    let highlighted = browser.text(&browser.wait("article.cause .hit-line"));
    assert!(highlighted.contains("API mismatch"), "{highlighted}");
    let unexplained = browser.text(&browser.wait(".unexplained-list"));
    assert!(
        unexplained.contains("something strange failed"),
        "{unexplained}"
    );
    browser.screenshot("match");
    browser.size(390, 844);
    browser.screenshot("match-phone");
    browser.size(1280, 1000);

    // 2. Search in Chinese as you type, see the highlighted hit.
    browser.go(&format!("{url}/"));
    let search = browser.wait("input[data-live-search]");
    browser.type_into(&search, "掉卡");
    let hit = browser.wait("#live-results .result .snippet b");
    assert_eq!(browser.text(&hit), "掉卡");
    let titles = browser.text(&browser.wait("#live-results .results"));
    assert!(titles.contains("GPU fell off the PCIe bus"), "{titles}");
    browser.screenshot("search-live-zh");
    browser.type_into(&search, "\u{E007}"); // Enter: the plain search page
    browser.wait("ol.results .result");
    assert!(browser.url().contains("/search?q="), "{}", browser.url());
    browser.screenshot("search-zh");

    // 3. Open a runbook from the results.
    let link = browser.wait("ol.results a[href='/runbooks/gpu-fallen-off-bus']");
    browser.click(&link);
    let heading = browser.text(&browser.wait("article.doc h1"));
    assert!(heading.contains("GPU fell off the PCIe bus"), "{heading}");
    browser.wait("h2#fix");
    browser.wait(".md pre .copy");
    browser.wait("#signatures .signature");
    browser.screenshot("runbook");

    // 4. Write a postmortem from a paste, with the live preview, and find it in search.
    browser.go(&format!("{url}/"));
    let area = browser.wait("textarea[name=text]");
    let journal = "Nov 29 03:17:40 gpu-a100-99 kernel: [ 4216.350214] NVRM: API mismatch: the client has the version 535.104.05, but this kernel module has the version 535.86.01.\n\
                   Nov 29 03:18:02 gpu-a100-99 nvidia-persistenced[2211]: Failed to initialize NVML: Driver/library version mismatch";
    browser.script(
        "arguments[0].value = arguments[1];",
        json!([{ ELEMENT: area }, journal]),
    );
    browser.click(&browser.wait(".paste-form button[type=submit]"));
    browser.click(&browser.wait(".start-postmortem button"));
    // The match page has a title field too (record this stack): wait for the postmortem form.
    let title = browser.wait("form.incident-form input[name=title]");
    let prefilled = browser.script("return arguments[0].value;", json!([{ ELEMENT: &title }]));
    assert!(
        prefilled.as_str().unwrap_or("").contains("on gpu-a100-99"),
        "{prefilled}"
    );
    browser.script("arguments[0].value = '';", json!([{ ELEMENT: &title }]));
    browser.type_into(&title, "Wombat night: driver half-upgraded on gpu-a100-99");
    let body = browser.wait("form.incident-form textarea[name=body]");
    browser.script(
        "arguments[0].focus(); arguments[0].setSelectionRange(0, 0);",
        json!([{ ELEMENT: &body }]),
    );
    browser.type_into(
        &body,
        "## Quick note\n\nThe wombat-specific detail **matters**.\n\n",
    );
    // The preview follows the typing.
    let started = Instant::now();
    loop {
        let preview = browser.script(
            "return document.querySelector('[data-preview]').innerHTML;",
            json!([]),
        );
        if preview
            .as_str()
            .unwrap_or("")
            .contains("<strong>matters</strong>")
        {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the preview never showed the typed text: {preview}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let rows = browser.script(
        "return document.querySelectorAll('input[name=timeline_text]').length;",
        json!([]),
    );
    assert!(
        rows.as_u64().unwrap_or(0) >= 2,
        "timeline rows from the paste: {rows}"
    );
    browser.screenshot("postmortem-form");
    browser.click(&browser.wait(".incident-form > p > button[type=submit]"));
    let heading = browser.text(&browser.wait("article.doc h1"));
    assert!(heading.contains("Wombat night"), "{heading}");
    assert!(browser.url().contains("/incidents/"), "{}", browser.url());
    browser.screenshot("postmortem-saved");
    browser.go(&format!("{url}/search?q=wombat"));
    let first = browser.text(&browser.wait("ol.results .result-title"));
    assert!(first.contains("Wombat night"), "{first}");
}

/// Teaching from a paste: a line no runbook explains is added to a runbook from the match page
/// (preview first, then save), and matching the same paste again finds it as a signature cause
/// with its captures.
#[test]
fn a_person_teaches_lore_a_new_wording() {
    let library = library_copy();
    let server = crate::support::serve(library.path());
    let url = server.url.clone();
    let browser = Browser::start();

    browser.go(&format!("{url}/"));
    let paste = "[ 4300.1] NVRM: Xid (PCI:0000:3b:00): 79, pid=1862, name=python3, GPU has fallen off the bus.\n\
                 [ 4301.2] nvkms: flip queue wedged on head 2, modeset failed, pid=4411\n";
    let area = browser.wait("textarea[name=text]");
    browser.script(
        "arguments[0].value = arguments[1];",
        json!([{ ELEMENT: area }, paste]),
    );
    browser.click(&browser.wait(".paste-form button[type=submit]"));
    let unexplained = browser.text(&browser.wait(".unexplained-list"));
    assert!(unexplained.contains("flip queue wedged"), "{unexplained}");
    browser.click(&browser.wait(".unexplained-list details.teach summary"));
    let picker = browser.wait(".unexplained-list details.teach input[name=runbook]");
    browser.script(
        "arguments[0].value = 'gpu-hang-timeout'; arguments[0].dispatchEvent(new Event('change'));",
        json!([{ ELEMENT: picker }]),
    );
    let started = Instant::now();
    loop {
        let said = browser.text(&browser.wait(".unexplained-list .teach-result"));
        if said.contains("Passes every check") {
            assert!(said.contains("pid=4411"), "{said}");
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no preview: {said}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    browser.script(
        "document.querySelector('.unexplained').scrollIntoView();",
        json!([]),
    );
    browser.screenshot("teach-preview");
    browser.click(&browser.wait(".unexplained-list .teach-form button.primary"));
    let again = browser.wait(".unexplained-list .teach-result button.primary");
    let said = browser.text(&browser.wait(".unexplained-list .teach-result p.ok"));
    assert!(said.contains("to gpu-hang-timeout"), "{said}");
    browser.script(
        "document.querySelector('.unexplained').scrollIntoView();",
        json!([]),
    );
    browser.screenshot("teach-saved");
    browser.click(&again);
    let started = Instant::now();
    loop {
        let causes = browser.script(
            "return Array.from(document.querySelectorAll('article.cause .cause-meta .mono')).map(e => e.textContent.trim());",
            json!([]),
        );
        if causes.to_string().contains("gpu-hang-timeout") {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the new signature did not match: {causes}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let captures = browser.script(
        "return Array.from(document.querySelectorAll('article.cause .cap')).map(e => e.textContent.trim());",
        json!([]),
    );
    assert!(captures.to_string().contains("pid=4411"), "{captures}");
    browser.screenshot("teach-matched");

    // The stacks a team tested: bad first, the evidence one click away.
    browser.go(&format!("{url}/stacks"));
    let first = browser.text(&browser.wait("table.stacks tbody tr .verdict"));
    assert_eq!(first.to_lowercase(), "bad");
    browser.screenshot("stacks");
    browser.click(&browser.wait("table.stacks tbody tr a.row-title"));
    let evidence = browser.text(&browser.wait("dl.facts"));
    assert!(evidence.contains("Rocky 9.2"), "{evidence}");
    browser.screenshot("stack");
    let text =
        std::fs::read_to_string(library.path().join("runbooks/gpu-hang-timeout.md")).unwrap();
    assert!(
        text.contains("flip queue wedged"),
        "the runbook file holds the new signature"
    );
}
