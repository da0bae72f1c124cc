//! `lore watch`: a live stream is reported line by line, before it ends.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use serde_json::Value;

use crate::support::{Root, good_root, stderr};

const XID_OTHER: &str =
    "Nov 29 03:17:41 gpu07 kernel: NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.104.05\n";
const NVML: &str = "Nov 29 03:18:02 gpu07 python[4412]: Failed to initialize NVML: Driver/library version mismatch\n";
const MODPROBE: &str =
    "modprobe: FATAL: Module nvidia not found in directory /lib/modules/6.8.0-45-generic\n";

/// `lore watch <args>` with piped stdin and stdout; stdout lines arrive on the receiver.
fn spawn(root: &Root, args: &[&str]) -> (Child, Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_lore"))
        .arg("watch")
        .args(args)
        .arg("--root")
        .arg(root.path())
        .env_remove("LORE_ROOT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("lore runs");
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

fn next(rx: &Receiver<String>) -> String {
    rx.recv_timeout(Duration::from_secs(20))
        .expect("an output line while the stream is still open")
}

fn nothing_more(rx: &Receiver<String>) {
    match rx.recv_timeout(Duration::from_millis(700)) {
        Err(RecvTimeoutError::Timeout) => {}
        other => panic!("expected no output, got {other:?}"),
    }
}

#[test]
fn lines_written_one_by_one_are_reported_before_the_pipe_closes() {
    let root = good_root();
    let (mut child, rx) = spawn(&root, &["--json"]);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(XID_OTHER.as_bytes()).unwrap();
    stdin.flush().unwrap();
    nothing_more(&rx);

    stdin.write_all(NVML.as_bytes()).unwrap();
    stdin.flush().unwrap();
    let alert: Value = serde_json::from_str(&next(&rx)).unwrap();
    assert_eq!(alert["runbook"], "mismatch");
    assert_eq!(alert["severity"], "critical");
    assert_eq!(alert["title"], "Driver versions differ");
    assert_eq!(alert["signature"], "nvml-mismatch");
    assert_eq!(alert["line"], 2);
    assert_eq!(alert["text"], NVML.trim_end());
    assert!(alert["captures"].is_object());

    // The same cause again within the window: not repeated.
    std::thread::sleep(Duration::from_millis(200));
    stdin.write_all(NVML.as_bytes()).unwrap();
    stdin.flush().unwrap();
    nothing_more(&rx);

    // Another cause, written in two pieces: reported once its line is complete.
    let (head, tail) = MODPROBE.split_at(20);
    stdin.write_all(head.as_bytes()).unwrap();
    stdin.flush().unwrap();
    nothing_more(&rx);
    stdin.write_all(tail.as_bytes()).unwrap();
    stdin.flush().unwrap();
    let alert: Value = serde_json::from_str(&next(&rx)).unwrap();
    assert_eq!(alert["runbook"], "not-loaded");
    assert_eq!(alert["line"], 4);
    assert_eq!(alert["captures"]["module"], "nvidia");

    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        rx.iter().count(),
        0,
        "nothing more at the end of the stream"
    );
}

#[test]
fn a_cause_is_reported_again_after_its_window() {
    let root = good_root();
    let (mut child, rx) = spawn(&root, &["--window", "1"]);
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(NVML.as_bytes()).unwrap();
    stdin.flush().unwrap();
    let first = next(&rx);
    assert!(first.contains("mismatch"), "{first}");
    assert!(first.contains("Driver versions differ"), "{first}");
    assert!(first.contains("line 1: "), "{first}");
    std::thread::sleep(Duration::from_millis(1200));
    stdin.write_all(NVML.as_bytes()).unwrap();
    stdin.flush().unwrap();
    let second = next(&rx);
    assert!(second.contains("line 2: "), "{second}");
    drop(stdin);
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

#[test]
fn a_file_is_followed_as_it_grows() {
    let root = good_root();
    let log = root.path().join("kern.log");
    std::fs::write(&log, XID_OTHER.to_string() + NVML).unwrap();
    let (mut child, rx) = spawn(&root, &["--json", log.to_str().unwrap()]);
    let first: Value = serde_json::from_str(&next(&rx)).unwrap();
    assert_eq!(first["runbook"], "mismatch");
    let mut file = std::fs::OpenOptions::new().append(true).open(&log).unwrap();
    file.write_all(MODPROBE.as_bytes()).unwrap();
    file.flush().unwrap();
    let second: Value = serde_json::from_str(&next(&rx)).unwrap();
    assert_eq!(second["runbook"], "not-loaded");
    assert_eq!(second["line"], 3);
    child.kill().unwrap();
    child.wait().unwrap();

    // --no-follow reads to the end and exits.
    let out = root.lore(
        &["watch", "--no-follow", "--json", log.to_str().unwrap()],
        b"",
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let runbooks: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["runbook"].to_string())
        .collect();
    assert_eq!(runbooks, ["\"mismatch\"", "\"not-loaded\""]);

    let missing = root.lore(&["watch", "no-such.log"], b"");
    assert_eq!(missing.status.code(), Some(2));
    assert!(stderr(&missing).contains("no-such.log"));
}
