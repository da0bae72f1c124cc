//! Following a live stream (`journalctl -kf`, `kubectl logs -f`): each piece of input is scanned
//! as soon as its lines are complete, and a cause is reported when its signatures fire, at most
//! once per cause per window, so a storm of identical lines gives one alert.
//!
//! Memory stays bounded on an endless stream: the scanner keeps a chunk at most, its hits are
//! taken after every piece, and the only other state is the time of each cause's last alert.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::{Hit, Matcher, Scanner, render_explain};
use crate::doc::Severity;

/// One cause firing on a line of the stream.
#[derive(Debug, Clone, Serialize)]
pub struct Alert {
    pub runbook: String,
    pub severity: Severity,
    pub title: String,
    pub signature: String,
    /// 1-based line number in the stream.
    pub line: u64,
    pub last_line: u64,
    pub text: String,
    pub captures: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<String>,
    pub path: PathBuf,
}

pub struct Follower<'m> {
    matcher: &'m Matcher,
    scanner: Scanner<'m>,
    window: Duration,
    /// When each runbook (by index) was last reported.
    last_alert: HashMap<usize, Instant>,
}

impl<'m> Follower<'m> {
    /// A follower that reports a cause again only once `window` has passed since its last alert.
    pub fn new(matcher: &'m Matcher, window: Duration) -> Follower<'m> {
        // Every signature, and no error-looking lines: nothing is reported about those here.
        let all = 0..matcher.engine.sigs.len() as u32;
        Follower {
            matcher,
            scanner: Scanner::new(&matcher.engine).only(all),
            window,
            last_alert: HashMap::new(),
        }
    }

    /// Scans `data` (any piece of the stream) and returns the alerts its complete lines raise;
    /// `now` decides which causes are still within their window.
    pub fn push(&mut self, data: &[u8], now: Instant) -> Vec<Alert> {
        self.scanner.feed(data);
        self.scanner.flush();
        let hits = self.scanner.take_hits();
        self.alerts(hits, now)
    }

    /// The end of the stream: scans a last line without a newline and the window signatures
    /// still waiting for lines.
    pub fn finish(self, now: Instant) -> Vec<Alert> {
        let Follower {
            matcher,
            scanner,
            window,
            mut last_alert,
        } = self;
        let mut hits: Vec<Hit> = scanner
            .finish()
            .sigs
            .into_iter()
            .flat_map(|s| s.hits)
            .collect();
        hits.sort_by_key(|h| (h.line, h.sig));
        alerts(matcher, window, &mut last_alert, hits, now)
    }

    fn alerts(&mut self, hits: Vec<Hit>, now: Instant) -> Vec<Alert> {
        alerts(self.matcher, self.window, &mut self.last_alert, hits, now)
    }
}

fn alerts(
    matcher: &Matcher,
    window: Duration,
    last_alert: &mut HashMap<usize, Instant>,
    hits: Vec<Hit>,
    now: Instant,
) -> Vec<Alert> {
    let mut out = Vec::new();
    for hit in hits {
        let sig = &matcher.engine.sigs[hit.sig as usize];
        if let Some(&then) = last_alert.get(&sig.runbook)
            && now.saturating_duration_since(then) < window
        {
            continue;
        }
        last_alert.insert(sig.runbook, now);
        let info = &matcher.runbooks[sig.runbook];
        let captures: BTreeMap<String, String> = hit.captures.into_iter().collect();
        let explain = info.explains[sig.spec]
            .as_deref()
            .map(|template| render_explain(template, &captures));
        out.push(Alert {
            runbook: info.id.clone(),
            severity: info.severity,
            title: info.title.clone(),
            signature: sig.id.clone(),
            line: hit.line,
            last_line: hit.last_line,
            text: hit.text,
            captures,
            explain,
            path: info.path.clone(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::doc::Runbook;

    const XID: &str = r#"---
title: GPU fell off the bus
severity: critical
signatures:
  - id: xid-79
    pattern: 'NVRM: Xid \((?P<pci>[^)]*)\): 79\b'
    explain: "GPU {pci} is gone"
    examples: ["NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus."]
  - id: split
    pattern: 'The NVIDIA GPU (?P<pci>\S+)\s*(?:NVRM:\s*)?installed in this system has\s*(?:NVRM:\s*)?fallen off'
    lines: 3
    examples: ["NVRM: The NVIDIA GPU 0000:01:00.0 installed in this system has fallen off the bus"]
---
"#;
    const OOM: &str = r#"---
title: Host OOM kill
severity: high
signatures:
  - id: oom
    pattern: 'Out of memory: Killed process (?P<pid>\d+)'
    examples: ["Out of memory: Killed process 42 (python3)"]
---
"#;

    fn matcher() -> Matcher {
        let docs: Vec<Runbook> = [("runbooks/xid.md", XID), ("runbooks/oom.md", OOM)]
            .iter()
            .map(|(path, text)| Runbook::parse(Path::new(path), text).0.unwrap())
            .collect();
        Matcher::new(&docs, &[], &Default::default())
    }

    #[test]
    fn each_piece_is_scanned_as_it_arrives() {
        let matcher = matcher();
        let mut f = Follower::new(&matcher, Duration::from_secs(600));
        let t0 = Instant::now();
        assert!(
            f.push(b"[ 1.0] boot\n[ 2.0] NVRM: Xid (PCI:0000:3b:00)", t0)
                .is_empty()
        );
        let alerts = f.push(b": 79, GPU has fallen off the bus.\n", t0);
        assert_eq!(alerts.len(), 1, "the line is complete: reported at once");
        let a = &alerts[0];
        assert_eq!(
            (a.runbook.as_str(), a.signature.as_str(), a.line),
            ("xid", "xid-79", 2)
        );
        assert_eq!(a.captures["pci"], "PCI:0000:3b:00");
        assert_eq!(a.explain.as_deref(), Some("GPU PCI:0000:3b:00 is gone"));
        assert_eq!(a.severity, Severity::Critical);
        let oom = f.push(b"Out of memory: Killed process 42 (python3)\n", t0);
        assert_eq!(oom.len(), 1);
        assert_eq!((oom[0].runbook.as_str(), oom[0].line), ("oom", 3));
    }

    #[test]
    fn once_per_cause_per_window() {
        let matcher = matcher();
        let mut f = Follower::new(&matcher, Duration::from_secs(600));
        let t0 = Instant::now();
        let line = b"NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\n";
        let mut storm = Vec::new();
        for _ in 0..50 {
            storm.extend_from_slice(line);
        }
        assert_eq!(f.push(&storm, t0).len(), 1, "a storm is one alert");
        assert!(f.push(line, t0 + Duration::from_secs(599)).is_empty());
        let again = f.push(line, t0 + Duration::from_secs(600));
        assert_eq!(again.len(), 1, "reported again once the window has passed");
        assert_eq!(again[0].line, 52);
    }

    #[test]
    fn window_signatures_and_the_end_of_the_stream() {
        let matcher = matcher();
        let mut f = Follower::new(&matcher, Duration::from_secs(600));
        let t0 = Instant::now();
        assert!(
            f.push(b"[ 1.1] NVRM: The NVIDIA GPU 0000:b3:00.0\n", t0)
                .is_empty()
        );
        let alerts = f.push(
            b"[ 1.1] NVRM: installed in this system has\n[ 1.1] NVRM: fallen off the bus and is not responding\n",
            t0,
        );
        assert_eq!(alerts.len(), 1);
        assert_eq!(
            (
                alerts[0].signature.as_str(),
                alerts[0].line,
                alerts[0].last_line
            ),
            ("split", 1, 3)
        );
        let mut f = Follower::new(&matcher, Duration::from_secs(600));
        assert!(
            f.push(b"Out of memory: Killed process 7 (x)", t0)
                .is_empty()
        );
        let last = f.finish(t0);
        assert_eq!(
            last.len(),
            1,
            "a last line without a newline counts at the end"
        );
    }

    /// Regression: a window check waiting for lines after its literal's line lost the lines
    /// before it when a chunk ended there (only the last `lines - 1` lines were kept), so a
    /// message whose literal sits on its second line was missed across a chunk boundary.
    #[test]
    fn a_waiting_window_keeps_the_lines_before_its_literal() {
        let matcher = matcher();
        let lines: [&[u8]; 4] = [
            b"[ 1.1] NVRM: The NVIDIA GPU 0000:b3:00.0\n",
            b"[ 1.1] NVRM: installed in this system has\n",
            b"[ 1.1] NVRM: fallen off the bus and is not responding\n",
            b"[ 1.2] something else\n",
        ];
        // The first chunk ends after the third line: the check at line 2 waits for line 4.
        let chunk = lines[..3].iter().map(|l| l.len()).sum();
        let mut scanner = Scanner::with_sizes(&matcher.engine, chunk, 1 << 20);
        for line in lines {
            scanner.feed(line);
        }
        let out = scanner.finish();
        let split = matcher
            .engine
            .sigs
            .iter()
            .position(|s| s.id == "split")
            .unwrap();
        let hits = &out.sigs[split].hits;
        assert_eq!(hits.len(), 1, "{hits:?}");
        assert_eq!((hits[0].line, hits[0].last_line), (1, 3));
    }

    #[test]
    fn memory_stays_bounded_on_a_long_stream() {
        let matcher = matcher();
        let mut f = Follower::new(&matcher, Duration::from_secs(600));
        let t0 = Instant::now();
        let line = b"NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\n";
        for i in 0..20_000u64 {
            f.push(line, t0 + Duration::from_millis(i));
        }
        let (bytes, hits, explained) = f.scanner.retained();
        assert_eq!(hits, 0, "hits are taken after every piece");
        assert!(bytes < 4096, "{bytes} bytes buffered");
        assert!(explained < 64, "{explained} lines remembered");
        assert_eq!(f.last_alert.len(), 1);
    }
}
