//! `lore serve` reloads on changes, and only on changes: reading the library (a `cat`, a `grep`,
//! an editor opening a file, the server's own reload) is not a change. A regression test: the
//! watcher used to pass access events on, so each reload's own reads started the next one and an
//! idle server in the repository root reloaded about three times a second.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use crate::support::{Served, library_copy, serve_with_stderr};

/// The server, its URL, and the lines it logs.
struct Server {
    served: Served,
    url: String,
    log: Receiver<String>,
}

impl Server {
    fn start(root: &Path) -> Server {
        let mut served = serve_with_stderr(root, Stdio::piped());
        let url = served.url.clone();
        let (tx, log) = channel();
        let stderr = served.child.stderr.take().expect("piped");
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        Server { served, url, log }
    }

    /// The reloads logged within `wait` (and up to now).
    fn reloads(&self, wait: Duration) -> Vec<String> {
        let until = Instant::now() + wait;
        let mut out = Vec::new();
        while let Some(left) = until.checked_duration_since(Instant::now()) {
            match self.log.recv_timeout(left) {
                Ok(line) if line.contains("reloaded the library") => out.push(line),
                Ok(_) => {}
                Err(_) => break,
            }
        }
        out
    }

    /// CPU time the server has used so far (user + system).
    fn cpu(&self) -> Duration {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.served.child.id()))
            .expect("/proc/<pid>/stat");
        // Fields after the command name (which is in parentheses): utime and stime are the
        // 12th and 13th of them, in clock ticks.
        let rest = &stat[stat.rfind(')').expect("comm") + 2..];
        let fields: Vec<&str> = rest.split(' ').collect();
        let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
        Duration::from_millis(ticks * 10)
    }

    fn match_text(&self, text: &str) -> String {
        ureq::post(&format!("{}/api/match", self.url))
            .send_string(text)
            .unwrap()
            .into_string()
            .unwrap()
    }
}

/// A copy of the shipped library, as a git work tree with one commit.
fn git_library_copy() -> tempfile::TempDir {
    let dir = library_copy();
    git(dir.path(), &["init", "-q", "-b", "main"]);
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "library"]);
    dir
}

fn git(dir: &Path, args: &[&str]) {
    let status = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .status()
        .expect("git runs");
    assert!(status.success(), "git {args:?}");
}

fn read_everything(root: &Path) {
    for folder in ["runbooks", "incidents"] {
        for entry in std::fs::read_dir(root.join(folder)).unwrap().flatten() {
            let _ = std::fs::read(entry.path()).unwrap();
        }
    }
}

#[test]
fn reading_the_library_is_not_a_change() {
    let root = git_library_copy();
    let server = Server::start(root.path());
    // Let start-up settle (its own reads included).
    let _ = server.reloads(Duration::from_millis(500));
    let before = server.cpu();
    for _ in 0..30 {
        read_everything(root.path());
        std::thread::sleep(Duration::from_millis(20));
    }
    let reloads = server.reloads(Duration::from_millis(1500));
    assert!(reloads.is_empty(), "reads caused reloads: {reloads:#?}");
    let used = server.cpu() - before;
    assert!(
        used < Duration::from_millis(200),
        "an idle server used {used:?} of CPU while its files were read"
    );
}

#[test]
fn one_edit_is_one_reload_of_one_file_and_the_next_paste_sees_it() {
    let root = git_library_copy();
    let server = Server::start(root.path());
    let _ = server.reloads(Duration::from_millis(500));
    let line = "lore-reload-test: quartz widget 42 has melted";
    assert!(!server.match_text(line).contains("lore-reload-test"));
    let path = root.path().join("runbooks/clock-skew.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let edited = text.replacen(
        "signatures:\n",
        "signatures:\n  - id: lore-reload-test\n    pattern: 'lore-reload-test: quartz widget \\d+ has melted'\n",
        1,
    );
    assert_ne!(text, edited, "the runbook has a signatures: list");
    std::fs::write(&path, edited).unwrap();
    let reloads = server.reloads(Duration::from_millis(2000));
    assert_eq!(reloads.len(), 1, "{reloads:#?}");
    assert!(
        reloads[0].contains("read=1"),
        "only the edited file is read again: {}",
        reloads[0]
    );
    let report = server.match_text(line);
    assert!(
        report.contains("\"signature\":\"lore-reload-test\""),
        "{report}"
    );
}

#[test]
fn a_checkout_of_another_branch_is_one_reload() {
    let root = git_library_copy();
    git(root.path(), &["checkout", "-q", "-b", "other"]);
    for n in 0..200 {
        std::fs::write(
            root.path().join(format!("runbooks/branch-{n:03}.md")),
            format!("---\ntitle: Branch runbook {n}\nseverity: low\n---\n## Fix\nNothing.\n"),
        )
        .unwrap();
    }
    git(root.path(), &["add", "."]);
    git(root.path(), &["commit", "-q", "-m", "200 runbooks"]);
    git(root.path(), &["checkout", "-q", "main"]);
    let server = Server::start(root.path());
    let _ = server.reloads(Duration::from_millis(500));
    git(root.path(), &["checkout", "-q", "other"]);
    let reloads = server.reloads(Duration::from_millis(2500));
    assert_eq!(reloads.len(), 1, "{reloads:#?}");
    let page = ureq::get(&format!("{}/api/runbooks/branch-199", server.url))
        .call()
        .unwrap()
        .into_string()
        .unwrap();
    assert!(page.contains("Branch runbook 199"), "{page}");
}
